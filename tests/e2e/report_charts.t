#!/bin/sh
# What the charts draw, asserted on the .dat and .gp files `loadbench report`
# writes for copies of committed run dirs (study 1: a timed-out Artillery
# with its footprint measured; study 4: a sweep whose lb-gen rows are
# target-bound; the sweep-a fixture): value labels, the automatic log axis,
# failed rows kept in the footprint charts, caveat markers with a legend.
# lb-test: parallel (parses and computes only: no load, no clock, no CPU figure)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
# Study 1 as first run here (k6 skipped, artillery-7450 timed out at 488 MB):
# a copy, so that rerunning the study does not move these checks.
S1=$LB_SRC/tests/fixtures/runs/study1-footprint
S4=$LB_SRC/results/published/studies/4-concurrency-sweep
[ -f "$S1/run.json" ] && [ -f "$S4/run.json" ] || skip_all "study 1 or 4 run.json not in results/published/studies"
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
    sh -c "grep -q 'strcol(8) ne \"ok\" ? \$3 : NaN):7 with boxes fs pattern' '$C1/bars_cpu.gp' &&
           grep -q 'keyentry with boxes fs pattern.*title \"hatched: failed or timed out\"' '$C1/bars_cpu.gp'"
# On a log axis a bar's length means nothing: dots, an open one for a row
# that did not end ok.
check "log axis: dots, the timed-out one open, and the legend says so" \
    sh -c "grep -q 'strcol(8) eq \"ok\" ? \$3 : NaN):7:xtic(2) with points pt 7' '$C1/bars_rss.gp' &&
           grep -q 'strcol(8) ne \"ok\" ? \$3 : NaN):7 with points pt 6' '$C1/bars_rss.gp' &&
           grep -q 'keyentry with points pt 6 .*title \"open dot: failed or timed out\"' '$C1/bars_rss.gp' &&
           ! grep -q 'with boxes' '$C1/bars_rss.gp'"
check "ok bars are drawn solid from the ok rows only" grep -q 'strcol(8) eq "ok" ? \$3 : NaN' "$C1/bars_rss.gp"
check "no hatching where every bar is ok" sh -c "! grep -q 'pattern' '$CF/bars_rss.gp'"

# --- value labels -----------------------------------------------------------
# Over the whisker's top on a linear axis, beside the dot on a log one.
for b in rps p50 rss cpu cpu100k; do
    check "bars_$b: every bar's value is drawn over it" grep -q 'bars_'$b'.dat" using 1:[35]:10 with labels' "$C1/bars_$b.gp"
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
    grep -q 'using 1:(strstrt(strcol(9), "target") ? \$[35] : NaN) with points pt 8' "$C4/bars_cpu100k.gp"
check "the legend explains the marker" \
    grep -q 'keyentry with points pt 8 .*title "target-bound: the server.s ceiling"' "$C4/sweep_rps.gp"
check "bars data name the caveat" grep -q '^20 "lb-gen@10" .* target "' "$C4/bars_rps.dat"
check "no marker and no legend line where no row carries the caveat" \
    sh -c "! grep -q 'pt 8' '$C1/bars_rss.gp'"

# --- the key holds markers, not the names the x axis gives -----------------
check "no bar chart's key repeats the tool names of its x axis" \
    sh -c "for g in '$C1'/bars_*.gp '$C4'/bars_*.gp '$CF'/bars_*.gp; do
               ! grep -q 'keyentry with boxes lc rgb \"#[0-9A-Fa-f]*\" title' \"\$g\" || exit 1
               for n in lb-gen-closed k6 jmeter wrk lb-gen go-fasthttp; do ! grep -q \"title \\\"\$n\\\"\" \"\$g\" || exit 1; done
           done"

# --- order: largest first where repeats give intervals, else the profile's --
check "one run per tool: the profile's order, and the title says one run" \
    sh -c "grep -o '^[0-9]* \"[^ \"]*' '$C1/bars_rps.dat' | tr -d '\"' | tr '\n' ' ' | grep -qx '0 lb-gen-closed 1 k6 2 jmeter 3 artillery-200 4 artillery-7450 5 lb-gen-open ' &&
           grep -q 'one run per tool (profile order)' '$C1/bars_rps.gp'"
