#!/bin/sh
# Rerun this tool by hand, as loadbench ran it.
# LB_ROOT is the loadbench checkout (default: the one this script is in).
# LB_TOOLS_DIR is the tools folder scripts/install-tools filled (default: the one it ran from).
# 1. Start a target like the one it measured (it prints its port):
#    "$LB_ROOT"'/build/bin/lb-target' --port 0 --delay 0ns --work 0ns --body 64B --threads 1 --tls 1.3 --tls-key ecdsa --tls-resumption on --tls-ca target-ca.pem --http2
# 2. Replace the port below with the one it printed, then run this script.
here=$(cd "$(dirname "$0")" && pwd) || exit 1
[ -n "${LB_ROOT:-}" ] || LB_ROOT=$(cd "$here/../../../../.." && pwd) || exit 1
[ -n "${LB_TOOLS_DIR:-}" ] || LB_TOOLS_DIR='/opt/loadbench-tools'
cd "$here" && mkdir -p home/tmp || exit 1
exec env -i PATH="$PATH" LANG=C.UTF-8 TZ=UTC HOME="$here/home" TMPDIR="$here/home/tmp" '/bin/sh' '-c' 'javac=$1; cp=$2; shift 2; "$javac" -encoding UTF-8 -nowarn -cp "$cp" -d classes LbSimulation.java || exit 71; exec "$@"' 'gatling-run' '/usr/lib/jvm/java-17-openjdk-amd64/bin/javac' "$LB_TOOLS_DIR"'/gatling/lib/*' '/usr/lib/jvm/java-17-openjdk-amd64/bin/java' '-server' '-XX:+UseG1GC' '-XX:MaxInlineLevel=20' '-XX:MaxTrivialSize=12' '-XX:+PrintCommandLineFlags' '--add-opens=java.base/java.lang=ALL-UNNAMED' '-Djava.util.prefs.userRoot='"$here"'/prefs' '-Dhttps.proxyHost=127.0.0.1' '-Dhttps.proxyPort=1' '-Dgatling.data.enableAnalytics=false' '-Dgatling.ssl.trustStore.file='"$here"'/target-ca.p12' '-Dgatling.ssl.trustStore.type=PKCS12' '-Dgatling.ssl.trustStore.password=loadbench' '-Dgatling.ssl.useInsecureTrustManager=false' '-Dgatling.http.enableHostnameVerification=true' '-Dgatling.ssl.enabledProtocols.0=TLSv1.3' '-cp' "$LB_TOOLS_DIR"'/gatling/lib/*:classes:.' 'io.gatling.app.Gatling' '-s' 'LbSimulation' '-rf' "$here"'/results' '-rd' 'loadbench'
