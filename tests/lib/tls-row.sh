# tls-row.sh: the checks of a tool's live TLS 1.3 row (adapter_raw.t,
# httperf_live.t, tsung_live.t), sourced after tap.sh.

# tls_row I NAME VERIFIED: row I of $J ran over TLS 1.3: status ok, counts
# exact or explained, identity.settings.tls.verified VERIFIED (what the
# adapter claims), lb-target counted full handshakes and no failed one, and
# a TLS 1.3 cipher on every connection (the version held even by a tool
# that cannot pin it: lb-target offers no other).
tls_row() {
    if [ "$(jget "$J" runs.$1.status)" = skipped ]; then
        skip "$2: $(jget "$J" runs.$1.reason)"
        return
    fi
    v=$(jget "$J" runs.$1.status)/$(jget "$J" runs.$1.crosscheck.verdict)
    case "$v" in ok/exact | ok/explained) ok 0 "$2: status ok, counts $v" ;;
        *) ok 1 "$2: status ok, counts exact or explained (got $v)"; diag "reason: $(jget "$J" runs.$1.reason)" ;; esac
    is "$(jget "$J" runs.$1.identity.settings.tls.verified)/$(jget "$J" runs.$1.target_protocol.tls.handshakes.failed)" \
        "$3/0" "$2: settings.tls.verified $3, no failed handshake"
    f=$(jget "$J" runs.$1.target_protocol.tls.handshakes.full)
    c=$(jget "$J" runs.$1.target_protocol.tls.ciphers)
    # TLS 1.3's suites are the only ones named TLS_* in OpenSSL's names.
    n=$(printf '%s' "$c" | grep -o '"[^"]*":' | grep -vc '^"TLS_' || true)
    check "$2: lb-target counted $f full handshakes (> 0), all with TLS 1.3 ciphers ($c)" \
        test "${f:-0}" -gt 0 -a "$n" = 0 -a "$c" != "{}"
}
