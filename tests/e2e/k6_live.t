#!/bin/sh
# k6 live against lb-target, whenever loadbench finds a k6 (the user's own
# on PATH: k6 is in no registry); without one, one SKIP that says where
# loadbench looked and how to install it. Through `loadbench run`:
#   - closed ramping-vus (0 -> 6 VUs, hold, -> 0): status ok, the executor
#     as written, k6's count equal to the server's (k6 stops gracefully),
#     a p99.9 (asked for in --summary-trend-stats) between p99 and max;
#   - constant-arrival-rate 40/s for 2 s: the open model, 80 iterations
#     scheduled (81: k6 starts one at 0 s and one at 2 s), each one a
#     request or dropped, k6's count = the server's;
#   - ramping-arrival-rate up to 100/s against a 200 ms delay with
#     max_inflight 4 (at most 20/s can be served): dropped iterations are
#     surfaced in run.json and as a warning.
# Straight k6 runs (loadbench's target answers 200 on every path), checking
# what the adapter's parser relies on in live output:
#   - a crossed threshold: exit 99, k6's "have been crossed" line, the
#     threshold true in --summary-export;
#   - a refused connection: exit 0, every attempt in http_reqs, one
#     "Request Failed ... connection refused" line per attempt, no bytes;
#   - a 404 (lb-target's control port): http_req_failed passes = http_reqs,
#     no expected_response metric.
# Each run is 2-4 s of load; bounds on counts follow from the load itself
# (VUs x time / delay), never from this machine's speed.
set -eu
. "$(dirname "$0")/target-lib.sh"
# No chart is checked here: gnuplot's rendering (seconds of CPU a run) is
# report_charts.t's and report_sweep.t's to test.
export LOADBENCH_GNUPLOT=
. "$(dirname "$0")/../lib/live-tool.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

find_tool k6
K6=$found

# read_schedule: sched and dropped of the open-model run in $J.
read_schedule() {
    sched=$(jget "$J" runs.0.client.schedule.scheduled)
    dropped=$(jget "$J" runs.0.client.schedule.dropped)
    [ "$dropped" != null ] || dropped=0
}

# --- closed, ramping-vus --------------------------------------------------
if run_lb ramp k6 20ms '{stages: [{duration: 1s, target: 6}, {duration: 2s, target: 6}, {duration: 1s, target: 0}]}'; then
    is "$(jget "$J" runs.0.identity.settings.executor)" ramping-vus "ramp: k6 ran ramping-vus"
    is "$(jget "$J" runs.0.identity.model)" closed "ramp: closed model"
    # 6 VUs for at most 4 s, each request held 20 ms: at most 1200.
    between 1 "$req" 1200 "ramp: k6 counted requests, no more than 6 VUs x 4 s / 20 ms"
    all_answered ramp 20
    check "ramp: a p99.9, at least p99 and at most max" perl -e '
        my ($p99, $p999, $max) = @ARGV; exit !($p999 ne "null" && $p999 >= $p99 && $p999 <= $max)' \
        "$(jget "$J" runs.0.client.latency_ms.p99)" "$(jget "$J" runs.0.client.latency_ms.p999)" \
        "$(jget "$J" runs.0.client.latency_ms.max)"
fi

# --- open, constant-arrival-rate ----------------------------------------------
if run_lb car k6 20ms '{model: open, rate: 40, duration: 2s, max_inflight: 20}'; then
    is "$(jget "$J" runs.0.identity.settings.executor)" constant-arrival-rate "car: k6 ran constant-arrival-rate"
    is "$(jget "$J" runs.0.identity.model)" open "car: open model"
    read_schedule
    # k6 v0.48.0 starts an iteration every 25 ms from t = 0 to t = 2 s
    # inclusive: 81 here, not 80. A VU short at the start on a loaded
    # machine shows as dropped.
    between 80 "$sched" 81 "car: 40/s x 2 s = 80 (+1) iterations scheduled"
    is "$((req + dropped))" "$sched" "car: requests + dropped = the schedule (requests $req, dropped $dropped)"
    is "$req" "$srv" "car: k6's count = the server's"
fi

