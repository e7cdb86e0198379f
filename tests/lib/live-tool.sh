# live-tool.sh: what the tests of a tool that may be missing (k6_live.t,
# bombardier_live.t, distributed.t, multihost.t) share, sourced after tap.sh: finding the tool the way a
# run does, one-tool `loadbench run`s, and a range check. Needs $LB.
# The TLS row checks are tls-row.sh's, sourced here.
. "$(dirname "$0")/../lib/tls-row.sh"

# look_for TOOL [LOAD]: sets found to the binary loadbench would run for TOOL
# (`loadbench plan` names it) and returns 0; with none, sets why to plan's
# reason (where it looked, how to get it) and returns 1. LOAD (YAML flow
# style) for a tool that runs no closed load (httperf).
look_for() {
    printf 'load: %s\ntools: [%s]\n' "${2:-"{connections: 1, duration: 1s}"}" "$1" > "$tmp/find-$1.yaml"
    "$LB" plan "$tmp/find-$1.yaml" > "$tmp/find-$1.out" 2>&1 || true
    found=$(sed -n 's/^  binary: \(.*\) (version .*/\1/p' "$tmp/find-$1.out")
    why=$(sed -n 's/^  skipped: //p' "$tmp/find-$1.out")
    [ -n "$found" ]
}

# tools_file REL: prints the first tools folder's REL that is executable,
# in the order loadbench looks (adapter_tools_dirs(): $LB_TOOLS_DIR,
# /opt/loadbench-tools, the user's data folder); returns 1 when none has it.
tools_file() {
    for d in ${LB_TOOLS_DIR:-} /opt/loadbench-tools "${XDG_DATA_HOME:-$HOME/.local/share}/loadbench/tools"; do
        [ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
    done
    return 1
}

# find_tool TOOL [LOAD]: look_for TOOL LOAD, or skip_all with plan's reason. Not in a
# $(...): skip_all must end the test.
find_tool() {
    look_for "$1" "${2:-}" || skip_all "$why"
    diag "$1: $(grep '^  binary: ' "$tmp/find-$1.out")"
}

# run_lb NAME TOOL DELAY LOAD: loadbench run of a one-tool profile (target
# delay DELAY, load: LOAD in YAML flow style) into $tmp/NAME; J is its
# run.json, req and srv the tool's and the server's request counts.
# Samples every 500 ms, or every $SAMPLE_EVERY when set.
# Returns 1 when no run.json was written.
run_lb() {
    printf 'name: live-%s\ntarget: {delay: %s}\nload: %s\ntools: [%s]\nsampling: {interval: %s}\ngrace: 30s\n' \
        "$1" "$3" "$4" "$2" "${SAMPLE_EVERY:-500ms}" > "$tmp/$1.yaml"
    rc=0
    "$LB" run --quiet --out "$tmp/$1" "$tmp/$1.yaml" >"$tmp/$1.out" 2>&1 || rc=$?
    J=$tmp/$1/run.json
    check "$1: loadbench run wrote run.json (exit $rc)" test -s "$J"
    [ -s "$J" ] || { sed 's/^/# /' "$tmp/$1.out"; return 1; }
    if ! is "$(jget "$J" runs.0.status)" ok "$1: status ok"; then
        diag "reason: $(jget "$J" runs.0.reason)"
        diag "warnings: $(jget "$J" runs.0.warnings)"
    fi
    req=$(jget "$J" runs.0.client.requests)
    srv=$(jget "$J" runs.0.server.requests)
}

# all_answered NAME DELAY_MS: the run of run_lb counted what the server
# counted (verdict exact), no errors, latency p50 at least the delay.
all_answered() {
    is "$req" "$srv" "$1: the tool's count = the server's"
    is "$(jget "$J" runs.0.crosscheck.verdict)" exact "$1: crosscheck verdict exact"
    is "$(jget "$J" runs.0.client.errors)" 0 "$1: no errors"
    check "$1: latency p50 at least the $2 ms delay" \
        perl -e 'exit !($ARGV[0] >= $ARGV[1])' "$(jget "$J" runs.0.client.latency_ms.p50)" "$2"
}

# between LO X HI DESCRIPTION: LO <= X <= HI (integers).
between() { check "$4 ($1 <= $2 <= $3)" test "${2:-0}" -ge "$1" -a "${2:-0}" -le "$3"; }

# installed TOOL...: tools (a YAML flow list's items) and labels, lb-gen
# and each TOOL found; a SKIP with plan's reason for each one missing.
installed() {
    tools="lb-gen" labels="lb-gen"
    for t in "$@"; do
        if look_for "$t"; then tools="$tools, $t"; labels="$labels $t"; else skip "$t not found: $why"; fi
    done
}

# run_profile NAME: `loadbench run` of $tmp/NAME.yaml into $tmp/NAME; rc
# is its exit status, J its run.json (an empty one, with the run's output
# shown, when it wrote none).
run_profile() {
    rc=0; "$LB" run --quiet --out "$tmp/$1" "$tmp/$1.yaml" >"$tmp/$1.out" 2>&1 || rc=$?
    J=$tmp/$1/run.json
    [ -f "$J" ] || { echo '{}' > "$tmp/none.json"; J=$tmp/none.json; sed 's/^/#   /' "$tmp/$1.out"; }
}
