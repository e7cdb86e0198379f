#!/bin/sh
# Lists that must not drift from their one source (issue #43):
#   - every adapter is `const struct adapter adapter_NAME`, NAME its .name
#     with every "-" written "_", and registry.c lists each;
#   - docs/adding-a-tool.md's field table names every field of
#     struct adapter (adapters/adapter.h), and no field it does not have;
#   - `loadbench tools` lists every registered adapter, and
#     docs/versions.md's table and the man page name each.
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
done_testing
