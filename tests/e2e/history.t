#!/bin/sh
# loadbench history over three real short runs (lb-gen against lb-target,
# made here), given newest first: the tables and the CSV in run-time order,
# each value with the tool's version, the version written in the charts'
# data where it changes (a copy of one run with its version edited), the
# log axis when the values span more than 30x (a copy with one value
# scaled), and PNG/SVG charts that gnuplot rendered.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
. "$LB_SRC/tests/lib/own-netns.sh"
cat >"$tmp/tiny.yaml" <<'Y'
name: tiny-history
target: {delay: 1ms}
load: {connections: 5, duration: 1s}
tools: [lb-gen]
sampling: {interval: 250ms}
Y
for i in 1 2 3; do
    rc=0; LOADBENCH_GNUPLOT= "$LB" run --quiet --out "$tmp/run$i" "$tmp/tiny.yaml" >/dev/null 2>"$tmp/run$i.err" || rc=$?
    [ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/run$i.err"
    is "$rc" 0 "short run $i exits 0"
done
ver=$(cat "$LB_SRC/VERSION")

rc=0; "$LB" history --out "$tmp/h" "$tmp/run3" "$tmp/run1" "$tmp/run2" >"$tmp/h.out" 2>"$tmp/h.err" || rc=$?
is "$rc" 0 "history over three runs exits 0"
check "it says how many runs and tools it read" grep -q '^loadbench history: 3 runs, 1 tools: ' "$tmp/h.out"
order=$(sed -n 's/^| \([0-9]\) | [-0-9: ]* | [^|]*\/\(run[0-9]\) | tiny-history | .*/\1\2/p' "$tmp/h/history.md" | tr '\n' ' ')
is "$order" "1run1 2run2 3run3 " "the runs table is in run-time order, whatever the argument order"
rps_rows=$(awk '/^## Requests\/s/ { on = 1; next } /^## / { on = 0 } on && /^\| [0-9] \|/' "$tmp/h/history.md")
is "$(printf '%s\n' "$rps_rows" | grep -c " | [0-9]* · $ver |$")" 3 "the RPS table: one row per run, lb-gen's value and version $ver"
is "$(grep -c ",lb-gen,,lb-gen,$ver," "$tmp/h/history.csv")" 18 "the CSV: 3 runs x 6 metrics for lb-gen, with its version"
check "the CSV has its header" grep -qx 'run,run_time_utc,run_dir,profile,loadbench_version,label,level,tool,tool_version,metric,unit,n,median,min,max' "$tmp/h/history.csv"
is "$(grep -c '^[123] ' "$tmp/h/charts/history_rps.dat")" 3 "the RPS chart's data: three points"
check "the version is written at the first point only (it does not change)" \
    sh -c "grep '^1 ' '$tmp/h/charts/history_rps.dat' | grep -q '\"$ver\" \"\"\$' && ! grep '^[23] ' '$tmp/h/charts/history_rps.dat' | grep -q '\"$ver\"'"
check "the value is written on the last run's point" sh -c "grep '^3 ' '$tmp/h/charts/history_rps.dat' | grep -q '\" \"[0-9][0-9.]*\"\$'"

# A later release of lb-gen (a copy of run 3, its version edited) with a
# 100x RSS: the version is written where it changes, and the RSS axis is log.
mkdir "$tmp/run4"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); $d->{started_at_ms} += 3600e3;
    for (@{$d->{runs}}) { $_->{identity}{version} = "9.9.9-test"; $_->{footprint}{rss_peak_mb} *= 100 }
    print JSON::PP->new->encode($d)' <"$tmp/run3/run.json" >"$tmp/run4/run.json"
rc=0; LOADBENCH_GNUPLOT= "$LB" history --out "$tmp/h4" "$tmp/run1" "$tmp/run2" "$tmp/run3" "$tmp/run4" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "history over four runs (no gnuplot) exits 0"
check "the changed version is written at its first point" grep -q '^4 .* "9.9.9-test" "[0-9.]*"$' "$tmp/h4/charts/history_rss.dat"
check "the table shows it" grep -q ' · 9.9.9-test |$' "$tmp/h4/history.md"
check "RSS spans 100x: log axis, said in the label" sh -c "grep -q 'set logscale y' '$tmp/h4/charts/history_rss.gp' && grep -q '(log scale)' '$tmp/h4/charts/history_rss.gp'"
check "lb-gen's real RSS over three runs does not: linear from zero" grep -q 'set yrange \[0:\*\]' "$tmp/h/charts/history_rss.gp"

rc=0; "$LB" history --help >"$tmp/help" 2>&1 || rc=$?
check "--help exits 0 with the usage" sh -c "[ $rc = 0 ] && grep -q '^usage: loadbench history' '$tmp/help'"
rc=0; "$LB" history >/dev/null 2>&1 || rc=$?
is "$rc" 2 "no run directory: exit 2"
rc=0; "$LB" history --out "$tmp/hx" "$tmp/run1" "$tmp" >/dev/null 2>"$tmp/bad.err" || rc=$?
check "a directory without run.json: exit 2, named" sh -c "[ $rc = 2 ] && grep -q 'run.json' '$tmp/bad.err'"

if command -v gnuplot >/dev/null 2>&1; then
    check "gnuplot rendered every chart" grep -q 'rendered 6 charts (PNG and SVG)' "$tmp/h.out"
    for m in rps p50 p99 cpu rss cpu100k; do
        f=$tmp/h/charts/history_$m
        check "history_$m.png is a non-empty PNG" sh -c "[ -s '$f.png' ] && head -c 8 '$f.png' | od -An -c | grep -q 'P   N   G'"
        check "history_$m.svg is a non-empty SVG" sh -c "[ -s '$f.svg' ] && grep -q '<svg' '$f.svg'"
    done
else
    skip "gnuplot not installed (apt-get install gnuplot-nox): charts not rendered"
fi
done_testing
