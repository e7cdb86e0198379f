/* Unit tests for what the Go-module tools' adapters (bombardier, Vegeta)
 * share or add beyond their parsers (which test_adapters_raw runs on the
 * captured fixtures):
 *   - Vegeta's results.csv is read through the one safe reader (issue 44,
 *     defect 2): a FIFO there is refused at once, not waited on; a symbolic
 *     link is refused, not followed (here to a valid CSV that would parse);
 *     a 1 GiB file with no newline is refused after one bounded row, never
 *     buffered (the test's peak RSS grows by less than 64 MiB); a row of
 *     other than `vegeta encode -to csv`'s 12 columns is refused;
 *   - the module version a Go binary carries (toolver_go_module*), read
 *     when a build stamped no version: on planted build-info text, and on
 *     the tools folder's real binaries where they are installed;
 *   - every flag the adapters pass is in the tool's own help, as captured
 *     from v12.13.0 and v12.8.4 (Vegeta) and v1.2.6 (bombardier). */
#include "adapters/adapter.h"
#include "adapters/toolver.h"
#include "spec/profile.h"
#include "tests/tap.h"
#include "tests/adapter_test.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

extern const struct adapter adapter_bombardier, adapter_vegeta;

/* Vegeta's parser on dir (report.json and results.csv planted there). */
static int vegeta_parse(const char *dir, struct adapter_result *r, char *err)
{
    adapter_result_free(r);
    adapter_result_init(r);
    struct adapter_ctx c = {.dir = dir, .host = "127.0.0.1", .url = "http://127.0.0.1:1/"};
    err[0] = 0;
    return adapter_vegeta.parse(&c, r, err);
}

/* A run directory holding the v12.13.0 closed run's report.json, and its
 * results.csv when csv is set. */
static const char *vegeta_run_dir(const char *name, int csv)
{
    const char *d = fresh_dir(name);
    put_fixture("vegeta", "closed.report.json", d, "report.json");
    if (csv)
        put_fixture("vegeta", "closed.results.csv", d, "results.csv");
    return d;
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void test_results_csv_reader(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN], path[1024], target[1024];

    const char *d = vegeta_run_dir("vg-plain", 1);
    ok(vegeta_parse(d, r, err) == 0 && r->requests == 2541, "results.csv as a file: parses, 2541 rows (%s)", err);

    /* A FIFO: the old fopen waited for a writer for ever (the alarm ends
     * the test instead of hanging it). */
    d = vegeta_run_dir("vg-fifo", 0);
    snprintf(path, sizeof path, "%s/results.csv", d);
    ok(mkfifo(path, 0600) == 0, "a FIFO planted as results.csv");
    alarm(20);
    int rc = vegeta_parse(d, r, err);
    alarm(0);
    ok(rc == -1 && strstr(err, "FIFO") && !strstr(err, "wrote no"),
       "results.csv a FIFO: refused at once, said as it is (%s)", err);

    /* A symbolic link to a valid CSV: followed, it would parse. */
    const char *real = vegeta_run_dir("vg-link-target", 1);
    snprintf(target, sizeof target, "%s/results.csv", real);
    d = vegeta_run_dir("vg-link", 0);
    snprintf(path, sizeof path, "%s/results.csv", d);
    ok(symlink(target, path) == 0, "a symbolic link to a valid results.csv planted");
    ok(vegeta_parse(d, r, err) == -1 && strstr(err, "symbolic link") && !r->parsed,
       "results.csv a symbolic link: refused, not followed (%s)", err);

    /* 1 GiB with no newline (sparse: a row's start, then NUL bytes). */
    d = vegeta_run_dir("vg-huge", 0);
    snprintf(path, sizeof path, "%s/results.csv", d);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    static const char start[] = "1796374241688602317,200,554954,0,0,";
    int planted = fd >= 0 && write(fd, start, sizeof start - 1) == (ssize_t)(sizeof start - 1) &&
                  ftruncate(fd, 1ll << 30) == 0;
    if (fd >= 0)
        close(fd);
    ok(planted, "a 1 GiB results.csv with no newline planted");
    long before = peak_rss_kib();
    rc = vegeta_parse(d, r, err);
    long grew = peak_rss_kib() - before;
    ok(rc == -1 && strstr(err, "line 1") && !r->parsed, "1 GiB with no newline: refused at its first row (%s)", err);
    ok(grew < 64 * 1024, "1 GiB with no newline: peak RSS grew by %ld KiB, under 64 MiB", grew);

    /* Rows of other than Vegeta's 12 columns. */
    static const char *const bad[] = {
        /* 11: no headers column */
        "1796374241688602317,200,554954,0,0,,,,1,GET,http://127.0.0.1:18300/json\n",
        /* 13 */
        "1796374241688602317,200,554954,0,0,,,,1,GET,http://127.0.0.1:18300/json,,x\n",
        /* latency and status swapped */
        "1796374241688602317,554954,200,0,0,,,,1,GET,http://127.0.0.1:18300/json,\n",
        /* URL where the method is */
        "1796374241688602317,200,554954,0,0,,,,1,http://127.0.0.1:18300/json,GET,\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char name[32];
        snprintf(name, sizeof name, "vg-bad-%zu", i);
        d = vegeta_run_dir(name, 0);
        snprintf(path, sizeof path, "%s/results.csv", d);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(bad[i], f);
            fclose(f);
        }
        ok(vegeta_parse(d, r, err) == -1 && strstr(err, "not a Vegeta result row"),
           "a row not of Vegeta's 12 columns (%zu): refused (%s)", i, err);
    }
}

