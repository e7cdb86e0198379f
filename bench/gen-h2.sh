#!/bin/sh
# bench/gen-h2.sh: lb-gen --http2 against h2load (Debian nghttp2-client)
# over h2 (TLS 1.3, ALPN h2), side by side against one lb-target --tls 1.3
# --http2 (zero delay, 1 thread, its own CA made at start).
#
# Both with one stream in flight per connection (lb-gen always; h2load
# -m 1), CONNS connections, one thread; the target pinned to CPU 1, each
# generator to CPU 0 (taskset), in alternating rounds (who goes first
# alternates too). The figure: requests per client CPU-second (the tool's
# own count / its user+system CPU from wait4's rusage, tests/progs/
# gen-rusage), lb-gen / h2load, per round and the median of the per-round
# ratios. lb-gen is the reference row: it should cost no more CPU per
# request than h2load (ratio >= 1). lb-gen verifies the certificate
# (--cacert), h2load does not (it has no CA option): that costs lb-gen only
# at its CONNS handshakes. Each lb-gen count is also checked against the
# server's. A shared machine moves single rounds by tens of %; read the
# median.
#
# Only 127.0.0.1; every process started here is stopped by its PID.
# Environment: LB_BUILD (build dir), GEN_H2_ROUNDS (3), GEN_H2_SECONDS (5),
# GEN_H2_CONNS (100).
set -eu
cd "$(dirname "$0")/.."
: "${LB_BUILD:=$(pwd)/build}" "${GEN_H2_ROUNDS:=3}" "${GEN_H2_SECONDS:=5}" "${GEN_H2_CONNS:=100}"
GEN=$LB_BUILD/bin/lb-gen RUSAGE=$LB_BUILD/tests/progs/gen-rusage
SECS=$GEN_H2_SECONDS CONNS=$GEN_H2_CONNS
# What is built here is an error when missing; the Debian tools a skip.
for need in "$GEN" "$LB_BUILD/bin/lb-target" "$RUSAGE" h2load taskset; do
    command -v "$need" >/dev/null 2>&1 && continue
    case $need in /*) echo "bench/gen-h2.sh: $need is missing: run make first" >&2; exit 1 ;; esac
    echo "bench/gen-h2.sh: SKIP: $need not installed"
    exit 0
done
[ "$(nproc)" -ge 2 ] || { echo "bench/gen-h2.sh: SKIP: needs 2 CPUs (target on 1, generators on 0)"; exit 0; }

. bench/lib/servers.sh

taskset -c 1 "$LB_BUILD/bin/lb-target" --port 0 --control-port 0 --threads 1 --tls 1.3 --http2 \
    --tls-ca "$tmp/ca.pem" >"$tmp/t.out" 2>"$tmp/t.err" &
pids="$pids $!"
n=0
while ! grep -q '"event":"listening"' "$tmp/t.out" 2>/dev/null; do
    n=$((n + 1))
    [ $n -le 100 ] || { echo "bench/gen-h2.sh: lb-target did not start: $(cat "$tmp/t.err")" >&2; exit 1; }
    sleep 0.05
done
PORT=$(head -n 1 "$tmp/t.out" | sed -n 's/.*"port":\([0-9]*\).*/\1/p')
CTLPORT=$(head -n 1 "$tmp/t.out" | sed -n 's/.*"control_port":\([0-9]*\).*/\1/p')
URL="https://127.0.0.1:$PORT/"

# streams: the target's completed HTTP/2 streams so far.
streams() {
    perl -MIO::Socket::INET -e '
        my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => shift, Timeout => 5) or die "connect: $!\n";
        print $s "GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        local $/; my $r = <$s>; print $r =~ /"streams":\{"completed":(\d+)/ ? $1 : -1' "$CTLPORT"
}

# one TOOL: one pinned run; prints "requests requests_per_cpu_second note".
one() {
    s0=$(streams)
    if [ "$1" = lb-gen ]; then
        taskset -c 0 "$RUSAGE" "$tmp/ru" "$GEN" --http2 --quiet -t 1 -c "$CONNS" -d "${SECS}s" \
            --cacert "$tmp/ca.pem" --json "$tmp/gen.json" "$URL"
        done=$(perl -MJSON::PP -e 'local $/; open my $f, "<", shift; my $j = decode_json(<$f>);
            print $j->{protocol} eq "h2" ? $j->{requests}{completed} : 0' "$tmp/gen.json")
        s1=$(streams)
        note=$([ "$done" = $((s1 - s0)) ] && echo exact || echo "server=$((s1 - s0))")
    else
        taskset -c 0 "$RUSAGE" "$tmp/ru" h2load -t 1 -c "$CONNS" -m 1 -D "$SECS" "$URL" >"$tmp/h2load.out" 2>&1
        done=$(sed -n 's/^requests: .* \([0-9]*\) done, .*/\1/p' "$tmp/h2load.out")
        grep -q '^Application protocol: h2' "$tmp/h2load.out" || done=0
        note=-
    fi
    perl -e 'my ($n, $ru, $note) = @ARGV; my %r = $ru =~ /(\w+)=([\d.]+)/g;
        printf "%d %.0f %s\n", $n, $n / ($r{user_s} + $r{sys_s}), $note' "${done:-0}" "$(cat "$tmp/ru")" "$note"
}

echo "lb-gen --http2 vs h2load -m 1 over h2: lb-target --tls 1.3 --http2 (0 delay, 1 thread) on CPU 1, generators"
echo "on CPU 0, 1 thread x $CONNS connections each, $GEN_H2_ROUNDS alternating rounds x ${SECS}s; requests per client CPU-second"
# Each round one line "lb-gen: N rate note | h2load: N rate"; the summary
# (per-round ratios, medians) is computed from them all at the end.
for r in $(seq 1 "$GEN_H2_ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then a=$(one lb-gen); b=$(one h2load)
    else b=$(one h2load); a=$(one lb-gen); fi
    echo "$a $b"
done | perl -ne '
    my ($gn, $gr, $note, $hn, $hr) = split;
    my $x = $hr > 0 ? $gr / $hr : 0;
    push @x, $x; push @g, $gr; push @h, $hr;
    printf "  round %d  lb-gen: %d req, %d req/CPU-s (count vs server streams: %s) | h2load: %d req, %d req/CPU-s | %.3fx\n",
        $., $gn, $gr, $note, $hn, $hr, $x;
    sub med { my @v = sort { $a <=> $b } @_; @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2 }
    END {
        my $m = med(@x);
        printf "  median requests per client CPU-second: lb-gen %.0f, h2load %.0f\n", med(@g), med(@h);
        printf "  ratio lb-gen / h2load: %.3fx (median of per-round ratios: %s) - %s the 1x goal (the reference row costs no more)\n",
            $m, join(" ", map { sprintf "%.3f", $_ } @x), $m >= 1 ? "meets" : "MISSES";
    }'
