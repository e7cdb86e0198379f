#!/bin/sh
# Tsung live against lb-target, when it is installed (apt-get install tsung);
# without it, one SKIP that says where loadbench looked. Through `loadbench
# run`, against a 20 ms delay:
# - open, 50 arrivals/s (Poisson) for 10 s: status ok, model open, a count
#   of at most 500 (the phase stops at rate x duration users) and near it,
#   equal to the server's (Tsung lets its users finish), no errors, a mean
#   of at least the delay and no p99 (its log has none: never an estimate);
# - closed, 4 users for 5 s: model closed, 4 users at once, each looping on
#   its connection: at most 4 x (5 s / 20 ms + 1) requests, equal to the
#   server's; each user's session 5-6 s, spent in requests back to back;
#   Beside it in the same run, 2 users for 1 s over TLS 1.3 (<server
#   type="ssl">): the row ok and unverified (tests/lib/tls-row.sh), one
#   full handshake per user, none resumed;
# - instances: 2 of that closed load: two client VMs of their own that
#   logged, 4 users between them, the controller's count = the server's,
#   the VMs in the tool's tree, and no beam.smp or epmd of the run (seen as
#   loadbench's descendants while it ran) alive after it.
# Instances on an SSH host are refused at validate (hostile_profiles.t).
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/target-lib.sh"
. "$(dirname "$0")/../lib/live-tool.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
. "$LB_SRC/tests/lib/own-netns.sh"
# No charts: this test reads rows and tables, not charts (history.t and
# run_basic.t check those); gnuplot took about 1.5 s a run on a busy machine.
export LOADBENCH_GNUPLOT=
cd "$LB_SRC"

find_tool tsung '{model: open, rate: 50, duration: 10s}'

# Erlang's distribution starts `epmd -daemon` on first use, which would
# outlive the run; the adapter runs its own epmd inside the tool's tree.
epmds() { ps -eo args= | grep -c '[e]pmd.*-daemon' || true; }
epmd0=$(epmds)
if run_lb open tsung 20ms '{model: open, rate: 50, duration: 10s}'; then
    is "$(epmds)" "$epmd0" "open: no epmd -daemon left behind by the run"
    check "open: the run's epmd was in the tool's tree (procs peak $(jget "$J" runs.0.footprint.procs_peak) >= 2)" \
        test "$(jget "$J" runs.0.footprint.procs_peak | tr -dc 0-9)" -ge 2
    is "$(jget "$J" runs.0.identity.model)" open "open: model open"
    # At most round(50 x 10) users; min(Poisson(500) + 1, 500): mean ~491,
    # sd ~9 below the cap (430 is > 6 sd away).
    between 430 "$req" 500 "open: at most 50/s x 10 s, and near it"
    is "$req" "$srv" "open: Tsung's count = the server's"
    is "$(jget "$J" runs.0.client.errors)" 0 "open: no errors"
    check "open: mean at least the 20 ms delay" \
        perl -e 'exit !($ARGV[0] >= 20)' "$(jget "$J" runs.0.client.latency_ms.mean)"
    is "$(jget "$J" runs.0.client.latency_ms.p99)" null "open: no p99 (tsung.log has no percentiles)"
fi

