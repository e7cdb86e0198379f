#!/bin/sh
# loadbench run with target.tls and target.protocol: the profile check
# (validate, plan and run share it) refuses a tool that cannot speak what
# the profile asks, naming the tool and the setting; the harness starts
# lb-target with TLS/HTTP/2 and gives tools an https:// URL and the run's
# CA; each row carries lb-target's handshake and protocol counts and says
# whether the tool verified the certificate; a tool asked for h2 that
# spoke HTTP/1.1 (tests/progs/fake-h2load-h1: the real h2load forced to
# --h1, a fault made on purpose) fails its row with that reason.
# Real tools: h2load and wrk (Debian), oha when installed.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
# No chart image is checked here: gnuplot's rendering, 2-4 s of every run
# on a busy machine, is report_sweep.t's and report_charts.t's to test.
export LOADBENCH_GNUPLOT=
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"
H2LOAD=$(command -v h2load || true)
[ -n "$H2LOAD" ] || skip_all "h2load is not installed (Debian nghttp2-client)"

# refused NAME TARGET TOOLS WANT: validate of a profile with target TARGET
# and tools TOOLS fails with exit 2 and says WANT.
refused() {
    printf 'target: %s\nload: {connections: 2, duration: 1s}\ntools: %s\n' "$2" "$3" > "$tmp/$1.yaml"
    rc=0; "$LB" validate "$tmp/$1.yaml" 2>"$tmp/$1.err" || rc=$?
    is "$rc" 2 "$1: validate refuses (exit 2)"
    grep -qF "$4" "$tmp/$1.err" || { ok 1 "$1: says \"$4\""; diag "$(cat "$tmp/$1.err")"; return; }
    ok 0 "$1: says \"$4\""
}
refused jmeter-h2 '{protocol: h2, tls: {version: 1.3}}' '[jmeter]' 'jmeter cannot run target.protocol h2 (HTTP/2 over TLS): JMeter core has no HTTP/2 client'
refused wrk-h2 '{protocol: h2, tls: {version: 1.3}}' '[h2load, wrk]' 'wrk cannot run target.protocol h2 (HTTP/2 over TLS)'
refused ab-h2 '{protocol: h2, tls: {version: 1.2}}' '[ab]' 'ab cannot run target.protocol h2 (HTTP/2 over TLS): ab sends HTTP/1.0 requests'
refused gatling-h2c '{protocol: h2c}' '[gatling]' "gatling cannot run target.protocol h2c (HTTP/2 with prior knowledge): Gatling's enableHttp2 is HTTP/2 over TLS by ALPN only"
refused hey-h2c '{protocol: h2c}' '[hey]' "hey cannot run target.protocol h2c (HTTP/2 with prior knowledge): hey's -h2 is HTTP/2 over TLS only"
refused h2-plain '{protocol: h2}' '[h2load]' 'target.protocol h2 is HTTP/2 over TLS: add target.tls (or use h2c)'
refused h2c-tls '{protocol: h2c, tls: {version: 1.3}}' '[h2load]' 'target.protocol h2c is HTTP/2 without TLS'
refused tls11 '{tls: {version: 1.1}}' '[wrk]' 'target.tls.version "1.1": use 1.3, 1.2'
"$LB" tools >"$tmp/tools.txt" 2>&1 || true
check "tools: lists each adapter's protocols (h2load: h1 tls h2 h2c)" grep -q '^  h2load       h1 tls h2 h2c; certificate: does not verify' "$tmp/tools.txt"

