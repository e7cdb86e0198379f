/* exec_remote: trees on another host, through a `loadbench agent` at the
 * far end of a transport (docs/agent-protocol.md). Requests from the
 * caller's thread: one awaited at a time, and stops, spawns and the
 * goodbye sent ahead (their replies kept for whoever takes them, so that
 * many hosts are stopped, started and closed together); events (samples,
 * ends, heartbeats) are read whenever the caller waits or polls; a thread
 * of our own sends the heartbeats, so the agent hears from us between
 * tool runs too. */
#include "remote/exec.h"
#include "adapters/adapter.h"
#include "remote/agentproto.h"
#include "remote/hostfacts.h"
#include "engine/target.h"
#include "engine/proc.h"
#include "common/base64.h"
#include "common/fsutil.h"
#include "common/guard.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REMOTE_PINGS 8
#define REMOTE_CONNECT_TIMEOUT_NS 30000000000ull
#define REMOTE_SKIP_MAX_BYTES 65536             /* what a remote shell may print before the magic */

struct remote_point {
    struct sampler_reading r;
    struct sampler_point p;
};

struct remote_tree {
    struct exec_tree t;                         /* first: the executor-neutral part */
    struct exec_host *h;
    int id;                                     /* the agent's */
    char *dir;
    struct remote_point *q;                     /* streamed points not yet taken */
    size_t qhead, qn, qcap;
    struct sampler_summary sum;                 /* the agent's aggregates at the last point */
    int primed;                                 /* the first `sample` call (a first reading) is done */
    int fetched;                                /* its files are back here */
    json_int_t stop_id;                         /* a stop sent by remote_stop_begin, awaited */
    json_t *stop_reply;                         /* its reply, once it came */
    struct remote_tree *next;
};

/* A spawn on its way: prepared (its files there), begun (its request
 * sent, id set), answered (reply; tree made as the reply is read, so that
 * the tree's first events, read with it, find it), until remote_spawn
 * takes it. */
struct remote_pending {
    char *name, *dir;
    int pushed;
    json_int_t id;
    json_t *reply;
    struct remote_tree *tree;
    struct remote_pending *next;
};

struct exec_host {
    struct executor ex;                         /* first: spawn gets the host back from it */
    char name[64];
    pid_t pid;                                  /* the transport, leader of its process group */
    int fd;                                     /* our end of its stdin/stdout */
    int errfd;                                  /* its stderr (a memfd) */
    int reaped, status;
    struct agentproto_reader rd;
    struct agentproto_writer wr;
    uint64_t timeout_ns, hb_ns, last_rx_ns;
    json_int_t next_id, want_id;
    json_t *reply;                              /* the awaited reply, once it came */
    char sha[65];
    char lost[UTIL_ERR_LEN];                    /* "host lost: ..." once lost */
    struct exec_remote_clock clock;
    struct exec_remote_ident ident;
    struct remote_tree *trees;
    struct remote_pending *pending;             /* spawns prepared or begun */
    pthread_t hb;
    int hb_on, hb_stop;
    int bye_sent;                               /* exec_remote_close_begin's goodbye is out */
};

static struct remote_tree *rtree(struct exec_tree *t)
{
    return (struct remote_tree *)t;
}

/* ---- the transport -------------------------------------------------------------- */

