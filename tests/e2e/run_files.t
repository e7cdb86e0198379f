#!/bin/sh
# Inputs that hang or lose a run (issue #29, defects 4-6): every file
# loadbench reads that it did not just write is opened non-blocking, not
# through a symbolic link, and must be a regular file of bounded size; a
# full disk keeps the last good run.json, says so and exits 1, and leaves
# no chart cut short. Each hang is caught by timeout(1) (exit 124 is the
# defect), never waited out.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
. "$LB_SRC/tests/lib/run-faults.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
T=20 # seconds: each command answers in well under 1 s; a hang is for ever

# A FIFO where run.json should be, beside a lock whose owner is gone (a
# boot id that is not this boot's: proven dead).
mkdir -p "$tmp/res/fifo-run"
mkfifo "$tmp/res/fifo-run/run.json"
echo "loadbench pid 1 start 1 boot 00000000-0000-0000-0000-000000000000 pidns 1" >"$tmp/res/fifo-run/loadbench.lock"

# try NAME COMMAND...: the command ends within T s and names the FIFO.
try() {
    name=$1; shift
    rc=0; timeout "$T" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
    check "$name: ends within ${T} s (exit $rc; 124 is a hang)" test "$rc" -ne 124
    check "$name: says the FIFO is refused ($(head -c 160 "$tmp/err"))" grep -q 'run.json: is a FIFO, not a regular file' "$tmp/err"
}
try "report on a FIFO run.json" "$LB" report "$tmp/res/fifo-run"
is "$rc" 2 "report on a FIFO run.json: exit 2"
try "history on a FIFO run.json" "$LB" history --out "$tmp/hist" "$tmp/res/fifo-run"
try "compare on a FIFO run.json" "$LB" compare "$tmp/res/fifo-run" "$tmp/res/fifo-run"
try "doctor --results with a stale lock beside a FIFO run.json" "$LB" doctor --results "$tmp/res"
check "doctor: the lock stays (nothing was proven about a run it cannot read)" test -e "$tmp/res/fifo-run/loadbench.lock"
printf 'name: tiny\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\nsampling: {interval: 200ms}\n' >"$tmp/tiny.yaml"
try "run --results with a stale lock beside a FIFO run.json" "$LB" run --quiet --results "$tmp/res" "$tmp/tiny.yaml"
is "$rc" 0 "run --results: the new run itself is run (exit 0)"

# A tool whose result file is a FIFO, or a link to a file only root may
# read: the row fails naming the file; nothing waits, nothing is read.
tool_profile() { # NAME MODE
    mkdir -p "$tmp/$1"
    cp "$LB_SRC/tests/faults/fault-tool.sh" "$tmp/$1/fault-tool.sh"
    echo "$2" >"$tmp/$1/.mode"
    printf 'name: %s\nload: {connections: 1, duration: 1s}\ngrace: 1s\nsampling: {interval: 200ms}\ntools:\n  - {tool: lb-gen, label: fault, bin: %s}\n' \
        "$1" "$tmp/$1/fault-tool.sh" >"$tmp/$1.yaml"
}
tool_profile tfifo fifo
rc=0; timeout 60 "$LB" run --quiet --out "$tmp/run-tfifo" "$tmp/tfifo.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 1 "a FIFO summary.json: the run ends, exit 1 (124 is a hang)"
is "$(jget "$tmp/run-tfifo/run.json" runs.0.status)" failed "a FIFO summary.json: the row is failed"
case "$(jget "$tmp/run-tfifo/run.json" runs.0.reason)" in *"summary.json"*"is a FIFO"*) ok 0 "a FIFO summary.json: the reason names it" ;;
    *) ok 1 "a FIFO summary.json: the reason names it"; diag "reason: $(jget "$tmp/run-tfifo/run.json" runs.0.reason)" ;; esac

tool_profile tlink symlink
printf '{"schema":"lb-gen/1","requests":{"completed":100,"ok":100},"errors":{},"time":{"load_s":1.0},"latency_ms":{"min":0.5,"p50":1.0,"p99":2.0,"max":3.0}}\n' >"$tmp/secret.json"
chmod 600 "$tmp/secret.json"
echo "$tmp/secret.json" >"$tmp/tlink/.secret"
rc=0; timeout 60 "$LB" run --quiet --out "$tmp/run-tlink" "$tmp/tlink.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 1 "a summary.json linked to a root-only file: exit 1"
is "$(jget "$tmp/run-tlink/run.json" runs.0.status)" failed "a linked summary.json: the row is failed, not read through the link"
case "$(jget "$tmp/run-tlink/run.json" runs.0.reason)" in *"is a symbolic link: refused"*) ok 0 "a linked summary.json: the reason says so" ;;
    *) ok 1 "a linked summary.json: the reason says so"; diag "reason: $(jget "$tmp/run-tlink/run.json" runs.0.reason)" ;; esac

