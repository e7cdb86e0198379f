#!/bin/sh
# lb-target against hostile clients on the wire, each beside a well-behaved
# client: a pipelining flood that does not read (bounded memory, answers in
# order, exact counts).
set -eu
. "$(dirname "$0")/target-lib.sh"
HOSTILE=$LB_BUILD/tests/progs/hostile-client
[ -x "$HOSTILE" ] || skip_all "$HOSTILE not built (run make)"

rss_kb() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/"$TPID"/status; }
nfds() { ls /proc/"$TPID"/fd | wc -l; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }' && echo 0 || echo 1; }
# settle: wait (up to 5 s) until the server has closed every connection.
settle() {
    i=0
    while [ "$(stats connections_open)" != 0 ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
}
RSS_MAX_KB=65536

# flood NAME N GOOD_N [lb-target options]: N pipelined requests written
# without reading for a second, a keep-alive client of GOOD_N beside it.
flood() {
    name=$1 n=$2 good=$3; shift 3
    start_target "$name" "$@"
    A=127.0.0.1:$PORT
    rss0=$(rss_kb VmRSS)
    mkfifo "$tmp/$name.go"
    "$HOSTILE" flood "$A" "$n" 1000 <"$tmp/$name.go" >"$tmp/$name.flood" &
    fpid=$!
    track $fpid
    exec 3>"$tmp/$name.go"
    "$CLIENT" keepalive "$A" "$good" >"$tmp/$name.good" 2>&1 &
    gpid=$!
    track $gpid
    i=0
    until grep -q stalled "$tmp/$name.flood" 2>/dev/null; do
        i=$((i + 1)); [ $i -lt 200 ] || break
        sleep 0.05
    done
    sent=$(kv sent "$(head -n1 "$tmp/$name.flood")")
    rss1=$(rss_kb VmRSS)
    echo go >&3
    exec 3>&-
    rc=0; wait $fpid || rc=$?
    line=$(tail -n1 "$tmp/$name.flood")
    diag "$name ($*): $sent of $n requests written before the first read; $line"
    is "$rc/$(kv read "$line")" "0/$n" "$name: all $n pipelined requests answered, in order (GET, HEAD, HTTP/1.0 in turn)"
    rc=0; wait $gpid || rc=$?
    is "$rc/$(kv ok "$(cat "$tmp/$name.good")")" "0/$good" "$name: the keep-alive client beside it got its $good responses"
    rss2=$(rss_kb VmHWM)
    diag "$name: server RSS ${rss0} kB at start, ${rss1} kB while the client did not read, peak ${rss2} kB"
    ok $(lt "$rss2" $RSS_MAX_KB) "$name: server memory stayed bounded (peak RSS $rss2 kB < $RSS_MAX_KB kB)"
    ok $(kill -0 "$TPID" 2>/dev/null && echo 0 || echo 1) "$name: lb-target still up"
    settle
    set -- $(stats responses_completed requests_parsed responses_aborted inflight bad_requests)
    is "$1" $((n + good)) "$name: responses_completed = the $n the flood read + the $good of the other client"
    is "$2/$3/$4/$5" "$((n + good))/0/0/0" "$name: requests_parsed exact; nothing aborted, in flight or bad"
}

# 1. Pipelining floods. 1 KiB bodies: 100,000 unread answers would be
# ~110 MB. With a delay, 64 KiB bodies: one 64 KiB read holds ~2,000
# requests, ~130 MB of answers if all were queued at once.
flood flood 100000 20000 --body 1KiB
flood dflood 10000 100 --body 64KiB --delay 20ms

done_testing
