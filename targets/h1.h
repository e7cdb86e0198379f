/* h1: the small HTTP/1.x request parser and response builder of lb-target.
 *
 * The parser is strict about framing (anything it cannot frame exactly is a
 * bad request) and lenient about what does not matter to a benchmark target
 * (a missing Host header is accepted; bare LF line ends are accepted). */
#ifndef LB_H1_H
#define LB_H1_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* h1_parse_head results. */
#define H1_OK         0
#define H1_INCOMPLETE 1   /* no blank line yet and still within max_head */
#define H1_BAD        (-1)
#define H1_TOO_LARGE  (-2)

struct h1_request {
    size_t head_len;          /* request line + headers + blank line, bytes */
    int version_minor;        /* 0 (HTTP/1.0) or 1 (HTTP/1.1) */
    int keep_alive;           /* the connection stays open after the response */
    int chunked;              /* Transfer-Encoding: chunked */
    int head_only;            /* a HEAD request: answer without a body */
    int expect_continue;      /* HTTP/1.1 with Expect: 100-continue */
    uint64_t content_length;  /* 0 when absent */
};

/* Parse the request head at buf[0..len). Returns H1_OK with req filled;
 * H1_INCOMPLETE when the head is not complete yet and len <= max_head;
 * H1_TOO_LARGE when no complete head fits in max_head bytes; H1_BAD for
 * a malformed request line or header, an unsupported version or transfer
 * coding, Content-Length and Transfer-Encoding together, or conflicting
 * Content-Length values. */
int h1_parse_head(const char *buf, size_t len, size_t max_head, struct h1_request *req);

/* Read-and-discard decoder for a chunked request body (chunk extensions and
 * trailers are accepted and ignored). Zero-initialise before the first
 * feed. */
struct h1_chunked {
    int state;
    uint64_t size;        /* bytes left in the current chunk */
    uint64_t data;        /* chunk data decoded so far: the body's bytes, framing left out */
    unsigned digits;      /* hex digits of the size line */
    size_t line_bytes;    /* bytes of the current extension/trailer line */
    size_t trailer_bytes; /* bytes of all trailer lines */
    int limited;          /* stop at a size line that takes the data past limit */
    uint64_t limit;
};

/* Feed buf[0..len). Returns the bytes consumed (less than len only when the
 * body ended, with *done set to 1, or, when limited, at the data of a
 * chunk whose size takes data + size past limit: that data is never
 * read), or -1 when the body is malformed. */
ssize_t h1_chunked_feed(struct h1_chunked *c, const char *buf, size_t len, int *done);

/* A request body, read and counted, never stored: Content-Length (exactly
 * that many bytes) or chunked (h1_chunked). Start it with h1_body_start
 * after a head that has one (content_length > 0 or chunked). */
struct h1_body {
    uint64_t left;        /* Content-Length: bytes still to come */
    uint64_t seen;        /* body bytes so far (chunked: data only) */
    int chunked;
    struct h1_chunked ch;
};

/* max: the most body bytes accepted; a chunked body stops being read at
 * the size line that promises more (h1_body_promised tells). */
void h1_body_start(struct h1_body *b, const struct h1_request *req, uint64_t max);

/* Feed buf[0..len): the bytes consumed (less than len only when the body
 * ended, with *done set to 1, or when it promised more than max: check
 * h1_body_promised after each feed, since a piece may end right at the
 * size line), or -1 when a chunked body is malformed.
 * A body that arrives in pieces is fed piece by piece: the same answer. */
ssize_t h1_body_feed(struct h1_body *b, const char *buf, size_t len, int *done);

/* The body's length as far as it is known: Content-Length's, or for a
 * chunked body the data so far plus the current chunk's size (as much of
 * its size line as was read: a lower bound). Never decreases while the
 * body is fed, so a server can refuse a body once this passes its limit,
 * before the bytes come. */
uint64_t h1_body_promised(const struct h1_body *b);

/* Fill dst with a valid JSON text of exactly n bytes ({"server":...,
 * "pad":"xxx"} or smaller forms; n = 1 gives "0", n = 0 nothing). */
void h1_json_body(char *dst, size_t n);

/* A complete 200 response with a JSON body of body_bytes. connection is
 * NULL (no Connection header), "close" or "keep-alive". Returns a heap
 * buffer (free it) and its length in *len. */
char *h1_response_200(uint64_t body_bytes, const char *connection, size_t *len);

/* A complete error response (400, 413 or 431) that announces Connection: close.
 * Returns a heap buffer and its length in *len. */
char *h1_response_error(int status, size_t *len);

#endif
