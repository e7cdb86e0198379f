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
exec env -i PATH="$PATH" LANG=C.UTF-8 TZ=UTC HOME="$here/home" TMPDIR="$here/home/tmp" 'SSL_CERT_FILE='"$here"'/target-ca.pem' "$LB_TOOLS_DIR"'/bin/bombardier' '-c' '200' '-d' '20s' '-l' '-o' 'json' '-p' 'r' '--http2' 'https://127.0.0.1:40535/'