check "repeated runs: medians largest first, and the title says so" \
    sh -c "awk 'NR > 1 {print \$3}' '$CF/bars_rps.dat' | sort -g -r -c && grep -q 'whiskers min–max, largest first' '$CF/bars_rps.gp' &&
           awk 'NR > 1' '$CF/bars_rps.dat' | awk '{print \$1}' | tr '\n' ' ' | grep -qx '0 1 2 3 '"

check "report.html: repeats sort the bars largest first, and the title says so" \
    sh -c "perl -0ne 'print \$1 if m{<figure class=\"chart bars\" data-metric=\"rss\">(.*?)</figure>}s' '$tmp/fx/report.html' |
           grep -o '<title>[^<:]*' | tr '\n' ' ' | grep -qx '<title>Peak RSS <title>wrk@40 <title>wrk@10 <title>lb-gen@10 <title>lb-gen@40 ' &&
           grep -q '<title>Peak RSS: median, whiskers min–max, largest first</title>' '$tmp/fx/report.html'"
check "report.html: one run per tool keeps the profile's order and says so" \
    grep -q '<title>Peak RSS, one run per tool (profile order)</title>' "$tmp/s1/report.html"

# --- every log axis starts a decade below the least value drawn --------------
# The floor from the script, the least positive value (median, min, max;
# with truth also the server's and the reference) from its data:
# floor * 10 <= least.
log_floors() {
    for g in "$@"; do
        grep -q 'set logscale y' "$g" || continue
        floor=$(sed -n 's/^  set yrange \[\([^:]*\):.*/\1/p' "$g")
        least=$(perl -ne 'next if /^#/ || !/\S/; s/"[^"]*"//g; my @f = split; my $n = @f == 10 ? 7 : 3;
            print "$_\n" for grep { /^[0-9.e+-]+$/ && $_ > 0 } @f[1 .. $n]' "${g%.gp}.dat" | sort -g | head -n 1)
        check "$(basename "$(dirname "$(dirname "$g")")")/$(basename "$g"): log floor $floor a decade below $least" \
            awk -v f="$floor" -v l="$least" 'BEGIN { exit !(f > 0 && l > 0 && f * 10 <= l * 1.0000001) }'
    done
}
log_floors "$C1"/bars_*.gp "$C4"/bars_*.gp "$C4"/sweep_*.gp

# --- p99 against the truth (study 5: stalls, lb-gen open the reference) -----
S5=$LB_SRC/results/published/studies/5-latency-truth
if [ -f "$S5/run.json" ]; then
    mkdir "$tmp/s5"
    cp "$S5/run.json" "$tmp/s5/"
    LOADBENCH_GNUPLOT= "$LB" report "$tmp/s5" >/dev/null 2>&1
    C5=$tmp/s5/charts
    # ab omitted every wait, and the server agrees with it for the requests
    # ab sent: only the on-schedule p99 (lb-gen open's, several times
    # larger) shows the lie. Figures from the committed run, whatever it is:
    # the reference column is lb-gen open's own p99 on every row.
    # cols FILE: each row as "LABEL|tool|server|reference" (the figures
    # after the quoted label: tool median min max, server median min max,
    # the reference).
    cols() { perl -ne 'next if /^#/; /^\d+ "([^"]*)" (.*)/ or next; my @f = split " ", $2; print "$1|$f[0]|$f[3]|$f[6]\n"' "$1"; }
    ref=$(cols "$C5/bars_p99.dat" | sed -n 's/^lb-gen: kept its schedule|\([^|]*\)|.*/\1/p')
    check "study 5: every row's reference is lb-gen open's p99 (${ref:-none} ms)" \
        sh -c "[ -n '$ref' ] && [ -z \"\$(printf '%s\n' \"\$1\" | awk -F'|' -v r='$ref' '\$4 != r')\" ]" _ "$(cols "$C5/bars_p99.dat")"
    check "study 5: ab hid the stalls: its p99 and the server's for its requests within 2 %, the reference 5x more" \
        awk -v r="$ref" '$2 == "\"ab:" && $3 == "stopped:" && $4 == "hid" { t = $7; v = $10; ok = (t - v) / v < 0.02 && (v - t) / v < 0.02 && r > 5 * t }
                         END { exit !ok }' "$C5/bars_p99.dat"
    check "study 5: wrk stopped but its p99 holds the wait; k6 kept its schedule" \
        sh -c "grep -q '^[0-9]* \"wrk: stopped; p99 has the wait\" ' '$C5/bars_p99.dat' &&
               grep -q '^[0-9]* \"k6: kept its schedule\" ' '$C5/bars_p99.dat'"
    check "study 5: a row not judged still gets the reference of its load" \
        sh -c "printf '%s\n' \"\$1\" | grep -q '^hey: not judged|[^|]*|[^|]*|$ref\$'" _ "$(cols "$C5/bars_p99.dat")"
    check "study 5: three dots a tool, each in the key" \
        sh -c "grep -q 'using (\$1-0.2):3:10:xtic(2) with points pt 7' '$C5/bars_p99.gp' &&
               grep -q 'using 1:6 with points pt 5 .*title \"the server.s p99 for the same requests\"' '$C5/bars_p99.gp' &&
               grep -q 'using (\$1+0.2):9 with points pt 2 .*title \"a client keeping its schedule (lb-gen, open model) at the same rate\"' '$C5/bars_p99.gp' &&
               ! grep -q 'with boxes' '$C5/bars_p99.gp'"
    log_floors "$C5"/bars_*.gp
    check "study 1 (truth, no stalls): two dots, and the title says there is no reference" \
        sh -c "grep -q 'no on-schedule reference)' '$C1/bars_p99.gp' && ! grep -q '(\$1+0.2):9' '$C1/bars_p99.gp' &&
               grep -q '^0 \"lb-gen-closed\" 21.3156 21.3156 21.3156 20.267 20.267 20.267 NaN ' '$C1/bars_p99.dat'"
fi

# --- stage labels never overlap ---------------------------------------------
# The sample run's jmeter (ramp 5 s, hold 20 s, ramp-down 5 s on a 35 s axis)
# edited in the copy: a 0.8 s ramp (16 px: no label fits), a 2 s hold (40 px:
# only "200" fits), then the 20 s hold and the ramp-down.
SR=$LB_SRC/results/published/sample-200vus
mkdir "$tmp/sr"
cp -r "$SR/samples" "$tmp/sr/"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); my ($r) = grep { $_->{dir} eq "jmeter" } @{$d->{runs}};
    $r->{load}{stages} = [{duration_ns => 8e8, target => 200}, {duration_ns => 2e9, target => 200},
                          {duration_ns => 2e10, target => 200}, {duration_ns => 5e9, target => 0}];
    # JMeter 2.13 warming up through its hold, as crosscheck flags it.
    $r->{windows}{hold_steady} = {verdict => "not steady", seconds => 20, block_s => 2, blocks => 10,
                                  median_rps => 2000, change => 1.2, ratio => 2.6, p => 0.0001,
                                  flag => "not steady: rate rose 2.6x through the hold"};
    # Only jmeter flagged, whatever the committed run says of the others.
    for my $o (grep { $_->{dir} ne "jmeter" } @{$d->{runs}}) {
        my $h = $o->{windows}{hold_steady} or next;
        delete $h->{flag};
        $h->{verdict} = "steady" if $h->{verdict} ne "not judged";
    }
    print JSON::PP->new->utf8->canonical->encode($d)' < "$SR/run.json" > "$tmp/sr/run.json"
