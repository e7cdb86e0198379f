/* agent: the requests of docs/agent-protocol.md served on this host, each
 * tree through exec_local, its samples streamed. */
#include "agent/agent.h"
#include "agent/rundirs.h"
#include "adapters/adapter.h"
#include "engine/hostread.h"
#include "remote/hostfacts.h"
#include "remote/ssh.h"
#include "remote/agentproto.h"
#include "engine/exec.h"
#include "remote/pathprobe.h"
#include "engine/proc.h"
#include "engine/machine.h"
#include "engine/target.h"
#include "common/base64.h"
#include "common/fsutil.h"
#include "common/net.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define AGENT_HELLO_TIMEOUT_NS 30000000000ull   /* for the controller's hello */
#define AGENT_LOST_GRACE_NS 300000000ull        /* SIGTERM to SIGKILL when the link is lost */

struct agent_tree {
    int id;
    struct exec_tree *t;                        /* a spawned tree, or NULL: */
    struct target *tgt;                         /* lb-target (target_start) */
    struct sampler_tree *st;                    /* lb-target's sampler */
    uint64_t interval_ns, next_ns, last_ns;     /* sampling: deadline, last point's time */
    int ended_sent;                             /* the ended event (or a stop's reply) went out */
};

/* An http request to make at its time ("do this at T"). */
struct agent_timed {
    json_t *req;
    uint64_t at_ns;
};

struct agent {
    const struct agent_opts *o;
    struct agentproto_reader rd;
    struct agentproto_writer wr;
    char sha[65];
    char *peer_bindir, *peer_datadir;           /* the controller's (its hello), for paths of its build */
    int hello_done;
    uint64_t timeout_ns, hb_ns, last_rx_ns;
    struct agent_tree *trees;
    int ntrees, cap, next_id;
    struct agent_timed *timed;
    int ntimed, captimed;
    pthread_t hb;
    int hb_on, hb_stop;                         /* hb_stop: read by the thread (atomics) */
    int done, exit_code;
    char why[UTIL_ERR_LEN];
    struct rundirs dirs;                        /* what this agent made for the run: it removes them */
    struct pathprobe_server *probe;             /* the path probe's server (probe_serve), or NULL */
};

/* ---- the heartbeat thread: only writes ------------------------------------------ */

static void *agent_hb_main(void *arg)
{
    struct agent *a = arg;
    uint64_t next = util_now_ns() + a->hb_ns;
    while (!__atomic_load_n(&a->hb_stop, __ATOMIC_ACQUIRE)) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
        uint64_t now = util_now_ns();
        if (now < next)
            continue;
        json_t *j = json_pack("{s:s, s:I}", "ev", "hb", "now_ns", (json_int_t)now);
        agentproto_send(&a->wr, j);
        json_decref(j);
        next = now + a->hb_ns;
    }
    return NULL;
}

/* ---- trees ---------------------------------------------------------------------- */

static struct agent_tree *agent_tree_find(struct agent *a, const json_t *req, char *err)
{
    int id = (int)json_integer_value(json_object_get(req, "tree"));
    for (int i = 0; i < a->ntrees; i++)
        if (a->trees[i].id == id)
            return &a->trees[i];
    util_err(err, "no tree %d on this agent", id);
    return NULL;
}

/* The record's parts, whichever kind it is. */
static int at_sample(struct agent_tree *at, struct sampler_reading *rd, struct sampler_point *pt)
{
    return at->t ? exec_local.sample(at->t, rd, pt) : at->st ? sampler_tree_sample(at->st, rd, pt) : -1;
}

static void at_summary(const struct agent_tree *at, struct sampler_summary *s)
{
    memset(s, 0, sizeof *s);
    if (at->t)
        exec_local.summary(at->t, s);
    else if (at->st)
        sampler_tree_summary(at->st, s);
}

static int at_ended(struct agent_tree *at)
{
    return at->t ? exec_local.poll(at->t) : !target_alive(at->tgt);
}

static pid_t at_pid(const struct agent_tree *at)
{
    return at->t ? at->t->pid : at->tgt->proc.pid;
}

static json_t *at_exit_json(const struct agent_tree *at)
{
    if (at->t)
        return agentproto_exit_json(&at->t->exit);
    struct exec_exit e = exec_exit_of(&at->tgt->proc.exit);
    return agentproto_exit_json(&e);
}

/* Release a record. lost: the link is gone, every process of ours goes
 * (SIGTERM, SIGKILL AGENT_LOST_GRACE_NS later: a stop with nothing kept
 * sweeps all our descendants); else its processes are gone already. */