/* The last non-empty line the transport wrote to its stderr, or "". */
static void transport_stderr(struct exec_host *h, char *out, size_t len)
{
    char buf[1024];
    out[0] = 0;
    off_t size = lseek(h->errfd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
    ssize_t n = size > 0 ? pread(h->errfd, buf, sizeof buf - 1, from) : 0;
    if (n <= 0)
        return;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    buf[n] = 0;
    char *last = strrchr(buf, '\n');
    snprintf(out, len, "%.200s", last ? last + 1 : buf);
}

/* Reap the transport if it has exited, waiting up to wait_ns. Returns 1
 * when it has. */
static int transport_reap(struct exec_host *h, uint64_t wait_ns)
{
    uint64_t deadline = util_now_ns() + wait_ns;
    while (!h->reaped && h->pid > 0) {
        pid_t r = waitpid(h->pid, &h->status, WNOHANG);
        if (r == h->pid || (r < 0 && errno == ECHILD))
            h->reaped = 1;
        else if (util_now_ns() >= deadline)
            break;
        else
            util_sleep_until_ns(util_now_ns() + 5000000ull);
    }
    return h->reaped;
}

/* How the transport ended, for a message: "exited with code 255: ..." */
static void transport_why(struct exec_host *h, char *out, size_t len)
{
    char tail[300];
    transport_stderr(h, tail, sizeof tail);
    if (!transport_reap(h, 300000000ull))
        snprintf(out, len, "%s%s", tail[0] ? ": " : "", tail);
    else if (WIFSIGNALED(h->status))
        snprintf(out, len, " (the transport was killed by signal %d)%s%s", WTERMSIG(h->status), tail[0] ? ": " : "",
                 tail);
    else
        snprintf(out, len, " (the transport exited with code %d)%s%s", WEXITSTATUS(h->status), tail[0] ? ": " : "",
                 tail);
}

/* The child: its own process group (a ^C at the terminal is loadbench's
 * to handle), the guard's parent-death signal, the socket as stdin and
 * stdout, the memfd as stderr. */
static void transport_child(int sock, int errfd, char *const *argv, pid_t parent)
{
    setpgid(0, 0);
    guard_child(parent);
    dup2(sock, 0);
    dup2(sock, 1);
    dup2(errfd, 2);
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    execvp(argv[0], argv);
    dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

static int transport_start(struct exec_host *h, const struct exec_remote_opts *o, char *err)
{
    char self[PATH_MAX];
    const char *agent = o->agent_bin;
    if (!agent) {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        self[n > 0 ? n : 0] = 0;
        agent = self;
    }
    size_t nt = 0;
    while (o->transport && o->transport[nt])
        nt++;
    char **argv = util_xcalloc(nt + 3, sizeof *argv);
    for (size_t i = 0; i < nt; i++)
        argv[i] = (char *)o->transport[i];
    argv[nt] = (char *)agent;
    argv[nt + 1] = "agent";
    int sv[2];
    h->errfd = memfd_create("loadbench-transport-stderr", MFD_CLOEXEC);
    if (h->errfd < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        free(argv);
        return util_err(err, "host %s: cannot make the transport's pipes: %s", h->name, strerror(errno));
    }
    pid_t parent = guard_parent();
    h->pid = fork();
    if (h->pid == 0)
        transport_child(sv[1], h->errfd, argv, parent);
    close(sv[1]);
    free(argv);
    if (h->pid < 0) {
        close(sv[0]);
        return util_err(err, "host %s: fork: %s", h->name, strerror(errno));
    }
    proc_spare(h->pid, 1);
    h->fd = sv[0];
    h->rd.fd = sv[0];
    agentproto_writer_init(&h->wr, sv[0]);
    return 0;
}

/* ---- loss, events, replies ------------------------------------------------------ */

static void host_lose(struct exec_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static struct remote_tree *host_add_tree(struct exec_host *h, const json_t *rep, const char *dir);
static void host_lose(struct exec_host *h, const char *fmt, ...)
{
    if (h->lost[0])
        return;
    char why[UTIL_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(h->lost, sizeof h->lost, "host lost: %.40s: %.190s", h->name, why);
    for (struct remote_tree *r = h->trees; r; r = r->next)
        if (!r->t.ended) {
            r->t.ended = 1;
            snprintf(r->t.lost, sizeof r->t.lost, "%s", h->lost);
        }
    /* The agent sees its input end and stops its trees; the transport is
     * killed at close if it does not go by itself. */
    shutdown(h->fd, SHUT_RDWR);
}

static struct remote_tree *host_tree(struct exec_host *h, const json_t *j)
{
    int id = (int)json_integer_value(json_object_get(j, "tree"));
    for (struct remote_tree *r = h->trees; r; r = r->next)
        if (r->id == id)
            return r;
    return NULL;
}

static void tree_push(struct remote_tree *r, const json_t *ev)
{
    if (r->qhead == r->qn)
        r->qhead = r->qn = 0;
    if (r->qn == r->qcap) {
        r->qcap = r->qcap ? r->qcap * 2 : 16;
        r->q = util_xrealloc(r->q, r->qcap * sizeof *r->q);
    }
    struct remote_point *p = &r->q[r->qn++];
    agentproto_reading_from(json_object_get(ev, "reading"), &p->r);
    agentproto_point_from(json_object_get(ev, "point"), &p->p);
    p->r.t_ns = exec_remote_to_local_ns(r->h, p->r.t_ns);
    agentproto_summary_from(json_object_get(ev, "summary"), &r->sum);
}

static void host_event(struct exec_host *h, const json_t *j, const char *ev)
{
    struct remote_tree *r = host_tree(h, j);
    if (!r)
        return; /* "hb", or a tree already freed */
    if (!strcmp(ev, "sample")) {
        tree_push(r, j);
    } else if (!strcmp(ev, "ended") && !r->t.ended) {
        agentproto_exit_from(json_object_get(j, "exit"), &r->t.exit);
        r->t.ended = 1;
    }
}

static void host_line(struct exec_host *h, const char *line)
{
    json_error_t je;
    json_t *j = json_loads(line, 0, &je);
    const char *ev = json_string_value(json_object_get(j, "ev"));
    if (!json_is_object(j)) {
        host_lose(h, "the agent wrote something that is not the protocol: %.80s", line);
    } else if (ev) {
        host_event(h, j, ev);
    } else if (h->want_id && json_integer_value(json_object_get(j, "re")) == h->want_id) {
        h->reply = json_incref(j);
    } else {
        /* The reply to a stop or spawn sent ahead (remote_stop_begin,
         * remote_spawn_begin): kept for its tree or spawn, whatever call
         * is awaited meanwhile. */
        json_int_t re = json_integer_value(json_object_get(j, "re"));
        for (struct remote_tree *r = h->trees; re && r; r = r->next)
            if (r->stop_id == re && !r->stop_reply)
                r->stop_reply = json_incref(j);
        for (struct remote_pending *q = h->pending; re && q; q = q->next)
            if (q->id == re && !q->reply) {
                q->reply = json_incref(j);
                if (json_is_true(json_object_get(j, "ok")))
                    q->tree = host_add_tree(h, j, q->dir);
            }
    }
    json_decref(j);
}

/* Read what has come (waiting up to wait_ms for it), handle each line,
 * and judge the heartbeat. Returns 0, or -1 once the host is lost. */
static int host_pump(struct exec_host *h, int wait_ms)
{
    if (h->lost[0])
        return -1;
    struct pollfd pfd = {.fd = h->fd, .events = POLLIN};
    int too_long = 0;
    if (poll(&pfd, 1, wait_ms) > 0) {
        int n = agentproto_fill(&h->rd);
        char *line;
        while (!h->lost[0] && (line = agentproto_line(&h->rd, &too_long))) {
            h->last_rx_ns = util_now_ns();
            host_line(h, line);
        }
        if (too_long)
            host_lose(h, "a line longer than %u bytes: not the protocol", AGENTPROTO_LINE_MAX_BYTES);
        if (n <= 0) {
            char why[400];
            transport_why(h, why, sizeof why);
            host_lose(h, "the link closed%s", why);
        }
    }
    uint64_t now = util_now_ns();
    if (!h->lost[0] && now - h->last_rx_ns > h->timeout_ns)
        host_lose(h, "nothing from the agent for %.1f s (heartbeat timeout)", (double)(now - h->last_rx_ns) / 1e9);
    return h->lost[0] ? -1 : 0;
}

/* Send req (stolen) as the call whose reply is awaited next. */
static void host_send_call(struct exec_host *h, json_t *req)
{
    h->want_id = ++h->next_id;
    json_object_set_new(req, "id", json_integer(h->want_id));
    if (agentproto_send(&h->wr, req))
        host_lose(h, "cannot write to the agent: %s", strerror(errno));
    json_decref(req);
}

/* The reply to the call host_send_call sent (new reference), ok or not,
 * or NULL with err once the host is lost. */
static json_t *host_wait_reply(struct exec_host *h, char *err)
{
    while (!h->reply && host_pump(h, 100) == 0)
        ;
    json_t *rep = h->reply;
    h->reply = NULL;
    h->want_id = 0;
    if (!rep)
        util_err(err, "%s", h->lost);
    return rep;
}

/* Send req (stolen) and wait for its reply, ok or not. Returns the reply
 * (new reference), or NULL with err once the host is lost. */
static json_t *host_call_any(struct exec_host *h, json_t *req, char *err)
{
    if (h->lost[0]) {
        json_decref(req);
        util_err(err, "%s", h->lost);
        return NULL;
    }
    host_send_call(h, req);
    return host_wait_reply(h, err);
}

/* rep (stolen) when it says ok; else NULL, with err the agent's error
 * (rep NULL: err is already filled). */
static json_t *reply_ok(struct exec_host *h, json_t *rep, char *err)
{
    if (rep && !json_is_true(json_object_get(rep, "ok"))) {
        util_err(err, "host %s: %s", h->name, json_string_value(json_object_get(rep, "error")));
        json_decref(rep);
        return NULL;
    }
    return rep;
}

/* Send req (stolen) and wait for its reply. Returns the reply (new
 * reference) when ok, or NULL with err (the agent's error, or the loss). */
static json_t *host_call(struct exec_host *h, json_t *req, char *err)
{
    return reply_ok(h, host_call_any(h, req, err), err);
}

/* The reply to a request sent ahead, once it lands in *slot (host_line
 * puts it there), taken as host_call's. */
static json_t *host_await(struct exec_host *h, json_t **slot, char *err)
{
    while (!*slot && host_pump(h, 100) == 0)
        ;
    json_t *rep = *slot;
    *slot = NULL;
    if (!rep)
        util_err(err, "%s", h->lost);
    return reply_ok(h, rep, err);
}

/* A call whose reply only says ok. Returns 0, or -1 with err. */
static int host_do(struct exec_host *h, json_t *req, char *err)
{
    json_t *rep = host_call(h, req, err);
    json_decref(rep);
    return rep ? 0 : -1;
}

/* ---- the handshake and the clock ------------------------------------------------ */

/* The next line within the deadline, or NULL (the host lost, or late). */
static char *host_next_line(struct exec_host *h, uint64_t deadline)
{
    int too_long;
    for (;;) {
        char *line = agentproto_line(&h->rd, &too_long);
        if (line)
            return line;
        uint64_t now = util_now_ns();
        if (too_long || h->rd.eof || now >= deadline)
            return NULL;
        struct pollfd pfd = {.fd = h->fd, .events = POLLIN};
        if (poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1)) > 0 && agentproto_fill(&h->rd) < 0)
            return NULL;
    }
}

/* The agent's build against ours: its loadbench (the hello's sha256),
 * then, when o asks, every file it would run from beside itself. */
static int host_hello_check(struct exec_host *h, const struct exec_remote_opts *o, const json_t *hello, char *err)
{
    char who[96];
    snprintf(who, sizeof who, "host %s", h->name);
    if (agentproto_check_peer(hello, who, h->sha, o->install_cmd, err))
        return -1;
    if (!o->check_files)
        return 0;
    json_t *ours = agentproto_build_files(adapter_bindir(), adapter_datadir());
    int rc = agentproto_check_files(ours, json_object_get(hello, "files"), who,
                                    o->install_cmd ? o->install_cmd : "loadbench hosts install", err);
    json_decref(ours);
    return rc;
}

/* Skip to the magic line, then take the agent's hello and check it. */
static int host_hello_in(struct exec_host *h, const struct exec_remote_opts *o, uint64_t deadline, char *err)
{
    size_t skipped = 0;
    char *line, why[400];
    while ((line = host_next_line(h, deadline)) && strcmp(line, AGENTPROTO_MAGIC) && skipped < REMOTE_SKIP_MAX_BYTES)
        skipped += strlen(line) + 1;
    if (line && !strcmp(line, AGENTPROTO_MAGIC))
        line = host_next_line(h, deadline);
    if (!line) {
        transport_why(h, why, sizeof why);
        return util_err(err, "host %s: no agent answered%s", h->name,
                        why[0] ? why : util_now_ns() >= deadline ? " (timed out)" : "");
    }
    json_error_t je;
    json_t *hello = json_loads(line, 0, &je);
    int rc = hello ? host_hello_check(h, o, hello, err)
                   : util_err(err, "host %s: the agent's hello is not JSON: %.80s", h->name, line);
    if (rc == 0) {
        snprintf(h->ident.version, sizeof h->ident.version, "%s", json_string_value(json_object_get(hello, "version")));
        snprintf(h->ident.sha256, sizeof h->ident.sha256, "%s", json_string_value(json_object_get(hello, "sha256")));
        const char *hn = json_string_value(json_object_get(hello, "hostname"));
        snprintf(h->ident.hostname, sizeof h->ident.hostname, "%s", hn ? hn : "");
        h->ident.pid = (pid_t)json_integer_value(json_object_get(hello, "pid"));
        const char *path = json_string_value(json_object_get(hello, "path"));
        snprintf(h->ident.path, sizeof h->ident.path, "%s", path ? path : "");
    }
    json_decref(hello);
    return rc;
}

/* Minimum-RTT: the fastest ping's midpoint is the best match of the two
 * clocks (its error is at most half its round trip). */
static int host_clock(struct exec_host *h, char *err)
{
    h->clock = (struct exec_remote_clock){.rtt_ns = UINT64_MAX};
    for (int i = 0; i < REMOTE_PINGS; i++) {
        uint64_t t0 = util_now_ns();
        json_t *rep = host_call(h, json_pack("{s:s}", "op", "ping"), err);
        uint64_t t1 = util_now_ns();
        if (!rep)
            return -1;
        uint64_t remote = agentproto_u64(rep, "now_ns");
        json_decref(rep);
        h->clock.pings++;
        if (t1 - t0 < h->clock.rtt_ns) {
            h->clock.rtt_ns = t1 - t0;
            h->clock.offset_ns = (int64_t)(remote - (t0 + (t1 - t0) / 2));
        }
    }
    return 0;
}

static void *host_hb_main(void *arg)
{
    struct exec_host *h = arg;
    uint64_t next = util_now_ns() + h->hb_ns;
    json_t *hb = json_pack("{s:s}", "op", "hb");
    while (!__atomic_load_n(&h->hb_stop, __ATOMIC_ACQUIRE)) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
        if (util_now_ns() < next)
            continue;
        agentproto_send(&h->wr, hb);
        next = util_now_ns() + h->hb_ns;
    }
    json_decref(hb);
    return NULL;
}

/* ---- the executor --------------------------------------------------------------- */

static void remote_free(struct exec_tree *t);
static void host_drop_tree(struct remote_tree *r);

/* Every file under dir here (the adapter's configs) to the same path there. */
static int remote_push_dir(struct exec_host *h, const char *dir, char *err)
{
    json_t *files = agentproto_list(dir, err), *f;
    size_t i;
    if (!files)
        return -1;
    int rc = 0;
    json_array_foreach(files, i, f)
    {
        const char *p = json_string_value(json_object_get(f, "path"));
        if ((rc = exec_remote_put(h, p, p, err)))
            break;
    }
    json_decref(files);
    return rc;
}

static json_t *spawn_request(const struct exec_spec *spec)
{
    json_t *argv = json_array(), *env = json_array();
    for (const char *const *a = spec->argv; *a; a++)
        json_array_append_new(argv, json_string(*a));
    for (const char *const *e = spec->env; e && *e; e++)
        json_array_append_new(env, json_string(*e));
    return json_pack("{s:s, s:s, s:o, s:o, s:s, s:I, s:i, s:I, s:I}", "op", "spawn", "name", spec->name, "argv", argv,
                     "env", env, "dir", spec->dir, "cpus_mask", (json_int_t)spec->cpus_mask, "want_cgroup",
                     spec->want_cgroup, "memory_limit_bytes", (json_int_t)spec->memory_limit_bytes,
                     "sample_interval_ns", (json_int_t)spec->sample_interval_ns);
}

/* h's spawn on its way named spec->name, made when make is set; NULL
 * otherwise. */
static struct remote_pending *pending_find(struct exec_host *h, const struct exec_spec *spec, int make)
{
    for (struct remote_pending *q = h->pending; q; q = q->next)
        if (!strcmp(q->name, spec->name))
            return q;
    if (!make)
        return NULL;
    struct remote_pending *q = util_xcalloc(1, sizeof *q);
    q->name = util_xstrdup(spec->name);
    q->dir = util_xstrdup(spec->dir);
    q->next = h->pending;
    h->pending = q;
    return q;
}

/* Forget q; a tree it made stays the host's (freed with it). */
static void pending_drop(struct exec_host *h, struct remote_pending *q)
{
    for (struct remote_pending **p = &h->pending; *p; p = &(*p)->next)
        if (*p == q) {
            *p = q->next;
            break;
        }
    json_decref(q->reply);
    free(q->name);
    free(q->dir);
    free(q);
}

static int remote_spawn_prepare(const struct executor *ex, const struct exec_spec *spec, char *err)
{
    struct exec_host *h = (struct exec_host *)ex;
    struct remote_pending *q = pending_find(h, spec, 0);
    if (q && !q->id) /* a failed row's leftover of the same name */
        pending_drop(h, q);
    q = pending_find(h, spec, 1);
    if (q->pushed || q->id)
        return 0;
    if (remote_push_dir(h, spec->dir, err)) {
        pending_drop(h, q);
        return -1;
    }
    q->pushed = 1;
    return 0;
}

static void remote_spawn_begin(const struct executor *ex, const struct exec_spec *spec)
{
    struct exec_host *h = (struct exec_host *)ex;
    struct remote_pending *q = pending_find(h, spec, 0);
    if (!q || !q->pushed || q->id || h->lost[0])
        return; /* not prepared, begun already, or lost: spawn does or says it */
    json_t *req = spawn_request(spec);
    q->id = ++h->next_id;
    json_object_set_new(req, "id", json_integer(q->id));
    if (agentproto_send(&h->wr, req))
        host_lose(h, "cannot write to the agent: %s", strerror(errno));
    json_decref(req);
}

/* Every spawn goes the same way: prepared and begun here unless done
 * ahead, then its reply awaited (the tree was made as it was read). */
static int remote_spawn(const struct executor *ex, const struct exec_spec *spec, struct exec_tree **out, char *err)
{
    struct exec_host *h = (struct exec_host *)ex;
    struct remote_pending *q = pending_find(h, spec, 0);
    if (!q && remote_spawn_prepare(ex, spec, err))
        return -1;
    remote_spawn_begin(ex, spec);
    q = pending_find(h, spec, 0);
    json_t *rep = q->id ? host_await(h, &q->reply, err) : (util_err(err, "%s", h->lost), NULL);
    struct remote_tree *r = rep ? q->tree : NULL;
    pending_drop(h, q);
    json_decref(rep);
    if (!r)
        return -1;
    *out = &r->t;
    return 0;
}

static int remote_poll(struct exec_tree *t)
{
    host_pump(rtree(t)->h, 0);
    return t->ended;
}

static int remote_sample(struct exec_tree *t, struct sampler_reading *rd, struct sampler_point *point)
{
    struct remote_tree *r = rtree(t);
    if (host_pump(r->h, 0) && r->qhead == r->qn)
        return -1;
    if (!r->primed) {
        r->primed = 1;
        return 0;
    }
    if (r->qhead == r->qn)
        return 0;
    *rd = r->q[r->qhead].r;
    *point = r->q[r->qhead].p;
    r->qhead++;
    return 1;
}

static void remote_summary(const struct exec_tree *t, struct sampler_summary *s)
{
    *s = ((const struct remote_tree *)t)->sum;
}

static json_t *stop_request(const struct remote_tree *r, uint64_t term_grace_ns)
{
    return json_pack("{s:s, s:i, s:I}", "op", "stop", "tree", r->id, "grace_ns", (json_int_t)term_grace_ns);
}

/* Send the stop now and read its reply in remote_stop: a tool on N hosts
 * is told to stop on all of them at once, not one round trip and one
 * grace after another (SIGINT with 16 hosts took 5.3 s, bench/hosts-scale.sh). */
static void remote_stop_begin(struct exec_tree *t, uint64_t term_grace_ns)
{
    struct remote_tree *r = rtree(t);
    struct exec_host *h = r->h;
    if (h->lost[0] || r->stop_id || t->ended)
        return;
    json_t *req = stop_request(r, term_grace_ns);
    r->stop_id = ++h->next_id;
    json_object_set_new(req, "id", json_integer(r->stop_id));
    if (agentproto_send(&h->wr, req))
        host_lose(h, "cannot write to the agent: %s", strerror(errno));
    json_decref(req);
}

/* The reply to the stop remote_stop_begin sent (new reference), or NULL
 * with err once the host is lost or the agent refused. */
static json_t *stop_wait(struct remote_tree *r, char *err)
{
    json_t *rep = host_await(r->h, &r->stop_reply, err);
    r->stop_id = 0;
    return rep;
}

static int remote_stop(struct exec_tree *t, const pid_t *keep, int nkeep, uint64_t term_grace_ns, char *err)
{
    (void)keep, (void)nkeep; /* pids of this machine: the agent spares its other trees */
    struct remote_tree *r = rtree(t);
    json_t *rep = r->stop_id ? stop_wait(r, err) : host_call(r->h, stop_request(r, term_grace_ns), err);
    if (!rep)
        return -1;
    agentproto_exit_from(json_object_get(rep, "exit"), &t->exit);
    t->ended = 1;
    int killed = (int)json_integer_value(json_object_get(rep, "killed"));
    json_decref(rep);
    return killed;
}

static int remote_output(struct exec_tree *t, enum exec_stream s, struct exec_output *o, char *err)
{
    struct remote_tree *r = rtree(t);
    char why[UTIL_ERR_LEN];
    /* Defined whatever happens: nothing known is nothing kept, not a
     * stack's leftovers (a lost host's row once said the tool wrote
     * 140734107359744 bytes). */
    *o = (struct exec_output){0, 0};
    json_t *rep = host_call_any(r->h, json_pack("{s:s, s:i, s:i}", "op", "output", "tree", r->id, "stream", (int)s), why);
    if (!rep)
        return util_err(err, "the tool's output stayed on host %s, lost with it (%s)", r->h->name, why);
    int ok = json_is_true(json_object_get(rep, "ok"));
    int rc = ok ? (int)json_integer_value(json_object_get(rep, "rc")) : -1;
    /* A write error there still says how much was written and left out. */
    if (rc <= 0)
        *o = (struct exec_output){agentproto_u64(rep, "total_bytes"), agentproto_u64(rep, "dropped_bytes")};
    if (!ok)
        util_err(err, "host %s: %s", r->h->name, json_string_value(json_object_get(rep, "error")));
    json_decref(rep);
    return rc < 0 ? -1 : rc;
}

static int remote_usage(const struct exec_tree *t, struct exec_usage *u, char *err)
{
    const struct remote_tree *r = (const struct remote_tree *)t;
    memset(u, 0, sizeof *u);
    json_t *rep = host_call(r->h, json_pack("{s:s, s:i}", "op", "usage", "tree", r->id), err);
    if (!rep)
        return -1;
    *u = (struct exec_usage){.cpu_ns = agentproto_u64(rep, "cpu_ns"), .mem_peak_bytes = agentproto_u64(rep, "mem_peak_bytes"),
                             .mem_cache_bytes = agentproto_u64(rep, "mem_cache_bytes"),
                             .oom_kills = agentproto_u64(rep, "oom_kills")};
    json_decref(rep);
    return 0;
}

/* Every file the tree left under its directory, back here. */
static int remote_fetch(struct exec_tree *t, char *err)
{
    struct remote_tree *r = rtree(t);
    json_t *rep = host_call(r->h, json_pack("{s:s, s:s}", "op", "list", "dir", r->dir), err), *f;
    if (!rep)
        return -1;
    size_t i;
    int rc = 0;
    json_array_foreach(json_object_get(rep, "files"), i, f)
    {
        const char *p = json_string_value(json_object_get(f, "path"));
        if ((rc = exec_remote_get(r->h, p, p, 0, err)))
            break;
    }
    json_decref(rep);
    r->fetched = rc == 0;
    return rc;
}

/* A tree's end on a live host: its files back here (a failed process's
 * too: they say why), then gone from the host where the agent made them
 * (docs/multihost.md, "What a run leaves on a host"). */
static void remote_free(struct exec_tree *t)
{
    struct remote_tree *r = rtree(t);
    if (!t)
        return;
    if (!r->h->lost[0]) {
        host_do(r->h, json_pack("{s:s, s:i}", "op", "free", "tree", r->id), NULL);
        if ((r->fetched || remote_fetch(t, NULL) == 0) && !r->h->lost[0])
            exec_remote_remove(r->h, r->dir, NULL);
    }
    host_drop_tree(r);
}

static const struct exec_host_ops remote_host_ops;

static const struct executor remote_table = {
    .name = "remote",
    .spawn = remote_spawn,
    .spawn_prepare = remote_spawn_prepare,
    .spawn_begin = remote_spawn_begin,
    .poll = remote_poll,
    .sample = remote_sample,
    .summary = remote_summary,
    .stop = remote_stop,
    .stop_begin = remote_stop_begin,
    .output = remote_output,
    .usage = remote_usage,
    .fetch = remote_fetch,
    .free = remote_free,
    .host = &remote_host_ops,
};

/* ---- the host ------------------------------------------------------------------- */

static int host_handshake(struct exec_host *h, const struct exec_remote_opts *o, char *err)
{
    uint64_t ct = o->connect_timeout_ns ? o->connect_timeout_ns : REMOTE_CONNECT_TIMEOUT_NS;
    if (host_hello_in(h, o, util_now_ns() + ct, err))
        return -1;
    h->last_rx_ns = util_now_ns();
    /* bindir, datadir: the agent runs its own copy of a file of ours
     * (lb-gen, a support file) that an argv names (agent-protocol.md). */
    json_t *hello = json_pack("{s:s, s:i, s:s, s:s, s:I, s:I, s:s, s:s}", "op", "hello", "proto", AGENTPROTO_VERSION,
                              "version", LB_VERSION, "sha256", h->sha, "heartbeat_ns", (json_int_t)h->hb_ns,
                              "timeout_ns", (json_int_t)h->timeout_ns, "bindir", adapter_bindir(), "datadir",
                              adapter_datadir());
    if (host_do(h, hello, err) || host_clock(h, err))
        return -1;
    if (pthread_create(&h->hb, NULL, host_hb_main, h) == 0)
        h->hb_on = 1;
    return 0;
}

struct exec_host *exec_remote_open(const struct exec_remote_opts *o, char *err)
{
    struct exec_host *h = util_xcalloc(1, sizeof *h);
    h->ex = remote_table;
    h->fd = h->errfd = -1;
    snprintf(h->name, sizeof h->name, "%s", o->name ? o->name : "remote");
    h->ex.name = h->name;
    h->timeout_ns = o->heartbeat_timeout_ns ? o->heartbeat_timeout_ns : EXEC_REMOTE_HEARTBEAT_TIMEOUT_NS;
    h->hb_ns = h->timeout_ns / 3;
    if (agentproto_identity(o->self_bin, h->sha, err) || transport_start(h, o, err) ||
        host_handshake(h, o, err)) {
        h->lost[0] = 'x'; /* no bye: the agent goes with its input */
        exec_remote_close(h);
        return NULL;
    }
    return h;
}

void exec_remote_close_begin(struct exec_host *h)
{
    if (!h || h->lost[0] || h->fd < 0 || h->bye_sent)
        return;
    host_send_call(h, json_pack("{s:s}", "op", "bye"));
    h->bye_sent = 1;
}

void exec_remote_close(struct exec_host *h)
{
    if (!h)
        return;
    exec_remote_close_begin(h);
    char why[UTIL_ERR_LEN];
    if (h->bye_sent)
        json_decref(host_wait_reply(h, why)); /* lost meanwhile: nothing to say */
    if (h->hb_on) {
        __atomic_store_n(&h->hb_stop, 1, __ATOMIC_RELEASE);
        pthread_join(h->hb, NULL);
    }
    if (h->fd >= 0) {
        shutdown(h->fd, SHUT_RDWR);
        close(h->fd);
        agentproto_writer_destroy(&h->wr);
    }
    if (h->pid > 0 && !transport_reap(h, 2000000000ull)) {
        kill(-h->pid, SIGKILL);
        kill(h->pid, SIGKILL);
        transport_reap(h, 5000000000ull);
    }
    if (h->pid > 0)
        proc_spare(h->pid, 0);
    if (h->errfd >= 0)
        close(h->errfd);
    while (h->trees)
        remote_free(&h->trees->t);
    while (h->pending)
        pending_drop(h, h->pending);
    json_decref(h->reply);
    agentproto_reader_free(&h->rd);
    free(h);
}

const struct executor *exec_remote_executor(struct exec_host *h)
{
    return &h->ex;
}

const char *exec_remote_name(const struct exec_host *h)
{
    return h->name;
}

struct exec_host *exec_remote_host_of(const struct executor *ex)
{
    return ex && ex->spawn == remote_spawn ? (struct exec_host *)ex : NULL;
}

void exec_remote_clock_get(const struct exec_host *h, struct exec_remote_clock *c)
{
    *c = h->clock;
}

void exec_remote_ident_get(const struct exec_host *h, struct exec_remote_ident *id)
{
    *id = h->ident;
}

uint64_t exec_remote_to_local_ns(const struct exec_host *h, uint64_t remote_ns)
{
    return (uint64_t)((int64_t)remote_ns - h->clock.offset_ns);
}

int exec_remote_check(struct exec_host *h, char *why)
{
    int rc = host_pump(h, 0);
    if (rc && why)
        snprintf(why, UTIL_ERR_LEN, "%s", h->lost);
    return rc;
}

pid_t exec_remote_transport_pid(const struct exec_host *h)
{
    return h->pid;
}

json_t *exec_remote_http_at(struct exec_host *h, int port, const char *method, const char *path, uint64_t at_ns,
                            uint64_t *done_ns, char *err)
{
    json_t *req = json_pack("{s:s, s:i, s:s, s:s}", "op", "http", "port", port, "method", method, "path", path);
    if (at_ns)
        json_object_set_new(req, "at_ns", json_integer((json_int_t)((int64_t)at_ns + h->clock.offset_ns)));
    json_t *rep = host_call(h, req, err);
    json_t *body = rep ? json_incref(json_object_get(rep, "body")) : NULL;
    if (done_ns) /* 0: not made (the host lost, or the call failed) */
        *done_ns = rep ? exec_remote_to_local_ns(h, agentproto_u64(rep, "done_ns")) : 0;
    json_decref(rep);
    return body;
}

json_t *exec_remote_http(struct exec_host *h, int port, const char *method, const char *path, char *err)
{
    return exec_remote_http_at(h, port, method, path, 0, NULL, err);
}

json_t *exec_remote_call(struct exec_host *h, json_t *req, char *err)
{
    return host_call(h, req, err);
}

int exec_remote_remove(struct exec_host *h, const char *path, char *err)
{
    return host_do(h, json_pack("{s:s, s:s}", "op", "remove", "path", path), err);
}

/* A tree of the host, known here from a reply ("tree", "pid", "started_ns"). */
static struct remote_tree *host_add_tree(struct exec_host *h, const json_t *rep, const char *dir)
{
    struct remote_tree *r = util_xcalloc(1, sizeof *r);
    r->t.ex = &h->ex;
    r->h = h;
    r->id = (int)json_integer_value(json_object_get(rep, "tree"));
    r->t.pid = (pid_t)json_integer_value(json_object_get(rep, "pid"));
    r->t.started_ns = exec_remote_to_local_ns(h, agentproto_u64(rep, "started_ns"));
    r->t.cgroup = (int)json_integer_value(json_object_get(rep, "cgroup"));
    const char *nc = json_string_value(json_object_get(rep, "no_cgroup"));
    snprintf(r->t.no_cgroup, sizeof r->t.no_cgroup, "%s", nc ? nc : "");
    r->dir = dir ? util_xstrdup(dir) : NULL;
    r->next = h->trees;
    h->trees = r;
    return r;
}

/* Unlink r from its host and release it. */
static void host_drop_tree(struct remote_tree *r)
{
    for (struct remote_tree **p = &r->h->trees; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    json_decref(r->stop_reply);
    free(r->q);
    free(r->dir);
    free(r);
}

struct exec_tree *exec_remote_adopt(struct exec_host *h, const json_t *reply)
{
    return &host_add_tree(h, reply, NULL)->t;
}

void exec_remote_forget(struct exec_tree *t)
{
    if (t)
        host_drop_tree(rtree(t));
}

int exec_remote_tree_id(const struct exec_tree *t)
{
    return ((const struct remote_tree *)t)->id;
}

int exec_remote_rebase(struct exec_tree *t, struct sampler_reading *rd, char *err)
{
    struct remote_tree *r = rtree(t);
    memset(rd, 0, sizeof *rd); /* t_ns 0: no reading */
    json_t *rep = host_call(r->h, json_pack("{s:s, s:i}", "op", "target_rebase", "tree", r->id), err);
    if (!rep)
        return -1;
    /* Every point streamed before the reply came before it: dropped. */
    r->qhead = r->qn = 0;
    memset(&r->sum, 0, sizeof r->sum);
    r->primed = 1;
    agentproto_reading_from(json_object_get(rep, "reading"), rd);
    rd->t_ns = exec_remote_to_local_ns(r->h, rd->t_ns);
    json_decref(rep);
    return 0;
}

int exec_remote_sample_now(struct exec_tree *t, char *err)
{
    struct remote_tree *r = rtree(t);
    json_t *rep = host_call(r->h, json_pack("{s:s, s:i}", "op", "target_sample", "tree", r->id), err);
    json_decref(rep);
    return rep ? 0 : -1;
}

json_t *exec_remote_machine(struct exec_host *h, char *err)
{
    json_t *rep = host_call(h, json_pack("{s:s}", "op", "machine"), err);
    json_t *m = rep ? json_incref(json_object_get(rep, "machine")) : NULL;
    json_decref(rep);
    return m;
}

/* ---- files ---------------------------------------------------------------------- */

int exec_remote_put(struct exec_host *h, const char *local_path, const char *remote_path, char *err)
{
    char *buf = NULL;
    size_t cap = 0;
    struct stat st;
    ssize_t n = fsutil_read_all(local_path, &buf, &cap);
    if (n < 0 || stat(local_path, &st)) {
        free(buf);
        return util_err(err, "cannot read %s: %s", local_path, strerror(errno));
    }
    if ((uint64_t)n > EXEC_REMOTE_FILE_MAX_BYTES) {
        free(buf);
        return util_err(err, "%s is larger than %llu bytes: not copied to host %s", local_path,
                        (unsigned long long)EXEC_REMOTE_FILE_MAX_BYTES, h->name);
    }
    int rc = 0;
    for (size_t off = 0; rc == 0;) {
        size_t len = (size_t)n - off > AGENTPROTO_CHUNK_BYTES ? AGENTPROTO_CHUNK_BYTES : (size_t)n - off;
        char *b = base64_encode(buf + off, len);
        int last = off + len == (size_t)n;
        rc = host_do(h, json_pack("{s:s, s:s, s:I, s:s, s:i, s:b}", "op", "put", "path", remote_path, "offset",
                                  (json_int_t)off, "data", b, "mode", (int)(st.st_mode & 07777), "last", last),
                     err);
        free(b);
        off += len;
        if (last)
            break;
    }
    free(buf);
    return rc;
}

/* One chunk of a get into fd; sets *eof. Returns the bytes written, or -1. */
static long get_chunk(struct exec_host *h, const char *remote_path, uint64_t off, int fd, int *eof, char *err)
{
    json_t *rep = host_call(h, json_pack("{s:s, s:s, s:I, s:i}", "op", "get", "path", remote_path, "offset",
                                         (json_int_t)off, "max", AGENTPROTO_CHUNK_BYTES), err);
    if (!rep)
        return -1;
    char *buf = util_xmalloc(AGENTPROTO_CHUNK_BYTES);
    const char *data = json_string_value(json_object_get(rep, "data"));
    long n = data ? base64_decode(data, buf, AGENTPROTO_CHUNK_BYTES) : -1;
    *eof = json_is_true(json_object_get(rep, "eof"));
    json_decref(rep);
    if (n < 0)
        util_err(err, "host %s sent a bad chunk of %s", h->name, remote_path);
    else if (pwrite(fd, buf, (size_t)n, (off_t)off) != n)
        n = util_err(err, "cannot write a copy of %s: %s", remote_path, strerror(errno));
    free(buf);
    return n;
}

int exec_remote_get(struct exec_host *h, const char *remote_path, const char *local_path, uint64_t max_bytes,
                    char *err)
{
    char part[PATH_MAX + 16];
    snprintf(part, sizeof part, "%s.lb-part", local_path);
    if (!max_bytes)
        max_bytes = EXEC_REMOTE_FILE_MAX_BYTES;
    int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return util_err(err, "cannot write %s: %s", part, strerror(errno));
    uint64_t off = 0;
    int eof = 0;
    long n = 0;
    while (!eof && off <= max_bytes && (n = get_chunk(h, remote_path, off, fd, &eof, err)) >= 0)
        off += (uint64_t)n;
    close(fd);
    if (n >= 0 && off > max_bytes)
        n = util_err(err, "%s on host %s is larger than %llu bytes: not copied", remote_path, h->name,
                     (unsigned long long)max_bytes);
    if (n < 0 || rename(part, local_path)) {
        if (n >= 0)
            util_err(err, "cannot rename %s: %s", part, strerror(errno));
        unlink(part);
        return -1;
    }
    return 0;
}

/* ---- lb-target and readings on the host: the engine's exec_host_ops ------------ */

/* lb-target on h: its agent runs target_start there (op
 * target_start) and streams its samples; the file names are the same. */
static int remote_target_start(struct exec_host *h, struct target *t, const struct target_opts *o, char *err)
{
    json_t *req = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:i, s:I, s:I}", "op", "target_start", "dir", o->dir, "name",
                            o->name, "delay_ns", (json_int_t)o->delay_ns, "work_ns", (json_int_t)o->work_ns,
                            "body_bytes", (json_int_t)o->body_bytes, "threads", (int)o->threads, "cpus_mask",
                            (json_int_t)o->cpus_mask, "sample_interval_ns", (json_int_t)o->sample_interval_ns);
    if (o->listen_addr)
        json_object_set_new(req, "listen", json_string(o->listen_addr));
    if (o->expect_body)
        json_object_set_new(req, "expect_body", json_integer((json_int_t)o->expect_body));
    if (o->shape && (o->shape->dist || o->shape->stall_every_ns)) {
        const struct profile_shape *sh = o->shape;
        json_object_set_new(req, "shape",
                            json_pack("{s:s?, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "dist", sh->dist, "p50_ns",
                                      (json_int_t)sh->p50_ns, "p99_ns", (json_int_t)sh->p99_ns, "mean_ns",
                                      (json_int_t)sh->mean_ns, "min_ns", (json_int_t)sh->min_ns, "max_ns",
                                      (json_int_t)sh->max_ns, "seed", (json_int_t)sh->seed, "stall_every_ns",
                                      (json_int_t)sh->stall_every_ns, "stall_for_ns", (json_int_t)sh->stall_for_ns));
    }
    json_t *rep = exec_remote_call(h, req, err);
    if (!rep)
        return -1;
    t->host = h;
    t->port = (int)json_integer_value(json_object_get(rep, "port"));
    t->control_port = (int)json_integer_value(json_object_get(rep, "control_port"));
    t->pid = (pid_t)json_integer_value(json_object_get(rep, "pid"));
    t->tree = exec_remote_adopt(h, rep);
    json_decref(rep);
    snprintf(t->stdout_path, sizeof t->stdout_path, "%s/%s.stdout", o->dir, o->name);
    snprintf(t->stderr_path, sizeof t->stderr_path, "%s/%s.stderr", o->dir, o->name);
    return 0;
}

