/* compare: each cell's verdict (improved / regressed / same / n/a), the
 * threshold and the repeat spread, the gate (only the compared tool's CPU
 * per request, RSS and RPS ratio to the control), rows new, missing and
 * failed, runs that cannot be compared, unknown labels, and the Markdown
 * and JUnit made from the cells. Runs are built here as run.json has them. */
#include "report/compare.h"
#include "tests/tap.h"
#include "common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One ok row as run.json holds it: the fields the headline metrics read. */
static json_t *mkrow(const char *label, int repeat, double rps, double rss, double cpu_s)
{
    return json_pack("{s:s, s:s, s:i, s:s, s:{s:f}, s:{s:{s:f, s:f}}, s:{s:f, s:f, s:f}, s:{s:i}, s:{s:s}}", "label", label,
                     "tool", label, "repeat", repeat, "status", "ok", "windows", "hold_rps", rps, "client", "latency_ms",
                     "p50", 2.0, "p99", 5.0, "footprint", "cpu_avg_pct", 50.0, "rss_peak_mb", rss, "cpu_seconds", cpu_s,
                     "server", "requests", 100000, "identity", "sha256", label);
}

/* lb-gen and wrk, repeats 1..n: 10,000 req/s, 10 MB, 1 CPU-s per 100k. */
static json_t *mkrun(int n)
{
    json_t *rows = json_array();
    for (int r = 1; r <= n; r++) {
        json_array_append_new(rows, mkrow("lb-gen", r, 10000, 10, 1));
        json_array_append_new(rows, mkrow("wrk", r, 10000, 10, 1));
    }
    return json_pack("{s:{s:s, s:i, s:s, s:f}, s:{s:s}, s:{s:s, s:[{s:s}, {s:s}]}, s:s, s:o}", "machine", "cpu_model",
                     "test CPU", "cores", 2, "arch", "x86_64", "memory_mb", 4096.0, "loadbench", "build", "release",
                     "profile", "name", "unit", "tools", "label", "lb-gen", "label", "wrk", "status", "complete", "runs", rows);
}

/* Multiply a.b of every row of label (repeat r, or 0 for all) by f. */
static void scale(json_t *run, const char *label, int r, const char *a, const char *b, double f)
{
    json_t *row;
    size_t i;
    json_array_foreach(json_object_get(run, "runs"), i, row)
    {
        if (strcmp(json_string_value(json_object_get(row, "label")), label) ||
            (r && json_integer_value(json_object_get(row, "repeat")) != r))
            continue;
        json_t *o = json_object_get(row, a), *v = json_object_get(o, b);
        json_object_set_new(o, b, json_real(json_number_value(v) * f));
    }
}

static const struct compare_cell *cell(const struct compare_result *r, const char *name, const char *metric)
{
    for (size_t i = 0; i < r->nrows; i++)
        for (int k = 0; !strcmp(r->rows[i].name, name) && k < r->rows[i].ncells; k++)
            if (!strcmp(r->rows[i].cells[k].metric, metric))
                return &r->rows[i].cells[k];
    return NULL;
}

static const struct compare_row *row_of(const struct compare_result *r, const char *name)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (!strcmp(r->rows[i].name, name))
            return &r->rows[i];
    return NULL;
}

static const char *verdict(const struct compare_result *r, const char *name, const char *metric)
{
    static const char *const names[] = {"n/a", "same", "improved", "regressed"};
    const struct compare_cell *c = cell(r, name, metric);
    return c ? names[c->verdict] : "(no cell)";
}

/* compare_compute with threshold thr, tool/control NULL: the defaults. */
static int run_compare(json_t *base, json_t *cur, double thr, struct compare_result *r, char *err)
{
    struct compare_opts o = {.threshold = thr};
    return compare_compute(base, cur, &o, r, err);
}

