#!/bin/sh
# fault-vandal.sh: a fault program standing in for a load tool that
# destroys another row's evidence (issue #44, defect 9). It answers
# `--version` like lb-gen. Run, from its own row's folder it reaches the
# earlier row VICTIM (the name in .victim beside this script) by relative
# path: deletes its series (../samples/VICTIM.csv) and rewrites its
# stdout.txt; then it runs the real lb-gen (the path in .lbgen) with the
# arguments it was given, so that its own row is ok.
here=$(dirname "$0")
case "${1:-}" in --version) echo "lb-gen fault-vandal 0.0"; exit 0 ;; esac
victim=$(cat "$here/.victim")
rm -f "../samples/$victim.csv"
echo "rewritten by fault-vandal.sh" > "../$victim/stdout.txt"
exec "$(cat "$here/.lbgen")" "$@"
