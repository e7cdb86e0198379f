#!/bin/sh
# Vegeta live against lb-target, whenever loadbench finds one (v12.13.0,
# which scripts/install-tools installs from the Go module proxy into the
# tools folder, or one on PATH); without one, one SKIP that says where
# loadbench looked and names scripts/install-tools. Through `loadbench run`:
#   - open, 50/s for 2 s against a 20 ms delay: model open, -rate=50/s,
#     about 100 requests, its count equal to the server's (Vegeta waits for
#     the requests in flight), crosscheck exact, p50 at least the delay;
#   - closed, 4 connections for 2 s (-rate=0, 4 workers on at most 4
#     connections): no more than 4 x (2 s / 20 ms + 1), the server's count
#     again, latency at least the delay, p99.9 reported (exact, from the CSV);
#   - instances: 2 of an open 60/s: two copies at 30/s each, summed counts
#     equal to the server's, latency merged exactly from both CSVs.
#   - in the closed run, 1 s rows of 2 connections: TLS 1.3 HTTP/1.1
#     (-http2=false), h2 (-http2=true), each verified against the run's CA
#     (-root-certs), and h2c (-h2c);
# Straight Vegeta runs, checking what the parser relies on in live output:
#   - a refused connection: exit 0, every row of the CSV with status 0 and
#     Go's "connection refused" as its error;
#   - a 404 (lb-target's control port): rows with status 404, each of the
#     12 columns `vegeta encode -to csv` writes, and `vegeta report
#     -type=json` counting them as "requests";
#   - HTTPS without -root-certs: every request fails on the certificate
#     (what makes the TLS rows' "verified" true).
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/target-lib.sh"
# No chart is checked here: gnuplot's rendering (seconds of CPU a run) is
# report_charts.t's and report_sweep.t's to test.
export LOADBENCH_GNUPLOT=
. "$(dirname "$0")/../lib/live-tool.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

find_tool vegeta
VEG=$found

if run_lb open vegeta 20ms '{model: open, rate: 50, duration: 2s}'; then
    is "$(jget "$J" runs.0.identity.model)" open "open: model open"
    case "$(jget "$J" runs.0.identity.argv)" in
        *'"-rate=50/s"'*) ok 0 "open: -rate=50/s" ;;
        *) ok 1 "open: -rate=50/s"; diag "$(jget "$J" runs.0.identity.argv)" ;;
    esac
    # 50/s x 2 s: the timetable's 100, one more at most (the hit at 2 s);
    # half of it when Vegeta is kept off the CPU.
    between 50 "$req" 101 "open: about 50/s x 2 s"
    all_answered open 20
fi

# 1 s TLS and HTTP/2 entries in the same run: one Vegeta start-up more each.
ONE='load: {connections: 2, duration: 1s}'
if run_lb closed "vegeta, {tool: vegeta, label: v-tls13, $ONE, target: {tls: {version: 1.3}}},
    {tool: vegeta, label: v-h2, $ONE, target: {tls: {version: 1.3}, protocol: h2}},
    {tool: vegeta, label: v-h2c, $ONE, target: {protocol: h2c}}" 20ms '{connections: 4, duration: 2s}'; then
    is "$(jget "$J" runs.0.identity.model)" closed "closed: model closed"
    case "$(jget "$J" runs.0.identity.argv)" in
        *'"-rate=0"'*'"-max-connections=4"'*'"-workers=4"'*'"-max-workers=4"'*) ok 0 "closed: -rate=0 with 4 workers on 4 connections" ;;
        *) ok 1 "closed: -rate=0 with 4 workers on 4 connections"; diag "$(jget "$J" runs.0.identity.argv)" ;;
    esac
    between 1 "$req" 404 "closed: requests, no more than 4 x (2 s / 20 ms + 1)"
    all_answered closed 20
    check "closed: p99.9 reported, at least the p99" \
        perl -e 'exit !($ARGV[0] >= $ARGV[1] && $ARGV[1] >= 20)' \
        "$(jget "$J" runs.0.client.latency_ms.p999)" "$(jget "$J" runs.0.client.latency_ms.p99)"
    tls_row v-tls13 1 true
    is "$(jget "$J" runs.1.target_protocol.tls.alpn.h2)" 0 "v-tls13: -http2=false: no connection negotiated h2"
    tls_row v-h2 2 true
    v=$(jget "$J" runs.3.status)/$(jget "$J" runs.3.crosscheck.verdict)
    is "$v" ok/exact "v-h2c: status ok, counts exact" || diag "reason: $(jget "$J" runs.3.reason)"
    c=$(jget "$J" runs.3.target_protocol.h2.h2c_connections)
    check "v-h2c: lb-target counted h2c connections ($c)" test "${c:-0}" -gt 0
    is "$(jget "$J" runs.3.target_protocol.h2.streams.completed)" "$(jget "$J" runs.3.server.requests)" \
        "v-h2c: h2 streams completed = the server's requests"