static void test_cells(void)
{
    char err[UTIL_ERR_LEN] = "";
    struct compare_result r;
    json_t *base = mkrun(1), *cur = mkrun(1);
    int rc = run_compare(base, cur, 0.10, &r, err);
    ok(rc == 0 && r.comparable && r.failures == 0, "identical runs: exit 0, nothing regressed");
    is_str(verdict(&r, "lb-gen", "RSS peak MB"), "same", "identical RSS: same");
    ok(r.gated_cells == 3, "three gated cells, all lb-gen's: CPU-s/100k req, RSS, RPS ÷ wrk (got %d)", r.gated_cells);
    const struct compare_cell *c = cell(&r, "lb-gen", "RPS hold");
    ok(c && !c->gate && c->change == 0, "absolute RPS is shown, not gated");
    ok(!cell(&r, "wrk", "RPS ÷ wrk"), "the control has no ratio cell of its own");
    compare_result_free(&r);

    scale(cur, "lb-gen", 0, "footprint", "rss_peak_mb", 1.2);
    rc = run_compare(base, cur, 0.10, &r, err);
    c = cell(&r, "lb-gen", "RSS peak MB");
    ok(rc == 1 && c && c->verdict == COMPARE_REGRESSED && c->gate && fabs(c->change - 0.2) < 1e-9,
       "lb-gen's RSS +20 %%, one repeat each: regressed, gated, exit 1");
    compare_result_free(&r);
    rc = run_compare(base, cur, 0.25, &r, err);
    ok(rc == 0 && cell(&r, "lb-gen", "RSS peak MB")->verdict == COMPARE_SAME, "the same +20 %% against a 25 %% threshold: same");
    compare_result_free(&r);

    rc = run_compare(cur, base, 0.10, &r, err);
    ok(rc == 0 && cell(&r, "lb-gen", "RSS peak MB")->verdict == COMPARE_IMPROVED, "RSS -17 %%: improved, exit 0");
    compare_result_free(&r);

    json_t *cur2 = mkrun(1);
    scale(cur2, "wrk", 0, "footprint", "rss_peak_mb", 1.5);
    scale(cur2, "wrk", 0, "footprint", "cpu_seconds", 1.5);
    rc = run_compare(base, cur2, 0.10, &r, err);
    c = cell(&r, "wrk", "RSS peak MB");
    ok(rc == 0 && c->verdict == COMPARE_REGRESSED && !c->gate, "wrk's RSS +50 %%: regressed, not gated (the noise floor), exit 0");
    compare_result_free(&r);
    json_decref(cur2);

    cur2 = mkrun(1);
    scale(cur2, "lb-gen", 0, "windows", "hold_rps", 0.8);
    rc = run_compare(base, cur2, 0.10, &r, err);
    ok(rc == 1 && cell(&r, "lb-gen", "RPS ÷ wrk")->verdict == COMPARE_REGRESSED,
       "lb-gen 20 %% slower while wrk kept its rate: RPS ÷ wrk regressed, exit 1");
    compare_result_free(&r);
    scale(cur2, "wrk", 0, "windows", "hold_rps", 0.8);
    rc = run_compare(base, cur2, 0.10, &r, err);
    ok(rc == 0 && cell(&r, "lb-gen", "RPS ÷ wrk")->verdict == COMPARE_SAME &&
           cell(&r, "lb-gen", "RPS hold")->verdict == COMPARE_REGRESSED,
       "both 20 %% slower (the machine): the ratio is the same, absolute RPS regressed but not gated");
    compare_result_free(&r);
    json_decref(cur2);

    cur2 = mkrun(1);
    json_object_del(json_array_get(json_object_get(cur2, "runs"), 0), "footprint");
    rc = run_compare(base, cur2, 0.10, &r, err);
    ok(rc == COMPARE_EXIT_MISSING && r.failures == 0 && cell(&r, "lb-gen", "RSS peak MB")->verdict == COMPARE_NA &&
           isnan(cell(&r, "lb-gen", "RSS peak MB")->change),
       "no RSS in the current run: n/a, not a regression, but missing evidence: exit 3");
    compare_result_free(&r);
    json_decref(cur2);
    json_decref(base);
    json_decref(cur);
}

