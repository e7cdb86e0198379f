#include "engine/toolrun.h"
#include "adapters/adapter.h"
#include "adapters/group.h"
#include "engine/capture.h"
#include "engine/crosscheck.h"
#include "engine/exec.h"
#include "engine/hostread.h"
#include "common/fsutil.h"
#include "common/jsonutil.h"
#include "common/net.h"
#include "engine/netstat.h"
#include "engine/pacing.h"
#include "engine/peercheck.h"
#include "engine/quiet.h"
#include "engine/sampler.h"
#include "engine/serverlog.h"
#include "common/sha256.h"
#include "engine/target.h"
#include "engine/toollog.h"

#include <limits.h>
#include <sched.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- status ------------------------------------------------------------------ */

void tool_run_downgrade(struct tool_run_verdict *v, enum tool_run_status s, const char *fmt, ...)
{
    char msg[sizeof v->reason];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (s > v->status) {
        v->status = s;
        snprintf(v->reason, sizeof v->reason, "%s", msg);
        return;
    }
    /* "no result: host lost: b: ..." after "host lost: b: ..." says the
     * loss again: a consequence of a reason given is not a second one. */
    const char *lost = strstr(msg, "host lost: ");
    if (strstr(v->reason, msg) || (lost && strstr(v->reason, lost)))
        return;
    size_t n = strlen(v->reason);
    snprintf(v->reason + n, sizeof v->reason - n, "%s%s", n ? "; " : "", msg);
}

const char *tool_run_status_name(enum tool_run_status s)
{
    switch (s) {
    case TOOL_RUN_OK: return "ok";
    case TOOL_RUN_SKIPPED: return "skipped";
    case TOOL_RUN_SUSPECT: return "suspect";
    case TOOL_RUN_FAILED: return "failed";
    case TOOL_RUN_TIMEOUT: return "timeout";
    case TOOL_RUN_INTERRUPTED: return "interrupted";
    case TOOL_RUN_OOM: return "oom";
    }
    return "failed";
}

/* ---- one run's state ----------------------------------------------------------- */

struct tool_run_state {
    const struct tool_run_opts *o;
    const struct profile *p;            /* &view: the profile as this entry runs it */
    struct profile view;                /* its own target.tls/protocol, request, check applied */
    const struct profile_tool *pt;
    const struct profile_load *load;    /* the profile's load at this level */
    const struct adapter *a;
    const char *subdir;
    char dir[PATH_MAX];
    json_t *res, *ident, *warnings;     /* ident: borrowed from res */
    struct tool_run_verdict v;
    uint64_t t_start;

    /* The tool's plan and its own account: one process, or several
     * (instances: N); plan is the first's, ar the merged result. */
    struct adapter_found found;
    struct adapter_ctx ctx;
    char url[64];
    char ca_path[4200];                 /* target.tls: the run's CA, in the tool run's directory */
    struct adapter_group g;
    const struct adapter_plan *plan;
    const struct profile_load *as_run;  /* the load all processes together really apply */
    struct profile_load *as_run_sum;    /* copies: their shares summed (owned) */
    uint64_t load_ns, startup_ns;       /* the longest of the processes' */
    struct adapter_result ar;

    /* The fresh target and its view. */
    struct target tgt;
    int have_tgt;
    json_t *before, *after, *series, *stalls;  /* stalls: GET /stalls, with target.stall only */
    json_t *hist_end;                   /* GET /histogram after the tool: its requests' server times */
    json_t *last_stats;                 /* lb-target's stats at the last sample */
    json_t *hold_h0, *hold_h1;          /* server-time histograms at the hold window's edges */
    struct serverlog slog;              /* those and one a sample, as an HdrHistogram interval log */
    uint64_t hold_s_ns, hold_e_ns;      /* the hold window, from the load's start */
    int have_hold;
    uint64_t hold_from, hold_to;        /* the hold window on the monotonic clock, once known */
    uint64_t open_at_stop;
    uint64_t foreign;               /* the server's requests from addresses not the row's (record_foreign_peers) */
    struct netstat_ports ports;     /* ephemeral ports in TIME_WAIT, looked at each tick (a local row) */
    struct netstat ns0, ns1;

    /* The tool's process trees, through the executor: one per process
     * of the group, the first also as tool. */
    struct tool_tree *trees;
    size_t ntrees;
    struct exec_tree *tool;
    uint64_t spawned, deadline, ended;
    int64_t clock_off0;                 /* realtime - monotonic at the spawn: a step during the run shows */
    uint64_t master_ended_ns;           /* when a master's root exited (its workers then have 10 s) */
    int stopped_by_us;

    /* Sampling: the tool, the target, the machine. */
    struct sampler_tree *gtree;         /* lb-target's tree (the tool's is the executor's) */
    char spath[PATH_MAX + 64], tpath[PATH_MAX + 80];
    FILE *tcsv, *gcsv;
    FILE *mcsv;                         /* the machine, per CPU, per interval */
    struct sampler_machine mprev[64], m0, m1;
    struct quiet_gate gate;             /* the wait for a quiet machine before the spawn */
    struct quiet_psi psi1;              /* CPU pressure when the tool had stopped */
    int nmcpu;
    struct crosscheck_point *tpts, *gpts; /* the sampled series, for window averages */
    size_t ntp, ngp, cap_pts;
    struct sampler_reading trd0, trd1;
    double self0, self1;
    uint64_t next, last_tick_ns, last_resp, last_t;
    double cur_rps, cur_cpu, cur_rss;
    struct sampler_gaps gaps;           /* the loop's own looks: where loadbench did not run */
    int end_in_gap;                     /* the tool ended unseen, inside the last gap */

    /* The footprint, for the judgement. */
    double cpu_s, rss_peak, target_cpu_s;
    double load_cpu_s;                  /* > 0: the CPU of the tool's own load phase (tool_run_phases),
                                         * what requests per CPU-second divide by */
    struct sampler_summary tool_ss;     /* the trees' sampled aggregates, summed */

    /* The hosts the row uses, each read there (hostread.h): with another
     * host than this one, the row's machine and network readings. */
    struct hostread_set hs;
};

/* One of the tool's process trees, with its own series file when there
 * are several (the run's samples file is then their sum). */
struct tool_tree {
    struct exec_tree *t;
    const struct adapter_proc *proc;
    int seen_ended;
    uint64_t open_before_end;           /* the server's open connections at the last sample before
                                         * this tree ended: the most responses it can have left unread */
    FILE *csv;
    char path[PATH_MAX + 96];
    double sampled_cpu_s;               /* the CPU its points add up to (what a lost host's tree
                                         * still measured) */
    double cpu_s;                       /* its footprint's CPU (NAN: not measured) */
};

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

static json_t *summary_json(const struct sampler_summary *s)
{
    return json_pack("{s:i, s:f, s:f, s:f, s:f, s:i, s:i, s:f, s:f}", "points", s->npoints, "cpu_avg_pct", s->cpu_avg_pct,
                     "cpu_peak_pct", s->cpu_peak_pct, "rss_peak_mb", s->rss_peak_mb, "rss_avg_mb", s->rss_avg_mb,
                     "procs_peak", s->procs_peak, "threads_peak", s->threads_peak, "write_mb", s->write_mb,
                     "thread_max_peak_pct", s->thread_max_peak_pct);
}

static json_t *latency_json(const struct adapter_latency *l)
{
    json_t *o = json_object();
    json_object_set_new(o, "min", jsonutil_num(l->min));
    json_object_set_new(o, "mean", jsonutil_num(l->mean));
    json_object_set_new(o, "p50", jsonutil_num(l->p50));
    json_object_set_new(o, "p90", jsonutil_num(l->p90));
    json_object_set_new(o, "p95", jsonutil_num(l->p95));
    json_object_set_new(o, "p99", jsonutil_num(l->p99));
    json_object_set_new(o, "p999", jsonutil_num(l->p999));
    json_object_set_new(o, "max", jsonutil_num(l->max));
    return o;
}

static json_t *strvec_json(const struct strvec *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->n; i++)
        json_array_append_new(a, adapter_json_text(s->v[i]));
    return a;
}

/* Writes word single-quoted (so the shell takes it as is), after a space
 * when lead is set. */
static void shell_quoted(FILE *f, const char *word, size_t len, int lead)
{
    fputs(lead ? " '" : "'", f);
    for (size_t i = 0; i < len; i++)
        word[i] == '\'' ? fputs("'\\''", f) : fputc(word[i], f);
    fputc('\'', f);
}

/* Where prefix (a directory) starts word as a path: at 0 or just after an
 * '=' (NAME=/dir/..., --opt=/dir/...), followed by '/' or the end.
 * Returns the offset, or -1. */
static long path_at(const char *word, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *at = word; at; at = strchr(at + 1, '=')) {
        const char *p = at == word ? word : at + 1;
        if (!strncmp(p, prefix, n) && (p[n] == '/' || !p[n]))
            return p - word;
    }
    return -1;
}

/* The places reproduce.sh names through a variable rather than as they
 * were on this machine: the tool's own directory, the loadbench checkout
 * and the tools folder (scripts/install-tools) the tool came from. */
struct repro_dirs {
    const char *dir[3];
};

static const char *const repro_var[3] = {"\"$here\"", "\"$LB_ROOT\"", "\"$LB_TOOLS_DIR\""};

/* One word of reproduce.sh: a path inside one of d's directories becomes
 * its variable ("$here"/..., "$LB_ROOT"/..., "$LB_TOOLS_DIR"/...), so the
 * script runs from wherever the checkout or the tools have moved; anything
 * else is quoted as is. */
static void reproduce_word(FILE *f, const char *word, const struct repro_dirs *d)
{
    for (int i = 0; i < 3; i++) {
        const char *pre = d->dir[i];
        long at = pre && pre[0] ? path_at(word, pre) : -1;
        if (at < 0)
            continue;
        fputc(' ', f);
        if (at > 0)
            shell_quoted(f, word, (size_t)at, 0);
        fputs(repro_var[i], f);
        const char *rest = word + at + strlen(pre);
        if (*rest)
            shell_quoted(f, rest, strlen(rest), 0);
        return;
    }
    shell_quoted(f, word, strlen(word), 1);
}

/* The tools folder one of the plan's words lies in (resolved into buf),
 * or NULL. */
static const char *repro_tools_dir(const struct adapter_plan *plan, char *buf)
{
    for (const char *const *t = adapter_tools_dirs(); *t; t++) {
        if (!realpath(*t, buf))
            continue;
        for (size_t i = 0; i < plan->argv.n; i++)
            if (path_at(plan->argv.v[i], buf) >= 0)
                return buf;
        for (size_t i = 0; i < plan->env.n; i++)
            if (path_at(plan->env.v[i], buf) >= 0)
                return buf;
    }
    return NULL;
}

/* reproduce.sh: the tool's command line and environment as loadbench ran
 * it (env -i; the same defaults as proc_clean_env, then the adapter's own
 * variables, which win: siege's HOME), with paths written relative to the
 * script's directory and to LB_ROOT, the checkout, which defaults to the
 * one the script sits in (found from its own place) or, for a run outside
 * it, the one that made it. */
