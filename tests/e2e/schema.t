#!/bin/sh
# schema/run.schema.json (docs/reports.md "run.json: its schema and
# versions"), checked with jsonschema's own validator (Debian's
# python3-jsonschema), not loadbench's code:
#   - the schema is valid draft 2020-12;
#   - every committed run.json (docs/, tests/fixtures/runs/) matches it;
#   - a fresh run of this build matches it, with schema_minor;
#   - a run.json with a required field dropped, a row field renamed, a
#     status outside the enum or a string where a number goes does not;
#   - docs/reports.md's field tables are the ones scripts/schema-doc renders
#     from the schema (one source).
# lb-test: parallel
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null || skip_all "python3-jsonschema not installed (scripts/deps test)"
sc=$LB_SRC/tests/lib/schema-check
cd "$LB_SRC"

check "the schema is valid draft 2020-12 (schema-check loads it)" "$sc"
committed=$(find docs tests/fixtures/runs -name run.json -type f | sort)
n=$(echo $committed | wc -w)
check "every committed run.json ($n) matches the schema" "$sc" $committed

printf 'name: schema\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\nsampling: {interval: 200ms}\n' >"$tmp/p.yaml"
"$LB" run --quiet --out "$tmp/run" "$tmp/p.yaml" >/dev/null 2>&1
check "a fresh run matches the schema" "$sc" "$tmp/run/run.json"
is "$(jget "$tmp/run/run.json" schema_minor)" "$(sed -n 's/^#define LB_SCHEMA_MINOR //p' common/limits.h)" \
    "the run carries schema_minor, as common/limits.h defines it"

# mutate NAME PERL: a copy of the fresh run.json changed by PERL ($d the
# decoded JSON) must fail validation.
mkdir -p "$tmp/bad"
schema_exempt "$tmp/bad"
mutate() {
    perl -MJSON::PP -e 'local $/; our $d = decode_json(<STDIN>); eval $ARGV[0]; die $@ if $@;
        print JSON::PP->new->utf8->canonical->encode($d)' "$2" <"$tmp/run/run.json" >"$tmp/bad/$1.json"
    rc=0; "$sc" "$tmp/bad/$1.json" >"$tmp/bad/$1.out" 2>&1 || rc=$?
    is "$rc" 1 "$1 fails validation ($(head -c 120 "$tmp/bad/$1.out"))"
}
mutate "a row without its required status" 'delete $d->{runs}[0]{status}'
mutate "a run without its required machine" 'delete $d->{machine}'
mutate "a row field renamed (client to clients)" '$d->{runs}[0]{clients} = delete $d->{runs}[0]{client}'
mutate "a top-level field renamed (runs kept, started_at_ms to started_ms)" '$d->{started_ms} = delete $d->{started_at_ms}'
mutate "a row status outside the enum" '$d->{runs}[0]{status} = "fine"'
mutate "a verdict outside the enum" '$d->{runs}[0]{crosscheck}{verdict} = "close enough"'
mutate "a count as a string" '$d->{runs}[0]{client}{requests} = "many"'

check "docs/reports.md's run.json tables are scripts/schema-doc's (one source)" scripts/schema-doc --check
done_testing
