#include "generator/series.h"
#include "common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void series_init(struct series *s, size_t seconds)
{
    if (seconds == 0)
        seconds = 1;
    s->n = seconds;
    s->rows = util_xcalloc(seconds, sizeof *s->rows);
    s->active = util_xcalloc(seconds, sizeof *s->active);
}

void series_free(struct series *s)
{
    if (s->rows)
        for (size_t i = 0; i < s->n; i++)
            free(s->rows[i]);
    free(s->rows);
    free(s->active);
    memset(s, 0, sizeof *s);
}

struct series_row *series_row_at(struct series *s, size_t sec)
{
    if (sec >= s->n)
        sec = s->n - 1;
    if (!s->rows[sec])
        s->rows[sec] = util_xcalloc(1, sizeof *s->rows[sec]);
    return s->rows[sec];
}

unsigned series_bucket(uint64_t latency_ns)
{
    uint64_t us = latency_ns / 1000;
    if (us < 16)
        return (unsigned)us;
    int e = 63 - __builtin_clzll(us); /* 2^e <= us < 2^(e+1), e >= 4 */
    unsigned idx = 16 + (unsigned)(e - 4) * 16 + (unsigned)((us >> (e - 4)) & 15);
    return idx < SERIES_BUCKETS ? idx : SERIES_BUCKETS - 1;
}

/* Midpoint of a bucket, ns. */
static uint64_t bucket_mid_ns(unsigned idx)
{
    if (idx < 16)
        return (uint64_t)idx * 1000 + 500;
    unsigned e = (idx - 16) / 16 + 4, sub = (idx - 16) % 16;
    uint64_t width = (uint64_t)1 << (e - 4);
    uint64_t lo = ((uint64_t)16 + sub) << (e - 4);
    return lo * 1000 + width * 500;
}

void series_add(struct series *dst, const struct series *src)
{
    for (size_t i = 0; i < src->n && i < dst->n; i++) {
        dst->active[i] += src->active[i];
        const struct series_row *r = src->rows[i];
        if (!r)
            continue;
        struct series_row *d = series_row_at(dst, i);
        d->completed += r->completed;
        d->errors += r->errors;
        d->sent += r->sent;
        for (unsigned b = 0; b < SERIES_BUCKETS; b++)
            d->lat[b] += r->lat[b];
    }
}

uint64_t series_percentile_ns(const struct series_row *row, double p)
{
    uint64_t total = 0;
    for (unsigned b = 0; b < SERIES_BUCKETS; b++)
        total += row->lat[b];
    if (!total)
        return 0;
    double want = ceil(p / 100.0 * (double)total);
    uint64_t rank = want < 1 ? 1 : (uint64_t)want, seen = 0;
    for (unsigned b = 0; b < SERIES_BUCKETS; b++) {
        seen += row->lat[b];
        if (seen >= rank)
            return bucket_mid_ns(b);
    }
    return bucket_mid_ns(SERIES_BUCKETS - 1);
}
