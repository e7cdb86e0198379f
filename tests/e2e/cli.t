#!/bin/sh
# loadbench's command line outside `run`: `tools` lists every adapter and the
# options a profile may give it (the same list the profile checker accepts),
# --help names every command, and scripts/studies refuses what it cannot do.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

"$LB" tools > "$tmp/tools.txt"
for t in lb-gen wrk hey ab h2load siege autocannon k6 artillery locust jmeter go-fasthttp py-aiohttp bombardier; do
    check "tools lists $t" grep -q "^$t " "$tmp/tools.txt"
done
check "tools lists artillery's pool option" grep -Eq '^  artillery +pool$' "$tmp/tools.txt"
check "tools lists jmeter's options" grep -Eq '^  jmeter +heap jvm_args threads$' "$tmp/tools.txt"
# every option tools lists is one a profile may use, and nothing else is
for pair in artillery:pool jmeter:heap locust:users k6:discard_bodies h2load:log wrk:threads; do
    tool=${pair%%:*} opt=${pair#*:}
    printf 'load: {connections: 1, duration: 1s}\ntools: [{tool: %s, options: {%s: "1"}}]\n' "$tool" "$opt" > "$tmp/o.yaml"
    check "a profile may set $tool's $opt" sh -c "\"$LB\" validate '$tmp/o.yaml' >/dev/null 2>&1"
done
printf 'load: {connections: 1, duration: 1s}\ntools: [{tool: ab, options: {pool: "1"}}]\n' > "$tmp/bad.yaml"
rc=0; "$LB" validate "$tmp/bad.yaml" >/dev/null 2>"$tmp/bad.err" || rc=$?
is "$rc" 2 "an option the tool does not have is refused"
check "with its location" grep -q 'bad.yaml:2:9: ab has no option "pool"' "$tmp/bad.err"

"$LB" --help > "$tmp/help.txt"
for c in run validate plan tools report compare doctor version --scale; do
    check "--help mentions $c" grep -q -- "$c" "$tmp/help.txt"
done

rc=0; scripts/studies 9 >/dev/null 2>"$tmp/s.err" || rc=$?
is "$rc" 2 "scripts/studies refuses a study that does not exist"
check "and says which" grep -q "no profile profiles/studies/9-" "$tmp/s.err"
rc=0; scripts/studies --scale >/dev/null 2>&1 || rc=$?
is "$rc" 2 "scripts/studies --scale needs a factor"
check "scripts/studies --help explains itself" sh -c "scripts/studies --help | grep -q 'quick look'"

done_testing