static void test_go_module(void)
{
    char v[128];
    /* As `go version -m` prints it, with the sentinels around it. */
    static const char info[] = "\x30\x77\xaf\x0c\x92\x74\x08\x02\x41\xe1\xc1\x07\xe6\xd6\x18\xe6"
                               "path\tgithub.com/tsenart/vegeta/v12\n"
                               "mod\tgithub.com/tsenart/vegeta/v12\tv12.13.0\th1:J/UiNS3f69=\n"
                               "dep\tgithub.com/beorn7/perks\tv1.0.1\th1:Vl=\n";
    ok(toolver_go_module(info, sizeof info - 1, "github.com/tsenart/vegeta/v12", v, sizeof v) == 0 &&
           !strcmp(v, "v12.13.0"), "build info: the main module's version (%s)", v);
    ok(toolver_go_module(info, sizeof info - 1, "github.com/beorn7/perks", v, sizeof v) == -1,
       "build info: a dependency is not the main module");
    ok(toolver_go_module(info, sizeof info - 1, "github.com/tsenart/vegeta", v, sizeof v) == -1,
       "build info: another module path (no /v12) is not it");
    size_t cut = (size_t)(strstr(info, "v12.13.0\t") - info) + 5;
    ok(toolver_go_module(info, cut, "github.com/tsenart/vegeta/v12", v, sizeof v) == -1,
       "build info cut inside the version: none, not v12.1");
    static const char devel[] = "path\tgithub.com/codesenberg/bombardier\nmod\tgithub.com/codesenberg/bombardier\t"
                                "(devel)\t\n";
    ok(toolver_go_module(devel, sizeof devel - 1, "github.com/codesenberg/bombardier", v, sizeof v) == -1,
       "build info of a work-tree build, (devel): none");

    toolver_go_version("v1.2.6", 6, "/bin/sh", "github.com/codesenberg/bombardier", v, sizeof v);
    is_str(v, "v1.2.6", "go version: the stamped one when there is one");
    toolver_go_version("", 0, "/bin/sh", "github.com/tsenart/vegeta/v12", v, sizeof v);
    is_str(v, "unknown", "go version: none stamped and no build info: unknown");
    toolver_go_version("unspecified", 11, "/nonexistent/bombardier", "github.com/codesenberg/bombardier", v,
                       sizeof v);
    is_str(v, "unknown", "go version: bombardier's \"unspecified\" and no binary: unknown");

    /* The tools folder's real binaries: the version scanned from the file,
     * as a build without -ldflags would need it. */
    static const struct {
        const char *bin, *module, *version;
    } real[] = {
        {"/opt/loadbench-tools/bin/vegeta", "github.com/tsenart/vegeta/v12", "v12.13.0"},
        {"/opt/loadbench-tools/bin/bombardier", "github.com/codesenberg/bombardier", "v1.2.6"},
    };
    for (size_t i = 0; i < sizeof real / sizeof *real; i++) {
        if (access(real[i].bin, X_OK)) {
            ok(1, "# SKIP no %s (scripts/install-tools installs it)", real[i].bin);
            ok(1, "# SKIP no %s", real[i].bin);
            continue;
        }
        v[0] = 0;
        ok(toolver_go_module_file(real[i].bin, real[i].module, v, sizeof v) == 0 && !strcmp(v, real[i].version),
           "%s carries %s %s (%s)", real[i].bin, real[i].module, real[i].version, v);
        toolver_go_version("", 0, real[i].bin, real[i].module, v, sizeof v);
        is_str(v, real[i].version, "%s with no stamped version: its module version", real[i].bin);
    }
}

