#include "adapters/raw.h"
#include "common/units.h"
#include "common/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <unistd.h>

int raw_pick_load(const struct adapter_ctx *c, const char *tool, struct adapter_plan *p, struct raw_load *out,
                  char *err)
{
    const struct profile_load *l = c->load;
    char d[32], t[32];
    out->open = l->model == LOAD_OPEN;
    const char *unit = out->open ? "requests/s" : "connections";
    if (l->nstages == 1 && !l->ramped) {
        out->level = l->stages[0].target;
        out->duration_ns = l->stages[0].duration_ns;
    } else {
        uint64_t hs = 0, he = 0, at = 0;
        size_t pick = 0;
        int hold = profile_hold_window(l, &hs, &he) == 0;
        for (size_t i = 0; i < l->nstages; i++) {
            if (hold && at == hs) {
                pick = i;       /* the stage the hold window starts with */
                break;
            }
            if (!hold && l->stages[i].duration_ns > l->stages[pick].duration_ns)
                pick = i;
            at += l->stages[i].duration_ns;
        }
        out->level = l->stages[pick].target;
        out->duration_ns = l->stages[pick].duration_ns;
        strvec_pushf(&p->warnings, "ramp not supported by %s: held %.10g %s for %s (%s) instead of the %zu-stage load "
                     "of %s",
                     tool, out->level, unit, units_format_duration(out->duration_ns, d),
                     hold ? "the hold phase" : "the longest stage: the load has no constant stage", l->nstages,
                     units_format_duration(profile_load_duration_ns(l), t));
    }
    if (out->level < 1)
        return util_err(err, "%s needs at least 1 %s (the load asks for %.10g)", tool,
                        out->open ? "request/s" : "connection", out->level);
    adapter_plan_constant(p, l, out->level, out->duration_ns);
    return 0;
}

int raw_closed_only(const char *tool, const struct raw_load *l, char *err)
{
    if (!l->open)
        return 0;
    return util_err(err, "%s has no rate control: it runs the closed model only (the load asks for %.10g requests/s); "
                    "give it a closed load (connections + duration) in its tools entry",
                    tool, l->level);
}

unsigned raw_threads(uint64_t tool_cpus, uint64_t connections)
{
    long n = tool_cpus ? __builtin_popcountll(tool_cpus) : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if ((uint64_t)n > connections)
        n = (long)connections;
    return n < 1 ? 1 : (unsigned)n;
}

uint64_t raw_whole_seconds(uint64_t ns, const char *tool, const char *what, struct adapter_plan *p)
{
    uint64_t s = (ns + 500000000ull) / 1000000000ull;
    if (s < 1)
        s = 1;
    if (s * 1000000000ull != ns) {
        char d[32];
        strvec_pushf(&p->warnings, "%s takes whole seconds: %s %s rounded to %llus", tool, what,
                     units_format_duration(ns, d), (unsigned long long)s);
    }
    return s;
}

static int option_err(const struct adapter_ctx *c, char *err, const char *key, const char *why)
{
    if (c->profile && c->profile->path && c->tool)
        return util_err(err, "%s:%d:%d: options.%s: %s", c->profile->path, c->tool->line, c->tool->col, key, why);
    return util_err(err, "options.%s: %s", key, why);
}

int raw_option_count(const struct adapter_ctx *c, const char *key, uint64_t *out, char *err)
{
    *out = 0;
    const char *s = adapter_option(c, key);
    if (!s)
        return 0;
    char e[UTIL_ERR_LEN];
    if (units_parse_count(s, key, out, e) || *out < 1)
        return option_err(c, err, key, "expected a whole number of at least 1");
    return 0;
}

int raw_option_bool(const struct adapter_ctx *c, const char *key, int def, int *out, char *err)
{
    *out = def;
    const char *s = adapter_option(c, key);
    if (!s)
        return 0;
    if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "1"))
        *out = 1;
    else if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "0"))
        *out = 0;
    else
        return option_err(c, err, key, "expected true or false");
    return 0;
}

int raw_paced_connections(const struct adapter_ctx *c, uint64_t def, uint64_t *out, char *err)
{
    if (raw_option_count(c, "connections", out, err))
        return -1;
    if (!*out)
        *out = c->load->max_inflight ? c->load->max_inflight : def;
    if (!*out)
        *out = 1;
    return 0;
}

