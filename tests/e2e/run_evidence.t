#!/bin/sh
# One row's tool cannot destroy another row's evidence unseen (issue #44,
# defect 9). Each finished row records its files (its folder's, and its
# series under samples/) with size and SHA-256 in run.json; a tool runs
# in its own row's folder, but the run directory is one tree it can reach
# by relative path (../samples/), so the defence is the record: every
# report checks it and notes a file missing or changed since the run,
# and neither draws nor links it. The fault program
# tests/faults/fault-vandal.sh deletes the earlier row's series and
# rewrites its stdout.txt. A rerun (--into) starts in an emptied folder.
# What a publishing script prunes (PRUNED.txt) or rewrites and reseals
# (scripts/reseal-run-dir) on purpose is not noted. lb-gen only, 1 s
# loads; about 12 s.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

mkdir "$tmp/v"
cp "$LB_SRC/tests/faults/fault-vandal.sh" "$tmp/v/"
echo first > "$tmp/v/.victim"
echo "$LB_BUILD/bin/lb-gen" > "$tmp/v/.lbgen"
cat > "$tmp/vandal.yaml" <<Y
name: vandal
load: {connections: 2, duration: 1s}
sampling: {interval: 200ms}
tools:
  - {tool: lb-gen, label: first}
  - {tool: lb-gen, label: vandal, bin: $tmp/v/fault-vandal.sh}
Y
R=$tmp/run
rc=0; "$LB" run --quiet --out "$R" "$tmp/vandal.yaml" >"$tmp/run.out" 2>&1 || rc=$?
is "$rc" 0 "the run exits 0 (the vandal's own row is ok)"
J=$R/run.json
is "$(jget "$J" runs.1.status)" ok "the vandal row ran lb-gen"
check "the vandal did delete the first row's series" test ! -e "$R/samples/first.csv"
files=$(jget "$J" runs.0.files)
case "$files" in *'"path":"samples/first.csv"'*'"sha256":"'*) ok 0 "the first row recorded its series with its SHA-256" ;;
    *) ok 1 "the first row recorded its series with its SHA-256"; diag "files: $files" ;; esac
case "$files" in *'"path":"first/stdout.txt"'*) ok 0 "and its folder's files (stdout.txt)" ;;
    *) ok 1 "and its folder's files (stdout.txt)" ;; esac

# summary.md and report.html say so, at the run's end and from `report`.
for when in run report; do
    if [ $when = report ]; then
        rc=0; "$LB" report "$R" >/dev/null 2>"$tmp/report.err" || rc=$?
        is "$rc" 0 "report exits 0"
        check "report says on stderr that files changed ($(head -c 200 "$tmp/report.err"))" \
            grep -q '2 files the run recorded are missing or changed' "$tmp/report.err"
        if command -v gnuplot >/dev/null 2>&1; then
            check "every chart still renders, the one without its series too" grep -q '^loadbench: rendered [0-9]* charts' "$tmp/report.err"
        else
            skip "chart rendering: gnuplot not installed"
        fi
    fi
    check "$when: summary.md notes the deleted series" \
        grep -q 'file samples/first.csv is missing since the run (recorded: [0-9]* bytes, sha256 [0-9a-f]\{12\}' "$R/summary.md"
    check "$when: summary.md notes the rewritten stdout.txt" grep -q 'file first/stdout.txt changed since the run' "$R/summary.md"
    check "$when: summary.md says it at the top" grep -q '2 files the run recorded are missing or changed since' "$R/summary.md"
    check "$when: report.html notes it" grep -q 'samples/first.csv is missing since the run' "$R/report.html"
    check "$when: report.html links no missing series" sh -c "! grep -q 'href=\"samples/first.csv\"' '$R/report.html'"
done
check "run.json itself still names the series (the record is not rewritten)" \
    test "$(jget "$J" runs.0.footprint.samples_file)" = samples/first.csv

# Files a publishing script removes on purpose are listed in PRUNED.txt
# (scripts/prune-run-dir); files it rewrites on purpose (paths replaced by
# $LB_ROOT) it records anew with scripts/reseal-run-dir.
echo "samples/first.csv 5000 bytes" > "$R/PRUNED.txt"
"$LB" report "$R" >/dev/null 2>&1
check "a missing file PRUNED.txt lists is not noted" sh -c "! grep -q 'samples/first.csv is missing' '$R/summary.md'"
check "the rewritten one still is" grep -q 'file first/stdout.txt changed since the run' "$R/summary.md"
cp "$J" "$tmp/before-reseal.json"
"$LB_SRC/scripts/reseal-run-dir" "$R" 2>"$tmp/reseal.err"
check "reseal-run-dir records it anew ($(cat "$tmp/reseal.err"))" grep -q ': 1 file(s) recorded anew' "$tmp/reseal.err"
check "changing in run.json only that entry's size and sha256" \
    sh -c "diff '$tmp/before-reseal.json' '$J' | grep '^[<>]' | grep -qv '\"\\(bytes\|sha256\\)\": '; test \$? -eq 1"
"$LB" report "$R" >/dev/null 2>&1
check "after it, report notes nothing" sh -c "! grep -q 'since the run' '$R/summary.md'"
rm "$R/PRUNED.txt"

# A rerun starts in a folder holding only its own files.
echo stale > "$R/first/stale-result.json"
rc=0; "$LB" run --quiet --only first --into "$R" "$tmp/vandal.yaml" >/dev/null 2>&1 || rc=$?
is "$rc" 0 "--only first --into reruns it"
check "what the earlier attempt left in its folder is gone" test ! -e "$R/first/stale-result.json"
case "$(jget "$J" runs.0.files)" in *stale-result*) ok 1 "and is not in the new row's record" ;;
    *) ok 0 "and is not in the new row's record" ;; esac
check "the rerun row's files are whole again: no note" sh -c "! grep -q 'since the run' '$R/summary.md'"
done_testing
