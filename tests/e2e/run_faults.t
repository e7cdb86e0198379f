#!/bin/sh
# loadbench run under faults (issue #9, hardening): a tool that floods its
# output, lb-target killed mid-run, SIGINT/SIGTERM at random moments, an
# output directory that cannot be written or fills up, a tool binary that is
# missing or not executable, and a tool above its memory limit; and (issue
# #19) a CPU the machine does not give, a bin: that is not the tool,
# impossible numbers from a tool, a non-UTF-8 skip reason, and --into with
# another profile. Every case
# checks that no process is left behind and that every JSON file of the run
# parses. Faults come from tests/faults/fault-tool.sh (a fault program made
# to fail on purpose) and from this script (kill, mount).
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
. "$LB_SRC/tests/lib/run-faults.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
. "$LB_SRC/tests/lib/own-netns.sh"
cd "$LB_SRC"

mounts=""
cleanup_mounts() { for m in $mounts; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done; }
trap 'cleanup_mounts; tap_cleanup' EXIT

# lb-target through a wrapper that leaves a mark: "was a target started?"
cat > "$tmp/target-wrap.sh" <<S
#!/bin/sh
touch "$tmp/TARGET_STARTED"
exec "$LB_BUILD/bin/lb-target" "\$@"
S
chmod +x "$tmp/target-wrap.sh"

# run_lb OUT PROFILE [env...]: loadbench run in its own session, in the
# background; sets $lbpid. No charts (LOADBENCH_GNUPLOT empty): these runs
# are judged by their rows and files, and gnuplot took about 1.5 s a run on
# a busy machine. The signal and full-disk runs below keep theirs (report
# writing is a phase the signals aim at; charts help fill the disk).
run_lb() {
    out=$1 prof=$2; shift 2
    env LOADBENCH_GNUPLOT= "$@" setsid "$LB" run --out "$out" "$prof" >"$out.stdout" 2>"$out.stderr" &
    lbpid=$!
}

# fault_profile NAME MODE [EXTRA_TOOL_KEYS]: the fault tool in MODE, then the real lb-gen.
fault_profile() {
    mkdir -p "$tmp/$1"
    cp "$LB_SRC/tests/faults/fault-tool.sh" "$tmp/$1/fault-tool.sh"
    echo "$2" > "$tmp/$1/.mode"
    cat > "$tmp/$1.yaml" <<Y
name: $1
load: {connections: 2, duration: 1s}
grace: 2s
tools:
  - {tool: lb-gen, label: fault, bin: $tmp/$1/fault-tool.sh${3:+, $3}}
  - lb-gen
sampling: {interval: 200ms}
Y
}

# --- 1. a tool that floods stdout with 300 MB ------------------------------
fault_profile flood flood
run_lb "$tmp/run-flood" "$tmp/flood.yaml"
rc=0; wait $lbpid || rc=$?
J=$tmp/run-flood/run.json
is "$rc" 1 "flood: the run ends with exit 1 (a tool failed)"
is "$(jget "$J" status)" complete "flood: run.json says complete"
is "$(jget "$J" runs.0.status)" failed "flood: the flooding tool (no result) is failed"
is "$(jget "$J" runs.1.status)" ok "flood: the next tool still runs, ok"
size=$(stat -c %s "$tmp/run-flood/fault/stdout.txt")
check "flood: kept stdout is bounded ($size bytes <= 16 MiB + 1 KiB)" test "$size" -le $((16 * 1048576 + 1024))
check "flood: and holds the first and last 8 MiB ($size bytes)" test "$size" -ge $((16 * 1048576))
is "$(jget "$J" runs.0.output_truncated.stdout)" $((300000000 - 16 * 1048576)) "flood: run.json says how many bytes were left out"
check "flood: stdout.txt carries the truncation marker" grep -aq '^\[loadbench: output truncated: ' "$tmp/run-flood/fault/stdout.txt"
check "flood: every JSON file parses" json_all_valid "$tmp/run-flood"
is "$(leftovers $lbpid)" "" "flood: no process left"

