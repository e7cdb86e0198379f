#!/bin/sh
# load.keepalive: off (issue 40): a new connection for every request.
# Each adapter that maps it (lb-gen --close, wrk and bombardier with
# "Connection: close", hey -disable-keepalive, ab without -k, oha
# --disable-keepalive, Vegeta -keepalive=false, k6 noConnectionReuse) runs
# 1 s against the real lb-target: the row is ok, its count reconciled, and
# the server accepted about one connection per request (at least 900 per
# 1,000 requests; with keep-alive it is a handful in all). A tool that
# cannot (h2load) is refused at validate, naming the setting; without the
# key the same lb-gen keeps its connections. Then, in a network namespace
# of its own with 500 ephemeral ports and tcp_tw_reuse 0, lb-gen's new
# connections run into TIME_WAIT: the row's bottleneck is "ephemeral
# ports", with the ports held as its witness.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/live-tool.sh"
LB=$LB_BUILD/bin/loadbench
# No chart image is checked here: gnuplot's rendering, 2-4 s of every run
# on a busy machine, is report_sweep.t's and report_charts.t's to test.
export LOADBENCH_GNUPLOT=
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

printf 'load: {connections: 2, duration: 1s, keepalive: off}\ntools: [lb-gen, h2load]\n' > "$tmp/no.yaml"
rc=0; "$LB" validate "$tmp/no.yaml" 2>"$tmp/no.err" || rc=$?
is "$rc" 2 "validate refuses a tool without a keep-alive-off mapping (exit 2)"
check "it names the tool and the setting" \
    grep -qF 'h2load cannot run load.keepalive off (a new connection for every request)' "$tmp/no.err"
printf 'load: {connections: 2, duration: 1s, keepalive: sometimes}\ntools: [lb-gen]\n' > "$tmp/bad.yaml"
rc=0; "$LB" validate "$tmp/bad.yaml" 2>"$tmp/bad.err" || rc=$?
check "a bad value is refused at its place ($(cat "$tmp/bad.err"))" \
    grep -qF 'bad.yaml:1:49: load.keepalive must be on' "$tmp/bad.err"
"$LB" tools >"$tmp/tools.txt" 2>&1 || true
check "tools lists keepalive-off for the adapters that map it (lb-gen)" grep -q '^  lb-gen  .*keepalive-off' "$tmp/tools.txt"

tools="lb-gen, {tool: lb-gen, label: lb-gen-ka, load: {connections: 2, duration: 1s}}"
labels="lb-gen"
for t in wrk hey ab oha bombardier vegeta k6; do
    if look_for "$t"; then tools="$tools, $t"; labels="$labels $t"; else skip "$t not found: $why"; fi
done
printf 'name: keepalive-off\ntarget: {delay: 1ms}\nload: {connections: 2, duration: 1s, keepalive: off}\ntools: [%s]\nsampling: {interval: 500ms}\ngrace: 30s\n' \
    "$tools" > "$tmp/off.yaml"
rc=0; "$LB" run --quiet --out "$tmp/run" "$tmp/off.yaml" >"$tmp/run.out" 2>&1 || rc=$?
J=$tmp/run/run.json
[ -f "$J" ] || { echo '{}' > "$tmp/none.json"; J=$tmp/none.json; sed 's/^/#   /' "$tmp/run.out"; }
is "$rc" 0 "the run: exit 0"
n=0
for l in $labels; do
    i=$(jq -r --arg l "$l" '[.runs[].label] | index($l)' "$J")
    st=$(jget "$J" "runs.$i.status") v=$(jget "$J" "runs.$i.crosscheck.verdict")
    req=$(jget "$J" "runs.$i.server.requests") conns=$(jget "$J" "runs.$i.server.connections_accepted")
    check "$l: ok, reconciled ($st, $v)" sh -c '[ "$1" = ok ] && { [ "$2" = exact ] || [ "$2" = explained ]; }' sh "$st" "$v"
    check "$l: a connection per request: $conns connections for $req requests" \
        awk -v c="$conns" -v r="$req" 'BEGIN { exit !(r > 0 && c >= 0.9 * r) }'
    [ "$st" = ok ] || diag "$l: $(jget "$J" "runs.$i.reason")"
    n=$((n + 1))
done
i=$(jq -r '[.runs[].label] | index("lb-gen-ka")' "$J")
req=$(jget "$J" "runs.$i.server.requests") conns=$(jget "$J" "runs.$i.server.connections_accepted")
check "without keepalive: off, lb-gen keeps its 2 connections ($conns for $req requests)" \
    awk -v c="$conns" -v r="$req" 'BEGIN { exit !(r > 100 && c <= 10) }'

# --- TIME_WAIT: a namespace with 500 ephemeral ports ------------------------
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
    skip "a namespace of its own needs root and ip (iproute2)"
    done_testing
    exit
fi
ns=lbka$$
ns_cleanup() {
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
    tap_cleanup
}
trap ns_cleanup EXIT
ip netns add "$ns"
ip -n "$ns" link set lo up
ip netns exec "$ns" sh -c 'echo "40000 40499" > /proc/sys/net/ipv4/ip_local_port_range && echo 0 > /proc/sys/net/ipv4/tcp_tw_reuse'
printf 'name: ports\ntarget: {delay: 1ms}\nload: {connections: 4, duration: 3s, keepalive: off}\ntools: [lb-gen]\nsampling: {interval: 200ms}\nquiet: off\n' \
    > "$tmp/ports.yaml"
rc=0; ip netns exec "$ns" "$LB" run --quiet --out "$tmp/ports" "$tmp/ports.yaml" >"$tmp/ports.out" 2>&1 || rc=$?
P=$tmp/ports/run.json
[ -f "$P" ] || { echo '{}' > "$tmp/ports.none"; P=$tmp/ports.none; sed 's/^/#   /' "$tmp/ports.out"; }
is "$(jget "$P" runs.0.tcp.ports.range_size)/$(jget "$P" runs.0.tcp.ports.tcp_tw_reuse)" 500/0 \
    "the row records the namespace's port range and tcp_tw_reuse"
held=$(jget "$P" runs.0.tcp.ports.time_wait_ports_held_peak)
check "TIME_WAIT held at least 450 of the 500 ephemeral ports ($held)" awk -v h="$held" 'BEGIN { exit !(h >= 450) }'
is "$(jget "$P" runs.0.limits.bottleneck)/$(jget "$P" runs.0.limits.witness)" "ephemeral ports/time_wait" \
    "the bottleneck is ephemeral ports, witness time_wait ($(jget "$P" runs.0.limits.reason))"
done_testing
