#!/bin/sh
# Runs across hosts, on a network of the test's own: three network
# namespaces (a controller and hosts a and b) on one bridge in the
# controller's, addressed from 198.18.0.0/15 (set aside for network
# benchmarks), each host with Debian's sshd on its own port, host keys and
# a user key made here. loadbench runs in the controller's namespace and
# reaches the hosts only over ssh. Traffic stays between these namespaces.
#
# The namespaces share /proc, the pid space and the files with the
# controller (docs/multihost.md says what that leaves untested).
# Everything the test starts goes, however it ends: sshd by pid, every
# process left in a namespace by pid (ip netns pids), then the namespaces.
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
# Host a has no Go (mh-net.sh): its hosts install copies and builds
# nothing, which is no error; bm's (below) builds go-fasthttp. One Go
# build of ~30 CPU-s in this test, not two.
MH_A_NO_GO=1
. "$LB_SRC/tests/lib/mh-net.sh"
is "$(sshto 3 'cat /sys/class/net/eth0/address' 2>/dev/null)" "$(ip -n "$B" -o link show eth0 | sed 's/.*link\/ether \([^ ]*\).*/\1/')" \
    "an ssh session to b sees b's network (its /sys/class/net)"

# --- validate and plan ------------------------------------------------------
cat > "$tmp/two.yaml" <<'Y'
name: two
hosts:
  a: root@198.18.0.2:2202
  b: {ssh: 'root@198.18.0.3:2203', address: 198.18.0.3}
target: {host: a, delay: 1ms}
load: {connections: 4, duration: 2s}
tools: [{tool: lb-gen, host: b}, {tool: wrk, host: b}]
sampling: {interval: 500ms}
Y
rc=0; in_c "$LB" validate "$tmp/two.yaml" >"$tmp/v.out" 2>&1 || rc=$?
is "$rc" 0 "validate accepts a profile placing the target on a and the tools on b"
sed 's/host: b}]/host: c}]/' "$tmp/two.yaml" > "$tmp/unknown.yaml"
rc=0; in_c "$LB" validate "$tmp/unknown.yaml" 2>"$tmp/unknown.err" || rc=$?
is "$rc" 2 "validate refuses a tool on a host not in hosts:"
check "the error names the place and the known hosts" \
    grep -q 'unknown.yaml:7:52: unknown host "c" (hosts: a, b)' "$tmp/unknown.err"
in_c "$LB" plan "$tmp/two.yaml" > "$tmp/plan.out" 2>&1 || true
check "plan shows where lb-target runs and where load goes" \
    grep -Eq '^  lb-target +host a \(root@198.18.0.2:2202\), load sent to 198.18.0.2$' "$tmp/plan.out"
check "plan shows where each tool runs" grep -Eq '^  wrk +host b \(root@198.18.0.3:2203\)$' "$tmp/plan.out"
check "plan's tool argv sends load to the target's host" grep -q 'http://198.18.0.2:PORT/' "$tmp/plan.out"

# --- a host that cannot be reached stops the run before any load ----------
for bad in "198.18.0.3:2299 connection refused" "198.18.0.9:2202 no such host on the network"; do
    dest=${bad%% *}
    printf 'hosts:\n  ctl: local\n  b: root@%s\ntarget: {host: ctl}\nload: {connections: 1, duration: 1s}\ntools: [{tool: lb-gen, host: b}]\n' \
        "$dest" > "$tmp/down.yaml"
    t0=$(date +%s)
    rc=0; in_c "$LB" run --out "$tmp/down-run" "$tmp/down.yaml" >/dev/null 2>"$tmp/down.err" || rc=$?
    is "$rc" 2 "an unreachable host ($dest: ${bad#* }) stops the run with exit 2"
    check "the error is located and says what ssh said" \
        grep -q "down.yaml:3:3: host b (root@$dest) cannot be reached over ssh: ." "$tmp/down.err"
    sed 's/^/#   /' "$tmp/down.err"
    check "no run directory was made" test ! -e "$tmp/down-run"
    # ssh gives up after its 5 s ConnectTimeout, loadbench's probe after 10 s;
    # a TCP connect left to the kernel would wait about 2 minutes.
    check "it took under 60 s ($(($(date +%s) - t0)) s)" test $(($(date +%s) - t0)) -lt 60
done
rc=0; in_c "$LB" run --quiet --out "$tmp/two" "$tmp/two.yaml" >/dev/null 2>"$tmp/two.err" || rc=$?
is "$rc" 0 "lb-target on host a, lb-gen and wrk on host b: exit 0"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/two.err"
T=$tmp/two/run.json
[ -f "$T" ] || { echo '{}' > "$tmp/two.none"; T=$tmp/two.none; }
for i in 0 1; do
    is "$(jget "$T" runs.$i.status)/$(jget "$T" runs.$i.crosscheck.verdict | sed 's/explained/exact/')/$(jget "$T" runs.$i.placement.target.host)" \
        ok/exact/a "row $i: ok, counts reconcile, the target ran on a"
done

agent_a=$(jget "$T" hosts.a.agent.path)
is "$agent_a" "$(readlink -f "$LB")" "with nothing in a's cache, a's agent is this binary's path there"

# --- doctor, tools and hosts install on host a ------------------------------
rc=0; in_c "$LB" doctor --host a "$tmp/two.yaml" > "$tmp/doc.json" 2>"$tmp/doc.err" || rc=$?
is "$rc" 0 "doctor --host a PROFILE: exit 0"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/doc.err"
[ -s "$tmp/doc.json" ] || echo '{}' > "$tmp/doc.json"
is "$(jget "$tmp/doc.json" hostname)" "$tag-a" "its facts are host a's (hostname), not the controller's ($(cat /proc/sys/kernel/hostname))"
check "stderr names the machine that answered" \
    grep -q "two.yaml:3:3: host a (root@198.18.0.2:2202): hostname $tag-a, loadbench agent /" "$tmp/doc.err"
