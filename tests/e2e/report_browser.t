#!/bin/sh
# report.html as a reader sees it, in headless Chromium (Debian's `chromium`):
# a short real run's report (study 4's regenerated sweep, which runs
# nothing: report_browser_study.t), checked from inside the page by a
# script this test adds to a copy (tests/lib/browser-check.sh): the results
# table has a row per tool run, every chart drew (each figure's SVG has a
# size and shapes; every <img>, if any, loaded with naturalWidth > 0), no
# script error, and clicking a column's header sorts the rows by it,
# numbers as numbers, again to reverse.
# A screenshot of the real run's page is taken and checked to be a PNG of
# the size asked for. Skips with the reason when Chromium is missing.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
. "$(dirname "$0")/../lib/browser-check.sh"

# --- a short real run: lb-gen and wrk (when installed) ----------------------
tools=lb-gen
command -v wrk >/dev/null 2>&1 && tools="lb-gen, wrk"
cat > "$tmp/p.yaml" <<Y
name: browser
description: lb-gen and wrk, 20 connections, 3 s, 1 ms delay
target: {delay: 1ms}
load: {connections: 20, duration: 3s}
tools: [$tools]
sampling: {interval: 1s}
cooldown: 1s
quiet: off
Y
# (quiet: off: no gate before each tool run (by default two quiet 1 s
# intervals, up to 30 s: on a busy machine two rows waited up to a minute
# for a page that only needs the rows); the run's background and
# `disturbed` are still measured and shown.)
rc=0; "$LB" run --quiet --out "$tmp/run" "$tmp/p.yaml" >/dev/null 2>"$tmp/run.err" || rc=$?
# Exit 1 (a tool run failed, e.g. wrk's counts on a machine at load 20) still
# writes the page with every row: what is checked here is the page.
check "the short run wrote report.html (exit $rc: 0, or 1 when a tool run failed)" test "$rc" -le 1 -a -s "$tmp/run/report.html"
[ "$rc" = 0 ] || diag "run: $(perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    print join "; ", map { "$_->{label} $_->{status}" . ($_->{reason} ? ": $_->{reason}" : "") } @{$d->{runs}}' < "$tmp/run/run.json" 2>/dev/null)"
n_tools=$(printf '%s\n' "$tools" | tr ',' '\n' | wc -l)

with_check "$tmp/run/report.html" "$tmp/run/check.html"
chrome --dump-dom "file://$tmp/run/check.html" > "$tmp/run.dom" || true
check "chromium loaded the page and ran the check (data-t-rows present)" grep -q 'data-t-rows=' "$tmp/run.dom"
is "$(attr "$tmp/run.dom" rows)" "$n_tools" "the results table has one row per tool run"
check "the page has its tables (results, and more)" test "$(attr "$tmp/run.dom" tables)" -ge 2
check "the page has charts ($(attr "$tmp/run.dom" charts))" test "$(attr "$tmp/run.dom" charts)" -ge 8
is "$(attr "$tmp/run.dom" badcharts)" none "every chart drew: an SVG with a size and shapes"
is "$(attr "$tmp/run.dom" badimgs)" none "every <img> loaded with naturalWidth > 0 ($(attr "$tmp/run.dom" imgs) images)"
is "$(attr "$tmp/run.dom" errors)" none "no script error"
check "the page's own check saw no script error either" grep -q 'data-errors="0"' "$tmp/run.dom"
sort_run=$(attr "$tmp/run.dom" sort)
check "clicking RPS (server) sorts ascending, again descending, by number ($sort_run)" \
    sh -c 'case "$1" in *"asc=ok desc=ok dash-last=ok text=ok"*) exit 0 ;; *) exit 1 ;; esac' _ "$sort_run"
check "clicking Tool run sorts by name: lb-gen first" sh -c 'case "$1" in *"first=lb-gen"*) exit 0 ;; *) exit 1 ;; esac' _ "$sort_run"

chrome --window-size=1280,2000 --hide-scrollbars --screenshot="$tmp/run/shot.png" "file://$tmp/run/report.html" >/dev/null || true
check "a screenshot of report.html is a 1280x2000 PNG" \
    perl -e 'open my $f, "<:raw", $ARGV[0] or exit 1; read $f, my $h, 24; exit 1 unless substr($h, 0, 8) eq "\x89PNG\r\n\x1a\n";
             my ($w, $ht) = unpack "NN", substr($h, 16, 8); exit !($w == 1280 && $ht == 2000)' "$tmp/run/shot.png"
# An all-white page compresses to a few KB; tables, charts and text do not.
check "and not blank ($(wc -c < "$tmp/run/shot.png" 2>/dev/null || echo 0) bytes)" test "$(wc -c < "$tmp/run/shot.png" 2>/dev/null || echo 0)" -gt 40000
[ -z "${LB_SHOTS:-}" ] || cp "$tmp/run/shot.png" "$LB_SHOTS/report-run.png"

chrome_errors
done_testing
