/* h2: lb-gen's HTTP/2 client side (--http2; nghttp2). One session per
 * connection, one stream in flight at a time (h2load -m 1: N connections
 * are N users, as over HTTP/1.1). nghttp2 owns the framing, the flow
 * control (its default settings and windows) and the protocol checks;
 * this file only turns bytes into a stream's outcome and back.
 *
 * No I/O here: gen.c reads into its per-thread buffer and feeds the bytes
 * (gh2_feed), and writes what nghttp2 serialized (gh2_out/gh2_wrote) over
 * the connection's plain or TLS write, so h2 and h2c share the HTTP/1.1
 * socket and OpenSSL paths. The bytes gh2_out points at are nghttp2's own
 * buffer, valid until the next gh2_out: a short write keeps the pointer,
 * never a copy. */
#ifndef LB_GEN_H2_H
#define LB_GEN_H2_H

#include <stddef.h>
#include <stdint.h>

/* The request every stream sends, built once per run (gh2_request_init)
 * and read by every thread: nghttp2 is told not to copy its strings. */
struct gh2_request {
    void *nva;            /* nghttp2_nv[GH2_NV_MAX] */
    size_t nvlen;
    size_t body;          /* POST body bytes ('x'); 0 = GET */
    char clen[24];        /* content-length's value */
};

/* A stream's outcome, in struct gh2.done. */
enum { GH2_PENDING, GH2_COMPLETE, GH2_RESET };

struct gh2 {
    void *s;              /* nghttp2_session *; NULL when the connection is not HTTP/2 */
    const uint8_t *out;   /* serialized bytes the socket has not taken yet */
    size_t out_len;
    int32_t stream;       /* the stream in flight; 0 none */
    uint8_t done;         /* GH2_*: what became of it */
    uint8_t req_out;      /* its last frame (END_STREAM) is serialized */
    uint16_t status;      /* its :status */
    size_t body_left;     /* its POST body bytes not yet handed to nghttp2 */
    uint32_t goaways;     /* GOAWAY frames received */
};

/* Build the request for host (:authority), path, https or not, and a
 * POST body of body bytes (0: GET). Free with gh2_request_free. */
void gh2_request_init(struct gh2_request *r, const char *host, const char *path, int tls, size_t body);
void gh2_request_free(struct gh2_request *r);

/* A client session on h, its preface and SETTINGS queued for gh2_out.
 * Returns 0, or -1 when nghttp2 cannot make one (out of memory). */
int gh2_open(struct gh2 *h);
void gh2_close(struct gh2 *h);

/* Queue r as a new stream (done = GH2_PENDING). Returns 0, or -1 when
 * the session refuses one (after a GOAWAY). */
int gh2_submit(struct gh2 *h, const struct gh2_request *r);

/* The server's bytes. Returns 0, or -1 on a protocol error (the session
 * is over: close the connection). */
int gh2_feed(struct gh2 *h, const uint8_t *buf, size_t len);

/* Bytes to write now (*p; 0: nothing), and how many of them the socket
 * took. Returns -1 on a session error. */
long gh2_out(struct gh2 *h, const uint8_t **p);
void gh2_wrote(struct gh2 *h, size_t n);

/* The session has nothing more to say or hear (a GOAWAY, or an error
 * sent): the connection should close once its stream is settled. */
int gh2_over(const struct gh2 *h);

#endif
