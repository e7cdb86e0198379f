#!/bin/sh
# The study profiles, `--scale`, and scripts/study-page: every shipped
# profile validates; --scale shortens a plan, and a bad factor is refused
# before anything runs (a real run with --scale: studies_run.t); the page
# generator prints run.json's numbers and refuses holes; every committed study
# page is exactly what its template and committed run.json produce (numbers
# generated, not typed); every published run under results/published/ is
# what `loadbench report` writes from its committed inputs, byte for byte.
# lb-test: parallel (parses, plans and renders committed runs: no load, no clock, no CPU figure)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

# --- every shipped profile validates ---------------------------------------
n=0
for f in profiles/*.yaml profiles/studies/*.yaml; do
    check "$f validates" sh -c "\"$LB\" validate '$f' >/dev/null"
    n=$((n + 1))
done
check "six study profiles ship" test "$(ls profiles/studies/*.yaml | wc -l)" -eq 6
for f in profiles/studies/*.yaml; do
    t=docs/studies/src/$(basename "$f" .yaml).md.in
    check "$(basename "$f") has its page template" test -f "$t"
done

# --- --scale ----------------------------------------------------------------
"$LB" plan --scale 0.1 profiles/studies/1-three-tool-footprint.yaml > "$tmp/plan.txt"
check "plan --scale 0.1 turns the 30 s ramp into 3 s" grep -q '"duration_ns": 3000000000' "$tmp/plan.txt"
check "and the 60 s hold into 6 s" grep -q '"duration_ns": 6000000000' "$tmp/plan.txt"
check "and records the factor" grep -q '"scale": 0.1' "$tmp/plan.txt"
check "a tool's own load is scaled too (artillery-200: 100 s -> 10 s)" grep -q '"duration_ns": 10000000000' "$tmp/plan.txt"
check "unscaled plan keeps 60 s" sh -c "\"$LB\" plan profiles/studies/1-three-tool-footprint.yaml | grep -q '\"duration_ns\": 60000000000'"
for bad in 0 1.5 -1 abc ""; do
    rc=0; "$LB" run --scale "$bad" --out "$tmp/never" profiles/quick.yaml >/dev/null 2>"$tmp/scale.err" || rc=$?
    is "$rc" 2 "--scale '$bad' is refused with exit 2"
done
check "and nothing was run" test ! -e "$tmp/never"
check "the error says what a factor is" grep -q "scale" "$tmp/scale.err"

# --- study-page on a real run directory (the sample run of 2026-11-29, kept
# as a fixture: results/published/sample-200vus is made again whenever the charts change) --
S=tests/fixtures/runs/sample-200vus-2026-11-29
cat > "$tmp/t.md.in" <<'T'
M {{meta}}
V {{v jmeter rps_hold}}
R {{ratio wrk jmeter rps_hold}}
C {{carry wrk jmeter rps_hold 5 x2}}
O {{carry wrk jmeter rps_hold 100 x2}}
D {{carry wrk jmeter rps_hold 34 order}}
E {{carry wrk jmeter rps_hold 100 order}}
U {{carry jmeter wrk rps_hold 34 order}}
K {{carry k6 jmeter rps_hold 1 25%}}
W {{within locust cpu_avg 60 10%}}
N {{rank jmeter rps_hold}}
Q {{order rps_hold wrk jmeter locust}}
P {{order rps_hold jmeter wrk}}
{{table label,status,rps_hold,rss_peak; labels=jmeter,k6,wrk sort=rps_hold}}
G {{chart bars_rps rps}}
T
scripts/study-page "$tmp/t.md.in" "$S" > "$tmp/t.md"
hold=$(jget "$S/run.json" runs.8.windows.hold_rps); label=$(jget "$S/run.json" runs.8.label)
is "$label" jmeter "(fixture: row 8 is jmeter)"
is "$(sed -n 's/^V //p' "$tmp/t.md")" "$(perl -e 'my $s = sprintf "%.0f", $ARGV[0]; 1 while $s =~ s/^(\d+)(\d{3})/$1,$2/; print $s' -- "$hold")" \
    "{{v}} prints run.json's hold_rps"
wrk=$(jget "$S/run.json" runs.1.windows.hold_rps)
is "$(sed -n 's/^R //p' "$tmp/t.md")" "$(perl -e 'printf "%.2fx", $ARGV[0] / $ARGV[1]' -- "$wrk" "$hold")" "{{ratio}} divides the two rows"
# The fixture's wrk/jmeter hold ratio is 4.66 and Locust's CPU 64.5 %.
check "{{carry}} within a factor of 2 of the original's says so and carried" \
    grep -q "^C 4.66x against the original's 5x, within a factor of 2 of it (2.5x–10x): carried$" "$tmp/t.md"
check "{{carry}} outside the factor says did not carry" \
    grep -q "^O 4.66x against the original's 100x, not within a factor of 2 of it (50x–200x): did not carry$" "$tmp/t.md"
check "{{carry}} order: same side of 1 and within 10x carries" \
    grep -q "^D 4.66x .* within a factor of 10 of it and above 1 (3.4x–340x): carried$" "$tmp/t.md"
check "{{carry}} order: the right side of 1 but over 10x off does not" \
    grep -q "^E 4.66x .* not within a factor of 10 of it and above 1 (10x–1,000x): did not carry$" "$tmp/t.md"
check "{{carry}} order: the other side of 1 does not" grep -q "^U 0.21x .*: did not carry$" "$tmp/t.md"
check "a skipped tool's ratio is 'not measured', never a number" grep -q '^K not measured here (k6 skipped)' "$tmp/t.md"
check "{{within}} tests one value against a percentage" \
    grep -q "^W 64.5 against the original's 60, within 10 % of it (54–66): carried$" "$tmp/t.md"
check "{{rank}} places a row among the run's rows" grep -q '^N 9th of 12$' "$tmp/t.md"
check "{{order}} in the original's order carries" grep -q '^Q wrk 9,623 > jmeter 2,064 > locust 412: the original.s order, carried$' "$tmp/t.md"
check "{{order}} in another order does not" grep -q '^P .*not the original.s order (jmeter > wrk), did not carry$' "$tmp/t.md"
check "{{meta}} names the machine and profile" grep -q '^M Run 20.* on AMD EPYC (2 cores.*profile `profiles/sample-200vus.yaml`' "$tmp/t.md"
check "the table is sorted by the column, skipped last" \
    sh -c "grep -A5 '^| Tool' '$tmp/t.md' | grep '^| [a-z]' | cut -d' ' -f2 | tr '\n' ' ' | grep -qx 'wrk jmeter k6 '"
check "a skipped row prints – for its figures, not 0" grep -q '^| k6 | skipped | – | – |$' "$tmp/t.md"
check "{{chart}} links the run's PNG" grep -q "^G !\[rps\](.*$S/charts/bars_rps.png)" "$tmp/t.md"
for hole in '{{v nosuchtool rps}}' '{{v wrk nosuchfield}}' '{{nosuch}}' '{{chart nosuchchart x}}' '{{table label; labels=nosuch}}' \
           '{{carry wrk jmeter rps_hold 1 100}}' '{{carry k6 jmeter rps_hold 1 order}}' '{{within wrk rps_hold 5 order}}' \
           '{{carry wrk jmeter rps_hold 5}}' '{{order rps_hold wrk}}'; do
    printf '%s\n' "$hole" > "$tmp/hole.md.in"
    rc=0; scripts/study-page "$tmp/hole.md.in" "$S" > /dev/null 2>"$tmp/hole.err" || rc=$?
    check "study-page refuses $hole (exit $rc: $(head -c 80 "$tmp/hole.err"))" test "$rc" -ne 0 -a -s "$tmp/hole.err"
done
printf 'x {{v wrk rps}}\n' > "$tmp/out.md.in"
scripts/study-page "$tmp/out.md.in" "$S" "$tmp/sub.md"
check "with OUT it writes the file (atomically, no .tmp left)" sh -c "test -s '$tmp/sub.md' && test ! -e '$tmp/sub.md.tmp'"
check "--check accepts the page it just wrote" scripts/study-page --check "$tmp/out.md.in" "$S" "$tmp/sub.md"
sed -i 's/^x .*/x 12,345/' "$tmp/sub.md"
rc=0; scripts/study-page --check "$tmp/out.md.in" "$S" "$tmp/sub.md" 2>"$tmp/check.err" || rc=$?
check "--check refuses a page with a typed number (exit $rc)" test "$rc" -ne 0
check "and names the line" grep -q "first at line 2" "$tmp/check.err"

