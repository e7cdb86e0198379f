#!/bin/sh
# lb-gen closed model: its completed count equals lb-target's
# responses_completed exactly, at 1, 10, 200 and 2000 connections and with
# Connection: close; the JSON summary carries the lb-gen/1 schema.
set -eu
. "$(dirname "$0")/gen-lib.sh"

start_target counts --threads 1
tp=$T_PID
before=0
for c in 1 10 200 2000; do
    d=1s
    [ "$c" = 2000 ] && d=1500ms
    "$GEN" --quiet -c "$c" -d "$d" --json "$tmp/c$c.json" --percentiles "$tmp/p$c.txt" "$T_URL" 2>"$tmp/c$c.err" ||
        { ok 1 "lb-gen ran at $c connections: $(cat "$tmp/c$c.err")"; continue; }
    after=$(served "$T_CTL")
    set -- $(jget "$tmp/c$c.json" requests.completed requests.sent errors.total connections.opened connections.max_open)
    server=$((after - before))
    before=$after
    check "$c connections: lb-gen completed $1 == server responses_completed $server" [ "$1" = "$server" ]
    check "$c connections: sent $2 == completed $1, no errors ($3)" [ "$2" = "$1" -a "$3" = 0 ]
    check "$c connections: opened $4, at most $5 open" [ "$4" = "$c" -a "$5" = "$c" ]
    check "$c connections: some load went through ($1 requests)" [ "$1" -gt "$c" ]
done

# The full distribution ends at the total count and the exact maximum.
set -- $(jget "$tmp/c10.json" requests.completed latency_ms.max)
last=$(grep -v '^#' "$tmp/p10.txt" | awk 'NF == 4 { v = $1; n = $3 } END { print v, n }')
check "--percentiles: last bucket ($last) is the max $2 ms and the total $1" \
    [ "$last" = "$(printf '%.6f %s' "$2" "$1")" ]

# Two threads share the connections; the counts stay exact.
"$GEN" --quiet -t 2 -c 11 -d 1s --json "$tmp/t2.json" "$T_URL"
after=$(served "$T_CTL")
set -- $(jget "$tmp/t2.json" requests.completed connections.max_open errors.total)
check "2 threads x 11 connections: completed $1 == server $((after - before)), $2 open, errors $3" \
    [ "$1" = "$((after - before))" -a "$2" = 11 -a "$3" = 0 ]
before=$after

# SIGINT ends the run early, still drained and exact.
"$GEN" --quiet -c 10 -d 20s --json "$tmp/int.json" "$T_URL" &
gp=$!
track $gp
sleep 0.5
kill -INT "$gp"
wait "$gp"
after=$(served "$T_CTL")
set -- $(jget "$tmp/int.json" requests.completed interrupted time.load_s)
early=no
fcmp "$3 < 2" && early=yes
check "SIGINT after 0.5 s: stops (load $3 s), interrupted=$2, completed $1 == server $((after - before))" \
    [ "$1" = "$((after - before))" -a "$2" = true -a "$1" -gt 0 -a "$early" = yes ]
before=$after

# The per-second series adds up to the whole.
sum=$(perl -MJSON::PP -e 'local $/; open my $f, "<", shift; my $j = decode_json(<$f>);
    my $s = 0; $s += $_->{completed} for @{$j->{series}}; print $s' "$tmp/c200.json")
total=$(jget "$tmp/c200.json" requests.completed)
check "series completions add up to the total ($sum == $total)" [ "$sum" = "$total" ]

# Connection: close: one connection per request, counts still exact.
"$GEN" --quiet --close -c 10 -d 1s --json "$tmp/close.json" "$T_URL"
after=$(served "$T_CTL")
set -- $(jget "$tmp/close.json" requests.completed connections.opened errors.total)
check "--close: completed $1 == server $((after - before)), errors $3" [ "$1" = "$((after - before))" -a "$3" = 0 ]
check "--close: a connection per request ($2 opened for $1)" [ "$2" = "$1" ]

# The schema the harness reads.
f=$tmp/c10.json
check "schema is lb-gen/1" [ "$(jget "$f" schema)" = lb-gen/1 ]
check "model is closed" [ "$(jget "$f" model)" = closed ]
missing=""
for k in config.url config.connections config.threads time.start_wall_ms time.end_wall_ms time.start_mono_ns \
    time.load_s requests.ok requests.non2xx errors.connect errors.read errors.write errors.timeout errors.status \
    latency_ms.min latency_ms.mean latency_ms.stddev latency_ms.p50 latency_ms.p90 latency_ms.p95 latency_ms.p99 \
    latency_ms.p999 latency_ms.max connections.closed series.0.t series.0.completed series.0.errors \
    series.0.p50_ms series.0.p99_ms series.0.active_connections duration_s; do
    [ "$(jget "$f" "$k")" = null ] && missing="$missing $k"
done
check "every documented closed-model field is present${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "closed model has no schedule or uncorrected latency" \
    [ "$(jget "$f" schedule latency_uncorrected_ms | tr '\n' ' ')" = "null null " ]

stop_target "$tp"
done_testing
