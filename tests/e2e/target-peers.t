#!/bin/sh
# lb-target's GET /peers: per client address, the first and last request
# on the server's clock and the count. 300 requests from 127.0.0.1 on one
# connection, then 5 from 127.0.0.2 (curl --interface): two entries with
# those counts exactly, each first <= last, 127.0.0.1's first before
# 127.0.0.2's; POST is refused.
set -eu
. "$(dirname "$0")/target-lib.sh"
command -v curl >/dev/null || skip_all "curl is not installed (scripts/deps test)"
start_target p
"$CLIENT" keepalive "127.0.0.1:$T_PORT" 300 >/dev/null
for _ in 1 2 3 4 5; do curl -s -o /dev/null --interface 127.0.0.2 "http://127.0.0.1:$T_PORT/"; done
"$CLIENT" control "127.0.0.1:$T_CTL" GET /peers > "$tmp/peers.json"
get() {
    perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or exit 1; my $d = decode_json(<$f>);
        my ($e) = grep { $_->{address} eq $ARGV[1] } @{$d->{peers}};
        print $e ? "$e->{requests} " . ($e->{first_ns} <= $e->{last_ns} ? "ordered" : "unordered") . " $e->{first_ns}" : "none"' \
        "$tmp/peers.json" "$1"
}
a=$(get 127.0.0.1) b=$(get 127.0.0.2)
is "${a% *}" "300 ordered" "127.0.0.1: 300 requests, first <= last"
is "${b% *}" "5 ordered" "127.0.0.2: 5 requests (one per connection), first <= last"
check "127.0.0.1's first request came before 127.0.0.2's" test "${a##* }" -lt "${b##* }"
is "$(perl -MJSON::PP -e 'local $/; my $d = decode_json(<>); print scalar(@{$d->{peers}}), "/$d->{others}/$d->{max}"' "$tmp/peers.json")" \
    2/0/1024 "two addresses, none over the cap of 1024"
rc=0; "$CLIENT" control "127.0.0.1:$T_CTL" POST /peers >/dev/null 2>&1 || rc=$?
check "POST /peers is refused" test "$rc" != 0
done_testing
