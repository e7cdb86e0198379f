#!/bin/sh
# check: {status: N} (issue 40): every tool checks every response the way
# its users write it (lb-gen --expect-status, k6 check(), a JMeter Response
# Assertion, Gatling check(status().is(N)), Locust catch_response, the
# Artillery expect plugin; hey, oha, Vegeta and autocannon by their own
# count per status code). lb-target answers 200: with check 200 each
# installed tool with the cap runs 1 s, ok and reconciled, with no check
# failure; with check 404 every response fails the check, so each row's
# errors and check_failed equal its requests and the row fails as "every
# request the tool reported failed": the check really ran. A tool without
# the cap (wrk) is refused at validate, naming the setting; a bad value at
# its line and column.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
. "$LB_SRC/tests/lib/own-netns.sh"
# No charts: this test reads rows and tables, not charts (history.t and
# run_basic.t check those); gnuplot took about 1.5 s a run on a busy machine.
export LOADBENCH_GNUPLOT=
cd "$LB_SRC"

printf 'load: {connections: 2, duration: 1s}\ncheck: {status: 200}\ntools: [lb-gen, wrk]\n' > "$tmp/no.yaml"
rc=0; "$LB" validate "$tmp/no.yaml" 2>"$tmp/no.err" || rc=$?
is "$rc" 2 "validate refuses a tool without a check (exit 2)"
check "it names the tool and the setting ($(cat "$tmp/no.err"))" \
    grep -qF 'no.yaml:3:17: wrk cannot run check (a status check on every response)' "$tmp/no.err"
printf 'load: {connections: 2, duration: 1s}\ncheck: {status: 99}\ntools: [lb-gen]\n' > "$tmp/bad.yaml"
rc=0; "$LB" validate "$tmp/bad.yaml" 2>"$tmp/bad.err" || rc=$?
check "a bad status is refused at its place ($(cat "$tmp/bad.err"))" \
    grep -qF 'bad.yaml:2:17: check.status (an HTTP status code) must be between 100 and 599' "$tmp/bad.err"
"$LB" tools >"$tmp/tools.txt" 2>&1 || true
check "tools lists check for lb-gen" grep -q '^  lb-gen  .* check; ' "$tmp/tools.txt"
check "tools lists no check for wrk" sh -c '! grep -q "^  wrk  .* check" "$1"' sh "$tmp/tools.txt"

# Which tools run: the FOUND column of the `loadbench tools` above, which
# probed every tool once (a `loadbench plan` per tool probed them again:
# Artillery's node alone took 9 s to start here).
tools="lb-gen"
labels="lb-gen"
for t in hey oha vegeta autocannon k6 jmeter gatling locust artillery; do
    if grep -q "^$t  *yes " "$tmp/tools.txt"; then tools="$tools, $t"; labels="$labels $t"
    else skip "$t not found: $(grep "^$t " "$tmp/tools.txt" | tr -s ' ')"; fi
done

# run STATUS: the tools with check: {status: STATUS}, 1 s each; J its run.json.
run() {
    printf 'name: check-%s\nload: {connections: 2, duration: 1s}\ncheck: {status: %s}\ntools: [%s]\nsampling: {interval: 500ms}\ngrace: 60s\n' \
        "$1" "$1" "$tools" > "$tmp/c$1.yaml"
    rc=0; "$LB" run --quiet --out "$tmp/run$1" "$tmp/c$1.yaml" >"$tmp/run$1.out" 2>&1 || rc=$?
    J=$tmp/run$1/run.json
    [ -f "$J" ] || { echo '{}' > "$tmp/none.json"; J=$tmp/none.json; sed 's/^/#   /' "$tmp/run$1.out"; }
}

run 200
is "$rc" 0 "check 200: the run exits 0"
is "$(jget "$J" profile.check.status)" 200 "run.json's profile has check.status 200"
for l in $labels; do
    i=$(jq -r --arg l "$l" '[.runs[].label] | index($l)' "$J")
    set -- $(jget "$J" "runs.$i.status") $(jget "$J" "runs.$i.crosscheck.verdict") \
        $(jget "$J" "runs.$i.client.requests") $(jget "$J" "runs.$i.client.errors") \
        $(jget "$J" "runs.$i.client.check_failed")
    check "$l, check 200: ok, reconciled ($1, $2), $3 requests, $4 errors, $5 check failures" \
        sh -c '[ "$1" = ok ] && { [ "$2" = exact ] || [ "$2" = explained ]; } && [ "$3" -gt 0 ] && [ "$4" = 0 ] && [ "$5" = 0 ]' \
        sh "$@"
    [ "$1" = ok ] || diag "$l: $(jget "$J" "runs.$i.reason")"
done

run 404
is "$rc" 1 "check 404 (every response fails it): the run exits 1"
for l in $labels; do
    i=$(jq -r --arg l "$l" '[.runs[].label] | index($l)' "$J")
    set -- $(jget "$J" "runs.$i.client.requests") $(jget "$J" "runs.$i.client.errors") \
        $(jget "$J" "runs.$i.client.check_failed") $(jget "$J" "runs.$i.client.errors_by_kind.status")
    check "$l, check 404: every response failed the check ($1 requests, $2 errors, $3 check failures, $4 status)" \
        sh -c '[ "$1" -gt 0 ] && [ "$2" = "$1" ] && [ "$3" = "$1" ] && [ "$4" = "$1" ]' sh "$@"
    check "$l, check 404: the row failed: $(jget "$J" "runs.$i.reason" | cut -c1-80)" \
        sh -c 'case "$1" in "every request the tool reported failed"*) exit 0;; esac; exit 1' sh "$(jget "$J" "runs.$i.reason")"
done
done_testing
