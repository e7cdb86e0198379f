#!/bin/sh
# lb-gen over HTTPS (OpenSSL) against a real lb-target --tls, TLS 1.3 and
# 1.2: its completed count equals the server's exactly; its handshakes,
# resumed among them, equal the server's (plus the probe's one full
# handshake); resumption on resumes on new connections and off never does;
# keep-alive off opens one connection per request, on both sides; the run's
# CA verifies, another CA or the system's store fails before any load with
# the certificate check's reason and exit 1; --insecure runs and says so.
# Plain keep-alive off is checked the same way.
set -eu
. "$(dirname "$0")/gen-lib.sh"

# snap NAME: the server's counters now, into $tmp/NAME.stats.
snap() { ctl "$T_CTL" GET /stats >"$tmp/$1.stats"; }
# delta A B PATH: counter PATH of snapshot B minus snapshot A.
delta() { echo $(($(jget "$tmp/$2.stats" "$3") - $(jget "$tmp/$1.stats" "$3"))); }
# within X LO HI: LO <= X <= HI.
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# gen NAME ARGS...: lb-gen --quiet -d 1s ARGS into $tmp/NAME.json, between
# two snapshots NAME.a and NAME.b; the run's figures in G_* and S_*.
gen() {
    name=$1
    shift
    snap "$name.a"
    S_FULL="" S_RES="" S_FAIL="" rc=0
    "$GEN" --quiet -d 1s --json "$tmp/$name.json" "$@" 2>"$tmp/$name.err" || rc=$?
    snap "$name.b"
    [ "$rc" = 0 ] || { ok 1 "$name: lb-gen exit $rc: $(cat "$tmp/$name.err")"; return 1; }
    set -- $(jget "$tmp/$name.json" requests.completed errors.total connections.opened connections.unfinished \
        tls.handshakes tls.resumed tls.failed tls.unfinished)
    G_DONE=$1 G_ERR=$2 G_OPENED=$3 G_UNFIN=$4 G_HS=$5 G_RES=$6 G_FAIL=$7 G_HSUNFIN=$8
    S_DONE=$(delta "$name.a" "$name.b" responses_completed)
    S_ACC=$(delta "$name.a" "$name.b" connections_accepted)
    if [ "$G_HS" != null ]; then
        S_FULL=$(delta "$name.a" "$name.b" tls.handshakes.full)
        S_RES=$(delta "$name.a" "$name.b" tls.handshakes.resumed)
        S_FAIL=$(delta "$name.a" "$name.b" tls.handshakes.failed)
    fi
    diag "$name: lb-gen completed $G_DONE opened $G_OPENED unfinished $G_UNFIN handshakes $G_HS resumed $G_RES" \
        "failed $G_FAIL | server completed $S_DONE accepted $S_ACC full ${S_FULL:-} resumed ${S_RES:-} failed ${S_FAIL:-}"
    check "$name: completed $G_DONE == server's $S_DONE, no errors ($G_ERR), some load" \
        [ "$G_DONE" = "$S_DONE" -a "$G_ERR" = 0 -a "$G_DONE" -gt 0 ]
}

# handshakes_match NAME VERSION: the server's completed handshakes are
# lb-gen's plus the probe's one full; resumed equal. TLS 1.2's full
# handshake ends at the server first, so one cut by the load's end may be
# complete there only: at most lb-gen's unfinished handshakes more.
handshakes_match() {
    extra=$((S_FULL + S_RES - 1 - G_HS))
    if [ "$2" = 1.3 ]; then hi=0; else hi=$G_HSUNFIN; fi
    check "$1: server completed $((S_FULL + S_RES)) handshakes = lb-gen's $G_HS + the probe (+ 0..$hi cut by the end)" \
        within "$extra" 0 "$hi"
    is "$S_RES" "$G_RES" "$1: server's resumed handshakes = lb-gen's"
    check "$1: no failed handshake (lb-gen $G_FAIL); the server's failed ($S_FAIL) at most the $G_UNFIN connects cut by the end" \
        [ "$G_FAIL" = 0 -a "$S_FAIL" -le "$G_UNFIN" ]
}

