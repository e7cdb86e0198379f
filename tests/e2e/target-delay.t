#!/bin/sh
# lb-target --delay 20ms: at one connection the measured median response
# time, less the same client's median round trip to an lb-target without a
# delay, is within 0.3 ms of 20 ms (the best of three runs each: the
# machine is shared), responses are never early, and the server's own
# median time agrees.
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
# best_median ADDR [GAP_MS]: 3 runs of 75 requests at one connection (GAP_MS
# idle before each); sets best to the smallest of their medians and min_all
# to the fastest response.
best_median() {
    medians=""
    min_all=999999999
    for r in 1 2 3; do
        out=$($rt "$CLIENT" latency "$1" 75 ${2:-})
        last=$(echo "$out" | tail -n1)
        echo "# run $r: $last"
        medians="$medians $(kv median_ns "$last")"
        m=$(kv min_ns "$last")
        [ "$m" -lt "$min_all" ] && min_all=$m
    done
    best=$(echo $medians | tr ' ' '\n' | sort -n | sed -n 1p)
    echo "# medians: $medians ns; best: $best ns"
}

# The machine's own round trip (loopback, waking a server that idled) is
# not the server's delay: measure it against an lb-target without one,
# idle 20 ms before each request as the delayed server is. Beside a busy
# core the raw best median was 20.16-20.25 ms, 0.05 ms from the bound; a
# CI machine may be slower still. That round trip was 0.17-0.26 ms, and
# the median less it 19.94-20.00 ms, in 6 runs beside the burner; on the
# quiet machine 0.35-0.46 ms, and 19.80-19.94 ms.
TARGET_WRAP=$rt start_target t0 --body 800B
best_median "127.0.0.1:$T_PORT" 20
rtt=$best
stop_target "$T_PID"
TARGET_WRAP=$rt start_target t --delay 20ms --body 800B
A=127.0.0.1:$T_PORT
best_median "$A"
# The best of the three runs' medians: other work on a shared machine only
# ever adds latency, never removes it, so the best run is the closest look
# at the server's own precision; a server that is late every time still
# fails. The median, not the mean: beside a busy core a few responses are
# held up for milliseconds (the best of 3 means once reached 20.31 ms,
# past this bound, while the server's own mean stayed near 20 ms), and a
# mean carries them, a median does not. A timer of millisecond grain is
# late by half a millisecond on the median as well, so it still fails.
# Late by at most 0.3 ms beyond that round trip; early is the next check's,
# exactly (the round trip to a waking server is itself noisy: quiet, it was
# 0.35-0.46 ms while the delayed median sat 0.24-0.29 ms above 20 ms).
late=$((best - 20000000 - rtt))
ok $([ $late -le 300000 ] && echo 0 || echo 1) \
    "median response time at most 0.3 ms above 20 ms plus the round trip (best of 3 medians: $best ns, round trip $rtt ns)"
ok $([ "$min_all" -ge 20000000 ] && echo 0 || echo 1) "no response earlier than the delay (fastest: $min_all ns)"

# The server holds each response from the request's arrival in the kernel;
# its server_time_ns counts from when it parsed the request, which can be
# later when the server's thread is woken late, so each such response reads
# short by that much. The median, not the mean: on CI's busy machine a few
# late wake-ups took the mean to 19.49 ms (0.51 ms short) while the client's
# best median was on time; a server timing with the wrong clock or unit
# misses this by far more than 0.3 ms on most responses, so it still fails.
set -- $(stats responses_completed server_time_ns.p50 server_time_ns.mean)
is "$1" 225 "server counted 225 responses"
echo "# server time: median $2 ns, mean $3 ns"
off=$(($2 - 20000000)); [ $off -lt 0 ] && off=$((-off))
ok $([ $off -le 300000 ] && echo 0 || echo 1) "server median time within 0.3 ms of 20 ms ($2 ns)"

# Delayed, pipelined responses keep their order and count.
out=$("$CLIENT" pipeline "$A" 400 8)
is "$(kv ok "$out")" 400 "pipelined requests under a delay are all answered"
done_testing
