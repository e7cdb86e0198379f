#!/bin/sh
# bench/target-tls.sh: lb-target against nginx over TLS 1.3, HTTPS
# keep-alive (h2load --h1 -c 100) and HTTP/2 (h2load -c 10 -m 10), in the
# same run, alternating, ROUNDS rounds of DURATION seconds each.
#
# Servers pinned to CPU 1, h2load to CPU 0, both one thread. lb-target:
# --tls 1.3 --http2 (its own ECDSA P-256 certificate, made at start);
# nginx-light: bench/nginx.conf with `listen ... ssl http2`, TLSv1.3 and an
# ECDSA P-256 certificate made here with `openssl req` - the same key type
# and TLS version, so the same signature and cipher work, not the very same
# certificate. The figure: requests per server CPU-second (utime+stime of
# the server process over the h2load run), lb-target / nginx, median of
# the per-round ratios (goal in issue #40: >= 1.3x). A shared machine
# moves single rounds by tens of %; read the medians.
#
# Only 127.0.0.1; every process started here is stopped by its PID.
# Environment: ROUNDS (3), DURATION (4, seconds per h2load run).
set -eu
cd "$(dirname "$0")/.."
: "${LB_BUILD:=$(pwd)/build}"
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-4}
TARGET=$LB_BUILD/bin/lb-target
for tool in h2load nginx openssl taskset; do
    command -v $tool >/dev/null 2>&1 || { echo "bench/target-tls.sh: SKIP: $tool not installed"; exit 0; }
done
[ -x "$TARGET" ] || { echo "bench/target-tls.sh: $TARGET not built (make)" >&2; exit 1; }
[ "$(nproc)" -ge 2 ] || { echo "bench/target-tls.sh: SKIP: needs 2 CPUs (server on 1, h2load on 0)"; exit 0; }

. bench/lib/servers.sh

"$TARGET" --port 0 --control-port 0 --threads 1 --cpus 1 --body 800B --tls 1.3 --http2 >"$tmp/lbt.out" 2>"$tmp/lbt.err" &
LPID=$!
pids="$pids $LPID"
i=0
until grep -q '"event":"listening"' "$tmp/lbt.out" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 100 ] && kill -0 $LPID 2>/dev/null || { echo "lb-target did not start: $(cat "$tmp/lbt.err")" >&2; exit 1; }
    sleep 0.05
done
LPORT=$(head -n1 "$tmp/lbt.out" | sed -n 's/.*"port":\([0-9]*\).*/\1/p')

# nginx on a port the kernel picks for a moment (a socket bound to :0, closed).
NPORT=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$tmp/ngx"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 \
    -keyout "$tmp/ngx/key.pem" -out "$tmp/ngx/cert.pem" 2>/dev/null
start_nginx "127.0.0.1:$NPORT ssl http2; ssl_protocols TLSv1.3; ssl_certificate $tmp/ngx/cert.pem; \
ssl_certificate_key $tmp/ngx/key.pem"
NPID=$NGX_PID

# h2run PID PORT ARGS...: "requests requests_per_server_cpu_second".
h2run() {
    pid=$1 port=$2
    shift 2
    c0=$(cpu_ticks "$pid")
    taskset -c 0 h2load -t 1 -D "$DURATION" "$@" "https://127.0.0.1:$port/data.json" >"$tmp/h2.out" 2>&1 || true
    c1=$(cpu_ticks "$pid")
    n=$(sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' "$tmp/h2.out")
    awk -v n="${n:-0}" -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "%d %.0f", n, (b > a ? n / ((b - a) / hz) : 0) }'
}

for mode in https-h1 h2; do
    if [ $mode = h2 ]; then set -- -c 10 -m 10; else set -- --h1 -c 100; fi
    echo "lb-target vs nginx, TLS 1.3 $mode: h2load -t1 $* -D ${DURATION}s on CPU 0, server on CPU 1, 800 B JSON"
    : >"$tmp/ratio.rows"
    for r in $(seq 1 "$ROUNDS"); do
        l=$(h2run $LPID $LPORT "$@")
        n=$(h2run $NPID $NPORT "$@")
        ratio=$(echo "$l $n" | awk '{ printf "%.3f", ($4 > 0 ? $2 / $4 : 0) }')
        echo "$ratio" >>"$tmp/ratio.rows"
        echo "$l $n" | awk -v r="$r" -v x="$ratio" \
            '{ printf "  round %d  lb-target: %d req, %d req/CPU-s | nginx: %d req, %d req/CPU-s | %sx\n", r, $1, $2, $3, $4, x }'
    done
    m=$(median <"$tmp/ratio.rows")
    echo "  ratio, req per server CPU-s, lb-target / nginx ($mode): ${m}x (median of per-round ratios:" \
        "$(tr '\n' ' ' <"$tmp/ratio.rows")) - $(awk -v r="$m" 'BEGIN { print (r >= 1.3) ? "meets" : "MISSES" }') the 1.3x goal"
