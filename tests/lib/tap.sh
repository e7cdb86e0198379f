# tap.sh: TAP helpers for the shell end-to-end tests (sourced, not run).
# Gives ok/is/check/diag/skip/skip_all/done_testing, under_asan, a temp dir $tmp removed on
# exit, `track PID` for processes to end on exit (by PID, never by name),
# and jget FILE PATH to read JSON with Perl's core JSON::PP (no jq needed).
: "${LB_BUILD:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
LB_SRC=$(cd "$(dirname "$0")/../.." && pwd)
# No quiet-gate wait before each tool run (a busy test machine would wait
# at every one); run_quiet.t turns it back on for its own runs.
export LOADBENCH_QUIET="${LOADBENCH_QUIET-off}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lb-e2e.XXXXXX")
tracked=""
tap_n=0
tap_fail=0

tap_cleanup() {
    for p in $tracked; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
    for p in $tracked; do wait "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap tap_cleanup EXIT
trap 'exit 1' INT TERM

track() { tracked="$tracked $*"; }

ok() { # ok STATUS DESCRIPTION
    tap_n=$((tap_n + 1))
    if [ "$1" = 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_fail=$((tap_fail + 1)); fi
}
is() { # is GOT WANT DESCRIPTION
    if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got '$1', want '$2'" >&2; fi
}
check() { # check DESCRIPTION COMMAND...
    d=$1; shift
    if "$@"; then ok 0 "$d"; else ok 1 "$d"; fi
}
diag() { echo "# $*"; }
skip() { # skip DESCRIPTION: one skipped test
    tap_n=$((tap_n + 1))
    echo "ok $tap_n # SKIP $1"
}
# under_asan: true when the binaries under test are the SANITIZE=address
# build (make check-asan sets LB_BUILD_TYPE=asan): timing and memory figures
# are then the sanitizer's, so precision bounds are skipped, never loosened.
under_asan() { [ "${LB_BUILD_TYPE:-release}" = asan ]; }
# skip_all WHY: the whole file skips. Under `make check` (LB_SKIPPED set) the
# file's name and WHY also go to that list, which the check's closing lines
# print, so a fresh machine's skips are said where the run ends.
skip_all() {
    echo "1..0 # SKIP $*"
    [ -z "${LB_SKIPPED:-}" ] || printf '%s: %s\n' "${0##*/}" "$*" >>"$LB_SKIPPED"
    exit 0
}
# Every run.json a test wrote under $tmp is validated against
# schema/run.schema.json by jsonschema's own validator (one check, before the
# plan). A test that writes a broken run.json on purpose names its directory
# with schema_exempt DIR.
schema_exempt() { schema_exempted="${schema_exempted:-} $1"; }
schema_check_tmp() {
    [ -d "$tmp" ] || return 0
    files=""
    for f in $(find "$tmp" -name run.json -type f 2>/dev/null); do
        keep=1
        for x in ${schema_exempted:-}; do case $f in "$x"/*) keep=0 ;; esac; done
        [ $keep = 0 ] || files="$files $f"
    done
    [ -n "$files" ] || return 0
    n=$(echo $files | wc -w)
    if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
        skip "python3-jsonschema is not installed (scripts/deps test): $n run.json not validated"
        return 0
    fi
    if "$LB_SRC/tests/lib/schema-check" $files >"$tmp/.schema-check" 2>&1; then
        ok 0 "every run.json this test wrote ($n) matches schema/run.schema.json"
    else
        ok 1 "every run.json this test wrote ($n) matches schema/run.schema.json"
        sed 's/^/# /' "$tmp/.schema-check"
    fi
}
done_testing() {
    schema_check_tmp
    echo "1..$tap_n"
    [ "$tap_fail" -eq 0 ]
}

# jget FILE PATH: print the JSON value at PATH (keys and array indexes
# separated by dots, e.g. runs.0.crosscheck.verdict); empty when absent,
# "null" for null. Numbers print as Perl prints them.
jget() {
    perl -MJSON::PP -e '
        local $/; open my $f, "<", $ARGV[0] or exit 1; my $d = decode_json(<$f>);
        for my $k (split /\./, $ARGV[1]) {
            if (ref $d eq "ARRAY") { $d = $d->[$k] } elsif (ref $d eq "HASH") { $d = $d->{$k} } else { $d = undef }
        }
        print defined $d ? (ref $d ? encode_json($d) : (JSON::PP::is_bool($d) ? ($d ? "true" : "false") : $d)) : "null";
    ' "$1" "$2"
}

# no_descendants PID: true when PID has no live descendants (reads /proc).
live_children() { cat /proc/"$1"/task/*/children 2>/dev/null | tr -s ' \n' ' '; }

# absent_cpu: the highest CPU number 0-63 this process may not run on (from
# Cpus_allowed_list), or nothing when every one of them is allowed.
absent_cpu() {
    perl -e '
        open my $f, "<", "/proc/self/status" or exit 0;
        while (<$f>) {
            next unless /^Cpus_allowed_list:\s*(\S+)/;
            my %a;
            for (split /,/, $1) { my ($x, $y) = split /-/; $y //= $x; $a{$_} = 1 for $x .. $y }
            for (my $c = 63; $c >= 0; $c--) { if (!$a{$c}) { print $c; exit 0 } }
        }'
}