# --- 2. lb-target killed mid-run -------------------------------------------
cat > "$tmp/tdie.yaml" <<'Y'
name: tdie
load: {connections: 5, duration: 6s}
tools: [lb-gen, {tool: lb-gen, label: second, load: {connections: 2, duration: 1s}}]
sampling: {interval: 200ms}
Y
run_lb "$tmp/run-tdie" "$tmp/tdie.yaml"
tpid=""
for i in $(seq 1 900); do  # up to 90 s: a loaded machine may first wait for TIME_WAIT to drain
    for k in $(live_children $lbpid); do
        [ "$(cat /proc/$k/comm 2>/dev/null)" = lb-target ] && tpid=$k
    done
    [ -n "$tpid" ] && break
    sleep 0.1
done
sleep 1.5
check "target death: found the lb-target loadbench started (pid ${tpid:-none})" test -n "$tpid"
[ -n "$tpid" ] && kill -KILL "$tpid"
rc=0; wait $lbpid || rc=$?
J=$tmp/run-tdie/run.json
is "$rc" 1 "target death: exit 1 (a tool run failed)"
is "$(jget "$J" runs.0.status)" failed "target death: the tool run is failed"
case "$(jget "$J" runs.0.reason)" in *"lb-target died"*) ok 0 "target death: the reason names lb-target" ;;
    *) ok 1 "target death: the reason names lb-target"; diag "reason: $(jget "$J" runs.0.reason)" ;; esac
check "target death: the partial samples are kept" test -s "$tmp/run-tdie/samples/lb-gen.csv"
check "target death: the tool's partial client result is kept" test "$(jget "$J" runs.0.client.requests)" -gt 0
check "target death: the server's counts at the last sample are kept" test "$(jget "$J" runs.0.server.requests)" -gt 0
is "$(jget "$J" runs.0.server_partial)" true "target death: and marked partial"
is "$(jget "$J" runs.1.status)" ok "target death: the next tool runs on a fresh lb-target"
is "$(jget "$J" status)" complete "target death: the run completes"
check "target death: the log names the cause" grep -q 'lb-gen: failed (lb-target died' "$tmp/run-tdie.stderr"
check "target death: every JSON file parses" json_all_valid "$tmp/run-tdie"
is "$(leftovers $lbpid)" "" "target death: no process left"