/* lb-target's times (its CLOCK_MONOTONIC) put on ours: everything above
 * compares them with the tool's samples and start. 0 means "none yet". */
static void remote_target_localize(const struct target *t, json_t *j)
{
    static const char *const keys[] = {"now_ns", "started_ns", "first_request_ns", "last_response_ns", "since_ns",
                                       "start_ns", "new_window_since_ns"};
    json_t *objs[2] = {j, json_object_get(j, "window")};
    for (int o = 0; o < 2; o++)
        for (size_t k = 0; json_is_object(objs[o]) && k < sizeof keys / sizeof keys[0]; k++) {
            uint64_t v = target_u64(objs[o], keys[k]);
            if (v)
                json_object_set_new(objs[o], keys[k], json_integer((json_int_t)exec_remote_to_local_ns(t->host, v)));
        }
}

static json_t *remote_target_call_at(const struct target *t, const char *method, const char *path, uint64_t at_ns,
                                     uint64_t *done_ns, char *err)
{
    json_t *j = exec_remote_http_at(t->host, t->control_port, method, path, at_ns, done_ns, err);
    remote_target_localize(t, j);
    return j;
}

/* The agent stops it (target_stop there), then its files come back. */
static int remote_target_stop(struct target *t, char *err)
{
    if (!t->tree)
        return 0;
    json_t *rep = exec_remote_call(t->host, json_pack("{s:s, s:i}", "op", "target_stop", "tree",
                                                      exec_remote_tree_id(t->tree)), err);
    exec_remote_forget(t->tree);
    t->tree = NULL;
    if (!rep)
        return -1;
    const char *e = json_string_value(json_object_get(rep, "stop_error"));
    int rc = e ? util_err(err, "%s", e) : 0;
    struct exec_exit ex;
    agentproto_exit_from(json_object_get(rep, "exit"), &ex);
    t->proc.exit.unknown = ex.unknown;   /* for the caller's warning, as here (target_stop) */
    json_decref(rep);
    char ferr[UTIL_ERR_LEN];
    if (exec_remote_get(t->host, t->stdout_path, t->stdout_path, 0, ferr) ||
        exec_remote_get(t->host, t->stderr_path, t->stderr_path, 0, ferr))
        rc = rc ? rc : util_err(err, "lb-target's output: %s", ferr);
    else /* back here: gone from the host, where its agent made them */
        exec_remote_remove(t->host, t->stdout_path, NULL), exec_remote_remove(t->host, t->stderr_path, NULL);
    return rc;
}

