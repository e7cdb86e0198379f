#include "report/compare.h"
#include "report/evidence.h"
#include "report/html.h"
#include "report/runrecord.h"
#include "report/stats.h"
#include "common/sha256.h"
#include "common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* identity.key of a label ("sha256", "version"): from its first row that
 * has one. */
static const char *label_identity(json_t *run, const char *label, const char *key)
{
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        if (!same_str(stats_json_str(r, "label", NULL), label))
            continue;
        const char *s = stats_json_str(r, "identity", key);
        if (s)
            return s;
    }
    return NULL;
}

static const char *label_sha(json_t *run, const char *label)
{
    return label_identity(run, label, "sha256");
}

static int has_label(json_t *run, const char *label)
{
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        if (same_str(stats_json_str(r, "label", NULL), label))
            return 1;
    }
    return 0;
}

/* json_equal, but 10 and 10.0 are the same number (a run.json rewritten
 * by another JSON library must still compare). */
static int same_json(json_t *a, json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *v;
        if (json_object_size(a) != json_object_size(b))
            return 0;
        json_object_foreach(a, k, v) if (!same_json(v, json_object_get(b, k))) return 0;
        return 1;
    }
    if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!same_json(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    }
    return json_equal(a, b);
}

/* Why the two runs cannot be compared, or 0 when they can. */
static int not_comparable(json_t *base, json_t *cur, const char *tool, char *err)
{
    static const char *const fp[] = {"hostname", "cpu_model", "cores", "arch", NULL};
    for (const char *const *k = fp; *k; k++) {
        json_t *a = json_object_get(json_object_get(base, "machine"), *k), *b = json_object_get(json_object_get(cur, "machine"), *k);
        if ((a || b) && !same_json(a, b)) {
            char *sa = a ? json_dumps(a, JSON_ENCODE_ANY) : NULL, *sb = b ? json_dumps(b, JSON_ENCODE_ANY) : NULL;
            util_err(err, "not comparable: different machine (%s %s vs %s)", *k, sa ? sa : "absent", sb ? sb : "absent");
            free(sa);
            free(sb);
            return 1;
        }
    }
    double ma = stats_json_num(base, "machine", "memory_mb", NULL),
           mb = stats_json_num(cur, "machine", "memory_mb", NULL);
    if (!isnan(ma) && !isnan(mb) && fabs(ma - mb) > 0.02 * ma)
        return util_err(err, "not comparable: different machine (memory %.0f MB vs %.0f MB)", ma, mb), 1;
    char qa[96], qb[96], ql[96];
    if (!same_str(stats_json_str(base, "loadbench", "build"), stats_json_str(cur, "loadbench", "build")))
        return util_err(err, "not comparable: different build type (%s vs %s); a sanitizer build measures something else",
                        util_quote(stats_json_str(base, "loadbench", "build"), qa, sizeof qa),
                        util_quote(stats_json_str(cur, "loadbench", "build"), qb, sizeof qb)),
               1;
    /* The profile as resolved, less where it was read from and its prose. */
    json_t *pa = json_deep_copy(json_object_get(base, "profile")), *pb = json_deep_copy(json_object_get(cur, "profile"));
    json_object_del(pa, "path");
    json_object_del(pb, "path");
    json_object_del(pa, "description");
    json_object_del(pb, "description");
    int same = pa && pb && same_json(pa, pb);
    const char *key;
    json_t *v;
    char which[128] = "";
    if (!same && pa && pb) {
        json_object_foreach(pa, key, v) if (!same_json(v, json_object_get(pb, key)))
        {
            snprintf(which, sizeof which, " (%s differs)", key);
            break;
        }
        if (!which[0])
            json_object_foreach(pb, key, v) if (!json_object_get(pa, key))
            {
                snprintf(which, sizeof which, " (%s only in the current run)", key);
                break;
            }
    }
    json_decref(pa);
    json_decref(pb);
    if (!same)
        return util_err(err, "not comparable: different profiles%s", which), 1;
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(cur, "runs"), i, r)
    {
        const char *l = stats_json_str(r, "label", NULL);
        if (!l || same_str(l, tool))
            continue;
        const char *a = label_sha(base, l), *b = label_sha(cur, l);
        util_quote(l, ql, sizeof ql);
        if (a && b && strcmp(a, b))
            return util_err(err, "not comparable: the binary of %s changed (sha256 %.12s… vs %.12s…) and it is not the compared tool (%s)",
                            ql, a, b, tool),
                   1;
        a = label_identity(base, l, "version");
        b = label_identity(cur, l, "version");
        if (a && b && strcmp(a, b))
            return util_err(err, "not comparable: the version of %s changed (%s vs %s) and it is not the compared tool (%s)",
                            ql, util_quote(a, qa, sizeof qa), util_quote(b, qb, sizeof qb), tool),
                   1;
    }
    return 0;
}

/* One run not complete makes its side not complete: the first such run's
 * status, and in "status_side" (in memory only) which run and why. */
