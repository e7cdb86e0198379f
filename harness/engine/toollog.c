/* toollog: the tool's interval log (see toollog.h). */
#include "engine/toollog.h"
#include "common/fsutil.h"
#include "common/hdrlog.h"
#include "common/hist.h"
#include "common/util.h"
#include "engine/serverlog.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tl_sample {
    int64_t t;     /* start (or its interval's), ns since the epoch */
    uint64_t v;    /* latency in the tool's unit */
    uint64_t n;    /* responses */
};

struct tl_samples {
    struct tl_sample *v;
    size_t n, cap;
};

static void tl_collect(void *arg, int64_t t_unix_ns, uint64_t latency, uint64_t count)
{
    struct tl_samples *s = arg;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4096;
        s->v = util_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = (struct tl_sample){t_unix_ns, latency, count};
}

static int tl_cmp(const void *a, const void *b)
{
    int64_t x = ((const struct tl_sample *)a)->t, y = ((const struct tl_sample *)b)->t;
    return x < y ? -1 : x > y;
}

/* The window t (>= t0) is in: -1 none, 0 before the hold, 1 in it, 2 after. */
static int tl_phase(const struct toollog_frame *fr, int64_t t)
{
    if (!fr->hold_from_unix_ns && !fr->hold_to_unix_ns)
        return -1;
    return t < fr->hold_from_unix_ns ? 0 : t < fr->hold_to_unix_ns ? 1 : 2;
}

/* The interval t (>= t0) falls in: [*s, *e), a sampling interval cut at the
 * hold window's edges; or the tool's own interval from t, period long. */
static void tl_interval(const struct toollog_frame *fr, uint64_t period, int64_t t, int64_t *s, int64_t *e)
{
    if (period) {
        *s = t;
        *e = t + (int64_t)period;
        return;
    }
    int64_t iv = fr->interval_ns ? (int64_t)fr->interval_ns : 1000000000;
    *s = fr->t0_unix_ns + (t - fr->t0_unix_ns) / iv * iv;
    *e = *s + iv;
    int64_t edges[] = {fr->hold_from_unix_ns, fr->hold_to_unix_ns};
    for (int k = 0; k < 2 && tl_phase(fr, t) >= 0; k++) {
        if (edges[k] > *s && edges[k] <= t)
            *s = edges[k];
        if (edges[k] > t && edges[k] < *e)
            *e = edges[k];
    }
}

static int tl_header(FILE *f, const struct adapter *a, double unit_ns, const struct toollog_frame *fr)
{
    char c0[400], c1[240];
    snprintf(c0, sizeof c0, "[loadbench: %s's own latency per response (%s), values in %s, Interval_Max in ms]",
             a->name, a->latency_measures ? a->latency_measures : "as the tool times it",
             unit_ns == 1 ? "ns" : unit_ns == 1e6 ? "ms (the tool's whole ms)" : "the tool's unit");
    if (a->samples_period_ns)
        snprintf(c1, sizeof c1, "[the tool's own intervals of %g s, a response in the one it completed in; each "
                                "in the window its middle is in; tags as the server's log]",
                 (double)a->samples_period_ns / 1e9);
    else
        snprintf(c1, sizeof c1, "[a response is in the interval it started in: sampling intervals from the tool's "
                                "spawn, cut at the hold window's edges; tags as the server's log]");
    const char *const comments[] = {c0, c1, NULL};
    return hdrlog_header(f, (double)fr->t0_unix_ns / 1e9, comments);
}

/* The sorted samples, interval by interval, into f. Returns the intervals
 * written, or -1 with err. */
static int tl_write(FILE *f, const struct tl_samples *sv, double unit_ns, uint64_t period,
                    const struct toollog_frame *fr, char *err)
{
    struct hist *h = hist_new((uint64_t)(3600e9 / unit_ns), 3);
    int n = 0;
    for (size_t i = 0; i < sv->n && n >= 0;) {
        int64_t t = sv->v[i].t < fr->t0_unix_ns ? fr->t0_unix_ns : sv->v[i].t, s, e;
        tl_interval(fr, period, t, &s, &e);
        hist_reset(h);
        for (; i < sv->n && sv->v[i].t < (period ? t + 1 : e); i++)
            hist_record_n(h, sv->v[i].v, sv->v[i].n);
        char tag[128];
        /* A tool's own interval is in the window its middle is in. */
        serverlog_tag(tag, sizeof tag, fr->label, tl_phase(fr, period ? s + (e - s) / 2 : s));
        if (hdrlog_interval(f, tag, (double)(s - fr->t0_unix_ns) / 1e9, (double)(e - s) / 1e9, h, 1e6 / unit_ns,
                            err))
            n = -1;
        else
            n++;
    }
    hist_free(h);
    return n;
}

int toollog_write(const char *path, const struct adapter *a, const char *const *dirs, size_t n,
                  const struct toollog_frame *fr, char *err)
{
    struct tl_samples sv = {0};
    for (size_t k = 0; k < n; k++)
        if (a->samples(dirs[k], tl_collect, &sv, err)) {
            free(sv.v);
            return -1;
        }
    if (!sv.n) {
        free(sv.v);
        return 0;
    }
    qsort(sv.v, sv.n, sizeof *sv.v, tl_cmp);
    double unit_ns = a->samples_unit_ns ? (double)a->samples_unit_ns : fmax(1, round(a->latency_resolution_ms * 1e6));
    /* Made in memory, then written whole (common/fsutil.c). */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = f ? 0 : util_err(err, "cannot hold \"%s\" in memory: %s", path, strerror(errno));
    if (!rc && tl_header(f, a, unit_ns, fr))
        rc = util_err(err, "cannot write \"%s\"", path);
    if (!rc)
        rc = tl_write(f, &sv, unit_ns, a->samples_period_ns, fr, err);
    if (f && fclose(f) && rc >= 0)
        rc = util_err(err, "cannot write \"%s\"", path);
    if (rc > 0 && fsutil_write_text(path, buf, err))
        rc = -1;
    free(buf);
    free(sv.v);
    return rc;
}
