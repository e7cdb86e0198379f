#!/bin/sh
# Faults across hosts (issue 44, 14-18 and its messages), on the network
# of tests/lib/mh-net.sh (namespaces, real sshd): a stale program in a
# host's cache, a foreign build, a broken agent, a host that is down, a
# changed host key.
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
# No chart is checked here: gnuplot's rendering (seconds of CPU a run) is
# report_charts.t's and report_sweep.t's to test.
export LOADBENCH_GNUPLOT=
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"
# Host a has no Go until 18 (mh-net.sh): its first hosts install copies
# and builds nothing (a Go build of ~30 CPU-s that nothing here reads).
MH_A_NO_GO=1
. "$LB_SRC/tests/lib/mh-net.sh"

# --- 14: every program a host runs from its cache is this build's ----------
printf '%s\n' 'name: cached' "hosts: {a: 'root@198.18.0.2:2202'}" 'target: {host: a, delay: 1ms}' \
    'load: {connections: 2, duration: 1s}' 'tools: [{tool: lb-gen, host: a}]' > "$tmp/cached.yaml"
P=$tmp/cached.yaml
rc=0; in_c "$LB" hosts install a "$P" > "$tmp/inst.out" 2>"$tmp/inst.err" || rc=$?
is "$rc" 0 "hosts install a: exit 0"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/inst.err"
cache=$(cat "$tmp/inst.out")
[ -d "$cache/bin" ] || cache=$tmp/no-cache
cp -p "$cache/bin/lb-gen" "$tmp/lb-gen.good"
cp -p "$cache/bin/lb-target" "$tmp/lb-target.good"
cp -p "$cache/share/loadbench/adapters/wrk/done.lua" "$tmp/done.lua.good"
cp -p "$cache/bin/loadbench" "$tmp/loadbench.good"
restore() {
    cp -p "$tmp/lb-gen.good" "$cache/bin/lb-gen"
    cp -p "$tmp/lb-target.good" "$cache/bin/lb-target"
    cp -p "$tmp/done.lua.good" "$cache/share/loadbench/adapters/wrk/done.lua"
    cp -p "$tmp/loadbench.good" "$cache/bin/loadbench"
}
here() { sha256sum "$1" | cut -c1-12; }
# run_p NAME: a run of $P into $tmp/NAME; its exit code in $rc.
run_p() { rc=0; in_c "$LB" run --quiet --out "$tmp/$1" "$P" >/dev/null 2>"$tmp/$1.err" || rc=$?; }

# A stale lb-gen (generator/ edited and rebuilt: the cache's name is the
# loadbench binary's, so it stays): today it runs, and the row says ok.
printf '\n' >> "$cache/bin/lb-gen"
run_p stale
is "$rc" 2 "a stale lb-gen in a's cache: the run is refused, exit 2"
check "no row ran on it" test ! -e "$tmp/stale/run.json"
check "the refusal is located, names the file, both hashes and the command" \
    grep -qF "cached.yaml:2:9: host a (root@198.18.0.2:2202): its bin/lb-gen is not this build's (sha256 $(here "$cache/bin/lb-gen") there, $(here "$LB_BUILD/bin/lb-gen") here): run \`loadbench hosts install a $P\`" \
    "$tmp/stale.err"
sed 's/^/#   /' "$tmp/stale.err"
restore
# A foreign lb-target (the probe's: one built with other flags, copied in):
# the target runs on a, so its program is checked like the tool's.
printf '\n' >> "$cache/bin/lb-target"
run_p ftarget
is "$rc" 2 "a foreign lb-target in a's cache: refused, exit 2"
check "it is named, with both hashes" \
    grep -qF "its bin/lb-target is not this build's (sha256 $(here "$cache/bin/lb-target") there, $(here "$LB_BUILD/bin/lb-target") here)" \
    "$tmp/ftarget.err"
restore
printf -- '-- changed\n' >> "$cache/share/loadbench/adapters/wrk/done.lua"
run_p hook
is "$rc" 2 "a changed hook file (wrk's done.lua) in a's cache: refused, exit 2"
check "it is named" grep -qF "its share/loadbench/adapters/wrk/done.lua is not this build's (sha256 $(here "$cache/share/loadbench/adapters/wrk/done.lua") there" "$tmp/hook.err"
restore
run_p good
is "$rc/$(jget "$tmp/good/run.json" runs.0.status 2>/dev/null)" 0/ok "the cache restored: the run goes, ok"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/good.err"

# --- messages: a foreign build, a broken agent --------------------------------
printf '\n' >> "$cache/bin/loadbench"
run_p foreign
is "$rc" 2 "another build of loadbench in a's cache: refused, exit 2"
check "located, with the exact install command" \
    grep -qE "cached.yaml:2:9: host a \\(root@198.18.0.2:2202\\) runs loadbench [^ ]+ \\(sha256 $(here "$cache/bin/loadbench"), protocol 1\\), not this build \\([^,]+, sha256 $(here "$LB"), protocol 1\\): run \`loadbench hosts install a $P\`" \
    "$tmp/foreign.err"
