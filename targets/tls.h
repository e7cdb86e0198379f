/* tls: lb-target's TLS (OpenSSL): the certificate made fresh for each run,
 * the server context, a connection's handshake and its reads and writes,
 * and the handshake counters.
 *
 * The counters follow tstats' rule: one struct per worker, written by that
 * worker only, copied into a plain view on the worker's own thread (the
 * snapshot handshake), summed by the control thread. */
#ifndef LB_TLS_H
#define LB_TLS_H

#include "targets/tstats.h"

#include <jansson.h>
#include <openssl/ssl.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

enum { TLS_OFF = 0, TLS_V12 = 12, TLS_V13 = 13 };
enum { TLS_KEY_ECDSA = 0, TLS_KEY_RSA = 1 };

struct tls_config {
    int version;          /* TLS_OFF, TLS_V12 or TLS_V13: the one version offered */
    int key;              /* TLS_KEY_ECDSA (P-256) or TLS_KEY_RSA (2048 bits) */
    int no_resumption;    /* 1: no session tickets, no session cache */
    const char *ca_out;   /* write the run's CA certificate (PEM) here; NULL: nowhere */
    int alpn_h2;          /* offer h2 (first) as well as http/1.1 */
};

#define TLS_CIPHERS_MAX 8  /* distinct ciphers counted per worker (one version: 3-5 exist) */

struct tls_counters {
    tstats_ctr full, resumed, failed;       /* handshakes */
    tstats_ctr alpn_h1, alpn_h2, alpn_none;  /* negotiated protocol per connection */
    tstats_ctr cipher_n[TLS_CIPHERS_MAX];
    tstats_ctr cipher_other;                 /* beyond TLS_CIPHERS_MAX names */
    const char *cipher_name[TLS_CIPHERS_MAX]; /* OpenSSL's static names; written before their count */
} __attribute__((aligned(64)));

struct tls_view {
    uint64_t full, resumed, failed, alpn_h1, alpn_h2, alpn_none, cipher_other;
    const char *cipher_name[TLS_CIPHERS_MAX];
    uint64_t cipher_n[TLS_CIPHERS_MAX];
};

/* Make this run's CA and a server certificate it signs (127.0.0.1 and
 * localhost), write the CA to cfg->ca_out, and build the server context:
 * the one version of cfg, ALPN "http/1.1" (and "h2" first with alpn_h2),
 * tickets unless no_resumption.
 * Returns the context, or NULL with err filled. */
SSL_CTX *tls_ctx_new(const struct tls_config *cfg, char *err);

/* A server-side TLS connection over fd. Returns NULL when OpenSSL is out
 * of memory. */
SSL *tls_conn_new(SSL_CTX *ctx, int fd);

/* Advance ssl's handshake. Returns 1 when it completed (counted in ctr:
 * full or resumed, protocol, cipher), 0 when it waits for the socket, -1
 * when it failed (counted as failed). */
int tls_handshake(SSL *ssl, struct tls_counters *ctr);

/* 1 when ALPN chose h2 for ssl. */
int tls_alpn_is_h2(const SSL *ssl);

/* read(2) over TLS: bytes read, 0 at the peer's close (close_notify or a
 * bare EOF), -1 with errno EAGAIN when nothing is readable yet, or -1
 * with errno ECONNRESET for a broken connection. */
ssize_t tls_read(SSL *ssl, void *buf, size_t len);

/* writev(2) over TLS: bytes written (fewer when the socket is full: the
 * caller retries the rest, from the same bytes), -1 with errno EAGAIN when
 * none fit, or -1 with errno EPIPE when the connection broke. */
ssize_t tls_writev(SSL *ssl, const struct iovec *iov, int n);

/* Send close_notify once, if the handshake completed (never waits; NULL:
 * nothing). */
void tls_close_notify(SSL *ssl);

/* tls_close_notify, then free ssl (NULL: nothing). */
void tls_conn_free(SSL *ssl);

void tls_view_read(struct tls_view *v, const struct tls_counters *c);
void tls_view_add(struct tls_view *dst, const struct tls_view *src);

/* The "tls" object of /stats: version, key, resumption, the handshakes,
 * "alpn" and "ciphers" (name: connections). Returns a new object. */
json_t *tls_json(const struct tls_view *v, const struct tls_config *cfg);

/* "1.3", "1.2" or "off". */
const char *tls_version_name(int version);

#endif
