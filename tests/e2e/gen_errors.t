#!/bin/sh
# lb-gen's error kinds against a misbehaving server (tests/progs/gen-faults):
# counted by kind, never fatal; responses it does complete still match the
# server's count exactly (404s, chunked bodies, Connection: close).
# lb-test: shared (live, but judges counts, statuses and faults only: no bound a neighbour's CPU can move)
set -eu
. "$(dirname "$0")/gen-lib.sh"

start_faults 404
"$GEN" --quiet -c 5 -d 500ms --json "$tmp/404.json" "$F_URL"
faults_stop 404
served404=$SERVED
set -- $(jget "$tmp/404.json" requests.completed requests.ok requests.non2xx errors.status errors.total)
check "404s: $1 completed == server $served404, all non-2xx ($3), counted as status errors ($4)" \
    [ "$1" = "$served404" -a "$2" = 0 -a "$3" = "$1" -a "$4" = "$1" -a "$5" = "$1" -a "$1" -gt 0 ]

# --expect-status: the status asked is ok (404 here), any other an error
# counted as check_failed; one run each way against the same 404s.
start_faults 404
"$GEN" --quiet -c 2 -d 300ms --expect-status 404 --json "$tmp/x404.json" "$F_URL"
faults_stop 404
set -- $(jget "$tmp/x404.json" requests.completed requests.ok requests.check_failed errors.status errors.total)
check "--expect-status 404 on 404s: $1 completed, all ok ($2), no check failure ($3 $4 $5)" \
    [ "$2" = "$1" -a "$3" = 0 -a "$4" = 0 -a "$5" = 0 -a "$1" -gt 0 ]
start_faults 404
"$GEN" --quiet -c 2 -d 300ms --expect-status 200 --json "$tmp/x200.json" "$F_URL"
faults_stop 404
set -- $(jget "$tmp/x200.json" requests.completed requests.ok requests.check_failed errors.status errors.total \
    config.expect_status)
check "--expect-status 200 on 404s: $1 completed, none ok ($2), every one failed the check ($3 $4 $5; config $6)" \
    [ "$2" = 0 -a "$3" = "$1" -a "$4" = "$1" -a "$5" = "$1" -a "$6" = 200 -a "$1" -gt 0 ]

start_faults chunked
"$GEN" --quiet -c 5 -d 500ms --json "$tmp/chunked.json" "$F_URL"
faults_stop chunked
servedc=$SERVED
set -- $(jget "$tmp/chunked.json" requests.completed requests.ok errors.total)
check "chunked bodies: $1 completed == server $servedc, all ok, no errors ($3)" \
    [ "$1" = "$servedc" -a "$2" = "$1" -a "$3" = 0 -a "$1" -gt 0 ]

start_faults close
"$GEN" --quiet -c 5 -d 500ms --json "$tmp/close.json" "$F_URL"
faults_stop close
servedx=$SERVED
set -- $(jget "$tmp/close.json" requests.completed connections.opened errors.total)
check "server closes after each response: $1 completed == server $servedx, $2 connections, no errors ($3)" \
    [ "$1" = "$servedx" -a "$3" = 0 -a "$2" -ge "$1" -a "$1" -gt 0 ]

start_faults garbage
rc=0
"$GEN" --quiet -c 3 -d 300ms --json "$tmp/garbage.json" "$F_URL" || rc=$?
faults_stop garbage
set -- $(jget "$tmp/garbage.json" requests.completed errors.read)
check "non-HTTP answers: read errors ($2), nothing completed ($1), exit 0 ($rc)" [ "$1" = 0 -a "$2" -gt 0 -a "$rc" = 0 ]

start_faults reset
"$GEN" --quiet -c 3 -d 300ms --json "$tmp/reset.json" "$F_URL"
faults_stop reset
set -- $(jget "$tmp/reset.json" requests.completed errors.read)
check "connection resets: read errors ($2), nothing completed ($1)" [ "$1" = 0 -a "$2" -gt 0 ]

start_faults silent
"$GEN" --quiet -c 3 -d 1s --timeout 300ms --grace 200ms --json "$tmp/silent.json" "$F_URL"
set -- $(jget "$tmp/silent.json" requests.completed errors.timeout requests.unfinished time.drain_s)
check "no answers, --timeout 300ms over 1 s: timeouts ($2 >= 6, including $3 <= 3 unfinished at the end)" \
    [ "$1" = 0 -a "$2" -ge 6 -a "$3" -le 3 ]
check "the grace bounds the drain (${4} s <= 0.35 s)" fcmp "$4 <= 0.35"

"$GEN" --quiet --rate 100 -c 5 -d 1s --grace 100ms --json "$tmp/silent-open.json" "$F_URL"
faults_stop silent
set -- $(jget "$tmp/silent-open.json" schedule.scheduled schedule.sent schedule.dropped schedule.inflight_cap_hits requests.unfinished)
check "open model, server never answers: 5 sent ($2), the other $3 of $1 dropped, each one a cap hit ($4), 5 unfinished ($5)" \
    [ "$1" = 100 -a "$2" = 5 -a "$3" = 95 -a "$4" = 95 -a "$5" = 5 ]
done_testing