static void write_reproduce(const char *dir, const struct adapter_plan *plan, const char *target_cmd)
{
    char path[PATH_MAX + 16], here[PATH_MAX], root[PATH_MAX], tools[PATH_MAX], up[PATH_MAX] = "";
    snprintf(path, sizeof path, "%s/reproduce.sh", dir);
    if (!realpath(dir, here))
        snprintf(here, sizeof here, "%s", dir);
    if (!realpath(adapter_datadir(), root))
        root[0] = 0;
    struct repro_dirs d = {{here, root, repro_tools_dir(plan, tools)}};
    size_t rn = strlen(root);
    if (rn > 1 && !strncmp(here, root, rn) && here[rn] == '/') {
        /* ../ once per folder between the script and the checkout. */
        for (const char *c = here + rn; *c && strlen(up) + 4 < sizeof up; c++)
            if (*c == '/')
                strcat(up, up[0] ? "/.." : "..");
    }
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs("#!/bin/sh\n# Rerun this tool by hand, as loadbench ran it.\n"
          "# LB_ROOT is the loadbench checkout (default: the one this script is in).\n",
          f);
    if (d.dir[2])
        fputs("# LB_TOOLS_DIR is the tools folder scripts/install-tools filled (default: the one it ran from).\n", f);
    fputs("# 1. Start a target like the one it measured (it prints its port):\n#   ", f);
    size_t cmd0 = strcspn(target_cmd, " ");
    char bin[PATH_MAX];
    snprintf(bin, sizeof bin, "%.*s", (int)cmd0, target_cmd);
    struct repro_dirs in_root = {{"", root, NULL}};
    reproduce_word(f, bin, &in_root);
    fprintf(f, "%s\n# 2. Replace the port below with the one it printed, then run this script.\n"
               "here=$(cd \"$(dirname \"$0\")\" && pwd) || exit 1\n",
            target_cmd + cmd0);
    fputs("[ -n \"${LB_ROOT:-}\" ] || LB_ROOT=", f);
    if (up[0]) {
        fprintf(f, "$(cd \"$here/%s\" && pwd) || exit 1\n", up);
    } else {
        shell_quoted(f, root, strlen(root), 0);
        fputc('\n', f);
    }
    if (d.dir[2]) {
        fputs("[ -n \"${LB_TOOLS_DIR:-}\" ] || LB_TOOLS_DIR=", f);
        shell_quoted(f, d.dir[2], strlen(d.dir[2]), 0);
        fputc('\n', f);
    }
    fputs("cd \"$here\" && mkdir -p home/tmp || exit 1\n"
          "exec env -i PATH=\"$PATH\" LANG=C.UTF-8 TZ=UTC HOME=\"$here/home\" TMPDIR=\"$here/home/tmp\"",
          f);
    for (size_t i = 0; i < plan->env.n; i++)
        reproduce_word(f, plan->env.v[i], &d);
    for (size_t i = 0; i < plan->argv.n; i++)
        reproduce_word(f, plan->argv.v[i], &d);
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

static int has_string(json_t *a, const char *s);

/* Ends the capture of one of a tree's output files (once; later calls do
 * nothing) and says in the result when the output was cut or could not be
 * written: output_truncated.<name> (stdout or stderr, p1/stdout for
 * process 1 of several) = bytes left out. */
static void finish_output(struct tool_run_state *r, size_t k, enum exec_stream stream)
{
    const char *base = stream == EXEC_STDOUT ? "stdout" : "stderr";
    char name[32];
    if (r->ntrees > 1)
        snprintf(name, sizeof name, "p%zu/%s", k, base);
    else
        snprintf(name, sizeof name, "%s", base);
    char err[UTIL_ERR_LEN];
    struct exec_output o = {0, 0};
    struct exec_tree *tree = r->trees[k].t;
    if (!tree)
        return;
    int rc = tree->ex->output(tree, stream, &o, err);
    if (rc == 1)
        return;
    if (rc < 0 && tree->lost[0]) {
        /* Its file stayed on the lost host: said once, not as a count. */
        json_t *l = json_object_get(r->res, "output_lost");
        if (!l)
            json_object_set_new(r->res, "output_lost", l = json_array());
        if (!has_string(l, name))
            json_array_append_new(l, json_string(name));
        return;
    }
    if (rc < 0)
        json_array_append_new(r->warnings, adapter_json_text(err));
    if (o.dropped_bytes) {
        json_t *t = json_object_get(r->res, "output_truncated");
        if (!t)
            json_object_set_new(r->res, "output_truncated", t = json_object());
        json_object_set_new(t, name, json_integer((json_int_t)o.dropped_bytes));
        json_array_append_new(r->warnings, json_sprintf("the tool wrote %llu bytes to %s.txt: the middle %llu bytes were left out (first and last %u MiB kept)",
                                                        (unsigned long long)o.total_bytes, name,
                                                        (unsigned long long)o.dropped_bytes, CAPTURE_HEAD_BYTES >> 20));
    }
}

/* ---- prepare: the tool found, a fresh target, the tool's plan ------------------ */

static void tool_run_init(struct tool_run_state *r, const struct tool_run_opts *o, const struct profile_tool *pt,
                          const struct profile_load *load, double level, unsigned rep, const char *subdir)
{
    memset(r, 0, sizeof *r);
    r->o = o;
    profile_entry_view(o->profile, pt, &r->view);
    r->p = &r->view;
    r->pt = pt;
    r->load = load;
    r->a = adapter_by_name(pt->tool);
    r->subdir = subdir;
    r->t_start = util_now_ns();
    r->res = json_object();
    r->warnings = json_array();
    adapter_result_init(&r->ar);
    pathf(r->dir, sizeof r->dir, "%s/%s", o->run_dir, subdir);
    json_object_set_new(r->res, "tool", json_string(pt->tool));
    json_object_set_new(r->res, "label", json_string(pt->label));
    json_object_set_new(r->res, "level", jsonutil_num(level));
    json_object_set_new(r->res, "repeat", json_integer(rep));
    json_object_set_new(r->res, "dir", json_string(subdir));
    json_object_set_new(r->res, "load", profile_load_to_json(load));
    json_object_set_new(r->res, "ran_with", profile_entry_json(o->profile, pt));
    json_object_set_new(r->res, "started_at_ms", json_integer((json_int_t)util_wall_ms()));
    /* Where the tool's processes and lb-target run: process k on its
     * entry's host_index, as tool_run_spawn_one places it. */
    for (unsigned i = 0; i < (pt->nhosts ? pt->nhosts : 1); i++)
        hostread_set_add(&r->hs, pt->nhosts ? pt->hosts[i] : pt->host,
                         exec_host_of(o->host_ex ? o->host_ex[i] : o->ex));
    hostread_set_add(&r->hs, o->profile->target_host, o->target_host);
}

/* The tool's adapter and binary, and its identity in the result. */
static int tool_run_detect(struct tool_run_state *r)
{
    char err[UTIL_ERR_LEN];
    if (fsutil_mkdir_p(r->dir, err) || fsutil_mkdir_p(r->o->run_dir, err)) {
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "%s", err);
        return -1;
    }
    if (!r->a) {
        tool_run_downgrade(&r->v, TOOL_RUN_SKIPPED, "no adapter named \"%s\" (see `loadbench tools`)", r->pt->tool);
        return -1;
    }
    if (r->a->detect(r->pt->bin, &r->found, err)) {
        tool_run_downgrade(&r->v, TOOL_RUN_SKIPPED, "%s (%s)", err, r->a->install_hint);
        return -1;
    }
    char sha[65] = "";
    sha256_file_hex(r->found.path, sha);
    r->ident = json_pack("{s:o, s:o, s:s, s:s, s:f}", "path", adapter_json_text(r->found.path), "version",
                         adapter_json_text(r->found.version), "sha256", sha, "latency_measures", r->a->latency_measures, "latency_resolution_ms",
                         r->a->latency_resolution_ms);
    json_object_set_new(r->res, "identity", r->ident);
    return 0;
}

/* TIME_WAIT sockets now: here, or the most of any host the row uses. */
static uint64_t tool_run_time_wait(struct tool_run_state *r)
{
    if (!r->hs.remote) {
        netstat_read(&r->ns0, NULL);
        return r->ns0.time_wait;
    }
    /* On each host the row uses, in its own namespace: the most of them. */
    uint64_t most = 0;
    for (size_t i = 0; i < r->hs.n; i++) {
        struct hostread hr;
        if (hostread_take(r->hs.v[i].h, r->hs.v[i].pid, &hr) == 0 && hr.ns.time_wait > most)
            most = hr.ns.time_wait;
    }
    return r->ns0.time_wait = most;
}

/* The ephemeral ports TIME_WAIT holds: here, the ports themselves once
 * the sockets could fill half the range (a server that closed first holds
 * thousands of sockets on its one port: counted as sockets, a run of ab
 * made the next row wait up to 65 s for nothing); a host's, its sockets. */
static uint64_t tool_run_tw_ports(struct tool_run_state *r, uint64_t range)
{
    uint64_t tw = tool_run_time_wait(r);
    return !r->hs.remote && tw > range / 2 ? netstat_tw_ports_held() : tw;
}

/* TIME_WAIT sockets of the previous run hold ephemeral ports: when they
 * fill half the range, wait (bounded) for them to drain. */
static void tool_run_drain_ports(struct tool_run_state *r)
{
    uint64_t range = netstat_port_range(), waited_from = util_now_ns();
    while (tool_run_tw_ports(r, range) > range / 2 && util_now_ns() - waited_from < 65000000000ull && !*r->o->stop)
        util_sleep_until_ns(util_now_ns() + 500000000ull);
    if (util_now_ns() - waited_from > 1000000000ull)
        json_array_append_new(r->warnings, json_sprintf("waited %.0f s for TIME_WAIT sockets to drain (%llu left)",
                                                        (double)(util_now_ns() - waited_from) / 1e9,
                                                        (unsigned long long)r->ns0.time_wait));
}

/* The load the processes apply together: copies' shares summed stage by
 * stage (when each ran a load of its own), else the first process's. */
static void tool_run_sum_as_run(struct tool_run_state *r)
{
    const struct adapter_proc *p0 = &r->g.procs[0];
    r->as_run = p0->plan.as_run ? p0->plan.as_run : r->load;
    if (r->a->spread != ADAPTER_SPREAD_COPIES || r->g.n < 2 || !p0->plan.as_run)
        return;
    struct profile_load *sum = profile_load_share(p0->plan.as_run, 0, 1);
    for (size_t k = 1; k < r->g.n; k++) {
        const struct profile_load *l = r->g.procs[k].plan.as_run;
        if (!l || l->nstages != sum->nstages) {
            profile_load_free(sum);
            r->as_run = r->load;
            return;
        }
        for (size_t s = 0; s < l->nstages; s++)
            sum->stages[s].target += l->stages[s].target;
    }
    r->as_run = r->as_run_sum = sum;
}

/* 1 when array a holds the string s. */
static int has_string(json_t *a, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        if (json_is_string(v) && !strcmp(json_string_value(v), s))
            return 1;
    }
    return 0;
}

/* What every process's plan says, once in the result: warnings (each
 * once), the longest load and start-up, and with several processes each
 * one's role, folder and argv. */
static void tool_run_group_plan(struct tool_run_state *r)
{
    json_t *procs = json_array();
    for (size_t k = 0; k < r->g.n; k++) {
        const struct adapter_proc *pr = &r->g.procs[k];
        for (size_t i = 0; i < pr->plan.warnings.n; i++)
            if (!has_string(r->warnings, pr->plan.warnings.v[i]))
                json_array_append_new(r->warnings, adapter_json_text(pr->plan.warnings.v[i]));
        if (pr->plan.load_ns > r->load_ns)
            r->load_ns = pr->plan.load_ns;
        if (pr->plan.startup_allowance_ns > r->startup_ns)
            r->startup_ns = pr->plan.startup_allowance_ns;
        json_array_append_new(procs, json_pack("{s:s, s:s, s:o, s:O}", "role", pr->role, "dir",
                                               pr->dir + strlen(r->o->run_dir) + 1, "argv", strvec_json(&pr->plan.argv),
                                               "settings", pr->plan.settings));
    }
    tool_run_sum_as_run(r);
    json_object_set_new(r->res, "instances", json_integer(r->g.instances));
    if (r->g.n > 1)
        json_object_set_new(r->ident, "processes", procs);
    else
        json_decref(procs);
}

/* A fresh target for each tool run (no connection state crosses runs),
 * then the adapter's plan for the tool against it. */
static int tool_run_prepare(struct tool_run_state *r)
{
    const struct profile *p = r->p;
    char err[UTIL_ERR_LEN];
    if (tool_run_detect(r))
        return -1;
    tool_run_drain_ports(r);
    struct target_opts to = {.bin = r->o->target_bin, .dir = r->dir, .name = "target",
                             .delay_ns = p->target.delay_ns, .shape = &p->target.shape,
                             .work_ns = p->target.work_ns, .body_bytes = p->target.body_bytes,
                             .expect_body = p->request.post ? p->request.body_bytes : 0,
                             .threads = p->target.threads, .cpus_mask = p->target_cpus, .host = r->o->target_host,
                             .sample_interval_ns = p->sample_interval_ns, .listen_addr = r->o->target_addr,
                             .tls = &p->target.tls, .http2 = p->target.protocol != PROFILE_H1, .ca_path = r->ca_path};
    snprintf(r->ca_path, sizeof r->ca_path, "%s/target-ca.pem", r->dir);
    const char *addr = r->o->target_addr ? r->o->target_addr : "127.0.0.1";
    if (target_start(&r->tgt, &to, err)) {
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "target: %s", err);
        return -1;
    }
    r->have_tgt = 1;
    snprintf(r->url, sizeof r->url, "%s://%.40s:%d/", p->target.tls.version ? "https" : "http", addr, r->tgt.port);
    r->ctx = (struct adapter_ctx){.profile = p, .tool = r->pt, .load = r->load, .found = &r->found, .dir = r->dir,
                                  .host = addr, .port = r->tgt.port, .url = r->url, .tool_cpus = p->tool_cpus,
                                  .instances = 1, .ca_file = p->target.tls.version ? r->ca_path : NULL};
    int failed = adapter_group_prepare(r->a, &r->ctx, &r->g, err);
    r->plan = &r->g.procs[0].plan;
    if (failed) {
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "prepare: %s", err);
        return -1;
    }
    tool_run_group_plan(r);
    json_object_set_new(r->ident, "argv", strvec_json(&r->plan->argv));
    json_object_set_new(r->ident, "env", strvec_json(&r->plan->env));
    json_object_set_new(r->ident, "configs", strvec_json(&r->plan->files));
    json_object_set_new(r->ident, "settings", json_incref(r->plan->settings));
    json_object_set_new(r->ident, "model", json_string(r->plan->model));
    if (r->as_run != r->load)
        json_object_set_new(r->res, "load_as_run", profile_load_to_json(r->as_run));
    char tcmd[1024], shape[512], proto[192] = "";
    const struct profile_tls *tls = &p->target.tls;
    if (tls->version)
        snprintf(proto, sizeof proto, " --tls %s --tls-key %s --tls-resumption %s --tls-ca target-ca.pem",
                 tls->version == 13 ? "1.3" : "1.2", tls->key_rsa ? "rsa" : "ecdsa", tls->no_resumption ? "off" : "on");
    if (p->target.protocol != PROFILE_H1)
        snprintf(proto + strlen(proto), sizeof proto - strlen(proto), " --http2");
    if (p->request.post)
        snprintf(proto + strlen(proto), sizeof proto - strlen(proto), " --expect-body %lluB --max-body %lluB",
                 (unsigned long long)p->request.body_bytes, (unsigned long long)p->request.body_bytes);
    pathf(tcmd, sizeof tcmd, "%s --port 0 --delay %lluns --work %lluns --body %lluB --threads %u%s%s", r->o->target_bin,
          (unsigned long long)(p->target.shape.dist ? 0 : p->target.delay_ns), (unsigned long long)p->target.work_ns,
          (unsigned long long)p->target.body_bytes, p->target.threads,
          target_shape_flags(&p->target.shape, shape, sizeof shape), proto);
    for (size_t k = 0; k < r->g.n; k++)
        write_reproduce(r->g.procs[k].dir, &r->g.procs[k].plan, tcmd);
    return 0;
}

/* ---- spawn: the tool's tree, started -------------------------------------------- */

/* What the executor said about the tool's cgroup: one warning when
 * cgroups stop working here, and a memory cap that cannot hold. */
