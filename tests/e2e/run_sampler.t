#!/bin/sh
# The sampler checked against truth through loadbench itself: the calibrated
# burner (tests/progs/lb-burner, a test program that burns a known share of a
# core and touches a known number of MB) is run as a "tool", and loadbench's
# CPU % and RSS must match what the burner reports within ±3 CPU points and
# ±3 % RSS — for one process and for a tree of 4.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
# No chart image is checked here: gnuplot's rendering, 2-4 s of every run
# on a busy machine, is report_sweep.t's and report_charts.t's to test.
export LOADBENCH_GNUPLOT=
BURNER=$LB_BUILD/tests/progs/lb-burner
[ -x "$LB" ] && [ -x "$BURNER" ] || skip_all "loadbench or lb-burner not built (run make)"

# burner_tool NAME ARGS: a wrapper that answers --version like lb-gen and
# otherwise runs the burner with ARGS (ignoring lb-gen's flags).
burner_tool() {
    name=$1; shift
    cat > "$tmp/$name.sh" <<S
#!/bin/sh
case "\${1:-}" in --version) echo "lb-gen burner 0"; exit 0 ;; esac
exec "$BURNER" $*
S
    chmod +x "$tmp/$name.sh"
}
burner_tool single --cpu 0.5 --mem-mb 100 --duration 6s
burner_tool tree --cpu 0.2 --mem-mb 50 --children 3 --duration 6s
cat > "$tmp/burn.yaml" <<Y
name: burn
load: {connections: 1, duration: 6s}
grace: 5s
sampling: {interval: 1s}
tools:
  - {tool: lb-gen, label: single, bin: $tmp/single.sh}
  - {tool: lb-gen, label: tree, bin: $tmp/tree.sh}
Y
"$LB" run --quiet --out "$tmp/run" "$tmp/burn.yaml" >/dev/null 2>&1 || true
J=$tmp/run/run.json

# check_row INDEX LABEL NPROCS MB: compare loadbench's figures with the
# burner's own account (one line per process on stdout: "lb-burner pid P
# cpu_s C wall_s W share S base_rss_kb K"); each process touched MB.
check_row() {
    i=$1; label=$2; n=$3; mb=$4
    out=$tmp/run/$label/stdout.txt
    truth_cpu=$(perl -ne '$s += $1 if /proc_cpu_s ([\d.]+)/; END { printf "%.4f", $s }' "$out")
    lines=$(grep -c "proc_cpu_s " "$out" || true)
    is "$lines" "$n" "$label: the burner reports $n process(es)"
    got_cpu=$(jget "$J" runs.$i.footprint.cpu_seconds)
    wall=$(jget "$J" runs.$i.footprint.wall_s)
    # CPU %: loadbench's average over the tool's life vs the burner's truth.
    check "$label: CPU % within 3 points of the truth (loadbench $got_cpu s, burner $truth_cpu s over $wall s)" \
        perl -e 'exit !(abs(($ARGV[0] - $ARGV[1]) / $ARGV[2] * 100) <= 3)' -- "$got_cpu" "$truth_cpu" "$wall"
    samp=$(jget "$J" runs.$i.footprint.samples.cpu_avg_pct)
    truth_pct=$(perl -e 'printf "%.2f", $ARGV[0] / $ARGV[1] * 100' -- "$truth_cpu" "$wall")
    check "$label: sampled CPU % ($samp) within 3 points of the truth ($truth_pct)" \
        perl -e 'exit !(abs($ARGV[0] - $ARGV[1]) <= 3)' -- "$samp" "$truth_pct"
    # RSS: each process holds its allocation plus its base resident set.
    want_mb=$(perl -ne '$s += $ARGV_MB + $1 * 1024 / 1e6 if /base_rss_kb (\d+)/; BEGIN { $ARGV_MB = shift } END { printf "%.2f", $s }' "$mb" "$out")
    got_mb=$(jget "$J" runs.$i.footprint.rss_peak_mb)
    if under_asan; then
        skip "$label: peak RSS ($got_mb MB) vs the truth ($want_mb MB): RSS under ASan includes shadow memory"
    else
        check "$label: peak RSS ($got_mb MB) within 3 % of the truth ($want_mb MB)" \
            perl -e 'exit !($ARGV[1] > 0 && abs($ARGV[0] - $ARGV[1]) / $ARGV[1] <= 0.03)' -- "$got_mb" "$want_mb"
    fi
    is "$(jget "$J" runs.$i.footprint.procs_peak)" "$n" "$label: $n process(es) seen"
}
check_row 0 single 1 100
check_row 1 tree 4 50
check "loadbench's own CPU is reported" perl -e 'exit !($ARGV[0] ne "null" && $ARGV[0] >= 0)' -- "$(jget "$J" loadbench_cpu_s)"
done_testing
