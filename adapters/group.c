#include "adapters/group.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 when process 0 of spread s leads the others and sends no load (a
 * master, a controller): the group has one process more than instances. */
static int spread_led(enum adapter_spread s)
{
    return s == ADAPTER_SPREAD_MASTER || s == ADAPTER_SPREAD_ENGINES;
}

/* The role of process k of n under spread s. */
static const char *proc_role(enum adapter_spread s, size_t k, size_t n)
{
    if (n == 1)
        return "tool";
    if (s == ADAPTER_SPREAD_MASTER)
        return k == 0 ? "master" : "worker";
    if (s == ADAPTER_SPREAD_ENGINES)
        return k == 0 ? "controller" : "engine";
    return s == ADAPTER_SPREAD_SEGMENTS ? "segment" : "copy";
}

size_t adapter_group_size(const struct adapter *a, const struct profile_tool *t)
{
    unsigned n = t && t->instances ? t->instances : 1;
    if (a->spread == ADAPTER_SPREAD_INTERNAL)
        return 1;
    return n + (spread_led(a->spread) && n > 1 ? 1 : 0);
}

const char *adapter_group_place(const struct adapter *a, const struct profile_tool *t, size_t k, unsigned *host)
{
    size_t n = adapter_group_size(a, t);
    /* Led: process 0 leads, process k >= 1 is instance k - 1. */
    size_t instance = spread_led(a->spread) && n > 1 && k > 0 ? k - 1 : k;
    *host = t && t->nhosts ? (unsigned)(instance % t->nhosts) : 0;
    return proc_role(a->spread, k, n);
}

/* Process k's context: its own folder (the run's folder when alone), its
 * share of the load for copies, its place among the instances. */
static int proc_setup(const struct adapter *a, const struct adapter_ctx *base, struct adapter_group *g, size_t k,
                      char *err)
{
    struct adapter_proc *pr = &g->procs[k];
    adapter_plan_init(&pr->plan);
    adapter_result_init(&pr->ar);
    pr->role = adapter_group_place(a, base->tool, k, &pr->host_index);
    pr->host = base->tool && base->tool->nhosts ? base->tool->hosts[pr->host_index] : NULL;
    pr->has_result = !spread_led(a->spread) || k == 0;
    if (g->n == 1)
        snprintf(pr->dir, sizeof pr->dir, "%s", base->dir);
    else if (snprintf(pr->dir, sizeof pr->dir, "%s/p%zu", base->dir, k) >= (int)sizeof pr->dir)
        return util_err(err, "the tool run's folder name is too long for its instances: %s", base->dir);
    if (g->n > 1 && fsutil_mkdir_p(pr->dir, err))
        return -1;
    pr->ctx = *base;
    pr->ctx.dir = pr->dir;
    pr->ctx.instance = (unsigned)k;
    pr->ctx.instances = g->instances;
    if (a->spread == ADAPTER_SPREAD_COPIES && g->instances > 1) {
        pr->share = profile_load_share(base->load, (unsigned)k, g->instances);
        pr->ctx.load = pr->share;
    }
    return 0;
}

/* A copy whose share of a closed load is 0 connections in its first
 * stage past a ramp's start would send nothing: refuse. */
static int check_shares(const struct adapter_group *g, char *err)
{
    for (size_t k = 0; k < g->n; k++) {
        const struct profile_load *l = g->procs[k].share;
        if (!l || l->model != LOAD_CLOSED)
            continue;
        if (profile_load_peak(l) < 1)
            return util_err(err, "%u instances need at least %u connections (one each); the load asks for %g",
                            g->instances, g->instances, profile_load_peak(g->procs[0].ctx.load) * g->instances);
    }
    return 0;
}

/* What running several changes in what is measured, as the first
 * process's plan warnings (the plan shows them; run.json keeps them). */
static void group_notes(const struct adapter *a, struct adapter_group *g)
{
    struct strvec *w = &g->procs[0].plan.warnings;
    if (g->instances < 2)
        return;
    if (a->spread_note)
        strvec_push(w, a->spread_note);
    if (a->spread == ADAPTER_SPREAD_COPIES)
        strvec_pushf(w, "%u copies, each with its share of the load (connections or rate split, the remainder "
                        "one each to the first), their counts summed", g->instances);
    if (!a->merge_latency && !spread_led(a->spread) && a->spread != ADAPTER_SPREAD_INTERNAL)
        strvec_pushf(w, "the %u instances give percentiles only: the row's percentiles are bounds, not exact "
                        "(each the highest instance's)", g->instances);
}

