#include "run.h"
#include "adapter.h"
#include "capture.h"
#include "cgroup.h"
#include "crosscheck.h"
#include "netstat.h"
#include "proc.h"
#include "report.h"
#include "runlock.h"
#include "sampler.h"
#include "sha256.h"
#include "target.h"
#include "units.h"
#include "fsutil.h"
#include "util.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define SCHEMA_VERSION 1

/* ---- files ------------------------------------------------------------- */

int run_write_text(const char *path, const char *text, char *err)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return util_err(err, "cannot write %s: %s", path, strerror(errno));
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return util_err(err, "cannot write %s: %s", path, strerror(e));
        }
        off += (size_t)w;
    }
    if (fsync(fd) < 0 || close(fd) < 0) {
        unlink(tmp);
        return util_err(err, "cannot write %s: %s", path, strerror(errno));
    }
    if (rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return util_err(err, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

int run_write_json(const char *path, json_t *j, char *err)
{
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
    if (!s)
        return util_err(err, "cannot encode %s", path);
    size_t n = strlen(s);
    s = util_xrealloc(s, n + 2);
    s[n] = '\n';
    s[n + 1] = 0;
    int rc = run_write_text(path, s, err);
    free(s);
    return rc;
}

static int mkdir_p(const char *path, char *err)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                return util_err(err, "cannot create %s: %s", buf, strerror(errno));
            *p = '/';
        }
    }
    if (mkdir(buf, 0755) < 0 && errno != EEXIST)
        return util_err(err, "cannot create %s: %s", buf, strerror(errno));
    return 0;
}

/* printf into a path buffer; a path that does not fit is cut, and the
 * callers' later open/mkdir fails with a clear message instead. */
static void pathf(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pathf(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, len, fmt, ap);
    va_end(ap);
}

/* ---- the machine ---------------------------------------------------------- */

static uint64_t meminfo_kb(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    uint64_t v = 0;
    size_t klen = strlen(key);
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, klen) && line[klen] == ':')
            v = strtoull(line + klen + 1, NULL, 10);
    fclose(f);
    return v;
}

/* Processes other than ours that used more than 5 % of a core over a
 * 300 ms look at start: other work on the machine distorts every figure.
 * One full /proc scan, twice, at start only. */
static json_t *busy_processes(json_t *warn)
{
    struct ent {
        int pid;
        unsigned long long ticks;
        char comm[64];
    } *a = NULL;
    size_t na = 0, cap = 0;
    json_t *out = json_array();
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            struct timespec ts = {0, 300000000};
            nanosleep(&ts, NULL);
        }
        DIR *d = opendir("/proc");
        struct dirent *e;
        if (!d)
            break;
        while ((e = readdir(d))) {
            int pid = atoi(e->d_name);
            if (pid <= 0 || pid == (int)getpid())
                continue;
            char path[64], buf[1024];
            snprintf(path, sizeof path, "/proc/%d/stat", pid);
            FILE *f = fopen(path, "r");
            if (!f)
                continue;
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[n] = 0;
            char *lp = strchr(buf, '('), *rp = strrchr(buf, ')');
            if (!lp || !rp)
                continue;
            unsigned long long ut = 0, st = 0;
            /* After ")": state ppid pgrp session tty tpgid flags minflt
             * cminflt majflt cmajflt utime stime */
            if (sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
                continue;
            if (pass == 0) {
                if (na == cap) {
                    cap = cap ? cap * 2 : 256;
                    a = util_xrealloc(a, cap * sizeof *a);
                }
                a[na].pid = pid;
                a[na].ticks = ut + st;
                snprintf(a[na].comm, sizeof a[na].comm, "%.*s", (int)(rp - lp - 1), lp + 1);
                na++;
            } else {
                for (size_t i = 0; i < na; i++) {
                    if (a[i].pid != pid)
                        continue;
                    double pct = (double)(ut + st - a[i].ticks) / (double)sysconf(_SC_CLK_TCK) / 0.3 * 100;
                    if (pct > 5) {
                        json_array_append_new(out, json_pack("{s:i, s:s, s:f}", "pid", pid, "comm", a[i].comm,
                                                             "cpu_pct", pct));
                        json_array_append_new(warn, json_sprintf("another process was busy at start: %s (pid %d) at %.0f%% of a core",
                                                                 a[i].comm, pid, pct));
                    }
                }
            }
        }
        closedir(d);
    }
    free(a);
    return out;
}

json_t *run_machine_info(void)
{
    json_t *m = json_object(), *warn = json_array();
    char model[256] = "unknown", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10)) {
                char *c = strchr(line, ':');
                if (c) {
                    snprintf(model, sizeof model, "%s", c + 2);
                    model[strcspn(model, "\n")] = 0;
                }
                break;
            }
        }
        fclose(f);
    }
    struct utsname u;
    uname(&u);
    char host[256];
    gethostname(host, sizeof host);
    host[sizeof host - 1] = 0;
    json_object_set_new(m, "cpu_model", json_string(model));
    json_object_set_new(m, "cores", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
    json_object_set_new(m, "kernel", json_string(u.release));
    json_object_set_new(m, "arch", json_string(u.machine));
    json_object_set_new(m, "hostname", json_string(host));
    json_object_set_new(m, "memory_mb", json_integer((json_int_t)(meminfo_kb("MemTotal") / 1024)));
    fsutil_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", line, sizeof line);
    json_object_set_new(m, "cpu_governor", line[0] ? json_string(line) : json_null());
    if (line[0] && strcmp(line, "performance"))
        json_array_append_new(warn, json_sprintf("CPU governor is \"%s\": frequency scaling adds noise (use performance)", line));
    fsutil_first_line("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof line);
    json_object_set_new(m, "transparent_hugepages", line[0] ? json_string(line) : json_null());
    fsutil_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", line, sizeof line);
    json_object_set_new(m, "clocksource", line[0] ? json_string(line) : json_null());
    if (line[0] && strcmp(line, "tsc") && strcmp(line, "kvm-clock") && strcmp(line, "arch_sys_counter"))
        json_array_append_new(warn, json_sprintf("clocksource is \"%s\": clock reads are slow, timing costs rise", line));
    fsutil_first_line("/proc/sys/net/ipv4/ip_local_port_range", line, sizeof line);
    json_object_set_new(m, "ip_local_port_range", json_string(line));
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    json_object_set_new(m, "ulimit_nofile", json_integer((json_int_t)rl.rlim_cur));
    double load[3] = {0};
    if (getloadavg(load, 3) == 3) {
        json_object_set_new(m, "loadavg_1m", json_real(load[0]));
        if (load[0] > 0.5)
            json_array_append_new(warn, json_sprintf("the machine was busy at start (load average %.2f): other work distorts results", load[0]));
    }
    json_object_set_new(m, "busy_processes", busy_processes(warn));
    json_object_set_new(m, "warnings", warn);
    return m;
}

/* ---- one tool run ---------------------------------------------------------- */

struct runner {
    const struct profile *p;
    const struct run_opts *o;
    char dir[PATH_MAX];
    json_t *run;            /* the whole run.json */
    json_t *runs;           /* its "runs" array */
    double self_cpu_start;
    int cg_ok;              /* 1 while cgroups work here */
    int progress_drawn;
};

static void logf_(struct runner *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(struct runner *R, const char *fmt, ...)
{
    if (!R->o->log)
        return;
    if (R->progress_drawn) {
        fputs("\r\033[K", R->o->log);
        R->progress_drawn = 0;
    }
    va_list ap;
    va_start(ap, fmt);
    fputs("loadbench: ", R->o->log);
    vfprintf(R->o->log, fmt, ap);
    va_end(ap);
    fputc('\n', R->o->log);
    fflush(R->o->log);
}

static void progress(struct runner *R, const char *label, const char *phase, double elapsed, double total, double rps,
                     double cpu, double rss)
{
    if (!R->o->progress_tty || !R->o->log)
        return;
    fprintf(R->o->log, "\r\033[K%s  %s  %5.0f/%.0fs  %8.0f req/s (server)  cpu %5.1f%%  rss %7.1f MB", label, phase,
            elapsed, total, rps, cpu, rss);
    fflush(R->o->log);
    R->progress_drawn = 1;
}

static int save(struct runner *R, char *err)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/run.json", R->dir);
    json_object_set_new(R->run, "loadbench_cpu_s", json_real(sampler_self_cpu_s() - R->self_cpu_start));
    return run_write_json(path, R->run, err);
}

static json_t *summary_json(const struct sampler_summary *s)
{
    return json_pack("{s:i, s:f, s:f, s:f, s:f, s:i, s:i, s:f}", "points", s->npoints, "cpu_avg_pct", s->cpu_avg_pct,
                     "cpu_peak_pct", s->cpu_peak_pct, "rss_peak_mb", s->rss_peak_mb, "rss_avg_mb", s->rss_avg_mb,
                     "procs_peak", s->procs_peak, "threads_peak", s->threads_peak, "write_mb", s->write_mb);
}

static json_t *num_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *latency_json(const struct adapter_latency *l)
{
    json_t *o = json_object();
    json_object_set_new(o, "min", num_or_null(l->min));
    json_object_set_new(o, "mean", num_or_null(l->mean));
    json_object_set_new(o, "p50", num_or_null(l->p50));
    json_object_set_new(o, "p90", num_or_null(l->p90));
    json_object_set_new(o, "p95", num_or_null(l->p95));
    json_object_set_new(o, "p99", num_or_null(l->p99));
    json_object_set_new(o, "p999", num_or_null(l->p999));
    json_object_set_new(o, "max", num_or_null(l->max));
    return o;
}

static json_t *strvec_json(const struct strvec *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->n; i++)
        json_array_append_new(a, json_string(s->v[i]));
    return a;
}

