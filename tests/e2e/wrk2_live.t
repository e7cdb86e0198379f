#!/bin/sh
# wrk2 live against lb-target, when loadbench finds one (the user's own on
# PATH: wrk2 is in no registry); without one, one SKIP that says where
# loadbench looked and how to install it. Through `loadbench run`:
#   - open, 100/s for 32 s against a 20 ms delay (100 connections, 10.25 s
#     of calibration on 2 threads): status ok, model open, about 3200
#     requests, the tool's count within its connections of the server's
#     (wrk2 stops hard and does not count what is in flight), no errors,
#     corrected and uncorrected p50 at least the delay, and the server's
#     hold window after the calibration (load_as_run: two stages);
#   - a closed load: refused by `loadbench plan`, saying why.
set -eu
. "$(dirname "$0")/target-lib.sh"
# No chart is checked here: gnuplot's rendering (seconds of CPU a run) is
# report_charts.t's and report_sweep.t's to test.
export LOADBENCH_GNUPLOT=
. "$(dirname "$0")/../lib/live-tool.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

find_tool wrk2 '{model: open, rate: 100, duration: 32s}'

if run_lb open wrk2 20ms '{model: open, rate: 100, duration: 32s, max_inflight: 100}'; then
    is "$(jget "$J" runs.0.identity.model)" open "open: model open"
    # 100/s x 32 s; a little less when wrk2 is kept off the CPU.
    between 2800 "$req" 3210 "open: about 100/s x 32 s"
    check "open: the server's count is the tool's plus at most 100 in flight ($req, $srv)" \
        test "${srv:-0}" -ge "${req:-1}" -a "${srv:-0}" -le "$((${req:-0} + 100))"
    is "$(jget "$J" runs.0.client.errors)" 0 "open: no errors"
    check "open: corrected p50 at least the 20 ms delay" \
        perl -e 'exit !($ARGV[0] >= 20)' "$(jget "$J" runs.0.client.latency_ms.p50)"
    check "open: uncorrected p50 at least the 20 ms delay" \
        perl -e 'exit !($ARGV[0] >= 20)' "$(jget "$J" runs.0.client.latency_uncorrected_ms.p50)"
    is "$(jget "$J" runs.0.load_as_run.hold_window_ns.0)" 10250000000 "open: the server's hold window starts after calibration"
    v=$(jget "$J" runs.0.crosscheck.verdict)
    case "$v" in
        exact | explained) ok 0 "open: verdict $v" ;;
        *) ok 1 "open: verdict $v"; diag "$(jget "$J" runs.0.crosscheck)" ;;
    esac
fi

printf 'load: {connections: 10, duration: 40s}\ntools: [wrk2]\n' > "$tmp/closed.yaml"
"$LB" plan "$tmp/closed.yaml" > "$tmp/closed.out" 2>&1 || true
check "closed: plan refuses it: wrk2 runs a rate only" grep -q "wrk2 cannot run the closed model" "$tmp/closed.out"

done_testing
