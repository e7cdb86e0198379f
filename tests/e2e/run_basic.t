#!/bin/sh
# loadbench run end to end: the real lb-target and the real lb-gen, plus
# fault programs standing in for tools that hang, crash, lie or daemonize.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/target.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
. "$LB_SRC/tests/lib/own-netns.sh"
cd "$LB_SRC"

# --- validate -------------------------------------------------------------
check "validate accepts profiles/quick.yaml" sh -c "\"$LB\" validate profiles/quick.yaml >/dev/null"
printf 'load: {connections: 10, duration: 1s}\ntools: [lb-gen]\nsamplng: {interval: 1s}\n' > "$tmp/bad.yaml"
rc=0; "$LB" validate "$tmp/bad.yaml" 2>"$tmp/bad.err" || rc=$?
is "$rc" 2 "validate rejects an unknown key with exit 2"
check "the error names file:line:col" grep -q "bad.yaml:3:1: unknown key \"samplng\"" "$tmp/bad.err"
printf 'load: {connections: 10, duration: 1s}\ntools: [lb-gen, nosuchtool]\n' > "$tmp/badtool.yaml"
rc=0; "$LB" validate "$tmp/badtool.yaml" 2>"$tmp/badtool.err" || rc=$?
check "an unknown tool is a located error" grep -q "badtool.yaml:2:17: unknown tool \"nosuchtool\"" "$tmp/badtool.err"

# --- a real run: lb-gen against lb-target ------------------------------
cat > "$tmp/short.yaml" <<'Y'
name: short
target: {delay: 1ms}
load: {connections: 20, duration: 2s}
tools: [lb-gen]
sampling: {interval: 500ms}
Y
rc=0; "$LB" run --quiet --out "$tmp/run1" "$tmp/short.yaml" >"$tmp/run1.out" 2>"$tmp/run1.err" || rc=$?
is "$rc" 0 "run exits 0"
J=$tmp/run1/run.json
is "$(jget "$J" status)" complete "run.json says complete"
is "$(jget "$J" schema_version)" 1 "run.json carries its schema version"
is "$(jget "$J" runs.0.status)" ok "the lb-gen row is ok"
is "$(jget "$J" runs.0.crosscheck.verdict)" exact "client and server counts reconcile exactly"
client=$(jget "$J" runs.0.client.requests); server=$(jget "$J" runs.0.server.requests)
is "$client" "$server" "client count equals server count"
check "the server counted real traffic ($server requests)" test "$server" -gt 1000
check "the tool's CPU was measured" perl -e 'exit !($ARGV[0] > 0)' -- "$(jget "$J" runs.0.footprint.cpu_seconds)"
check "the tool's RSS was sampled" perl -e 'exit !($ARGV[0] > 0.5)' -- "$(jget "$J" runs.0.footprint.rss_peak_mb)"
check "a sha256 of the binary is recorded" sh -c "echo '$(jget "$J" runs.0.identity.sha256)' | grep -Eq '^[0-9a-f]{64}$'"
check "samples CSV has rows" test "$(wc -l < "$tmp/run1/samples/lb-gen.csv")" -ge 3
ncpu=$(getconf _NPROCESSORS_ONLN)
check "the machine's per-CPU series has a row per CPU per interval" \
    test "$(awk -F, 'NR > 1 && $2 == 0' "$tmp/run1/samples/lb-gen.machine.csv" | wc -l)" -ge 3 -a \
         "$(awk -F, 'NR > 1 { print $2 }' "$tmp/run1/samples/lb-gen.machine.csv" | sort -u | wc -l)" -eq "$ncpu"
