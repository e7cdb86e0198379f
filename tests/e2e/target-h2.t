#!/bin/sh
# lb-target over HTTP/2 (nghttp2, --http2): h2 over TLS (ALPN) and h2c with
# prior knowledge, driven by h2load, counted exactly (requests = responses =
# streams completed); with a delay; a TLS server without --http2 gives an
# h2-asking client http/1.1 (the ALPN fallback the harness must catch) and
# counts it so; hostile HTTP/2 (tests/progs/h2-hostile.py): more streams at
# once than the limit (refused, counted, the rest answered), a SETTINGS
# flood (connection ended, counted), a preface then nothing - lb-target
# stays up and its counts stay exact; at its stop (SIGTERM, as loadbench
# stops it) an open h2c or h2 connection gets GOAWAY NO_ERROR before the
# close, its stream in flight stays counted in flight, and a client that
# never closes does not hold the stop.
# lb-test: shared (counts, refusals and GOAWAY frames; its one time bound, a stop in under 5 s beside a client that never closes, is 45 times the 110 ms measured)
set -eu
. "$(dirname "$0")/target-lib.sh"
H2LOAD=$(command -v h2load || true)
[ -n "$H2LOAD" ] || skip_all "h2load is not installed (Debian nghttp2-client)"
HOSTILE="/usr/bin/python3 $(dirname "$0")/../progs/h2-hostile.py"

# h2load_run NAME URL N: h2load -c 4 -m 10 for N requests; prints "done/succeeded protocol".
h2load_run() {
    "$H2LOAD" -n "$3" -c 4 -m 10 "$2" >"$tmp/$1.h2load" 2>&1 || true
    done=$(sed -n 's/^requests: .* \([0-9]*\) done, \([0-9]*\) succeeded.*/\1\/\2/p' "$tmp/$1.h2load")
    proto=$(sed -n 's/^Application protocol: *//p' "$tmp/$1.h2load")
    echo "$done $proto"
}

# exact NAME N: the server counted N requests, N responses, N streams completed, nothing else.
exact() {
    set -- "$1" "$2" $(stats requests_parsed responses_completed h2.streams.completed responses_aborted bad_requests \
        inflight h2.streams.refused)
    is "$3/$4/$5/$6/$7/$8/$9" "$2/$2/$2/0/0/0/0" \
        "$1: $2 requests, responses, streams completed; nothing aborted, bad, in flight or refused"
}

start_target h2 --tls 1.3 --http2 --tls-ca "$tmp/h2-ca.pem"
grep -q '"http2":true' "$tmp/h2.out"; ok $? "h2: the first line says http2"
is "$(h2load_run h2 "https://127.0.0.1:$T_PORT/" 1000)" "1000/1000 h2" "h2: h2load over TLS: 1000 of 1000, ALPN h2"
exact h2 1000
is "$(stats tls.alpn.h2 tls.alpn.h1 tls.handshakes.full | tr '\n' /)" "4/0/4/" "h2: 4 connections, each ALPN h2"
# HTTP/1.1 over the same TLS server still works (ALPN http/1.1).
out=$(/usr/bin/python3 "$(dirname "$0")/../progs/tls-client.py" keepalive "127.0.0.1:$T_PORT" 3 1.3 "$tmp/h2-ca.pem" http/1.1) || out=failed
is "$(kv ok "$out")/$(kv alpn "$out")/$(stats requests_parsed)" "3/http/1.1/1003" "h2: an HTTP/1.1 client beside it, counted"
stop_target "$T_PID"

start_target h2c --http2
is "$(h2load_run h2c "http://127.0.0.1:$T_PORT/" 1000)" "1000/1000 h2c" "h2c: h2load with prior knowledge: 1000 of 1000"
exact h2c 1000
is "$(stats h2.h2c_connections)" 4 "h2c: 4 connections with prior knowledge"
# Hostile: 2000 streams at once (limit 1024), a SETTINGS flood, a preface then nothing.
out=$($HOSTILE streams "127.0.0.1:$T_PORT" 2000) || out=failed
diag "2000 streams at once: $out"
set -- $(stats requests_parsed responses_completed h2.streams.refused responses_aborted inflight)
is "$(kv answered "$out")/$(kv refused "$out")" "$(($1 - 1000))/$3" "h2c: the client's answered and refused streams = the server's"
is "$(($1 - 1000 + $3))/$(($2 - 1000))/$4/$5" "2000/$(($1 - 1000))/0/0" \
    "h2c: 2000 streams = parsed + refused; every parsed one answered; nothing aborted or in flight"