# --- 3. SIGINT and SIGTERM at random moments ------------------------------
# A two-tool profile that runs about 3 s end to end when the machine is idle.
# Iteration i aims at phase i mod 5 (start-up, the first tool's load and
# parse, the 300 ms cooldown between the tools, the second tool's load and
# parse, report writing): it waits for the log
# line that opens the phase, then a random 0-400 ms more (between the
# tools: 0-200 ms; start-up: 0-400 ms from the start), then
# sends SIGINT or SIGTERM (at random). Every time: no
# process of the run is left, and the run directory is absent (killed before
# it was made) or has a run.json that parses, complete or interrupted, with
# every JSON file whole. Up to 30 iterations within 90 s.
cat > "$tmp/sig.yaml" <<'Y'
name: sig
load: {connections: 2, duration: 500ms}
tools: [lb-gen, {tool: lb-gen, label: second}]
sampling: {interval: 100ms}
grace: 2s
cooldown: 300ms
Y
mkdir -p "$tmp/sig"
iters=0 bad_left=0 bad_dir=0 bad_rc=0 phases="" sig_t0=$(date +%s)
# At least 10 iterations whatever the machine's load (how many fit in 90 s
# is the machine's speed, not what this test checks; 600 s only stops a run
# that has gone wrong), then more while 90 s allow, up to 30.
sig_el() { echo $(($(date +%s) - sig_t0)); }
while [ $iters -lt 30 ] && [ "$(sig_el)" -lt 600 ] && { [ $iters -lt 10 ] || [ "$(sig_el)" -lt 90 ]; }; do
    r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
    sig=INT; [ $((r % 2)) = 1 ] && sig=TERM
    jitter_ms=$((r % 401))
    out=$tmp/sig/$iters
    setsid "$LB" run --out "$out" "$tmp/sig.yaml" >"$out.stdout" 2>"$out.stderr" &
    lbpid=$!
    case $((iters % 5)) in
        0) aim=start-up ;;
        1) aim=load-1; wait_line "$out.stderr" '^loadbench: lb-gen: starting' $lbpid ;;
        2) aim=between; jitter_ms=$((r % 201)); wait_line "$out.stderr" '^loadbench: lb-gen: \(ok\|failed\|timeout\|oom\)' $lbpid ;;
        3) aim=load-2; wait_line "$out.stderr" '^loadbench: second: starting' $lbpid ;;
        4) aim=reports; wait_line "$out.stderr" '^loadbench: second: .*req/s' $lbpid ;;
    esac
    iters=$((iters + 1))
    sleep "$(printf '0.%03d' $jitter_ms)"
    # The phase it was really in, from the last log line before the signal.
    last=$(grep '^loadbench: ' "$out.stderr" 2>/dev/null | tail -n 1)
    state=$(awk '{ print $3 }' /proc/$lbpid/stat 2>/dev/null || echo gone)
    if [ "$state" = Z ] || [ "$state" = gone ]; then phase=after-exit
    else case "$last" in
        ""|*"run directory"*) phase=start-up ;;
        "loadbench: lb-gen: starting") phase=load-1 ;;
        "loadbench: lb-gen: "*) phase=between ;;
        "loadbench: second: starting") phase=load-2 ;;
        "loadbench: second: "*) phase=reports ;;
        *) phase=after-exit ;;
    esac; fi
    kill -$sig $lbpid 2>/dev/null || phase=after-exit
    rc=0; wait $lbpid || rc=$?
    phases="$phases $phase"
    left=$(leftovers $lbpid)
    if [ -n "$left" ]; then
        bad_left=$((bad_left + 1)); diag "iteration $iters (SIG$sig, aimed $aim, in $phase): left: $left"
        for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
    fi
    st=absent
    if [ -e "$out" ]; then
        st=$(jget "$out/run.json" status 2>/dev/null || echo unreadable)
        case "$st" in complete|interrupted) json_all_valid "$out" || st="bad JSON" ;; esac
    fi
    case "$rc/$st" in
        0/complete|130/interrupted) ;;
        130/absent|143/absent) ;;  # killed before its handlers were set: nothing was made
        *) case "$st" in complete|interrupted|absent) bad_rc=$((bad_rc + 1)) ;; *) bad_dir=$((bad_dir + 1)) ;; esac
           diag "iteration $iters (SIG$sig, aimed $aim, in $phase): exit $rc, run.json: $st" ;;
    esac
done
diag "signals: $iters iterations in $(($(date +%s) - sig_t0)) s; phases:$(echo $phases | tr ' ' '\n' | sort | uniq -c | awk '{printf " %s x%s", $2, $1}')"
check "signals: at least 10 iterations ran ($iters)" test "$iters" -ge 10
check "signals: every phase was hit" sh -c "for p in start-up load-1 between load-2 reports; do echo '$phases' | grep -qw \$p || exit 1; done"
is "$bad_left" 0 "signals: no process left behind in any of $iters iterations"
is "$bad_dir" 0 "signals: the run directory is absent or has a whole run.json, complete or interrupted, every time"
is "$bad_rc" 0 "signals: the exit code matches (0 complete, 130 interrupted) every time"

# --- 4. setup faults: each one line, exit 2, before any lb-target starts ---
cat > "$tmp/two.yaml" <<'Y'
name: two
load: {connections: 2, duration: 1s}
tools: [lb-gen, {tool: lb-gen, label: second}]
sampling: {interval: 200ms}
Y
# setup_fault NAME OUT PROFILE: run with the marking target wrapper; check
# exit 2, one line on stderr matching WANT, no target started, no process left.
setup_fault() {
    name=$1 out=$2 prof=$3 want=$4 errf=$tmp/$(echo "$1" | tr -c 'a-z0-9\n' _).err
    rm -f "$tmp/TARGET_STARTED"
    env LOADBENCH_TARGET="$tmp/target-wrap.sh" setsid "$LB" run --quiet --out "$out" "$prof" >/dev/null 2>"$errf" &
    lbpid=$!
    rc=0; wait $lbpid || rc=$?
    is "$rc" 2 "$name: exit 2"
    check "$name: one line on stderr saying why ($(head -c 120 "$errf"))" \
        sh -c "test \$(wc -l < '$errf') -eq 1 && grep -q '$want' '$errf'"
    check "$name: no lb-target was started, so no load was sent" test ! -e "$tmp/TARGET_STARTED"
    is "$(leftovers $lbpid)" "" "$name: no process left"
}
touch "$tmp/afile"
setup_fault "out under a file" "$tmp/afile/run" "$tmp/two.yaml" "cannot create the run directory .*Not a directory"
setup_fault "out under /proc" "/proc/lb-run" "$tmp/two.yaml" "cannot create the run directory /proc/lb-run"

