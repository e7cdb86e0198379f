#!/bin/sh
# Output paths never clobber (issue 44, defect 1): every file loadbench
# writes goes through common/fsutil.c's one mechanism. "-" is standard
# output; an existing path that is a link, a device, a FIFO or a directory
# is refused with exit 2 (the message says "-" is the way), and so is a
# --junit inside a compared run directory. The last test fails when a new
# caller opens or renames an output another way.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
F=$LB_SRC/tests/fixtures/runs
cp -r "$F/sweep-a" "$tmp/A"
cp -r "$F/sweep-b" "$tmp/B"
sha() { sha256sum "$1" | cut -d' ' -f1; }

# --- compare --junit ------------------------------------------------------
mkfifo "$tmp/fifo"
rc=0; "$LB" compare "$tmp/A" "$tmp/B" --junit "$tmp/fifo" >/dev/null 2>"$tmp/1.err" || rc=$?
is "$rc" 2 "--junit FIFO: exit 2"
check "the FIFO is still a FIFO" test -p "$tmp/fifo"
check "the message says - is the way to standard output" grep -q 'is a FIFO, not a regular file: refused.*give - for standard output' "$tmp/1.err"

echo keep >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.xml"
rc=0; "$LB" compare "$tmp/A" "$tmp/B" --junit "$tmp/link.xml" >/dev/null 2>"$tmp/2.err" || rc=$?
is "$rc" 2 "--junit SYMLINK: exit 2 (a link, as /dev/stdout is, is never replaced)"
check "the link is still a link" test -L "$tmp/link.xml"
check "its target is untouched" grep -qx keep "$tmp/target"
check "the message names the link" grep -q 'link.xml is a symbolic link' "$tmp/2.err"

rc=0; "$LB" compare "$tmp/A" "$tmp/B" --junit "$tmp" >/dev/null 2>&1 || rc=$?
is "$rc" 2 "--junit DIRECTORY: exit 2"

if mknod "$tmp/null" c 1 3 2>/dev/null; then
    rc=0; "$LB" compare "$tmp/A" "$tmp/B" --junit "$tmp/null" >/dev/null 2>"$tmp/3.err" || rc=$?
    is "$rc" 2 "--junit DEVICE (a copy of /dev/null made here): exit 2"
    check "the device is still a character device" test -c "$tmp/null"
    check "the message names a character device" grep -q 'is a character device' "$tmp/3.err"
else
    skip "--junit DEVICE: mknod needs root"; skip "the device is kept"; skip "the message"
fi

before=$(sha "$tmp/A/run.json")
rc=0; "$LB" compare "$tmp/A" "$tmp/B" --junit "$tmp/A/run.json" >/dev/null 2>"$tmp/4.err" || rc=$?
is "$rc" 2 "--junit BASELINE/run.json: exit 2"
is "$(sha "$tmp/A/run.json")" "$before" "the baseline's run.json is untouched"
check "the message names the run directory" grep -q 'is inside the compared run directory' "$tmp/4.err"
rc=0; "$LB" compare "$tmp/A" "$tmp/B/run.json" --junit "$tmp/B/../B/new.xml" >/dev/null 2>&1 || rc=$?
is "$rc" 2 "--junit into the current run (named by its run.json, reached through ..): exit 2"
check "nothing was written there" test ! -e "$tmp/B/new.xml"

rc=0; (cd "$tmp" && "$LB" compare A B --junit - >"$tmp/5.out" 2>"$tmp/5.err") || rc=$?
is "$rc" 0 "--junit -: exit 0"
check "standard output is the JUnit XML alone" sh -c "head -n 1 '$tmp/5.out' | grep -q '^<?xml' && tail -n 1 '$tmp/5.out' | grep -qx '</testsuites>'"
check "the Markdown table went to standard error" grep -q '^# loadbench compare' "$tmp/5.err"
check "no file named - was made" test ! -e "$tmp/-"
rc=0; "$LB" compare "$F/sweep-a" "$F/sweep-b" --junit "$tmp/ok.xml" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "--junit a new regular file: exit 0"
check "it holds the XML" grep -q '<testsuites>' "$tmp/ok.xml"
rc=0; "$LB" compare "$F/sweep-a" "$F/sweep-b" --junit "$tmp/ok.xml" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "--junit an existing regular file: replaced, exit 0"

