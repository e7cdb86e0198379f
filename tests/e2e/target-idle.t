#!/bin/sh
# lb-target holds 10,000 idle connections while a keep-alive client still
# gets its responses at full speed: the server's CPU time per response with
# the idle connections open is compared with its CPU time per response
# without them (medians of 3 alternating rounds, each phase the better of
# two half-runs). The rates of both are printed, not asserted: on a shared
# machine they move by 2x either way (see docs/testing.md).
set -eu
. "$(dirname "$0")/target-lib.sh"

IDLE=10000
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((IDLE + 100)) ]; then
    ulimit -n $((IDLE + 100)) 2>/dev/null || { echo "1..0 # SKIP ulimit -n is $(ulimit -n), need $((IDLE + 100))"; exit 0; }
fi
start_target t --body 800B
A=127.0.0.1:$T_PORT

# The client prints holding=N while its idle connections are open in the
# last round and waits for a line on stdin before closing them.
mkfifo "$tmp/go"
"$CLIENT" idlecheck "$A" $IDLE 20000 3 "$T_PID" <"$tmp/go" >"$tmp/idle" 2>"$tmp/idle.err" &
cpid=$!
track $cpid
exec 3>"$tmp/go"
i=0
until grep -q holding "$tmp/idle" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 600 ] || break
    kill -0 $cpid 2>/dev/null || break
    sleep 0.05
done
set -- $(stats connections_open connections_open_max)
ok $([ "$1" -ge $IDLE ] && echo 0 || echo 1) "server holds the $IDLE idle connections (open: $1)"
echo go >&3
exec 3>&-
rc=0; wait $cpid || rc=$?
sed 's/^/# /' "$tmp/idle.err"
is "$rc" 0 "keep-alive client: every response a 200"
line=$(tail -n1 "$tmp/idle")
echo "# $line"
ratio=$(kv ratio "$line") cpu_ratio=$(kv cpu_ratio "$line")
diag "keep-alive rate with $IDLE idle connections / without: $ratio (noise, not asserted)"
# The defect this guards against is work per event that grows with the
# connections held (a scan of the idle ones per wake-up, a timer list walked
# per event): that is CPU per response, which the scheduler counts exactly
# (schedstat) and which other load barely moves, unlike the rate (a ratio of
# 0.79 failed the old 0.80 rate bound with nothing wrong, issue #18; 0.5 to
# 2.0 seen under a CPU burner). BOUND: see docs/testing.md for how it was sized.
ok $(awk -v r="$cpu_ratio" 'BEGIN { exit !(r > 0 && r <= 1.5) }' && echo 0 || echo 1) \
   "server CPU per response with $IDLE idle connections <= 1.5 x without (ratio $cpu_ratio)"
sleep 0.2
set -- $(stats connections_open responses_completed bad_requests)
is "$1" 0 "every connection closed afterwards"
is "$2" 120000 "responses_completed = 6 x 20000 exactly"
is "$3" 0 "idle connections are not bad requests"
done_testing
