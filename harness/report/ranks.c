#include "report/ranks.h"
#include "common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Exact distributions are built over doubled ranks, so midranks (x.5) stay
 * integers; above these sizes the normal approximation is as good. */
#define EXACT_SIGNED_MAX 300
#define EXACT_SUM_MAX 100

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct ranked {
    double v;
    size_t at;
};

static int cmp_ranked(const void *a, const void *b)
{
    return cmp_double(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

/* Doubled midranks of v[0..n) into r2 (1-based ranks: ties share the mean
 * of theirs). */
static void midranks2(const double *v, size_t n, long *r2)
{
    struct ranked *s = util_xcalloc(n ? n : 1, sizeof *s);
    for (size_t i = 0; i < n; i++)
        s[i] = (struct ranked){v[i], i};
    qsort(s, n, sizeof *s, cmp_ranked);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && s[j].v == s[i].v; j++)
            ;
        long sum2 = (long)(i + 1 + j); /* 2 x the mean of ranks i+1..j */
        for (size_t k = i; k < j; k++)
            r2[s[k].at] = sum2;
    }
    free(s);
}

/* P(sum of a random signed subset of r2 = s), s = 0..*total. */
static double *sign_sums(const long *r2, size_t n, long *total)
{
    long S = 0;
    for (size_t i = 0; i < n; i++)
        S += r2[i];
    double *p = util_xcalloc((size_t)S + 1, sizeof *p);
    p[0] = 1;
    long top = 0;
    for (size_t i = 0; i < n; i++) {
        for (long s = top; s >= 0; s--) {
            p[s + r2[i]] += p[s] / 2;
            p[s] /= 2;
        }
        top += r2[i];
    }
    *total = S;
    return p;
}

/* P(the m of r2[0..n) drawn at random sum to s), s = 0..*total. */
static double *subset_sums(const long *r2, size_t n, size_t m, long *total)
{
    long S = 0;
    for (size_t i = 0; i < n; i++)
        S += r2[i];
    size_t w = (size_t)S + 1;
    double *c = util_xcalloc((m + 1) * w, sizeof *c); /* c[k*w + s]: subsets of size k summing to s */
    c[0] = 1;
    for (size_t i = 0; i < n; i++)
        for (size_t k = (i + 1 < m ? i + 1 : m); k >= 1; k--)
            for (long s = S - r2[i]; s >= 0; s--)
                c[k * w + (size_t)(s + r2[i])] += c[(k - 1) * w + (size_t)s];
    double *p = util_xcalloc(w, sizeof *p), all = 0;
    for (size_t s = 0; s < w; s++)
        all += c[m * w + s];
    for (size_t s = 0; s < w; s++)
        p[s] = c[m * w + s] / all;
    free(c);
    *total = S;
    return p;
}

/* P(|X - mid| >= |x - mid|) for X with distribution p[0..top]; mid2 and x2
 * doubled as the sums are. */
static double two_sided(const double *p, long top, double mid, long x)
{
    double d = fabs((double)x - mid) - 1e-9, sum = 0;
    for (long s = 0; s <= top; s++)
        if (fabs((double)s - mid) >= d)
            sum += p[s];
    return sum > 1 ? 1 : sum;
}

double ranks_signed_rank_p(const double *d, size_t n)
{
    double *a = util_xcalloc(n ? n : 1, sizeof *a);
    int *pos = util_xcalloc(n ? n : 1, sizeof *pos);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0 && !isnan(d[i])) {
            pos[k] = d[i] > 0;
            a[k++] = fabs(d[i]);
        }
    long *r2 = util_xcalloc(k ? k : 1, sizeof *r2), t = 0;
    midranks2(a, k, r2);
    for (size_t i = 0; i < k; i++)
        t += pos[i] ? r2[i] : 0;
    double p = 1;
    if (k && k <= EXACT_SIGNED_MAX) {
        long S;
        double *dist = sign_sums(r2, k, &S);
        p = two_sided(dist, S, (double)S / 2, t);
        free(dist);
    } else if (k) {
        double S = 0, var = 0;
        for (size_t i = 0; i < k; i++)
            S += (double)r2[i], var += (double)r2[i] * (double)r2[i] / 4;
        p = erfc(fabs((double)t - S / 2) / sqrt(var) / sqrt(2.0));
    }
    free(a);
    free(pos);
    free(r2);
    return p;
}

double ranks_rank_sum_p(const double *x, size_t m, const double *y, size_t n)
{
    if (!m || !n)
        return 1;
    size_t N = m + n;
    double *all = util_xcalloc(N, sizeof *all);
    memcpy(all, x, m * sizeof *x);
    memcpy(all + m, y, n * sizeof *y);
    long *r2 = util_xcalloc(N, sizeof *r2), w = 0;
    midranks2(all, N, r2);
    for (size_t i = 0; i < m; i++)
        w += r2[i];
    double mid = (double)m * (double)(N + 1), p;
    if (N <= EXACT_SUM_MAX) {
        long S;
        double *dist = subset_sums(r2, N, m, &S);
        p = two_sided(dist, S, mid, w);
        free(dist);
    } else {
        double mean = (double)(N + 1), ss = 0;
        for (size_t i = 0; i < N; i++)
            ss += ((double)r2[i] - mean) * ((double)r2[i] - mean);
        double var = (double)m * (double)n / ((double)N * (double)(N - 1)) * ss;
        p = var > 0 ? erfc(fabs((double)w - mid) / sqrt(var) / sqrt(2.0)) : 1;
    }
    free(all);
    free(r2);
    return p > 1 ? 1 : p;
}

