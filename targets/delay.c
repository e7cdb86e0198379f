#include "targets/delay.h"
#include "common/util.h"

#include <math.h>
#include <string.h>

/* z of the standard normal at p = 0.99: the lognormal's sigma is
 * ln(p99 / p50) / Z99. */
#define Z99 2.3263478740408408

static const char *const dist_names[] = {
    [DELAY_FIXED] = "fixed",
    [DELAY_LOGNORMAL] = "lognormal",
    [DELAY_EXPONENTIAL] = "exponential",
    [DELAY_UNIFORM] = "uniform",
};

int delay_dist_parse(const char *name, enum delay_dist *out, char *err)
{
    for (int d = DELAY_FIXED; d <= DELAY_UNIFORM; d++) {
        if (!strcmp(name, dist_names[d])) {
            *out = (enum delay_dist)d;
            return 0;
        }
    }
    return util_err(err, "unknown delay distribution \"%s\" (fixed, lognormal, exponential, uniform)", name);
}

const char *delay_dist_name(enum delay_dist d)
{
    return d <= DELAY_UNIFORM ? dist_names[d] : "?";
}

int delay_spec_check(const struct delay_spec *s, char *err)
{
    switch (s->dist) {
    case DELAY_FIXED:
        break;
    case DELAY_LOGNORMAL:
        if (!s->p50_ns || s->p99_ns <= s->p50_ns)
            return util_err(err, "a lognormal delay needs p50 > 0 and p99 above p50 (e.g. p50 20ms, p99 100ms)");
        if (s->p99_ns / s->p50_ns > 1000)
            return util_err(err, "a lognormal delay's p99 may be at most 1000 times its p50");
        break;
    case DELAY_EXPONENTIAL:
        if (!s->mean_ns)
            return util_err(err, "an exponential delay needs a mean above 0 (e.g. 20ms)");
        break;
    case DELAY_UNIFORM:
        if (s->max_ns < s->min_ns || s->max_ns == 0)
            return util_err(err, "a uniform delay needs max above 0 and not below min (e.g. min 10ms, max 30ms)");
        break;
    }
    if (s->p99_ns > 60000000000ull || s->mean_ns > 60000000000ull || s->max_ns > 60000000000ull)
        return util_err(err, "a delay parameter above 60s is not a benchmark");
    if (!s->stall_every_ns != !s->stall_for_ns)
        return util_err(err, "stalls need both a period and a length (e.g. every 10s for 1s)");
    if (s->stall_every_ns && s->stall_for_ns >= s->stall_every_ns)
        return util_err(err, "a stall must be shorter than its period (every 10s for 1s)");
    return 0;
}

/* The standard normal's quantile: Acklam's rational approximation (relative
 * error 1.15e-9), refined by one Halley step on erfc to full precision. */
static double normal_quantile(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    double x, q, r;
    if (p < 0.02425) {
        q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p <= 1 - 0.02425) {
        q = p - 0.5;
        r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    } else {
        q = sqrt(-2 * log(1 - p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    double e = 0.5 * erfc(-x / sqrt(2)) - p;
    double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

/* The quantile of s's distribution at probability p, in ns. */
static double quantile_ns(const struct delay_spec *s, double p)
{
    switch (s->dist) {
    case DELAY_LOGNORMAL: {
        double sigma = log((double)s->p99_ns / (double)s->p50_ns) / Z99;
        return (double)s->p50_ns * exp(sigma * normal_quantile(p));
    }
    case DELAY_EXPONENTIAL:
        return -(double)s->mean_ns * log1p(-p);
    case DELAY_UNIFORM:
        return (double)s->min_ns + p * (double)(s->max_ns - s->min_ns);
    case DELAY_FIXED:
        break;
    }
    return (double)s->fixed_ns;
}

void delay_model_init(struct delay_model *m, const struct delay_spec *spec, uint64_t origin_ns)
{
    memset(m, 0, sizeof *m);
    m->spec = *spec;
    m->origin_ns = origin_ns;
    if (spec->dist == DELAY_FIXED)
        return;
    /* Point i is the quantile at i/N; the ends are pulled in by a quarter
     * step (the lognormal's and exponential's are 0 and infinity). A draw
     * interpolates linearly between two points: exact at every point,
     * and within a step of probability the curve is nearly straight. */
    m->table = util_xmalloc((DELAY_TABLE_N + 1) * sizeof *m->table);
    const double n = DELAY_TABLE_N, lo = 0.25 / n, hi = 1 - 0.25 / n;
    for (uint32_t i = 0; i <= DELAY_TABLE_N; i++) {
        double p = i / n;
        p = p < lo ? lo : p > hi ? hi : p;
        if (spec->dist == DELAY_UNIFORM)
            p = i / n;   /* exact at both ends: min and max */
        double v = quantile_ns(spec, p);
        m->table[i] = v < 1 ? 1 : (uint64_t)llround(v);
    }
}

void delay_model_free(struct delay_model *m)
{
    free(m->table);
    m->table = NULL;
}

uint64_t delay_rng_seed(const struct delay_model *m, int id)
{
    uint64_t s = m->spec.seed ^ ((uint64_t)id * 0xd1b54a32d192ed03ull);
    delay_rng_next(&s);   /* decorrelate neighbouring seeds */
    return s;
}

json_t *delay_json(const struct delay_model *m)
{
    const struct delay_spec *s = &m->spec;
    json_t *o = json_pack("{s:s}", "dist", delay_dist_name(s->dist));
    switch (s->dist) {
    case DELAY_FIXED:
        json_object_set_new(o, "delay_ns", json_integer((json_int_t)s->fixed_ns));
        break;
    case DELAY_LOGNORMAL:
        json_object_set_new(o, "p50_ns", json_integer((json_int_t)s->p50_ns));
        json_object_set_new(o, "p99_ns", json_integer((json_int_t)s->p99_ns));
        break;
    case DELAY_EXPONENTIAL:
        json_object_set_new(o, "mean_ns", json_integer((json_int_t)s->mean_ns));
        break;
    case DELAY_UNIFORM:
        json_object_set_new(o, "min_ns", json_integer((json_int_t)s->min_ns));
        json_object_set_new(o, "max_ns", json_integer((json_int_t)s->max_ns));
        break;
    }
    if (s->dist != DELAY_FIXED)
        json_object_set_new(o, "seed", json_integer((json_int_t)s->seed));
    if (s->stall_every_ns)
        json_object_set_new(o, "stall", json_pack("{s:I, s:I, s:I}", "every_ns", (json_int_t)s->stall_every_ns,
                                                  "for_ns", (json_int_t)s->stall_for_ns, "origin_ns",
                                                  (json_int_t)m->origin_ns));
    return o;
}

uint64_t delay_stalls_begun(const struct delay_model *m, uint64_t now_ns)
{
    uint64_t every = m->spec.stall_every_ns;
    return every && now_ns >= m->origin_ns ? (now_ns - m->origin_ns) / every : 0;
}

json_t *delay_stalls_json(const struct delay_model *m, uint64_t now_ns, size_t max)
{
    json_t *a = json_array();
    uint64_t last = delay_stalls_begun(m, now_ns);
    uint64_t first = last > max ? last - max + 1 : 1;
    for (uint64_t k = first; k <= last; k++) {
        uint64_t start = m->origin_ns + k * m->spec.stall_every_ns;
        json_array_append_new(a, json_pack("{s:I, s:I}", "start_ns", (json_int_t)start, "end_ns",
                                           (json_int_t)(start + m->spec.stall_for_ns)));
    }
    return a;
}
