/* Unit tests for harness/engine/runcheck: what `run` refuses before it
 * starts anything, and so `validate` and `plan` too (issue #29): labels
 * that would take the place of the run directory's own files, and pairs
 * of labels whose derived file names would be one file. */
#include "engine/runcheck.h"
#include "tests/tap.h"
#include "common/util.h"

#include <stdio.h>
#include <string.h>

/* The profile with these tool entries (a YAML flow list's items) is
 * refused (needle NULL: passes) with a message containing needle. */
static void labels_after(const char *head, const char *entries, const char *needle, const char *why)
{
    char text[8192], err[UTIL_ERR_LEN] = "";
    snprintf(text, sizeof text, "load: {connections: 1, duration: 1s}\ntools: [%s]\n%s", entries, head);
    struct profile *p = profile_load_string("t.yaml", text, strlen(text), err);
    if (!p) {
        ok(0, "%s: the profile loads (%s)", why, err);
        return;
    }
    int rc = runcheck_profile(p, NULL, err);
    if (!needle) {
        if (!ok(rc == 0, "%s", why))
            diag("  got: %s", err);
    } else if (!ok(rc == -1 && !strncmp(err, "t.yaml:2:", 9) && strstr(err, needle), "%s", why)) {
        diag("  got: %s", rc ? err : "(passed)");
    }
    profile_free(p);
}

static void labels(const char *entries, const char *needle, const char *why)
{
    labels_after("", entries, needle, why);
}

int main(void)
{
    /* request: POST: a tool without ADAPTER_POST is refused, named with
     * the setting; one with it passes. */
    labels_after("request: {method: POST, body: 1KiB}\n", "{tool: lb-gen}", NULL, "a POST on lb-gen passes");
    labels_after("request: {method: POST, body: 1KiB}\n", "{tool: go-fasthttp}",
                 "go-fasthttp cannot run request: method POST (a body on every request)",
                 "a POST on a tool without the cap is refused, naming the tool and the setting");

    labels("{tool: lb-gen, label: run.json}", "run directory's own run.json", "label run.json is refused");
    labels("{tool: lb-gen, label: loadbench.lock}", "own loadbench.lock", "label loadbench.lock is refused");
    labels("{tool: lb-gen, label: RUN.JSON}", "own run.json", "and RUN.JSON (case-folding file systems)");
    labels("{tool: lb-gen, label: samples}", "own samples", "label samples (the series folder) is refused");
    labels("{tool: lb-gen, label: charts@10}", "own charts", "charts@10 (a sweep level's folder) is refused");
    labels("{tool: lb-gen, label: summary.md.tmp.7}", "own summary.md", "summary.md.tmp.7 (a temporary file) is refused");
    labels("{tool: lb-gen, label: results}", NULL, "label results (no file of the run directory) passes");
    labels("{tool: lb-gen, label: run.json#x}", NULL, "run.json#x (no repeat is written so) passes");

    labels("{tool: lb-gen, label: x}, {tool: lb-gen, label: x.target}", "labels \"x.target\" and \"x\" (line 2)",
           "x.target beside x (x's series is samples/x.target.csv) is refused");
    labels("{tool: lb-gen, label: x.p0}, {tool: lb-gen, label: x, instances: 2}", "labels \"x.p0\" and \"x\"",
           "x.p0 beside x (x's first process's series) is refused, whichever comes first");
    labels("{tool: lb-gen, label: k6}, {tool: lb-gen, label: k6@10}", "labels \"k6@10\" and \"k6\"",
           "k6@10 beside k6 (k6's folder at sweep level 10) is refused");
    labels("{tool: lb-gen, label: k6}, {tool: lb-gen, label: \"k6#2\"}", "labels \"k6#2\" and \"k6\"",
           "k6#2 beside k6 (k6's second repeat) is refused");
    labels("{tool: lb-gen, label: a b}, {tool: lb-gen, label: a_b}", "labels \"a_b\" and \"a b\"",
           "a_b beside \"a b\" (one chart charts/ts_a_b) is refused");
    labels("{tool: lb-gen, label: wrk}, {tool: lb-gen, label: WRK}", "labels \"WRK\" and \"wrk\"",
           "WRK beside wrk (one folder where the file system folds case) is refused");
    labels("{tool: lb-gen, label: x}, {tool: lb-gen, label: X.target}", "labels \"X.target\" and \"x\"",
           "X.target beside x is refused");
    labels("{tool: lb-gen, label: k6}, {tool: lb-gen, label: k6@head}, {tool: lb-gen, label: k6-2}, "
           "{tool: lb-gen, label: k6_x}, {tool: lb-gen, label: \"k6#b\"}",
           NULL, "k6, k6@head, k6-2, k6_x and k6#b share no file name: pass");

    /* Many labels: sorted, not compared pairwise. */
    static char many[4096];
    size_t n = 0;
    for (int i = 0; i < 100 && n < sizeof many - 64; i++)
        n += (size_t)snprintf(many + n, sizeof many - n, "%s{tool: lb-gen, label: g%d}", i ? ", " : "", i);
    labels(many, NULL, "100 labels g0..g99 pass");
    snprintf(many + n, sizeof many - n, ", {tool: lb-gen, label: g7.csv}");
    labels(many, "labels \"g7.csv\" and \"g7\"", "and g7.csv among them is found");
    return done_testing();
}