static void sleep_until(uint64_t t_ns)
{
    struct timespec ts = {(time_t)(t_ns / 1000000000ull), (long)(t_ns % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        break; /* a signal: let the caller look at the stop flag */
}

/* " 'word'" for a POSIX shell, single quotes escaped. */
static void shell_word(FILE *f, const char *word)
{
    fputs(" '", f);
    for (const char *c = word; *c; c++)
        *c == '\'' ? fputs("'\\''", f) : fputc(*c, f);
    fputc('\'', f);
}

static void write_reproduce(const char *dir, const struct adapter_plan *plan, const char *target_cmd)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/reproduce.sh", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "#!/bin/sh\n# Rerun this tool by hand, as loadbench ran it.\n"
               "# 1. Start a target like the one it measured (it prints its port):\n#    %s\n"
               "# 2. Replace the port below with the one it printed, then run this script.\n"
               "cd \"$(dirname \"$0\")\"\n"
               "exec env -i",
            target_cmd);
    for (size_t i = 0; i < plan->env.n; i++)
        shell_word(f, plan->env.v[i]);
    fputs(" PATH=\"$PATH\" HOME=\"${TMPDIR:-/tmp}\"", f);
    for (size_t i = 0; i < plan->argv.n; i++)
        shell_word(f, plan->argv.v[i]);
    fputc('\n', f);
    fclose(f);
    chmod(path, 0755);
}

/* The server's own per-second series as CSV; t is the second since that
 * lb-target started (a fresh one per tool run), on the server's clock. */
static void write_server_series(const char *path, json_t *series)
{
    json_t *secs = json_object_get(series, "seconds"), *s;
    size_t i;
    if (!json_is_array(secs))
        return;
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "t_s,requests,completions,accepts,closes,open,inflight_max,bad,partial\n");
    json_array_foreach(secs, i, s)
    {
        fprintf(f, "%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%d\n", (long long)json_integer_value(json_object_get(s, "t")),
                (long long)json_integer_value(json_object_get(s, "requests")),
                (long long)json_integer_value(json_object_get(s, "completions")),
                (long long)json_integer_value(json_object_get(s, "accepts")),
                (long long)json_integer_value(json_object_get(s, "closes")),
                (long long)json_integer_value(json_object_get(s, "open")),
                (long long)json_integer_value(json_object_get(s, "inflight_max")),
                (long long)json_integer_value(json_object_get(s, "bad")), json_is_true(json_object_get(s, "partial")));
    }
    fclose(f);
}

/* One row per CPU for the interval since prev (updated): where the machine's
 * time went, including softirq (loopback network work) and steal. */
static void machine_row(FILE *f, double t_s, struct sampler_machine *prev, int n)
{
    struct sampler_machine cur[64];
    int got = sampler_machine_read_cpus(cur, 64, NULL);
    if (got < n)
        return;
    for (int c = 0; c < n; c++) {
        double total = (double)(cur[c].total - prev[c].total);
        if (total <= 0)
            continue;
        double idle = (double)((cur[c].idle + cur[c].iowait) - (prev[c].idle + prev[c].iowait));
        fprintf(f, "%.3f,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", t_s, c, (total - idle) / total * 100,
                (double)(cur[c].user + cur[c].nice - prev[c].user - prev[c].nice) / total * 100,
                (double)(cur[c].system - prev[c].system) / total * 100,
                (double)(cur[c].softirq - prev[c].softirq) / total * 100, (double)(cur[c].irq - prev[c].irq) / total * 100,
                (double)(cur[c].steal - prev[c].steal) / total * 100);
        prev[c] = cur[c];
    }
}

/* Ends the capture of one of the tool's output files (once; later calls do
 * nothing) and says in the result when the output was cut or could not be
 * written: output_truncated.<name> (stdout or stderr) = bytes left out. */
static void finish_output(struct capture *c, const char *name, json_t *res, json_t *warnings)
{
    char err[UTIL_ERR_LEN];
    if (!c->started)
        return;
    if (capture_finish(c, err))
        json_array_append_new(warnings, json_string(err));
    uint64_t dropped = capture_dropped(c);
    if (dropped) {
        json_t *t = json_object_get(res, "output_truncated");
        if (!t)
            json_object_set_new(res, "output_truncated", t = json_object());
        json_object_set_new(t, name, json_integer((json_int_t)dropped));
        json_array_append_new(warnings, json_sprintf("the tool wrote %llu bytes to %s.txt: the middle %llu bytes were left out (first and last %u MiB kept)",
                                                     (unsigned long long)c->total_bytes, name,
                                                     (unsigned long long)dropped, CAPTURE_HEAD_BYTES >> 20));
    }
}

/* Runs one tool once. Returns its result object (always: failures are
 * results too). */
