/* tls: see tls.h. The certificate is made here with OpenSSL's API (never
 * by running the openssl command): a CA of its own per run, so that a tool
 * can verify the server against the CA file the run leaves behind, and a
 * server certificate for 127.0.0.1 and localhost that the CA signs. */
#include "targets/tls.h"
#include "common/util.h"

#include <errno.h>
#include <limits.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>

#define CERT_DAYS 7

/* The newest OpenSSL error as text, for a sentence of ours. */
static const char *ossl_reason(void)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    return r ? r : "no reason given";
}

static EVP_PKEY *key_new(int key)
{
    return key == TLS_KEY_RSA ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");
}

/* Add extension nid = value to cert (issuer: for the authority key id).
 * Returns 0, or -1. */
static int cert_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ex = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ex)
        return -1;
    int ok = X509_add_ext(cert, ex, -1);
    X509_EXTENSION_free(ex);
    return ok ? 0 : -1;
}

/* The fields every certificate of ours has: version 3, a random serial,
 * valid from an hour ago for CERT_DAYS, subject O=loadbench, CN=cn. */
static int cert_fields(X509 *x, EVP_PKEY *key, const char *cn)
{
    BIGNUM *bn = BN_new();
    int ok = bn && BN_rand(bn, 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) &&
             BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) && X509_set_version(x, 2) &&
             X509_gmtime_adj(X509_getm_notBefore(x), -3600) &&
             X509_gmtime_adj(X509_getm_notAfter(x), (long)CERT_DAYS * 86400) && X509_set_pubkey(x, key);
    BN_free(bn);
    X509_NAME *name = X509_get_subject_name(x);
    return ok && X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"loadbench", -1, -1, 0) &&
                   X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0)
               ? 0
               : -1;
}

/* A certificate for key: the CA's own (issuer NULL: self-signed) or the
 * server's, signed by issuer_key. Returns NULL on failure. */
static X509 *cert_new(EVP_PKEY *key, int key_type, X509 *issuer, EVP_PKEY *issuer_key)
{
    X509 *x = X509_new();
    if (!x || cert_fields(x, key, issuer ? "lb-target" : "loadbench run CA") < 0)
        goto err;
    X509 *iss = issuer ? issuer : x;
    if (!X509_set_issuer_name(x, X509_get_subject_name(iss)) || cert_ext(x, iss, NID_subject_key_identifier, "hash") < 0)
        goto err;
    int bad = issuer ? cert_ext(x, iss, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
                           cert_ext(x, iss, NID_key_usage,
                                    key_type == TLS_KEY_RSA ? "critical,digitalSignature,keyEncipherment"
                                                            : "critical,digitalSignature") < 0 ||
                           cert_ext(x, iss, NID_ext_key_usage, "serverAuth") < 0 ||
                           cert_ext(x, iss, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost") < 0 ||
                           cert_ext(x, iss, NID_authority_key_identifier, "keyid") < 0
                     : cert_ext(x, iss, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") < 0 ||
                           cert_ext(x, iss, NID_key_usage, "critical,keyCertSign,cRLSign") < 0;
    if (bad || !X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256()))
        goto err;
    return x;
err:
    X509_free(x);
    return NULL;
}

/* cert as parsed from its own DER: X509 keeps the encoding of what it
 * parsed, while one built and signed here is encoded anew each time
 * OpenSSL writes it, i.e. in every handshake's Certificate message
 * (callgrind: 2.5 % of the instructions of a full TLS 1.3 handshake). Frees cert;
 * returns the copy, or NULL. */
static X509 *cert_reparsed(X509 *cert)
{
    unsigned char *der = NULL;
    int len = i2d_X509(cert, &der);
    const unsigned char *p = der;
    X509 *copy = len > 0 ? d2i_X509(NULL, &p, len) : NULL;
    OPENSSL_free(der);
    X509_free(cert);
    return copy;
}

static int write_ca(const char *path, X509 *ca, char *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return util_err(err, "cannot write the CA certificate to \"%s\": %s", path, strerror(errno));
    int ok = PEM_write_X509(f, ca);
    if (fclose(f) != 0 || !ok)
        return util_err(err, "cannot write the CA certificate to \"%s\"", path);
    return 0;
}

/* ALPN: h2 when it is on (arg) and the client offers it, else HTTP/1.1
 * when the client offers it; otherwise no protocol (the handshake goes on
 * and the connection is counted under "none"). */
static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned inlen, void *arg)
{
    (void)ssl;
    static const unsigned char ours[] = "\x02h2\x08http/1.1";
    size_t skip = arg ? 0 : 3;   /* without h2: from "http/1.1" on */
    unsigned char *sel;
    if (SSL_select_next_proto(&sel, outlen, ours + skip, sizeof ours - 1 - skip, in, inlen) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK;
    *out = sel;
    return SSL_TLSEXT_ERR_OK;
}

static SSL_CTX *ctx_build(const struct tls_config *cfg, X509 *cert, EVP_PKEY *key, char *err)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    int v = cfg->version == TLS_V13 ? TLS1_3_VERSION : TLS1_2_VERSION;
    if (!ctx || !SSL_CTX_set_min_proto_version(ctx, v) || !SSL_CTX_set_max_proto_version(ctx, v) ||
        !SSL_CTX_use_certificate(ctx, cert) || !SSL_CTX_use_PrivateKey(ctx, key) || !SSL_CTX_check_private_key(ctx)) {
        util_err(err, "cannot set up the TLS server context: %s", ossl_reason());
        SSL_CTX_free(ctx);
        return NULL;
    }
    /* Partial writes: the event loop writes what the socket takes and
     * retries the rest from the same shared response bytes. */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"lb-target", 9);
    if (cfg->no_resumption) {
        SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
        SSL_CTX_set_num_tickets(ctx, 0);
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    }
    SSL_CTX_set_alpn_select_cb(ctx, alpn_select, cfg->alpn_h2 ? (void *)ctx : NULL);
    return ctx;
}