int adapter_group_prepare(const struct adapter *a, const struct adapter_ctx *base, struct adapter_group *g, char *err)
{
    memset(g, 0, sizeof *g);
    g->instances = base->tool && base->tool->instances ? base->tool->instances : 1;
    g->n = adapter_group_size(a, base->tool);
    g->procs = util_xcalloc(g->n, sizeof *g->procs);
    struct adapter_ctx meet = *base;
    meet.group_host = "127.0.0.1";
    if (a->spread == ADAPTER_SPREAD_MASTER && g->n > 1) {
        /* Where the workers reach it, whichever host they are on (and
         * the controller checks that it listens). */
        if (base->tool && base->tool->host && base->profile)
            meet.group_host = profile_host_load_address(profile_host_by_name(base->profile, base->tool->host));
        if (adapter_free_ports(&meet.group_port, 1, err) || adapter_random_hex(g->nonce, 16, err))
            return -1;
        meet.group_nonce = g->nonce;
    } else if (a->spread == ADAPTER_SPREAD_ENGINES && g->n > 1) {
        g->ports = util_xcalloc(g->instances, sizeof *g->ports);
        if (adapter_free_ports(g->ports, g->instances, err))
            return -1;
        meet.engine_ports = g->ports;
    }
    for (size_t k = 0; k < g->n; k++)
        if (proc_setup(a, &meet, g, k, err))
            return -1;
    if (check_shares(g, err))
        return -1;
    for (size_t k = 0; k < g->n; k++) {
        char e[UTIL_ERR_LEN];
        if (a->prepare(&g->procs[k].ctx, &g->procs[k].plan, e))
            return g->n == 1 ? util_err(err, "%s", e) : util_err(err, "%s %zu: %s", g->procs[k].role, k, e);
    }
    group_notes(a, g);
    return 0;
}

static double lowest(double a, double b)
{
    return isnan(a) || b < a ? b : a;
}

static double highest(double a, double b)
{
    return isnan(a) || b > a ? b : a;
}

/* The parts' latencies: min the lowest, max the highest, mean weighted by
 * requests; each percentile the highest (into lat) and the lowest (into
 * low). */
static void merge_latency(const struct adapter_result *parts, size_t n, struct adapter_latency *lat,
                          struct adapter_latency *low)
{
    double wsum = 0, wn = 0;
    for (size_t i = 0; i < n; i++) {
        const struct adapter_latency *l = &parts[i].lat;
        lat->min = lowest(lat->min, l->min);
        lat->max = highest(lat->max, l->max);
        if (!isnan(l->mean) && parts[i].requests) {
            wsum += l->mean * (double)parts[i].requests;
            wn += (double)parts[i].requests;
        }
        const double *pv = &l->p50;
        double *hi = &lat->p50, *lo = &low->p50;
        for (int q = 0; q < 5; q++) {
            if (isnan(pv[q]))
                continue;
            hi[q] = highest(hi[q], pv[q]);
            lo[q] = lowest(lo[q], pv[q]);
        }
    }
    lat->mean = wn > 0 ? wsum / wn : NAN;
    low->min = lat->min;
    low->max = lat->max;
    low->mean = lat->mean;
}

static void merge_counts(const struct adapter_result *p, struct adapter_result *sum)
{
    sum->requests += p->requests;
    sum->ok += p->ok;
    sum->errors += p->errors;
    sum->err_connect += p->err_connect;
    sum->err_read += p->err_read;
    sum->err_write += p->err_write;
    sum->err_timeout += p->err_timeout;
    sum->err_status += p->err_status;
    sum->err_other += p->err_other;
    sum->scheduled += p->scheduled;
    sum->dropped += p->dropped;
    sum->late += p->late;
    sum->bytes_read += p->bytes_read;
    sum->check_failed += p->check_failed;
    if (!isnan(p->duration_s))
        sum->duration_s = highest(sum->duration_s, p->duration_s);
    if (!isnan(p->rps))
        sum->rps = isnan(sum->rps) ? p->rps : sum->rps + p->rps;
    /* the load of all: from the first one's start to the last one's end */
    if (p->load_start_unix_ms && (!sum->load_start_unix_ms || p->load_start_unix_ms < sum->load_start_unix_ms))
        sum->load_start_unix_ms = p->load_start_unix_ms;
    if (p->load_end_unix_ms > sum->load_end_unix_ms)
        sum->load_end_unix_ms = p->load_end_unix_ms;
    if (p->after_load)
        sum->after_load = p->after_load;
}

