#!/bin/sh
# fault-badversion.sh: a fault program standing in for a tool that is not
# the tool it is named as. Whatever it is asked (a version probe: --version,
# -v, -V), it prints a line that is not UTF-8 (bytes 0xFF 0xFE, Latin-1
# "caf\xe9") and exits 1. As a profile's bin: loadbench must refuse it
# before any load; found on PATH under a tool's name, the tool's row is
# skipped with a reason that keeps those bytes, escaped.
printf 'not-a-tool \377\376 caf\351\n'
exit 1
