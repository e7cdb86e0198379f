#!/bin/sh
# loadbench's command line outside `run`: `tools` lists every adapter and the
# options a profile may give it (the same list the profile checker accepts),
# --help names every command, scripts/studies refuses what it cannot do,
# and (issue #19) plan leaves no temporary directory, a JSON error without a
# line says no line (not "line -1"), and --scale's refusal shows the factor.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

"$LB" tools > "$tmp/tools.txt"
# (that it lists every registered adapter is lists.t's, from registry.c)
check "tools says gatling's instances are independent JVMs" grep -Eq '^  gatling +live: 3.14.9 .*N independent JVMs.*no distributed mode' "$tmp/tools.txt"
check "tools lists gatling's options" grep -Eq '^  gatling +heap jvm_args$' "$tmp/tools.txt"
check "tools lists artillery's pool option" grep -Eq '^  artillery +pool$' "$tmp/tools.txt"
check "tools lists jmeter's options" grep -Eq '^  jmeter +heap jvm_args threads$' "$tmp/tools.txt"
# the seed tools that cannot run here keep a row saying why, and a profile
# naming one is refused with that reason; every version is live or by source
for t in fusillade funtester; do
    check "tools lists $t, not run here" grep -Eq "^$t +no +- +- +not run here: " "$tmp/tools.txt"