void adapter_group_merge(const struct adapter_result *parts, size_t n, struct adapter_result *sum)
{
    adapter_result_init(sum);
    json_t *each = json_array();
    for (size_t i = 0; i < n; i++) {
        merge_counts(&parts[i], sum);
        for (size_t w = 0; w < parts[i].warnings.n; w++)
            n == 1 ? strvec_push(&sum->warnings, parts[i].warnings.v[w])
                   : strvec_pushf(&sum->warnings, "instance %zu: %s", i, parts[i].warnings.v[w]);
        json_array_append(each, parts[i].extra ? parts[i].extra : json_null());
    }
    if (n == 1) {
        sum->lat = parts[0].lat;
        sum->lat_uncorrected = parts[0].lat_uncorrected;
        sum->extra = json_incref(parts[0].extra);
        json_decref(each);
    } else {
        merge_latency(parts, n, &sum->lat, &sum->lat_low);
        sum->lat_merged = -1;
        sum->extra = json_pack("{s:o}", "instances", each);
    }
    sum->parsed = 1;
}

const char **adapter_group_result_dirs(const struct adapter_group *g, size_t *n)
{
    const char **dirs = util_xcalloc(g->n ? g->n : 1, sizeof *dirs);
    *n = 0;
    for (size_t k = 0; k < g->n; k++)
        if (g->procs[k].has_result)
            dirs[(*n)++] = g->procs[k].dir;
    return dirs;
}

/* Where the adapter merges distributions itself, the percentiles are
 * exact; a merge that fails leaves the bounds, with a warning. */
static void merge_exact(const struct adapter *a, const struct adapter_group *g, struct adapter_result *sum)
{
    size_t nd;
    const char **dirs = adapter_group_result_dirs(g, &nd);
    struct adapter_latency lat;
    char e[UTIL_ERR_LEN];
    if (a->merge_latency((const char *const *)dirs, nd, &lat, e) == 0) {
        sum->lat = lat;
        sum->lat_merged = 1;
    } else {
        strvec_pushf(&sum->warnings, "the instances' latency distributions could not be merged (%s): "
                                     "each percentile is the highest instance's", e);
    }
    free(dirs);
}

int adapter_group_parse(const struct adapter *a, struct adapter_group *g, struct adapter_result *sum, char *err)
{
    struct adapter_result *parts = util_xcalloc(g->n, sizeof *parts);
    size_t np = 0;
    int rc = 0;
    for (size_t k = 0; k < g->n && !rc; k++) {
        struct adapter_proc *pr = &g->procs[k];
        if (!pr->has_result)
            continue;
        char e[UTIL_ERR_LEN];
        if (adapter_parse(a, &pr->ctx, &pr->ar, e)) {
            rc = g->n == 1 ? util_err(err, "%s", e) : util_err(err, "%s %zu: %s", pr->role, k, e);
            /* lb-gen keeps figures it could not vouch for: so do we, alone. */
            if (g->n == 1 && pr->ar.parsed)
                break;
            continue;
        }
        parts[np++] = pr->ar;
    }
    if (g->n == 1) {
        /* One process: its result as it is (also a failed parse's). */
        adapter_result_free(sum);
        *sum = g->procs[0].ar;
        adapter_result_init(&g->procs[0].ar);
    } else if (!rc) {
        adapter_result_free(sum);
        adapter_group_merge(parts, np, sum);
        for (size_t k = 0; k < np && !sum->fail_reason; k++)
            if (parts[k].fail_reason)
                sum->fail_reason = util_xstrdup(parts[k].fail_reason);
        if (np > 1 && a->merge_latency)
            merge_exact(a, g, sum);
        /* A controller's result holds every engine's samples, one by one. */
        if (a->spread == ADAPTER_SPREAD_ENGINES && g->n > 1 && np == 1)
            sum->lat_merged = 1;
        if (sum->lat_merged < 0)
            strvec_pushf(&sum->warnings, "the latency percentiles of %zu instances are bounds, not exact: each is the "
                                         "highest instance's (client.latency_merge)", np);
    }
    free(parts);
    return rc;
}

void adapter_group_free(struct adapter_group *g)
{
    for (size_t k = 0; k < g->n; k++) {
        adapter_plan_free(&g->procs[k].plan);
        adapter_result_free(&g->procs[k].ar);
        profile_load_free(g->procs[k].share);
    }
    free(g->procs);
    free(g->ports);
    memset(g, 0, sizeof *g);
}
