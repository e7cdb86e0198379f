#include "compare.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The binary's sha256 of a label: from its first row that has one. */
static const char *label_sha(json_t *run, const char *label)
{
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        if (!same_str(stats_json_str(r, "label", NULL), label))
            continue;
        const char *s = stats_json_str(r, "identity", "sha256");
        if (s)
            return s;
    }
    return NULL;
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
    static const char *const fp[] = {"cpu_model", "cores", "arch", NULL};
    for (const char *const *k = fp; *k; k++) {
        json_t *a = json_object_get(json_object_get(base, "machine"), *k), *b = json_object_get(json_object_get(cur, "machine"), *k);
        if (!same_json(a, b)) {
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
    if (!same_str(stats_json_str(base, "loadbench", "build"), stats_json_str(cur, "loadbench", "build")))
        return util_err(
                   err, "not comparable: different build type (%s vs %s); a sanitizer build measures something else",
                   stats_json_str(base, "loadbench", "build") ?: "?", stats_json_str(cur, "loadbench", "build") ?: "?"),
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
        if (a && b && strcmp(a, b))
            return util_err(err, "not comparable: %s's binary changed (sha256 %.12s… vs %.12s…) and it is not the compared tool (%s)",
                            l, a, b, tool),
                   1;
    }
    return 0;
}

struct cell {
    const char *metric;     /* column title */
    struct stats_summary b, c;
    int higher_better, gate, prec;
};

/* requests/s of a group divided by the control's, paired repeat by repeat
 * (the same interleaved round). */
static void ratio_summary(const struct stats_group *g, const struct stats_group *ctl, struct stats_summary *out)
{
    const struct stats_metric *rps = stats_metric_by_key("rps");
    double *v = util_xcalloc(g->nok + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; ctl && i < g->nok; i++) {
        double rep = stats_json_num(g->rows[i], "repeat", NULL, NULL), mine = stats_value(g->rows[i], rps);
        for (size_t k = 0; k < ctl->nok; k++) {
            if (stats_json_num(ctl->rows[k], "repeat", NULL, NULL) != rep)
                continue;
            double theirs = stats_value(ctl->rows[k], rps);
            if (theirs > 0 && !isnan(mine))
                v[n++] = mine / theirs;
        }
    }
    stats_summarize(v, n, out);
    free(v);
}

/* "regressed", "improved", "same" (within threshold, or within the repeat
 * spread: min-max ranges that overlap), "n/a". */