# {{costs}}: each TOOL-h1 row's figure, then TOOL-SETTING over it; "–" for
# a setting the tool has no row for, the status of a row not measured.
# The fixture's run.json with its first seven rows relabelled and given
# these figures (the rest dropped), so it stays a run.json of the schema.
mkdir -p "$tmp/costs"
perl -MJSON::PP -e '
    local $/; open my $f, "<", $ARGV[0] or die; my $d = decode_json(<$f>);
    my @set = (["a-h1", "ok", 1000], ["a-tls", "ok", 500], ["a-h2", "failed", 900], ["b-h1", "ok", 4000],
               ["b-h2", "ok", 5000], ["c-h1", "skipped"], ["c-tls", "skipped"]);
    my @r = @{$d->{runs}}[0 .. $#set];
    for (0 .. $#set) { my ($l, $st, $v) = @{$set[$_]}; $r[$_]{label} = $l; $r[$_]{status} = $st;
                       $r[$_]{efficiency}{requests_per_cpu_second} = $v if defined $v }
    $d->{runs} = \@r; print JSON::PP->new->utf8->canonical->encode($d)' "$S/run.json" > "$tmp/costs/run.json"
printf '{{costs req_cpu_s h1 tls h2}}\n' > "$tmp/costs.md.in"
scripts/study-page "$tmp/costs.md.in" "$tmp/costs" > "$tmp/costs.md"
is "$(sed -n 4p "$tmp/costs.md")" "| a | 1,000 | 0.50x | failed |" "{{costs}}: a ratio per setting, a failed row's status, never its figure"
is "$(sed -n 5p "$tmp/costs.md")" "| b | 4,000 | – | 1.25x |" "{{costs}}: – where the tool has no row for the setting"
is "$(sed -n 6p "$tmp/costs.md")" "| c | skipped | skipped | – |" "{{costs}}: a skipped tool says so in every cell it has"
printf '{{costs req_cpu_s nosuch tls}}\n' > "$tmp/hole.md.in"
rc=0; scripts/study-page "$tmp/hole.md.in" "$tmp/costs" > /dev/null 2>&1 || rc=$?
check "{{costs}} with no TOOL-BASE row is refused (exit $rc)" test "$rc" -ne 0

# --- the gallery shows each study's headline chart --------------------------
for page in docs/studies/[0-9]-*.md; do
    name=$(basename "$page" .md)
    img=$(sed -n "s|^!\[.*\](\(\.\./\.\./results/published/studies/$name/charts/[a-z_0-9]*\.png\))\$|\1|p" docs/studies/README.md)
    check "the gallery shows $name's headline chart (${img:-none})" test -n "$img" -a -s "docs/studies/$img"
done

# --- the committed pages are generated, not typed ----------------------------
for page in docs/studies/[0-9]-*.md; do
    [ -f "$page" ] || continue
    name=$(basename "$page" .md)
    check "$page is exactly what its template and run.json produce" \
        scripts/study-page --check "docs/studies/src/$name.md.in" "results/published/studies/$name" "$page"
    check "$name's run directory holds the run.json it came from" test -s "results/published/studies/$name/run.json"
    # "≈" twice encoded reads "â‰ˆ" (bytes C3 A2 C2 89 C2 88): a page is UTF-8 once.
    check "$page is UTF-8 encoded once (no double-encoded characters)" \
        perl -0777 -ne 'exit(/\xc3[\x80-\xbf]\xc2[\x80-\xbf]/ ? 1 : 0)' "$page"
done

# --- the published runs are what `loadbench report` writes -----------------
# Each run directory under results/published/ commits what cannot be made
# again (run.json, samples/, profile.yaml, the tools' configs and output)
# and what a reader opens on GitHub (summary.md, report.html, results.csv,
# stats.csv, disclosure.md, the PNG charts). A copy without the files report
# writes is rendered again: every one of them committed must come out
# byte-identical (else the committed page is stale or hand-edited: render
# it again with `loadbench report`), and what report writes but the run
# leaves out (each chart's .gp, .dat and .svg) must not be committed.
# scripts/prune-run-dir dropped what no page or report reads: no file
# PRUNED.txt lists may be back, and pruning again drops nothing.
derived="summary.md results.csv stats.csv report.html disclosure.md charts"
tracked() { git ls-files -- "$1" 2>/dev/null || find "$1" -type f; }
find results/published -type f -exec cksum {} + | sort > "$tmp/published.before"
for rd in results/published/studies/[0-9]-*/ results/published/sample-200vus/; do
    rd=${rd%/}
    name=$(basename "$rd")
    rm -rf "$tmp/render" && cp -R "$rd" "$tmp/render"
    (cd "$tmp/render" && rm -rf $derived)
    rc=0; "$LB" report "$tmp/render" >"$tmp/render.out" 2>&1 || rc=$?
    is "$rc" 0 "$name: loadbench report renders the run from what is committed"
    for rf in summary.md results.csv stats.csv report.html charts/bars_rps.png; do
        check "$name: $rf rendered" test -s "$tmp/render/$rf"
    done
    differ=$(for f in $derived; do tracked "$rd/$f"; done | while read -r f; do
        cmp -s "$f" "$tmp/render/${f#"$rd"/}" || echo "${f#"$rd"/}"; done)
    is "$differ" "" "$name: every committed file report writes comes out byte-identical"
    srcs=$(cd "$tmp/render" && ls charts/*.gp charts/*.dat charts/*.svg 2>/dev/null | wc -l)
    check "$name: report wrote the charts' sources again ($srcs .gp/.dat/.svg)" test "$srcs" -gt 0
    is "$(tracked "$rd/charts" | grep -E '\.(gp|dat|svg)$' || true)" "" "$name: no chart source (.gp, .dat, .svg) is committed"
    back=$(while read -r pf _; do [ ! -e "$rd/$pf" ] || echo "$pf"; done < "$rd/PRUNED.txt")
    is "$back" "" "$name: no file PRUNED.txt lists is committed"
    [ "$name" != sample-200vus ] || cp -R "$tmp/render/charts" "$tmp/sample-charts"
    rm -rf "$tmp/render" && cp -R "$rd" "$tmp/render"
    scripts/prune-run-dir "$tmp/render"
    check "$name: pruning again drops nothing" cmp -s "$rd/PRUNED.txt" "$tmp/render/PRUNED.txt"
done
# The chart sources left out are written byte-for-byte alike each time: the
# sample run rendered a second time into another copy, the same files as
# the loop's rendering.
S=results/published/sample-200vus
rm -rf "$tmp/again" && cp -R "$S" "$tmp/again" && (cd "$tmp/again" && rm -rf $derived)
"$LB" report "$tmp/again" >/dev/null 2>&1
check "sample-200vus: a second rendering writes the same charts, .gp, .dat and .svg" diff -r "$tmp/sample-charts" "$tmp/again/charts"
find results/published -type f -exec cksum {} + | sort > "$tmp/published.after"
check "results/published/ is unchanged by all of the above" cmp -s "$tmp/published.before" "$tmp/published.after"

done_testing
