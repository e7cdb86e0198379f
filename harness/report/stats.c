#include "report/stats.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct stats_metric stats_metrics[] = {
    {.key = "rps", .column = "RPS hold", .title = "Requests/s (server-counted, hold window)", .unit = "req/s", .higher_better = 1, .prec = 0},
    {.key = "p50", .column = "P50 ms", .title = "Latency p50 (tool-reported)", .unit = "ms", .higher_better = 0, .prec = 2},
    {.key = "p99", .column = "P99 ms", .title = "Latency p99 (tool-reported)", .unit = "ms", .higher_better = 0, .prec = 2},
    {.key = "cpu", .column = "CPU avg %", .title = "CPU average (100 % = one core)", .unit = "%", .higher_better = 0, .prec = 1},
    {.key = "rss", .column = "RSS peak MB", .title = "Peak RSS", .unit = "MB", .higher_better = 0, .prec = 1},
    {.key = "cpu100k", .column = "CPU-s/100k req", .title = "CPU seconds per 100k requests", .unit = "CPU-s", .higher_better = 0, .prec = 3},
    {0},
};

const struct stats_metric *stats_metric_by_key(const char *key)
{
    for (const struct stats_metric *m = stats_metrics; m->key; m++)
        if (!strcmp(m->key, key))
            return m;
    return NULL;
}

