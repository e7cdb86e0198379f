#include "report/runrecord.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- status: the rows against the profile --------------------------------- */

/* 1 when the row ended with a status a report can stand on: anything but
 * interrupted (or no status, or a word loadbench does not write). */
static int row_final(json_t *row)
{
    static const char *const final[] = {"ok", "skipped", "suspect", "failed", "timeout", "oom", NULL};
    const char *st = json_string_value(json_object_get(row, "status"));
    for (const char *const *f = final; st && *f; f++)
        if (!strcmp(st, *f))
            return 1;
    return 0;
}

/* 1 when label is one the run set out to measure: every tool entry, or
 * only those its --only runs named (run.json "only"). */
static int in_scope(json_t *run, const char *label)
{
    json_t *only = json_object_get(run, "only"), *l;
    size_t i;
    if (!json_is_array(only))
        return 1;
    json_array_foreach(only, i, l) if (json_is_string(l) && !strcmp(json_string_value(l), label)) return 1;
    return 0;
}

/* The key of an entry (label, level, repeat) in the rows' index. */
static void entry_key(char *buf, size_t len, const char *label, double level, long rep)
{
    if (isnan(level))
        snprintf(buf, len, "%s\n-\n%ld", label, rep);
    else
        snprintf(buf, len, "%s\n%.17g\n%ld", label, level, rep);
}

/* Every row's entry to what it has: "" when each of its rows is final,
 * else the status of one that is not ("interrupted", "no status"). One
 * pass, so a run of thousands of rows is checked in linear time. */
static json_t *rows_index(json_t *runs)
{
    json_t *index = json_object(), *r;
    size_t i;
    json_array_foreach(runs, i, r)
    {
        json_t *lv = json_object_get(r, "level"), *rp = json_object_get(r, "repeat");
        char key[600];
        long rep = json_is_integer(rp) ? (long)json_integer_value(rp) : json_is_number(rp) ? (long)json_number_value(rp) : 1;
        entry_key(key, sizeof key, json_string_value(json_object_get(r, "label")) ?: "",
                  json_is_number(lv) ? json_number_value(lv) : NAN, rep);
        const char *had = json_string_value(json_object_get(index, key));
        if (had && had[0]) /* a row not final already spoke for the entry */
            continue;
        const char *st = json_string_value(json_object_get(r, "status"));
        json_object_set_new(index, key, json_string(row_final(r) ? "" : st ? st : "no status"));
    }
    return index;
}

/* NULL when the entry (label, level, rep) has rows and every one is
 * final; else what it has instead ("no row", "interrupted"). */
static const char *entry_state(json_t *index, const char *label, double level, long rep)
{
    char key[600];
    entry_key(key, sizeof key, label, level, rep);
    const char *st = json_string_value(json_object_get(index, key));
    return !st ? "no row" : st[0] ? st : NULL;
}

/* One entry without a final row, said into why ("and N more" past its room). */
static void say_entry(char *why, size_t len, size_t nth, const char *label, double level, long rep, long repeat,
                      const char *state)
{
    size_t used = why ? strlen(why) : 0;
    if (!why || !len || used + 1 >= len)
        return;
    char lv[40] = "", rp[24] = "";
    if (!isnan(level))
        snprintf(lv, sizeof lv, "@%.10g", level);
    if (repeat > 1)
        snprintf(rp, sizeof rp, "#%ld", rep);
    int n = snprintf(why + used, len - used, "%s%s%s%s (%s)", nth ? ", " : "", label, lv, rp, state);
    if (n < 0 || (size_t)n >= len - used) /* cut: end on what is left out rather than mid-name */
        snprintf(why + used, len - used, "%s...", nth ? ", " : "");
}

/* The entries run set out to measure that have no final row, each said
 * into why (may be NULL). Returns how many (a run.json without tool
 * entries has one: nothing it claims can be checked). */
static size_t entries_missing(json_t *run, char *why, size_t len)
{
    json_t *prof = json_object_get(run, "profile"), *t;
    json_t *rp = json_object_get(prof, "repeat");
    long repeat = json_is_integer(rp) && json_integer_value(rp) > 0 ? (long)json_integer_value(rp) : 1;
    size_t i, missing = 0;
    if (!json_array_size(json_object_get(prof, "tools"))) {
        if (why && len)
            snprintf(why, len, "run.json names no tool entries to measure");
        return 1;
    }
    json_t *index = rows_index(json_object_get(run, "runs"));
    json_array_foreach(json_object_get(prof, "tools"), i, t)
    {
        const char *label = json_string_value(json_object_get(t, "label"));
        if (!label || !in_scope(run, label))
            continue;
        json_t *load = json_object_get(t, "load") ?: json_object_get(prof, "load");
        json_t *sweep = json_object_get(load, "sweep");
        size_t nl = json_array_size(sweep) ? json_array_size(sweep) : 1;
        for (size_t li = 0; li < nl; li++)
            for (long rep = 1; rep <= repeat; rep++) {
                double level = json_array_size(sweep) ? json_number_value(json_array_get(sweep, li)) : NAN;
                const char *state = entry_state(index, label, level, rep);
                if (state)
                    say_entry(why, len, missing++, label, level, rep, repeat, state);
            }
    }
    json_decref(index);
    return missing;
}

const char *runstatus(json_t *run, char *why, size_t len)
{
    if (why && len)
        why[0] = 0;
    const char *rec = json_string_value(json_object_get(run, "status"));
    size_t missing = entries_missing(run, why, len);
    if (!rec)
        return "absent";
    /* Only a claim of completeness is checked: no other status is upgraded. */
    if (strcmp(rec, RUNSTATUS_COMPLETE))
        return rec;
    return missing ? RUNSTATUS_INCOMPLETE : RUNSTATUS_COMPLETE;
}

/* into's status as runstatus derives run's, and "status_detail": why it
 * is not complete (none when it is). */
static void put_status(json_t *into, json_t *run)
{
    char why[1024];
    /* A copy: the status may be run's own string, which the set replaces. */
    char *st = util_xstrdup(runstatus(run, why, sizeof why));
    json_object_set_new(into, "status", json_string(st));
    if (why[0] && strcmp(st, RUNSTATUS_COMPLETE))
        json_object_set_new(into, "status_detail", json_sprintf("no final row for: %s", why));
    else
        json_object_del(into, "status_detail");
    free(st);
}

void runstatus_settle(json_t *run, const char *ended_as)
{
    json_object_set_new(run, "status", json_string(ended_as));
    put_status(run, run);
}

json_t *runrecord_view(const char *dir, json_t *run, int *bad)
{
    (void)dir;
    json_t *view = json_deep_copy(run);
    put_status(view, run);
    if (bad)
        *bad = 0;
    return view;
}
