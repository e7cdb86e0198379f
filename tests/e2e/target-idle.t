#!/bin/sh
# lb-target holds 10,000 idle connections while a keep-alive client still
# gets its responses at full speed: its rate with the idle connections open
# is compared with its rate without them (medians of 3 alternating rounds,
# a ratio, since the machine is shared).
set -eu
. "$(dirname "$0")/target-lib.sh"

IDLE=10000
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((IDLE + 100)) ]; then
    ulimit -n $((IDLE + 100)) 2>/dev/null || { echo "1..0 # SKIP ulimit -n is $(ulimit -n), need $((IDLE + 100))"; exit 0; }
fi
start_target t --body 800B
A=127.0.0.1:$PORT

# The client prints holding=N while its idle connections are open in the
# last round and waits for a line on stdin before closing them.
mkfifo "$tmp/go"
"$CLIENT" idlecheck "$A" $IDLE 20000 3 <"$tmp/go" >"$tmp/idle" 2>"$tmp/idle.err" &
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
ratio=$(kv ratio "$line")
# The defect this guards against is work per event that grows with the
# connections held: a scan of 10,000 idle ones per wake-up would cost (by
# estimate, not measured) tens of microseconds against ~10 us per request,
# a ratio well under 0.5. Noise on this shared 2-core machine moved the
# median ratio down to 0.79 with nothing wrong (issue #18), so 0.80 failed
# on noise.
ok $(awk -v r="$ratio" 'BEGIN { exit !(r >= 0.50) }' && echo 0 || echo 1) \
   "keep-alive rate with $IDLE idle connections >= 0.50 x the rate without (ratio $ratio)"
sleep 0.2
set -- $(stats connections_open responses_completed bad_requests)
is "$1" 0 "every connection closed afterwards"
is "$2" 120000 "responses_completed = 6 x 20000 exactly"
is "$3" 0 "idle connections are not bad requests"
done_testing