static void test_spread(void)
{
    char err[UTIL_ERR_LEN] = "";
    struct compare_result r;
    json_t *base = mkrun(2), *cur = mkrun(2);
    scale(base, "lb-gen", 2, "footprint", "rss_peak_mb", 1.3);   /* baseline 10 and 13 MB */
    scale(cur, "lb-gen", 2, "footprint", "rss_peak_mb", 1.3);
    scale(cur, "lb-gen", 0, "footprint", "rss_peak_mb", 1.25);   /* current 12.5 and 16.25 MB */
    int rc = run_compare(base, cur, 0.10, &r, err);
    const struct compare_cell *c = cell(&r, "lb-gen", "RSS peak MB");
    ok(rc == 0 && c->verdict == COMPARE_SAME && fabs(c->change - 0.25) < 1e-9,
       "median +25 %% but the ranges [10-13] and [12.5-16.25] overlap: same");
    compare_result_free(&r);
    scale(cur, "lb-gen", 1, "footprint", "rss_peak_mb", 1.1);    /* current 13.75 and 16.25 MB */
    rc = run_compare(base, cur, 0.10, &r, err);
    ok(rc == 1 && cell(&r, "lb-gen", "RSS peak MB")->verdict == COMPARE_REGRESSED,
       "ranges [10-13] and [13.75-16.25] apart: regressed");
    compare_result_free(&r);
    json_decref(base);
    json_decref(cur);
}

static void test_rows(void)
{
    char err[UTIL_ERR_LEN] = "";
    struct compare_result r;
    json_t *base = mkrun(1), *cur = mkrun(1);
    json_array_append_new(json_object_get(cur, "runs"), mkrow("hey", 1, 5000, 10, 1));
    json_array_append_new(json_object_get(base, "runs"), mkrow("ab", 1, 5000, 10, 1));
    int rc = run_compare(base, cur, 0.10, &r, err);
    ok(rc == 0 && row_of(&r, "hey") && row_of(&r, "hey")->kind == COMPARE_ROW_NEW, "a tool only in the current run: new");
    ok(row_of(&r, "ab") && row_of(&r, "ab")->kind == COMPARE_ROW_MISSING && &r.rows[r.nrows - 1] == row_of(&r, "ab"),
       "a tool only in the baseline: missing, listed last");
    compare_result_free(&r);
    json_decref(cur);

    cur = mkrun(1);
    json_object_set_new(json_array_get(json_object_get(cur, "runs"), 0), "status", json_string("failed"));
    rc = run_compare(base, cur, 0.10, &r, err);
    const struct compare_row *row = row_of(&r, "lb-gen");
    ok(rc == COMPARE_EXIT_MISSING && row && row->kind == COMPARE_ROW_FAILED && row->gated && row->base_ok == 1 &&
           row->cur_ok == 0 && strstr(row->missing, "1 of 1 rows failed in the current run"),
       "the compared tool ran ok in the baseline, failed now: no evidence, exit 3 (%s)", row ? row->missing : "");
    compare_result_free(&r);
    json_object_set_new(json_array_get(json_object_get(cur, "runs"), 0), "status", json_string("ok"));
    json_object_set_new(json_array_get(json_object_get(cur, "runs"), 1), "status", json_string("failed"));
    rc = run_compare(base, cur, 0.10, &r, err);
    ok(rc == COMPARE_EXIT_MISSING && row_of(&r, "wrk")->kind == COMPARE_ROW_FAILED && !row_of(&r, "wrk")->gated &&
           cell(&r, "lb-gen", "RPS ÷ wrk")->verdict == COMPARE_NA,
       "the control failed now: not gated itself, but lb-gen's RPS ÷ wrk has no value: exit 3");
    compare_result_free(&r);
    json_decref(base);
    json_decref(cur);
}

/* Missing evidence fails the gate with its own exit code: a suspect row,
 * a run not complete, an abandoned run with no rows, the compared tool
 * absent; --allow-missing passes; --include-suspect counts the row. */
