#!/bin/sh
# oha live against lb-target, whenever loadbench finds one (installed from
# crates.io by scripts/install-tools, or on PATH); without one, one SKIP
# that says where loadbench looked. `loadbench tools` names its version and
# origin. Through `loadbench run`:
#   - closed, 8 connections for 2 s against a 20 ms delay: model closed,
#     -c 8 -z 2s, no more than 8 x (2 s / 20 ms + 1); oha aborts the
#     requests in flight at -z ("aborted due to deadline", not counted), so
#     its count is the server's (exact) or at most one per connection below
#     it (explained, with a warning naming the aborted), no errors, latency
#     p50 at least the delay;
#   - open, 50/s for 2 s: model open, -q 50 --latency-correction, at most
#     the timetable's 101 and at least half of it, exact or explained the
#     same way, p50 at least the delay.
# Straight oha runs, checking what the parser relies on in live output:
#   - a refused connection: exit 0, no status counted, the failures in
#     errorDistribution under a message naming the refusal;
#   - a 404 (lb-target's control port): every response under "404".
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

find_tool oha
OHA=$found

"$LB" tools > "$tmp/tools.txt" 2>&1 || true
check "tools: oha found with its version and origin" grep -Eq '^oha +yes +1\.13\.0 \(crates\.io 1\.13\.0\)' "$tmp/tools.txt"

# counted NAME CONNS: the run's count and verdict as oha's deadline leaves
# them: exact, or explained by at most CONNS in flight, no errors.
counted() {
    v=$(jget "$J" runs.0.crosscheck.verdict)
    case "$v" in exact | explained) ok 0 "$1: crosscheck $v" ;; *) ok 1 "$1: crosscheck exact or explained (got $v)" ;; esac
    between $((srv - $2)) "$req" "$srv" "$1: oha's count = the server's, or at most $2 in flight below it"
    is "$(jget "$J" runs.0.client.errors)" 0 "$1: no errors (the deadline's aborts are none)"
    check "$1: latency p50 at least the 20 ms delay" \
        perl -e 'exit !($ARGV[0] >= 20)' "$(jget "$J" runs.0.client.latency_ms.p50)"
}

if run_lb closed oha 20ms '{connections: 8, duration: 2s}'; then
    is "$(jget "$J" runs.0.identity.model)" closed "closed: model closed"
    case "$(jget "$J" runs.0.identity.argv)" in
        *'"--no-tui","-c","8","-z","2s"'*) ok 0 "closed: --no-tui -c 8 -z 2s" ;;
        *) ok 1 "closed: --no-tui -c 8 -z 2s"; diag "$(jget "$J" runs.0.identity.argv)" ;;
    esac
    between 1 "$req" 808 "closed: requests, no more than 8 x (2 s / 20 ms + 1)"
    counted closed 8
fi

if run_lb open oha 20ms '{model: open, rate: 50, duration: 2s}'; then
    is "$(jget "$J" runs.0.identity.model)" open "open: model open"
    case "$(jget "$J" runs.0.identity.argv)" in
        *'"-q","50","--latency-correction"'*) ok 0 "open: -q 50 --latency-correction" ;;
        *) ok 1 "open: -q 50 --latency-correction"; diag "$(jget "$J" runs.0.identity.argv)" ;;
    esac
    # Its timetable: a time every 20 ms from 0 to 2 s, 101; half when oha
    # is kept off the CPU.
    between 50 "$req" 101 "open: about 50/s x 2 s"
    # 50/s x (20 ms + 10 ms) x 4: 6 connections
    counted open 6
fi

# o_run NAME URL: 2 connections for 1 s, JSON result in $tmp/NAME.json.
o_run() {
    rc=0
    timeout 30 "$OHA" --no-tui -c 2 -z 1s --redirect 0 --output-format json --output "$tmp/$1.json" "$2" \
        >"$tmp/$1.out" 2>&1 || rc=$?
}

start_target ot
o_run notfound "http://127.0.0.1:$T_CTL/no-such-path"
is "$rc" 0 "404: oha exits 0"
n=$(jget "$tmp/notfound.json" statusCodeDistribution.404)
check "404: responses under \"404\" ($n)" test "${n:-0}" -gt 0
is "$(jget "$tmp/notfound.json" statusCodeDistribution.200)" null "404: none under \"200\""

kill "$T_PID"; wait "$T_PID" 2>/dev/null || true
o_run refused "http://127.0.0.1:$T_PORT/"
is "$rc" 0 "refused: oha exits 0"
is "$(jget "$tmp/refused.json" statusCodeDistribution)" '{}' "refused: no status counted"
check "refused: the failures under a message naming the refusal" \
    perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>)->{errorDistribution};
        exit !grep { /refused/i && $d->{$_} > 0 } keys %$d' < "$tmp/refused.json"

done_testing
