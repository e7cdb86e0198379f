#!/bin/sh
# lb-target's GET /arrivals: every request parsed lands in one 1 ms bin of
# the window asked, and every closed connection in its requests-per-
# connection bucket: 300 keep-alive requests on one connection, 40 new
# connections of one request each; the bins sum to 340 and nothing lands
# outside the window; a window the ring cannot hold, or the wrong method,
# is refused with a sentence.
set -eu
. "$(dirname "$0")/target-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps test)"

ctl() { "$CLIENT" control "127.0.0.1:$T_CTL" "$@"; }
start_target a
t0=$(stats now_ns)
"$CLIENT" keepalive "127.0.0.1:$T_PORT" 300 >/dev/null
"$CLIENT" newconn "127.0.0.1:$T_PORT" 40 >/dev/null
t1=$(stats now_ns)
ctl GET "/arrivals?from_ns=$t0&to_ns=$t1" >"$tmp/a.json"
is "$(jq '.bins | add' "$tmp/a.json")" 340 "the bins of the window sum to the 340 requests sent in it"
is "$(jq '.bin_ms' "$tmp/a.json")" 1 "... in 1 ms bins"
is "$(jq -c '[.requests_per_connection[] | select(.[0] == 1)] | .[0]' "$tmp/a.json")" "[1,1,40]" \
    "40 connections carried one request each"
is "$(jq -c '[.requests_per_connection[] | select(.[0] == 256)] | .[0]' "$tmp/a.json")" "[256,511,1]" \
    "one connection carried 256-511 (300)"
t2=$(stats now_ns)
ctl GET "/arrivals?from_ns=$t1&to_ns=$t2" >"$tmp/b.json"
is "$(jq '.bins | add' "$tmp/b.json")" 0 "a later window with no request holds none"
far=$((t0 + 300000000000))
out=$("$CLIENT" raw "127.0.0.1:$T_CTL" "GET /arrivals?from_ns=$t0&to_ns=$far HTTP/1.1\r\nHost: t\r\n\r\n" | tr -d '\r' | tail -1)
case "$out" in *"longer than the arrivals ring"*) r=0 ;; *) r=1 ;; esac
ok $r "a 300 s window is refused: $out"
out=$("$CLIENT" raw "127.0.0.1:$T_CTL" "GET /arrivals?since=1 HTTP/1.1\r\nHost: t\r\n\r\n" | tr -d '\r' | tail -1)
case "$out" in *"from_ns=A&to_ns=B"*) r=0 ;; *) r=1 ;; esac
ok $r "a bad query says how to ask: $out"
done_testing