/* 1 when flag (an argv entry up to its '=') is in the usage text: after a
 * blank, before a blank, '=', ',' or the line's end. go: Go's flag package,
 * which takes -name and --name alike, so "--name" in the text counts too. */
static int in_usage(const char *usage, const char *arg, int go)
{
    char name[64];
    size_t n = strcspn(arg, "=");
    snprintf(name, sizeof name, "%.*s", (int)n, arg);
    for (const char *p = usage; (p = strstr(p, name)) != NULL; p++) {
        int after_blank = p > usage && (p[-1] == ' ' || (go && p[-1] == '-' && p - 1 > usage && p[-2] == ' '));
        if (after_blank && p[n] && strchr(" =,\n", p[n]))
            return 1;
    }
    return 0;
}

/* Every entry of argv[from..] that starts with '-' (n of them, at least
 * one) is in the help at tests/fixtures/USAGE. */
static void flags_in(const struct strvec *argv, size_t from, const char *usage_fixture, int go, const char *what)
{
    char path[8192], e[UTIL_ERR_LEN];
    snprintf(path, sizeof path, "%s/%s", fixtures, usage_fixture);
    char *usage = fsutil_slurp(path, FSUTIL_CAP_SMALL, NULL, e);
    if (!ok(usage != NULL, "%s: %s is there (%s)", what, usage_fixture, usage ? "" : e))
        return;
    size_t flags = 0, missing = 0;
    for (size_t i = from; i < argv->n; i++) {
        const char *a = argv->v[i];
        if (a[0] != '-')
            continue;
        flags++;
        if (!in_usage(usage, a, go)) {
            missing++;
            diag("  %s is not in %s", a, usage_fixture);
        }
    }
    ok(flags && !missing, "%s: its %zu flags are all in %s", what, flags, usage_fixture);
    free(usage);
}

/* The words of the wrapper script after "\"$v\" CMD " up to its first ';'
 * or "||", as an argv. */
static void script_words(const char *script, const char *cmd, struct strvec *out)
{
    char key[64];
    snprintf(key, sizeof key, "\"$v\" %s ", cmd);
    const char *p = strstr(script, key);
    if (!p)
        return;
    p += strlen(key);
    size_t n = strcspn(p, ";|");
    char *copy = util_xasprintf("%.*s", (int)n, p), *save = NULL;
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
        strvec_push(out, w);
    free(copy);
}

/* prepare_found as a binary /usr/bin/NAME that says it is "test". */
static void prepare(const struct adapter *a, struct profile *p, struct prepared *out)
{
    struct adapter_found found;
    memset(&found, 0, sizeof found);
    snprintf(found.path, sizeof found.path, "/usr/bin/%s", a->name);
    snprintf(found.version, sizeof found.version, "test");
    prepare_found(a, p, 0, &found, out);
}

