/* Unit tests for generator/stages (ramp levels, the open-model timetable)
 * and generator/series (the coarse per-second histogram's precision). */
#include "generator/series.h"
#include "generator/stages.h"
#include "tests/tap.h"
#include "common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define S 1000000000ULL

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    char err[UTIL_ERR_LEN];
    struct stages st;

    ok(stages_parse(&st, "30s:200,60s:200,10s:0", 1, "--stages", err) == 0, "parse k6-style stages");
    is_u64(st.n, 3, "three stages");
    is_u64(stages_total_ns(&st), 100 * S, "total 100 s");
    ok(stages_level(&st, 0) == 0, "ramp starts at 0");
    ok(fabs(stages_level(&st, 15 * S) - 100) < 1e-9, "halfway up the first ramp: 100");
    ok(stages_level(&st, 30 * S) == 200, "hold at 200");
    ok(fabs(stages_level(&st, 95 * S) - 100) < 1e-9, "halfway down: 100");
    ok(stages_level(&st, 100 * S) == 0, "after the end: the last target");
    ok(stages_max(&st) == 200, "max 200");
    is_u64(stages_count(&st, 15 * S - 1), 99, "ramping up, the count is the level rounded down");
    is_u64(stages_count(&st, 15 * S), 100, "and reaches 100 at the crossing");
    is_u64(stages_count(&st, 29999999999ULL), 199, "just before the stage ends: 199");
    is_u64(stages_count(&st, 95 * S - 1), 101, "ramping down, the count is the level rounded up");
    is_u64(stages_count(&st, 100 * S - 1), 1, "the last connection closes at the end");
    stages_free(&st);

    ok(stages_parse(&st, "1s:10.5", 1, "--stages", err) == -1 && strstr(err, "integer"), "fractional connections refused: %s", err);
    ok(stages_parse(&st, "1s", 1, "--stages", err) == -1 && strstr(err, "DURATION:TARGET"), "missing target refused: %s", err);
    ok(stages_parse(&st, "1x:10", 1, "--stages", err) == -1, "bad duration refused: %s", err);
    ok(stages_parse(&st, "1s:-3", 0, "--rate-stages", err) == -1, "negative target refused: %s", err);
    ok(stages_parse(&st, "0s:5", 0, "--rate-stages", err) == -1, "zero-length schedule refused: %s", err);

    /* Constant rate: 1000/s for 5 s is 5000 arrivals 1 ms apart. */
    stages_constant(&st, 1000, 5 * S);
    is_u64(stages_arrival_count(&st), 5000, "1000/s for 5 s schedules 5000");
    uint64_t t = 0;
    ok(stages_arrival_time(&st, 0, &t) == 0 && t == 0, "arrival 0 at 0");
    ok(stages_arrival_time(&st, 1234, &t) == 0 && t == 1234000000ULL, "arrival 1234 at 1.234 s (%llu)", (unsigned long long)t);
    ok(stages_arrival_time(&st, 5000, &t) == -1, "arrival 5000 is past the end");
    ok(stages_position_time(&st, 1234.5, &t) == 0 && t == 1234500000ULL,
       "position 1234.5 (a Poisson arrival between two whole ones) at 1.2345 s");
    ok(stages_position_time(&st, 4999.999, &t) == 0 && stages_position_time(&st, 5000.5, &t) == -1,
       "positions run to the schedule's end, not past it");
    stages_free(&st);

    /* Ramp 0→1000/s over 2 s: 1000 arrivals, the k-th at sqrt(k/250) s. */
    ok(stages_parse(&st, "2s:1000,1s:1000,1s:0", 0, "--rate-stages", err) == 0, "parse rate stages");
    is_u64(stages_arrival_count(&st), 1000 + 1000 + 500, "ramp up + hold + ramp down = 2500 arrivals");
    int mono = 1, exact = 1;
    uint64_t prev = 0;
    for (uint64_t k = 0; k < 2500; k++) {
        if (stages_arrival_time(&st, k, &t) < 0) {
            mono = 0;
            break;
        }
        if (k && t < prev)
            mono = 0;
        prev = t;
        /* The inverse agrees with the integral. */
        if (fabs(stages_arrivals(&st, t) - (double)k) > 1e-3)
            exact = 0;
    }
    ok(mono, "arrival times never go back");
    ok(exact, "arrival k is due when the integral of the rate reaches k");
    ok(stages_arrival_time(&st, 250, &t) == 0 && llabs((long long)t - 1000000000LL) < 1000, "arrival 250 at 1 s on the ramp");
    stages_free(&st);

    /* Series: per-second percentiles within 3.2 % of a brute-force sort. */
    struct series se;
    series_init(&se, 2);
    struct series_row *row = series_row_at(&se, 0);
    enum { N = 20000 };
    uint64_t *v = util_xmalloc(N * sizeof *v);
    srand(7);
    for (int i = 0; i < N; i++) {
        /* log-uniform from 2 us to 20 s */
        double e = 3.3 + 7.0 * rand() / (double)RAND_MAX;
        v[i] = (uint64_t)pow(10, e);
        row->lat[series_bucket(v[i])]++;
    }
    qsort(v, N, sizeof *v, cmp_u64);
    int within = 1;
    double worst = 0;
    for (double p = 1; p <= 100; p += 0.5) {
        size_t rank = (size_t)ceil(p / 100 * N);
        uint64_t want = v[rank - 1], got = series_percentile_ns(row, p);
        double rel = fabs((double)got - (double)want) / (double)want;
        double abs_ns = fabs((double)got - (double)want);
        if (want >= 16000 && rel > worst)
            worst = rel;
        if (rel > 0.032 && abs_ns > 1000)
            within = 0;
    }
    ok(within, "coarse per-second percentiles within 3.2 %% or 1 us of the sorted values (worst above 16 us: %.2f %%)", worst * 100);
    is_u64(series_bucket(100ULL * S), SERIES_BUCKETS - 1, "values past 67 s land in the last bucket");
    struct series sum;
    series_init(&sum, 2);
    series_add(&sum, &se);
    series_add(&sum, &se);
    ok(sum.rows[0] && series_percentile_ns(sum.rows[0], 50) == series_percentile_ns(row, 50) && !sum.rows[1],
       "adding rows keeps percentiles and leaves empty seconds empty");
    series_free(&sum);
    series_free(&se);
    free(v);
    return done_testing();
}
