#!/bin/sh
# Rerun this tool by hand, as loadbench ran it.
# LB_ROOT is the loadbench checkout (default: the one this script is in).
# 1. Start a target like the one it measured (it prints its port):
#    "$LB_ROOT"'/build/bin/lb-target' --port 0 --delay 0ns --work 0ns --body 64B --threads 1
# 2. Replace the port below with the one it printed, then run this script.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
[ -n "${LB_ROOT:-}" ] || LB_ROOT=$(cd "$here/../../../../.." && pwd) || exit 1
cd "$here" && mkdir -p home/tmp || exit 1
exec env -i PATH="$PATH" LANG=C.UTF-8 TZ=UTC HOME="$here/home" TMPDIR="$here/home/tmp" "$LB_ROOT"'/build/bin/lb-gen' '--threads=1' '--connections=200' '--duration=10s' '--json=summary.json' '--seconds-dist=latency-seconds.txt' '--quiet' 'http://127.0.0.1:40617/'