static json_t *run_one(struct runner *R, const struct profile_tool *pt, const struct profile_load *load, double level,
                       unsigned rep, const char *subdir)
{
    const struct profile *p = R->p;
    const struct adapter *a = adapter_by_name(pt->tool);
    char err[UTIL_ERR_LEN] = "", dir[PATH_MAX];
    json_t *res = json_object();
    json_t *warnings = json_array();
    struct adapter_found found;
    struct adapter_plan plan;
    struct adapter_result ar;
    struct target tgt;
    struct proc tool;
    struct cgroup cg;
    struct capture cap_out, cap_err;   /* the tool's stdout and stderr, bounded */
    int have_cg = 0, have_tgt = 0, have_tool = 0;
    struct sampler_tree *ttree = NULL, *gtree = NULL;
    FILE *tcsv = NULL, *gcsv = NULL;
    char **envp = NULL;
    struct crosscheck_point *tpts = NULL, *gpts = NULL;   /* the sampled series, for window averages */
    FILE *mcsv = NULL;                                    /* the machine, per CPU, per interval */
    struct sampler_machine mprev[64];
    int nmcpu = 0;
    size_t ntp = 0, ngp = 0, cap_pts = 0;
    const char *status = "ok";
    char reason[UTIL_ERR_LEN * 2] = "";
    json_t *before = NULL, *after = NULL, *series = NULL;
    json_t *last_stats = NULL;                   /* lb-target's stats at the last sample */
    json_t *hold_h0 = NULL, *hold_h1 = NULL;     /* server-time histograms at the hold window's edges */
    uint64_t hold_s_ns = 0, hold_e_ns = 0;       /* the hold window, from the load's start */
    int have_hold = 0;
    uint64_t t_start = util_now_ns();
    memset(&found, 0, sizeof found);
    memset(&tool, 0, sizeof tool);
    memset(&tgt, 0, sizeof tgt);
    memset(&cap_out, 0, sizeof cap_out);
    memset(&cap_err, 0, sizeof cap_err);
    adapter_plan_init(&plan);
    adapter_result_init(&ar);

    pathf(dir, sizeof dir, "%s/%s", R->dir, subdir);
    json_object_set_new(res, "tool", json_string(pt->tool));
    json_object_set_new(res, "label", json_string(pt->label));
    json_object_set_new(res, "level", isnan(level) ? json_null() : json_real(level));
    json_object_set_new(res, "repeat", json_integer(rep));
    json_object_set_new(res, "dir", json_string(subdir));
    json_object_set_new(res, "load", profile_load_to_json(load));
    json_object_set_new(res, "started_at_ms", json_integer((json_int_t)util_wall_ms()));

    if (mkdir_p(dir, err) || mkdir_p(R->dir, err)) {
        status = "failed";
        snprintf(reason, sizeof reason, "%s", err);
        goto done;
    }
    if (!a) {
        status = "skipped";
        snprintf(reason, sizeof reason, "no adapter named \"%s\" (see `loadbench tools`)", pt->tool);
        goto done;
    }
    if (a->detect(pt->bin, &found, err)) {
        status = "skipped";
        snprintf(reason, sizeof reason, "%s (%s)", err, a->install_hint);
        goto done;
    }
    char sha[65] = "";
    sha256_file_hex(found.path, sha);
    json_t *ident = json_pack("{s:s, s:s, s:s, s:s, s:f}", "path", found.path, "version", found.version, "sha256", sha,
                              "latency_measures", a->latency_measures, "latency_resolution_ms",
                              a->latency_resolution_ms);
    json_object_set_new(res, "identity", ident);

    /* TIME_WAIT sockets of the previous run hold ephemeral ports: when they
     * fill half the range, wait (bounded) for them to drain. */
    struct netstat ns0, ns1;
    netstat_read(&ns0, NULL);
    {
        uint64_t range = netstat_port_range(), waited_from = util_now_ns();
        while (ns0.time_wait > range / 2 && util_now_ns() - waited_from < 65000000000ull && !*R->o->stop) {
            sleep_until(util_now_ns() + 500000000ull);
            netstat_read(&ns0, NULL);
        }
        if (util_now_ns() - waited_from > 1000000000ull)
            json_array_append_new(warnings, json_sprintf("waited %.0f s for TIME_WAIT sockets to drain (%llu left)",
                                                         (double)(util_now_ns() - waited_from) / 1e9,
                                                         (unsigned long long)ns0.time_wait));
    }

    /* A fresh target for each tool run: no connection state crosses runs. */
    char tbin[PATH_MAX];
    snprintf(tbin, sizeof tbin, "%s", R->o->target_bin);
    struct target_opts to = {.bin = tbin, .dir = dir, .name = "target", .delay_ns = p->target.delay_ns,
                             .work_ns = p->target.work_ns,
                             .body_bytes = p->target.body_bytes, .threads = p->target.threads,
                             .cpus_mask = p->target_cpus};
    if (target_start(&tgt, &to, err)) {
        status = "failed";
        snprintf(reason, sizeof reason, "target: %s", err);
        goto done;
    }
    have_tgt = 1;
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", tgt.port);
    struct adapter_ctx ctx = {.profile = p, .tool = pt, .load = load, .found = &found, .dir = dir,
                              .host = "127.0.0.1", .port = tgt.port, .url = url, .tool_cpus = p->tool_cpus};
    if (a->prepare(&ctx, &plan, err)) {
        status = "failed";
        snprintf(reason, sizeof reason, "prepare: %s", err);
        goto done;
    }
    for (size_t i = 0; i < plan.warnings.n; i++)
        json_array_append_new(warnings, json_string(plan.warnings.v[i]));
    json_object_set_new(ident, "argv", strvec_json(&plan.argv));
    json_object_set_new(ident, "env", strvec_json(&plan.env));
    json_object_set_new(ident, "configs", strvec_json(&plan.files));
    json_object_set_new(ident, "settings", json_incref(plan.settings));
    json_object_set_new(ident, "model", json_string(plan.model));
    if (plan.as_run)
        json_object_set_new(res, "load_as_run", profile_load_to_json(plan.as_run));
    {
        char tcmd[512];
        pathf(tcmd, sizeof tcmd, "%s --port 0 --delay %lluns --work %lluns --body %lluB --threads %u", tbin,
                 (unsigned long long)p->target.delay_ns, (unsigned long long)p->target.work_ns,
                 (unsigned long long)p->target.body_bytes, p->target.threads);
        write_reproduce(dir, &plan, tcmd);
    }

    /* The tool's own clean environment, in a fresh HOME. */
    char home[PATH_MAX + 8], tmp[PATH_MAX + 8];
    pathf(home, sizeof home, "%s/home", dir);
    pathf(tmp, sizeof tmp, "%s/home/tmp", dir);
    if (mkdir_p(tmp, err)) {
        status = "failed";
        snprintf(reason, sizeof reason, "%s", err);
        goto done;
    }
    envp = proc_clean_env(home, tmp, (const char *const *)plan.env.v);

    char cgname[160], owner[48];
    runlock_tag(owner, sizeof owner); /* runlock hook (#18): PID.START.PIDNS, so a sweep can prove us dead */
    pathf(cgname, sizeof cgname, "loadbench-%s-%s", owner, subdir);
    for (char *c = cgname; *c; c++)
        if (*c == '/')
            *c = '_';
    if (R->cg_ok && cgroup_create(&cg, cgname, pt->memory_limit_bytes, err) == 0) {
        have_cg = 1;
    } else {
        if (R->cg_ok)
            json_array_append_new(warnings, json_sprintf("no cgroup accounting (%s): CPU from wait4 rusage, memory from /proc samples", err));
        R->cg_ok = 0;
        if (pt->memory_limit_bytes)
            json_array_append_new(warnings, json_string("memory_limit not enforced: no writable memory cgroup"));
    }

    char outp[PATH_MAX + 16], errp[PATH_MAX + 16];
    snprintf(outp, sizeof outp, "%s/stdout.txt", dir);
    snprintf(errp, sizeof errp, "%s/stderr.txt", dir);
    if (capture_start(&cap_out, outp, CAPTURE_HEAD_BYTES, CAPTURE_TAIL_BYTES, err) ||
        capture_start(&cap_err, errp, CAPTURE_HEAD_BYTES, CAPTURE_TAIL_BYTES, err)) {
        status = "failed";
        snprintf(reason, sizeof reason, "%s", err);
        goto done;
    }
    struct proc_spec spec = {.argv = (const char *const *)plan.argv.v, .envp = (const char *const *)envp, .cwd = dir,
                             .stdout_path = outp, .stderr_path = errp, .stdout_fd = cap_out.write_fd,
                             .stderr_fd = cap_err.write_fd, .cpus_mask = p->tool_cpus, .oom_score_adj = 1000};
    if (have_cg)
        for (int i = 0; i < cg.nprocs && i < 3; i++)
            spec.cgroup_procs[i] = cg.procs[i];

    before = target_window(&tgt, err);
    if (!before) {
        status = "failed";
        snprintf(reason, sizeof reason, "target control channel: %s", err);
        goto done;
    }
    struct sampler_machine m0, m1;
    sampler_machine_read(&m0, NULL);
    double self0 = sampler_self_cpu_s();
    have_hold = profile_hold_window(plan.as_run ? plan.as_run : load, &hold_s_ns, &hold_e_ns) == 0;
    /* A hold window from the load's start begins with the (fresh) target's
     * first request: the snapshot before any request is its left edge. */
    if (have_hold && hold_s_ns == 0)
        hold_h0 = target_histogram(&tgt, NULL);
    if (proc_spawn(&tool, &spec, err)) {
        status = "failed";
        snprintf(reason, sizeof reason, "%s", err);
        goto done;
    }
    have_tool = 1;
    capture_close_writer(&cap_out);
    capture_close_writer(&cap_err);
    uint64_t spawned = tool.started_ns;
    uint64_t deadline = spawned + plan.load_ns + plan.startup_allowance_ns + (pt->timeout_ns ? pt->timeout_ns : p->grace_ns);
    json_object_set_new(res, "deadline_s", json_real((double)(deadline - spawned) / 1e9));

    /* Sample the tool and the target on absolute deadlines. */
    char spath[PATH_MAX + 64];
    snprintf(spath, sizeof spath, "%s/samples", R->dir);
    mkdir_p(spath, NULL);
    pathf(spath, sizeof spath, "%s/samples/%s.csv", R->dir, subdir);
    for (char *c = spath + strlen(R->dir) + 9; *c; c++)
        if (*c == '/')
            *c = '_';
    tcsv = fopen(spath, "w");
    if (tcsv)
        sampler_csv_header(tcsv);
    char tpath[PATH_MAX + 80];
    snprintf(tpath, sizeof tpath, "%.*s.target.csv", (int)(strlen(spath) - 4), spath);
    gcsv = fopen(tpath, "w");
    if (gcsv)
        sampler_csv_header(gcsv);
    {
        char mpath[PATH_MAX + 96];
        pathf(mpath, sizeof mpath, "%.*s.machine.csv", (int)(strlen(spath) - 4), spath);
        nmcpu = sampler_machine_read_cpus(mprev, 64, NULL);
        if (nmcpu > 64)
            nmcpu = 64;
        if (nmcpu > 0 && (mcsv = fopen(mpath, "w"))) {
            fprintf(mcsv, "t_s,cpu,busy_pct,user_pct,system_pct,softirq_pct,irq_pct,steal_pct\n");
            json_object_set_new(res, "machine_samples_file", json_string(mpath + strlen(R->dir) + 1));
        }
    }
    ttree = sampler_tree_new(tool.pid, have_cg ? cg.procs[0] : NULL, NULL);
    gtree = sampler_tree_new(tgt.proc.pid, NULL, NULL);
    struct sampler_reading rd, trd0, trd1;
    struct sampler_point pt_tool, pt_tgt;
    memset(&trd0, 0, sizeof trd0);
    if (ttree)
        sampler_tree_sample(ttree, &rd, &pt_tool);
    if (gtree)
        sampler_tree_sample(gtree, &trd0, &pt_tgt);
    trd1 = trd0;
    uint64_t next = spawned + p->sample_interval_ns;
    uint64_t last_tick_ns = spawned;
    uint64_t hold_from = 0, hold_to = 0;
    uint64_t last_resp = target_u64(before, "responses_completed"), last_t = util_now_ns();
    uint64_t open_at_stop = 0;
    double cur_rps = 0, cur_cpu = 0, cur_rss = 0;
    int stopped_by_us = 0;
    for (;;) {
        if (proc_poll(&tool))
            break;
        uint64_t now = util_now_ns();
        if (*R->o->stop) {
            status = "interrupted";
            snprintf(reason, sizeof reason, "loadbench was interrupted");
            stopped_by_us = 1;
            break;
        }
        if (now >= deadline) {
            status = "timeout";
            snprintf(reason, sizeof reason, "still running %.0f s after start (load %.0f s + start-up + grace): stopped",
                     (double)(now - spawned) / 1e9, (double)plan.load_ns / 1e9);
            stopped_by_us = 1;
            break;
        }
        if (!target_alive(&tgt)) {
            status = "failed";
            snprintf(reason, sizeof reason, "lb-target died during the run (%s): the tool's results are partial",
                     tgt.proc.exit.signaled ? "killed by a signal" : "exited");
            stopped_by_us = 1;
            break;
        }
        if (now >= next) {
            if ((ntp > ngp ? ntp : ngp) + 1 >= cap_pts) {
                cap_pts = cap_pts ? cap_pts * 2 : 64;
                tpts = util_xrealloc(tpts, cap_pts * sizeof *tpts);
                gpts = util_xrealloc(gpts, cap_pts * sizeof *gpts);
            }
            if (ttree && sampler_tree_sample(ttree, &rd, &pt_tool) == 1) {
                tpts[ntp++] = (struct crosscheck_point){rd.t_ns, pt_tool.interval_s, pt_tool.cpu_pct, pt_tool.rss_mb};
                if (tcsv)
                    sampler_csv_row(tcsv, &pt_tool);
                cur_cpu = pt_tool.cpu_pct;
                cur_rss = pt_tool.rss_mb;
            }
            if (gtree && sampler_tree_sample(gtree, &trd1, &pt_tgt) == 1) {
                gpts[ngp++] = (struct crosscheck_point){trd1.t_ns, pt_tgt.interval_s, pt_tgt.cpu_pct, pt_tgt.rss_mb};
                if (gcsv)
                    sampler_csv_row(gcsv, &pt_tgt);
            }
            if (mcsv)
                machine_row(mcsv, (double)(now - spawned) / 1e9, mprev, nmcpu);
            json_t *s = target_stats(&tgt, NULL);
            if (s) {
                uint64_t resp = target_u64(s, "responses_completed");
                uint64_t tnow = util_now_ns();
                cur_rps = (double)(resp - last_resp) / ((double)(tnow - last_t) / 1e9);
                last_resp = resp;
                last_t = tnow;
                open_at_stop = target_u64(s, "connections_open");
                if (!hold_from && target_u64(s, "first_request_ns") && have_hold) {
                    hold_from = target_u64(s, "first_request_ns") + hold_s_ns;
                    hold_to = target_u64(s, "first_request_ns") + hold_e_ns;
                }
                json_decref(last_stats);
                last_stats = s; /* the server's view if lb-target dies later */
            }
            progress(R, pt->label, "load", (double)(now - spawned) / 1e9,
                     (double)(plan.load_ns + plan.startup_allowance_ns) / 1e9, cur_rps, cur_cpu, cur_rss);
            last_tick_ns = now;
            while (next <= now)
                next += p->sample_interval_ns;
        }
        /* Snapshot the server-time histogram at the hold window's edges, so
         * the server's latency over the hold window is exact. */
        if (hold_from && !hold_h0 && now >= hold_from)
            hold_h0 = target_histogram(&tgt, NULL);
        if (hold_to && hold_h0 && !hold_h1 && now >= hold_to)
            hold_h1 = target_histogram(&tgt, NULL);
        uint64_t wake = now + 20000000ull; /* notice the tool's exit within 20 ms */
        if (wake > next)
            wake = next;
        if (hold_from && !hold_h0 && wake > hold_from)
            wake = hold_from;
        if (hold_to && !hold_h1 && wake > hold_to)
            wake = hold_to;
        if (wake > deadline)
            wake = deadline;
        sleep_until(wake);
    }
    uint64_t ended = util_now_ns();
    /* A hold window that lasts to the load's end ends with the tool. */
    if (hold_h0 && !hold_h1 && !stopped_by_us)
        hold_h1 = target_histogram(&tgt, NULL);
    /* A last reading before the tree is stopped covers the final partial
     * interval — only when it is long enough to mean something: CPU
     * counters advance in ticks (cpuacct at scheduler ticks, /proc in
     * 10 ms steps), so a few-ms interval would read as several hundred
     * percent. Totals come from the cgroup or wait4, not from samples. */
    if (ended - last_tick_ns >= p->sample_interval_ns / 2) {
        if (ttree && sampler_tree_sample(ttree, &rd, &pt_tool) == 1 && tcsv)
            sampler_csv_row(tcsv, &pt_tool);
        if (gtree && sampler_tree_sample(gtree, &trd1, &pt_tgt) == 1 && gcsv)
            sampler_csv_row(gcsv, &pt_tgt);
    } else if (gtree) {
        /* The target's CPU total still needs its final reading. */
        struct sampler_point skip;
        sampler_tree_sample(gtree, &trd1, &skip);
    }
    double target_cpu_s = (double)(trd1.cpu_ns - trd0.cpu_ns) / 1e9;
    {
        json_t *s = target_stats(&tgt, NULL);
        if (s && stopped_by_us)
            open_at_stop = target_u64(s, "connections_open");
        json_decref(s);
    }
    pid_t keep[1] = {tgt.proc.pid};
    int killed = proc_stop_tree(&tool, keep, 1, 3000000000ull, err);
    if (killed < 0)
        json_array_append_new(warnings, json_sprintf("stopping the tool: %s", err));
    else if (killed > 0 && !stopped_by_us)
        json_array_append_new(warnings, json_sprintf("the tool left %d process(es) running after it exited; they were killed", killed));
    if (have_cg) {
        pid_t left[4];
        if (cgroup_pids(&cg, left, 4) > 0)
            cgroup_kill_all(&cg, NULL);
    }
    /* The tool is gone: its output is complete (or cut, and marked so). */
    finish_output(&cap_out, "stdout", res, warnings);
    finish_output(&cap_err, "stderr", res, warnings);
    sampler_machine_read(&m1, NULL);
    netstat_read(&ns1, NULL);
    json_object_set_new(res, "tcp", netstat_delta_json(&ns0, &ns1, warnings));
    double self1 = sampler_self_cpu_s();

    /* The server's view, after the tool is gone. */
    after = target_stats(&tgt, err);
    series = target_series(&tgt, 0, NULL);
    if (series) {
        char sp[PATH_MAX + 96];
        pathf(sp, sizeof sp, "%.*s.server.csv", (int)(strlen(spath) - 4), spath);
        write_server_series(sp, series);
        json_object_set_new(res, "server_series_file", json_string(sp + strlen(R->dir) + 1));
    }
    if (!after && last_stats && !target_alive(&tgt)) {
        /* lb-target died: its counts at the last sample are the server's
         * view, partial, and the row is failed already. */
        after = json_incref(last_stats);
        json_object_set_new(res, "server_partial", json_true());
        json_array_append_new(warnings, json_string("lb-target died: the server's counts are those of its last sample before it died (server_partial)"));
    } else if (!after) {
        if (!strcmp(status, "ok"))
            status = "failed";
        snprintf(reason + strlen(reason), sizeof reason - strlen(reason), "%slb-target unreadable after the run: %s",
                 reason[0] ? "; " : "", err);
    }

    /* Exit and footprint. */
    json_t *exitj = json_object();
    if (tool.reaped) {
        if (tool.exit.exited)
            json_object_set_new(exitj, "code", json_integer(tool.exit.code));
        if (tool.exit.signaled)
            json_object_set_new(exitj, "signal", json_integer(tool.exit.sig));
    }
    json_object_set_new(res, "exit", exitj);
    double wall_s = (double)(ended - spawned) / 1e9;
    double cpu_s = (double)(tool.exit.ru.ru_utime.tv_sec + tool.exit.ru.ru_stime.tv_sec) +
                   (double)(tool.exit.ru.ru_utime.tv_usec + tool.exit.ru.ru_stime.tv_usec) / 1e6;
    const char *source = "rusage";
    struct cgroup_usage cu;
    memset(&cu, 0, sizeof cu);
    struct sampler_summary ss, ts;
    memset(&ss, 0, sizeof ss);
    memset(&ts, 0, sizeof ts);
    if (ttree)
        sampler_tree_summary(ttree, &ss);
    if (gtree)
        sampler_tree_summary(gtree, &ts);
    json_t *fp = json_object();
    if (have_cg && cgroup_read(&cg, &cu, NULL) == 0 && cu.cpu_ns > 0) {
        cpu_s = (double)cu.cpu_ns / 1e9;
        source = "cgroup";
        if (cu.mem_peak_bytes)
            json_object_set_new(fp, "cgroup_mem_peak_mb", json_real((double)cu.mem_peak_bytes / 1e6));
        json_object_set_new(fp, "cgroup_cache_mb", json_real((double)cu.mem_cache_bytes / 1e6));
        if (cu.oom_kills) {
            status = "oom";
            snprintf(reason, sizeof reason, "the tool exceeded its memory limit (%llu bytes) and was OOM-killed",
                     (unsigned long long)pt->memory_limit_bytes);
        }
    }
    /* Samples every interval can miss a short run's peak, or see only the
     * child before its exec. The kernel's high-water mark of the largest
     * process (ru_maxrss) and the run's average CPU are floors the peaks
     * cannot be below: no sample may report less. */
    double maxrss_mb = (double)tool.exit.ru.ru_maxrss * 1024 / 1e6;
    double cpu_avg = wall_s > 0 ? cpu_s / wall_s * 100 : 0;
    double rss_peak = ss.rss_peak_mb > maxrss_mb ? ss.rss_peak_mb : maxrss_mb;
    json_object_set_new(fp, "cpu_seconds", json_real(cpu_s));
    json_object_set_new(fp, "cpu_avg_pct", json_real(cpu_avg));
    json_object_set_new(fp, "cpu_peak_pct", json_real(ss.cpu_peak_pct > cpu_avg ? ss.cpu_peak_pct : cpu_avg));
    json_object_set_new(fp, "rss_peak_mb", json_real(rss_peak));
    json_object_set_new(fp, "rss_peak_basis",
                        json_string(ss.rss_peak_mb >= maxrss_mb ? "samples" : "largest process's maxrss"));
    json_object_set_new(fp, "rss_avg_mb", json_real(ss.rss_avg_mb));
    json_object_set_new(fp, "max_proc_maxrss_mb", json_real(maxrss_mb));
    json_object_set_new(fp, "procs_peak", json_integer(ss.procs_peak));
    json_object_set_new(fp, "threads_peak", json_integer(ss.threads_peak));
    json_object_set_new(fp, "write_mb", json_real(ss.write_mb));
    json_object_set_new(fp, "wall_s", json_real(wall_s));
    json_object_set_new(fp, "source", json_string(source));
    json_object_set_new(fp, "samples", summary_json(&ss));
    json_object_set_new(fp, "samples_file", json_string(spath + strlen(R->dir) + 1));
    json_object_set_new(res, "footprint", fp);
    json_object_set_new(res, "target_footprint", summary_json(&ts));
    json_object_set_new(json_object_get(res, "target_footprint"), "cpu_seconds", json_real(target_cpu_s));
    json_object_set_new(json_object_get(res, "target_footprint"), "samples_file",
                        json_string(tpath + strlen(R->dir) + 1));
    json_object_set_new(res, "machine_cpu", crosscheck_machine_json(&m0, &m1, cpu_s, target_cpu_s, self1 - self0, warnings));

    /* The tool's own account. */
    if (strcmp(status, "interrupted") && a->parse(&ctx, &ar, err)) {
        if (!strcmp(status, "ok"))
            status = "failed";
        snprintf(reason + strlen(reason), sizeof reason - strlen(reason), "%sno result: %s", reason[0] ? "; " : "", err);
    }
    for (size_t i = 0; i < ar.warnings.n; i++)
        json_array_append_new(warnings, json_string(ar.warnings.v[i]));
    if (ar.parsed) {
        json_t *c = json_object();
        json_object_set_new(c, "requests", json_integer((json_int_t)ar.requests));
        json_object_set_new(c, "ok", json_integer((json_int_t)ar.ok));
        json_object_set_new(c, "errors", json_integer((json_int_t)ar.errors));
        json_object_set_new(c, "errors_by_kind",
                            json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "connect", (json_int_t)ar.err_connect, "read",
                                      (json_int_t)ar.err_read, "write", (json_int_t)ar.err_write, "timeout",
                                      (json_int_t)ar.err_timeout, "status", (json_int_t)ar.err_status, "other",
                                      (json_int_t)ar.err_other));
        json_object_set_new(c, "duration_s", num_or_null(ar.duration_s));
        json_object_set_new(c, "rps_tool", num_or_null(ar.rps));
        json_object_set_new(c, "latency_ms", latency_json(&ar.lat));
        if (!isnan(ar.lat_uncorrected.p50))
            json_object_set_new(c, "latency_uncorrected_ms", latency_json(&ar.lat_uncorrected));
        if (ar.scheduled)
            json_object_set_new(c, "schedule", json_pack("{s:I, s:I, s:I}", "scheduled", (json_int_t)ar.scheduled,
                                                         "dropped", (json_int_t)ar.dropped, "late", (json_int_t)ar.late));
        if (ar.extra)
            json_object_set_new(c, "tool_output", json_incref(ar.extra));
        json_object_set_new(res, "client", c);
    }

    /* Stop the target; its final stats are the last word. */
    if (target_stop(&tgt, err) && !strcmp(status, "ok")) {
        status = "failed";
        snprintf(reason, sizeof reason, "%s", err);
    }
    have_tgt = 0;

    /* Server view, windows, reconciliation. */
    if (before && after) {
        struct crosscheck_in in = {.before = before, .after = after, .series = series,
                                   .load = plan.as_run ? plan.as_run : load,
                                   .delay_ns = p->target.delay_ns, .client_parsed = ar.parsed,
                                   .client_requests = ar.requests, .client_errors = ar.errors,
                                   .open_at_stop = open_at_stop, .stopped_hard = stopped_by_us,
                                   .cpu_seconds = cpu_s, .rss_peak_mb = rss_peak, .lat = &ar.lat,
                                   .latency_resolution_ms = a->latency_resolution_ms, .model = plan.model,
                                   .tool_cpus = p->tool_cpus, .target_cpus = p->target_cpus,
                                   .tool_samples = ttree, .target_samples = gtree, .tool_spawned_ns = spawned,
                                   .tool_pts = tpts, .ntool_pts = ntp, .target_pts = gpts, .ntarget_pts = ngp};
        crosscheck_fill(&in, res, warnings);
        json_t *hw = hold_h0 && hold_h1 ? target_histogram_window_ms(hold_h0, hold_h1) : NULL;
        if (hw) {
            /* The snapshots' own times: the window as measured. */
            uint64_t t0 = target_u64(hold_h0, "now_ns"), t1 = target_u64(hold_h1, "now_ns");
            json_object_set_new(hw, "from_s", json_real(t0 > spawned ? (double)(t0 - spawned) / 1e9 : 0.0));
            json_object_set_new(hw, "to_s", json_real((double)(t1 - spawned) / 1e9));
            json_object_set_new(json_object_get(res, "windows"), "hold_server_time_ms", hw);
        }
        /* Exit codes are not trusted alone: an ok run must have parsed a
         * result and the server must have seen its traffic. */
        if (!strcmp(status, "ok") && crosscheck_server_requests(before, after) == 0) {
            status = "failed";
            snprintf(reason, sizeof reason, "the server saw no requests from the tool");
        }
        if (!strcmp(status, "ok") && ar.parsed && ar.requests > 0 && ar.errors >= ar.requests) {
            status = "failed";
            snprintf(reason, sizeof reason, "every request the tool reported failed (%llu errors)",
                     (unsigned long long)ar.errors);
        }
    }
    if (!strcmp(status, "ok") && tool.reaped && tool.exit.signaled) {
        status = "failed";
        snprintf(reason, sizeof reason, "the tool was killed by signal %d", tool.exit.sig);
    }
    if (!strcmp(status, "ok") && tool.reaped && tool.exit.exited && tool.exit.code != 0)
        json_array_append_new(warnings, json_sprintf("the tool exited with code %d", tool.exit.code));

