# browser-check.sh: report.html checked in headless Chromium, from inside
# the page (tests/e2e/report_browser.t, report_browser_study.t). Source it
# after tap.sh: it skips the test, with the reason, when Chromium is
# missing, and gives chrome ARGS..., with_check PAGE COPY, attr DOM NAME
# and chrome_errors (a diag of Chromium's stderr, noise left out).
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

chrome_errors() {
    e=$(grep -v 'dbus\|DBus\|unexpected operator\|bytes written' "$tmp/chrome.err" 2>/dev/null | head -3 | tr '\n' ' ' || true)
    [ -z "$e" ] || diag "chromium's stderr (first lines): $e"
}
