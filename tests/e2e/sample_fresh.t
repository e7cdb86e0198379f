#!/bin/sh
# results/published/sample-200vus (the front page's pictures) was made by this build: its
# run.json's schema_version and loadbench.charts (the hash of the code that
# draws the charts, which `loadbench version` prints) equal the build's.
# Keyed on the run's own record, not on git dates (a tarball has none).
# LB_SAMPLE_RUN=DIR checks another directory (a fresh scripts/sample-run).
# lb-test: parallel (parses and computes only: no load, no clock, no CPU figure)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
dir=${LB_SAMPLE_RUN:-$LB_SRC/results/published/sample-200vus}
name=${dir#"$LB_SRC"/}
fix="regenerate it with scripts/sample-run${LB_SAMPLE_RUN:+ $dir} (runs profiles/sample-200vus.yaml: every tool, several minutes)"

version=$("$LB" version)
charts=$(printf '%s\n' "$version" | sed -n 's/^charts //p')
schema=$(printf '%s\n' "$version" | sed -n 's/^schema //p')
check "loadbench version prints the charts' hash" sh -c "printf '%s' '$charts' | grep -Eqx '[0-9a-f]{12}'"
check "loadbench version prints run.json's schema version" sh -c "printf '%s' '$schema' | grep -Eqx '[0-9]+'"

if [ ! -f "$dir/run.json" ]; then
    ok 1 "$name/run.json exists: $fix"
    done_testing || exit 1
fi
made=$(perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    printf "%s %s\n", $d->{loadbench}{charts} // "(none recorded)", $d->{schema_version} // "(none)"' <"$dir/run.json")
made_charts=${made% *} made_schema=${made##* }
ok "$([ "$made_charts" = "$charts" ] && echo 0 || echo 1)" \
    "$name was made by charts $made_charts, this build draws $charts"
[ "$made_charts" = "$charts" ] || diag "$name was made by charts $made_charts, this build draws $charts: $fix"
ok "$([ "$made_schema" = "$schema" ] && echo 0 || echo 1)" "$name's run.json has schema $made_schema, this build writes $schema"
[ "$made_schema" = "$schema" ] || diag "$name's run.json has schema $made_schema, this build writes $schema: $fix"
done_testing
