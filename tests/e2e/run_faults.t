#!/bin/sh
# loadbench run under faults (issue #9, hardening): a tool that floods its
# output, lb-target killed mid-run, SIGINT/SIGTERM at random moments, an
# output directory that cannot be written or fills up, a tool binary that is
# missing or not executable, and a tool above its memory limit. Every case
# checks that no process is left behind and that every JSON file of the run
# parses. Faults come from tests/faults/fault-tool.sh (a fault program made
# to fail on purpose) and from this script (kill, mount).
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
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

# leftovers SID: pids still alive in loadbench's session SID (loadbench is
# started with setsid, so its pid is the session id), or whose command line
# names this test's temp dir (a tool that setsid'd away). Zombies count.
leftovers() {
    perl -e '
        my ($sid, $tmp) = @ARGV; my @left;
        for my $d (glob "/proc/[0-9]*") {
            my ($pid) = $d =~ m{(\d+)$}; next if $pid == $$ || $pid == getppid();
            open my $f, "<", "$d/stat" or next; my $st = <$f>; close $f;
            my @s = split / /, substr($st, rindex($st, ")") + 2);
            my $cmd = ""; if (open my $c, "<", "$d/cmdline") { local $/; $cmd = <$c> // ""; }
            push @left, $pid if $s[3] == $sid || index($cmd, $tmp) >= 0 && $cmd !~ /run_faults/;
        }
        print join(" ", @left);
    ' "$1" "$tmp"
}

# json_all_valid DIR: every *.json under DIR parses, and no temporary file
# of an atomic write (*.tmp.PID) is left.
json_all_valid() {
    perl -MJSON::PP -MFile::Find -e '
        my $bad = 0;
        find(sub {
            return unless -f;
            if (/\.tmp\.\d+$/) { print STDERR "left: $File::Find::name\n"; $bad++; return }
            return unless /\.json$/;
            local $/; open my $f, "<", $_ or return; my $t = <$f>;
            eval { decode_json($t); 1 } or do { print STDERR "bad JSON: $File::Find::name\n"; $bad++ };
        }, $ARGV[0]);
        exit($bad ? 1 : 0);
    ' "$1"
}

# run_lb OUT PROFILE [env...]: loadbench run in its own session, in the
# background; sets $lbpid.
run_lb() {
    out=$1 prof=$2; shift 2
    env "$@" setsid "$LB" run --out "$out" "$prof" >"$out.stdout" 2>"$out.stderr" &
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
for i in $(seq 1 50); do
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
done_testing
