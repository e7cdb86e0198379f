#!/bin/sh
# loadbench report and compare on committed run fixtures (see
# tests/fixtures/runs/README.md): byte-identical tables, charts written with
# and without gnuplot, and the compare gate's verdicts and exit codes.
# lb-test: parallel (parses and computes only: no load, no clock, no CPU figure)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
F=$LB_SRC/tests/fixtures/runs

# --- report: the same tables from run.json alone ------------------------
mkdir "$tmp/a"
cp "$F/sweep-a/run.json" "$tmp/a/"
rc=0; LOADBENCH_GNUPLOT= "$LB" report "$tmp/a" >"$tmp/a.out" 2>"$tmp/a.err" || rc=$?
is "$rc" 0 "report exits 0"
for t in summary.md results.csv stats.csv; do
    check "report reproduces $t byte for byte" cmp "$F/sweep-a/$t" "$tmp/a/$t"
done
check "summary has the statistics table (4 groups)" test "$(grep -c '^| \(lb-gen\|wrk\) | [0-9]* | 2/2 |' "$tmp/a/summary.md")" -eq 4
check "results.csv has 8 rows and a header" test "$(wc -l < "$tmp/a/results.csv")" -eq 9
check "stats.csv has 4 groups x 6 metrics" test "$(wc -l < "$tmp/a/stats.csv")" -eq 25
check "without gnuplot the user is told how to render" grep -q 'gnuplot-nox.*gnuplot "\$f"' "$tmp/a.err"
check "chart scripts and data are written without gnuplot" \
    test -s "$tmp/a/charts/bars_rss.gp" -a -s "$tmp/a/charts/bars_rss.dat" -a -s "$tmp/a/charts/sweep_rps.gp"
check "no time-series script without the samples (run.json copied alone)" sh -c "! ls '$tmp/a/charts/'ts_* 2>/dev/null"
check "the rss bars hold median, min and max per group" \
    grep -qx '1 "wrk@10" 5.05242 5.03808 5.06675 2 15113984 ok - "5.05"' "$tmp/a/charts/bars_rss.dat"  # two runs each: largest first
check "every chart carries the footer (version, machine, date, profile)" \
    sh -c "grep -L 'loadbench 0.*AMD EPYC, 2 cores.*2026-11-29 23:22 UTC.*profile sweep-fixture' '$tmp/a/charts/'*.gp | grep -q . && exit 1 || exit 0"
check "colours are fixed per tool: lb-gen is the first palette colour everywhere" \
    sh -c "grep -h 'lc rgb \"#0072B2\" title \"lb-gen\"' '$tmp/a/charts/'sweep_*.gp | wc -l | grep -qx 4"
check "value axes start at zero or say they are logarithmic" \
    sh -c "for g in '$tmp/a/charts/'*.gp; do grep -q 'set yrange \[0:' \"\$g\" || grep -q '(log scale)' \"\$g\" || exit 1; done"
cp "$tmp/a/report.html" "$tmp/html1"
LOADBENCH_GNUPLOT= "$LB" report "$tmp/a" >/dev/null 2>&1
check "report.html is reproducible" cmp "$tmp/html1" "$tmp/a/report.html"
check "report.html loads nothing from outside" sh -c "! grep -Eq '(src|href)=\"(https?:)?//' '$tmp/a/report.html'"

if command -v gnuplot >/dev/null 2>&1; then
    rc=0; "$LB" report "$tmp/a" >/dev/null 2>"$tmp/a2.err" || rc=$?
    is "$rc" 0 "report with gnuplot exits 0"
    check "gnuplot rendered every chart" grep -q 'rendered 10 charts' "$tmp/a2.err"
    for c in bars_rps bars_rss bars_cpu100k sweep_rps sweep_p99; do
        check "$c.png is a PNG" sh -c "head -c 8 '$tmp/a/charts/$c.png' | od -An -c | grep -q 'P   N   G'"
        check "$c.svg is an SVG" grep -q '<svg' "$tmp/a/charts/$c.svg"
    done
    check "the tables do not change when charts are rendered" cmp "$F/sweep-a/summary.md" "$tmp/a/summary.md"