static void at_release(struct agent_tree *at, int lost)
{
    if (at->t) {
        if (lost)
            exec_local.stop(at->t, NULL, 0, AGENT_LOST_GRACE_NS, NULL);
        exec_local.free(at->t);
        return;
    }
    if (lost && at->tgt->proc.pid > 0 && !at->tgt->proc.reaped)
        proc_stop_tree(&at->tgt->proc, NULL, 0, AGENT_LOST_GRACE_NS, NULL);
    sampler_tree_free(at->st);
    free(at->tgt);
}

static struct agent_tree *agent_tree_add(struct agent *a)
{
    if (a->ntrees == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 8;
        a->trees = util_xrealloc(a->trees, (size_t)a->cap * sizeof *a->trees);
    }
    struct agent_tree *at = &a->trees[a->ntrees++];
    memset(at, 0, sizeof *at);
    at->id = ++a->next_id;
    return at;
}

static void agent_send_event(struct agent *a, json_t *ev)
{
    if (ev)
        agentproto_send(&a->wr, ev);
    json_decref(ev);
}

/* One reading of tree at; a point is streamed when there is one. */
static void agent_sample(struct agent *a, struct agent_tree *at)
{
    struct sampler_reading rd;
    struct sampler_point pt;
    struct sampler_summary s;
    if (at_sample(at, &rd, &pt) != 1)
        return;
    at_summary(at, &s);
    at->last_ns = rd.t_ns;
    agent_send_event(a, json_pack("{s:s, s:i, s:o, s:o, s:o}", "ev", "sample", "tree", at->id, "reading",
                                  agentproto_reading_json(&rd), "point", agentproto_point_json(&pt), "summary",
                                  agentproto_summary_json(&s)));
}

/* Each live tree: its end (a last point when half an interval has passed
 * since the previous one, as tool_run_stop does, then `ended`), or its
 * sample when due. Returns the next deadline. */
static uint64_t agent_tick(struct agent *a, uint64_t now)
{
    uint64_t wake = now + 20000000ull;
    for (int i = 0; i < a->ntrees; i++) {
        struct agent_tree *at = &a->trees[i];
        if (at->ended_sent)
            continue;
        if (at_ended(at)) {
            if (now - at->last_ns >= at->interval_ns / 2)
                agent_sample(a, at);
            agent_send_event(a, json_pack("{s:s, s:i, s:o}", "ev", "ended", "tree", at->id, "exit", at_exit_json(at)));
            at->ended_sent = 1;
            continue;
        }
        if (now >= at->next_ns) {
            agent_sample(a, at);
            while (at->next_ns <= now)
                at->next_ns += at->interval_ns;
        }
        if (at->next_ns < wake)
            wake = at->next_ns;
    }
    return wake;
}

/* Every tree stopped (SIGTERM, SIGKILL AGENT_LOST_GRACE_NS later, the
 * cgroup killed) and released. */
static void agent_stop_all(struct agent *a)
{
    for (int i = 0; i < a->ntrees; i++)
        at_release(&a->trees[i], 1);
    a->ntrees = 0;
    for (int i = 0; i < a->ntimed; i++)
        json_decref(a->timed[i].req);
    a->ntimed = 0;
}

/* ---- requests ------------------------------------------------------------------- */

static int op_hello(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)rep;
    if (agentproto_check_peer(req, "the controller", a->sha, NULL, err)) {
        a->done = 1;
        a->exit_code = 2;
        snprintf(a->why, sizeof a->why, "%s", err);
        return -1;
    }
    uint64_t t = agentproto_u64(req, "timeout_ns"), hb = agentproto_u64(req, "heartbeat_ns");
    free(a->peer_bindir);
    free(a->peer_datadir);
    const char *bd = json_string_value(json_object_get(req, "bindir"));
    const char *dd = json_string_value(json_object_get(req, "datadir"));
    a->peer_bindir = bd && *bd ? util_xstrdup(bd) : NULL;
    a->peer_datadir = dd && *dd ? util_xstrdup(dd) : NULL;
    a->timeout_ns = t ? t : 5000000000ull;
    a->hb_ns = hb ? hb : a->timeout_ns / 3;
    a->hello_done = 1;
    if (!a->hb_on && pthread_create(&a->hb, NULL, agent_hb_main, a) == 0)
        a->hb_on = 1;
    return 0;
}

static int op_ping(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)a, (void)req, (void)err;
    json_object_set_new(rep, "now_ns", json_integer((json_int_t)util_now_ns()));
    return 0;
}

/* A JSON array of strings as a NULL-terminated vector (borrowed strings). */
static const char **strv(const json_t *arr)
{
    size_t n = json_array_size(arr);
    const char **v = util_xcalloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = json_string_value(json_array_get(arr, i));
    return v;
}

