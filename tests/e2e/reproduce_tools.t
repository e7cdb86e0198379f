#!/bin/sh
# reproduce.sh names the tools folder (scripts/install-tools) through
# LB_TOOLS_DIR, a shell variable with the folder the tool ran from as its
# default: a copy of the script reruns the tool after the folder moved,
# and a published run's script (the paths rewritten for publishing) still
# parses as shell words. Real bombardier from the tools folder against the
# real lb-target.
# lb-test: shared (the paths reproduce.sh names, from a 1 s run)
set -eu
. "$(dirname "$0")/gen-lib.sh"     # tap.sh, target.sh, served
. "$(dirname "$0")/../lib/live-tool.sh"    # tools_file
# No chart is checked here: gnuplot's rendering (seconds of CPU a run) is
# report_charts.t's and report_sweep.t's to test.
export LOADBENCH_GNUPLOT=
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"
b=$(tools_file bin/bombardier) ||
    skip_all "bombardier is not in a tools folder (install it: scripts/install-tools bombardier)"
src=${b%/bin/bombardier}

mkdir -p "$tmp/tools/bin"
cp "$src/bin/bombardier" "$tmp/tools/bin/"
[ ! -f "$src/bin/bombardier.origin" ] || cp "$src/bin/bombardier.origin" "$tmp/tools/bin/"
cat > "$tmp/p.yaml" <<'Y'
name: repro
target: {delay: 1ms}
load: {connections: 4, duration: 1s}
tools: [bombardier]
sampling: {interval: 500ms}
Y
rc=0; LB_TOOLS_DIR=$tmp/tools "$LB" run --quiet --out "$tmp/run" "$tmp/p.yaml" >/dev/null 2>"$tmp/run.err" || rc=$?
is "$rc" 0 "bombardier from the tools folder ran (LB_TOOLS_DIR=$tmp/tools)"
r=$tmp/run/bombardier/reproduce.sh
check "reproduce.sh names bombardier through \$LB_TOOLS_DIR" grep -qF '"$LB_TOOLS_DIR"'"'/bin/bombardier'" "$r"
check "with the folder it ran from as the default" grep -qF "LB_TOOLS_DIR='$tmp/tools'" "$r"
check "and no other mention of that folder" test "$(grep -cF "$tmp/tools" "$r")" -eq 1

# The tools folder moves; the script runs against a fresh target.
mv "$tmp/tools" "$tmp/tools2"
start_target rt --delay 1ms
sed -i "s#127\.0\.0\.1:[0-9]*#127.0.0.1:$T_PORT#" "$r"
rc=0; LB_TOOLS_DIR=$tmp/tools2 "$r" >"$tmp/moved.out" 2>&1 || rc=$?
is "$rc" 0 "reproduce.sh reruns bombardier from the moved folder (LB_TOOLS_DIR set)"
n=$(served "$T_CTL")
check "which the fresh target answered ($n responses)" test "${n:-0}" -gt 0
rc=0; env -u LB_TOOLS_DIR "$r" >/dev/null 2>&1 || rc=$?
check "without LB_TOOLS_DIR it looks in the folder it ran from, now gone (exit $rc)" test "$rc" -ne 0

# What scripts/studies and scripts/sample-run publish: every committed
# reproduce.sh is shell that names no tools folder in quotes.
bad=$(git ls-files '*reproduce.sh' | xargs grep -l "'\$LB_TOOLS\|LB_ROOT='\$LB_ROOT'" 2>/dev/null || true)
is "$bad" "" "no published reproduce.sh quotes a variable it means to expand"
bad=$(git ls-files '*reproduce.sh' | while read -r f; do sh -n "$f" 2>/dev/null || echo "$f"; done)
is "$bad" "" "every published reproduce.sh parses"
done_testing
