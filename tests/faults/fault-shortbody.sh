#!/bin/sh
# fault-shortbody.sh: a fault program standing in for lb-gen, to create one
# failure on purpose: it runs the real lb-gen (its path in .lb-gen beside
# this script) with loadbench's arguments, but each --post=SIZE made 24
# bytes shorter, so every request's body falls short of the profile's
# size; given no --post (a GET profile) it adds --post=1000B, a body where
# none was asked. Its own count is right; only lb-target's body counts
# show the fault, and the row must fail on them (tests/e2e/run_post.t).
case "${1:-}" in --version) exec "$(cat "$(dirname "$0")/.lb-gen")" --version ;; esac
real=$(cat "$(dirname "$0")/.lb-gen")
n=$#
post=
while [ "$n" -gt 0 ]; do
    a=$1
    shift
    case "$a" in
        --post=*B) size=${a#--post=}; a="--post=$((${size%B} - 24))B"; post=1 ;;
    esac
    set -- "$@" "$a"
    n=$((n - 1))
done
[ -n "$post" ] || set -- --post=1000B "$@"
exec "$real" "$@"
