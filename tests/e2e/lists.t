#!/bin/sh
# Lists that must not drift from their one source (issue #43):
#   - every adapter is `const struct adapter adapter_NAME`, NAME its .name
#     with every "-" written "_", and registry.c lists each;
#   - docs/adding-a-tool.md's field table names every field of
#     struct adapter (adapters/adapter.h), and no field it does not have;
#   - `loadbench tools` lists every registered adapter, and
#     docs/versions.md's table and the man page name each, and the man
#     page's list in DESCRIPTION names no other;
#   - docs/versions.md's table has one row per adapter and no other, and
#     every version number an adapter's `versions` line prints (`loadbench
#     tools`) is in its row;
#   - fuzz/corpus/fuzz_parsers has a seed for each adapter, and every seed
#     names one (its first line: NAME or NAME/open);
#   - no fixture keeps a copy of a hook script loadbench writes beside a run
#     (adapters/*/*.lua, *.py): fixtures name the product's file instead.
# lb-test: parallel
set -eu
. "$(dirname "$0")/../lib/tap.sh"
LB=$LB_BUILD/bin/loadbench
[ -x "$LB" ] || skip_all "loadbench not built (run make)"
cd "$LB_SRC"

# name<TAB>symbol<TAB>file for each adapter definition.
perl -e 'for my $f (@ARGV) { local $/; open my $h, "<", $f or die; my $t = <$h>;
    while ($t =~ /const struct adapter (adapter_\w+) = \{(.*?)\n\};/sg) {
        my ($sym, $body) = ($1, $2); my ($n) = $body =~ /\.name = "([^"]+)"/; print "$n\t$sym\t$f\n" } }' \
    adapters/*.c > "$tmp/adapters.tsv"
n=$(wc -l < "$tmp/adapters.tsv")
check "adapters found ($n)" test "$n" -ge 18
while IFS="$(printf '\t')" read -r name sym file; do
    want=adapter_$(printf '%s' "$name" | tr - _)
    is "$sym" "$want" "$file: the adapter $name is $want"
    check "registry.c lists $sym" grep -q "&$sym\b" adapters/registry.c
done < "$tmp/adapters.tsv"

fields=$(sed -n '/^struct adapter {/,/^};/p' adapters/adapter.h |
    perl -ne 'next if /^\s*(\/|\*)/; print "$1\n" if /\(\*(\w+)\)\(/ || /^\s+[^;(]*?\b(\w+);/' | sort -u)
documented=$(sed -n '/^| field | what to put there |/,/^$/p' docs/adding-a-tool.md |
    perl -ne 'next unless /^\| (`[^|]*)\|/; my $c = $1; print "$1\n" while $c =~ /`(\w+)`/g' | sort -u)
is "$(echo $documented)" "$(echo $fields)" "docs/adding-a-tool.md's field table names exactly struct adapter's fields"

"$LB" tools > "$tmp/tools.txt"
cut -f1 "$tmp/adapters.tsv" | sort > "$tmp/names"
for name in $(cat "$tmp/names"); do
    check "loadbench tools lists $name" grep -q "^$name " "$tmp/tools.txt"
done
roff=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' docs/man/loadbench.1)
for name in $(cat "$tmp/names"); do
    check "the man page names $name" sh -c "printf '%s' \"\$1\" | grep -qiw -- '$name'" _ "$roff"
done
# The man page's own list (DESCRIPTION: "runs HTTP load-testing tools (...)
# one at a time"): exactly the registered adapters, none stale.
listed=$(printf '%s' "$roff" | perl -0777 -ne '/load-testing tools \((.*?)\) one at a time/s or exit;
    my $l = lc $1; $l =~ s/^\.br\s+//mg; $l =~ s/\(1\)//g;
    $l =~ s/\b(its own|and the reference generators|and)\b/,/g;
    print join(" ", sort grep { length } map { s/^\s+|\s+$//gr } split /[,\n]/, $l), "\n"')
is "$listed" "$(tr '\n' ' ' < "$tmp/names" | sed 's/ $//')" "the man page's tool list is exactly the registered adapters"
# docs/versions.md's table: the first column, one row per adapter.
sed -n '/^| tool | live |/,/^$/p' docs/versions.md | sed '1,2d' |
    perl -ne 'print lc($1), "\t$_" if /^\| ([^|]+?) \|/' > "$tmp/versions.rows"
is "$(cut -f1 "$tmp/versions.rows" | sort | tr '\n' ' ')" "$(tr '\n' ' ' < "$tmp/names")" \
    "docs/versions.md's table has a row for each registered adapter and no other"
sed -n '/^versions:/,/^$/p' "$tmp/tools.txt" | sed '1d' > "$tmp/versions.lines"
while read -r name text; do
    [ -n "$name" ] || continue
    row=$(awk -F '\t' -v n="$name" '$1 == n { print $2 }' "$tmp/versions.rows")
    missing=$(printf '%s\n' "$text" | perl -ne 'print "$1\n" while /(v?\d+(?:\.\d+)+)/g' | while read -r v; do
        case $row in *"$v"*) ;; *) printf '%s ' "$v" ;; esac; done)
    is "$missing" "" "docs/versions.md's $name row has every version its adapter prints"
done < "$tmp/versions.lines"

# The parsers' fuzz corpus: a seed per adapter, each seed an adapter's.
for f in fuzz/corpus/fuzz_parsers/*; do head -n 1 "$f" | cut -d/ -f1; echo; done | grep -v '^$' | sort -u > "$tmp/fuzzed"
for name in $(cat "$tmp/names"); do
    check "fuzz/corpus/fuzz_parsers has a seed for $name" grep -qx -- "$name" "$tmp/fuzzed"
done
is "$(comm -23 "$tmp/fuzzed" "$tmp/names" | tr '\n' ' ')" "" "every fuzz_parsers seed names a registered adapter"

# Fixtures refer to the product's hook scripts, never carry a copy that
# could drift (a capture records the hook's git blob instead).
for hook in adapters/*/*.lua adapters/*/*.py; do
    [ -f "$hook" ] || continue
    copies=$(find tests/fixtures -name "$(basename "$hook")" | tr '\n' ' ')
    is "$copies" "" "no fixture copies $hook"
done
done_testing
