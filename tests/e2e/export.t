#!/bin/sh
# loadbench export: the run's figures in the formats other tools read, each
# checked by that format's own reader, not ours.
#   - Prometheus' classic text (--format prometheus), with and without
#     timestamps: `promtool check metrics` (Debian's prometheus) passes it;
#   - OpenMetrics 1.0 (--format openmetrics): prometheus_client's own
#     OpenMetrics parser (Debian's python3-prometheus-client) reads every
#     family, one TYPE each, the # EOF, and values equal to run.json's;
#   - hostile labels (a quote, a backslash, a newline in a tool's label)
#     come back from both readers as they were written;
#   - --format csv: one line per row and metric, with the figure of run.json;
#   - an unknown format, a missing run, no format: exit 2.
# Parse only: runs in parallel with the other parse tests.
# lb-test: parallel
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
run=$LB_SRC/tests/fixtures/runs/sample-200vus-2026-11-29
py=/usr/bin/python3

if command -v promtool >/dev/null 2>&1; then
    "$LB" export --format prometheus "$run" > "$tmp/p.txt"
    check "promtool check metrics passes --format prometheus (timestamps in ms)" sh -c "promtool check metrics < '$tmp/p.txt'"
    "$LB" export --format prometheus --no-timestamps "$run" > "$tmp/pn.txt"
    check "promtool check metrics passes --format prometheus --no-timestamps" sh -c "promtool check metrics < '$tmp/pn.txt'"
    check "--no-timestamps leaves no sample stamped" sh -c "! grep -v '^#' '$tmp/pn.txt' | sed 's/.*} //' | awk 'NF != 1' | grep -q ."
check "without it every sample but the start gauge's is stamped" \
    sh -c "! grep -v '^#' '$tmp/p.txt' | grep -v '^loadbench_row_start_timestamp_seconds' | sed 's/.*} //' | awk 'NF != 2' | grep -q ."
else
    skip "promtool not installed (apt-get install prometheus; scripts/deps test)"
    skip "promtool not installed"
    skip "promtool not installed"
    skip "promtool not installed"
fi

"$LB" export --format openmetrics "$run" > "$tmp/om.txt"
is "$(tail -n 1 "$tmp/om.txt")" "# EOF" "OpenMetrics ends with # EOF"
is "$(grep '^# TYPE' "$tmp/om.txt" | awk '{print $3}' | sort | uniq -d)" "" "one # TYPE per family"
want=$(jget "$run/run.json" runs.0.efficiency.requests_per_cpu_second)
if $py -c 'import prometheus_client.openmetrics.parser' 2>/dev/null; then
    got=$($py - "$tmp/om.txt" <<'EOF'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
fams = {f.name: f for f in parse(open(sys.argv[1]).read())}
s = fams["loadbench_requests_per_cpu_second"].samples[0]
print(len(fams), fams["loadbench_server_requests"].type, fams["loadbench_tool_rss_peak_bytes"].unit,
      s.labels["tool"], repr(s.value), s.timestamp is not None)
EOF
)
    set -- $got
    is "$1 $2 $3 $4" "12 counter bytes lb-gen" "prometheus_client's OpenMetrics parser reads 12 families, a counter, units"
    ok "$(perl -e 'exit(abs($ARGV[0] - $ARGV[1]) <= 1e-9 * abs($ARGV[1]) ? 0 : 1)' "$5" "$want" && echo 0 || echo 1)" \
        "requests per CPU-second as run.json has it ($5 vs $want)"
    is "$6" "True" "samples carry the row's start as their timestamp"
else
    skip "python3-prometheus-client not installed (scripts/deps test)"
    skip "python3-prometheus-client not installed"
    skip "python3-prometheus-client not installed"
fi

# Hostile labels: a run.json whose tool label holds a quote, a backslash
# and a newline.
mkdir -p "$tmp/hostile"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); $d->{runs}[0]{label} = "a\"b\\c\nd";
    print JSON::PP->new->utf8->canonical->encode($d)' < "$run/run.json" > "$tmp/hostile/run.json"
"$LB" export --format openmetrics "$tmp/hostile" > "$tmp/h.txt"
if $py -c 'import prometheus_client.openmetrics.parser' 2>/dev/null; then
    got=$($py - "$tmp/h.txt" <<'EOF'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
for f in parse(open(sys.argv[1]).read()):
    print(repr(f.samples[0].labels["label"]))
    break
EOF
)
    is "$got" "'a\"b\\\\c\\nd'" "a label with a quote, a backslash and a newline reads back as written (OpenMetrics)"
else
    skip "python3-prometheus-client not installed"
fi
if command -v promtool >/dev/null 2>&1; then
    check "promtool accepts the escaped hostile label" sh -c "'$LB' export --format prometheus '$tmp/hostile' | promtool check metrics"
else
    skip "promtool not installed"
fi

"$LB" export --format csv "$run" > "$tmp/long.csv"
is "$(head -n 1 "$tmp/long.csv")" "run_started_ms,tool,label,status,verdict,version,metric,value,unit" "csv header"
rows=$(perl -MJSON::PP -e 'local $/; print scalar grep { defined $_->{efficiency}{requests_per_cpu_second} }
    @{decode_json(<STDIN>)->{runs}}' < "$run/run.json")
lines=$(grep -c ',loadbench_requests_per_cpu_second,' "$tmp/long.csv")
is "$lines" "$rows" "csv: one requests-per-CPU-second line per row that has the figure ($rows)"
got=$(grep ',lb-gen,lb-gen,.*,loadbench_requests_per_cpu_second,' "$tmp/long.csv" | cut -d, -f8)
ok "$(perl -e 'exit(abs($ARGV[0] - $ARGV[1]) <= 1e-9 * abs($ARGV[1]) ? 0 : 1)' "$got" "$want" && echo 0 || echo 1)" \
    "csv: lb-gen's figure as run.json has it"

rc=0; "$LB" export --format yaml "$run" >/dev/null 2>"$tmp/e" || rc=$?
is "$rc" 2 "an unknown format exits 2"
check "it names the formats it knows" grep -q "openmetrics, prometheus, csv" "$tmp/e"
rc=0; "$LB" export --format csv "$tmp/none" >/dev/null 2>&1 || rc=$?
is "$rc" 2 "a missing run exits 2"
rc=0; "$LB" export "$run" >/dev/null 2>&1 || rc=$?
is "$rc" 2 "no --format exits 2"
done_testing