done:
    if (have_tool && !tool.reaped) {
        pid_t keep_tgt[1] = {have_tgt ? tgt.proc.pid : 0};
        proc_stop_tree(&tool, keep_tgt, have_tgt ? 1 : 0, 1000000000ull, NULL);
    }
    if (have_tgt)
        target_stop(&tgt, NULL);
    finish_output(&cap_out, "stdout", res, warnings);
    finish_output(&cap_err, "stderr", res, warnings);
    if (have_cg) {
        cgroup_kill_all(&cg, NULL);
        cgroup_destroy(&cg, NULL);
    }
    if (tcsv)
        fclose(tcsv);
    if (gcsv)
        fclose(gcsv);
    if (mcsv)
        fclose(mcsv);
    sampler_tree_free(ttree);
    sampler_tree_free(gtree);
    free(tpts);
    free(gpts);
    proc_env_free(envp);
    json_decref(before);
    json_decref(after);
    json_decref(last_stats);
    json_decref(hold_h0);
    json_decref(hold_h1);
    json_decref(series);
    adapter_result_free(&ar);
    adapter_plan_free(&plan);
    json_object_set_new(res, "status", json_string(status));
    if (reason[0])
        json_object_set_new(res, "reason", json_string(reason));
    json_object_set_new(res, "warnings", warnings);
    json_object_set_new(res, "harness_wall_s", json_real((double)(util_now_ns() - t_start) / 1e9));
    return res;
}

