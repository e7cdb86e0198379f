#!/bin/sh
# The raw benchmarkers end to end: wrk, hey, ab, h2load, siege and
# autocannon each run a short closed profile through `loadbench run`
# against the real lb-target, 2 s each (what is checked is a row's
# accounting, which needs no length of load). Per installed tool: status ok, requests
# counted, samples written, and a reconciliation verdict of exact or
# explained (wrk, ab, h2load, autocannon and siege stop hard at the
# deadline and leave up to one response per connection uncounted: never a
# mismatch). A tool that is not installed is a SKIP that says so. Then
# autocannon, ab and siege over TLS 1.3 for 1 s (tests/lib/tls-row.sh:
# rows ok, unverified as their adapters say, lb-target's handshakes all
# TLS 1.3).
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/tls-row.sh"
. "$(dirname "$0")/../lib/adapter-e2e.sh"
LB=$LB_BUILD/bin/loadbench
# No chart image is checked here: gnuplot's rendering, 2-4 s of every run
# on a busy machine, is report_sweep.t's and report_charts.t's to test.
export LOADBENCH_GNUPLOT=
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

tools="wrk hey ab h2load siege autocannon"
# Rows over HTTPS (TLS 1.3, 2 connections, 1 s each), after those of
# $tools, each found by its label and checked after the loop.
tls="load: {connections: 2, duration: 1s}, target: {tls: {version: 1.3}}"
tls_rows="{tool: autocannon, label: autocannon-tls, $tls}, {tool: ab, label: ab-tls13, $tls},
    {tool: siege, label: siege-tls13, $tls}"
# Tool on CPU 0, target on CPU 1 where there are two.
cpus=""
[ "$(nproc)" -ge 2 ] && cpus="cpus: {target: [1], tool: [0]}"
cat > "$tmp/raw.yaml" <<Y
name: raw-e2e
description: the raw benchmarkers, 50 connections, 2 s, no delay
target: {delay: 0s, body: 64B, threads: 1}
load: {connections: 50, duration: 2s}
tools: [$(echo $tools | sed 's/ /, /g'), $tls_rows]
# 100 ms: the 2 samples (3 CSV lines) a row needs even from a tool that
# stops early (asked 1 s, siege once ran 0.3 s: 1 sample at 250 ms).
sampling: {interval: 100ms}
grace: 10s
$cpus
Y
run_profile "$tmp/raw.yaml"

i=0
for t in $tools; do
    # Siege 4.0.x can hang for good once its timed run is over ("Lifting
    # the server siege...", JoeDog/siege#66); seen here at 50 users beside
    # make check-busy's burner. loadbench must then stop it at the
    # deadline and make up no count: that is what is checked, the rest of
    # its row is skipped with the reason.
    if [ "$t" = siege ] && [ "$(jget "$J" runs.$i.status)" = timeout ]; then
        is "$(jget "$J" runs.$i.client.requests)" null "siege hung at the end of its run and was stopped at the deadline: no count made up"
        reason=$(jget "$J" runs.$i.reason)
        case $reason in
        *"after start (load "*"): stopped"*) ok 0 "the row's reason says it was stopped at the deadline" ;;
        *) ok 1 "the row's reason says it was stopped at the deadline ($reason)" ;;
        esac
        skip "siege's counts and verdict: siege hung (JoeDog/siege#66): $reason"
        i=$((i + 1))
        continue
    fi
    if ! row_checks $i "$t" "$t" bound; then
        i=$((i + 1))
        continue
    fi
    diag "$(printf '%-10s %8.0f req/s (server, whole load)  CPU %5.1f %%  RSS %6.1f MB  verdict %s' "$t" \
        "$(jget "$J" runs.$i.windows.whole_rps)" "$(jget "$J" runs.$i.footprint.cpu_avg_pct)" \
        "$(jget "$J" runs.$i.footprint.rss_peak_mb)" "$v")"
    i=$((i + 1))
done

# autocannon over TLS 1.3: its counts reconciled, no verification (it
# hard-codes rejectUnauthorized: false), no ALPN offered, every handshake
# the server's and none failed.
row_index autocannon-tls
if row_checks $r autocannon autocannon bound; then
    is "$(jget "$J" runs.$r.identity.settings.tls.verified)" false "autocannon-tls: the row says it did not verify"
    tp=runs.$r.target_protocol.tls
    f=$(jget "$J" $tp.handshakes.full)
    check "autocannon-tls: full handshakes > 0 ($f)" test "$f" -gt 0
    is "$(jget "$J" $tp.handshakes.failed)/$(jget "$J" $tp.alpn.h1)/$(jget "$J" $tp.version)" 0/0/1.3 \
        "autocannon-tls: no failed handshake, no ALPN http/1.1 (it offers none), TLS 1.3"
fi

# ab and siege: neither verifies (no CA option: ab.c and siege's ssl.c set no verify).
row_index ab-tls13 && tls_row ab-tls13 $r false
case "$(jget "$J" runs.$r.identity.argv)" in *'"-f","TLS1.3","https://127.0.0.1:'*) ok 0 "ab-tls13: -f TLS1.3, an https:// URL" ;;
    null) skip "ab-tls13: ab not installed" ;;
    *) ok 1 "ab-tls13: -f TLS1.3, an https:// URL ($(jget "$J" runs.$r.identity.argv))" ;; esac
row_index siege-tls13 && tls_row siege-tls13 $r false
done_testing