/* arg under the controller's directory peer ("PEER/REST", REST starting
 * with one of subs) as the same file of this agent's build ("MINE/REST"),
 * when the two directories differ and that file exists here: the
 * controller names its lb-gen, or a support file of its data directory,
 * and this host runs the copy beside the agent (the same build: the
 * handshake checked it), e.g. the one `loadbench hosts install` put in
 * the host's cache. Returns a new string, or NULL: keep arg. */
static char *own_copy(const char *arg, const char *peer, const char *mine, const char *const *subs)
{
    size_t n = peer ? strlen(peer) : 0;
    if (!n || strncmp(arg, peer, n) || arg[n] != '/' || !strcmp(peer, mine))
        return NULL;
    while (*subs && strncmp(arg + n, *subs, strlen(*subs)))
        subs++;
    if (!*subs)
        return NULL;
    char *p = util_xasprintf("%s%s", mine, arg + n);
    if (access(p, F_OK) == 0)
        return p;
    free(p);
    return NULL;
}

/* argv with the controller's build paths made this host's (own_copy): a
 * program of its bindir, a file of its data directory's adapters/ or
 * refgen/ (never a run directory that happens to lie below it). The new
 * strings go into keep (freed by the caller). */
static void own_paths(const struct agent *a, const char **argv, struct strvec *keep)
{
    static const char *const any[] = {"/", NULL}, *const data[] = {"/adapters/", "/refgen/", NULL};
    for (size_t i = 0; argv[i]; i++) {
        char *p = own_copy(argv[i], a->peer_bindir, adapter_bindir(), any);
        if (!p)
            p = own_copy(argv[i], a->peer_datadir, adapter_datadir(), data);
        if (p) {
            strvec_push(keep, p);
            argv[i] = keep->v[keep->n - 1];
            free(p);
        }
    }
}

static int op_spawn(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    const char **argv = strv(json_object_get(req, "argv")), **env = strv(json_object_get(req, "env"));
    struct strvec keep = {0};
    own_paths(a, argv, &keep);
    const char *dir = json_string_value(json_object_get(req, "dir"));
    struct exec_spec spec = {.name = json_string_value(json_object_get(req, "name")), .argv = argv, .env = env,
                             .dir = dir, .cpus_mask = agentproto_u64(req, "cpus_mask"),
                             .want_cgroup = (int)json_integer_value(json_object_get(req, "want_cgroup")),
                             .memory_limit_bytes = agentproto_u64(req, "memory_limit_bytes"),
                             .sample_interval_ns = agentproto_u64(req, "sample_interval_ns")};
    struct exec_tree *t = NULL;
    int rc = -1;
    if (!argv[0] || !dir || !spec.name)
        util_err(err, "spawn needs name, argv and dir");
    else if (rundirs_mkdir(&a->dirs, dir, 0, err) == 0 && exec_local.spawn(&exec_local, &spec, &t, err) == 0)
        rc = 0;
    free(argv);
    free(env);
    strvec_free(&keep);
    if (rc)
        return -1;
    struct agent_tree *at = agent_tree_add(a);
    uint64_t iv = spec.sample_interval_ns ? spec.sample_interval_ns : 1000000000ull;
    *at = (struct agent_tree){.id = at->id, .t = t, .interval_ns = iv, .next_ns = t->started_ns + iv,
                              .last_ns = t->started_ns};
    struct sampler_reading rd;
    struct sampler_point pt;
    exec_local.sample(t, &rd, &pt); /* the first reading: points start one interval on */
    json_object_set_new(rep, "tree", json_integer(at->id));
    json_object_set_new(rep, "pid", json_integer(t->pid));
    json_object_set_new(rep, "started_ns", json_integer((json_int_t)t->started_ns));
    json_object_set_new(rep, "cgroup", json_integer(t->cgroup));
    json_object_set_new(rep, "no_cgroup", json_string(t->no_cgroup));
    return 0;
}

/* Stop a spawned tree, sparing every other tree this agent runs (a stop
 * sweeps all our descendants but the kept). Returns as exec_local.stop. */
static int agent_stop_one(struct agent *a, struct agent_tree *at, uint64_t grace_ns, char *err)
{
    pid_t *keep = util_xcalloc((size_t)a->ntrees + 1, sizeof *keep);
    int nkeep = 0;
    for (int i = 0; i < a->ntrees; i++)
        if (&a->trees[i] != at)
            keep[nkeep++] = at_pid(&a->trees[i]);
    int killed = exec_local.stop(at->t, keep, nkeep, grace_ns, err);
    free(keep);
    return killed;
}

