/* fuzz_h1: libFuzzer target for lb-target's request parser (targets/h1.c):
 * the head parser on the whole input, within a small and a large limit, and
 * the chunked decoder on the bytes after the head, fed whole and split. */
#include "targets/h1.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void chunked(const char *b, size_t n)
{
    struct h1_chunked c;
    int done = 0;
    memset(&c, 0, sizeof c);
    ssize_t used = h1_chunked_feed(&c, b, n, &done);
    if (used > (ssize_t)n || (used >= 0 && (size_t)used < n && !done))
        abort();
    /* Split into a first byte and the rest: the parser keeps its state. */
    memset(&c, 0, sizeof c);
    done = 0;
    if (n > 1 && h1_chunked_feed(&c, b, 1, &done) == 1 && !done)
        (void)h1_chunked_feed(&c, b + 1, n - 1, &done);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private copy: the parser must not read past len (ASan sees it). */
    char *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    struct h1_request req;
    (void)h1_parse_head(buf, size, 64, &req);
    int rc = h1_parse_head(buf, size, 8192, &req);
    if (rc == H1_OK) {
        if (req.head_len > size)
            abort();
        chunked(buf + req.head_len, size - req.head_len);
    } else {
        chunked(buf, size);
    }
    free(buf);
    return 0;
}
