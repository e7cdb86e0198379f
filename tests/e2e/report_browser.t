#!/bin/sh
# report.html as a reader sees it, in headless Chromium (Debian's `chromium`):
# a short real run's report and a regenerated study-4 report (a sweep with
# target-bound marks), each checked from inside the page by a script this
# test adds to a copy: the results table has a row per tool run, every chart
# drew (each figure's SVG has a size and shapes; every <img>, if any,
# loaded with naturalWidth > 0), no script error, and clicking a column's
# header sorts the rows by it, numbers as numbers, again to reverse.
# A screenshot of the real run's page is taken and checked to be a PNG of
# the size asked for. Skips with the reason when Chromium is missing.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROMIUM" ] || skip_all "chromium not installed (apt-get install chromium; scripts/deps ci)"

# Headless, offline, no profile of the user's: a fresh one under $tmp.
chrome() {
    prof=$(mktemp -d "$tmp/chrome.XXXXXX")
    timeout 180 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --disable-extensions \
        --virtual-time-budget=5000 --user-data-dir="$prof" "$@" 2>>"$tmp/chrome.err"
}

# The page with the check script first in <head>, so its error listener sees
# errors in the page's own script too. On load (after the page's own load
# handler) it writes what it found into <body data-t-*> for --dump-dom.
with_check() {
    perl -0pe 's{<head>}{<head><script>$ENV{CHECK_JS}</script>}' "$1" > "$2"
}
CHECK_JS=$(cat <<'JS'
var lbErrs = [];
window.addEventListener('error', function (e) { lbErrs.push(String(e.message)); });
window.addEventListener('load', function () {
  var b = document.body, out = {};
  var rows = document.querySelectorAll('table.results tbody tr');
  out.rows = rows.length;
  out.tables = document.querySelectorAll('table').length;
  var figs = document.querySelectorAll('figure.chart'), bad = [];
  figs.forEach(function (f) {
    var s = f.querySelector('svg'), r = s ? s.getBoundingClientRect() : null;
    if (!s || !(r.width > 0 && r.height > 0) || !s.querySelector('rect,path,polyline,circle,line'))
      bad.push((f.className || '?') + ':' + (f.dataset.metric || f.dataset.tool || ''));
  });
  out.charts = figs.length; out.badcharts = bad.join(' ') || 'none';
  var imgs = document.images, badimg = [];
  for (var i = 0; i < imgs.length; i++)
    if (!imgs[i].complete || !(imgs[i].naturalWidth > 0)) badimg.push(imgs[i].getAttribute('src'));
  out.imgs = imgs.length; out.badimgs = badimg.join(' ') || 'none';
  // Sorting: click "RPS (server)" once (ascending) and again (descending);
  // then "Tool run" (text). Each time, read the column back.
  var t = document.querySelector('table.results'), heads = t.tHead.rows[0].cells, ci = -1, ti = 0;
  for (var h = 0; h < heads.length; h++) {
    if (heads[h].textContent.trim() === 'RPS (server)') ci = h;
    if (heads[h].textContent.trim() === 'Tool run') ti = h;
  }
  function col(c) {
    return Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[c].textContent.trim(); });
  }
  function nums(c) { return col(c).filter(function (v) { return v !== '–'; }).map(parseFloat); }
  function sorted(a, dir) { for (var k = 1; k < a.length; k++) if (dir * (a[k] - a[k - 1]) < 0) return false; return true; }
  var res = [];
  if (ci < 0) res.push('no RPS column');
  else {
    heads[ci].click();
    var a = nums(ci);
    res.push('asc=' + (sorted(a, 1) && heads[ci].getAttribute('aria-sort') === 'ascending' ? 'ok' : 'bad:' + a.join(',')));
    var dashLast = col(ci).join(' ').indexOf('–') < 0 || /–( –)*$/.test(col(ci).join(' '));
    heads[ci].click();
    var d = nums(ci);
    res.push('desc=' + (sorted(d, -1) && heads[ci].getAttribute('aria-sort') === 'descending' ? 'ok' : 'bad:' + d.join(',')));
    res.push('dash-last=' + (dashLast ? 'ok' : 'bad'));
    heads[ti].click();
    var names = col(ti), copy = names.slice().sort(function (x, y) { return x.localeCompare(y); });
    res.push('text=' + (names.join(' ') === copy.join(' ') ? 'ok' : 'bad:' + names.join(',')));
    res.push('first=' + names[0]);
  }
  out.sort = res.join(' ');
  out.errors = lbErrs.length ? lbErrs.join(' | ') : 'none';
  Object.keys(out).forEach(function (k) { b.setAttribute('data-t-' + k, String(out[k])); });
});
JS
)
export CHECK_JS

# attr DOM NAME: the value of <body data-t-NAME="...">
attr() { sed -n "s/.*<body[^>]* data-t-$2=\"\\([^\"]*\\)\".*/\\1/p" "$1" | head -1; }

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
quiet: {wait_max: 1s}
Y
# (quiet: the gate before each tool run waits at most 1 s, not its default
# 30 s: on a busy machine two rows waited up to a minute for a page that
# only needs the rows; the gate's verdict is still in run.json and the page.)
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

# --- a committed run directory: study 4's sweep, regenerated -----------------
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
e=$(grep -v 'dbus\|DBus\|unexpected operator\|bytes written' "$tmp/chrome.err" | head -3 | tr '\n' ' ' || true)
[ -z "$e" ] || diag "chromium's stderr (first lines): $e"
done_testing
