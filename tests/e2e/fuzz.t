#!/bin/sh
# fuzz.t: build the libFuzzer targets of fuzz/ (make -j2 fuzz-build, clang
# with ASan+UBSan into build-fuzz/) and run each on its committed seed
# corpus fuzz/corpus/NAME, which holds every crash found so far: libFuzzer
# first runs every seed (checked: its log counts them all), then fuzzes
# from them for the rest of LB_FUZZ_SECONDS (default 2 s); no crash, and
# the executions as a diagnostic. The long fuzz is `make fuzz` (each target
# FUZZ_SECONDS, 20 s, its new inputs kept in build-fuzz/corpus/). SKIP when
# clang or its libFuzzer runtime is missing.
# lb-test: parallel (parses and computes only: no load, no clock, no CPU figure)
set -eu
. "$(dirname "$0")/../lib/tap.sh"

secs=${LB_FUZZ_SECONDS:-2}
cc=${FUZZ_CC:-clang}
command -v "$cc" >/dev/null 2>&1 || skip_all "$cc not installed (apt-get install clang)"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" >/dev/null 2>&1 ||
    skip_all "$cc has no libFuzzer/ASan runtime (apt-get install clang libclang-rt-dev)"

cd "$LB_SRC"
rc=0
make --no-print-directory -j2 fuzz-build FUZZ_CC="$cc" >"$tmp/build.log" 2>&1 || rc=$?
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
    # libFuzzer leaves empty files out of its count (it runs the empty
    # input first, always): the seeds to find are the non-empty ones.
    seeds=$(ls "fuzz/corpus/$name" | wc -l)
    full=$(find "fuzz/corpus/$name" -type f ! -empty | wc -l)
    read_=$(sed -n 's/^INFO: seed corpus: files: \([0-9]*\) .*/\1/p' "$tmp/$name.log")
    check "$name: every committed seed was run (libFuzzer read ${read_:-none} of the $full not empty)" \
        test "${read_:-0}" -ge "$full"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$name.log")
    diag "$name: ${execs:-?} executions in $secs s, $seeds seeds"
done
done_testing
