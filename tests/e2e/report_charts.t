#!/bin/sh
# What the charts draw, asserted on the .dat and .gp files `loadbench report`
# writes for copies of committed run dirs (study 1: a timed-out Artillery
# with its footprint measured; study 4: a sweep whose lb-gen rows are
# target-bound; the sweep-a fixture): value labels, the automatic log axis,
# failed rows kept in the footprint charts, caveat markers with a legend.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
S1=$LB_SRC/docs/studies/1-three-tool-footprint
S4=$LB_SRC/docs/studies/4-concurrency-sweep
[ -f "$S1/run.json" ] && [ -f "$S4/run.json" ] || skip_all "study 1 or 4 run.json not in docs/studies"
for s in s1:$S1 s4:$S4 fx:$LB_SRC/tests/fixtures/runs/sweep-a; do
    mkdir "$tmp/${s%%:*}"
    cp "${s#*:}/run.json" "$tmp/${s%%:*}/"
    LOADBENCH_GNUPLOT= "$LB" report "$tmp/${s%%:*}" >/dev/null 2>&1
done
C1=$tmp/s1/charts C4=$tmp/s4/charts CF=$tmp/fx/charts

# --- the timed-out row keeps its footprint bars -----------------------------
check "RSS: artillery-7450 drawn with its measured 488 MB, marked timeout" \
    grep -qx '4 "artillery-7450 (timeout)" 487.907 487.907 487.907 1 [0-9]* timeout - "488"' "$C1/bars_rss.dat"
check "CPU: artillery-7450 drawn with its measured 96.3 %, marked timeout" \
    grep -qx '4 "artillery-7450 (timeout)" 96.3266 96.3266 96.3266 1 [0-9]* timeout - "96.3"' "$C1/bars_cpu.dat"
check "CPU per 100k requests: drawn from the server's count" \
    grep -q '^4 "artillery-7450 (timeout)" 38.53' "$C1/bars_cpu100k.dat"
check "RPS (needs the tool's hold window): the bar says why it is missing" \
    grep -qx '4 "artillery-7450 – no result (timeout)" NaN NaN NaN 0 [0-9]* timeout - ""' "$C1/bars_rps.dat"
check "p99 (the tool's own figure): the bar says why it is missing" \
    grep -q '^4 "artillery-7450 – no result (timeout)" NaN' "$C1/bars_p99.dat"
check "a skipped tool says so" grep -q '^1 "k6 – no result (skipped)" NaN' "$C1/bars_rss.dat"
check "the timed-out bar is hatched, and the legend says what hatching means" \
    sh -c "grep -q 'strcol(8) ne \"ok\" ? \$3 : NaN):7 with boxes fs pattern' '$C1/bars_rss.gp' &&
           grep -q 'keyentry with boxes fs pattern.*title \"hatched: failed or timed out\"' '$C1/bars_rss.gp'"
check "ok bars are drawn solid from the ok rows only" grep -q 'strcol(8) eq "ok" ? \$3 : NaN' "$C1/bars_rss.gp"
check "no hatching where every bar is ok" sh -c "! grep -q 'pattern' '$CF/bars_rss.gp'"

# --- value labels -----------------------------------------------------------
for b in rps p50 p99 rss cpu cpu100k; do
    check "bars_$b: every bar's value is drawn over it" grep -q 'bars_'$b'.dat" using 1:5:10 with labels' "$C1/bars_$b.gp"
done
check "value labels are the medians, three digits" \
    sh -c "grep -q '^0 \"lb-gen-closed\" 3.08838 .* \"3.09\"\$' '$C1/bars_rss.dat' && grep -q '^2 \"jmeter\" 261.071 .* \"261\"\$' '$C1/bars_rss.dat'"
check "25 bars: values upright so they do not collide" grep -q 'with labels left rotate by 90' "$C4/bars_rss.gp"
check "sweep with 5 lines: each line's last value is labelled" \
    test "$(grep -c 'using 1:(\$1 == 1000 ? \$2 : NaN):7 with labels' "$C4/sweep_rps.gp")" -eq 5
check "sweep with 2 lines: every point is labelled" \
    test "$(grep -c 'using 1:2:7 with labels' "$CF/sweep_rps.gp")" -eq 2

# --- automatic log axis -----------------------------------------------------
check "RSS 3.09-488 MB (>30x): log axis, said on the axis label" \
    sh -c "grep -q 'set logscale y' '$C1/bars_rss.gp' && grep -q 'set ylabel \"MB (log scale)\"' '$C1/bars_rss.gp'"
check "CPU 9.2-98.9 % (<30x): linear from zero" \
    sh -c "! grep -q 'logscale y' '$C1/bars_cpu.gp' && grep -q 'set yrange \[0:\*\]' '$C1/bars_cpu.gp' && grep -q 'set ylabel \"%\"\$' '$C1/bars_cpu.gp'"
check "sweep RPS 1.8k-120k req/s: log axis" grep -q 'set ylabel "req/s (log scale)"' "$C4/sweep_rps.gp"
check "every axis is either from zero or says log scale" \
    sh -c "for g in '$C1'/*.gp '$C4'/bars_*.gp '$C4'/sweep_*.gp '$CF'/*.gp; do grep -q 'set yrange \[0:' \"\$g\" || grep -q '(log scale)' \"\$g\" || exit 1; done"

