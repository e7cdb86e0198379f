#!/bin/sh
# lb-target over TLS (OpenSSL): TLS 1.3 and 1.2 answered and counted as
# exactly as plain HTTP, the run's CA verifies the certificate, handshakes
# counted full/resumed/failed with their protocol and cipher, resumption
# off means no resumed handshake, and hostile handshakes (a ClientHello cut
# short, plain HTTP instead of a handshake) are counted failed while the
# server stays up and exact. The client is Python's ssl module
# (tests/progs/tls-client.py), a real TLS stack that verifies.
# lb-test: shared (counts handshakes and responses; its one time check is a lower bound (no response before the delay))
set -eu
. "$(dirname "$0")/target-lib.sh"
TLSC="/usr/bin/python3 $(dirname "$0")/../progs/tls-client.py"
/usr/bin/python3 -c 'import ssl' 2>/dev/null || skip_all "/usr/bin/python3 with ssl is not installed (scripts/deps test)"

# run_tls NAME VERSION KEY: 40 keep-alive GETs and 10 new connections
# (resuming), with counts checked; leaves the target running.
run_tls() {
    name=$1 v=$2 key=$3
    start_target "$name" --tls "$v" --tls-key "$key" --tls-ca "$tmp/$name-ca.pem"
    A=127.0.0.1:$T_PORT
    grep -q "\"tls\":\"$v\"" "$tmp/$name.out"; ok $? "$name: the first line says tls $v"
    openssl verify -CAfile "$tmp/$name-ca.pem" "$tmp/$name-ca.pem" >/dev/null 2>&1
    ok $? "$name: the run's CA was written ($tmp/$name-ca.pem) and is a CA certificate"
    out=$($TLSC keepalive "$A" 40 "$v" "$tmp/$name-ca.pem" http/1.1) || out="failed"
    diag "$name keep-alive: $out"
    is "$(kv ok "$out")/$(kv version "$out")/$(kv alpn "$out")" "40/TLSv$v/http/1.1" \
        "$name: 40 GETs on one verified connection, TLSv$v, ALPN http/1.1"
    out=$($TLSC newconn "$A" 10 "$v" "$tmp/$name-ca.pem" resume) || out="failed"
    diag "$name new connections: $out"
    is "$(kv ok "$out")" 10 "$name: 10 GETs on 10 new connections"
    set -- $(stats requests_parsed responses_completed bad_requests responses_aborted connections_accepted \
        tls.handshakes.full tls.handshakes.resumed tls.handshakes.failed tls.alpn.h1 tls.alpn.none tls.version)
    is "$1/$2/$3/$4/$5" "50/50/0/0/11" "$name: requests, responses exact; nothing bad or aborted; 11 connections"
    is "$(($6 + $7))/$8/$9" "11/0/11" "$name: 11 handshakes completed, none failed, each ALPN http/1.1"
    is "$7" "$(kv resumed "$out")" "$name: the server's resumed handshakes ($7) = the client's ($(kv resumed "$out"))"
    ok $([ "$7" -ge 1 ] && echo 0 || echo 1) "$name: session resumption happened (resumed $7)"
    ciphers=$(stats tls.ciphers)
    sum=$(echo "$ciphers" | /usr/bin/python3 -c 'import json, sys; print(sum(json.load(sys.stdin).values()))')
    diag "$name ciphers: $ciphers"
    is "$sum" 11 "$name: the cipher counts add up to the 11 connections"
}

run_tls tls13 1.3 ecdsa
# A client of the other version: a failed handshake, nothing else.
$TLSC keepalive "$A" 1 1.2 "$tmp/tls13-ca.pem" >/dev/null 2>&1 && r=0 || r=1
is "$r/$(stats tls.handshakes.failed requests_parsed bad_requests | tr '\n' /)" "1/1/50/0/" \
    "tls13: a TLS 1.2 client fails, counted as one failed handshake, no request, nothing bad"
# Hostile wire: a ClientHello cut short, HTTP instead of a handshake.
$TLSC cut "$A" >/dev/null
out=$($TLSC garbage "$A") || out="failed"
diag "garbage: $out"
is "$(kv http "$out")" 0 "tls13: plain HTTP instead of a handshake gets no HTTP answer, the connection ends"
i=0; while [ "$(stats tls.handshakes.failed)" != 3 ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
is "$(stats tls.handshakes.failed)" 3 "tls13: the cut ClientHello and the garbage are 2 more failed handshakes"
out=$($TLSC keepalive "$A" 5 1.3 "$tmp/tls13-ca.pem") || out="failed"
is "$(kv ok "$out")/$(kv alpn "$out")" "5/None" "tls13: still serving after them (a client without ALPN)"
set -- $(stats requests_parsed responses_completed bad_requests connections_open tls.alpn.none)
is "$1/$2/$3/$4/$5" "55/55/0/0/1" "tls13: counts exact after the hostile clients; no connection left open; 1 without ALPN"
# h2 only offered: no protocol in common, counted under "none", never h2.
$TLSC keepalive "$A" 1 1.3 "$tmp/tls13-ca.pem" h2 >/dev/null 2>&1 || true
is "$(stats tls.alpn.h2)/$(stats tls.alpn.none)" "0/2" "tls13: a client offering only h2 is not given h2 (ALPN none)"
stop_target "$T_PID"

run_tls tls12 1.2 rsa
is "$(stats tls.key)" '"rsa2048"' "tls12: the RSA 2048 key"
stop_target "$T_PID"

# Resumption off: the same client offers its session; the server never resumes.
start_target noresume --tls 1.3 --tls-resumption off --tls-ca "$tmp/nr-ca.pem"
out=$($TLSC newconn "127.0.0.1:$T_PORT" 5 1.3 "$tmp/nr-ca.pem" resume) || out="failed"
is "$(kv ok "$out")/$(stats tls.handshakes.full tls.handshakes.resumed | tr '\n' /)" "5/5/0/" \
    "noresume: --tls-resumption off: 5 full handshakes, none resumed"
stop_target "$T_PID"

# A delay holds TLS responses too, counted from when the request was read.
start_target delay --tls 1.3 --delay 20ms --tls-ca "$tmp/d-ca.pem"
out=$($TLSC keepalive "127.0.0.1:$T_PORT" 20 1.3 "$tmp/d-ca.pem") || out="failed"
set -- $(stats requests_parsed responses_completed server_time_ns.min)
is "$(kv ok "$out")/$1/$2" "20/20/20" "delay: 20 delayed GETs over TLS, exact"
ok $([ "$3" -ge 20000000 ] && echo 0 || echo 1) "delay: no response before its 20 ms (min server time $3 ns)"
stop_target "$T_PID"

# Bad options say what is wrong.
"$TARGET" --port 0 --control-port 0 --tls 1.1 2>"$tmp/bad.err" && r=0 || r=$?
is "$r" 2 "--tls 1.1: exit status 2"
grep -q 'must be 1.3 or 1.2, not "1.1"' "$tmp/bad.err"; ok $? "--tls 1.1: says what is allowed"
"$TARGET" --port 0 --control-port 0 --tls-key rsa 2>"$tmp/bad2.err" && r=0 || r=$?
is "$r" 2 "--tls-key without --tls: exit status 2"
done_testing
