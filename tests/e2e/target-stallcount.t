#!/bin/sh
# lb-target counts the arrivals around each stall (GET /stalls: before,
# in and after, each window as long as the stall here): a client that
# keeps a 1000 req/s timetable (lb-gen, open model) shows about 200
# arrivals in each of the three 200 ms windows of every stall, and two
# closed-loop connections show at most 2 in a stall (each sends one
# request, held until the stall ends) against some 100s before and after.
set -eu
. "$(dirname "$0")/target-lib.sh"
GEN=$LB_BUILD/bin/lb-gen
[ -x "$GEN" ] || skip_all "$GEN not built (run make)"

# stall_rows FILE: one line "before in after" per complete stall.
stall_rows() {
    perl -MJSON::PP -e 'local $/; my $o = decode_json(<STDIN>);
        print "$_->{before} $_->{in} $_->{after}\n" for grep { !$_->{partial} } @{$o->{stalls}}' <"$1"
}

# --- open: 1000 req/s for 4.5 s through 200 ms stalls every 1 s ---
start_target open --delay 1ms --stall-every 1s --stall-for 200ms
"$GEN" -R 1000 --max-inflight 400 -d 4500ms -q --json "$tmp/open.json" "http://127.0.0.1:$T_PORT/" >/dev/null
"$CLIENT" control "127.0.0.1:$T_CTL" GET /stalls >"$tmp/open.stalls"
is "$(perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{window_ns}' <"$tmp/open.stalls")" 200000000 \
    "the windows before and after a stall are as long as the stall (200 ms, shorter than the gap)"
stall_rows "$tmp/open.stalls" >"$tmp/open.rows"
diag "open, 1000 req/s (before in after per stall): $(tr '\n' ',' <"$tmp/open.rows")"
# The first stall's before window holds lb-gen's start; the last complete
# ones are whole load. About 200 each; 150-250 leaves room for a late
# start or end inside a window, none for a window of the wrong length.
n=$(awk '$1 >= 150 && $1 <= 250 && $2 >= 150 && $2 <= 250 && $3 >= 150 && $3 <= 250' "$tmp/open.rows" | wc -l)
ok $([ "$n" -ge 2 ] && echo 0 || echo 1) "$n stalls with about 200 arrivals before, in and after each (1000 req/s x 200 ms)"
stop_target "$T_PID"

# --- closed: 2 connections through the same stalls ---
start_target closed --delay 1ms --stall-every 1s --stall-for 200ms
"$GEN" -c 2 -d 3500ms -q --json "$tmp/closed.json" "http://127.0.0.1:$T_PORT/" >/dev/null
"$CLIENT" control "127.0.0.1:$T_CTL" GET /stalls >"$tmp/closed.stalls"
stall_rows "$tmp/closed.stalls" >"$tmp/closed.rows"
diag "closed, 2 connections (before in after per stall): $(tr '\n' ',' <"$tmp/closed.rows")"
ok $([ "$(wc -l <"$tmp/closed.rows")" -ge 2 ] && echo 0 || echo 1) "two complete stalls or more"
is "$(awk '$2 > 2' "$tmp/closed.rows" | wc -l | tr -d ' ')" 0 "2 closed connections: at most 2 arrivals in any stall"
n=$(awk '$1 >= 50 && $3 >= 50' "$tmp/closed.rows" | wc -l)
ok $([ "$n" -ge 2 ] && echo 0 || echo 1) "... against 50 and more before and after ($n stalls)"
stop_target "$T_PID"
done_testing
