#include "adapters/adapter.h"
#include "common/fsutil.h"
#include "common/guard.h"
#include "common/net.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void adapter_result_init(struct adapter_result *r)
{
    memset(r, 0, sizeof *r);
    double *l = &r->lat.min;
    for (size_t i = 0; i < sizeof r->lat / sizeof(double); i++)
        l[i] = NAN;
    l = &r->lat_uncorrected.min;
    for (size_t i = 0; i < sizeof r->lat_uncorrected / sizeof(double); i++)
        l[i] = NAN;
    r->lat_low = r->lat;
    r->duration_s = NAN;
    r->rps = NAN;
}

void adapter_result_free(struct adapter_result *r)
{
    json_decref(r->extra);
    strvec_free(&r->warnings);
    free(r->fail_reason);
    r->extra = NULL;
    r->fail_reason = NULL;
}

void adapter_plan_init(struct adapter_plan *p)
{
    memset(p, 0, sizeof *p);
    p->settings = json_object();
    p->model = "closed";
}

void adapter_plan_tls(struct adapter_plan *p, const struct adapter *a, const struct adapter_ctx *ctx)
{
    if (!ctx->ca_file)
        return;
    json_object_set_new(p->settings, "tls", json_pack("{s:b, s:s, s:s}", "verified", a->tls_verifies, "how",
                                                      a->tls_how ? a->tls_how : "not stated", "library",
                                                      a->tls_library ? a->tls_library : "not stated"));
}

void adapter_plan_constant(struct adapter_plan *p, const struct profile_load *load, double level, uint64_t duration_ns)
{
    profile_load_free(p->as_run);
    p->as_run = profile_load_at_level(load, level);
    p->as_run->stages[0].duration_ns = duration_ns;
}

void adapter_plan_free(struct adapter_plan *p)
{
    profile_load_free(p->as_run);
    p->as_run = NULL;
    strvec_free(&p->argv);
    strvec_free(&p->env);
    strvec_free(&p->files);
    strvec_free(&p->warnings);
    json_decref(p->settings);
    p->settings = NULL;
}

int adapter_which(const char *name, char *out, size_t outlen)
{
    if (strchr(name, '/')) {
        char abs[PATH_MAX];
        struct stat st;
        /* A regular executable file: a FIFO or a device with the x bit
         * is not a program, and probing it would wait for ever. */
        if (!realpath(name, abs) || stat(abs, &st) || !S_ISREG(st.st_mode) || access(abs, X_OK))
            return -1;
        snprintf(out, outlen, "%s", abs);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = util_xstrdup(path), *save = NULL;
    int rc = -1;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        char cand[PATH_MAX];
        struct stat st;
        snprintf(cand, sizeof cand, "%s/%s", *dir ? dir : ".", name);
        if (!stat(cand, &st) && S_ISREG(st.st_mode) && !access(cand, X_OK)) {
            snprintf(out, outlen, "%s", cand);
            rc = 0;
            break;
        }
    }
    free(copy);
    return rc;
}

int adapter_capture(const char *const *argv, char *out, size_t outlen)
{
    return adapter_capture_in(argv, -1, out, outlen);
}

