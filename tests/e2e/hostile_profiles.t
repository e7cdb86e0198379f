#!/bin/sh
# hostile_profiles.t: `loadbench validate` on every malformed or adversarial
# profile of tests/fixtures/hostile-profiles (wrong types, alias bombs, huge
# numbers, deep nesting, non-UTF-8, NUL bytes, BOM, tabs, duplicate keys,
# weird units, ...) plus a few made here (a 5 MB file, a very long line,
# 2000 duplicate keys; issue #19: a CPU this process may not use, alone or
# in a range, and a sampling interval longer than the load): each exits with
# exactly 2 and a "FILE:LINE:COL:" message, never a crash. A FIFO given as
# the profile is refused at once by validate and plan, not waited on. Again under the ASan build when it is there
# (once only when LB_BUILD is the ASan build: make check-asan).
# Issue #29: validate and run must agree. Every profile is walked through
# `plan` and `run` too: each exits 2 with validate's message, whole (not
# cut at 255 bytes), and run leaves no run directory. The profiles of
# valid/ (UTF-8 names and labels, lb-target's most threads, labels that
# look alike but name no file alike, the longest names a run derives)
# pass validate and plan, and run for real (300 ms each) with every row
# ok and files of their own.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
# No chart is checked here: gnuplot's rendering (seconds of CPU a run) is
# report_charts.t's and report_sweep.t's to test.
export LOADBENCH_GNUPLOT=

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
# Issue #19: settings that validated and then failed or misled at run time.
printf 'load: {connections: 2, duration: 1s}\ntools: [lb-gen]\nsampling: {interval: 3s}\n' >"$gen/interval-over-load.yaml"
cpu=$(absent_cpu)
if [ -n "$cpu" ]; then
    printf 'load: {connections: 2, duration: 1s}\ntools: [lb-gen]\ncpus: {target: [%s]}\n' "$cpu" >"$gen/cpu-absent.yaml"
    printf 'load: {connections: 2, duration: 1s}\ntools: [lb-gen]\ncpus: {tool: ["0-%s"]}\n' "$cpu" >"$gen/cpu-range-absent.yaml"
fi

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

# validate, plan and run agree (issue #29): one message, exit 2, nothing made.
agree() { # agree FILE
    f=$1; b=$(basename "$f")
    "$lb" validate "$f" >/dev/null 2>"$tmp/v.err" </dev/null || true
    want=$(head -n 1 "$tmp/v.err")
    for verb in plan run; do
        rc=0
        if [ $verb = run ]; then
            timeout 60 "$lb" run --quiet --out "$tmp/agree-run" "$f" >/dev/null 2>"$tmp/r.err" </dev/null || rc=$?
        else
            timeout 60 "$lb" plan "$f" >/dev/null 2>"$tmp/r.err" </dev/null || rc=$?
        fi
        got=$(head -n 1 "$tmp/r.err")
        if [ "$rc" = 2 ] && [ "$got" = "loadbench: $want" ] && [ ${#want} -lt 255 ] && [ ! -e "$tmp/agree-run" ]; then
            ok 0 "$verb $b: refused as validate refuses it"
        else
            ok 1 "$verb $b: refused as validate refuses it"
            diag "  validate: $want"; diag "  $verb (exit $rc): $got"
            [ -e "$tmp/agree-run" ] && diag "  and it made $tmp/agree-run"
        fi
        rm -rf "$tmp/agree-run"
    done
}
for f in "$dir"/*.yaml "$gen"/*.yaml; do
    agree "$f"
done

# Profiles that validate get past run's planning and run: UTF-8 names and
# labels, 64 lb-target threads, labels alike but naming no file alike.
for f in "$dir"/valid/*.yaml; do
    b=$(basename "$f")
    rc=0; "$lb" validate "$f" >/dev/null 2>"$tmp/err" || rc=$?
    is "$rc" 0 "validate $b: exit 0"
    rc=0; "$lb" plan "$f" >/dev/null 2>"$tmp/err" || rc=$?
    is "$rc" 0 "plan $b: exit 0"
    rm -rf "$tmp/res"
    rc=0; timeout 120 "$lb" run --quiet --results "$tmp/res" "$f" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
    is "$rc" 0 "run $b: exit 0"
    [ "$rc" = 0 ] || diag "  $(head -c 300 "$tmp/err")"
    rd=$(tail -n 1 "$tmp/out")
    want=$(sed -n 's/^# rows: \([0-9]*\).*/\1/p' "$f") # each fixture says how many rows it makes
    rows=$(jget "$rd/run.json" runs | perl -MJSON::PP -e 'my $r = decode_json(<STDIN>); print scalar grep { $_->{status} eq "ok" } @$r')
    is "$rows" "$want" "run $b: $want rows, every one ok"
    files=$(ls "$rd/samples" 2>/dev/null | grep -c '\.target\.csv$' || true)
    is "$files" "$want" "run $b: one target series per row, none lost to another's name"
done
cafe=$(printf 'caf\303\251')
check "the run directory is named after the UTF-8 name $cafe" sh -c "ls '$tmp/res' | grep -q -- '-$cafe\$'"

# What the generated issue-#19 profiles must say, and `plan` refuses them too.
if [ -n "$cpu" ]; then
    rc=0; "$lb" validate "$gen/cpu-absent.yaml" >/dev/null 2>"$tmp/err" || rc=$?
    check "CPU $cpu (not one this process may run on) is named with its place" \
        grep -q "cpu-absent.yaml:3:16: cpus.target: CPU $cpu is not one loadbench may run on here (allowed: " "$tmp/err"
    rc=0; "$lb" plan "$gen/cpu-range-absent.yaml" >/dev/null 2>"$tmp/err" || rc=$?
    is "$rc" 2 "plan refuses a tool CPU range reaching CPU $cpu: exit 2"
    check "and names the first CPU it may not use" grep -q "cpu-range-absent.yaml:3:14: cpus.tool: CPU [0-9]* is not one" "$tmp/err"
else
    skip "every CPU 0-63 is allowed here: no absent CPU to name"
    skip "no absent CPU"
    skip "no absent CPU"
fi
check "sampling.interval 3s over a 1 s load is refused as such" \
    sh -c "\"$lb\" validate '$gen/interval-over-load.yaml' 2>&1 | grep -q 'interval-over-load.yaml:3:22: sampling.interval 3s is longer than the shortest tool load (1 s)'"
# Instances on several hosts (#16): what is refused says why.
check "JMeter's engines on two hosts are refused as not supported yet" \
    sh -c "\"$lb\" validate '$dir/jmeter-engines-two-hosts.yaml' 2>&1 | grep -q 'jmeter-engines-two-hosts.yaml:4:9: jmeter engines on several hosts: not supported yet (RMI is bound to loopback)'"

# A FIFO as the profile: refused at once, never a hang in open().
mkfifo "$tmp/fifo.yaml"
for verb in validate plan; do
    rc=0; timeout 10 "$lb" $verb "$tmp/fifo.yaml" >/dev/null 2>"$tmp/err" </dev/null || rc=$?
    is "$rc" 2 "$verb of a FIFO: exit 2 at once (124 would be a hang)"
    check "$verb of a FIFO: says it is not a regular file" grep -q "fifo.yaml: not a regular file (a FIFO)" "$tmp/err"
done

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
