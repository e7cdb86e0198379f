#!/bin/sh
# Rerun this tool by hand, as loadbench ran it.
# LB_ROOT is the loadbench checkout (default: the one this script is in).
# 1. Start a target like the one it measured (it prints its port):
#    "$LB_ROOT"'/build/bin/lb-target' --port 0 --delay 0ns --work 0ns --body 64B --threads 1 --tls 1.3 --tls-key ecdsa --tls-resumption on --tls-ca target-ca.pem
# 2. Replace the port below with the one it printed, then run this script.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
[ -n "${LB_ROOT:-}" ] || LB_ROOT=$(cd "$here/../../../../.." && pwd) || exit 1
cd "$here" && mkdir -p home/tmp || exit 1
exec env -i PATH="$PATH" LANG=C.UTF-8 TZ=UTC HOME="$here/home" TMPDIR="$here/home/tmp" 'ERL_EPMD_PORT=42691' 'ERL_FLAGS=+sbwt none +sbwtdcpu none +sbwtdio none -tsung_controller warm_time 0' '/bin/sh' '-c' 'epmd -port "$ERL_EPMD_PORT" & e=$!; i=0; while [ $i -lt 50 ] && ! epmd -port "$ERL_EPMD_PORT" -names >/dev/null 2>&1; do sleep 0.1; i=$((i+1)); done; "$@"; rc=$?; kill $e 2>/dev/null; wait $e 2>/dev/null; exit $rc' 'tsung-with-epmd' '/usr/bin/tsung' '-n' '-f' 'tsung.xml' '-l' 'log' 'start'
