/* The adapter for refgen/go-fasthttp, loadbench's Go reference generator: a
 * small closed-model program on valyala/fasthttp, the kind the Go-vs-JMeter
 * studies write by hand (refgen/README.md).
 *
 * There is no binary to install: detect() builds it from
 * refgen/go-fasthttp/main.go with Debian's golang-go (/usr/lib/go/bin/go) and
 * golang-github-valyala-fasthttp-dev in GOPATH mode (GO111MODULE=off,
 * GOPROXY=off: nothing is downloaded) into build/refgen/go-fasthttp/ at the
 * top of the tree, on first use and again when the source, the Go toolchain
 * or the fasthttp package changes. The build is not part of any run: detect
 * runs before the tool is spawned and sampled. A profile's `bin` names the
 * Go toolchain to build with. */
#include "adapters/adapter.h"
#include "adapters/refgen.h"
#include "common/fsutil.h"
#include "common/sha256.h"
#include "common/util.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define GOFH_GOPATH "/usr/share/gocode"
/* Debian's Go (golang-go, 1.19 on Debian 12), never the first go on PATH:
 * the machine may have a newer one first (/usr/local/go), and the figures
 * stay comparable only with the toolchain Debian's fasthttp was packaged
 * for. A profile's bin: names another. */
#define GOFH_GO "/usr/lib/go/bin/go"
#define GOFH_PKG "golang-github-valyala-fasthttp-dev"
#define GOFH_BUILD_LIMIT_MS 300000ull /* a cold build is ~20 s on 2 idle cores */

extern char **environ;

