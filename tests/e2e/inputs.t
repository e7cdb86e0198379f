#!/bin/sh
# Every file a tool leaves is read the one safe way (issue 44, defect 2):
# in adapters/*.c, a file is opened only through common/fsutil.h's
# checked readers (fsutil_open_input and what is built on it:
# fsutil_fopen_input, fsutil_slurp, fsutil_load_json, adapter_slurp),
# which refuse a FIFO (no hang) and a symbolic link (no read as root
# through it) and cap the size; a stream is read by line only through
# fsutil_getline, whose line is capped (getline holds a 1 GB line with no
# newline whole). Checked on the sources, like layers.t's include rules:
# a new fopen, open, getline or json_load_file in an adapter fails here,
# naming the file and line. Comments and string literals are not code.
# The same for the agent's confinement (defect 8): agent.c reaches files
# only through rundirs.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
cd "$LB_SRC"

# The calls that read a file some other way than the checked readers.
forbidden='fopen|freopen|fdopen|open|openat|openat2|creat|getline|getdelim|fgets|popen|json_load_file|json_loadf|json_loadfd|fsutil_read_all|fsutil_read_small|fsutil_first_line|mmap|opendir|fdopendir|scandir'

# code FILE...: "FILE:LINE: code" with comments and string literals blanked.
code() {
    perl -e '
        for my $f (@ARGV) {
            open my $h, "<", $f or die "$f: $!"; local $/; my $t = <$h>;
            $t =~ s{/\*.*?\*/}{ my $c = $&; $c =~ s/[^\n]/ /g; $c }gse;
            $t =~ s{//[^\n]*}{}g;
            $t =~ s{"(?:[^"\\\n]|\\.)*"}{""}g;
            $t =~ s{\x27(?:[^\x27\\\n]|\\.)*\x27}{0}g;
            my $n = 0;
            print "$f:", ++$n, ": $_\n" for split /\n/, $t;
        }' "$@"
}

# Known exceptions, each with why. Writes, and a literal path opened
# read-only (/dev/null as a child's stdin), are not a tool's files.
allowed() {
    grep -vE 'O_WRONLY|[^a-z_]open\("", O_RDONLY\)' |
    # A directory's names only (tsung's log folders): the file it picks is
    # read through adapter_slurp below the run directory, through no link.
    grep -vE '^adapters/tsung\.c:[0-9]+: +DIR \*d = opendir\(path\);' |
    # Gatling's names only: its jars folder in the tools folder (which jar
    # holds the manifest), and its results/ folder (the one report folder,
    # whose page is then read through fsutil).
    grep -vE '^adapters/gatling\.c:[0-9]+: +DIR \*d = opendir\((lib|res)\);' || true
}

hits=$(code adapters/*.c | grep -E "[^A-Za-z0-9_.>](${forbidden})[[:space:]]*\(" | allowed)
[ -z "$hits" ] || echo "$hits" | sed 's/^/#   /'
is "$(printf '%s' "$hits" | grep -c . || true)" 0 "adapters/ open and read files only through fsutil's checked readers"

# The agent's file operations for the controller (issue 44, defect 8) go
# only through harness/agent/rundirs.c, which confines them below a run
# directory: agent.c itself opens, writes, renames or removes nothing, and
# lists a directory only after rundirs_check_dir.
agent_fs='fopen|open|openat|openat2|creat|rename|renameat|renameat2|unlink|unlinkat|remove|rmdir|mkdir|mkdirat|chmod|fchmodat|nftw|truncate|symlink|link|fsutil_[a-z_]+'
hits=$(code harness/agent/agent.c | grep -E "[^A-Za-z0-9_.>](${agent_fs})[[:space:]]*\(" || true)
[ -z "$hits" ] || echo "$hits" | sed 's/^/#   /'
is "$(printf '%s' "$hits" | grep -c . || true)" 0 "agent.c touches files only through rundirs (confined below the run directory)"
check "agent.c lists a directory only after rundirs_check_dir" \
    perl -0ne 'my $n = () = /agentproto_list\(/g; exit(/rundirs_check_dir\([^;]*;\s*(?:\n[^\n]*){0,3}agentproto_list\(/ && $n == 1 ? 0 : 1)' \
    harness/agent/agent.c

# Derived status (defect 4): a run's status is what its rows give it
# (report/runrecord.c's runstatus), never the one run.json claims: no
# reader in harness/report/ or harness/main.c but runrecord.c takes a
# run's "status" as written (report.c once printed a forged "complete").
status_rule() { grep -nE '\((run|base|cur|baseline|current)[^,()]*, *"status"\)' "$@" | grep -v 'runrecord.c:' || true; }
hits=$(status_rule harness/report/*.c harness/main.c)
[ -z "$hits" ] || echo "$hits" | sed 's/^/#   /'
is "$(printf '%s' "$hits" | grep -c . || true)" 0 "a run's status is read only through runstatus (report/runrecord.c)"
# Invalid evidence (defects 5, 10): every run.json a command reads goes
# through main.c's load_run, which runs evidence_run_check: the one
# fsutil_load_json of harness/main.c and harness/report/ is load_run's.
loads=$(grep -n 'fsutil_load_json\|json_load_file\|json_loads' harness/main.c harness/report/*.c || true)
[ "$(printf '%s' "$loads" | grep -c . || true)" = 1 ] || echo "$loads" | sed 's/^/#   /'
check "run.json is loaded in one place of the commands, main.c's load_run, which checks the evidence" \
    perl -0ne 'exit(/static json_t \*load_run\([^)]*\)\n\{(?:(?!\n\}).)*fsutil_load_json(?:(?!\n\}).)*evidence_run_check/s ? 0 : 1)' harness/main.c
is "$(printf '%s' "$loads" | grep -c . || true)" 1 "... and nowhere else in harness/main.c or harness/report/"
printf 'static const char *s(json_t *run) { return str(run, "status"); }\n' > "$tmp/planted-status.c"
is "$(status_rule "$tmp/planted-status.c" | grep -c . || true)" 1 "a planted read of a run's claimed status is caught"

# The rule has teeth: a planted fopen and getline are caught, in code but
# not in a comment or a string.
mkdir -p "$tmp/adapters"
cat >"$tmp/adapters/planted.c" <<'C'
/* fopen(path, "r") in a comment is not code */
static const char *s = "getline(&l, &n, f) in a string is not code";
static int f(const char *p) { FILE *f = fopen(p, "r"); char *l = 0; size_t n = 0; return getline(&l, &n, f); }
static json_t *g(const char *p) { return json_load_file(p, 0, NULL); }
C
planted=$(cd "$tmp" && code adapters/planted.c | grep -E "[^A-Za-z0-9_.>](${forbidden})[[:space:]]*\(" | allowed)
is "$(printf '%s\n' "$planted" | grep -c 'planted.c:3:' || true)" 1 "a planted fopen+getline line is caught"
is "$(printf '%s\n' "$planted" | grep -c 'planted.c:4:' || true)" 1 "a planted json_load_file is caught"
is "$(printf '%s\n' "$planted" | grep -cE 'planted.c:(1|2):' || true)" 0 "a comment or a string naming them is not"
done_testing
