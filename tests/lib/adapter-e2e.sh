# adapter-e2e.sh: what the raw and reference-generator end-to-end tests
# (adapter_raw.t, adapter_ref.t) share, sourced after tap.sh: one
# `loadbench run` of a closed profile, and the checks each of its rows gets.

# run_profile YAML: loadbench run of YAML into $tmp/run; sets J to its
# run.json. A run that wrote none ends the test, its stderr as diagnostics.
run_profile() {
    rc=0
    "$LB" run --quiet --out "$tmp/run" "$1" >"$tmp/run.out" 2>"$tmp/run.err" || rc=$?
    J=$tmp/run/run.json
    check "loadbench run wrote run.json (exit $rc)" test -s "$J"
    [ -s "$J" ] || { sed 's/^/# /' "$tmp/run.err"; done_testing; exit 1; }
}

# row_checks I TOOL MISSING BOUND: row I of $J is TOOL; when it was skipped,
# one SKIP naming MISSING as not installed, and returns 1. Else: status ok,
# requests counted by the tool and the server, samples written, a verdict
# of exact or explained (BOUND=bound: the bound in its description too),
# the closed model as run. Sets req, srv and v for the caller.
row_checks() {
    st=$(jget "$J" runs.$1.status)
    is "$(jget "$J" runs.$1.tool)" "$2" "row $1 is $2"
    if [ "$st" = skipped ]; then
        ok 0 "$2 # SKIP $3 not installed ($(jget "$J" runs.$1.reason))"
        return 1
    fi
    if ! is "$st" ok "$2: status ok"; then
        diag "$2: $(jget "$J" runs.$1.reason)"
    fi
    req=$(jget "$J" runs.$1.client.requests)
    srv=$(jget "$J" runs.$1.server.requests)
    check "$2: the tool counted requests ($req)" test "${req:-0}" -gt 0 2>/dev/null
    check "$2: the server counted them too ($srv)" test "${srv:-0}" -gt 0 2>/dev/null
    csv=$tmp/run/$(jget "$J" runs.$1.footprint.samples_file)
    check "$2: samples CSV has rows" test "$(wc -l < "$csv" 2>/dev/null || echo 0)" -ge 3
    v=$(jget "$J" runs.$1.crosscheck.verdict)
    case "$v/$4" in
        exact/bound | explained/bound) ok 0 "$2: verdict $v (client $req, server $srv, bound $(jget "$J" runs.$1.crosscheck.bound))" ;;
        exact/* | explained/*) ok 0 "$2: verdict $v (client $req, server $srv)" ;;
        *) ok 1 "$2: verdict $v (client $req, server $srv, bound $(jget "$J" runs.$1.crosscheck.bound))" ;;
    esac
    is "$(jget "$J" runs.$1.identity.model)" closed "$2: model as run is closed"
}
