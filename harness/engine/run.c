#include "engine/run.h"
#include "generated/charts_hash.h" /* generated: LB_CHARTS_HASH */
#include "adapters/adapter.h"
#include "adapters/group.h"
#include "engine/capture.h"
#include "common/cgroup.h"
#include "engine/crosscheck.h"
#include "engine/machine.h"
#include "engine/peercheck.h"
#include "engine/netstat.h"
#include "engine/place.h"
#include "engine/proc.h"
#include "report/runrecord.h"
#include "engine/runcheck.h"
#include "engine/runlock.h"
#include "engine/sampler.h"
#include "common/sha256.h"
#include "engine/target.h"
#include "engine/toolrun.h"
#include "common/units.h"
#include "common/fsutil.h"
#include "common/guard.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SCHEMA_VERSION LB_SCHEMA_VERSION

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Remove dir and everything under it (links are removed, not followed). */
static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the runner: log and progress lines ------------------------------------ */

struct runner {
    const struct profile *p;
    const struct run_opts *o;
    char dir[PATH_MAX];
    json_t *run;            /* the whole run.json */
    json_t *runs;           /* its "runs" array */
    double self_cpu_start;
    int cg_ok;              /* 1 while cgroups work here */
    int progress_drawn;
    struct place *place;    /* the hosts (run_opts.place), or NULL: everything here */
    char reserve[PATH_MAX + 64]; /* room kept for the next run.json ("" when none) */
    int saved_all;          /* after a disk full: the reserve's room saved every row measured */
    json_t *into;           /* --into: this run's entry in run.json's "into_runs" (borrowed) */
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

/* A line of the placement's (engine/place.h). */
static void place_log(void *arg, const char *line)
{
    logf_(arg, "%s", line);
}

/* tool_run's progress callback. */
static void on_progress(void *arg, const char *label, double elapsed_s, double total_s, double rps, double cpu_pct,
                        double rss_mb)
{
    progress(arg, label, "load", elapsed_s, total_s, rps, cpu_pct, rss_mb);
}

/* Room for the next run.json (issue #29): a file as large as run.json
 * now plus twice its growth since before_bytes (0: none known; 16 KiB at
 * least), beside it, named as a temporary of ours (NAME.tmp.PID) so
 * `doctor` removes it after a kill. Returns 0, or -1 with err when the
 * disk has no room for it. */
static int reserve_room(struct runner *R, uint64_t before_bytes, char *err)
{
    struct stat st;
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/run.json", R->dir);
    uint64_t now = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    uint64_t grew = before_bytes && now > before_bytes ? now - before_bytes : 0;
    snprintf(R->reserve, sizeof R->reserve, "%s/run.json.reserve.tmp.%d", R->dir, (int)getpid());
    return fsutil_reserve(R->reserve, now + (2 * grew > 16384 ? 2 * grew : 16384), err);
}

static void release_room(struct runner *R)
{
    if (R->reserve[0])
        unlink(R->reserve);
    R->reserve[0] = 0;
}

/* Write run.json whole (fsutil_write_json). When the disk is full, the
 * reserved room is given back and the write tried again, so the rows
 * measured are kept; it still fails then (err "disk full: ..."), because
 * the run must stop. */
static int save(struct runner *R, char *err)
{
    char path[PATH_MAX + 16];
    struct stat st;
    snprintf(path, sizeof path, "%s/run.json", R->dir);
    uint64_t before = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    json_object_set_new(R->run, "loadbench_cpu_s", json_real(sampler_self_cpu_s() - R->self_cpu_start));
    if (fsutil_write_json(path, R->run, err) == 0) {
        if (R->reserve[0])
            reserve_room(R, before, NULL); /* best effort: a disk filling up is met at the next save */
        return 0;
    }
    if ((errno == ENOSPC || errno == EDQUOT) && R->reserve[0]) {
        release_room(R);
        R->saved_all = fsutil_write_json(path, R->run, NULL) == 0;
    }
    return -1;
}

/* ---- placement ------------------------------------------------------------- */

/* Where lb-target listens and load goes: its host's address (NULL: 127.0.0.1). */
static const char *placement_target_address(const struct profile *p)
{
    const struct profile_host *h = profile_host_by_name(p, p->target_host);
    return h ? profile_host_load_address(h) : NULL;
}

/* ---- the whole profile ----------------------------------------------------- */

static int make_run_dir(struct runner *R, char *err)
{
    if (R->o->into_dir) {
        if (!realpath(R->o->into_dir, R->dir))
            return util_err(err, "--into %s: %s", R->o->into_dir, strerror(errno));
        return runlock_take(R->dir, err); /* runlock hook (#18): the dir names its owner */
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
        if (fsutil_mkdir_p(parent, err))
            return -1;
    }
    /* Made with its lock already inside (runlock hook, #18): a kill at any
     * moment leaves no run directory that names no owner. */
    if (runlock_mkdir(R->dir, err))
        return -1;
    /* Absolute from here on: tools run with their own directory as cwd. */
    char abs[PATH_MAX];
    if (realpath(R->dir, abs))
        snprintf(R->dir, sizeof R->dir, "%s", abs);
    return 0;
}

static void subdir_name(char *out, size_t len, const struct profile *p, const struct profile_tool *t, double level,
                        unsigned rep)
{
    char lv[48] = "", rp[24] = "";
    if (!isnan(level))
        snprintf(lv, sizeof lv, "@" PROFILE_LEVEL_FMT, level);
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

/* A tool entry's own `bin:` must be that tool (its version probe works)
 * before anything starts: a path to another program is the user's to fix,
 * not a row to skip after other tools have sent their load. That it is
 * there and executable, runcheck said before (as validate does). (A tool
 * without bin: that is not installed, or a bin: naming a toolchain
 * (bin_is_toolchain), stays a "skipped" row: the profile may list tools
 * this machine lacks.) Returns 0, or -1 with err naming the profile's
 * place. */
static int check_bins(const struct profile *p, const char *only, char *err)
{
    for (size_t i = 0; i < p->ntools; i++) {
        const struct profile_tool *t = &p->tools[i];
        char found[PATH_MAX];
        const struct adapter *a = runcheck_own_bin(t, only);
        if (!a || adapter_which(t->bin, found, sizeof found))
            continue;
        struct adapter_found af;
        char e[UTIL_ERR_LEN];
        memset(&af, 0, sizeof af);
        if (!a->detect(t->bin, &af, e))
            continue;
        e[strcspn(e, "\r\n")] = 0; /* one line: the probe's output may go on */
        return util_err(err, "%s:%d:%d: %s: bin %s does not work as %s: %s", p->path, t->line, t->col, t->label,
                        t->bin, t->tool, e);
    }
    return 0;
}

/* The sha256 of the resolved profile cur with its tools cut to the
 * first n: the profile an --into run had before tool entries were added
 * after its own. */
static void profile_sha_first_tools(const json_t *cur, size_t n, char hex[65])
{
    json_t *c = json_deep_copy(cur), *tools = json_object_get(c, "tools");
    while (json_array_size(tools) > n)
        json_array_remove(tools, json_array_size(tools) - 1);
    profile_json_sha256(c, hex);
    json_decref(c);
}

/* --into adds to a run only what its own profile would have run: a row
 * measured under another profile (or a changed one) would sit beside rows
 * it cannot be compared with while run.json and profile.yaml describe the
 * old one. A profile that only appends tool entries to the run's still
 * describes every row the run has (a study a new tool joins): the run then
 * takes the new profile. Returns 0 (the same), 1 (extended) or -1 with err
 * naming both profiles. */
static int check_same_profile(const struct profile *p, json_t *run, char *err)
{
    json_t *rec = json_object_get(run, "profile");
    char had[65] = "", now[65], first[65] = "";
    const char *sha = json_string_value(json_object_get(run, "profile_sha256"));
    if (sha)
        snprintf(had, sizeof had, "%s", sha);
    else if (json_is_object(rec)) /* a run from before the hash was recorded */
        profile_json_sha256(rec, had);
    json_t *cur = profile_to_json(p);
    profile_json_sha256(cur, now);
    size_t ntools = json_array_size(json_object_get(rec, "tools"));
    if (ntools && json_array_size(json_object_get(cur, "tools")) > ntools)
        profile_sha_first_tools(cur, ntools, first);
    json_decref(cur);
    if (!strcmp(had, now))
        return 0;
    if (!strcmp(had, first))
        return 1;
    /* Not the --into path: err holds 256 bytes, both profiles' must fit. */
    return util_err(err, "that run is of profile \"%s\" (%s, sha256 %.12s), not of \"%s\" (%s, sha256 %.12s): only "
                    "tool entries may be added after its own; else use --out",
                    json_string_value(json_object_get(rec, "name")) ?: "?",
                    json_string_value(json_object_get(rec, "path")) ?: "?", had[0] ? had : "none", p->name, p->path, now);
}

/* The resolved profile and its hash into run.json, the profile as
 * written beside it. */
static void run_take_profile(struct runner *R, const struct profile *p)
{
    char path[PATH_MAX + 32], sha[65];
    json_t *resolved = profile_to_json(p);
    profile_json_sha256(resolved, sha);
    json_object_set_new(R->run, "profile", resolved);
    json_object_set_new(R->run, "profile_sha256", json_string(sha));
    char *text = adapter_slurp(NULL, p->path, 4 << 20, NULL);
    if (text) {
        snprintf(path, sizeof path, "%s/profile.yaml", R->dir);
        fsutil_write_text(path, text, NULL);
        free(text);
    }
}

/* The labels --only selects into run.json's "only" (the labels a run set
 * out to measure, which runstatus checks its rows against), when the run
 * has one: a run of the whole profile stays one. */
static void only_add(json_t *run, const struct profile *p, const char *sel)
{
    json_t *only = json_object_get(run, "only"), *l;
    size_t i;
    if (!json_is_array(only))
        return;
    for (size_t t = 0; t < p->ntools; t++) {
        const char *label = p->tools[t].label;
        int have = !profile_only_selects(sel, label);
        json_array_foreach(only, i, l) have |= !strcmp(json_string_value(l) ?: "", label);
        if (!have)
            json_array_append_new(only, json_string(label));
    }
}

/* --into: this run's entry in run.json's "into_runs": when it began, the
 * build, the status the run had before, and (run_step) each row it added
 * or replaced. The run reads "running" until this one ends, so a kill
 * leaves it abandoned, not complete. */
static void into_begin(struct runner *R)
{
    json_t *list = json_object_get(R->run, "into_runs");
    if (!json_is_array(list)) {
        list = json_array();
        json_object_set_new(R->run, "into_runs", list);
    }
    R->into = json_pack("{s:s, s:I, s:O?, s:{s:s, s:s, s:s}, s:[]}", "only", R->o->only, "started_at_ms",
                        (json_int_t)util_wall_ms(), "status_before", json_object_get(R->run, "status"), "loadbench",
                        "version", LB_VERSION, "git", LB_GIT_REV, "build", LB_BUILD_TYPE, "rows");
    json_array_append_new(list, R->into);
    only_add(R->run, R->p, R->o->only);
    json_object_set_new(R->run, "status", json_string("running"));
}

/* run.json's start: the run --into adds to (refused when it is of another
 * profile), or a new one with the resolved profile, the machine and the
 * profile as written beside it. Returns 0, or -1 with err. */
static int run_open(struct runner *R, const struct profile *p, const struct run_opts *o, char *err)
{
    char path[PATH_MAX + 32];
    if (o->into_dir) {
        json_error_t je;
        snprintf(path, sizeof path, "%s/run.json", R->dir);
        R->run = fsutil_load_json(path, FSUTIL_CAP_RUN_JSON, &je);
        if (!R->run || !json_is_array(json_object_get(R->run, "runs"))) {
            util_err(err, "%s: not a loadbench run (%s)", path, R->run ? "no runs" : je.text);
            json_decref(R->run);
            return -1;
        }
        R->runs = json_object_get(R->run, "runs");
        int same = check_same_profile(p, R->run, err);
        if (same < 0) {
            json_decref(R->run);
            return -1;
        }
        if (same == 1)
            run_take_profile(R, p);
        into_begin(R);
        return 0;
    }
    R->run = json_object();
    R->runs = json_array();
    json_object_set_new(R->run, "schema_version", json_integer(SCHEMA_VERSION));
    json_object_set_new(R->run, "schema_minor", json_integer(LB_SCHEMA_MINOR));
    json_object_set_new(R->run, "loadbench",
                        json_pack("{s:s, s:s, s:s, s:s}", "version", LB_VERSION, "git", LB_GIT_REV, "build", LB_BUILD_TYPE,
                                  "charts", LB_CHARTS_HASH));
    run_take_profile(R, p);
    json_object_set_new(R->run, "machine", machine_info());
    json_object_set_new(R->run, "started_at_ms", json_integer((json_int_t)util_wall_ms()));
    json_object_set_new(R->run, "status", json_string("running"));
    if (o->only) { /* the scope runstatus checks: the selected labels' entries */
        json_object_set_new(R->run, "only", json_array());
        only_add(R->run, p, o->only);
    }
    json_object_set_new(R->run, "runs", R->runs);
    return 0;
}

/* The cooldown between two tool runs, cut short by a stop. */
static void run_cooldown(const struct runner *R)
{
    uint64_t until = util_now_ns() + R->p->cooldown_ns;
    while (util_now_ns() < until && !*R->o->stop)
        util_sleep_until_ns(util_now_ns() + 50000000ull < until ? util_now_ns() + 50000000ull : until);
}

/* Where sub's row goes: --into replaces the tool's earlier row, in its
 * place. Returns its index, or -1 to append. */
static long row_index(const struct runner *R, const char *sub)
{
    size_t i;
    json_t *r;
    if (!R->o->into_dir)
        return -1;
    json_array_foreach(R->runs, i, r)
    {
        if (!strcmp(json_string_value(json_object_get(r, "dir")) ?: "", sub))
            return (long)i;
    }
    return -1;
}

/* A tool runs in a folder that holds only its own row's files: what an
 * earlier attempt at sub left (the row --into replaces, or one a kill
 * cut short) goes first, so no stale result is read as this run's. */
static void row_dir_clear(const struct runner *R, const char *sub)
{
    char path[PATH_MAX + 256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", R->dir, sub);
    if (lstat(path, &st) == 0)
        remove_tree(path);
}

/* One tool run at one step, its row recorded and run.json saved. Returns
 * 0 (ok or skipped), 1 (failed, timeout, oom), 130 (interrupted), or -1
 * with err when run.json could not be saved. */
static int run_step(struct runner *R, const struct tool_run_opts *to, const struct profile_tool *t,
                    const struct profile_load *load, double level, unsigned rep, char *err)
{
    char sub[256];
    subdir_name(sub, sizeof sub, R->p, t, level, rep);
    long replace_at = row_index(R, sub);
    logf_(R, "%s: starting", sub);
    struct tool_run_opts here = *to;
    const struct executor *host_ex[PROFILE_MAX_INSTANCES];
    json_t *nic = R->place ? R->place->ops->row_start(R->place, t, &here, host_ex) : NULL;
    char peer_why[UTIL_ERR_LEN] = "";
    json_t *peers = peercheck_expected(R->p, t, json_object_get(R->run, "path"), peer_why, sizeof peer_why);
    here.peer_addrs = peers;
    here.peer_why = peer_why;
    row_dir_clear(R, sub);
    json_t *res = tool_run(&here, t, load, level, rep, sub);
    json_decref(peers);
    if (R->place)
        R->place->ops->row_end(R->place, t, res, nic, json_object_get(R->run, "path"));
    runrecord_files(R->dir, res); /* what it left, so a report finds what changed since */
    const char *st = json_string_value(json_object_get(res, "status"));
    const char *why = json_string_value(json_object_get(res, "reason"));
    logf_(R, "%s: %s%s%s%s", sub, st, why ? " (" : "", why ? why : "", why ? ")" : "");
    if (json_object_get(res, "server"))
        logf_(R, "%s: %.0f req/s (server-counted), crosscheck %s", sub,
              json_number_value(json_object_get(json_object_get(res, "windows"), "whole_rps")),
              json_string_value(json_object_get(json_object_get(res, "crosscheck"), "verdict")) ?: "-");
    int rc = !strcmp(st, "interrupted") ? 130 : strcmp(st, "ok") && strcmp(st, "skipped") ? 1 : 0;
    if (R->o->into_dir) { /* a row added later says which build made it and when, and the run which rows */
        json_object_set_new(res, "rerun", json_pack("{s:s, s:s, s:s, s:I}", "version", LB_VERSION, "git", LB_GIT_REV,
                                                    "build", LB_BUILD_TYPE, "at_ms", (json_int_t)util_wall_ms()));
        json_t *old = replace_at >= 0 ? json_object_get(json_array_get(R->runs, (size_t)replace_at), "status") : NULL;
        json_array_append_new(json_object_get(R->into, "rows"),
                              json_pack("{s:s, s:s, s:I, s:O?}", "dir", sub, "status", st, "at_ms",
                                        (json_int_t)util_wall_ms(), "replaced", old));
    }
    if (replace_at >= 0)
        json_array_set_new(R->runs, (size_t)replace_at, res);
    else
        json_array_append_new(R->runs, res);
    if (save(R, err)) {
        /* e.g. the disk is full: run.json is written whole or not at all,
         * so the one on disk is the last good one. */
        size_t n = strlen(err);
        snprintf(err + n, UTIL_ERR_LEN - n, " (run stopped; run.json keeps %s)",
                 R->saved_all ? "every row measured, in the room reserved at start" : "the rows saved before");
        return -1;
    }
    return rc;
}

/* Every step: sweep level x repeat x tool, tools interleaved. Returns the
 * number of failed rows, 130 once interrupted, or -1 with err. */
static int run_steps(struct runner *R, char *err)
{
    const struct profile *p = R->p;
    const struct run_opts *o = R->o;
    struct tool_run_opts to = {.profile = p, .run_dir = R->dir, .target_bin = o->target_bin, .stop = o->stop,
                               .ex = &exec_local, .cgroup_ok = &R->cg_ok, .progress = on_progress, .progress_arg = R,
                               .target_addr = placement_target_address(p)};
    size_t nlevels = sweep_levels(p);
    int failures = 0, first = 1;
    for (size_t li = 0; li < nlevels; li++) {
        for (unsigned rep = 1; rep <= p->repeat; rep++) {
            for (size_t ti = 0; ti < p->ntools; ti++) {
                const struct profile_tool *t = &p->tools[ti];
                if (!profile_only_selects(o->only, t->label))
                    continue;
                double level;
                struct profile_load *at;
                const struct profile_load *load = load_at_step(profile_tool_load(p, t), li, &level, &at);
                if (!load)
                    continue;
                if (!first && p->cooldown_ns)
                    run_cooldown(R);
                first = 0;
                int rc = *o->stop ? 130 : run_step(R, &to, t, load, level, rep, err);
                profile_load_free(at);
                if (rc == 130 || rc < 0)
                    return rc;
                failures += rc;
            }
        }
    }
    return *o->stop ? 130 : failures;
}

/* Checks that need nothing started: the profile as validate checks it
 * (runcheck), lb-target, --only, every bin:. */
static int run_preflight(const struct profile *p, const struct run_opts *o, char *err)
{
    if (profile_only_check(p, o->only, err) || runcheck_profile(p, o->only, err))
        return -1;
    if (access(o->target_bin, X_OK))
        return util_err(err, "lb-target not found at %s: run `make`", o->target_bin);
    return check_bins(p, o->only, err);
}

/* run_profile's steps, with R set up. */
static int run_profile_in(struct runner *R, const struct profile *p, const struct run_opts *o, struct run_result *res,
                          char *err)
{
    if (run_preflight(p, o, err) || (R->place && R->place->ops->open(R->place, err)))
        return 2;
    if (*o->stop) /* early-signal hook (#18): stopped before the run directory exists: make nothing */
        return 130;
    if (make_run_dir(R, err))
        return 2;
    res->dir = util_xstrdup(R->dir);
    if ((R->place && R->place->ops->begin(R->place, R->dir, err)) || run_open(R, p, o, err))
        return 2;
    if (R->place) /* "hosts" and the data path "path", before the first row */
        R->place->ops->record(R->place, R->run);
    else
        json_object_set_new(R->run, "path", json_pack("{s:s}", "skipped",
                                                      "one box: the load goes over loopback (measure a path with hosts:)"));
    /* The room first: without it nothing is run, and no run.json is left
     * claiming a run (exit 2). */
    if (reserve_room(R, 0, err) || save(R, err)) {
        json_decref(R->run);
        return 2;
    }
    logf_(R, "run directory %s", R->dir);
    int rc = run_steps(R, err);
    if (rc >= 0) {
        crosscheck_co_reference(json_object_get(R->run, "runs"));
        /* Its rows say whether it is complete (an --into run only when
         * every entry has a final row now), not how this run ended. */
        runstatus_settle(R->run, rc == 130 ? "interrupted" : RUNSTATUS_COMPLETE);
        json_object_set_new(R->run, "ended_at_ms", json_integer((json_int_t)util_wall_ms()));
        if (R->into)
            json_object_set_new(R->into, "ended_at_ms", json_integer((json_int_t)util_wall_ms()));
    }
    if (rc < 0 || save(R, err)) {
        /* Tools ran, so not 2; run.json says "running" and the lock stays
         * (run_result_release): the owner is dead once we exit, and
         * `doctor` marks the run. */
        res->unsaved = 1;
        json_decref(R->run);
        return 1;
    }
    release_room(R);
    res->record = R->run; /* for the reports, which the caller writes */
    return rc == 130 ? 130 : rc ? 1 : 0;
}

int run_profile(const struct profile *p, const struct run_opts *o, struct run_result *res, char *err)
{
    struct runner R;
    memset(&R, 0, sizeof R);
    R.p = p;
    R.o = o;
    R.cg_ok = 1;
    R.self_cpu_start = sampler_self_cpu_s();
    memset(res, 0, sizeof *res);
    err[0] = 0;
    if ((R.place = o->place)) {
        R.place->log = place_log;
        R.place->log_arg = &R;
    }
    int rc = run_profile_in(&R, p, o, res, err);
    release_room(&R);
    /* The hosts are done with: they go before the reports (charts take
     * seconds), so a SIGINT clears them sooner. */
    if (R.place)
        R.place->ops->close(R.place);
    return rc;
}

void run_result_release(struct run_result *res)
{
    if (res->dir && !res->unsaved) /* unsaved: run.json could not be saved; doctor marks the run (#29) */
        runlock_release(res->dir); /* runlock hook (#18): taken by make_run_dir */
    json_decref(res->record);
    free(res->dir);
    memset(res, 0, sizeof *res);
}

/* A generated config, shown whole in the plan (its directory is temporary). */
static void print_config(FILE *out, const char *dir, const char *name)
{
    enum { SHOWN_MAX = 64 << 10 };
    char *text = adapter_slurp(dir, name, FSUTIL_CAP_RESULT, NULL);
    size_t len = text ? strlen(text) : 0;
    if (!strcmp(name, ADAPTER_BODY_FILE)) { /* request: POST's body: its size says it all */
        fprintf(out, "  config: %s (%zu bytes of x: every request's body)\n", name, len);
        free(text);
        return;
    }
    fprintf(out, "  config: %s (%zu bytes%s)\n", name, len, len > SHOWN_MAX ? ", first 64 KiB shown" : "");
    if (len > SHOWN_MAX)
        text[SHOWN_MAX] = 0;
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        fprintf(out, "  | %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
    }
    free(text);
}

/* "host NAME (DEST)" or "this machine (no host:)" into out. */
static void placement_where(const struct profile_host *h, char *out, size_t len)
{
    char dest[300];
    profile_host_destination(h, dest, sizeof dest);
    if (h)
        snprintf(out, len, "host %s (%s)", h->name, dest);
    else
        snprintf(out, len, "this machine (no host:)");
}

/* A tool entry on several hosts: each of its processes, its role and its
 * host (adapter_group_place). */
static void print_placement_procs(FILE *out, const struct profile *p, const struct profile_tool *t)
{
    const struct adapter *a = adapter_by_name(t->tool);
    for (size_t k = 0; a && k < adapter_group_size(a, t); k++) {
        unsigned hi;
        const char *role = adapter_group_place(a, t, k, &hi);
        char where[400];
        placement_where(profile_host_by_name(p, t->hosts[hi]), where, sizeof where);
        fprintf(out, "    p%zu %-10s %s\n", k, role, where);
    }
}

/* Where the target and each tool run, for the plan (only with hosts:). */
static void print_placement(FILE *out, const struct profile *p)
{
    if (!p->nhosts)
        return;
    fprintf(out, "# placement\n");
    for (size_t i = 0; i <= p->ntools; i++) {
        const struct profile_tool *t = i ? &p->tools[i - 1] : NULL;
        const struct profile_host *h = profile_host_by_name(p, t ? t->host : p->target_host);
        char where[400];
        placement_where(h, where, sizeof where);
        if (!t)
            fprintf(out, "  %-16s %s%s%s\n", "lb-target", where, h ? ", load sent to " : "",
                    h ? profile_host_load_address(h) : "");
        else if (t->nhosts < 2)
            fprintf(out, "  %-16s %s\n", t->label, where);
        else
            fprintf(out, "  %-16s %u hosts, instances dealt out in turn:\n", t->label, t->nhosts);
        if (t && t->nhosts > 1)
            print_placement_procs(out, p, t);
    }
    fputc('\n', out);
}

/* One process's plan: its argv, environment and (configs set) its
 * configs. */
static void plan_proc(FILE *out, const struct adapter_proc *pr, size_t n, const char *tmpl, int configs)
{
    if (n > 1)
        fprintf(out, "  %s %s:\n", pr->role, pr->dir + strlen(tmpl) + 1);
    fprintf(out, "  argv:");
    for (size_t i = 0; i < pr->plan.argv.n; i++)
        fprintf(out, " %s", pr->plan.argv.v[i]);
    fputc('\n', out);
    for (size_t i = 0; i < pr->plan.env.n; i++)
        fprintf(out, "  env: %s\n", pr->plan.env.v[i]);
    for (size_t i = 0; configs && i < pr->plan.files.n; i++)
        print_config(out, pr->dir, pr->plan.files.v[i]);
}

/* 1 when warning i of process k was given by an earlier one. */
static int said_before(const struct adapter_group *g, size_t k, size_t i)
{
    const char *w = g->procs[k].plan.warnings.v[i];
    for (size_t j = 0; j <= k; j++)
        for (size_t m = 0; m < (j == k ? i : g->procs[j].plan.warnings.n); m++)
            if (!strcmp(g->procs[j].plan.warnings.v[m], w))
                return 1;
    return 0;
}

/* The plan of one tool at one level, every process of it (instances:
 * N). Returns the estimated seconds of one run, or -1 when the tool
 * cannot be prepared (said in out). */
static double plan_level(FILE *out, const struct adapter *a, const struct adapter_ctx *ctx, double level,
                         const char *tmpl)
{
    struct adapter_group g;
    char e[UTIL_ERR_LEN];
    double each = -1;
    if (adapter_group_prepare(a, ctx, &g, e)) {
        fprintf(out, "  cannot prepare: %s\n", e);
    } else {
        if (!isnan(level))
            fprintf(out, "  level %g:\n", level);
        fprintf(out, "  model as run: %s\n", g.procs[0].plan.model);
        if (g.n > 1)
            fprintf(out, "  instances: %u (%zu processes)\n", g.instances, g.n);
        uint64_t longest = 0;
        for (size_t k = 0; k < g.n; k++) {
            const struct adapter_plan *pl = &g.procs[k].plan;
            /* Configs once per role: the copies' differ in their share only. */
            plan_proc(out, &g.procs[k], g.n, tmpl, k == 0 || strcmp(g.procs[k].role, g.procs[k - 1].role));
            if (pl->load_ns + pl->startup_allowance_ns > longest)
                longest = pl->load_ns + pl->startup_allowance_ns;
        }
        /* Each warning once, however many processes give it. */
        for (size_t k = 0; k < g.n; k++)
            for (size_t i = 0; i < g.procs[k].plan.warnings.n; i++)
                if (!said_before(&g, k, i))
                    fprintf(out, "  warning: %s\n", g.procs[k].plan.warnings.v[i]);
        each = (double)longest / 1e9 + 2.0;
    }
    adapter_group_free(&g);
    return each;
}

/* Where plan makes its temporary directory: TMPDIR, else /tmp. */
static const char *plan_tmp_root(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

int run_plan(const struct profile *p, FILE *out, char *err)
{
    if (runcheck_profile(p, NULL, err)) /* what validate and run refuse, plan refuses */
        return -1;
    /* Named by its owner (runlock_tag), so a later doctor removes it
     * once the owner is proven dead; the guardian removes it however plan
     * ends (a signal, SIGKILL included). */
    char tmpl[2048], tag[96];
    runlock_tag(tag, sizeof tag);
    snprintf(tmpl, sizeof tmpl, "%s/" RUN_PLAN_PREFIX "%s-XXXXXX", plan_tmp_root(), tag);
    if (!mkdtemp(tmpl))
        return util_err(err, "cannot create a temporary directory: %s", strerror(errno));
    guard_watch_dir(tmpl);
    json_t *resolved = profile_to_json(p);
    char *s = json_dumps(resolved, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fprintf(out, "# profile as resolved\n%s\n\n", s);
    free(s);
    json_decref(resolved);
    print_placement(out, p);
    const char *addr = profile_host_load_address(profile_host_by_name(p, p->target_host));
    size_t nlevels = sweep_levels(p);
    double total_s = 0;
    int runs = 0;
    for (size_t ti = 0; ti < p->ntools; ti++) {
        const struct profile_tool *t = &p->tools[ti];
        const struct adapter *a = adapter_by_name(t->tool);
        struct profile view; /* the profile as this entry runs it: its own target.tls, request, check */
        profile_entry_view(p, t, &view);
        char url[300];
        snprintf(url, sizeof url, strchr(addr, ':') ? "%s://[%s]:PORT/" : "%s://%s:PORT/",
                 view.target.tls.version ? "https" : "http", addr);
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
        if (t->own) { /* its own target.tls/protocol, request or check: what it runs with */
            json_t *rw = profile_entry_json(p, t);
            char *rs = json_dumps(rw, JSON_COMPACT | JSON_SORT_KEYS);
            fprintf(out, "  runs with: %s\n", rs);
            free(rs);
            json_decref(rw);
        }
        const struct profile_load *base = profile_tool_load(p, t);
        for (size_t li = 0; li < nlevels; li++) {
            double level;
            struct profile_load *at;
            const struct profile_load *load = load_at_step(base, li, &level, &at);
            if (!load)
                break;
            char dir[PATH_MAX];
            snprintf(dir, sizeof dir, "%s/%s@%zu", tmpl, t->label, li);
            fsutil_mkdir_p(dir, NULL);
            /* Port 1 is a placeholder: the real port is known only once
             * the fresh lb-target of each run has started. */
            struct adapter_ctx ctx = {.profile = &view, .tool = t, .load = load, .found = &found, .dir = dir,
                                      .host = addr, .port = 1, .url = url, .tool_cpus = p->tool_cpus,
                                      .instances = 1, .ca_file = view.target.tls.version ? "RUN/target-ca.pem" : NULL};
            double each_s = plan_level(out, a, &ctx, level, tmpl);
            if (each_s >= 0) {
                total_s += each_s * p->repeat;
                runs += (int)p->repeat;
            }
            profile_load_free(at);
        }
        fputc('\n', out);
    }
    if (runs > 1)
        total_s += (double)(runs - 1) * (double)p->cooldown_ns / 1e9;
    fprintf(out, "# %d tool run(s), estimated wall time %.0f s (load + start-up + ~2 s of harness work each, plus cooldowns)\n",
            runs, total_s);
    fsutil_remove_tree(tmpl);
    guard_forget_dir(tmpl);
    return 0;
}

int run_plan_sweep_stale(void)
{
    return runlock_sweep_dirs(plan_tmp_root(), RUN_PLAN_PREFIX, fsutil_remove_tree);
}
