#!/bin/sh
# lb-target counts exactly: 100,000 requests each over keep-alive,
# pipelining and a new connection per request (all at once), and reading
# the control channel changes no count; SIGTERM writes the final stats.
set -eu
. "$(dirname "$0")/target-lib.sh"

start_target t --body 800B --stats-out "$tmp/final.json"
A=127.0.0.1:$T_PORT
N=100000

# The three modes at once; keep-alive over 4 connections and new
# connections from 2 clients, so the whole run takes seconds.
clients=""
for i in 1 2 3 4; do "$CLIENT" keepalive "$A" $((N / 4)) >"$tmp/ka$i" & clients="$clients $!"; done
"$CLIENT" pipeline "$A" $N 16 >"$tmp/pipe" & clients="$clients $!"
for i in 1 2; do "$CLIENT" newconn "$A" $((N / 2)) >"$tmp/nc$i" & clients="$clients $!"; done
track $clients
wait_ok=0
for j in $clients; do wait "$j" || wait_ok=1; done
ok $wait_ok "every client got only 200 responses"
ka=0; for i in 1 2 3 4; do ka=$((ka + $(kv ok "$(cat "$tmp/ka$i")"))); done
nc=0; for i in 1 2; do nc=$((nc + $(kv ok "$(cat "$tmp/nc$i")"))); done
pipe=$(kv ok "$(cat "$tmp/pipe")")
is "$ka" $N "keep-alive client received $N responses"
is "$pipe" $N "pipelined client (depth 16) received $N responses"
is "$nc" $N "new-connection clients received $N responses"

set -- $(stats responses_completed requests_parsed bad_requests inflight responses_aborted connections_accepted connections_open)
is "$1" $((3 * N)) "server responses_completed = $((3 * N)) exactly"
is "$2" $((3 * N)) "server requests_parsed = $((3 * N)) exactly"
is "$3" 0 "no bad requests"
is "$4/$5" "0/0" "nothing in flight, nothing aborted"
is "$6" $((4 + 1 + N)) "connections_accepted = clients' connections (control ones not counted)"
is "$7" 0 "no connection left open"

# Control reads change nothing.
before=$(stats connections_accepted requests_parsed responses_completed bytes_in bytes_out | tr '\n' ' ')
for i in 1 2 3 4 5; do stats >/dev/null; done
"$CLIENT" control "127.0.0.1:$T_CTL" GET "/series?since=0" >/dev/null
"$CLIENT" control "127.0.0.1:$T_CTL" POST /window >/dev/null
after=$(stats connections_accepted requests_parsed responses_completed bytes_in bytes_out | tr '\n' ' ')
is "$after" "$before" "reading /stats, /series and POST /window change no count"

# The per-second series adds up to the totals.
series=$("$CLIENT" control "127.0.0.1:$T_CTL" GET "/series?since=0" seconds)
sum=$(echo "$series" | tr '{' '\n' | sed -n 's/.*"completions":\([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s}')
is "$sum" $((3 * N)) "per-second completions add up to the total"

# A new window sees only what came after it.
"$CLIENT" control "127.0.0.1:$T_CTL" POST /window >/dev/null
"$CLIENT" keepalive "$A" 1000 >/dev/null
set -- $(stats window.server_time_ns.count server_time_ns.count)
is "$1" 1000 "window histogram counts only requests since POST /window"
is "$2" $((3 * N + 1000)) "total histogram counts every request"

kill -TERM "$T_PID"
rc=0; wait "$T_PID" || rc=$?
is "$rc" 0 "SIGTERM: exit status 0"
got=$(sed -n 's/.*"responses_completed":\([0-9]*\).*/\1/p' "$tmp/final.json")
is "$got" $((3 * N + 1000)) "SIGTERM: final stats written to --stats-out"

# Responses far larger than a socket buffer (partial writes, held output,
# reads paused meanwhile) are counted exactly too.
start_target big --body 256KiB
r=0
"$CLIENT" pipeline "127.0.0.1:$T_PORT" 2000 16 >/dev/null || r=1
"$CLIENT" keepalive "127.0.0.1:$T_PORT" 500 >/dev/null || r=1
ok $r "256 KiB bodies: pipelined and keep-alive clients got every response"
set -- $(stats responses_completed responses_aborted inflight)
is "$1/$2/$3" "2500/0/0" "256 KiB bodies: 2500 responses counted, none aborted or left in flight"
done_testing