LOADBENCH_GNUPLOT= "$LB" report "$tmp/sr" >/dev/null 2>&1
TS=$tmp/sr/charts/ts_jmeter.gp
# Where the row's first sample falls on the axis depends on the run: the
# stages are placed from the ramp's shaded start (o).
o=$(sed -n 's/^  set object 1 rect from first \([0-9.]*\), graph 0 to first \([0-9.]*\),.*/\1 \2/p' "$TS")
at() { sed -n "s/^  set label $1 \"$2\" at first \([0-9.]*\),.*/\1/p" "$TS"; }
near() { perl -e 'exit !(defined $ARGV[0] && $ARGV[0] ne "" && abs($ARGV[0] - $ARGV[1]) < $ARGV[2])' -- "$@"; }
check "the 0.8 s ramp is shaded (${o:-none})" sh -c 'set -- $1; [ -n "$1" ] && perl -e "exit !(abs(\$ARGV[1] - \$ARGV[0] - 0.8) < 0.001)" -- "$1" "$2"' _ "$o"
check "the 0.8 s ramp has no label (none fits 16 px)" sh -c "! grep -q 'set label 42 ' '$TS'"
o=${o%% *}
check "the 2 s hold has the short label, at its start" near "$(at 43 200)" "$(perl -e "print $o + 0.8")" 0.1
check "the 20 s hold has the long one" near "$(at 44 'hold 200')" "$(perl -e "print $o + 2.8")" 0.1
check "the ramp-down is labelled" near "$(at 45 'ramp → 0')" "$(perl -e "print $o + 22.8")" 0.1
# Every label of every time series ends before the next one starts (6.5 px
# a character of font 8, on a 700 px plot).
check "no two stage labels overlap in any time series" sh -c '
    for g in "$1"/ts_*.gp; do
        xmax=$(sed -n "s/^  set xrange \[0:\(.*\)\]$/\1/p" "$g" | head -1)
        sed -n "s/^  set label 4[0-9] \"\(.*\)\" at first \([0-9.]*\), graph.*/\2 \1/p" "$g" |
        perl -CS -Mutf8 -ne "BEGIN { \$prev = -1 } chomp; my (\$x, \$t) = split / /, \$_, 2; utf8::decode(\$t);
            exit 1 if \$x < \$prev; \$prev = \$x + length(\$t) * 6.5 * $xmax / 700" || exit 1
    done' _ "$tmp/sr/charts"