else
    ok 0 "gnuplot rendering # SKIP gnuplot not installed (apt-get install gnuplot-nox)"
fi

# --- a hold that moved: run.json's windows.hold_steady.flag reaches the table
mkdir "$tmp/s"
sed '0,/"hold_rps": 1846.5/s//"hold_rps": 1846.5, "hold_steady": {"verdict": "not steady", "flag": "not steady: rate rose 2.6x through the hold"}/' \
    "$F/sweep-a/run.json" >"$tmp/s/run.json"
LOADBENCH_GNUPLOT= "$LB" report "$tmp/s" >/dev/null 2>&1
check "a flagged hold: its RPS hold cell says not steady" grep -q '^| lb-gen@10#1 | ok | closed | 1,720 | 1,846 ⚠ not steady |' "$tmp/s/summary.md"
check "a flagged hold: the note under the table explains the mark" grep -q '⚠ after RPS hold: the server-counted rate moved' "$tmp/s/summary.md"
check "a flagged hold: only that row is marked" test "$(grep -c '⚠ not steady' "$tmp/s/summary.md")" -eq 1

# --- a witness that fired: limits.reason is the Bottleneck cell ---------
mkdir "$tmp/q"
sed '0,/"bottleneck": "none"/s//"bottleneck": "tool", "witness": "queueing", "reason": "tool (queueing: 200 asked, 8 in flight at the server)"/' \
    "$F/sweep-a/run.json" >"$tmp/q/run.json"
LOADBENCH_GNUPLOT= "$LB" report "$tmp/q" >/dev/null 2>&1
check "the Bottleneck cell names the witness and its figure" \
    grep -q '^| lb-gen@10#1 | .* | tool (queueing: 200 asked, 8 in flight at the server) |$' "$tmp/q/summary.md"
check "rows without limits.reason print as before" test "$(grep -c ' | none |$' "$tmp/q/summary.md")" -eq "$(($(grep -c ' | none |$' "$F/sweep-a/summary.md") - 1))"

# --- compare -------------------------------------------------------------
rc=0; "$LB" compare "$F/sweep-a" "$F/sweep-b" --junit "$tmp/eq.xml" >"$tmp/eq.md" 2>"$tmp/eq.err" || rc=$?
is "$rc" 0 "compare: two noisy-but-equal runs exit 0"
check "the table says no gated cell regressed" grep -q 'No gated cell regressed beyond 10 %' "$tmp/eq.md"
check "the drift of an unchanged tool is shown, not gated" \
    grep -q '^| wrk | 10 | CPU-s/100k req | 2.809 \[2.736–2.883\] | 3.395 \[3.344–3.447\] | +20.8 % (2 vs 2: too few to test) | regressed | no |$' "$tmp/eq.md"
check "JUnit: 6 gated cells, no failure" grep -q 'tests="6" failures="0"' "$tmp/eq.xml"
check "RPS is gated only as a ratio to the control" grep -q '^| lb-gen | 40 | RPS ÷ wrk | ' "$tmp/eq.md"

