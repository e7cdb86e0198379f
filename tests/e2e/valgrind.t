#!/bin/sh
# valgrind.t: the release build under valgrind memcheck. lb-target
# (--delay 1ms) serves a short lb-gen run (20 connections x 2 s, JSON
# summary), each program under valgrind, and lb-target ends as it is meant
# to, on SIGTERM; then `loadbench validate profiles/quick.yaml` and
# `loadbench report` on a copy of results/published/sample-200vus. Each must exit with its
# own status (never valgrind's 99), and its log must say "ERROR SUMMARY: 0
# errors" and no block definitely lost; then test_agent's host-lost tests
# (LB_AGENT_TESTS=lost). SKIP without valgrind, and under the
# ASan build (ASan and valgrind do not mix). About 10 s on 2 cores (15 s under load),
# and 20 s more for the host-lost tests.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
# No chart is checked here: gnuplot's rendering (seconds of CPU a run) is
# report_charts.t's and report_sweep.t's to test.
export LOADBENCH_GNUPLOT=

command -v valgrind >/dev/null 2>&1 || skip_all "valgrind not installed (scripts/deps test installs it)"
under_asan && skip_all "valgrind runs the release build, not the ASan build ($LB_BUILD)"
TARGET=$LB_BUILD/bin/lb-target
GEN=$LB_BUILD/bin/lb-gen
LB=$LB_BUILD/bin/loadbench
for f in "$TARGET" "$GEN" "$LB"; do
    [ -x "$f" ] || skip_all "$f not built (make)"
done

# vg NAME COMMAND...: COMMAND under memcheck, its log in $tmp/NAME.vg.
# Leaks definitely or indirectly lost are errors; "possibly lost" and
# "still reachable" (libc, libyaml and jansson caches) are not.
VG="valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
vg() {
    name=$1; shift
    $VG --log-file="$tmp/$name.vg" "$@"
}

# vg_checks NAME RC WANT_RC: the exit status and the log's summaries.
vg_checks() {
    name=$1 rc=$2 want=$3
    is "$rc" "$want" "$name: exit $want under valgrind (99 is a memcheck error)"
    errs=$(sed -n 's/^==[0-9]*== ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$tmp/$name.vg")
    is "$errs" 0 "$name: ERROR SUMMARY: 0 errors"
    if grep -q 'All heap blocks were freed' "$tmp/$name.vg"; then
        ok 0 "$name: all heap blocks were freed"
    else
        check "$name: definitely lost: 0 bytes" grep -q 'definitely lost: 0 bytes' "$tmp/$name.vg"
    fi
    if [ "$errs" != 0 ] || [ "$rc" = 99 ]; then
        sed -n '/^==[0-9]*== [A-Z].*\(Invalid\|uninitialised\|definitely\|indirectly\|Mismatched\)/,/^==[0-9]*== $/p' \
            "$tmp/$name.vg" | head -n 60 | sed 's/^/#   /'
    fi
    diag "$name: $(grep -h 'ERROR SUMMARY\|definitely lost\|All heap blocks' "$tmp/$name.vg" | sed 's/^==[0-9]*== //' | tr '\n' ' ')"
}

# --- lb-target serving lb-gen ----------------------------------------------
# Not through vg: $! must be valgrind itself (the program's own process),
# not a subshell, for SIGTERM to reach lb-target.
$VG --log-file="$tmp/lb-target.vg" "$TARGET" --port 0 --control-port 0 --delay 1ms --threads 1 >"$tmp/target.out" 2>"$tmp/target.err" &
tpid=$!
track "$tpid"
i=0
while ! grep -q '"event":"listening"' "$tmp/target.out" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 300 ] || ! kill -0 "$tpid" 2>/dev/null; then
        echo "# lb-target did not start under valgrind: $(cat "$tmp/target.err")"
        cat "$tmp/lb-target.vg" 2>/dev/null | head -n 30 | sed 's/^/#   /'
        exit 1
    fi
    sleep 0.1
done
port=$(head -n 1 "$tmp/target.out" | sed -n 's/.*"port":\([0-9]*\).*/\1/p')

rc=0
vg lb-gen "$GEN" --quiet -c 20 -d 2s --json "$tmp/gen.json" "http://127.0.0.1:$port/" 2>"$tmp/gen.err" || rc=$?
[ "$rc" = 0 ] || diag "lb-gen: $(cat "$tmp/gen.err")"
vg_checks lb-gen "$rc" 0
n=$(jget "$tmp/gen.json" requests.completed)
check "lb-gen: completed requests under valgrind ($n)" [ "${n:-0}" -gt 0 ]

kill -TERM "$tpid"
rc=0
wait "$tpid" || rc=$?
tracked=""
vg_checks lb-target "$rc" 0
check "lb-target: final stats written on SIGTERM" grep -q '"event":"stopped"' "$tmp/target.out"

# --- loadbench ---------------------------------------------------------------
rc=0
vg validate "$LB" validate "$LB_SRC/profiles/quick.yaml" >"$tmp/validate.out" 2>&1 || rc=$?
vg_checks validate "$rc" 0

cp -R "$LB_SRC/results/published/sample-200vus" "$tmp/run"
rc=0
vg report "$LB" report "$tmp/run" >"$tmp/report.out" 2>&1 || rc=$?
vg_checks report "$rc" 0
check "report: summary.md regenerated" [ -s "$tmp/run/summary.md" ]

# --- a host lost mid-run (issue 30) -------------------------------------------
# test_agent's host-lost paths alone: the agent's link killed under a tree
# and under a tool run, every call after it. Memcheck sees what ASan does
# not: a result read from memory nothing wrote (a row once held a stack
# address as a byte count). The agents it starts run natively.
TA=$LB_BUILD/tests/test_agent
if [ -x "$TA" ]; then
    rc=0
    LB_AGENT_TESTS=lost vg agent-lost "$TA" >"$tmp/agent-lost.out" 2>&1 || rc=$?
    vg_checks agent-lost "$rc" 0
    check "agent-lost: its own tests pass under valgrind" sh -c "! grep -q '^not ok' '$tmp/agent-lost.out' && grep -q '^1\.\.' '$tmp/agent-lost.out'"
    grep '^not ok' "$tmp/agent-lost.out" | sed 's/^/#   /' || true
else
    skip "$TA not built (make $TA)"
fi

done_testing
