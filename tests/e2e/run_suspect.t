#!/bin/sh
# Fail closed on a tool that lies (issue 29, defects 1-3): the real wrk and
# two fake wrks in one run against lb-target at a 20 ms delay. One fake
# multiplies wrk's request count by 10, the other divides its latencies by
# 100 (tests/progs/fake-wrk-liar.c, copied under each name). Both rows are
# `suspect` with the reason, the run exits 1, the real wrk row stays ok,
# and the suspect rows' figures stay out of stats.csv, history and compare
# unless --include-suspect; compare gating a suspect row exits 3, not 0.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
FAKE=$LB_BUILD/tests/progs/fake-wrk-liar
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
[ -x "$FAKE" ] || skip_all "tests/progs/fake-wrk-liar not built (run make)"
command -v wrk >/dev/null 2>&1 || skip_all "wrk is not installed (apt-get install wrk)"

cp "$FAKE" "$tmp/fake-wrk-count-x10"   # copies: loadbench resolves links, and the name picks the lie
cp "$FAKE" "$tmp/fake-wrk-latency-div100"
cat > "$tmp/liars.yaml" <<Y
name: liars
target: {delay: 20ms}
load: {connections: 4, duration: 2s}
sampling: {interval: 500ms}
cooldown: 0s
tools:
  - {tool: wrk, label: wrk}
  - {tool: wrk, label: x10, bin: $tmp/fake-wrk-count-x10}
  - {tool: wrk, label: div100, bin: $tmp/fake-wrk-latency-div100}
Y
rc=0; "$LB" run --quiet --out "$tmp/run" "$tmp/liars.yaml" >"$tmp/run.out" 2>&1 || rc=$?
J=$tmp/run/run.json
is "$rc" 1 "a run with suspect rows exits 1"
is "$(jget "$J" runs.0.status)" ok "the real wrk's row stays ok"

is "$(jget "$J" runs.1.status)" suspect "wrk's count x 10: suspect"
r1=$(jget "$J" runs.1.reason)
check "its reason names both counts ($r1)" sh -c 'case "$1" in *"successful responses, the server completed"*) ;; *) exit 1;; esac' - "$r1"
is "$(jget "$J" runs.1.crosscheck.verdict)" mismatch "its crosscheck verdict is mismatch"
is "$(jget "$J" runs.1.crosscheck.reconciled)" false "and nothing reconciles it"

is "$(jget "$J" runs.2.status)" suspect "wrk's latencies / 100 against a 20 ms delay: suspect"
r2=$(jget "$J" runs.2.reason)
check "its reason names the percentiles below the server's ($r2)" \
    sh -c 'case "$1" in *"latency below what the server held"*p50*) ;; *) exit 1;; esac' - "$r2"
check "its count is honest (not a mismatch)" test "$(jget "$J" runs.2.crosscheck.verdict)" != mismatch

check "summary.md shows the status" grep -q '| x10 | suspect |' "$tmp/run/summary.md"
check "and the reason in its notes" grep -q 'suspect: the tool counts' "$tmp/run/summary.md"
check "results.csv carries status and reason" grep -q '^div100,wrk,.*,suspect,.*latency below what the server held' "$tmp/run/results.csv"
check "report.html shows it" grep -q 'suspect' "$tmp/run/report.html"
check "stats.csv: no x10 figure counts (runs_ok 0, n 0)" grep -q '^x10,wrk,,1,0,rps,req/s,0,' "$tmp/run/stats.csv"
check "stats.csv: the real wrk's does" grep -q '^wrk,wrk,,1,1,rps,req/s,1,' "$tmp/run/stats.csv"
"$LB" report --include-suspect "$tmp/run" >/dev/null 2>&1
check "report --include-suspect counts it" grep -q '^x10,wrk,,1,1,rps,req/s,1,' "$tmp/run/stats.csv"
"$LB" report "$tmp/run" >/dev/null 2>&1

"$LB" history --out "$tmp/h" "$tmp/run" >/dev/null 2>&1
check "history: no figure for the suspect rows" sh -c '! grep -q ",x10,.*,rps,req/s,[1-9]" "$1"' - "$tmp/h/history.csv"
check "history: the real wrk's rps is there" grep -q ',wrk,.*,rps,req/s,1,' "$tmp/h/history.csv"
"$LB" history --include-suspect --out "$tmp/h2" "$tmp/run" >/dev/null 2>&1
check "history --include-suspect: x10's rps is there" grep -q ',x10,.*,rps,req/s,1,' "$tmp/h2/history.csv"

rc=0; "$LB" compare --tool x10 --control wrk --junit "$tmp/c.xml" "$tmp/run" "$tmp/run" >/dev/null 2>"$tmp/c.err" || rc=$?
is "$rc" 3 "compare gating the suspect row: missing evidence, exit 3 (not 0)"
check "stderr names the cell and why" grep -q 'missing evidence: x10: 1 of 1 rows suspect in the current run' "$tmp/c.err"
check "JUnit: a failed test case" grep -q '<failure message="no evidence: 1 of 1 rows suspect' "$tmp/c.xml"
rc=0; "$LB" compare --tool x10 --control wrk --allow-missing "$tmp/run" "$tmp/run" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "--allow-missing: exit 0"
rc=0; "$LB" compare --tool wrk --control wrk "$tmp/run" "$tmp/run" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "compare gating the real wrk row: exit 0"
done_testing
