#!/bin/sh
# loadbench compare on real run directories (tests/fixtures/runs/) with a
# regression planted in a copy: lb-gen's RSS x10 and CPU x5. The gate
# must stop it whichever way the compared tool is named; a --tool or
# --control label that names no tool of the runs is bad input (exit 2,
# the labels listed), never a pass (issue 19, defect 4).
# lb-test: parallel (parses and computes only: no load, no clock, no CPU figure)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
F=$LB_SRC/tests/fixtures/runs
mkdir "$tmp/cur"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    for (grep { $_->{label} eq "lb-gen" } @{$d->{runs}}) {
        my $f = $_->{footprint};
        $f->{rss_peak_mb} *= 10; $f->{samples}{rss_peak_mb} *= 10 if $f->{samples};
        $f->{cpu_seconds} *= 5; $f->{cpu_avg_pct} *= 5;
    }
    print JSON::PP->new->canonical->encode($d)' < "$F/sweep-b/run.json" > "$tmp/cur/run.json"

rc=0; "$LB" compare "$F/sweep-a" "$tmp/cur" >"$tmp/1.md" 2>"$tmp/1.err" || rc=$?
is "$rc" 1 "the planted regression fails the gate (exit 1)"
check "lb-gen's RSS is named as regressed" grep -q 'lb-gen@40 RSS peak MB' "$tmp/1.err"
rc=0; "$LB" compare --tool lb-gen "$F/sweep-a" "$tmp/cur" >/dev/null 2>&1 || rc=$?
is "$rc" 1 "--tool lb-gen (the real label): exit 1"

rc=0; "$LB" compare --tool lbgen --junit "$tmp/2.xml" "$F/sweep-a" "$tmp/cur" >"$tmp/2.md" 2>"$tmp/2.err" || rc=$?
is "$rc" 2 "--tool lbgen (a typo) is bad input: exit 2, not a pass"
check "the message names the option and the labels there are" \
    grep -qx 'loadbench compare: --tool lbgen: no tool of that label in both runs (labels in both: lb-gen, wrk)' "$tmp/2.err"
check "no table is printed" test ! -s "$tmp/2.md"
check "no JUnit file is written" test ! -e "$tmp/2.xml"

rc=0; "$LB" compare --control wrk2 "$F/sweep-a" "$tmp/cur" >/dev/null 2>"$tmp/3.err" || rc=$?
is "$rc" 2 "--control wrk2 (no such tool): exit 2"
check "the message names --control" grep -q -- '--control wrk2: no tool of that label' "$tmp/3.err"
rc=0; "$LB" compare --control lb-gen --tool wrk "$F/sweep-a" "$F/sweep-b" >/dev/null 2>&1 || rc=$?
check "labels that exist are accepted (--tool wrk --control lb-gen: exit $rc, not 2)" test "$rc" != 2
done_testing
