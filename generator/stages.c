#include "generator/stages.h"
#include "common/units.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cumulative arrivals at each stage start, for the inverse schedule. */
static void stages_index(struct stages *st)
{
    free(st->cum);
    st->cum = util_xcalloc(st->n + 1, sizeof *st->cum);
    double prev = st->start, acc = 0;
    for (size_t i = 0; i < st->n; i++) {
        st->cum[i] = acc;
        acc += (prev + st->v[i].target) / 2.0 * (double)st->v[i].duration_ns / 1e9;
        prev = st->v[i].target;
    }
    st->cum[st->n] = acc;
}

int stages_parse(struct stages *st, const char *s, int integer, const char *what, char *err)
{
    memset(st, 0, sizeof *st);
    char *copy = util_xstrdup(s), *save = NULL;
    size_t cap = 0;
    int rc = -1;
    char perr[UTIL_ERR_LEN];
    for (char *part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(part, ':');
        if (!colon) {
            util_err(err, "%s: stage \"%s\" is not DURATION:TARGET (e.g. 30s:200)", what, part);
            goto out;
        }
        *colon = 0;
        uint64_t d;
        if (units_parse_duration_ns(part, &d, perr) < 0) {
            util_err(err, "%s: %s", what, perr);
            goto out;
        }
        char *end;
        errno = 0;
        double target = strtod(colon + 1, &end);
        if (!colon[1] || *end || errno || !isfinite(target) || target < 0 ||
            (integer && target != floor(target))) {
            util_err(err, "%s: target \"%s\" is not a non-negative %s", what, colon + 1,
                     integer ? "integer" : "number");
            goto out;
        }
        if (st->n == cap) {
            cap = cap ? cap * 2 : 4;
            st->v = util_xrealloc(st->v, cap * sizeof *st->v);
        }
        st->v[st->n++] = (struct stage){.duration_ns = d, .target = target};
    }
    if (st->n == 0) {
        util_err(err, "%s: no stages in \"%s\"", what, s);
        goto out;
    }
    if (stages_total_ns(st) == 0) {
        util_err(err, "%s: the stages last 0s", what);
        goto out;
    }
    stages_index(st);
    rc = 0;
out:
    free(copy);
    if (rc < 0)
        stages_free(st);
    return rc;
}

void stages_constant(struct stages *st, double level, uint64_t duration_ns)
{
    memset(st, 0, sizeof *st);
    st->start = level;
    st->n = 1;
    st->v = util_xmalloc(sizeof *st->v);
    st->v[0] = (struct stage){.duration_ns = duration_ns, .target = level};
    stages_index(st);
}

void stages_free(struct stages *st)
{
    free(st->v);
    free(st->cum);
    memset(st, 0, sizeof *st);
}

uint64_t stages_total_ns(const struct stages *st)
{
    uint64_t t = 0;
    for (size_t i = 0; i < st->n; i++)
        t += st->v[i].duration_ns;
    return t;
}

double stages_max(const struct stages *st)
{
    double m = st->start;
    for (size_t i = 0; i < st->n; i++)
        if (st->v[i].target > m)
            m = st->v[i].target;
    return m;
}

double stages_level(const struct stages *st, uint64_t t_ns)
{
    double prev = st->start;
    for (size_t i = 0; i < st->n; i++) {
        uint64_t d = st->v[i].duration_ns;
        if (t_ns < d)
            return prev + (st->v[i].target - prev) * (double)t_ns / (double)d;
        t_ns -= d;
        prev = st->v[i].target;
    }
    return prev;
}

uint64_t stages_count(const struct stages *st, uint64_t t_ns)
{
    double prev = st->start;
    for (size_t i = 0; i < st->n; i++) {
        uint64_t d = st->v[i].duration_ns;
        if (t_ns < d) {
            double level = prev + (st->v[i].target - prev) * (double)t_ns / (double)d;
            return (uint64_t)(st->v[i].target < prev ? ceil(level - 1e-9) : floor(level + 1e-9));
        }
        t_ns -= d;
        prev = st->v[i].target;
    }
    return (uint64_t)llround(prev);
}

double stages_arrivals(const struct stages *st, uint64_t t_ns)
{
    double prev = st->start;
    for (size_t i = 0; i < st->n; i++) {
        uint64_t d = st->v[i].duration_ns;
        if (t_ns < d) {
            double u = (double)t_ns / 1e9, D = (double)d / 1e9;
            return st->cum[i] + prev * u + (st->v[i].target - prev) * u * u / (2 * D);
        }
        t_ns -= d;
        prev = st->v[i].target;
    }
    return st->cum[st->n];
}

int stages_arrival_time(const struct stages *st, uint64_t k, uint64_t *t_ns)
{
    return stages_position_time(st, (double)k, t_ns);
}

int stages_position_time(const struct stages *st, double want, uint64_t *t_ns)
{
    double prev = st->start;
    uint64_t base = 0;
    for (size_t i = 0; i < st->n; i++) {
        uint64_t d = st->v[i].duration_ns;
        if (want < st->cum[i + 1]) {
            /* Solve r0*u + (r1-r0)/(2D)*u^2 = c for u in this stage, in the
             * form that stays stable when r1 == r0 or r0 == 0. */
            double c = want - st->cum[i], D = (double)d / 1e9;
            double a = (st->v[i].target - prev) / (2 * D), b = prev;
            double disc = b * b + 4 * a * c;
            double u = c == 0 ? 0 : 2 * c / (b + sqrt(disc > 0 ? disc : 0));
            uint64_t off = (uint64_t)llround(u * 1e9);
            if (off >= d)
                off = d - 1;
            *t_ns = base + off;
            return 0;
        }
        base += d;
        prev = st->v[i].target;
    }
    return -1;
}

uint64_t stages_arrival_count(const struct stages *st)
{
    double n = st->cum[st->n];
    /* Guard against 4999.9999999 meaning 5000. */
    double r = nearbyint(n);
    if (fabs(n - r) < 1e-6)
        return (uint64_t)r;
    return (uint64_t)ceil(n);
}
