# tls-row.sh: the checks of a tool's live row over TLS (adapter_raw.t and
# the *_live.t tests; live-tool.sh sources it), sourced after tap.sh.

# tls_row NAME I VERIFIED: row I of $J ran over TLS: status ok, counts
# exact or explained, identity.settings.tls.verified VERIFIED (what the
# adapter claims), lb-target counted full handshakes and none failed; at
# TLS 1.3, a TLS 1.3 cipher on every connection (the version held even by
# a tool that cannot pin it: lb-target offers no other); asked for h2,
# each of the server's requests an HTTP/2 stream. A skipped row (its tool
# not installed) is one SKIP that says why.
tls_row() {
    if [ "$(jget "$J" runs.$2.status)" = skipped ]; then
        skip "$1: $(jget "$J" runs.$2.reason)"
        return 0
    fi
    v=$(jget "$J" runs.$2.status)/$(jget "$J" runs.$2.crosscheck.verdict)
    case "$v" in ok/exact | ok/explained) ok 0 "$1: status ok, counts $v" ;;
        *) ok 1 "$1: status ok, counts exact or explained (got $v)"; diag "reason: $(jget "$J" runs.$2.reason)" ;; esac
    is "$(jget "$J" runs.$2.identity.settings.tls.verified)/$(jget "$J" runs.$2.target_protocol.tls.handshakes.failed)" \
        "$3/0" "$1: settings.tls.verified $3, no failed handshake"
    f=$(jget "$J" runs.$2.target_protocol.tls.handshakes.full)
    check "$1: lb-target counted full handshakes ($f)" test "${f:-0}" -gt 0
    if [ "$(jget "$J" runs.$2.target_protocol.tls.version)" = 1.3 ]; then
        c=$(jget "$J" runs.$2.target_protocol.tls.ciphers)
        # TLS 1.3's suites are the only ones named TLS_* in OpenSSL's names.
        n=$(printf '%s' "$c" | grep -o '"[^"]*":' | grep -vc '^"TLS_' || true)
        check "$1: every connection with a TLS 1.3 cipher ($c)" test "$n" = 0 -a "$c" != "{}"
    fi
    [ "$(jget "$J" runs.$2.target_protocol.asked)" = h2 ] || return 0
    is "$(jget "$J" runs.$2.target_protocol.h2.streams.completed)" "$(jget "$J" runs.$2.server.requests)" \
        "$1: h2 streams completed = the server's requests"
}

# row_index LABEL: the index of the row labelled LABEL in $J, in $r
# (returns 1 when none of the first 50 is).
row_index() {
    r=0
    while [ "$(jget "$J" runs.$r.label)" != "$1" ]; do r=$((r + 1)); [ $r -lt 50 ] || return 1; done
}
