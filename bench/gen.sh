#!/bin/sh
# bench/gen.sh: lb-gen against wrk, side by side against one lb-target.
#
# The target (zero delay, 1 thread) is pinned to CPU 1, each generator to
# CPU 0 (taskset). At 1 thread x 100 and 1 thread x 1000 connections the two
# generators run in alternating rounds; the table shows medians of
# requests/s (each tool's own count over its own duration), CPU seconds per
# 100k requests and peak RSS (both from wait4's rusage of the generator),
# and lb-gen/wrk ratios. Then 200 connections against a 20 ms delay: the
# share of the 10,000 requests/s that is the ceiling.
#
# Environment: LB_BUILD (build dir), GEN_BENCH_ROUNDS (5), GEN_BENCH_SECONDS (3),
# GEN_BENCH_ISOLATED=1 (run the lb-gen vs wrk rounds at SCHED_FIFO 10 too:
# both cores busy for the whole comparison, so only on a machine of your own).
set -eu
cd "$(dirname "$0")/.."
: "${LB_BUILD:=$(pwd)/build}"
ROUNDS=${GEN_BENCH_ROUNDS:-5}
SECS=${GEN_BENCH_SECONDS:-3}
GEN=$LB_BUILD/bin/lb-gen
TARGET=$LB_BUILD/bin/lb-target
RUSAGE=$LB_BUILD/tests/progs/gen-rusage
for b in "$GEN" "$TARGET" "$RUSAGE"; do
    [ -x "$b" ] || { echo "bench/gen.sh: $b is missing: run make first" >&2; exit 1; }
done
if ! command -v wrk >/dev/null 2>&1; then
    echo "bench/gen.sh: SKIP lb-gen vs wrk: wrk is not installed (apt-get install wrk)"
    exit 0
fi
CPU_GEN=0 CPU_TARGET=1
[ "$(nproc)" -ge 2 ] || CPU_TARGET=0

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lbgen-bench.XXXXXX")
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# start_target NAME ARGS: lb-target pinned to the target CPU; sets T_URL, T_CTL.
start_target() {
    name=$1
    shift
    ${RT:-} taskset -c "$CPU_TARGET" "$TARGET" --port 0 --control-port 0 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    pids="$pids $!"
    i=0
    until grep -q '"event":"listening"' "$tmp/$name.out" 2>/dev/null; do
        i=$((i + 1))
        [ $i -le 100 ] || { echo "bench/gen.sh: lb-target did not start: $(cat "$tmp/$name.err")" >&2; exit 1; }
        sleep 0.05
    done
    line=$(head -n 1 "$tmp/$name.out")
    T_URL="http://127.0.0.1:$(echo "$line" | sed -n 's/.*"port":\([0-9]*\).*/\1/p')/"
    T_CTL=$(echo "$line" | sed -n 's/.*"control_port":\([0-9]*\).*/\1/p')
    T_PID=$(echo "$line" | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
}

served() {
    perl -MIO::Socket::INET -e '
        my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => shift, Timeout => 5) or die "connect: $!\n";
        print $s "GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        local $/; my $r = <$s>; print $r =~ /"responses_completed":(\d+)/ ? $1 : -1' "$T_CTL"
}

# run_one TOOL CONNS: one pinned run; appends "tool conns rps cpu_per_100k rss_mb exact" to $tmp/rows.
# cpu_ticks: "all-busy target" CPU ticks so far: the machine's busy time
# (all CPUs, /proc/stat) and lb-target's own (/proc/PID/stat), to tell how
# much of the two cores something else took during a round.
cpu_ticks() {
    perl -e 'open my $f, "<", "/proc/stat"; my @c = split " ", <$f>; shift @c;
        my $busy = 0; $busy += $c[$_] for (0, 1, 2, 5, 6, 7);
        open my $t, "<", "/proc/$ARGV[0]/stat"; my $l = <$t>; $l =~ s/.*\) //; my @s = split " ", $l;
        print "$busy ", $s[11] + $s[12]' "$T_PID"
}

