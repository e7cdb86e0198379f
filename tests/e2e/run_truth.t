#!/bin/sh
# Measurement truth on real runs against lb-target: a planted count error is
# a mismatch, a latency below the server's delay is flagged, an open model
# that keeps 3 requests in flight while 200 users were asked for is flagged
# by Little's law, an open model that cannot reach its rate is
# generator-limited, and lb-gen's own overhead at one connection is small.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
# No chart image is checked here: gnuplot's rendering, 2-4 s of every run
# on a busy machine, is report_sweep.t's and report_charts.t's to test.
export LOADBENCH_GNUPLOT=
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
# Timing on a shared machine: other work (builds, other tests, a CPU burner)
# can keep a woken thread off the CPU for milliseconds, or a pinned target
# off its core, which is not loadbench's doing. Where we may (root, chrt
# present), the runs whose figures are timing (all but the loopback pair,
# which runs flat out and is checked for accounting only) run at a real-time
# priority, as target-delay.t does; they sleep nearly all the time, except
# the target-bound run, which burns one core for 3 s.
rt=""
if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null 2>&1 && chrt -f 10 true 2>/dev/null; then
    rt="chrt -f 10"
    diag "timing runs at SCHED_FIFO 10 (isolation from other load)"
fi

mkdir -p "$tmp/liar"
cp "$LB_SRC/tests/faults/fault-liar.sh" "$tmp/liar/"
echo "$LB_BUILD/bin/lb-gen" > "$tmp/liar/.lbgen"
cat > "$tmp/truth.yaml" <<Y
name: truth
target: {delay: 20ms}
load: {connections: 10, duration: 1s}
sampling: {interval: 500ms}
tools:
  - {tool: lb-gen, label: liar, bin: $tmp/liar/fault-liar.sh}
  - {tool: lb-gen, label: one, load: {connections: 1, duration: 2s}}
  - {tool: lb-gen, label: arrivals, load: {model: open, rate: 150, duration: 2s, max_inflight: 200}}
  - {tool: lb-gen, label: capped, load: {model: open, rate: 200, duration: 2s, max_inflight: 1}}
Y
$rt "$LB" run --quiet --out "$tmp/run" "$tmp/truth.yaml" >/dev/null 2>&1 || true
J=$tmp/run/run.json

is "$(jget "$J" runs.0.crosscheck.verdict)" mismatch "a planted count error is a mismatch"
is "$(jget "$J" runs.0.crosscheck.difference)" 1000 "by exactly the planted 1000"
check "the mismatch is in summary.md" grep -q '| liar | .* | mismatch |' "$tmp/run/summary.md"
check "and in its notes" grep -q 'MISMATCH' "$tmp/run/summary.md"
is "$(jget "$J" runs.0.latency_check.below_floor)" true "a 1 ms latency against a 20 ms delay is below the floor"

is "$(jget "$J" runs.1.crosscheck.verdict)" exact "lb-gen at one connection reconciles exactly"
ovh=$(jget "$J" runs.1.latency_check.overhead_p50_ms)
# The best of up to 3 rounds against a bound sized from what machines
# measured: 0.03-0.05 ms idle here, but 0.23 ms best of 3 on a CI machine
# whose every wake-up is slow, and 0.26 ms in a loaded run. 1 ms still
# catches what a generator defect adds to every request (Nagle with delayed
# ACKs: 40 ms; a millisecond timer tick: 0.5 ms on average). The fine
# comparison, lb-gen against wrk in the same run, is make bench's
# (bench/overhead.sh).
small() { perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] >= 0 && $ARGV[0] < 1)' -- "$1"; }
for round in 2 3; do
    small "$ovh" && break
    $rt "$LB" run --quiet --only one --out "$tmp/one$round" "$tmp/truth.yaml" >/dev/null 2>&1 || true
    o=$(jget "$tmp/one$round/run.json" runs.0.latency_check.overhead_p50_ms)
    diag "round $round: overhead $o ms (was $ovh)"
    [ "$o" = null ] || { [ "$ovh" != null ] && perl -e 'exit !($ARGV[0] < $ARGV[1])' -- "$ovh" "$o"; } || ovh=$o
