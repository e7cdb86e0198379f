/* exec_local: the executor for this machine. The tree is the tool's
 * process group plus every descendant re-parented to us (a subreaper), in
 * its own cgroup where the machine gives one; its output runs through
 * pipes into bounded files; it is sampled from /proc (and the cgroup's
 * counters). */
#include "engine/exec.h"
#include "engine/runlock.h"
#include "engine/capture.h"
#include "common/cgroup.h"
#include "common/fsutil.h"
#include "engine/proc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct local_tree {
    struct exec_tree t;             /* first: the executor-neutral part */
    struct proc proc;
    struct cgroup cg;
    struct capture out, err;        /* stdout and stderr, bounded */
    char **envp;
    struct sampler_tree *st;
};

static struct local_tree *local(struct exec_tree *t)
{
    return (struct local_tree *)t;
}

/* The tool's own cgroup, named loadbench-<PID.START.PIDNS>-<name>: the
 * owner tag lets cgroup_sweep_stale prove the owner dead (runlock_tag).
 * NAME_MAX (255) holds it whole: a name is at most a 128-byte label with
 * "@level#repeat.pK" (about 30 bytes), so two processes of one run never
 * share a cut name (160 bytes cut a 128-byte label's ".p0" and ".p1"). */
static void local_cgroup(struct local_tree *l, const struct exec_spec *spec)
{
    char name[256], owner[48];
    runlock_tag(owner, sizeof owner);
    snprintf(name, sizeof name, "loadbench-%s-%s", owner, spec->name);
    for (char *c = name; *c; c++)
        if (*c == '/')
            *c = '_';
    if (spec->want_cgroup && cgroup_create(&l->cg, name, spec->memory_limit_bytes, l->t.no_cgroup) == 0)
        l->t.cgroup = 1;
}

static void local_free(struct exec_tree *t);

static int local_spawn(const struct executor *ex, const struct exec_spec *spec, struct exec_tree **out, char *err)
{
    struct local_tree *l = util_xcalloc(1, sizeof *l);
    char home[PATH_MAX + 8], tmp[PATH_MAX + 8], outp[PATH_MAX + 16], errp[PATH_MAX + 16];
    l->t.ex = ex;
    l->proc.pid = -1;
    snprintf(home, sizeof home, "%s/home", spec->dir);
    snprintf(tmp, sizeof tmp, "%s/home/tmp", spec->dir);
    if (fsutil_mkdir_p(tmp, err))
        goto fail;
    l->envp = proc_clean_env(home, tmp, spec->env);
    local_cgroup(l, spec);
    snprintf(outp, sizeof outp, "%s/stdout.txt", spec->dir);
    snprintf(errp, sizeof errp, "%s/stderr.txt", spec->dir);
    if (capture_start(&l->out, outp, CAPTURE_HEAD_BYTES, CAPTURE_TAIL_BYTES, err) ||
        capture_start(&l->err, errp, CAPTURE_HEAD_BYTES, CAPTURE_TAIL_BYTES, err))
        goto fail;
    struct proc_spec ps = {.argv = spec->argv, .envp = (const char *const *)l->envp, .cwd = spec->dir,
                           .stdout_path = outp, .stderr_path = errp, .stdout_fd = l->out.write_fd,
                           .stderr_fd = l->err.write_fd, .cpus_mask = spec->cpus_mask, .oom_score_adj = 1000};
    if (l->t.cgroup)
        for (int i = 0; i < l->cg.nprocs && i < 3; i++)
            ps.cgroup_procs[i] = l->cg.procs[i];
    if (proc_spawn(&l->proc, &ps, err))
        goto fail;
    capture_close_writer(&l->out);
    capture_close_writer(&l->err);
    l->t.started_ns = l->proc.started_ns;
    l->t.pid = l->proc.pid;
    l->st = sampler_tree_new(l->proc.pid, l->t.cgroup ? l->cg.procs[0] : NULL, NULL);
    l->t.samples = l->st;
    *out = &l->t;
    return 0;
fail:
    local_free(&l->t);
    return -1;
}

