#!/bin/sh
# Rerun this tool by hand, as loadbench ran it.
# LB_ROOT is the loadbench checkout (default: the one this script is in).
# LB_TOOLS_DIR is the tools folder scripts/install-tools filled (default: the one it ran from).
# 1. Start a target like the one it measured (it prints its port):
#    "$LB_ROOT"'/build/bin/lb-target' --port 0 --delay 20000000ns --work 0ns --body 64B --threads 1 --tls 1.3 --tls-key ecdsa --tls-resumption on --tls-ca target-ca.pem --http2
# 2. Replace the port below with the one it printed, then run this script.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
[ -n "${LB_ROOT:-}" ] || LB_ROOT=$(cd "$here/../../../../.." && pwd) || exit 1
[ -n "${LB_TOOLS_DIR:-}" ] || LB_TOOLS_DIR='/opt/loadbench-tools'
cd "$here" && mkdir -p home/tmp || exit 1
exec env -i PATH="$PATH" LANG=C.UTF-8 TZ=UTC HOME="$here/home" TMPDIR="$here/home/tmp" '/bin/sh' '-c' 'v=$1; shift; "$v" attack "$@" -output=results.bin; rc=$?; "$v" encode -to csv -output results.csv results.bin || exit 70; "$v" report -type=json -output report.json results.bin || exit 70; exit $rc' 'vegeta-run' "$LB_TOOLS_DIR"'/bin/vegeta' '-targets=targets.txt' '-duration=20s' '-rate=0' '-max-connections=200' '-workers=200' '-max-workers=200' '-keepalive=true' '-http2=true' '-root-certs='"$here"'/target-ca.pem' '-redirects=-1' '-max-body=0'
