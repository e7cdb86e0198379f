#!/bin/sh
# A tool entry's own target: {tls, protocol}, request: and check: (study 6,
# issue #40; docs/profiles.md "One entry's own target, request and
# check"). validate judges each entry with its own settings: a tool that
# cannot run its entry's setting is refused at that entry, naming it,
# while the same tool in another entry of the profile passes; an entry
# that drops the profile's check (check: off) lets a tool without one run.
# Live: one profile runs the real lb-gen as three entries against the
# real lb-target, 1 s each: plain h1, h1 over TLS 1.3, and POST 1KiB with
# check 200. run.json's ran_with says what each row ran with, and the
# server's own counts confirm it: TLS handshakes only in the TLS row (its
# lb-target alone served TLS), request bodies only in the POST row, and
# lb-gen checked the status only there. Counts only, no timing.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
. "$LB_SRC/tests/lib/own-netns.sh"
# No charts: this test reads rows, not charts.
export LOADBENCH_GNUPLOT=
cd "$LB_SRC"

# refused NAME HEAD TOOLS WANT: validate of a profile with HEAD and the
# tool entries TOOLS (one per line, from line 3) exits 2 saying WANT.
refused() {
    printf 'load: {connections: 2, duration: 1s}\n%btools:\n%s\n' "$2" "$3" > "$tmp/$1.yaml"
    rc=0; "$LB" validate "$tmp/$1.yaml" 2>"$tmp/$1.err" || rc=$?
    check "$1: validate refuses (exit $rc): $(cat "$tmp/$1.err")" sh -c '[ "$1" = 2 ] && grep -qF "$2" "$3"' sh \
        "$rc" "$4" "$tmp/$1.err"
}
refused wrk-check '' '  - wrk
  - {tool: wrk, label: wrk-check, check: {status: 200}}' \
    'wrk-check.yaml:4:5: wrk cannot run check (a status check on every response)'
refused ab-h2c '' '  - {tool: ab, label: ab-plain}
  - {tool: ab, label: ab-h2c, target: {protocol: h2c}}' 'ab-h2c.yaml:4:5: ab cannot run target.protocol h2c (HTTP/2 with prior knowledge)'
refused httperf-post '' '  - {tool: httperf, label: hp, request: {method: POST, body: 1KiB}}' \
    'httperf-post.yaml:3:5: httperf cannot run request: method POST'
refused h2-off 'target: {protocol: h2, tls: {version: 1.3}}\n' '  - {tool: h2load, target: {tls: off}}' \
    "h2-off.yaml:4:34: this entry's tls: off, the profile's target.protocol is h2"
refused body '' '  - {tool: lb-gen, target: {body: 5B}}' \
    "body.yaml:3:29: \"body\" in a tool entry's target: an entry sets only tls:, protocol: and delay:"
refused drawn '' '  - {tool: lb-gen, target: {delay: {dist: exponential, mean: 1ms}}}' \
    "drawn.yaml:3:36: a tool entry's target.delay is a duration, e.g. delay: 0ms"
printf 'load: {connections: 2, duration: 1s}\ncheck: {status: 200}\ntools: [lb-gen, {tool: wrk, check: off}]\n' \
    > "$tmp/off.yaml"
check "a profile with check: passes with wrk's entry at check: off" "$LB" validate "$tmp/off.yaml"

cat > "$tmp/entries.yaml" <<'EOF'
name: entries
target: {delay: 20ms}
load: {connections: 2, duration: 1s}
tools:
  - {tool: lb-gen, label: plain}
  - {tool: lb-gen, label: tls13, target: {tls: {version: 1.3}}}
  - {tool: lb-gen, label: post, request: {method: POST, body: 1KiB}, check: {status: 200}}
  - {tool: lb-gen, label: fast, target: {delay: 0ms}}
sampling: {interval: 500ms}
grace: 30s
EOF
"$LB" plan "$tmp/entries.yaml" >"$tmp/plan.out" 2>&1 || true
check "plan says what the TLS entry runs with" grep -qF \
    'runs with: {"check":null,"request":{"method":"GET"},"target":{"delay_ns":20000000,"protocol":"h1","tls":{"key":"ecdsa","resumption":true,"version":"1.3"}}}' \
    "$tmp/plan.out"
check "plan says the fast entry runs with its own 0 ms delay" grep -qF \
    'runs with: {"check":null,"request":{"method":"GET"},"target":{"delay_ns":0,"protocol":"h1","tls":null}}' "$tmp/plan.out"
check "plan gives the TLS entry an https:// URL and the run's CA" grep -q -- '--cacert=RUN/target-ca.pem .*https://' "$tmp/plan.out"

