/* Unit tests for what the Go-module tools' adapters (bombardier, Vegeta)
 * share or add beyond their parsers (which test_adapters_raw runs on the
 * captured fixtures):
 *   - the module version a Go binary carries (toolver_go_module*), read
 *     when a build stamped no version: on planted build-info text, and on
 *     the tools folder's real binaries where they are installed;
 *   - every flag the adapters pass is in the tool's own help, as captured
 *     from v12.13.0 and v12.8.4 (Vegeta) and v1.2.6 (bombardier). */
#include "adapters/adapter.h"
#include "adapters/toolver.h"
#include "profile/profile.h"
#include "tests/tap.h"
#include "tests/adapter_test.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const struct adapter adapter_bombardier, adapter_vegeta;

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
    test_go_module();
    test_flags_in_help();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmproot);
    if (system(cmd) != 0)
        diag("could not remove %s", tmproot);
    return done_testing();
}