# one_per_request NAME: keep-alive off - a connection per request, on both sides.
one_per_request() {
    is "$G_OPENED" "$G_DONE" "$1: keep-alive off: connections opened = requests ($G_DONE)"
    check "$1: the server accepted $S_ACC = opened $G_OPENED + the probe (+ at most $G_UNFIN connects cut by the end)" \
        within "$S_ACC" $((G_OPENED + 1)) $((G_OPENED + 1 + G_UNFIN))
    is "$(jget "$tmp/$1.json" config.keepalive)" false "$1: the JSON says keepalive false"
}

for v in 1.3 1.2; do
    start_target "t$v" --tls "$v" --tls-ca "$tmp/ca$v.pem"
    U="https://127.0.0.1:$T_PORT/"
    if gen "ka$v" -c 4 --cacert "$tmp/ca$v.pem" --tls-version "$v" "$U"; then
        set -- $(jget "$tmp/ka$v.json" tls.version tls.verify tls.cipher config.keepalive)
        is "$1/$2/$4" "TLSv$v/ca/true" "ka$v: TLSv$v negotiated, verified against the run's CA, keep-alive"
        is "$G_HS/$G_OPENED" "4/4" "ka$v: keep-alive: 4 handshakes on 4 connections"
        handshakes_match "ka$v" "$v"
        check "ka$v: the server counted lb-gen's cipher $3" grep -q "\"$3\"" "$tmp/ka$v.b.stats"
    fi
    if gen "close$v" -c 2 --no-keepalive --cacert "$tmp/ca$v.pem" "$U"; then
        one_per_request "close$v"
        is "$G_HS" "$G_OPENED" "close$v: a handshake per connection"
        handshakes_match "close$v" "$v"
        check "close$v: resumption on: new connections resumed ($G_RES of $G_HS)" [ "$G_RES" -gt 0 ]
        is "$(jget "$tmp/close$v.json" tls.version)" "TLSv$v" "close$v: negotiated (no --tls-version) TLSv$v, the server's one"
    fi
    if gen "nores$v" -c 2 --keepalive off --tls-resumption off --cacert "$tmp/ca$v.pem" "$U"; then
        one_per_request "nores$v"
        handshakes_match "nores$v" "$v"
        is "$G_RES/$S_RES" "0/0" "nores$v: resumption off: none resumed, on either side"
    fi
    [ "$v" = 1.2 ] || stop_target "$T_PID"
done

# The 1.2 server still runs: a wrong CA, the system's store, the other
# version each fail at the probe, with the reason and exit 1, no request.
bad_tls() { # bad_tls NAME NEEDLE ARGS...
    name=$1 needle=$2
    shift 2
    snap "$name.a"
    rc=0
    "$GEN" --quiet -c 2 -d 1s "$@" "$U" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
    snap "$name.b"
    diag "$name: $(cat "$tmp/$name.err")"
    check "$name: exit 1, one line on stderr saying \"$needle\", no JSON" \
        [ "$rc" = 1 -a "$(wc -l <"$tmp/$name.err")" = 1 -a ! -s "$tmp/$name.out" ]
    grep -q -- "$needle" "$tmp/$name.err" || ok 1 "$name: stderr says \"$needle\""
    is "$(delta "$name.a" "$name.b" requests_parsed)/$(delta "$name.a" "$name.b" tls.handshakes.failed)" 0/1 \
        "$name: no request reached the server; one failed handshake (the probe's)"
}
bad_tls wrongca "certificate verify failed: unable to get local issuer certificate" --cacert "$tmp/ca1.3.pem"
bad_tls systemca "certificate verify failed"
grep -q -- "--cacert" "$tmp/systemca.err"; ok $? "systemca: the error names --cacert and --insecure"
bad_tls version "TLS handshake with 127.0.0.1 failed: .* (--tls-version 1.3 only)" --tls-version 1.3

if gen insecure -c 2 --insecure "$U"; then
    is "$(jget "$tmp/insecure.json" tls.verify)" none "insecure: --insecure runs, and the JSON says verify none"
fi
stop_target "$T_PID"

# Plain HTTP, keep-alive off: the same one connection per request.
start_target plain
if gen plainclose -c 3 --keepalive off "$T_URL"; then
    one_per_request plainclose
    is "$(jget "$tmp/plainclose.json" tls)" null "plainclose: plain http:// has tls null"
fi
stop_target "$T_PID"
done_testing
