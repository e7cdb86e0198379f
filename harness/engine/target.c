#include "engine/target.h"
#include "common/hist.h"
#include "common/net.h"
#include "common/units.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

char *target_shape_flags(const struct profile_shape *sh, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    if (!sh)
        return buf;
#define ADD(...) n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__)
    if (sh->dist) {
        ADD(" --delay-dist %s --seed %llu", sh->dist, (unsigned long long)sh->seed);
        const char *names[] = {"p50", "p99", "mean", "min", "max"};
        uint64_t v[] = {sh->p50_ns, sh->p99_ns, sh->mean_ns, sh->min_ns, sh->max_ns};
        for (int i = 0; i < 5; i++)
            if (v[i] || (i == 3 && !strcmp(sh->dist, "uniform")))
                ADD(" --delay-%s %lluns", names[i], (unsigned long long)v[i]);
    }
    if (sh->stall_every_ns)
        ADD(" --stall-every %lluns --stall-for %lluns", (unsigned long long)sh->stall_every_ns,
            (unsigned long long)sh->stall_for_ns);
#undef ADD
    return buf;
}

int target_start(struct target *t, const struct target_opts *o, char *err)
{
    memset(t, 0, sizeof *t);
    if (o->host)
        return exec_host_table(o->host)->target_start(o->host, t, o, err);
    char delay[32], work[32], body[32], expect[32], threads[16], cpus[80] = "", parent[40], listen[80];
    units_format_duration(o->delay_ns, delay);
    units_format_duration(o->work_ns, work);
    snprintf(body, sizeof body, "%lluB", (unsigned long long)o->body_bytes);
    snprintf(threads, sizeof threads, "%u", o->threads ? o->threads : 1);
    const char *argv[56];
    char shape[512];
    int n = 0;
    argv[n++] = o->bin;
    snprintf(listen, sizeof listen, "%.70s:0", o->listen_addr ? o->listen_addr : "127.0.0.1");
    argv[n++] = "--listen";
    argv[n++] = listen;
    argv[n++] = "--control-port=0";
    if (!o->shape || !o->shape->dist) {   /* lb-target takes --delay or --delay-dist */
        argv[n++] = "--delay";
        argv[n++] = delay;
    }
    target_shape_flags(o->shape, shape, sizeof shape);
    for (char *save = NULL, *tok = strtok_r(shape, " ", &save); tok && n < 30; tok = strtok_r(NULL, " ", &save))
        argv[n++] = tok;
    argv[n++] = "--work";
    argv[n++] = work;
    argv[n++] = "--body";
    argv[n++] = body;
    argv[n++] = "--threads";
    argv[n++] = threads;
    if (o->expect_body) { /* a body over it is refused (413) and counted; one short of it, counted */
        snprintf(expect, sizeof expect, "%lluB", (unsigned long long)o->expect_body);
        argv[n++] = "--expect-body";
        argv[n++] = expect;
        argv[n++] = "--max-body";
        argv[n++] = expect;
    }
    /* lb-target has no end of its own: it stops when loadbench goes, even
     * on SIGKILL (its parent-death signal, checked against this pid). */
    snprintf(parent, sizeof parent, "--exit-with-parent=%d", (int)getpid());
    argv[n++] = parent;
    if (o->tls && o->tls->version) {
        argv[n++] = "--tls";
        argv[n++] = o->tls->version == 13 ? "1.3" : "1.2";
        argv[n++] = "--tls-key";
        argv[n++] = o->tls->key_rsa ? "rsa" : "ecdsa";
        argv[n++] = "--tls-resumption";
        argv[n++] = o->tls->no_resumption ? "off" : "on";
        argv[n++] = "--tls-ca";
        argv[n++] = o->ca_path;
    }
    if (o->http2)
        argv[n++] = "--http2";
    if (o->cpus_mask) {
        char *p = cpus;
        for (int c = 0; c < 64; c++)
            if (o->cpus_mask & ((uint64_t)1 << c))
                p += sprintf(p, "%s%d", p == cpus ? "" : ",", c);
        argv[n++] = "--cpus";
        argv[n++] = cpus;
    }
    argv[n] = NULL;
    snprintf(t->stdout_path, sizeof t->stdout_path, "%s/%s.stdout", o->dir, o->name);
    snprintf(t->stderr_path, sizeof t->stderr_path, "%s/%s.stderr", o->dir, o->name);
    const char *env[] = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8", NULL};
    struct proc_spec spec = {
        .argv = argv,
        .envp = env,
        .cwd = o->dir,
        .stdout_path = t->stdout_path,
        .stderr_path = t->stderr_path,
        .cpus_mask = 0, /* lb-target pins its own threads */
        /* Left at 0: lowering needs CAP_SYS_RESOURCE, which containers
         * often lack; tools run at 1000, so the OOM killer picks a tool. */
        .oom_score_adj = 0,
    };
    if (proc_spawn(&t->proc, &spec, err))
        return -1;
    uint64_t deadline = util_now_ns() + 5000000000ull;
    char line[512];
    while (util_now_ns() < deadline) {
        fsutil_first_line(t->stdout_path, line, sizeof line);
        if (strchr(line, '}')) {
            json_error_t je;
            json_t *j = json_loads(line, 0, &je);
            int port = (int)json_integer_value(json_object_get(j, "port"));
            int cport = (int)json_integer_value(json_object_get(j, "control_port"));
            json_decref(j);
            if (port <= 0 || cport <= 0) {
                util_err(err, "lb-target printed an unexpected first line: %.200s", line);
                goto err;
            }
            t->port = port;
            t->control_port = cport;
            t->pid = t->proc.pid;
            return 0;
        }
        if (proc_poll(&t->proc)) {
            fsutil_first_line(t->stderr_path, line, sizeof line);
            return util_err(err, "lb-target exited at start: %.200s", line[0] ? line : "(no message)");
        }
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    util_err(err, "lb-target did not report its port within 5 s (see %s)", t->stderr_path);
err:
    target_stop(t, NULL);
    return -1;
}

json_t *target_control(int control_port, const char *method, const char *path, char *err)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)control_port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = net_connect_blocking(&a, err);
    if (fd < 0)
        return NULL;
    struct timeval tv = {3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    char req[256];
    int len = snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", method, path);
    json_t *j = NULL;
    size_t cap = 1 << 16, got = 0;
    char *buf = NULL;
    if (write(fd, req, (size_t)len) != len) {
        util_err(err, "lb-target control channel: write failed: %s", strerror(errno));
        goto out;
    }
    buf = util_xmalloc(cap + 1);
    for (;;) {
        if (got == cap) {
            cap *= 2;
            buf = util_xrealloc(buf, cap + 1);
        }
        ssize_t r = read(fd, buf + got, cap - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            util_err(err, "lb-target control channel: %s", strerror(errno));
            goto out;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    buf[got] = 0;
    char *body = strstr(buf, "\r\n\r\n");
    if (strncmp(buf, "HTTP/1.", 7) || !body || atoi(buf + 9) != 200) {
        util_err(err, "lb-target control channel answered %s %s with: %.80s", method, path, buf);
        goto out;
    }
    json_error_t je;
    j = json_loads(body + 4, 0, &je);
    if (!j)
        util_err(err, "lb-target control channel: bad JSON: %s", je.text);
out:
    free(buf);
    close(fd);
    return j;
}

json_t *target_call_at(const struct target *t, const char *method, const char *path, uint64_t at_ns, uint64_t *done_ns,
                       char *err)
{
    if (t->host)
        return exec_host_table(t->host)->target_call_at(t, method, path, at_ns, done_ns, err);
    if (at_ns)
        util_sleep_until_ns(at_ns);
    if (done_ns)
        *done_ns = util_now_ns();
    return target_control(t->control_port, method, path, err);
}

json_t *target_stats(const struct target *t, char *err)
{
    return target_call_at(t, "GET", "/stats", 0, NULL, err);
}

json_t *target_window(const struct target *t, char *err)
{
    return target_call_at(t, "POST", "/window", 0, NULL, err);
}

json_t *target_series(const struct target *t, uint64_t since, char *err)
{
    char path[64];
    snprintf(path, sizeof path, "/series?since=%llu", (unsigned long long)since);
    return target_call_at(t, "GET", path, 0, NULL, err);
}

json_t *target_histogram(const struct target *t, char *err)
{
    return target_call_at(t, "GET", "/histogram", 0, NULL, err);
}

json_t *target_stalls(const struct target *t, char *err)
{
    return target_call_at(t, "GET", "/stalls", 0, NULL, err);
}

json_t *target_peers(const struct target *t, char *err)
{
    return target_call_at(t, "GET", "/peers", 0, NULL, err);
}

struct hist *target_histogram_between(json_t *a, json_t *b)
{
    json_t *ba = json_object_get(a, "buckets"), *bb = json_object_get(b, "buckets");
    if ((a && !json_is_array(ba)) || !json_is_array(bb))
        return NULL;
    uint64_t highest = target_u64(b, "highest_ns");
    int sigfigs = (int)json_integer_value(json_object_get(b, "sigfigs"));
    if (a && (highest != target_u64(a, "highest_ns") || sigfigs != (int)json_integer_value(json_object_get(a, "sigfigs"))))
        return NULL;
    struct hist *h = hist_new(highest, sigfigs);
    if (!h)
        return NULL;
    /* Both lists are in ascending bucket order: walk them together. */
    size_t i = 0, na = json_array_size(ba);
    for (size_t k = 0; k < json_array_size(bb); k++) {
        json_t *e = json_array_get(bb, k);
        uint64_t v = (uint64_t)json_integer_value(json_array_get(e, 0));
        uint64_t c = (uint64_t)json_integer_value(json_array_get(e, 1));
        while (i < na && (uint64_t)json_integer_value(json_array_get(json_array_get(ba, i), 0)) < v)
            i++;
        if (i < na && (uint64_t)json_integer_value(json_array_get(json_array_get(ba, i), 0)) == v) {
            uint64_t before = (uint64_t)json_integer_value(json_array_get(json_array_get(ba, i), 1));
            c = c > before ? c - before : 0;
        }
        hist_record_n(h, v, c);
    }
    return h;
}

json_t *target_histogram_window_ms(json_t *a, json_t *b)
{
    if (!a)
        return NULL;
    struct hist *h = target_histogram_between(a, b);
    if (!h)
        return NULL;
    json_t *o = NULL;
    if (hist_count(h))
        o = json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s}", "count", (json_int_t)hist_count(h), "mean",
                      hist_mean(h) / 1e6, "p50", (double)hist_percentile(h, 50) / 1e6, "p90",
                      (double)hist_percentile(h, 90) / 1e6, "p95", (double)hist_percentile(h, 95) / 1e6, "p99",
                      (double)hist_percentile(h, 99) / 1e6, "p999", (double)hist_percentile(h, 99.9) / 1e6, "max",
                      (double)hist_max(h) / 1e6, "resolution", "bucket tops: within 0.1 %");
    hist_free(h);
    return o;
}

