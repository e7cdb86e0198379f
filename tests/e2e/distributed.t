#!/bin/sh
# Tools run as several processes (instances: N) on one host, each row
# measured as one, through `loadbench run` against the real lb-target:
#   - lb-gen and wrk as 2 copies with the connections split (9: 5 and 4);
#   - Locust in its distributed mode: a master and 2 workers (the Locust
#     loadbench finds, the tools folder's 2.47.0 first, and Debian's 2.12.1
#     through bin:);
#   - k6 as 2 execution segments (when loadbench finds a k6).
# Every row: ok, reconciled against the server (the sum of the instances'
# counts, exact or explained by the connections open at the stop), its
# footprint made of the right number of process trees with their roles,
# the row's CPU the sum of the trees' (so more than any one's), each tree
# with its own folder and series. lb-gen's latency is merged exactly,
# wrk's percentiles are marked as bounds. Loads are 3 s; no bound here
# depends on this machine's speed.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
# No chart is checked here: gnuplot's rendering (seconds of CPU a run) is
# report_charts.t's and report_sweep.t's to test.
export LOADBENCH_GNUPLOT=
. "$(dirname "$0")/../lib/live-tool.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

tools="  - {tool: lb-gen, label: lbgen2, instances: 2}
  - {tool: wrk, label: wrk2, instances: 2}"
rows="lbgen2:2:copy,copy wrk2:2:copy,copy"
# Locust as a master and 2 workers, k6 as 2 segments, where loadbench finds them.
for t in locust:locust2:master,worker,worker k6:k6x2:segment,segment; do
    tool=${t%%:*} rest=${t#*:}
    label=${rest%%:*} roles=${rest#*:}
    if look_for "$tool"; then
        tools="$tools
  - {tool: $tool, label: $label, instances: 2}"
        rows="$rows $label:$(echo "$roles" | tr ',' '\n' | wc -l):$roles"
    else
        skip "$tool not found, no $label row: $why"
    fi
done
# Debian's Locust 2.12.1 as well (bin:), whose empty version its master
# would refuse in its workers but for the locustfile's patch.
if [ -x /usr/bin/locust ] && dpkg-query -S /usr/bin/locust 2>/dev/null | grep -q '^python3-locust: '; then
    tools="$tools
  - {tool: locust, label: locust212x2, instances: 2, bin: /usr/bin/locust}"
    rows="$rows locust212x2:3:master,worker,worker"
else
    skip "no Debian python3-locust at /usr/bin/locust: no locust212x2 row"
fi
cat > "$tmp/d.yaml" <<Y
name: distributed
target: {delay: 1ms}
load: {connections: 9, duration: 3s}
tools:
$tools
sampling: {interval: 500ms}
grace: 60s
Y
rc=0
"$LB" run --quiet --out "$tmp/run" "$tmp/d.yaml" >"$tmp/run.out" 2>&1 || rc=$?
J=$tmp/run/run.json
check "loadbench run wrote run.json (exit $rc)" test -s "$J"
[ -s "$J" ] || { sed 's/^/# /' "$tmp/run.out"; done_testing; exit; }

# row LABEL: the row's figures as "key=value" lines, from run.json.
row() {
    perl -MJSON::PP -e '
        local $/; open my $f, "<", $ARGV[0] or exit 1; my $d = decode_json(<$f>);
        my ($r) = grep { $_->{label} eq $ARGV[1] } @{$d->{runs}};
        exit 1 unless $r;
        my $fp = $r->{footprint}; my @p = @{$fp->{parts} || []};
        my ($max, $sum) = (0, 0);
        for (@p) { $sum += $_->{cpu_seconds}; $max = $_->{cpu_seconds} if $_->{cpu_seconds} > $max }
        my $c = $r->{crosscheck};
        printf "status=%s\ninstances=%s\ntrees=%s\nroles=%s\ncpu=%.9f\nparts_sum=%.9f\nparts_max=%.9f\n",
            $r->{status}, $r->{instances}, $fp->{trees}, join(",", map { $_->{role} } @p), $fp->{cpu_seconds}, $sum, $max;
        printf "verdict=%s\nclient=%s\nserver=%s\nbound=%s\n", $c->{verdict}, $c->{client}, $c->{server}, $c->{bound};
        my $m = $r->{client}{latency_merge};
        printf "exact=%s\n", $m ? ($m->{exact} ? "true" : "false") : "none";
        printf "p99=%s\nlow_p99=%s\n", $r->{client}{latency_ms}{p99} // "null", $m && $m->{low_ms} ? $m->{low_ms}{p99} : "null";
        printf "files=%s\n", join(",", map { $_->{samples_file} } @p);
        printf "reason=%s\n", $r->{reason} // "";
        printf "version=%s\n", $r->{identity}{version} // "";
    ' "$J" "$1"
}
val() { sed -n "s/^$1=//p" "$tmp/row"; }

for spec in $rows; do
    label=${spec%%:*}; rest=${spec#*:}; trees=${rest%%:*}; roles=${rest#*:}
    row "$label" > "$tmp/row" || { ok 1 "$label: no row in run.json"; continue; }
    is "$(val status)" ok "$label: status ok (version $(val version))"
    [ "$(val status)" = ok ] || diag "reason: $(val reason)"
    is "$(val instances)" 2 "$label: 2 instances"
    is "$(val trees)" "$trees" "$label: the footprint is $trees process trees"
    is "$(val roles)" "$roles" "$label: their roles"
    check "$label: the row's CPU is the sum of the trees' ($(val cpu) s)" \
        perl -e 'exit !(abs($ARGV[0] - $ARGV[1]) < 1e-6)' -- "$(val cpu)" "$(val parts_sum)"
    check "$label: and more than one tree's ($(val parts_max) s)" \
        perl -e 'exit !($ARGV[0] > $ARGV[1] && $ARGV[1] > 0)' -- "$(val cpu)" "$(val parts_max)"
    v=$(val verdict)
    check "$label: reconciled with the server ($v: client $(val client), server $(val server), bound $(val bound))" \
        sh -c "[ '$v' = exact ] || [ '$v' = explained ]"
    check "$label: the server saw the load ($(val server) requests)" test "$(val server)" -gt 100
    n=0
    for f in $(val files | tr , ' '); do
        check "$label: tree $n has its own series ($f)" test "$(wc -l < "$tmp/run/$f")" -ge 2
        check "$label: tree $n has its own folder" test -f "$tmp/run/$label/p$n/stdout.txt"
        n=$((n + 1))
    done
    is "$n" "$trees" "$label: a series per tree"
done

# lb-gen: the copies' shares and the exact merge.
row lbgen2 > "$tmp/row"
is "$(val exact)" true "lb-gen: the copies' latency distributions are merged exactly"
args=$(jget "$J" runs.0.identity.processes)
check "lb-gen: 9 connections split 5 and 4" sh -c "echo '$args' | grep -q -- '--connections=5' && echo '$args' | grep -q -- '--connections=4'"
row wrk2 > "$tmp/row"
is "$(val exact)" false "wrk: percentiles from percentiles are marked not exact"
check "wrk: the row's p99 is the highest copy's, the lowest beside it ($(val p99) >= $(val low_p99))" \
    perl -e 'exit !($ARGV[0] >= $ARGV[1] && $ARGV[1] > 0)' -- "$(val p99)" "$(val low_p99)"
# A foreign listener on the Locust master's port (issue 44, defect 17):
# the row fails with Locust's own fatal line as its reason, its workers are
# never started (the stranger is not taken for the master), and no network
# bottleneck is read into a row that failed at start. The fault is made on
# purpose: $tmp/fault-locust-port-taken starts a stranger (python3, in a
# session of its own) listening on the --master-bind-port loadbench chose,
# then runs the real Locust, whose master finds the port busy.
if look_for locust; then
    cat > "$tmp/fault-locust-port-taken" <<F
#!/bin/sh
for a; do
    case \$a in --master-bind-port=*)
        setsid /usr/bin/python3 -c 'import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
open(sys.argv[2] + ".tmp", "w").write(str(os.getpid()))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
time.sleep(120)' "\${a#*=}" "$tmp/stranger.pid" </dev/null >/dev/null 2>&1 &
        i=0
        while [ ! -s "$tmp/stranger.pid" ] && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i + 1)); done ;;
    esac
