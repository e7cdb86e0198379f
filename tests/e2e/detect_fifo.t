#!/bin/sh
# Detection cannot hang, and plan leaves no files (issue 44, defect 3).
# A FIFO given as a tool's bin: (Locust's: its #! line was read with
# fopen) is refused by validate, plan and run alike, exit 2 at once,
# naming it; a FIFO named BIN.origin beside a tool (bombardier's, a fake
# tool named as such) is not waited on. plan's temporary directory goes
# however plan ends: SIGTERM, SIGINT and SIGKILL of plan while a tool's
# --version probe sleeps; with plan and its guardian both SIGKILLed, the
# directory stays until doctor, which removes it (its owner is proven
# dead) and leaves one whose owner lives. Each hang is caught by
# timeout(1) (exit 124 is the defect).
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
T=20

# A FIFO as Locust's bin.
mkfifo "$tmp/locust-fifo"
chmod 755 "$tmp/locust-fifo"
printf 'name: f\nload: {connections: 1, duration: 1s}\ntools:\n  - {tool: locust, bin: %s}\n' "$tmp/locust-fifo" >"$tmp/fifo-bin.yaml"
for verb in validate plan run; do
    rc=0; timeout "$T" "$LB" $verb "$tmp/fifo-bin.yaml" >/dev/null 2>"$tmp/err" </dev/null || rc=$?
    is "$rc" 2 "$verb with a FIFO as bin: exit 2 at once (124 is a hang)"
    check "$verb: names it as a FIFO ($(head -c 200 "$tmp/err"))" \
        grep -q "fifo-bin.yaml:4:5: locust: bin $tmp/locust-fifo: not a regular file (a FIFO)" "$tmp/err"
done

# A FIFO as BIN.origin beside a fake bombardier.
mkdir -p "$tmp/fb"
printf '#!/bin/sh\necho "bombardier version v1.2.6 linux/amd64" >&2\n' >"$tmp/fb/fake-bombardier"
chmod 755 "$tmp/fb/fake-bombardier"
mkfifo "$tmp/fb/fake-bombardier.origin"
printf 'name: o\nload: {connections: 1, duration: 1s}\ntools:\n  - {tool: bombardier, bin: %s}\n' "$tmp/fb/fake-bombardier" >"$tmp/origin.yaml"
rc=0; timeout "$T" "$LB" plan "$tmp/origin.yaml" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
is "$rc" 0 "plan with a FIFO as BIN.origin: exit 0 (124 is a hang)"
check "plan: the tool is found, its version without a note ($(grep binary: "$tmp/out" || true))" \
    grep -q "binary: $tmp/fb/fake-bombardier (version v1.2.6)$" "$tmp/out"

# plan's temporary directory, however plan ends. The fake lb-gen's version
# probe sleeps (loadbench kills it at 10 s): plan is then in detection.
mkdir -p "$tmp/slow" "$tmp/ptmp"
printf '#!/bin/sh\nexec sleep 30\n' >"$tmp/slow/fake-slow-lb-gen"
chmod 755 "$tmp/slow/fake-slow-lb-gen"
printf 'name: s\nload: {connections: 1, duration: 1s}\ntools:\n  - {tool: lb-gen, bin: %s}\n' "$tmp/slow/fake-slow-lb-gen" >"$tmp/slow.yaml"
plans() { find "$tmp/ptmp" -mindepth 1 -maxdepth 1 -name 'loadbench-plan-*' | wc -l; }
# start_plan: plan in the background, $pid; waits for its directory.
# A shell without job control starts a background command with SIGINT
# ignored, so a SIGINT would not end plan: it went on until the probe's
# 10 s kill and removed its directory as a plan that finished does. env
# gives plan SIGINT's default action, as a terminal's ^C finds it.
start_plan() {
    TMPDIR="$tmp/ptmp" env --default-signal=INT "$LB" plan "$tmp/slow.yaml" >/dev/null 2>&1 </dev/null &
    pid=$!
    track $pid
    n=0
    while [ "$(plans)" = 0 ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
}
# gone_within: 1 when no plan directory is left within 3 s.
gone_within() {
    n=0
    while [ "$(plans)" != 0 ] && [ $n -lt 60 ]; do sleep 0.05; n=$((n + 1)); done
    [ "$(plans)" = 0 ]
}
for sig in TERM INT KILL; do
    start_plan
    is "$(plans)" 1 "plan made its temporary directory (before SIG$sig)"
    kill -s $sig $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    check "SIG$sig to plan: its temporary directory is gone within 3 s" gone_within
done

# Both plan and its guardian (lb-guard, plan's child) SIGKILLed: the
# directory stays; doctor removes it, and leaves one whose owner lives.
start_plan
guard=$(for c in $(cat /proc/$pid/task/*/children 2>/dev/null); do
    [ "$(cat /proc/$c/comm 2>/dev/null)" != lb-guard ] || echo "$c"; done)
check "plan runs a guardian (lb-guard: $guard)" test -n "$guard"
[ -z "$guard" ] || kill -KILL $guard
kill -KILL $pid
wait $pid 2>/dev/null || true
sleep 0.3
is "$(plans)" 1 "plan and its guardian killed: the directory is left"
sleep 60 &
live=$!
track $live
start=$(awk '{ print $22 }' /proc/$live/stat)
ns=$(stat -L -c %i /proc/self/ns/pid)
mkdir "$tmp/ptmp/loadbench-plan-$live.$start.$ns-Abc123"
rc=0; TMPDIR="$tmp/ptmp" timeout "$T" "$LB" doctor --results "$tmp/none" >/dev/null 2>"$tmp/err" </dev/null || rc=$?
is "$rc" 0 "doctor: exit 0"
check "doctor says it removed a dead plan's directory" grep -q 'removed 1 temporary directory(ies) of a `loadbench plan` that died' "$tmp/err"
is "$(plans)" 1 "doctor: only the live owner's directory is left"
check "and it is the live owner's" test -d "$tmp/ptmp/loadbench-plan-$live.$start.$ns-Abc123"
done_testing