done
check "tools says k6 v2.2.0 was checked by source only" grep -Eq '^  k6 +live: v0.48.0 .*by source: .*v2.0.0-v2.2.0' "$tmp/tools.txt"
check "tools says httperf ran live" grep -Eq '^  httperf +live: 0.9.0' "$tmp/tools.txt"
printf 'load: {connections: 1, duration: 1s}\ntools: [fusillade]\n' > "$tmp/fus.yaml"
rc=0; "$LB" validate "$tmp/fus.yaml" >/dev/null 2>"$tmp/fus.err" || rc=$?
is "$rc" 2 "a profile naming fusillade is refused"
check "with why: in no registry here" grep -q 'fus.yaml:2:9: fusillade: not run here: in no registry this machine reaches' "$tmp/fus.err"
# every option tools lists is one a profile may use, and nothing else is
for pair in artillery:pool jmeter:heap locust:users k6:discard_bodies h2load:log wrk:threads; do
    tool=${pair%%:*} opt=${pair#*:}
    printf 'load: {connections: 1, duration: 1s}\ntools: [{tool: %s, options: {%s: "1"}}]\n' "$tool" "$opt" > "$tmp/o.yaml"
    check "a profile may set $tool's $opt" sh -c "\"$LB\" validate '$tmp/o.yaml' >/dev/null 2>&1"
done
printf 'load: {connections: 1, duration: 1s}\ntools: [{tool: ab, options: {pool: "1"}}]\n' > "$tmp/bad.yaml"
rc=0; "$LB" validate "$tmp/bad.yaml" >/dev/null 2>"$tmp/bad.err" || rc=$?
is "$rc" 2 "an option the tool does not have is refused"
check "with its location" grep -q 'bad.yaml:2:9: ab has no option "pool"' "$tmp/bad.err"
# "--" ends the options: it is not a profile, and a file named like an
# option may follow it.
cp "$tmp/o.yaml" "$tmp/-o.yaml"
rc=0; (cd "$tmp" && "$LB" validate -- -o.yaml) >"$tmp/dd.out" 2>"$tmp/dd.err" || rc=$?
is "$rc" 0 "validate -- FILE: ok"
check "and reads no file named --" sh -c '! grep -q -- "^--" "$1"' - "$tmp/dd.err"
rc=0; "$LB" validate -- >/dev/null 2>"$tmp/dd.err" || rc=$?
is "$rc" 2 "validate -- alone: no profile given"
check "and says how to use it" grep -q '^usage: loadbench validate' "$tmp/dd.err"

"$LB" --help > "$tmp/help.txt"
for c in run validate plan tools report compare doctor version --scale; do
    check "--help mentions $c" grep -q -- "$c" "$tmp/help.txt"
done

# Issue #19: plan cleans up after itself, errors say no line rather than -1,
# and a refused --scale shows the factor as typed.
mkdir "$tmp/plantmp"
printf 'load: {connections: 2, duration: 1s}\ntools: [lb-gen, {tool: wrk, label: w}]\n' > "$tmp/plan.yaml"
TMPDIR=$tmp/plantmp "$LB" plan "$tmp/plan.yaml" > "$tmp/plan.out"
check "plan prints each tool run" grep -q 'model as run' "$tmp/plan.out"
is "$(ls -A "$tmp/plantmp")" "" "plan leaves no temporary directory behind (in \$TMPDIR)"
left=""
for d in $(grep -o '/[^ ]*loadbench-plan-[A-Za-z0-9]*' "$tmp/plan.out" | sort -u); do
    [ -e "$d" ] && left="$left $d" && rm -rf "$d"
done
is "$left" "" "nor any directory its output names"
if grep -q '^  config: ' "$tmp/plan.out"; then
    check "plan shows the generated config itself" grep -q '^  | ' "$tmp/plan.out"
else
    skip "no tool of the plan writes a config here (wrk not installed)"
fi
for verb in run plan; do
    rc=0; "$LB" $verb --scale 1.0000001 "$tmp/plan.yaml" >/dev/null 2>"$tmp/scale.err" || rc=$?
    is "$rc" 2 "$verb --scale 1.0000001: refused"
    check "$verb --scale 1.0000001: the message shows 1.0000001 ($(cat "$tmp/scale.err"))" grep -q '(got 1.0000001)' "$tmp/scale.err"
done
for cmd in "report $tmp/no-such-run" "compare $tmp/no-such-run $tmp/no-such-run"; do
    rc=0; "$LB" $cmd >/dev/null 2>"$tmp/line.err" || rc=$?
    is "$rc" 2 "${cmd%% *} of a missing run: exit 2"
    check "${cmd%% *} of a missing run: no 'line -1' in the message ($(cat "$tmp/line.err"))" \
        sh -c "grep -q 'no-such-run/run.json: No such file or directory' '$tmp/line.err' && ! grep -q ':-1' '$tmp/line.err'"
done

rc=0; scripts/studies 9 >/dev/null 2>"$tmp/s.err" || rc=$?
is "$rc" 2 "scripts/studies refuses a study that does not exist"
check "and says which" grep -q "no profile profiles/studies/9-" "$tmp/s.err"
rc=0; scripts/studies --scale >/dev/null 2>&1 || rc=$?
is "$rc" 2 "scripts/studies --scale needs a factor"
check "scripts/studies --help explains itself" sh -c "scripts/studies --help | grep -q 'quick look'"
rc=0; scripts/studies --rerun lb-gen >/dev/null 2>&1 || rc=$?
is "$rc" 2 "scripts/studies --rerun needs a label and a study number"
check "scripts/studies --help explains --rerun" sh -c "scripts/studies --help | grep -q 'rerun LABELS N'"

# Issue 44, defect 13: every command's options end at "--", as compare's
# and validate's do: what follows is an argument, even "--help" or "-x".
cp "$tmp/plan.yaml" "$tmp/-p.yaml"
rc=0; (cd "$tmp" && "$LB" plan -- -p.yaml) >"$tmp/dd.out" 2>"$tmp/dd.err" || rc=$?
is "$rc" 0 "plan -- -p.yaml: the profile after -- is read"
check "and planned" grep -q 'model as run' "$tmp/dd.out"
rc=0; "$LB" plan "$tmp/plan.yaml" --scale 0.5 >/dev/null 2>&1 || rc=$?
is "$rc" 0 "plan PROFILE --scale F: options after the profile, as run takes them"
rc=0; "$LB" tools -- >/dev/null 2>"$tmp/dd.err" || rc=$?
is "$rc" 0 "tools --: exit 0"
mkdir "$tmp/dash"
mkdir "$tmp/dash/--help"
cp "$LB_SRC/tests/fixtures/runs/sweep-a/run.json" "$tmp/dash/--help/"
rc=0; (cd "$tmp/dash" && LOADBENCH_GNUPLOT= "$LB" report -- --help) >"$tmp/dd.out" 2>"$tmp/dd.err" || rc=$?
is "$rc" 0 "report -- --help reports the run directory named --help"
check "its summary is written, not the usage printed" sh -c "test -s '$tmp/dash/--help/summary.md' && ! grep -q usage '$tmp/dd.out'"

# Every command answers --help with its own usage (exit 0), never by
# reading "--help" as a file, and refuses an option it does not know.
for c in run validate plan tools report compare history doctor hosts; do
    rc=0; out=$("$LB" $c --help 2>&1) || rc=$?
    is "$rc" 0 "loadbench $c --help exits 0"
    check "loadbench $c --help prints its usage" sh -c 'printf "%s\n" "$1" | grep -q "usage: loadbench"' - "$out"
    check "loadbench $c --help reads no file" sh -c '! printf "%s\n" "$1" | grep -q "cannot open\|unable to open"' - "$out"
done
for c in validate plan report doctor tools hosts; do
    rc=0; "$LB" $c --no-such-option >/dev/null 2>"$tmp/err" || rc=$?
    is "$rc" 2 "loadbench $c refuses an unknown option"
    check "and names it" grep -q 'unknown option "--no-such-option"' "$tmp/err"
done

# doctor removes the ssh control-socket directory of a loadbench proven
# dead (a SIGKILLed multi-host run leaves /tmp/loadbench-ssh-TAG-XXXXXX),
# and nothing else: not a live owner's, not one without a tag.
ns=$(stat -L -c %i /proc/self/ns/pid)
sh -c 'exit 0' & dead=$!; wait "$dead" || true
mine=$(perl -e 'open my $f, "<", "/proc/$ARGV[0]/stat" or die; my $s = <$f>; $s =~ s/.*\) //; print((split " ", $s)[19])' $$)
d_dead=$(mktemp -d "/tmp/loadbench-ssh-$dead.1.$ns-XXXXXX")
d_live=$(mktemp -d "/tmp/loadbench-ssh-$$.$mine.$ns-XXXXXX")
d_plain=$(mktemp -d "/tmp/loadbench-ssh-XXXXXX")
: > "$d_dead/0123456789abcdef"
mkdir -p "$tmp/noresults"
"$LB" doctor --results "$tmp/noresults" >/dev/null 2>"$tmp/doctor.err" || true
check "doctor removes a dead loadbench's ssh control directory" test ! -e "$d_dead"
check "and says so" grep -q 'removed 1 ssh control directory' "$tmp/doctor.err"
check "it keeps a live loadbench's" test -d "$d_live"
check "and one whose name carries no owner" test -d "$d_plain"
rm -rf "$d_dead" "$d_live" "$d_plain"

# A run whose loadbench died: doctor marks it abandoned and removes the
# NAME.tmp.PID files of writers that are gone (the owner's, or lb-gen's
# summary cut off between write and rename, its writer dead or a zombie),
# keeping one whose writer lives and any other name.
r=$tmp/dead-results/run1
mkdir -p "$r/lb-gen"
sh -c 'exit 0' & gone=$!; wait "$gone" || true
# A writer that was SIGKILLed but not yet waited for (its parent slow to
# reap, as a container's init can be) is a zombie: gone, though its
# /proc/PID/stat is still there.
perl -e '$| = 1; my $p = fork; exit 0 unless $p; print "$p\n"; sleep 60' >"$tmp/zpid" & track $!
i=0; zombie=
while [ $i -lt 200 ]; do
    zombie=$(cat "$tmp/zpid" 2>/dev/null || true)
    [ -n "$zombie" ] && [ "$(sed 's/.*) //' /proc/"$zombie"/stat 2>/dev/null | cut -d' ' -f1)" = Z ] && break
    i=$((i + 1)); sleep 0.05
done
check "a zombie writer stands by (pid $zombie)" test "$i" -lt 200
printf 'loadbench pid %s start 1 boot %s pidns %s\n' "$dead" "$(cat /proc/sys/kernel/random/boot_id)" "$ns" >"$r/loadbench.lock"
printf '{"schema_version": 1, "status": "running", "runs": []}\n' >"$r/run.json"
for f in "run.json.tmp.$dead" "lb-gen/summary.json.tmp.$gone" "lb-gen/out.json.tmp.$zombie" "lb-gen/live.json.tmp.$$" "lb-gen/notes.tmp.x" "lb-gen/summary.json"; do
    echo '{"half":' >"$r/$f"
done
"$LB" doctor --results "$tmp/dead-results" >/dev/null 2>"$tmp/doctor.err" || true
is "$(jget "$r/run.json" status)" abandoned "doctor marks a dead loadbench's run abandoned"
check "and removes its lock" test ! -e "$r/loadbench.lock"
check "and the owner's half-written file" test ! -e "$r/run.json.tmp.$dead"
check "and a gone tool's half-written summary" test ! -e "$r/lb-gen/summary.json.tmp.$gone"
check "and a zombie writer's" test ! -e "$r/lb-gen/out.json.tmp.$zombie"
check "it keeps a live writer's" test -e "$r/lb-gen/live.json.tmp.$$"
check "and files of other names" sh -c 'test -e "$1/notes.tmp.x" && test -e "$1/summary.json"' - "$r/lb-gen"

# --host (doctor, tools) and hosts install: what is refused before any ssh
# (tests/e2e/multihost.t reaches real hosts). A name is looked up in the
# profile's hosts:, never guessed to be a destination, nor the reverse.
printf 'hosts:\n  gen: bench@192.0.2.1\nload: {connections: 1, duration: 1s}\ntools: [{tool: lb-gen, host: gen}]\n' > "$tmp/h.yaml"
for cmd in "doctor --host srv $tmp/h.yaml" "tools --host bench@192.0.2.1 $tmp/h.yaml" "hosts install srv $tmp/h.yaml"; do
    rc=0; "$LB" $cmd >/dev/null 2>"$tmp/h.err" || rc=$?
    is "$rc" 2 "${cmd%% $tmp*}: a name the profile's hosts: lacks is refused"
    check "${cmd%% $tmp*}: naming the hosts it has" grep -q 'h.yaml has no host ".*" in hosts: (gen)' "$tmp/h.err"
done
for cmd in "doctor --host -oProxyCommand=x" "tools --host a@b@c:0" "doctor --results $tmp --host gen $tmp/h.yaml" \
           "doctor $tmp/h.yaml" "tools extra" "doctor --host" "hosts install local" "hosts uninstall gen"; do
    rc=0; "$LB" $cmd >/dev/null 2>"$tmp/h.err" || rc=$?
    is "$rc" 2 "loadbench $cmd: refused ($(head -1 "$tmp/h.err"))"
done
rc=0; "$LB" doctor --host local > "$tmp/local.json" 2>/dev/null || rc=$?
is "$rc/$(jget "$tmp/local.json" hostname)" "0/$(cat /proc/sys/kernel/hostname)" "doctor --host local: this machine's facts"

done_testing
