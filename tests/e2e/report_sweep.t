#!/bin/sh
# A real short run with a sweep and repeats (2 levels x 2 repeats x 2 tool
# entries = 8 tool runs, interleaved), its report with charts, and
# report.html checked in headless chromium.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cat > "$tmp/sweep.yaml" <<'Y'
name: sweep-repeat
description: two lb-gen entries, 2 levels x 2 repeats, 1 s each
target: {delay: 2ms}
load:
  model: closed
  sweep: {levels: [4, 12], duration: 1s}
tools: [lb-gen, {tool: lb-gen, label: lb-gen-b}]
sampling: {interval: 250ms}
repeat: 2
Y
rc=0; "$LB" run --quiet --out "$tmp/run" "$tmp/sweep.yaml" >/dev/null 2>"$tmp/run.err" || rc=$?
is "$rc" 0 "the sweep x repeat run exits 0"
J=$tmp/run/run.json
is "$(perl -MJSON::PP -e 'local $/; print scalar @{decode_json(<STDIN>)->{runs}}' < "$J")" 8 "8 tool runs (2 levels x 2 repeats x 2 tools)"
order=$(perl -MJSON::PP -e 'local $/; print join " ", map { $_->{dir} } @{decode_json(<STDIN>)->{runs}}' < "$J")
is "$order" "lb-gen@4#1 lb-gen-b@4#1 lb-gen@4#2 lb-gen-b@4#2 lb-gen@12#1 lb-gen-b@12#1 lb-gen@12#2 lb-gen-b@12#2" \
    "tools interleave within each level (A B A B), dirs named label@level#repeat"
is "$(jget "$J" runs.5.level)" 12 "rows carry their level"
is "$(jget "$J" runs.6.repeat)" 2 "rows carry their repeat"
is "$(jget "$J" runs.5.load.stages.0.target)" 12 "the level is the load the tool ran"
ok_rows=$(perl -MJSON::PP -e 'local $/; print scalar grep { $_->{status} eq "ok" } @{decode_json(<STDIN>)->{runs}}' < "$J")
is "$ok_rows" 8 "every tool run ended ok"
check "stats.csv: one rps line per label x level, each over 2 runs" \
    test "$(grep -c ',2,2,rps,req/s,2,' "$tmp/run/stats.csv")" -eq 4
check "summary.md has the statistics table" grep -q '^| lb-gen-b | 12 | 2/2 | ' "$tmp/run/summary.md"
check "sweep curves are scripted" test -s "$tmp/run/charts/sweep_rps.gp" -a -s "$tmp/run/charts/sweep_rps.dat"
check "one time-series script per tool run" test "$(ls "$tmp/run/charts/"ts_*.gp | wc -l)" -eq 8
check "the rps curve data has both levels for each tool" \
    test "$(grep -c '^[0-9]' "$tmp/run/charts/sweep_rps.dat")" -eq 4

if command -v gnuplot >/dev/null 2>&1; then
    check "every chart rendered (6 bars, 4 sweeps, 8 time series)" \
        test "$(ls "$tmp/run/charts/"*.png | wc -l)" -eq 18 -a "$(ls "$tmp/run/charts/"*.svg | wc -l)" -eq 18
    check "gnuplot logged no error" sh -c "! test -s '$tmp/run/charts/gnuplot.log'"
else
    ok 0 "chart rendering # SKIP gnuplot not installed (apt-get install gnuplot-nox)"
fi

# --- report.html in a real browser ----------------------------------------
H=$tmp/run/report.html
check "report.html written" test -s "$H"
check "report.html loads nothing from outside" sh -c "! grep -Eq '(src|href)=\"(https?:)?//' '$H'"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    ok 0 "report.html in headless chromium # SKIP chromium not installed (apt-get install chromium)"
else
    prof=$(mktemp -d "$tmp/chr.XXXXXX")
    # One chromium for the DOM and the screenshot (a start is seconds on
    # a busy machine): it writes the PNG and prints the DOM.
    rc=0
    timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$prof" \
        --window-size=1300,3000 --screenshot="$tmp/shot.png" \
        --dump-dom "file://$H" >"$tmp/dom.html" 2>"$tmp/chr.err" || rc=$?
    is "$rc" 0 "chromium rendered the page"
    check "no script error on the page" grep -q 'data-errors="0"' "$tmp/dom.html"
    # The page's own load-time check: per tool, table rows, bars drawn
    # (6 bar charts x 2 levels) and time series with data.
    check "every tool has its 4 rows, 12 bars and 4 time series" \
        grep -q 'data-check="lb-gen:rows=4,bars=12,ts=4 lb-gen-b:rows=4,bars=12,ts=4"' "$tmp/dom.html"
    check "the sweep curves have a line per tool" \
        test "$(grep -o '<figure class="chart sweep">' "$tmp/dom.html" | wc -l)" -eq 4
    check "a screenshot can be taken" test "$rc" = 0 -a -s "$tmp/shot.png"
fi
done_testing
