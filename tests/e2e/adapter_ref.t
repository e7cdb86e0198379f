#!/bin/sh
# The reference generators end to end: go-fasthttp (refgen/go-fasthttp,
# built on first use) and py-aiohttp (refgen/py-aiohttp) each run a short
# closed profile through `loadbench run` against the real lb-target. Per
# installed tool: status ok, requests counted, samples written, the runtime
# settings recorded, and a reconciliation verdict of exact or explained,
# never a mismatch (both drain at the deadline, so exact is what they
# give). A tool whose runtime is not installed is a SKIP that says so; a Go
# toolchain that is not there makes a skipped row with the install hint.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/adapter-e2e.sh"
LB=$LB_BUILD/bin/loadbench
# No chart image is checked here: gnuplot's rendering, 2-4 s of every run
# on a busy machine, is report_sweep.t's and report_charts.t's to test.
export LOADBENCH_GNUPLOT=
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

tools="go-fasthttp py-aiohttp"
cpus=""
[ "$(nproc)" -ge 2 ] && cpus="cpus: {target: [1], tool: [0]}"
cat > "$tmp/ref.yaml" <<Y
name: ref-e2e
description: the reference generators, 50 connections, 1 s, no delay
target: {delay: 0s, body: 64B, threads: 1}
load: {connections: 50, duration: 1s}
tools:
  - go-fasthttp
  - py-aiohttp
  - {tool: go-fasthttp, label: no-go, bin: $tmp/no/such/go}
sampling: {interval: 250ms}
cooldown: 1s
grace: 10s
$cpus
Y
run_profile "$tmp/ref.yaml"

i=0
for t in $tools; do
    if ! row_checks $i "$t" "runtime" nobound; then
        i=$((i + 1))
        continue
    fi
    is "$(jget "$J" runs.$i.client.tool_output.stop)" drain "$t: its summary says it drained"
    check "$t: p50 latency reported" perl -e 'exit !($ARGV[0] > 0)' "$(jget "$J" runs.$i.client.latency_ms.p50)"
    check "$t: a version is recorded" test -n "$(jget "$J" runs.$i.identity.version)"
    diag "$(printf '%-12s %8.0f req/s (server, whole load)  CPU %5.1f %%  RSS %6.1f MB  verdict %s' "$t" \
        "$(jget "$J" runs.$i.windows.whole_rps)" "$(jget "$J" runs.$i.footprint.cpu_avg_pct)" \
        "$(jget "$J" runs.$i.footprint.rss_peak_mb)" "$v")"
    i=$((i + 1))
done

# Runtime settings.
if [ "$(jget "$J" runs.0.status)" = ok ]; then
    want=1
    [ -n "$cpus" ] || want=$(nproc)
    is "$(jget "$J" runs.0.identity.settings.GOMAXPROCS)" "$want" "go-fasthttp: GOMAXPROCS = the tool's CPUs"
    is "$(jget "$J" runs.0.client.tool_output.runtime.GOMAXPROCS)" "$want" "go-fasthttp: and the Go runtime ran with it"
    gp=$(jget "$J" runs.0.identity.path)
    check "go-fasthttp: the program was built ($gp)" sh -c "test -x '$gp' && case '$gp' in */refgen/go-fasthttp/lb-go-fasthttp) ;; *) exit 1 ;; esac"
fi
if [ "$(jget "$J" runs.1.status)" = ok ]; then
    is "$(jget "$J" runs.1.identity.settings.python)" \
        "$(/usr/bin/python3 -c 'import sys; print(sys.version.split()[0])')" "py-aiohttp: the Python version in settings"
fi

# A missing Go toolchain: a skipped row with the install hint.
is "$(jget "$J" runs.2.status)" skipped "no Go toolchain: the row is skipped"
check "and the reason names golang-go" sh -c "echo '$(jget "$J" runs.2.reason)' | grep -q golang-go"

done_testing
