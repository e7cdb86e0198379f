#!/bin/sh
# Rerun this tool by hand, as loadbench ran it.
# 1. Start a target like the one it measured (it prints its port):
#    /work/main/build/bin/lb-target --port 0 --delay 0ns --work 0ns --body 800B --threads 1
# 2. Replace the port below with the one it printed, then run this script.
cd "$(dirname "$0")"
exec env -i 'HOME=/work/main/docs/studies/2-seven-tool-ranking/siege/home' PATH="$PATH" HOME="${TMPDIR:-/tmp}" '/usr/bin/siege' '-R' 'siegerc' '-c' '1000' '-t' '60S' 'http://127.0.0.1:36025/'
