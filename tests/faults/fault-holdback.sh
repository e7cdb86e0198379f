#!/bin/sh
# fault-holdback.sh: a fault program standing in for a closed-model tool
# that holds its users' requests back, the calibration of the queueing
# witness: requests wait inside the client, so the server sees few in
# flight and the client's latency is far above the server's, with no CPU
# signal at all.
#
#   fault-holdback.sh LB_GEN DELAY_MS INFLIGHT [lb-gen's closed-model arguments...]
#
# It takes lb-gen's closed-model arguments as loadbench gives them
# (--connections=N, --duration=D, ...) and runs the real lb-gen at the
# rate those N users would reach against the server's delay (N x 1000 /
# DELAY_MS requests/s) with at most INFLIGHT requests in flight: the rest
# queue inside lb-gen, which counts their latency from when they were due.
# A profile's bin: is a wrapper script that fills in the first three.
set -eu
gen=$1 delay_ms=$2 inflight=$3
shift 3
case "${1:-}" in --version) exec "$gen" --version ;; esac
n=""
for a in "$@"; do
    shift
    case "$a" in
        --connections=*) n=${a#--connections=} ;;
        *) set -- "$@" "$a" ;;
    esac
done
[ -n "$n" ] || { echo "fault-holdback: no --connections=N among the arguments (closed model, constant load only)" >&2; exit 2; }
exec "$gen" --rate=$((n * 1000 / delay_ms)) --connections="$inflight" --max-inflight="$inflight" "$@"
