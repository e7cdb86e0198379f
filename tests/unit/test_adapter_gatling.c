/* Unit tests for the Gatling adapter: its parser on the real captures in
 * tests/fixtures/gatling/ (each a run folder as the adapter leaves it:
 * results/<timestamped report>/index.html, lb-phases.txt), with the counts
 * of counts.tsv and the figures of each report; a report that is missing,
 * doubled or cut short is no result; the simulation prepare() writes for
 * closed, open and falling loads, compiled by OpenJDK 17's javac against
 * the installed Gatling where it is there; and the engine's phase split
 * of a sampled series (crosscheck_window_phase). */
#include "adapters/adapter.h"
#include "engine/crosscheck.h"
#include "spec/profile.h"
#include "tests/tap.h"
#include "tests/adapter_test.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern const struct adapter adapter_gatling;

#define GT_JDK "/usr/lib/jvm/java-17-openjdk-amd64"
#define GT_HOME "/opt/loadbench-tools/gatling"

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* adapter_parse (the parser and the bounds check) on dir. */
static int parse_dir(const char *dir, enum load_model model, struct adapter_result *r, char *err)
{
    struct profile_stage st = {.duration_ns = 2000000000ull, .target = 4};
    struct profile_load l = {.model = model, .stages = &st, .nstages = 1};
    struct adapter_found found = {.path = GT_HOME, .version = "3.14.9"};
    struct adapter_ctx c = {.load = &l, .found = &found, .dir = dir, .host = "127.0.0.1", .port = 18300,
                            .url = "http://127.0.0.1:18300/"};
    adapter_result_init(r);
    return adapter_parse(&adapter_gatling, &c, r, err);
}

/* ---- the captures ------------------------------------------------------------ */

struct gt_case {
    const char *name;
    enum load_model model;
    uint64_t requests, ok, err_status, err_connect; /* requests = the server's count (counts.tsv) */
    double min, p50, p95, p99, max, mean;            /* the report's All Requests row */
    uint64_t start_ms, end_ms;                       /* lb-phases.txt */
};

static const struct gt_case cases[] = {
    {"success", LOAD_CLOSED, 67, 67, 0, 0, 0, 47, 139, 515, 515, 68, 1796375236679ull, 1796375239379ull},
    {"status-404", LOAD_CLOSED, 131, 0, 131, 0, 0, 2, 9, 235, 483, 8, 1796375265764ull, 1796375266983ull},
    {"refused", LOAD_CLOSED, 0, 0, 0, 2, 436, 699, 699, 699, 699, 568, 1796375291855ull, 1796375293413ull},
    {"open", LOAD_OPEN, 200, 200, 0, 0, 1, 773, 1115, 1310, 1357, 639, 1796375317411ull, 1796375319874ull},
    {"delay-20ms", LOAD_CLOSED, 100, 100, 0, 0, 20, 27, 117, 565, 565, 49, 1796375346559ull, 1796375348830ull},
};

static void gt_parsers(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct gt_case *k = &cases[i];
        char dir[8192], err[UTIL_ERR_LEN] = "";
        snprintf(dir, sizeof dir, "%s/gatling/%s", fixtures, k->name);
        struct adapter_result r;
        if (!ok(parse_dir(dir, k->model, &r, err) == 0 && r.parsed, "gatling %s: parsed", k->name)) {
            diag("  %s", err);
            adapter_result_free(&r);
            continue;
        }
        is_u64(r.requests, k->requests, "gatling %s: completed requests = the server's count", k->name);
        is_u64(r.ok, k->ok, "gatling %s: OK", k->name);
        is_u64(r.err_status, k->err_status, "gatling %s: failed status checks", k->name);
        is_u64(r.err_connect, k->err_connect, "gatling %s: refused connections", k->name);
        is_u64(r.errors, k->err_status + k->err_connect, "gatling %s: KO = every error", k->name);
        ok(r.lat.min == k->min && r.lat.p50 == k->p50 && r.lat.p95 == k->p95 && r.lat.p99 == k->p99 &&
               r.lat.max == k->max && r.lat.mean == k->mean,
           "gatling %s: min/p50/p95/p99/max/mean %g/%g/%g/%g/%g/%g ms", k->name, k->min, k->p50, k->p95, k->p99,
           k->max, k->mean);
        ok(isnan(r.lat.p90) && isnan(r.lat.p999), "gatling %s: p90 and p99.9 absent (Gatling reports 50/75/95/99)",
           k->name);
        json_t *pct = json_object_get(r.extra, "percentiles_ms");
        ok(json_is_number(json_object_get(pct, "75th pct")), "gatling %s: its 75th percentile kept in extra", k->name);
        is_u64(r.load_start_unix_ms, k->start_ms, "gatling %s: load start from lb-phases.txt", k->name);
        is_u64(r.load_end_unix_ms, k->end_ms, "gatling %s: load end from lb-phases.txt", k->name);
        is_str(r.after_load, "report", "gatling %s: the phase after the load is named report", k->name);
        ok(fabs(r.duration_s - (double)(k->end_ms - k->start_ms) / 1000) < 1e-9, "gatling %s: duration = load end - "
           "start", k->name);
        adapter_result_free(&r);
    }
}