SSL_CTX *tls_ctx_new(const struct tls_config *cfg, char *err)
{
    SSL_CTX *ctx = NULL;
    X509 *ca = NULL, *cert = NULL;
    EVP_PKEY *ca_key = key_new(TLS_KEY_ECDSA), *key = key_new(cfg->key);
    if (!ca_key || !key) {
        util_err(err, "cannot make a %s key: %s", cfg->key == TLS_KEY_RSA ? "RSA 2048" : "ECDSA P-256", ossl_reason());
        goto out;
    }
    ca = cert_new(ca_key, TLS_KEY_ECDSA, NULL, NULL);
    cert = ca ? cert_new(key, cfg->key, ca, ca_key) : NULL;
    cert = cert ? cert_reparsed(cert) : NULL;
    if (!cert) {
        util_err(err, "cannot make the run's certificates: %s", ossl_reason());
        goto out;
    }
    if (cfg->ca_out && write_ca(cfg->ca_out, ca, err) < 0)
        goto out;
    ctx = ctx_build(cfg, cert, key, err);
out:
    X509_free(ca);
    X509_free(cert);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(key);
    return ctx;
}

SSL *tls_conn_new(SSL_CTX *ctx, int fd)
{
    SSL *ssl = SSL_new(ctx);
    if (ssl && !SSL_set_fd(ssl, fd)) {
        SSL_free(ssl);
        return NULL;
    }
    if (ssl)
        SSL_set_accept_state(ssl);
    return ssl;
}

static void count_cipher(struct tls_counters *ctr, const char *name)
{
    for (int i = 0; i < TLS_CIPHERS_MAX; i++) {
        if (!ctr->cipher_name[i])
            ctr->cipher_name[i] = name;
        if (ctr->cipher_name[i] == name || !strcmp(ctr->cipher_name[i], name)) {
            tstats_add(&ctr->cipher_n[i], 1);
            return;
        }
    }
    tstats_add(&ctr->cipher_other, 1);
}

int tls_alpn_is_h2(const SSL *ssl)
{
    const unsigned char *p;
    unsigned len;
    SSL_get0_alpn_selected(ssl, &p, &len);
    return len == 2 && !memcmp(p, "h2", 2);
}

static void count_done(SSL *ssl, struct tls_counters *ctr)
{
    tstats_add(SSL_session_reused(ssl) ? &ctr->resumed : &ctr->full, 1);
    const unsigned char *p;
    unsigned len;
    SSL_get0_alpn_selected(ssl, &p, &len);
    if (tls_alpn_is_h2(ssl))
        tstats_add(&ctr->alpn_h2, 1);
    else if (len == 8 && !memcmp(p, "http/1.1", 8))
        tstats_add(&ctr->alpn_h1, 1);
    else
        tstats_add(&ctr->alpn_none, 1);
    count_cipher(ctr, SSL_CIPHER_get_name(SSL_get_current_cipher(ssl)));
}

