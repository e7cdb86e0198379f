#!/bin/sh
# Coordinated omission and percentile truth on real tools: lb-target with a
# lognormal delay and a 1 s stall every 5 s; lb-gen in the open model keeps
# its schedule through the stalls and its p99 includes their wait, wrk
# (closed) stops sending during them and its verdict names lb-gen's open
# p99, and k6 (a scripting framework) gets a verdict of its own. Every row
# carries its percentiles against the server's; lb-gen's are never below.
# About a minute: three 11 s loads.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
export PERL_UNICODE=SO   # verdicts hold "≈"
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
command -v wrk >/dev/null 2>&1 || skip_all "wrk not installed (scripts/install-tools)"

cat > "$tmp/co.yaml" <<Y
name: co
target:
  delay: {dist: lognormal, p50: 5ms, p99: 20ms, seed: 1}
  stall: {every: 5s, for: 1s}
load: {model: open, rate: 200, duration: 11s, max_inflight: 1000}
sampling: {interval: 1s}
tools:
  - lb-gen
  - {tool: wrk, load: {connections: 4, duration: 11s}}
  - {tool: k6, load: {connections: 4, duration: 11s}}
Y
"$LB" run --quiet --out "$tmp/run" "$tmp/co.yaml" >/dev/null 2>&1 || true
J=$tmp/run/run.json
co() { jget "$J" "runs.$1.latency_check.coordinated_omission.$2"; }

diag "lb-gen: $(co 0 verdict)"
diag "wrk: $(co 1 verdict)"
is "$(co 0 stalls)" 2 "two stalls inside lb-gen's 11 s load"
is "$(co 0 sending)" kept "lb-gen (open) kept its schedule through the stalls"
is "$(co 0 p99_includes_stalls)" true "and its p99 includes their wait"
is "$(co 1 sending)" stopped "wrk (closed) stopped sending during the stalls"
check "wrk's verdict says so, with lb-gen's open p99 beside it" \
    sh -c "echo '$(co 1 verdict)' | grep -q 'stopped sending for 1.0 s per stall.*lb-gen open at the same rate: p99 [0-9]* ms'"
if [ "$(jget "$J" runs.2.status)" = skipped ]; then
    skip "k6 not installed: no scripting-framework verdict"
else
    check "k6 gets a verdict ($(co 2 verdict))" sh -c "[ '$(co 2 judged)' = true ] && [ -n '$(co 2 verdict)' ]"
fi
is "$(jget "$J" runs.0.latency_check.percentiles.below_server)" 0 "no lb-gen percentile below the server's"
is "$(jget "$J" runs.1.latency_check.percentiles.rows | grep -o '"q"' | wc -l | tr -d ' ')" 5 "wrk's row has p50, p90, p99, p99.9 and max against the server's"
check "summary.md lists the verdicts" grep -q '^- \*\*wrk\*\* (closed): stopped sending' "$tmp/run/summary.md"
check "and the percentile table" grep -q '^| lb-gen | .* / .* (' "$tmp/run/summary.md"
done_testing
