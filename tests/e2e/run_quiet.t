#!/bin/sh
# The quiet gate and the disturbed mark (issue #17). The test makes the
# disturbance itself: lb-burner (a named burner, tests/progs) burns two
# whole cores, the machine's both CPUs, beside a short lb-gen run (1 s:
# the marking needs the background measured, not a length of load; the
# burner stops before the last run, which needs no disturbance). Whatever
# else the machine is doing, the background outside loadbench is then far
# above a 10 % bar, so the assertions are on the marking, never on time:
# - quiet: {busy_below: 10%, wait_max: 2s}: the gate waits its 2 s and
#   gives up ("timed out", a warning), the row is disturbed;
# - quiet: off: no wait ("off"), the row is still measured and disturbed;
# and the mark reaches summary.md, the charts' data and report.html.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
# No chart image is checked here: gnuplot's rendering, 2-4 s of every run
# on a busy machine, is report_sweep.t's and report_charts.t's to test.
export LOADBENCH_GNUPLOT=
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
unset LOADBENCH_QUIET   # this test is the one that wants the gate

"$LB_BUILD/tests/progs/lb-burner" --cpu 1 --children 1 --duration 120s >"$tmp/burner.out" 2>&1 &
burner=$!
track $burner
sleep 0.5

cat > "$tmp/gate.yaml" <<Y
name: gate
load: {connections: 2, duration: 1s}
sampling: {interval: 500ms}
quiet: {busy_below: 10%, wait_max: 2s, interval: 500ms}
tools: [lb-gen]
Y
"$LB" run --quiet --out "$tmp/gate" "$tmp/gate.yaml" >/dev/null 2>&1 || true
J=$tmp/gate/run.json
is "$(jget "$J" runs.0.status)" ok "gate: the run is ok"
is "$(jget "$J" runs.0.quiet.gate)" "timed out" "gate: with the burner at two cores the gate times out"
check "gate: it waited its 2 s ($(jget "$J" runs.0.quiet.waited_s) s)" \
    perl -e 'exit !($ARGV[0] >= 2 && $ARGV[0] < 10)' -- "$(jget "$J" runs.0.quiet.waited_s)"
bg=$(jget "$J" runs.0.quiet.background_pct)
check "gate: the run's background ($bg %) passed the 10 % bar" perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] >= 10)' -- "$bg"
is "$(jget "$J" runs.0.quiet.disturbed)" true "gate: the row is disturbed"
check "gate: a warning says the gate timed out" grep -q 'the quiet gate waited' "$J"
check "gate: a warning says the run was disturbed" grep -q 'disturbed: the machine was' "$J"
check "gate: summary.md marks the RPS (server) cell" grep -Eq '^\| lb-gen \| ok \| closed \| [0-9,]+ □ disturbed \|' "$tmp/gate/summary.md"
check "gate: and explains the mark under the table" grep -q '□ disturbed: the machine' "$tmp/gate/summary.md"
check "gate: the charts' bar data carry the disturbed caveat" grep -q 'disturbed' "$tmp/gate/charts/bars_rps.dat"
check "gate: report.html draws the caveat" grep -q 'data-caveat="disturbed"' "$tmp/gate/report.html"
check "gate: results.csv's disturbed column says true" \
    perl -F, -lane 'if ($. == 1) { %c = map { $F[$_] => $_ } 0 .. $#F; next } exit !($F[$c{disturbed}] eq "true" && $F[$c{"quiet.background_pct"}] > 0)' "$tmp/gate/results.csv"

sed 's/^quiet: .*/quiet: off/' "$tmp/gate.yaml" > "$tmp/off.yaml"
"$LB" run --quiet --out "$tmp/off" "$tmp/off.yaml" >/dev/null 2>&1 || true
J=$tmp/off/run.json
is "$(jget "$J" runs.0.quiet.gate)" off "off: no gate"
check "off: no wait ($(jget "$J" runs.0.quiet.waited_s) s)" \
    perl -e 'exit !($ARGV[0] < 0.5)' -- "$(jget "$J" runs.0.quiet.waited_s)"
is "$(jget "$J" runs.0.quiet.disturbed)" true "off: the background is still measured: disturbed"
is "$(jget "$J" profile.quiet.wait_max_ns)" 0 "off: run.json's profile says wait_max 0"

kill "$burner" 2>/dev/null || true
wait "$burner" 2>/dev/null || true

LOADBENCH_QUIET=off "$LB" run --quiet --out "$tmp/env" "$tmp/gate.yaml" >/dev/null 2>&1 || true
is "$(jget "$tmp/env/run.json" runs.0.quiet.gate)" off "LOADBENCH_QUIET=off turns the profile's gate off"
done_testing
