#!/bin/sh
# lb-target's control channel serves its connections side by side: 100
# silent connections held open on the control port do not delay GET /stats
# (each read answers promptly), the server holds at most 64 of them, and it
# closes each after 5 s without progress.
set -eu
. "$(dirname "$0")/target-lib.sh"
HOSTILE=$LB_BUILD/tests/progs/hostile-client
[ -x "$HOSTILE" ] || skip_all "$HOSTILE not built (run make)"
SILENT=100
MAX_CONNS=64     # CONTROL_MAX_CONNS in targets/server.c
# A read is a fork and exec of target-client plus one round trip: ~2-5 ms
# measured, tens of ms on a loaded 2-core machine. Before, each silent
# connection ahead held the channel for 2 s.
BOUND_MS=500

# read_stats N: N reads of GET /stats, one after the other; sets WORST_MS
# (the slowest) and READ_OK (how many answered with a count).
read_stats() {
    WORST_MS=0 READ_OK=0
    for _ in $(seq "$1"); do
        t0=$(date +%s%N)
        v=$(stats requests_parsed 2>/dev/null) || v=
        ms=$((($(date +%s%N) - t0) / 1000000))
        [ "$ms" -le "$WORST_MS" ] || WORST_MS=$ms
        case "$v" in [0-9]*) READ_OK=$((READ_OK + 1)) ;; esac
    done
}

start_target c
fd0=$(nfds)
read_stats 20
diag "20 reads of /stats alone: slowest $WORST_MS ms"

mkfifo "$tmp/go"
"$HOSTILE" silent "127.0.0.1:$T_CTL" $SILENT <"$tmp/go" >"$tmp/silent.out" &
spid=$!
track $spid
exec 3>"$tmp/go"
wait_line '^silent' "$tmp/silent.out"
is "$(head -n1 "$tmp/silent.out")" "silent conns=$SILENT" "$SILENT silent connections open on the control port"
read_stats 20
diag "20 reads of /stats beside $SILENT silent connections: slowest $WORST_MS ms"
is "$READ_OK" 20 "every GET /stats answered beside $SILENT silent connections"
ok $(lt "$WORST_MS" $BOUND_MS) "each answered promptly: slowest $WORST_MS ms < $BOUND_MS ms"
held=$(($(nfds) - fd0))
ok $([ "$held" -le $MAX_CONNS ] && echo 0 || echo 1) "the server holds $held control connections: at most $MAX_CONNS"

# Silent connections are closed after 5 s without progress.
i=0
while [ "$(nfds)" -gt "$fd0" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
is "$(nfds)" "$fd0" "every silent connection closed by the server within 10 s (fds back to $fd0)"
echo go >&3
exec 3>&-
wait $spid
line=$(tail -n1 "$tmp/silent.out")
is "$(kv closed_by_server "$line")" $SILENT "the silent clients saw their connections closed ($line)"
is "$(stats connections_accepted)" 0 "nothing on the control port was counted"
done_testing
