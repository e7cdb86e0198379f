# Shared by the lb-target end-to-end tests (sourced, not run): TAP helpers,
# a temp dir, and lb-target instances started on free ports and always
# stopped by PID on exit.
: "${LB_BUILD:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
TARGET=$LB_BUILD/bin/lb-target
CLIENT=$LB_BUILD/tests/progs/target-client
tmp=$(mktemp -d)
pids=""
tap_n=0
tap_fail=0

cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

for f in "$TARGET" "$CLIENT"; do
    [ -x "$f" ] || { echo "1..0 # SKIP $f not built (run make)"; exit 0; }
done

# ok STATUS DESCRIPTION: STATUS 0 passes.
ok() {
    tap_n=$((tap_n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_fail=$((tap_fail + 1)); fi
}
# is GOT WANT DESCRIPTION
is() {
    if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got '$1', want '$2'"; fi
}
done_testing() {
    echo "1..$tap_n"
    [ "$tap_fail" -eq 0 ]
}

# start_target NAME [lb-target options]: sets PORT, CPORT, TPID (and
# NAME.out / NAME.err in $tmp). Waits up to 5 s for the listening line.
# TARGET_WRAP, if set, prefixes the command (a wrapper that execs, e.g. chrt).
start_target() {
    name=$1; shift
    ${TARGET_WRAP:-} "$TARGET" --port 0 --control-port 0 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    TPID=$!
    pids="$pids $TPID"
    i=0
    while ! grep -q '"event":"listening"' "$tmp/$name.out" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 100 ] || ! kill -0 "$TPID" 2>/dev/null; then
            echo "# lb-target did not start: $(cat "$tmp/$name.err")"
            return 1
        fi
        sleep 0.05
    done
    line=$(head -n1 "$tmp/$name.out")
    PORT=$(echo "$line" | sed -n 's/.*"port":\([0-9]*\).*/\1/p')
    CPORT=$(echo "$line" | sed -n 's/.*"control_port":\([0-9]*\).*/\1/p')
}

# stats FIELD...: the fields of GET /stats, one per line.
stats() { "$CLIENT" control "127.0.0.1:$CPORT" GET /stats "$@"; }

# kv KEY LINE: the value of KEY in a key=value line.
kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
