#!/bin/sh
# lb-gen --post SIZE (issue #40) against a real lb-target --expect-body:
# every request a POST whose body lb-target reads and counts. Over plain
# TCP (1 KiB bodies, keep-alive and a connection per request) and TLS 1.3
# (1 KiB, and 1 MiB bodies that take many writes each): lb-gen's completed
# count equals the server's requests with a body, body_bytes is exactly
# completed x SIZE, nothing mismatched, too large or short; a body of
# another size than lb-target expects is counted, every one, as a
# mismatch; a body over --max-body gets 413s. Counts only: no timing.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/gen-lib.sh"

snap() { ctl "$T_CTL" GET /stats >"$tmp/$1.stats"; }
delta() { echo $(($(jget "$tmp/$2.stats" "$3") - $(jget "$tmp/$1.stats" "$3"))); }

# post NAME ARGS...: lb-gen ARGS (with its --post) between two snapshots;
# "completed errors | with_body bytes mismatch too_large short" into $R.
post() {
    name=$1
    shift
    snap "$name.a"
    rc=0
    "$GEN" --quiet -d 500ms --json "$tmp/$name.json" "$@" 2>"$tmp/$name.err" || rc=$?
    snap "$name.b"
    R="$(jget "$tmp/$name.json" requests.completed errors.total | tr '\n' ' ')|"
    for k in requests_with_body body_bytes body_mismatch body_too_large body_short; do
        R="$R $(delta "$name.a" "$name.b" "$k")"
    done
    diag "$name: exit $rc, lb-gen completed errors | server with_body bytes mismatch too_large short: $R"
}

# exact NAME SIZE: every completed request's body counted, exactly SIZE bytes each.
exact() {
    set -- "$1" "$2" $(echo "$R" | tr '|' ' ')
    check "$1: $3 POSTs completed, no error ($4); the server read $5 bodies, $6 bytes = $3 x $2; none mismatched, too large or short ($7 $8 $9)" \
        [ "$3" -gt 0 -a "$4" = 0 -a "$5" = "$3" -a "$6" = $(($3 * $2)) -a "$7" = 0 -a "$8" = 0 -a "$9" = 0 ]
}

start_target plain --expect-body 1024 --max-body 1024
post ka -c 4 --post 1KiB "$T_URL"
exact ka 1024
is "$(jget "$tmp/ka.json" config.post_body_bytes)" 1024 "ka: the JSON's config says post_body_bytes 1024"
post close -c 2 --post 1024B --no-keepalive "$T_URL"
exact close 1024
post open -R 400 --post 1KiB "$T_URL"
exact open 1024

# A body of another size than the server expects: every one counted.
post short -c 2 --post 1KB "$T_URL"
set -- $(echo "$R" | tr '|' ' ')
check "short: 1000-byte bodies against --expect-body 1024: all $3 with a body counted as mismatched ($5), $4 bytes = $3 x 1000" \
    [ "$1" -gt 0 -a "$3" = "$1" -a "$5" = "$1" -a "$4" = $(($1 * 1000)) ]
post long -c 1 --post 2KiB "$T_URL"
set -- $(echo "$R" | tr '|' ' ')
check "long: 2 KiB bodies over --max-body 1024 are refused with 413, counted too large ($6 of $1 responses, $2 status errors)" \
    [ "$1" -gt 0 -a "$6" = "$1" -a "$2" = "$1" ]
stop_target "$T_PID"

start_target tls --tls 1.3 --tls-ca "$tmp/ca.pem" --expect-body 1MiB --max-body 1MiB
U="https://127.0.0.1:$T_PORT/"
post tls1m -c 2 --post 1MiB --cacert "$tmp/ca.pem" "$U"
exact tls1m 1048576
stop_target "$T_PID"
start_target tls1k --tls 1.3 --tls-ca "$tmp/ca1k.pem" --expect-body 1024
post tls1k -c 4 --post 1KiB --cacert "$tmp/ca1k.pem" "https://127.0.0.1:$T_PORT/"
exact tls1k 1024
stop_target "$T_PID"

# Bad values: refused before any load, exit 2.
for v in 0B 2MiB 1kilo; do
    rc=0; "$GEN" --quiet -c 1 -d 100ms --post "$v" "$T_URL" 2>"$tmp/bad.err" || rc=$?
    is "$rc" 2 "--post $v is refused, exit 2"
    check "... saying so: $(head -c 100 "$tmp/bad.err")" grep -q -- "--post" "$tmp/bad.err"
done
check "--help names --post" sh -c "'$GEN' --help | grep -q -- '--post SIZE'"
done_testing