done
check "lb-gen's overhead at one connection (client p50 - server p50 = $ovh ms, best of up to 3) is below 1 ms" small "$ovh"
is "$(jget "$J" runs.1.latency_check.below_floor)" false "a real 20 ms latency is not below the floor"

is "$(jget "$J" runs.2.identity.model)" open "the arrival-rate row runs the open model"
is "$(jget "$J" runs.2.workload.concurrency_shortfall)" true "200 users asked, ~3 in flight: flagged by Little's law"
lc=$(jget "$J" runs.2.workload.delivered_concurrency)
check "Little's-law concurrency is about 150/s x 20 ms = 3 ($lc)" perl -e 'exit !($ARGV[0] > 2 && $ARGV[0] < 5)' -- "$lc"
is "$(jget "$J" runs.2.workload.generator_limited)" false "150/s with a pool of 200 reaches its rate"

is "$(jget "$J" runs.3.workload.generator_limited)" true "200/s through one connection at 20 ms each is generator-limited"
ach=$(jget "$J" runs.3.workload.achieved_rps)
check "it achieved at most one connection's 50/s ($ach)" perl -e 'exit !($ARGV[0] <= 51)' -- "$ach"
sch=$(jget "$J" runs.2.client.schedule.scheduled)
check "the open row carries lb-gen's schedule ($sch requests scheduled, 150/s x 2 s)" perl -e 'exit !($ARGV[0] ne "null" && abs($ARGV[0] - 300) <= 2)' -- "$sch"
# The server's latency over the hold window of a ramp, from two snapshots of
# its histogram: 10 connections x 20 ms for 2 s is about 1,000 responses.
cat > "$tmp/ramp.yaml" <<Y
name: ramp
target: {delay: 20ms}
load:
  stages:
    - {duration: 1s, target: 10}
    - {duration: 2s, target: 10}
    - {duration: 1s, target: 0}
sampling: {interval: 500ms}
tools: [lb-gen]
Y
# The best of up to 3 rounds: a server woken late (load 19 under a burner,
# without real-time priority: 762 responses, p50 24.1 ms) is noise; a hold
# window built from the wrong snapshots fails every round.
for round in 1 2 3; do
    $rt "$LB" run --quiet --out "$tmp/ramp$round" "$tmp/ramp.yaml" >/dev/null 2>&1 || true
    R=$tmp/ramp$round/run.json
    hc=$(jget "$R" runs.0.windows.hold_server_time_ms.count)
    hp=$(jget "$R" runs.0.windows.hold_server_time_ms.p50)
    hf=$(jget "$R" runs.0.windows.hold_server_time_ms.from_s); ls0=$(jget "$R" runs.0.windows.load_start_s)
    diag "ramp round $round: $hc responses in the hold window, p50 $hp ms, from $hf s (load began at $ls0 s)"
    perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] > 850 && $ARGV[0] < 1050 && abs($ARGV[1] - 20) < 1 && abs($ARGV[2] - $ARGV[3] - 1) < 0.2)' \
        -- "$hc" "$hp" "$hf" "$ls0" && break
done
check "the hold window's server histogram holds about 1,000 responses ($hc)" perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] > 850 && $ARGV[0] < 1050)' -- "$hc"
check "its p50 is the 20 ms delay ($hp ms)" perl -e 'exit !($ARGV[0] ne "null" && abs($ARGV[0] - 20) < 1)' -- "$hp"
check "it starts 1 s into the load ($hf s after spawn, load began at $ls0 s)" perl -e 'exit !($ARGV[0] ne "null" && abs($ARGV[0] - $ARGV[1] - 1) < 0.2)' -- "$hf" "$ls0"