static void test_flags_in_help(void)
{
    struct prepared P;
    static const char *const vprofiles[] = {
        "load: {connections: 6, duration: 1500ms, timeout: 5s}\ntools: [vegeta]\n",
        "load: {model: open, rate: 2.5, duration: 2s}\ntarget: {delay: 20ms}\ntools: [vegeta]\n",
    };
    for (size_t i = 0; i < 2; i++) {
        struct profile *p = load_profile(vprofiles[i]);
        if (!p)
            continue;
        prepare(&adapter_vegeta, p, &P);
        /* argv: /bin/sh -c SCRIPT vegeta-run VEGETA FLAGS... */
        const char *model = i ? "open" : "closed";
        char what[64];
        snprintf(what, sizeof what, "vegeta %s attack", model);
        flags_in(&P.plan.argv, 5, "vegeta/usage.txt", 0, what);
        snprintf(what, sizeof what, "vegeta v12.8.4 %s attack", model);
        flags_in(&P.plan.argv, 5, "vegeta/v12.8.4/usage.txt", 0, what);
        if (i == 0) {
            /* the wrapper's own flags, each in its command's help */
            static const char *const cmds[][2] = {{"attack", "vegeta/usage.txt"},
                                                  {"encode", "vegeta/usage-encode.txt"},
                                                  {"report", "vegeta/usage-report.txt"}};
            for (size_t k = 0; k < 3; k++) {
                struct strvec w = {0};
                script_words(P.plan.argv.v[2], cmds[k][0], &w);
                snprintf(what, sizeof what, "vegeta wrapper's %s", cmds[k][0]);
                flags_in(&w, 0, cmds[k][1], 1, what);
                strvec_free(&w);
            }
            char path[8192], e[UTIL_ERR_LEN];
            snprintf(path, sizeof path, "%s/vegeta/usage-encode.txt", fixtures);
            char *enc = fsutil_slurp(path, FSUTIL_CAP_SMALL, NULL, e);
            snprintf(path, sizeof path, "%s/vegeta/usage-report.txt", fixtures);
            char *rep = fsutil_slurp(path, FSUTIL_CAP_SMALL, NULL, e);
            ok(strstr(P.plan.argv.v[2], "encode -to csv ") && enc &&
                   strstr(enc, "--to      Output encoding (gob | json | csv)"),
               "vegeta encode -to csv: csv among its own help's encodings");
            ok(strstr(P.plan.argv.v[2], "report -type=json ") && rep &&
                   strstr(rep, "--type    Which report type to generate (text | json"),
               "vegeta report -type=json: json among its own help's types");
            ok(enc && strstr(enc, "   2. HTTP status code\n   3. Request latency in nanoseconds\n") &&
                   strstr(enc, "   6. Error\n") && strstr(enc, "  10. Method\n  11. URL\n  12. Base64"),
               "vegeta encode's own help: the 12 CSV columns where the adapter reads them");
            free(enc);
            free(rep);
        }
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
    static const char *const bprofiles[] = {
        "load: {connections: 20, duration: 1500ms, timeout: 5s}\ntools: [bombardier]\n",
        "load: {model: open, rate: 50, duration: 2s, max_inflight: 5}\ntools: [bombardier]\n",
    };
    for (size_t i = 0; i < 2; i++) {
        struct profile *p = load_profile(bprofiles[i]);
        if (!p)
            continue;
        prepare(&adapter_bombardier, p, &P);
        flags_in(&P.plan.argv, 1, "bombardier/usage.txt", 0, i ? "bombardier paced" : "bombardier closed");
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
}

int main(void)
{
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures", adapter_datadir());
    snprintf(tmproot, sizeof tmproot, "/tmp/lb-test-go.XXXXXX");
    if (!mkdtemp(tmproot)) {
        ok(0, "temp dir");
        return done_testing();
    }
    struct adapter_result r;
    adapter_result_init(&r);
    test_results_csv_reader(&r);
    test_go_module();
    test_flags_in_help();
    adapter_result_free(&r);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmproot);
    if (system(cmd) != 0)
        diag("could not remove %s", tmproot);
    return done_testing();
}