/* ---- the whole profile ----------------------------------------------------- */

static int make_run_dir(struct runner *R, char *err)
{
    if (R->o->into_dir) {
        if (!realpath(R->o->into_dir, R->dir))
            return util_err(err, "--into %s: %s", R->o->into_dir, strerror(errno));
        return 0;
    }
    if (R->o->out_dir) {
        snprintf(R->dir, sizeof R->dir, "%s", R->o->out_dir);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
        snprintf(R->dir, sizeof R->dir, "%s/%s-%s", R->o->results_root, stamp, R->p->name);
    }
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", R->dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = 0;
        if (mkdir_p(parent, err))
            return -1;
    }
    if (mkdir(R->dir, 0755) < 0) {
        if (errno == EEXIST)
            return util_err(err, "%s already exists: loadbench never overwrites a run (choose another --out)", R->dir);
        return util_err(err, "cannot create the run directory %s: %s", R->dir, strerror(errno));
    }
    /* Absolute from here on: tools run with their own directory as cwd. */
    char abs[PATH_MAX];
    if (realpath(R->dir, abs))
        snprintf(R->dir, sizeof R->dir, "%s", abs);
    /* Prove the directory takes writes before any load is sent. */
    char probe[PATH_MAX + 16];
    snprintf(probe, sizeof probe, "%s/.probe", R->dir);
    if (run_write_text(probe, "probe\n", err)) {
        rmdir(R->dir);
        return -1;
    }
    unlink(probe);
    return 0;
}