# A target that burns 300 us of CPU per request, pinned to one core, with
# lb-gen on the other: the server's core is the limit, and the row says so.
# The verdict needs the target to get its core (>= 90 % of it); on a busy
# machine other work takes it (10-12 % seen at load 19 under a CPU burner,
# without real-time priority). So it runs under $rt (above) and is the best
# of up to 3 rounds: a loadbench that misjudges or mismeasures a target
# burning its core fails every round.
cat > "$tmp/bound.yaml" <<Y
name: bound
target: {work: 300us}
load: {connections: 20, duration: 3s}
sampling: {interval: 500ms}
cpus: {target: [1], tool: [0]}
tools: [lb-gen]
Y
for round in 1 2 3; do
    $rt "$LB" run --quiet --out "$tmp/bound$round" "$tmp/bound.yaml" >/dev/null 2>&1 || true
    B=$tmp/bound$round/run.json
    diag "bound round $round: bottleneck $(jget "$B" runs.0.limits.bottleneck), target at $(jget "$B" runs.0.limits.target_cpu_pct) % of its CPU"
    [ "$(jget "$B" runs.0.limits.bottleneck)" = target ] && break
done
rps=$(jget "$B" runs.0.windows.hold_rps)
if under_asan; then
    # The ASan lb-gen may not keep the target's core busy: the verdict is
    # about speed, which the sanitizer changes.
    skip "a target burning its core is the bottleneck: timing under ASan ($(jget "$B" runs.0.limits.target_cpu_pct) % of its CPU)"
else
    is "$(jget "$B" runs.0.limits.bottleneck)" target "a target burning its core is the bottleneck ($(jget "$B" runs.0.limits.target_cpu_pct) % of its CPU)"
fi
check "its rate is what 300 us per request allows on one core (<= 3,334/s: $rps)" perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] <= 3334)' -- "$rps"
if under_asan; then
    skip "summary.md marks the row as not a tool result: timing under ASan (the bottleneck verdict above)"
else
    check "summary.md marks the row as not a tool result" grep -q 'target-bound: not a tool result' "$tmp/bound$round/summary.md"
fi
# A loopback pair (lb-gen and lb-target flat out): the kernel's network work
# runs in softirq context. /proc/stat (the whole machine) is the independent
# witness: it must show that softirq work, and it can never have been less
# busy than the processes on it (the tool's cgroup CPU and the target's /proc
# CPU). Where the kernel charges softirq time to no process, loadbench
# reports it as unattributed; where it charges it to whoever runs, the
# unattributed remainder stays near zero — both are correct accounting.
cat > "$tmp/pair.yaml" <<Y
name: pair
load: {connections: 20, duration: 2s}
sampling: {interval: 500ms}
tools: [lb-gen]
Y
"$LB" run --quiet --out "$tmp/pair" "$tmp/pair.yaml" >/dev/null 2>&1 || true
P=$tmp/pair/run.json
sirq=$(jget "$P" runs.0.machine_cpu.softirq_s)
busy=$(jget "$P" runs.0.machine_cpu.busy_s)
procs=$(perl -e 'printf "%.3f", $ARGV[0] + $ARGV[1] + $ARGV[2]' -- "$(jget "$P" runs.0.machine_cpu.tool_s)" "$(jget "$P" runs.0.machine_cpu.target_s)" "$(jget "$P" runs.0.machine_cpu.loadbench_s)")
un=$(jget "$P" runs.0.machine_cpu.unattributed_s)
check "the loopback pair made softirq work ($sirq s)" perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] > 0.05)' -- "$sirq"
check "the machine was at least as busy ($busy s) as the processes loadbench measured ($procs s, 0.1 s of tick rounding)" \
    perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] >= $ARGV[1] - 0.1)' -- "$busy" "$procs"
check "unattributed CPU is the remainder ($un s = $busy - $procs)" perl -e 'exit !($ARGV[0] ne "null" && abs($ARGV[0] - ($ARGV[1] - $ARGV[2])) < 0.01)' -- "$un" "$busy" "$procs"
done_testing
