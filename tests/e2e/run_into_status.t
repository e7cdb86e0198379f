#!/bin/sh
# A run's status comes from its rows against its profile (issue #44,
# defect 4): kill -9 or SIGINT a run during one tool, then `run --only
# OTHER --into DIR`. The run must not read complete (the killed tool has
# no final row), run.json must say which rows the --into run added and
# when, and compare must exit 3 (missing evidence), not 0. Rerunning the
# killed tool too makes it complete. lb-gen and Debian's wrk, 1 s loads
# against a 2 ms delay (a status needs a load, not a flat-out one: without
# the delay the 8 runs kept both cores busy, 12 CPU s); about 12 s.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
. "$LB_SRC/tests/lib/run-faults.sh"
LB=$LB_BUILD/bin/loadbench
# No chart image is checked here: gnuplot's rendering, 2-4 s of every run
# on a busy machine, is report_sweep.t's and report_charts.t's to test.
export LOADBENCH_GNUPLOT=
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
command -v wrk >/dev/null || skip_all "wrk is not installed (apt-get install wrk)"
cd "$LB_SRC"

cat > "$tmp/two.yaml" <<'Y'
name: into-status
target: {delay: 2ms}
load: {connections: 2, duration: 1s}
tools: [lb-gen, wrk]
sampling: {interval: 200ms}
grace: 2s
Y

# The baseline: both tools, complete.
rc=0; "$LB" run --quiet --out "$tmp/base" "$tmp/two.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "the baseline run exits 0"
is "$(jget "$tmp/base/run.json" status)" complete "the baseline is complete"

# stop_during_wrk DIR SIGNAL: a run in its own session, SIGNAL sent while
# wrk (the second tool) runs; waits for the run to end (bounded).
stop_during_wrk() {
    setsid "$LB" run --quiet --out "$1" "$tmp/two.yaml" >"$1.out" 2>&1 &
    lbpid=$!
    track $lbpid
    n=0
    until ps -s $lbpid -o comm= 2>/dev/null | grep -qx wrk || [ $n -ge 1500 ]; do sleep 0.02; n=$((n + 1)); done
    sleep 0.2
    kill -"$2" $lbpid 2>/dev/null || true
    n=0
    while kill -0 $lbpid 2>/dev/null && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
    wait $lbpid 2>/dev/null || true
}

for sig in KILL INT; do
    rd=$tmp/run-$sig
    stop_during_wrk "$rd" $sig
    diag "$sig during wrk: status $(jget "$rd/run.json" status), rows $(jget "$rd/run.json" runs | perl -MJSON::PP -e 'print join " ", map { "$_->{dir}:$_->{status}" } @{decode_json(<STDIN>)}')"
    rc=0; "$LB" run --quiet --only lb-gen --into "$rd" "$tmp/two.yaml" >"$rd.into.out" 2>&1 || rc=$?
    is "$rc" 0 "$sig during wrk, then --only lb-gen --into: the rerun itself exits 0"
    J=$rd/run.json
    is "$(jget "$J" status)" incomplete "$sig: the run is not complete: wrk has no final row"
    detail=$(jget "$J" status_detail)
    case "$detail" in "no final row for: wrk ("*) ok 0 "$sig: status_detail names wrk ($detail)" ;;
        *) ok 1 "$sig: status_detail names wrk ($detail)" ;; esac
    is "$(jget "$J" into_runs.0.only)" lb-gen "$sig: run.json records the --into run (its label)"
    is "$(jget "$J" into_runs.0.rows.0.dir)" lb-gen "$sig: and the row it appended"
    check "$sig: and when" test "$(jget "$J" into_runs.0.rows.0.at_ms)" -gt "$(jget "$J" into_runs.0.started_at_ms)"
    is "$(jget "$J" into_runs.0.status_before)" "$([ $sig = KILL ] && echo abandoned || echo interrupted)" \
        "$sig: and the status the run had before it"
    rc=0; "$LB" compare --control lb-gen --threshold 500% "$tmp/base" "$rd" >"$rd.cmp.md" 2>"$rd.cmp.err" || rc=$?
    is "$rc" 3 "$sig: compare against the baseline exits 3 (missing evidence), not 0"
    check "$sig: saying the run is not complete ($(head -c 300 "$rd.cmp.err"))" grep -q "status is incomplete.*wrk" "$rd.cmp.err"
    check "$sig: summary.md says the status and why" grep -q 'Run status: incomplete: no final row for: wrk' "$rd/summary.md"
done

# Rerunning the killed tool too: every entry has a final row again.
rd=$tmp/run-KILL
rc=0; "$LB" run --quiet --only wrk --into "$rd" "$tmp/two.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "--only wrk --into the killed run exits 0"
is "$(jget "$rd/run.json" status)" complete "with wrk rerun too, the run is complete"
is "$(jget "$rd/run.json" status_detail)" null "and carries no status detail"
rc=0; "$LB" compare --control lb-gen --threshold 500% "$tmp/base" "$rd" >/dev/null 2>"$rd.cmp2.err" || rc=$?
is "$rc" 0 "compare against it exits 0 ($(head -c 200 "$rd.cmp2.err"))"

# A run.json edited to claim complete is read by its rows.
perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0]; my $rd = decode_json(<$f>); $rd->{status} = "complete";
    print encode_json($rd)' "$tmp/run-INT/run.json" > "$tmp/forged.json"
mkdir "$tmp/forged" && cp "$tmp/forged.json" "$tmp/forged/run.json"
rc=0; "$LB" compare --control lb-gen --threshold 500% "$tmp/base" "$tmp/forged" >/dev/null 2>"$tmp/forged.err" || rc=$?
is "$rc" 3 "a run.json that claims complete without wrk's final row: compare exits 3"
check "naming wrk's interrupted row" grep -q 'no final row for: wrk (interrupted)' "$tmp/forged.err"
rc=0; LOADBENCH_GNUPLOT= "$LB" report "$tmp/forged" >/dev/null 2>&1 || rc=$?
check "report of it says the status its rows give, not the claim (exit $rc)" \
    grep -q 'Run status: incomplete: no final row for: wrk (interrupted)' "$tmp/forged/summary.md"
done_testing