static void subdir_name(char *out, size_t len, const struct profile *p, const struct profile_tool *t, double level,
                        unsigned rep)
{
    char lv[48] = "", rp[24] = "";
    if (!isnan(level))
        snprintf(lv, sizeof lv, "@%.10g", level);
    if (p->repeat > 1)
        snprintf(rp, sizeof rp, "#%u", rep);
    snprintf(out, len, "%s%s%s", t->label, lv, rp);
}

/* How many sweep levels the run steps through: the most any load (the
 * profile's or a tool's own) sweeps, at least 1. */
static size_t sweep_levels(const struct profile *p)
{
    size_t n = p->load.nsweep ? p->load.nsweep : 1;
    for (size_t i = 0; i < p->ntools; i++)
        if (p->tools[i].load && p->tools[i].load->nsweep > n)
            n = p->tools[i].load->nsweep;
    return n;
}

/* The load a tool with load base runs at sweep step li, or NULL when it has
 * no run there (a load without a sweep runs once, at step 0). *level is the
 * swept level (NAN without a sweep); *owned is the load to free. */
static const struct profile_load *load_at_step(const struct profile_load *base, size_t li, double *level,
                                               struct profile_load **owned)
{
    *owned = NULL;
    *level = NAN;
    if (!base->nsweep)
        return li == 0 ? base : NULL;
    if (li >= base->nsweep)
        return NULL;
    *level = base->sweep[li];
    *owned = profile_load_at_level(base, *level);
    return *owned;
}