# --- report's and history's outputs -----------------------------------------
mkdir "$tmp/R"
cp "$F/sweep-a/run.json" "$tmp/R/"
ln -s "$tmp/target" "$tmp/R/summary.md"
rc=0; LOADBENCH_GNUPLOT= "$LB" report "$tmp/R" >/dev/null 2>"$tmp/6.err" || rc=$?
is "$rc" 2 "report with summary.md a symbolic link: exit 2"
check "the link is kept and its target untouched" sh -c "test -L '$tmp/R/summary.md' && grep -qx keep '$tmp/target'"
mkdir -p "$tmp/H"
ln -s "$tmp/target" "$tmp/H/history.csv"
rc=0; LOADBENCH_GNUPLOT= "$LB" history --out "$tmp/H" "$F/sweep-a" >/dev/null 2>"$tmp/7.err" || rc=$?
is "$rc" 2 "history --out with history.csv a symbolic link: exit 2"
check "its target is untouched" grep -qx keep "$tmp/target"

# --- the mechanism: no output written another way ------------------------
# Every open for writing, creat, rename or fopen(..., "w"/"a") in the
# product's code is fsutil.c's, or one of these, each named with why it
# is not an output path a person gives or a report writes:
allowed='common/cgroup.c:int fd = open(path, O_WRONLY | O_CLOEXEC);
common/guard.c:int nul = open("/dev/null", O_RDWR);
harness/engine/proc.c:int fd = open(spec->cgroup_procs[i], O_WRONLY | O_CLOEXEC);
harness/engine/proc.c:int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
harness/engine/proc.c:int fd = open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
harness/engine/capture.c:c->file_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
harness/engine/toolrun.c:FILE *f = fopen(path, "w");
harness/engine/toolrun.c:FILE *f = fopen(path, "w");
harness/engine/toolrun.c:if ((r->tcsv = fopen(r->spath, "w")))
harness/engine/toolrun.c:if ((r->trees[k].csv = fopen(r->trees[k].path, "w")))
harness/engine/toolrun.c:if ((r->gcsv = fopen(r->tpath, "w")))
harness/engine/toolrun.c:if (r->nmcpu > 0 && (r->mcsv = fopen(mpath, "w"))) {
harness/engine/runlock.c:rc = lstat(run_dir, &st) == 0 ? (errno = EEXIST, -1) : rename(stage, run_dir);
harness/engine/runlock.c:int rc = renameat2(AT_FDCWD, stage, AT_FDCWD, run_dir, RENAME_NOREPLACE);
generator/report.c:FILE *f = fopen(path, "w");
targets/main.c:FILE *f = c->stats_out ? fopen(c->stats_out, "w") : stdout;
targets/tls.c:FILE *f = fopen(path, "w");
harness/remote/exec.c:int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
harness/remote/exec.c:if (n < 0 || rename(part, local_path)) {
harness/agent/rundirs.c:int fd = open(buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
harness/agent/rundirs.c:int fd = openat(pfd, part, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (off == 0 ? O_TRUNC : 0), 0600);
harness/agent/rundirs.c:if (ok && last && renameat(pfd, part, pfd, leaf))
adapters/refgen.c:int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
adapters/go-fasthttp.c:if (rename(tmpbin, bin)) {
harness/report/charts.c:if (ok && rename(tmp[i], fin[i]) < 0)
harness/report/charts.c:int logfd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);'
# (the cgroup, /proc and /dev/null writes are kernel files; proc.c, capture.c and
# toolrun.c write a tool's own stdout and sample files inside the fresh row
# directory loadbench made; runlock.c renames the staged run directory onto a
# path lstat just found free; remote/exec.c and the agent (rundirs.c, from a
# directory descriptor below its run directory, no link followed) move a
# copied file into the run directory; refgen's log and go-fasthttp's binary are the
# build cache's; lb-gen's --json and lb-target's stats file and --tls-ca
# certificate are those programs' own outputs, written into, never renamed
# over; charts.c renames
# a chart gnuplot just rendered, and opens gnuplot.log, inside the charts/
# folder report made: its code is hashed into results/published/sample-200vus's record
# (sample_fresh.t), so moving it to fsutil_replace waits for the next
# scripts/sample-run.)
cd "$LB_SRC"
git ls-files 'common/*.c' 'harness/*.c' 'harness/*/*.c' 'spec/*.c' 'adapters/*.c' 'targets/*.c' 'generator/*.c' |
    grep -v '^common/fsutil.c$' |
    xargs grep -HnE 'fopen\([^;]*"[wa]|\b(creat|rename|renameat2?)\(|O_CREAT|O_WRONLY|O_RDWR' |
    sed -E 's/^([^:]*):[0-9]+:[[:space:]]*/\1:/' | sort >"$tmp/writes"
printf '%s\n' "$allowed" | sort >"$tmp/allowed"
comm -23 "$tmp/writes" "$tmp/allowed" >"$tmp/new"
[ ! -s "$tmp/new" ] || sed 's/^/#   not through common\/fsutil.c: /' "$tmp/new"
is "$(wc -l <"$tmp/new" | tr -d ' ')" 0 "every output is written through common/fsutil.c (or is one of the $(wc -l <"$tmp/allowed" | tr -d ' ') named exceptions)"
done_testing