double stats_json_num(json_t *o, const char *a, const char *b, const char *c)
{
    json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    if (c)
        v = json_object_get(v, c);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

double stats_value(json_t *row, const struct stats_metric *m)
{
    if (!strcmp(m->key, "rps")) {
        /* The hold window is what every tool ran alike (tools without ramps
         * run only the hold phase); the whole run where there is none. */
        double hold = stats_json_num(row, "windows", "hold_rps", NULL);
        return !isnan(hold) ? hold : stats_json_num(row, "windows", "whole_rps", NULL);
    }
    if (!strcmp(m->key, "p50"))
        return stats_json_num(row, "client", "latency_ms", "p50");
    if (!strcmp(m->key, "p99"))
        return stats_json_num(row, "client", "latency_ms", "p99");
    if (!strcmp(m->key, "cpu"))
        return stats_json_num(row, "footprint", "cpu_avg_pct", NULL);
    if (!strcmp(m->key, "rss"))
        return stats_json_num(row, "footprint", "rss_peak_mb", NULL);
    if (!strcmp(m->key, "cpu100k")) {
        double cpu = stats_json_num(row, "footprint", "cpu_seconds", NULL),
               req = stats_json_num(row, "server", "requests", NULL);
        return req > 0 && !isnan(cpu) ? cpu / req * 1e5 : NAN;
    }
    return NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}


static int same_level(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

int stats_row_in(const struct stats_group *g, json_t *row)
{
    json_t *lv = json_object_get(row, "level");
    double rl = json_is_number(lv) ? json_number_value(lv) : NAN;
    return !strcmp(stats_json_str(row, "label", NULL) ?: "", g->label) && same_level(rl, g->level);
}

const char *stats_json_str(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    return json_string_value(v);
}

int stats_row_counts(json_t *row, int include_suspect)
{
    const char *st = stats_json_str(row, "status", NULL) ?: "";
    return !strcmp(st, "ok") || (include_suspect && !strcmp(st, "suspect"));
}

/* Where a row goes while grouping: its label's and level's indexes. */
struct stats_slot {
    size_t label, level, row;
};

static int cmp_slot(const void *a, const void *b)
{
    const struct stats_slot *x = a, *y = b;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    if (x->level != y->level)
        return x->level < y->level ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* Add label l to out->labels once; index maps each label to its place
 * (a hash, so a run of thousands of labels groups in linear time). */
static void add_label(struct stats_groups *out, json_t *index, const char *l)
{
    if (l && !json_object_get(index, l)) {
        json_object_set_new(index, l, json_integer((json_int_t)out->nlabels));
        out->labels[out->nlabels++] = l;
    }
}

/* The sorted distinct levels of the rows into out->levels. */
static void collect_levels(json_t *runs, struct stats_groups *out)
{
    json_t *r;
    size_t i;
    json_array_foreach(runs, i, r)
    {
        json_t *lv = json_object_get(r, "level");
        if (json_is_number(lv))
            out->levels[out->nlevels++] = json_number_value(lv);
    }
    qsort(out->levels, out->nlevels, sizeof *out->levels, cmp_double);
    size_t k = 0;
    for (size_t j = 0; j < out->nlevels; j++)
        if (!k || out->levels[k - 1] != out->levels[j])
            out->levels[k++] = out->levels[j];
    out->nlevels = k;
}

/* Row r's level index in out->levels (0 when no row has a level), or -1
 * when it has none in a sweep (such a row is in no group). */
static long level_index(const struct stats_groups *out, json_t *r)
{
    json_t *lv = json_object_get(r, "level");
    if (!out->nlevels)
        return json_is_number(lv) ? -1 : 0;
    if (!json_is_number(lv))
        return -1;
    double v = json_number_value(lv);
    size_t lo = 0, hi = out->nlevels;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (out->levels[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < out->nlevels && out->levels[lo] == v ? (long)lo : -1;
}

void stats_group_run(json_t *run, struct stats_groups *out)
{
    stats_group_run_with(run, json_is_true(json_object_get(run, STATS_INCLUDE_SUSPECT)), out);
}

void stats_group_run_with(json_t *run, int include_suspect, struct stats_groups *out)
{
    memset(out, 0, sizeof *out);
    json_t *runs = json_object_get(run, "runs"), *r, *t, *index = json_object();
    size_t i, nruns = json_array_size(runs);
    size_t cap = nruns + json_array_size(json_object_get(json_object_get(run, "profile"), "tools")) + 1;
    out->labels = util_xcalloc(cap, sizeof *out->labels);
    out->levels = util_xcalloc(cap, sizeof *out->levels);
    out->g = util_xcalloc(cap, sizeof *out->g);
    /* Labels in profile order first (colours stay put when a tool is
     * skipped), then any row label the profile does not list. */
    json_array_foreach(json_object_get(json_object_get(run, "profile"), "tools"), i, t)
        add_label(out, index, stats_json_str(t, "label", NULL));
    json_array_foreach(runs, i, r)
        add_label(out, index, stats_json_str(r, "label", NULL));
    collect_levels(runs, out);
    /* Each row's (label, level) slot, sorted: a group is a run of equal
     * slots, its rows in run order. */
    struct stats_slot *slots = util_xcalloc(nruns ? nruns : 1, sizeof *slots);
    size_t ns = 0;
    json_array_foreach(runs, i, r)
    {
        json_t *li = json_object_get(index, stats_json_str(r, "label", NULL) ?: "");
        long vi = level_index(out, r);
        if (li && vi >= 0)
            slots[ns++] = (struct stats_slot){.label = (size_t)json_integer_value(li), .level = (size_t)vi, .row = i};
    }
    out->index = index;
    out->first = util_xcalloc(out->nlabels + 1, sizeof *out->first);
    for (size_t k = 0; k < out->nlabels; k++)
        out->first[k] = cap;
    qsort(slots, ns, sizeof *slots, cmp_slot);
    for (size_t s = 0; s < ns;) {
        size_t e = s;
        while (e < ns && slots[e].label == slots[s].label && slots[e].level == slots[s].level)
            e++;
        struct stats_group g = {.label = out->labels[slots[s].label],
                                .level = out->nlevels ? out->levels[slots[s].level] : NAN,
                                .colour = (int)slots[s].label};
        g.rows = util_xcalloc(e - s, sizeof *g.rows);
        g.all = util_xcalloc(e - s, sizeof *g.all);
        for (; s < e; s++) {
            r = json_array_get(runs, slots[s].row);
            g.tool = stats_json_str(r, "tool", NULL);
            g.all[g.nrows++] = r;
            if (stats_row_counts(r, include_suspect))
                g.rows[g.nok++] = r;
        }
        if (out->first[g.colour] == cap)
            out->first[g.colour] = out->n;
        out->g[out->n++] = g;
    }
    for (size_t k = 0; k < out->nlabels; k++)
        if (out->first[k] == cap)
            out->first[k] = out->n;
    free(slots);
}

void stats_groups_free(struct stats_groups *gs)
{
    for (size_t i = 0; i < gs->n; i++) {
        free(gs->g[i].rows);
        free(gs->g[i].all);
    }
    free(gs->g);
    free(gs->labels);
    free(gs->levels);
    free(gs->first);
    json_decref(gs->index);
    memset(gs, 0, sizeof *gs);
}

void stats_group_metric(const struct stats_group *g, const struct stats_metric *m, struct stats_summary *out)
{
    double *v = util_xcalloc(g->nok ? g->nok : 1, sizeof *v);
    for (size_t i = 0; i < g->nok; i++)
        v[i] = stats_value(g->rows[i], m);
    stats_summarize(v, g->nok, out);
    free(v);
}

long stats_label_index(const struct stats_groups *gs, const char *label)
{
    json_t *li = label ? json_object_get(gs->index, label) : NULL;
    return li ? (long)json_integer_value(li) : -1;
}

const struct stats_group *stats_find(const struct stats_groups *gs, const char *label, double level)
{
    long li = stats_label_index(gs, label);
    for (size_t i = li < 0 ? gs->n : gs->first[li]; i < gs->n && gs->g[i].colour == li; i++)
        if (same_level(gs->g[i].level, level))
            return &gs->g[i];
    return NULL;
}

const char *stats_group_name(const struct stats_group *g, char *buf, size_t len)
{
    if (isnan(g->level))
        snprintf(buf, len, "%s", g->label);
    else
        snprintf(buf, len, "%s@%.10g", g->label, g->level);
    return buf;
}
