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
# 30 %, not the default 10 %: two 1-second runs a few seconds apart on a
# shared 2-core machine drift by more than 10 % now and then (a CI run failed
# the second night on it); the planted regression below is 50 %.
N="$LB_SRC/scripts/nightly --loadbench $LB --profile $tmp/tiny.yaml --results $tmp/n --threshold 30%"
rc=0; $N >"$tmp/1.out" 2>"$tmp/1.err" || rc=$?
is "$rc" 0 "the first night exits 0"
check "and stores its run as the baseline" test -f "$tmp/n/baseline/run.json"
rc=0; $N >"$tmp/2.out" 2>"$tmp/2.err" || rc=$?
is "$rc" 0 "the second night compares with it and passes"
[ "$rc" = 0 ] || tail -n 20 "$tmp/2.err" | sed 's/^/# /'
[ "$rc" = 0 ] || grep -iE 'regress|^\| lb-gen' "$tmp/2.out" | sed 's/^/#   /' 
check "the comparison is printed" grep -q '^| lb-gen | – | RSS peak MB | ' "$tmp/2.out"
check "compare.md and compare.xml are kept in the run" sh -c "ls '$tmp/n/'2*/compare.xml | grep -q ."
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); $_->{label} eq "lb-gen" and $_->{footprint}{rss_peak_mb} /= 1.5 for @{$d->{runs}}; print JSON::PP->new->encode($d)' \
    < "$tmp/n/baseline/run.json" > "$tmp/base.json"
cp "$tmp/base.json" "$tmp/n/baseline/run.json"
rc=0; $N --update-baseline >"$tmp/3.out" 2>"$tmp/3.err" || rc=$?
is "$rc" 1 "against a baseline that used 1.5x less memory, tonight regressed (exit 1)"
check "the regressed cell is named" grep -q '^\*\*Regressed beyond 30 %:\*\* lb-gen RSS peak MB' "$tmp/3.out"
check "a failing night does not replace the baseline" cmp "$tmp/base.json" "$tmp/n/baseline/run.json"
check "--update-baseline did nothing on a failure" sh -c "! grep -q 'baseline updated' '$tmp/3.err'"
done_testing