static void test_missing(void)
{
    char err[UTIL_ERR_LEN] = "";
    struct compare_result r;
    struct compare_opts o = {.threshold = 0.10};
    json_t *base = mkrun(3), *cur = mkrun(3);
    json_object_set_new(json_array_get(json_object_get(cur, "runs"), 2), "status", json_string("suspect"));
    int rc = compare_compute(base, cur, &o, &r, err);
    const struct compare_row *row = row_of(&r, "lb-gen");
    ok(rc == COMPARE_EXIT_MISSING && row && strstr(row->missing, "1 of 3 rows suspect in the current run"),
       "one of lb-gen's three rows suspect: missing evidence, exit 3 (%s)", row ? row->missing : "");
    ok(row && row->cur_ok == 2, "the suspect row's figures are kept out (2 of 3 count)");
    compare_result_free(&r);
    o.allow_missing = 1;
    rc = compare_compute(base, cur, &o, &r, err);
    ok(rc == COMPARE_EXIT_PASS && r.missing == 1, "--allow-missing: exit 0, the missing cell still counted and shown");
    compare_result_free(&r);
    o = (struct compare_opts){.threshold = 0.10, .include_suspect = 1};
    rc = compare_compute(base, cur, &o, &r, err);
    ok(rc == COMPARE_EXIT_PASS && row_of(&r, "lb-gen")->cur_ok == 3, "--include-suspect: the row counts, exit 0");
    compare_result_free(&r);
    json_decref(cur);

    o = (struct compare_opts){.threshold = 0.10};
    cur = mkrun(3);
    json_object_set_new(cur, "status", json_string("interrupted"));
    rc = compare_compute(base, cur, &o, &r, err);
    ok(rc == COMPARE_EXIT_MISSING && strstr(r.run_missing, "current run's status is interrupted"),
       "a current run that was interrupted: exit 3 (%s)", r.run_missing);
    compare_result_free(&r);
    json_object_set_new(cur, "status", json_string("running"));
    json_array_clear(json_object_get(cur, "runs"));
    rc = compare_compute(base, cur, &o, &r, err);
    ok(rc == COMPARE_EXIT_MISSING && r.missing >= 1, "an abandoned run with no rows: exit 3, not a pass");
    compare_result_free(&r);
    json_decref(cur);

    cur = mkrun(3);
    json_t *rows = json_object_get(cur, "runs");
    for (size_t i = json_array_size(rows); i-- > 0;)
        if (!strcmp(json_string_value(json_object_get(json_array_get(rows, i), "label")), "lb-gen"))
            json_array_remove(rows, i);
    rc = compare_compute(base, cur, &o, &r, err);
    row = row_of(&r, "lb-gen");
    ok(rc == COMPARE_EXIT_MISSING && row && row->kind == COMPARE_ROW_MISSING && !strcmp(row->missing, "not in the current run"),
       "the compared tool's rows missing from a complete run: exit 3");
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    compare_render_junit(&r, err, f);
    fclose(f);
    ok(md && strstr(md, "failures=\"") && strstr(md, "<failure message=\"no evidence: not in the current run\"/>"),
       "JUnit: the missing cell is a failed test case");
    free(md);
    compare_result_free(&r);
    json_decref(cur);

    json_t *b2 = mkrun(3);
    rows = json_object_get(b2, "runs");
    for (size_t i = json_array_size(rows); i-- > 0;)
        if (!strcmp(json_string_value(json_object_get(json_array_get(rows, i), "label")), "lb-gen"))
            json_array_remove(rows, i);
    cur = mkrun(3);
    rc = compare_compute(b2, cur, &o, &r, err);
    ok(rc == COMPARE_EXIT_MISSING && row_of(&r, "lb-gen") && !strcmp(row_of(&r, "lb-gen")->missing, "not in the baseline"),
       "the compared tool only in the current run: nothing to gate against, exit 3");
    compare_result_free(&r);
    json_decref(b2);
    json_decref(cur);

    cur = mkrun(3);
    json_object_set_new(json_object_get(cur, "machine"), "hostname", json_string("elsewhere"));
    json_object_set_new(json_object_get(base, "machine"), "hostname", json_string("here"));
    rc = compare_compute(base, cur, &o, &r, err);
    ok(rc == COMPARE_EXIT_BAD && strstr(err, "hostname"), "another host: not comparable, exit 2 (%s)", err);
    compare_result_free(&r);
    json_decref(cur);
    cur = mkrun(3);
    json_object_set_new(json_object_get(cur, "machine"), "hostname", json_string("here"));
    json_object_set_new(json_object_get(json_array_get(json_object_get(cur, "runs"), 1), "identity"), "version",
                        json_string("4.2.0"));
    json_object_set_new(json_object_get(json_array_get(json_object_get(base, "runs"), 1), "identity"), "version",
                        json_string("4.1.0"));
    rc = compare_compute(base, cur, &o, &r, err);
    ok(rc == COMPARE_EXIT_BAD && strstr(err, "the version of \"wrk\" changed"), "the control's version changed: exit 2 (%s)", err);
    compare_result_free(&r);
    /* Issue 44, defect 12: values are quoted and escaped, so a trailing
     * space shows and a newline cannot break the line. */
    json_object_set_new(json_object_get(json_array_get(json_object_get(cur, "runs"), 1), "identity"), "version",
                        json_string("4.1.0-3+b2 "));
    json_object_set_new(json_object_get(json_array_get(json_object_get(base, "runs"), 1), "identity"), "version",
                        json_string("4.1.0-3+b2"));
    rc = compare_compute(base, cur, &o, &r, err);
    ok(rc == COMPARE_EXIT_BAD && strstr(err, "(\"4.1.0-3+b2\" vs \"4.1.0-3+b2 \")"),
       "a version that differs by a trailing space shows it (%s)", err);
    compare_result_free(&r);
    json_object_set_new(json_object_get(json_array_get(json_object_get(cur, "runs"), 1), "identity"), "version",
                        json_string("4.1\nok: 1"));
    rc = compare_compute(base, cur, &o, &r, err);
    ok(rc == COMPARE_EXIT_BAD && strstr(err, "\"4.1\\nok: 1\"") && !strchr(err, '\n'),
       "a newline in a version is shown as \\n and does not break the line (%s)", err);
    compare_result_free(&r);
    json_decref(cur);
    json_decref(base);
}