rc=0; in_c "$LB" doctor --host root@198.18.0.2:2202 > "$tmp/doc2.json" 2>/dev/null || rc=$?
[ -s "$tmp/doc2.json" ] || echo '{}' > "$tmp/doc2.json"
is "$rc/$(jget "$tmp/doc2.json" hostname)" "0/$tag-a" "doctor --host with an ssh destination and no profile"
rc=0; in_c "$LB" tools --host a "$tmp/two.yaml" > "$tmp/tools.out" 2>"$tmp/tools.err" || rc=$?
is "$rc" 0 "tools --host a PROFILE: exit 0"
check "its table finds lb-gen there" grep -Eq '^lb-gen +yes ' "$tmp/tools.out"
check "as host a's agent saw it" grep -q "host a (root@198.18.0.2:2202): hostname $tag-a" "$tmp/tools.err"
check "go-fasthttp: no, for want of Go on a (not the controller's answer)" \
    grep -Eq '^go-fasthttp +no .*Go toolchain \(/usr/lib/go/bin/go\) is not installed' "$tmp/tools.out"
rc=0; in_c "$LB" doctor --host c "$tmp/two.yaml" >/dev/null 2>"$tmp/noname.err" || rc=$?
is "$rc" 2 "doctor --host with a name the profile lacks: exit 2"
check "the error lists the profile's hosts" grep -q 'has no host "c" in hosts: (a, b)' "$tmp/noname.err"
printf 'hosts:\n  ctl: local\n  d: root@198.18.0.3:2299\ntarget: {host: ctl}\nload: {connections: 1, duration: 1s}\ntools: [{tool: lb-gen, host: d}]\n' \
    > "$tmp/d.yaml"
for c in doctor tools; do
    rc=0; in_c "$LB" $c --host d "$tmp/d.yaml" >/dev/null 2>"$tmp/d.err" || rc=$?
    is "$rc" 2 "$c --host on a host that is down: exit 2"
    check "$c: the error is located at the host's entry" \
        grep -q "d.yaml:3:3: host d (root@198.18.0.3:2299) cannot be reached over ssh: ." "$tmp/d.err"
done
sha=$(sha256sum "$LB" | cut -c1-12)
rc=0; in_c "$LB" hosts install a "$tmp/two.yaml" > "$tmp/inst.out" 2>"$tmp/inst.err" || rc=$?
is "$rc" 0 "hosts install a PROFILE: exit 0 (a has no Go to build go-fasthttp with: no install error)"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/inst.err"
cache=$(cat "$tmp/inst.out")
check "it names a's cache of this build ($cache)" \
    sh -c 'case $1 in "$2"/loadbench/*-"$3") exit 0 ;; esac; exit 1' sh "$cache" "$tmp/cache-a" "$sha"
check "the copy holds this build's programs" \
    sh -c 'cmp -s "$1/bin/loadbench" "$2/loadbench" && cmp -s "$1/bin/lb-target" "$2/lb-target" && cmp -s "$1/bin/lb-gen" "$2/lb-gen"' \
    sh "$cache" "$LB_BUILD/bin"
check "and the adapters' support files (wrk's Lua hook)" test -f "$cache/share/loadbench/adapters/wrk/done.lua"
check "and no staging directory is left" test -z "$(ls -d "$tmp/cache-a/loadbench/"*.lb-part-* 2>/dev/null)"
cat > "$tmp/cached.yaml" <<'Y'
name: cached
hosts: {a: 'root@198.18.0.2:2202'}
target: {host: a, delay: 1ms}
load: {connections: 2, duration: 1s}
tools: [{tool: lb-gen, host: a}]
sampling: {interval: 500ms}
Y
rc=0; in_c "$LB" run --quiet --out "$tmp/cached" "$tmp/cached.yaml" >/dev/null 2>"$tmp/cached.err" || rc=$?
is "$rc" 0 "a run after hosts install: exit 0"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/cached.err"
J=$tmp/cached/run.json
[ -f "$J" ] || { echo '{}' > "$tmp/cached.none"; J=$tmp/cached.none; }
is "$(jget "$J" hosts.a.agent.path)" "$cache/bin/loadbench" "its agent on a ran from the cache hosts install filled"
is "$(jget "$J" runs.0.status)/$(jget "$J" runs.0.crosscheck.verdict)" ok/exact \
    "lb-gen and lb-target on a, from the cache: ok, counts reconcile"

# --- local placement: the whole run, with the record of where it ran -------
cat > "$tmp/here.yaml" <<'Y'
name: here
hosts: {here: local}
target: {host: here, delay: 1ms}
load: {connections: 4, duration: 1s}
tools: [{tool: lb-gen, host: here}]
sampling: {interval: 250ms}
Y
rc=0; in_c "$LB" run --quiet --out "$tmp/here" "$tmp/here.yaml" >/dev/null 2>"$tmp/here.err" || rc=$?
is "$rc" 0 "a profile with a local host runs"
J=$tmp/here/run.json
is "$(jget "$J" runs.0.crosscheck.verdict)" exact "counts reconcile"
is "$(jget "$J" runs.0.placement.tool.host)/$(jget "$J" runs.0.placement.target.address)" here/127.0.0.1 \
    "the row says where the tool ran and where load went"
lo=$(jget "$J" runs.0.nic.0.interfaces.lo.rx_bytes)
srv=$(jget "$J" runs.0.server.requests)
check "the controller's loopback carried the run ($lo bytes for $srv requests, >= 100 B each)" \
    test "$lo" -ge $((srv * 100))
