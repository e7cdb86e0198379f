/* evidence: what a run.json read back must be before its figures are
 * believed (issue 44). */
#include "report/evidence.h"
#include "report/stats.h"
#include "common/limits.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first negative or non-finite number under v (at path), skipping
 * the keys in skip ("client.tool_output"): 1 with why, else 0. */
static int invalid_under(json_t *v, char *path, size_t plen, const char *const *skip, char *why, size_t len)
{
    size_t at = strlen(path), i;
    const char *k;
    json_t *x;
    for (const char *const *s = skip; *s; s++)
        if (!strcmp(path, *s))
            return 0;
    if (json_is_number(v)) {
        double d = json_number_value(v);
        if (isfinite(d) && d >= 0)
            return 0;
        char num[40];
        snprintf(num, sizeof num, json_is_integer(v) ? "%.0f" : "%.17g", d);
        snprintf(why, len, "%s is %s: %s value is not evidence", path, num, isfinite(d) ? "a negative" : "a non-finite");
        return 1;
    }
    json_object_foreach(v, k, x)
    {
        snprintf(path + at, plen - at, ".%s", k);
        if (invalid_under(x, path, plen, skip, why, len))
            return 1;
    }
    json_array_foreach(v, i, x)
    {
        snprintf(path + at, plen - at, "[%zu]", i);
        if (invalid_under(x, path, plen, skip, why, len))
            return 1;
    }
    path[at] = 0;
    return 0;
}

int evidence_row_invalid(json_t *row, char *why, size_t len)
{
    static const char *const parts[] = {"footprint", "target_footprint", "client", "server", "windows", NULL};
    static const char *const skip[] = {"client.tool_output", "windows.hold_steady", "windows.load_start_s", NULL};
    char path[256];
    for (const char *const *p = parts; *p; p++) {
        snprintf(path, sizeof path, "%s", *p);
        if (invalid_under(json_object_get(row, *p), path, sizeof path, skip, why, len))
            return 1;
    }
    return 0;
}

/* v as JSON for a message ("999", "\"x\"", "absent"), into buf. */
static const char *json_shown(json_t *v, char *buf, size_t len)
{
    char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    snprintf(buf, len, "%.60s%s", s ? s : "absent", s && strlen(s) > 60 ? "…" : "");
    free(s);
    return buf;
}

/* Row i's shape: an object, string tool, label and status, number (or
 * null: no sweep) level and repeat when present. */
static int row_check(json_t *r, size_t i, char *err)
{
    static const char *const strs[] = {"tool", "label", "status", NULL}, *const nums[] = {"level", "repeat", NULL};
    char shown[80];
    if (!json_is_object(r))
        return util_err(err, "runs[%zu] is %s, not a row (an object)", i, json_shown(r, shown, sizeof shown));
    for (const char *const *k = strs; *k; k++)
        if (!json_is_string(json_object_get(r, *k)))
            return util_err(err, "runs[%zu].%s is %s, not a string", i, *k,
                            json_shown(json_object_get(r, *k), shown, sizeof shown));
    for (const char *const *k = nums; *k; k++) {
        json_t *v = json_object_get(r, *k);
        if (v && !json_is_number(v) && !json_is_null(v))
            return util_err(err, "runs[%zu].%s is %s, not a number", i, *k, json_shown(v, shown, sizeof shown));
    }
    return 0;
}

int evidence_run_check(json_t *run, int evidence, char *err)
{
    char shown[80], why[200];
    json_t *sv = json_object_get(run, "schema_version"), *rows = json_object_get(run, "runs"), *r;
    size_t i;
    if (!json_is_object(run))
        return util_err(err, "not a loadbench run (not a JSON object)");
    if (!json_is_integer(sv) || json_integer_value(sv) != LB_SCHEMA_VERSION)
        return util_err(err, "schema_version is %s: this loadbench reads schema %d only (a run of another version)",
                        json_shown(sv, shown, sizeof shown), LB_SCHEMA_VERSION);
    if (!json_is_array(rows))
        return util_err(err, "runs is %s, not a list of rows: not a loadbench run", json_shown(rows, shown, sizeof shown));
    json_array_foreach(rows, i, r)
    {
        if (row_check(r, i, err))
            return -1;
        if (evidence && evidence_row_invalid(r, why, sizeof why))
            return util_err(err, "runs[%zu] (%s): %s", i, util_quote(stats_json_str(r, "label", NULL), shown, sizeof shown),
                            why);
    }
    return 0;
}

void evidence_mark_invalid(json_t *run)
{
    json_t *r;
    size_t i;
    char why[160];
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        if (!evidence_row_invalid(r, why, sizeof why))
            continue;
        json_object_set_new(r, "status", json_string(EVIDENCE_INVALID));
        json_object_set_new(r, EVIDENCE_WHY, json_string(why));
    }
}
