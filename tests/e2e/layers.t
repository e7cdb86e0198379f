#!/bin/sh
# The layers of docs/architecture.md, checked on the sources and on the
# libraries the Makefile builds: the reports, the profile, the adapters and
# common/ never include a header of a layer above them, and their libraries
# need no symbol that only the engine's library defines; no two files
# include each other, however indirectly. No function of the product is
# longer than 120 lines, and no struct shares a function's name. Fails
# naming the file and the header, symbol, loop, function or name.
# lb-test: parallel (parses and computes only: no load, no clock, no CPU figure)
set -eu
. "$(dirname "$0")/../lib/tap.sh"
cd "$LB_SRC"

# forbid DIR PATTERN WHY: no #include in DIR's files matches PATTERN
forbid() {
    hits=$(grep -HnE "^[[:space:]]*#[[:space:]]*include[[:space:]]+\"($2)" $1/*.[ch] 2>/dev/null || true)
    [ -z "$hits" ] || echo "$hits" | sed 's/^/#   /'
    is "$(printf '%s' "$hits" | grep -c . || true)" 0 "$3"
}
forbid harness/report  'engine/'                    "report/ includes no engine header"
forbid spec         'engine/|report/|adapters/|agent/'  "spec/ includes only common/ and itself"
# The profile is the contract below both the harness and the adapters: it
# lives beside them, not inside harness/, so no arrow climbs up.
check "the profile model lives in spec/, below harness/ and adapters/" test -f spec/profile.h -a ! -e profile -a ! -e harness/profile
# No two top-level folders one letter apart (profile/ and profiles/ were):
# a reader, a shell completion or a Makefile glob takes one for the other.
near=$(git ls-files | sed -n 's|/.*||p' | sort -u | perl -e 'chomp(my @d = <STDIN>);
    sub lev { my ($a, $b) = @_; my @p = (0 .. length $b);
        for my $i (1 .. length $a) { my @c = ($i);
            for my $j (1 .. length $b) { my $x = $p[$j-1] + (substr($a, $i-1, 1) ne substr($b, $j-1, 1));
                $x = $p[$j] + 1 if $p[$j] + 1 < $x; $x = $c[$j-1] + 1 if $c[$j-1] + 1 < $x; push @c, $x }
            @p = @c }
        $p[-1] }
    for my $i (0 .. $#d) { for my $j ($i + 1 .. $#d) { print "$d[$i]/ $d[$j]/ " if lev($d[$i], $d[$j]) <= 1 } }')
is "$near" "" "no two top-level folders are one letter apart"
forbid adapters        'engine/|report/'            "adapters/ include no engine or report header"
forbid common          'engine/|report/|spec/|adapters/|targets/|generator/' "common/ includes only common/"
forbid targets         'engine/|report/|spec/|adapters/|generator/' "targets/ includes only common/ and itself"
forbid generator       'engine/|report/|spec/|adapters/|targets/' "generator/ includes only common/ and itself"
# The engine never writes the reports (main.c asks the engine for a run,
# then the reports for the pages); it writes the run's record of itself,
# whose status and files every reader checks the same way (run.c:
# report/runrecord.h); nothing else of them: the statistics it judges with
# are common/'s.
engine_report=$(grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"report/' harness/engine/*.[ch] |
    grep -vE '^harness/engine/run.c:[0-9]*:#include "report/runrecord.h"' || true)
[ -z "$engine_report" ] || echo "$engine_report" | sed 's/^/#   /'
is "$(printf '%s' "$engine_report" | grep -c . || true)" 0 "the engine includes no report header but run.c's report/runrecord.h"
# The transport to other hosts (harness/remote/) sits above the engine,
# behind engine/exec.h (exec_host_ops) and engine/place.h: no engine file
# includes a remote/ header (run.c, toolrun.c, target.c and crosscheck.c
# among them, and no engine header they include brings one in), and the
# layers below know nothing of it or of the agent.
forbid harness/engine  'remote/|agent/'             "engine/ includes no remote/ or agent/ header (run.c, toolrun.c, target.c, crosscheck.c: the hosts are behind exec.h and place.h)"
for f in run toolrun target crosscheck; do
    hits=$(grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"remote/' harness/engine/$f.[ch] || true)
    [ -z "$hits" ] || echo "$hits" | sed 's/^/#   /'
    is "$(printf '%s' "$hits" | grep -c . || true)" 0 "engine/$f.c and engine/$f.h include no remote/ header"
done
forbid harness/report  'remote/|agent/'             "report/ includes no remote/ or agent/ header"
for d in spec adapters common; do
    forbid $d          'remote/'                    "$d/ includes no remote/ header"
done
# The agent stands on the machine's facts (engine/machine.h), not on the
# orchestrator that runs a profile.
forbid harness/agent   'engine/run\.h'              "the agent includes no engine/run.h"
# every project include names its folder (no bare "x.h" resolved by -I order)
bare=$(git ls-files '*.c' '*.h' | xargs grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^/"]+"' || true)
[ -z "$bare" ] || echo "$bare" | sed 's/^/#   /'
is "$(printf '%s' "$bare" | grep -c . || true)" 0 "every #include \"...\" names its folder"

# No cycle between files: a module (X.c with X.h, and X_impl.h, its
# private header) whose includes lead back to itself (cgroup.c and guard.c
# once did). tsort names the loop.
for f in $(git ls-files 'common/*.[ch]' 'targets/*.[ch]' 'generator/*.[ch]' 'adapters/*.[ch]' 'spec/*.[ch]' \
                        'harness/*.[ch]' 'harness/*/*.[ch]'); do
    m=${f%.*}
    m=${m#harness/}
    m=${m%_impl}
    grep -hoE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"]+\.h"' "$f" | sed -E 's/.*"([^"]+)\.h"/\1/; s/_impl$//' |
        while read -r d; do [ "$d" = "$m" ] || echo "$m $d"; done
done | sort -u > "$tmp/deps"
check "no include cycle between the product's files ($(wc -l < "$tmp/deps") edges)" sh -c 'tsort "$1" >/dev/null' tsort "$tmp/deps"

# The libraries: what report, profile and adapters leave undefined must
# not be what only the engine defines.
lib=$LB_BUILD/lib
if [ -f "$lib/libengine.a" ] && command -v nm >/dev/null; then
    nm --defined-only "$lib/libengine.a" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort -u > "$tmp/engine"
    for l in report profile adapters common; do
        nm -u "$lib/lib$l.a" | awk 'NF {print $NF}' | sort -u > "$tmp/u.$l"
        leak=$(comm -12 "$tmp/u.$l" "$tmp/engine" | tr '\n' ' ')
        [ -z "$leak" ] || diag "lib$l.a needs from the engine: $leak"
        is "$leak" "" "lib$l.a needs no symbol of libengine.a"
    done
else
    for l in report profile adapters common; do skip "lib$l.a: libraries not built (run make)"; done
fi
# The engine links nothing of the transport: a host is reached through
# the tables remote/ fills (exec_host_ops, place_ops), never by name.
if [ -f "$lib/libengine.a" ] && [ -f "$lib/libremote.a" ] && command -v nm >/dev/null; then
    nm --defined-only "$lib/libremote.a" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort -u > "$tmp/remote"
    nm -u "$lib/libengine.a" | awk 'NF {print $NF}' | sort -u > "$tmp/u.engine"
    leak=$(comm -12 "$tmp/u.engine" "$tmp/remote" | tr '\n' ' ')
    [ -z "$leak" ] || diag "libengine.a needs from libremote.a: $leak"
    is "$leak" "" "libengine.a needs no symbol of libremote.a"
else
    skip "libengine.a, libremote.a: libraries not built (run make)"
fi

# Function length, in all product code (harness/, adapters/, spec/,
# targets/, generator/, common/): from a definition's opening brace at
# column 0 to its closing one, signature line included.
product_c=$(git ls-files 'common/*.c' 'targets/*.c' 'generator/*.c' 'adapters/*.c' 'spec/*.c' 'harness/*.c' 'harness/*/*.c')
long=$(for f in $product_c; do
    awk '/^[A-Za-z].*\(/ { sig = FNR } /^\{/ { open = sig } /^\}/ { if (open && FNR - open + 1 > 120) print FILENAME ":" open ": " FNR - open + 1 " lines"; open = 0 }' "$f"
done)
[ -z "$long" ] || echo "$long" | sed 's/^/#   /'
is "$(printf '%s' "$long" | grep -c . || true)" 0 "no function in the product's code over 120 lines"

# A type and a function never share a name (struct tool_run and tool_run()
# once did): the struct is the thing, the function says what it does to it.
product=$(git ls-files 'common/*.[ch]' 'targets/*.[ch]' 'generator/*.[ch]' 'adapters/*.[ch]' 'spec/*.[ch]' \
                       'harness/*.[ch]' 'harness/*/*.[ch]')
grep -ohE 'struct [a-z_0-9]+ \{' $product | awk '{print $2}' | sort -u > "$tmp/types"
grep -ohE '^[a-z].*[ *]([a-z_0-9]+)\(' $product | sed -E 's/.*[ *]([a-z_0-9]+)\($/\1/' | sort -u > "$tmp/funcs"
both=$(comm -12 "$tmp/types" "$tmp/funcs" | tr '\n' ' ')
is "$both" "" "no struct shares its name with a function"
done_testing
