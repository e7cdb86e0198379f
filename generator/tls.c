#include "generator/tls.h"
#include "common/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#define VERIFY_FAILED "certificate verify failed"

/* New sessions (TLS 1.3 tickets, TLS 1.2 sessions) replace the thread's
 * newest one; OpenSSL keeps nothing in a cache of its own. */
static int keep_session(SSL *ssl, SSL_SESSION *sess)
{
    struct gtls_client *c = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
    SSL_SESSION_free(c->last);
    c->last = sess;
    return 1; /* ours now */
}

/* Verification: none, the CA file, or the system's store; and the host
 * (an IP address or a name) the certificate must be for. */
static int ctx_verify(SSL_CTX *ctx, const struct gtls_opts *o, int is_ip, char *err)
{
    if (o->insecure) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
        return 0;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    if (o->cafile ? !SSL_CTX_load_verify_locations(ctx, o->cafile, NULL) : !SSL_CTX_set_default_verify_paths(ctx)) {
        unsigned long e = ERR_peek_last_error();
        const char *r = e ? ERR_reason_error_string(e) : NULL;
        return util_err(err, o->cafile ? "--cacert %s: cannot load it as PEM certificates (%s)"
                                       : "%scannot load the system's CA certificates (%s)",
                        o->cafile ? o->cafile : "", r ? r : "no reason given");
    }
    X509_VERIFY_PARAM *p = SSL_CTX_get0_param(ctx);
    if (is_ip ? !X509_VERIFY_PARAM_set1_ip_asc(p, o->host) : !X509_VERIFY_PARAM_set1_host(p, o->host, 0))
        return util_err(err, "cannot set the host \"%s\" to verify the certificate for", o->host);
    return 0;
}