rc=0; "$LB" run --quiet --out "$tmp/run" "$tmp/entries.yaml" >"$tmp/run.out" 2>&1 || rc=$?
J=$tmp/run/run.json
[ -s "$J" ] || { ok 1 "loadbench run wrote run.json (exit $rc)"; diag "$(tail -5 "$tmp/run.out")"; done_testing; exit 1; }
is "$rc/$(jget "$J" runs.0.status)/$(jget "$J" runs.1.status)/$(jget "$J" runs.2.status)/$(jget "$J" runs.3.status)" \
    0/ok/ok/ok/ok "the run exits 0, its four rows ok"
is "$(jget "$J" runs.0.ran_with.target.protocol)/$(jget "$J" runs.0.ran_with.target.tls)/$(jget "$J" runs.0.ran_with.request.method)/$(jget "$J" runs.0.ran_with.check)" \
    "h1/null/GET/null" "plain: ran_with plain h1, GET, no check"
is "$(jget "$J" runs.1.ran_with.target.tls.version)/$(jget "$J" runs.1.ran_with.request.method)/$(jget "$J" runs.1.ran_with.check)" \
    "1.3/GET/null" "tls13: ran_with TLS 1.3, GET, no check"
is "$(jget "$J" runs.2.ran_with.target.tls)/$(jget "$J" runs.2.ran_with.request.method)/$(jget "$J" runs.2.ran_with.request.body_bytes)/$(jget "$J" runs.2.ran_with.check.status)" \
    "null/POST/1024/200" "post: ran_with plain, POST 1024 bytes, check 200"

# TLS: lb-target's own handshake counts, in the TLS row only.
set -- $(jget "$J" runs.1.target_protocol.tls.version) $(jget "$J" runs.1.target_protocol.tls.handshakes.full) \
    $(jget "$J" runs.1.target_protocol.tls.handshakes.resumed) $(jget "$J" runs.1.target_protocol.tls.handshakes.failed) \
    $(jget "$J" runs.1.server.connections_accepted)
check "tls13: its lb-target served TLS $1: $2 full + $3 resumed handshakes = its $5 connections, $4 failed" \
    sh -c '[ "$1" = 1.3 ] && [ "$5" -gt 0 ] && [ $(($2 + $3)) = "$5" ] && [ "$4" = 0 ]' sh "$@"
is "$(jget "$J" runs.0.target_protocol)/$(jget "$J" runs.2.target_protocol)" null/null \
    "plain and post: their lb-target served no TLS (no handshake counts)"
check "tls13 alone has the run's CA and was sent to https://" sh -c \
    'test -s "$1/tls13/target-ca.pem" && ! test -e "$1/plain/target-ca.pem" && ! test -e "$1/post/target-ca.pem" &&
     grep -q "https://127.0.0.1:" "$1/tls13/reproduce.sh" && grep -q "http://127.0.0.1:" "$1/plain/reproduce.sh"' sh "$tmp/run"

# Bodies: every request of the POST row carried 1024 bytes, none elsewhere.
set -- $(jget "$J" runs.2.server.requests_parsed) $(jget "$J" runs.2.request_body.requests_with_body) \
    $(jget "$J" runs.2.request_body.bytes) $(jget "$J" runs.2.request_body.mismatch)
check "post: the server parsed $1 requests, $2 with a body, $3 bytes (= x 1024), $4 mismatched" \
    sh -c '[ "$1" -gt 0 ] && [ "$2" = "$1" ] && [ "$3" = $(($2 * 1024)) ] && [ "$4" = 0 ]' sh "$@"
set -- $(jget "$J" runs.0.server.requests_parsed) $(jget "$J" runs.0.request_body.bytes) \
    $(jget "$J" runs.1.server.requests_parsed) $(jget "$J" runs.1.request_body.bytes)
check "plain and tls13: $1 and $3 requests, body bytes $2 and $4" \
    sh -c '[ "$1" -gt 0 ] && [ "$2" = 0 ] && [ "$3" -gt 0 ] && [ "$4" = 0 ]' sh "$@"

# Check: lb-gen checked the status in the POST row only.
is "$(jget "$J" runs.2.client.check_failed)/$(jget "$J" runs.0.client.check_failed)/$(jget "$J" runs.1.client.check_failed)" \
    0/null/null "post: no response failed its check; the other rows had none to fail"
check "post alone ran lb-gen with --expect-status=200" sh -c \
    'grep -q -- "--expect-status=200" "$1/post/reproduce.sh" && ! grep -q -- "--expect-status" "$1/plain/reproduce.sh" "$1/tls13/reproduce.sh"' \
    sh "$tmp/run"