static void tool_run_cgroup_warnings(struct tool_run_state *r)
{
    if (r->tool->cgroup)
        return;
    if (*r->o->cgroup_ok)
        json_array_append_new(r->warnings, json_sprintf("no cgroup accounting (%s): CPU from wait4 rusage, memory from /proc samples",
                                                        r->tool->no_cgroup));
    *r->o->cgroup_ok = 0;
    if (r->pt->memory_limit_bytes)
        json_array_append_new(r->warnings, json_string("memory_limit not enforced: no writable memory cgroup"));
}

/* 1 when process 0 leads the others (a master, a controller). */
static int tool_run_led(const struct tool_run_state *r)
{
    return r->g.n > 1 && (r->a->spread == ADAPTER_SPREAD_MASTER || r->a->spread == ADAPTER_SPREAD_ENGINES);
}

/* The CPUs for process k: a Locust-style worker or a JMeter engine gets
 * one CPU of its own when the tool's CPU set (or loadbench's own) has one
 * for each worker on its host (with host: [a, b], a's workers and b's
 * are counted apart); everything else the whole set. */
static uint64_t tool_run_cpus(const struct tool_run_state *r, size_t k)
{
    uint64_t set = r->p->tool_cpus;
    if (!tool_run_led(r) || k == 0)
        return set;
    size_t rank = 0, here = 0; /* k's place among its host's workers, and how many there are */
    for (size_t j = 1; j < r->g.n; j++) {
        if (r->g.procs[j].host_index != r->g.procs[k].host_index)
            continue;
        rank += j < k;
        here++;
    }
    if (!set) {
        cpu_set_t cs;
        CPU_ZERO(&cs);
        if (sched_getaffinity(0, sizeof cs, &cs))
            return 0;
        for (int c = 0; c < 64; c++)
            if (CPU_ISSET(c, &cs))
                set |= 1ull << c;
    }
    if ((size_t)__builtin_popcountll(set) < here)
        return r->p->tool_cpus;
    /* The rank-th CPU of the set. */
    for (size_t skip = rank; set; set &= set - 1)
        if (!skip--)
            return set & -set;
    return r->p->tool_cpus;
}

/* Process k's spec (name is its storage) and the executor it runs on. */
static const struct executor *tool_run_spec(struct tool_run_state *r, size_t k, struct exec_spec *spec, char *name,
                                            size_t len)
{
    const struct adapter_proc *pr = &r->g.procs[k];
    if (r->g.n > 1)
        pathf(name, len, "%s.p%zu", r->subdir, k);
    else
        pathf(name, len, "%s", r->subdir);
    *spec = (struct exec_spec){.name = name, .argv = (const char *const *)pr->plan.argv.v,
                               .env = (const char *const *)pr->plan.env.v, .dir = pr->dir,
                               .cpus_mask = tool_run_cpus(r, k), .want_cgroup = *r->o->cgroup_ok,
                               .memory_limit_bytes = r->pt->memory_limit_bytes,
                               .sample_interval_ns = r->p->sample_interval_ns};
    r->trees[k].proc = pr;
    return r->o->host_ex ? r->o->host_ex[pr->host_index] : r->o->ex;
}

/* Start process k of the group through the executor. */
static int tool_run_spawn_one(struct tool_run_state *r, size_t k, char *err)
{
    struct exec_spec spec;
    char name[PATH_MAX];
    const struct executor *ex = tool_run_spec(r, k, &spec, name, sizeof name);
    return ex->spawn(ex, &spec, &r->trees[k].t, err);
}

/* Processes 0..n-1 started together: every one's files copied first, then
 * every start sent, then each outcome taken (one round trip for all hosts,
 * not one per host: the copies' start skew, bench/hosts-scale.sh). Every
 * start sent is taken, so that what runs is known and stopped; a failed
 * copy starts nothing (what was prepared goes with its host's link).
 * Executors without spawn_prepare start in turn. Returns 0, or -1 with
 * err (the first failure). */
static int tool_run_spawn_together(struct tool_run_state *r, size_t n, char *err)
{
    struct exec_spec spec;
    char name[PATH_MAX], e2[UTIL_ERR_LEN];
    for (size_t k = 0; k < n; k++) {
        const struct executor *ex = tool_run_spec(r, k, &spec, name, sizeof name);
        if (ex->spawn_prepare && ex->spawn_prepare(ex, &spec, err))
            return -1;
    }
    for (size_t k = 0; k < n; k++) {
        const struct executor *ex = tool_run_spec(r, k, &spec, name, sizeof name);
        if (ex->spawn_begin)
            ex->spawn_begin(ex, &spec);
    }
    int rc = 0;
    for (size_t k = 0; k < n; k++) {
        const struct executor *ex = tool_run_spec(r, k, &spec, name, sizeof name);
        if (rc && !ex->spawn_begin)
            continue; /* not started yet: nothing to take */
        if (ex->spawn(ex, &spec, &r->trees[k].t, rc ? e2 : err) && !rc)
            rc = -1;
    }
    return rc;
}

/* 1 when addr accepts a connection made on the host the tree runs on
 * (its agent connects there: the controller may have no route to the
 * data network the listener is bound to) and the listener there is the
 * tree's own (its process group holds the socket: a stranger listening
 * on a master's port is not taken for the master), 0 while not. */
static int tool_run_listening(const struct exec_tree *t, const struct sockaddr_in *sa, const char *host, int port)
{
    struct exec_host *h = exec_host_of(t->ex);
    if (h) {
        json_t *rep = exec_host_table(h)->call(h, json_pack("{s:s, s:s, s:i, s:I}", "op", "listening", "addr", host, "port",
                                                     port, "pgid", (json_int_t)t->pid),
                                        NULL);
        int up = json_is_true(json_object_get(rep, "listening"));
        json_decref(rep);
        return up;
    }
    int fd = net_connect_blocking(sa, NULL);
    if (fd >= 0)
        close(fd);
    return fd >= 0 && hostread_listener_in_group(port, t->pid);
}

/* A process whose plan names a ready port (a master, an engine) is
 * waited for until that port accepts a connection, so that the processes
 * started after it find it. The connection is made on the process's own
 * host (ctx.group_host: a master on another host listens on that
 * host's load address): at most the
 * start-up allowance and grace
 * (the deadline counts from the first process's start, so a master's
 * wait is within it; engines start before it). Returns 0, or -1 with err
 * when it exits or does not listen in time. */
static int tool_run_wait_ready(struct tool_run_state *r, size_t k, char *err)
{
    const struct adapter_proc *pr = &r->g.procs[k];
    struct exec_tree *t = r->trees[k].t;
    if (pr->plan.ready_port <= 0 || r->ntrees == 1)
        return 0;
    char addr[80];
    struct sockaddr_in sa;
    const char *host = pr->ctx.group_host ? pr->ctx.group_host : "127.0.0.1";
    snprintf(addr, sizeof addr, "%s:%d", host, pr->plan.ready_port);
    if (net_parse_addr(addr, &sa, err))
        return -1;
    uint64_t limit = r->startup_ns + (r->pt->timeout_ns ? r->pt->timeout_ns : r->p->grace_ns);
    uint64_t until = util_now_ns() + limit;
    while (!*r->o->stop) {
        if (tool_run_listening(t, &sa, host, pr->plan.ready_port)) {
            /* Engines: the slowest one's, each from its own start. */
            char key[32];
            double s = (double)(util_now_ns() - t->started_ns) / 1e9;
            snprintf(key, sizeof key, "%s_ready_s", pr->role);
            if (json_real_value(json_object_get(r->res, key)) < s)
                json_object_set_new(r->res, key, json_real(s));
            return 0;
        }
        if (t->ex->poll(t))
            return util_err(err, "the tool's %s exited before it listened on %s", pr->role, addr);
        if (util_now_ns() >= until)
            return util_err(err, "the tool's %s did not listen on %s within %.0f s", pr->role, addr, (double)limit / 1e9);
        util_sleep_until_ns(util_now_ns() + 50000000ull);
    }
    return util_err(err, "loadbench was interrupted");
}

/* Every process of the group, in the order its mode needs: a master
 * first and its workers once it listens; engines first, together, and
 * their controller once each of them listens; anything else in order.
 * Returns 0, or -1 with err (the trees started so far are stopped by the
 * run's clean-up). */
static int tool_run_spawn_all(struct tool_run_state *r, char *err)
{
    if (r->a->spread == ADAPTER_SPREAD_ENGINES && r->ntrees > 1) {
        for (size_t k = 1; k < r->ntrees; k++)
            if (tool_run_spawn_one(r, k, err))
                return -1;
        for (size_t k = 1; k < r->ntrees; k++)
            if (tool_run_wait_ready(r, k, err))
                return -1;
        return tool_run_spawn_one(r, 0, err);
    }
    int ready = 0;
    for (size_t k = 0; k < r->ntrees; k++)
        ready |= r->g.procs[k].plan.ready_port > 0;
    if (!ready || r->ntrees == 1)
        return tool_run_spawn_together(r, r->ntrees, err);
    for (size_t k = 0; k < r->ntrees; k++)
        if (tool_run_spawn_one(r, k, err) || tool_run_wait_ready(r, k, err))
            return -1;
    return 0;
}

/* The profile's quiet gate; a profile built without parse_profile (all
 * zeros) gets the defaults without the wait. */
static const struct profile_quiet *tool_run_quiet(const struct tool_run_state *r)
{
    static const struct profile_quiet dflt = {.busy_below_pct = PROFILE_QUIET_BUSY_PCT,
                                              .interval_ns = PROFILE_QUIET_INTERVAL_NS};
    return r->p->quiet.busy_below_pct > 0 ? &r->p->quiet : &dflt;
}

/* The server's window opens and the machine's counters are read just
 * before the tool starts, in its own clean environment, through the
 * executor. */
/* realtime - monotonic, in ns: it changes when the wall clock is stepped. */
static int64_t clock_offset_ns(void)
{
    struct timespec rt, mono;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    return ((int64_t)rt.tv_sec - (int64_t)mono.tv_sec) * 1000000000 + (rt.tv_nsec - mono.tv_nsec);
}

static int tool_run_spawn(struct tool_run_state *r)
{
    char err[UTIL_ERR_LEN];
    if (r->hs.remote) {
        hostread_set_gate(&r->hs, tool_run_quiet(r), r->o->stop);
        r->gate = r->hs.v[0].gate;
    } else {
        quiet_gate_wait(tool_run_quiet(r), r->o->stop, &r->gate);
    }
    r->before = target_window(&r->tgt, err);
    if (!r->before) {
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "target control channel: %s", err);
        return -1;
    }
    sampler_machine_read(&r->m0, NULL);
    r->self0 = sampler_self_cpu_s();
    if (r->hs.remote)
        hostread_set_read(&r->hs, 0);
    r->have_hold = profile_hold_window(r->as_run, &r->hold_s_ns, &r->hold_e_ns) == 0;
    /* A hold window from the load's start begins with the (fresh) target's
     * first request: the snapshot before any request is its left edge. */
    if (r->have_hold && r->hold_s_ns == 0)
        r->hold_h0 = target_histogram(&r->tgt, NULL);
    r->ntrees = r->g.n;
    r->trees = util_xcalloc(r->ntrees, sizeof *r->trees);
    if (tool_run_spawn_all(r, err)) {
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "%s", err);
        return -1;
    }
    r->tool = r->trees[0].t;
    tool_run_cgroup_warnings(r);
    r->spawned = r->tool->started_ns;
    r->clock_off0 = clock_offset_ns();
    r->deadline = r->spawned + r->load_ns + r->startup_ns + (r->pt->timeout_ns ? r->pt->timeout_ns : r->p->grace_ns);
    json_object_set_new(r->res, "deadline_s", json_real((double)(r->deadline - r->spawned) / 1e9));
    return 0;
}

/* ---- sample: the tool, the target and the machine on absolute deadlines --------- */

/* samples/<subdir>.server.hlog: the server's view, interval by interval
 * (serverlog.h), from the spawn; a hold window from the start opens with
 * its first edge, taken before the spawn. */
static void tool_run_open_serverlog(struct tool_run_state *r)
{
    char path[PATH_MAX + 96], err[UTIL_ERR_LEN];
    pathf(path, sizeof path, "%.*s.server.hlog", (int)(strlen(r->spath) - 4), r->spath);
    double epoch = (double)((int64_t)r->spawned + r->clock_off0) / 1e9;
    if (serverlog_open(&r->slog, path, r->pt->label, r->have_hold, r->spawned, epoch, err)) {
        json_array_append_new(r->warnings, json_sprintf("the server's interval log: %s", err));
        return;
    }
    if (r->hold_h0)
        serverlog_add(&r->slog, r->hold_h0, SERVERLOG_HOLD_START);
}

/* The series files: samples/<subdir>.csv (the tool), .target.csv and
 * .machine.csv beside it. */
static void tool_run_open_series(struct tool_run_state *r)
{
    const char *rd = r->o->run_dir;
    snprintf(r->spath, sizeof r->spath, "%s/samples", rd);
    fsutil_mkdir_p(r->spath, NULL);
    pathf(r->spath, sizeof r->spath, "%s/samples/%s.csv", rd, r->subdir);
    for (char *c = r->spath + strlen(rd) + 9; *c; c++)
        if (*c == '/')
            *c = '_';
    if ((r->tcsv = fopen(r->spath, "w")))
        sampler_csv_header(r->tcsv);
    /* Several trees: each its own series beside the sum, .p0.csv, ... */
    for (size_t k = 0; r->ntrees > 1 && k < r->ntrees; k++) {
        pathf(r->trees[k].path, sizeof r->trees[k].path, "%.*s.p%zu.csv", (int)(strlen(r->spath) - 4), r->spath, k);
        if ((r->trees[k].csv = fopen(r->trees[k].path, "w")))
            sampler_csv_header(r->trees[k].csv);
    }
    snprintf(r->tpath, sizeof r->tpath, "%.*s.target.csv", (int)(strlen(r->spath) - 4), r->spath);
    if ((r->gcsv = fopen(r->tpath, "w")))
        sampler_csv_header(r->gcsv);
    char mpath[PATH_MAX + 96];
    pathf(mpath, sizeof mpath, "%.*s.machine.csv", (int)(strlen(r->spath) - 4), r->spath);
    r->nmcpu = sampler_machine_read_cpus(r->mprev, 64, NULL);
    if (r->nmcpu > 64)
        r->nmcpu = 64;
    if (r->nmcpu > 0 && (r->mcsv = fopen(mpath, "w"))) {
        fprintf(r->mcsv, "t_s,cpu,busy_pct,user_pct,system_pct,softirq_pct,irq_pct,steal_pct\n");
        json_object_set_new(r->res, "machine_samples_file", json_string(mpath + strlen(rd) + 1));
    }
    tool_run_open_serverlog(r);
}