int gtls_client_init(struct gtls_client *c, const struct gtls_opts *o, char *err)
{
    struct in_addr a;
    int is_ip = inet_pton(AF_INET, o->host, &a) == 1;
    memset(c, 0, sizeof *c);
    c->resumption = o->resumption;
    c->h2 = o->h2;
    if (!is_ip)
        snprintf(c->sni, sizeof c->sni, "%s", o->host);
    c->ctx = SSL_CTX_new(TLS_client_method());
    int lo = o->version == 13 ? TLS1_3_VERSION : TLS1_2_VERSION, hi = o->version == 12 ? TLS1_2_VERSION : 0;
    if (!c->ctx || !SSL_CTX_set_min_proto_version(c->ctx, lo) || !SSL_CTX_set_max_proto_version(c->ctx, hi) ||
        (o->h2 ? SSL_CTX_set_alpn_protos(c->ctx, (const unsigned char *)"\x02h2", 3)
               : SSL_CTX_set_alpn_protos(c->ctx, (const unsigned char *)"\x08http/1.1", 9)) != 0) {
        gtls_client_free(c);
        return util_err(err, "cannot set up the TLS client context");
    }
    if (ctx_verify(c->ctx, o, is_ip, err) < 0) {
        gtls_client_free(c);
        return -1;
    }
    /* Partial writes: a request the socket takes only in part is finished
     * from the same bytes; read-ahead: a record costs one read(), not two. */
    SSL_CTX_set_mode(c->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(c->ctx, 1);
    SSL_CTX_set_options(c->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_app_data(c->ctx, c);
    if (o->resumption) {
        SSL_CTX_set_session_cache_mode(c->ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(c->ctx, keep_session);
    } else {
        SSL_CTX_set_session_cache_mode(c->ctx, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_options(c->ctx, SSL_OP_NO_TICKET);
    }
    return 0;
}

void gtls_client_free(struct gtls_client *c)
{
    SSL_SESSION_free(c->last);
    SSL_CTX_free(c->ctx);
    c->last = NULL;
    c->ctx = NULL;
}

SSL *gtls_conn_new(struct gtls_client *c, int fd)
{
    SSL *ssl = SSL_new(c->ctx);
    if (!ssl)
        return NULL;
    if (!SSL_set_fd(ssl, fd) || (c->sni[0] && !SSL_set_tlsext_host_name(ssl, c->sni)) ||
        (c->resumption && c->last && !SSL_set_session(ssl, c->last))) {
        SSL_free(ssl);
        ERR_clear_error();
        return NULL;
    }
    SSL_set_connect_state(ssl);
    return ssl;
}

void gtls_conn_free(SSL *ssl)
{
    SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_free(ssl);
}

/* Why a handshake failed, in a sentence; the error queue emptied. */
static void failure_text(SSL *ssl, int e, int err_no, char *why, size_t len)
{
    unsigned long code = ERR_peek_last_error();
    long v = SSL_get_verify_result(ssl);
    if (ERR_GET_REASON(code) == SSL_R_CERTIFICATE_VERIFY_FAILED && v != X509_V_OK)
        snprintf(why, len, VERIFY_FAILED ": %s", X509_verify_cert_error_string(v));
    else if (code)
        snprintf(why, len, "%s", ERR_reason_error_string(code) ? ERR_reason_error_string(code) : "TLS error");
    else if (e == SSL_ERROR_SYSCALL && err_no)
        snprintf(why, len, "%s", err_no == EAGAIN ? "no answer in time" : strerror(err_no));
    else
        snprintf(why, len, "the server closed the connection during the handshake");
    ERR_clear_error();
}

/* With h2 asked: 1 when the server chose h2 by ALPN, else 0 with why
 * saying what it chose. A server that ignores ALPN would be spoken
 * HTTP/2 to on faith; one that picks http/1.1 would get h2 frames: both
 * end the connection, counted, rather than speak what was not asked. */
static int alpn_h2(SSL *ssl, char *why, size_t len)
{
    const struct gtls_client *c = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
    const unsigned char *p = NULL;
    unsigned n = 0;
    if (!c || !c->h2)
        return 1;
    SSL_get0_alpn_selected(ssl, &p, &n);
    if (n == 2 && !memcmp(p, "h2", 2))
        return 1;
    if (n)
        snprintf(why, len, "ALPN: the server chose %.*s, not h2 (--http2 offers h2 only)", (int)n, (const char *)p);
    else
        snprintf(why, len, "ALPN: the server chose no protocol, not h2 (--http2 offers h2 only)");
    return 0;
}

int gtls_handshake(SSL *ssl, char *why, size_t len)
{
    errno = 0;
    int r = SSL_connect(ssl);
    if (r == 1)
        return alpn_h2(ssl, why, len) ? 1 : -1;
    int e = SSL_get_error(ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
        return 0;
    failure_text(ssl, e, errno, why, len);
    return -1;
}

/* A read or write that returned n <= 0, in read()/send() terms. */
static ssize_t io_result(SSL *ssl, int n)
{
    int e = SSL_get_error(ssl, n);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        errno = EAGAIN;
        return -1;
    }
    ERR_clear_error();
    if (e == SSL_ERROR_ZERO_RETURN)
        return 0;
    errno = e == SSL_ERROR_SYSCALL && errno ? errno : ECONNRESET;
    return -1;
}

ssize_t gtls_read(SSL *ssl, void *buf, size_t len)
{
    int n = SSL_read(ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
    return n > 0 ? n : io_result(ssl, n);
}

ssize_t gtls_write(SSL *ssl, const void *buf, size_t len)
{
    int n = SSL_write(ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
    return n > 0 ? n : io_result(ssl, n);
}

int gtls_probe(const struct gtls_opts *o, int fd, int timeout_ms, char *err)
{
    struct gtls_client c;
    struct gtls_opts once = *o;
    once.resumption = 0;
    if (gtls_client_init(&c, &once, err) < 0)
        return -1;
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    SSL *ssl = gtls_conn_new(&c, fd);
    char why[256] = "cannot make a TLS connection";
    int rc = ssl && gtls_handshake(ssl, why, sizeof why) == 1 ? 0 : -1;
    int verify = !strncmp(why, VERIFY_FAILED, sizeof VERIFY_FAILED - 1);
    if (rc < 0 && verify)
        util_err(err, "TLS handshake with %s failed: %s%s", o->host, why,
                 o->cafile ? " (verifying against --cacert; --insecure skips the check)"
                           : " (verifying against the system's CAs: give the server's CA with --cacert, or --insecure)");
    else if (rc < 0)
        util_err(err, "TLS handshake with %s failed: %s%s%s", o->host, why, o->version ? " (--tls-version " : "",
                 o->version ? (o->version == 13 ? "1.3 only)" : "1.2 only)") : "");
    SSL_free(ssl);
    gtls_client_free(&c);
    return rc;
}

const char *gtls_version_asked(const struct gtls_opts *o)
{
    return o->version == 13 ? "1.3" : o->version == 12 ? "1.2" : "any";
}

const char *gtls_verify_name(const struct gtls_opts *o)
{
    return o->insecure ? "none" : o->cafile ? "ca" : "system";
}