static void side_status(json_t *side, json_t *run, const char *name)
{
    char why[COMPARE_WHY_LEN];
    const char *st = runstatus(run, why, sizeof why);
    if (!strcmp(st, RUNSTATUS_COMPLETE) || json_object_get(side, "status_side"))
        return;
    json_object_set_new(side, "status", json_string(st));
    json_object_set_new(side, "status_side", json_sprintf("%s%s%s", name, why[0] ? ": no final row for " : "", why));
}

/* The content hash of a run: SHA-256 of its JSON with sorted keys, so a
 * copy of a run directory (or its run.json re-indented) hashes the same. */
static void run_content_hash(json_t *run, char hex[65])
{
    char *s = json_dumps(run, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
    sha256_hex(s ? s : "", s ? strlen(s) : 0, hex);
    free(s);
}

/* Why runs a and b are one run (the same start time on the same host:
 * its run id; or the same content), or 0 when they are distinct. */
static int same_run(json_t *a, json_t *b, const char *ha, const char *hb, char *why, size_t len)
{
    double sa = stats_json_num(a, "started_at_ms", NULL, NULL), sb = stats_json_num(b, "started_at_ms", NULL, NULL);
    if (!strcmp(ha, hb))
        snprintf(why, len, "the same content (sha256 %.12s…)", ha);
    else if (!isnan(sa) && sa == sb && same_str(stats_json_str(a, "machine", "hostname"), stats_json_str(b, "machine", "hostname")))
        snprintf(why, len, "the same run id (started at %.0f ms on the same host)", sa);
    else
        return 0;
    return 1;
}

/* A side's runs must be distinct runs: one run given twice would count its
 * rows as independent repeats (p = 0.008 from one measurement). */
static int duplicate_runs(json_t *const *runs, const char *const *names, size_t n, char *err)
{
    char (*hash)[65] = util_xcalloc(n + 1, sizeof *hash), why[160];
    int dup = 0;
    for (size_t k = 0; k < n; k++)
        run_content_hash(runs[k], hash[k]);
    for (size_t k = 1; k < n && !dup; k++)
        for (size_t j = 0; j < k && !dup; j++)
            if ((dup = same_run(runs[j], runs[k], hash[j], hash[k], why, sizeof why)))
                util_err(err, "%s and %s are one run (%s): the runs of a side must be distinct runs, or its rows "
                              "would count as independent repeats", names[j], names[k], why);
    free(hash);
    return dup ? -1 : 0;
}

json_t *compare_merge_runs(json_t *const *runs, const char *const *names, size_t n, char *err)
{
    if (duplicate_runs(runs, names, n, err))
        return NULL;
    json_t *out = json_deep_copy(runs[0]), *rows = json_array(), *r;
    size_t i;
    for (size_t k = 0; k < n; k++) {
        char why[UTIL_ERR_LEN];
        if (k && not_comparable(runs[0], runs[k], "", why)) {
            json_decref(rows);
            json_decref(out);
            util_err(err, "%s and %s cannot be merged into one side: %s", names[0], names[k], why);
            return NULL;
        }
        side_status(out, runs[k], names[k]);
        json_array_foreach(json_object_get(runs[k], "runs"), i, r)
        {
            json_t *c = json_deep_copy(r);
            double rep = stats_json_num(r, "repeat", NULL, NULL);
            json_object_set_new(c, "repeat", json_real((double)k * COMPARE_REPEAT_STRIDE + (isnan(rep) ? 1 : rep)));
            json_array_append_new(rows, c);
        }
    }
    json_object_set_new(out, "runs", rows);
    return out;
}

/* ---- labels ---- */

/* The labels with rows in both runs, comma separated, into buf. */
static void labels_in_both(json_t *base, json_t *cur, char *buf, size_t len)
{
    json_t *r;
    size_t i, used = 0;
    buf[0] = 0;
    json_array_foreach(json_object_get(cur, "runs"), i, r)
    {
        const char *l = stats_json_str(r, "label", NULL);
        if (!l || !has_label(base, l))
            continue;
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = same_str(stats_json_str(json_array_get(json_object_get(cur, "runs"), k), "label", NULL), l);
        if (!seen && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", l);
    }
}

int compare_check_labels(json_t *base, json_t *cur, const struct compare_opts *o, char *err)
{
    const char *opt[2] = {"--tool", "--control"}, *val[2] = {o->tool, o->control};
    for (int k = 0; k < 2; k++) {
        if (!val[k] || (has_label(base, val[k]) && has_label(cur, val[k])))
            continue;
        char labels[160];
        labels_in_both(base, cur, labels, sizeof labels);
        return util_err(err, "%s %s: no tool of that label in both runs (labels in both: %s)", opt[k], val[k],
                        labels[0] ? labels : "none");
    }
    return 0;
}

/* ---- compute ---- */

/* One cell's values on one side, each with its pairing key: the row's
 * repeat (compare_merge_runs makes repeats unique across run directories). */
struct side {
    double *v, *key;
    size_t n;
};

static void side_alloc(struct side *s, size_t cap)
{
    s->v = util_xcalloc(cap + 1, sizeof *s->v);
    s->key = util_xcalloc(cap + 1, sizeof *s->key);
    s->n = 0;
}

static void side_free(struct side *s)
{
    free(s->v);
    free(s->key);
}

static void metric_side(const struct stats_group *g, const struct stats_metric *m, struct side *s)
{
    side_alloc(s, g->nok);
    for (size_t i = 0; i < g->nok; i++) {
        s->key[s->n] = stats_json_num(g->rows[i], "repeat", NULL, NULL);
        s->v[s->n++] = stats_value(g->rows[i], m);
    }
}

/* requests/s of a group divided by the control's, paired repeat by repeat
 * (the same interleaved round). */
static void ratio_side(const struct stats_group *g, const struct stats_group *ctl, struct side *s)
{
    const struct stats_metric *rps = stats_metric_by_key("rps");
    side_alloc(s, g->nok);
    for (size_t i = 0; ctl && i < g->nok; i++) {
        double rep = stats_json_num(g->rows[i], "repeat", NULL, NULL), mine = stats_value(g->rows[i], rps);
        for (size_t k = 0; k < ctl->nok; k++) {
            if (stats_json_num(ctl->rows[k], "repeat", NULL, NULL) != rep)
                continue;
            double theirs = stats_value(ctl->rows[k], rps);
            if (theirs > 0 && !isnan(mine)) {
                s->key[s->n] = rep;
                s->v[s->n++] = mine / theirs;
            }
        }
    }
}

/* The summaries of both sides and the rank test of log(cur/base): paired
 * by key when asked (a value without a partner is left out), else
 * unpaired. */
static void cell_fill(struct compare_cell *c, struct side *b, struct side *a, int paired)
{
    stats_summarize(b->v, b->n, &c->base);
    stats_summarize(a->v, a->n, &c->cur);
    if (!paired) {
        ranks_shift_unpaired(b->v, b->n, a->v, a->n, &c->shift);
    } else {
        double *x = util_xcalloc(b->n + 1, sizeof *x), *y = util_xcalloc(b->n + 1, sizeof *y);
        size_t n = 0;
        for (size_t i = 0; i < b->n; i++)
            for (size_t k = 0; k < a->n; k++)
                if (a->key[k] == b->key[i]) {
                    x[n] = b->v[i];
                    y[n++] = a->v[k];
                    break;
                }
        ranks_shift_paired(x, y, n, &c->shift);
        free(x);
        free(y);
    }
    c->tested = !isnan(c->shift.min_p) && c->shift.min_p < RANKS_ALPHA;
    side_free(b);
    side_free(a);
}

/* Tested: regressed or improved when significant and the Hodges–Lehmann
 * change is past thr. Too few values to test: past thr and (with repeats on
 * both sides) min-max ranges apart. n/a without both sides. */
static void cell_verdict(struct compare_cell *c, double thr)
{
    c->change = NAN;
    c->verdict = COMPARE_NA;
    if (!c->base.n || !c->cur.n || c->base.median == 0 || c->unjudged)
        return;
    c->verdict = COMPARE_SAME;
    if (c->tested) {
        c->change = expm1(c->shift.est);
        double worse = c->higher_better ? -c->change : c->change;
        if (c->significant && worse > thr)
            c->verdict = COMPARE_REGRESSED;
        else if (c->significant && worse < -thr)
            c->verdict = COMPARE_IMPROVED;
        return;
    }
    c->change = (c->cur.median - c->base.median) / fabs(c->base.median);
    double worse = c->higher_better ? -c->change : c->change;
    int spread = c->base.n > 1 && c->cur.n > 1;
    if (worse > thr) {
        int apart = c->higher_better ? c->cur.max < c->base.min : c->cur.min > c->base.max;
        if (!spread || apart)
            c->verdict = COMPARE_REGRESSED;
    } else if (worse < -thr) {
        int apart = c->higher_better ? c->cur.min > c->base.max : c->cur.max < c->base.min;
        if (!spread || apart)
            c->verdict = COMPARE_IMPROVED;
    }
}

/* 1 when m is a footprint figure and a counted row of g (may be NULL) had
 * its footprint not judged (footprint.judged false: loadbench was not
 * scheduled through part of it, or took too few samples). */
static int footprint_unjudged(const struct stats_group *g, const struct stats_metric *m)
{
    if (!g || (strcmp(m->key, "cpu") && strcmp(m->key, "rss") && strcmp(m->key, "cpu100k")))
        return 0;
    for (size_t i = 0; i < g->nok; i++)
        if (json_is_false(json_object_get(json_object_get(g->rows[i], "footprint"), "judged")))
            return 1;
    return 0;
}

/* One cell per headline metric, then requests/s as a ratio to the control
 * (unless this is the control). Only the compared tool is gated: every
 * other tool's binary is the same in both runs (its sha256 was checked), so
 * what changed in its cells is the machine — the noise floor to read the
 * gate against. */
static void row_cells(struct compare_row *row, const struct stats_group *h, const struct stats_group *g,
                      const struct stats_groups *gb, const struct stats_groups *gc, const struct compare_result *r)
{
    struct side sb, sc;
    for (const struct stats_metric *m = stats_metrics; m->key; m++) {
        struct compare_cell *c = &row->cells[row->ncells++];
        snprintf(c->metric, sizeof c->metric, "%s", m->column);
        c->higher_better = m->higher_better;
        c->prec = !strcmp(m->key, "rps") ? 0 : m->prec;
        c->gate = row->gated && (!strcmp(m->key, "rss") || !strcmp(m->key, "cpu100k"));
        metric_side(h, m, &sb);
        metric_side(g, m, &sc);
        cell_fill(c, &sb, &sc, r->paired);
        c->unjudged = footprint_unjudged(h, m) || footprint_unjudged(g, m);
        c->tested &= !c->unjudged;
    }
    if (strcmp(g->label, r->control)) {
        struct compare_cell *c = &row->cells[row->ncells++];
        *c = (struct compare_cell){.higher_better = 1, .gate = row->gated, .prec = 3};
        snprintf(c->metric, sizeof c->metric, "RPS ÷ %s", r->control);
        ratio_side(h, stats_find(gb, r->control, g->level), &sb);
        ratio_side(g, stats_find(gc, r->control, g->level), &sc);
        cell_fill(c, &sb, &sc, r->paired);
    }
}

/* Significance (Holm over the gated cells that were tested: the
 * false-alarm rate is the whole gate's; the other cells at RANKS_ALPHA
 * alone), then every verdict and the gate's counts. */
static void gate_cells(struct compare_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nrows; i++)
        n += (size_t)r->rows[i].ncells;
    double *p = util_xcalloc(n + 1, sizeof *p);
    int *sig = util_xcalloc(n + 1, sizeof *sig);
    struct compare_cell **at = util_xcalloc(n + 1, sizeof *at);
    size_t k = 0;
    r->family_min_p = NAN;
    for (size_t i = 0; i < r->nrows; i++)
        for (int j = 0; j < r->rows[i].ncells; j++) {
            struct compare_cell *c = &r->rows[i].cells[j];
            c->significant = c->tested && c->shift.p < RANKS_ALPHA;
            if (!c->gate || !c->tested)
                continue;
            at[k] = c;
            p[k++] = c->shift.p;
            r->family_min_p = isnan(r->family_min_p) ? c->shift.min_p : fmin(r->family_min_p, c->shift.min_p);
        }
    ranks_holm(p, k, RANKS_ALPHA, sig);
    for (size_t i = 0; i < k; i++)
        at[i]->significant = sig[i];
    r->family = (int)k;
    for (size_t i = 0; i < r->nrows; i++)
        for (int j = 0; j < r->rows[i].ncells; j++) {
            struct compare_cell *c = &r->rows[i].cells[j];
            cell_verdict(c, r->threshold);
            r->gated_cells += c->gate;
            r->failures += c->gate && c->verdict == COMPARE_REGRESSED;
        }
    free(p);
    free(sig);
    free(at);
}

static struct compare_row *add_row(struct compare_result *r, enum compare_row_kind kind, const struct stats_group *g)
{
    struct compare_row *row = &r->rows[r->nrows++];
    memset(row, 0, sizeof *row);
    row->kind = kind;
    row->label = g->label;
    row->level = g->level;
    row->gated = !strcmp(g->label, r->tool);
    stats_group_name(g, row->name, sizeof row->name);
    return row;
}

/* The statuses of g's rows that did not count ("suspect", "failed,
 * timeout"; a row with invalid evidence: "invalid: footprint.rss_peak_mb
 * is -1: a negative value is not evidence"), into buf. */
static void group_statuses(const struct stats_group *g, int include_suspect, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < g->nrows; i++) {
        json_t *r = g->all[i];
        char inv[180];
        const char *st = stats_json_str(r, "status", NULL) ?: "absent", *why = stats_json_str(r, EVIDENCE_WHY, NULL);
        if (stats_row_counts(r, include_suspect))
            continue;
        if (why && !strcmp(st, EVIDENCE_INVALID))
            snprintf(inv, sizeof inv, "invalid (%s)", why), st = inv;
        if (n && strstr(buf, st))
            continue;
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? ", " : "", st);
    }
}