fault_profile missing nothing
sed -i "s|bin: $tmp/missing/fault-tool.sh|bin: $tmp/missing/no-such-tool|" "$tmp/missing.yaml"
setup_fault "tool binary missing" "$tmp/run-missing" "$tmp/missing.yaml" "missing.yaml:5:5: fault: bin .*no-such-tool: No such file"
check "tool binary missing: no run directory was made" test ! -e "$tmp/run-missing"
fault_profile noexec nothing
chmod 644 "$tmp/noexec/fault-tool.sh"
setup_fault "tool binary not executable" "$tmp/run-noexec" "$tmp/noexec.yaml" "noexec.yaml:5:5: fault: bin .*fault-tool.sh: not executable"

# A port already in use cannot happen: lb-target binds port 0 (the kernel
# picks a free one) for every tool run, and a profile cannot name a port.
printf 'target: {port: 8080}\nload: {connections: 2, duration: 1s}\ntools: [lb-gen]\n' > "$tmp/port.yaml"
setup_fault "a profile naming a port" "$tmp/run-port" "$tmp/port.yaml" 'unknown key "port"'

if [ "$(id -u)" = 0 ] && mkdir -p "$tmp/ro" && mount -t tmpfs -o ro,size=64k lb-ro "$tmp/ro" 2>/dev/null; then
    mounts="$mounts $tmp/ro"
    setup_fault "read-only output dir" "$tmp/ro/run" "$tmp/two.yaml" "Read-only file system"
else
    ok 0 "# SKIP read-only output dir: needs root and mount -t tmpfs"
fi

# A full disk: a 64 KiB tmpfs fills during the run. run.json is written by
# rename, so the one on disk is whole (the last good one) and the error says
# so; a tool ran, so the exit is 1, not 2 ("nothing run", issue #29).
if [ "$(id -u)" = 0 ] && mkdir -p "$tmp/full" && mount -t tmpfs -o size=64k lb-full "$tmp/full" 2>/dev/null; then
    mounts="$mounts $tmp/full"
    setsid "$LB" run --quiet --out "$tmp/full/run" "$tmp/two.yaml" >/dev/null 2>"$tmp/full.err" &
    lbpid=$!
    rc=0; wait $lbpid || rc=$?
    is "$rc" 1 "full disk: exit 1 (tools ran)"
    check "full disk: one line naming the cause ($(head -c 150 "$tmp/full.err"))" \
        sh -c "test \$(wc -l < '$tmp/full.err') -eq 1 && grep -q 'disk full: .*run.json: No space left on device' '$tmp/full.err'"
    check "full disk: run.json is there and parses (status $(jget "$tmp/full/run/run.json" status))" \
        test -n "$(jget "$tmp/full/run/run.json" schema_version)"
    check "full disk: no half-written file" json_all_valid "$tmp/full/run"
    is "$(leftovers $lbpid)" "" "full disk: no process left"
else
    ok 0 "# SKIP full disk: needs root and mount -t tmpfs"
fi

# --- 5. issue #19: setups that started, or ran and misled ----------------
# A CPU this process may not run on, alone or in a tool range: exit 2 before
# anything starts (it used to make the run directory and fail the row).
cpu=$(absent_cpu)
if [ -n "$cpu" ]; then
    printf 'load: {connections: 2, duration: 1s}\ntools: [lb-gen]\ncpus: {target: [%s]}\n' "$cpu" > "$tmp/cpu.yaml"
    setup_fault "cpus.target [$cpu] (not allowed here)" "$tmp/run-cpu" "$tmp/cpu.yaml" "cpu.yaml:3:16: cpus.target: CPU $cpu is not one"
    check "cpus.target [$cpu]: no run directory was made" test ! -e "$tmp/run-cpu"
    printf 'load: {connections: 2, duration: 1s}\ntools: [lb-gen]\ncpus: {tool: ["0-%s"]}\n' "$cpu" > "$tmp/cpur.yaml"
    setup_fault "cpus.tool [\"0-$cpu\"]" "$tmp/run-cpur" "$tmp/cpur.yaml" "cpur.yaml:3:14: cpus.tool: CPU [0-9]* is not one"
