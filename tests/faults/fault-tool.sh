#!/bin/sh
# fault-tool.sh: a fault program standing in for a load tool, to create one
# failure on purpose. It answers `--version` like lb-gen, then behaves as
# FAULT (an environment variable, set through the test's profile bin
# wrapper) says:
#   hang        ignore SIGTERM and sleep forever (the harness must SIGKILL it)
#   crash       send itself SIGSEGV
#   garbage     write a broken summary.json and exit 0
#   nothing     write nothing and exit 0
#   daemonize   leave a setsid'd grandchild sleeping, write its pid to ./daemon.pid, exit 0
#   flood       write 300 MB to stdout, then exit 0
#   env         write its environment to ./env.txt, then behave as nothing
#   marker      touch $MARKER (absolute) and exit 0
#   oom         write its pid to ./tool.pid, wait 1.5 s (time for the test to
#               read oom_score_adj), then allocate and touch 512 MB: beyond a
#               memory_limit it must be OOM-killed
#   unphysical  write a summary.json that reads like lb-gen's but reports a
#               P50 of 1e300 ms (and a P99 of 2 ms), exit 0: loadbench must
#               refuse it as unparseable output, not print the number
#   fifo        make summary.json a FIFO (nobody writes it) and exit 0:
#               loadbench must refuse it, not wait in open() for ever
#   symlink     make summary.json a symbolic link to $SECRET (a file only
#               root may read) and exit 0: loadbench must not read it
case "${1:-}" in --version) echo "lb-gen fault-tool 0.0"; exit 0 ;; esac
mode=${FAULT_MODE:-$(cat "$(dirname "$0")/.mode" 2>/dev/null)}
case "$mode" in
    hang) trap '' TERM INT; while :; do sleep 1; done ;;
    crash) kill -SEGV $$; sleep 5 ;;
    garbage) printf '{"schema":"lb-gen/1","requests":{"compl' > summary.json; exit 0 ;;
    nothing) exit 0 ;;
    daemonize) setsid sh -c 'trap "" HUP; echo $$ > daemon.pid; exec sleep 300' </dev/null >/dev/null 2>&1 & sleep 0.5; exit 0 ;;
    flood) head -c 300000000 /dev/zero; exit 0 ;;
    env) env > env.txt; exit 0 ;;
    unphysical) printf '{"schema":"lb-gen/1","requests":{"completed":100,"ok":100},"errors":{},"time":{"load_s":1.0},"latency_ms":{"min":0.5,"p50":1e300,"p99":2.0,"max":3.0}}\n' > summary.json; exit 0 ;;
    fifo) mkfifo summary.json; exit 0 ;;
    symlink) ln -s "$(cat "$(dirname "$0")/.secret")" summary.json; exit 0 ;;
    oom) echo $$ > tool.pid; sleep 1.5; exec perl -e '$x = "x" x 512_000_000; sleep 10' ;;
    *) echo "fault-tool: unknown mode '$mode'" >&2; exit 3 ;;
esac