/* A path into out; -1 when it does not fit. */
static int pathf(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pathf(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, len, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* build/refgen/ at the top of the source tree; where that cannot be
 * written (an installed loadbench), ~/.cache/loadbench/refgen/. */
static int build_root(char *out, size_t len)
{
    if (!pathf(out, len, "%s/build/refgen", adapter_datadir()) && !fsutil_mkdir_p(out, NULL) && !access(out, W_OK))
        return 0;
    const char *home = getenv("HOME");
    if (!home || !*home)
        return -1;
    if (pathf(out, len, "%s/.cache/loadbench/refgen", home))
        return -1;
    return fsutil_mkdir_p(out, NULL) || access(out, W_OK) ? -1 : 0;
}

/* A look-up (LOADBENCH_LOOKUP_ONLY: an agent's tools table, `loadbench
 * tools --host`) makes nothing: the first of build_root's two places
 * that holds a build, or the failure of one. */
static int lookup_root(char *out, size_t len)
{
    const char *home = getenv("HOME");
    char exe[PATH_MAX], failed[PATH_MAX];
    if (!pathf(out, len, "%s/build/refgen", adapter_datadir()) &&
        !pathf(exe, sizeof exe, "%s/go-fasthttp/lb-go-fasthttp", out) &&
        !pathf(failed, sizeof failed, "%s/go-fasthttp/build-failed", out) &&
        (!access(exe, X_OK) || !access(failed, F_OK)))
        return 0;
    return !home || !*home || pathf(out, len, "%s/.cache/loadbench/refgen", home) ? -1 : 0;
}

static void first_line(char *s)
{
    s[strcspn(s, "\n")] = 0;
}

/* The upstream part of a Debian version: "1:1.31.0-4" -> "1.31.0". */
static void upstream_version(const char *deb, char *out, size_t len)
{
    const char *colon = strchr(deb, ':');
    snprintf(out, len, "%s", colon ? colon + 1 : deb);
    char *dash = strrchr(out, '-');
    if (dash)
        *dash = 0;
}

static int file_equals(const char *path, const char *text)
{
    char e[UTIL_ERR_LEN];
    char *have = adapter_slurp(NULL, path, 4096, e);
    int same = have && !strcmp(have, text);
    free(have);
    return same;
}

static int go_build(const char *gobin, const char *src, const char *dir, const char *bin, const char *fh_deb,
                    char *err)
{
    char tmpbin[PATH_MAX], log[PATH_MAX], cache[PATH_MAX], ldflags[256];
    if (pathf(tmpbin, sizeof tmpbin, "%s/.lb-go-fasthttp.%d", dir, (int)getpid()) ||
        pathf(log, sizeof log, "%s/build.log", dir) || pathf(cache, sizeof cache, "%s/.gocache-XXXXXX", dir))
        return util_err(err, "build directory path too long: %s", dir);
    /* Go's build cache (tens of MB) lives as long as the build: a cache
     * of our own, removed below, never one left to fill the disk. */
    if (!mkdtemp(cache))
        return util_err(err, "cannot make a build cache in %s: %s", dir, strerror(errno));
    snprintf(ldflags, sizeof ldflags, "-X main.fasthttpVersion=%s", fh_deb);
    unlink(log);

    /* The caller's environment with Go's settings replaced: GOPATH mode on
     * Debian's packaged sources, no proxy, a cache of our own. */
    static const char *const ours[] = {"GO111MODULE=", "GOPATH=", "GOPROXY=", "GOFLAGS=", "GOCACHE=",
                                       "GOTOOLCHAIN=", NULL};
    size_t n = 0;
    while (environ[n])
        n++;
    char **envp = util_xcalloc(n + 8, sizeof *envp), *cache_env = util_xasprintf("GOCACHE=%s", cache);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int replaced = 0;
        for (const char *const *o = ours; *o; o++)
            if (!strncmp(environ[i], *o, strlen(*o)))
                replaced = 1;
        if (!replaced)
            envp[k++] = environ[i];
    }
    envp[k++] = "GO111MODULE=off";
    envp[k++] = "GOPATH=" GOFH_GOPATH;
    envp[k++] = "GOPROXY=off";
    envp[k++] = "GOFLAGS=";
    envp[k++] = "GOTOOLCHAIN=local";
    envp[k++] = cache_env;
    envp[k] = NULL;

    const char *argv[] = {gobin, "build", "-trimpath", "-ldflags", ldflags, "-o", tmpbin, src, NULL};
    char e[UTIL_ERR_LEN];
    int rc = refgen_exec(argv, (const char *const *)envp, log, GOFH_BUILD_LIMIT_MS, e);
    struct statvfs fs; /* the room left as it ended: a full disk loses Go's own message with its log */
    double free_mb = statvfs(dir, &fs) ? -1 : (double)fs.f_bavail * (double)fs.f_frsize / 1e6;
    fsutil_remove_tree(cache);
    free(cache_env);
    free(envp);
    if (rc != 0) {
        unlink(tmpbin);
        char *text = adapter_slurp(NULL, log, 16 << 20, e); /* a whole build log: the first message is wanted */
        char why[200] = "";
        if (text) {
            /* The first compiler message, without go's "# command-line-arguments" header. */
            const char *line = text;
            if (*line == '#' && strchr(line, '\n'))
                line = strchr(line, '\n') + 1;
            snprintf(why, sizeof why, "%s", line);
            first_line(why);
        }
        free(text);
        if (rc < 0)
            return util_err(err, "building refgen/go-fasthttp failed: %s (%.0f MB free there; log: %s)", e, free_mb, log);
        return util_err(err, "go build of refgen/go-fasthttp failed (exit %d): %s (%.0f MB free there; log: %s)", rc,
                        why[0] ? why : "\"\" (its log is empty)", free_mb, log);
    }
    if (rename(tmpbin, bin)) {
        unlink(tmpbin);
        return util_err(err, "cannot move the built program to %s: %s", bin, strerror(errno));
    }
    return 0;
}

/* dir/build-failed holds why the last build there failed (a look-up and
 * `hosts install` say it), and goes once a build succeeds. Returns rc. */
static int build_mark(const char *dir, int rc, const char *why)
{
    char path[PATH_MAX], e[UTIL_ERR_LEN];
    if (pathf(path, sizeof path, "%s/build-failed", dir))
        return rc;
    if (rc)
        adapter_write(dir, "build-failed", why, e);
    else
        unlink(path);
    return rc;
}

/* A look-up's reason when nothing is built in dir: the last build's
 * failure there, or that none was made. Returns -1. */
static int lookup_missing(const char *dir, const char *exe, char *err)
{
    char path[PATH_MAX], e[UTIL_ERR_LEN];
    char *why = pathf(path, sizeof path, "%s/build-failed", dir) ? NULL : adapter_slurp(NULL, path, 4096, e);
    if (why)
        first_line(why);
    int rc = why && *why ? util_err(err, "its build on this host failed: %s", why)
                         : util_err(err, "not built on this host (%s): `loadbench hosts install HOST` builds it", exe);
    free(why);
    return rc;
}

static int gofh_detect(const char *bin, struct adapter_found *found, char *err)
{
    char gobin[PATH_MAX];
    if (bin) {
        if (adapter_which(bin, gobin, sizeof gobin))
            return util_err(err, "Go toolchain \"%s\" not found or not executable", bin);
    } else if (adapter_which(GOFH_GO, gobin, sizeof gobin)) {
        return util_err(err, "Debian's Go toolchain (" GOFH_GO ") is not installed: install golang-go "
                        "(scripts/install-tools)");
    }
    if (access(GOFH_GOPATH "/src/github.com/valyala/fasthttp/client.go", R_OK))
        return util_err(err, "fasthttp is not in the GOPATH %s: install " GOFH_PKG " (scripts/install-tools)",
                        GOFH_GOPATH);
    char src[PATH_MAX];
    struct stat s_src, s_bin;
    if (pathf(src, sizeof src, "%s/refgen/go-fasthttp/main.go", adapter_datadir()) || stat(src, &s_src))
        return util_err(err, "%s not found (set LOADBENCH_DATA to the loadbench source tree)", src);

    char gover[256], fh_deb[128];
    const char *vargv[] = {gobin, "env", "GOVERSION", NULL};
    if (adapter_capture(vargv, gover, sizeof gover) != 0)
        return util_err(err, "`%s env GOVERSION` failed: %.120s", gobin, gover);
    first_line(gover);
    const char *dargv[] = {"dpkg-query", "-W", "-f=${Version}", GOFH_PKG, NULL};
    if (adapter_capture(dargv, fh_deb, sizeof fh_deb) != 0 || !fh_deb[0] || strchr(fh_deb, ' '))
        snprintf(fh_deb, sizeof fh_deb, "unknown");
    first_line(fh_deb);

    char root[PATH_MAX], dir[PATH_MAX], exe[sizeof found->path], stampf[PATH_MAX], stamp[3 * PATH_MAX];
    int lookup = getenv("LOADBENCH_LOOKUP_ONLY") != NULL;
    if (lookup ? lookup_root(root, sizeof root) : build_root(root, sizeof root))
        return util_err(err, "no writable build directory for refgen/go-fasthttp (%s/build/refgen or "
                        "~/.cache/loadbench/refgen)", adapter_datadir());
    if (pathf(dir, sizeof dir, "%s/go-fasthttp", root) || pathf(exe, sizeof exe, "%s/lb-go-fasthttp", dir) ||
        pathf(stampf, sizeof stampf, "%s/stamp", dir))
        return util_err(err, "build directory path too long: %s", root);
    if (!lookup && fsutil_mkdir_p(dir, err))
        return -1;
    /* The source by its content, not its time: a reinstall of the same
     * build (hosts install) copies main.go anew and keeps the binary. */
    char src_sha[65] = "";
    sha256_file_hex(src, src_sha);
    pathf(stamp, sizeof stamp, "go %s %s\nfasthttp %s\nsource %s sha256 %s\n", gobin, gover, fh_deb, src, src_sha);
    if (stat(exe, &s_bin) || access(exe, X_OK) || !file_equals(stampf, stamp)) {
        /* A look-up only looks (`loadbench hosts install` builds). */
        if (lookup)
            return lookup_missing(dir, exe, err);
        if (build_mark(dir, go_build(gobin, src, dir, exe, fh_deb, err), err))
            return -1;
        char e[UTIL_ERR_LEN];
        if (adapter_write(dir, "stamp", stamp, e))
            return util_err(err, "%s", e);
    }
    memcpy(found->path, exe, sizeof found->path);

    /* "lb-go-fasthttp go1.19.8 fasthttp 1:1.31.0-4" */
    char out[256], gv[64] = "", fv[64] = "", up[64];
    const char *argv[] = {exe, "-version", NULL};
    if (adapter_capture(argv, out, sizeof out) != 0 || sscanf(out, "lb-go-fasthttp %63s fasthttp %63s", gv, fv) != 2)
        return util_err(err, "%s -version failed: %.120s", exe, out);
    upstream_version(fv, up, sizeof up);
    snprintf(found->version, sizeof found->version, "%s fasthttp %s", gv, up);
    return 0;
}

static int gofh_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    strvec_push(&p->argv, c->found->path);
    if (refgen_closed_argv(c, "go-fasthttp", "-timeout", p, err))
        return -1;
    /* GOMAXPROCS from the CPUs the tool is pinned to: the Go runtime reads
     * the affinity mask itself, but a named setting shows in the results. */
    long procs = c->tool_cpus ? __builtin_popcountll(c->tool_cpus) : sysconf(_SC_NPROCESSORS_ONLN);
    if (procs < 1)
        procs = 1;
    strvec_pushf(&p->env, "GOMAXPROCS=%ld", procs);
    p->startup_allowance_ns = 1000000000ull;
    json_object_set_new(p->settings, "GOMAXPROCS", json_integer(procs));
    json_object_set_new(p->settings, "GOGC", json_string("100 (Go default)"));
    json_object_set_new(p->settings, "runtime", json_string(c->found->version));
    json_object_set_new(p->settings, "workers", json_string("one goroutine and one keep-alive connection per connection"));
    json_object_set_new(p->settings, "stop", json_string("drain: no request started after the deadline, those in flight finished"));
    return 0;
}

static int gofh_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    return refgen_parse(c, "go-fasthttp", r, err);
}

const struct adapter adapter_go_fasthttp = {
    .name = "go-fasthttp",
    .parse_files = (const char *const[]){"stdout.txt", "stderr.txt", NULL},
    .description = "reference Go generator on fasthttp (refgen/go-fasthttp; closed model, N goroutines)",
    .install_hint = "apt-get install golang-go " GOFH_PKG " (scripts/install-tools); built on first use "
                    "(on another host: by `loadbench hosts install`)",
    .caps = ADAPTER_CLOSED,
    .versions = "live: Go 1.19.8 with Debian fasthttp 1.31.0",
    .latency_measures = "HostClient.Do() call to the response read in full (connection wait, write, server time, "
                        "read, goroutine scheduling); log-linear histogram, exact to 1 us below 2.048 ms, "
                        "< 0.1 % relative above; min/max/mean exact",
    .latency_resolution_ms = 0.001,
    .bin_is_toolchain = 1,
    .detect = gofh_detect,
    .prepare = gofh_prepare,
    .parse = gofh_parse,
};
