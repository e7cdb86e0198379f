#!/bin/sh
# The raw benchmarkers end to end: wrk, hey, ab, h2load, siege and
# autocannon each run a short closed profile through `loadbench run`
# against the real lb-target. Per installed tool: status ok, requests
# counted, samples written, and a reconciliation verdict of exact or
# explained (wrk, ab, h2load, autocannon and siege stop hard at the
# deadline and leave up to one response per connection uncounted: never a
# mismatch). A tool that is not installed is a SKIP that says so.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

tools="wrk hey ab h2load siege autocannon"
# Tool on CPU 0, target on CPU 1 where there are two.
cpus=""
[ "$(nproc)" -ge 2 ] && cpus="cpus: {target: [1], tool: [0]}"
cat > "$tmp/raw.yaml" <<Y
name: raw-e2e
description: the raw benchmarkers, 50 connections, 3 s, no delay
target: {delay: 0s, body: 64B, threads: 1}
load: {connections: 50, duration: 3s}
tools: [$(echo $tools | sed 's/ /, /g')]
sampling: {interval: 500ms}
grace: 10s
$cpus
Y
rc=0
"$LB" run --quiet --out "$tmp/run" "$tmp/raw.yaml" >"$tmp/run.out" 2>"$tmp/run.err" || rc=$?
J=$tmp/run/run.json
check "loadbench run wrote run.json (exit $rc)" test -s "$J"
[ -s "$J" ] || { sed 's/^/# /' "$tmp/run.err"; done_testing; exit 1; }

i=0
for t in $tools; do
    st=$(jget "$J" runs.$i.status)
    tool=$(jget "$J" runs.$i.tool)
    is "$tool" "$t" "row $i is $t"
    if [ "$st" = skipped ]; then
        ok 0 "$t # SKIP $t not installed ($(jget "$J" runs.$i.reason))"
        i=$((i + 1))
        continue
    fi
    if ! is "$st" ok "$t: status ok"; then
        diag "$t: $(jget "$J" runs.$i.reason)"
    fi
    req=$(jget "$J" runs.$i.client.requests)
    srv=$(jget "$J" runs.$i.server.requests)
    check "$t: the tool counted requests ($req)" test "${req:-0}" -gt 0 2>/dev/null
    check "$t: the server counted them too ($srv)" test "${srv:-0}" -gt 0 2>/dev/null
    csv=$tmp/run/$(jget "$J" runs.$i.footprint.samples_file)
    check "$t: samples CSV has rows" test "$(wc -l < "$csv" 2>/dev/null || echo 0)" -ge 3
    v=$(jget "$J" runs.$i.crosscheck.verdict)
    case "$v" in
        exact | explained) ok 0 "$t: verdict $v (client $req, server $srv, bound $(jget "$J" runs.$i.crosscheck.bound))" ;;
        *) ok 1 "$t: verdict $v (client $req, server $srv, bound $(jget "$J" runs.$i.crosscheck.bound))" ;;
    esac
    is "$(jget "$J" runs.$i.identity.model)" closed "$t: model as run is closed"
    diag "$(printf '%-10s %8.0f req/s (server, hold)  CPU %5.1f %%  RSS %6.1f MB  verdict %s' "$t" \
        "$(jget "$J" runs.$i.windows.hold_rps)" "$(jget "$J" runs.$i.footprint.cpu_avg_pct)" \
        "$(jget "$J" runs.$i.footprint.rss_peak_mb)" "$v")"
    i=$((i + 1))
done

done_testing