/* lb-target is gone mid-row: its host lost (said first: the cause, not
 * "lb-target exited", which is only how the loss looked from here), or
 * it died. */
static void target_gone_reason(struct tool_run_state *r)
{
    if (r->tgt.host && r->tgt.tree && r->tgt.tree->lost[0])
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "%s (lb-target's host): the tool's results are partial",
                           r->tgt.tree->lost);
    else
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "lb-target died during the run (%s): the tool's results are partial",
                           r->tgt.proc.exit.signaled ? "killed by a signal" : "exited");
}

/* Why the sampling loop must stop now, with the status downgraded, or 0
 * while the tool runs on. */
static int tool_run_must_stop(struct tool_run_state *r, uint64_t now)
{
    if (*r->o->stop)
        tool_run_downgrade(&r->v, TOOL_RUN_INTERRUPTED, "loadbench was interrupted");
    else if (now >= r->deadline)
        tool_run_downgrade(&r->v, TOOL_RUN_TIMEOUT,
                           "still running %.0f s after start (load %.0f s + start-up + grace): stopped",
                           (double)(now - r->spawned) / 1e9, (double)r->load_ns / 1e9);
    else if (!target_alive(&r->tgt))
        target_gone_reason(r);
    else
        return 0;
    r->stopped_by_us = 1;
    return 1;
}

/* The server's counters at one sample: its rate, open connections, and
 * the hold window's place on our clock once the first request is known. */
static void tool_run_sample_target(struct tool_run_state *r)
{
    json_t *s = target_stats(&r->tgt, NULL);
    if (!s)
        return;
    uint64_t resp = target_u64(s, "responses_completed");
    uint64_t tnow = util_now_ns();
    r->cur_rps = (double)(resp - r->last_resp) / ((double)(tnow - r->last_t) / 1e9);
    r->last_resp = resp;
    r->last_t = tnow;
    r->open_at_stop = target_u64(s, "connections_open");
    if (!r->hold_from && target_u64(s, "first_request_ns") && r->have_hold) {
        r->hold_from = target_u64(s, "first_request_ns") + r->hold_s_ns;
        r->hold_to = target_u64(s, "first_request_ns") + r->hold_e_ns;
    }
    json_decref(r->last_stats);
    r->last_stats = s; /* the server's view if lb-target dies later */
}

/* lb-target's readings: sampled here, or streamed by its host's agent
 * (target.tree). Returns as sampler_tree_sample. */
static int tool_run_target_sample(struct tool_run_state *r, struct sampler_reading *rd, struct sampler_point *pt)
{
    if (r->tgt.tree)
        return r->tgt.tree->ex->sample(r->tgt.tree, rd, pt);
    return r->gtree ? sampler_tree_sample(r->gtree, rd, pt) : -1;
}

static void tool_run_target_summary(const struct tool_run_state *r, struct sampler_summary *s)
{
    memset(s, 0, sizeof *s);
    if (r->tgt.tree)
        r->tgt.tree->ex->summary(r->tgt.tree, s);
    else if (r->gtree)
        sampler_tree_summary(r->gtree, s);
}

/* Adds point b into the sum a (the first reading sets the time). */
static void point_add(struct sampler_point *a, const struct sampler_point *b, int first)
{
    if (first) {
        *a = *b;
        return;
    }
    a->cpu_pct += b->cpu_pct;
    a->cpu_user_pct += b->cpu_user_pct;
    a->cpu_sys_pct += b->cpu_sys_pct;
    a->rss_mb += b->rss_mb;
    a->nprocs += b->nprocs;
    a->nthreads += b->nthreads;
    a->write_mb_s += b->write_mb_s;
    if (b->thread_max_pct > a->thread_max_pct) /* the busiest thread of any tree, not a sum */
        a->thread_max_pct = b->thread_max_pct;
    a->wait_pct += b->wait_pct;
}

/* One reading of every tree, into sum (their total over the interval).
 * Returns 1 when at least one tree gave a point, with rd the first's
 * reading; 0 otherwise. Each tree's point goes to its own series. */
static int tool_run_sample_trees(struct tool_run_state *r, struct sampler_reading *rd, struct sampler_point *sum)
{
    int got = 0;
    for (size_t k = 0; k < r->ntrees; k++) {
        struct sampler_reading one;
        struct sampler_point pt;
        struct exec_tree *t = r->trees[k].t;
        if (t->ex->sample(t, &one, &pt) != 1)
            continue;
        r->trees[k].sampled_cpu_s += pt.cpu_pct / 100 * pt.interval_s;
        if (r->trees[k].csv)
            sampler_csv_row(r->trees[k].csv, &pt);
        if (!got)
            *rd = one;
        point_add(sum, &pt, !got);
        got = 1;
    }
    return got;
}

/* Room for one more point in each series. */
static void tool_run_points_room(struct tool_run_state *r)
{
    if ((r->ntp > r->ngp ? r->ntp : r->ngp) + 1 >= r->cap_pts) {
        r->cap_pts = r->cap_pts ? r->cap_pts * 2 : 64;
        r->tpts = util_xrealloc(r->tpts, r->cap_pts * sizeof *r->tpts);
        r->gpts = util_xrealloc(r->gpts, r->cap_pts * sizeof *r->gpts);
    }
}

/* lb-target's points since the last tick: one reading here; on a host,
 * every point its agent streamed since (one per interval, so a slow tick
 * does not leave the series behind), r->trd1 the latest. */
static void tool_run_target_points(struct tool_run_state *r)
{
    struct sampler_point pt;
    while (tool_run_target_sample(r, &r->trd1, &pt) == 1) {
        tool_run_points_room(r);
        r->gpts[r->ngp++] =
            (struct crosscheck_point){r->trd1.t_ns, pt.interval_s, pt.cpu_pct, pt.rss_mb, pt.thread_max_pct, pt.wait_pct};
        if (r->gcsv)
            sampler_csv_row(r->gcsv, &pt);
        if (!r->tgt.tree)
            break;
    }
}

/* One sample of everything, at now. */
static void tool_run_tick(struct tool_run_state *r, uint64_t now)
{
    struct sampler_reading rd;
    struct sampler_point pt;
    tool_run_points_room(r);
    if (tool_run_sample_trees(r, &rd, &pt)) {
        r->tpts[r->ntp++] =
            (struct crosscheck_point){rd.t_ns, pt.interval_s, pt.cpu_pct, pt.rss_mb, pt.thread_max_pct, pt.wait_pct};
        if (r->tcsv)
            sampler_csv_row(r->tcsv, &pt);
        r->cur_cpu = pt.cpu_pct;
        r->cur_rss = pt.rss_mb;
    }
    tool_run_target_points(r);
    if (r->mcsv)
        machine_row(r->mcsv, (double)(now - r->spawned) / 1e9, r->mprev, r->nmcpu);
    tool_run_sample_target(r);
    if (!r->hs.remote)
        netstat_ports_look(&r->ports, (unsigned)r->tgt.port);
    json_t *snap = r->slog.f ? target_histogram(&r->tgt, NULL) : NULL;
    serverlog_add(&r->slog, snap, SERVERLOG_SAMPLE);
    json_decref(snap);
    if (r->o->progress)
        r->o->progress(r->o->progress_arg, r->pt->label, (double)(now - r->spawned) / 1e9,
                       (double)(r->load_ns + r->startup_ns) / 1e9, r->cur_rps, r->cur_cpu,
                       r->cur_rss);
    r->last_tick_ns = now;
    while (r->next <= now)
        r->next += r->p->sample_interval_ns;
}

/* Snapshot the server-time histogram at the hold window's edges, so the
 * server's latency over the hold window is exact. Returns the next
 * wake-up: the next sample, an edge, the deadline, or 20 ms from now (to
 * notice the tool's exit). */
static uint64_t tool_run_hold_edges(struct tool_run_state *r, uint64_t now)
{
    /* Asked 50 ms ahead and timed at the edge ("do this at T"): a
     * target on another host takes its snapshot then, not a link's delay
     * later; here target_call_at sleeps until the edge. */
    const uint64_t lead = 50000000ull;
    if (r->hold_from && !r->hold_h0 && now + lead >= r->hold_from) {
        r->hold_h0 = target_call_at(&r->tgt, "GET", "/histogram", r->hold_from, NULL, NULL);
        serverlog_add(&r->slog, r->hold_h0, SERVERLOG_HOLD_START);
    }
    if (r->hold_to && r->hold_h0 && !r->hold_h1 && now + lead >= r->hold_to) {
        r->hold_h1 = target_call_at(&r->tgt, "GET", "/histogram", r->hold_to, NULL, NULL);
        serverlog_add(&r->slog, r->hold_h1, SERVERLOG_HOLD_END);
    }
    uint64_t wake = now + 20000000ull;
    if (wake > r->next)
        wake = r->next;
    if (r->hold_from && !r->hold_h0 && wake > r->hold_from - lead)
        wake = r->hold_from - lead;
    if (r->hold_to && !r->hold_h1 && wake > r->hold_to - lead)
        wake = r->hold_to - lead;
    if (wake > r->deadline)
        wake = r->deadline;
    return wake;
}

/* 1 once every tree's root has exited, or, with a master or a
 * controller, 10 s after it did (a master told its workers to quit; a
 * JMeter engine exits by itself after its test: the stop ends those
 * that did not, with a warning). */
static int tool_run_all_ended(struct tool_run_state *r)
{
    int all = 1;
    for (size_t k = 0; k < r->ntrees; k++) {
        struct tool_tree *tt = &r->trees[k];
        if (!tt->t->ex->poll(tt->t))
            all = 0;
        else if (!tt->seen_ended++)
            tt->open_before_end = r->open_at_stop;
    }
    if (all || !tool_run_led(r) || !r->tool->ended)
        return all;
    uint64_t now = util_now_ns();
    if (!r->master_ended_ns)
        r->master_ended_ns = now;
    return now - r->master_ended_ns >= 10000000000ull;
}

/* Sample until the tool exits, its deadline passes, loadbench is
 * interrupted or the target dies. */
static void tool_run_sample(struct tool_run_state *r)
{
    struct sampler_reading rd;
    struct sampler_point pt;
    tool_run_open_series(r);
    /* lb-target's sampling starts with the tool's, here or on its host. */
    if (!r->tgt.host)
        r->gtree = sampler_tree_new(r->tgt.proc.pid, NULL, NULL);
    tool_run_sample_trees(r, &rd, &pt);
    if (r->tgt.tree) {
        char err[UTIL_ERR_LEN];
        if (target_rebase(&r->tgt, &r->trd0, err))
            json_array_append_new(r->warnings, json_sprintf("lb-target's samples: %s", err));
    } else {
        tool_run_target_sample(r, &r->trd0, &pt);
    }
    r->trd1 = r->trd0;
    r->next = r->spawned + r->p->sample_interval_ns;
    r->last_tick_ns = r->spawned;
    r->last_resp = target_u64(r->before, "responses_completed");
    r->last_t = util_now_ns();
    sampler_gaps_start(&r->gaps, r->p->sample_interval_ns);
    netstat_ports_init(&r->ports);
    for (;;) {
        sampler_gaps_look(&r->gaps);
        if (tool_run_all_ended(r)) {
            r->end_in_gap = r->gaps.last_was_gap; /* it ended while loadbench did not look */
            break;
        }
        uint64_t now = util_now_ns();
        if (tool_run_must_stop(r, now))
            break;
        if (now >= r->next)
            tool_run_tick(r, now);
        util_sleep_until_ns(tool_run_hold_edges(r, now));
    }
    r->ended = util_now_ns();
    /* A remote executor lost its host: the row fails with that reason and
     * keeps what was measured until then. */
    if (r->tool->lost[0])
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "%s", r->tool->lost);
}

/* ---- stop: the last readings, the tree stopped, its output complete ------------- */

/* Several trees that ended one after another each left at most the
 * connections open just before its end unread: the bound is their sum (a
 * tree still running at the stop adds the connections open then). Sound,
 * if loose where they ended together; one tree keeps the reading as is. */
static void tool_run_open_bound(struct tool_run_state *r)
{
    if (r->ntrees < 2 || r->stopped_by_us)
        return;
    uint64_t sum = 0;
    for (size_t k = 0; k < r->ntrees; k++)
        sum += r->trees[k].seen_ended ? r->trees[k].open_before_end : r->open_at_stop;
    r->open_at_stop = sum;
}

/* lb-target's last reading, now: its points are written but the last,
 * which is only when its interval is full (as the tool's). On a host, the
 * points streamed before it come first. */
static void tool_run_target_last(struct tool_run_state *r, int full)
{
    struct sampler_point pt, last;
    char err[UTIL_ERR_LEN];
    if (!r->tgt.tree) {
        if (tool_run_target_sample(r, &r->trd1, &pt) == 1 && full && r->gcsv)
            sampler_csv_row(r->gcsv, &pt);
        return;
    }
    if (target_sample_now(&r->tgt, err))
        json_array_append_new(r->warnings, json_sprintf("lb-target's last sample: %s", err));
    int have = 0;
    while (tool_run_target_sample(r, &r->trd1, &pt) == 1) {
        if (have && r->gcsv)
            sampler_csv_row(r->gcsv, &last);
        last = pt;
        have = 1;
    }
    if (have && r->gcsv && last.interval_s * 2e9 >= (double)r->p->sample_interval_ns)
        sampler_csv_row(r->gcsv, &last);
}