done
exec "$found" "\$@"
F
    chmod +x "$tmp/fault-locust-port-taken"
    printf 'name: busy\ntarget: {delay: 1ms}\nload: {connections: 2, duration: 2s}\ntools: [{tool: locust, instances: 2, bin: %s}]\n' \
        "$tmp/fault-locust-port-taken" > "$tmp/busy.yaml"
    rc=0; "$LB" run --quiet --out "$tmp/busy" "$tmp/busy.yaml" >"$tmp/busy.out" 2>&1 || rc=$?
    [ -s "$tmp/stranger.pid" ] && kill "$(cat "$tmp/stranger.pid")" 2>/dev/null || true
    check "the stranger listened on the master's port (pid $(cat "$tmp/stranger.pid" 2>/dev/null))" test -s "$tmp/stranger.pid"
    B=$tmp/busy/run.json
    [ -f "$B" ] || { echo '{}' > "$tmp/busy.none"; B=$tmp/busy.none; }
    is "$rc/$(jget "$B" runs.0.status)" 1/failed "a stranger on the Locust master's port: the row failed, exit 1"
    reason=$(jget "$B" runs.0.reason)
    # Locust 2.47 raises RPCError ("Socket bind failure: Address already in
    # use (addr='tcp://...')"); older ones log "The Locust master port
    # (...) was busy": either is Locust's own line.
    check "the reason ends with Locust's own line: its master exited 1 saying the port was in use ($reason)" \
        sh -c 'case "$1" in *"; its master exited 1 saying \""*"Address already in use"*|*"; its master exited 1 saying \""*"was busy"*) exit 0 ;; esac; exit 1' sh "$reason"
    is "$(jget "$B" runs.0.limits.bottleneck)" null "no bottleneck is read into a row that failed at start"
    check "no worker was started against the stranger (p1/ holds its plan, no output)" test ! -e "$tmp/busy/locust/p1/stderr.txt"
else
    skip "locust not found: no port-taken row: $why"
fi
done_testing
