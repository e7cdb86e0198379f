#!/bin/sh
# bench/hosts-scale.sh [N...] (make bench: 8 and 16, the default): the controller across N
# load hosts. Builds N host namespaces on this machine (network, pid and
# mount namespaces, each with Debian's sshd on 198.18.2.I:22; the run's
# hosts are reached only over ssh, as in tests/e2e/multihost.t) and one
# more for lb-target (198.18.1.1), all on one bridge in the controller's
# namespace (198.18.0.1/16). One profile: lb-gen `instances: N`,
# `host: [h1, ..., hN]`, open model at RATE/s per host (200) for DUR
# (10s) with POOL connections per host (16: lb-gen's own default opens
# 100 per copy before its start, 6,400 handshakes at once at 64 hosts,
# whose lost SYNs, retried 1-3 s later, measure the target's kernel, not
# the controller), sampled every 1 s; then the same profile again,
# interrupted by SIGINT 3 s into its row.
#
# One line per N:
#   cpu_s        loadbench's own CPU seconds over the run (user + system,
#                read from its zombie: ssh clients not included), and
#   us/host/smp  that divided by hosts and samples (the figure that must
#                stay flat as N grows: compare it with N=8's in the same
#                invocation, never across machines);
#   ssh_s        the controller's ssh clients' CPU (wait4 of loadbench
#                minus its own), rss_mb its peak RSS (VmHWM);
#   skew_ms      spread of the first request's arrival across the hosts,
#                on lb-target's clock (run.json server_peers.first_spread_ns);
#   off_us/err_us spread (max - min) of the hosts' measured clock offsets
#                and of their error bounds (run.json hosts.H.clock);
#   exact        the crosscheck verdict: client counts against the server's
#                and the merged latency histogram;
#   sigint_s     SIGINT to nothing of the run left on any host (every
#                process in a host's namespace but its sshd listener gone);
#   failed       what went wrong: row status/reason, fds, ssh, heartbeats.
# RATE, DUR, POOL override the load; KEEP=1 keeps the temporary directory (run
# directories, logs). Every namespace and process made is removed however
# it ends (EXIT, INT, TERM).
set -eu
cd "$(dirname "$0")/.."
: "${LB_BUILD:=$(pwd)/build}"
LB=$LB_BUILD/bin/loadbench
RATE=${RATE:-200} DUR=${DUR:-10s} POOL=${POOL:-16}
[ $# -ge 1 ] || set -- 8 16   # make bench (bench/run passes no arguments)
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null; then
    echo "hosts-scale: skipped (needs root, iproute2, openssh-server and -client)"
    exit 0
fi
[ -x "$LB" ] || { echo "hosts-scale: $LB not built (make)" >&2; exit 2; }

. tests/lib/ssh-keys.sh
tmp=$(mktemp -d /tmp/lb-hosts-scale.XXXXXX)
tag=lbhs$$
nss="" lbpid=""
hs_cleanup() {
    [ -n "$lbpid" ] && kill -KILL "$lbpid" 2>/dev/null
    for ns in $nss; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    done
    for ns in $nss; do ip netns del "$ns" 2>/dev/null; done
    [ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap hs_cleanup EXIT
trap 'hs_cleanup; trap - EXIT; exit 130' INT TERM

k=$tmp/ssh
ssh_keys "$k"
C=$tag-c
ip netns add "$C"; nss="$C"
ip -n "$C" link set lo up
ip -n "$C" link add br0 type bridge
ip -n "$C" addr add 198.18.0.1/16 dev br0
ip -n "$C" link set br0 up
in_c() { ip netns exec "$C" "$@"; }

# host NAME ADDR: a namespace with its own sshd on ADDR:22, in pid and
# mount namespaces of its own (/proc there is that pid namespace's).
host() {
    ns=$tag-$1
    ip netns add "$ns"; nss="$nss $ns"
    ip -n "$ns" link set lo up
    ip -n "$ns" link add eth0 type veth peer name "v$1" netns "$C"
    ip -n "$C" link set "v$1" master br0 up
    ip -n "$ns" addr add "$2/16" dev eth0
    ip -n "$ns" link set eth0 up
    printf 'Port 22\nListenAddress %s\nHostKey %s/host\nPidFile none\nAuthorizedKeysFile %s/authorized_keys\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nPermitRootLogin prohibit-password\nStrictModes no\nLogLevel ERROR\nMaxStartups 100\n' \
        "$2" "$k" "$k" > "$k/sshd-$1.conf"
    ip netns exec "$ns" unshare --pid --fork --mount --mount-proc --propagation private \
        /usr/sbin/sshd -D -e -f "$k/sshd-$1.conf" 2>"$tmp/sshd-$1.log" &
}
# hosts_up N: every sshd answers.
hosts_up() {
    for _ in $(seq 100); do
        bad=0
        for a in 198.18.1.1 $(seq -f '198.18.2.%g' 1 "$1"); do
            in_c ssh -F "$k/client.conf" -o BatchMode=yes "root@$a" true 2>/dev/null || { bad=1; break; }
        done
        [ $bad = 0 ] && return 0
        sleep 0.2
    done
    return 1
}
# left N: the processes in the hosts' namespaces but their sshd listeners.
left() {
    for i in t $(seq 1 "$1"); do
        ip netns pids "$tag-$i" 2>/dev/null | sed 1,2d   # the first two: unshare and its child, sshd
    done | wc -l
}

# ssh_rx: bytes the controller's ssh clients received so far (port 22).
ssh_rx() {
    in_c ss -tinH state established '( dport = :22 )' | grep -o 'bytes_received:[0-9]*' | cut -d: -f2 |
        awk '{s += $1} END {print s + 0}'
}
# measure N RUN SIGINT_AFTER: run loadbench in the controller's namespace,
# print "cpu_s ssh_s rss_kb sigint_s" (sigint_s - without SIGINT).
measure() {
    in_c perl -e '
        my ($sigafter, $errf, @cmd) = @ARGV;
        my $pid = fork // die; if (!$pid) { open STDERR, ">", $errf; open STDOUT, ">", "/dev/null"; exec @cmd; die "exec: $!" }
        my ($hwm, $t0, $sent, @row) = (0, time, 0);
        sub ticks { open my $f, "<", "/proc/$_[0]/stat" or return 0; my @f = split / /, (split /\) /, <$f>)[1]; $f[11] + $f[12] }
        require Time::HiRes;
        my $start = Time::HiRes::time();
        while (1) {
            # waitid(P_PID, pid, WEXITED|WNOWAIT|WNOHANG): ended, not reaped: its /proc/PID/stat is final.
            my $si = "\0" x 128;
            last if syscall(247, 1, $pid, $si, 0x01000005, 0) == 0 && unpack("l", substr($si, 16, 4)) == $pid;
            if (open my $s, "<", "/proc/$pid/status") { while (<$s>) { $hwm = $1 if /^VmHWM:\s+(\d+)/ && $1 > $hwm } }
            # The row: from "lb-gen: starting" to its "req/s" line: CPU ticks and wall.
            if (@row < 4 && open my $e, "<", $errf) {
                local $/; my $t = <$e> // "";
                if (@row < 2 && $t =~ /lb-gen: starting/) { @row = (ticks($pid), Time::HiRes::time()) }
                if (@row == 2 && $t =~ /lb-gen: .* req\/s/) { push @row, ticks($pid), Time::HiRes::time() }
            }
            if ($sigafter > 0 && !$sent && Time::HiRes::time() - $start > $sigafter) { kill "INT", $pid; $sent = Time::HiRes::time() }
            Time::HiRes::sleep(0.05);
        }
        open my $st, "<", "/proc/$pid/stat" or die; my @f = split / /, (split /\) /, <$st>)[1];
        my $self = ($f[11] + $f[12]) / 100;
        use POSIX ();
        waitpid $pid, 0;
        my ($u, $s) = (times)[2, 3];
        @row = (0, 0, 0, 0) if @row < 4;
        printf "%.2f %.2f %d %.1f %.2f %.1f\n", $self, $u + $s - $self, $hwm, Time::HiRes::time() - $start,
            ($row[2] - $row[0]) / 100, $row[3] - $row[1];
    ' "$@"
}

printf '%4s %7s %11s %6s %6s %8s %9s %8s %7s %9s %7s  %s\n' N cpu_s us/host/smp ssh_s rss_mb skew_ms off_us err_us exact sigint_s B/s/host failed
for n in "$@"; do
    host t 198.18.1.1
    for i in $(seq 1 "$n"); do host "$i" "198.18.2.$i"; done
    hosts_up "$n" || { echo "hosts-scale: N=$n: an sshd did not answer" >&2; exit 1; }
    P=$tmp/p$n.yaml
    {
        echo "name: hosts-scale-$n"
        echo "hosts:"
        echo "  t: root@198.18.1.1"
        for i in $(seq 1 "$n"); do echo "  h$i: root@198.18.2.$i"; done
        echo "target: {host: t}"
        echo "load: {model: open, rate: $((RATE * n)), duration: $DUR, max_inflight: $((POOL * n))}"
        printf 'tools: [{tool: lb-gen, instances: %d, host: [%s]}]\n' "$n" "$(seq -f 'h%g' -s ', ' 1 "$n")"
        echo "sampling: {interval: 1s}"
        echo "grace: 60s"
    } > "$P"
    set -- $(measure 0 "$tmp/r$n.err" "$LB" run --out "$tmp/r$n" "$P")
    cpu=$1 ssh=$2 rss=$3 wall=$4 rcpu=$5 rwall=$6
    J=$tmp/r$n/run.json
    line=$(perl -MJSON::PP -e '
        local $/; open my $f, "<", $ARGV[0] or do { print "- - - - no run.json"; exit };
        my $d = decode_json(<$f>); my $r = $d->{runs}[0] // {};
        my (@off, @err);
        for my $h (grep { /^h\d+$/ } keys %{$d->{hosts} // {}}) {
            my $c = $d->{hosts}{$h}{clock} // next; push @off, $c->{offset_ns}; push @err, $c->{rtt_ns} / 2;
        }
        my $sp = sub { my @s = sort { $a <=> $b } @_; @s ? $s[-1] - $s[0] : -1 };
        my $fail = ($r->{status} // "none") eq "ok" ? "" : "row $r->{status}: " . ($r->{reason} // "");
        printf "%.1f %.1f %.1f %s %s", ($r->{server_peers}{first_spread_ns} // -1e6) / 1e6,
            $sp->(@off) / 1e3, $sp->(@err) / 1e3, $r->{crosscheck}{verdict} // "none", $fail || "-";
    ' "$J")
    rest=$line
    smp=$rwall   # samples per host in the row: one a second (sampling interval 1 s)
    per=$(perl -e 'printf "%.1f", $ARGV[2] > 0 ? $ARGV[0] * 1e6 / $ARGV[1] / $ARGV[2] : -1' "$rcpu" "$n" "$smp")
    # The SIGINT run: 3 s into the row (after the path probes, ~4 s a host).
    in_c "$LB" plan "$P" >/dev/null 2>&1 || true
    rm -f "$tmp/s$n.err"
    (
        for _ in $(seq 6000); do grep -q 'lb-gen: starting' "$tmp/s$n.err" 2>/dev/null && break; sleep 0.05; done
        # The agents' links' bytes as they reach the controller (ssh on the
        # wire: samples, heartbeats, replies) over 2 s of the row.
        sleep 0.5; b0=$(ssh_rx); sleep 2; b1=$(ssh_rx)
        echo $(((b1 - b0) / 2 / (n + 1))) > "$tmp/s$n.bps"
        sleep 0.5
        echo go > "$tmp/s$n.go"
    ) &
    in_c perl -e '
        my ($go, $errf, @cmd) = @ARGV; require Time::HiRes;
        my $pid = fork // die; if (!$pid) { open STDERR, ">", $errf; open STDOUT, ">", "/dev/null"; exec @cmd; die }
        until (-e $go) { Time::HiRes::sleep(0.02); if (waitpid($pid, 1) > 0) { print "0\n"; exit } }
        kill "INT", $pid; printf "%.6f\n", Time::HiRes::time(); waitpid $pid, 0;
    ' "$tmp/s$n.go" "$tmp/s$n.err" "$LB" run --out "$tmp/s$n" "$P" > "$tmp/s$n.t0"
    t0=$(cat "$tmp/s$n.t0")
    sig=-
    if [ "$t0" != 0 ]; then
        for _ in $(seq 600); do [ "$(left "$n")" = 0 ] && break; sleep 0.05; done
        sig=$(perl -MTime::HiRes=time -e 'printf "%.2f", time - $ARGV[0]' "$t0")
        [ "$(left "$n")" = 0 ] || sig=">30 ($(left "$n") left)"
    fi
    set -- $rest
    fails="${6:+$(echo "$rest" | cut -d' ' -f6-)}"
    errs=$(grep -ciE 'too many open files|heartbeat|nothing from the agent|ssh.*(fail|refused|closed)' "$tmp/r$n.err" "$tmp/s$n.err" 2>/dev/null | awk -F: '{s += $2} END {print s + 0}')
    [ "$errs" = 0 ] || fails="$fails; $errs fd/ssh/heartbeat messages"
    printf '%4d %7.2f %11s %6.2f %6.1f %8s %9s %8s %7s %9s %7s  %s\n' "$n" "$cpu" "$per" "$ssh" "$((rss / 1024)).$((rss % 1024 * 10 / 1024))" \
        "$1" "$2" "$3" "$4" "$sig" "$(cat "$tmp/s$n.bps" 2>/dev/null || echo -)" "$fails"
    # Next N: a fresh set of namespaces.
    for ns in $nss; do [ "$ns" = "$C" ] && continue; for p in $(ip netns pids "$ns"); do kill -KILL "$p" 2>/dev/null; done; ip netns del "$ns"; done
    nss=$C
    ip -n "$C" link del br0 2>/dev/null; ip -n "$C" link add br0 type bridge
    ip -n "$C" addr add 198.18.0.1/16 dev br0; ip -n "$C" link set br0 up
done
