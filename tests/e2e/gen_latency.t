#!/bin/sh
# lb-gen against lb-target --delay 20ms: one connection measures p50 within
# 0.3 ms of 20 ms; a ramp 0→100→0 of connections shows in the server's
# per-second in-flight maximum; ramp-down leaves nothing unread.
set -eu
. "$(dirname "$0")/gen-lib.sh"

start_target delay --delay 20ms
"$GEN" --quiet -c 1 -d 2s --json "$tmp/one.json" "$T_URL"
before=$(served "$T_CTL")
set -- $(jget "$tmp/one.json" latency_ms.p50 requests.completed)
check "1 connection, 20 ms delay: p50 $1 ms within 0.3 ms of 20" fcmp "abs($1 - 20) <= 0.3"
check "1 connection: completed $2 == server $before" [ "$2" = "$before" ]

ctl "$T_CTL" GET /stats >"$tmp/s0.json"
"$GEN" --quiet --stages 2s:100,2s:100,2s:0 --json "$tmp/ramp.json" "$T_URL"
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
"$GEN" --quiet --rate 2000 -d 1s -c 2 --max-inflight 100 --json "$tmp/grow.json" "$T_URL"
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