/* Why a gated row has no evidence, or "" when it has: a side with rows
 * that did not count (failed, suspect, timeout), or none at all. */
static void row_missing(struct compare_row *row, const struct stats_group *h, const struct stats_group *g,
                        int include_suspect)
{
    char st[200];
    if (!g) {
        snprintf(row->missing, sizeof row->missing, "not in the current run");
    } else if (g->nok < g->nrows) {
        group_statuses(g, include_suspect, st, sizeof st);
        snprintf(row->missing, sizeof row->missing, "%zu of %zu rows %s in the current run", g->nrows - g->nok,
                 g->nrows, st);
    } else if (h && h->nok < h->nrows) {
        group_statuses(h, include_suspect, st, sizeof st);
        snprintf(row->missing, sizeof row->missing, "%zu of %zu rows %s in the baseline", h->nrows - h->nok, h->nrows,
                 st);
    }
}

/* Every group of the current run against the baseline's; the gated rows'
 * missing evidence. */
static void compute_rows(struct compare_result *r, const struct stats_groups *gb, const struct stats_groups *gc,
                         int include_suspect)
{
    r->rows = util_xcalloc(gc->n + gb->n + 1, sizeof *r->rows);
    for (size_t gi = 0; gi < gc->n; gi++) {
        const struct stats_group *g = &gc->g[gi], *h = stats_find(gb, g->label, g->level);
        if (!h) { /* gated: nothing to compare it with */
            struct compare_row *row = add_row(r, COMPARE_ROW_NEW, g);
            if (row->gated)
                snprintf(row->missing, sizeof row->missing, "not in the baseline");
            continue;
        }
        enum compare_row_kind kind = h->nok && !g->nok ? COMPARE_ROW_FAILED : COMPARE_ROW_CELLS;
        struct compare_row *row = add_row(r, kind, g);
        row->base_ok = h->nok;
        row->base_rows = h->nrows;
        row->cur_ok = g->nok;
        row->cur_rows = g->nrows;
        if (row->gated)
            row_missing(row, h, g, include_suspect);
        if (kind == COMPARE_ROW_CELLS)
            row_cells(row, h, g, gb, gc, r);
    }
    for (size_t gi = 0; gi < gb->n; gi++)
        if (!stats_find(gc, gb->g[gi].label, gb->g[gi].level)) {
            struct compare_row *row = add_row(r, COMPARE_ROW_MISSING, &gb->g[gi]);
            if (row->gated)
                row_missing(row, &gb->g[gi], NULL, include_suspect);
        }
}

