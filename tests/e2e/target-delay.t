#!/bin/sh
# lb-target --delay 20ms: at one connection the measured mean response time
# is within 0.3 ms of 20 ms (the best of three runs' means: the machine is
# shared), responses are never early, and the server's own time agrees.
#
# Other work on this machine (builds, other tests, CPU burners) can keep a
# woken thread off the CPU for milliseconds, which is not the server's
# doing: where we may (root, chrt present), server and client run at a
# real-time priority for this measurement. Both sleep nearly all the time.
set -eu
. "$(dirname "$0")/target-lib.sh"

rt=""
if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null 2>&1 && chrt -f 10 true 2>/dev/null; then
    rt="chrt -f 10"
    echo "# server and client at SCHED_FIFO 10 (isolation from other load)"
fi
TARGET_WRAP=$rt start_target t --delay 20ms --body 800B
A=127.0.0.1:$PORT
means=""
min_all=999999999
for r in 1 2 3; do
    out=$($rt "$CLIENT" latency "$A" 75)
    echo "# run $r: $(echo "$out" | tail -n1)"
    means="$means $(kv mean_ns "$(echo "$out" | tail -n1)")"
    m=$(kv min_ns "$(echo "$out" | tail -n1)")
    [ "$m" -lt "$min_all" ] && min_all=$m
done
# The best of the three runs' means: other work on a shared machine only ever
# adds latency to a run, never removes it, so the best run is the closest
# look at the server's own precision; a server that is late every time still
# fails. (Seen here: 20.13-20.31 ms; the margin is thin, see the issue notes.)
best=$(echo $means | tr ' ' '\n' | sort -n | sed -n 1p)
echo "# means: $means ns; best: $best ns"
off=$((best - 20000000)); [ $off -lt 0 ] && off=$((-off))
ok $([ $off -le 300000 ] && echo 0 || echo 1) "mean response time within 0.3 ms of 20 ms (best of 3 runs' means: $best ns)"
ok $([ "$min_all" -ge 20000000 ] && echo 0 || echo 1) "no response earlier than the delay (fastest: $min_all ns)"

# The server holds each response from the request's arrival in the kernel;
# its server_time_ns counts from when it parsed the request, which can be
# later, so only the mean is checked.
set -- $(stats responses_completed server_time_ns.mean)
is "$1" 225 "server counted 225 responses"
off=$(($2 - 20000000)); [ $off -lt 0 ] && off=$((-off))
ok $([ $off -le 300000 ] && echo 0 || echo 1) "server mean time within 0.3 ms of 20 ms ($2 ns)"

# Delayed, pipelined responses keep their order and count.
out=$("$CLIENT" pipeline "$A" 400 8)
is "$(kv ok "$out")" 400 "pipelined requests under a delay are all answered"
done_testing