sed 's/^/#   /' "$tmp/foreign.err"
printf '#!/bin/sh\necho "broken agent: exits at once" >&2\nexit 1\n' > "$cache/bin/loadbench"
run_p broken
is "$rc" 2 "an agent that exits at once: exit 2"
check "\"no agent answered\" is located, with what it said" \
    grep -qF "cached.yaml:2:9: host a (root@198.18.0.2:2202): no agent answered (the transport exited with code 1): broken agent: exits at once" \
    "$tmp/broken.err"
sed 's/^/#   /' "$tmp/broken.err"
restore

# --- messages: the hint for a host that is down uses the same ssh config -----
printf 'hosts:\n  ctl: local\n  d: root@198.18.0.3:2299\ntarget: {host: ctl}\nload: {connections: 1, duration: 1s}\ntools: [{tool: lb-gen, host: d}]\n' \
    > "$tmp/down.yaml"
rc=0; in_c "$LB" run --out "$tmp/down" "$tmp/down.yaml" >/dev/null 2>"$tmp/down.err" || rc=$?
is "$rc" 2 "a host that is down: exit 2"
check "the hint's ssh has -F with loadbench's ssh config" \
    grep -qF "(try \`ssh -F $LOADBENCH_SSH_CONFIG -o BatchMode=yes -p 2299 root@198.18.0.3 true\`" "$tmp/down.err"
sed 's/^/#   /' "$tmp/down.err"

# --- messages: a changed host key is said to be one ----------------------------
ssh-keygen -q -t ed25519 -N '' -f "$tmp/other-host" -C lb-test-other
printf '[198.18.0.2]:2202 %s\n' "$(cut -d' ' -f1,2 "$tmp/other-host.pub")" > "$tmp/known"
sed -e 's/StrictHostKeyChecking no/StrictHostKeyChecking yes/' -e "s|UserKnownHostsFile /dev/null|UserKnownHostsFile $tmp/known|" \
    "$LOADBENCH_SSH_CONFIG" > "$tmp/strict.conf"
rc=0; LOADBENCH_SSH_CONFIG=$tmp/strict.conf in_c "$LB" run --out "$tmp/key" "$P" >/dev/null 2>"$tmp/key.err" || rc=$?
is "$rc" 2 "a changed host key: exit 2"
check "the message keeps ssh's REMOTE HOST IDENTIFICATION HAS CHANGED" \
    grep -q "cannot be reached over ssh: .*REMOTE HOST IDENTIFICATION HAS CHANGED.*: Host key verification failed" "$tmp/key.err"
sed 's/^/#   /' "$tmp/key.err"

# --- 16: the target's host lost: said first, and the next row reconnects ----
printf '%s\n' 'name: tlost' "hosts: {ctl: local, a: 'root@198.18.0.2:2202'}" 'target: {host: a, delay: 1ms}' \
    'load: {connections: 2, duration: 2s}' 'sampling: {interval: 500ms}' \
    'tools: [{tool: lb-gen, host: ctl, load: {connections: 2, duration: 20s}}, {tool: lb-gen, label: again, host: ctl}]' \
    > "$tmp/tlost.yaml"
ip netns exec "$C" "$LB" run --out "$tmp/tlost" "$tmp/tlost.yaml" >/dev/null 2>"$tmp/tlost.err" &
lbpid=$!
track $lbpid
wait_line "$tmp/tlost.err" 'lb-gen: starting' && sleep 3
sshpid=$(ps -o pid=,comm= --ppid $lbpid | awk '$2 == "ssh" {print $1}' | head -1)
check "a's ssh session is a child of loadbench (pid ${sshpid:-none})" test -n "$sshpid"
[ -z "$sshpid" ] || kill -KILL "$sshpid" || true
rc=0; wait $lbpid || rc=$?
J=$tmp/tlost/run.json
[ -f "$J" ] || { echo '{}' > "$tmp/tlost.none"; J=$tmp/tlost.none; }
is "$rc/$(jget "$J" runs.0.status)" 1/failed "the target's host lost mid-row: that row failed, exit 1"
check "its reason names the host loss first ($(jget "$J" runs.0.reason))" \
    sh -c 'case "$1" in "host lost: "*"(lb-target'"'"'s host)"*) exit 0 ;; esac; exit 1' sh "$(jget "$J" runs.0.reason)"
is "$(jget "$J" runs.1.status)/$(jget "$J" runs.1.crosscheck.verdict)/$(jget "$J" runs.1.placement.target.host)" \
    ok/exact/a "the next row connected to a again: ok, exact, lb-target on a"
[ "$(jget "$J" runs.1.status)" = ok ] || sed 's/^/#   /' "$tmp/tlost.err"