/* "the current run's status is incomplete (no final row for: wrk
 * (interrupted)), not complete" into r->run_missing. */
static void run_not_complete(struct compare_result *r, const char *which, const char *st, json_t *run, const char *why)
{
    const char *side = stats_json_str(run, "status_side", NULL);
    if (why[0])
        snprintf(r->run_missing, sizeof r->run_missing, "%s's status is %s (no final row for: %s), not complete", which,
                 st, why);
    else if (side)
        snprintf(r->run_missing, sizeof r->run_missing, "%s's status is %s (%s), not complete", which, st, side);
    else
        snprintf(r->run_missing, sizeof r->run_missing, "%s's status is %s, not complete", which, st);
}

/* Missing evidence: a run not complete, no row of the compared tool, a
 * gated row with rows that did not count, a gated cell with no value. */
static void count_missing(struct compare_result *r, json_t *base, json_t *cur)
{
    char wb[COMPARE_WHY_LEN], wc[COMPARE_WHY_LEN];
    const char *sb = runstatus(base, wb, sizeof wb), *sc = runstatus(cur, wc, sizeof wc);
    int gated_rows = 0;
    if (strcmp(sc, RUNSTATUS_COMPLETE))
        run_not_complete(r, "the current run", sc, cur, wc);
    else if (strcmp(sb, RUNSTATUS_COMPLETE))
        run_not_complete(r, "the baseline", sb, base, wb);
    for (size_t i = 0; i < r->nrows; i++) {
        const struct compare_row *row = &r->rows[i];
        gated_rows += row->gated && row->kind != COMPARE_ROW_MISSING;
        r->missing += row->missing[0] != 0;
        for (int k = 0; row->kind == COMPARE_ROW_CELLS && !row->missing[0] && k < row->ncells; k++)
            r->missing += row->cells[k].gate && row->cells[k].verdict == COMPARE_NA;
    }
    if (!gated_rows && !r->run_missing[0])
        snprintf(r->run_missing, sizeof r->run_missing, "the compared tool %s has no row in the current run", r->tool);
    r->missing += r->run_missing[0] != 0;
}