static int op_stop(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    struct agent_tree *at = agent_tree_find(a, req, err);
    if (!at || !at->t)
        return at ? util_err(err, "tree %d is lb-target: target_stop stops it", at->id) : -1;
    int killed = agent_stop_one(a, at, agentproto_u64(req, "grace_ns"), err);
    if (killed < 0)
        return -1;
    at->ended_sent = 1;
    json_object_set_new(rep, "killed", json_integer(killed));
    json_object_set_new(rep, "exit", at_exit_json(at));
    return 0;
}

static int op_output(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    struct agent_tree *at = agent_tree_find(a, req, err);
    if (!at || !at->t)
        return at ? util_err(err, "tree %d is lb-target: its output is in its files", at->id) : -1;
    struct exec_output o = {0, 0};
    int s = (int)json_integer_value(json_object_get(req, "stream"));
    int rc = exec_local.output(at->t, s == EXEC_STDERR ? EXEC_STDERR : EXEC_STDOUT, &o, err);
    json_object_set_new(rep, "rc", json_integer(rc));
    json_object_set_new(rep, "total_bytes", json_integer((json_int_t)o.total_bytes));
    json_object_set_new(rep, "dropped_bytes", json_integer((json_int_t)o.dropped_bytes));
    return rc < 0 ? -1 : 0;
}

static int op_usage(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    struct agent_tree *at = agent_tree_find(a, req, err);
    struct exec_usage u;
    if (at && !at->t)
        return util_err(err, "tree %d is lb-target: no cgroup", at->id);
    if (!at || exec_local.usage(at->t, &u, err))
        return -1;
    json_object_set_new(rep, "cpu_ns", json_integer((json_int_t)u.cpu_ns));
    json_object_set_new(rep, "mem_peak_bytes", json_integer((json_int_t)u.mem_peak_bytes));
    json_object_set_new(rep, "mem_cache_bytes", json_integer((json_int_t)u.mem_cache_bytes));
    json_object_set_new(rep, "oom_kills", json_integer((json_int_t)u.oom_kills));
    return 0;
}

static int op_free(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)rep;
    struct agent_tree *at = agent_tree_find(a, req, err);
    if (!at)
        return -1;
    if (at->t)
        agent_stop_one(a, at, 1000000000ull, NULL);
    else
        target_stop(at->tgt, NULL);
    at_release(at, 0);
    *at = a->trees[--a->ntrees];
    return 0;
}

static int op_list(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    const char *dir = json_string_value(json_object_get(req, "dir"));
    if (!dir)
        return util_err(err, "list needs dir");
    if (rundirs_check_dir(&a->dirs, dir, err))
        return -1;
    json_t *files = agentproto_list(dir, err);
    if (!files)
        return -1;
    json_object_set_new(rep, "files", files);
    return 0;
}

static int op_get(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    const char *path = json_string_value(json_object_get(req, "path"));
    uint64_t off = agentproto_u64(req, "offset"), max = agentproto_u64(req, "max");
    /* A tool's output on this host, below the run directory: checked as
     * every input (a FIFO there must not hang the agent, a link anywhere
     * below the run directory is not followed). */
    int fd = path ? rundirs_open_read(&a->dirs, path, err) : -1;
    struct stat st;
    if (!path)
        return util_err(err, "cannot read (no path)");
    if (fd < 0)
        return -1;
    if (fstat(fd, &st)) {
        close(fd);
        return util_err(err, "cannot read %s: %s", path, strerror(errno));
    }
    if (!max || max > AGENTPROTO_CHUNK_BYTES)
        max = AGENTPROTO_CHUNK_BYTES;
    char *buf = util_xmalloc(max);
    ssize_t n = pread(fd, buf, max, (off_t)off);
    close(fd);
    if (n < 0) {
        free(buf);
        return util_err(err, "cannot read %s: %s", path, strerror(errno));
    }
    char *b = base64_encode(buf, (size_t)n);
    json_object_set_new(rep, "data", json_string(b));
    json_object_set_new(rep, "size", json_integer((json_int_t)st.st_size));
    json_object_set_new(rep, "eof", json_boolean(n == 0 || off + (uint64_t)n >= (uint64_t)st.st_size));
    free(b);
    free(buf);
    return 0;
}

/* put: chunks into path.lb-part below the run directory, renamed to path
 * on the last one. */
static int op_put(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)rep;
    const char *path = json_string_value(json_object_get(req, "path"));
    const char *data = json_string_value(json_object_get(req, "data"));
    if (!path || !data)
        return util_err(err, "put needs path and data");
    char *buf = util_xmalloc(AGENTPROTO_CHUNK_BYTES);
    long n = base64_decode(data, buf, AGENTPROTO_CHUNK_BYTES);
    int rc = n < 0 ? util_err(err, "cannot write %.200s: bad base64", path)
                   : rundirs_put(&a->dirs, path, agentproto_u64(req, "offset"), buf, (size_t)n,
                                 json_is_true(json_object_get(req, "last")),
                                 (mode_t)json_integer_value(json_object_get(req, "mode")), err);
    free(buf);
    return rc;
}

