# own-netns.sh: every loadbench run of a test in a network namespace of its
# own (sourced after tap.sh, once $LB is set). Before each tool run loadbench
# waits, up to 65 s, while TIME_WAIT sockets fill half the ephemeral port
# range; on a shared machine other tests' and other users' load leaves that
# many (a tool run of 500 ms here once waited 58 s for them), so a test's
# runs would wait for load that is not theirs. A fresh namespace (root,
# unshare and ip) has its own loopback and none of those sockets; the pid
# namespace stays the same, so PIDs, /proc and process trees read as before.
#
# $LB becomes a wrapper that execs loadbench in a new namespace at each call
# (the same PID all along: `setsid "$LB" run ... &` leaves loadbench's pid
# in $!). Where no namespace can be made, $LB stays as it is, said once.
# A test's own lb-target (start_target) stays in the machine's namespace:
# only loadbench and what it starts (its lb-target, the tools) move.
if [ "$(id -u)" = 0 ] && unshare -n sh -c 'ip link set lo up' 2>/dev/null; then
    printf '#!/bin/sh\nexec unshare -n sh -c '\''ip link set lo up; exec "$@"'\'' sh '\''%s'\'' "$@"\n' "$LB" >"$tmp/loadbench-netns"
    chmod +x "$tmp/loadbench-netns"
    LB=$tmp/loadbench-netns
else
    diag "no private network namespace here (needs root, unshare and ip): runs share the machine's"
fi