static int remote_target_rebase(struct target *t, struct sampler_reading *rd, char *err)
{
    return exec_remote_rebase(t->tree, rd, err);
}

static int remote_target_sample_now(struct target *t, char *err)
{
    return exec_remote_sample_now(t->tree, err);
}

/* The host's reading (engine/hostread.h), its wire form remote/hostfacts.h. */
static int remote_reading(struct exec_host *h, pid_t pid, struct hostread *out)
{
    char err[UTIL_ERR_LEN];
    memset(out, 0, sizeof *out);
    json_t *rep = exec_remote_call(h, json_pack("{s:s, s:i}", "op", "reading", "pid", (int)pid), err);
    if (!rep) {
        snprintf(out->err, sizeof out->err, "%s", err);
        return -1;
    }
    hostfacts_from(json_object_get(rep, "reading"), out);
    json_decref(rep);
    return out->ok ? 0 : -1;
}

/* What the engine asks of a host (engine/exec.h), every host's executor's. */
static const struct exec_host_ops remote_host_ops = {
    .call = exec_remote_call,
    .reading = remote_reading,
    .target_start = remote_target_start,
    .target_call_at = remote_target_call_at,
    .target_stop = remote_target_stop,
    .target_rebase = remote_target_rebase,
    .target_sample_now = remote_target_sample_now,
};