/* The request's "shape" (a drawn delay, stalls) into sh; NULL when none.
 * dist must be one of lb-target's names: the string is not kept. */
static const struct profile_shape *req_shape(const json_t *req, struct profile_shape *sh, char *err)
{
    const json_t *j = json_object_get(req, "shape");
    if (!json_is_object(j))
        return NULL;
    static const char *const dists[] = {"lognormal", "exponential", "uniform"};
    const char *d = json_string_value(json_object_get(j, "dist"));
    *sh = (struct profile_shape){.p50_ns = agentproto_u64(j, "p50_ns"), .p99_ns = agentproto_u64(j, "p99_ns"),
                                 .mean_ns = agentproto_u64(j, "mean_ns"), .min_ns = agentproto_u64(j, "min_ns"),
                                 .max_ns = agentproto_u64(j, "max_ns"), .seed = agentproto_u64(j, "seed"),
                                 .stall_every_ns = agentproto_u64(j, "stall_every_ns"),
                                 .stall_for_ns = agentproto_u64(j, "stall_for_ns")};
    for (size_t i = 0; d && i < sizeof dists / sizeof *dists; i++)
        if (!strcmp(d, dists[i]))
            sh->dist = dists[i];
    if (d && !sh->dist)
        util_err(err, "target_start: unknown delay distribution \"%.40s\"", d);
    return sh;
}

/* lb-target beside this agent's binary, started by target.c's own
 * target_start, sampled and streamed like a spawned tree. */
static int op_target_start(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    struct profile_shape shape;
    err[0] = 0;
    const struct profile_shape *sh = req_shape(req, &shape, err);
    if (err[0])
        return -1;
    char bin[PATH_MAX + 16];
    snprintf(bin, sizeof bin, "%s/lb-target", adapter_bindir());
    const char *dir = json_string_value(json_object_get(req, "dir"));
    struct target_opts o = {.bin = bin, .dir = dir, .name = json_string_value(json_object_get(req, "name")),
                            .delay_ns = agentproto_u64(req, "delay_ns"), .work_ns = agentproto_u64(req, "work_ns"),
                            .body_bytes = agentproto_u64(req, "body_bytes"),
                            .expect_body = agentproto_u64(req, "expect_body"),
                            .threads = (unsigned)json_integer_value(json_object_get(req, "threads")),
                            .cpus_mask = agentproto_u64(req, "cpus_mask"),
                            .listen_addr = json_string_value(json_object_get(req, "listen")),
                            .shape = sh};
    if (!o.dir || !o.name)
        return util_err(err, "target_start needs dir and name");
    struct target *tgt = util_xcalloc(1, sizeof *tgt);
    if (rundirs_mkdir(&a->dirs, dir, 0, err) || target_start(tgt, &o, err)) {
        free(tgt);
        return -1;
    }
    uint64_t iv = agentproto_u64(req, "sample_interval_ns");
    struct agent_tree *at = agent_tree_add(a);
    at->tgt = tgt;
    at->st = sampler_tree_new(tgt->proc.pid, NULL, NULL);
    at->interval_ns = iv ? iv : 1000000000ull;
    at->last_ns = tgt->proc.started_ns;
    at->next_ns = tgt->proc.started_ns + at->interval_ns;
    struct sampler_reading rd;
    struct sampler_point pt;
    at_sample(at, &rd, &pt);
    json_object_set_new(rep, "tree", json_integer(at->id));
    json_object_set_new(rep, "pid", json_integer(tgt->proc.pid));
    json_object_set_new(rep, "started_ns", json_integer((json_int_t)tgt->proc.started_ns));
    json_object_set_new(rep, "port", json_integer(tgt->port));
    json_object_set_new(rep, "control_port", json_integer(tgt->control_port));
    return 0;
}

/* target_stop there; what it said (killed, died) is "stop_error", not a
 * failed request: it is stopped either way. */
static int op_target_stop(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    struct agent_tree *at = agent_tree_find(a, req, err);
    if (!at || !at->tgt)
        return at ? util_err(err, "tree %d is not lb-target", at->id) : -1;
    char serr[UTIL_ERR_LEN];
    if (target_stop(at->tgt, serr))
        json_object_set_new(rep, "stop_error", json_string(serr));
    json_object_set_new(rep, "exit", at_exit_json(at));
    at_release(at, 0);
    *at = a->trees[--a->ntrees];
    return 0;
}

/* target_rebase: lb-target's sampling starts again now, as a tool run's
 * sampling starts (its points and aggregates so far are dropped: they
 * precede the tool). The reply carries the first reading; points stream
 * one interval on. */