int compare_compute(json_t *base, json_t *cur, const struct compare_opts *o, struct compare_result *out, char *err)
{
    memset(out, 0, sizeof *out);
    out->tool = o->tool ? o->tool : "lb-gen";
    out->threshold = o->threshold > 0 ? o->threshold : 0.10;
    if (not_comparable(base, cur, out->tool, err))
        return COMPARE_EXIT_BAD;
    out->comparable = 1;
    out->paired = o->paired;
    out->control = o->control;
    if (!out->control)
        out->control = has_label(base, "wrk") && has_label(cur, "wrk") ? "wrk" : "lb-gen";
    out->allow_missing = o->allow_missing;
    struct stats_groups gb, gc;
    stats_group_run_with(base, o->include_suspect, &gb);
    stats_group_run_with(cur, o->include_suspect, &gc);
    compute_rows(out, &gb, &gc, o->include_suspect);
    gate_cells(out);
    count_missing(out, base, cur);
    stats_groups_free(&gb);
    stats_groups_free(&gc);
    if (out->failures)
        return COMPARE_EXIT_REGRESSED;
    return out->missing && !o->allow_missing ? COMPARE_EXIT_MISSING : COMPARE_EXIT_PASS;
}

void compare_result_free(struct compare_result *r)
{
    free(r->rows);
    memset(r, 0, sizeof *r);
}