check "summary.md has the lb-gen row" grep -q '^| lb-gen | ok | closed |' "$tmp/run1/summary.md"
check "results.csv has a header and one row" test "$(wc -l < "$tmp/run1/results.csv")" -eq 2
check "reproduce.sh written" test -x "$tmp/run1/lb-gen/reproduce.sh"
# It names no path of its run directory, so a copy elsewhere reruns the tool
# (against a fresh lb-target, the port edited in as its comment says).
cp -R "$tmp/run1/lb-gen" "$tmp/moved"
check "reproduce.sh names no absolute path of its run directory" sh -c "! grep -q '$tmp/run1' '$tmp/moved/reproduce.sh'"
start_target rt --delay 1ms
sed -i "s#127\.0\.0\.1:[0-9]*/#127.0.0.1:$T_PORT/#" "$tmp/moved/reproduce.sh"
rm -rf "$tmp/moved/summary.json" "$tmp/moved/home"
rc=0; "$tmp/moved/reproduce.sh" >"$tmp/moved.out" 2>&1 || rc=$?
is "$rc" 0 "the copied reproduce.sh reruns lb-gen"
check "which measured the fresh target ($(jget "$tmp/moved/summary.json" requests.completed) responses)" \
    test "$(jget "$tmp/moved/summary.json" requests.completed)" -gt 100
