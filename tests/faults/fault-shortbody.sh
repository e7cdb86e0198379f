#!/bin/sh
# fault-shortbody.sh: a fault program standing in for lb-gen, to create one
# failure on purpose: it runs the real lb-gen (its path in .lb-gen beside
# this script) with loadbench's arguments, but each --post=SIZE made 24
# bytes shorter, so every request's body falls short of the profile's
# size. Its own count is right; only lb-target's body_mismatch shows the
# fault, and the row must fail on it (tests/e2e/run_post.t).
case "${1:-}" in --version) exec "$(cat "$(dirname "$0")/.lb-gen")" --version ;; esac
real=$(cat "$(dirname "$0")/.lb-gen")
n=$#
while [ "$n" -gt 0 ]; do
    a=$1
    shift
    case "$a" in
        --post=*B) size=${a#--post=}; a="--post=$((${size%B} - 24))B" ;;
    esac
    set -- "$@" "$a"
    n=$((n - 1))
done
exec "$real" "$@"