/* ---- render ---- */

static const char *verdict_name(enum compare_verdict v)
{
    switch (v) {
    case COMPARE_SAME: return "same";
    case COMPARE_IMPROVED: return "improved";
    case COMPARE_REGRESSED: return "regressed";
    case COMPARE_NA: break;
    }
    return "n/a";
}

static void fmt_sum(char *buf, size_t len, const struct stats_summary *s, int prec)
{
    if (!s->n)
        snprintf(buf, len, "–");
    else if (s->n == 1)
        snprintf(buf, len, "%.*f", prec, s->median);
    else
        snprintf(buf, len, "%.*f [%.*f–%.*f]", prec, s->median, prec, s->min, prec, s->max);
}

static void fmt_change(char *buf, size_t len, double change)
{
    if (isnan(change))
        snprintf(buf, len, "–");
    else
        snprintf(buf, len, "%+.1f %%", change * 100);
}

/* "n vs m" or "n pairs": the sizes a cell's test had. */
static void fmt_sizes(char *buf, size_t len, const struct ranks_shift *s)
{
    if (s->paired)
        snprintf(buf, len, "%zu pair%s", s->na, s->na == 1 ? "" : "s");
    else
        snprintf(buf, len, "%zu vs %zu", s->na, s->nb);
}

/* "+12.3 % [+8.1, +16.0] p=0.004"; "~ +1.2 % [-3.0, +5.1] p=0.310" when not
 * significant; "+20.0 % (1 vs 1: too few to test)" when no p could be
 * below RANKS_ALPHA. */
static void fmt_cell_change(char *buf, size_t len, const struct compare_cell *c)
{
    char ch[32], sz[32];
    fmt_change(ch, sizeof ch, c->change);
    if (isnan(c->change)) {
        snprintf(buf, len, "%s", ch);
    } else if (!c->tested) {
        fmt_sizes(sz, sizeof sz, &c->shift);
        snprintf(buf, len, "%s (%s: too few to test)", ch, sz);
    } else {
        char ci[48] = "";
        if (!isnan(c->shift.lo))
            snprintf(ci, sizeof ci, " [%+.1f, %+.1f]", expm1(c->shift.lo) * 100, expm1(c->shift.hi) * 100);
        snprintf(buf, len, "%s%s%s p=%.3f", c->significant ? "" : "~ ", ch, ci, c->shift.p);
    }
}

static void run_when(json_t *run, char *buf, size_t len)
{
    double ms = stats_json_num(run, "started_at_ms", NULL, NULL);
    if (isnan(ms)) {
        snprintf(buf, len, "?");
        return;
    }
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm);
}

/* Why a gated cell has no verdict. */
static const char *na_why(const struct compare_cell *c)
{
    return c->unjudged ? "footprint not judged (loadbench was not scheduled through part of a row, or sampled it "
                         "too seldom: the row's notes say)"
                       : "no value";
}

void compare_render_failures(const struct compare_result *r, FILE *f)
{
    int n = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const struct compare_row *row = &r->rows[i];
        for (int k = 0; row->kind == COMPARE_ROW_CELLS && k < row->ncells; k++) {
            const struct compare_cell *c = &row->cells[k];
            if (!c->gate || c->verdict != COMPARE_REGRESSED)
                continue;
            char ch[96];
            fmt_cell_change(ch, sizeof ch, c);
            fprintf(f, "%s%s %s %s", n++ ? ", " : "", row->name, c->metric, ch);
        }
    }
}

void compare_render_missing(const struct compare_result *r, FILE *f)
{
    int n = 0;
    if (r->run_missing[0])
        fprintf(f, "%s", r->run_missing), n++;
    for (size_t i = 0; i < r->nrows; i++) {
        const struct compare_row *row = &r->rows[i];
        if (row->missing[0])
            fprintf(f, "%s%s: %s", n++ ? ", " : "", row->name, row->missing);
        for (int k = 0; row->kind == COMPARE_ROW_CELLS && !row->missing[0] && k < row->ncells; k++)
            if (row->cells[k].gate && row->cells[k].verdict == COMPARE_NA)
                fprintf(f, "%s%s %s: %s", n++ ? ", " : "", row->name, row->cells[k].metric, na_why(&row->cells[k]));
    }
}

