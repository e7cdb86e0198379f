#!/bin/sh
# `--scale` on a real run (the live part of studies.t, which checks the
# scaled plans and the study pages beside the other parse-only tests): a
# 4 s lb-gen load run with --scale 0.5 exits 0, records the factor in
# run.json, runs 2 s (the server's window 1.5-2.6 s), and its footprint's
# peaks are never below the floors the kernel and the average give.
# lb-test: shared (a scaled study's files and page, not its figures)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

cat > "$tmp/scaled.yaml" <<'Y'
name: scaled
target: {delay: 1ms}
load: {connections: 5, duration: 4s}
tools: [lb-gen]
sampling: {interval: 3s}   # longer than the run: the samples miss the peaks
quiet: off                 # no gate before the run (2 s when quiet, up to 30 s busy)
Y
rc=0; "$LB" run --quiet --scale 0.5 --out "$tmp/scaled" "$tmp/scaled.yaml" >/dev/null 2>"$tmp/scaled.err" || rc=$?
is "$rc" 0 "a run with --scale 0.5 exits 0"
is "$(jget "$tmp/scaled/run.json" profile.scale)" 0.5 "run.json records profile.scale"
is "$(jget "$tmp/scaled/run.json" profile.load.duration_ns)" 2000000000 "the 4 s load ran as 2 s"
check "the server saw a 2 s load, not 4 s (window $(jget "$tmp/scaled/run.json" runs.0.windows.whole_s) s)" \
    perl -e 'exit !($ARGV[0] > 1.5 && $ARGV[0] < 2.6)' -- "$(jget "$tmp/scaled/run.json" runs.0.windows.whole_s)"

# A short run's peaks come from samples that may miss them: the kernel's
# maxrss and the run's average CPU are floors.
f=$(jget "$tmp/scaled/run.json" runs.0.footprint)
check "RSS peak is never below the largest process's maxrss" perl -MJSON::PP -e '
    my $f = decode_json($ARGV[0]); exit !($f->{rss_peak_mb} >= $f->{max_proc_maxrss_mb} && $f->{rss_peak_mb} > 1)' -- "$f"
check "CPU peak is never below the run's average" perl -MJSON::PP -e '
    my $f = decode_json($ARGV[0]); exit !($f->{cpu_peak_pct} >= $f->{cpu_avg_pct})' -- "$f"

done_testing