run_one() {
    tool=$1 conns=$2
    before=$(served)
    ticks0=$(cpu_ticks)
    if [ "$tool" = lb-gen ]; then
        ${RT:-} taskset -c "$CPU_GEN" "$RUSAGE" "$tmp/ru" "$GEN" --quiet -t 1 -c "$conns" -d "${SECS}s" \
            --json "$tmp/gen.json" "$T_URL"
        set -- $(perl -MJSON::PP -e 'local $/; open my $f, "<", shift; my $j = decode_json(<$f>);
            print "$j->{requests}{completed} $j->{duration_s}"' "$tmp/gen.json")
    else
        ${RT:-} taskset -c "$CPU_GEN" "$RUSAGE" "$tmp/ru" wrk -t 1 -c "$conns" -d "${SECS}s" "$T_URL" >"$tmp/wrk.out"
        set -- $(perl -ne 'print "$1 $2" if /(\d+) requests in ([\d.]+)(m?s)/ && ($3 eq "s" or $2 /= 1000)' "$tmp/wrk.out")
    fi
    count=$1 dur=$2
    ticks1=$(cpu_ticks)
    after=$(served)
    perl -e '
        my ($tool, $conns, $count, $dur, $served, $ru, $t0, $t1, $hz, $ncpu) = @ARGV;
        my %r = $ru =~ /(\w+)=([\d.]+)/g;
        my ($b0, $s0) = split " ", $t0; my ($b1, $s1) = split " ", $t1;
        # What neither the generator nor the target used, in % of the two cores.
        my $others = (($b1 - $b0) - ($s1 - $s0)) / $hz - ($r{user_s} + $r{sys_s});
        $others = 0 if $others < 0;
        printf "%s %d %.1f %.4f %.2f %s %.0f\n", $tool, $conns, $count / $dur,
            ($r{user_s} + $r{sys_s}) / $count * 1e5, $r{maxrss_kb} / 1024, $count == $served ? "exact" : "server=$served",
            100 * $others / ($r{wall_s} * ($ncpu < 2 ? $ncpu : 2));
    ' "$tool" "$conns" "$count" "$dur" "$((after - before))" "$(cat "$tmp/ru")" "$ticks0" "$ticks1" \
        "$(getconf CLK_TCK)" "$(nproc)" >>"$tmp/rows"
}

rt_ok=no
if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null 2>&1 && chrt -f 10 true 2>/dev/null; then rt_ok=yes; fi
RT=""
[ "${GEN_BENCH_ISOLATED:-0}" = 1 ] && [ $rt_ok = yes ] && RT="chrt -f 10"
start_target zero --threads 1
: >"$tmp/rows"
echo "lb-gen vs wrk: lb-target (0 delay, 1 thread) on CPU $CPU_TARGET, generators on CPU $CPU_GEN,"
echo "1 thread each, $ROUNDS alternating rounds x ${SECS}s, medians${RT:+, isolated (SCHED_FIFO 10)}"
for conns in 100 1000; do
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        # Alternate who goes first so drift on the shared machine hits both.
        if [ $((r % 2)) = 0 ]; then run_one lb-gen "$conns"; run_one wrk "$conns"
        else run_one wrk "$conns"; run_one lb-gen "$conns"; fi
        r=$((r + 1))
    done
done

perl -e '
    my (%v, %exact, @others);
    open my $f, "<", shift or die;
    while (<$f>) {
        my ($tool, $c, $rps, $cpu, $rss, $ex, $oth) = split;
        push @{$v{$c}{$tool}{rps}}, $rps; push @{$v{$c}{$tool}{cpu}}, $cpu; push @{$v{$c}{$tool}{rss}}, $rss;
        push @{$exact{$c}{$tool}}, $ex;
        push @others, $oth;
    }
    sub med { my @s = sort { $a <=> $b } @_; my $n = @s; $n % 2 ? $s[$n / 2] : ($s[$n / 2 - 1] + $s[$n / 2]) / 2 }
    printf "%-6s %-7s %12s %16s %13s   %s\n", "conns", "tool", "requests/s", "CPU s/100k req", "peak RSS MB", "per round: requests/s";
    for my $c (sort { $a <=> $b } keys %v) {
        my %m;
        for my $t ("lb-gen", "wrk") {
            $m{$t}{$_} = med(@{$v{$c}{$t}{$_}}) for qw(rps cpu rss);
            printf "%-6d %-7s %12.0f %16.3f %13.2f   %s%s\n", $c, $t, $m{$t}{rps}, $m{$t}{cpu}, $m{$t}{rss},
                join(" ", map { sprintf "%.0f", $_ } @{$v{$c}{$t}{rps}}),
                $t eq "lb-gen" ? "  (count vs server: " . join(",", @{$exact{$c}{$t}}) . ")" : "";
        }
        printf "%-6d %-7s %12.3f %16.3f %13.3f   %s\n", $c, "ratio", $m{"lb-gen"}{rps} / $m{wrk}{rps},
            $m{"lb-gen"}{cpu} / $m{wrk}{cpu}, $m{"lb-gen"}{rss} / $m{wrk}{rss},
            "(lb-gen/wrk; goal: requests/s >= 1, CPU <= 1, RSS <= 1)";
        printf "%-6d %-7s %12s requests per CPU-second: lb-gen %.0f, wrk %.0f\n", $c, "", "",
            1e5 / $m{"lb-gen"}{cpu}, 1e5 / $m{wrk}{cpu};
        # Paired by round (the two runs of a round are back to back), which
        # cancels slow drift from whatever else the machine is doing.
        my (@pr, @pc);
        for my $i (0 .. $#{$v{$c}{wrk}{rps}}) {
            push @pr, $v{$c}{"lb-gen"}{rps}[$i] / $v{$c}{wrk}{rps}[$i];
            push @pc, $v{$c}{"lb-gen"}{cpu}[$i] / $v{$c}{wrk}{cpu}[$i];
        }
        printf "%-6d %-7s %12.3f %16.3f %13s   %s\n", $c, "paired", med(@pr), med(@pc), "",
            "(median of per-round lb-gen/wrk ratios)";
    }
    printf "other processes took %s %% of the two cores during the runs (in order): a busy machine makes requests/s noisy; CPU per request holds better\n",
        join(" ", @others);' "$tmp/rows"

# 200 connections against a 20 ms delay: at most 200 / 20 ms = 10,000/s,
# and at most 200 / (the server's own mean response time) whatever the
# generator does; both shares are shown. Run as they come, and isolated from
# the rest of the machine with lb-target and lb-gen at SCHED_FIFO 10 (where
# root and chrt allow; both are mostly asleep at 10,000/s, 4 s bounded).
for mode in shared isolated; do
    RT=""
    if [ $mode = isolated ]; then
        [ $rt_ok = yes ] || { echo "200 connections x 20 ms delay, isolated: skipped (needs root and chrt)"; continue; }
        RT="chrt -f 10"
    fi
    start_target "delay-$mode" --threads 1 --delay 20ms
    before=$(served)
    $RT taskset -c "$CPU_GEN" "$GEN" --quiet -t 1 -c 200 -d 4s --json "$tmp/d.json" "$T_URL"
    after=$(served)
    perl -MIO::Socket::INET -e '
        my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => shift, Timeout => 5) or die "connect: $!\n";
        print $s "GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        local $/; my $r = <$s>; print $r =~ /"server_time_ns":\{[^}]*"mean":([\d.]+)/ ? $1 : 0' "$T_CTL" >"$tmp/srv_mean"
    kill "$T_PID" 2>/dev/null || true
    perl -MJSON::PP -e 'local $/; open my $f, "<", shift; my $j = decode_json(<$f>);
        my ($served, $srv_ns, $mode) = @ARGV;
        my ($n, $d) = ($j->{requests}{completed}, $j->{duration_s});
        my $rps = $n / $d;
        printf "200 connections x 20 ms delay, %s: lb-gen %.0f requests/s = %.2f %% of 10,000 (goal >= 98 %%); p50 %.2f ms, p99 %.2f ms; count vs server: %s\n",
            $mode eq "isolated" ? "isolated (SCHED_FIFO)" : "as they come", $rps, $rps / 100, $j->{latency_ms}{p50},
            $j->{latency_ms}{p99}, $n == $served ? "exact" : "server=$served";
        printf "  the server itself held responses %.3f ms on average: ceiling 200 / %.3f ms = %.0f/s, lb-gen reached %.2f %% of it\n",
            $srv_ns / 1e6, $srv_ns / 1e6, 200 / ($srv_ns / 1e9), 100 * $rps / (200 / ($srv_ns / 1e9))
            if $srv_ns > 0;' "$tmp/d.json" "$((after - before))" "$(cat "$tmp/srv_mean")" "$mode"
done
