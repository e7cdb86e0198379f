#include "common/hist.h"
#include "common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct hist {
    uint64_t highest;
    int sigfigs;
    int sub_bucket_half_count_magnitude;
    uint32_t sub_bucket_half_count;
    uint32_t sub_bucket_count;
    uint64_t sub_bucket_mask;
    size_t counts_len;
    uint64_t total;
    uint64_t saturated;
    uint64_t min;
    uint64_t max;
    /* Exact sum for the mean; long double keeps ns sums of 10^10 requests
     * exact enough (64-bit mantissa). */
    long double sum;
    uint64_t *counts;
};

static int clz64(uint64_t v)
{
    return __builtin_clzll(v);
}

struct hist *hist_new(uint64_t highest, int sigfigs)
{
    if (highest < 2 || sigfigs < 1 || sigfigs > 5)
        return NULL;
    uint64_t single_unit = 2;
    for (int i = 0; i < sigfigs; i++)
        single_unit *= 10;
    int mag = 64 - clz64(single_unit - 1); /* ceil(log2(single_unit)) */
    struct hist *h = util_xcalloc(1, sizeof *h);
    h->highest = highest;
    h->sigfigs = sigfigs;
    h->sub_bucket_half_count_magnitude = mag - 1;
    h->sub_bucket_count = (uint32_t)1 << mag;
    h->sub_bucket_half_count = h->sub_bucket_count / 2;
    h->sub_bucket_mask = (uint64_t)h->sub_bucket_count - 1;
    int buckets = 1;
    uint64_t smallest_untrackable = h->sub_bucket_count;
    while (smallest_untrackable <= highest) {
        if (smallest_untrackable > UINT64_MAX / 2) {
            buckets++;
            break;
        }
        smallest_untrackable <<= 1;
        buckets++;
    }
    h->counts_len = (size_t)(buckets + 1) * h->sub_bucket_half_count;
    h->counts = util_xcalloc(h->counts_len, sizeof *h->counts);
    h->min = UINT64_MAX;
    return h;
}

void hist_free(struct hist *h)
{
    if (!h)
        return;
    free(h->counts);
    free(h);
}

static size_t counts_index(const struct hist *h, uint64_t v)
{
    int bucket = 64 - clz64(v | h->sub_bucket_mask) - (h->sub_bucket_half_count_magnitude + 1);
    uint64_t sub = v >> bucket;
    return ((size_t)(bucket + 1) << h->sub_bucket_half_count_magnitude) + (size_t)(sub - h->sub_bucket_half_count);
}

/* Lowest value counted in counts[i], and the width of its range. */
static void index_range(const struct hist *h, size_t i, uint64_t *lo, uint64_t *width)
{
    int bucket = (int)(i >> h->sub_bucket_half_count_magnitude) - 1;
    uint64_t sub = (i & (h->sub_bucket_half_count - 1)) + h->sub_bucket_half_count;
    if (bucket < 0) {
        sub -= h->sub_bucket_half_count;
        bucket = 0;
    }
    *lo = sub << bucket;
    *width = (uint64_t)1 << bucket;
}

void hist_record_n(struct hist *h, uint64_t value, uint64_t n)
{
    if (n == 0)
        return;
    if (value > h->highest) {
        value = h->highest;
        h->saturated += n;
    }
    h->counts[counts_index(h, value)] += n;
    h->total += n;
    h->sum += (long double)value * (long double)n;
    if (value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
}

void hist_record(struct hist *h, uint64_t value)
{
    hist_record_n(h, value, 1);
}

int hist_add(struct hist *dst, const struct hist *src)
{
    if (dst->highest != src->highest || dst->sigfigs != src->sigfigs)
        return -1;
    if (src->total == 0)
        return 0;
    for (size_t i = 0; i < src->counts_len; i++)
        dst->counts[i] += src->counts[i];
    dst->total += src->total;
    dst->saturated += src->saturated;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    return 0;
}

void hist_reset(struct hist *h)
{
    memset(h->counts, 0, h->counts_len * sizeof *h->counts);
    h->total = h->saturated = 0;
    h->sum = 0;
    h->min = UINT64_MAX;
    h->max = 0;
}

uint64_t hist_count(const struct hist *h) { return h->total; }
uint64_t hist_saturated(const struct hist *h) { return h->saturated; }
uint64_t hist_min(const struct hist *h) { return h->total ? h->min : 0; }
uint64_t hist_max(const struct hist *h) { return h->max; }

double hist_mean(const struct hist *h)
{
    return h->total ? (double)(h->sum / (long double)h->total) : 0.0;
}

double hist_stddev(const struct hist *h)
{
    if (h->total == 0)
        return 0.0;
    double mean = hist_mean(h), acc = 0;
    for (size_t i = 0; i < h->counts_len; i++) {
        if (!h->counts[i])
            continue;
        uint64_t lo, width;
        index_range(h, i, &lo, &width);
        double mid = (double)lo + (double)(width - 1) / 2.0;
        acc += (mid - mean) * (mid - mean) * (double)h->counts[i];
    }
    return sqrt(acc / (double)h->total);
}

uint64_t hist_percentile(const struct hist *h, double p)
{
    if (h->total == 0)
        return 0;
    if (p > 100)
        p = 100;
    /* The rank of the value at p, 1-based, as a sorted list would give it
     * (ceil(p/100 * n), at least 1). */
    double want = ceil(p / 100.0 * (double)h->total);
    uint64_t rank = want < 1 ? 1 : (uint64_t)want;
    uint64_t seen = 0;
    for (size_t i = 0; i < h->counts_len; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t lo, width;
            index_range(h, i, &lo, &width);
            uint64_t hi = lo + width - 1;
            if (hi > h->max)
                hi = h->max;
            if (hi < h->min)
                hi = h->min;
            return hi;
        }
    }
    return h->max;
}

int hist_next(const struct hist *h, size_t *cursor, uint64_t *value, uint64_t *count)
{
    while (*cursor < h->counts_len) {
        size_t i = (*cursor)++;
        if (h->counts[i]) {
            uint64_t lo, width;
            index_range(h, i, &lo, &width);
            *value = lo + width - 1;
            *count = h->counts[i];
            return 1;
        }
    }
    return 0;
}

uint64_t hist_highest(const struct hist *h) { return h->highest; }
int hist_sigfigs(const struct hist *h) { return h->sigfigs; }

const uint64_t *hist_counts(const struct hist *h, size_t *len)
{
    *len = h->counts_len;
    return h->counts;
}

size_t hist_index_of(const struct hist *h, uint64_t v)
{
    return counts_index(h, v > h->highest ? h->highest : v);
}

double hist_resolution(const struct hist *h)
{
    return 1.0 / (double)h->sub_bucket_half_count;
}