static void md_head(json_t *base, json_t *cur, FILE *md)
{
    char wb[64], wc[64];
    run_when(base, wb, sizeof wb);
    run_when(cur, wc, sizeof wc);
    fprintf(md, "# loadbench compare: %s\n\n", stats_json_str(cur, "profile", "name") ?: "?");
    fprintf(md,
            "Baseline: run of %s (loadbench %s, git %s). Current: run of %s (loadbench %s, git %s). Machine: %s, %.0f "
            "cores.\n\n",
            wb, stats_json_str(base, "loadbench", "version") ?: "?", stats_json_str(base, "loadbench", "git") ?: "?",
            wc, stats_json_str(cur, "loadbench", "version") ?: "?", stats_json_str(cur, "loadbench", "git") ?: "?",
            stats_json_str(cur, "machine", "cpu_model") ?: "?", stats_json_num(cur, "machine", "cores", NULL));
}

static void md_row(const struct compare_row *row, FILE *md)
{
    char lv[32];
    if (isnan(row->level))
        snprintf(lv, sizeof lv, "–");
    else
        snprintf(lv, sizeof lv, "%.10g", row->level);
    const char *bold = row->gated ? "**" : "";
    switch (row->kind) {
    case COMPARE_ROW_NEW: fprintf(md, "| %s | %s | – | not in the baseline | | | new | |\n", row->label, lv); return;
    case COMPARE_ROW_MISSING: fprintf(md, "| %s | – | – | | not in the current run | | missing | |\n", row->name); return;
    case COMPARE_ROW_FAILED:
        fprintf(md, "| %s | %s | runs ok | %zu/%zu | %zu/%zu | | %s%s%s | %s |\n", row->label, lv, row->base_ok,
                row->base_rows, row->cur_ok, row->cur_rows, bold, row->gated ? "no evidence" : "failed", bold,
                row->gated ? "yes" : "no");
        return;
    case COMPARE_ROW_CELLS: break;
    }
    for (int k = 0; k < row->ncells; k++) {
        const struct compare_cell *c = &row->cells[k];
        char a[96], b[96], ch[96];
        fmt_sum(a, sizeof a, &c->base, c->prec);
        fmt_sum(b, sizeof b, &c->cur, c->prec);
        fmt_cell_change(ch, sizeof ch, c);
        const char *mark = c->verdict == COMPARE_REGRESSED && c->gate ? "**" : "";
        fprintf(md, "| %s | %s | %s | %s | %s | %s | %s%s%s | %s |\n", row->label, lv, c->metric, a, b, ch, mark,
                verdict_name(c->verdict), mark, c->gate ? "yes" : "no");
    }
}

/* How the cells were judged, and whether the gate could trip at all. */
static void md_rule(const struct compare_result *r, FILE *md)
{
    fprintf(md,
            "Threshold %.0f %%. Each cell's change is the Hodges–Lehmann estimate of log(current/baseline) with its 95 %% "
            "interval and the exact p of %s; `~` marks a change that is not significant. A cell regresses when it is "
            "significant — for the gated cells after Holm's correction across all %d of them that were tested, so the "
            "false-alarm rate is the whole gate's — and worse than the threshold. A cell whose sizes cannot give "
            "p < %.2f (2 vs 2: 0.33) is marked *too few to test* and judged as before: worse than the threshold and, "
            "with repeats on both sides, min–max ranges apart. ",
            r->threshold * 100,
            r->paired ? "Wilcoxon's signed-rank test (rows paired by repeat)" : "the Mann–Whitney rank-sum test",
            r->family, RANKS_ALPHA);
    fprintf(md, "The gate (exit 1) reads CPU-s/100k req, RSS peak MB and RPS ÷ %s (requests/s relative to the control "
                "generator, paired repeat by repeat); absolute RPS, latency and CPU %% are shown for reading only (p "
                "unadjusted). Only the compared tool, %s, is gated: every other tool ran the same binary in both runs "
                "(sha256 checked), so its changes are the machine's drift — the noise floor to read the gate against.\n\n",
            r->control, r->tool);
    if (!r->family)
        fprintf(md, "**No gated cell has enough values for a rank test**: with these repeats the gate is the threshold "
                    "and the ranges alone, which machine noise can trip. Use 5 or more repeats a side (7 or more "
                    "interleaved pairs).\n\n");
    else if (r->family_min_p >= RANKS_ALPHA / r->family)
        fprintf(md, "**No gated cell can be significant**: the smallest p these sizes allow is %.3f, and Holm across %d "
                    "cells asks below %.4f for the first. Use more repeats.\n\n",
                r->family_min_p, r->family, RANKS_ALPHA / r->family);
}

void compare_render_md(json_t *base, json_t *cur, const struct compare_result *r, const char *err, FILE *md)
{
    md_head(base, cur, md);
    if (!r->comparable) {
        fprintf(md, "**Not comparable:** %s.\n", err);
        return;
    }
    md_rule(r, md);
    fprintf(md, "| Tool | Level | Metric | Baseline | Current | Change | Verdict | Gate |\n|---|--:|---|--:|--:|--:|---|---|\n");
    for (size_t i = 0; i < r->nrows; i++)
        md_row(&r->rows[i], md);
    if (r->failures) {
        fprintf(md, "\n**Regressed beyond %.0f %%:** ", r->threshold * 100);
        compare_render_failures(r, md);
        fprintf(md, ".\n");
    } else if (!r->missing) {
        fprintf(md, "\nNo gated cell regressed beyond %.0f %%.\n", r->threshold * 100);
    }
    if (r->missing) {
        fprintf(md, "\n**Missing evidence%s:** ", r->allow_missing ? " (allowed by --allow-missing, not gating)" : "");
        compare_render_missing(r, md);
        fprintf(md, ".\n");
    }
}

