#!/bin/sh
# The man pages (docs/man/*.1) and the programs' --help texts say the same
# thing: every option in a program's --help (and in the usage of a loadbench
# command that has its own) is in its man page, and every option the man
# page names is in a --help; every loadbench command is documented. The
# pages are clean roff (groff -ww without a warning) and `make install-man`
# (part of `make install`) puts them in PREFIX/share/man/man1.
# lb-test: parallel (parses and computes only: no load, no clock, no CPU figure)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
B=$LB_BUILD/bin
for p in loadbench lb-target lb-gen; do
    [ -x "$B/$p" ] || skip_all "$p not built (run make)"
done
cd "$LB_SRC"

# Option tokens (--long, -s) in text: a dash after a letter or digit is a
# hyphen (lb-gen, round-robin, 0-3), not an option.
opts() {
    perl -ne 'while (/(?<![\w\-])(--?[A-Za-z][A-Za-z0-9-]*)/g) { print "$1\n" }' | sort -u
}
# The roff source as text: comments dropped, \- a dash, font escapes gone.
roff_text() {
    sed -e '/^\.\\"/d' -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(..//g' "$1"
}

for p in loadbench lb-target lb-gen; do
    page=docs/man/$p.1
    check "$page exists" test -s "$page"
    "$B/$p" --help > "$tmp/$p.help" 2>&1 || true
    case $p in
        loadbench)
            # compare and doctor have their own usage lines
            for c in compare doctor; do "$B/loadbench" $c --help >> "$tmp/$p.help" 2>&1 || true; done ;;
    esac
    opts < "$tmp/$p.help" > "$tmp/$p.help.opts"
    roff_text "$page" | opts > "$tmp/$p.man.opts"
    check "$p --help names options ($(wc -l < "$tmp/$p.help.opts"))" test "$(wc -l < "$tmp/$p.help.opts")" -ge 5
    missing=$(comm -23 "$tmp/$p.help.opts" "$tmp/$p.man.opts" | tr '\n' ' ')
    is "$missing" "" "every option in $p --help is in $page"
    extra=$(comm -13 "$tmp/$p.help.opts" "$tmp/$p.man.opts" | tr '\n' ' ')
    is "$extra" "" "every option in $page is in $p --help"
    check "$page names its program in NAME" grep -q "^$(printf '%s' "$p" | sed 's/-/\\\\-/g') \\\\- " "$page"
    if command -v groff >/dev/null 2>&1; then
        groff -man -Tutf8 -ww -z "$page" > "$tmp/$p.groff" 2>&1 || true
        is "$(cat "$tmp/$p.groff")" "" "$page renders without a groff warning"
    else
        skip "groff lint of $page: groff not installed (apt-get install groff-base)"
    fi
done

# loadbench's commands: the two-space-indented words under "commands:" in
# --help, and the .TP items of the man page's COMMANDS section.
"$B/loadbench" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p' | sort -u > "$tmp/cmds.help"
roff_text docs/man/loadbench.1 | sed -n '/^\.SH COMMANDS/,/^\.SH /p' |
    awk 'prev == ".TP" && /^\.B[IR]? [a-z]/ { print $2 } { prev = $1 }' | sort -u > "$tmp/cmds.man"
check "loadbench --help lists commands ($(tr '\n' ' ' < "$tmp/cmds.help"))" test "$(wc -l < "$tmp/cmds.help")" -ge 6
is "$(tr '\n' ' ' < "$tmp/cmds.man")" "$(tr '\n' ' ' < "$tmp/cmds.help")" "the man page documents exactly loadbench's commands"

# make install-man into a DESTDIR
rc=0; make -s --no-print-directory install-man PREFIX=/usr DESTDIR="$tmp/inst" > "$tmp/make.out" 2>&1 || rc=$?
is "$rc" 0 "make install-man exits 0 ($(head -c 200 "$tmp/make.out"))"
for p in loadbench lb-target lb-gen; do
    check "installed as PREFIX/share/man/man1/$p.1" cmp -s "docs/man/$p.1" "$tmp/inst/usr/share/man/man1/$p.1"
done
check "make install includes install-man" sh -c "make -n install PREFIX=/usr DESTDIR='$tmp/n' 2>/dev/null | grep -q 'share/man/man1'"
if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man -l "$tmp/inst/usr/share/man/man1/lb-gen.1" 2>/dev/null > "$tmp/lb-gen.txt" || true
    check "man -l shows the installed page (lb-gen's --rate-stages)" grep -q -- '--rate-stages' "$tmp/lb-gen.txt"
else
    skip "man -l: man not installed"
fi
done_testing
