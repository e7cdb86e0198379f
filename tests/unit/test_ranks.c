/* ranks: exact p of the signed-rank and rank-sum tests against the
 * published tables and brute-force enumeration (every sign pattern, every
 * split, with midranks), Hodges–Lehmann estimates and their intervals at
 * the tables' critical values, the smallest p a size allows, Holm. */
#include "report/ranks.h"
#include "tests/tap.h"

#include <math.h>

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9 * (fabs(b) + 1);
}

static void test_signed_rank(void)
{
    double up8[] = {1, 2, 3, 4, 5, 6, 7, 8};
    double p = ranks_signed_rank_p(up8, 8);
    ok(near(p, 2.0 / 256), "8 pairs, all up: p = 2/2^8 = 0.0078 (got %g)", p);
    /* Negative ranks 1 and 4: T- = 5; the table for n = 10 gives
     * P(T <= 5) = 10/1024 = 0.0098 one-sided. */
    double n10[] = {1.5, -0.3, 2.2, 3.1, 0.8, -1.1, 2.7, 1.9, 0.4, 2.5};
    p = ranks_signed_rank_p(n10, 10);
    ok(near(p, 20.0 / 1024), "n = 10, T- = 5: p = 20/1024 = 0.0195 (got %g)", p);
    double ties[] = {1, 1, -1, 2, 2, 3, -3, 4};
    p = ranks_signed_rank_p(ties, 8);
    ok(near(p, 62.0 / 256), "ties get midranks: p = 62/256 over all 256 sign patterns (got %g)", p);
    double zeros[] = {0, 0, 1, 2, 3};
    p = ranks_signed_rank_p(zeros, 5);
    ok(near(p, 2.0 / 8), "zero differences are dropped: 3 left, all up, p = 2/8 (got %g)", p);
    ok(ranks_signed_rank_p(zeros, 2) == 1, "only zeros: p = 1");
}

static void test_rank_sum(void)
{
    double a3[] = {1, 2, 3}, b3[] = {4, 5, 6};
    double p = ranks_rank_sum_p(a3, 3, b3, 3);
    ok(near(p, 0.1), "3 vs 3 fully apart: p = 2/C(6,3) = 0.1, never significant (got %g)", p);
    double a5[] = {1, 2, 3, 4, 5}, b5[] = {6, 7, 8, 9, 10};
    p = ranks_rank_sum_p(b5, 5, a5, 5);
    ok(near(p, 2.0 / 252), "5 vs 5 fully apart: p = 2/252 = 0.0079 (got %g)", p);
    /* U = 1: the table for 4 vs 4 gives P(U <= 1) = 2/70 one-sided. */
    double a4[] = {1, 2, 3, 5}, b4[] = {4, 6, 7, 8};
    p = ranks_rank_sum_p(a4, 4, b4, 4);
    ok(near(p, 4.0 / 70), "4 vs 4, U = 1: p = 4/70 = 0.057 (got %g)", p);
    double ta[] = {1, 2, 2, 3, 5}, tb[] = {2, 4, 5, 6, 6, 7};
    p = ranks_rank_sum_p(ta, 5, tb, 6);
    ok(near(p, 31.0 / 462), "5 vs 6 with ties: p = 31/462 over all C(11,5) splits (got %g)", p);
    double a2[] = {1, 2}, b2[] = {3, 4};
    p = ranks_rank_sum_p(a2, 2, b2, 2);
    ok(near(p, 1.0 / 3), "2 vs 2 fully apart: p = 1/3 (got %g)", p);
}

static void test_shift(void)
{
    struct ranks_shift s;
    double one[8], e8[8], e3[3];
    for (int i = 0; i < 8; i++)
        one[i] = 1, e8[i] = exp(i + 1);
    for (int i = 0; i < 3; i++)
        e3[i] = exp(i + 1);
    ranks_shift_paired(one, e3, 3, &s);
    ok(near(s.est, 2) && isnan(s.lo) && isnan(s.hi), "3 pairs: Walsh median 2, no 95 %% interval (2^-3 > 0.025)");
    ok(near(s.min_p, 0.25), "3 pairs: the smallest p is 2/8 (got %g)", s.min_p);
    ranks_shift_paired(one, e8, 8, &s);
    /* n = 8: the table's critical T is 3, so the interval runs from the 4th
     * smallest to the 4th largest of the 36 Walsh averages. */
    ok(near(s.est, 4.5) && near(s.lo, 2) && near(s.hi, 7), "8 pairs: estimate 4.5, interval [2, 7] (got %g [%g, %g])",
       s.est, s.lo, s.hi);
    ok(s.na == 8 && near(s.p, 2.0 / 256), "8 pairs used, p 2/256");
    double a[5], b[5];
    for (int i = 0; i < 5; i++)
        a[i] = exp(i), b[i] = exp(10 + i);
    /* 5 vs 5: critical U is 2, so the 3rd smallest and largest of the 25
     * differences 10 + (j - i). */
    ranks_shift_unpaired(a, 5, b, 5, &s);
    ok(near(s.est, 10) && near(s.lo, 7) && near(s.hi, 13), "5 vs 5: estimate 10, interval [7, 13] (got %g [%g, %g])", s.est,
       s.lo, s.hi);
    ok(near(s.min_p, 2.0 / 252) && near(s.p, 2.0 / 252), "5 vs 5: the smallest p 2/252, reached");
    ranks_shift_unpaired(a, 2, b, 2, &s);
    ok(near(s.min_p, 1.0 / 3) && isnan(s.lo), "2 vs 2: the smallest p is 1/3 and there is no interval");
    double bad[] = {0, -1, NAN, 2};
    ranks_shift_unpaired(bad, 4, b, 3, &s);
    ok(s.na == 1 && s.nb == 3, "values that are not positive and finite are left out");
}

static void test_holm(void)
{
    double p[] = {0.01, 0.04, 0.03, NAN};
    int sig[4];
    ranks_holm(p, 4, 0.05, sig);
    ok(sig[0] == 1 && sig[1] == 0 && sig[2] == 0 && sig[3] == 0,
       "Holm over 3 tests: 0.01 < 0.05/3 passes, 0.03 is not below 0.05/2, nothing after it");
    double q[] = {0.01, 0.02, 0.04};
    ranks_holm(q, 3, 0.05, sig);
    ok(sig[0] && sig[1] && sig[2], "0.01 < 0.05/3, 0.02 < 0.05/2, 0.04 < 0.05: all three");
    double r[] = {0.03, 0.03};
    ranks_holm(r, 2, 0.05, sig);
    ok(!sig[0] && !sig[1], "two at 0.03: the smallest needs < 0.05/2, so neither (unadjusted both would pass)");
}

int main(void)
{
    test_signed_rank();
    test_rank_sum();
    test_shift();
    test_holm();
    return done_testing();
}