ok $([ "$3" -ge 1 ] && echo 0 || echo 1) "h2c: streams over the limit were refused ($3)"
out=$($HOSTILE settings "127.0.0.1:$T_PORT" 20000) || out=failed
diag "SETTINGS flood: $out"
i=0; while [ "$(stats connections_open)" != 0 ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
ok $([ "$(stats h2.connections_broken)" -ge 1 ] && echo 0 || echo 1) "h2c: the SETTINGS flood ended its connection, counted"
$HOSTILE idle "127.0.0.1:$T_PORT" 3 >/dev/null &
ipid=$!
track $ipid
sleep 0.3
n0=$(stats requests_parsed)
is "$(h2load_run h2c2 "http://127.0.0.1:$T_PORT/" 200)" "200/200 h2c" "h2c: served at once beside a preface-then-nothing client"
is "$(stats requests_parsed responses_completed bad_requests | tr '\n' /)" "$((n0 + 200))/$((n0 + 200))/0/" \
    "h2c: counts exact after the hostile clients"
wait $ipid || true
ok $(kill -0 "$T_PID" 2>/dev/null && echo 0 || echo 1) "h2c: lb-target still up"
stop_target "$T_PID"

start_target h2delay --http2 --delay 20ms
is "$(h2load_run h2delay "http://127.0.0.1:$T_PORT/" 400)" "400/400 h2c" "h2delay: 400 delayed streams"
exact h2delay 400
# The delay counts from the kernel's receive time, the server's time from
# the parse: a worker kept off the CPU reads short. 10 ms tells held (20 ms)
# from not held (microseconds) whatever the machine's load.
p50=$(stats server_time_ns.p50)
ok $([ "$p50" -ge 10000000 ] && echo 0 || echo 1) "h2delay: the responses were held (server p50 $p50 ns >= 10 ms)"
stop_target "$T_PID"

# Stop: nghttp holds one stream open (a 10 s delay); SIGTERM, then nghttp
# must have read GOAWAY NO_ERROR naming that stream before the connection
# ended, and the final stats (last line of NAME.out) say so.
NGHTTP=$(command -v nghttp || true)
# final NAME.out FIELD...: fields (a.b: nested) of the final stats line.
final() { /usr/bin/python3 -c 'import functools, json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print(" ".join(str(functools.reduce(lambda o, k: o[k], f.split("."), d)) for f in sys.argv[2:]))' "$@"; }
goaway_at_stop() {
    name=$1 url=$2
    "$NGHTTP" -v -t 20 "$url" >"$tmp/$name.nghttp" 2>&1 &
    npid=$!
    track $npid
    i=0; while [ "$(stats inflight)" != 1 ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
    stop_target "$T_PID"
    wait $npid || true
    sid=$(sed -n 's/.*send HEADERS frame <.*stream_id=\([0-9]*\)>.*/\1/p' "$tmp/$name.nghttp")
    got=$(grep -A1 'recv GOAWAY frame' "$tmp/$name.nghttp" | sed -n 's/.*(last_stream_id=\([0-9]*\), error_code=\([^,]*\),.*/\1 \2/p')
    is "$got" "$sid NO_ERROR(0x00)" "$name: at the stop the client read GOAWAY NO_ERROR, last stream $sid (its request)"
    is "$(final "$tmp/$name.out" event h2.goaway_sent requests_parsed inflight responses_aborted)" "stopped 1 1 1 0" \
        "$name: final stats: 1 GOAWAY sent; the stream in flight at the stop stays in flight, not aborted"
}
if [ -n "$NGHTTP" ]; then
    start_target goaway --http2 --delay 10s
    goaway_at_stop goaway "http://127.0.0.1:$T_PORT/"
    start_target goaway-tls --http2 --delay 10s --tls 1.3
    goaway_at_stop goaway-tls "https://127.0.0.1:$T_PORT/"
    # A client that reads nothing and never closes: the stop waits for it
    # a bounded while (100 ms), not for the client's 10 s.
    start_target goaway-idle --http2
    $HOSTILE idle "127.0.0.1:$T_PORT" 10 >/dev/null &
    ipid=$!
    track $ipid
    i=0; while [ "$(stats h2.h2c_connections)" != 1 ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
    t0=$(date +%s)
    stop_target "$T_PID"
    t1=$(date +%s)
    kill $ipid 2>/dev/null || true
    wait $ipid 2>/dev/null || true
    ok $([ $((t1 - t0)) -lt 5 ] && echo 0 || echo 1) "goaway-idle: stopped in $((t1 - t0)) s beside a client that never closes"
    is "$(final "$tmp/goaway-idle.out" h2.goaway_sent)" 1 "goaway-idle: its GOAWAY was written"
else
    for i in 1 2 3 4 5 6; do skip "nghttp is not installed (Debian nghttp2-client)"; done
fi

# No --http2: an h2load that asks for h2 gets http/1.1, and the server says so.
start_target fallback --tls 1.3 --tls-ca "$tmp/fb-ca.pem"
res=$(h2load_run fallback "https://127.0.0.1:$T_PORT/" 100)
diag "fallback: h2load says $res"
set -- $(stats tls.alpn.h2 tls.alpn.h1 requests_parsed)
is "$1/$2" "0/4" "fallback: no connection got h2; 4 got http/1.1 (the row that asked for h2 must fail on this)"
ok $([ "$(stats requests_parsed)" = "$(stats responses_completed)" ] && echo 0 || echo 1) "fallback: its HTTP/1.1 requests counted exactly"
stop_target "$T_PID"
done_testing