rc=0; "$LB" compare "$F/sweep-a" "$F/sweep-b-rss20/run.json" --junit "$tmp/rss.xml" >"$tmp/rss.md" 2>"$tmp/rss.err" || rc=$?
is "$rc" 1 "compare: the planted 20 % RSS regression exits 1"
check "it names the cell" grep -q 'regressed: lb-gen@40 RSS peak MB +19.6 %' "$tmp/rss.err"
check "the table marks it" grep -q '^| lb-gen | 40 | RSS peak MB | 2.2 \[2.2–2.3\] | 2.7 \[2.7–2.7\] | +19.6 % (2 vs 2: too few to test) | \*\*regressed\*\* | yes |$' "$tmp/rss.md"
check "lb-gen@10 moved only +9.4 %: same" grep -q '^| lb-gen | 10 | RSS peak MB | 2.3 \[2.3–2.3\] | 2.5 \[2.5–2.5\] | +9.4 % (2 vs 2: too few to test) | same | yes |$' "$tmp/rss.md"
check "JUnit names the failing case" grep -q '<testcase classname="loadbench.lb-gen@40" name="RSS peak MB"><failure message="regressed +19.6 %' "$tmp/rss.xml"
check "2 vs 2 repeats: the page says no rank test was possible" grep -q 'No gated cell has enough values for a rank test' "$tmp/rss.md"
check "JUnit counts one failure" grep -q 'tests="6" failures="1"' "$tmp/rss.xml"

rc=0; "$LB" compare "$F/sweep-a" "$F/sweep-b" --threshold 25% >/dev/null 2>&1 || rc=$?
is "$rc" 0 "a wider threshold is accepted"
rc=0; "$LB" compare "$F/sweep-a" "$F/sweep-b-rss20" --threshold 30% >/dev/null 2>&1 || rc=$?
is "$rc" 0 "a 20 % change passes a 30 % threshold"
rc=0; "$LB" compare "$F/sweep-a" "$F/sweep-b" --threshold ten >/dev/null 2>"$tmp/thr.err" || rc=$?
is "$rc" 2 "a bad threshold is exit 2"

# Not comparable: edited copies (perl, in the temp dir).
edit() { # edit OUT PERL-EXPR: a copy of sweep-b with one change
    mkdir -p "$tmp/$1"
    perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); '"$2"'; print JSON::PP->new->canonical->encode($d)' \
        < "$F/sweep-b/run.json" > "$tmp/$1/run.json"
}
edit asan '$d->{loadbench}{build} = "asan"'
rc=0; "$LB" compare "$F/sweep-a" "$tmp/asan" >/dev/null 2>"$tmp/c.err" || rc=$?
is "$rc" 2 "another build type is not comparable (exit 2)"
check "and says why" grep -q 'different build type ("release" vs "asan")' "$tmp/c.err"
edit cpu '$d->{machine}{cpu_model} = "Intel Xeon"'
rc=0; "$LB" compare "$F/sweep-a" "$tmp/cpu" >/dev/null 2>"$tmp/c.err" || rc=$?
is "$rc" 2 "another machine is not comparable"
check "and says why" grep -q 'different machine (cpu_model' "$tmp/c.err"
edit prof '$d->{profile}{target}{delay_ns} = 1000000'
rc=0; "$LB" compare "$F/sweep-a" "$tmp/prof" >/dev/null 2>"$tmp/c.err" || rc=$?
is "$rc" 2 "another profile is not comparable"
check "and says which part" grep -q 'different profiles (target differs)' "$tmp/c.err"
edit wrksha '$_->{label} eq "wrk" and $_->{identity}{sha256} = "0" x 64 for @{$d->{runs}}'
rc=0; "$LB" compare "$F/sweep-a" "$tmp/wrksha" --junit "$tmp/nc.xml" >/dev/null 2>"$tmp/c.err" || rc=$?
is "$rc" 2 "a changed wrk binary is not comparable when lb-gen is the compared tool"
check "and says so" grep -q 'the binary of "wrk" changed' "$tmp/c.err"
check "JUnit reports it as an error" grep -q 'errors="1"' "$tmp/nc.xml"
rc=0; "$LB" compare "$F/sweep-a" "$tmp/wrksha" --tool wrk --control lb-gen >/dev/null 2>"$tmp/w.err" || rc=$?
is "$rc" 1 "with --tool wrk the pair is comparable, and wrk is gated"
check "then run B's drift in wrk@10 (+20.8 %, same binary) is what the gate catches" \
    grep -q 'regressed: wrk@10 CPU-s/100k req +20.8 %' "$tmp/w.err"