/* A copy of the success capture in a fresh dir, its report folder named
 * report; then edit() breaks it; the parse must fail with want in err. */
static void gt_broken(const char *what, const char *edit, const char *want)
{
    const char *dir = fresh_dir(what);
    char src[8192];
    snprintf(src, sizeof src, "%s/gatling/success", fixtures);
    sh("cp -R '%s/.' '%s/' && cd '%s' && %s", src, dir, dir, edit);
    struct adapter_result r;
    char err[UTIL_ERR_LEN] = "";
    int rc = parse_dir(dir, LOAD_CLOSED, &r, err);
    if (!ok(rc == -1 && !r.parsed && strstr(err, want), "gatling %s: no result, \"%s\"", what, want))
        diag("  rc %d, err: %s", rc, err);
    adapter_result_free(&r);
}

static void gt_broken_reports(void)
{
    gt_broken("no-javac", "rm -rf results", "javac did not compile LbSimulation.java");
    gt_broken("no-results", "rm -rf results && mkdir classes && touch classes/LbSimulation.class", "no results/ folder");
    gt_broken("no-report", "rm -rf results/*", "holds 0 report folders");
    gt_broken("two-reports", "mkdir results/lbsimulation-20261204091000000", "holds 2 report folders");
    gt_broken("no-index", "rm results/*/index.html", "has no index.html");
    gt_broken("half-written", "f=$(ls results/*/index.html) && head -c 12000 \"$f\" > t && mv t \"$f\"", "cut short");
    gt_broken("no-phases", "rm lb-phases.txt", "left no lb-phases.txt");
    gt_broken("bad-phases", "printf 'load_start_ms 1796375239379\\nload_end_ms 1796375236679\\n' > lb-phases.txt",
              "two times in order");
    gt_broken("ko-mismatch", "f=$(ls results/*/index.html) && sed -i 's/value ko col-4\">0</value ko col-4\">1</' \"$f\"",
              "Total/OK/KO");
}

/* The 404 capture's page cut at every 500 bytes and closed again with
 * </html>: each parse ends (no crash, ASan build included) with a result
 * whose counts add up, or with no result; never a result past the cut of
 * the All Requests row. */
static void gt_cut_pages(void)
{
    char src[8192];
    snprintf(src, sizeof src, "%s/gatling/status-404", fixtures);
    const char *dir = fresh_dir("cut");
    sh("cp -R '%s/.' '%s/' && cd '%s' && mv results/* results/r", src, dir, dir);
    char page[1100];
    snprintf(page, sizeof page, "%s/results/r/index.html", dir);
    char err[UTIL_ERR_LEN];
    char *whole = adapter_slurp(dir, "results/r/index.html", 1 << 20, err);
    if (!ok(whole != NULL, "cut pages: the 404 capture's index.html"))
        return;
    const char *root = strstr(whole, "<tr id=\"ROOT\"");
    size_t n = strlen(whole), parsed = 0, bad = 0, early = 0;
    for (size_t cut = 0; cut < n; cut += 500) {
        FILE *f = fopen(page, "w");
        if (!f)
            break;
        fwrite(whole, 1, cut, f);
        fputs("</html>\n", f);
        fclose(f);
        struct adapter_result r;
        if (parse_dir(dir, LOAD_CLOSED, &r, err) == 0) {
            parsed++;
            bad += r.requests > 131 || r.ok + r.errors != 131;
            early += root && whole + cut < root;
        }
        adapter_result_free(&r);
    }
    ok(parsed > 0 && bad == 0 && early == 0, "cut pages: %zu of %zu cuts parsed, every one with the whole row's counts",
       parsed, n / 500 + 1);
    free(whole);
}

