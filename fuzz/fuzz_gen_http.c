/* fuzz_gen_http: libFuzzer target for lb-gen's response parser
 * (generator/http.c). The first byte picks HEAD or GET and where to split
 * the input; the rest is fed as one response after another, as a
 * keep-alive connection would, then the end of the connection. */
#include "generator/http.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int head = data[0] & 1;
    size_t step = (data[0] >> 1) + 1;   /* 1..128 bytes a read */
    size_t n = size - 1;
    char *buf = malloc(n ? n : 1);
    memcpy(buf, data + 1, n);
    struct http_resp r;
    http_resp_reset(&r, head);
    size_t off = 0;
    while (off < n) {
        size_t len = n - off < step ? n - off : step;
        size_t used = 0;
        int rc = http_resp_feed(&r, buf + off, len, &used);
        if (rc < 0)
            break;
        if (used > len)
            abort();
        off += used;
        if (rc == 1)
            http_resp_reset(&r, head);
        else if (used == 0)
            abort();   /* needs more but took nothing: would spin */
    }
    (void)http_resp_eof(&r);
    free(buf);
    return 0;
}