int raw_connections(const struct adapter_ctx *c, const struct raw_load *l, uint64_t paced_max, struct adapter_plan *p,
                    uint64_t *out, char *err)
{
    if (l->open) {
        uint64_t want = (uint64_t)ceil(l->level);
        return raw_paced_connections(c, want < paced_max ? want : paced_max, out, err);
    }
    *out = (uint64_t)llround(l->level);
    if (c->tool && json_object_get(c->tool->options, "connections"))
        strvec_push(&p->warnings, "option connections applies to an open-model load only: the closed load's "
                    "connections were used");
    return 0;
}

uint64_t raw_paced_rate(const char *tool, const char *flag, const struct raw_load *l, uint64_t conns,
                        struct adapter_plan *p)
{
    uint64_t rate = (uint64_t)llround(l->level);
    if ((double)rate != l->level)
        strvec_pushf(&p->warnings, "%s takes a whole rate: %.10g requests/s rounded to %llu", tool, l->level,
                     (unsigned long long)rate);
    strvec_pushf(&p->warnings, "%s has no arrival-rate model: %s %llu caps %llu connections that wait for each "
                 "response (paced, not open)",
                 tool, flag, (unsigned long long)rate, (unsigned long long)conns);
    p->model = "paced";
    return rate;
}

int raw_copy_data(const struct adapter_ctx *c, const char *rel, const char *name, struct adapter_plan *p, char *err)
{
    char path[PATH_MAX], e[UTIL_ERR_LEN];
    snprintf(path, sizeof path, "%s/adapters/%s", adapter_datadir(), rel);
    char *text = adapter_slurp(NULL, path, 1 << 20, e);
    if (!text)
        return util_err(err, "missing helper file %s (set LOADBENCH_DATA to the source tree or install loadbench): %s",
                        path, e);
    int rc = adapter_write_config(c->dir, name, text, p, err);
    free(text);
    return rc;
}

int raw_find(const char *tool, const char *bin, const char *const *candidates, struct adapter_found *found,
             char *err)
{
    if (bin) {
        struct stat st;
        if (!adapter_which(bin, found->path, sizeof found->path))
            return 0;
        if (strchr(bin, '/') && !stat(bin, &st) && !S_ISREG(st.st_mode))
            return util_err(err, "%s binary \"%s\" is not a regular file (%s): not a program", tool, bin,
                            S_ISFIFO(st.st_mode)  ? "a FIFO"
                            : S_ISDIR(st.st_mode) ? "a directory"
                                                  : "a device or a socket");
        return util_err(err, "%s binary \"%s\" not found or not executable", tool, bin);
    }
    char tried[400] = "";
    for (const char *const *cand = candidates; *cand; cand++) {
        /* "T:rel": rel in each tools folder (adapter_tools_dirs), in turn. */
        const char *const *dirs = adapter_tools_dirs();
        int tools = !strncmp(*cand, "T:", 2);
        for (size_t i = 0; tools ? dirs[i] != NULL : i < 1; i++) {
            char path[PATH_MAX];
            if (tools)
                snprintf(path, sizeof path, "%s/%s", dirs[i], *cand + 2);
            else if (!strncmp(*cand, "@/", 2))
                snprintf(path, sizeof path, "%s/%s", adapter_datadir(), *cand + 2);
            else
                snprintf(path, sizeof path, "%s", *cand);
            if (!adapter_which(path, found->path, sizeof found->path))
                return 0;
            size_t n = strlen(tried);
            if (n < sizeof tried - 1)
                snprintf(tried + n, sizeof tried - n, "%s%.120s", n ? ", " : "", strchr(path, '/') ? path : "PATH");
        }
    }
    return util_err(err, "%s not found (looked in %.400s)", tool, tried);
}

/* The start of the line after p (or the end of text). */
static const char *next_line(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : p + strlen(p);
}

const char *raw_after(const char *text, const char *label)
{
    size_t len = strlen(label);
    for (const char *line = text; *line; line = next_line(line)) {
        const char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!strncmp(s, label, len))
            return s + len;
    }
    return NULL;
}

int raw_number(const char *text, const char *label, double *out)
{
    const char *s = raw_after(text, label);
    if (!s)
        return -1;
    while (*s == ' ' || *s == '\t')
        s++;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno)
        return -1;
    *out = v;
    return 0;
}

int raw_count(const char *text, const char *label, uint64_t *out)
{
    const char *s = raw_after(text, label);
    if (!s)
        return -1;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    *out = strtoull(s, NULL, 10);
    return 0;
}