/* ---- the generated simulation -------------------------------------------------- */

static int gt_prepare_text(const char *yaml, const char *dname, struct adapter_plan *plan, char **java)
{
    char err[UTIL_ERR_LEN] = "";
    struct profile *p = profile_load_string("t.yaml", yaml, strlen(yaml), err);
    adapter_plan_init(plan);
    *java = NULL;
    if (!p) {
        diag("profile: %s", err);
        return -1;
    }
    struct adapter_found found = {.path = GT_HOME, .version = "3.14.9"};
    const char *dir = fresh_dir(dname);
    struct adapter_ctx c = {.profile = p, .tool = &p->tools[0], .load = profile_tool_load(p, &p->tools[0]),
                            .found = &found, .dir = dir, .host = "127.0.0.1", .port = 18080,
                            .url = "http://127.0.0.1:18080/"};
    int rc = adapter_gatling.prepare(&c, plan, err);
    if (rc)
        diag("prepare: %s", err);
    else
        *java = adapter_slurp(dir, "LbSimulation.java", 1 << 20, err);
    profile_free(p);
    return rc;
}

static int argv_has(const struct adapter_plan *plan, const char *arg)
{
    for (size_t i = 0; i < plan->argv.n; i++)
        if (!strcmp(plan->argv.v[i], arg))
            return 1;
    return 0;
}

