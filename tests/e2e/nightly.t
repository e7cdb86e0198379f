#!/bin/sh
# scripts/nightly: the first night stores a baseline, the next compares
# against it (exit 0), a baseline edited to have used 1.5x less memory makes
# tonight a regression (exit 1), --update-baseline only after a pass.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
# No chart image is checked here: gnuplot's rendering, 2-4 s of every run
# on a busy machine, is report_sweep.t's and report_charts.t's to test.
export LOADBENCH_GNUPLOT=
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
# The gate compares two nights' rates and memory within 10 %: under ASan
# both are the sanitizer's.
under_asan && skip_all "timing under ASan (the nightly gate compares throughput and RSS)"
command -v wrk >/dev/null 2>&1 || skip_all "wrk not installed (the nightly profile's control generator; apt-get install wrk)"
cat > "$tmp/tiny.yaml" <<'Y'
name: tiny-nightly
target: {delay: 2ms}
load: {connections: 5, duration: 1s}
tools: [lb-gen, wrk]
sampling: {interval: 250ms}
repeat: 2
Y
# explain NIGHT: why a night exited as it did, for prove's log (it keeps
# nothing else of a failure): nightly's last words, the gate's verdict
# lines, and each row of that night's run that was not ok, with its reason.
explain() {
    tail -n 5 "$tmp/$1.err" | sed 's/^/# err: /'
    grep -E '^\*\*(Regressed|Missing)' "$tmp/$1.out" | sed 's/^/# /' || true
    run=$(ls -d "$tmp/n/"2*/ | tail -n 1)
    perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
        $_->{status} eq "ok" or print "# row $_->{label}: $_->{status}: $_->{reason}\n" for @{$d->{runs}}' \
        < "${run}run.json" || true
}
# unjudged: the notes of every lb-gen row, in the newest night's run and in
# the baseline, whose footprint loadbench did not judge (its looks at the
# tool stopped for more than 2 intervals: beside the burner, in 3 of 15
# runs, for 0.5-1.2 s, loadbench waiting for a CPU or blocked). The
# gate then has no evidence for RSS and CPU and must say so (exit 3), not
# pass or fail on them; empty when every row was judged.
unjudged() { # [run]: the newest night's run only
    run=$(ls -d "$tmp/n/"2*/ | tail -n 1)
    for f in "${run}run.json" $([ "${1:-}" = run ] || echo "$tmp/n/baseline/run.json"); do
        perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
            $_->{label} eq "lb-gen" && !$_->{footprint}{judged} and print "lb-gen r$_->{repeat}: $_->{footprint}{not_judged}\n"
                for @{$d->{runs}}' < "$f" || true
    done
}
# night NIGHT RC WANT DESCRIPTION: RC is WANT when every lb-gen row was
# judged, else 3 with the gate naming the footprint it could not judge.
# Returns 1 in that case: the night's other checks are skipped.
night() {
    why=$(unjudged)
    if [ -z "$why" ]; then
        is "$2" "$3" "$4"
        [ "$2" = "$3" ] || explain "$1"
        return 0
    fi
    echo "$why" | sed 's/^/# not judged: /'
    is "$2" 3 "night $1: an lb-gen footprint not judged (above) is missing evidence: exit 3, not $3"
    check "night $1: the gate says the footprint was not judged" grep -q '^\*\*Missing evidence:\*\* .*footprint not judged' "$tmp/$1.out"
    return 1
}
# nightly_run NIGHT [OPTION]: scripts/nightly into NIGHT.out/.err, rc its
# exit; run again (3 times at most) while that night's own lb-gen rows
# were not judged, so that the gate's verdict is checked on evidence.
nightly_run() {
    for try in 1 2 3; do
        [ "$1" != 1 ] || rm -rf "$tmp/n/baseline"   # the first night stores its run
        rc=0; $N ${2:-} >"$tmp/$1.out" 2>"$tmp/$1.err" || rc=$?
        [ -n "$(unjudged run)" ] || break
        diag "night $1, try $try: lb-gen's footprint not judged; $([ $try = 3 ] && echo kept || echo again)"
    done
}
# 30 %, not the default 10 %: two 1-second runs a few seconds apart on a
# shared 2-core machine drift by more than 10 % now and then (a CI run failed
# the second night on it); the planted regression below is 50 %.
N="$LB_SRC/scripts/nightly --loadbench $LB --profile $tmp/tiny.yaml --results $tmp/n --threshold 30%"
nightly_run 1
is "$rc" 0 "the first night exits 0"
[ "$rc" = 0 ] || explain 1
check "and stores its run as the baseline" test -f "$tmp/n/baseline/run.json"
nightly_run 2
night 2 "$rc" 0 "the second night compares with it and passes" || true
check "the comparison is printed" grep -q '^| lb-gen | – | RSS peak MB | ' "$tmp/2.out"
check "compare.md and compare.xml are kept in the run" sh -c "ls '$tmp/n/'2*/compare.xml | grep -q ."
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); $_->{label} eq "lb-gen" and $_->{footprint}{rss_peak_mb} /= 1.5 for @{$d->{runs}}; print JSON::PP->new->encode($d)' \
    < "$tmp/n/baseline/run.json" > "$tmp/base.json"
cp "$tmp/base.json" "$tmp/n/baseline/run.json"
nightly_run 3 --update-baseline
if night 3 "$rc" 1 "against a baseline that used 1.5x less memory, tonight regressed (exit 1)"; then
    check "the regressed cell is named" grep -q '^\*\*Regressed beyond 30 %:\*\* lb-gen RSS peak MB' "$tmp/3.out"
else
    skip "the regressed cell named: the gate could not judge lb-gen's footprint (above)"
fi
check "a failing night does not replace the baseline" cmp "$tmp/base.json" "$tmp/n/baseline/run.json"
check "--update-baseline did nothing on a failure" sh -c "! grep -q 'baseline updated' '$tmp/3.err'"
done_testing
