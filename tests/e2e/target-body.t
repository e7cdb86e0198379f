#!/bin/sh
# lb-target reads and counts request bodies (issue #40) and stays exact:
# Content-Length bodies in one piece, in 64 pieces and over several reads
# (150 KiB), chunked bodies (extensions, trailers), Expect: 100-continue
# (100, then 200), 100 pipelined POSTs in one write, each counted as one
# request with body_bytes exact to the byte; --expect-body counts the
# bodies of another length (1000 for 1024, a GET's none) in body_mismatch;
# --max-body answers a larger Content-Length or chunked total with 413
# (counted in body_too_large and bad_requests, connection closed; no 100
# for it), the limit itself is allowed, and the server serves on after;
# a body that never ends (the client stops, then FIN or reset) counts in
# body_short with nothing left in flight. HTTP/2: h2load -d's DATA counted
# exactly, a body over --max-body gets 413, a stream cut mid-body (the
# connection closed, or RST_STREAM) counts in body_short. Clients:
# tests/progs/body-client.py (HTTP/1.1 bodies as tools and hostile clients
# send them), h2load, curl and tests/progs/h2-hostile.py. Nothing here
# depends on timing: the gaps between pieces only make the pieces arrive
# apart; the counts must be the same however they arrive.
# lb-test: shared (counts bodies and statuses; its delays are lower bounds only)
set -eu
. "$(dirname "$0")/target-lib.sh"
[ -x /usr/bin/python3 ] || skip_all "/usr/bin/python3 is not installed (scripts/deps test)"
BODYC="/usr/bin/python3 $(dirname "$0")/../progs/body-client.py"
HOSTILE="/usr/bin/python3 $(dirname "$0")/../progs/h2-hostile.py"

