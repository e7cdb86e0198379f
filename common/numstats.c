#include "common/numstats.h"
#include "common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void stats_summarize(const double *v, size_t n, struct stats_summary *out)
{
    double *s = util_xcalloc(n ? n : 1, sizeof *s);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            s[k++] = v[i];
    memset(out, 0, sizeof *out);
    out->n = k;
    out->median = out->min = out->max = out->mean = out->stddev = out->cv = NAN;
    if (k) {
        qsort(s, k, sizeof *s, cmp_double);
        out->min = s[0];
        out->max = s[k - 1];
        out->median = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
        double sum = 0;
        for (size_t i = 0; i < k; i++)
            sum += s[i];
        out->mean = sum / (double)k;
        if (k >= 2) {
            double ss = 0;
            for (size_t i = 0; i < k; i++)
                ss += (s[i] - out->mean) * (s[i] - out->mean);
            out->stddev = sqrt(ss / (double)(k - 1));
            out->cv = out->mean != 0 ? out->stddev / fabs(out->mean) : NAN;
            /* Few repeats give no usable standard deviation: judge them by
             * their range around the median instead. */
            if (k > 5)
                out->unstable = !isnan(out->cv) && out->cv > STATS_UNSTABLE_CV;
            else
                out->unstable = out->median != 0 && (out->max - out->min) / fabs(out->median) > STATS_UNSTABLE_RANGE;
        }
    }
    free(s);
}

/* P(S >= s) for Mann–Kendall's S over n untied values: S = M - 2I with I
 * the inversions of a random permutation (M = n(n-1)/2 pairs), whose
 * distribution is built one element at a time (element k adds 0..k-1
 * inversions, each equally likely). */
static double trend_exact_upper(size_t n, long s)
{
    long m = (long)(n * (n - 1) / 2);
    double *p = util_xcalloc((size_t)m + 1, sizeof *p), *q = util_xcalloc((size_t)m + 1, sizeof *q);
    p[0] = 1;
    long top = 0;
    for (size_t k = 2; k <= n; k++) {
        long add = (long)k - 1;
        double run = 0;
        for (long i = 0; i <= top + add; i++) {
            run += i <= top ? p[i] : 0;
            if (i - add - 1 >= 0)
                run -= p[i - add - 1];
            q[i] = run / (double)k;
        }
        top += add;
        double *t = p;
        p = q;
        q = t;
    }
    /* S >= s  <=>  I <= (M - s) / 2 */
    double sum = 0;
    for (long i = 0; i <= m && m - 2 * i >= s; i++)
        sum += p[i];
    free(p);
    free(q);
    return sum;
}

static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void stats_trend_test(const double *y, size_t n, struct stats_trend *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->p = 1;
    if (n < 2)
        return;
    size_t npairs = n * (n - 1) / 2, k = 0;
    double *slopes = util_xcalloc(npairs, sizeof *slopes);
    long s = 0;
    int ties = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            s += (y[j] > y[i]) - (y[j] < y[i]);
            ties |= y[j] == y[i];
            slopes[k++] = (y[j] - y[i]) / (double)(j - i);
        }
    out->s = s;
    out->slope = median_of(slopes, npairs);
    free(slopes);
    double *res = util_xcalloc(n, sizeof *res);
    for (size_t i = 0; i < n; i++)
        res[i] = y[i] - out->slope * (double)i;
    out->intercept = median_of(res, n);
    if (!ties && n <= 60) {
        out->p = s == 0 ? 1 : 2 * trend_exact_upper(n, labs(s));
    } else {
        /* Normal approximation: the variance less each tie group's share,
         * with a continuity correction. */
        double var = (double)n * (double)(n - 1) * (2.0 * (double)n + 5);
        memcpy(res, y, n * sizeof *res);
        qsort(res, n, sizeof *res, cmp_double);
        for (size_t i = 0, j; i < n; i = j) {
            for (j = i + 1; j < n && res[j] == res[i]; j++)
                ;
            double t = (double)(j - i);
            var -= t * (t - 1) * (2 * t + 5);
        }
        var /= 18;
        double z = var > 0 && s ? (double)(s > 0 ? s - 1 : s + 1) / sqrt(var) : 0;
        out->p = erfc(fabs(z) / sqrt(2.0));
    }
    if (out->p > 1)
        out->p = 1;
    free(res);
}

/* P(X = k) and the sum of the terms from k away from the mode (dir -1:
 * down to 0, +1: up), each from the last by the ratio k/lambda or its
 * inverse, until they no longer count. */
static double poisson_sum_from(double k, double lambda, int dir)
{
    double term = exp(k * log(lambda) - lambda - lgamma(k + 1)), sum = 0;
    for (double i = k; term > 0 && i >= 0; i += dir) {
        sum += term;
        if (term < sum * 1e-17)
            break;
        term *= dir < 0 ? i / lambda : lambda / (i + 1);
    }
    return sum;
}

double stats_poisson_below(double k, double lambda)
{
    k = floor(k);
    if (k < 0)
        return 0;
    /* Below the mode the terms fall going down; above it, the upper tail
     * converges instead. */
    if (k < lambda)
        return fmin(1, poisson_sum_from(k, lambda, -1));
    return fmax(0, 1 - poisson_sum_from(k + 1, lambda, +1));
}

double stats_poisson_above(double k, double lambda)
{
    k = ceil(k);
    if (k <= 0)
        return 1;
    if (k > lambda)
        return fmin(1, poisson_sum_from(k, lambda, +1));
    return 1 - stats_poisson_below(k - 1, lambda);
}