static const char *verdict(const struct cell *c, double thr, double *change)
{
    *change = NAN;
    if (!c->b.n || !c->c.n || c->b.median == 0)
        return "n/a";
    *change = (c->c.median - c->b.median) / fabs(c->b.median);
    double worse = c->higher_better ? -*change : *change;
    int spread = c->b.n > 1 && c->c.n > 1;
    if (worse > thr) {
        int apart = c->higher_better ? c->c.max < c->b.min : c->c.min > c->b.max;
        return !spread || apart ? "regressed" : "same";
    }
    if (worse < -thr) {
        int apart = c->higher_better ? c->c.min > c->b.max : c->c.max < c->b.min;
        return !spread || apart ? "improved" : "same";
    }
    return "same";
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

static void xml(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
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

int compare_runs(json_t *base, json_t *cur, const struct compare_opts *o, FILE *md, FILE *junit, char *err)
{
    const char *tool = o->tool ? o->tool : "lb-gen";
    double thr = o->threshold > 0 ? o->threshold : 0.10;
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
    if (not_comparable(base, cur, tool, err)) {
        fprintf(md, "**Not comparable:** %s.\n", err);
        if (junit) {
            fprintf(junit, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
                           "<testsuite name=\"loadbench compare\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
                           "<testcase classname=\"loadbench.compare\" name=\"comparable\"><error message=\"");
            xml(junit, err);
            fprintf(junit, "\"/></testcase>\n</testsuite>\n</testsuites>\n");
        }
        return 2;
    }
    const char *control = o->control;
    if (!control)
        control = has_label(base, "wrk") && has_label(cur, "wrk") ? "wrk" : "lb-gen";
    struct stats_groups gb, gc;
    stats_group_run(base, &gb);
    stats_group_run(cur, &gc);
    fprintf(md, "Threshold %.0f %%. A cell regresses when its median is worse by more than the threshold and, with "
                "repeats in both runs, the min–max ranges do not overlap. The gate (exit 1) reads CPU-s/100k req, "
                "RSS peak MB and RPS ÷ %s (requests/s relative to the control generator, paired repeat by repeat); "
                "absolute RPS, latency and CPU %% are shown for reading only. Only the compared tool, %s, is gated: every other "
                "tool ran the same binary in both runs (sha256 checked), so its changes are the machine's drift — the noise "
                "floor to read the gate against.\n\n",
            thr * 100, control, tool);
    fprintf(md, "| Tool | Level | Metric | Baseline | Current | Change | Verdict | Gate |\n|---|--:|---|--:|--:|--:|---|---|\n");
    char ratio_title[96];
    snprintf(ratio_title, sizeof ratio_title, "RPS ÷ %s", control);
    char *jbuf = NULL;
    size_t jlen = 0;
    FILE *jf = open_memstream(&jbuf, &jlen);
    int tests = 0, failures = 0;
    char *names = NULL;
    size_t nlen = 0;
    FILE *nf = open_memstream(&names, &nlen);
    for (size_t gi = 0; gi < gc.n; gi++) {
        const struct stats_group *g = &gc.g[gi], *h = stats_find(&gb, g->label, g->level);
        char gname[128], lv[32];
        stats_group_name(g, gname, sizeof gname);
        if (isnan(g->level))
            snprintf(lv, sizeof lv, "–");
        else
            snprintf(lv, sizeof lv, "%.10g", g->level);
        if (!h) {
            fprintf(md, "| %s | %s | – | not in the baseline | | | new | |\n", g->label, lv);
            continue;
        }
        if (h->nok && !g->nok) {
            /* A tool that ran in the baseline and failed now is the worst regression. */
            int gated = !strcmp(g->label, tool);
            fprintf(md, "| %s | %s | runs ok | %zu/%zu | %zu/%zu | | %sregressed%s | %s |\n", g->label, lv, h->nok, h->nrows,
                    g->nok, g->nrows, gated ? "**" : "", gated ? "**" : "", gated ? "yes" : "no");
            if (!gated)
                continue;
            fprintf(jf, "<testcase classname=\"loadbench.");
            xml(jf, gname);
            fprintf(jf, "\" name=\"runs ok\"><failure message=\"no run ended ok (baseline: %zu of %zu)\"/></testcase>\n", h->nok,
                    h->nrows);
            tests++;
            failures++;
            fprintf(nf, "%s%s runs ok (none ended ok)", failures > 1 ? ", " : "", gname);
            continue;
        }
        /* Only the compared tool is gated: every other tool's binary is the
         * same in both runs (its sha256 was checked), so what changed in its
         * cells is the machine — the noise floor to read the gate against. */
        int gated = !strcmp(g->label, tool);
        struct cell cells[8];
        int nc = 0;
        for (const struct stats_metric *m = stats_metrics; m->key; m++) {
            struct cell c = {.metric = m->column, .higher_better = m->higher_better, .prec = m->prec};
            c.gate = gated && (!strcmp(m->key, "rss") || !strcmp(m->key, "cpu100k"));
            if (!strcmp(m->key, "rps"))
                c.prec = 0;
            stats_group_metric(h, m, &c.b);
            stats_group_metric(g, m, &c.c);
            cells[nc++] = c;
        }
        if (strcmp(g->label, control)) {
            struct cell c = {.metric = ratio_title, .higher_better = 1, .gate = gated, .prec = 3};
            ratio_summary(h, stats_find(&gb, control, g->level), &c.b);
            ratio_summary(g, stats_find(&gc, control, g->level), &c.c);
            cells[nc++] = c;
        }
        for (int k = 0; k < nc; k++) {
            struct cell *c = &cells[k];
            double change;
            const char *v = verdict(c, thr, &change);
            char a[96], b[96], ch[32];
            fmt_sum(a, sizeof a, &c->b, c->prec);
            fmt_sum(b, sizeof b, &c->c, c->prec);
            if (isnan(change))
                snprintf(ch, sizeof ch, "–");
            else
                snprintf(ch, sizeof ch, "%+.1f %%", change * 100);
            int reg = !strcmp(v, "regressed");
            const char *mname = c->metric;
            fprintf(md, "| %s | %s | %s | %s | %s | %s | %s%s%s | %s |\n", g->label, lv, mname, a, b, ch, reg && c->gate ? "**" : "",
                    v, reg && c->gate ? "**" : "", c->gate ? "yes" : "no");
            if (!c->gate)
                continue;
            tests++;
            fprintf(jf, "<testcase classname=\"loadbench.");
            xml(jf, gname);
            fprintf(jf, "\" name=\"");
            xml(jf, mname);
            fprintf(jf, "\">");
            if (reg) {
                failures++;
                fprintf(nf, "%s%s %s %s", failures > 1 ? ", " : "", gname, mname, ch);
                char msg[512];
                snprintf(msg, sizeof msg, "regressed %s (baseline %s, current %s, threshold %.0f %%)", ch, a, b, thr * 100);
                fprintf(jf, "<failure message=\"");
                xml(jf, msg);
                fprintf(jf, "\"/>");
            } else {
                fprintf(jf, "<system-out>%s %s</system-out>", v, ch);
            }
            fprintf(jf, "</testcase>\n");
        }
    }
    for (size_t gi = 0; gi < gb.n; gi++)
        if (!stats_find(&gc, gb.g[gi].label, gb.g[gi].level)) {
            char gname[128];
            fprintf(md, "| %s | – | – | | not in the current run | | missing | |\n", stats_group_name(&gb.g[gi], gname, sizeof gname));
        }
    fclose(jf);
    fclose(nf);
    if (failures)
        fprintf(md, "\n**Regressed beyond %.0f %%:** %s.\n", thr * 100, names);
    else
        fprintf(md, "\nNo gated cell regressed beyond %.0f %%.\n", thr * 100);
    if (junit) {
        fprintf(junit, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"loadbench compare\" tests=\"%d\" failures=\"%d\" errors=\"0\">\n%s</testsuite>\n</testsuites>\n",
                tests, failures, jbuf ? jbuf : "");
    }
    if (failures)
        util_err(err, "%s", names);
    free(jbuf);
    free(names);
    stats_groups_free(&gb);
    stats_groups_free(&gc);
    return failures ? 1 : 0;
}
