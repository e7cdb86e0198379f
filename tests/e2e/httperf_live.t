#!/bin/sh
# httperf live against lb-target, whenever it is installed (apt-get install
# httperf, or scripts/install-tools); without it, one SKIP that says where
# loadbench looked. Through `loadbench run`:
#   - open, 200 connections/s for 2 s against a 20 ms delay: model open,
#     --rate 200 --num-conns 400 --num-calls 1, exactly 400 requests and the
#     server's count equal (httperf waits for every connection it issued),
#     verdict exact, no errors; latency: mean and p50 at least half the
#     delay (its clock is cached per pass of its event loop: a lifetime can
#     read short by a pass, min 3.6 ms seen at 200/s), p99 absent (httperf prints no percentiles: never an estimate);
#   - beside it in the same run, 20/s for 1 s over TLS 1.3 (--ssl): the
#     row ok and unverified (tests/lib/tls-row.sh), one full handshake per
#     request (a connection each, no session offered again);
#   - a closed load is refused at plan with the reason (no fixed
#     connections in httperf's model), as is a rate whose connections open
#     at once exceed what select() allows.
set -eu
. "$(dirname "$0")/target-lib.sh"
# No chart is checked here: gnuplot's rendering (seconds of CPU a run) is
# report_charts.t's and report_sweep.t's to test.
export LOADBENCH_GNUPLOT=
. "$(dirname "$0")/../lib/live-tool.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

find_tool httperf "{model: open, rate: 1, duration: 1s}"

tls13='{tool: httperf, label: tls13, load: {model: open, rate: 20, duration: 1s}, target: {tls: {version: 1.3}}}'
if run_lb open "httperf, $tls13" 20ms '{model: open, rate: 200, duration: 2s}'; then
    is "$(jget "$J" runs.0.identity.model)" open "open: model open"
    case "$(jget "$J" runs.0.identity.argv)" in
        *'"--rate=200","--num-conns=400","--num-calls=1"'*) ok 0 "open: --rate=200 --num-conns=400 --num-calls=1" ;;
        *) ok 1 "open: --rate=200 --num-conns=400 --num-calls=1"; diag "$(jget "$J" runs.0.identity.argv)" ;;
    esac
    is "$req" 400 "open: 400 requests, one per connection issued"
    is "$req" "$srv" "open: httperf's count = the server's"
    is "$(jget "$J" runs.0.crosscheck.verdict)" exact "open: crosscheck verdict exact"
    is "$(jget "$J" runs.0.client.errors)" 0 "open: no errors"
    check "open: latency mean at least half the 20 ms delay" \
        perl -e 'exit !($ARGV[0] >= 10 && $ARGV[0] < 1000)' "$(jget "$J" runs.0.client.latency_ms.mean)"
    # httperf's median is the centre of its 1 ms bin: when every connection
    # took 20.1-20.4 ms it prints 20.5, outside its own min..max, and the
    # row leaves it out with a warning (a CI run failed here on a null
    # p50, which nothing else explains: the delay keeps it over 20 ms).
    p50=$(jget "$J" runs.0.client.latency_ms.p50)
    if [ "$p50" = null ]; then
        check "open: no p50, and the row says why (the bin centre outside min..max)" \
            sh -c "printf '%s' \"\$1\" | grep -q 'median .* outside its own min..max'" _ "$(jget "$J" runs.0.warnings)"
    else
        check "open: latency p50 at least half the 20 ms delay" perl -e 'exit !($ARGV[0] >= 10 && $ARGV[0] < 1000)' "$p50"
    fi
    is "$(jget "$J" runs.0.client.latency_ms.p99)" null "open: no p99 (httperf prints no percentiles)"
    is "$(jget "$J" runs.0.client.latency_ms.p90)" null "open: no p90 either"
    is "$(jget "$J" runs.0.identity.latency_resolution_ms)" 1 "open: resolution stated as its 1 ms median bins"
    tls_row tls13 1 false
    is "$(jget "$J" runs.1.target_protocol.tls.handshakes.full)/$(jget "$J" runs.1.target_protocol.tls.handshakes.resumed)" \
        "$(jget "$J" runs.1.server.requests)/0" "tls13: a full handshake per request the server counted, none resumed"
    case "$(jget "$J" runs.1.identity.argv)" in *'"--num-calls=1","--ssl"'*) ok 0 "tls13: --ssl" ;;
        *) ok 1 "tls13: --ssl ($(jget "$J" runs.1.identity.argv))" ;; esac
fi

# plan NAME LOAD DELAY: `loadbench plan` of a one-httperf profile; out in $tmp/NAME.plan.
plan() {
    printf 'name: p-%s\ntarget: {delay: %s}\nload: %s\ntools: [httperf]\n' "$1" "$3" "$2" > "$tmp/$1.yaml"
    "$LB" plan "$tmp/$1.yaml" > "$tmp/$1.plan" 2>&1 || true
}
plan closed '{connections: 10, duration: 2s}' 0s
check "closed: refused with the reason (no fixed connections)" grep -q "httperf cannot run the closed model" "$tmp/closed.plan" \
    || sed 's/^/# /' "$tmp/closed.plan"
plan fdcap '{model: open, rate: 20000, duration: 2s}' 100ms
check "20000/s against 100 ms: refused, select() caps its sockets" grep -q "select(), at most 1024 sockets" "$tmp/fdcap.plan" \
    || sed 's/^/# /' "$tmp/fdcap.plan"

done_testing
