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
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
[ "$(id -u)" = 0 ] || skip_all "needs root to make network namespaces (CI runs as root)"
command -v ip >/dev/null || skip_all "ip (iproute2) is not installed (scripts/deps test)"
[ -x /usr/sbin/sshd ] || skip_all "sshd is not installed (openssh-server: scripts/deps test)"
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || skip_all "ssh is not installed (openssh-client)"
cd "$LB_SRC"

tag=lbmh$$
C=$tag-c A=$tag-a B=$tag-b
nss=""
mh_cleanup() {
    for ns in $nss; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
    done
    for ns in $nss; do ip netns del "$ns" 2>/dev/null || true; done
    tap_cleanup
}
trap mh_cleanup EXIT

for ns in $C $A $B; do
    ip netns add "$ns" 2>"$tmp/netns.err" || skip_all "cannot make a network namespace: $(cat "$tmp/netns.err")"
    nss="$nss $ns"
    ip -n "$ns" link set lo up
done
ip -n "$C" link add br0 type bridge
ip -n "$C" addr add 198.18.0.1/24 dev br0
ip -n "$C" link set br0 up
n=2
for ns in $A $B; do
    ip -n "$ns" link add eth0 type veth peer name "p$n" netns "$C"
    ip -n "$C" link set "p$n" master br0 up
    ip -n "$ns" addr add "198.18.0.$n/24" dev eth0
    ip -n "$ns" link set eth0 up
    n=$((n + 1))
done

# Keys and sshd: host a on 198.18.0.2:2202, host b on 198.18.0.3:2203.
k=$tmp/ssh
mkdir -p "$k" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$k/host" -C lb-test-host
ssh-keygen -q -t ed25519 -N '' -f "$k/id" -C lb-test-user
cp "$k/id.pub" "$k/authorized_keys"
cat > "$k/client.conf" <<EOF
Host *
    IdentityFile $k/id
    IdentitiesOnly yes
    StrictHostKeyChecking no
    UserKnownHostsFile /dev/null
    LogLevel ERROR
EOF
export LOADBENCH_SSH_CONFIG="$k/client.conf"
for n in 2 3; do
    cat > "$k/sshd$n.conf" <<EOF
Port 220$n
ListenAddress 198.18.0.$n
HostKey $k/host
PidFile none
AuthorizedKeysFile $k/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
StrictModes no
LogLevel ERROR
EOF
done
ip netns exec "$A" /usr/sbin/sshd -D -e -f "$k/sshd2.conf" 2>"$tmp/sshd2.log" &
track $!
ip netns exec "$B" /usr/sbin/sshd -D -e -f "$k/sshd3.conf" 2>"$tmp/sshd3.log" &
track $!

# in_c CMD...: run in the controller's namespace.
in_c() { ip netns exec "$C" "$@"; }
sshto() { in_c ssh -F "$k/client.conf" -o BatchMode=yes -p "220$1" "root@198.18.0.$1" "$2"; }
up=0
for _ in $(seq 50); do
    if sshto 2 true 2>/dev/null && sshto 3 true 2>/dev/null; then up=1; break; fi
    sleep 0.1
done
is "$up" 1 "sshd answers in both host namespaces"
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
for bad in "198.18.0.2:2299 connection refused" "198.18.0.9:2202 no such host on the network"; do
    dest=${bad%% *}
    sed "s/root@198.18.0.2:2202/root@$dest/" "$tmp/two.yaml" > "$tmp/down.yaml"
    t0=$(date +%s)
    rc=0; in_c "$LB" run --out "$tmp/down-run" "$tmp/down.yaml" >/dev/null 2>"$tmp/down.err" || rc=$?
    is "$rc" 2 "an unreachable host ($dest: ${bad#* }) stops the run with exit 2"
    check "the error is located and says what ssh said" \
        grep -q "down.yaml:3:3: host a (root@$dest) cannot be reached over ssh: ." "$tmp/down.err"
    check "no run directory was made" test ! -e "$tmp/down-run"
    check "it took under 15 s ($(($(date +%s) - t0)) s)" test $(($(date +%s) - t0)) -lt 15
done
rc=0; in_c "$LB" run --out "$tmp/remote-run" "$tmp/two.yaml" >/dev/null 2>"$tmp/remote.err" || rc=$?
is "$rc" 2 "reachable remote hosts, but no agent in this build: refused with exit 2 before any load"
check "the refusal says why" grep -q "needs \`loadbench agent\`" "$tmp/remote.err"

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
check "summary.md says where it ran" grep -q '^| lb-gen | here (local) | here (local) | here: ' "$tmp/here/summary.md"

done_testing
