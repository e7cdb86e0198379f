/* Unit tests for targets/delay: the inverse-CDF tables give the configured
 * quantiles and moments, draws repeat with a seed, stalls move deadlines
 * to their end, and bad specs are refused with a sentence. */
#include "tests/tap.h"
#include "targets/delay.h"
#include "common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DRAWS 1000000

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* DRAWS draws of spec with seed 1, sorted. */
static uint64_t *draws(const struct delay_spec *spec)
{
    struct delay_model m;
    delay_model_init(&m, spec, 0);
    uint64_t rng = delay_rng_seed(&m, 0), *v = util_xmalloc(DRAWS * sizeof *v);
    for (size_t i = 0; i < DRAWS; i++)
        v[i] = delay_draw_ns(&m, &rng);
    delay_model_free(&m);
    qsort(v, DRAWS, sizeof *v, cmp_u64);
    return v;
}

static double rel_err(double got, double want)
{
    return fabs(got - want) / want;
}

static void test_lognormal(void)
{
    struct delay_spec s = {.dist = DELAY_LOGNORMAL, .p50_ns = 20000000, .p99_ns = 100000000, .seed = 1};
    uint64_t *v = draws(&s);
    double p50 = (double)v[DRAWS / 2], p99 = (double)v[DRAWS / 100 * 99];
    /* A quantile of 10^6 draws: standard error 0.13 % at p50, 0.3 % at p99. */
    ok(rel_err(p50, 20e6) < 0.01, "lognormal p50 of 10^6 draws within 1 %% of 20 ms (%.0f ns)", p50);
    ok(rel_err(p99, 100e6) < 0.015, "lognormal p99 within 1.5 %% of 100 ms (%.0f ns)", p99);
    ok(v[0] > 0 && v[DRAWS - 1] < 2000000000ull, "lognormal draws are positive and clipped (max %llu ns)",
       (unsigned long long)v[DRAWS - 1]);
    free(v);

    struct delay_model m;
    delay_model_init(&m, &s, 0);
    is_u64(m.table[DELAY_TABLE_N / 2], 20000000, "the table's middle point is p50 exactly");
    uint64_t a = delay_rng_seed(&m, 0), b = delay_rng_seed(&m, 0), c = delay_rng_seed(&m, 1);
    int same = 1;
    for (int i = 0; i < 1000; i++)
        same &= delay_draw_ns(&m, &a) == delay_draw_ns(&m, &b);
    ok(same, "the same seed and worker draw the same delays");
    ok(delay_draw_ns(&m, &c) != delay_draw_ns(&m, &a), "another worker draws others");
    delay_model_free(&m);
}

static void test_exponential_uniform(void)
{
    struct delay_spec s = {.dist = DELAY_EXPONENTIAL, .mean_ns = 5000000, .seed = 3};
    uint64_t *v = draws(&s);
    double sum = 0;
    for (size_t i = 0; i < DRAWS; i++)
        sum += (double)v[i];
    ok(rel_err(sum / DRAWS, 5e6) < 0.01, "exponential mean within 1 %% of 5 ms (%.0f ns)", sum / DRAWS);
    ok(rel_err((double)v[DRAWS / 2], 5e6 * log(2)) < 0.01, "exponential median is mean * ln 2 (%llu ns)",
       (unsigned long long)v[DRAWS / 2]);
    free(v);

    s = (struct delay_spec){.dist = DELAY_UNIFORM, .min_ns = 10000000, .max_ns = 30000000, .seed = 3};
    v = draws(&s);
    ok(v[0] >= 10000000 && v[DRAWS - 1] <= 30000000, "uniform draws stay in [10 ms, 30 ms] (%llu..%llu)",
       (unsigned long long)v[0], (unsigned long long)v[DRAWS - 1]);
    ok(rel_err((double)v[DRAWS / 2], 20e6) < 0.005, "uniform median is the middle (%llu ns)",
       (unsigned long long)v[DRAWS / 2]);
    free(v);
}

