#!/bin/sh
# report.html of a committed run in headless Chromium: study 4's sweep
# (results/published/studies/4-concurrency-sweep/run.json, target-bound
# marks), rendered again by `loadbench report` without gnuplot and checked
# from inside the page as report_browser.t checks a live run's
# (tests/lib/browser-check.sh): a row per tool run, every chart drew, no
# script error, sorting both ways and by name, the target-bound marks.
# Skips with the reason when Chromium is missing.
# lb-test: parallel (renders a committed run: no load, no clock, no CPU figure)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
. "$(dirname "$0")/../lib/browser-check.sh"

S4=$LB_SRC/results/published/studies/4-concurrency-sweep
if [ -f "$S4/run.json" ]; then
    mkdir "$tmp/s4"
    cp "$S4/run.json" "$tmp/s4/"
    LOADBENCH_GNUPLOT= "$LB" report "$tmp/s4" >/dev/null 2>&1
    with_check "$tmp/s4/report.html" "$tmp/s4/check.html"
    chrome --dump-dom "file://$tmp/s4/check.html" > "$tmp/s4.dom" || true
    is "$(attr "$tmp/s4.dom" rows)" 25 "study 4: 25 rows (5 tools x 5 levels)"
    is "$(attr "$tmp/s4.dom" badcharts)" none "study 4: every chart drew ($(attr "$tmp/s4.dom" charts) charts)"
    is "$(attr "$tmp/s4.dom" errors)" none "study 4: no script error"
    s=$(attr "$tmp/s4.dom" sort)
    check "study 4: sorting works both ways and by name ($(printf '%s' "$s" | cut -c1-60))" \
        sh -c 'case "$1" in *"asc=ok desc=ok dash-last=ok text=ok"*) exit 0 ;; *) exit 1 ;; esac' _ "$s"
    check "study 4: the target-bound marks are in the page" grep -q 'data-caveat="target"' "$tmp/s4.dom"
    if [ -n "${LB_SHOTS:-}" ]; then
        chrome --window-size=1280,2600 --hide-scrollbars --screenshot="$LB_SHOTS/report-study4.png" "file://$tmp/s4/report.html" >/dev/null || true
    fi
else
    skip "study 4's run.json is not in results/published/studies"
fi
chrome_errors
done_testing
