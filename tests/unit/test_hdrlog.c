/* Unit tests for common/hdrlog and common/base64: the bytes of
 * HdrHistogram's V2 encoding for a histogram worked out by hand, base64's
 * RFC 4648 vectors, and a log line's layout. HdrHistogram's own reader
 * reads real logs back in tests/e2e/hlog.t. */
#include "common/base64.h"
#include "common/hdrlog.h"
#include "common/hist.h"
#include "common/util.h"
#include "tests/tap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
    return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void test_base64(void)
{
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *want[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char *e = base64_encode(in[i], strlen(in[i]));
        ok(!strcmp(e, want[i]), "base64(\"%s\") is \"%s\" (got \"%s\")", in[i], want[i], e);
        char back[8];
        long n = base64_decode(e, back, sizeof back);
        ok(n == (long)strlen(in[i]) && !memcmp(back, in[i], (size_t)n), "and decodes back");
        free(e);
    }
    char out[4];
    ok(base64_decode("Zm9", out, sizeof out) < 0, "unpadded base64 is refused");
}

/* Decodes hdrlog_encode's output to the uncompressed V2 bytes. */
static unsigned char *decode(const char *b64, size_t *n)
{
    unsigned char *bin = util_xmalloc(strlen(b64));
    long bn = base64_decode(b64, bin, strlen(b64));
    unsigned char *raw = util_xmalloc(1 << 20);
    uLongf rn = 1 << 20;
    int ok_ = bn > 8 && be32(bin) == 0x1c849314u && be32(bin + 4) == (uint32_t)bn - 8 &&
              uncompress(raw, &rn, bin + 8, (uLong)bn - 8) == Z_OK;
    free(bin);
    if (!ok_) {
        free(raw);
        return NULL;
    }
    *n = rn;
    return raw;
}

static void test_v2_bytes(void)
{
    char err[UTIL_ERR_LEN] = "";
    struct hist *h = hist_new(3600000000000ull, 3);
    hist_record(h, 1);
    hist_record_n(h, 1000, 2);
    char *e = hdrlog_encode(h, err);
    ok(e && !strncmp(e, "HISTF", 5), "the compressed cookie 0x1c849314 reads HISTF in base64 (%s)", err);
    size_t n = 0;
    unsigned char *raw = e ? decode(e, &n) : NULL;
    ok(raw != NULL, "the outer header holds the zlib stream's length, which inflates");
    if (!raw) {
        free(e);
        hist_free(h);
        return;
    }
    ok(be32(raw) == 0x1c849313u, "the V2 cookie with the LEB128 word size (0x1c849313)");
    ok(be32(raw + 8) == 0, "normalizing index offset 0");
    ok(be32(raw + 12) == 3, "3 significant digits, as recorded");
    ok(be64(raw + 16) == 1 && be64(raw + 24) == 3600000000000ull, "lowest 1, highest 3600 s in ns");
    ok(be64(raw + 32) == 0x3ff0000000000000ull, "conversion ratio 1.0");
    /* counts: [0]=0 (one zero: 0), [1]=1 (ZigZag 2), [2..999] zero (998
     * zeros: ZigZag(-998) = 1995 = 0xcb 0x0f), [1000]=2 (ZigZag 4). */
    const unsigned char want[] = {0x00, 0x02, 0xcb, 0x0f, 0x04};
    ok(be32(raw + 4) == sizeof want && n == 40 + sizeof want && !memcmp(raw + 40, want, sizeof want),
       "the counts as ZigZag LEB128 with a zero run, up to the max's bucket (%u bytes)", be32(raw + 4));
    free(raw);
    free(e);
    hist_record(h, 5000000);   /* 5 ms: a bucket 2^12 wide, index past 8000 */
    e = hdrlog_encode(h, err);
    raw = decode(e, &n);
    ok(raw && be32(raw + 4) == n - 40 && n - 40 == 5 + 3 + 1,
       "a larger max extends the counts by one zero run and its count (%zu bytes)", n - 40);
    free(raw);
    free(e);
    hist_free(h);
}

static void test_line(void)
{
    char err[UTIL_ERR_LEN] = "", *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct hist *h = hist_new(3600000000000ull, 3);
    hist_record(h, 2500000);
    const char *c[] = {"[a comment]", NULL};
    hdrlog_header(f, 1796387400.29, c);
    hdrlog_interval(f, "wrk, run 1:hold", 1.5, 2.0, h, 1e6, err);
    fclose(f);
    ok(strstr(buf, "#[Histogram log format version 1.3]\n#[StartTime: 1796387400.290 (seconds since epoch), ") == buf,
       "the header opens with the format version and StartTime");
    ok(strstr(buf, "#[BaseTime: 1796387400.290 (seconds since epoch)]\n#[a comment]\n\"StartTimestamp\"") != NULL,
       "then BaseTime, the comments and the legend");
    ok(strstr(buf, "\nTag=wrk__run_1:hold,1.500,2.000,2.500,HISTF") != NULL,
       "an interval: a tag with no comma or space, start, length, max in ms, the histogram");
    free(buf);
    hist_free(h);
}

int main(void)
{
    test_base64();
    test_v2_bytes();
    test_line();
    return done_testing();
}
