#!/bin/sh
# bench/sampler.sh (make bench): the sampler's own CPU cost — loadbench's CPU
# seconds / wall seconds — while it samples a tree of 4 processes at 2 s and
# at 100 ms (goals: < 0.1 % and < 1 % of a core), over /proc and over a
# cgroup, side by side with a peer: libproc2 reading the same pids.
# SLOW_FOR / FAST_FOR set how long each interval is measured (20s / 3s),
# REPEAT how many 100 ms runs per source give the median (3).
set -eu
cd "$(dirname "$0")/.."
: "${LB_BUILD:=$(pwd)/build}"
drv="$LB_BUILD/tests/test_sampler_cost"
# The driver is a unit-test program (it links the harness library); make
# bench builds only the programs, so build it here if needed.
rel=$(realpath --relative-to=. "$LB_BUILD")
make --no-print-directory -s "$rel/tests/test_sampler_cost" >/dev/null
LB_BUILD="$LB_BUILD" "$drv" --bench --slow-for "${SLOW_FOR:-20s}" --fast-for "${FAST_FOR:-3s}" --repeat "${REPEAT:-3}"