fi

printf 'name: live-inst\ntarget: {delay: 20ms}\nload: {model: open, rate: 60, duration: 2s}\ntools:\n  - {tool: vegeta, instances: 2}\nsampling: {interval: 500ms}\ngrace: 30s\n' \
    > "$tmp/inst.yaml"
rc=0
"$LB" run --quiet --out "$tmp/inst" "$tmp/inst.yaml" >"$tmp/inst.out" 2>&1 || rc=$?
J=$tmp/inst/run.json
if check "instances: loadbench run wrote run.json (exit $rc)" test -s "$J"; then
    is "$(jget "$J" runs.0.status)" ok "instances: status ok" || diag "$(jget "$J" runs.0.reason)"
    req=$(jget "$J" runs.0.client.requests)
    srv=$(jget "$J" runs.0.server.requests)
    case "$(jget "$J" runs.0.identity.processes)" in
        *'-rate=30/s'*'-rate=30/s'*) ok 0 "instances: two copies at -rate=30/s" ;;
        *) ok 1 "instances: two copies at -rate=30/s"; diag "$(jget "$J" runs.0.identity.processes)" ;;
    esac
    between 60 "$req" 122 "instances: about 60/s x 2 s together"
    all_answered instances 20
    is "$(jget "$J" runs.0.client.latency_merge.exact)" true "instances: latency merged exactly from the CSVs"
else
    sed 's/^/# /' "$tmp/inst.out"
fi

# v_run NAME URL: 50/s for 1 s, results as CSV in $tmp/NAME.csv.
v_run() {
    rc=0
    printf 'GET %s\n' "$2" > "$tmp/$1.targets"
    timeout 30 "$VEG" attack -targets="$tmp/$1.targets" -rate=50/s -duration=1s -output="$tmp/$1.bin" \
        2>"$tmp/$1.err" || rc=$?
    "$VEG" encode -to csv -output "$tmp/$1.csv" "$tmp/$1.bin"
    "$VEG" report -type=json -output "$tmp/$1.json" "$tmp/$1.bin"
}

start_target vtls --tls 1.3 --tls-ca "$tmp/vtls-ca.pem"
v_run untrusted "https://127.0.0.1:$T_PORT/"
is "$rc/$(cut -d, -f2 "$tmp/untrusted.csv" | sort -u)" 0/0 "untrusted: exit 0, no response"
is "$(grep -c 'certificate signed by unknown authority' "$tmp/untrusted.csv")" "$(wc -l < "$tmp/untrusted.csv")" \
    "untrusted: each row's error is the unverified certificate"
stop_target "$T_PID"

start_target vt
v_run notfound "http://127.0.0.1:$T_CTL/no-such-path"
is "$rc" 0 "404: vegeta attack exits 0"
n=$(wc -l < "$tmp/notfound.csv")
check "404: results written ($n)" test "$n" -gt 0
is "$(cut -d, -f2 "$tmp/notfound.csv" | sort -u)" 404 "404: every row has status 404"
is "$(awk -F, 'NF != 12' "$tmp/notfound.csv" | wc -l)" 0 "404: every row has the 12 columns of vegeta encode -to csv"
is "$(jget "$tmp/notfound.json" requests)" "$n" "404: vegeta report -type=json counts the rows as requests"

kill "$T_PID"; wait "$T_PID" 2>/dev/null || true
v_run refused "http://127.0.0.1:$T_PORT/"
is "$rc" 0 "refused: vegeta attack exits 0"
is "$(cut -d, -f2 "$tmp/refused.csv" | sort -u)" 0 "refused: every row has status 0 (no response)"
is "$(grep -c 'connection refused' "$tmp/refused.csv")" "$(wc -l < "$tmp/refused.csv")" \
    "refused: each row's error is connection refused"

done_testing
