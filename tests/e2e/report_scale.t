#!/bin/sh
# loadbench report grows linearly with the rows of run.json (issue #29):
# 600 and 3,000 rows, made by repeating study1-footprint's six rows under
# unique labels, are reported without gnuplot (its drawing time is its
# own), and report's own CPU time for 3,000 rows is at most RATIO_MAX
# times that for 600. Linear is 5x; the quadratic grouping this guards
# against measured 46x (0.70 s -> 32.6 s). CPU seconds, best of three, so
# a busy machine's waiting does not count; measured on the 2-core dev
# machine under load 4: 4.5x to 5.1x. Since run.json is read in chunks
# (common/fsutil.c; jansson's json_loadfd read it a byte per system call,
# 10 s of system time for the 3,000 rows) at load 10: 0.40 s and 1.97-2.00 s,
# 4.9x-5.0x.
# lb-test: shared (judges a ratio of its own CPU seconds, which a neighbour does not move: 4.9-5.0x at load 10, bound 8)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
under_asan && skip_all "timing ratio under the address sanitizer is the sanitizer's"
RATIO_MAX=8
SRC=$LB_SRC/tests/fixtures/runs/study1-footprint/run.json

# make_rows N DIR: DIR/run.json with N rows, each with its own label and dir
# (Python's json, in C: Perl's JSON::PP took 3.3 CPU s to write the 23 MB).
make_rows() {
    mkdir -p "$2"
    python3 -c '
import json, sys
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(src, encoding="utf-8") as f:
    r = json.load(f)
base, rows = r["runs"], []
for i in range(n):
    row = dict(base[i % len(base)])
    row["label"] = (row.get("label") or "") + "-%d" % i
    row["dir"] = (row.get("dir") if row.get("dir") is not None else "x") + "-%d" % i
    rows.append(row)
r["runs"] = rows
with open(out, "w", encoding="utf-8") as o:
    json.dump(r, o, ensure_ascii=False, separators=(",", ":"))' "$SRC" "$1" "$2/run.json"
}

# cpu DIR: report's CPU seconds (user + system), the best of three.
cpu() {
    perl -e '
        my $best;
        open my $out, ">&", \*STDOUT or die; open STDOUT, ">", "/dev/null" or die;
        for (1 .. 3) {
            my @a = times;
            system("env", "LOADBENCH_GNUPLOT=", $ARGV[0], "report", $ARGV[1]) == 0 or exit 1;
            my @b = times; my $t = $b[2] + $b[3] - $a[2] - $a[3];
            $best = $t if !defined $best || $t < $best;
        }
        printf $out "%.3f\n", $best;' "$LB" "$1" 2>/dev/null >"$1.cpu"
}

make_rows 600 "$tmp/r600"
make_rows 3000 "$tmp/r3000"
rc=0; cpu "$tmp/r600" || rc=$?
is "$rc" 0 "report of 600 rows exits 0"
rc=0; cpu "$tmp/r3000" || rc=$?
is "$rc" 0 "report of 3,000 rows exits 0"
check "results.csv has all 3,000 rows and a header" test "$(wc -l <"$tmp/r3000/results.csv")" -eq 3001
a=$(cat "$tmp/r600.cpu"); b=$(cat "$tmp/r3000.cpu")
diag "report CPU: 600 rows ${a} s, 3,000 rows ${b} s"
check "3,000 rows cost at most ${RATIO_MAX}x 600 rows (linear is 5x)" \
    perl -e 'exit !($ARGV[1] <= $ARGV[2] * ($ARGV[0] > 0.05 ? $ARGV[0] : 0.05))' "$a" "$b" "$RATIO_MAX"
done_testing