static void tool_run_stop(struct tool_run_state *r)
{
    char err[UTIL_ERR_LEN];
    struct sampler_reading rd;
    struct sampler_point pt;
    /* A hold window that lasts to the load's end ends with the tool. */
    if (r->hold_h0 && !r->hold_h1 && !r->stopped_by_us) {
        r->hold_h1 = target_histogram(&r->tgt, NULL);
        serverlog_add(&r->slog, r->hold_h1, SERVERLOG_HOLD_END);
    }
    /* A last reading before the tree is stopped covers the final partial
     * interval — only when it is long enough to mean something: CPU
     * counters advance in ticks (cpuacct at scheduler ticks, /proc in
     * 10 ms steps), so a few-ms interval would read as several hundred
     * percent. Totals come from the cgroup or wait4, not from samples. The
     * target's CPU total needs its final reading either way. */
    int full = r->ended - r->last_tick_ns >= r->p->sample_interval_ns / 2;
    if (full && tool_run_sample_trees(r, &rd, &pt) && r->tcsv)
        sampler_csv_row(r->tcsv, &pt);
    tool_run_target_last(r, full);
    /* Both readings made, in order: else not measured (its host lost). */
    r->target_cpu_s = r->trd0.t_ns && r->trd1.t_ns && r->trd1.cpu_ns >= r->trd0.cpu_ns
                          ? (double)(r->trd1.cpu_ns - r->trd0.cpu_ns) / 1e9 : NAN;
    json_t *s = target_stats(&r->tgt, NULL);
    if (s && r->stopped_by_us)
        r->open_at_stop = target_u64(s, "connections_open");
    json_decref(s);
    tool_run_open_bound(r);
    pid_t keep[1] = {r->tgt.proc.pid};
    for (size_t k = 0; k < r->ntrees; k++)
        if (r->trees[k].t->ex->stop_begin)
            r->trees[k].t->ex->stop_begin(r->trees[k].t, 3000000000ull);
    for (size_t k = 0; k < r->ntrees; k++) {
        struct exec_tree *t = r->trees[k].t;
        int killed = t->ex->stop(t, keep, 1, 3000000000ull, err);
        if (killed < 0)
            json_array_append_new(r->warnings, json_sprintf("stopping the tool: %s", err));
        else if (killed > 0 && !r->stopped_by_us)
            json_array_append_new(r->warnings, json_sprintf("the tool left %d process(es) running after it exited; they were killed", killed));
        /* The tree is gone: its output is complete (or cut, and marked so). */
        finish_output(r, k, EXEC_STDOUT);
        finish_output(r, k, EXEC_STDERR);
    }
    sampler_machine_read(&r->m1, NULL);
    if (r->hs.remote)
        hostread_set_read(&r->hs, 1);
    quiet_psi_read(&r->psi1);
    if (!r->hs.remote) { /* else each host's own, at collect */
        netstat_read(&r->ns1, NULL);
        json_object_set_new(r->res, "tcp", netstat_delta_json(&r->ns0, &r->ns1, r->warnings));
    }
    r->self1 = sampler_self_cpu_s();
}

/* ---- collect: the server's view, the footprint, the tool's own account ---------- */

/* Requests from addresses no host of the row has (engine/peercheck.h):
 * counted apart (r->foreign, out of the reconciliation) and named. */
static void record_foreign_peers(struct tool_run_state *r, json_t *pj)
{
    struct peercheck pc;
    peercheck_judge(pj, r->o->peer_addrs, &pc);
    r->foreign = pc.foreign;
    if (!pj || !r->o->peer_addrs) {
        json_object_set_new(r->res, "peers_check", json_pack("{s:s, s:s}", "verdict", "not judged", "why",
                                                            pj ? r->o->peer_why ?: "?" : "lb-target's /peers unreadable"));
        return;
    }
    json_object_set_new(r->res, "peers_check", json_pack("{s:s, s:O, s:I}", "verdict", pc.foreign ? "foreign" : "own",
                                                        "expected", r->o->peer_addrs, "foreign_requests",
                                                        (json_int_t)pc.foreign));
    if (pc.foreign)
        json_array_append_new(r->warnings,
                              json_sprintf("foreign requests: %s, which %s not a host of this row; counted apart, "
                                           "not in the reconciliation (the per-second series and the server's time include them)",
                                           pc.named, pc.naddrs > 1 ? "are" : "is"));
}

/* With load from two or more of the row's addresses (hosts), the
 * server's first and last request per address and the spread of the
 * first ones: the hosts' start skew on the server's one clock (run.json's
 * server_peers); and every address checked against the row's hosts. */
static void record_server_peers(struct tool_run_state *r)
{
    json_t *pj = target_peers(&r->tgt, NULL);
    record_foreign_peers(r, pj);
    json_t *a = json_object_get(pj, "peers");
    json_int_t lo = 0, hi = 0;
    size_t i, own = 0;
    json_t *e;
    json_array_foreach(a, i, e) {
        if (!peercheck_is_own(r->o->peer_addrs, json_string_value(json_object_get(e, "address")) ?: ""))
            continue;
        json_int_t f = json_integer_value(json_object_get(e, "first_ns"));
        lo = !own || f < lo ? f : lo;
        hi = !own || f > hi ? f : hi;
        own++;
    }
    if (own >= 2)
        json_object_set_new(pj, "first_spread_ns", json_integer(hi - lo));
    if (own >= 2 || r->foreign)
        json_object_set(r->res, "server_peers", pj);
    json_decref(pj);
}

/* The interval log's last interval, to the tool's end, and its name in
 * the row ("server_hlog_file") when it holds any. */
static void tool_run_close_serverlog(struct tool_run_state *r)
{
    if (!r->slog.f)
        return;
    serverlog_add(&r->slog, r->hist_end, SERVERLOG_SAMPLE);
    int n = serverlog_close(&r->slog);
    if (n > 0)   /* the path serverlog_open kept */
        json_object_set_new(r->res, "server_hlog_file", json_string(r->slog.path + strlen(r->o->run_dir) + 1));
    else if (n < 0)
        json_array_append_new(r->warnings, json_sprintf("the server's interval log: %s", r->slog.err));
}

/* The server's view, after the tool is gone. */
static void tool_run_collect_server(struct tool_run_state *r)
{
    char err[UTIL_ERR_LEN] = "";
    r->after = target_stats(&r->tgt, err);
    r->series = target_series(&r->tgt, 0, NULL);
    if (r->p->target.shape.stall_every_ns)
        r->stalls = target_stalls(&r->tgt, NULL);
    r->hist_end = target_histogram(&r->tgt, NULL);
    tool_run_close_serverlog(r);
    record_server_peers(r);
    if (r->series) {
        char sp[PATH_MAX + 96];
        pathf(sp, sizeof sp, "%.*s.server.csv", (int)(strlen(r->spath) - 4), r->spath);
        write_server_series(sp, r->series);
        json_object_set_new(r->res, "server_series_file", json_string(sp + strlen(r->o->run_dir) + 1));
    }
    if (!r->after && r->last_stats && !target_alive(&r->tgt)) {
        /* lb-target died: its counts at the last sample are the server's
         * view, partial, and the row is failed already. */
        r->after = json_incref(r->last_stats);
        json_object_set_new(r->res, "server_partial", json_true());
        json_array_append_new(r->warnings, json_string("lb-target died: the server's counts are those of its last sample before it died (server_partial)"));
    } else if (!r->after) {
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "lb-target unreadable after the run: %s", err);
    }
}

/* Who tree k is in a row's words: "the tool", or with several processes
 * "the tool's ROLE (process K)". Returns buf. */
static const char *tree_who(const struct tool_run_state *r, size_t k, char *buf, size_t len)
{
    if (r->ntrees > 1)
        snprintf(buf, len, "the tool's %s (process %zu)", r->trees[k].proc->role, k);
    else
        snprintf(buf, len, "the tool");
    return buf;
}

/* run.json's "exit": code or signal, or "unknown": true when wait4 lost
 * both (never an empty object that reads as a clean exit). */
static json_t *tool_run_exit_json(const struct exec_tree *tool)
{
    json_t *exitj = json_object();
    if (tool->ended && tool->exit.unknown)
        json_object_set_new(exitj, "unknown", json_true());
    if (tool->ended) {
        if (tool->exit.exited)
            json_object_set_new(exitj, "code", json_integer(tool->exit.code));
        if (tool->exit.signaled)
            json_object_set_new(exitj, "signal", json_integer(tool->exit.sig));
    }
    return exitj;
}

/* One tree's use: CPU exact from its cgroup where it had one, else
 * wait4's rusage; its sampled aggregates; its largest process's maxrss.
 * A tree whose host was lost has neither: its CPU is what its points
 * measured until then (a lower bound), NAN (null) when there were none,
 * never 0. One whose exit was lost (exit.unknown) has no rusage: NAN too
 * unless its cgroup says. */
struct tree_use {
    double cpu_s, maxrss_mb;
    const char *source;
    struct sampler_summary ss;
    struct exec_usage cu;
    int have_cu;
};

static void tree_use_sum(const struct tool_tree *tt, struct tree_use *u)
{
    const struct exec_tree *t = tt->t;
    memset(u, 0, sizeof *u);
    u->cpu_s = t->exit.unknown ? NAN : t->exit.cpu_s;
    u->source = t->exit.unknown ? "rusage lost with the exit status" : "rusage";
    t->ex->summary(t, &u->ss);
    if (t->lost[0]) {
        u->cpu_s = u->ss.npoints > 0 ? tt->sampled_cpu_s : NAN;
        u->source = "samples where the host was lost (a lower bound)";
    }
    if (t->ex->usage(t, &u->cu, NULL) == 0 && u->cu.cpu_ns > 0) {
        u->cpu_s = (double)u->cu.cpu_ns / 1e9;
        u->source = "cgroup";
        u->have_cu = 1;
    }
    u->maxrss_mb = (double)t->exit.maxrss_kb * 1024 / 1e6;
}

/* The trees' use summed into *sum (one tree: its own). Sampled peaks of
 * several come from the summed series (their peaks need not coincide);
 * the maxrss floor is the largest of any one process. Returns the parts
 * array for run.json (NULL with one tree). */
static json_t *tool_run_sum_use(struct tool_run_state *r, struct tree_use *sum)
{
    json_t *parts = r->ntrees > 1 ? json_array() : NULL;
    int cg = 0, nlost = 0;
    memset(sum, 0, sizeof *sum);
    for (size_t k = 0; k < r->ntrees; k++) {
        struct tree_use u;
        char who[48];
        tree_use_sum(&r->trees[k], &u);
        r->trees[k].cpu_s = u.cpu_s;
        if (k == 0) {
            *sum = u;
        } else {
            sum->cpu_s += u.cpu_s;
            sum->maxrss_mb = u.maxrss_mb > sum->maxrss_mb ? u.maxrss_mb : sum->maxrss_mb;
            sum->cu.mem_peak_bytes += u.cu.mem_peak_bytes;
            sum->cu.mem_cache_bytes += u.cu.mem_cache_bytes;
            sum->cu.oom_kills += u.cu.oom_kills;
            sum->ss.cpu_avg_pct += u.ss.cpu_avg_pct;
            sum->ss.rss_avg_mb += u.ss.rss_avg_mb;
            sum->ss.procs_peak += u.ss.procs_peak;
            sum->ss.threads_peak += u.ss.threads_peak;
            sum->ss.write_mb += u.ss.write_mb;
            if (u.ss.thread_max_peak_pct > sum->ss.thread_max_peak_pct)
                sum->ss.thread_max_peak_pct = u.ss.thread_max_peak_pct;
        }
        cg += u.have_cu;
        nlost += r->trees[k].t->lost[0] != 0;
        if (r->trees[k].t->exit.unknown && !u.have_cu)
            json_array_append_new(r->warnings, json_sprintf("exit status and rusage lost (wait4 found %s already "
                                                            "reaped elsewhere): its CPU is null, not 0",
                                                            tree_who(r, k, who, sizeof who)));
        if (parts)
            json_array_append_new(parts, json_pack("{s:s, s:i, s:i, s:o, s:f, s:s, s:o, s:s, s:o}", "role",
                                                   r->trees[k].proc->role, "process", (int)k, "trees", 1, "cpu_seconds",
                                                   jsonutil_num(u.cpu_s), "rss_peak_mb", u.ss.rss_peak_mb > u.maxrss_mb ? u.ss.rss_peak_mb : u.maxrss_mb,
                                                   "source", u.source, "samples", summary_json(&u.ss), "samples_file",
                                                   r->trees[k].path + strlen(r->o->run_dir) + 1,
                                                   "exit", tool_run_exit_json(r->trees[k].t)));
        if (parts && r->trees[k].proc->host)
            json_object_set_new(json_array_get(parts, k), "host", json_string(r->trees[k].proc->host));
    }
    sum->have_cu = cg == (int)r->ntrees;
    sum->source = sum->have_cu ? "cgroup" : nlost ? "samples where the host was lost (a lower bound)"
                : cg ? "cgroup and rusage" : "rusage";
    if (r->ntrees > 1) {
        sum->ss.npoints = (int)r->ntp;
        sum->ss.cpu_peak_pct = sum->ss.rss_peak_mb = 0;
        for (size_t i = 0; i < r->ntp; i++) {
            if (r->tpts[i].cpu_pct > sum->ss.cpu_peak_pct)
                sum->ss.cpu_peak_pct = r->tpts[i].cpu_pct;
            if (r->tpts[i].rss_mb > sum->ss.rss_peak_mb)
                sum->ss.rss_peak_mb = r->tpts[i].rss_mb;
        }
    }
    return parts;
}

