#!/bin/sh
# bench/overhead.sh (make bench): what a generator adds to each request at
# one connection: client p50 - server p50 against a 20 ms delay, as
# loadbench's latency check computes it (latency_check.overhead_p50_ms).
# lb-gen and wrk alternate, ROUNDS each, in one profile; medians and the
# difference. Goal: lb-gen adds no more than wrk, within one step of the
# histograms (0.02 ms at 20 ms); both are tens of microseconds on an idle
# machine, mostly the loopback round trip itself.
set -eu
cd "$(dirname "$0")/.."
: "${LB_BUILD:=$(pwd)/build}"
ROUNDS=${ROUNDS:-3}
command -v wrk >/dev/null 2>&1 || { echo "one-connection overhead: skipped (wrk not installed)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/p.yaml" <<Y
name: one-connection-overhead
target: {delay: 20ms}
load: {connections: 1, duration: 3s}
sampling: {interval: 1s}
repeat: $ROUNDS
tools: [lb-gen, wrk]
Y
"$LB_BUILD/bin/loadbench" run --quiet --out "$tmp/run" "$tmp/p.yaml" >/dev/null 2>&1 || true
perl -MJSON::PP -e '
    local $/; open my $f, "<", shift or die "no run.json\n"; my $d = decode_json(<$f>);
    my %v;
    for my $r (@{$d->{runs}}) {
        my $o = $r->{latency_check}{overhead_p50_ms};
        push @{$v{$r->{tool}}}, $o if defined $o;
    }
    sub med { my @s = sort { $a <=> $b } @_; my $n = @s; $n % 2 ? $s[$n / 2] : ($s[$n / 2 - 1] + $s[$n / 2]) / 2 }
    for my $t ("lb-gen", "wrk") { die "one-connection overhead: no $t figure\n" unless @{$v{$t} || []} }
    my ($g, $w) = (med(@{$v{"lb-gen"}}), med(@{$v{wrk}}));
    printf "one connection x 20 ms delay, client p50 - server p50 (ms), %d rounds:\n", scalar @{$v{wrk}};
    printf "  lb-gen %.3f  (%s)\n", $g, join(" ", map { sprintf "%.3f", $_ } @{$v{"lb-gen"}});
    printf "  wrk    %.3f  (%s)\n", $w, join(" ", map { sprintf "%.3f", $_ } @{$v{wrk}});
    printf "  lb-gen - wrk = %+.3f ms (goal <= 0.02: no more than wrk, within one histogram step)\n", $g - $w;
' "$tmp/run/run.json"