# run NAME TARGET TOOLS: loadbench run of 1 s per tool into $tmp/NAME; J is its run.json.
run() {
    printf 'name: %s\ntarget: %s\nload: {connections: 2, duration: 1s}\ntools: %s\nsampling: {interval: 500ms}\ngrace: 30s\n' \
        "$1" "$2" "$3" > "$tmp/$1.yaml"
    rc=0; "$LB" run --quiet --out "$tmp/$1" "$tmp/$1.yaml" >"$tmp/$1.out" 2>&1 || rc=$?
    J=$tmp/$1/run.json
    check "$1: loadbench run wrote run.json (exit $rc)" test -s "$J"
}
# row_ok NAME I: row I is ok, its counts exact or explained (a tool stopped
# at its deadline leaves requests in flight: explained, never more).
row_ok() {
    v=$(jget "$J" runs.$2.status)/$(jget "$J" runs.$2.crosscheck.verdict)
    case "$v" in ok/exact | ok/explained) ok 0 "$1: status ok, counts $v" ;;
        *) ok 1 "$1: status ok, counts exact or explained (got $v)"; diag "reason: $(jget "$J" runs.$2.reason)" ;; esac
}

oha=""; [ -x /opt/loadbench-tools/bin/oha ] && oha=", oha"
run h2 '{delay: 5ms, protocol: h2, tls: {version: 1.3}}' "[h2load$oha, {tool: h2load, label: liar, bin: $LB_SRC/tests/progs/fake-h2load-h1}]"
row_ok h2load-h2 0
is "$(jget "$J" runs.0.target_protocol.asked)/$(jget "$J" runs.0.target_protocol.tls.alpn.h2)/$(jget "$J" runs.0.target_protocol.tls.alpn.h1)" \
    "h2/2/0" "h2load-h2: the server saw 2 connections negotiate h2, none http/1.1"
is "$(jget "$J" runs.0.target_protocol.tls.handshakes.failed)" 0 "h2load-h2: no failed handshake"
s=$(jget "$J" runs.0.server.requests); h=$(jget "$J" runs.0.target_protocol.h2.streams.completed)
check "h2load-h2: streams completed ($h) >= the window's requests ($s) > 0" test "$h" -ge "$s" -a "$s" -gt 0
is "$(jget "$J" runs.0.identity.settings.tls.verified)" false "h2load-h2: the row says h2load did not verify the certificate"
argv=$(jget "$J" runs.0.identity.argv)
case "$argv" in *--h1*) ok 1 "h2load-h2: no --h1 ($argv)" ;; *'"https://127.0.0.1:'*) ok 0 "h2load-h2: no --h1, an https:// URL" ;;
    *) ok 1 "h2load-h2: an https:// URL ($argv)" ;; esac
if [ -n "$oha" ]; then
    row_ok oha-h2 1
    is "$(jget "$J" runs.1.identity.settings.tls.verified)/$(jget "$J" runs.1.target_protocol.tls.alpn.h2)" true/2 \
        "oha-h2: verified against the run's CA (--cacert), 2 connections h2"
    liar=2
else
    skip "oha not installed (scripts/install-tools): no verified-TLS row"
    liar=1
fi
is "$(jget "$J" runs.$liar.status)" failed "liar: the h2 row whose tool spoke HTTP/1.1 failed"
case "$(jget "$J" runs.$liar.reason)" in
    "asked for h2, the tool spoke HTTP/1.1: lb-target counted "*" over HTTP/1.x (ALPN per connection: h2 0, http/1.1 2, none 0)")
        ok 0 "liar: the reason names the fallback and the ALPN counts" ;;
    *) ok 1 "liar: the reason names the fallback and the ALPN counts"; diag "$(jget "$J" runs.$liar.reason)" ;;
esac

run h2c '{protocol: h2c}' '[h2load]'
row_ok h2load-h2c 0
is "$(jget "$J" runs.0.target_protocol.h2.h2c_connections)" 2 "h2load-h2c: 2 connections with prior knowledge"
case "$(jget "$J" runs.0.identity.argv)" in *'"http://127.0.0.1:'*) ok 0 "h2load-h2c: an http:// URL" ;;
    *) ok 1 "h2load-h2c: an http:// URL" ;; esac