# --- a full disk: a tmpfs in a private mount namespace ----------------------
# full SIZE NAME: run two lb-gen rows onto a SIZE tmpfs, then doctor there;
# the namespace goes with the script, so nothing is left mounted.
printf 'name: two\nload: {connections: 2, duration: 1s}\ntools: [lb-gen, {tool: lb-gen, label: b}]\nsampling: {interval: 200ms}\n' >"$tmp/two.yaml"
cat >"$tmp/full.sh" <<'S'
#!/bin/sh
# $1 size, $2 where, $3 loadbench, $4 profile: inside unshare -m
mount --make-rprivate / 2>/dev/null || true
mkdir -p "$2/mnt" && mount -t tmpfs -o "size=$1" lbfull "$2/mnt" || exit 99
rc=0; timeout 120 "$3" run --quiet --out "$2/mnt/run" "$4" >/dev/null 2>"$2/run.err" || rc=$?
echo "$rc" >"$2/run.rc"
mkdir -p "$2/after-run" && cp "$2/mnt/run/run.json" "$2/after-run/" 2>/dev/null || true
ls -la "$2/mnt/run" >"$2/ls.after-run" 2>&1
timeout 60 "$3" doctor --results "$2/mnt" >/dev/null 2>"$2/doctor.err"
cp -r "$2/mnt/run" "$2/copy"
S
chmod +x "$tmp/full.sh"
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! unshare -m true 2>/dev/null; then
    for i in 1 2 3 4 5 6 7 8 9 10 11; do skip "full disk: needs root and unshare -m for a private tmpfs"; done
else
    mkdir "$tmp/f40"
    unshare -m "$tmp/full.sh" 40k "$tmp/f40" "$LB" "$tmp/two.yaml" || diag "full.sh: exit $?"
    is "$(cat "$tmp/f40/run.rc")" 1 "40 KB disk: exit 1 (a tool ran: not 2, nothing run)"
    check "40 KB disk: stderr says disk full, naming run.json ($(head -c 200 "$tmp/f40/run.err"))" \
        grep -q 'disk full: cannot write .*/run/run.json' "$tmp/f40/run.err"
    check "40 KB disk: run.json after the run is whole JSON" json_all_valid "$tmp/f40/after-run"
    is "$(jget "$tmp/f40/after-run/run.json" status)" running "40 KB disk: run.json is the last one written (status running)"
    is "$(jget "$tmp/f40/after-run/run.json" runs.0.label)" lb-gen "40 KB disk: the row measured is kept (lb-gen)"
    check "40 KB disk: the lock is left for doctor" grep -q loadbench.lock "$tmp/f40/ls.after-run"
    is "$(jget "$tmp/f40/copy/run.json" status)" abandoned "40 KB disk: doctor marks the run abandoned"
    check "40 KB disk: doctor removed the lock and every temporary" sh -c "test ! -e '$tmp/f40/copy/loadbench.lock' && ! ls '$tmp/f40/copy' | grep -q '\\.tmp\\.'"

    mkdir "$tmp/f200"
    unshare -m "$tmp/full.sh" 200k "$tmp/f200" "$LB" "$tmp/two.yaml" || diag "full.sh: exit $?"
    check "200 KB disk: no zero-byte chart" sh -c "! find '$tmp/f200/copy/charts' -name '*.png' -size 0 | grep -q . && ! find '$tmp/f200/copy/charts' -name '*.svg' -size 0 | grep -q ."
    check "200 KB disk: every SVG is whole (ends with </svg>)" \
        sh -c "for f in '$tmp/f200/copy/charts/'*.svg; do [ -e \"\$f\" ] || continue; tail -c 16 \"\$f\" | grep -q '</svg>' || exit 1; done"
    check "200 KB disk: every PNG is whole (ends with IEND)" \
        perl -e 'for (glob "$ARGV[0]/*.png") { open my $f, "<:raw", $_ or exit 1; local $/; my $d = <$f>; exit 1 unless substr($d, -8) eq "IEND\xaeB`\x82" }' "$tmp/f200/copy/charts"
fi
done_testing
