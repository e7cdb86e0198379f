# Sourced by the tests across hosts (tests/e2e/multihost*.t), after
# tap.sh, by root: three network namespaces (a controller
# $C and hosts $A and $B) on one bridge in the controller's, addressed from
# 198.18.0.0/15 (set aside for network benchmarks), each host with Debian's
# sshd on its own port (a: 198.18.0.2:2202, b: 198.18.0.3:2203), host keys
# and a user key made here ($k). Host a's sessions keep their cache
# (loadbench hosts install) in $tmp/cache-a; with MH_A_NO_GO=1 set before
# this is sourced, a has no Go toolchain (an empty tmpfs over Debian's Go
# bin/ in its sshd's mount namespace), so hosts install there builds
# nothing. Gives in_c (run in the
# controller's namespace), sshto N CMD and wait_line FILE PATTERN. Everything it starts goes,
# however the test ends: sshd by pid, every process left in a namespace by
# pid (ip netns pids), then the namespaces (mh_cleanup, the EXIT trap).
[ "$(id -u)" = 0 ] || skip_all "needs root to make network namespaces (CI runs as root)"
command -v ip >/dev/null || skip_all "ip (iproute2) is not installed (scripts/deps test)"
command -v unshare >/dev/null || skip_all "unshare (util-linux) is not installed"
[ -x /usr/sbin/sshd ] || skip_all "sshd is not installed (openssh-server: scripts/deps test)"
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || skip_all "ssh is not installed (openssh-client)"
. "$LB_SRC/tests/lib/ssh-keys.sh"

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

# The data path's bulk flows (runpath.c) for 300 ms, not 3 s: these veth
# pairs run at full speed at once, no slow start to wait past.
LOADBENCH_PATH_BULK=300ms
export LOADBENCH_PATH_BULK

# Keys and sshd: host a on 198.18.0.2:2202, host b on 198.18.0.3:2203.
k=$tmp/ssh
ssh_keys "$k"
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
# Host a's sessions keep their cache (loadbench hosts install) in the
# test's directory, and a's sshd runs in a UTS namespace of its own: its
# hostname is not the controller's, so doctor --host shows whose facts.
echo "SetEnv XDG_CACHE_HOME=$tmp/cache-a" >> "$k/sshd2.conf"
nogo=""
[ "${MH_A_NO_GO:-}" != 1 ] || nogo=$(readlink -f /usr/lib/go/bin 2>/dev/null || true)
ip netns exec "$A" unshare --uts --mount --propagation private sh -c \
    'echo "$0" > /proc/sys/kernel/hostname && { [ -z "$2" ] || mount -t tmpfs lb-nogo "$2"; } && exec /usr/sbin/sshd -D -e -f "$1"' \
    "$tag-a" "$k/sshd2.conf" "$nogo" 2>"$tmp/sshd2.log" &
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

# wait_line FILE PATTERN: up to 60 s for a line.
wait_line() { for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