# closed: 4 users x 5 s; a user's requests take >= 20 ms each, so at most
# 250 started before its deadline + its last: 1004 in all. How many fewer
# is the machine's: Tsung's three Erlang VMs made 881-984 here beside the
# burner, 708 once in make check-busy (the old floor was 800). What the
# adapter decides is that each user loops back to back until its start +
# 5 s, and Tsung logs both halves of that: each session (a user's life)
# and each request's time. A slow machine stretches the requests, not the
# pauses between them: requests x their mean time covered 0.990-0.994 of
# the users' session time in 18 runs (counts 881-984), so a user ending
# early, left running, or pausing between requests shows whatever the
# machine's speed.
# sessions NAME: checks NAME's run ($J, $req) against its tsung.log's
# session lines (stats: session COUNT MEAN STDDEV MAX MIN ..., in ms; the
# last dump's MAX and MIN are the run's): 4 sessions, each 5-6 s long, and
# at least 0.9 of their time spent in requests.
sessions() {
    set -- "$1" $(awk '$1 == "stats:" && $2 == "session" { n += $3; t += $3 * $4; max = $6; min = $7 }
                      END { print n + 0, t + 0, (min == "" ? "-" : min), (max == "" ? "-" : max) }' \
                      "$tmp/$1"/tsung/log/*/tsung.log 2>/dev/null || echo "0 0 - -")
    is "$2" 4 "$1: 4 users' sessions logged"
    check "$1: each user looped for its 5 s, no longer: sessions $4-$5 ms within 5000-6000" \
        perl -e 'exit !($ARGV[0] ne "-" && $ARGV[0] >= 5000 && $ARGV[1] < 6000)' -- "$4" "$5"
    lat=$(jget "$J" runs.0.client.latency_ms.mean)
    check "$1: back to back: $req requests x $lat ms cover at least 0.9 of the sessions' $3 ms" \
        perl -e 'exit !($ARGV[2] > 0 && $ARGV[0] * $ARGV[1] >= 0.9 * $ARGV[2])' -- "${req:-0}" "$lat" "$3"
    check "$1: at most 4 x (5 s / 20 ms + 1) = 1004 requests ($req)" test "${req:-0}" -le 1004
}
tls13='{tool: tsung, label: tls13, load: {connections: 2, duration: 1s}, target: {tls: {version: 1.3}}}'
if run_lb closed "tsung, $tls13" 20ms '{connections: 4, duration: 5s}'; then
    is "$(jget "$J" runs.0.identity.model)" closed "closed: model closed"
    is "$(jget "$J" runs.0.client.tool_output.users_max)" 4 "closed: 4 users at once"
    sessions closed
    is "$req" "$srv" "closed: Tsung's count = the server's (each user finishes its last request)"
    is "$(jget "$J" runs.0.client.errors)" 0 "closed: no errors"
    tls_row tls13 1 false
    is "$(jget "$J" runs.1.target_protocol.tls.handshakes.full)/$(jget "$J" runs.1.target_protocol.tls.handshakes.resumed)" \
        2/0 "tls13: one full handshake per user (each connects once), none resumed"
fi

# descendants PID: every process under PID, as "pid comm" lines.
descendants() {
    ps -eo pid=,ppid=,comm= | awk -v root="$1" '
        { pid[NR] = $1; ppid[NR] = $2; comm[NR] = $3 }
        END { want[root] = 1; do { more = 0; for (i = 1; i <= NR; i++)
                  if (want[ppid[i]] && !want[pid[i]]) { want[pid[i]] = 1; more = 1; print pid[i], comm[i] } } while (more) }'
}
printf 'name: live-inst\ntarget: {delay: 20ms}\nload: {connections: 4, duration: 5s}\ntools: [{tool: tsung, instances: 2}]\nsampling: {interval: 500ms}\ngrace: 30s\n' \
    > "$tmp/inst.yaml"
"$LB" run --quiet --out "$tmp/inst" "$tmp/inst.yaml" > "$tmp/inst.out" 2>&1 &
lbpid=$!
: > "$tmp/inst.pids"
while kill -0 "$lbpid" 2>/dev/null; do
    descendants "$lbpid" | awk '$2 == "beam.smp" || $2 == "epmd" { print $1, $2 }' >> "$tmp/inst.pids"
    sleep 0.3
done
wait "$lbpid" || true
J=$tmp/inst/run.json
if check "inst: loadbench run wrote run.json" test -s "$J"; then
    is "$(jget "$J" runs.0.status)" ok "inst: status ok" || diag "reason: $(jget "$J" runs.0.reason)"
    is "$(jget "$J" runs.0.instances)" 2 "inst: instances 2"
    is "$(jget "$J" runs.0.client.tool_output.client_vms)" 2 "inst: two client VMs of their own logged"
    is "$(jget "$J" runs.0.client.tool_output.users_max)" 4 "inst: 4 users between them"
    req=$(jget "$J" runs.0.client.requests)
    srv=$(jget "$J" runs.0.server.requests)
    sessions inst
    is "$req" "$srv" "inst: the controller's count (both VMs) = the server's"
    is "$(jget "$J" runs.0.client.errors)" 0 "inst: no errors"
fi
beams=$(sort -u "$tmp/inst.pids" | grep -c ' beam.smp$' || true)
check "inst: the controller VM and 2 client VMs seen in loadbench's tree ($beams beam.smp >= 3)" test "$beams" -ge 3
check "inst: the run's epmd seen in loadbench's tree" grep -q ' epmd$' "$tmp/inst.pids"
left=""
for p in $(cut -d' ' -f1 "$tmp/inst.pids" | sort -u); do
    st=$(ps -o stat= -p "$p" 2>/dev/null || true)
    case "$st" in "" | Z*) ;; *) left="$left $p" ;; esac
done
is "$left" "" "inst: none of those beam.smp/epmd PIDs alive after the run"

printf 'hosts: {a: bench@10.0.0.1}\nload: {connections: 2, duration: 10s}\ntools: [{tool: tsung, instances: 2, host: a}]\n' \
    > "$tmp/ssh.yaml"
"$LB" validate "$tmp/ssh.yaml" > "$tmp/ssh.out" 2>&1 || true
check "instances on an SSH host: validate refuses it, saying why" grep -q "instances on host a: not supported" "$tmp/ssh.out"

done_testing