else
    for i in 1 2 3 4 5 6 7 8 9; do skip "every CPU 0-63 is allowed here: no absent CPU to pin to"; done
fi

# A bin: that exists but is not the tool (its version probe fails): exit 2
# before any load, like a missing one (it used to be a skipped row, exit 0).
fault_profile badbin nothing
cp "$LB_SRC/tests/faults/fault-badversion.sh" "$tmp/badbin/fault-badversion.sh"
sed -i "s|bin: $tmp/badbin/fault-tool.sh|bin: $tmp/badbin/fault-badversion.sh|" "$tmp/badbin.yaml"
setup_fault "tool bin that is not the tool" "$tmp/run-badbin" "$tmp/badbin.yaml" \
    "badbin.yaml:5:5: fault: bin .*fault-badversion.sh does not work as lb-gen: .*--version failed"
check "tool bin that is not the tool: no run directory was made" test ! -e "$tmp/run-badbin"

# Numbers no tool can have measured (a P50 of 1e300 ms): the row fails as
# unparseable output and no client figures are printed.
fault_profile unphys unphysical
run_lb "$tmp/run-unphys" "$tmp/unphys.yaml"
rc=0; wait $lbpid || rc=$?
J=$tmp/run-unphys/run.json
is "$rc" 1 "unphysical numbers: exit 1 (a tool run failed)"
is "$(jget "$J" runs.0.status)" failed "unphysical numbers: the row is failed"
case "$(jget "$J" runs.0.reason)" in *"unparseable output: the tool reported its latency p50 = 1e+300 ms"*)
    ok 0 "unphysical numbers: the reason says unparseable output and names the P50" ;;
    *) ok 1 "unphysical numbers: the reason says unparseable output and names the P50"; diag "reason: $(jget "$J" runs.0.reason)" ;; esac
is "$(jget "$J" runs.0.client)" null "unphysical numbers: no client figures are recorded"
check "unphysical numbers: summary.md prints no 1e300 P50 (only the reason names it)" \
    sh -c "! grep -E '[0-9]{30}|1e\\+?300' '$tmp/run-unphys/summary.md' | grep -v 'unparseable output' | grep -q ."
is "$(jget "$J" runs.1.status)" ok "unphysical numbers: the next tool runs, ok"

# A skip reason with bytes that are not UTF-8 (a `wrk` on PATH that is not
# wrk, answering -v with them) is kept in run.json, escaped.
mkdir -p "$tmp/fakebin"
cp "$LB_SRC/tests/faults/fault-badversion.sh" "$tmp/fakebin/wrk"
printf 'name: u8\nload: {connections: 2, duration: 1s}\ntools: [wrk, lb-gen]\nsampling: {interval: 200ms}\n' > "$tmp/u8.yaml"
rc=0; env LOADBENCH_GNUPLOT= PATH="$tmp/fakebin:$PATH" "$LB" run --quiet --out "$tmp/run-u8" "$tmp/u8.yaml" >/dev/null 2>&1 || rc=$?
J=$tmp/run-u8/run.json
is "$rc" 0 "non-UTF-8 reason: exit 0 (a tool not installed is skipped)"
is "$(jget "$J" runs.0.status)" skipped "non-UTF-8 reason: the fake wrk's row is skipped"
case "$(jget "$J" runs.0.reason)" in *'did not print a wrk version: not-a-tool \xFF\xFE caf\xE9'*)
    ok 0 "non-UTF-8 reason: the reason is kept, its bytes escaped" ;;
    *) ok 1 "non-UTF-8 reason: the reason is kept, its bytes escaped"; diag "reason: $(jget "$J" runs.0.reason)" ;; esac
check "non-UTF-8 reason: every JSON file parses" json_all_valid "$tmp/run-u8"