# --- 15: a stranger's requests are counted apart, never explained away ------
# While lb-gen (on ctl, 198.18.0.1) loads lb-target on a, a process at
# 198.18.0.254, an address no host of the run has, sends it 3 requests.
ip -n "$C" addr add 198.18.0.254/24 dev br0
printf '%s\n' 'name: stranger' "hosts: {ctl: local, a: 'root@198.18.0.2:2202'}" 'target: {host: a, delay: 1ms}' \
    'load: {connections: 4, duration: 4s}' 'sampling: {interval: 500ms}' 'tools: [{tool: lb-gen, host: ctl}]' \
    > "$tmp/stranger.yaml"
in_c "$LB" run --out "$tmp/stranger" "$tmp/stranger.yaml" >/dev/null 2>"$tmp/stranger.err" &
lbpid=$!
track $lbpid
port=""
if wait_line "$tmp/stranger.err" 'lb-gen: starting'; then
    for _ in $(seq 50); do
        port=$(ip netns exec "$A" ss -Hltnp 'src 198.18.0.2' | awk '/lb-target/ {sub(/.*:/, "", $4); print $4; exit}')
        [ -n "$port" ] && break
        sleep 0.1
    done
fi
check "lb-target listens on a (port ${port:-none})" test -n "$port"
sent=$(in_c python3 -c '
import socket, sys
n = 0
for _ in range(3):
    s = socket.create_connection(("198.18.0.2", int(sys.argv[1])), 5, ("198.18.0.254", 0))
    s.sendall(b"GET / HTTP/1.1\r\nHost: stranger\r\nConnection: close\r\n\r\n")
    n += s.recv(64).startswith(b"HTTP/1.1 200")
    while s.recv(4096):
        pass
    s.close()
print(n)' "${port:-1}" 2>&1 || true)
is "$sent" 3 "the stranger's 3 requests were answered"
rc=0; wait $lbpid || rc=$?
J=$tmp/stranger/run.json
[ -f "$J" ] || { echo '{}' > "$tmp/stranger.none"; J=$tmp/stranger.none; }
is "$rc/$(jget "$J" runs.0.status)/$(jget "$J" runs.0.crosscheck.verdict)" 0/ok/exact \
    "the row is ok and its count exact against the server's own-host requests"
is "$(jget "$J" runs.0.crosscheck.foreign)/$(jget "$J" runs.0.peers_check.verdict)/$(jget "$J" runs.0.peers_check.foreign_requests)" \
    3/foreign/3 "the 3 foreign requests are counted apart: out of the reconciliation, in peers_check"
check "the row names them and their address" \
    grep -qF '3 requests from 198.18.0.254, which is not a host of this row' "$J"
[ "$(jget "$J" runs.0.crosscheck.foreign)" = 3 ] || sed 's/^/#   /' "$tmp/stranger.err"
ip -n "$C" addr del 198.18.0.254/24 dev br0

# --- 18: a build step that fails (a full disk) fails hosts install ----------
# a's cache on a 24 MB tmpfs in its sshd's mount namespace: this build's
# copy fits, Go's build of refgen/go-fasthttp (~77 MB) does not.
if [ -x /usr/lib/go/bin/go ] && [ -f /usr/share/gocode/src/github.com/valyala/fasthttp/client.go ]; then
    sshd_a=$(ip netns pids "$A" | head -1)
    on_a() { nsenter -t "$sshd_a" -m "$@"; }
    # Go arrives on a: its sessions from now on see Debian's Go.
    on_a umount "$(readlink -f /usr/lib/go/bin)"
    check "a has Go now" sshto 2 "test -x /usr/lib/go/bin/go"
    on_a mount -t tmpfs -o size=24m lb-full "$tmp/cache-a"
    rc=0; in_c "$LB" hosts install a "$P" > "$tmp/full.out" 2>"$tmp/full.err" || rc=$?
    is "$rc" 2 "hosts install into a cache too small for the Go build: exit 2"
    check "it names the build step that failed" \
        grep -qF "cached.yaml:2:9: host a (root@198.18.0.2:2202): the build step refgen/go-fasthttp: go build of refgen/go-fasthttp failed" "$tmp/full.err"
    sed 's/^/#   /' "$tmp/full.err"
    left=$(on_a find "$tmp/cache-a" -name '.gocache-*' | head -3)
    is "$left" "" "no Go build cache is left in a's cache"
    check "the message says how little room was left" grep -Eq 'failed \(exit [0-9]+\): .*\([0-9] MB free there' "$tmp/full.err"
    in_c "$LB" tools --host a "$P" > "$tmp/full-tools.out" 2>/dev/null || true
    check "tools --host gives the failed build as the reason, not only how to install Go" \
        grep -Eq '^go-fasthttp +no .*its build on this host failed: go build of refgen/go-fasthttp failed' "$tmp/full-tools.out"
    grep '^go-fasthttp' "$tmp/full-tools.out" | sed 's/^/#   /'
    on_a umount "$tmp/cache-a" 2>/dev/null || true
else
    skip "Debian's Go and fasthttp are not installed: no go-fasthttp build on a host"
fi

done_testing