edit gensha '$_->{label} eq "lb-gen" and $_->{identity}{sha256} = "0" x 64 for @{$d->{runs}}'
rc=0; "$LB" compare "$F/sweep-a" "$tmp/gensha" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "the compared tool's own binary may change"
rc=0; "$LB" compare "$F/sweep-a" "$tmp/nonexistent" >/dev/null 2>&1 || rc=$?
is "$rc" 2 "a missing run is exit 2"

# --- hostile run.json (issue 44) --------------------------------------------
# Defect 5: impossible values are invalid evidence, never an improvement.
edit neg '$_->{label} eq "lb-gen" and ($_->{footprint}{rss_peak_mb} = -1, $_->{footprint}{cpu_seconds} = -3) for @{$d->{runs}}'
rc=0; LOADBENCH_GNUPLOT= "$LB" report "$tmp/neg" >/dev/null 2>"$tmp/n.err" || rc=$?
is "$rc" 2 "report refuses RSS -1 and CPU -3 s (exit 2)"
check "naming the row and the field" grep -q 'runs\[0\] ("lb-gen"): footprint.cpu_seconds is -3: a negative value is not evidence' "$tmp/n.err"
check "and writes no summary with RSS -1.0 MB" test ! -e "$tmp/neg/summary.md"
rc=0; "$LB" compare "$F/sweep-a" "$tmp/neg" >"$tmp/n.md" 2>"$tmp/n.err" || rc=$?
is "$rc" 3 "compare: the gated cells have no evidence (exit 3), not improved"
check "the missing evidence names the invalid value" grep -q 'lb-gen@10: 2 of 2 rows invalid (footprint.cpu_seconds is -3' "$tmp/n.err"
check "no lb-gen cell is judged improved" sh -c "! grep -q '^| lb-gen .*improved' '$tmp/n.md'"
edit zero '$_->{label} eq "lb-gen" and ($_->{footprint}{rss_peak_mb} = 0, $_->{footprint}{cpu_seconds} = 0) for @{$d->{runs}}; $d->{started_at_ms}++'
rc=0; "$LB" compare "$tmp/neg" "$tmp/zero" >"$tmp/z.md" 2>"$tmp/z.err" || rc=$?
is "$rc" 3 "compare: the same run as baseline against zeros is no evidence (exit 3), not regressed"
check "the baseline's invalid rows are named" grep -q 'invalid (footprint.cpu_seconds is -3.*in the baseline' "$tmp/z.err"
# ... the same for a negative count and a negative latency the tool
# reported, and for a count past any run (1e308, finite: JSON has no NaN).
for c in 'requests:{requests}:-5' 'latency:{latency_ms}{p99}:-0.5' 'errors:{errors}:1e308'; do
    n=${c%%:*} k=${c#*:} v=${c##*:}
    k=${k%:*} f=$(echo "$k" | sed 's/}{/./g; s/[{}]//g')
    edit "neg-$n" '$_->{label} eq "lb-gen" and ($_->{client}'"$k"' = '"$v"') for @{$d->{runs}}'
    rc=0; LOADBENCH_GNUPLOT= "$LB" report "$tmp/neg-$n" >/dev/null 2>"$tmp/nf.err" || rc=$?
    if [ "$n" != errors ]; then
        is "$rc" 2 "report refuses client.$f $v (exit 2)"
        check "naming it: client.$f is $v: a negative value is not evidence" \
            grep -qF "client.$f is $v: a negative value is not evidence" "$tmp/nf.err"
    else
        check "client.$f $v: report exits 0 or 2, never crashes ($rc: $(head -c 160 "$tmp/nf.err"))" \
            sh -c '[ "$1" = 0 ] || [ "$1" = 2 ]' sh "$rc"
        check "and its summary shows no inf or nan" \
            sh -c "! grep -qiwE 'inf|nan|-nan' '$tmp/neg-$n/summary.md' 2>/dev/null"
    fi
done

# Defect 10: an unknown schema and malformed rows are refused, field and index named.
edit schema '$d->{schema_version} = 999'
edit rows '$d->{runs} = [1, "x", undef]'
edit nolabel 'delete $d->{runs}[2]{label}'
for d in schema rows nolabel; do schema_exempt "$tmp/$d"; done # broken on purpose
for c in report compare; do
    for d in schema rows nolabel; do
        rc=0
        if [ $c = report ]; then LOADBENCH_GNUPLOT= "$LB" report "$tmp/$d" >"$tmp/$c.$d.out" 2>"$tmp/$c.$d.err" || rc=$?
        else "$LB" compare "$F/sweep-a" "$tmp/$d" >"$tmp/$c.$d.out" 2>"$tmp/$c.$d.err" || rc=$?; fi
        is "$rc" 2 "$c refuses $d (exit 2)"
    done
    check "$c names schema_version 999" grep -q 'schema_version is 999: this loadbench reads schema 1 only' "$tmp/$c.schema.err"
    check "$c names runs[0] of [1, \"x\", null]" grep -q 'runs\[0\] is 1, not a row (an object)' "$tmp/$c.rows.err"
    check "$c names the row without a label" grep -q 'runs\[2\].label is absent, not a string' "$tmp/$c.nolabel.err"
    written=; [ $c = report ] && written=$tmp/rows/summary.md
    check "$c prints and writes no (null) row" sh -c "! grep -qs '(null)' '$tmp/$c.rows.out' '$tmp/$c.rows.err' $written"
done

# Defect 6: a side's runs must be distinct runs.
cp -r "$F/sweep-b" "$tmp/b-copy"
rc=0; "$LB" compare "$F/sweep-a" "$F/sweep-a" "$F/sweep-a" vs "$F/sweep-b" "$tmp/b-copy" "$F/sweep-b" >/dev/null 2>"$tmp/d.err" || rc=$?
is "$rc" 2 "compare A A A vs B B' B: one run given twice on a side is refused (exit 2)"
check "the message names the two and why" grep -q 'sweep-a and .*sweep-a are one run (the same content' "$tmp/d.err"
rc=0; "$LB" compare "$F/sweep-a" vs "$F/sweep-b" "$tmp/neg" >/dev/null 2>"$tmp/d.err" || rc=$?
is "$rc" 2 "an edited copy of a run (the same run id) is the same run (exit 2)"
check "the message says the same run id" grep -q 'are one run (the same run id' "$tmp/d.err"

# Defect 11: --threshold is a decimal percentage in (0, 1000), nothing else.
for t in 'nan%' '0x10%' 'inf%' '1e1%' '10%%' '0%' '1000%' '.%'; do
    rc=0; "$LB" compare "$F/sweep-a" "$F/sweep-b" --threshold "$t" >/dev/null 2>"$tmp/t.err" || rc=$?
    is "$rc" 2 "--threshold $t is refused (exit 2)"
done
check "the message quotes the value" grep -q -- '--threshold "\.%": give a decimal percentage above 0 and below 1000' "$tmp/t.err"
rc=0; "$LB" compare "$F/sweep-a" "$F/sweep-b" --threshold 12.5 >/dev/null 2>&1 || rc=$?
is "$rc" 0 "--threshold 12.5 (no %) is still a percentage"

# Defect 13: report honours -- as compare does.
mkdir "$tmp/dd"
cp "$F/sweep-a/run.json" "$tmp/dd/"
rc=0; LOADBENCH_GNUPLOT= "$LB" report -- "$tmp/dd" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "report -- DIR works (exit 0)"
check "and writes the summary" test -s "$tmp/dd/summary.md"
rc=0; LOADBENCH_GNUPLOT= "$LB" report "$tmp/dd" --include-suspect >/dev/null 2>&1 || rc=$?
is "$rc" 0 "report DIR --include-suspect (option after the directory) works"

done_testing