/* The seconds the tool really ran, over which its cumulative CPU is
 * averaged: spawn to its end as seen. When it ended inside a gap of
 * loadbench's own (sampler_gaps), its end is not known: the window then
 * ends at its last sign of life, the server's last response to it (or
 * loadbench's last look before the gap, when that was later), never at
 * the moment loadbench ran again, which would dilute the average with time
 * it was gone. Without a response from it the window is not known (NAN):
 * the look before the gap alone could make the average any size. The
 * window and its basis go into fp. */
static double tool_run_window_s(const struct tool_run_state *r, json_t *fp)
{
    uint64_t end = r->ended;
    const char *basis = "the tool's start to its end as loadbench saw it";
    if (r->end_in_gap) {
        uint64_t last = target_u64(r->after, "last_response_ns");
        end = !last || last >= r->ended ? 0 : last > r->gaps.gap_from_ns ? last : r->gaps.gap_from_ns;
        basis = end ? "the tool's start to its last sign of life (the server's last response to it, or loadbench's "
                      "last look before the gap in which the tool ended unseen)"
                    : "not known: the tool ended unseen in a gap of loadbench's own, and the server saw nothing "
                      "from it to place its end";
    }
    double s = end > r->spawned ? (double)(end - r->spawned) / 1e9 : NAN;
    json_object_set_new(fp, "window_s", jsonutil_num(s));
    json_object_set_new(fp, "window_basis", json_string(basis));
    return s;
}

/* Whether the footprint can be judged: not after a gap in loadbench's own
 * looks (its samples then miss that stretch), nor with too few samples
 * for the tool's run (under half of one per interval, from 4 intervals
 * on). Either is said in the row and fp gets "judged": false, which
 * compare reads as missing evidence. An end past the deadline is noted:
 * loadbench could not stop the tool in time. */
static void tool_run_judge_samples(struct tool_run_state *r, json_t *fp, double window_s)
{
    char why[600] = "";
    double iv = (double)r->p->sample_interval_ns / 1e9, expect = iv > 0 ? window_s / iv : 0;
    if (sampler_gaps_say(&r->gaps, why, sizeof why))
        json_object_set_new(fp, "sampler_gaps",
                            json_pack("{s:i, s:f, s:f, s:f, s:f}", "gaps", r->gaps.n, "total_s", (double)r->gaps.total_ns / 1e9,
                                      "longest_s", (double)r->gaps.longest_ns / 1e9, "queued_s",
                                      (double)r->gaps.queued_ns / 1e9, "suspended_s", (double)r->gaps.suspended_ns / 1e9));
    else if (expect >= 4 && (double)r->ntp < expect / 2)
        snprintf(why, sizeof why, "only %zu sample points over the tool's %.1f s at a %.0f ms interval (about %.0f "
                                  "expected): footprint figures not judged", r->ntp, window_s, iv * 1e3, expect);
    json_object_set_new(fp, "judged", json_boolean(!why[0]));
    if (why[0]) {
        json_object_set_new(fp, "not_judged", json_string(why));
        json_array_append_new(r->warnings, json_string(why));
    }
    if (r->ended > r->deadline && r->v.status != TOOL_RUN_TIMEOUT)
        json_array_append_new(r->warnings, json_sprintf("the row ended %.1f s after the tool's start, past its "
                                                        "deadline of %.1f s: loadbench could not stop it in time",
                                                        (double)(r->ended - r->spawned) / 1e9,
                                                        (double)(r->deadline - r->spawned) / 1e9));
}

/* The tool's CPU and memory, summed over its trees, with the sampled
 * series' aggregates beside them and, for several trees, each part. */
static void tool_run_footprint(struct tool_run_state *r)
{
    double wall_s = (double)(r->ended - r->spawned) / 1e9;
    struct tree_use u;
    struct sampler_summary ts;
    json_t *parts = tool_run_sum_use(r, &u);
    const struct sampler_summary ss = u.ss;
    r->cpu_s = u.cpu_s;
    r->tool_ss = u.ss;
    tool_run_target_summary(r, &ts);
    json_t *fp = json_object();
    if (u.have_cu) {
        if (u.cu.mem_peak_bytes)
            json_object_set_new(fp, "cgroup_mem_peak_mb", json_real((double)u.cu.mem_peak_bytes / 1e6));
        json_object_set_new(fp, "cgroup_cache_mb", json_real((double)u.cu.mem_cache_bytes / 1e6));
    }
    if (u.cu.oom_kills)
        tool_run_downgrade(&r->v, TOOL_RUN_OOM, "the tool exceeded its memory limit (%llu bytes) and was OOM-killed",
                           (unsigned long long)r->pt->memory_limit_bytes);
    /* Samples every interval can miss a short run's peak, or see only the
     * child before its exec. The kernel's high-water mark of the largest
     * process (ru_maxrss) and the run's average CPU are floors the peaks
     * cannot be below: no sample may report less. */
    double maxrss_mb = u.maxrss_mb;
    double window_s = tool_run_window_s(r, fp);
    double cpu_avg = window_s > 0 ? r->cpu_s / window_s * 100 : NAN;
    r->rss_peak = ss.rss_peak_mb > maxrss_mb ? ss.rss_peak_mb : maxrss_mb;
    json_object_set_new(fp, "cpu_seconds", jsonutil_num(r->cpu_s));
    json_object_set_new(fp, "cpu_avg_pct", jsonutil_num(cpu_avg));
    json_object_set_new(fp, "cpu_peak_pct", jsonutil_num(isnan(cpu_avg) || ss.cpu_peak_pct > cpu_avg ? (ss.npoints ? ss.cpu_peak_pct : NAN) : cpu_avg));
    json_object_set_new(fp, "rss_peak_mb", json_real(r->rss_peak));
    json_object_set_new(fp, "rss_peak_basis",
                        json_string(ss.rss_peak_mb >= maxrss_mb ? "samples" : "largest process's maxrss"));
    json_object_set_new(fp, "rss_avg_mb", json_real(ss.rss_avg_mb));
    json_object_set_new(fp, "max_proc_maxrss_mb", json_real(maxrss_mb));
    json_object_set_new(fp, "procs_peak", json_integer(ss.procs_peak));
    json_object_set_new(fp, "threads_peak", json_integer(ss.threads_peak));
    json_object_set_new(fp, "write_mb", json_real(ss.write_mb));
    json_object_set_new(fp, "wall_s", json_real(wall_s));
    json_object_set_new(fp, "source", json_string(u.source));
    json_object_set_new(fp, "samples", summary_json(&ss));
    json_object_set_new(fp, "samples_file", json_string(r->spath + strlen(r->o->run_dir) + 1));
    json_object_set_new(fp, "trees", json_integer((json_int_t)r->ntrees));
    if (parts)
        json_object_set_new(fp, "parts", parts);
    tool_run_judge_samples(r, fp, window_s);
    json_object_set_new(r->res, "footprint", fp);
    json_t *tf = summary_json(&ts);
    json_object_set_new(tf, "cpu_seconds", jsonutil_num(r->target_cpu_s));
    json_object_set_new(tf, "samples_file", json_string(r->tpath + strlen(r->o->run_dir) + 1));
    json_object_set_new(r->res, "target_footprint", tf);
}

/* Every tree's files, readable here. */
static int tool_run_fetch(struct tool_run_state *r, char *err)
{
    for (size_t k = 0; k < r->ntrees; k++)
        if (r->trees[k].t->ex->fetch(r->trees[k].t, err))
            return -1;
    return 0;
}

/* How several instances' latencies became the row's: exact, or each
 * percentile the highest instance's (an upper bound of the merged one)
 * with the lowest's beside it (a lower bound). */
static json_t *tool_run_merge_json(const struct tool_run_state *r)
{
    const struct adapter_result *ar = &r->ar;
    size_t n = 0;
    for (size_t k = 0; k < r->g.n; k++)
        n += r->g.procs[k].has_result;
    if (ar->lat_merged > 0 && r->a->spread == ADAPTER_SPREAD_ENGINES)
        return json_pack("{s:b, s:i, s:s}", "exact", 1, "instances", (int)r->g.instances, "how",
                         "every engine's samples as the controller received them (its result file, one row per "
                         "sample): the percentiles are computed from all of them");
    if (ar->lat_merged > 0)
        return json_pack("{s:b, s:i, s:s}", "exact", 1, "instances", (int)n, "how",
                         "the instances' full latency distributions merged into one histogram");
    json_t *o = json_pack("{s:b, s:i, s:s}", "exact", 0, "instances", (int)n, "how",
                          "each percentile is the highest of the instances' own (an upper bound of the merged "
                          "percentile); low_ms holds the lowest (a lower bound); mean weighted by requests");
    json_object_set_new(o, "low_ms", latency_json(&ar->lat_low));
    return o;
}

/* A phase's peak RSS is a sampled point's: none (null) when no point
 * fell in it, as when only the unsampled tail did. */
static json_t *phase_json(const struct crosscheck_phase *ph, double from_s, double to_s)
{
    return json_pack("{s:o, s:o, s:f, s:o, s:f}", "from_s", jsonutil_num(from_s), "to_s", jsonutil_num(to_s),
                     "cpu_seconds", ph->cpu_s, "rss_peak_mb", jsonutil_num(ph->rss_peak_mb > 0 ? ph->rss_peak_mb : NAN),
                     "covered_s", ph->covered_s);
}

/* "peak RSS N MB", or that no point fell in the phase. */
static const char *phase_rss(const struct crosscheck_phase *ph, char *buf, size_t len)
{
    if (ph->rss_peak_mb > 0)
        snprintf(buf, len, "peak RSS %.0f MB", ph->rss_peak_mb);
    else
        snprintf(buf, len, "peak RSS not sampled");
    return buf;
}

/* The series ends at its last tick; what the tree spent after it, until
 * it exited (a report written in less than an interval), is the exact
 * whole's remainder over the sampled sum. It joins the last phase, so the
 * phases add up to footprint.cpu_seconds; at most every core for the
 * tail's length, so a sampling shortfall elsewhere cannot land there. */
static void tool_run_phase_tail(const struct tool_run_state *r, uint64_t end, struct crosscheck_phase *last)
{
    double sampled = 0;
    for (size_t i = 0; i < r->ntp; i++)
        sampled += r->tpts[i].cpu_pct / 100 * r->tpts[i].interval_s;
    uint64_t series_end = r->tpts[r->ntp - 1].end_ns;
    if (end <= series_end || !(r->cpu_s > sampled))
        return;
    double tail_s = (double)(end - series_end) / 1e9;
    double rest = r->cpu_s - sampled, cap = tail_s * (double)(r->nmcpu > 0 ? r->nmcpu : 1);
    last->cpu_s += rest < cap ? rest : cap;
    last->covered_s += tail_s;
}

/* Where the tool marks its own load (adapter_result's load_start/end,
 * wall clock), the footprint in three phases from the sampled series:
 * start (spawn to the load: a JVM's start, a compile), load, and after it
 * (ar->after_load: Gatling's report), each with its CPU-seconds and peak
 * RSS, into footprint.phases and a note; the load phase's CPU is then
 * what requests per CPU-second divide by. */
static void tool_run_phases(struct tool_run_state *r)
{
    const struct adapter_result *ar = &r->ar;
    if (!ar->parsed || !ar->load_end_unix_ms || r->hs.remote || !r->ntp)
        return;
    /* wall clock -> monotonic: the offset at the spawn (a step shows in clock_stepped_ms) */
    int64_t s_ns = (int64_t)ar->load_start_unix_ms * 1000000 - r->clock_off0;
    int64_t e_ns = (int64_t)ar->load_end_unix_ms * 1000000 - r->clock_off0;
    uint64_t spawned = r->spawned, ls = s_ns > (int64_t)spawned ? (uint64_t)s_ns : spawned;
    uint64_t le = e_ns > (int64_t)ls ? (uint64_t)e_ns : ls, end = r->ended > le ? r->ended : le;
    if (le >= r->tpts[r->ntp - 1].end_ns + 5000000000ull) /* past the series: a clock that moved */
        return;
    struct crosscheck_phase st, ld, af;
    crosscheck_window_phase(r->tpts, r->ntp, spawned, ls, &st);
    crosscheck_window_phase(r->tpts, r->ntp, ls, le, &ld);
    crosscheck_window_phase(r->tpts, r->ntp, le, UINT64_MAX, &af);
    tool_run_phase_tail(r, end, &af);
    const char *after = ar->after_load ? ar->after_load : "after";
    double t_ls = (double)(ls - spawned) / 1e9, t_le = (double)(le - spawned) / 1e9, t_end = (double)(end - spawned) / 1e9;
    json_t *ph = json_object();
    json_object_set_new(ph, "start", phase_json(&st, 0, t_ls));
    json_object_set_new(ph, "load", phase_json(&ld, t_ls, t_le));
    json_object_set_new(ph, after, phase_json(&af, t_le, t_end));
    json_object_set_new(ph, "basis", json_string("the tool's own marks of its load (wall clock) on the sampled "
                                                 "series: each phase's CPU from its points, the last phase's "
                                                 "with the unsampled tail until the exit (the exact whole less "
                                                 "the points), so the phases add up to footprint.cpu_seconds"));
    json_object_set_new(json_object_get(r->res, "footprint"), "phases", ph);
    char lrss[48], arss[48];
    if (ld.cpu_s > 0)
        r->load_cpu_s = ld.cpu_s;
    json_array_append_new(r->warnings,
                          json_sprintf("footprint by phase (sampled): load %.1f CPU-s, %s over %.1f s | "
                                       "%s %.1f CPU-s, %s over %.1f s | start (JVM, compile) %.1f CPU-s; "
                                       "requests per CPU-second over the load phase only",
                                       ld.cpu_s, phase_rss(&ld, lrss, sizeof lrss), t_le - t_ls, after, af.cpu_s,
                                       phase_rss(&af, arss, sizeof arss), t_end - t_le, st.cpu_s));
}