static int op_target_rebase(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    struct agent_tree *at = agent_tree_find(a, req, err);
    if (!at || !at->tgt)
        return at ? util_err(err, "tree %d is not lb-target", at->id) : -1;
    sampler_tree_free(at->st);
    at->st = sampler_tree_new(at->tgt->proc.pid, NULL, NULL);
    struct sampler_reading rd;
    struct sampler_point pt;
    at_sample(at, &rd, &pt);
    at->last_ns = rd.t_ns;
    at->next_ns = rd.t_ns + at->interval_ns;
    json_object_set_new(rep, "reading", agentproto_reading_json(&rd));
    return 0;
}

/* target_sample: one reading of lb-target now, streamed as a sample event
 * before this reply (the last reading of a tool run). */
static int op_target_sample(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)rep;
    struct agent_tree *at = agent_tree_find(a, req, err);
    if (!at || !at->tgt)
        return at ? util_err(err, "tree %d is not lb-target", at->id) : -1;
    agent_sample(a, at);
    return 0;
}

static int op_http(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    uint64_t at_ns = agentproto_u64(req, "at_ns");
    if (at_ns > util_now_ns()) {
        /* "Do this at T": answered when done (agent_timed_run). */
        if (a->ntimed == a->captimed) {
            a->captimed = a->captimed ? a->captimed * 2 : 4;
            a->timed = util_xrealloc(a->timed, (size_t)a->captimed * sizeof *a->timed);
        }
        a->timed[a->ntimed++] = (struct agent_timed){json_incref((json_t *)req), at_ns};
        return 1;
    }
    const char *method = json_string_value(json_object_get(req, "method"));
    const char *path = json_string_value(json_object_get(req, "path"));
    int port = (int)json_integer_value(json_object_get(req, "port"));
    if (!method || !path || port <= 0 || port > 65535)
        return util_err(err, "http needs port, method and path");
    json_object_set_new(rep, "done_ns", json_integer((json_int_t)util_now_ns())); /* when it was started */
    json_t *body = target_control(port, method, path, err);
    if (!body)
        return -1;
    json_object_set_new(rep, "body", body);
    return 0;
}

static int op_machine(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)a, (void)req, (void)err;
    json_object_set_new(rep, "machine", machine_info());
    return 0;
}

/* Every network interface's counters (remote/ssh.h): one request
 * instead of an ssh session per host and per row. */
static int op_nic(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)a, (void)req, (void)err;
    json_object_set_new(rep, "nic", hosts_nic_local());
    return 0;
}

/* This host's machine and network readings now, TCP counters from the
 * namespace of process pid (0: the agent's, which its trees share). */
static int op_reading(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)a;
    struct hostread r;
    if (hostread_local((pid_t)json_integer_value(json_object_get(req, "pid")), &r))
        return util_err(err, "%s", r.err);
    json_object_set_new(rep, "reading", hostfacts_json(&r));
    return 0;
}

static int op_tools(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)a, (void)req, (void)err;
    json_object_set_new(rep, "tools", adapter_detect_all());
    return 0;
}

/* The run directory, made (and proven writable) before any load: every
 * get, put, list and remove must lie below one. */
static int op_mkdir(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)rep;
    const char *dir = json_string_value(json_object_get(req, "dir"));
    return dir ? rundirs_root(&a->dirs, dir, err) : util_err(err, "mkdir needs dir");
}

/* A file or directory fetched back: gone from here, when this agent made it. */
static int op_remove(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    int rc = rundirs_remove(&a->dirs, json_string_value(json_object_get(req, "path")), err);
    json_object_set_new(rep, "removed", json_boolean(rc == 1));
    return rc < 0 ? -1 : 0;
}

/* Whether ADDR:PORT accepts a connection from this host (a master's
 * readiness, checked where it runs: the controller may have no route),
 * with "pgid", by a listener of that process group. */
static int op_listening(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)a;
    char addr[96];
    struct sockaddr_in sa;
    const char *host = json_string_value(json_object_get(req, "addr"));
    int port = (int)json_integer_value(json_object_get(req, "port"));
    snprintf(addr, sizeof addr, "%s:%d", host ? host : "127.0.0.1", port);
    if (port <= 0 || port > 65535 || net_parse_addr(addr, &sa, err))
        return util_err(err, "listening needs addr and port (got %s)", addr);
    int fd = net_connect_blocking(&sa, NULL);
    /* pgid: it counts only when the listener is that tree's own (a
     * stranger on a master's port is no master). */
    json_int_t pgid = json_integer_value(json_object_get(req, "pgid"));
    int up = fd >= 0 && (pgid <= 0 || hostread_listener_in_group(port, (pid_t)pgid));
    json_object_set_new(rep, "listening", json_boolean(up));
    if (fd >= 0)
        close(fd);
    return 0;
}