# settle: wait (10 s at most) until the server has seen every close.
settle() {
    i=0
    while [ "$(stats connections_open)" != 0 ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
}
# body_counts: body_bytes requests_with_body body_mismatch body_too_large body_short, /-separated.
body_counts() { stats body_bytes requests_with_body body_mismatch body_too_large body_short | tr '\n' / | sed 's:/$::'; }

# --- HTTP/1.1, 1 KiB bodies expected, 200 KiB allowed ---
start_target h1 --max-body 200KiB --expect-body 1024
A=127.0.0.1:$T_PORT

is "$($BODYC cl "$A" 20 1024 1 0)" "statuses=$(seq -s, 20 | sed 's/[0-9]*/200/g') ok=20" \
    "Content-Length 1024 in one piece, 20 on one connection: 20 x 200"
is "$(body_counts)" "20480/20/0/0/0" "20 requests with 1024-byte bodies: body_bytes 20480, none mismatched"
is "$(kv ok "$($BODYC cl "$A" 10 1024 64 1)")" 10 "Content-Length 1024 in 64 pieces of 16 bytes, 1 ms apart: 10 x 200"
is "$(stats requests_parsed)/$(body_counts)" "30/30720/30/0/0/0" "a body in 64 pieces is one request: 30 requests, 30720 bytes"
is "$(kv ok "$($BODYC chunked "$A" 10 1024 8 1)")" 10 "chunked, 8 chunks apart (an extension, a trailer): 10 x 200"
is "$(stats requests_parsed)/$(body_counts)" "40/40960/40/0/0/0" "chunked: the data counted, not the framing (40960 bytes)"
is "$($BODYC expect "$A" 1024)" "statuses=100,200 ok=1" "Expect: 100-continue: 100 before the body, then 200"
is "$(kv ok "$($BODYC pipeline "$A" 100 1024)")" 100 "100 POSTs (every other one chunked) in one write: 100 x 200"
is "$(stats requests_parsed)/$(body_counts)" "141/144384/141/0/0/0" "pipelined: 141 requests, 141 KiB exactly"

# Bodies of another length than --expect-body: answered, counted apart.
is "$(kv ok "$($BODYC cl "$A" 3 1000 1 0)")/$(kv ok "$($BODYC chunked "$A" 2 1100 2 0)")" 3/2 \
    "1000-byte and 1100-byte bodies answered 200"
"$CLIENT" keepalive "$A" 1 >/dev/null
is "$(kv ok "$($BODYC cl "$A" 1 153600 10 1)")" 1 "a 150 KiB body (more than one 64 KiB read), 10 pieces: 200"
is "$(stats requests_parsed)/$(body_counts)" "148/$((144384 + 3000 + 2200 + 153600))/147/7/0/0" \
    "3 + 2 + 1 + 1 mismatches (1000, 1100, a GET's none, 150 KiB); the GET has no body"

# A body that never ends: 500 of 1024 bytes, nothing answered, then FIN or reset.
is "$($BODYC never "$A" 1024 500 fin)" "statuses=none ok=0" "500 of 1024 body bytes: no answer while the body is short"
is "$($BODYC never "$A" 100000 70000 rst)" "statuses=none ok=0" "70000 of 100000 body bytes, then a reset"
settle
is "$(body_counts)" "$((144384 + 3000 + 2200 + 153600 + 500 + 70000))/147/7/0/2" \
    "both short bodies counted in body_short (the bytes read in body_bytes)"
set -- $(stats requests_parsed responses_completed responses_aborted inflight bad_requests connections_open)
is "$*" "148 148 0 0 2 0" "148 requests, 148 responses; nothing aborted or in flight; the 2 cut-off requests bad"
stop_target "$T_PID"

# --- --max-body 1000: 413, counted, the connection closed, the server on ---
start_target max --max-body 1000
A=127.0.0.1:$T_PORT
x400=$(head -c 400 /dev/zero | tr '\0' x)
is "$(kv statuses "$($BODYC raw "$A" 'POST / HTTP/1.1\r\nContent-Length: 1001\r\nExpect: 100-continue\r\n\r\n')")" 413 \
    "Content-Length 1001 with Expect: 100-continue: 413, no 100"
is "$(kv statuses "$($BODYC raw "$A" 'POST / HTTP/1.1\r\nContent-Length: 5000\r\n\r\nhelloGET / HTTP/1.1\r\n\r\n')")" 413 \
    "Content-Length 5000: 413 and closed (the request after it not answered)"
is "$(kv statuses "$($BODYC raw "$A" "POST / HTTP/1.1\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n190\\r\\n$x400\\r\\n190\\r\\n$x400\\r\\n190\\r\\n$x400\\r\\n0\\r\\n\\r\\n")")" 413 \
    "chunked, three chunks of 400: 413 at the third chunk's size line"
is "$(kv statuses "$($BODYC raw "$A" 'GET / HTTP/1.1\r\n\r\nPOST / HTTP/1.1\r\nContent-Length: 2000\r\n\r\n')")" 200,413 \
    "a GET then a body over the limit, pipelined: 200, 413"
is "$(kv ok "$($BODYC cl "$A" 1 1000 1 0)")" 1 "a body of exactly --max-body: 200"
is "$(kv statuses "$($BODYC raw "$A" 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n')")" 400 \
    "a malformed chunk after a good one: 400"
settle
is "$(body_counts)" "1803/1/0/4/0" "4 bodies refused (body_too_large); 800 + 1000 + 3 bytes read (the 3 before the bad chunk too)"
is "$(stats requests_parsed bad_requests responses_completed inflight | tr '\n' /)" "2/5/2/0/" \
    "413s and the malformed body are bad requests, never parsed ones; nothing in flight"
is "$(kv ok "$("$CLIENT" keepalive "$A" 100)")" 100 "lb-target serves on after the 413s"
stop_target "$T_PID"

# --- a delay: bodies on the delayed path, pipelined ---
start_target delay --delay 5ms --expect-body 1024
is "$(kv ok "$($BODYC pipeline "127.0.0.1:$T_PORT" 50 1024)")" 50 "--delay 5ms: 50 pipelined POSTs answered"
is "$(stats requests_parsed responses_completed inflight | tr '\n' /)$(body_counts)" "50/50/0/51200/50/0/0/0" \
    "--delay 5ms: 50 requests, 51200 body bytes, all answered"
stop_target "$T_PID"

# --- HTTP/2 (h2c): DATA counted, 413 over --max-body, streams cut mid-body ---
H2LOAD=$(command -v h2load || true)
CURL=$(command -v curl || true)
if [ -z "$H2LOAD" ] || [ -z "$CURL" ]; then
    skip "h2load or curl is not installed (Debian nghttp2-client, curl): HTTP/2 bodies not tested"
    done_testing
    exit
fi
head -c 1024 /dev/zero >"$tmp/b1024"
head -c 1000 /dev/zero >"$tmp/b1000"
head -c 102400 /dev/zero >"$tmp/b100k"
start_target h2 --http2 --max-body 64KiB --expect-body 1024
U=http://127.0.0.1:$T_PORT/
"$H2LOAD" -n 200 -c 2 -m 4 -d "$tmp/b1024" "$U" >"$tmp/h2load.out" 2>&1 || true
is "$(sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' "$tmp/h2load.out")" 200 "h2: h2load -d 1 KiB, 200 streams: 200 succeeded"
is "$(stats requests_parsed responses_completed h2.streams.completed | tr '\n' /)$(body_counts)" "200/200/200/204800/200/0/0/0" \
    "h2: 200 requests, 204800 DATA bytes, each body 1024"
is "$("$CURL" -s -o /dev/null -w '%{http_code}' --http2-prior-knowledge --data-binary @"$tmp/b1000" "$U")" 200 \
    "h2: curl POST of 1000 bytes: 200"
is "$(stats requests_parsed)/$(body_counts)" "201/205800/201/1/0/0" "h2: the 1000-byte body mismatched"
$HOSTILE bodyshort "127.0.0.1:$T_PORT" 40000 >/dev/null
$HOSTILE bodyreset "127.0.0.1:$T_PORT" 1000 >/dev/null
settle
is "$(body_counts)" "246800/201/1/0/2" "h2: a body cut by the connection's end and one by RST_STREAM: body_short 2"
is "$("$CURL" -s -o /dev/null -w '%{http_code}' --http2-prior-knowledge --data-binary @"$tmp/b100k" "$U")" 413 \
    "h2: a 100 KiB body over --max-body 64KiB: 413"
settle
set -- $(stats body_bytes body_too_large bad_requests requests_parsed responses_completed inflight)
ok $([ "$1" -gt $((246800 + 65536)) ] && [ "$1" -le $((246800 + 102400)) ] && echo 0 || echo 1) \
    "h2: the refused body's DATA counted up to the refusal ($(($1 - 246800)) bytes, more than 64 KiB)"
is "$2/$3/$4/$5/$6" "1/1/201/201/0" "h2: the 413 counted (body_too_large, bad), never as a request; nothing in flight"
is "$(sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' "$tmp/h2load.out")" 200 "h2: lb-target still up"
"$H2LOAD" -n 100 -c 1 "$U" >"$tmp/h2load2.out" 2>&1 || true
is "$(sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' "$tmp/h2load2.out")/$(stats body_mismatch)" 100/101 \
    "h2: 100 GETs served after it, each a mismatch (no body against 1024)"
stop_target "$T_PID"
done_testing