/* A tool entry's own `bin:` must be there and executable before anything
 * starts: a typo in a path is the user's to fix, not a row to skip after
 * other tools have sent their load. (A tool without bin: that is not
 * installed, or a bin: naming a toolchain (bin_is_toolchain), stays a
 * "skipped" row: the profile may list tools this machine lacks.) Returns 0,
 * or -1 with err naming the profile's place. */
static int check_bins(const struct profile *p, const char *only, char *err)
{
    for (size_t i = 0; i < p->ntools; i++) {
        const struct profile_tool *t = &p->tools[i];
        char found[PATH_MAX];
        struct stat st;
        const struct adapter *a = adapter_by_name(t->tool);
        if (!t->bin || (a && a->bin_is_toolchain) || (only && strcmp(t->label, only)) ||
            !adapter_which(t->bin, found, sizeof found))
            continue;
        if (!strchr(t->bin, '/'))
            return util_err(err, "%s:%d:%d: %s: bin %s: not found in PATH", p->path, t->line, t->col, t->label, t->bin);
        if (stat(t->bin, &st) < 0)
            return util_err(err, "%s:%d:%d: %s: bin %s: %s", p->path, t->line, t->col, t->label, t->bin, strerror(errno));
        if (!S_ISREG(st.st_mode))
            return util_err(err, "%s:%d:%d: %s: bin %s: not a regular file", p->path, t->line, t->col, t->label, t->bin);
        return util_err(err, "%s:%d:%d: %s: bin %s: not executable (chmod +x it)", p->path, t->line, t->col, t->label,
                        t->bin);
    }
    return 0;
}

