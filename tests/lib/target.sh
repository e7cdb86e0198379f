# target.sh: start_target for the end-to-end tests (sourced after tap.sh,
# not run). One copy for the lb-target, lb-gen and live-tool tests.

# start_target NAME [lb-target options]: an lb-target on free loopback
# ports, tracked (so stopped on exit) and told to exit with its parent (so
# a test killed by hand leaves none behind). Sets T_PORT, T_CTL (the
# control port), T_PID and T_URL; NAME.out / NAME.err land in $tmp. Waits
# up to 5 s for the listening line, else bails out. TARGET_WRAP, if set,
# prefixes the command (a wrapper that execs, e.g. "chrt -f 10").
start_target() {
    name=$1
    shift
    ${TARGET_WRAP:-} "$LB_BUILD/bin/lb-target" --port 0 --control-port 0 --exit-with-parent "$@" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" &
    T_PID=$!
    track "$T_PID"
    i=0
    while ! grep -q '"event":"listening"' "$tmp/$name.out" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 100 ] || ! kill -0 "$T_PID" 2>/dev/null; then
            echo "Bail out! lb-target did not start: $(cat "$tmp/$name.err")"
            exit 1
        fi
        sleep 0.05
    done
    line=$(head -n 1 "$tmp/$name.out")
    T_PORT=$(echo "$line" | sed -n 's/.*"port":\([0-9]*\).*/\1/p')
    T_CTL=$(echo "$line" | sed -n 's/.*"control_port":\([0-9]*\).*/\1/p')
    T_URL="http://127.0.0.1:$T_PORT/"
}

# stop_target PID: SIGTERM and reap.
stop_target() {
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
