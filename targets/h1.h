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
    unsigned digits;      /* hex digits of the size line */
    size_t line_bytes;    /* bytes of the current extension/trailer line */
    size_t trailer_bytes; /* bytes of all trailer lines */
};

/* Feed buf[0..len). Returns the bytes consumed (less than len only when the
 * body ended, with *done set to 1), or -1 when the body is malformed. */
ssize_t h1_chunked_feed(struct h1_chunked *c, const char *buf, size_t len, int *done);

/* Fill dst with a valid JSON text of exactly n bytes ({"server":...,
 * "pad":"xxx"} or smaller forms; n = 1 gives "0", n = 0 nothing). */
void h1_json_body(char *dst, size_t n);

/* A complete 200 response with a JSON body of body_bytes. connection is
 * NULL (no Connection header), "close" or "keep-alive". Returns a heap
 * buffer (free it) and its length in *len. */
char *h1_response_200(uint64_t body_bytes, const char *connection, size_t *len);

/* A complete error response (400 or 431) that announces Connection: close.
 * Returns a heap buffer and its length in *len. */
char *h1_response_error(int status, size_t *len);

#endif
