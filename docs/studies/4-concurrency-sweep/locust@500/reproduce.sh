#!/bin/sh
# Rerun this tool by hand, as loadbench ran it.
# 1. Start a target like the one it measured (it prints its port):
#    /work/main/build/bin/lb-target --port 0 --delay 0ns --work 0ns --body 612B --threads 1
# 2. Replace the port below with the one it printed, then run this script.
cd "$(dirname "$0")"
exec env -i 'LB_LOCUST_OUT=locust.json' 'PYTHONDONTWRITEBYTECODE=1' PATH="$PATH" HOME="${TMPDIR:-/tmp}" '/usr/bin/locust' '-f' 'locustfile.py' '--headless' '--only-summary' '-u' '500' '-r' '500' '-t' '30s' '--stop-timeout' '10' '-H' 'http://127.0.0.1:42931'
