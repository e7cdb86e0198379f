# Shared by the lb-target end-to-end tests (sourced, not run): the TAP
# helpers, temp dir and PID tracking of tests/lib/tap.sh, plus lb-target
# instances started by tests/lib/target.sh (T_PORT, T_CTL, T_PID).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/target.sh"
TARGET=$LB_BUILD/bin/lb-target
CLIENT=$LB_BUILD/tests/progs/target-client

for f in "$TARGET" "$CLIENT"; do
    [ -x "$f" ] || { echo "1..0 # SKIP $f not built (run make)"; exit 0; }
done

# stats FIELD...: the fields of GET /stats, one per line.
stats() { "$CLIENT" control "127.0.0.1:$T_CTL" GET /stats "$@"; }

# kv KEY LINE: the value of KEY in a key=value line.
kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# rss_kb FIELD: VmRSS, VmHWM... of the last started lb-target, in kB.
rss_kb() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/"$T_PID"/status; }
# nfds: its open file descriptors.
nfds() { ls /proc/"$T_PID"/fd | wc -l; }
# lt A B: 0 when A < B (numbers, decimals too), else 1: for ok.
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }' && echo 0 || echo 1; }
# wait_line PATTERN FILE: wait (up to 20 s) until FILE has a line matching PATTERN.
wait_line() {
    i=0
    until grep -q "$1" "$2" 2>/dev/null; do
        i=$((i + 1)); [ $i -lt 400 ] || return 0
        sleep 0.05
    done
}