int target_alive(struct target *t)
{
    if (t->host)
        return t->tree && !t->tree->ex->poll(t->tree);
    return t->proc.pid > 0 && !t->proc.reaped && !proc_poll(&t->proc);
}

/* Wait up to wait_ns for lb-target to be gone. Returns 1 when it is. */
static int wait_gone(struct target *t, uint64_t wait_ns)
{
    uint64_t deadline = util_now_ns() + wait_ns;
    while (!proc_poll(&t->proc)) {
        if (util_now_ns() >= deadline)
            return 0;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    return 1;
}

int target_stop(struct target *t, char *err)
{
    if (t->host)
        return exec_host_table(t->host)->target_stop(t, err);
    if (t->proc.pid <= 0)
        return 0;
    /* A lost exit (proc.exit.unknown: wait4 said ECHILD) reads as neither
     * signaled nor a code here, and is not an error of the stop: the flag
     * stays for the caller, who warns (tool_run_exit_unknown). */
    if (t->proc.reaped || proc_poll(&t->proc)) {
        if (t->proc.exit.signaled)
            return util_err(err, "lb-target died (signal %d)", t->proc.exit.sig);
        if (t->proc.exit.code)
            return util_err(err, "lb-target exited with code %d", t->proc.exit.code);
        return 0;
    }
    kill(t->proc.pid, SIGTERM);
    if (wait_gone(t, 3000000000ull))
        return 0;
    kill(-t->proc.pid, SIGKILL);
    kill(t->proc.pid, SIGKILL);
    if (!wait_gone(t, 5000000000ull))
        return util_err(err, "lb-target (pid %d) still there 5 s after SIGKILL", (int)t->proc.pid);
    return util_err(err, "lb-target did not stop within 3 s of SIGTERM and was killed");
}

int target_rebase(struct target *t, struct sampler_reading *rd, char *err)
{
    if (!t->tree)
        return util_err(err, "lb-target runs here: sample it directly");
    return exec_host_table(t->host)->target_rebase(t, rd, err);
}

int target_sample_now(struct target *t, char *err)
{
    if (!t->tree)
        return util_err(err, "lb-target runs here: sample it directly");
    return exec_host_table(t->host)->target_sample_now(t, err);
}

uint64_t target_u64(json_t *stats, const char *key)
{
    json_t *v = json_object_get(stats, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

uint64_t target_delta(json_t *before, json_t *after, const char *key)
{
    uint64_t b = target_u64(before, key), a = target_u64(after, key);
    return a > b ? a - b : 0;
}