/* javac of dname's LbSimulation.java against the installed Gatling. */
static void gt_javac(const char *dname)
{
    if (access(GT_JDK "/bin/javac", X_OK) || access(GT_HOME "/lib", R_OK)) {
        skip("gatling %s: javac of the simulation (OpenJDK 17 or %s not installed)", dname, GT_HOME);
        return;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", tmproot, dname);
    ok(sh("cd '%s' && " GT_JDK "/bin/javac -encoding UTF-8 -nowarn -cp '" GT_HOME "/lib/*' -d classes LbSimulation.java",
          dir) == 0,
       "gatling %s: the simulation compiles with javac against Gatling's jars", dname);
}

static void gt_expect(const char *dname, const char *yaml, const char *const *needles, const char *const *absent)
{
    struct adapter_plan plan;
    char *java;
    if (!ok(gt_prepare_text(yaml, dname, &plan, &java) == 0 && java, "gatling %s: prepared", dname)) {
        adapter_plan_free(&plan);
        return;
    }
    for (const char *const *n = needles; *n; n++)
        if (!ok(strstr(java, *n) != NULL, "gatling %s: simulation has %s", dname, *n))
            diag("%s", java);
    for (const char *const *n = absent; n && *n; n++)
        ok(!strstr(java, *n), "gatling %s: simulation has no %s", dname, *n);
    ok(argv_has(&plan, "io.gatling.app.Gatling") && argv_has(&plan, "-s") && argv_has(&plan, "LbSimulation") &&
           argv_has(&plan, "-rf") && argv_has(&plan, GT_JDK "/bin/javac") && argv_has(&plan, GT_JDK "/bin/java") &&
           argv_has(&plan, "-Dgatling.data.enableAnalytics=false"),
       "gatling %s: javac then io.gatling.app.Gatling -s LbSimulation -rf, OpenJDK 17's, analytics off", dname);
    char rf[1100];
    snprintf(rf, sizeof rf, "%s/%s/results", tmproot, dname);
    ok(argv_has(&plan, rf), "gatling %s: results folder in the run dir", dname);
    gt_javac(dname);
    free(java);
    adapter_plan_free(&plan);
}

static void gt_generated(void)
{
    static const char *const closed[] = {"injectClosed(", "constantConcurrentUsers(10).during(Duration.ofMillis(5000))",
                                         "during(session -> Duration.ofMillis(session.getLong(\"lb_hold_ms\")))",
                                         ".check(status().is(200))", "requestTimeout(Duration.ofMillis(2000))",
                                         "http.baseUrl(\"http://127.0.0.1:18080\").disableWarmUp()", "LOAD_MS = 5000L",
                                         "public void after()", NULL};
    static const char *const closed_no[] = {"exitHereIf", "injectOpen", NULL};
    static const char *const check[] = {".check(status().is(404))", NULL};
    static const char *const check_no[] = {".check(status().is(200))", NULL};
    gt_expect("check", "load: {connections: 2, duration: 1s}\ncheck: {status: 404}\ntools: [gatling]\n", check, check_no);
    gt_expect("closed", "load: {connections: 10, duration: 5s, timeout: 2s}\ntools: [gatling]\n", closed, closed_no);
    static const char *const ramp[] = {"rampConcurrentUsers(0).to(20).during(Duration.ofMillis(2000))",
                                       "constantConcurrentUsers(20).during(Duration.ofMillis(3000))",
                                       "rampConcurrentUsers(20).to(5).during(Duration.ofMillis(2000))",
                                       ".exitHereIf(session -> leave())", "static double target(long t)",
                                       "if (t >= 5000L && t < 7000L) return 20 + (5 - 20) * (t - 5000L) / 2000.0;",
                                       "return Double.MAX_VALUE;",
                                       "LOAD_MS = 7000L", NULL};
    gt_expect("ramp-down",
              "load:\n  stages:\n    - {duration: 2s, target: 20}\n    - {duration: 3s, target: 20}\n"
              "    - {duration: 2s, target: 5}\ntools: [gatling]\n",
              ramp, NULL);
    static const char *const open[] = {"injectOpen(", "rampUsersPerSec(0).to(100).during(Duration.ofMillis(1000))",
                                       "constantUsersPerSec(100).during(Duration.ofMillis(4000))", ".exec(get);",
                                       NULL};
    static const char *const open_no[] = {"during(session", "requestTimeout", NULL};
    gt_expect("open",
              "load:\n  model: open\n  stages:\n    - {duration: 1s, target: 100}\n    - {duration: 4s, target: 100}\n"
              "tools: [gatling]\n",
              open, open_no);
    static const char *const heap[] = {"-Xmx2g", "-XX:+UseParallelGC", NULL};
    struct adapter_plan plan;
    char *java;
    if (gt_prepare_text("load: {connections: 2, duration: 1s}\ntools: [{tool: gatling, options: {heap: 2g, jvm_args: "
                        "\"-XX:+UseParallelGC\"}}]\n",
                        "opts", &plan, &java) == 0)
        for (const char *const *n = heap; *n; n++)
            ok(argv_has(&plan, *n), "gatling options: %s in the java command", *n);
    free(java);
    adapter_plan_free(&plan);
    ok(gt_prepare_text("load: {connections: 2, duration: 1s}\ntools: [{tool: gatling, options: {heap: lots}}]\n",
                       "bad-heap", &plan, &java) == -1,
       "gatling option heap=lots: refused");
    adapter_plan_free(&plan);
}

/* ---- the engine's phase split ------------------------------------------------------ */

static void gt_phase_split(void)
{
    /* four 1 s points: 50 %, 150 %, 150 %, 100 % of a core; RSS 100, 200, 300, 250 MB */
    struct crosscheck_point pts[] = {
        {.end_ns = 1000000000ull, .interval_s = 1, .cpu_pct = 50, .rss_mb = 100},
        {.end_ns = 2000000000ull, .interval_s = 1, .cpu_pct = 150, .rss_mb = 200},
        {.end_ns = 3000000000ull, .interval_s = 1, .cpu_pct = 150, .rss_mb = 300},
        {.end_ns = 4000000000ull, .interval_s = 1, .cpu_pct = 100, .rss_mb = 250},
    };
    struct crosscheck_phase ld, rp;
    crosscheck_window_phase(pts, 4, 1000000000ull, 2500000000ull, &ld);
    crosscheck_window_phase(pts, 4, 2500000000ull, UINT64_MAX, &rp);
    ok(fabs(ld.cpu_s - 2.25) < 1e-9, "phase split: load CPU = 1.5 + half of the third point's 1.5 (got %g)", ld.cpu_s);
    ok(fabs(rp.cpu_s - 1.75) < 1e-9, "phase split: report CPU = the other half + 1.0 (got %g)", rp.cpu_s);
    ok(ld.rss_peak_mb == 300 && rp.rss_peak_mb == 300, "phase split: a point straddling the split counts in both peaks");
    ok(fabs(ld.covered_s - 1.5) < 1e-9 && fabs(rp.covered_s - 1.5) < 1e-9, "phase split: coverage 1.5 s each");
}

int main(void)
{
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures", adapter_datadir());
    snprintf(tmproot, sizeof tmproot, "%s/lb-adapter-gatling.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmproot)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    gt_parsers();
    gt_broken_reports();
    gt_cut_pages();
    gt_generated();
    gt_phase_split();
    if (!getenv("LB_KEEP_TMP"))
        sh("rm -rf '%s'", tmproot);
    return done_testing();
}
