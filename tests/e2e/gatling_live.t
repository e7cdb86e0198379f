#!/bin/sh
# Gatling live against lb-target, whenever loadbench finds it (installed
# from Maven Central into the tools folder by scripts/install-tools); without
# it, one SKIP that says where loadbench looked. Through `loadbench run`:
#   - closed, 4 users for 2 s against a 20 ms delay: status ok, verdict
#     exact (each user's during loop ends with its last response), at most
#     4 x (2 s / 20 ms + 1), p50 at least the delay; the footprint split
#     into start, load and report phases, load and report each with CPU,
#     the row's requests per CPU-second over the load phase;
#   - open, 50 users/s for 2 s: 100 arrivals, each one request: exactly 100
#     requests, the server's count;
#   - instances: 2: two JVMs, the users split, counts summed = the server's;
#     in the same run a row of h2 over TLS 1.3 (2 users, 1 s): ok, exact,
#     verified against the run's CA (its own truststore), every request an
#     h2 stream on 2 connections that negotiated h2, full handshakes, none
#     failed.
# The closed run's own simulation rerun by its reproduce.sh against what
# lb-target cannot give (it answers 200 on every path), checking what the
# parser relies on in live output:
#   - a 404 (lb-target's control port): every request KO, the errors table
#     says "found 404";
#   - a refused connection: every request KO as "Connection refused".
# Each Gatling run compiles its simulation (javac) and starts a JVM: about
# 15-40 s each on a busy 2-core machine.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/target.sh"
. "$(dirname "$0")/../lib/live-tool.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
. "$LB_SRC/tests/lib/own-netns.sh"
# No charts: this test reads rows and tables, not charts (history.t and
# run_basic.t check those); gnuplot took about 1.5 s a run on a busy machine.
export LOADBENCH_GNUPLOT=
cd "$LB_SRC"

find_tool gatling
# the report's All Requests row, column N, of run folder $1
cell() { grep -A40 '<tr id="ROOT"' "$1"/results/*/index.html | sed -n "s/.*class=\"value [a-z]* col-$2\">\([^<]*\)<.*/\1/p" | head -n 1; }

# Sampled every 100 ms: the report phase (0.3 s here when quiet, longer
# when busy) then holds points, so it has a peak RSS of its own.
if SAMPLE_EVERY=100ms run_lb closed gatling 20ms '{connections: 4, duration: 2s}'; then
    is "$(jget "$J" runs.0.identity.model)" closed "closed: model closed"
    between 1 "$req" 404 "closed: requests, no more than 4 x (2 s / 20 ms + 1)"
    all_answered closed 20
    for ph in start load report; do
        c=$(jget "$J" runs.0.footprint.phases.$ph.cpu_seconds)
        check "closed: footprint phase $ph has CPU-seconds ($c)" perl -e 'exit !($ARGV[0] > 0)' "$c"
    done
    check "closed: load and report phases have a peak RSS" perl -e 'exit !($ARGV[0] > 0 && $ARGV[1] > 0)' \
        "$(jget "$J" runs.0.footprint.phases.load.rss_peak_mb)" "$(jget "$J" runs.0.footprint.phases.report.rss_peak_mb)"
    # the tail after the last point (the exit) joins the report phase, so
    # the phases add up to the exact whole: the sampled sum telescopes to
    # two readings' rounding (10 ms ticks), well inside 3 % + 50 ms
    check "closed: the phases' CPU adds up to footprint.cpu_seconds" perl -e \
        'exit !(abs($ARGV[0] + $ARGV[1] + $ARGV[2] - $ARGV[3]) <= 0.03 * $ARGV[3] + 0.05)' \
        "$(jget "$J" runs.0.footprint.phases.start.cpu_seconds)" "$(jget "$J" runs.0.footprint.phases.load.cpu_seconds)" \
        "$(jget "$J" runs.0.footprint.phases.report.cpu_seconds)" "$(jget "$J" runs.0.footprint.cpu_seconds)"
    # requests per CPU-second divides by the load phase's CPU, not the whole tree's
    check "closed: requests per CPU-second over the load phase" perl -e \
        'exit !(abs($ARGV[0] - $ARGV[1] / $ARGV[2]) < 1e-6 * $ARGV[0])' \
        "$(jget "$J" runs.0.efficiency.requests_per_cpu_second)" "$srv" "$(jget "$J" runs.0.footprint.phases.load.cpu_seconds)"
    case "$(jget "$J" runs.0.warnings)" in
        *"footprint by phase"*"load "*"report "*) ok 0 "closed: the row's notes show load and report side by side" ;;
        *) ok 1 "closed: the row's notes show load and report side by side" ;;
    esac
    diag "phases: $(jget "$J" runs.0.footprint.phases)"
    CLOSED_DIR=$tmp/closed/gatling
fi

