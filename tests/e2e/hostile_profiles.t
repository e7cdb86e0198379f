#!/bin/sh
# hostile_profiles.t: `loadbench validate` on every malformed or adversarial
# profile of tests/fixtures/hostile-profiles (wrong types, alias bombs, huge
# numbers, deep nesting, non-UTF-8, NUL bytes, BOM, tabs, duplicate keys,
# weird units, ...) plus a few made here (a 5 MB file, a very long line,
# 2000 duplicate keys): each exits with exactly 2 and a "FILE:LINE:COL:"
# message, never a crash. Again under the ASan build when it is there
# (once only when LB_BUILD is the ASan build: make check-asan).
set -eu
. "$(dirname "$0")/../lib/tap.sh"

lb=$LB_BUILD/bin/loadbench
[ -x "$lb" ] || skip_all "$lb not built (make)"
dir=$LB_SRC/tests/fixtures/hostile-profiles

# Made here rather than committed: big, and trivially regenerated.
gen=$tmp/gen
mkdir -p "$gen"
perl -e 'print "name: big\ndescription: \"", "x" x (5 << 20), "\"\nload: {model: closed, connections: nope, duration: 1s}\ntools: [lb-gen]\n"' >"$gen/big-5mb.yaml"
perl -e 'print "name: ", "y" x (1 << 20), "\nload: 5\n"' >"$gen/long-line.yaml"
perl -e 'print "name: dup\n"; print "k$_: 1\n" for 1..2000; print "name: again\n"' >"$gen/many-keys.yaml"
perl -e 'print "name: h\ntools: [", join(",", ("lb-gen") x 20000), "]\nload: {model: closed}\n"' >"$gen/many-tools.yaml"

check_one() { # check_one BINARY FILE WHAT
    rc=0
    "$1" validate "$2" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
    is "$rc" 2 "$3 $(basename "$2"): exit 2"
    first=$(head -n 1 "$tmp/err" | head -c 300)
    case $first in
    "$2":[0-9]*:[0-9]*:\ *) ok 0 "$3 $(basename "$2"): located message" ;;
    *) ok 1 "$3 $(basename "$2"): located message"; diag "  got: $first" ;;
    esac
}

n=0
for f in "$dir"/*.yaml "$gen"/*.yaml; do
    check_one "$lb" "$f" release
    n=$((n + 1))
done
diag "$n hostile profiles tried"

asan=$LB_SRC/build-asan/bin/loadbench
if under_asan; then
    diag "the binaries above are the ASan build ($LB_BUILD): no second pass"
elif [ -x "$asan" ]; then
    for f in "$dir"/*.yaml "$gen"/*.yaml; do
        ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            check_one "$asan" "$f" asan
    done
else
    diag "no ASan build ($asan): make SANITIZE=address to check under it too"
fi
done_testing
