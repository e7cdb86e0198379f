#!/bin/sh
# Bad lb-gen command lines fail with one line on stderr, a non-zero exit and
# nothing sent: the target's counters stay at 0.
set -eu
. "$(dirname "$0")/gen-lib.sh"

start_target args
url=$T_URL
start_target gone
gone_url=$T_URL
stop_target "$T_PID"

bad() { # bad DESCRIPTION NEEDLE ARGS...
    d=$1 needle=$2
    shift 2
    rc=0
    "$GEN" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ne 0 ] && [ "$lines" = 1 ] && [ ! -s "$tmp/out" ] && grep -q -- "$needle" "$tmp/err"; then
        ok 0 "$d: $(cat "$tmp/err")"
    else
        ok 1 "$d (rc $rc, $lines stderr lines, stdout $(wc -c <"$tmp/out") bytes): $(cat "$tmp/err")"
    fi
}

bad "zero connections" "--connections" -c 0 -d 1s "$url"
bad "negative rate" "--rate" --rate -5 -d 1s "$url"
bad "zero rate" "--rate" --rate 0 -d 1s "$url"
bad "unparsable duration" "--duration" -c 1 -d 5x "$url"
bad "bare-number duration" "--duration" -c 1 -d 5 "$url"
bad "bad stages" "--stages" --stages 10s "$url"
bad "--expect-status below 100" "--expect-status must be between 100 and 599" --expect-status 99 -c 1 -d 1s "$url"
bad "--expect-status not a number" "--expect-status" --expect-status ok -c 1 -d 1s "$url"
bad "stages and connections" "either" --stages 1s:10 -c 5 "$url"
bad "rate and stages" "--stages" --rate 10 --stages 1s:10 "$url"
bad "duration with stages" "--duration" -d 2s --stages 1s:10 "$url"
bad "pool above the in-flight cap" "--max-inflight" --rate 10 -c 10 --max-inflight 5 -d 1s "$url"
bad "zero timeout" "--timeout" --timeout 0s -c 1 -d 1s "$url"
bad "unknown option" "unknown" --bogus "$url"
bad "no URL" "no URL" -c 1 -d 1s
bad "ftp URL" "only http:// and https://" -c 1 -d 1s "ftp://127.0.0.1:$T_PORT/"
bad "TLS option on an http URL" "need an https:// URL" --cacert /dev/null -c 1 -d 1s "$url"
bad "bad --tls-version" "must be 1.3 or 1.2" --tls-version 1.1 -c 1 -d 1s "https://127.0.0.1:$T_PORT/"
bad "bad --tls-resumption" "must be on or off" --tls-resumption maybe -c 1 -d 1s "https://127.0.0.1:$T_PORT/"
bad "--cacert with --insecure" "either --cacert" --cacert /dev/null --insecure -c 1 -d 1s "https://127.0.0.1:$T_PORT/"
bad "bad --keepalive" "--keepalive must be on or off" --keepalive maybe -c 1 -d 1s "$url"
bad "--keepalive on with --no-keepalive" "contradicts" --keepalive on --no-keepalive -c 1 -d 1s "$url"
bad "bad cpu list" "--cpus" --cpus x -c 1 -d 1s "$url"
bad "unreachable target" "cannot connect" -c 1 -d 1s "$gone_url"
export LB_GEN_PLANT_NS=lots # bench/gate.sh's switch: a bad value is a bad command line
bad "bad LB_GEN_PLANT_NS" "LB_GEN_PLANT_NS" -c 1 -d 1s "$url"
unset LB_GEN_PLANT_NS

start_line=$(head -n 1 "$tmp/args.out")
ctlport=$(echo "$start_line" | sed -n 's/.*"control_port":\([0-9]*\).*/\1/p')
ctl "$ctlport" GET /stats >"$tmp/stats.json"
set -- $(jget "$tmp/stats.json" connections_accepted requests_parsed responses_completed)
check "nothing reached the target (accepted $1, parsed $2, completed $3)" [ "$1" = 0 -a "$2" = 0 -a "$3" = 0 ]

# More threads than connections is not an error: lb-gen uses fewer.
"$GEN" --quiet -t 4 -c 2 -d 200ms --json "$tmp/t4.json" "$url"
set -- $(jget "$tmp/t4.json" config.threads config.threads_requested connections.max_open)
check "--threads 4 with 2 connections runs 2 threads ($1, requested $2, $3 open)" [ "$1" = 2 -a "$2" = 4 -a "$3" = 2 ]

# --json FILE is replaced whole (written beside it, then renamed), never
# truncated and rewritten in place: a file hard-linked to FILE keeps its
# old text, and no FILE.tmp.PID is left.
echo old >"$tmp/keep"
ln "$tmp/keep" "$tmp/a.json"
"$GEN" --quiet -c 1 -d 100ms --json "$tmp/a.json" "$url"
is "$(cat "$tmp/keep")" old "--json replaces FILE by rename, not in place"
check "and FILE is the summary ($(jget "$tmp/a.json" schema))" [ "$(jget "$tmp/a.json" schema)" = lb-gen/1 ]
check "with no FILE.tmp.PID left" sh -c '! ls "$1".tmp.* >/dev/null 2>&1' - "$tmp/a.json"
bad "unwritable --json" "cannot write" --quiet -c 1 -d 100ms --json "$tmp/no/such/dir.json" "$url"

rc=0
"$GEN" --help >"$tmp/help" 2>&1 || rc=$?
grep -q "usage: lb-gen" "$tmp/help" || rc=1
check "--help exits 0 and shows the usage" [ "$rc" = 0 ]
done_testing