struct exec_exit exec_exit_of(const struct proc_exit *pe)
{
    const struct rusage *ru = &pe->ru;
    return (struct exec_exit){.exited = pe->exited, .code = pe->code, .signaled = pe->signaled, .sig = pe->sig,
                              .cpu_s = (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) +
                                       (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6,
                              .maxrss_kb = (uint64_t)ru->ru_maxrss, .unknown = pe->unknown};
}

static void local_exit(struct local_tree *l)
{
    if (!l->proc.reaped)
        return;
    l->t.ended = 1;
    l->t.exit = exec_exit_of(&l->proc.exit);
}

static int local_poll(struct exec_tree *t)
{
    struct local_tree *l = local(t);
    if (!proc_poll(&l->proc))
        return 0;
    local_exit(l);
    return 1;
}

static int local_sample(struct exec_tree *t, struct sampler_reading *r, struct sampler_point *point)
{
    struct local_tree *l = local(t);
    return l->st ? sampler_tree_sample(l->st, r, point) : -1;
}

static void local_summary(const struct exec_tree *t, struct sampler_summary *s)
{
    const struct local_tree *l = (const struct local_tree *)t;
    memset(s, 0, sizeof *s);
    if (l->st)
        sampler_tree_summary(l->st, s);
}

static int local_stop(struct exec_tree *t, const pid_t *keep, int nkeep, uint64_t term_grace_ns, char *err)
{
    struct local_tree *l = local(t);
    int killed = proc_stop_tree(&l->proc, keep, nkeep, term_grace_ns, err);
    /* A member that left the process group and our subtree (a double
     * fork into setsid) is still in the cgroup. */
    if (l->t.cgroup) {
        pid_t left[4];
        if (cgroup_pids(&l->cg, left, 4) > 0)
            cgroup_kill_all(&l->cg, NULL);
    }
    local_exit(l);
    return killed;
}

static int local_output(struct exec_tree *t, enum exec_stream s, struct exec_output *o, char *err)
{
    struct capture *c = s == EXEC_STDOUT ? &local(t)->out : &local(t)->err;
    if (!c->started)
        return 1;
    int rc = capture_finish(c, err);
    o->total_bytes = c->total_bytes;
    o->dropped_bytes = capture_dropped(c);
    return rc;
}

static int local_usage(const struct exec_tree *t, struct exec_usage *u, char *err)
{
    const struct local_tree *l = (const struct local_tree *)t;
    struct cgroup_usage cu;
    memset(u, 0, sizeof *u);
    if (!l->t.cgroup)
        return util_err(err, "no cgroup");
    if (cgroup_read(&l->cg, &cu, err))
        return -1;
    *u = (struct exec_usage){.cpu_ns = cu.cpu_ns, .mem_peak_bytes = cu.mem_peak_bytes,
                             .mem_cache_bytes = cu.mem_cache_bytes, .oom_kills = cu.oom_kills};
    return 0;
}

static int local_fetch(struct exec_tree *t, char *err)
{
    (void)t;
    (void)err;
    return 0; /* the files are where the tool wrote them */
}

static void local_free(struct exec_tree *t)
{
    struct local_tree *l = local(t);
    if (!t)
        return;
    if (l->proc.pid > 0 && !l->proc.reaped)
        proc_stop_tree(&l->proc, NULL, 0, 1000000000ull, NULL);
    capture_finish(&l->out, NULL);
    capture_finish(&l->err, NULL);
    if (l->t.cgroup) {
        cgroup_kill_all(&l->cg, NULL);
        cgroup_destroy(&l->cg, NULL);
    }
    sampler_tree_free(l->st);
    proc_env_free(l->envp);
    free(l);
}

const struct executor exec_local = {
    .name = "local",
    .spawn = local_spawn,
    .poll = local_poll,
    .sample = local_sample,
    .summary = local_summary,
    .stop = local_stop,
    .output = local_output,
    .usage = local_usage,
    .fetch = local_fetch,
    .free = local_free,
};