if run_lb open gatling 20ms '{model: open, rate: 50, duration: 2s}'; then
    is "$(jget "$J" runs.0.identity.model)" open "open: model open"
    is "$req" 100 "open: 50/s x 2 s = 100 arrivals, one request each"
    is "$srv" 100 "open: the server counted 100"
    is "$(jget "$J" runs.0.crosscheck.verdict)" exact "open: crosscheck verdict exact"
fi

printf 'name: live-two\ntarget: {delay: 20ms}\nload: {connections: 4, duration: 2s}\ntools: [{tool: gatling, instances: 2}, {tool: gatling, label: gatling-h2, load: {connections: 2, duration: 1s}, target: {protocol: h2, tls: {version: 1.3}}}]\nsampling: {interval: 500ms}\ngrace: 30s\n' >"$tmp/two.yaml"
rc=0
"$LB" run --quiet --out "$tmp/two2" "$tmp/two.yaml" >"$tmp/two2.out" 2>&1 || rc=$?
J=$tmp/two2/run.json
is "$(jget "$J" runs.0.status)" ok "instances 2: status ok (exit $rc)"
is "$(jget "$J" runs.0.footprint.trees)" 2 "instances 2: two JVMs, footprint summed over both"
is "$(jget "$J" runs.0.client.requests)" "$(jget "$J" runs.0.server.requests)" "instances 2: counts summed = the server's"
case "$(jget "$J" runs.0.warnings)" in
    *"no distributed mode"*) ok 0 "instances 2: the row says what the mode is" ;;
    *) ok 1 "instances 2: the row says what the mode is"; diag "$(jget "$J" runs.0.warnings)" ;;
esac
v=$(jget "$J" runs.1.status)/$(jget "$J" runs.1.crosscheck.verdict)
case "$v" in ok/exact | ok/explained) ok 0 "h2: status ok, counts $v" ;;
    *) ok 1 "h2: status ok, counts exact or explained (got $v)"; diag "reason: $(jget "$J" runs.1.reason)" ;; esac
is "$(jget "$J" runs.1.identity.settings.tls.verified)" true "h2: the row says Gatling verified the certificate (the run's CA)"
is "$(jget "$J" runs.1.target_protocol.tls.handshakes.failed)/$(jget "$J" runs.1.target_protocol.tls.alpn.h2)" 0/2 \
    "h2: no failed handshake; 2 connections negotiated h2"
check "h2: full handshakes counted" test "$(jget "$J" runs.1.target_protocol.tls.handshakes.full)" -gt 0
s=$(jget "$J" runs.1.target_protocol.h2.requests); h=$(jget "$J" runs.1.target_protocol.h2.streams.completed)
check "h2: every request an h2 stream ($h streams, $s requests)" test "$h" -eq "$s" -a "$s" -gt 0
check "h2: the simulation enables HTTP/2 on an https:// base URL, no warm-up off the machine" \
    grep -q 'http.baseUrl("https://127.0.0.1:[0-9]*").disableWarmUp().enableHttp2()' "$tmp/two2/gatling-h2/LbSimulation.java"

# rerun NAME BASE PATH: the closed run's folder copied to $tmp/NAME, its
# simulation pointed at BASE and PATH, run by its reproduce.sh.
rerun() {
    rm -rf "$tmp/$1"
    cp -R "$CLOSED_DIR" "$tmp/$1"
    d=$tmp/$1
    rm -rf "$d/results" "$d/classes" "$d/lb-phases.txt"
    sed -i "s#http.baseUrl(\"[^\"]*\")#http.baseUrl(\"$2\")#; s#.get(\"/\")#.get(\"$3\")#" "$d/LbSimulation.java"
    rc=0
    timeout 120 sh "$d/reproduce.sh" >"$d/out.txt" 2>&1 || rc=$?
}

if [ -n "${CLOSED_DIR:-}" ]; then
    start_target g404
    rerun notfound "http://127.0.0.1:$T_CTL" /no-such-path
    is "$rc" 0 "404: Gatling exits 0"
    n=$(cell "$tmp/notfound" 2)
    check "404: requests in the report ($n)" test "${n:-0}" -gt 0
    is "$(cell "$tmp/notfound" 4)" "$n" "404: every one KO"
    check "404: the errors table says found 404" grep -q 'status.find.is(200), found 404' "$tmp"/notfound/results/*/index.html
    stop_target "$T_PID"
    rerun refused "http://127.0.0.1:$T_PORT" /
    is "$rc" 0 "refused: Gatling exits 0"
    n=$(cell "$tmp/refused" 2)
    check "refused: requests in the report ($n)" test "${n:-0}" -gt 0
    is "$(cell "$tmp/refused" 4)" "$n" "refused: every one KO"
    check "refused: the errors table says Connection refused" grep -q 'ConnectException.*Connection refused' "$tmp"/refused/results/*/index.html
else
    skip "404 and refused: the closed run left no run folder"
fi

done_testing
