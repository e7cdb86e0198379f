#!/bin/sh
# lb-target answers malformed, oversized and partial requests with 400/431,
# counts them as bad, and a well-behaved client on another connection is
# unaffected and counted exactly. Also: HTTP/1.0, Connection: close,
# request bodies (Content-Length and chunked), pipelining in order.
# lb-test: shared (counts and statuses; its one time bound, 5 s for a close the client would wait 10 s for, is far from the ms it takes)
set -eu
. "$(dirname "$0")/target-lib.sh"

start_target t --body 64B
A=127.0.0.1:$T_PORT
GOOD=30000

"$CLIENT" keepalive "$A" $GOOD >"$tmp/good" 2>&1 &
good_pid=$!
track $good_pid

# raw TEXT...: what the server answers (status lines only).
# (Bodies do not end in a newline: find status lines anywhere.)
statuses() { "$CLIENT" raw "$A" "$@" | grep -ao 'HTTP/1\.1 [0-9]*' | cut -d' ' -f2 | tr '\n' ' ' | sed 's/ $//'; }

# A slow client holding half a request while everything else runs.
"$CLIENT" raw "$A" --hold 1500 --shutdown 'GET / HTTP/1.1\r\nHost: slow\r\n' >"$tmp/slow" &
slow_pid=$!
track $slow_pid

is "$(statuses 'GARBAGE\r\n\r\n')" 400 "garbage request line: 400"
is "$(statuses 'GET / HTTP/1.1\r\nNoColon\r\n\r\n')" 400 "header without a colon: 400"
is "$(statuses 'GET / HTTP/3.0\r\n\r\n')" 400 "unsupported version: 400"
# HTTP/0.9 sends no blank line: judged on its request line, answered and
# closed at once (the client here waits for the server's EOF, 10 s at most).
t0=$(date +%s%N)
is "$(statuses 'GET /\r\n')" 400 "HTTP/0.9 request (GET / and CRLF, nothing after): 400"
ok $([ $(( $(date +%s%N) - t0 )) -lt 5000000000 ] && echo 0 || echo 1) "HTTP/0.9 request: answered and closed without waiting for the client"
is "$(statuses 'GARBAGE\r\nHost: x\r\n')" 400 "a bad request line before the head is complete: 400"
is "$(statuses --pad 16384 'GET / HTTP/1.1\r\nHost: x\r\n\r\n')" 431 "16 KiB of headers: 431"
is "$(statuses --shutdown 'GET / HTTP/1.1\r\nHost: x\r\n')" 400 "half a request, then EOF: 400"
is "$(statuses 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')" 400 "invalid chunked body: 400"
is "$(statuses 'GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n')" 400 "conflicting Content-Length: 400"
is "$(statuses 'GET / HTTP/1.1\r\n\r\nBAD\r\n\r\nGET / HTTP/1.1\r\n\r\n')" "200 400" "good then bad, pipelined: 200 then 400, then closed"
"$CLIENT" raw "$A" --hold 100 --close 'GET / HTTP/1.1\r\nHost: gone' >/dev/null
ok 0 "half a request, then the client vanishes"
is "$(statuses --hold 300 --shutdown 'POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n')" \
   "100 400" "Expect: 100-continue answered before the body; no body, then EOF: 400"
BAD=13   # the twelve above and the slow client

# Well-formed variants (each counted as a response).
out=$("$CLIENT" raw "$A" 'GET / HTTP/1.0\r\n\r\n')
r=0; { echo "$out" | grep -aq '^HTTP/1.1 200' && echo "$out" | grep -aqi '^connection: close'; } || r=1
ok $r "HTTP/1.0: 200, Connection: close, then closed"
out=$("$CLIENT" raw "$A" --shutdown 'GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n')
r=0; { echo "$out" | grep -aq '^HTTP/1.1 200' && echo "$out" | grep -aqi '^connection: keep-alive'; } || r=1
ok $r "HTTP/1.0 with Connection: keep-alive: 200 and kept alive"
out=$("$CLIENT" raw "$A" 'GET / HTTP/1.1\r\nConnection: close\r\n\r\nGET / HTTP/1.1\r\n\r\n')
is "$(echo "$out" | grep -ao 'HTTP/1.1 200' | wc -l)" 1 "Connection: close honoured (the request after it is not answered)"
is "$(statuses --shutdown 'POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\n\r\n')" "200 200" \
   "Content-Length body read and discarded"
is "$(statuses --shutdown 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n')" 200 \
   "chunked body read and discarded"
is "$(statuses --shutdown 'GET /1 HTTP/1.1\r\n\r\nGET /2 HTTP/1.1\r\n\r\nGET /3 HTTP/1.1\r\n\r\n')" "200 200 200" \
   "three pipelined requests, three responses"
out=$("$CLIENT" raw "$A" --shutdown 'HEAD / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n')
r=0; { [ "$(echo "$out" | grep -ao 'HTTP/1.1 200' | wc -l)" = 2 ] && echo "$out" | grep -aq '^Content-Length: 64'; } || r=1
[ "$(echo "$out" | grep -ao 'lb-target","pad"' | wc -l)" = 1 ] || r=1
ok $r "HEAD: headers only (Content-Length of the GET), then the next response"
is "$(statuses --shutdown 'POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello')" 200 \
   "Expect: 100-continue with the body already sent: just the 200"
VALID=$((1 + 1 + 1 + 1 + 2 + 1 + 3 + 2 + 1))   # incl. the 200 before the pipelined bad one

rc=0; wait "$slow_pid" || rc=$?
is "$(grep -ao 'HTTP/1.1 [0-9]*' "$tmp/slow" | cut -d' ' -f2)" 400 "slow client: 400 once it gave up"
rc=0; wait "$good_pid" || rc=$?
is "$rc" 0 "well-behaved client: all $GOOD responses were 200"
is "$(kv ok "$(tail -n1 "$tmp/good")")" $GOOD "well-behaved client: counted $GOOD"

sleep 0.2   # let the server see the last closes
set -- $(stats bad_requests responses_completed requests_parsed inflight connections_open)
is "$1" $BAD "bad_requests = $BAD"
is "$2" $((GOOD + VALID)) "responses_completed = $((GOOD + VALID)) exactly"
is "$3" $((GOOD + VALID)) "requests_parsed = $((GOOD + VALID)) (bad ones are counted apart)"
is "$4/$5" "0/0" "nothing in flight, no connection left open"
done_testing