static void test_stalls(void)
{
    const uint64_t S = 1000000000ull, origin = 7 * S;
    struct delay_spec s = {.fixed_ns = 0, .stall_every_ns = 5 * S, .stall_for_ns = S};
    struct delay_model m;
    delay_model_init(&m, &s, origin);
    ok(delay_active(&m), "stalls alone hold responses");
    is_u64(delay_release_ns(&m, origin + S / 2), origin + S / 2, "no stall in the first period");
    is_u64(delay_release_ns(&m, origin + 5 * S), origin + 6 * S, "due at a stall's start: its end");
    is_u64(delay_release_ns(&m, origin + 6 * S - 1), origin + 6 * S, "due in a stall: its end");
    is_u64(delay_release_ns(&m, origin + 6 * S), origin + 6 * S, "due at its end: unchanged");
    is_u64(delay_release_ns(&m, origin + 10 * S + 3), origin + 11 * S, "the second stall too");
    is_u64(delay_stalls_begun(&m, origin + 11 * S), 2, "two stalls begun by 11 s");
    json_t *a = delay_stalls_json(&m, origin + 11 * S, 1);
    is_u64(json_array_size(a), 1, "the list keeps the last `max`");
    is_u64((uint64_t)json_integer_value(json_object_get(json_array_get(a, 0), "start_ns")), origin + 10 * S,
           "the last stall starts at 10 s");
    json_decref(a);
    delay_model_free(&m);
}

/* The windows an arrival counts in around stalls: each as long as the
 * stall, or as the gap when that is shorter (600 ms every 1 s: 400 ms
 * windows, so an after window and the next before window overlap). */
static void test_stall_windows(void)
{
    const uint64_t MS = 1000000ull, origin = 3000 * MS;
    struct delay_spec s = {.stall_every_ns = 1000 * MS, .stall_for_ns = 200 * MS};
    struct delay_model m;
    uint64_t k = 99;
    delay_model_init(&m, &s, origin);
    is_u64(delay_stall_window_ns(&m), 200 * MS, "200 ms stalls every 1 s: 200 ms windows");
    ok(delay_stall_windows(&m, origin - 1, &k) == 0, "before the origin: no window");
    ok(delay_stall_windows(&m, origin + 100 * MS, &k) == 0, "first period, before any window: none");
    ok(delay_stall_windows(&m, origin + 800 * MS, &k) == DELAY_W_BEFORE && k == 0,
       "200 ms before the first stall: its before window (stall k + 1 = 1)");
    ok(delay_stall_windows(&m, origin + 1000 * MS, &k) == DELAY_W_IN && k == 1, "at the stall's start: in stall 1");
    ok(delay_stall_windows(&m, origin + 1200 * MS - 1, &k) == DELAY_W_IN && k == 1, "its last ns: in");
    ok(delay_stall_windows(&m, origin + 1200 * MS, &k) == DELAY_W_AFTER && k == 1, "at its end: after");
    ok(delay_stall_windows(&m, origin + 1400 * MS, &k) == 0, "past the after window: none");
    ok(delay_stall_windows(&m, origin + 2799 * MS, &k) == 0 && delay_stall_windows(&m, origin + 2800 * MS, &k) ==
           DELAY_W_BEFORE && k == 2, "the next before window starts 200 ms before stall 3");
    s.stall_for_ns = 600 * MS;
    delay_model_init(&m, &s, origin);
    is_u64(delay_stall_window_ns(&m), 400 * MS, "600 ms stalls every 1 s: 400 ms windows (the gap)");
    ok(delay_stall_windows(&m, origin + 1700 * MS, &k) == (DELAY_W_AFTER | DELAY_W_BEFORE) && k == 1,
       "in the gap: after stall 1 and before stall 2 at once");
    delay_model_free(&m);
}

static void test_checks(void)
{
    char err[UTIL_ERR_LEN];
    enum delay_dist d;
    ok(delay_dist_parse("lognormal", &d, err) == 0 && d == DELAY_LOGNORMAL, "lognormal parses");
    ok(delay_dist_parse("gauss", &d, err) < 0 && strstr(err, "lognormal"), "an unknown name lists the known: %s", err);
    struct delay_spec s = {.dist = DELAY_LOGNORMAL, .p50_ns = 20, .p99_ns = 10};
    ok(delay_spec_check(&s, err) < 0 && strstr(err, "p99"), "p99 below p50 is refused: %s", err);
    s = (struct delay_spec){.dist = DELAY_UNIFORM, .min_ns = 5, .max_ns = 4};
    ok(delay_spec_check(&s, err) < 0, "max below min is refused: %s", err);
    s = (struct delay_spec){.stall_every_ns = 10, .stall_for_ns = 10};
    ok(delay_spec_check(&s, err) < 0 && strstr(err, "shorter"), "a stall as long as its period is refused: %s", err);
    s = (struct delay_spec){.dist = DELAY_EXPONENTIAL, .mean_ns = 1000, .stall_every_ns = 10, .stall_for_ns = 1};
    ok(delay_spec_check(&s, err) == 0, "an exponential delay with stalls is fine");
}

int main(void)
{
    test_lognormal();
    test_exponential_uniform();
    test_stalls();
    test_stall_windows();
    test_checks();
    return done_testing();
}
