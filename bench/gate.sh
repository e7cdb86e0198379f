#!/bin/sh
# bench/gate.sh: what the compare gate can catch, measured. lb-gen runs a
# paced (open-model) load well below saturation; copies of it carry a
# planted CPU cost per response (LB_GEN_PLANT_NS, a benchmark-only switch)
# sized to +5 %, +10 % and +20 % of the CPU per request measured first. Each
# trial is one loadbench run of five entries — A, A again, +5 %, +10 %,
# +20 % — interleaved for GATE_PAIRS rounds, so every round's drift reaches
# all five. Each trial is then split into one run per entry and compared
# with `loadbench compare A vs B`, paired (--paired: round by round, as
# interleaved A/B runs are) and unpaired (two nights' repeats), at each
# threshold of GATE_THRESHOLDS. The table gives how often each planted
# regression was caught (exit 1) and how often A against A raised a false
# alarm, with the median measured change (Hodges–Lehmann) of each entry.
#
# Environment: LB_BUILD (build dir), GATE_TRIALS (10), GATE_PAIRS (8),
# GATE_RATE (3000 req/s), GATE_SECONDS (1), GATE_THRESHOLDS ("3 5 10"),
# GATE_KEEP=DIR (keep the runs there). The runs draw no charts (LOADBENCH_GNUPLOT=
# empty). About 100 s a trial on 2 cores.
set -eu
cd "$(dirname "$0")/.."
: "${LB_BUILD:=$(pwd)/build}"
TRIALS=${GATE_TRIALS:-10}
PAIRS=${GATE_PAIRS:-8}
RATE=${GATE_RATE:-3000}
SECS=${GATE_SECONDS:-1}
THRESHOLDS=${GATE_THRESHOLDS:-3 5 10}
PLANTS="5 10 20"
LB=$LB_BUILD/bin/loadbench
GEN=$LB_BUILD/bin/lb-gen
for b in "$LB" "$GEN"; do
    [ -x "$b" ] || { echo "bench/gate.sh: $b is missing: run make first" >&2; exit 1; }
done
perl -MJSON::PP -e 1 2>/dev/null || { echo "bench/gate.sh: SKIP: perl's JSON::PP is missing"; exit 0; }