# lb-gen over TLS 1.3: verified against the run's CA, its handshakes the
# server's, its count reconciled; then TLS 1.2 with resumption off.
run lbgen '{delay: 5ms, tls: {version: 1.3}}' '[lb-gen]'
row_ok lbgen-tls13 0
argv=$(jget "$J" runs.0.identity.argv)
case "$argv" in *'"--cacert='*'target-ca.pem"'*'"--tls-version=1.3"'*'"--tls-resumption=on"'*'"https://127.0.0.1:'*)
    ok 0 "lbgen-tls13: --cacert (the run's CA), --tls-version=1.3, --tls-resumption=on, an https:// URL" ;;
    *) ok 1 "lbgen-tls13: --cacert, --tls-version=1.3, --tls-resumption=on, an https:// URL ($argv)" ;; esac
is "$(jget "$J" runs.0.identity.settings.tls.verified)" true "lbgen-tls13: the row says lb-gen verified the certificate"
check "lbgen-tls13: summary.md's \"What each latency measures\" names the TLS library and the verification" \
    grep -qF 'over TLS through OpenSSL 3 (libssl.so.3, dynamically linked), certificate verified.' "$tmp/lbgen/summary.md"
is "$(jget "$J" runs.0.target_protocol.tls.handshakes.failed)/$(jget "$J" runs.0.target_protocol.tls.alpn.h1)" 0/3 \
    "lbgen-tls13: no failed handshake; the probe's and 2 connections' ALPN http/1.1"
c=$(jget "$J" runs.0.target_protocol.tls.ciphers)
case "$c" in *TLS_AES_*) ok 0 "lbgen-tls13: a TLS 1.3 cipher ($c)" ;; *) ok 1 "lbgen-tls13: a TLS 1.3 cipher ($c)" ;; esac
run lbgen12 '{tls: {version: 1.2, resumption: off}}' '[lb-gen]'
row_ok lbgen-tls12 0
case "$(jget "$J" runs.0.identity.argv)" in *'"--tls-version=1.2"'*'"--tls-resumption=off"'*)
    ok 0 "lbgen-tls12: --tls-version=1.2 --tls-resumption=off" ;;
    *) ok 1 "lbgen-tls12: --tls-version=1.2 --tls-resumption=off ($(jget "$J" runs.0.identity.argv))" ;; esac
is "$(jget "$J" runs.0.target_protocol.tls.handshakes.resumed)/$(jget "$J" runs.0.target_protocol.tls.handshakes.full)" 0/3 \
    "lbgen-tls12: 3 full handshakes (the probe, 2 connections), none resumed"

if command -v wrk >/dev/null 2>&1; then
    run https '{tls: {version: 1.2, key: rsa, resumption: off}}' '[wrk, h2load]'
    row_ok wrk-tls12 0
    row_ok h2load-h1-tls12 1
    is "$(jget "$J" profile.target.tls.key)/$(jget "$J" profile.target.tls.resumption)" rsa/false \
        "https: run.json's profile records the RSA key, resumption off"
    c=$(jget "$J" runs.0.target_protocol.tls.ciphers)
    case "$c" in *ECDHE-RSA-*) ok 0 "wrk-tls12: a TLS 1.2 ECDHE-RSA cipher ($c)" ;; *) ok 1 "wrk-tls12: a TLS 1.2 ECDHE-RSA cipher ($c)" ;; esac
    is "$(jget "$J" runs.0.target_protocol.tls.handshakes.resumed)/$(jget "$J" runs.0.identity.settings.tls.verified)" 0/false \
        "wrk-tls12: resumption off: none resumed; wrk did not verify"
    is "$(jget "$J" runs.1.target_protocol.tls.alpn.h1)" 2 "h2load-h1-tls12: --h1 over TLS: ALPN http/1.1 on its 2 connections"
else
    skip "wrk not installed: no HTTPS wrk row" 6
fi
done_testing