check "with HOME and TMPDIR in the copy, as loadbench ran it" test -d "$tmp/moved/home/tmp"
case "$LB_BUILD" in
"$LB_SRC"/*)
    rc=0; LB_ROOT=$tmp/nosuch "$tmp/moved/reproduce.sh" >/dev/null 2>&1 || rc=$?
    check "lb-gen is found through LB_ROOT, the checkout (exit $rc with LB_ROOT unusable)" test "$rc" -ne 0 ;;
*) skip "LB_BUILD is outside the checkout: lb-gen's path is absolute" ;;
esac
check "the tool's stdout/stderr are kept" test -f "$tmp/run1/lb-gen/stderr.txt"
rc=0; "$LB" run --quiet --out "$tmp/run1" "$tmp/short.yaml" 2>"$tmp/again.err" >/dev/null || rc=$?
is "$rc" 2 "an existing run directory is never overwritten"
check "and says so" grep -q "already exists" "$tmp/again.err"

# report regenerates the same tables from run.json alone
cp "$tmp/run1/summary.md" "$tmp/summary.before"
rm "$tmp/run1/summary.md" "$tmp/run1/results.csv"
"$LB" report "$tmp/run1" >/dev/null
check "report regenerates summary.md byte for byte" cmp -s "$tmp/summary.before" "$tmp/run1/summary.md"
# The runs below check rows, not charts: gnuplot (about 1.5 s a run on a
# busy machine) renders the first run's only (history.t checks charts).
export LOADBENCH_GNUPLOT=

# --- --only LABEL --into RUN_DIR reruns one tool, the rest kept ---------
cat > "$tmp/two.yaml" <<'Y'
name: two
load: {connections: 5, duration: 1s}
tools: [lb-gen, {tool: lb-gen, label: second}]
sampling: {interval: 500ms}
Y
"$LB" run --quiet --out "$tmp/run2" "$tmp/two.yaml" >/dev/null 2>&1 || true
first_before=$(jget "$tmp/run2/run.json" runs.0.started_at_ms)
second_before=$(jget "$tmp/run2/run.json" runs.1.started_at_ms)
rc=0; "$LB" run --quiet --only second --into "$tmp/run2" "$tmp/two.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "--only second --into reruns one tool"
n=$(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0]; print scalar @{decode_json(<$f>)->{runs}}' "$tmp/run2/run.json")
is "$n" 2 "the run still has two rows"
is "$(jget "$tmp/run2/run.json" runs.0.started_at_ms)" "$first_before" "the other tool's row is kept as it was"
is "$(jget "$tmp/run2/run.json" runs.1.label)" second "the rerun row replaces the old one"
check "and is new" test "$(jget "$tmp/run2/run.json" runs.1.started_at_ms)" -gt "$second_before"
is "$(jget "$tmp/run2/run.json" runs.1.status)" ok "and ok"
check "the rerun row names the build that made it" test "$(jget "$tmp/run2/run.json" runs.1.rerun.git)" = "$(jget "$tmp/run2/run.json" loadbench.git)"
is "$(jget "$tmp/run2/run.json" runs.0.rerun)" null "the kept row has no rerun record"
rc=0; "$LB" run --quiet --only nosuch --into "$tmp/run2" "$tmp/two.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 2 "--only with an unknown label is refused"
# A tool entry appended to the profile joins the run (a study a new tool
# joins); any other change is refused.
sed 's/^tools: \[lb-gen, {tool: lb-gen, label: second}\]$/tools: [lb-gen, {tool: lb-gen, label: second}, {tool: lb-gen, label: third}]/' \
    "$tmp/two.yaml" > "$tmp/three.yaml"
rc=0; "$LB" run --quiet --only third --into "$tmp/run2" "$tmp/three.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "--into with a tool entry appended to the run's profile adds its row"
is "$(jget "$tmp/run2/run.json" runs.2.label)" third "the new row comes last"
is "$(jget "$tmp/run2/run.json" runs.0.started_at_ms)" "$first_before" "the first row is kept"
is "$(jget "$tmp/run2/run.json" profile.tools.2.label)" third "run.json takes the longer profile"
check "and profile.yaml the profile as written" grep -q 'label: third' "$tmp/run2/profile.yaml"
sed 's/connections: 5/connections: 6/' "$tmp/three.yaml" > "$tmp/changed.yaml"
rc=0; "$LB" run --quiet --only third --into "$tmp/run2" "$tmp/changed.yaml" >"$tmp/changed.out" 2>&1 || rc=$?
is "$rc" 2 "--into with the load changed is refused"
check "saying tool entries may be added" grep -q 'only tool entries may be added after its own' "$tmp/changed.out"

# --- sweeps: each tool runs its own load's levels, a load without a sweep once
cat > "$tmp/sweep.yaml" <<'Y'
name: sweep
load: {sweep: {levels: [2, 3], duration: 1s}}
tools: [lb-gen, {tool: lb-gen, label: fixed, load: {connections: 4, duration: 1s}}]
sampling: {interval: 500ms}
Y
"$LB" run --quiet --out "$tmp/run-sweep" "$tmp/sweep.yaml" >/dev/null 2>&1 || true
rows=$(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0]; print join " ", map { $_->{dir} } @{decode_json(<$f>)->{runs}}' "$tmp/run-sweep/run.json")
is "$rows" "lb-gen@2 fixed lb-gen@3" "a two-level sweep runs the swept tool twice and the fixed-load tool once"
"$LB" plan "$tmp/sweep.yaml" > "$tmp/sweep.plan"
check "plan shows both levels of the swept tool" sh -c "grep -q 'level 2:' '$tmp/sweep.plan' && grep -q 'level 3:' '$tmp/sweep.plan'"
is "$(grep -c 'model as run' "$tmp/sweep.plan")" 3 "plan lists three tool runs"

# --- fault programs -------------------------------------------------------
# fault_profile NAME LABEL:MODE...: a profile whose first rows are the fault
# tool, one row per LABEL in its MODE (its copy in $tmp/NAME/LABEL), followed
# by the real lb-gen, so we see the run goes on after each fault. Each fault
# row is judged by itself, so the faults that end by themselves share one
# run (one start-up, one lb-gen load, one report instead of five).
fault_profile() {
    name=$1; shift
    {
        printf 'name: %s\nload: {connections: 5, duration: 1s}\ngrace: 1s\ntools:\n' "$name"
        for lm in "$@"; do
            mkdir -p "$tmp/$name/${lm%%:*}"
            cp "$LB_SRC/tests/faults/fault-tool.sh" "$tmp/$name/${lm%%:*}/fault-tool.sh"
            echo "${lm#*:}" > "$tmp/$name/${lm%%:*}/.mode"
            printf '  - {tool: lb-gen, label: %s, bin: %s}\n' "${lm%%:*}" "$tmp/$name/${lm%%:*}/fault-tool.sh"
        done
        printf '  - lb-gen\nsampling: {interval: 200ms}\n'
    } > "$tmp/$name.yaml"
}

fault_profile hang fault:hang
rc=0; "$LB" run --quiet --out "$tmp/run-hang" "$tmp/hang.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 1 "a hanging tool makes the run exit 1"
is "$(jget "$tmp/run-hang/run.json" runs.0.status)" timeout "the hanging tool is marked timeout"
is "$(jget "$tmp/run-hang/run.json" runs.1.status)" ok "the next tool still runs"
# This test's copy only ($tmp/hang/...): a neighbour in the other lane
# may be running its own fault-tool.sh (that once made this fail).
check "nothing of the hanging tool is left" sh -c "! ps -eo args | grep -F '$tmp/hang/' | grep -q '[f]ault-tool.sh'"

# The environment the tools get is checked in the same run: none of the
# tools' own variables reach them.
fault_profile faults crash:crash garbage:garbage nothing:nothing daemon:daemonize envcheck:env
rc=0; JAVA_OPTS=-Xmx1m NODE_OPTIONS=--bad K6_VUS=999 LOCUST_HOST=x PYTHONPATH=/x \
    "$LB" run --quiet --out "$tmp/run-faults" "$tmp/faults.yaml" >/dev/null 2>&1 || rc=$?
F=$tmp/run-faults/run.json
is "$rc" 1 "failing tools make the run exit 1"
is "$(jget "$F" runs.0.status)" failed "a crashing tool is failed"
is "$(jget "$F" runs.0.exit.signal)" 11 "with its signal recorded"
is "$(jget "$F" runs.1.status)" failed "exit 0 with a truncated result is failed"
case "$(jget "$F" runs.1.reason)" in *"no result"*) ok 0 "with the reason" ;; *) ok 1 "with the reason" ;; esac
is "$(jget "$F" runs.2.status)" failed "exit 0 with nothing written is failed"
dpid=$(cat "$tmp/run-faults/daemon/daemon.pid" 2>/dev/null || echo 0)
check "the daemonized grandchild was started (pid $dpid)" test "$dpid" -gt 0
check "and is gone after the run" sh -c "! kill -0 $dpid 2>/dev/null"
check "the tool ran and wrote its environment" test -s "$tmp/run-faults/envcheck/env.txt"
check "no JAVA_OPTS, NODE_OPTIONS, K6_*, LOCUST_*, PYTHONPATH reach the tool" \
    sh -c "! grep -Eq '^(JAVA_OPTS|NODE_OPTIONS|K6_|LOCUST_|PYTHONPATH)' '$tmp/run-faults/envcheck/env.txt'"
check "HOME is a fresh directory in the run" grep -q "^HOME=$tmp/run-faults/envcheck/home$" "$tmp/run-faults/envcheck/env.txt"
is "$(jget "$F" runs.5.status)" ok "the real lb-gen after the five faults runs, ok"

# --- plan sends no load ---------------------------------------------------
mkdir -p "$tmp/plan"
cat > "$tmp/plan/fault-tool.sh" <<S
#!/bin/sh
case "\${1:-}" in --version) echo "lb-gen marker 0"; exit 0 ;; esac
touch "$tmp/plan/RAN"
S
chmod +x "$tmp/plan/fault-tool.sh"
printf 'load: {connections: 5, duration: 1s}\ntools: [{tool: lb-gen, bin: %s}]\n' "$tmp/plan/fault-tool.sh" > "$tmp/plan.yaml"
"$LB" plan "$tmp/plan.yaml" > "$tmp/plan.out"
check "plan prints the argv" grep -q -- '--connections=5' "$tmp/plan.out"
check "plan estimates the wall time" grep -q 'estimated wall time' "$tmp/plan.out"
check "plan ran no tool" test ! -e "$tmp/plan/RAN"

# --- SIGINT in the middle of the load ----------------------------------
cat > "$tmp/long.yaml" <<'Y'
name: long
load: {connections: 10, duration: 30s}
tools: [lb-gen, {tool: lb-gen, label: second}]
sampling: {interval: 500ms}
Y
"$LB" run --quiet --out "$tmp/run-int" "$tmp/long.yaml" >/dev/null 2>&1 &
lbpid=$!
sleep 2
kids=$(live_children $lbpid)
kill -INT $lbpid
rc=0; wait $lbpid || rc=$?
is "$rc" 130 "SIGINT: loadbench exits 130"
is "$(jget "$tmp/run-int/run.json" status)" interrupted "run.json says interrupted"
is "$(jget "$tmp/run-int/run.json" runs.0.status)" interrupted "the running tool is marked interrupted"
is "$(jget "$tmp/run-int/run.json" runs.1)" null "the next tool was not started"
left=""
for k in $kids; do kill -0 "$k" 2>/dev/null && left="$left $k"; done
is "$left" "" "every child of loadbench is gone (were:$kids)"
check "summary.md exists for the partial run" test -s "$tmp/run-int/summary.md"

done_testing
