/* tls: lb-gen's HTTPS client side (OpenSSL). A client per worker thread
 * (a context whose sessions are that thread's own), non-blocking
 * handshakes, reads and writes that answer like read()/send() (-1 with
 * errno EAGAIN when OpenSSL wants the socket again), and the blocking probe
 * handshake that tells a bad certificate or version before any load.
 *
 * Plain http:// never comes here: a connection's SSL * is NULL and the
 * event loop takes the plain branch. */
#ifndef LB_GEN_TLS_H
#define LB_GEN_TLS_H

#include <openssl/ssl.h>
#include <stddef.h>
#include <sys/types.h>

/* How lb-gen speaks TLS (from --tls-version, --cacert, --insecure,
 * --tls-resumption). */
struct gtls_opts {
    int version;            /* 0: negotiate (1.2 or 1.3); 12 or 13: only that one */
    int resumption;         /* 1: offer the thread's newest session on its new connections */
    int insecure;           /* 1: no verification */
    int h2;                 /* 1 (--http2): offer ALPN h2 only; a handshake the server ends
                             * without choosing h2 fails (no quiet HTTP/1.1) */
    const char *cafile;     /* verify against this CA (PEM); NULL: the system's store */
    const char *host;       /* the URL's host without the port: what the certificate must name */
};

/* One thread's client: its context and the newest session the server gave
 * it (resumption on). Must not move once made (the context points at it). */
struct gtls_client {
    SSL_CTX *ctx;
    SSL_SESSION *last;
    int resumption;
    int h2;                 /* ALPN h2 asked: gtls_handshake checks the server chose it */
    char sni[256];          /* the host name sent as SNI; empty for an IP address */
};

/* Make c for o. Returns 0, or -1 with err filled (an unreadable CA file). */
int gtls_client_init(struct gtls_client *c, const struct gtls_opts *o, char *err);
void gtls_client_free(struct gtls_client *c);

/* A client SSL on the connected socket fd, offering the newest session
 * when resumption is on. NULL when OpenSSL cannot make one. */
SSL *gtls_conn_new(struct gtls_client *c, int fd);

/* Go on with the handshake: 1 done, 0 wants the socket again, -1 failed
 * (why: a sentence, at most len bytes; with h2 asked, a server that did
 * not choose h2 by ALPN fails it: "ALPN: the server chose http/1.1"). */
int gtls_handshake(SSL *ssl, char *why, size_t len);

/* Like read() and send(): bytes, 0 at the peer's close (close_notify or a
 * bare EOF), or -1 with errno (EAGAIN: OpenSSL wants the socket again). */
ssize_t gtls_read(SSL *ssl, void *buf, size_t len);
ssize_t gtls_write(SSL *ssl, const void *buf, size_t len);

/* Free a connection's SSL, sending nothing (no close_notify) yet keeping
 * its session resumable: OpenSSL marks the session of an SSL freed without
 * a shutdown unusable. */
void gtls_conn_free(SSL *ssl);

/* The blocking handshake on fd (a connected socket) before the load,
 * bounded by timeout_ms, with a client of its own (its session is not
 * kept). Returns 0, or -1 with err saying why: the certificate check's own
 * reason when that is what failed. */
int gtls_probe(const struct gtls_opts *o, int fd, int timeout_ms, char *err);

/* "1.3", "1.2" or "any" for o->version. */
const char *gtls_version_asked(const struct gtls_opts *o);

/* "none" (--insecure), "ca" (--cacert) or "system" (the system's store). */
const char *gtls_verify_name(const struct gtls_opts *o);

#endif