check "summary.md says where it ran" grep -q '^| lb-gen | here (load 127.0.0.1, ssh local) | here (load 127.0.0.1, ssh local) | here: ' "$tmp/here/summary.md"

# --- tools on host b over the agent, lb-target on the controller ----------
# others NS: the pids in namespace NS that are not its sshd listener.
others() { for p in $(ip netns pids "$1"); do [ "$p" = "$2" ] || echo "$p"; done; true; }
sshd_b=$(ip netns pids "$B" | head -1)
cat > "$tmp/remote.yaml" <<'Y'
name: remote
hosts:
  ctl: {ssh: local, address: 198.18.0.1}
  b: root@198.18.0.3:2203
target: {host: ctl, delay: 1ms}
load: {connections: 4, duration: 3s}
tools: [{tool: lb-gen, host: b}, {tool: wrk, host: b}]
sampling: {interval: 500ms}
Y
rc=0; in_c "$LB" run --quiet --out "$tmp/remote" "$tmp/remote.yaml" >/dev/null 2>"$tmp/remote.err" || rc=$?
is "$rc" 0 "lb-gen and wrk on host b against lb-target on the controller: exit 0"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/remote.err"
J=$tmp/remote/run.json
echo "{}" > "$tmp/none.json"
[ -f "$J" ] || J=$tmp/none.json
for i in 0 1; do
    tool=$(jget "$J" runs.$i.tool)
    # exact, or explained by at most one unread response per connection (wrk)
    is "$(jget "$J" runs.$i.status)/$(jget "$J" runs.$i.crosscheck.verdict | sed 's/explained/exact/')" ok/exact \
        "$tool on b: ok, counts reconcile ($(jget "$J" runs.$i.crosscheck.verdict))"
    is "$(jget "$J" runs.$i.placement.tool.host)/$(jget "$J" runs.$i.placement.target.address)" b/198.18.0.1 \
        "$tool: the row says it ran on b and sent load to the controller's address"
    check "$tool: its tree was sampled on b ($(jget "$J" runs.$i.footprint.cpu_seconds) CPU-s)" \
        perl -e 'exit !($ARGV[0] > 0)' -- "$(jget "$J" runs.$i.footprint.cpu_seconds)"
    rx=$(jget "$J" runs.$i.nic.0.interfaces.eth0.rx_bytes | tr -dc 0-9); srv=$(jget "$J" runs.$i.server.requests | tr -dc 0-9)
    rx=${rx:-0} srv=${srv:-1}
    is "$(jget "$J" runs.$i.nic.0.host)" b "$tool: the first NIC entry is b's"
    check "$tool: b's eth0 received the responses ($rx bytes for $srv requests, >= 100 B each)" \
        test "$rx" -ge $((srv * 100))
    # The loopback carries the control channel (GET /stats, the arrivals at
    # the row's end: 110-200 KB a row, by time, not by requests); the load
    # over it would add what b's eth0 got (>= 100 B a request, 220 here).
    lo=$(jget "$J" runs.$i.nic.1.interfaces.lo.rx_bytes | tr -dc 0-9); lo=${lo:-999999999}
    check "$tool: none of it went over the controller's loopback ($lo bytes, bound $((srv * 50 + 250000)))" \
        test "$lo" -lt $((srv * 50 + 250000))
done
rtt=$(jget "$J" hosts.b.clock.rtt_ns | tr -dc 0-9); rtt=${rtt:-0}
diag "host b: clock offset $(jget "$J" hosts.b.clock.offset_ns) ns, rtt $rtt ns"
check "run.json records b's clock (rtt $rtt ns)" test "$rtt" -gt 0
check "summary.md says the tools ran on b" grep -q '^| wrk | b (load 198.18.0.3, ssh root@198.18.0.3:2203) | ctl (load 198.18.0.1, ssh local) |' "$tmp/remote/summary.md"
check "nothing of the run is left on b" test -z "$(others "$B" "$sshd_b")"

# --- instances on two hosts: each tool's processes dealt out to a and b ----
# lb-target on the controller; lb-gen and wrk as 2 copies, Locust as a
# master and 2 workers, k6 as 2 segments (when found), each with host:
# [a, b]. Every row ok and reconciled with the server, its footprint made
# of one tree per process, the parts on both hosts.
spread_tools="  - {tool: lb-gen, instances: 2, host: [a, b]}
  - {tool: wrk, instances: 2, host: [a, b]}"
spread_rows="lb-gen:2 wrk:2"
for t in locust:3 k6:2; do
    if look_for "${t%:*}"; then
        spread_tools="$spread_tools
  - {tool: ${t%:*}, instances: 2, host: [a, b]}"
        spread_rows="$spread_rows $t"
    else
        skip "${t%:*} not found, no row across hosts: $why"
    fi
done
cat > "$tmp/spread.yaml" <<Y
name: spread
hosts:
  ctl: {ssh: local, address: 198.18.0.1}
  a: root@198.18.0.2:2202
  b: root@198.18.0.3:2203
target: {host: ctl, delay: 1ms}
load: {connections: 4, duration: 2s}
tools:
$spread_tools
sampling: {interval: 500ms}
grace: 60s
Y
in_c "$LB" plan "$tmp/spread.yaml" > "$tmp/spread-plan.out" 2>&1 || true
check "plan: lb-gen's copies, p0 on a and p1 on b" \
    sh -c 'grep -Eq "^    p0 copy +host a " "$1" && grep -Eq "^    p1 copy +host b " "$1"' sh "$tmp/spread-plan.out"
case $spread_rows in *locust*)
    check "plan: Locust's master binds a's address, its workers are sent there" \
        sh -c 'grep -q -- "--master-bind-host=198.18.0.2" "$1" && grep -q -- "--master-host=198.18.0.2" "$1" &&
               grep -Eq "^    p2 worker +host b " "$1"' sh "$tmp/spread-plan.out" ;;
