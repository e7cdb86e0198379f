#!/bin/sh
# Rerun this tool by hand, as loadbench ran it.
# 1. Start a target like the one it measured (it prints its port):
#    /work/main/build/bin/lb-target --port 0 --delay 20000000ns --work 0ns --body 64B --threads 1
# 2. Replace the port below with the one it printed, then run this script.
cd "$(dirname "$0")"
exec env -i PATH="$PATH" HOME="${TMPDIR:-/tmp}" '/work/main/build/bin/lb-gen' '--threads=1' '--stages' '30s:200,1m:200,10s:0' '--json=summary.json' '--quiet' 'http://127.0.0.1:41823/'