int raw_line_with(const char *text, const char *needle, char *out, size_t len)
{
    const char *hit = strstr(text, needle);
    if (!hit)
        return 0;
    const char *start = hit;
    while (start > text && start[-1] != '\n')
        start--;
    size_t n = strcspn(start, "\r\n");
    if (n >= len)
        n = len - 1;
    memcpy(out, start, n);
    out[n] = 0;
    return 1;
}

void raw_add_error(struct adapter_result *r, const char *m, uint64_t n)
{
    /* Connect first: Go's "dial tcp ...: i/o timeout" is a connect timeout. */
    if (strcasestr(m, "refused") || strcasestr(m, "unable to connect") || strcasestr(m, "dial tcp") ||
        strcasestr(m, "connect:") || strcasestr(m, "no route") || strcasestr(m, "unreachable"))
        r->err_connect += n;
    else if (strcasestr(m, "timeout") || strcasestr(m, "timed out") || strcasestr(m, "deadline exceeded"))
        r->err_timeout += n;
    else if (strcasestr(m, "reset by peer") || strcasestr(m, "EOF") || strcasestr(m, "read:") ||
             strcasestr(m, "recv") || strcasestr(m, "ECONNRESET"))
        r->err_read += n;
    else if (strcasestr(m, "broken pipe") || strcasestr(m, "write:") || strcasestr(m, "EPIPE"))
        r->err_write += n;
    else
        r->err_other += n;
}

void raw_count_status(const struct adapter_ctx *c, struct adapter_result *r, long code, uint64_t n, long ok_lo,
                      long ok_hi)
{
    int want = c && c->profile ? c->profile->check.status : 0;
    r->requests += n;
    if (want ? code == want : code >= ok_lo && code < ok_hi) {
        r->ok += n;
        return;
    }
    r->err_status += n;
    if (want)
        r->check_failed += n;
}

int raw_status_key(const char *tool, const char *where, const char *key, long *code, char *err)
{
    char *end;
    *code = strtol(key, &end, 10);
    if (*end || end == key || *code < 100 || *code > 599)
        return util_err(err, "%s: status \"%.40s\" in %s is no HTTP status", tool, key, where);
    return 0;
}

void raw_sum_errors(struct adapter_result *r)
{
    r->errors = r->err_connect + r->err_read + r->err_write + r->err_timeout + r->err_status + r->err_other;
}

void raw_gen_counts(json_t *req, json_t *e, struct adapter_result *r)
{
    r->requests = adapter_json_uint(req, "completed");
    r->ok = adapter_json_uint(req, "ok");
    r->err_connect = adapter_json_uint(e, "connect");
    r->err_read = adapter_json_uint(e, "read");
    r->err_write = adapter_json_uint(e, "write");
    r->err_timeout = adapter_json_uint(e, "timeout");
    r->err_status = adapter_json_uint(e, "status");
    r->err_other = adapter_json_uint(e, "other");
    raw_sum_errors(r);
}

char *raw_output(const char *dir, size_t max_bytes)
{
    char e[UTIL_ERR_LEN];
    char *out = adapter_slurp(dir, "stdout.txt", max_bytes, e);
    char *errt = adapter_slurp(dir, "stderr.txt", max_bytes, e);
    char *all = util_xasprintf("%s\n%s", out ? out : "", errt ? errt : "");
    free(out);
    free(errt);
    return all;
}

void raw_origin(struct adapter_found *found)
{
    char path[sizeof found->path + 16], e[UTIL_ERR_LEN];
    snprintf(path, sizeof path, "%s.origin", found->path);
    /* Through the safe reader: a FIFO named BIN.origin must not hang
     * detection (nor `plan`), a link is not followed. */
    char *line = adapter_slurp(NULL, path, 4096, e);
    if (!line)
        return;
    line[strcspn(line, "\r\n")] = 0;
    size_t n = strlen(found->version);
    if (line[0] && n < sizeof found->version - 4)
        snprintf(found->version + n, sizeof found->version - n, " (%s)", line);
    free(line);
}

uint64_t raw_paced_workers(const struct profile *p, double peak_rps)
{
    uint64_t n = (uint64_t)ceil(peak_rps * (raw_delay_tail_s(p) + 0.01) * 4);
    return n < 1 ? 1 : n;
}

double raw_delay_tail_s(const struct profile *p)
{
    const struct profile_shape *sh = &p->target.shape;
    if (!sh->dist)
        return (double)p->target.delay_ns / 1e9;
    return (double)(!strcmp(sh->dist, "lognormal")     ? sh->p99_ns
                    : !strcmp(sh->dist, "exponential") ? sh->mean_ns * 46 / 10 /* its p99 */
                                                       : sh->max_ns) / 1e9;
}
