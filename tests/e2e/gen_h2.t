#!/bin/sh
# lb-gen --http2 against a real lb-target --http2: h2 over TLS (ALPN h2)
# and h2c with prior knowledge, closed and open model. lb-gen's completed
# count equals the server's parsed requests, its HTTP/2 requests and its
# completed streams exactly; the JSON says the protocol spoken; the status
# check reads each stream's :status (200 passes, 204 fails every one); a
# 1 KiB POST body is counted by the server on every stream. Against a TLS
# lb-target without --http2 (no h2 by ALPN) lb-gen fails before any load
# with the ALPN reason, and h2c against an HTTP/1.1-only server completes
# nothing and counts errors - never HTTP/1.1 spoken quietly. Last, one
# loadbench run (tool lb-gen, target h2 over TLS 1.3) whose row is ok with
# the server's h2 streams equal to lb-gen's requests.
# lb-test: shared (live, but judges counts and statuses only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/gen-lib.sh"

# snap NAME: the server's counters now, into $tmp/NAME.stats.
snap() { ctl "$T_CTL" GET /stats >"$tmp/$1.stats"; }
# delta A B PATH: counter PATH of snapshot B minus snapshot A.
delta() { echo $(($(jget "$tmp/$2.stats" "$3") - $(jget "$tmp/$1.stats" "$3"))); }

# h2gen NAME PROTO ARGS...: lb-gen --http2 --quiet -d 500ms ARGS into
# $tmp/NAME.json between two snapshots; checks the counts match the
# server's exactly and the JSON says PROTO. Sets G_DONE, G_CHECK.
h2gen() {
    name=$1 proto=$2
    shift 2
    snap "$name.a"
    rc=0
    "$GEN" --quiet --http2 -d 500ms --json "$tmp/$name.json" "$@" 2>"$tmp/$name.err" || rc=$?
    snap "$name.b"
    [ "$rc" = 0 ] || { ok 1 "$name: lb-gen exit $rc: $(cat "$tmp/$name.err")"; return 1; }
    set -- $(jget "$tmp/$name.json" requests.completed requests.sent errors.connect errors.read errors.write \
        errors.timeout h2.resets protocol requests.check_failed)
    G_DONE=$1 G_CHECK=$9
    S_REQ=$(delta "$name.a" "$name.b" requests_parsed)
    S_H2=$(delta "$name.a" "$name.b" h2.requests)
    S_STREAMS=$(delta "$name.a" "$name.b" h2.streams.completed)
    diag "$name: lb-gen completed $1 sent $2 | server parsed $S_REQ h2 requests $S_H2 streams completed $S_STREAMS"
    is "$8" "$proto" "$name: the JSON says protocol $proto"
    check "$name: completed $1 = sent $2 = server's requests $S_REQ = h2 requests $S_H2 = streams $S_STREAMS > 0" \
        [ "$1" = "$2" -a "$1" = "$S_REQ" -a "$1" = "$S_H2" -a "$1" = "$S_STREAMS" -a "$1" -gt 0 ]
    is "$3/$4/$5/$6/$7" "0/0/0/0/0" "$name: no connect, read, write or timeout error, no stream reset"
}

# post NAME: every stream of run NAME carried a 1 KiB body, by the server's count.
post() {
    is "$(delta "$1.a" "$1.b" requests_with_body)/$(delta "$1.a" "$1.b" body_bytes)" "$G_DONE/$((G_DONE * 1024))" \
        "$1: the server counted a 1 KiB body on each of the $G_DONE streams"
}

for p in h2 h2c; do
    if [ $p = h2 ]; then
        start_target $p --tls 1.3 --http2 --tls-ca "$tmp/ca.pem"
        U="https://127.0.0.1:$T_PORT/" TLS="--cacert $tmp/ca.pem"
    else
        start_target $p --http2
        U=$T_URL TLS=""
    fi
    if h2gen "$p-closed" $p -c 4 -t 2 --expect-status 200 $TLS "$U"; then
        is "$G_CHECK" 0 "$p-closed: --expect-status 200: every stream's :status was 200"
        [ $p = h2c ] || is "$(delta "$p-closed.a" "$p-closed.b" tls.alpn.h2)/$(delta "$p-closed.a" "$p-closed.b" tls.alpn.h1)" \
            "5/0" "h2-closed: the server saw 5 connections (4 and the probe) choose h2 by ALPN, none http/1.1"
        [ $p = h2 ] || is "$(delta "$p-closed.a" "$p-closed.b" h2.h2c_connections)" 4 \
            "h2c-closed: the server saw 4 connections with prior knowledge"
    fi
    if h2gen "$p-open" $p -R 500 -c 8 --expect-status 204 $TLS "$U"; then
        is "$(jget "$tmp/$p-open.json" model)/$G_CHECK/$(jget "$tmp/$p-open.json" errors.status)" "open/$G_DONE/$G_DONE" \
            "$p-open: open model; --expect-status 204: all $G_DONE streams (status 200) failed the check"
    fi
    if h2gen "$p-post" $p -c 2 --post 1KiB $TLS "$U"; then
        post "$p-post"
    fi
    if h2gen "$p-openpost" $p -R 300 --post 1KiB $TLS "$U"; then
        post "$p-openpost"
    fi
    stop_target "$T_PID"