int run_profile(const struct profile *p, const struct run_opts *o, char **run_dir_out, char *err)
{
    struct runner R;
    memset(&R, 0, sizeof R);
    R.p = p;
    R.o = o;
    R.cg_ok = 1;
    R.self_cpu_start = sampler_self_cpu_s();
    *run_dir_out = NULL;
    if (access(o->target_bin, X_OK))
        return util_err(err, "lb-target not found at %s: run `make`", o->target_bin), 2;
    if (o->only) {
        int found = 0;
        for (size_t i = 0; i < p->ntools; i++)
            found |= !strcmp(p->tools[i].label, o->only);
        if (!found)
            return util_err(err, "--only %s: no tool with that label in the profile", o->only), 2;
    }
    if (check_bins(p, o->only, err))
        return 2;
    if (*o->stop) /* early-signal hook (#18): stopped before the run directory exists: make nothing */
        return 130;
    if (make_run_dir(&R, err) || runlock_take(R.dir, err)) /* runlock hook (#18): the dir names its owner */
        return 2;
    *run_dir_out = util_xstrdup(R.dir);
    char path[PATH_MAX + 32];
    if (o->into_dir) {
        json_error_t je;
        snprintf(path, sizeof path, "%s/run.json", R.dir);
        R.run = json_load_file(path, 0, &je);
        if (!R.run || !json_is_array(json_object_get(R.run, "runs")))
            return util_err(err, "%s: not a loadbench run (%s)", path, R.run ? "no runs" : je.text), 2;
        R.runs = json_object_get(R.run, "runs");
    } else {
        R.run = json_object();
        R.runs = json_array();
        json_object_set_new(R.run, "schema_version", json_integer(SCHEMA_VERSION));
        json_object_set_new(R.run, "loadbench",
                            json_pack("{s:s, s:s, s:s}", "version", LB_VERSION, "git", LB_GIT_REV, "build", LB_BUILD_TYPE));
        json_object_set_new(R.run, "profile", profile_to_json(p));
        json_object_set_new(R.run, "machine", run_machine_info());
        json_object_set_new(R.run, "started_at_ms", json_integer((json_int_t)util_wall_ms()));
        json_object_set_new(R.run, "status", json_string("running"));
        json_object_set_new(R.run, "runs", R.runs);
        /* Keep the profile as written beside the results. */
        char *text = adapter_slurp(NULL, p->path, 4 << 20, NULL);
        if (text) {
            snprintf(path, sizeof path, "%s/profile.yaml", R.dir);
            run_write_text(path, text, NULL);
            free(text);
        }
    }
    if (save(&R, err))
        return 2;

    size_t nlevels = sweep_levels(p);
    int failures = 0, interrupted = 0;
    int first = 1;
    logf_(&R, "run directory %s", R.dir);
    for (size_t li = 0; li < nlevels && !interrupted; li++) {
        for (unsigned rep = 1; rep <= p->repeat && !interrupted; rep++) {
            for (size_t ti = 0; ti < p->ntools && !interrupted; ti++) {
                const struct profile_tool *t = &p->tools[ti];
                if (o->only && strcmp(t->label, o->only))
                    continue;
                double level;
                struct profile_load *at;
                const struct profile_load *load = load_at_step(profile_tool_load(p, t), li, &level, &at);
                if (!load)
                    continue;
                if (!first && p->cooldown_ns) {
                    uint64_t until = util_now_ns() + p->cooldown_ns;
                    while (util_now_ns() < until && !*o->stop)
                        sleep_until(util_now_ns() + 50000000ull < until ? util_now_ns() + 50000000ull : until);
                }
                first = 0;
                if (*o->stop) {
                    interrupted = 1;
                    break;
                }
                char sub[256];
                subdir_name(sub, sizeof sub, p, t, level, rep);
                /* --into replaces the tool's earlier row, in its place. */
                long replace_at = -1;
                if (o->into_dir) {
                    size_t i;
                    json_t *r;
                    json_array_foreach(R.runs, i, r)
                    {
                        if (!strcmp(json_string_value(json_object_get(r, "dir")) ?: "", sub)) {
                            replace_at = (long)i;
                            break;
                        }
                    }
                }
                logf_(&R, "%s: starting", sub);
                json_t *res = run_one(&R, t, load, level, rep, sub);
                profile_load_free(at);
                const char *st = json_string_value(json_object_get(res, "status"));
                const char *why = json_string_value(json_object_get(res, "reason"));
                json_t *srv = json_object_get(res, "server");
                logf_(&R, "%s: %s%s%s%s", sub, st, why ? " (" : "", why ? why : "", why ? ")" : "");
                if (srv)
                    logf_(&R, "%s: %.0f req/s (server-counted), crosscheck %s", sub,
                          json_number_value(json_object_get(json_object_get(res, "windows"), "whole_rps")),
                          json_string_value(json_object_get(json_object_get(res, "crosscheck"), "verdict")) ?: "-");
                if (replace_at >= 0)
                    json_array_set_new(R.runs, (size_t)replace_at, res);
                else
                    json_array_append_new(R.runs, res);
                if (!strcmp(st, "interrupted"))
                    interrupted = 1;
                else if (strcmp(st, "ok") && strcmp(st, "skipped"))
                    failures++;
                if (save(&R, err)) {
                    /* e.g. the disk is full: run.json is written whole or
                     * not at all, so the one on disk is the last good one. */
                    size_t n = strlen(err);
                    snprintf(err + n, UTIL_ERR_LEN - n, " (run stopped; run.json keeps the rows saved before)");
                    json_decref(R.run);
                    return 2;
                }
            }
        }
    }
    if (*o->stop)
        interrupted = 1;
    json_object_set_new(R.run, "status", json_string(interrupted ? "interrupted" : "complete"));
    json_object_set_new(R.run, "ended_at_ms", json_integer((json_int_t)util_wall_ms()));
    if (save(&R, err))
        return 2;
    if (report_write_all(R.dir, R.run, err)) {
        logf_(&R, "reports: %s", err);
        failures++;
    }
    json_decref(R.run);
    if (interrupted)
        return 130;
    return failures ? 1 : 0;
}

int run_plan(const struct profile *p, FILE *out, char *err)
{
    char tmpl[] = "/tmp/loadbench-plan-XXXXXX";
    if (!mkdtemp(tmpl))
        return util_err(err, "cannot create a temporary directory: %s", strerror(errno));
    json_t *resolved = profile_to_json(p);
    char *s = json_dumps(resolved, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fprintf(out, "# profile as resolved\n%s\n\n", s);
    free(s);
    json_decref(resolved);
    size_t nlevels = sweep_levels(p);
    double total_s = 0;
    int runs = 0;
    for (size_t ti = 0; ti < p->ntools; ti++) {
        const struct profile_tool *t = &p->tools[ti];
        const struct adapter *a = adapter_by_name(t->tool);
        fprintf(out, "# %s (%s)\n", t->label, t->tool);
        struct adapter_found found;
        char e[UTIL_ERR_LEN];
        memset(&found, 0, sizeof found);
        if (!a) {
            fprintf(out, "  skipped: no adapter named \"%s\"\n\n", t->tool);
            continue;
        }
        if (a->detect(t->bin, &found, e)) {
            fprintf(out, "  skipped: %s (%s)\n\n", e, a->install_hint);
            continue;
        }
        fprintf(out, "  binary: %s (version %s)\n", found.path, found.version);
        const struct profile_load *base = profile_tool_load(p, t);
        for (size_t li = 0; li < nlevels; li++) {
            double level;
            struct profile_load *at;
            const struct profile_load *load = load_at_step(base, li, &level, &at);
            if (!load)
                break;
            char dir[PATH_MAX];
            snprintf(dir, sizeof dir, "%s/%s@%zu", tmpl, t->label, li);
            mkdir_p(dir, NULL);
            struct adapter_plan plan;
            adapter_plan_init(&plan);
            /* Port 1 is a placeholder: the real port is known only once
             * the fresh lb-target of each run has started. */
            struct adapter_ctx ctx = {.profile = p, .tool = t, .load = load, .found = &found, .dir = dir,
                                      .host = "127.0.0.1", .port = 1, .url = "http://127.0.0.1:PORT/",
                                      .tool_cpus = p->tool_cpus};
            if (a->prepare(&ctx, &plan, e)) {
                fprintf(out, "  cannot prepare: %s\n", e);
            } else {
                if (!isnan(level))
                    fprintf(out, "  level %g:\n", level);
                fprintf(out, "  model as run: %s\n  argv:", plan.model);
                for (size_t i = 0; i < plan.argv.n; i++)
                    fprintf(out, " %s", plan.argv.v[i]);
                fputc('\n', out);
                for (size_t i = 0; i < plan.env.n; i++)
                    fprintf(out, "  env: %s\n", plan.env.v[i]);
                for (size_t i = 0; i < plan.files.n; i++)
                    fprintf(out, "  config: %s/%s\n", dir, plan.files.v[i]);
                for (size_t i = 0; i < plan.warnings.n; i++)
                    fprintf(out, "  warning: %s\n", plan.warnings.v[i]);
                double each = (double)(plan.load_ns + plan.startup_allowance_ns) / 1e9 + 2.0;
                total_s += each * p->repeat;
                runs += (int)p->repeat;
            }
            adapter_plan_free(&plan);
            profile_load_free(at);
        }
        fputc('\n', out);
    }
    if (runs > 1)
        total_s += (double)(runs - 1) * (double)p->cooldown_ns / 1e9;
    fprintf(out, "# %d tool run(s), estimated wall time %.0f s (load + start-up + ~2 s of harness work each, plus cooldowns)\n",
            runs, total_s);
    fprintf(out, "# generated configs are in %s\n", tmpl);
    return 0;
}
