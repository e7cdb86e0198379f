/* stats: summaries over repeats, the instability rules, grouping of a
 * committed run fixture by label and level. */
#include "report/stats.h"
#include "common/numstats.h"
#include "tests/tap.h"

#include <math.h>
#include <string.h>

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9 * (fabs(b) + 1);
}

/* Mann–Kendall's exact p against counts over every permutation (9! for
 * n = 9, by brute force when these values were taken), the normal
 * approximation with ties, and Sen's slope. */
static void test_trend(void)
{
    struct stats_trend t;
    double up5[] = {1, 2, 3, 4, 5}, up4[] = {1, 2, 3, 4};
    stats_trend_test(up5, 5, &t);
    ok(t.s == 10 && near(t.p, 2.0 / 120), "5 rising values: S 10, exact p 2/5! (got %g)", t.p);
    ok(near(t.slope, 1) && near(t.intercept, 1), "Sen's slope 1, intercept 1");
    stats_trend_test(up4, 4, &t);
    ok(near(t.p, 2.0 / 24), "4 rising values: p 2/4! = 0.083, never below 0.05 (got %g)", t.p);
    /* JMeter's 2 s blocks of the sample run's hold (rises, then falls). */
    double jm[] = {1085.5, 1795, 1910, 1820.5, 2395, 2764, 2561, 2325.5, 1652.5};
    stats_trend_test(jm, 9, &t);
    ok(t.s == 12 && near(t.p, 94174.0 / 362880), "9 values, S 12: exact p 94174/9! = 0.2595 (got %.6f)", t.p);
    ok(near(t.slope, 120.625), "Sen's slope: median pairwise slope 120.625 (got %g)", t.slope);
    double tied[] = {1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
    stats_trend_test(tied, 10, &t);
    /* S = 40; var = (10*9*25 - 5*(2*1*9)) / 18 = 120; z = 39/sqrt(120). */
    ok(t.s == 40 && near(t.p, erfc(39 / sqrt(120.0) / sqrt(2.0))), "ties: normal approximation, tie-corrected variance");
    double flat[] = {5, 5, 5, 5, 5, 5};
    stats_trend_test(flat, 6, &t);
    ok(t.s == 0 && t.p == 1 && t.slope == 0, "a flat series: S 0, p 1, slope 0");
    stats_trend_test(up5, 1, &t);
    ok(t.p == 1 && t.slope == 0, "one value: no trend");
}

/* Poisson tails against exact sums (Python: sum of exp(i ln l - l -
 * lgamma(i + 1)) over i). */
static void test_poisson(void)
{
    ok(near(stats_poisson_below(0, 1), exp(-1)) && near(stats_poisson_below(2, 1), 2.5 * exp(-1)),
       "P(X <= 0 | 1) = 1/e, P(X <= 2 | 1) = 2.5/e");
    ok(near(stats_poisson_above(3, 1), 1 - 2.5 * exp(-1)) && stats_poisson_above(0, 1) == 1,
       "P(X >= 3 | 1) = 1 - 2.5/e; P(X >= 0) = 1");
    ok(fabs(stats_poisson_below(50, 100) / 2.4015922356168364e-08 - 1) < 1e-6,
       "P(X <= 50 | 100) = 2.4016e-08 (got %.6g)", stats_poisson_below(50, 100));
    ok(fabs(stats_poisson_above(150, 100) / 1.8842104272387417e-06 - 1) < 1e-6,
       "P(X >= 150 | 100) = 1.8842e-06 (got %.6g)", stats_poisson_above(150, 100));
    ok(fabs(stats_poisson_below(300000, 300000) - 0.500485576812284) < 1e-9,
       "P(X <= 300000 | 300000) = 0.500486 (got %.9f)", stats_poisson_below(300000, 300000));
    ok(stats_poisson_below(-1, 5) == 0, "P(X <= -1) = 0");
}

int main(void)
{
    test_trend();
    test_poisson();
    struct stats_summary s;
    double odd[] = {3, 1, 2};
    stats_summarize(odd, 3, &s);
    ok(s.n == 3 && near(s.median, 2) && near(s.min, 1) && near(s.max, 3), "odd count: median 2, min 1, max 3");
    ok(near(s.stddev, 1) && near(s.cv, 0.5), "sample standard deviation 1, cv 0.5");
    ok(s.unstable, "three repeats spread 100 %% of the median: unstable by range");
    double even[] = {10, NAN, 12, 11, 13};
    stats_summarize(even, 5, &s);
    ok(s.n == 4 && near(s.median, 11.5), "NaN skipped, even count: median 11.5");
    ok(s.unstable, "four repeats spread 26 %% of the median (above 20 %%): unstable");
    double tight[] = {100, 101, 99, 100, 102};
    stats_summarize(tight, 5, &s);
    ok(!s.unstable, "five repeats within 3 %%: stable");
    double six[] = {100, 100, 100, 100, 100, 140};
    stats_summarize(six, 6, &s);
    ok(s.unstable && s.cv > 0.10, "six repeats: judged by cv (%.3f > 0.10)", s.cv);
    double one[] = {5};
    stats_summarize(one, 1, &s);
    ok(s.n == 1 && near(s.median, 5) && isnan(s.stddev) && !s.unstable, "one value: no spread, never unstable");
    stats_summarize(NULL, 0, &s);
    ok(s.n == 0 && isnan(s.median), "no values: NAN");

    json_error_t je;
    json_t *run = json_load_file("tests/fixtures/runs/sweep-a/run.json", 0, &je);
    if (!ok(run != NULL, "fixture loads")) {
        diag("%s", je.text);
        return 1;
    }
    struct stats_groups gs;
    stats_group_run(run, &gs);
    ok(gs.n == 4 && gs.nlabels == 2 && gs.nlevels == 2, "4 groups: 2 labels x 2 levels");
    ok(!strcmp(gs.labels[0], "lb-gen") && !strcmp(gs.labels[1], "wrk"), "labels in profile order");
    ok(near(gs.levels[0], 10) && near(gs.levels[1], 40), "levels ascending");
    const struct stats_group *g = stats_find(&gs, "wrk", 40);
    ok(g && g->nrows == 2 && g->nok == 2 && g->colour == 1, "wrk@40: 2 ok rows, colour slot 1");
    stats_group_metric(g, stats_metric_by_key("rss"), &s);
    ok(s.n == 2 && near(s.median, (5.255168 + 5.332992) / 2), "wrk@40 peak RSS median %.6f", s.median);
    const struct stats_metric *c = stats_metric_by_key("cpu100k");
    double v = stats_value(g->rows[0], c);
    ok(v > 2 && v < 3, "CPU-s per 100k requests derived from cpu_seconds / server.requests (%.3f)", v);
    char name[64];
    ok(!strcmp(stats_group_name(g, name, sizeof name), "wrk@40"), "group name wrk@40");
    ok(stats_find(&gs, "wrk", NAN) == NULL, "no level-less group in a sweep");
    stats_groups_free(&gs);
    json_decref(run);
    return done_testing();
}
