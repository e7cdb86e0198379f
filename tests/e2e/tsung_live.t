#!/bin/sh
# Tsung live against lb-target, when it is installed (apt-get install tsung);
# without it, one SKIP that says where loadbench looked. Through `loadbench
# run`: open, 50 arrivals/s (Poisson) for 10 s against a 20 ms delay: status
# ok, model open, a count near 500 equal to the server's (Tsung lets its
# users finish), no errors, a mean of at least the delay and no p99 (its log
# has none: never an estimate). A closed load and instances: 2 are refused
# by `loadbench plan`, saying why.
set -eu
. "$(dirname "$0")/target-lib.sh"
. "$(dirname "$0")/../lib/live-tool.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
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
    # Poisson arrivals: 500 expected, sd ~22; the Erlang start may cut it.
    between 350 "$req" 600 "open: about 50/s x 10 s"
    is "$req" "$srv" "open: Tsung's count = the server's"
    is "$(jget "$J" runs.0.client.errors)" 0 "open: no errors"
    check "open: mean at least the 20 ms delay" \
        perl -e 'exit !($ARGV[0] >= 20)' "$(jget "$J" runs.0.client.latency_ms.mean)"
    is "$(jget "$J" runs.0.client.latency_ms.p99)" null "open: no p99 (tsung.log has no percentiles)"
fi

printf 'load: {connections: 10, duration: 10s}\ntools: [tsung]\n' > "$tmp/closed.yaml"
"$LB" plan "$tmp/closed.yaml" > "$tmp/closed.out" 2>&1 || true
check "closed: plan refuses it" grep -q "tsung cannot run the closed model" "$tmp/closed.out"
printf 'load: {model: open, rate: 10, duration: 10s}\ntools: [{tool: tsung, instances: 2}]\n' > "$tmp/inst.yaml"
"$LB" plan "$tmp/inst.yaml" > "$tmp/inst.out" 2>&1 || true
check "instances 2: plan refuses it, naming ssh" grep -q "over ssh" "$tmp/inst.out"

done_testing