/* samples/<subdir>.tool.hlog: the tool's own view as an HdrHistogram
 * interval log, where its adapter reads per-request samples (toollog.h);
 * named by the row's "tool_hlog_file". */
static void tool_run_tool_hlog(struct tool_run_state *r)
{
    if (!r->a->samples || !r->spath[0])
        return;
    size_t nd;
    const char **dirs = adapter_group_result_dirs(&r->g, &nd);
    struct toollog_frame fr = {.label = r->pt->label, .t0_unix_ns = (int64_t)r->spawned + r->clock_off0,
                               .interval_ns = r->p->sample_interval_ns};
    if (r->have_hold && r->hold_from && r->hold_to) {
        fr.hold_from_unix_ns = (int64_t)r->hold_from + r->clock_off0;
        fr.hold_to_unix_ns = (int64_t)r->hold_to + r->clock_off0;
    }
    char path[PATH_MAX + 96], err[UTIL_ERR_LEN];
    pathf(path, sizeof path, "%.*s.tool.hlog", (int)(strlen(r->spath) - 4), r->spath);
    int n = toollog_write(path, r->a, dirs, nd, &fr, err);
    if (n > 0)
        json_object_set_new(r->res, "tool_hlog_file", json_string(path + strlen(r->o->run_dir) + 1));
    else if (n < 0)
        json_array_append_new(r->warnings, json_sprintf("the tool's interval log: %s", err));
    free(dirs);
}

/* The tool's own account, as its adapter parses it. */
static void tool_run_collect_client(struct tool_run_state *r)
{
    const struct adapter_result *ar = &r->ar;
    char err[UTIL_ERR_LEN];
    if (r->v.status != TOOL_RUN_INTERRUPTED &&
        (tool_run_fetch(r, err) || adapter_group_parse(r->a, &r->g, &r->ar, err)))
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "no result: %s", err);
    if (ar->fail_reason)
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "%s", ar->fail_reason);
    for (size_t i = 0; i < ar->warnings.n; i++)
        json_array_append_new(r->warnings, adapter_json_text(ar->warnings.v[i]));
    if (!ar->parsed)
        return;
    tool_run_tool_hlog(r);
    tool_run_phases(r);
    json_t *c = json_object();
    json_object_set_new(c, "requests", json_integer((json_int_t)ar->requests));
    json_object_set_new(c, "ok", json_integer((json_int_t)ar->ok));
    json_object_set_new(c, "errors", json_integer((json_int_t)ar->errors));
    json_object_set_new(c, "errors_by_kind",
                        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "connect", (json_int_t)ar->err_connect, "read",
                                  (json_int_t)ar->err_read, "write", (json_int_t)ar->err_write, "timeout",
                                  (json_int_t)ar->err_timeout, "status", (json_int_t)ar->err_status, "other",
                                  (json_int_t)ar->err_other));
    if (r->p->check.status) /* the tool's own count of the responses that failed check: */
        json_object_set_new(c, "check_failed", json_integer((json_int_t)ar->check_failed));
    json_object_set_new(c, "duration_s", jsonutil_num(ar->duration_s));
    json_object_set_new(c, "rps_tool", jsonutil_num(ar->rps));
    json_object_set_new(c, "latency_ms", latency_json(&ar->lat));
    if (!isnan(ar->lat_uncorrected.p50))
        json_object_set_new(c, "latency_uncorrected_ms", latency_json(&ar->lat_uncorrected));
    if (ar->lat_merged)
        json_object_set_new(c, "latency_merge", tool_run_merge_json(r));
    if (ar->scheduled)
        json_object_set_new(c, "schedule", json_pack("{s:I, s:I, s:I}", "scheduled", (json_int_t)ar->scheduled,
                                                     "dropped", (json_int_t)ar->dropped, "late", (json_int_t)ar->late));
    if (ar->extra)
        json_object_set_new(c, "tool_output", json_incref(ar->extra));
    json_object_set_new(r->res, "client", c);
}

/* A row on other hosts: each host's readings (hosts.NAME: tcp,
 * machine_cpu, quiet) with the CPU the run spent there; the row's tcp is
 * their sum, its machine_cpu and quiet the tool's first host's, and it
 * is disturbed when any host was. The controller's own readings describe
 * none of it and are not recorded. */
static void tool_run_hosts_json(struct tool_run_state *r)
{
    for (size_t i = 0; i < r->hs.n; i++)
        r->hs.v[i].tool_cpu_s = r->hs.v[i].target_cpu_s = 0;
    for (size_t k = 0; k < r->ntrees; k++) {
        struct hostread_host *e = hostread_set_add(&r->hs, NULL, exec_host_of(r->trees[k].t->ex));
        if (e)
            e->tool_cpu_s += r->trees[k].cpu_s;
    }
    struct hostread_host *te = hostread_set_add(&r->hs, NULL, r->o->target_host);
    if (te)
        te->target_cpu_s += r->target_cpu_s;
    int disturbed;
    json_t *tcp = NULL, *hosts = hostread_set_json(&r->hs, tool_run_quiet(r), r->warnings, &disturbed, &tcp);
    json_t *first = json_object_get(hosts, r->hs.v[0].name);
    if (json_object_get(first, "machine_cpu"))
        json_object_set(r->res, "machine_cpu", json_object_get(first, "machine_cpu"));
    if (json_object_get(first, "quiet")) {
        json_t *q = json_deep_copy(json_object_get(first, "quiet"));
        json_object_set_new(q, "disturbed", json_boolean(disturbed));
        json_object_set_new(q, "host", json_string(r->hs.v[0].name));
        json_object_set_new(r->res, "quiet", q);
    }
    if (tcp)
        json_object_set_new(r->res, "tcp", tcp);
    json_object_set_new(r->res, "hosts", hosts);
}

/* GET /arrivals over [from, to] of the monotonic clock (NULL on failure). */
static json_t *tool_run_arrivals(struct tool_run_state *r, uint64_t from, uint64_t to, char *err)
{
    char path[96];
    snprintf(path, sizeof path, "/arrivals?from_ns=%llu&to_ns=%llu", (unsigned long long)from,
             (unsigned long long)to);
    return target_call_at(&r->tgt, "GET", path, 0, NULL, err);
}

/* Pacing truth (engine/pacing.h): the server's arrivals over the hold
 * window against the load asked, the row's "pacing". An under-rate row
 * keeps its achieved rate as its figure, with a warning. */
static void tool_run_pacing(struct tool_run_state *r)
{
    char err[UTIL_ERR_LEN] = "", why[UTIL_ERR_LEN + 80] = "";
    const struct profile_load *l = r->as_run;
    uint64_t first = target_u64(r->after, "first_request_ns");
    if (!r->after || !r->before || !first || !r->have_hold || r->hold_e_ns <= r->hold_s_ns || r->tgt.host) {
        json_object_set_new(r->res, "pacing", json_pack("{s:s, s:s}", "verdict", "not judged", "not_judged",
                                                        r->tgt.host ? "lb-target ran on another host: its clock is not this one's"
                                                        : "no hold window with requests in it"));
        return;
    }
    json_t *arr = tool_run_arrivals(r, first + r->hold_s_ns, first + r->hold_e_ns, err);
    if (!arr)
        arr = json_pack("{s:s}", "error", err);
    enum pacing_process proc = l->poisson || (r->a->caps & ADAPTER_POISSON_ONLY) ? PACING_POISSON : PACING_CLOCK;
    struct pacing_in in;
    struct pacing_result pr;
    uint64_t *bins = NULL, (*rpc)[3] = NULL;
    json_t *pj;
    if (pacing_in_from(&in, arr, r->before, r->after, l, r->hold_s_ns,
                       r->hold_e_ns, proc, &bins, &rpc, why, sizeof why) < 0) {
        pj = json_pack("{s:s, s:s}", "verdict", "not judged", "not_judged", why);
    } else {
        pacing_judge(&in, &pr);
        pj = pacing_json(&pr, &in);
        if (pr.findings & (1u << PACING_UNDER_RATE))
            json_array_append_new(r->warnings, json_sprintf("under-rate: the server saw %.1f/s where %.1f/s was asked "
                                                            "over the hold; the row's figure is the achieved rate",
                                                            pr.achieved_rps, pr.requested_rps));
    }
    if (l->model == LOAD_OPEN && l->ramped && profile_load_duration_ns(l) < 250000000000ull) {
        json_t *whole = tool_run_arrivals(r, first, first + profile_load_duration_ns(l), err);
        json_t *ramp = whole ? pacing_ramp_json(whole, l) : NULL;
        if (ramp)
            json_object_set_new(pj, "ramp", ramp);
        json_decref(whole);
    }
    json_object_set_new(r->res, "pacing", pj);
    json_decref(arr);
    free(bins);
    free(rpc);
}

static void tool_run_collect(struct tool_run_state *r)
{
    tool_run_collect_server(r);
    tool_run_pacing(r);
    json_object_set_new(r->res, "exit", tool_run_exit_json(r->tool));
    tool_run_footprint(r);
    if (r->hs.remote) {
        tool_run_hosts_json(r);
    } else {
        json_object_set_new(r->res, "machine_cpu", crosscheck_machine_json(&r->m0, &r->m1, r->cpu_s, r->target_cpu_s,
                                                                           r->self1 - r->self0, r->warnings));
        int disturbed;
        json_object_set_new(r->res, "quiet", quiet_run_json(tool_run_quiet(r), &r->gate, &r->m0, &r->m1,
                                                            r->cpu_s + r->target_cpu_s + r->self1 - r->self0,
                                                            &r->psi1, r->warnings, &disturbed));
    }
    tool_run_collect_client(r);
}

/* ---- judge: the server's witness, and whether the run is ok -------------------- */

/* The server's latency over the hold window, from the two snapshots' own
 * times: the window as measured. Returns a new object, or NULL. */
static json_t *tool_run_hold_latency(struct tool_run_state *r)
{
    json_t *hw = r->hold_h0 && r->hold_h1 ? target_histogram_window_ms(r->hold_h0, r->hold_h1) : NULL;
    if (!hw)
        return NULL;
    uint64_t t0 = target_u64(r->hold_h0, "now_ns"), t1 = target_u64(r->hold_h1, "now_ns");
    json_object_set_new(hw, "from_s", json_real(t0 > r->spawned ? (double)(t0 - r->spawned) / 1e9 : 0.0));
    json_object_set_new(hw, "to_s", json_real((double)(t1 - r->spawned) / 1e9));
    return hw;
}

static uint64_t counter_delta(uint64_t a, uint64_t b)
{
    return b > a ? b - a : 0;
}

/* The kernel's listen-queue drops over the row (ListenOverflows +
 * ListenDrops), which explain a tool's extra errors: this machine's
 * counters, or on a row across hosts the sum of each host's own
 * (tool_run_hosts_json's "tcp"), since the target's listener may be on
 * another host. 0 when no host was read: nothing is then explained. */
static uint64_t tool_run_kernel_drops(const struct tool_run_state *r)
{
    if (!r->hs.remote)
        return counter_delta(r->ns0.listen_overflows, r->ns1.listen_overflows) +
               counter_delta(r->ns0.listen_drops, r->ns1.listen_drops);
    json_t *tcp = json_object_get(r->res, "tcp");
    return (uint64_t)json_integer_value(json_object_get(tcp, "listen_overflows")) +
           (uint64_t)json_integer_value(json_object_get(tcp, "listen_drops"));
}

/* The server's witness, and into suspect why it contradicts the tool's
 * figures ("" when it does not). */
static void tool_run_crosscheck(struct tool_run_state *r, char *suspect, size_t len)
{
    const struct profile *p = r->p;
    int64_t off1 = clock_offset_ns();
    int stepped = crosscheck_clock_stepped(r->clock_off0, off1, util_now_ns() - r->spawned);
    if (stepped) {
        json_object_set_new(r->res, "clock_stepped_ms", json_real((double)(off1 - r->clock_off0) / 1e6));
        json_array_append_new(r->warnings, json_sprintf("clock stepped: the wall clock moved %+.1f ms against the "
                                                        "monotonic one during the run; a tool timing with it reports "
                                                        "wrong latencies, so they are not judged against the server's",
                                                        (double)(off1 - r->clock_off0) / 1e6));
    }
    struct sampler_summary gs;
    tool_run_target_summary(r, &gs);
    struct crosscheck_in in = {.before = r->before, .after = r->after, .series = r->series,
                               .load = r->as_run,
                               .delay_ns = p->target.delay_ns, .client_parsed = r->ar.parsed,
                               .client_requests = r->ar.requests, .client_errors = r->ar.errors,
                               .client_ok = r->ar.ok, .clock_stepped = stepped,
                               .kernel_drops = tool_run_kernel_drops(r), .foreign_requests = r->foreign,
                               .latency_digits = r->a->latency_digits,
                               .open_at_stop = r->open_at_stop, .stopped_hard = r->stopped_by_us,
                               .cpu_seconds = r->load_cpu_s > 0 ? r->load_cpu_s : r->cpu_s, .rss_peak_mb = r->rss_peak, .lat = r->ar.parsed ? &r->ar.lat : NULL,
                               .latency_resolution_ms = r->a->latency_resolution_ms, .model = r->plan->model,
                               .tool_cpus = p->tool_cpus, .target_cpus = p->target_cpus,
                               .tool_samples = r->ntrees == 1 ? r->tool->samples : NULL,
                               .tool_summary = &r->tool_ss, .target_samples = r->gtree, .target_summary = &gs,
                               .tool_spawned_ns = r->spawned,
                               .tool_pts = r->tpts, .ntool_pts = r->ntp, .target_pts = r->gpts,
                               .ntarget_pts = r->ngp, .stalls = r->stalls, .server_histogram = r->hist_end};
    /* The queueing witness reads the server's time over the hold window;
     * run.json keeps it after crosscheck's own windows. */
    json_t *hw = tool_run_hold_latency(r);
    in.hold_server_time = hw;
    struct crosscheck_result cr;
    crosscheck_compute(&in, &cr);
    crosscheck_to_json(&cr, r->res, r->warnings);
    if (r->load_cpu_s > 0)
        json_object_set_new(json_object_get(r->res, "efficiency"), "cpu_basis",
                            json_string("the tool's load phase (footprint.phases.load), not its whole run"));
    snprintf(suspect, len, "%s", cr.suspect.reason);
    if (hw)
        json_object_set_new(json_object_get(r->res, "windows"), "hold_server_time_ms", hw);
}