# --- a sweep line with no ok level keeps its place ---------------------------
# Study 4 with every locust row skipped (as a tool that is not installed):
# gnuplot counts an empty data block as none, so without a placeholder the
# next tool's points were drawn under locust's name.
mkdir "$tmp/sk"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    for my $r (grep { $_->{label} eq "locust" } @{$d->{runs}}) {
        %$r = (tool => $r->{tool}, label => $r->{label}, level => $r->{level}, repeat => $r->{repeat}, dir => $r->{dir}, status => "skipped", reason => "not installed") }
    print JSON::PP->new->utf8->canonical->encode($d)' < "$S4/run.json" > "$tmp/sk/run.json"
LOADBENCH_GNUPLOT= "$LB" report "$tmp/sk" >/dev/null 2>&1
SK=$tmp/sk/charts
check "the skipped tool's block is kept with one value-less line" \
    sh -c "awk '/^# locust\$/ {on=1; next} on && NF {print; exit}' '$SK/sweep_rps.dat' | grep -q '^10 NaN NaN NaN 0 - \"\"\$'"
check "so gnuplot's index of each label is its block (locust 1, py-aiohttp 2)" \
    sh -c "grep -q 'index 1 using 1:2 with linespoints .* title \"locust – no result\"' '$SK/sweep_rps.gp' &&
           grep -q 'index 2 using 1:2 with linespoints .* title \"py-aiohttp\"' '$SK/sweep_rps.gp' &&
           test \"\$(awk -v RS= 'NR == 3' '$SK/sweep_rps.dat' | head -1)\" = '# py-aiohttp'"
check "no last-value label for the line with no value" sh -c "! grep -q '== nan' '$SK/sweep_rps.gp'"

# --- caveats: a hold that was not steady (jmeter in the edited sample run) --
CS=$tmp/sr/charts
check "bars data name the not-steady caveat on jmeter's RPS" grep -q '^[0-9]* "jmeter" .* not-steady "' "$CS/bars_rps.dat"
check "and on no other row" test "$(grep -c 'not-steady' "$CS/bars_rps.dat")" -eq 1
check "RPS bars: the ▽ marker (pt 10) over the flagged bar, explained in the legend" \
    sh -c "grep -q 'strstrt(strcol(9), \"not-steady\") ? \$5 : NaN) with points pt 10' '$CS/bars_rps.gp' &&
           grep -q 'keyentry with points pt 10 .*title \"hold not steady: the rate moved through it\"' '$CS/bars_rps.gp'"
