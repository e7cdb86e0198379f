#!/bin/sh
# lb-gen against responses whose end is the server's close, cut short, or
# preceded by interim 1xx responses (tests/progs/gen-faults): a close that
# arrives with the last bytes completes a close-delimited response (it used
# to be missed under edge-triggered epoll and counted as a timeout), a body
# cut short by the close is a read error at once (never a timeout), and
# 100/103 interim responses are skipped (RFC 9110 15.2), never an error.
set -eu
. "$(dirname "$0")/gen-lib.sh"

# run_mode MODE CONNS: lb-gen for 1 s against gen-faults MODE; sets SERVED
# and leaves $tmp/MODE-CONNS.json.
run_mode() {
    start_faults "$1"
    "$GEN" --quiet -c "$2" -d 1s --timeout 1s --grace 1s --json "$tmp/$1-$2.json" "$F_URL"
    faults_stop "$1"
}

for conns in 1 10; do
    for mode in eof eof-delay; do
        run_mode $mode $conns
        set -- $(jget "$tmp/$mode-$conns.json" requests.sent requests.completed requests.ok errors.total errors.timeout)
        # eof-delay: one response per connection per 50 ms at most: 20 in
        # the 1 s; 5 leaves a 4x margin for a machine that keeps it waiting.
        min=$([ $mode = eof ] && echo 20 || echo $((conns * 5)))
        check "$mode, -c $conns: $2 of $1 sent completed == server $SERVED, all ok, no errors ($4; $5 timeouts)" \
            [ "$2" = "$SERVED" -a "$2" = "$1" -a "$3" = "$2" -a "$4" = 0 -a "$2" -ge "$min" ]
    done
done

run_mode truncated 5
set -- $(jget "$tmp/truncated-5.json" requests.sent requests.completed errors.read errors.timeout)
check "truncated bodies, -c 5: each of $1 sent is a read error ($3), none a timeout ($4), none completed ($2)" \
    [ "$1" -ge 20 -a "$2" = 0 -a "$3" = "$1" -a "$4" = 0 -a "$SERVED" = 0 ]

run_mode continue 5
set -- $(jget "$tmp/continue-5.json" requests.sent requests.completed requests.ok errors.total)
check "100 Continue and 103 Early Hints before the 200, -c 5: $2 completed == server $SERVED, all ok, no errors ($4)" \
    [ "$2" = "$SERVED" -a "$2" = "$1" -a "$3" = "$2" -a "$4" = 0 -a "$2" -gt 100 ]
done_testing
