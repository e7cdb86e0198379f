/* Unit tests for common/hist: percentiles agree with a brute-force sort of
 * the recorded values within the histogram's stated precision. */
#include "common/hist.h"
#include "tests/tap.h"
#include "common/util.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* xorshift64*: a fixed, seedable generator so failures reproduce. */
static uint64_t rng(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static uint64_t sorted_rank(const uint64_t *v, size_t n, double p)
{
    double want = ceil(p / 100.0 * (double)n);
    size_t rank = want < 1 ? 1 : (size_t)want;
    return v[rank - 1];
}

static void check_distribution(const char *name, uint64_t *vals, size_t n)
{
    struct hist *h = hist_new(68719476736ull, 3); /* 1 ns .. 68.7 s */
    long double sum = 0;
    for (size_t i = 0; i < n; i++) {
        hist_record(h, vals[i]);
        sum += vals[i];
    }
    qsort(vals, n, sizeof *vals, cmp_u64);
    static const double ps[] = {1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100};
    int bad = 0;
    double tol = hist_resolution(h);
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        uint64_t exact = sorted_rank(vals, n, ps[i]);
        uint64_t got = hist_percentile(h, ps[i]);
        /* Reported value is the top of the equivalent range: never below the
         * true value, and above it by at most one sub-bucket width. */
        if (got < exact || (double)(got - exact) > tol * (double)exact + 1) {
            bad++;
            diag("  %s p%g: exact %llu, hist %llu", name, ps[i], (unsigned long long)exact, (unsigned long long)got);
        }
    }
    ok(!bad, "%s: percentiles within %.4f%% of brute force (n=%zu)", name, tol * 100, n);
    ok(hist_min(h) == vals[0] && hist_max(h) == vals[n - 1], "%s: min and max exact", name);
    double mean = (double)(sum / n);
    ok(fabs(hist_mean(h) - mean) <= 1e-9 * mean, "%s: mean exact (%.3f)", name, mean);
    is_u64(hist_count(h), n, "%s: count", name);
    hist_free(h);
}

int main(void)
{
    uint64_t seed = 42;
    size_t n = 200000;
    uint64_t *v = util_xmalloc(n * sizeof *v);

    /* Uniform 1 us .. 100 ms */
    for (size_t i = 0; i < n; i++)
        v[i] = 1000 + rng(&seed) % 100000000ull;
    check_distribution("uniform", v, n);

    /* Log-uniform 1 ns .. 60 s: every bucket magnitude exercised */
    for (size_t i = 0; i < n; i++)
        v[i] = (uint64_t)exp((double)(rng(&seed) % 1000000) / 1000000.0 * log(6e10)) + 1;
    check_distribution("log-uniform", v, n);

    /* Bimodal: most at ~20 ms, a tail at ~1 s (a stall) */
    for (size_t i = 0; i < n; i++)
        v[i] = (i % 100 == 0) ? 1000000000ull + rng(&seed) % 50000000ull : 20000000ull + rng(&seed) % 300000ull;
    check_distribution("bimodal", v, n);

    /* Small exact values are kept exactly */
    struct hist *h = hist_new(1000000, 3);
    for (uint64_t x = 1; x <= 2000; x++)
        hist_record(h, x);
    is_u64(hist_percentile(h, 50), 1000, "values below 2048 are exact (p50 of 1..2000)");
    is_u64(hist_percentile(h, 100), 2000, "p100 is the max");

    /* Saturation */
    hist_record(h, 5000000);
    is_u64(hist_saturated(h), 1, "a value above highest is counted as saturated");
    is_u64(hist_max(h), 1000000, "and recorded as highest");

    /* Merge */
    struct hist *a = hist_new(1000000, 3), *b = hist_new(1000000, 3), *c = hist_new(1000000, 2);
    for (uint64_t x = 1; x <= 1000; x++)
        hist_record(a, x);
    for (uint64_t x = 1001; x <= 3000; x++)
        hist_record(b, x);
    ok(hist_add(a, b) == 0, "merge same geometry");
    is_u64(hist_count(a), 3000, "merged count");
    is_u64(hist_min(a), 1, "merged min");
    is_u64(hist_max(a), 3000, "merged max");
    ok(fabs(hist_mean(a) - 1500.5) < 1e-9, "merged mean exact");
    ok(hist_add(a, c) == -1, "merge of different geometry refused");

    /* Iteration covers every count */
    size_t cur = 0;
    uint64_t val, cnt, total = 0, last = 0;
    int ordered = 1;
    while (hist_next(a, &cur, &val, &cnt)) {
        total += cnt;
        if (val <= last)
            ordered = 0;
        last = val;
    }
    is_u64(total, 3000, "iteration sums to the count");
    ok(ordered, "iteration is ascending");

    hist_reset(a);
    is_u64(hist_count(a), 0, "reset empties");
    is_u64(hist_percentile(a, 99), 0, "empty percentile is 0");
    ok(hist_new(1, 3) == NULL && hist_new(1000, 0) == NULL && hist_new(1000, 6) == NULL, "bad geometry refused");

    hist_free(a);
    hist_free(b);
    hist_free(c);
    hist_free(h);
    free(v);
    return done_testing();
}
