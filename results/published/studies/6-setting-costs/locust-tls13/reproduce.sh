#!/bin/sh
# Rerun this tool by hand, as loadbench ran it.
# LB_ROOT is the loadbench checkout (default: the one this script is in).
# LB_TOOLS_DIR is the tools folder scripts/install-tools filled (default: the one it ran from).
# 1. Start a target like the one it measured (it prints its port):
#    "$LB_ROOT"'/build/bin/lb-target' --port 0 --delay 20000000ns --work 0ns --body 64B --threads 1 --tls 1.3 --tls-key ecdsa --tls-resumption on --tls-ca target-ca.pem
# 2. Replace the port below with the one it printed, then run this script.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
[ -n "${LB_ROOT:-}" ] || LB_ROOT=$(cd "$here/../../../../.." && pwd) || exit 1
[ -n "${LB_TOOLS_DIR:-}" ] || LB_TOOLS_DIR='/opt/loadbench-tools'
cd "$here" && mkdir -p home/tmp || exit 1
exec env -i PATH="$PATH" LANG=C.UTF-8 TZ=UTC HOME="$here/home" TMPDIR="$here/home/tmp" 'LB_LOCUST_CA='"$here"'/target-ca.pem' 'LB_LOCUST_OUT=locust.json' 'PYTHONDONTWRITEBYTECODE=1' "$LB_TOOLS_DIR"'/venv/locust/bin/locust' '-f' 'locustfile.py' '--headless' '--only-summary' '-u' '200' '-r' '200' '-t' '20s' '--stop-timeout' '10' '-H' 'https://127.0.0.1:39641'
