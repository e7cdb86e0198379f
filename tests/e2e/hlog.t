#!/bin/sh
# The server's HdrHistogram interval log (samples/LABEL.server.hlog), read
# back by HdrHistogram's own Python reader (PyPI hdrhistogram, module hdrh;
# scripts/install-tools puts it in TOOLS/venv/hdrhistogram), not by ours:
# the hold window's intervals add up to run.json's hold-window server
# latency, count for count and percentile for percentile.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"
py=
for d in ${LB_TOOLS_DIR:-} /opt/loadbench-tools "${XDG_DATA_HOME:-$HOME/.local/share}/loadbench/tools"; do
    [ -x "$d/venv/hdrhistogram/bin/python" ] && { py=$d/venv/hdrhistogram/bin/python; break; }
done
[ -n "$py" ] || skip_all "HdrHistogram's reader is not installed (scripts/install-tools puts it in TOOLS/venv/hdrhistogram)"

cat > "$tmp/p.yaml" <<'Y'
name: hlog
target: {delay: 2ms}
load: {stages: [{duration: 1s, target: 20}, {duration: 3s, target: 20}, {duration: 1s, target: 0}]}
tools: [lb-gen]
sampling: {interval: 500ms}
Y
rc=0; "$LB" run --quiet --out "$tmp/run" "$tmp/p.yaml" >/dev/null 2>"$tmp/run.err" || rc=$?
is "$rc" 0 "an lb-gen row with a ramp, a hold and a ramp-down"
f=$(jget "$tmp/run/run.json" runs.0.server_hlog_file)
is "$f" "samples/lb-gen.server.hlog" "run.json names the row's interval log"
log=$tmp/run/$f

# HdrHistogram's reader: every interval, then the hold's added up.
cat > "$tmp/read.py" <<'PY'
import json, sys
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader
log, tag = sys.argv[1], sys.argv[2]
r = HistogramLogReader(log, HdrHistogram(1, 3600 * 10**9, 3))
tags, total, n = [], None, 0
while True:
    h = r.get_next_interval_histogram()
    if h is None:
        break
    n += 1
    tags.append(h.get_tag())
    if h.get_tag() == tag:
        if total is None:
            total = h
        else:
            total.add(h)
out = {"intervals": n, "tags": sorted(set(tags)), "order": tags,
       "start": r.get_start_time_sec(), "count": total.get_total_count() if total else 0}