check "a hold figure's caveat: not on the latency or footprint charts" \
    sh -c "! grep -q 'not-steady' '$CS/bars_p99.dat' '$CS/bars_rss.dat' '$CS/bars_rss.gp'"
HS=$tmp/sr/report.html
check "report.html: jmeter's results row carries the ▽ mark" \
    grep -q 'data-dir="jmeter"><th><a [^>]*>jmeter</a> <span class="glyph" data-caveat="not-steady" title="hold not steady[^"]*">▽</span>' "$HS"
check "report.html: only jmeter's row" test "$(grep -c 'data-dir="[^"]*"><th><a [^>]*>[^<]*</a> <span class="glyph" data-caveat="not-steady"' "$HS")" -eq 1
check "report.html RPS bars: the ▽ mark and its legend line" \
    sh -c "sed -n '/data-metric=\"rps\">/,/<\/figure>/p' '$HS' | grep -q 'class=\"glyph\" data-caveat=\"not-steady\"><title>hold not steady' &&
           sed -n '/data-metric=\"rps\">/,/<\/figure>/p' '$HS' | grep -q '<g class=\"caveat-key\" data-caveat=\"not-steady\">'"
check "report.html: the legend under the results table explains ▽" grep -q '<span class="glyph">▽</span> hold not steady' "$HS"

# --- report.html: the same marks, a table of contents, sorting, print ------
H1=$tmp/s1/report.html H4=$tmp/s4/report.html
sw4=$(sed -n '/<figure class="chart sweep"/,/<\/figure>/p' "$H4" | head -c 200000)
rss1=$(sed -n '/<figure class="chart bars" data-metric="rss">/,/<\/figure>/p' "$H1")
check "report.html RSS (log axis): artillery-7450 is an open dot named with its status; CPU (linear): a hatched bar" \
    sh -c 'printf "%s" "$1" | grep -q "<g class=\"bar failed\" data-tool=\"artillery-7450\"><circle [^>]*fill=\"#fff\" stroke=\"#CC79A7\"" &&
           sed -n "/data-metric=\"cpu\">/,/<\/figure>/p" "$2" | grep -q "<g class=\"bar failed\" data-tool=\"artillery-7450\"><rect [^>]*fill=\"url(#lb-hatch-4)\"" &&
           printf "%s" "$1" | grep -q "artillery-7450 (timeout)</text>" && printf "%s" "$1" | grep -q "failed/timed out</text>"' _ "$rss1" "$H1"
check "report.html RSS: log axis (3.09-488 MB), said on the axis" sh -c 'printf "%s" "$1" | grep -q "class=\"axis\">MB (log scale)</text>"' _ "$rss1"
check "report.html CPU: linear (9.2-98.9 %)" \
    sh -c "sed -n '/data-metric=\"cpu\">/,/<\/figure>/p' '$H1' | grep -q 'class=\"axis\">%</text>'"
check "report.html sweep RPS: log axis" sh -c 'printf "%s" "$1" | grep -q "class=\"axis\">req/s (log scale)</text>"' _ "$sw4"
check "report.html time series stay linear from zero" sh -c "! grep -q 'ts-[a-z]*\".*(log scale)' '$H1'"
check "report.html: the hatch patterns are defined once" test "$(grep -o 'id="lb-hatch-4"' "$H1" | wc -l)" -eq 1
# 25 names like "go-fasthttp@1000", slanted at 60 degrees, need about 86 px
# under the plot (at 11 px, about 6.2 px a character) plus the footer's two
# lines: the figure grows from 350 px; study 1's six names fit in 350.
h4=$(sed -n 's/.*<figure class="chart bars" data-metric="rps"><svg [^>]*viewBox="0 0 600 \([0-9]*\)".*/\1/p' "$H4")
h1=$(sed -n 's/.*<figure class="chart bars" data-metric="rps"><svg [^>]*viewBox="0 0 600 \([0-9]*\)".*/\1/p' "$H1")
check "report.html: study 4's bar charts grow so the slanted names clear the footer ($h4 px)" test "${h4:-0}" -gt 370
is "$h1" 350 "report.html: study 1's (six short names) stay 350 px"
check "report.html RSS: values over the bars" sh -c 'printf "%s" "$1" | grep -q "class=\"value\">488</text>"' _ "$rss1"
check "report.html RPS: the timed-out tool's missing bar says why" \
    sh -c "sed -n '/data-metric=\"rps\"/,/<\/figure>/p' '$H1' | grep -q 'no result (timeout)</text>'"
check "report.html: the 5 lb-gen rows carry the target-bound mark in the results table" \
    test "$(grep -o 'data-dir="lb-gen@[0-9]*"><th><a [^>]*>[^<]*</a> <span class="glyph" data-caveat="target"' "$H4" | wc -l)" -eq 5
check "report.html: no mark on jmeter's rows" sh -c "! grep -q 'data-dir=\"jmeter@[0-9]*\"><th><a [^>]*>[^<]*</a> <span class=\"glyph\"' '$H4'"
check "report.html sweep: target-bound points marked, the mark explained in the legend" \
    sh -c 'printf "%s" "$1" | grep -q "class=\"glyph\" data-caveat=\"target\"><title>target-bound" &&
           printf "%s" "$1" | grep -q "<g class=\"caveat-key\" data-caveat=\"target\">"' _ "$sw4"
check "report.html: a table of contents linking every section" \
    sh -c "for id in results repeats charts sweep time notes machine profile; do
               grep -q \"<li><a href=\\\"#\$id\\\">\" '$H4' && grep -q \"<h2 id=\\\"\$id\\\">\" '$H4' || exit 1; done"
check "report.html: results and statistics tables are sortable" \
    sh -c "grep -q '<table class=\"results sortable\">' '$H4' && grep -q '<table class=\"stats sortable\">' '$H4'"
check "report.html: print styles" grep -q '@media print{' "$H4"
# The page's time axis is 332 px for 35 s: the 0.8 s ramp and 2 s hold get
# no label, the 20 s hold its full one, the 5 s ramp-down (47 px) "→0".
check "report.html: short stages get short labels or none" \
    sh -c "sed -n '/<figure class=\"chart ts-cpu\" data-tool=\"jmeter\"/,/<\/figure>/p' '$tmp/sr/report.html' | grep -o 'stage-label\" fill=\"#888\">[^<]*' | sed 's/.*>//' | tr '\n' '|' | grep -q '^hold 200|→0|'"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    ok 0 "report.html sorting in headless chromium # SKIP chromium not installed (apt-get install chromium)"
else
    prof=$(mktemp -d "$tmp/chr.XXXXXX")
    timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$prof" \
        --dump-dom "file://$H4#sort=results:3:desc" >"$tmp/dom4.html" 2>/dev/null || true
    order=$(grep -o 'tr class="tool-row" data-tool="[^"]*" data-dir="[^"]*"' "$tmp/dom4.html" | sed 's/.*data-dir="//; s/"$//' | head -5 | tr '\n' ' ')
    is "$order" "lb-gen@100 lb-gen@10 lb-gen@500 lb-gen@1000 lb-gen@50 " "chromium: sorted by RPS (server), highest first"
    check "chromium: the sorted column is marked" grep -q '<th aria-sort="descending">RPS (server)</th>' "$tmp/dom4.html"
    check "chromium: no script error" grep -q 'data-errors="0"' "$tmp/dom4.html"
fi

if command -v gnuplot >/dev/null 2>&1; then
    for d in s1 s4 sk; do
        rc=0; "$LB" report "$tmp/$d" >/dev/null 2>"$tmp/$d.err" || rc=$?
        is "$rc" 0 "$d: report with gnuplot exits 0"
        check "$d: gnuplot rendered every chart without a message" sh -c "grep -q 'rendered [0-9]* charts' '$tmp/$d.err' && ! test -s '$tmp/$d/charts/gnuplot.log'"
    done
    check "the hatched bar is in the SVG" grep -q '<pattern' "$C1/bars_cpu.svg"
else
    ok 0 "gnuplot rendering # SKIP gnuplot not installed (apt-get install gnuplot-nox)"
fi
done_testing