# --only/--into with another profile, or a changed one: refused, naming both;
# the run is left as it was. The same profile (from another file) reruns.
printf 'name: into\nload: {connections: 2, duration: 1s}\ntools: [lb-gen]\nsampling: {interval: 200ms}\n' > "$tmp/into.yaml"
sed 's/connections: 2/connections: 20/' "$tmp/into.yaml" > "$tmp/into20.yaml"
rc=0; LOADBENCH_GNUPLOT= "$LB" run --quiet --out "$tmp/run-into" "$tmp/into.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "--into: the first run (2 connections) is ok"
cp "$tmp/run-into/run.json" "$tmp/into-before.json"
rm -f "$tmp/TARGET_STARTED"
rc=0; env LOADBENCH_TARGET="$tmp/target-wrap.sh" "$LB" run --quiet --only lb-gen --into "$tmp/run-into" "$tmp/into20.yaml" \
    >/dev/null 2>"$tmp/into.err" || rc=$?
is "$rc" 2 "--into with a changed profile (20 connections): exit 2"
check "--into: one line naming both profiles ($(head -c 200 "$tmp/into.err"))" \
    sh -c "test \$(wc -l < '$tmp/into.err') -eq 1 && grep -q 'that run is of profile \"into\" (.*into.yaml, sha256 [0-9a-f]*), not of \"into\" (.*into20.yaml, sha256 [0-9a-f]*)' '$tmp/into.err'"
check "--into: no lb-target was started" test ! -e "$tmp/TARGET_STARTED"
check "--into: run.json is untouched" cmp -s "$tmp/run-into/run.json" "$tmp/into-before.json"
cp "$tmp/into.yaml" "$tmp/into-copy.yaml"
rc=0; LOADBENCH_GNUPLOT= "$LB" run --quiet --only lb-gen --into "$tmp/run-into" "$tmp/into-copy.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "--into with the same profile from another file: reruns, exit 0"
is "$(jget "$tmp/run-into/run.json" runs.0.load.stages.0.target)" 2 "--into: the rerun row is the profile's 2 connections"

# --- 6. a tool above its memory_limit is OOM-killed, and only it ----------
fault_profile oom oom "memory_limit: 64MiB"
run_lb "$tmp/run-oom" "$tmp/oom.yaml"
for i in $(seq 1 900); do [ -s "$tmp/run-oom/fault/tool.pid" ] && break; sleep 0.1; done
toolpid=$(cat "$tmp/run-oom/fault/tool.pid" 2>/dev/null || echo 0)
tpid=0
for k in $(live_children $lbpid); do [ "$(cat /proc/$k/comm 2>/dev/null)" = lb-target ] && tpid=$k; done
adj_tool=$(cat /proc/$toolpid/oom_score_adj 2>/dev/null || echo none)
adj_tgt=$(cat /proc/$tpid/oom_score_adj 2>/dev/null || echo none)
adj_lb=$(cat /proc/$lbpid/oom_score_adj 2>/dev/null || echo none)
rc=0; wait $lbpid || rc=$?
J=$tmp/run-oom/run.json
if grep -q 'memory_limit not enforced' "$J"; then
    ok 0 "# SKIP memory limit: $(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0]; print grep { /cgroup/ } @{decode_json(<$f>)->{runs}[0]{warnings}}' "$J")"
else
    is "$(jget "$J" runs.0.status)" oom "memory limit: the tool above 64 MiB ends with status oom"
    case "$(jget "$J" runs.0.reason)" in *"memory limit (67108864 bytes)"*) ok 0 "memory limit: the reason names the limit" ;;
        *) ok 1 "memory limit: the reason names the limit"; diag "reason: $(jget "$J" runs.0.reason)" ;; esac
    is "$(jget "$J" runs.1.status)" ok "memory limit: the next tool still runs"
fi
diag "oom_score_adj while running: tool $adj_tool, lb-target $adj_tgt, loadbench $adj_lb"
is "$adj_tool" 1000 "oom_score_adj: the tool is the kernel's first choice (1000)"
check "oom_score_adj: lb-target ($adj_tgt) and loadbench ($adj_lb) are below the tool" \
    test "$adj_tgt" -lt "$adj_tool" -a "$adj_lb" -lt "$adj_tool"
check "memory limit: every JSON file parses" json_all_valid "$tmp/run-oom"
is "$(leftovers $lbpid)" "" "memory limit: no process left"
done_testing
