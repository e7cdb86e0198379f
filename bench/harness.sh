#!/bin/sh
# bench/harness.sh (make bench): the harness's wall-time overhead per tool
# run beyond the load phase (goal <= 3 s): loadbench runs lb-gen for LOAD
# seconds, N times in one profile (repeat), and the overhead is
#   (loadbench wall time - N x LOAD) / N
# measured against lb-gen's own load time. Also loadbench's own CPU seconds.
set -eu
cd "$(dirname "$0")/.."
: "${LB_BUILD:=$(pwd)/build}"
LOAD=${LOAD:-3}
N=${N:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/p.yaml" <<Y
name: harness-overhead
load: {connections: 10, duration: ${LOAD}s}
tools: [lb-gen]
repeat: $N
sampling: {interval: 2s}
Y
t0=$(date +%s.%N)
"$LB_BUILD/bin/loadbench" run --quiet --out "$tmp/run" "$tmp/p.yaml" >/dev/null
t1=$(date +%s.%N)
perl -MJSON::PP -e '
    my ($t0, $t1, $load, $n, $file) = @ARGV;
    local $/; open my $f, "<", $file or die; my $d = decode_json(<$f>);
    my $wall = $t1 - $t0;
    my @rows = @{$d->{runs}};
    my $per = ($wall - $n * $load) / $n;
    printf "harness overhead: %d tool runs of %ds load, loadbench wall %.2f s\n", $n, $load, $wall;
    printf "  per tool run beyond the load: %.2f s (goal <= 3 s)  %s\n", $per, $per <= 3 ? "ok" : "OVER";
    printf "  per tool run, as run.json records it: %s\n", join(" ", map { sprintf "%.2fs", $_->{harness_wall_s} - $load } @rows);
    printf "  loadbench own CPU: %.3f s over %.1f s wall = %.2f%% of a core\n", $d->{loadbench_cpu_s}, $wall, $d->{loadbench_cpu_s} / $wall * 100;
' "$t0" "$t1" "$LOAD" "$N" "$tmp/run/run.json"