int adapter_capture_in(const char *const *argv, int in_fd, char *out, size_t outlen)
{
    int pfd[2];
    if (outlen)
        out[0] = 0;
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -1;
    pid_t gparent = guard_parent(); /* guard hook (#18) */
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        guard_child(gparent); /* guard hook (#18): a version probe dies with us */
        int in = in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(pfd[1]);
    size_t got = 0;
    uint64_t deadline = util_now_ns() + 10000000000ull;
    for (;;) {
        uint64_t now = util_now_ns();
        if (now >= deadline) {
            kill(-pid, SIGKILL);
            break;
        }
        struct pollfd p = {.fd = pfd[0], .events = POLLIN};
        int n = poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            continue;
        char buf[4096];
        ssize_t r = read(pfd[0], buf, sizeof buf);
        if (r <= 0)
            break;
        if (outlen && got < outlen - 1) {
            size_t take = (size_t)r < outlen - 1 - got ? (size_t)r : outlen - 1 - got;
            memcpy(out + got, buf, take);
            got += take;
            out[got] = 0;
        }
    }
    close(pfd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    kill(-pid, SIGKILL); /* anything the version command left behind */
    guard_forget_group(pid); /* guard hook (#18) */
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return -1;
}

int adapter_dpkg_version(const char *package, struct adapter_found *found)
{
    const char *argv[] = {"dpkg-query", "-W", "-f=${Version}", package, NULL};
    char out[512];
    if (adapter_capture(argv, out, sizeof out) != 0 || !out[0] || strstr(out, "no packages"))
        return -1;
    out[strcspn(out, "\r\n")] = 0;
    snprintf(found->version, sizeof found->version, "%.100s", out);
    return 0;
}

const char *adapter_option(const struct adapter_ctx *c, const char *key)
{
    if (!c->tool || !c->tool->options)
        return NULL;
    return json_string_value(json_object_get(c->tool->options, key));
}

char *adapter_slurp(const char *dir, const char *name, size_t max_bytes, char *err)
{
    char path[PATH_MAX];
    if (dir)
        snprintf(path, sizeof path, "%s/%s", dir, name);
    else
        snprintf(path, sizeof path, "%s", name);
    /* Checked as every tool output is (a FIFO is refused, not waited on,
     * a link not followed: below dir, in no component of name); a file
     * over max_bytes is refused whole, never read in part (a summary past
     * the part read was parsed as missing). */
    char why[UTIL_ERR_LEN];
    int fd = dir ? fsutil_open_input_beneath(dir, name, max_bytes, why) : fsutil_open_input(path, max_bytes, why);
    if (fd < 0) {
        util_err(err, "cannot read %s: %s", name, errno == ENOENT ? strerror(errno) : why);
        return NULL;
    }
    size_t cap = max_bytes < 65536 ? max_bytes : 65536, n = 0;
    char *buf = util_xmalloc(cap + 1);
    for (;;) {
        if (n == cap) {
            if (cap >= max_bytes) /* grew since the check: what the cap allows */
                break;
            cap = cap * 2 > max_bytes ? max_bytes : cap * 2;
            buf = util_xrealloc(buf, cap + 1);
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = 0;
    return buf;
}

int adapter_write(const char *dir, const char *name, const char *text, char *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return fsutil_write_text(path, text, err);
}

int adapter_body_file(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    if (!c->profile || !c->profile->request.post)
        return 0;
    size_t n = (size_t)c->profile->request.body_bytes;
    char *body = util_xmalloc(n + 1);
    memset(body, 'x', n);
    body[n] = 0;
    int rc = adapter_write_config(c->dir, ADAPTER_BODY_FILE, body, p, err);
    free(body);
    return rc ? -1 : 1;
}

int adapter_write_config(const char *dir, const char *name, const char *text, struct adapter_plan *p, char *err)
{
    if (adapter_write(dir, name, text, err))
        return -1;
    strvec_push(&p->files, name);
    return 0;
}

double adapter_json_num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

uint64_t adapter_json_count(json_t *o, const char *key)
{
    double v = adapter_json_num(o, key);
    if (isnan(v))
        return 0;
    if (v < 0)
        return ADAPTER_COUNT_NEGATIVE;
    return v >= (double)ADAPTER_COUNT_NEGATIVE ? ADAPTER_COUNT_NEGATIVE : (uint64_t)llround(v);
}

uint64_t adapter_json_uint(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_real(v) || (json_is_integer(v) && json_integer_value(v) < 0))
        return ADAPTER_COUNT_NEGATIVE;
    return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

/* ---- bounds on what a tool reports ---------------------------------------- */

#define LATENCY_MAX_MS 86400000.0   /* a day: no request of a benchmark takes longer */

static int check_latency(const struct adapter_latency *l, const char *which, double resolution_ms, double rounding_pct,
                         char *err)
{
    double rel = rounding_pct / 100 > 0.02 ? rounding_pct / 100 : 0.02;
    const double *v = &l->min;
    static const char *const names[] = {"min", "mean", "p50", "p90", "p95", "p99", "p99.9", "max"};
    for (size_t i = 0; i < sizeof *l / sizeof(double); i++)
        if (!isnan(v[i]) && !(v[i] >= 0 && v[i] < LATENCY_MAX_MS))
            return util_err(err, "the tool reported %s latency %s = %.6g ms, outside 0 ms to a day", which, names[i], v[i]);
    /* In order, with room for the tool's rounding (a percentile from a
     * histogram bucket may read above the exact max by the bucket's width;
     * Locust's p50 of rounded times may read below its exact min). */
    const double order[] = {l->min, l->p50, l->p90, l->p95, l->p99, l->p999, l->max};
    static const char *const onames[] = {"min", "p50", "p90", "p95", "p99", "p99.9", "max"};
    size_t prev = SIZE_MAX;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        if (isnan(order[i]))
            continue;
        if (prev != SIZE_MAX && order[i] < order[prev] - resolution_ms - rel * order[prev])
            return util_err(err, "the tool reported %s latency %s = %.6g ms below %s = %.6g ms: percentiles out of order",
                            which, onames[i], order[i], onames[prev], order[prev]);
        prev = i;
    }
    double slack = resolution_ms + 0.02 * (isnan(l->max) ? 0 : l->max);
    if (!isnan(l->mean) && ((!isnan(l->min) && l->mean < l->min - slack) || (!isnan(l->max) && l->mean > l->max + slack)))
        return util_err(err, "the tool reported %s latency mean = %.6g ms outside its min %.6g and max %.6g ms", which,
                        l->mean, l->min, l->max);
    return 0;
}

int adapter_result_check(const struct adapter_result *r, double resolution_ms, double rounding_pct, char *err)
{
    const struct {
        const char *name;
        uint64_t v;
    } counts[] = {{"requests", r->requests},       {"ok", r->ok},
                  {"errors", r->errors},           {"connect errors", r->err_connect},
                  {"read errors", r->err_read},    {"write errors", r->err_write},
                  {"timeouts", r->err_timeout},    {"status errors", r->err_status},
                  {"other errors", r->err_other},  {"scheduled", r->scheduled},
                  {"dropped", r->dropped},         {"late", r->late},
                  {"bytes read", r->bytes_read},   {"check failures", r->check_failed}};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        if (counts[i].v == ADAPTER_COUNT_NEGATIVE)
            return util_err(err, "the tool reported a negative count of %s: no run has one", counts[i].name);
        else if (counts[i].v > ADAPTER_COUNT_MAX)
            return util_err(err, "the tool reported %s = %llu: beyond any run", counts[i].name,
                            (unsigned long long)counts[i].v);
    if (!isnan(r->duration_s) && !(r->duration_s >= 0 && isfinite(r->duration_s)))
        return util_err(err, "the tool reported a duration of %.6g s", r->duration_s);
    if (!isnan(r->rps) && !(r->rps >= 0 && isfinite(r->rps)))
        return util_err(err, "the tool reported a rate of %.6g requests/s", r->rps);
    if (check_latency(&r->lat, "its", resolution_ms, rounding_pct, err) ||
        check_latency(&r->lat_uncorrected, "its uncorrected", resolution_ms, rounding_pct, err))
        return -1;
    return 0;
}

/* The output every tool leaves, stdout.txt and stderr.txt (the harness's
 * capture, at most 16 MiB each): -1 with err when one is there but is not
 * what the capture writes (a FIFO, a link, a device, a huge file), so the
 * row's reason names it, not a summary found missing in what was left. */
static int std_files_check(const char *dir, char *err)
{
    static const char *const names[] = {"stdout.txt", "stderr.txt"};
    for (size_t i = 0; dir && i < 2; i++) {
        char path[PATH_MAX], why[UTIL_ERR_LEN];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int fd = fsutil_open_input(path, FSUTIL_CAP_RESULT, why);
        if (fd >= 0)
            close(fd);
        else if (errno != ENOENT)
            return util_err(err, "cannot read %s: %s", names[i], why);
    }
    return 0;
}

int adapter_parse(const struct adapter *a, const struct adapter_ctx *ctx, struct adapter_result *r, char *err)
{
    if (std_files_check(ctx->dir, err) || a->parse(ctx, r, err))
        return -1;
    char why[UTIL_ERR_LEN];
    if (r->parsed && adapter_result_check(r, a->latency_resolution_ms, a->latency_rounding_pct, why)) {
        r->parsed = 0;
        return util_err(err, "unparseable output: %s", why);
    }
    return 0;
}

/* The length of the valid UTF-8 sequence at s (1-4), or 0 when the bytes
 * there are not one (overlong forms, surrogates and code points above
 * U+10FFFF are not: jansson refuses them too). */
static size_t utf8_seq_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return n;
}

json_t *adapter_json_text(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t len = strlen(s), o = 0;
    char *buf = util_xmalloc(len * 4 + 1);
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq_len(u + i);
        if (n) {
            memcpy(buf + o, u + i, n);
            o += n;
            i += n;
        } else {
            o += (size_t)sprintf(buf + o, "\\x%02X", u[i]);
            i++;
        }
    }
    buf[o] = 0;
    j = json_string(buf);
    free(buf);
    return j ? j : json_string("(text not representable)");
}