static void junit_cell(const struct compare_row *row, const struct compare_cell *c, double thr, FILE *f)
{
    char a[96], b[96], ch[96];
    fmt_sum(a, sizeof a, &c->base, c->prec);
    fmt_sum(b, sizeof b, &c->cur, c->prec);
    fmt_cell_change(ch, sizeof ch, c);
    fprintf(f, "<testcase classname=\"loadbench.");
    html_esc(f, row->name);
    fprintf(f, "\" name=\"");
    html_esc(f, c->metric);
    fprintf(f, "\">");
    if (c->verdict == COMPARE_REGRESSED) {
        char msg[512];
        snprintf(msg, sizeof msg, "regressed %s (baseline %s, current %s, threshold %.0f %%)", ch, a, b, thr * 100);
        fprintf(f, "<failure message=\"");
        html_esc(f, msg);
        fprintf(f, "\"/>");
    } else {
        fprintf(f, "<system-out>%s %s</system-out>", verdict_name(c->verdict), ch);
    }
    fprintf(f, "</testcase>\n");
}

/* A failed test case (skipped when missing evidence is allowed). */
static void junit_missing(const char *cls, const char *name, const char *why, int allowed, FILE *f)
{
    fprintf(f, "<testcase classname=\"loadbench.");
    html_esc(f, cls);
    fprintf(f, "\" name=\"");
    html_esc(f, name);
    fprintf(f, "\"><%s message=\"no evidence: ", allowed ? "skipped" : "failure");
    html_esc(f, why);
    fprintf(f, "\"/></testcase>\n");
}

/* The test cases: each gated cell, and each gated row or run without
 * evidence. Returns their number; *failures those that failed. */
static int junit_cases(const struct compare_result *r, FILE *f, int *failures)
{
    int n = 0, al = r->allow_missing;
    *failures = r->failures;
    if (r->run_missing[0])
        junit_missing("compare", "evidence", r->run_missing, al, f), n++, *failures += !al;
    for (size_t i = 0; i < r->nrows; i++) {
        const struct compare_row *row = &r->rows[i];
        if (row->missing[0])
            junit_missing(row->name, "evidence", row->missing, al, f), n++, *failures += !al;
        for (int k = 0; row->kind == COMPARE_ROW_CELLS && k < row->ncells; k++) {
            const struct compare_cell *c = &row->cells[k];
            if (!c->gate)
                continue;
            n++;
            if (c->verdict == COMPARE_NA && !row->missing[0]) {
                junit_missing(row->name, c->metric, na_why(c), al, f);
                *failures += !al;
            } else {
                junit_cell(row, c, r->threshold, f);
            }
        }
    }
    return n;
}

void compare_render_junit(const struct compare_result *r, const char *err, FILE *junit)
{
    fprintf(junit, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    if (!r->comparable) {
        fprintf(junit, "<testsuite name=\"loadbench compare\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
                       "<testcase classname=\"loadbench.compare\" name=\"comparable\"><error message=\"");
        html_esc(junit, err);
        fprintf(junit, "\"/></testcase>\n</testsuite>\n</testsuites>\n");
        return;
    }
    char *cases = NULL;
    size_t len = 0;
    int failures;
    FILE *cf = open_memstream(&cases, &len);
    int n = junit_cases(r, cf, &failures);
    fclose(cf);
    fprintf(junit, "<testsuite name=\"loadbench compare\" tests=\"%d\" failures=\"%d\" errors=\"0\">\n%s", n,
            failures, cases);
    free(cases);
    fprintf(junit, "</testsuite>\n</testsuites>\n");
}

int compare_runs(json_t *base, json_t *cur, const struct compare_opts *o, FILE *md, FILE *junit, char *err)
{
    if (compare_check_labels(base, cur, o, err))
        return COMPARE_EXIT_BAD;
    struct compare_result r;
    int rc = compare_compute(base, cur, o, &r, err);
    compare_render_md(base, cur, &r, err, md);
    if (junit)
        compare_render_junit(&r, err, junit);
    if (rc == COMPARE_EXIT_REGRESSED || rc == COMPARE_EXIT_MISSING) {
        char *names = NULL;
        size_t len = 0;
        FILE *nf = open_memstream(&names, &len);
        (rc == COMPARE_EXIT_REGRESSED ? compare_render_failures : compare_render_missing)(&r, nf);
        fclose(nf);
        util_err(err, "%s", names);
        free(names);
    }
    compare_result_free(&r);
    return rc;
}
