#!/bin/sh
# A stopped harness does not report a quiet ok (issue #44, defect 7):
# SIGSTOP loadbench 0.3 s into lb-gen's 3 s load and SIGCONT it 6 s later.
# The sampler sees its own gap (its looks against the interval, the
# clocks telling why), and the row says so: "loadbench was not scheduled
# for 6.0 s: footprint figures not judged"; its footprint is marked not
# judged, which compare reads as missing evidence (exit 3); the overrun
# deadline is noted; and the CPU average is the tool's cumulative CPU over
# the window it really ran (to the server's last response to it), not
# diluted by the seconds loadbench was stopped. About 20 s.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
# No chart image is checked here: gnuplot's rendering, 2-4 s of every run
# on a busy machine, is report_sweep.t's and report_charts.t's to test.
export LOADBENCH_GNUPLOT=
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

cat > "$tmp/stop.yaml" <<'Y'
name: stopped
load: {connections: 5, duration: 3s}
tools: [lb-gen]
sampling: {interval: 250ms}
grace: 1s
Y
rc=0; "$LB" run --quiet --out "$tmp/base" "$tmp/stop.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "an undisturbed run exits 0"
diag "undisturbed: footprint judged $(jget "$tmp/base/run.json" runs.0.footprint.judged), $(jget "$tmp/base/run.json" runs.0.footprint.samples.points) points"

setsid "$LB" run --quiet --out "$tmp/stopped" "$tmp/stop.yaml" >"$tmp/stopped.out" 2>&1 &
lbpid=$!
track $lbpid
n=0
until ps -s $lbpid -o comm= 2>/dev/null | grep -qx lb-gen || [ $n -ge 1500 ]; do sleep 0.02; n=$((n + 1)); done
sleep 0.3
kill -STOP $lbpid
sleep 6
kill -CONT $lbpid
rc=0; wait $lbpid || rc=$?
J=$tmp/stopped/run.json
is "$rc" 0 "the stopped run ends (exit 0: the tool's own row is ok)"
is "$(jget "$J" runs.0.status)" ok "the row's status stays the server's and the tool's verdict"
note=$(jget "$J" runs.0.footprint.not_judged)
case "$note" in "loadbench was not scheduled for "*" s: footprint figures not judged ("*) ok 0 "the row says loadbench was not scheduled ($note)" ;;
    *) ok 1 "the row says loadbench was not scheduled"; diag "not_judged: $note" ;; esac
gap=$(jget "$J" runs.0.footprint.sampler_gaps.total_s)
check "for about the 6 s it was stopped ($gap s)" perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] >= 5.5 && $ARGV[0] < 9)' -- "$gap"
check "and that it was neither running nor runnable then, not waiting for a CPU" \
    perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] < 1)' -- "$(jget "$J" runs.0.footprint.sampler_gaps.queued_s)"
is "$(jget "$J" runs.0.footprint.judged)" false "its footprint is marked not judged"
check "the note is in the row's warnings, so in summary.md" grep -q 'loadbench was not scheduled for [0-9.]* s: footprint figures not judged' "$tmp/stopped/summary.md"
check "the overrun deadline is noted" grep -q "past its deadline of [0-9.]* s: loadbench could not stop it in time" "$tmp/stopped/summary.md"
cpu_s=$(jget "$J" runs.0.footprint.cpu_seconds) avg=$(jget "$J" runs.0.footprint.cpu_avg_pct)
wall=$(jget "$J" runs.0.footprint.wall_s) win=$(jget "$J" runs.0.footprint.window_s)
diag "cpu $cpu_s s, cpu_avg $avg %, wall $wall s, window $win s"
check "the row's wall time holds the stop ($wall s)" perl -e 'exit !($ARGV[0] >= 6)' -- "$wall"
check "cpu_avg is the CPU over the window the tool ran (at most its 3 s load + 1.5 s), not diluted over the wall time" \
    perl -e 'exit !($ARGV[0] ne "null" && $ARGV[1] > 0 && $ARGV[0] >= 100 * $ARGV[1] / 4.5 && $ARGV[2] <= 4.5)' -- "$avg" "$cpu_s" "$win"
rc=0; "$LB" compare --control lb-gen --threshold 500% "$tmp/base" "$tmp/stopped" >"$tmp/cmp.md" 2>"$tmp/cmp.err" || rc=$?
is "$rc" 3 "compare against the undisturbed run: exit 3 (missing evidence), not 0"
check "naming the footprint cells not judged ($(head -c 300 "$tmp/cmp.err"))" grep -q 'lb-gen RSS peak MB: footprint not judged' "$tmp/cmp.err"
done_testing
