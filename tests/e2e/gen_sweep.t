#!/bin/sh
# lb-gen delivers the connections it is asked for, or says it did not and
# fails: never a clean run with fewer. Levels 1, 1,000, 10,000 and the most
# `ulimit -n` allows (each process has its own limit; 64 descriptors are
# left for lb-gen's and lb-target's own files, and never more than the
# ephemeral ports). At 17,000-19,936 lb-gen used to open 512 connections
# and exit 0. Each level either ends 0 with every connection open at once
# (lb-target's connections_open_max for the level agrees) or ends 3 with
# an "error". Then a server that never accepts must give exit 3.
set -eu
. "$(dirname "$0")/gen-lib.sh"

hard=$(ulimit -Hn)
[ "$hard" = unlimited ] && hard=1048576
set -- $(cat /proc/sys/net/ipv4/ip_local_port_range)
ports=$(($2 - $1 + 1))
top=$((hard - 64))
[ "$top" -le $((ports - 64)) ] || top=$((ports - 64))
diag "ulimit -Hn $hard, $ports ephemeral ports: top level $top"

start_target sweep
for n in 1 1000 10000 "$top"; do
    ctl "$T_CTL" POST /window >/dev/null
    rc=0
    timeout -s KILL 60 "$GEN" --quiet -c "$n" -d 1s --json "$tmp/c$n.json" "$T_URL" 2>"$tmp/c$n.err" || rc=$?
    ctl "$T_CTL" GET /stats >"$tmp/s$n.json"
    server=$(jget "$tmp/s$n.json" window.connections_open_max)
    set -- $(jget "$tmp/c$n.json" connections.asked connections.max_open requests.completed) "$(jget "$tmp/c$n.json" error)"
    if [ "$rc" = 0 ]; then
        # The probe connection may still be open when the load's arrive: n+1.
        check "-c $n: exit 0 with $2 of $1 open at once, server saw $server, error $4, $3 completed" \
            [ "$1" = "$n" -a "$2" = "$n" -a "$server" -ge "$n" -a "$server" -le $((n + 1)) -a "$4" = null -a "$3" -gt 0 ]
    else
        diag "$(cat "$tmp/c$n.err")"
        check "-c $n: exit $rc (3) with an error ($4), $2 of $1 open at once" \
            [ "$rc" = 3 -a "$4" != null -a "$2" -lt "$1" ]
    fi
done
stop_target "$T_PID"

# A server whose backlog is full and never accepts: a few handshakes
# complete in its kernel, the rest never do.
start_faults no-accept
rc=0
"$GEN" --quiet -c 50 -d 1s --timeout 500ms --json "$tmp/na.json" "$F_URL" 2>"$tmp/na.err" || rc=$?
faults_stop no-accept
set -- $(jget "$tmp/na.json" connections.asked connections.max_open connections.unfinished)
check "never accepted: exit 3 ($rc), only $2 of $1 open at once, $3 still connecting at the end" \
    [ "$rc" = 3 -a "$1" = 50 -a "$2" -lt 10 -a "$3" -gt 0 ]
naerr=$(jget "$tmp/na.json" error)
check "the error says so in the JSON ($naerr) and on stderr" \
    sh -c "[ '$naerr' != null ] && grep -q 'connections asked for were open at once' '$tmp/na.err'"
done_testing
