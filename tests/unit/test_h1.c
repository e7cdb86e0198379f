/* Unit tests for targets/h1: lb-target's request parser, chunked decoder
 * and response builder. */
#include "targets/h1.h"
#include "tests/tap.h"
#include "common/util.h"

#include <jansson.h>
#include <string.h>

static int parse(const char *s, struct h1_request *req)
{
    return h1_parse_head(s, strlen(s), 8192, req);
}

static void head_ok(const char *s, int minor, int ka, int chunked, uint64_t cl, const char *what)
{
    struct h1_request req;
    int rc = parse(s, &req);
    if (!ok(rc == H1_OK && req.version_minor == minor && req.keep_alive == ka && req.chunked == chunked &&
                req.content_length == cl && req.head_len == strlen(s),
            "%s", what))
        diag("  rc %d minor %d ka %d chunked %d cl %llu head_len %zu (of %zu)", rc, req.version_minor,
             req.keep_alive, req.chunked, (unsigned long long)req.content_length, req.head_len, strlen(s));
}

static void head_rc(const char *s, int want, const char *what)
{
    struct h1_request req;
    int rc = parse(s, &req);
    if (!ok(rc == want, "%s", what))
        diag("  rc %d, want %d", rc, want);
}

static void chunked(const char *body, int want_done, ssize_t want_used, const char *what)
{
    /* Fed whole, then byte by byte: the same answer. */
    struct h1_chunked c;
    memset(&c, 0, sizeof c);
    int done = 0;
    ssize_t used = h1_chunked_feed(&c, body, strlen(body), &done);
    int pass = used == want_used && done == want_done;
    memset(&c, 0, sizeof c);
    ssize_t total = 0;
    int done2 = 0;
    for (size_t i = 0; i < strlen(body) && !done2; i++) {
        ssize_t u = h1_chunked_feed(&c, body + i, 1, &done2);
        if (u < 0) {
            total = -1;
            break;
        }
        total += u;
    }
    pass = pass && total == want_used && done2 == want_done;
    if (!ok(pass, "chunked: %s", what))
        diag("  whole: used %zd done %d; bytewise: used %zd done %d; want %zd %d", used, done, total, done2,
             want_used, want_done);
}

/* Feed body to a reader started for head (under max) in pieces of piece
 * bytes. Returns the bytes consumed (-1: malformed); *done, *seen and
 * *promised as the reader left them. */
static ssize_t body_feed(const char *head, const char *body, size_t piece, uint64_t max, int *done, uint64_t *seen,
                         uint64_t *promised)
{
    struct h1_request req;
    struct h1_body b;
    if (parse(head, &req) != H1_OK)
        return -2;
    h1_body_start(&b, &req, max);
    size_t n = strlen(body), used = 0;
    *done = 0;
    while (used < n && !*done) {
        size_t k = n - used < piece ? n - used : piece;
        ssize_t r = h1_body_feed(&b, body + used, k, done);
        if (r < 0)
            return -1;
        used += (size_t)r;
        if ((size_t)r < k && !*done)
            break;   /* over max: stopped before the chunk's data */
    }
    *seen = b.seen;
    *promised = h1_body_promised(&b);
    return (ssize_t)used;
}

static void body_is(const char *head, const char *body, uint64_t max, ssize_t want_used, int want_done,
                    uint64_t want_seen, uint64_t want_promised, const char *what)
{
    /* Whole, in 3-byte pieces and byte by byte: the same answer. */
    static const size_t pieces[] = {1000000, 3, 1};
    for (size_t i = 0; i < 3; i++) {
        int done = 0;
        uint64_t seen = 0, promised = 0;
        ssize_t used = body_feed(head, body, pieces[i], max, &done, &seen, &promised);
        if (!ok(used == want_used && done == want_done && (used < 0 || (seen == want_seen && promised == want_promised)),
                "body: %s (pieces of %zu)", what, pieces[i]))
            diag("  used %zd done %d seen %llu promised %llu", used, done, (unsigned long long)seen,
                 (unsigned long long)promised);
    }
}