static void test_comparable_and_labels(void)
{
    char err[UTIL_ERR_LEN] = "";
    struct compare_result r;
    json_t *base = mkrun(1), *cur = mkrun(1);
    json_object_set_new(json_object_get(cur, "machine"), "cpu_model", json_string("other CPU"));
    int rc = run_compare(base, cur, 0.10, &r, err);
    ok(rc == 2 && !r.comparable && strstr(err, "different machine"), "another CPU model: not comparable (%s)", err);
    compare_result_free(&r);
    json_decref(cur);
    cur = mkrun(1);
    json_object_set_new(json_object_get(json_array_get(json_object_get(cur, "runs"), 1), "identity"), "sha256",
                        json_string("changed"));
    rc = run_compare(base, cur, 0.10, &r, err);
    ok(rc == 2 && strstr(err, "the binary of \"wrk\" changed"), "the control's binary changed: not comparable (%s)", err);
    compare_result_free(&r);
    json_decref(cur);
    cur = mkrun(1);
    json_object_set_new(json_object_get(json_array_get(json_object_get(cur, "runs"), 0), "identity"), "sha256",
                        json_string("changed"));
    rc = run_compare(base, cur, 0.10, &r, err);
    ok(rc == 0 && r.comparable, "the compared tool's binary changed: that is what is compared");
    compare_result_free(&r);

    struct compare_opts o = {.threshold = 0.10, .tool = "lbgen"};
    ok(compare_check_labels(base, cur, &o, err) == -1 && strstr(err, "--tool lbgen") && strstr(err, "lb-gen, wrk"),
       "--tool lbgen: bad input, the labels named (%s)", err);
    o = (struct compare_opts){.threshold = 0.10, .control = "wrk2"};
    ok(compare_check_labels(base, cur, &o, err) == -1 && strstr(err, "--control wrk2"), "--control wrk2: bad input (%s)", err);
    o = (struct compare_opts){.threshold = 0.10, .tool = "wrk", .control = "lb-gen"};
    ok(compare_check_labels(base, cur, &o, err) == 0, "--tool wrk --control lb-gen: both exist");
    json_array_remove(json_object_get(base, "runs"), 1);
    ok(compare_check_labels(base, cur, &o, err) == -1, "--tool wrk with wrk only in the current run: bad input (%s)", err);
    json_decref(base);
    json_decref(cur);
}

