#!/bin/sh
# Rerun this tool by hand, as loadbench ran it.
# 1. Start a target like the one it measured (it prints its port):
#    /work/main/build/bin/lb-target --port 0 --delay 0ns --work 0ns --body 612B --threads 1
# 2. Replace the port below with the one it printed, then run this script.
cd "$(dirname "$0")"
exec env -i 'GOMAXPROCS=1' PATH="$PATH" HOME="${TMPDIR:-/tmp}" '/work/main/build/refgen/go-fasthttp/lb-go-fasthttp' '-c' '50' '-d' '30s' 'http://127.0.0.1:41103/'