# run.json's rule for a percentile's rank, ceil(p/100 * n) (at least 1),
# over the counts the reader decoded; HdrHistogram's own rule rounds the
# rank to the nearest instead, so its value is kept beside, for the diag.
for p10 in (500, 990, 999):
    key = "p%d" % (p10 // 10) if p10 % 10 == 0 else "p%d" % p10
    if not total:
        out[key] = None
        continue
    rank, seen = max(1, -(-p10 * total.get_total_count() // 1000)), 0
    for it in total.get_recorded_iterator():
        seen += it.count_added_in_this_iter_step
        if seen >= rank:
            out[key] = min(it.value_iterated_to, total.get_max_value()) / 1e6
            break
    out[key + "_hdr"] = total.get_value_at_percentile(p10 / 10) / 1e6
print(json.dumps(out))
PY
"$py" "$tmp/read.py" "$log" lb-gen:hold > "$tmp/read.json" 2>"$tmp/read.err" || true
check "HdrHistogram's reader reads the log ($(head -c 200 "$tmp/read.err"))" test -s "$tmp/read.json"
n=$(jget "$tmp/read.json" intervals)
check "one interval a sample and at the hold's edges ($n over 5 s at 500 ms)" test "$n" -ge 10 -a "$n" -le 16
is "$(jget "$tmp/read.json" tags)" '["lb-gen:after-hold","lb-gen:before-hold","lb-gen:hold"]' \
    "tagged with the label and the window"
order=$(perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $s = join " ", map { s/^lb-gen://r } @{$j->{order}}; $s =~ s/(\S+)( \1)+/$1/g; print $s' < "$tmp/read.json")
is "$order" "before-hold hold after-hold" "the windows in time order, each once"
# The row starts, waits for a quiet machine (quiet.waited_s), then spawns
# the tool: the log starts there.
start=$(jget "$tmp/read.json" start)
want=$(perl -e "printf '%.0f', $(jget "$tmp/run/run.json" runs.0.started_at_ms) + 1000 * $(jget "$tmp/run/run.json" runs.0.quiet.waited_s)")
check "StartTime is the tool's spawn ($start s against the row's start after its quiet gate, $want ms)" \
    perl -e "exit(abs($start * 1000 - $want) < 5000 ? 0 : 1)"
is "$(jget "$tmp/read.json" count)" "$(jget "$tmp/run/run.json" runs.0.windows.hold_server_time_ms.count)" \
    "the hold intervals hold run.json's hold-window count"
# same_percentiles READ.json RUN_JSON_PATH WHAT: p50, p99 and p99.9 as the
# reader decoded them equal run.json's at PATH: the top of the same bucket,
# to the ns (run.json keeps ms with 6 decimals).
same_percentiles() {
    for p in p50 p99 p999; do
        got=$(jget "$1" $p)
        want=$(jget "$tmp/run/run.json" "$2.$p")
        check "$3 $p from HdrHistogram's decoding, $got ms, is run.json's $want ms" \
            perl -e "exit(abs($got - $want) < 0.0000015 ? 0 : 1)"
        diag "$p by HdrHistogram's own rank rule (nearest rank): $(jget "$1" ${p}_hdr) ms"
    done
}
same_percentiles "$tmp/read.json" runs.0.windows.hold_server_time_ms "the hold's"

# The tool's own view: lb-gen gives every bucket of its latencies (its
# --percentiles file), so the row has samples/lb-gen.tool.hlog, one
# interval over its run, whose percentiles are lb-gen's own in run.json.
f=$(jget "$tmp/run/run.json" runs.0.tool_hlog_file)
is "$f" "samples/lb-gen.tool.hlog" "run.json names the tool's own interval log"
"$py" "$tmp/read.py" "$tmp/run/$f" lb-gen:run > "$tmp/tool.json" 2>"$tmp/tool.err" || true
check "HdrHistogram's reader reads it ($(head -c 200 "$tmp/tool.err"))" test -s "$tmp/tool.json"
is "$(jget "$tmp/tool.json" tags)" '["lb-gen:run"]' "one interval, tagged with the label and run"
is "$(jget "$tmp/tool.json" count)" "$(jget "$tmp/run/lb-gen/summary.json" latency_ms.count)" \
    "holding every latency lb-gen counted"
same_percentiles "$tmp/tool.json" runs.0.client.latency_ms "lb-gen's"

# Vegeta's tool view, from the latency of every row of its results.csv:
# Vegeta reports exact percentiles, the log keeps 3 digits, so they agree
# within the histogram's 0.1 %.
if "$LB" tools 2>/dev/null | grep -q '^vegeta  *yes'; then
    cat > "$tmp/v.yaml" <<'Y'
name: hlog-vegeta
target: {delay: 2ms}
load: {model: open, rate: 300, duration: 2s}
tools: [vegeta]
sampling: {interval: 500ms}
Y
    rc=0; "$LB" run --quiet --out "$tmp/vrun" "$tmp/v.yaml" >/dev/null 2>"$tmp/vrun.err" || rc=$?
    is "$rc" 0 "a Vegeta row"
    f=$(jget "$tmp/vrun/run.json" runs.0.tool_hlog_file)
    is "$f" "samples/vegeta.tool.hlog" "with its tool view"
    "$py" "$tmp/read.py" "$tmp/vrun/$f" vegeta:run > "$tmp/vtool.json" 2>"$tmp/vtool.err" || true
    is "$(jget "$tmp/vtool.json" count)" "$(jget "$tmp/vrun/run.json" runs.0.client.requests)" \
        "HdrHistogram's reader finds every response Vegeta counted ($(head -c 200 "$tmp/vtool.err"))"
    for p in p50 p99; do
        got=$(jget "$tmp/vtool.json" $p)
        want=$(jget "$tmp/vrun/run.json" runs.0.client.latency_ms.$p)
        check "Vegeta's $p from the log, $got ms, is its own $want ms within 0.1 %" \
            perl -e "exit(abs($got - $want) <= 0.001 * $want + 0.000001 ? 0 : 1)"
    done
else
    skip "Vegeta's tool view: vegeta is not installed (scripts/install-tools)"
fi
done_testing
