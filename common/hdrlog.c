/* hdrlog: HdrHistogram interval logs (see hdrlog.h). The layout follows
 * HdrHistogram's Java sources (AbstractHistogram's encodeIntoByteBuffer and
 * encodeIntoCompressedByteBuffer, ZigZagEncoding, HistogramLogWriter); the
 * code is ours. */
#include "common/hdrlog.h"
#include "common/base64.h"
#include "common/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

/* V2 cookies with the LEB128 word-size marker (0x10) HdrHistogram sets. */
#define HDR_V2_COOKIE 0x1c849313u
#define HDR_V2_COMPRESSED_COOKIE 0x1c849314u
#define HDR_V2_HEADER 40

static void put_be32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (24 - 8 * i));
}

static void put_be64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (56 - 8 * i));
}

/* ZigZagEncoding.putLong: ZigZag, then 7 bits a byte, low first, with a
 * continuation bit; the ninth byte, if reached, carries 8 bits. */
static size_t put_zigzag(unsigned char *p, int64_t n)
{
    uint64_t v = ((uint64_t)n << 1) ^ (uint64_t)(n >> 63);
    size_t k = 0;
    while (k < 8 && v >> 7) {
        p[k++] = (unsigned char)((v & 0x7f) | 0x80);
        v >>= 7;
    }
    p[k++] = (unsigned char)v;
    return k;
}

/* The counts up to the max value's bucket, as fillBufferFromCountsArray
 * writes them: a count, or a run of zeros as its negated length. */
static size_t put_counts(unsigned char *p, const struct hist *h)
{
    size_t len, at = 0;
    const uint64_t *c = hist_counts(h, &len);
    size_t limit = hist_count(h) ? hist_index_of(h, hist_max(h)) + 1 : 0;
    for (size_t i = 0; i < limit;) {
        uint64_t n = c[i++];
        int64_t zeros = 0;
        if (n == 0) {
            zeros = 1;
            while (i < limit && c[i] == 0) {
                zeros++;
                i++;
            }
        }
        at += put_zigzag(p + at, zeros > 1 ? -zeros : (int64_t)n);
    }
    return at;
}

/* The uncompressed V2 encoding into a new buffer; *n its length. */
static unsigned char *encode_v2(const struct hist *h, size_t *n)
{
    size_t len;
    hist_counts(h, &len);
    unsigned char *b = util_xmalloc(HDR_V2_HEADER + 9 * len + 1);
    size_t payload = put_counts(b + HDR_V2_HEADER, h);
    union {
        double d;
        uint64_t u;
    } ratio = {.d = 1.0};
    put_be32(b, HDR_V2_COOKIE);
    put_be32(b + 4, (uint32_t)payload);
    put_be32(b + 8, 0);   /* normalizing index offset */
    put_be32(b + 12, (uint32_t)hist_sigfigs(h));
    put_be64(b + 16, 1);  /* lowest discernible value */
    put_be64(b + 24, hist_highest(h));
    put_be64(b + 32, ratio.u);   /* integer-to-double conversion ratio */
    *n = HDR_V2_HEADER + payload;
    return b;
}

char *hdrlog_encode(const struct hist *h, char *err)
{
    size_t n;
    unsigned char *raw = encode_v2(h, &n);
    uLongf clen = compressBound((uLong)n);
    unsigned char *out = util_xmalloc(8 + clen);
    int zrc = compress(out + 8, &clen, raw, (uLong)n);
    free(raw);
    if (zrc != Z_OK) {
        free(out);
        util_err(err, "zlib compress failed (%d)", zrc);
        return NULL;
    }
    put_be32(out, HDR_V2_COMPRESSED_COOKIE);
    put_be32(out + 4, (uint32_t)clen);
    char *s = base64_encode(out, 8 + clen);
    free(out);
    return s;
}

int hdrlog_header(FILE *f, double start_epoch_s, const char *const *comments)
{
    char date[64] = "";
    time_t t = (time_t)start_epoch_s;
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &tm);
    fprintf(f, "#[Histogram log format version 1.3]\n");
    fprintf(f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_epoch_s, date);
    fprintf(f, "#[BaseTime: %.3f (seconds since epoch)]\n", start_epoch_s);
    for (const char *const *c = comments; c && *c; c++)
        fprintf(f, "#%s\n", *c);
    fprintf(f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
    return ferror(f) ? -1 : 0;
}

int hdrlog_interval(FILE *f, const char *tag, double start_s, double len_s, const struct hist *h,
                    double max_unit_ratio, char *err)
{
    char *enc = hdrlog_encode(h, err);
    if (!enc)
        return -1;
    if (tag && *tag) {
        fputs("Tag=", f);
        for (const char *c = tag; *c; c++)
            fputc(*c == ',' || *c == ' ' || *c == '\n' || *c == '\r' || *c == '\t' ? '_' : *c, f);
        fputc(',', f);
    }
    fprintf(f, "%.3f,%.3f,%.3f,%s\n", start_s, len_s, (double)hist_max(h) / max_unit_ratio, enc);
    free(enc);
    return ferror(f) ? util_err(err, "cannot write the interval log") : 0;
}
