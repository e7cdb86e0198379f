#!/bin/sh
# The server's HdrHistogram interval log (samples/LABEL.server.hlog), read
# back by HdrHistogram's own Python reader (PyPI hdrhistogram, module hdrh;
# scripts/install-tools puts it in TOOLS/venv/hdrhistogram), not by ours:
# the hold window's intervals add up to run.json's hold-window server
# latency, count for count and percentile for percentile. lb-gen's own
# view (samples/lb-gen.tool.hlog, its histogram of each second) holds
# run.json's client requests and percentiles. With Vegeta or JMeter
# installed, their rows' own views too (samples/TOOL.tool.hlog, from their
# per-request CSV and JTL): every interval together holds run.json's
# client requests, and p50/p99/p99.9 within the log's 3 digits of the
# client's.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/live-tool.sh"
LB=$LB_BUILD/bin/loadbench
# No chart image is checked here: gnuplot's rendering, 2-4 s of every run
# on a busy machine, is report_sweep.t's and report_charts.t's to test.
export LOADBENCH_GNUPLOT=
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"
py=$(tools_file venv/hdrhistogram/bin/python) || skip_all "HdrHistogram's reader is not installed: run scripts/install-tools (it puts PyPI hdrhistogram 0.10.8 in TOOLS/venv/hdrhistogram, pip install --require-hashes -r scripts/registry/pypi/hdrhistogram.txt)"

# Vegeta and JMeter, where installed, for their own logs (rows 1 and 2,
# in this order); each missing one is named.
tools=lb-gen; others=
for t in vegeta jmeter; do
    if look_for $t; then tools="$tools, $t"; others="$others $t"; else diag "no $t tool log checked: $why"; fi
done
cat > "$tmp/p.yaml" <<Y
name: hlog
target: {delay: 2ms}
load: {stages: [{duration: 1s, target: 20}, {duration: 1s, target: 20}, {duration: 1s, target: 0}]}
tools: [$tools]
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
unit = float(sys.argv[3]) if len(sys.argv) > 3 else 1e6   # the log's values per ms
r = HistogramLogReader(log, HdrHistogram(1, 3600 * 10**9, 3))
tags, total, n = [], None, 0
while True:
    h = r.get_next_interval_histogram()
    if h is None:
        break
    n += 1
    tags.append(h.get_tag())
    if tag == "*" or h.get_tag() == tag:
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
            out[key] = min(it.value_iterated_to, total.get_max_value()) / unit
            break
    out[key + "_hdr"] = total.get_value_at_percentile(p10 / 10) / unit
print(json.dumps(out))
PY
"$py" "$tmp/read.py" "$log" lb-gen:hold > "$tmp/read.json" 2>"$tmp/read.err" || true
check "HdrHistogram's reader reads the log ($(head -c 200 "$tmp/read.err"))" test -s "$tmp/read.json"
n=$(jget "$tmp/read.json" intervals)
# 3 s at 500 ms: 6 samples, 2 more at the hold's edges, as many again of
# slack above (it was 10-16 over 5 s).
check "one interval a sample and at the hold's edges ($n over 3 s at 500 ms)" test "$n" -ge 6 -a "$n" -le 12
is "$(jget "$tmp/read.json" tags)" '["lb-gen:after-hold","lb-gen:before-hold","lb-gen:hold"]' \
    "tagged with the label and the window"
order=$(perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $s = join " ", map { s/^lb-gen://r } @{$j->{order}}; $s =~ s/(\S+)( \1)+/$1/g; print $s' < "$tmp/read.json")
is "$order" "before-hold hold after-hold" "the windows in time order, each once"
start=$(jget "$tmp/read.json" start)
want=$(jget "$tmp/run/run.json" runs.0.started_at_ms)
# The tool is spawned after the row's start, the target's and the quiet
# gate (up to 30 s on a busy machine): within the row's wall time.
wall=$(jget "$tmp/run/run.json" runs.0.harness_wall_s)
check "StartTime is within the row ($start s against started_at_ms $want and $wall s of the row)" \
    perl -e "my \$d = $start * 1000 - $want; exit(\$d > -1000 && \$d < $wall * 1000 ? 0 : 1)"
is "$(jget "$tmp/read.json" count)" "$(jget "$tmp/run/run.json" runs.0.windows.hold_server_time_ms.count)" \
    "the hold intervals hold run.json's hold-window count"
# pcts WHAT READ RUNJSON_PATH ABOVE: p50/p99/p99.9 of HdrHistogram's
# decoding (READ, in ms) against run.json's at RUNJSON_PATH: never below
# (run.json keeps ms with 6 decimals), and at most the fraction ABOVE of
# it above (0: equal to the ns).
pcts() {
    for p in p50 p99 p999; do
        got=$(jget "$2" $p)
        want=$(jget "$tmp/run/run.json" "$3.$p")
        check "$p $1 from HdrHistogram's decoding, $got ms, is run.json's $want ms (up to $4 of it above)" \
            perl -e "exit($got >= $want - 0.0000015 && $got <= $want * (1 + $4) + 0.0000015 ? 0 : 1)"
        diag "$p by HdrHistogram's own rank rule (nearest rank): $(jget "$2" ${p}_hdr) ms"
    done
}
# The top of the same bucket as run.json's: equal to the ns.
pcts "over the hold" "$tmp/read.json" runs.0.windows.hold_server_time_ms 0

# tool_log ROW TOOL MIN MAX WHAT [UNIT]: the row's tool_hlog_file, read by
# HdrHistogram's reader (its values UNIT a ms: 1e6 for ns): MIN-MAX
# intervals (WHAT says which), every response run.json counts, and
# p50/p99/p99.9 within 3 digits of the client's, never below: lb-gen's
# and JMeter's are the same buckets as their whole-run figures (a second's
# max caps only lb-gen's top bucket); Vegeta's run.json figures are exact
# (its ns, nearest rank), the log's the top of their bucket: at most
# 1/1024 above.
tool_log() {
    f=$(jget "$tmp/run/run.json" runs.$1.tool_hlog_file)
    is "$f" "samples/$2.tool.hlog" "run.json names $2's own interval log"
    "$py" "$tmp/read.py" "$tmp/run/$f" '*' "${6:-1e6}" > "$tmp/$2.json" 2>"$tmp/$2.err" || true
    check "HdrHistogram's reader reads it ($(head -c 200 "$tmp/$2.err"))" test -s "$tmp/$2.json"
    n=$(jget "$tmp/$2.json" intervals)
    check "$5 ($n)" test "$n" -ge "$3" -a "$n" -le "$4"
    is "$(jget "$tmp/$2.json" count)" "$(jget "$tmp/run/run.json" runs.$1.client.requests)" \
        "its intervals hold every response run.json counts"
    pcts "of $2's log" "$tmp/$2.json" runs.$1.client.latency_ms 1/1024
}
# lb-gen's own view: its 3-digit histogram of each second.
tool_log 0 lb-gen 3 5 "one interval a second of lb-gen's, over 3 s"
# Vegeta's per-request CSV (ns); JMeter's JTL (whole ms, values in ms).
# At least the hold's samples (Vegeta runs the hold only: 1 s at 500 ms),
# at most the whole load's and 6 more (it was 6-16 with a 3 s hold of 5 s).
row=0
for t in $others; do
    row=$((row + 1))
    case $t in
    vegeta) tool_log $row vegeta 2 12 "an interval a sample, cut at the hold's edges" ;;
    jmeter) tool_log $row jmeter 2 12 "an interval a sample, cut at the hold's edges" 1 ;;
    esac
done
done_testing
