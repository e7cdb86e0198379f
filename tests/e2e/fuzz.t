#!/bin/sh
# fuzz.t: build the libFuzzer targets of fuzz/ (make fuzz-build, clang with
# ASan+UBSan into build-fuzz/) and run each for LB_FUZZ_SECONDS (default
# 10 s) on its committed seed corpus fuzz/corpus/NAME, which holds every
# crash found so far; no crash, and the executions as a diagnostic. SKIP
# when clang or its libFuzzer runtime is missing.
# lb-test: parallel (parses and computes only: no load, no clock, no CPU figure)
set -eu
. "$(dirname "$0")/../lib/tap.sh"

secs=${LB_FUZZ_SECONDS:-10}
cc=${FUZZ_CC:-clang}
command -v "$cc" >/dev/null 2>&1 || skip_all "$cc not installed (apt-get install clang)"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" >/dev/null 2>&1 ||
    skip_all "$cc has no libFuzzer/ASan runtime (apt-get install clang libclang-rt-dev)"

cd "$LB_SRC"
rc=0
make --no-print-directory fuzz-build FUZZ_CC="$cc" >"$tmp/build.log" 2>&1 || rc=$?
is "$rc" 0 "make fuzz-build"
[ "$rc" = 0 ] || { tail -n 30 "$tmp/build.log" | sed 's/^/# /'; done_testing; exit 1; }

for src in fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    bin=build-fuzz/bin/$name
    mkdir -p "$tmp/corpus-$name"
    rc=0
    # New inputs go to the temp corpus; the committed one is only read.
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$tmp/$name-" "$tmp/corpus-$name" "fuzz/corpus/$name" >"$tmp/$name.log" 2>&1 || rc=$?
    is "$rc" 0 "$name: no crash in ${secs} s"
    if [ "$rc" != 0 ]; then
        grep -E 'ERROR|SUMMARY|#[0-9] ' "$tmp/$name.log" | head -n 20 | sed 's/^/#   /'
        for a in "$tmp/$name"-*; do [ -f "$a" ] && diag "  input (base64): $(base64 -w0 "$a" | head -c 400)"; done
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$name.log")
    diag "$name: ${execs:-?} executions in $secs s, $(ls "fuzz/corpus/$name" | wc -l) seeds"
done
done_testing