/* lb-gen's RSS in repeat r of run set to mb. */
static void set_rss(json_t *run, int r, double mb)
{
    json_t *row;
    size_t i;
    json_array_foreach(json_object_get(run, "runs"), i, row)
    {
        if (!strcmp(json_string_value(json_object_get(row, "label")), "lb-gen") &&
            json_integer_value(json_object_get(row, "repeat")) == r)
            json_object_set_new(json_object_get(row, "footprint"), "rss_peak_mb", json_real(mb));
    }
}

/* Repeats on both sides: the rank tests, Holm across the three gated
 * cells, the threshold on the Hodges–Lehmann change, pairing. */
static void test_ranked(void)
{
    char err[UTIL_ERR_LEN] = "";
    struct compare_result r;
    json_t *base = mkrun(5), *cur = mkrun(5);
    double b5[] = {10, 10.2, 9.9, 10.1, 10.05}, c5[] = {11.2, 11.3, 11.25, 11.1, 11.4};
    for (int i = 0; i < 5; i++)
        set_rss(base, i + 1, b5[i]), set_rss(cur, i + 1, c5[i]);
    int rc = run_compare(base, cur, 0.10, &r, err);
    const struct compare_cell *c = cell(&r, "lb-gen", "RSS peak MB");
    ok(rc == 1 && c->tested && c->significant && c->verdict == COMPARE_REGRESSED && fabs(c->shift.p - 2.0 / 252) < 1e-12,
       "5 vs 5 apart, +11.6 %%: p = 2/252 < 0.05/3 (Holm over 3 gated cells), regressed (p %g)", c->shift.p);
    ok(r.family == 3 && fabs(c->change - 1.2 / 10.1) < 0.02, "three cells tested; the change is the HL estimate (%g)", c->change);
    compare_result_free(&r);
    rc = run_compare(base, cur, 0.15, &r, err);
    c = cell(&r, "lb-gen", "RSS peak MB");
    ok(rc == 0 && c->significant && c->verdict == COMPARE_SAME, "the same change against 15 %%: significant but within, same");
    compare_result_free(&r);
    double m5[] = {10, 11.3, 9.9, 11.25, 10.05};
    for (int i = 0; i < 5; i++)
        set_rss(cur, i + 1, m5[i]);
    rc = run_compare(base, cur, 0.01, &r, err);
    c = cell(&r, "lb-gen", "RSS peak MB");
    ok(rc == 0 && !c->significant && c->verdict == COMPARE_SAME, "overlapping values: not significant, same even past 1 %%");
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    compare_render_md(base, cur, &r, "", f);
    fclose(f);
    ok(strstr(md, "| lb-gen | – | RSS peak MB | 10.1 [9.9–10.2] | 10.1 [9.9–11.3] | ~ ") != NULL && strstr(md, "p=0."),
       "Markdown: ~ before a change that is not significant, with its p");
    free(md);
    compare_result_free(&r);
    json_decref(base);
    json_decref(cur);

    /* 8 interleaved rounds drifting 10-17 MB, each current 12 % above its
     * round's baseline: unpaired the ranges overlap, paired every pair is up. */
    base = mkrun(8);
    cur = mkrun(8);
    for (int i = 0; i < 8; i++)
        set_rss(base, i + 1, 10 + i), set_rss(cur, i + 1, (10 + i) * 1.12);
    struct compare_opts o = {.threshold = 0.10};
    run_compare(base, cur, 0.10, &r, err);
    ok(!cell(&r, "lb-gen", "RSS peak MB")->significant, "drifting rounds, unpaired: not significant");
    compare_result_free(&r);
    o.paired = 1;
    rc = compare_compute(base, cur, &o, &r, err);
    c = cell(&r, "lb-gen", "RSS peak MB");
    ok(rc == 1 && c->shift.paired && c->shift.na == 8 && c->verdict == COMPARE_REGRESSED && fabs(c->change - 0.12) < 1e-9,
       "paired by repeat: 8 pairs all +12 %%, p = 2/256, regressed (change %g)", c->change);
    ok(fabs(expm1(c->shift.lo) - 0.12) < 1e-9 && fabs(expm1(c->shift.hi) - 0.12) < 1e-9, "its interval is [+12, +12]");
    compare_result_free(&r);
    json_decref(base);
    json_decref(cur);

    base = mkrun(6);
    cur = mkrun(6);
    o.paired = 1;
    compare_compute(base, cur, &o, &r, err);
    ok(r.family == 3 && fabs(r.family_min_p - 2.0 / 64) < 1e-12, "6 pairs: tested, smallest p 2/64");
    md = NULL;
    f = open_memstream(&md, &len);
    compare_render_md(base, cur, &r, "", f);
    fclose(f);
    ok(strstr(md, "**No gated cell can be significant**: the smallest p these sizes allow is 0.031") != NULL,
       "6 pairs against Holm over 3 cells (0.0167): the page says no cell can be significant");
    free(md);
    compare_result_free(&r);
    json_decref(base);
    json_decref(cur);
}

