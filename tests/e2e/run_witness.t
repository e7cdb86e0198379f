#!/bin/sh
# The bottleneck's witnesses calibrated with fault programs that create
# exactly one limit each (issue #17):
# - thread: tests/progs/fault-hot-thread runs one spinning thread and 8
#   idle ones beside the real lb-gen, on a 2-CPU set: the tree stays far
#   below 90 % of its set, one thread is at a whole core. The truth is the
#   hot thread's own CPU clock over its life (its stderr line): the row's
#   figure must agree with it, and the witness fires when the machine gave
#   the thread its core (a busy machine may not: then only the agreement
#   and the cpu witness's silence are checked).
# - queueing: tests/faults/fault-holdback.sh takes 200 closed-model users
#   but keeps 8 requests in flight, the rest queued inside the client:
#   the server sees 8 in flight, the client's latency is seconds.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs (the tool's set is CPUs 0-1)"

cat > "$tmp/hot.sh" <<S
#!/bin/sh
exec "$LB_BUILD/tests/progs/fault-hot-thread" 8 "$LB_BUILD/bin/lb-gen" "\$@"
S
cat > "$tmp/holdback.sh" <<S
#!/bin/sh
exec "$LB_SRC/tests/faults/fault-holdback.sh" "$LB_BUILD/bin/lb-gen" 20 8 "\$@"
S
chmod +x "$tmp/hot.sh" "$tmp/holdback.sh"
cat > "$tmp/witness.yaml" <<Y
name: witness
target: {delay: 20ms}
load: {connections: 10, duration: 6s}
sampling: {interval: 500ms}
cpus: {tool: 0-1, target: 1}
tools:
  - {tool: lb-gen, label: hot-thread, bin: $tmp/hot.sh}
  - {tool: lb-gen, label: holdback, bin: $tmp/holdback.sh, load: {connections: 200, duration: 6s}}
Y
"$LB" run --quiet --out "$tmp/run" "$tmp/witness.yaml" >/dev/null 2>&1 || true
J=$tmp/run/run.json

# --- thread ------------------------------------------------------------------
is "$(jget "$J" runs.0.status)" ok "hot-thread: the run is ok (lb-gen inside the fault program)"
share=$(sed -n 's/^fault-hot-thread: hot thread .*share=\([0-9.]*\).*/\1/p' "$tmp/run/hot-thread/stderr.txt")
fig=$(jget "$J" runs.0.limits.tool_thread_pct)
cpu=$(jget "$J" runs.0.limits.tool_cpu_share)
diag "hot thread's own share ${share:-?}; the row: busiest thread $fig %, tree $cpu of 2 CPUs"
check "the series has a thread_max_pct column" grep -q '^t_s,.*,thread_max_pct$' "$tmp/run/samples/hot-thread.csv"
# The hold is the whole 6 s load, the thread's life is a little longer
# (start-up and stop): 10 points of margin.
check "the busiest thread's figure ($fig %) is the hot thread's own share (${share:-?}) within 10 points" \
    perl -e 'exit !($ARGV[0] ne "" && $ARGV[1] ne "null" && abs($ARGV[1] - 100 * $ARGV[0]) <= 10)' -- "${share:-}" "$fig"
check "the tree's share of its 2 CPUs ($cpu) stays below 0.9: the cpu witness does not fire" \
    perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] < 0.9)' -- "$cpu"
if perl -e 'exit !($ARGV[0] >= 0.95)' -- "${share:-0}"; then
    is "$(jget "$J" runs.0.limits.witness)" thread "the machine gave the thread its core: the witness is thread"
    is "$(jget "$J" runs.0.limits.bottleneck)" tool "and the bottleneck is the tool"
    check "the Bottleneck cell reads 'tool (one thread at N%)'" \
        grep -Eq '^\| hot-thread \| .* \| tool \(one thread at (9[0-9]|1[0-9][0-9])%\) \|$' "$tmp/run/summary.md"
elif perl -e 'exit !($ARGV[0] < 0.85)' -- "${share:-0}"; then
    check "the thread got ${share:-?} of a core (a busy machine): the witness is not thread" \
        test "$(jget "$J" runs.0.limits.witness)" != thread
    skip "the witness firing: the machine gave the hot thread ${share:-?} of a core, not its whole core"
    skip "the bottleneck (as above)"
else
    skip "the hot thread got ${share:-?} of a core: too near the 0.9 threshold to judge either way"
    skip "the bottleneck (as above)"
    skip "the Bottleneck cell (as above)"
fi

# --- queueing ----------------------------------------------------------------
is "$(jget "$J" runs.1.limits.witness)" queueing "holdback: the witness is queueing"
is "$(jget "$J" runs.1.limits.bottleneck)" tool "holdback: the bottleneck is the tool"
inflight=$(jget "$J" runs.1.limits.queueing.in_flight)
check "at most 8 in flight at the server ($inflight), of 200 asked" \
    perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] <= 8.5)' -- "$inflight"
check "the Bottleneck cell names the queueing witness" \
    grep -Eq '^\| holdback \| .* \| tool \(queueing: 200 asked, [0-9] in flight at the server\) \|$' "$tmp/run/summary.md"
done_testing
