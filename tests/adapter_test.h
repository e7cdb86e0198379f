/* adapter_test.h: helpers shared by the adapter unit tests (test_adapters_raw,
 * test_adapters_fw, test_adapters_ref): captured fixtures copied into a temp
 * dir, fresh run directories, warning lookup, and prepare() of a profile's
 * tool into a fresh dir. Static, like tap.h (which it includes); main
 * fills fixtures and makes tmproot before any helper runs. */
#ifndef LB_ADAPTER_TEST_H
#define LB_ADAPTER_TEST_H

#include "adapters/adapter.h"
#include "spec/profile.h"
#include "tests/tap.h"
#include "common/util.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static char fixtures[4096];     /* tests/fixtures */
static char tmproot[256];       /* this test's temp root (mkdtemp) */

/* Copy src to dst. Returns 0, or -1 when either cannot be opened. */
static int __attribute__((unused)) copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb");
    if (!in)
        return -1;
    FILE *out = fopen(dst, "wb");
    if (!out) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
    return fclose(out);
}

/* A fresh empty directory under the test's temp root (a static buffer). */
static __attribute__((unused)) const char *fresh_dir(const char *name)
{
    static char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", tmproot, name);
    mkdir(dir, 0755);
    return dir;
}

/* Copy tests/fixtures/TOOL/SRC to DIR/DST; a failed check if missing. */
static void __attribute__((unused)) put_fixture(const char *tool, const char *src, const char *dir, const char *dst)
{
    char from[8192], to[1024];
    snprintf(from, sizeof from, "%s/%s/%s", fixtures, tool, src);
    snprintf(to, sizeof to, "%s/%s", dir, dst);
    if (copy_file(from, to))
        ok(0, "fixture %s/%s is there", tool, src);
}

/* 1 when one of w contains needle, else 0. */
static int __attribute__((unused)) has_warning(const struct strvec *w, const char *needle)
{
    for (size_t i = 0; i < w->n; i++)
        if (strstr(w->v[i], needle))
            return 1;
    return 0;
}

/* A profile from YAML text (a failed check with the error when it does not
 * load). Returns it, or NULL. */
static __attribute__((unused)) struct profile *load_profile(const char *text)
{
    char err[UTIL_ERR_LEN] = "";
    struct profile *p = profile_load_string("t.yaml", text, strlen(text), err);
    if (!ok(p != NULL, "test profile loads"))
        diag("  %s", err);
    return p;
}

/* What prepare_found() made: the plan, argv[1..] joined, the directory,
 * prepare()'s return value and error. */
struct prepared {
    struct adapter_plan plan;
    char argv[2048];        /* argv[1..] joined by spaces */
    char dir[512];
    int rc;
    char err[UTIL_ERR_LEN];
};

/* Run a's prepare() for tool ti of p, as found, into a fresh directory
 * prep-NAME-SEQ, against url with ca_file (the run's CA for an https://
 * url, else NULL); fills out. */
static void __attribute__((unused)) prepare_found_url(const struct adapter *a, struct profile *p, size_t ti,
                                                      const struct adapter_found *found, const char *url,
                                                      const char *ca_file, struct prepared *out)
{
    static int seq;
    char name[64];
    snprintf(name, sizeof name, "prep-%s-%d", a->name, seq++);
    snprintf(out->dir, sizeof out->dir, "%s", fresh_dir(name));
    adapter_plan_init(&out->plan);
    struct adapter_ctx c = {.profile = p, .tool = &p->tools[ti], .load = profile_tool_load(p, &p->tools[ti]),
                            .found = found, .dir = out->dir, .host = "127.0.0.1", .port = 8080,
                            .url = url, .ca_file = ca_file, .tool_cpus = p->tool_cpus};
    out->err[0] = 0;
    out->rc = a->prepare(&c, &out->plan, out->err);
    out->argv[0] = 0;
    for (size_t i = 1; i < out->plan.argv.n; i++) {
        size_t n = strlen(out->argv);
        snprintf(out->argv + n, sizeof out->argv - n, "%s%s", i > 1 ? " " : "", out->plan.argv.v[i]);
    }
}

/* prepare_found against http://127.0.0.1:8080/, no CA. */
static void __attribute__((unused)) prepare_found(const struct adapter *a, struct profile *p, size_t ti,
                                                  const struct adapter_found *found, struct prepared *out)
{
    prepare_found_url(a, p, ti, found, "http://127.0.0.1:8080/", NULL, out);
}

#endif