done

# A TLS server without HTTP/2 chooses no h2: the probe fails, exit 1, the reason.
start_target h1tls --tls 1.3 --tls-ca "$tmp/ca1.pem"
snap alpn.a
rc=0
"$GEN" --quiet --http2 -c 2 -d 500ms --cacert "$tmp/ca1.pem" "https://127.0.0.1:$T_PORT/" >"$tmp/alpn.out" 2>"$tmp/alpn.err" || rc=$?
snap alpn.b
diag "alpn: $(cat "$tmp/alpn.err")"
check "alpn: exit 1 and no JSON against a server without h2 (exit $rc)" [ "$rc" = 1 -a ! -s "$tmp/alpn.out" ]
check "alpn: stderr gives the ALPN reason" grep -q "ALPN: the server chose no protocol, not h2 (--http2 offers h2 only)" "$tmp/alpn.err"
is "$(delta alpn.a alpn.b requests_parsed)" 0 "alpn: no request reached the server"
stop_target "$T_PID"

# h2c against an HTTP/1.1-only server: nothing completes, the errors are counted.
start_target h1
rc=0
"$GEN" --quiet --http2 -c 2 -d 500ms --json "$tmp/h1.json" "$T_URL" 2>"$tmp/h1.err" || rc=$?
set -- $(jget "$tmp/h1.json" requests.completed errors.read protocol)
diag "h2c to HTTP/1.1: exit $rc, completed $1, read errors $2"
check "h2c to an HTTP/1.1 server: exit 0 with a report, 0 completed, read errors counted ($2), protocol $3" \
    [ "$rc" = 0 -a "$1" = 0 -a "$2" -gt 0 -a "$3" = h2c ]
stop_target "$T_PID"

# loadbench run: tool lb-gen, target h2 over TLS 1.3, 2 s.
LB=$LB_BUILD/bin/loadbench
export LOADBENCH_GNUPLOT=
printf 'name: genh2\ntarget: {protocol: h2, tls: {version: 1.3}}\nload: {connections: 2, duration: 2s}\ntools: [lb-gen]\nsampling: {interval: 500ms}\ngrace: 30s\n' \
    >"$tmp/run.yaml"
rc=0
(cd "$LB_SRC" && "$LB" run --quiet --out "$tmp/run" "$tmp/run.yaml") >"$tmp/run.out" 2>&1 || rc=$?
J=$tmp/run/run.json
check "run: loadbench run wrote run.json (exit $rc)" test -s "$J"
set -- $(jget "$J" runs.0.status runs.0.crosscheck.verdict runs.0.client.requests runs.0.target_protocol.h2.streams.completed \
    runs.0.target_protocol.h2.requests runs.0.target_protocol.tls.alpn.h1 runs.0.client.tool_output.protocol)
diag "run: status $1 verdict $2 lb-gen requests $3 server h2 streams $4 h2 requests $5 ALPN http/1.1 $6 reason $(jget "$J" runs.0.reason)"
is "$1/$2" "ok/exact" "run: the lb-gen h2 row is ok, its counts exact"
check "run: the server's h2 streams ($4) = h2 requests ($5) = lb-gen's requests ($3) > 0" [ "$3" = "$4" -a "$3" = "$5" -a "$3" -gt 0 ]
is "$6/$7" "0/h2" "run: no connection chose http/1.1; lb-gen's summary says h2"
case "$(jget "$J" runs.0.identity.argv)" in *'"--http2"'*'"https://127.0.0.1:'*) ok 0 "run: lb-gen ran with --http2 and an https:// URL" ;;
    *) ok 1 "run: lb-gen ran with --http2 and an https:// URL ($(jget "$J" runs.0.identity.argv))" ;; esac
done_testing
