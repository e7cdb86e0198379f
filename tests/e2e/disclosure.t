#!/bin/sh
# disclosure.md (docs/reports.md "Full disclosure"): a real run of lb-gen
# against lb-target writes it beside summary.md; it has every section
# (the list disclosure.c keeps), every machine and network fact recorded
# (no "not recorded" on a run of this build), the row's exact argv and its
# reconciliation, the command that reruns the profile, and no secret: not
# the host name. summary.md and report.html link it.
# lb-test: shared (the sections and values of disclosure.md, from a run's counts)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
printf 'name: disclose\ndescription: disclosure test\ntarget: {delay: 5ms}\nload: {connections: 2, duration: 1s}\ntools: [lb-gen]\nsampling: {interval: 200ms}\n' >"$tmp/p.yaml"
"$LB" run --quiet --out "$tmp/run" "$tmp/p.yaml" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
D=$tmp/run/disclosure.md
check "a run writes disclosure.md" test -s "$D"
for h in "## The run" "## The machine" "## Network and limits" "## Pinning and cgroups" "## Method" \
         "## Repeats and spread" "## Each tool" "## Left out"; do
    check "it has \"$h\"" grep -qx "$h" "$D"
done
check "every fact of a run of this build is recorded" sh -c "! grep -n 'not recorded' '$D'"
for k in somaxconn tcp_max_syn_backlog ip_local_port_range tcp_tw_reuse rmem_max wmem_max tcp_rmem tcp_wmem; do
    check "network setting $k is there with its value" grep -Eq "^\| $k \| [0-9]" "$D"
done
for k in "CPU model" "cores (online)" "SMT active" "memory (MB)" "kernel" "virtualization" "frequency governor"; do
    check "machine fact \"$k\" is there" grep -q "^| $k | " "$D"
done
argv=$(jget "$tmp/run/run.json" runs.0.identity.argv | perl -MJSON::PP -e 'local $/; print join " ", @{decode_json(<STDIN>)}')
check "the row's exact argv is there" grep -qxF "$argv" "$D"
check "its reconciliation verdict is there" grep -q "^| reconciliation | $(jget "$tmp/run/run.json" runs.0.crosscheck.verdict) |" "$D"
check "the command that reruns the profile is there" grep -q 'loadbench run --out .* RUN_DIR/profile.yaml' "$D"
check "the git revision to check out is there" grep -q "git checkout $(jget "$tmp/run/run.json" loadbench.git)" "$D"
host=$(hostname)
check "the host name ($host) is left out" sh -c "! grep -qw '$host' '$D'"
# A path under a home directory names its owner: it reads /home/USER.
perl -MJSON::PP -i -0pe '$d = decode_json($_); $d->{runs}[0]{identity}{path} = "/home/alice/lb/build/bin/lb-gen";
    $_ = JSON::PP->new->utf8->canonical->encode($d)' "$tmp/run/run.json"
"$LB" report "$tmp/run" >/dev/null 2>&1
check "a user name in a path is left out (/home/USER)" sh -c "grep -q '/home/USER/lb/build/bin/lb-gen' '$D' && ! grep -q alice '$D'"
check "summary.md links it" grep -q '(disclosure.md)' "$tmp/run/summary.md"
check "report.html links it" grep -q 'href="disclosure.md"' "$tmp/run/report.html"
done_testing