# --- caveats: target-bound ---------------------------------------------------
lbgen=$(awk '/^# lb-gen$/ {on=1; next} /^# / {on=0} on && /^[0-9]/' "$C4/sweep_rps.dat")
check "every lb-gen point of study 4 is target-bound" \
    test "$(printf '%s\n' "$lbgen" | grep -c ' target "')" -eq 5
check "go-fasthttp@50 (target) is, go-fasthttp@100 (tool) is not" \
    sh -c "awk '/^# go-fasthttp\$/ {on=1; next} /^# / {on=0} on' '$C4/sweep_rps.dat' | grep -q '^50 .* target \"' &&
           awk '/^# go-fasthttp\$/ {on=1; next} /^# / {on=0} on' '$C4/sweep_rps.dat' | grep -q '^100 .* - \"'"
check "jmeter carries no caveat" sh -c "! awk '/^# jmeter\$/ {on=1; next} /^# / {on=0} on' '$C4/sweep_rps.dat' | grep -q target"
check "sweep: target-bound points get the marker" \
    grep -q 'using 1:(strstrt(strcol(6), "target") ? \$2 : NaN) with points pt 8' "$C4/sweep_rps.gp"
check "bars: target-bound bars get the same marker" \
    grep -q 'using 1:(strstrt(strcol(9), "target") ? \$5 : NaN) with points pt 8' "$C4/bars_cpu100k.gp"
check "the legend explains the marker" \
    grep -q 'keyentry with points pt 8 .*title "target-bound: the server.s ceiling"' "$C4/sweep_rps.gp"
check "bars data name the caveat" grep -q '^20 "lb-gen@10" .* target "' "$C4/bars_rps.dat"
check "no marker and no legend line where no row carries the caveat" \
    sh -c "! grep -q 'pt 8' '$C1/bars_rss.gp'"

# --- stage labels never overlap ---------------------------------------------
# The sample run's jmeter (ramp 5 s, hold 20 s, ramp-down 5 s on a 35 s axis)
# edited in the copy: a 0.8 s ramp (16 px: no label fits), a 2 s hold (40 px:
# only "200" fits), then the 20 s hold and the ramp-down.
SR=$LB_SRC/docs/sample-run
mkdir "$tmp/sr"
cp -r "$SR/samples" "$tmp/sr/"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); my ($r) = grep { $_->{dir} eq "jmeter" } @{$d->{runs}};
    $r->{load}{stages} = [{duration_ns => 8e8, target => 200}, {duration_ns => 2e9, target => 200},
                          {duration_ns => 2e10, target => 200}, {duration_ns => 5e9, target => 0}];
    print JSON::PP->new->utf8->canonical->encode($d)' < "$SR/run.json" > "$tmp/sr/run.json"
LOADBENCH_GNUPLOT= "$LB" report "$tmp/sr" >/dev/null 2>&1
TS=$tmp/sr/charts/ts_jmeter.gp
check "the 0.8 s ramp is shaded" grep -q 'set object 1 rect from first 4.613, graph 0 to first 5.413' "$TS"
check "the 0.8 s ramp has no label (none fits 16 px)" sh -c "! grep -q 'set label 42 ' '$TS'"
check "the 2 s hold has the short label" grep -q '^  set label 43 "200" at first 5\.4' "$TS"
check "the 20 s hold has the long one" grep -q '^  set label 44 "hold 200" at first 7\.4' "$TS"
check "the ramp-down is labelled" grep -q '^  set label 45 "ramp → 0" at first 27\.4' "$TS"
# Every label of every time series ends before the next one starts (6.5 px
# a character of font 8, on a 700 px plot).
check "no two stage labels overlap in any time series" sh -c '
    for g in "$1"/ts_*.gp; do
        xmax=$(sed -n "s/^  set xrange \[0:\(.*\)\]$/\1/p" "$g" | head -1)
        sed -n "s/^  set label 4[0-9] \"\(.*\)\" at first \([0-9.]*\), graph.*/\2 \1/p" "$g" |
        perl -CS -Mutf8 -ne "BEGIN { \$prev = -1 } chomp; my (\$x, \$t) = split / /, \$_, 2; utf8::decode(\$t);
            exit 1 if \$x < \$prev; \$prev = \$x + length(\$t) * 6.5 * $xmax / 700" || exit 1
    done' _ "$tmp/sr/charts"

if command -v gnuplot >/dev/null 2>&1; then
    for d in s1 s4; do
        rc=0; "$LB" report "$tmp/$d" >/dev/null 2>"$tmp/$d.err" || rc=$?
        is "$rc" 0 "$d: report with gnuplot exits 0"
        check "$d: gnuplot rendered every chart without a message" sh -c "grep -q 'rendered [0-9]* charts' '$tmp/$d.err' && ! test -s '$tmp/$d/charts/gnuplot.log'"
    done
    check "the hatched bar is in the SVG" grep -q '<pattern' "$C1/bars_rss.svg"
else
    ok 0 "gnuplot rendering # SKIP gnuplot not installed (apt-get install gnuplot-nox)"
fi
done_testing