esac
t0=$(date +%s)
rc=0; in_c "$LB" run --quiet --out "$tmp/spread" "$tmp/spread.yaml" >/dev/null 2>"$tmp/spread.err" || rc=$?
is "$rc" 0 "instances on a and b against lb-target on the controller: exit 0 ($(($(date +%s) - t0)) s)"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/spread.err"
J=$tmp/spread/run.json
[ -f "$J" ] || J=$tmp/none.json
i=0
for spec in $spread_rows; do
    tool=${spec%%:*} trees=${spec#*:}
    v=$(jget "$J" runs.$i.crosscheck.verdict)
    is "$(jget "$J" runs.$i.tool)/$(jget "$J" runs.$i.status)/$(echo "$v" | sed 's/explained/exact/')" "$tool/ok/exact" \
        "$tool on [a, b]: ok, counts reconcile ($v: client $(jget "$J" runs.$i.crosscheck.client), server $(jget "$J" runs.$i.crosscheck.server))"
    [ "$(jget "$J" runs.$i.status)" = ok ] || diag "reason: $(jget "$J" runs.$i.reason)"
    is "$(jget "$J" runs.$i.footprint.trees)" "$trees" "$tool: the footprint is $trees process trees"
    hosts=$(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or exit; my $d = decode_json(<$f>);
        print join " ", map { ($_->{role} // "?") . "@" . ($_->{host} // "here") . sprintf(" %.2fs", $_->{cpu_seconds} // 0) }
            @{$d->{runs}[$ARGV[1]]{footprint}{parts} || []}' "$J" $i)
    check "$tool: its parts ran on both hosts ($hosts)" sh -c 'case " $1" in *@a*) ;; *) exit 1 ;; esac; case " $1" in *@b*) ;; *) exit 1 ;; esac' sh "$hosts"
    is "$(jget "$J" runs.$i.placement.tools.0.host)/$(jget "$J" runs.$i.placement.tools.1.host)/$(jget "$J" runs.$i.placement.tool.host)" \
        a/b/a "$tool: the row's placement names both hosts, the first as its tool host"
    nic=$(jget "$J" runs.$i.nic.0.host)/$(jget "$J" runs.$i.nic.1.host)/$(jget "$J" runs.$i.nic.2.host)
    is "$nic" a/b/ctl "$tool: NIC counters of a, b and the target's host"
    srv=$(jget "$J" runs.$i.server.requests | tr -dc 0-9); srv=${srv:-1}
    for n in 0 1; do
        h=$(jget "$J" runs.$i.nic.$n.host)
        rx=$(jget "$J" runs.$i.nic.$n.interfaces.eth0.rx_bytes | tr -dc 0-9); rx=${rx:-0}
        check "$tool: $h's eth0 received its share of the responses ($rx bytes for $srv requests in all, >= 25 B each)" \
            test "$rx" -ge $((srv * 25))
    done
    diag "$tool: $(jget "$J" runs.$i.windows.whole_rps) req/s (server), $(jget "$J" runs.$i.footprint.cpu_seconds) CPU-s; $hosts"
    i=$((i + 1))
done
check "summary.md says the tools ran on a and b" \
    grep -q '^| lb-gen | a (load 198.18.0.2, ssh root@198.18.0.2:2202), b (load 198.18.0.3, ssh root@198.18.0.3:2203) | ctl (load 198.18.0.1, ssh local) |' "$tmp/spread/summary.md"
check "nothing of the run is left on b" test -z "$(others "$B" "$sshd_b")"


# --- SIGINT mid-run leaves nothing in any namespace -------------------------
sed 's/duration: 3s/duration: 20s/' "$tmp/remote.yaml" > "$tmp/long.yaml"
ip netns exec "$C" "$LB" run --out "$tmp/int" "$tmp/long.yaml" >/dev/null 2>"$tmp/int.err" &
lbpid=$!
track $lbpid
wait_line "$tmp/int.err" 'lb-gen: starting' && sleep 2
kill -INT $lbpid || true
rc=0; wait $lbpid || rc=$?
is "$rc" 130 "SIGINT mid-run: exit 130"
[ "$rc" = 130 ] || sed 's/^/#   /' "$tmp/int.err"
left=""
for _ in $(seq 20); do left=$(others "$B" "$sshd_b"); [ -z "$left" ] && break; sleep 0.1; done
is "$left" "" "no process of the run left on b within 2 s"
is "$(ip netns pids "$C")" "" "none left in the controller's namespace"

# --- the ssh session killed mid-run: that row fails as host lost ------------
sed -e 's/^name: .*/name: lost/' \
    -e 's/^tools: .*/tools: [{tool: wrk, host: b, load: {connections: 4, duration: 20s}}, {tool: lb-gen, host: ctl}]/' \
    "$tmp/remote.yaml" > "$tmp/lost.yaml"
ip netns exec "$C" "$LB" run --out "$tmp/lost" "$tmp/lost.yaml" >/dev/null 2>"$tmp/lost.err" &
lbpid=$!
track $lbpid
wait_line "$tmp/lost.err" 'wrk: starting' && sleep 3
sshpid=$(ps -o pid=,comm= --ppid $lbpid | awk '$2 == "ssh" {print $1}' | head -1)
check "the agent's ssh session is a child of loadbench (pid ${sshpid:-none})" test -n "$sshpid"
[ -z "$sshpid" ] || kill -KILL "$sshpid" || true
t0=$(date +%s%N)
left="x"
while [ -n "$left" ] && [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 5000 ]; do
    left=$(for p in $(others "$B" "$sshd_b"); do [ "$(cat /proc/$p/comm 2>/dev/null)" != wrk ] || echo $p; done)
    sleep 0.05
done
gone_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "wrk on b is gone ${gone_ms} ms after its ssh session was killed (bound 2000 ms)" test "$gone_ms" -le 2000
rc=0; wait $lbpid || rc=$?
is "$rc" 1 "the run ends with exit 1 (a failed row)"
J=$tmp/lost/run.json
[ -f "$J" ] || J=$tmp/none.json
is "$(jget "$J" runs.0.status)" failed "the wrk row failed"
check "its reason is host lost ($(jget "$J" runs.0.reason))" sh -c "echo '$(jget "$J" runs.0.reason)' | grep -q 'host lost'"
is "$(jget "$J" runs.1.status)/$(jget "$J" runs.1.crosscheck.verdict)" ok/exact "the next row (lb-gen) ran"
[ "$(jget "$J" runs.1.status)" = ok ] || sed 's/^/#   /' "$tmp/lost.err"

# ---- hosts1: issue 30 (1, 2, 5, 9): nothing undefined after a loss, readings from their host ----
# retrans NS: Tcp RetransSegs in namespace NS's own /proc/net/snmp.
retrans() {
    ip netns exec "$1" awk '/^Tcp:/ { if (!c) { for (i = 2; i <= NF; i++) if ($i == "RetransSegs") c = i } else print $c }' \
        /proc/net/snmp
}
# huge FILE: the first number in run.json at or above 2^40 (keys ending in
# _ns or _ms are times, left out) as "path=value"; empty when none. No
# count, size or CPU figure of these runs comes near it; a stack address
# read as a count does (about 2^47).
huge() {
    perl -MJSON::PP -e '
        local $/; open my $f, "<", $ARGV[0] or exit 1; my $d = decode_json(<$f>);
        sub walk { my ($v, $p) = @_;
            if (ref $v eq "HASH") { for (keys %$v) { next if /_(ns|ms)$/; my $r = walk($v->{$_}, "$p.$_"); return $r if $r } }
            elsif (ref $v eq "ARRAY") { for (0 .. $#$v) { my $r = walk($v->[$_], "$p.$_"); return $r if $r } }
            elsif (defined $v && !ref $v && $v =~ /^-?[0-9.e+]+$/ && $v >= 2**40) { return "$p=$v" }
            return "" }
        print walk($d, "");' "$1"
}
# lost_said FILE ROW: "host lost" in the row's reason / in its warnings.
lost_said() {
    perl -MJSON::PP -e '
        local $/; open my $f, "<", $ARGV[0] or exit 1; my $r = decode_json(<$f>)->{runs}[$ARGV[1]];
        my $n = () = ($r->{reason} // "") =~ /host lost/g; my $w = () = join("\n", @{$r->{warnings} // []}) =~ /host lost/g;
        print "$n/$w"' "$1" "$2"
}

# The agent's session killed mid-run (above): the failed row holds nothing
# undefined, says the loss once, and keeps the CPU it measured.
J=$tmp/lost/run.json
[ -f "$J" ] || J=$tmp/none.json
h=$(huge "$J")
is "$h" "" "host lost: no number near 2^47 in run.json"
is "$(jget "$J" runs.0.output_truncated)" null "host lost: no output_truncated (output_lost: $(jget "$J" runs.0.output_lost))"
is "$(lost_said "$J" 0)" 1/0 "host lost: said once in the reason, not in the warnings"
cpu=$(jget "$J" runs.0.footprint.cpu_seconds)
check "host lost: the CPU measured until the loss is kept ($cpu s, $(jget "$J" runs.0.footprint.source))" \
    perl -e 'exit !($ARGV[0] > 0)' -- "$cpu"
check "host lost: summary.md's CPU avg is not 0.0" \
    sh -c "grep '^| wrk | failed |' '$tmp/lost/summary.md' | cut -d'|' -f11 | grep -qv '^ 0.0 $'"

# The data link of a (lb-target's host) cut for 3 s in an 8 s row of
# lb-gen on b (the bridge's side of a's veth down: a's eth0 stays up and
# drops what it sends): the retransmits run.json counts on a are those of
# a's namespace, not the controller's.
cat > "$tmp/linkdown.yaml" <<'Y'
name: linkdown
hosts:
  a: root@198.18.0.2:2202
  b: root@198.18.0.3:2203
target: {host: a, delay: 1ms}
load: {connections: 4, duration: 8s}
tools: [{tool: lb-gen, host: b}]
sampling: {interval: 500ms}
Y
# The namespaces' counters are read from the row's start: before it, the
# data path's bulk probe (4 flows for 3 s, b to a) retransmits on a too,
# and that is the probe's, not the row's.
in_c "$LB" run --out "$tmp/linkdown" "$tmp/linkdown.yaml" >/dev/null 2>"$tmp/linkdown.err" &
lbpid=$!
track $lbpid
wait_line "$tmp/linkdown.err" 'lb-gen: starting'
a0=$(retrans "$A") b0=$(retrans "$B") c0=$(retrans "$C")
sleep 2
ip -n "$C" link set p2 down
sleep 3
ip -n "$C" link set p2 up
wait $lbpid || true
a1=$(retrans "$A") b1=$(retrans "$B") c1=$(retrans "$C")
J=$tmp/linkdown/run.json
[ -f "$J" ] || J=$tmp/none.json
ra=$(jget "$J" runs.0.hosts.a.tcp.retrans_segs | tr -dc 0-9) rb=$(jget "$J" runs.0.hosts.b.tcp.retrans_segs | tr -dc 0-9)
ra=${ra:--1} rb=${rb:--1}
diag "link down: run.json a $ra, b $rb; the namespaces from the row's start: a $((a1 - a0)), b $((b1 - b0)), controller $((c1 - c0)); row $(jget "$J" runs.0.status): $(jget "$J" runs.0.reason)"
check "link down: a retransmitted ($ra segments in run.json)" test "$ra" -ge 1
check "link down: a's count is its namespace's: at most what a's /proc/net/snmp counted from the row's start ($ra <= $((a1 - a0)))" \
    test "$ra" -le $((a1 - a0))
check "link down: and short of it by at most 5 + 10 % (what a did outside the row: $((a1 - a0 - ra)))" \
    test $((a1 - a0 - ra)) -le $((5 + (a1 - a0) / 10))
check "link down: b's count is b's namespace's ($rb <= $((b1 - b0)))" test "$rb" -ge 0 -a "$rb" -le $((b1 - b0))
is "$(jget "$J" runs.0.tcp.retrans_segs)" "$((ra + rb))" "link down: the row's tcp.retrans_segs is a's and b's sum"
check "link down: each host's TIME_WAIT and machine CPU are recorded (b: $(jget "$J" runs.0.hosts.b.tcp.time_wait_after) after)" \
    sh -c "[ '$(jget "$J" runs.0.hosts.b.tcp.time_wait_after)' != null ] && [ '$(jget "$J" runs.0.hosts.a.machine_cpu.busy_s)' != null ]"
is "$(jget "$J" runs.0.quiet.host)" b "link down: the row's quiet reading is the tool's host's"
txd=$(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or exit 1; my $t = 0;
    for (@{decode_json(<$f>)->{runs}[0]{nic} // []}) { $t += $_->{interfaces}{eth0}{tx_dropped} // 0 if ($_->{host} // "") eq "a" } print $t' "$J")
if [ "${txd:-0}" -gt 0 ]; then
    check "link down: summary.md says a's eth0 dropped $txd packets" grep -q "a: .*dropped: tx_dropped $txd on eth0" "$tmp/linkdown/summary.md"
else
    ok 0 "link down: a's eth0 counted no tx_dropped (nothing for summary.md to say)"
fi
check "link down: \"Where it ran\" gives the load addresses" \
    grep -q '^| lb-gen | b (load 198.18.0.3, ssh root@198.18.0.3:2203) | a (load 198.18.0.2, ssh root@198.18.0.2:2202) |' "$tmp/linkdown/summary.md"
check "link down: results.csv names the hosts (tool b, target a)" \
    perl -F, -lane 'if ($. == 1) { %c = map { $F[$_] => $_ } 0 .. $#F; next } exit !($F[$c{tool_hosts}] eq "b" && $F[$c{target_host}] eq "a")' "$tmp/linkdown/results.csv"

# b's link (management and data: one veth here) cut for 8 s under a wrk
# row: longer than the 5 s heartbeat timeout, so b is lost by silence,
# not by a closed link. The failed row holds nothing undefined either.
sed -e 's/^name: .*/name: mgmtdown/' -e 's/^tools: .*/tools: [{tool: wrk, host: b, load: {connections: 4, duration: 20s}}]/' \
    "$tmp/remote.yaml" > "$tmp/mgmtdown.yaml"
in_c "$LB" run --out "$tmp/mgmtdown" "$tmp/mgmtdown.yaml" >/dev/null 2>"$tmp/mgmtdown.err" &
lbpid=$!
track $lbpid
wait_line "$tmp/mgmtdown.err" 'wrk: starting' && sleep 2
ip -n "$C" link set p3 down
sleep 8
ip -n "$C" link set p3 up
rc=0; wait $lbpid || rc=$?
J=$tmp/mgmtdown/run.json
[ -f "$J" ] || J=$tmp/none.json
is "$rc/$(jget "$J" runs.0.status)" 1/failed "link down 8 s: the wrk row fails, exit 1"
check "link down 8 s: by the heartbeat's silence ($(jget "$J" runs.0.reason))" \
    sh -c "echo '$(jget "$J" runs.0.reason)' | grep -q 'host lost: b: nothing from the agent'"
h=$(huge "$J")
is "$h" "" "link down 8 s: no number near 2^47 in run.json"
is "$(lost_said "$J" 0)/$(jget "$J" runs.0.output_truncated)" 1/0/null "link down 8 s: the loss said once, no output_truncated"
left="x"
for _ in $(seq 150); do left=$(others "$B" "$sshd_b"); [ -z "$left" ] && break; sleep 0.1; done
is "$left" "" "link down 8 s: nothing of the run left on b"
# ---- end hosts1 ----

# --- the same profile on one box: rows with the same status and verdicts ----
sed -e '/^hosts:/d' -e '/^  ctl:/d' -e '/^  b:/d' -e 's/host: ctl, //' -e 's/{tool: \([a-z-]*\), host: b}/\1/g' \
    "$tmp/remote.yaml" > "$tmp/onebox.yaml"
rc=0; in_c "$LB" run --quiet --out "$tmp/onebox" "$tmp/onebox.yaml" >/dev/null 2>"$tmp/onebox.err" || rc=$?
is "$rc" 0 "the same profile without hosts: runs on one box"
J1=$tmp/onebox/run.json J2=$tmp/remote/run.json
[ -f "$J1" ] || J1=$tmp/none.json
for i in 0 1; do
    a=$(jget "$J1" runs.$i.status)/$(jget "$J1" runs.$i.crosscheck.verdict | sed 's/explained/exact/')
    b=$(jget "$J2" runs.$i.status)/$(jget "$J2" runs.$i.crosscheck.verdict | sed 's/explained/exact/')
    is "$a" "$b" "$(jget "$J2" runs.$i.tool): the same status and verdict on one box and across hosts"
done
diag "one box:"
grep '^| \(lb-gen\|wrk\) ' "$tmp/onebox/summary.md" 2>/dev/null | cut -d'|' -f1-6,16-18 | sed 's/^/#   /' || true
diag "across hosts (tools on b):"
grep '^| \(lb-gen\|wrk\) |' "$tmp/remote/summary.md" 2>/dev/null | head -2 | cut -d'|' -f1-6,16-18 | sed 's/^/#   /' || true

# ---- hosts2: run directories on a host, readiness there, strangers ---------
# (issue 30, defects 4, 7 and 8.) Host b gets a second sshd (port 2213) in
# a mount namespace of its own with a tmpfs over $tmp/hb: below that path
# host bm's files are not the controller's, as on a real second machine.
# bm's load address 198.19.0.3 is on b's loopback: the controller has no
# route to it, b does.
mkdir -p "$tmp/hb" "$tmp/hbc"
sed 's/^Port 2203$/Port 2213/' "$k/sshd3.conf" > "$k/sshd13.conf"
echo "SetEnv XDG_CACHE_HOME=$tmp/hbc" >> "$k/sshd13.conf"
ip -n "$B" addr add 198.19.0.3/32 dev lo
ip netns exec "$B" unshare --mount --propagation private \
    sh -c 'mount -t tmpfs lb-hb "$0" && mount -t tmpfs lb-hbc "$2" && exec /usr/sbin/sshd -D -e -f "$1"' \
    "$tmp/hb" "$k/sshd13.conf" "$tmp/hbc" \
    2>"$tmp/sshd13.log" &
sshd_bm=$!
track $sshd_bm
up=0
for _ in $(seq 50); do
    in_c ssh -F "$k/client.conf" -o BatchMode=yes -p 2213 root@198.18.0.3 true 2>/dev/null && { up=1; break; }
    sleep 0.1
done
is "$up" 1 "a second sshd on b, with files of its own below $tmp/hb"
on_bm() { nsenter -t "$sshd_bm" -m "$@"; }
left_bm() { on_bm find "$tmp/hb" -mindepth 1 2>&1 | sed "s|^$tmp/hb/||" | head -5 | tr '\n' ' '; }
cat > "$tmp/hb.yaml" <<'Y'
name: hb
hosts:
  ctl: {ssh: local, address: 198.18.0.1}
  bm: {ssh: 'root@198.18.0.3:2213', address: 198.19.0.3}
target: {host: ctl, delay: 1ms}
load: {connections: 4, duration: 2s}
tools: [{tool: wrk, host: bm}]
sampling: {interval: 500ms}
Y
rc=0; in_c "$LB" run --quiet --out "$tmp/hb/r1" "$tmp/hb.yaml" >/dev/null 2>"$tmp/hb1.err" || rc=$?
is "$rc" 0 "wrk on bm (its own files): exit 0"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/hb1.err"
is "$(jget "$tmp/hb/r1/run.json" runs.0.status)" ok "wrk on bm: ok"
check "wrk's output came back to the controller" sh -c 'find "$1" -name stdout.txt -size +0 | grep -q .' sh "$tmp/hb/r1"
is "$(left_bm)" "" "nothing left on bm below the run directory's parent"

# The data path, measured before the first row from bm to the target's
# address (lb-target on the controller): 1000 round trips, 4 bulk flows
# for 3 s, the interface the route takes.
J=$tmp/hb/r1/run.json
is "$(jget "$J" path.bm.to)/$(jget "$J" path.bm.interface)/$(jget "$J" path.bm.rtt.count)/$(jget "$J" path.bm.bulk.flows)" \
    198.18.0.1/eth0/1000/4 "path: bm to the target's address over eth0, 1000 round trips, 4 flows"
p50=$(jget "$J" path.bm.rtt.p50_us) p99=$(jget "$J" path.bm.rtt.p99_us)
bps=$(jget "$J" path.bm.bulk.bytes_per_s) pps=$(jget "$J" path.bm.bulk.packets_per_s)
check "path: 0 < p50 ($p50 us) <= p99 ($p99 us) < 1 s" perl -e 'exit !($ARGV[0] > 0 && $ARGV[0] <= $ARGV[1] && $ARGV[1] < 1e6)' -- "$p50" "$p99"
check "path: bulk ${bps} B/s in ${pps} packets/s (> 1 MB/s, 100 B to 128 KiB a packet)" \
    perl -e 'exit !($ARGV[0] > 1e6 && $ARGV[1] > 0 && $ARGV[0] / $ARGV[1] > 100 && $ARGV[0] / $ARGV[1] < 131072)' -- "$bps" "$pps"
check "summary.md shows the data path" grep -q '^| bm | 198.18.0.1 | eth0 |' "$tmp/hb/r1/summary.md"
share=$(jget "$J" runs.0.limits.network.share)
is "$(jget "$J" runs.0.limits.network.host)/$(jget "$J" runs.0.limits.network.interface)" bm/eth0 \
    "the network witness read bm's eth0 against the path"
check "wrk's responses used a small share of the measured capacity ($share; bottleneck $(jget "$J" runs.0.limits.bottleneck))" \
    perl -e 'exit !($ARGV[0] > 0 && $ARGV[0] < 0.5)' -- "$share"
is "$(jget "$tmp/onebox/run.json" path.skipped | cut -c1-8)" "one box:" "a run without hosts: says why it measured no path"
J=$tmp/remote/run.json
diag "path b -> ctl (tools on b): rtt p50 $(jget "$J" path.b.rtt.p50_us) us, p99 $(jget "$J" path.b.rtt.p99_us) us; bulk $(jget "$J" path.b.bulk.bytes_per_s) B/s, $(jget "$J" path.b.bulk.packets_per_s) packets/s over $(jget "$J" path.b.interface)"

on_bm touch "$tmp/hb/file"
rc=0; in_c "$LB" run --quiet --out "$tmp/hb/file/r2" "$tmp/hb.yaml" >/dev/null 2>"$tmp/hb2.err" || rc=$?
is "$rc" 2 "a run directory bm cannot make: exit 2 before any load"
check "the error names the host, the path and why ($(head -c 300 "$tmp/hb2.err"))" \
    grep -q "hb.yaml:4:[0-9]*: host bm (root@198.18.0.3:2213) cannot hold the run directory $tmp/hb/file/r2: cannot create $tmp/hb/file/r2: Not a directory" "$tmp/hb2.err"
check "no row ran" sh -c '! grep -q "\"tool\"" "$1/run.json" 2>/dev/null' sh "$tmp/hb/file/r2"
on_bm rm -f "$tmp/hb/file"

if look_for locust; then
    # Locust's master and worker on bm, bound to 198.19.0.3: ready is
    # checked on bm, where the listener is, not from the controller.
    sed -e 's/^name: .*/name: hbl/' -e 's/^tools: .*/tools: [{tool: locust, instances: 2, host: bm}]/' \
        -e 's/duration: 2s/duration: 3s/' "$tmp/hb.yaml" > "$tmp/hbl.yaml"
    echo "grace: 60s" >> "$tmp/hbl.yaml"
    rc=0; in_c "$LB" run --quiet --out "$tmp/hb/r3" "$tmp/hbl.yaml" >/dev/null 2>"$tmp/hb3.err" || rc=$?
    J=$tmp/hb/r3/run.json
    is "$rc/$(jget "$J" runs.0.status)" 0/ok \
        "Locust's master on bm's address, which the controller cannot reach: ready, row ok ($(jget "$J" runs.0.reason))"
    [ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/hb3.err"
    is "$(left_bm)" "" "nothing left on bm after the Locust row"

    # A worker loadbench did not start joins the master mid-run.
    sed -e 's/^name: .*/name: hbf/' -e 's/duration: 3s/duration: 12s/' "$tmp/hbl.yaml" > "$tmp/hbf.yaml"
    in_c "$LB" run --out "$tmp/hb/r4" "$tmp/hbf.yaml" >/dev/null 2>"$tmp/hb4.err" &
    lbpid=$!
    track $lbpid
    port=""
    for _ in $(seq 300); do
        port=$(ps -eo args | sed -n "s/.*--master-bind-host=198.19.0.3 --master-bind-port=\([0-9]*\).*/\1/p" | head -1)
        lf=$(find "$tmp/hb/r4" -path '*p1/locustfile.py' 2>/dev/null | head -1)
        [ -n "$port" ] && [ -n "$lf" ] && break
        sleep 0.1
    done
    mkdir -p "$tmp/foreign"
    cp "${lf%/*}/"*.py "$tmp/foreign/" 2>/dev/null || true
    ( cd "$tmp/foreign" && exec env LB_LOCUST_OUT="$tmp/foreign/out.json" ip netns exec "$B" \
        "$(sed -n 's/^  binary: \(.*\) (version .*/\1/p' "$tmp/find-locust.out")" -f locustfile.py --worker \
        --master-host=198.19.0.3 --master-port="${port:-1}" ) >"$tmp/foreign.log" 2>&1 &
    fpid=$!
    track $fpid
    rc=0; wait $lbpid || rc=$?
    kill -TERM $fpid 2>/dev/null || true
    J=$tmp/hb/r4/run.json
    diag "the foreign worker (port ${port:-none}) said: $(tail -3 "$tmp/foreign.log" | tr '\n' ' ' | cut -c1-300)"
    is "$rc/$(jget "$J" runs.0.status)" 1/failed "a row where a worker loadbench did not start took part fails"
    check "its reason says so ($(jget "$J" runs.0.reason))" \
        sh -c 'echo "$1" | grep -q "that loadbench did not start took part"' sh "$(jget "$J" runs.0.reason)"
    check "the figures measured are kept ($(jget "$J" runs.0.client.requests) requests)" \
        test "$(jget "$J" runs.0.client.requests | tr -dc 0-9)" -gt 0
    is "$(left_bm)" "" "nothing left on bm after the failed row"
else
    skip "locust not found, no readiness or stranger case: $why"
fi

# go-fasthttp is built on bm by hosts install, kept by a reinstall of the
# same build, and never built by a look-up (tools --host).
if look_for go-fasthttp; then
    rc=0; in_c "$LB" hosts install bm "$tmp/hb.yaml" >"$tmp/hbi.out" 2>"$tmp/hbi.err" || rc=$?
    gofh=$(tail -1 "$tmp/hbi.out")/share/loadbench/build/refgen/go-fasthttp/lb-go-fasthttp
    is "$rc" 0 "hosts install bm"
    check "it built go-fasthttp there ($gofh)" on_bm test -x "$gofh"
    ino=$(on_bm stat -c %i "$gofh" 2>/dev/null || true)
    in_c "$LB" hosts install bm "$tmp/hb.yaml" >/dev/null 2>&1 || true
    is "$(on_bm stat -c %i "$gofh" 2>/dev/null || true)" "${ino:-none}" "a reinstall of the same build keeps it (the same file)"
    in_c "$LB" tools --host bm "$tmp/hb.yaml" >"$tmp/hbt.out" 2>&1 || true
    check "tools --host finds it there" grep -Eq "^go-fasthttp +yes .*$tmp/hbc/" "$tmp/hbt.out"
    on_bm rm -rf "${gofh%/*}"
    in_c "$LB" tools --host bm "$tmp/hb.yaml" >"$tmp/hbt.out" 2>&1 || true
    check "without it, tools --host says no" grep -Eq "^go-fasthttp +no " "$tmp/hbt.out"
    check "and builds nothing" on_bm test ! -e "${gofh%/*}"
else
    skip "go-fasthttp cannot be built here, no build on a host: $why"
fi
on_bm umount "$tmp/hb" "$tmp/hbc" 2>/dev/null || true

done_testing