static void bodies(void)
{
    const char *cl5 = "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n";
    const char *te = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    body_is(cl5, "hello", 100, 5, 1, 5, 5, "Content-Length 5");
    body_is(cl5, "helloGET / HTTP/1.1", 100, 5, 1, 5, 5, "Content-Length: stops at its end");
    body_is(cl5, "hel", 100, 3, 0, 3, 5, "Content-Length: 3 of 5 so far, 5 promised");
    body_is(te, "5;x=y\r\nhello\r\n3\r\nabc\r\n0\r\nT: v\r\n\r\nGET", 100, 33, 1, 8, 8,
            "chunked: the data counted (8), not the framing");
    body_is(te, "5\r\nhello\r\na\r\n0123", 100, 17, 0, 9, 15, "chunked: 4 of a 10-byte chunk, 15 promised");
    body_is(te, "5\r\nhello\r\n64\r\n0123", 100, 14, 0, 5, 105,
            "chunked: a size line past the limit stops the read before its data");
    body_is(te, "5\r\nhello\r\n5f\r\n0123", 100, 18, 0, 9, 100, "chunked: data up to the limit itself is read");
    body_is(te, "5\r\nhelloXX", 100, -1, 0, 0, 0, "chunked: data longer than its size is malformed");
}

int main(void)
{
    head_ok("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 1, 1, 0, 0, "HTTP/1.1 keeps alive by default");
    head_ok("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 1, 0, 0, 0, "Connection: close honoured");
    head_ok("GET / HTTP/1.1\r\nconnection: Keep-Alive, CLOSE\r\n\r\n", 1, 0, 0, 0, "close among tokens, any case");
    head_ok("GET / HTTP/1.0\r\n\r\n", 0, 0, 0, 0, "HTTP/1.0 closes by default");
    head_ok("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 0, 1, 0, 0, "HTTP/1.0 keep-alive (ab -k)");
    head_ok("POST /x?y=1 HTTP/1.1\r\nContent-Length: 12\r\n\r\n", 1, 1, 0, 12, "Content-Length");
    head_ok("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 1, 1, 1, 0, "chunked");
    head_ok("GET / HTTP/1.1\nHost: x\n\n", 1, 1, 0, 0, "bare LF line ends");
    head_ok("\r\nGET / HTTP/1.1\r\n\r\n", 1, 1, 0, 0, "a CRLF before the request line is skipped");
    head_ok("GET / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", 1, 1, 0, 5,
            "repeated equal Content-Length");
    head_ok("GET / HTTP/1.1\r\nX-Empty:\r\nX-Sp:   a b  \r\n\r\n", 1, 1, 0, 0, "empty and padded values");

    head_rc("GET / HTTP/1.1\r\nHost: x\r\n", H1_INCOMPLETE, "no blank line yet: incomplete");
    head_rc("GET / HTTP/1.1", H1_INCOMPLETE, "half a request line: incomplete");
    head_rc("", H1_INCOMPLETE, "nothing: incomplete");
    head_rc("GET / HTTP/1.1\r\n", H1_INCOMPLETE, "a good request line alone: incomplete");
    head_rc("\r\nHEAD /x HTTP/1.0\n", H1_INCOMPLETE, "a good request line after a CRLF: incomplete");
    head_rc("GET /\r\n", H1_BAD, "HTTP/0.9 request (GET / CRLF): bad at once, no blank line awaited");
    head_rc("GET /\n", H1_BAD, "HTTP/0.9 request with a bare LF: bad at once");
    head_rc("GARBAGE\r\nHost: x\r\n", H1_BAD, "a bad request line is judged before the head is complete");
    head_rc("GET / HTTP/1.1 x\r\n", H1_BAD, "junk after the version, head incomplete: bad");
    head_rc("GARBAGE\r\n\r\n", H1_BAD, "no spaces in the request line");
    head_rc("GET / HTTP/2.0\r\n\r\n", H1_BAD, "HTTP/2.0 request line");
    head_rc("GET / FOO/1.1\r\n\r\n", H1_BAD, "not HTTP");
    head_rc("GET  / HTTP/1.1\r\n\r\n", H1_BAD, "two spaces");
    head_rc("G(T / HTTP/1.1\r\n\r\n", H1_BAD, "method with a separator");
    head_rc("GET / HTTP/1.1\r\nNoColon\r\n\r\n", H1_BAD, "header without a colon");
    head_rc("GET / HTTP/1.1\r\nName : v\r\n\r\n", H1_BAD, "space before the colon");
    head_rc("GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", H1_BAD, "obsolete line folding");
    head_rc("GET / HTTP/1.1\r\nA: b\x01\r\n\r\n", H1_BAD, "control byte in a value");
    head_rc("GET / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", H1_BAD,
            "conflicting Content-Length");
    head_rc("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", H1_BAD, "negative Content-Length");
    head_rc("GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", H1_BAD, "junk in Content-Length");
    head_rc("GET / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", H1_BAD, "a coding we cannot frame");
    head_rc("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", H1_BAD,
            "Transfer-Encoding with Content-Length");

    struct h1_request hr;
    ok(parse("HEAD / HTTP/1.1\r\n\r\n", &hr) == H1_OK && hr.head_only, "HEAD is marked head_only");
    ok(parse("GET / HTTP/1.1\r\n\r\n", &hr) == H1_OK && !hr.head_only, "GET is not");
    ok(parse("POST / HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 9\r\n\r\n", &hr) == H1_OK &&
           hr.expect_continue, "Expect: 100-continue");
    ok(parse("POST / HTTP/1.0\r\nExpect: 100-continue\r\n\r\n", &hr) == H1_OK && !hr.expect_continue,
       "Expect ignored for HTTP/1.0");

    /* Size limit. */
    char big[10000];
    strcpy(big, "GET / HTTP/1.1\r\nX: ");
    memset(big + strlen(big), 'a', 9000);
    big[19 + 9000] = 0;
    struct h1_request req;
    ok(h1_parse_head(big, strlen(big), 8192, &req) == H1_TOO_LARGE, "a 9 KB head without its end is too large");
    strcat(big, "\r\n\r\n");
    ok(h1_parse_head(big, strlen(big), 8192, &req) == H1_TOO_LARGE, "a complete 9 KB head is too large");
    ok(h1_parse_head(big, strlen(big), 16384, &req) == H1_OK, "... and fine under a 16 KiB limit");
    ok(h1_parse_head(big, 100, 8192, &req) == H1_INCOMPLETE, "its first 100 bytes are incomplete");

    /* Pipelined: head_len ends the first request. */
    const char *two = "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n";
    ok(h1_parse_head(two, strlen(two), 8192, &req) == H1_OK && req.head_len == 19,
       "pipelined: the first head ends where the second starts");

    chunked("5\r\nhello\r\n0\r\n\r\n", 1, 15, "one chunk");
    chunked("5\r\nhello\r\n0\r\n\r\nGET", 1, 15, "stops at the end of the body");
    chunked("a;ext=1\r\n0123456789\r\n3\r\nabc\r\n0\r\nTrailer: x\r\n\r\n", 1, 46, "extension and trailer");
    chunked("5\nhello\n0\n\n", 1, 11, "bare LF");
    chunked("5\r\nhel", 0, 6, "incomplete");
    chunked("zz\r\n", 0, -1, "not hex");
    chunked("\r\n", 0, -1, "no size");
    chunked("5\r\nhelloXX", 0, -1, "data longer than its size");
    chunked("1234567890abcdef0\r\n", 0, -1, "size overflow");

    /* Bodies: valid JSON of exactly n bytes. */
    int all = 1;
    for (size_t n = 1; n <= 2048; n = n < 40 ? n + 1 : n * 2 + 1) {
        char *b = util_xmalloc(n + 1);
        h1_json_body(b, n);
        json_error_t je;
        json_t *j = json_loadb(b, n, JSON_DECODE_ANY, &je);
        if (!j) {
            all = 0;
            diag("  size %zu: %.*s: %s", n, (int)n, b, je.text);
        }
        json_decref(j);
        free(b);
    }
    ok(all, "JSON bodies of 1..2048 bytes parse");

    size_t len;
    char *r = h1_response_200(800, NULL, &len);
    char *body = strstr(r, "\r\n\r\n");
    ok(body && len - (size_t)(body + 4 - r) == 800 && strstr(r, "Content-Length: 800\r\n") &&
           strstr(r, "Content-Type: application/json\r\n") && !strncmp(r, "HTTP/1.1 200 OK\r\n", 17),
       "200 response: status, type, length, 800-byte body");
    free(r);
    r = h1_response_200(64, "keep-alive", &len);
    ok(strstr(r, "\r\nConnection: keep-alive\r\n") != NULL, "keep-alive variant announces it");
    free(r);
    r = h1_response_error(431, &len);
    ok(!strncmp(r, "HTTP/1.1 431 ", 13) && strstr(r, "Connection: close") && len == strlen(r), "431 response");
    free(r);
    r = h1_response_error(413, &len);
    ok(!strncmp(r, "HTTP/1.1 413 Content Too Large\r\n", 32) && strstr(r, "Connection: close") && len == strlen(r),
       "413 response");
    free(r);
    bodies();
    return done_testing();
}
