/* numstats: statistics on plain arrays of numbers, for any layer: a
 * summary (median, min, max, mean, standard deviation, coefficient of
 * variation, stable or not) and a trend test (Mann-Kendall with Sen's
 * slope). The engine judges a hold's steadiness with them and the reports
 * summarize repeats, so they sit below both. */
#ifndef LB_NUMSTATS_H
#define LB_NUMSTATS_H

#include <stddef.h>

/* Above this coefficient of variation (more than five repeats), or this
 * relative min-max range (five or fewer), a metric is marked unstable. */
#define STATS_UNSTABLE_CV 0.10
#define STATS_UNSTABLE_RANGE 0.20

struct stats_summary {
    size_t n;           /* values that were present (NaN/absent ones skipped) */
    double median, min, max, mean, stddev, cv;  /* NAN when n == 0; stddev, cv NAN when n < 2 */
    int unstable;       /* spread above the thresholds above */
};

/* A monotonic trend in a short series y[0..n) taken at x = 0, 1, …:
 * Mann–Kendall's S with its two-sided p-value, Sen's slope and the line's
 * intercept. */
struct stats_trend {
    size_t n;
    long s;             /* concordant minus discordant pairs */
    double p;           /* two-sided; exact without ties (n <= 60), else the normal approximation with tie correction */
    double slope;       /* Sen: the median of the pairwise slopes, per step of x */
    double intercept;   /* the median of y - slope * x */
};

/* Mann–Kendall and Sen over y (no NaNs). p is 1 and the slope 0 when n < 2. */
void stats_trend_test(const double *y, size_t n, struct stats_trend *out);

/* Summarize n values (NaNs skipped). */
void stats_summarize(const double *v, size_t n, struct stats_summary *out);

/* Poisson tails for X ~ Poisson(lambda), lambda > 0: P(X <= k) and
 * P(X >= k), summed in ratio from the term at k outwards (exact to double
 * precision for any k and lambda up to 1e9). */
double stats_poisson_below(double k, double lambda);
double stats_poisson_above(double k, double lambda);

#endif