const char *adapter_bindir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
        if (n <= 0) {
            strcpy(dir, ".");
        } else {
            dir[n] = 0;
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = 0;
        }
    }
    return dir;
}

const char *adapter_datadir(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    const char *env = getenv("LOADBENCH_DATA");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
        return dir;
    }
    /* In the source tree the binary is build/bin/loadbench: the data is two
     * levels up. Installed, it is ../share/loadbench. */
    char cand[PATH_MAX];
    struct stat st;
    snprintf(cand, sizeof cand, "%s/../../adapters", adapter_bindir());
    if (!stat(cand, &st) && S_ISDIR(st.st_mode)) {
        snprintf(cand, sizeof cand, "%s/../..", adapter_bindir());
        if (realpath(cand, dir))
            return dir;
    }
    snprintf(cand, sizeof cand, "%s/../share/loadbench", adapter_bindir());
    if (!realpath(cand, dir))
        snprintf(dir, sizeof dir, "%s", cand);
    return dir;
}

const char *const *adapter_tools_dirs(void)
{
    static char dirs[3][PATH_MAX];
    static const char *list[4];
    if (list[0])
        return list;
    size_t n = 0;
    const char *env = getenv("LB_TOOLS_DIR");
    if (env && *env)
        snprintf(dirs[n++], PATH_MAX, "%s", env);
    snprintf(dirs[n++], PATH_MAX, "/opt/loadbench-tools");
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(dirs[n++], PATH_MAX, "%s/loadbench/tools", xdg);
    else if (home && *home)
        snprintf(dirs[n++], PATH_MAX, "%s/.local/share/loadbench/tools", home);
    for (size_t i = 0; i < n; i++)
        list[i] = dirs[i];
    list[n] = NULL;
    return list;
}