/* The largest c with P(T <= c - 1) <= alpha/2 for T with distribution
 * p[0..top] shifted by lo (T = lo + index), as a count of order statistics
 * to step in from each end; 0 when even the extreme is too likely. */
static size_t ci_steps(const double *p, long top, long lo, double alpha)
{
    double cum = 0;
    size_t c = 0;
    for (long s = 0; s <= top; s++) {
        cum += p[s];
        if (cum > alpha / 2)
            break;
        if (s >= lo)
            c = (size_t)(s - lo) + 1;
    }
    return c;
}

/* est, lo, hi from the sorted candidate values v[0..nv) (Walsh averages or
 * differences), stepping c in from each end. */
static void hl_from(double *v, size_t nv, size_t c, struct ranks_shift *out)
{
    qsort(v, nv, sizeof *v, cmp_double);
    out->est = nv % 2 ? v[nv / 2] : (v[nv / 2 - 1] + v[nv / 2]) / 2;
    out->lo = out->hi = NAN;
    if (c >= 1 && c <= nv) {
        out->lo = v[c - 1];
        out->hi = v[nv - c];
    }
}

static int usable(double v)
{
    return v > 0 && isfinite(v);
}

void ranks_shift_paired(const double *a, const double *b, size_t n, struct ranks_shift *out)
{
    memset(out, 0, sizeof *out);
    out->paired = 1;
    out->p = out->min_p = out->est = out->lo = out->hi = NAN;
    double *d = util_xcalloc(n ? n : 1, sizeof *d);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (usable(a[i]) && usable(b[i]))
            d[k++] = log(b[i] / a[i]);
    out->na = out->nb = k;
    if (k) {
        out->p = ranks_signed_rank_p(d, k);
        out->min_p = fmin(1, 2 * pow(0.5, (double)k));
        size_t nw = k * (k + 1) / 2, w = 0;
        double *walsh = util_xcalloc(nw, sizeof *walsh);
        for (size_t i = 0; i < k; i++)
            for (size_t j = i; j < k; j++)
                walsh[w++] = (d[i] + d[j]) / 2;
        long *r2 = util_xcalloc(k, sizeof *r2), S;
        for (size_t i = 0; i < k; i++)
            r2[i] = (long)(i + 1); /* the untied distribution of T, in plain ranks */
        double *dist = sign_sums(r2, k, &S);
        hl_from(walsh, nw, ci_steps(dist, S, 0, RANKS_ALPHA), out);
        free(dist);
        free(r2);
        free(walsh);
    }
    free(d);
}

void ranks_shift_unpaired(const double *a, size_t na, const double *b, size_t nb, struct ranks_shift *out)
{
    memset(out, 0, sizeof *out);
    out->p = out->min_p = out->est = out->lo = out->hi = NAN;
    double *x = util_xcalloc(na + 1, sizeof *x), *y = util_xcalloc(nb + 1, sizeof *y);
    size_t m = 0, n = 0;
    for (size_t i = 0; i < na; i++)
        if (usable(a[i]))
            x[m++] = log(a[i]);
    for (size_t i = 0; i < nb; i++)
        if (usable(b[i]))
            y[n++] = log(b[i]);
    out->na = m;
    out->nb = n;
    if (m && n) {
        out->p = ranks_rank_sum_p(x, m, y, n);
        double comb = 1; /* C(m+n, m) */
        for (size_t i = 1; i <= m; i++)
            comb = comb * (double)(n + i) / (double)i;
        out->min_p = fmin(1, 2 / comb);
        double *diff = util_xcalloc(m * n, sizeof *diff);
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
                diff[i * n + j] = y[j] - x[i];
        size_t c = 0;
        if (m + n <= EXACT_SUM_MAX) {
            long *r2 = util_xcalloc(m + n, sizeof *r2), S;
            for (size_t i = 0; i < m + n; i++)
                r2[i] = (long)(i + 1);
            double *dist = subset_sums(r2, m + n, m, &S); /* rank sum W of x; U = W - m(m+1)/2 */
            c = ci_steps(dist, S, (long)(m * (m + 1) / 2), RANKS_ALPHA);
            free(dist);
            free(r2);
        }
        hl_from(diff, m * n, c, out);
        free(diff);
    }
    free(x);
    free(y);
}

void ranks_holm(const double *p, size_t n, double alpha, int *sig)
{
    size_t k = 0;
    struct ranked *s = util_xcalloc(n ? n : 1, sizeof *s);
    for (size_t i = 0; i < n; i++) {
        sig[i] = 0;
        if (!isnan(p[i]))
            s[k++] = (struct ranked){p[i], i};
    }
    qsort(s, k, sizeof *s, cmp_ranked);
    for (size_t i = 0; i < k && s[i].v < alpha / (double)(k - i); i++)
        sig[s[i].at] = 1;
    free(s);
}