/* A local row's ephemeral ports (engine/netstat.h): "ports" in its tcp
 * object, and when TIME_WAIT held 90 % of the range, the bottleneck
 * "ephemeral ports" with that witness: the tool could not open new
 * connections, whatever its own speed. */
static void tool_run_ports(struct tool_run_state *r)
{
    json_t *tcp = json_object_get(r->res, "tcp"), *limits = json_object_get(r->res, "limits");
    int exhausted;
    if (r->hs.remote || !json_is_object(tcp) || !r->ports.looks)
        return;
    json_object_set_new(tcp, "ports", netstat_ports_json(&r->ports, &exhausted));
    if (!exhausted || !json_is_object(limits))
        return;
    json_t *why = json_sprintf("ephemeral ports: %llu of the %llu ports of ip_local_port_range %llu-%llu were held "
                               "in TIME_WAIT at the peak (tcp_tw_reuse %d): new connections waited for ports, "
                               "not for the tool", (unsigned long long)r->ports.held_peak,
                               (unsigned long long)(r->ports.hi - r->ports.lo + 1), (unsigned long long)r->ports.lo,
                               (unsigned long long)r->ports.hi, r->ports.tw_reuse);
    json_object_set_new(limits, "bottleneck", json_string("ephemeral ports"));
    json_object_set_new(limits, "witness", json_string("time_wait"));
    json_array_append_new(r->warnings, json_sprintf("ports-bound: %s", json_string_value(why)));
    json_object_set_new(limits, "reason", why);
}

/* target.tls or HTTP/2: lb-target's handshake and protocol counts go into
 * the row; a tool asked for h2 or h2c whose requests the server counted
 * over HTTP/1.x (an ALPN fallback, a tool without HTTP/2) fails its row
 * with that reason - never a quiet ok. Missing counts fail it too. */
static void tool_run_protocol(struct tool_run_state *r)
{
    const struct profile *p = r->p;
    if (!p->target.tls.version && p->target.protocol == PROFILE_H1)
        return;
    json_t *tls = json_object_get(r->after, "tls"), *h2 = json_object_get(r->after, "h2");
    const char *asked = profile_protocol_name(p->target.protocol);
    json_object_set_new(r->res, "target_protocol", json_pack("{s:s, s:O?, s:O?}", "asked", asked, "tls", tls, "h2", h2));
    if (r->v.status != TOOL_RUN_OK)
        return;
    if (p->target.tls.version && !tls) {
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "lb-target gave no TLS counts (\"tls\" in /stats)");
        return;
    }
    if (p->target.protocol == PROFILE_H1)
        return;
    uint64_t all = target_u64(r->after, "requests_parsed");
    json_t *n = json_object_get(h2, "requests");
    if (!json_is_integer(n)) {
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "lb-target gave no HTTP/2 counts (\"h2\" in /stats)");
        return;
    }
    uint64_t h2req = (uint64_t)json_integer_value(n);
    json_t *alpn = json_object_get(tls, "alpn");
    if (all > h2req)
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED,
                           "asked for %s, the tool spoke HTTP/1.1: lb-target counted %llu of its %llu requests over "
                           "HTTP/1.x (ALPN per connection: h2 %lld, http/1.1 %lld, none %lld)",
                           asked, (unsigned long long)(all - h2req), (unsigned long long)all,
                           json_integer_value(json_object_get(alpn, "h2")),
                           json_integer_value(json_object_get(alpn, "h1")),
                           json_integer_value(json_object_get(alpn, "none")));
}

/* The request bodies lb-target counted over the row ("request_body"):
 * a POST row whose server counted a body of another size (short, long,
 * none) or over it (413) fails with how many; a GET row must have sent no
 * body at all. */
static void tool_run_body(struct tool_run_state *r)
{
    const struct profile_request *rq = &r->p->request;
    struct {
        const char *key;
        uint64_t n;
    } c[] = {{"requests_with_body", 0}, {"body_bytes", 0}, {"body_mismatch", 0}, {"body_too_large", 0},
             {"body_short", 0}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        c[i].n = target_delta(r->before, r->after, c[i].key);
    json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "method", rq->post ? "POST" : "GET", "requests_with_body",
                          (json_int_t)c[0].n, "bytes", (json_int_t)c[1].n, "mismatch", (json_int_t)c[2].n,
                          "too_large", (json_int_t)c[3].n, "short", (json_int_t)c[4].n);
    if (rq->post)
        json_object_set_new(o, "expect_bytes", json_integer((json_int_t)rq->body_bytes));
    json_object_set_new(r->res, "request_body", o);
    if (r->v.status != TOOL_RUN_OK)
        return;
    unsigned long long size = (unsigned long long)rq->body_bytes;
    if (rq->post && c[2].n)
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "%llu requests' bodies were not %llu bytes (lb-target's "
                           "body_mismatch)", (unsigned long long)c[2].n, size);
    if (rq->post && c[3].n)
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "%llu requests' bodies were over %llu bytes (refused with 413)",
                           (unsigned long long)c[3].n, size);
    if (!rq->post && (c[0].n || c[1].n))
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "a GET row, yet lb-target counted %llu requests with a body "
                           "(%llu bytes)", (unsigned long long)c[0].n, (unsigned long long)c[1].n);
}

/* An exit wait4 lost (exit.unknown): the tool may have been killed, so
 * its row cannot be ok. Suspect, not failed: the server's counts and the
 * tool's parse were judged and agreed, but how the tool ended, a check a
 * user relies on, could not be made. lb-target's lost exit is a warning:
 * the row's counts were read before its stop; only its final stats line
 * and exit are in doubt. */
static void tool_run_exit_unknown(struct tool_run_state *r)
{
    for (size_t k = 0; k < r->ntrees; k++) {
        const struct exec_tree *t = r->trees[k].t;
        char who[48];
        if ((r->v.status == TOOL_RUN_OK || r->v.status == TOOL_RUN_SUSPECT) && t->ended && t->exit.unknown)
            tool_run_downgrade(&r->v, TOOL_RUN_SUSPECT, "exit status lost: wait4 found %s already reaped "
                               "elsewhere, so whether it ran to its end is unknown", tree_who(r, k, who, sizeof who));
    }
    if (r->tgt.proc.exit.unknown)
        json_array_append_new(r->warnings, json_string("lb-target's exit status was lost (wait4 found it already "
                                                       "reaped elsewhere): its final stats line may be missing; "
                                                       "the row's counts were read before its stop"));
}

/* Exit codes are not trusted alone: an ok run must have parsed a result
 * and the server must have seen its traffic. Only a run still ok is
 * judged: its first failure is its reason. */
static void tool_run_judge(struct tool_run_state *r)
{
    char err[UTIL_ERR_LEN], suspect[sizeof r->v.reason] = "";
    const struct adapter_result *ar = &r->ar;
    /* Stop the target; its final stats are the last word. */
    int stop_failed = target_stop(&r->tgt, err);
    r->have_tgt = 0;
    if (stop_failed && r->v.status == TOOL_RUN_OK)
        tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "%s", err);
    if (r->before && r->after) {
        tool_run_crosscheck(r, suspect, sizeof suspect);
        tool_run_ports(r);
        if (r->v.status == TOOL_RUN_OK && crosscheck_server_requests(r->before, r->after) == 0)
            tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "the server saw no requests from the tool");
        if (r->v.status == TOOL_RUN_OK && ar->parsed && ar->requests > 0 && ar->errors >= ar->requests)
            tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "every request the tool reported failed (%llu errors)",
                               (unsigned long long)ar->errors);
        tool_run_protocol(r);
        tool_run_body(r);
    }
    for (size_t k = 0; k < r->ntrees; k++) {
        const struct exec_tree *t = r->trees[k].t;
        const struct exec_exit *ex = &t->exit;
        char who[48];
        tree_who(r, k, who, sizeof who);
        if (r->v.status == TOOL_RUN_OK && t->ended && ex->signaled)
            tool_run_downgrade(&r->v, TOOL_RUN_FAILED, "%s was killed by signal %d", who, ex->sig);
        if (r->v.status == TOOL_RUN_OK && t->ended && ex->exited && ex->code != 0)
            json_array_append_new(r->warnings, json_sprintf("%s exited with code %d", who, ex->code));
    }
    /* Ran to the end, and the server contradicts what it says. */
    if (r->v.status == TOOL_RUN_OK && suspect[0])
        tool_run_downgrade(&r->v, TOOL_RUN_SUSPECT, "%s", suspect);
    tool_run_exit_unknown(r);
}

/* ---- free: the one clean-up path, whatever phase the run reached ---------------- */

/* 1 when a warning before the i-th or the reason already says text. */
static int said_before(const struct tool_run_state *r, size_t i, const char *text)
{
    if (strstr(r->v.reason, text))
        return 1;
    for (size_t j = 0; j < i; j++)
        if (strstr(json_string_value(json_array_get(r->warnings, j)), text))
            return 1;
    return 0;
}

/* Every call to a lost host fails with the same "host lost: ..." (the
 * stop, the fetch, lb-target's samples): said once, in the reason or the
 * first warning that has it (a warning's text from "host lost: " on). */
static void tool_run_dedupe_lost(struct tool_run_state *r)
{
    for (size_t i = 0; i < json_array_size(r->warnings);) {
        const char *w = json_string_value(json_array_get(r->warnings, i));
        const char *lost = w ? strstr(w, "host lost: ") : NULL;
        if (lost && said_before(r, i, lost))
            json_array_remove(r->warnings, i);
        else
            i++;
    }
}

/* A failed row whose process exited with an error code: that process's
 * own fatal stderr line ("master port 5557 was busy") closes the reason,
 * which otherwise says only what loadbench saw. */
static void tool_run_said(struct tool_run_state *r)
{
    char path[PATH_MAX + 16], line[240];
    if (r->v.status != TOOL_RUN_FAILED)
        return;
    for (size_t k = 0; k < r->ntrees; k++) {
        const struct exec_tree *t = r->trees[k].t;
        if (!t || !t->ended || !t->exit.exited || !t->exit.code)
            continue;
        pathf(path, sizeof path, "%s/stderr.txt", r->trees[k].proc->dir);
        if (capture_fatal_line(path, line, sizeof line) && !strstr(r->v.reason, line)) {
            size_t n = strlen(r->v.reason);
            char who[48] = "the tool";
            if (r->ntrees > 1)
                snprintf(who, sizeof who, "its %s", r->trees[k].proc->role);
            snprintf(r->v.reason + n, sizeof r->v.reason - n, "; %s exited %d saying \"%s\"", who, t->exit.code,
                     line);
        }
        return;
    }
}

static json_t *tool_run_free(struct tool_run_state *r)
{
    pid_t keep_tgt[1] = {r->have_tgt ? r->tgt.proc.pid : 0};
    for (size_t k = 0; k < r->ntrees; k++)
        if (r->trees[k].t && !r->trees[k].t->ended)
            r->trees[k].t->ex->stop(r->trees[k].t, keep_tgt, r->have_tgt ? 1 : 0, 1000000000ull, NULL);
    if (r->have_tgt)
        target_stop(&r->tgt, NULL);
    for (size_t k = 0; k < r->ntrees; k++) {
        if (!r->trees[k].t)
            continue;
        finish_output(r, k, EXEC_STDOUT);
        finish_output(r, k, EXEC_STDERR);
    }
    tool_run_said(r);
    for (size_t k = 0; k < r->ntrees; k++) {
        if (!r->trees[k].t)
            continue;
        r->trees[k].t->ex->free(r->trees[k].t);
        if (r->trees[k].csv)
            fclose(r->trees[k].csv);
    }
    free(r->trees);
    if (r->tcsv)
        fclose(r->tcsv);
    if (r->gcsv)
        fclose(r->gcsv);
    if (r->mcsv)
        fclose(r->mcsv);
    sampler_tree_free(r->gtree);
    free(r->tpts);
    free(r->gpts);
    json_decref(r->before);
    json_decref(r->after);
    json_decref(r->last_stats);
    json_decref(r->hold_h0);
    json_decref(r->hold_h1);
    serverlog_close(&r->slog);
    json_decref(r->series);
    json_decref(r->stalls);
    json_decref(r->hist_end);
    adapter_result_free(&r->ar);
    adapter_group_free(&r->g);
    profile_load_free(r->as_run_sum);
    tool_run_dedupe_lost(r);
    json_object_set_new(r->res, "status", json_string(tool_run_status_name(r->v.status)));
    if (r->v.reason[0])
        json_object_set_new(r->res, "reason", adapter_json_text(r->v.reason));
    json_object_set_new(r->res, "warnings", r->warnings);
    json_object_set_new(r->res, "harness_wall_s", json_real((double)(util_now_ns() - r->t_start) / 1e9));
    return r->res;
}

json_t *tool_run(const struct tool_run_opts *o, const struct profile_tool *pt, const struct profile_load *load,
                 double level, unsigned rep, const char *subdir)
{
    struct tool_run_state *r = util_xmalloc(sizeof *r);
    tool_run_init(r, o, pt, load, level, rep, subdir);
    if (tool_run_prepare(r) == 0 && tool_run_spawn(r) == 0) {
        tool_run_sample(r);
        tool_run_stop(r);
        tool_run_collect(r);
        tool_run_judge(r);
    }
    json_t *res = tool_run_free(r);
    free(r);
    return res;
}
