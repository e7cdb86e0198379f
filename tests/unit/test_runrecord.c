/* runrecord: a run's status derived from its rows against its profile
 * (every tool entry x sweep level x repeat, "only" when --only made it;
 * interrupted and missing rows are not final; a claim of complete is
 * checked, no other status upgraded), the status a run settles on, and the
 * files a row records (size, SHA-256) checked again by a report view:
 * missing or changed files are notes and their keys are dropped. */
#include "report/runrecord.h"
#include "tests/tap.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_files(void)
{
    char dir[] = "/tmp/lb-runrecord-XXXXXX", p[512];
    if (!mkdtemp(dir))
        return;
    snprintf(p, sizeof p, "%s/a", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/a/sub", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/samples", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/a/stdout.txt", dir);
    write_file(p, "hello\n");
    snprintf(p, sizeof p, "%s/a/sub/x", dir);
    write_file(p, "x");
    snprintf(p, sizeof p, "%s/a/link", dir);
    if (symlink("/etc/hostname", p)) {}
    snprintf(p, sizeof p, "%s/samples/a.csv", dir);
    write_file(p, "t_s\n1\n");
    json_t *r = json_pack("{s:s, s:s, s:{s:s}}", "dir", "a", "label", "a", "footprint", "samples_file", "samples/a.csv");
    runrecord_files(dir, r);
    json_t *files = json_object_get(r, "files");
    ok(json_array_size(files) == 3, "three files recorded (the link is not followed), got %zu", json_array_size(files));
    is_str(json_string_value(json_object_get(json_array_get(files, 0), "path")), "a/stdout.txt", "sorted by path");
    is_str(json_string_value(json_object_get(json_array_get(files, 2), "path")), "samples/a.csv",
           "the series file its key names");
    is_str(json_string_value(json_object_get(json_array_get(files, 0), "sha256")),
           "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03", "with its SHA-256");
    json_t *run = json_pack("{s:s, s:{s:[{s:s}]}, s:[O]}", "status", "complete", "profile", "tools", "label", "a", "runs", r);
    int bad = -1;
    json_t *v = runrecord_view(dir, run, &bad);
    ok(bad == 0, "nothing changed: no note (%d)", bad);
    json_decref(v);
    snprintf(p, sizeof p, "%s/samples/a.csv", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/a/stdout.txt", dir);
    write_file(p, "HELLO\n");
    v = runrecord_view(dir, run, &bad);
    ok(bad == 2, "a file deleted and one rewritten (same size): 2 notes (%d)", bad);
    json_t *w = json_object_get(json_array_get(json_object_get(v, "runs"), 0), "warnings");
    ok(json_array_size(w) == 2 && strstr(json_string_value(json_array_get(w, 0)), "a/stdout.txt changed since the run"),
       "the changed one is named: %s", json_string_value(json_array_get(w, 0)));
    ok(strstr(json_string_value(json_array_get(w, 1)) ?: "", "samples/a.csv is missing since the run") != NULL,
       "the missing one is named: %s", json_string_value(json_array_get(w, 1)));
    ok(!json_object_get(json_object_get(json_array_get(json_object_get(v, "runs"), 0), "footprint"), "samples_file"),
       "the key naming the missing series is dropped (nothing draws or links it)");
    ok(json_object_get(json_object_get(r, "footprint"), "samples_file") != NULL, "in the view only: run is unchanged");
    json_decref(v);
    json_object_set_new(json_array_get(files, 0), "path", json_string("../../etc/hostname"));
    v = runrecord_view(dir, run, &bad);
    w = json_object_get(json_array_get(json_object_get(v, "runs"), 0), "warnings");
    ok(strstr(json_string_value(json_array_get(w, 0)) ?: "", "outside the run") != NULL,
       "a recorded path outside the run is refused, not read: %s", json_string_value(json_array_get(w, 0)));
    json_decref(v);
    json_decref(run);
    json_decref(r);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {}
}

int main(void)
{
    test_status();
    test_files();
    return done_testing();
}