/* Several runs a side: rows renumbered run by run, so that paired sides
 * pair run k with run k; a run of another machine is refused. */
static void test_merge(void)
{
    char err[UTIL_ERR_LEN] = "";
    json_t *runs[4];
    const char *names[] = {"a1", "a2", "a3", "a4"};
    for (int k = 0; k < 4; k++) {
        runs[k] = mkrun(1);
        json_object_set_new(runs[k], "started_at_ms", json_integer(1795994573652 + k * 60000));
    }
    json_t *m = compare_merge_runs(runs, names, 3, err);
    json_t *rows = json_object_get(m, "runs");
    ok(m && json_array_size(rows) == 6, "3 runs of 2 rows: 6 rows");
    ok(json_number_value(json_object_get(json_array_get(rows, 4), "repeat")) == 2 * COMPARE_REPEAT_STRIDE + 1,
       "the third run's repeat 1 is 2001");
    json_decref(m);
    json_object_set_new(json_object_get(runs[3], "machine"), "cores", json_integer(8));
    ok(!compare_merge_runs(runs, names, 4, err) && strstr(err, "a1 and a4 cannot be merged") && strstr(err, "cores"),
       "a run of another machine is refused (%s)", err);
    /* One run twice on a side (issue 44, defect 6): its rows would count as
     * independent repeats and give p = 0.008 from one measurement. */
    json_t *dup[3] = {runs[0], runs[1], runs[0]};
    err[0] = 0;
    ok(!compare_merge_runs(dup, names, 3, err) && strstr(err, "a1 and a3 are one run (the same content"),
       "the same run twice on a side is refused (%s)", err);
    json_t *edited = json_deep_copy(runs[1]);
    json_object_set_new(edited, "status", json_string("interrupted"));
    json_t *same_id[2] = {runs[1], edited};
    err[0] = 0;
    ok(!compare_merge_runs(same_id, names, 2, err) && strstr(err, "a1 and a2 are one run (the same run id"),
       "a run and an edited copy of it (same start on the same host) are one run (%s)", err);
    json_decref(edited);
    for (int k = 0; k < 4; k++)
        json_decref(runs[k]);
}

static char *render(json_t *base, json_t *cur, const struct compare_opts *o, int junit, int *rc, char *err)
{
    char *buf = NULL, *jbuf = NULL;
    size_t len = 0, jlen = 0;
    FILE *md = open_memstream(&buf, &len), *jf = open_memstream(&jbuf, &jlen);
    *rc = compare_runs(base, cur, o, md, jf, err);
    fclose(md);
    fclose(jf);
    free(junit ? buf : jbuf);
    return junit ? jbuf : buf;
}

