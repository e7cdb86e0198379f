/* ranks: rank tests for the compare gate, after benchstat. A shift of B
 * against A is judged on log(B/A): Wilcoxon's signed-rank test for paired
 * values (interleaved A/B repeats), Mann–Whitney's rank-sum test for
 * unpaired ones (two nights), each with its exact permutation p (midranks
 * for ties) and a Hodges–Lehmann estimate with its 95 % interval. At the
 * sizes a benchmark has (n <= 10) the exact tests hold their level where a
 * bootstrap does not; they also say plainly when n is too small for any
 * result to be significant (2 vs 2: the smallest p is 0.33). */
#ifndef LB_RANKS_H
#define LB_RANKS_H

#include <stddef.h>

#define RANKS_ALPHA 0.05

struct ranks_shift {
    int paired;
    size_t na, nb;      /* values used (positive and finite); paired: pairs, na == nb */
    double p;           /* two-sided exact p; 1 when nothing differs, NAN when a side is empty */
    double min_p;       /* the smallest p these sizes allow (no ties): 2/2^n, 2/C(na+nb, na) */
    double est;         /* Hodges–Lehmann estimate of log(B/A); NAN when a side is empty */
    double lo, hi;      /* its 95 % interval (exact ranks); NAN when n is too small for one */
};

/* Two-sided exact p of Wilcoxon's signed-rank test on d[0..n): zeros
 * dropped, ties given midranks, the permutation distribution of the sum of
 * positive ranks (the normal approximation above 300 values). 1 when no
 * value is left. */
double ranks_signed_rank_p(const double *d, size_t n);

/* Two-sided exact p of the Mann–Whitney (Wilcoxon rank-sum) test of x[0..m)
 * against y[0..n), midranks for ties (the normal approximation above 200
 * values in all). 1 when a side is empty. */
double ranks_rank_sum_p(const double *x, size_t m, const double *y, size_t n);

/* The paired shift of b[i] against a[i], i < n, on log(b/a): pairs with a
 * value that is not positive and finite are left out. */
void ranks_shift_paired(const double *a, const double *b, size_t n, struct ranks_shift *out);

/* The unpaired shift of b[0..nb) against a[0..na), on the logs. */
void ranks_shift_unpaired(const double *a, size_t na, const double *b, size_t nb, struct ranks_shift *out);

/* Holm's step-down correction at level alpha: sig[i] = 1 when p[i] is
 * significant with the n tests taken as one family, else 0. NAN p values
 * are never significant and do not count in the family. */
void ranks_holm(const double *p, size_t n, double alpha, int *sig);

#endif