# --- open, ramping-arrival-rate, dropped ----------------------------------
if run_lb rar k6 200ms '{model: open, max_inflight: 4, stages: [{duration: 1s, target: 100}, {duration: 2s, target: 100}]}'; then
    is "$(jget "$J" runs.0.identity.settings.executor)" ramping-arrival-rate "rar: k6 ran ramping-arrival-rate"
    is "$(jget "$J" runs.0.identity.settings.maxVUs)" 4 "rar: maxVUs = max_inflight"
    read_schedule
    # 4 VUs x 3 s / 200 ms = at most 60 served of about 250 scheduled.
    between 1 "$req" 64 "rar: requests bounded by 4 VUs x 3 s / 200 ms"
    check "rar: dropped iterations surfaced ($dropped of $sched)" test "${dropped:-0}" -ge 150
    is "$((req + dropped))" "$sched" "rar: requests + dropped = scheduled"
    case "$(jget "$J" runs.0.warnings)" in
        *"k6 dropped $dropped of $sched scheduled iterations"*) ok 0 "rar: a warning names the dropped iterations" ;;
        *) ok 1 "rar: a warning names the dropped iterations"; diag "$(jget "$J" runs.0.warnings)" ;;
    esac
    is "$req" "$srv" "rar: k6's count = the server's"
fi

# --- straight k6 runs ---------------------------------------------------------
# k6_run NAME URL OPTIONS BODY: a script of NAME with these options and
# this iteration body against URL, run the way the adapter runs it; rc is
# its exit status, $tmp/NAME.json the summary export, $tmp/NAME.log its
# output.
k6_run() {
    cat > "$tmp/$1.js" <<JS
import http from 'k6/http';
import { sleep } from 'k6';
export const options = { $3 };
export default function () { http.get('$2'); $4 }
JS
    rc=0
    (cd "$tmp" && K6_NO_USAGE_REPORT=true timeout 60 "$K6" run --no-color --no-usage-report --quiet --address= \
        --summary-export "$1.json" "$1.js") >"$tmp/$1.log" 2>&1 || rc=$?
}

start_target lt --delay 20ms
k6_run threshold "http://127.0.0.1:$T_PORT/" "vus: 2, duration: '2s', thresholds: { http_req_duration: ['p(95)<1'] }" ""
is "$rc" 99 "threshold: k6 exits 99 when a threshold is crossed"
check "threshold: k6 says so in its log" grep -q "thresholds on metrics 'http_req_duration' have been crossed" \
    "$tmp/threshold.log"
is "$(jget "$tmp/threshold.json" 'metrics.http_req_duration.thresholds.p(95)<1')" true \
    "threshold: the summary export marks p(95)<1 as crossed (true)"

# The 404: an unknown path on lb-target's control port.
k6_run notfound "http://127.0.0.1:$T_CTL/no-such-path" "vus: 2, duration: '2s'" "sleep(0.05);"
is "$rc" 0 "404: k6 exits 0"
n=$(jget "$tmp/notfound.json" metrics.http_reqs.count)
check "404: requests were made ($n)" test "${n:-0}" -gt 0
is "$(jget "$tmp/notfound.json" metrics.http_req_failed.passes)" "$n" "404: http_req_failed passes = every request"
is "$(jget "$tmp/notfound.json" 'metrics.http_req_duration{expected_response:true}')" null \
    "404: no expected_response metric"

# Refused: the port of a target that has stopped.
kill "$T_PID"; wait "$T_PID" 2>/dev/null || true
k6_run refused "http://127.0.0.1:$T_PORT/" "vus: 2, duration: '2s'" "sleep(0.1);"
is "$rc" 0 "refused: k6 exits 0"
n=$(jget "$tmp/refused.json" metrics.http_reqs.count)
check "refused: the attempts are in http_reqs ($n)" test "${n:-0}" -gt 0
is "$(grep -c 'msg="Request Failed".*connection refused' "$tmp/refused.log")" "$n" \
    "refused: one Request Failed line per attempt, naming connection refused"
is "$(jget "$tmp/refused.json" metrics.data_received.count)" 0 "refused: nothing received"

done_testing