static void test_render(void)
{
    char err[UTIL_ERR_LEN] = "";
    int rc;
    json_t *base = mkrun(1), *cur = mkrun(1);
    scale(cur, "lb-gen", 0, "footprint", "rss_peak_mb", 1.2);
    struct compare_opts o = {.threshold = 0.10};
    char *md = render(base, cur, &o, 0, &rc, err);
    ok(rc == 1 && strstr(md, "| lb-gen | – | RSS peak MB | 10.0 | 12.0 | +20.0 % (1 vs 1: too few to test) | **regressed** | yes |\n"),
       "Markdown: the regressed gated cell in bold");
    ok(strstr(md, "| wrk | – | RSS peak MB | 10.0 | 10.0 | +0.0 % (1 vs 1: too few to test) | same | no |\n") != NULL, "Markdown: wrk's cell, not gated");
    ok(strstr(md, "\n**Regressed beyond 10 %:** lb-gen RSS peak MB +20.0 % (1 vs 1: too few to test).\n") != NULL, "Markdown: the regressed cell named");
    is_str(err, "lb-gen RSS peak MB +20.0 % (1 vs 1: too few to test)", "err names it too");
    ok(strstr(md, "**No gated cell has enough values for a rank test**") != NULL, "Markdown: 1 vs 1 says no test was possible");
    free(md);
    char *x = render(base, cur, &o, 1, &rc, err);
    ok(strstr(x, "tests=\"3\" failures=\"1\" errors=\"0\"") &&
           strstr(x, "<testcase classname=\"loadbench.lb-gen\" name=\"RSS peak MB\"><failure message=\"regressed +20.0 % "
                     "(1 vs 1: too few to test) (baseline 10.0, current 12.0, threshold 10 %)\"/></testcase>"),
       "JUnit: three gated cells, the RSS one failed");
    free(x);
    o.tool = "lbgen";
    md = render(base, cur, &o, 0, &rc, err);
    ok(rc == 2 && !md[0], "--tool lbgen: exit 2, no table (%s)", err);
    free(md);
    json_decref(base);
    json_decref(cur);
}

/* A row whose footprint was not judged (loadbench was not scheduled
 * through part of it, issue #44): its footprint cells are missing
 * evidence (exit 3), never judged, even when they look regressed. */
static void test_unjudged(void)
{
    struct compare_opts o = {.threshold = 0.10};
    struct compare_result r;
    char err[UTIL_ERR_LEN];
    json_t *base = mkrun(3), *cur = mkrun(3);
    scale(cur, "lb-gen", 0, "footprint", "rss_peak_mb", 3.0);
    json_t *fp = json_object_get(json_array_get(json_object_get(cur, "runs"), 2), "footprint"); /* lb-gen #2 */
    json_object_set_new(fp, "judged", json_false());
    int rc = compare_compute(base, cur, &o, &r, err);
    const struct compare_cell *rss = cell(&r, "lb-gen", "RSS peak MB"), *rps = cell(&r, "lb-gen", "RPS hold");
    ok(rc == COMPARE_EXIT_MISSING, "a row's footprint not judged: exit 3, not regressed (%d)", rc);
    ok(rss && rss->unjudged && rss->verdict == COMPARE_NA, "its RSS cell has no verdict");
    ok(rps && !rps->unjudged && rps->verdict != COMPARE_NA, "the server-counted RPS is still judged");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    compare_render_missing(&r, f);
    fclose(f);
    ok(strstr(text, "lb-gen RSS peak MB: footprint not judged") != NULL, "the missing evidence says why: %s", text);
    free(text);
    compare_result_free(&r);
    json_decref(base);
    json_decref(cur);
}

int main(void)
{
    test_cells();
    test_spread();
    test_rows();
    test_missing();
    test_comparable_and_labels();
    test_render();
    test_ranked();
    test_merge();
    test_unjudged();
    return done_testing();
}