/* The data path (remote/pathprobe.h): serve probes on this host's load
 * address, stop serving, or measure the path to another host's. */
static int op_probe_serve(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    const char *addr = json_string_value(json_object_get(req, "addr"));
    int port = 0;
    if (!addr)
        return util_err(err, "probe_serve needs addr");
    pathprobe_stop(a->probe);
    if (!(a->probe = pathprobe_serve(addr, &port, err)))
        return -1;
    json_object_set_new(rep, "port", json_integer(port));
    return 0;
}

static int op_probe_stop(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)req, (void)rep, (void)err;
    pathprobe_stop(a->probe);
    a->probe = NULL;
    return 0;
}

static int op_probe(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)a;
    struct pathprobe_result r;
    const char *addr = json_string_value(json_object_get(req, "addr"));
    if (!addr || pathprobe_measure(addr, (int)json_integer_value(json_object_get(req, "port")),
                                   (unsigned)json_integer_value(json_object_get(req, "rtts")),
                                   (unsigned)json_integer_value(json_object_get(req, "flows")),
                                   agentproto_u64(req, "bulk_ns"), &r, err))
        return addr ? -1 : util_err(err, "probe needs addr");
    json_object_set_new(rep, "path", pathprobe_json(&r));
    return 0;
}

static int op_bye(struct agent *a, const json_t *req, json_t *rep, char *err)
{
    (void)req, (void)rep, (void)err;
    a->done = 1;
    a->exit_code = 0;
    return 0;
}

static const struct agent_op {
    const char *name;
    int (*fn)(struct agent *a, const json_t *req, json_t *rep, char *err);
} agent_ops[] = {
    {"hello", op_hello}, {"ping", op_ping},   {"spawn", op_spawn}, {"stop", op_stop}, {"output", op_output},
    {"usage", op_usage}, {"free", op_free},   {"list", op_list},   {"get", op_get},   {"put", op_put},
    {"http", op_http},   {"machine", op_machine}, {"bye", op_bye},     {"target_start", op_target_start},
    {"target_stop", op_target_stop}, {"tools", op_tools}, {"target_rebase", op_target_rebase},
    {"target_sample", op_target_sample}, {"reading", op_reading}, {"mkdir", op_mkdir}, {"remove", op_remove},
    {"listening", op_listening}, {"probe_serve", op_probe_serve}, {"probe_stop", op_probe_stop}, {"probe", op_probe},
    {"nic", op_nic},
};

static void agent_reply(struct agent *a, json_t *rep, int rc, const char *err)
{
    json_object_set_new(rep, "ok", json_boolean(rc == 0));
    /* Always a string: the bytes of a request that is not UTF-8, quoted
     * in err, are escaped (json_string would give NULL: no field). */
    if (rc)
        json_object_set_new(rep, "error", adapter_json_text(*err ? err : "the request failed (no reason given)"));
    agentproto_send(&a->wr, rep);
}

/* One line from the controller: a heartbeat, or a request answered. */
static void agent_request(struct agent *a, const char *line)
{
    char err[UTIL_ERR_LEN] = "";
    json_error_t je;
    json_t *req = json_loads(line, 0, &je);
    const char *op = json_string_value(json_object_get(req, "op"));
    json_int_t id = json_integer_value(json_object_get(req, "id"));
    if (op && !strcmp(op, "hb")) {
        json_decref(req);
        return;
    }
    json_t *rep = json_pack("{s:I}", "re", id);
    int rc = util_err(err, "unknown request: %.80s", op ? op : line);
    if (!req)
        util_err(err, "not JSON (%s): %.80s", je.text, line);
    else if (op && !a->hello_done && strcmp(op, "hello"))
        util_err(err, "\"%s\" before hello", op);
    else
        for (size_t i = 0; op && i < sizeof agent_ops / sizeof agent_ops[0]; i++)
            if (!strcmp(op, agent_ops[i].name)) {
                rc = agent_ops[i].fn(a, req, rep, err);
                break;
            }
    if (rc != 1) /* 1: deferred, answered later */
        agent_reply(a, rep, rc, err);
    json_decref(rep);
    json_decref(req);
}

/* Timed requests whose time has come, made and answered. Returns the
 * next one's time, or wake. */