is "$(jget "$J" profile.tools.2.check.status)/$(jget "$J" profile.check)/$(jget "$J" profile.request)" 200/null/null \
    "the resolved profile keeps the check on its entry, none profile-wide"
# summary.md says what each row ran with, since they differ
S=$tmp/run/summary.md
check "summary.md: plain ran h1, plain, 20 ms, keep-alive, GET, no check" \
    grep -qxF '| plain | h1 | plain | 20 ms | keep-alive | GET | – |' "$S"
check "summary.md: tls13 ran TLS 1.3 with its key and resumption" \
    grep -qxF '| tls13 | h1 | TLS 1.3 (ecdsa, resumption on) | 20 ms | keep-alive | GET | – |' "$S"
check "summary.md: post ran POST 1,024 B with its status check" \
    grep -qxF '| post | h1 | plain | 20 ms | keep-alive | POST 1,024 B | status 200 |' "$S"
check "summary.md: fast ran with its own 0 ms delay" \
    grep -qxF '| fast | h1 | plain | 0 ms | keep-alive | GET | – |' "$S"
check "summary.md: the table has the Delay column" \
    grep -qxF '| Tool | Protocol | TLS | Delay | Connections | Request | Check |' "$S"
check "summary.md: the profile-wide GET gives no request: key, yet post's bodies have their section" \
    grep -q '^## Request bodies' "$S"

# Delay: each row's lb-target ran with its own (its command in
# reproduce.sh), and the latency floor shows it. 20 ms is the floor of
# every request of plain, so its p50 is at least 20 ms; fast's requests
# wait for no delay, so its p50 is far below (a margin no load can cross).
is "$(jget "$J" runs.0.ran_with.target.delay_ns)/$(jget "$J" runs.3.ran_with.target.delay_ns)" 20000000/0 \
    "ran_with: plain 20 ms (the profile's), fast 0 (its own)"
check "plain's lb-target ran with --delay 20000000ns, fast's with --delay 0ns" sh -c \
    'grep -q -- "--delay 20000000ns " "$1/plain/reproduce.sh" && grep -q -- "--delay 0ns " "$1/fast/reproduce.sh"' \
    sh "$tmp/run"
set -- $(jget "$J" runs.0.client.latency_ms.p50) $(jget "$J" runs.3.client.latency_ms.p50)
check "p50: plain $1 ms >= 20 ms, fast $2 ms < 20 ms" awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= 20 && b < 20) }'
check "summary.md's Target line says its 20 ms is the profile's, some rows ran with their own" \
    grep -qF 'Target: lb-target, 20.0 ms delay, 64 B body, 1 thread(s). That delay is the profile'"'"'s: some rows ran with their own' "$S"
H=$tmp/run/report.html
check "report.html's Target line says so too" \
    grep -qF "20.0 ms delay, 64 B body, 1 thread(s). That delay is the profile's: some rows ran with their own" "$H"
check "report.html: the table of what each row ran with, its Delay column" sh -c \
    'grep -q "<h2 id=\"ran-with\">What each row ran with</h2>" "$1" && grep -q "<th>Delay</th>" "$1" &&
     grep -q "<tr><th>fast</th><td>h1</td><td>plain</td><td>0 ms</td><td>keep-alive</td><td>GET</td><td>–</td></tr>" "$1"' \
    sh "$H"

# --only with several names (a label, a glob) --into reruns exactly them.
rc=0; "$LB" run --quiet --only nope,fast --into "$tmp/run" "$tmp/entries.yaml" >"$tmp/nope.out" 2>&1 || rc=$?
check "--only nope,fast: refused (exit $rc), naming nope" sh -c \
    '[ "$1" != 0 ] && grep -qF "\"nope\" is no tool label of the profile" "$2"' sh "$rc" "$tmp/nope.out"
rc=0; "$LB" run --quiet --only 'fa*,post' --into "$tmp/run" "$tmp/entries.yaml" >"$tmp/into.out" 2>&1 || rc=$?
is "$rc/$(jget "$J" into_runs.0.rows.0.dir)/$(jget "$J" into_runs.0.rows.1.dir)/$(jget "$J" into_runs.0.rows.2)" \
    "0/post/fast/null" "--only 'fa*,post' --into: exits 0, reran post and fast, nothing else"
is "$(jget "$J" runs.0.rerun)/$(jget "$J" runs.1.rerun)/$(jget "$J" runs.2.rerun.version)/$(jget "$J" runs.3.rerun.version)/$(jget "$J" runs.3.status)" \
    "null/null/$(cat VERSION)/$(cat VERSION)/ok" "plain and tls13 kept their rows; post and fast replaced in place, ok"
done_testing
