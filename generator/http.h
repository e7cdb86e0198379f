/* http: the HTTP/1.1 pieces lb-gen needs — one prebuilt GET request and an
 * incremental, allocation-free response parser.
 *
 * The parser keeps its whole state in struct http_resp (24 bytes), so a
 * connection needs no receive buffer of its own: the worker reads into one
 * per-thread buffer and feeds whatever arrived, split anywhere. */
#ifndef LB_GEN_HTTP_H
#define LB_GEN_HTTP_H

#include <stddef.h>
#include <stdint.h>

struct http_resp {
    uint64_t remaining;  /* body or chunk bytes still to come */
    uint16_t status;     /* 0 until the status line is read */
    uint8_t state;
    uint8_t flags;       /* HTTP_RESP_* */
    uint8_t pos;         /* position inside the token being matched */
    uint8_t match;       /* candidate header names still matching (bits) */
    uint8_t value_kind;  /* which header's value is being read */
    uint8_t vpos;        /* position inside the value token being matched */
};

/* The server will close the connection after this response (Connection:
 * close, or HTTP/1.0 without keep-alive). */
#define HTTP_RESP_CLOSE 0x01
/* The body runs until the server closes the connection (no length given). */
#define HTTP_RESP_UNTIL_EOF 0x02

/* Ready the parser for the next response. head: the request was HEAD (no
 * body whatever the headers say). */
void http_resp_reset(struct http_resp *r, int head);

/* Feed len bytes. Interim 1xx responses (but 101) are skipped: the
 * response is the final one after them. Returns 1 when the response is complete (*used = bytes of
 * buf it took; the rest belongs to whatever follows), 0 when it needs more
 * (*used = len), -1 when the bytes are not an HTTP/1.x response. */
int http_resp_feed(struct http_resp *r, const char *buf, size_t len, size_t *used);

/* Tell the parser the server closed the connection. Returns 1 when that
 * completes the response (a body delimited by the close), 0 otherwise. */
int http_resp_eof(struct http_resp *r);

/* Build "GET path HTTP/1.1\r\nHost: host\r\n[Connection: close\r\n]\r\n"
 * into a fresh heap buffer; *len gets its length. body > 0: a POST with
 * Content-Type: application/octet-stream, Content-Length: body and body
 * bytes 'x' after the head, all in the one buffer (built once, written
 * as it is on every request). */
char *http_request_build(const char *host, const char *path, int close, size_t body, size_t *len);

/* Split an http:// or https:// URL into host:port (for the Host header and
 * the address; port 80 or 443 when none is given) and path; *tls is 1 for
 * https. Returns 0 with the two heap strings set, or -1 with err filled. */
int http_url_split(const char *url, char **hostport, char **path, int *tls, char *err);

#endif
