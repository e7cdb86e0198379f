#!/bin/sh
# fault-liar.sh: a fault program standing in for a load tool that lies. It
# runs the real lb-gen (path in ./.lbgen beside this script) with the
# arguments loadbench gave, then plants errors in lb-gen's summary.json:
# 1000 requests more than were completed, and a minimum and median latency
# of 1 ms whatever the server's delay. loadbench must call the count a
# mismatch and the latency below the server's floor.
dir=$(dirname "$0")
case "${1:-}" in --version) exec "$(cat "$dir/.lbgen")" --version ;; esac
"$(cat "$dir/.lbgen")" "$@" || exit $?
perl -MJSON::PP -e '
    local $/; open my $f, "<", "summary.json" or die "no summary.json"; my $d = decode_json(<$f>); close $f;
    $d->{requests}{completed} += 1000;
    $d->{latency_ms}{min} = 1.0;
    $d->{latency_ms}{p50} = 1.0;
    open $f, ">", "summary.json" or die; print $f encode_json($d); close $f;
'