int tls_handshake(SSL *ssl, struct tls_counters *ctr)
{
    ERR_clear_error();
    int r = SSL_do_handshake(ssl);
    if (r == 1) {
        count_done(ssl, ctr);
        return 1;
    }
    int e = SSL_get_error(ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
        return 0;
    tstats_add(&ctr->failed, 1);
    return -1;
}

ssize_t tls_read(SSL *ssl, void *buf, size_t len)
{
    ERR_clear_error();
    int n = SSL_read(ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
    if (n > 0)
        return n;
    switch (SSL_get_error(ssl, n)) {
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        errno = EAGAIN;
        return -1;
    default:
        errno = ECONNRESET;
        return -1;
    }
}

ssize_t tls_writev(SSL *ssl, const struct iovec *iov, int n)
{
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        if (!iov[i].iov_len)
            continue;
        ERR_clear_error();
        int len = iov[i].iov_len > INT_MAX ? INT_MAX : (int)iov[i].iov_len;
        int w = SSL_write(ssl, iov[i].iov_base, len);
        if (w <= 0) {
            int e = SSL_get_error(ssl, w);
            if (total || e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ)
                break;   /* what is written counts; a broken connection shows at the next call */
            errno = EPIPE;
            return -1;
        }
        total += (size_t)w;
        if ((size_t)w < iov[i].iov_len)
            break;
    }
    if (!total) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)total;
}

void tls_close_notify(SSL *ssl)
{
    /* Only on a connection whose handshake completed (a fatal error sets
     * SSL_SENT_SHUTDOWN: OpenSSL sent its alert then). */
    if (ssl && SSL_is_init_finished(ssl) && !(SSL_get_shutdown(ssl) & SSL_SENT_SHUTDOWN)) {
        ERR_clear_error();
        SSL_shutdown(ssl);
        ERR_clear_error();
    }
}

void tls_conn_free(SSL *ssl)
{
    tls_close_notify(ssl);
    SSL_free(ssl);
}

void tls_view_read(struct tls_view *v, const struct tls_counters *c)
{
    v->full = tstats_get(&c->full);
    v->resumed = tstats_get(&c->resumed);
    v->failed = tstats_get(&c->failed);
    v->alpn_h1 = tstats_get(&c->alpn_h1);
    v->alpn_h2 = tstats_get(&c->alpn_h2);
    v->alpn_none = tstats_get(&c->alpn_none);
    v->cipher_other = tstats_get(&c->cipher_other);
    for (int i = 0; i < TLS_CIPHERS_MAX; i++) {
        v->cipher_n[i] = tstats_get(&c->cipher_n[i]);
        v->cipher_name[i] = v->cipher_n[i] ? c->cipher_name[i] : NULL;
    }
}

void tls_view_add(struct tls_view *dst, const struct tls_view *src)
{
    dst->full += src->full;
    dst->resumed += src->resumed;
    dst->failed += src->failed;
    dst->alpn_h1 += src->alpn_h1;
    dst->alpn_h2 += src->alpn_h2;
    dst->alpn_none += src->alpn_none;
    dst->cipher_other += src->cipher_other;
    for (int i = 0; i < TLS_CIPHERS_MAX; i++) {
        if (!src->cipher_name[i])
            continue;
        int k = 0;
        while (k < TLS_CIPHERS_MAX && dst->cipher_name[k] && strcmp(dst->cipher_name[k], src->cipher_name[i]))
            k++;
        if (k == TLS_CIPHERS_MAX) {
            dst->cipher_other += src->cipher_n[i];
            continue;
        }
        dst->cipher_name[k] = src->cipher_name[i];
        dst->cipher_n[k] += src->cipher_n[i];
    }
}

const char *tls_version_name(int version)
{
    return version == TLS_V13 ? "1.3" : version == TLS_V12 ? "1.2" : "off";
}

#define I(x) json_integer((json_int_t)(x))

json_t *tls_json(const struct tls_view *v, const struct tls_config *cfg)
{
    json_t *ciphers = json_object();
    for (int i = 0; i < TLS_CIPHERS_MAX; i++)
        if (v->cipher_name[i])
            json_object_set_new(ciphers, v->cipher_name[i], I(v->cipher_n[i]));
    if (v->cipher_other)
        json_object_set_new(ciphers, "other", I(v->cipher_other));
    return json_pack("{s:s, s:s, s:b, s:{s:o, s:o, s:o}, s:{s:o, s:o, s:o}, s:o}", "version",
                     tls_version_name(cfg->version), "key", cfg->key == TLS_KEY_RSA ? "rsa2048" : "ecdsa-p256",
                     "resumption", !cfg->no_resumption, "handshakes", "full", I(v->full), "resumed", I(v->resumed),
                     "failed", I(v->failed), "alpn", "h1", I(v->alpn_h1), "h2", I(v->alpn_h2), "none",
                     I(v->alpn_none), "ciphers", ciphers);
}