int adapter_tools_file(const char *rel, char *out, size_t outlen)
{
    const char *const *dirs = adapter_tools_dirs();
    for (const char *const *d = dirs; *d; d++) {
        snprintf(out, outlen, "%s/%s", *d, rel);
        if (!access(out, F_OK))
            return 0;
    }
    snprintf(out, outlen, "%s/%s", dirs[0], rel);
    return -1;
}

int adapter_free_ports(int *ports, size_t n, char *err)
{
    struct sockaddr_in a;
    if (net_parse_addr("127.0.0.1:0", &a, err))
        return -1;
    int *fds = util_xcalloc(n, sizeof *fds);
    size_t got = 0;
    int rc = 0;
    while (got < n && !rc) {
        int fd = net_listen(&a, 1, 0, err);
        if (fd < 0) {
            rc = -1;
            break;
        }
        fds[got++] = fd;
        if ((ports[got - 1] = net_local_port(fd)) <= 0)
            rc = util_err(err, "no free port for the tool's processes on 127.0.0.1");
    }
    for (size_t i = 0; i < got; i++)
        close(fds[i]);
    free(fds);
    return rc;
}

int adapter_random_hex(char *out, size_t nbytes, char *err)
{
    unsigned char b[64];
    if (nbytes > sizeof b)
        return util_err(err, "at most %zu random bytes at once", sizeof b);
    if (getrandom(b, nbytes, 0) != (ssize_t)nbytes)
        return util_err(err, "no random bytes: %s", strerror(errno));
    for (size_t i = 0; i < nbytes; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
}

int adapter_csv_split(char *line, char **f, int max)
{
    int n = 0;
    char *s = line;
    while (n < max) {
        if (*s == '"') {
            char *w = ++s;
            f[n++] = w;
            while (*s) {
                if (s[0] == '"' && s[1] == '"') {
                    *w++ = '"';
                    s += 2;
                } else if (s[0] == '"') {
                    s++;
                    break;
                } else {
                    *w++ = *s++;
                }
            }
            *w = 0;
            s += strcspn(s, ",");
        } else {
            f[n++] = s;
            s += strcspn(s, ",\r\n");
        }
        if (*s != ',') {
            *s = 0;
            break;
        }
        *s++ = 0;
    }
    return n;
}