done

# Full handshakes per server CPU-second (issue #40): lb-gen opens a new
# connection per request with resumption off (--close --tls-resumption off,
# 50 connections, on CPU 0), so every request is a full TLS 1.3 handshake
# (ECDSA P-256 signature, X25519). Both servers run with resumption on, so
# each also issues OpenSSL's 2 session tickets that lb-gen never uses.
# Per server CPU-second, lb-target against nginx (the peer, same key type,
# same client), against the bound `openssl speed ecdsap256` gives for the
# signature alone on one core (the issue's goal: >= 70 % of it), and
# against the bound of the handshake's public-key operations: one ECDSA
# P-256 signature and two X25519 scalar multiplications (the key share,
# then the shared secret), 1 / (1/signs + 2/x25519 ops). No server can pass
# that bound, and on this machine it is about a quarter of the signing
# one, so the 70 % goal cannot be met (targets/README.md, "Full handshakes").
GEN=$LB_BUILD/bin/lb-gen
if [ -x "$GEN" ]; then
    taskset -c 1 openssl speed -seconds 2 ecdsap256 ecdhx25519 >"$tmp/speed.out" 2>/dev/null || true
    sign=$(awk '/ecdsa \(nistp256\)/ { print $(NF - 1) }' "$tmp/speed.out")
    x25519=$(awk '/ecdh \(X25519\)/ { print $NF }' "$tmp/speed.out")
    prim=$(awk -v s="${sign:-0}" -v x="${x25519:-0}" 'BEGIN { printf "%.0f", (s > 0 && x > 0 ? 1 / (1 / s + 2 / x) : 0) }')
    echo "full TLS 1.3 handshakes per server CPU-second: lb-gen -t1 -c 50 --close --tls-resumption off on CPU 0;" \
        "openssl speed on CPU 1: ${sign:-?} ECDSA P-256 signs/s, ${x25519:-?} X25519 ops/s;" \
        "the primitives' bound (1 sign + 2 X25519): $prim handshakes/s"
    # hsrun PID PORT PATH: "handshakes handshakes_per_server_cpu_second" (lb-gen's own count).
    hsrun() {
        c0=$(cpu_ticks "$1")
        taskset -c 0 "$GEN" -t 1 -c 50 -d "${DURATION}s" --close --tls-resumption off --insecure -q \
            --json "$tmp/hs.json" "https://127.0.0.1:$2$3" >/dev/null 2>&1 || true
        c1=$(cpu_ticks "$1")
        h=$(sed -n 's/.*"handshakes": *\([0-9]*\).*/\1/p' "$tmp/hs.json" | head -1)
        awk -v h="${h:-0}" -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "%d %.0f", h, (b > a ? h / ((b - a) / hz) : 0) }'
    }
    : >"$tmp/hs.rows"
    : >"$tmp/hs.sign"
    : >"$tmp/hs.prim"
    for r in $(seq 1 "$ROUNDS"); do
        l=$(hsrun $LPID $LPORT /)
        n=$(hsrun $NPID $NPORT /data.json)
        ratio=$(echo "$l $n" | awk '{ printf "%.3f", ($4 > 0 ? $2 / $4 : 0) }')
        echo "$ratio" >>"$tmp/hs.rows"
        echo "$l" | awk -v s="${sign:-0}" '{ printf "%.3f\n", (s > 0 ? $2 / s : 0) }' >>"$tmp/hs.sign"
        echo "$l" | awk -v p="$prim" '{ printf "%.3f\n", (p > 0 ? $2 / p : 0) }' >>"$tmp/hs.prim"
        echo "$l $n" | awk -v r="$r" -v x="$ratio" -v s="${sign:-0}" -v p="$prim" '{ printf "  round %d  lb-target: " \
            "%d handshakes, %d per CPU-s (%.3fx the signing bound, %.3fx the primitives'"'"' bound) | nginx: %d, %d per CPU-s" \
            " | %sx\n", r, $1, $2, (s > 0 ? $2 / s : 0), (p > 0 ? $2 / p : 0), $3, $4, x }'
    done
    m=$(median <"$tmp/hs.rows")
    echo "  ratio, full handshakes per server CPU-s, lb-target / nginx: ${m}x (median of $(tr '\n' ' ' <"$tmp/hs.rows"))"
    ms=$(median <"$tmp/hs.sign")
    echo "  ratio, lb-target's full handshakes per CPU-s / ECDSA P-256 signs per s: ${ms}x -" \
        "$(awk -v r="$ms" 'BEGIN { print (r >= 0.7) ? "meets" : "MISSES" }') the 0.7x goal"
    echo "  ratio, lb-target's full handshakes per CPU-s / the primitives' bound ($prim/s): $(median <"$tmp/hs.prim")x" \
        "(1.0 is out of reach: it leaves nothing for the key schedule, transcript, records and TCP)"
else
    echo "handshakes: SKIP: $GEN not built"
fi
