/* fuzz_h1_body: libFuzzer target for lb-target's request body reader
 * (targets/h1.c: h1_body_*, over Content-Length and chunked). The first
 * two bytes pick the body limit and how the rest is cut into pieces; the
 * rest is a request (head, then body) or, when it is not one, a chunked
 * body alone. The body is fed whole and in pieces, and both must agree:
 * the same end (done, malformed, over the limit, or still open), the same
 * bytes consumed and counted. Always: consumed <= given, counted <=
 * promised, promised never decreasing, a Content-Length body done at
 * exactly its length, a stop short of the input only at the end or past
 * the limit. A failed check aborts (libFuzzer keeps the input). */
#include "targets/h1.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
    int end;            /* 0 open, 1 done, 2 malformed, 3 over the limit */
    size_t used;
    uint64_t seen;
};

#define CHECK(x) do { if (!(x)) abort(); } while (0)

/* Feed body[0..n) in pieces (lengths from *rng; 0: whole). */
static struct outcome feed(const struct h1_request *req, uint64_t max, const char *body, size_t n, uint32_t rng)
{
    struct h1_body b;
    struct outcome o = {0, 0, 0};
    h1_body_start(&b, req, max);
    uint64_t promised = h1_body_promised(&b);
    while (o.used < n) {
        size_t piece = n - o.used;
        if (rng) {
            rng = rng * 1103515245u + 12345u;
            size_t k = 1 + (rng >> 16) % 7;
            piece = k < piece ? k : piece;
        }
        int done = 0;
        ssize_t r = h1_body_feed(&b, body + o.used, piece, &done);
        if (r < 0) {
            o.end = 2;
            return o;
        }
        CHECK((size_t)r <= piece);
        o.used += (size_t)r;
        uint64_t p = h1_body_promised(&b);
        CHECK(p >= promised && b.seen <= p);
        promised = p;
        if (done) {
            CHECK(req->chunked || b.seen == req->content_length);
            o.end = 1;
            break;
        }
        if ((size_t)r < piece) {
            CHECK(p > max);   /* stopped short only past the limit */
            o.end = 3;
            break;
        }
    }
    o.seen = b.seen;
    CHECK(o.seen <= promised);
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint64_t max = (uint64_t)data[0] * 97;   /* 0 .. 24,735 bytes */
    uint32_t rng = (uint32_t)data[1] | 1u;
    size_t n = size - 2;
    /* A private copy: the reader must not read past len (ASan sees it). */
    char *buf = malloc(n ? n : 1);
    memcpy(buf, data + 2, n);
    struct h1_request req;
    const char *body = buf;
    if (h1_parse_head(buf, n, 8192, &req) == H1_OK && (req.content_length || req.chunked)) {
        body = buf + req.head_len;
    } else {
        memset(&req, 0, sizeof req);
        req.chunked = 1;
    }
    size_t len = n - (size_t)(body - buf);
    struct outcome whole = feed(&req, max, body, len, 0), cut = feed(&req, max, body, len, rng);
    CHECK(whole.end == cut.end);
    if (whole.end != 2)
        CHECK(whole.used == cut.used && whole.seen == cut.seen);
    free(buf);
    return 0;
}