static uint64_t agent_timed_run(struct agent *a, uint64_t wake)
{
    for (int i = 0; i < a->ntimed;) {
        struct agent_timed *tr = &a->timed[i];
        if (tr->at_ns > util_now_ns()) {
            wake = tr->at_ns < wake ? tr->at_ns : wake;
            i++;
            continue;
        }
        char err[UTIL_ERR_LEN] = "";
        json_t *req = tr->req, *rep = json_pack("{s:I}", "re", json_integer_value(json_object_get(req, "id")));
        json_object_del(req, "at_ns");
        int rc = op_http(a, req, rep, err);
        agent_reply(a, rep, rc, err);
        json_decref(rep);
        json_decref(req);
        *tr = a->timed[--a->ntimed];
    }
    return wake;
}

/* ---- the loop ------------------------------------------------------------------- */

/* Read what came; returns 0, or -1 when the link is gone (a->why). */
static int agent_read(struct agent *a)
{
    int n = agentproto_fill(&a->rd), too_long;
    if (n < 0 || a->rd.eof)
        return util_err(a->why, "the controller's link closed (%s)", n < 0 ? strerror(errno) : "end of input");
    char *line;
    while (!a->done && (line = agentproto_line(&a->rd, &too_long))) {
        if (*line)
            agent_request(a, line);
        /* A line is a sign of life, and the time spent serving it (a
         * `tools` probing every tool) is not the controller's silence:
         * its heartbeats are waiting unread. */
        a->last_rx_ns = util_now_ns();
    }
    if (too_long)
        return util_err(a->why, "a request longer than %u bytes: not the protocol", AGENTPROTO_LINE_MAX_BYTES);
    return 0;
}

static void agent_hello(struct agent *a)
{
    char host[128] = "";
    gethostname(host, sizeof host - 1);
    static const char magic[] = AGENTPROTO_MAGIC "\n";
    if (write(a->o->out_fd, magic, sizeof magic - 1) < 0)
        return;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    /* files: the sha256 of every program and support file this host would
     * run from beside the agent, for the controller to check (a stale
     * lb-gen in a cache of the same name is refused, never run). */
    json_t *h = json_pack("{s:s, s:i, s:s, s:s, s:s, s:i, s:I, s:s, s:o}", "agent", "loadbench", "proto",
                          AGENTPROTO_VERSION, "version", LB_VERSION, "sha256", a->sha, "hostname", host, "pid",
                          (int)getpid(), "now_ns", (json_int_t)util_now_ns(), "path", exe, "files",
                          agentproto_build_files(adapter_bindir(), adapter_datadir()));
    agentproto_send(&a->wr, h);
    json_decref(h);
}

static void agent_loop(struct agent *a)
{
    uint64_t wake = util_now_ns();
    while (!a->done) {
        uint64_t now = util_now_ns(), wait_ns = wake > now ? wake - now : 0;
        struct timespec ts = {(time_t)(wait_ns / 1000000000ull), (long)(wait_ns % 1000000000ull)};
        struct pollfd pfd = {.fd = a->o->in_fd, .events = POLLIN};
        int pr = ppoll(&pfd, 1, &ts, NULL);
        if (*a->o->stop) {
            util_err(a->why, "stopped by a signal");
            break;
        }
        if (pr > 0 && agent_read(a))
            break;
        now = util_now_ns();
        uint64_t limit = a->hello_done ? a->timeout_ns : AGENT_HELLO_TIMEOUT_NS;
        if (now - a->last_rx_ns > limit) {
            util_err(a->why, "no heartbeat from the controller for %.1f s", (double)(now - a->last_rx_ns) / 1e9);
            break;
        }
        wake = agent_timed_run(a, agent_tick(a, now));
    }
}

int agent_serve(const struct agent_opts *o, char *err)
{
    struct agent a = {.o = o, .rd = {.fd = o->in_fd}, .exit_code = 3};
    agentproto_writer_init(&a.wr, o->out_fd);
    if (agentproto_identity(NULL, a.sha, err)) {
        agentproto_writer_destroy(&a.wr);
        return 2;
    }
    a.last_rx_ns = util_now_ns();
    /* Its tools table only looks: nothing is built by a look-up
     * (adapters/gofasthttp.c; `loadbench hosts install` builds). */
    setenv("LOADBENCH_LOOKUP_ONLY", "1", 1);
    agent_hello(&a);
    agent_loop(&a);
    agent_stop_all(&a);
    rundirs_tidy(&a.dirs);
    pathprobe_stop(a.probe);
    if (a.hb_on) {
        __atomic_store_n(&a.hb_stop, 1, __ATOMIC_RELEASE);
        pthread_join(a.hb, NULL);
    }
    free(a.trees);
    free(a.timed);
    free(a.peer_bindir);
    free(a.peer_datadir);
    agentproto_reader_free(&a.rd);
    agentproto_writer_destroy(&a.wr);
    snprintf(err, UTIL_ERR_LEN, "%s", a.why);
    return a.exit_code;
}
