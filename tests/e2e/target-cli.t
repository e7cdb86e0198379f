#!/bin/sh
# lb-target's command line: the first stdout line, a busy port (exit 2, one
# line), bad arguments (exit 2, one line), --help, SIGINT/SIGTERM with the
# final stats on stdout, the control channel's answers.
set -eu
. "$(dirname "$0")/target-lib.sh"

start_target t --delay 5ms --work 1us --body 100B --threads 2
line=$(head -n1 "$tmp/t.out")
r=0; echo "$line" | grep -q '^{"event":"listening","port":[0-9]*,"control_port":[0-9]*,"pid":'"$T_PID"',"threads":2,"delay_ns":5000000,"work_ns":1000,"body_bytes":100,"delay":{"dist":"fixed","delay_ns":5000000}}$' || r=1
ok $r "first line is the listening event with ports, pid, threads, delay, work, body, latency shape"

# A busy port: exit 2 and a single line naming the problem.
rc=0; "$TARGET" --port "$T_PORT" --control-port 0 >"$tmp/busy.out" 2>"$tmp/busy.err" || rc=$?
is "$rc" 2 "port in use: exit status 2"
is "$(wc -l <"$tmp/busy.err" | tr -d ' ')" 1 "port in use: one line on stderr"
r=0; grep -q "already in use" "$tmp/busy.err" || r=1; ok $r "port in use: says so ($(cat "$tmp/busy.err"))"
rc=0; "$TARGET" --port 0 --control-port "$T_CTL" >/dev/null 2>"$tmp/busy2.err" || rc=$?
is "$rc" 2 "control port in use: exit status 2"
# Port 0 with none left to pick says so, not "port 0 is in use": in a
# network namespace of its own (root) whose ephemeral range is 2 ports.
if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
    rc=0
    timeout 30 unshare -n sh -c '
        ip link set lo up 2>/dev/null || true
        echo "40000 40001" >/proc/sys/net/ipv4/ip_local_port_range
        "$1" --port 0 --control-port 0 --exit-with-parent >"$2.first" 2>&1 &
        i=0; until grep -q listening "$2.first" || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.05; done
        rc=0; timeout 10 "$1" --port 0 --control-port 0 2>"$2" || rc=$?
        kill $!; wait $! 2>/dev/null; exit $rc' - "$TARGET" "$tmp/noport.err" || rc=$?
    is "$rc" 2 "no free port to pick: exit status 2"
    check "and says the range is used up ($(cat "$tmp/noport.err"))" grep -q "no free port on 127.0.0.1 to pick" "$tmp/noport.err"
else
    skip "no free port to pick: needs root and unshare -n"
    skip "and says the range is used up"
fi

for args in "--delay 20" "--delay-dist gauss" "--delay-mean 5ms" "--stall-every 1s" "--seed x" "--body lots" "--threads 0" "--port 70000" "--bogus" "--cpus x" "extra"; do
    rc=0; "$TARGET" --port 0 --control-port 0 $args >/dev/null 2>"$tmp/bad.err" || rc=$?
    is "$rc:$(wc -l <"$tmp/bad.err" | tr -d ' ')" "2:1" "bad argument '$args': exit 2, one line ($(cat "$tmp/bad.err"))"
done
r=0; "$TARGET" --help | grep -q -- '--control-port' || r=1; ok $r "--help lists the options"

# Two threads: requests spread, counts still exact.
clients=""
for i in 1 2 3 4; do "$CLIENT" pipeline "127.0.0.1:$T_PORT" 500 4 >/dev/null & clients="$clients $!"; done
track $clients
r=0; for j in $clients; do wait "$j" || r=1; done
ok $r "two worker threads: four pipelining clients served"
is "$(stats responses_completed)" 2000 "two worker threads: 2000 responses counted"

is "$("$CLIENT" control "127.0.0.1:$T_CTL" GET /health status)" '"ok"' "GET /health"
"$CLIENT" control "127.0.0.1:$T_CTL" GET /stats >"$tmp/stats.json"
for f in now_ns started_ns connections_accepted connections_open connections_closed connections_open_max \
         closed_unread requests_parsed responses_completed bad_requests bytes_in bytes_out inflight \
         inflight_max server_time_ns window; do
    grep -q "\"$f\":" "$tmp/stats.json" || { echo "# missing $f"; missing=1; }
done
ok ${missing:-0} "GET /stats has every contract field"
"$CLIENT" control "127.0.0.1:$T_CTL" GET "/series?since=0" >"$tmp/series.json"
r=0; grep -q '"seconds":\[{"t":0,"completions":' "$tmp/series.json" || r=1; ok $r "GET /series?since=0 lists seconds from 0"

kill -INT "$T_PID"
rc=0; wait "$T_PID" || rc=$?
is "$rc" 0 "SIGINT: exit 0"
last=$(tail -n1 "$tmp/t.out")
r=0; case "$last" in *'"responses_completed":2000,'*'"event":"stopped"'*) ;; *) r=1 ;; esac
ok $r "SIGINT: final stats on stdout"
done_testing
