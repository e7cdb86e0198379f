#!/bin/sh
# lb-target's latency shapes: a seeded lognormal delay whose measured p50
# and p99 (the server's own histogram, over 100,000+ responses driven by
# lb-gen) are within 2 % of the configured ones; the seed and shape in the
# first line and /stats; scheduled stalls that hold every response due in
# them until they end, listed by GET /stalls; pipelined answers in order
# under drawn delays.
#
# As in target-delay.t, where we may (root, chrt present) server and client
# run at a real-time priority: other work on a shared machine can keep a
# woken thread off the CPU for milliseconds, which is not the server's doing.
set -eu
. "$(dirname "$0")/target-lib.sh"
GEN=$LB_BUILD/bin/lb-gen
[ -x "$GEN" ] || skip_all "$GEN not built (run make)"

rt=""
if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null 2>&1 && chrt -f 10 true 2>/dev/null; then
    rt="chrt -f 10"
    echo "# server and client at SCHED_FIFO 10 (isolation from other load)"
fi

# --- lognormal p50 20 ms, p99 100 ms, seed 1 ---
TARGET_WRAP=$rt start_target logn --delay-dist lognormal --delay-p50 20ms --delay-p99 100ms --seed 1
line=$(head -n1 "$tmp/logn.out")
check "the first line names the shape and the seed" \
    sh -c "echo '$line' | grep -q '\"delay\":{\"dist\":\"lognormal\",\"p50_ns\":20000000,\"p99_ns\":100000000,\"seed\":1}'"
# 600 connections, closed loop: about 23,000 responses a second (mean
# delay 25.4 ms), so 5 s give 100,000 and more (118,043 seen; 300 for
# 10 s gave 117,893, p50 20.04 ms and the same p99 bucket).
$rt "$GEN" -c 600 -d 5s -q --json "$tmp/gen.json" "http://127.0.0.1:$T_PORT/" >/dev/null
set -- $(stats responses_completed server_time_ns.p50 server_time_ns.p99 delay.seed)
diag "server: $1 responses, p50 $2 ns, p99 $3 ns"
ok $([ "$1" -ge 100000 ] && echo 0 || echo 1) "100,000 responses or more ($1)"
ok $(awk -v v="$2" 'BEGIN { d = v / 20e6 - 1; exit !(d < 0.02 && d > -0.02) }' && echo 0 || echo 1) \
    "server p50 within 2 % of 20 ms ($2 ns)"
ok $(awk -v v="$3" 'BEGIN { d = v / 100e6 - 1; exit !(d < 0.02 && d > -0.02) }' && echo 0 || echo 1) \
    "server p99 within 2 % of 100 ms ($3 ns)"
is "$4" 1 "/stats records the seed"

# Pipelined requests under drawn delays: every answer, in order (a later
# request's shorter draw waits for the earlier ones on its connection).
out=$("$CLIENT" pipeline "127.0.0.1:$T_PORT" 400 8)
is "$(kv ok "$out")" 400 "pipelined requests under drawn delays are all answered"
kill "$T_PID"; wait "$T_PID" 2>/dev/null || true

# --- stalls: 1 ms delay, 300 ms stall every 1 s ---
TARGET_WRAP=$rt start_target stall --delay 1ms --stall-every 1s --stall-for 300ms
out=$($rt "$CLIENT" latency "127.0.0.1:$T_PORT" 2000 | tail -n1)
max=$(kv max_ns "$out"); p99=$(kv p99_ns "$out")
diag "one connection through two stalls: $out"
ok $([ "$max" -ge 290000000 ] && [ "$max" -le 400000000 ] && echo 0 || echo 1) \
    "a request due in a stall waits until it ends (slowest: $max ns)"
ok $([ "$p99" -lt 50000000 ] && echo 0 || echo 1) "requests outside the stalls keep the 1 ms delay (p99 $p99 ns)"
stalls=$("$CLIENT" control "127.0.0.1:$T_CTL" GET /stalls)
n=$(echo "$stalls" | perl -MJSON::PP -e 'local $/; print scalar @{decode_json(<STDIN>)->{stalls}}')
ok $([ "$n" -ge 2 ] && echo 0 || echo 1) "GET /stalls lists the stalls begun ($n)"
is "$(echo "$stalls" | perl -MJSON::PP -e 'local $/; my $s = decode_json(<STDIN>)->{stalls};
     print $s->[1]{start_ns} - $s->[0]{start_ns}, " ", $s->[0]{end_ns} - $s->[0]{start_ns}')" \
    "1000000000 300000000" "stalls start 1 s apart and last 300 ms"
begun=$(stats stalls_begun)
ok $([ "$begun" -ge "$n" ] && [ "$begun" -le $((n + 1)) ] && echo 0 || echo 1) "/stats counts them too ($begun)"

# --- bad shapes are one line and exit 2 ---
set +e
"$TARGET" --port 0 --control-port 0 --delay-dist lognormal --delay-p50 50ms --delay-p99 20ms 2>"$tmp/bad.err"
rc=$?
set -e
is "$rc" 2 "p99 below p50: exit status 2"
check "... with a sentence naming p99" grep -q "p99 above p50" "$tmp/bad.err"
done_testing
