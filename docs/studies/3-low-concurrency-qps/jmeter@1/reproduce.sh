#!/bin/sh
# Rerun this tool by hand, as loadbench ran it.
# 1. Start a target like the one it measured (it prints its port):
#    /work/main/build/bin/lb-target --port 0 --delay 0ns --work 0ns --body 64B --threads 1
# 2. Replace the port below with the one it printed, then run this script.
cd "$(dirname "$0")"
exec env -i PATH="$PATH" HOME="${TMPDIR:-/tmp}" '/work/main/adapters/jmeter/lb-jmeter' '-n' '-t' 'plan.jmx' '-l' 'results.jtl' '-j' 'jmeter.log' '-q' '/work/main/adapters/jmeter/lb-jtl.properties'
