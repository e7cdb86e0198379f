#!/bin/sh
# lb-target --exit-with-parent: started by a shell that is then SIGKILLed,
# lb-target is gone within 2 s and wrote its final stats (as on SIGTERM),
# in both forms (bare, and with the parent's PID as loadbench passes it);
# without the option it outlives the shell (the orphan the option
# prevents); a parent gone before lb-target could watch it (its parent is
# not the PID given) is exit 1 at once; a bad PID is exit 2.
set -eu
. "$(dirname "$0")/target-lib.sh"

# gone PID: true when PID has exited (absent, or a zombie nobody reaped yet).
gone() {
    st=$(sed 's/^.*) //' /proc/"$1"/stat 2>/dev/null | cut -d' ' -f1) || st=
    [ -z "$st" ] || [ "$st" = Z ]
}

# orphaned NAME [lb-target options]: a shell starts lb-target in the
# background (with --exit-with-parent=<the shell's PID> when WITH_PID is
# set) and waits; once lb-target listens, the shell is SIGKILLed. Sets LPID
# and GONE_MS (how long until lb-target was gone; 9999: still there 2 s on).
orphaned() {
    name=$1; shift
    WITH_PID=${WITH_PID:-} sh -c '
        pidfile=$1; shift
        "$@" ${WITH_PID:+--exit-with-parent=$$} & echo $! >"$pidfile"; wait' \
        sh "$tmp/$name.pid" "$TARGET" --port 0 --control-port 0 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    shpid=$!
    track $shpid
    wait_line listening "$tmp/$name.out"
    LPID=$(cat "$tmp/$name.pid")
    track "$LPID"
    t0=$(date +%s%N)
    kill -9 $shpid
    GONE_MS=9999
    for _ in $(seq 40); do
        if gone "$LPID"; then GONE_MS=$((($(date +%s%N) - t0) / 1000000)); break; fi
        sleep 0.05
    done
}

# stopped_clean NAME: its last stdout line is the final stats of a stop
# caused by the parent's exit.
stopped_clean() {
    case "$(tail -n1 "$tmp/$1.out")" in
    *'"event":"stopped"'*'"signal":"SIGTERM"'*'"parent_exited":true'*) echo 0 ;;
    *) echo 1 ;;
    esac
}

orphaned bare --exit-with-parent
diag "--exit-with-parent: lb-target gone $GONE_MS ms after its parent's SIGKILL"
ok $(lt "$GONE_MS" 2000) "--exit-with-parent: lb-target gone within 2 s of its parent's SIGKILL"
ok $(stopped_clean bare) "... it stopped as on SIGTERM: final stats written, parent_exited true"

WITH_PID=1 orphaned pid
diag "--exit-with-parent=PID: lb-target gone $GONE_MS ms after its parent's SIGKILL"
ok $(lt "$GONE_MS" 2000) "--exit-with-parent=<parent's PID>: gone within 2 s of its parent's SIGKILL"
ok $(stopped_clean pid) "... it stopped as on SIGTERM: final stats written, parent_exited true"

orphaned none
ok $([ "$GONE_MS" = 9999 ] && echo 0 || echo 1) "without the option lb-target outlives its SIGKILLed parent (still there after 2 s)"
kill "$LPID" 2>/dev/null || true

# A parent that died before lb-target could watch it: lb-target was
# re-parented already, so its parent is not the PID it was given.
sleep 10 &
other=$!
track $other
rc=0; "$TARGET" --port 0 --control-port 0 --exit-with-parent=$other >"$tmp/race.out" 2>"$tmp/race.err" || rc=$?
is "$rc/$(wc -l <"$tmp/race.out" | tr -d ' ')" "1/0" "--exit-with-parent=<not its parent>: exit 1 at once, nothing served"
r=0; grep -q "parent process $other is gone" "$tmp/race.err" || r=1
ok $r "... one line says why ($(cat "$tmp/race.err"))"
kill $other 2>/dev/null || true

for bad in x 0; do
    rc=0; "$TARGET" --port 0 --control-port 0 --exit-with-parent=$bad >/dev/null 2>"$tmp/bad.err" || rc=$?
    is "$rc:$(wc -l <"$tmp/bad.err" | tr -d ' ')" "2:1" "--exit-with-parent=$bad: exit 2, one line ($(cat "$tmp/bad.err"))"
done
r=0; "$TARGET" --help | grep -q -- '--exit-with-parent' || r=1; ok $r "--help lists --exit-with-parent"
done_testing
