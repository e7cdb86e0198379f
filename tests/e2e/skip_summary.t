#!/bin/sh
# lb-test: parallel
# make check's closing lines name every test file that skipped whole, with
# its reason (tap.sh's skip_all appends "file: reason" to $LB_SKIPPED;
# tests/lib/skipped-summary prints them after prove): a fresh machine's
# skips are said where the run ends, not only in the scroll above.
set -eu
. "$(dirname "$0")/../lib/tap.sh"
mkdir -p "$tmp/t/e2e"
printf '#!/bin/sh\n. %s/tests/lib/tap.sh\nskip_all "frob is not installed (scripts/deps test)"\n' "$LB_SRC" >"$tmp/t/e2e/needs-frob.t"
printf '#!/bin/sh\n. %s/tests/lib/tap.sh\nok 0 "runs"\ndone_testing\n' "$LB_SRC" >"$tmp/t/e2e/runs.t"
chmod +x "$tmp/t/e2e/"*.t
list=$tmp/skipped.txt
out=$(LB_SKIPPED=$list "$tmp/t/e2e/needs-frob.t")
is "$out" "1..0 # SKIP frob is not installed (scripts/deps test)" "skip_all still prints TAP's skip line"
LB_SKIPPED=$list "$tmp/t/e2e/runs.t" >/dev/null
is "$(cat "$list")" "needs-frob.t: frob is not installed (scripts/deps test)" "the skipped file and its reason are listed, the file that ran is not"
sum=$("$LB_SRC/tests/lib/skipped-summary" "$list")
is "$(printf '%s\n' "$sum" | sed -n 1p)" "1 test file(s) skipped whole; each runs once its reason is met:" "the summary counts them"
is "$(printf '%s\n' "$sum" | sed -n 2p)" "  needs-frob.t: frob is not installed (scripts/deps test)" "and names each with its reason"
is "$("$LB_SRC/tests/lib/skipped-summary" "$tmp/none.txt")" "" "nothing skipped: no closing lines"
# The recipe itself (read, not run: make -n would still build through $(MAKE)).
recipe=$(awk '/^check:/ { on = 1; next } on && !/^\t/ { exit } on' "$LB_SRC/Makefile" | tr -d '\\\n')
check "make check passes LB_SKIPPED to prove and prints the summary after it" \
    sh -c "printf '%s' '$recipe' | grep -q 'LB_SKIPPED=.*prove .*rc=.*skipped-summary'"
done_testing