tmp=${GATE_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/lb-gate.XXXXXX")}
mkdir -p "$tmp"
[ -n "${GATE_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# profile FILE ENTRIES REPEATS: lb-gen paced at RATE for SECS, the given
# tool entries (YAML flow maps, one a line), interleaved REPEATS times.
profile() {
    {
        echo "name: gate-bench"
        echo "description: bench/gate.sh, lb-gen paced below saturation"
        echo "target: {delay: 0ms, threads: 1}"
        echo "load: {model: open, rate: $RATE, duration: ${SECS}s}"
        echo "tools:"
        printf '%s\n' "$2"
        echo "sampling: {interval: 250ms}"
        echo "repeat: $3"
        echo "cooldown: 0s"
    } >"$1"
}

# cpu_per_req RUN_DIR LABEL: the median CPU microseconds per server-counted
# request of LABEL's ok rows.
cpu_per_req() {
    perl -MJSON::PP -e '
        local $/; my $d = decode_json(<STDIN>); my @v;
        for (@{$d->{runs}}) { next unless $_->{label} eq $ARGV[0] && $_->{status} eq "ok" && $_->{server}{requests};
            push @v, $_->{footprint}{cpu_seconds} / $_->{server}{requests} * 1e6 }
        @v = sort { $a <=> $b } @v; print @v ? $v[$#v / 2] : 0' "$2" <"$1/run.json"
}

# split TRIAL_DIR LABEL OUT_DIR: LABEL's rows alone, relabelled lb-gen, as
# a run directory compare can read.
split_label() {
    mkdir -p "$3"
    perl -MJSON::PP -e '
        local $/; my $d = decode_json(<STDIN>);
        $d->{runs} = [ map { $_->{label} = "lb-gen"; $_ } grep { $_->{label} eq $ARGV[0] } @{$d->{runs}} ];
        print JSON::PP->new->canonical->encode($d)' "$2" <"$1/run.json" >"$3/run.json"
}

# --- calibrate: lb-gen's CPU per request at this rate --------------------
profile "$tmp/cal.yaml" "  - {tool: lb-gen, label: A}" 3
LOADBENCH_GNUPLOT= "$LB" run --quiet --out "$tmp/cal" "$tmp/cal.yaml" >/dev/null
base_us=$(cpu_per_req "$tmp/cal" A)
entries="  - {tool: lb-gen, label: A}
  - {tool: lb-gen, label: A2}"
for p in $PLANTS; do
    ns=$(perl -e "printf '%d', $base_us * 1000 * $p / 100")
    printf '#!/bin/sh\n# bench/gate.sh: lb-gen with %s ns of CPU planted per response (+%s %%)\nLB_GEN_PLANT_NS=%s exec %s "$@"\n' \
        "$ns" "$p" "$ns" "$GEN" >"$tmp/lb-gen-plant$p"
    chmod +x "$tmp/lb-gen-plant$p"
    entries="$entries
  - {tool: lb-gen, label: P$p, bin: $tmp/lb-gen-plant$p}"
    eval "ns_$p=$ns"
done
echo "bench/gate.sh: lb-gen paced at $RATE req/s for ${SECS}s, $(printf '%.1f' "$base_us") us CPU per request;" \
    "planted $ns_5, $ns_10, $ns_20 ns per response; $TRIALS trials x $PAIRS interleaved rounds"

# --- the trials -----------------------------------------------------------
profile "$tmp/trial.yaml" "$entries" "$PAIRS"
for t in $(seq 1 "$TRIALS"); do
    d=$tmp/trial$t
    rc=0
    LOADBENCH_GNUPLOT= "$LB" run --quiet --out "$d" "$tmp/trial.yaml" >/dev/null 2>"$tmp/trial$t.err" || rc=$?
    [ "$rc" -le 1 ] || { echo "bench/gate.sh: trial $t did not run (exit $rc): $(tail -n 1 "$tmp/trial$t.err")" >&2; exit 1; }
    for l in A A2 P5 P10 P20; do split_label "$d" "$l" "$d/$l"; done
    echo "# trial $t done: $(date -u +%H:%M:%S)" >&2
done

# --- the gate over each trial --------------------------------------------
# change LINE: the CPU-s/100k req cell's change column of a compare table.
cpu_change() {
    awk -F' [|] ' '$3 == "CPU-s/100k req" { split($6, w, " "); print (w[1] == "~" ? w[2] : w[1]); exit }' "$1"
}
printf '\n| planted | measured change (median of %s trials) | mode |' "$TRIALS"
for thr in $THRESHOLDS; do printf ' caught at %s %% |' "$thr"; done
printf '\n|---|--:|---|'
for thr in $THRESHOLDS; do printf -- '--:|'; done
printf '\n'
for b in A2 P5 P10 P20; do
    case $b in A2) what="none (A/A)" ;; *) what="+${b#P} %" ;; esac
    for mode in paired unpaired; do
        flag=; [ "$mode" = paired ] && flag=--paired
        changes=
        row=
        for thr in $THRESHOLDS; do
            hits=0
            for t in $(seq 1 "$TRIALS"); do
                d=$tmp/trial$t
                rc=0
                "$LB" compare "$d/A" vs "$d/$b" $flag --tool lb-gen --threshold "$thr%" >"$d/$b.$mode.md" 2>/dev/null || rc=$?
                [ "$rc" = 1 ] && hits=$((hits + 1))
                [ "$thr" = "${THRESHOLDS%% *}" ] && changes="$changes $(cpu_change "$d/$b.$mode.md")"
            done
            row="$row $hits/$TRIALS |"
        done
        med=$(printf '%s\n' $changes | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
        printf '| %s | %+.1f %% | %s |%s\n' "$what" "$med" "$mode" "$row"
    done
done
# How steady the measure itself was: A's spread within each trial, and the
# rows whose server count fell short of the schedule (a starved generator
# spreads its start-up cost over fewer requests).
perl -MJSON::PP -e '
    my ($rate, $secs, @dirs) = @ARGV; my (@cv, $short, $rows);
    for my $d (@dirs) {
        open my $f, "<", "$d/run.json" or next; local $/; my $j = decode_json(<$f>); my @v;
        for (@{$j->{runs}}) { $rows++; my $n = $_->{server}{requests} // 0;
            $short++ if $n < 0.95 * $rate * $secs;
            push @v, $_->{footprint}{cpu_seconds} / $n if $_->{label} eq "A" && $n }
        next unless @v > 1; my $m = 0; $m += $_ / @v for @v; my $ss = 0; $ss += ($_ - $m) ** 2 for @v;
        push @cv, sqrt($ss / (@v - 1)) / $m }
    @cv = sort { $a <=> $b } @cv;
    printf "\nA alone: CPU per request varied by %.0f %% (coefficient of variation, median of %d trials; least %.0f %%, most %.0f %%); %d of %d rows fell short of the schedule by 5 %% or more.\n",
        100 * $cv[$#cv / 2], scalar @cv, 100 * $cv[0], 100 * $cv[-1], $short // 0, $rows // 0' \
    "$RATE" "$SECS" $(for t in $(seq 1 "$TRIALS"); do echo "$tmp/trial$t"; done)
echo
echo "A/A rows: false alarms (A against the same binary run in the same rounds). Each trial's"
echo "compare is the real gate: exit 1 means a gated cell (CPU-s/100k req or RSS) was significant"
echo "after Holm and past the threshold."
