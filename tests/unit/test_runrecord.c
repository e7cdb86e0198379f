/* runrecord: a run's status derived from its rows against its profile
 * (every tool entry x sweep level x repeat, "only" when --only made it;
 * interrupted and missing rows are not final; a claim of complete is
 * checked, no other status upgraded) and the status a run settles on. */
#include "report/runrecord.h"
#include "tests/tap.h"
#include "common/util.h"

#include <math.h>
#include <string.h>

static json_t *row(const char *label, double level, int repeat, const char *status)
{
    json_t *r = json_pack("{s:s, s:i, s:s}", "label", label, "repeat", repeat, "status", status);
    json_object_set_new(r, "level", !isnan(level) ? json_real(level) : json_null());
    return r;
}

/* Two tools: "a" sweeps levels 1 and 2 (its own load), "b" has the
 * profile's load; repeat 2. Every row ok. */
static json_t *mkrun(void)
{
    json_t *rows = json_array();
    for (int rep = 1; rep <= 2; rep++) {
        json_array_append_new(rows, row("a", 1, rep, "ok"));
        json_array_append_new(rows, row("a", 2, rep, "ok"));
        json_array_append_new(rows, row("b", NAN, rep, "failed"));
    }
    return json_pack("{s:s, s:{s:i, s:{}, s:[{s:s, s:{s:[f, f]}}, {s:s}]}, s:o}", "status", "complete", "profile",
                     "repeat", 2, "load", "tools", "label", "a", "load", "sweep", 1.0, 2.0, "label", "b", "runs", rows);
}

static void test_status(void)
{
    char why[512];
    json_t *run = mkrun();
    is_str(runstatus(run, why, sizeof why), "complete", "every entry has a final row (a failed row is final)");
    is_str(why, "", "and nothing is missing");
    json_t *runs = json_object_get(run, "runs");
    json_object_set_new(json_array_get(runs, 3), "status", json_string("interrupted")); /* a@1#2 */
    is_str(runstatus(run, why, sizeof why), "incomplete", "an interrupted row: a claim of complete is read as incomplete");
    is_str(why, "a@1#2 (interrupted)", "naming the entry, its level and repeat");
    json_array_remove(runs, 3);
    json_array_remove(runs, 2); /* b#1 */
    runstatus(run, why, sizeof why);
    is_str(why, "a@1#2 (no row), b#1 (no row)", "a missing row is named too, in profile order");
    json_object_set_new(run, "only", json_pack("[s]", "b"));
    runstatus(run, why, sizeof why);
    is_str(why, "b#1 (no row)", "\"only\": just the labels the run set out to measure");
    json_object_set_new(run, "status", json_string("interrupted"));
    is_str(runstatus(run, NULL, 0), "interrupted", "a status that claims no end is kept");
    json_decref(run);

    run = mkrun();
    json_object_set_new(run, "status", json_string("incomplete"));
    is_str(runstatus(run, NULL, 0), "incomplete", "incomplete is never upgraded, even with every row final");
    runstatus_settle(run, "complete");
    is_str(json_string_value(json_object_get(run, "status")), "complete", "settled after a run's steps: complete");
    ok(!json_object_get(run, "status_detail"), "and no detail");
    json_array_remove(json_object_get(run, "runs"), 0);
    runstatus_settle(run, "complete");
    is_str(json_string_value(json_object_get(run, "status")), "incomplete", "settled without a@1#1: incomplete");
    is_str(json_string_value(json_object_get(run, "status_detail")), "no final row for: a@1#1 (no row)", "with why");
    json_decref(run);

    run = json_pack("{s:s, s:[]}", "status", "complete", "runs");
    is_str(runstatus(run, why, sizeof why), "incomplete", "a run.json without tool entries cannot be complete");
    json_decref(run);
}

int main(void)
{
    test_status();
    return done_testing();
}
