#!/bin/sh
# lb-gen against lb-target --delay 20ms: one connection measures p50 within
# 0.3 ms of 20 ms; a ramp 0→100→0 of connections shows in the server's
# per-second in-flight maximum; ramp-down leaves nothing unread.
set -eu
. "$(dirname "$0")/gen-lib.sh"

# The precision check: other work on a shared machine keeps a woken thread
# off the CPU for milliseconds (p50 22.7 ms seen at load 19 under a CPU
# burner), which is not lb-gen's doing. So, as in target-delay.t, server and
# lb-gen (every run here) are at a real-time priority where we may (root,
# chrt present), and the figure is the best of up to 3 runs (the p50 closest to 20 ms: noise
# only adds latency; a generator that is off every time still fails).
rt=""
if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null 2>&1 && chrt -f 10 true 2>/dev/null; then
    rt="chrt -f 10"
    diag "server and lb-gen at SCHED_FIFO 10"
fi
TARGET_WRAP=$rt start_target delay --delay 20ms
before=0 best="" counts=""
for r in 1 2 3; do
    $rt "$GEN" --quiet -c 1 -d 2s --json "$tmp/one$r.json" "$T_URL"
    now=$(served "$T_CTL")
    set -- $(jget "$tmp/one$r.json" latency_ms.p50 requests.completed)
    diag "run $r: p50 $1 ms, completed $2, server $((now - before))"
    [ "$2" = "$((now - before))" ] || counts="$counts run $r: $2 != $((now - before));"
    before=$now
    { [ -z "$best" ] || fcmp "abs($1 - 20) < abs($best - 20)"; } && best=$1
    fcmp "abs($1 - 20) <= 0.3" && break
done
check "1 connection, 20 ms delay: p50 $best ms within 0.3 ms of 20 (the best of $r run(s), 3 at most)" fcmp "abs($best - 20) <= 0.3"
check "1 connection: completed == the server's count in every run${counts:+ ($counts)}" [ -z "$counts" ]

ctl "$T_CTL" GET /stats >"$tmp/s0.json"
# (lb-gen at real-time priority too, where we may: at load 29 an lb-gen
# kept off the CPU held 39 of its 100 connections in flight in a hold
# second, which is not the ramp's doing.)
$rt "$GEN" --quiet --stages 2s:100,2s:100,2s:0 --json "$tmp/ramp.json" "$T_URL"
after=$(served "$T_CTL")
set -- $(jget "$tmp/ramp.json" requests.completed errors.total connections.max_open)
check "ramp: completed $1 == server $((after - before)), errors $2" [ "$1" = "$((after - before))" -a "$2" = 0 ]
check "ramp: at most $3 connections open" [ "$3" -ge 98 -a "$3" -le 100 ]
ctl "$T_CTL" GET "/series?since=0" >"$tmp/series.json"

# For each server second inside the run, the stage level's maximum over that
# second (clock offsets from both sides' CLOCK_MONOTONIC starts) against the
# server's in-flight maximum.
perl -MJSON::PP -e '
    sub load { local $/; open my $f, "<", shift or die; decode_json(<$f>) }
    my ($g, $s) = (load($ARGV[0]), load($ARGV[1]));
    my $g0 = $g->{time}{start_mono_ns};
    # k6 stepping: up floor(level), down ceil(level)
    sub count { my $t = shift; return $t < 0 ? 0 : $t < 2 ? int(50 * $t) : $t < 4 ? 100 : $t < 6 ? -int(-(100 - 50 * ($t - 4))) : 0 }
    my ($bad, $n) = (0, 0);
    for my $row (@{$s->{seconds}}) {
        my $a = ($s->{start_ns} + $row->{t} * 1e9 - $g0) / 1e9;
        my $b = $a + 1;
        next if $a < 0 || $b > 6;
        my $want = 0;
        for (my $t = $a; $t <= $b + 1e-9; $t += 0.01) { my $l = count($t); $want = $l if $l > $want }
        my $got = $row->{inflight_max};
        my $okk = abs($got - $want) <= 5 + 0.05 * $want;
        $n++; $bad++ unless $okk;
        printf "# server second %d = run %.2f..%.2f s: in-flight max %d, stages say %d%s\n",
            $row->{t}, $a, $b, $got, $want, $okk ? "" : "  <-- off";
    }
    exit($n >= 4 && !$bad ? 0 : 1);' "$tmp/ramp.json" "$tmp/series.json" >"$tmp/cmp.txt" && rc=0 || rc=$?
cat "$tmp/cmp.txt"
ok "$rc" "server per-second in-flight follows the stages 0→100→0 (within 5 + 5 %)"

# Open model: 2000/s against 20 ms needs ~40 requests in flight; starting
# from 2 connections the pool grows on demand under --max-inflight 100.
before=$after
# (At real-time priority too: an lb-gen kept off the CPU for tens of ms
# reads late, holds more in flight and hits the cap - 13 cap hits seen
# under a CPU burner at load 19, the pool at 100 - not the pool's doing.)
$rt "$GEN" --quiet --rate 2000 -d 1s -c 2 --max-inflight 100 --json "$tmp/grow.json" "$T_URL"
after=$(served "$T_CTL")
set -- $(jget "$tmp/grow.json" requests.completed connections.max_open schedule.inflight_cap_hits schedule.dropped)
# (An arrival still waiting for a new handshake when the time is up is
# dropped: allow a few.)
check "pool grows from 2 to $2 (<= 100) for 2000/s x 20 ms: $1 completed == server $((after - before)), no cap hits ($3), $4 dropped" \
    [ "$1" = "$((2000 - $4))" -a "$4" -le 5 -a "$1" = "$((after - before))" -a "$2" -ge 40 -a "$2" -le 100 -a "$3" = 0 ]

# lb-gen's own series shows the ramp too.
act=$(perl -MJSON::PP -e 'local $/; open my $f, "<", shift; my $j = decode_json(<$f>);
    print join(" ", map { $_->{active_connections} } @{$j->{series}})' "$tmp/ramp.json")
diag "lb-gen active connections per second: $act"
check "lb-gen series: ~50 open after 1 s, 100 during the hold, ~0 at the end ($act)" \
    perl -e '@a = @ARGV; exit(abs($a[0] - 50) <= 3 && $a[2] == 100 && $a[3] == 100 && $a[5] <= 3 ? 0 : 1)' $act
done_testing
