#include "engine/hostread.h"
#include "engine/crosscheck.h"
#include "common/jsonutil.h"

#define U(x) ((json_int_t)(x))

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

/* loadbench's whole tree here (itself, and lb-target or the tools it
 * started), for the gate: what is not background. */
static double tree_cpu_s(void)
{
    struct sampler_tree *t = sampler_tree_new(getpid(), NULL, NULL);
    struct sampler_reading rd;
    struct sampler_point pt;
    double s = t && sampler_tree_sample(t, &rd, &pt) >= 0 ? (double)rd.cpu_ns / 1e9 : NAN;
    sampler_tree_free(t);
    return s;
}

/* The inodes of the sockets listening on port in /proc/net/tcp and
 * tcp6, up to max. Returns how many. */
static size_t listen_inodes(int port, unsigned long *ino, size_t max)
{
    static const char *const files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    size_t n = 0;
    for (size_t f = 0; f < 2; f++) {
        FILE *fp = fopen(files[f], "re");
        char line[512], local[64];
        unsigned st, lport;
        unsigned long inode;
        while (fp && fgets(line, sizeof line, fp))
            if (sscanf(line, " %*d: %63s %*s %x %*s %*s %*s %*s %*s %lu", local, &st, &inode) == 3 && st == 0x0A &&
                strchr(local, ':') && sscanf(strrchr(local, ':') + 1, "%x", &lport) == 1 && (int)lport == port &&
                n < max)
                ino[n++] = inode;
        if (fp)
            fclose(fp);
    }
    return n;
}

/* 1 when process pid holds a socket of ino[0..n). */
static int holds_socket(const char *pid, const unsigned long *ino, size_t n)
{
    char dir[300], path[PATH_MAX], link[64];
    snprintf(dir, sizeof dir, "/proc/%s/fd", pid);
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d))) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t len = readlink(path, link, sizeof link - 1);
        unsigned long x;
        link[len > 0 ? len : 0] = 0;
        for (size_t i = 0; i < n && sscanf(link, "socket:[%lu]", &x) == 1; i++)
            found |= x == ino[i];
    }
    if (d)
        closedir(d);
    return found;
}

/* The process group of pid (from /proc/PID/stat), or -1. */
static pid_t pgrp_of(const char *pid)
{
    char path[300], buf[1024];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *fp = fopen(path, "re");
    size_t len = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    if (fp)
        fclose(fp);
    buf[len] = 0;
    char *rp = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
    int pg;
    return rp && sscanf(rp + 1, " %*c %*d %d", &pg) == 1 ? (pid_t)pg : -1;
}

int hostread_listener_in_group(int port, pid_t pgid)
{
    unsigned long ino[16];
    size_t n = listen_inodes(port, ino, 16);
    DIR *d = n && pgid > 0 ? opendir("/proc") : NULL;
    struct dirent *e;
    int ours = 0;
    while (d && !ours && (e = readdir(d)))
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && pgrp_of(e->d_name) == pgid)
            ours = holds_socket(e->d_name, ino, n);
    if (d)
        closedir(d);
    return ours;
}

int hostread_local(pid_t pid, struct hostread *out)
{
    memset(out, 0, sizeof *out);
    if (netstat_read_pid(pid, &out->ns, out->err) || sampler_machine_read(&out->m, out->err))
        return -1;
    quiet_psi_read(&out->psi);
    out->self_cpu_s = sampler_self_cpu_s();
    out->tree_cpu_s = tree_cpu_s();
    out->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    out->ok = 1;
    return 0;
}

int hostread_take(struct exec_host *h, pid_t pid, struct hostread *out)
{
    return h ? exec_host_table(h)->reading(h, pid, out) : hostread_local(pid, out);
}

struct hostread_host *hostread_set_add(struct hostread_set *s, const char *name, struct exec_host *h)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].h == h)
            return &s->v[i];
    if (s->n == sizeof s->v / sizeof s->v[0])
        return NULL;
    struct hostread_host *e = &s->v[s->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", h ? exec_host_name(h) : name ? name : "controller");
    e->h = h;
    e->tool_cpu_s = e->target_cpu_s = 0;
    s->remote |= h != NULL;
    return e;
}

void hostread_set_read(struct hostread_set *s, int after)
{
    for (size_t i = 0; i < s->n; i++)
        hostread_take(s->v[i].h, s->v[i].pid, after ? &s->v[i].r1 : &s->v[i].r0);
}

/* One gate interval on every host: each one's background since prev
 * (updated). Returns 1 when every host read is below the bar. */
static int gate_step(struct hostread_set *s, struct hostread *prev, const struct profile_quiet *q)
{
    int all_below = 1;
    for (size_t i = 0; i < s->n; i++) {
        struct hostread cur;
        if (hostread_take(s->v[i].h, s->v[i].pid, &cur)) {
            /* A host that does not answer fails its row later, with the
             * reason; it is never read as quiet. */
            all_below = 0;
            continue;
        }
        if (prev[i].ok) {
            double steal;
            s->v[i].gate.background_pct =
                quiet_background_pct(&prev[i].m, &cur.m, cur.tree_cpu_s - prev[i].tree_cpu_s, &steal);
            if (!(s->v[i].gate.background_pct < q->busy_below_pct))
                all_below = 0;
        } else {
            all_below = 0;
        }
        s->v[i].gate.psi = cur.psi;
        prev[i] = cur;
    }
    return all_below;
}

void hostread_set_gate(struct hostread_set *s, const struct profile_quiet *q, volatile sig_atomic_t *stop)
{
    uint64_t t0 = util_now_ns();
    struct hostread prev[sizeof s->v / sizeof s->v[0]];
    const char *verdict = "off";
    for (size_t i = 0; i < s->n; i++) {
        s->v[i].gate = (struct quiet_gate){.verdict = "off", .background_pct = NAN};
        if (q->wait_max_ns)
            hostread_take(s->v[i].h, s->v[i].pid, &prev[i]);
    }
    for (int below = 0; q->wait_max_ns;) {
        util_sleep_until_ns(util_now_ns() + q->interval_ns);
        if (*stop) {
            verdict = "interrupted";
            break;
        }
        below = gate_step(s, prev, q) ? below + 1 : 0;
        if (below >= 2 || util_now_ns() - t0 >= q->wait_max_ns) {
            verdict = below >= 2 ? "quiet" : "timed out";
            break;
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        s->v[i].gate.verdict = verdict;
        s->v[i].gate.waited_s = (double)(util_now_ns() - t0) / 1e9;
    }
}

/* Appends each of from's warnings to to as "host NAME: ...". */
static void warn_named(json_t *to, json_t *from, const char *name)
{
    size_t i;
    json_t *w;
    json_array_foreach(from, i, w)
    {
        json_array_append_new(to, json_sprintf("host %s: %s", name, json_string_value(w)));
    }
    json_decref(from);
}

/* One host's readings over the run. */
static json_t *host_json(const struct hostread_host *e, const struct profile_quiet *q, json_t *warnings,
                         int *disturbed)
{
    const struct hostread *a = &e->r0, *b = &e->r1;
    if (!a->ok || !b->ok)
        return json_pack("{s:s}", "error", !a->ok ? a->err : b->err);
    json_t *w = json_array(), *o = json_object();
    double self_s = b->self_cpu_s - a->self_cpu_s;
    json_object_set_new(o, "tcp", netstat_delta_json(&a->ns, &b->ns, w));
    json_object_set_new(o, "machine_cpu", crosscheck_machine_json_n(&a->m, &b->m, b->ncpu, e->tool_cpu_s, e->target_cpu_s,
                                                                             self_s, w));
    json_object_set_new(o, "quiet", quiet_run_json(q, &e->gate, &a->m, &b->m, e->tool_cpu_s + e->target_cpu_s + self_s,
                                                   &b->psi, w, disturbed));
    json_object_set_new(o, "ncpu", json_integer(b->ncpu));
    warn_named(warnings, w, e->name);
    return o;
}

json_t *hostread_set_json(const struct hostread_set *s, const struct profile_quiet *q, json_t *warnings,
                          int *disturbed, json_t **tcp_sum)
{
    json_t *o = json_object();
    uint64_t lo = 0, ld = 0, rs = 0, lp = 0;
    int nread = 0;
    *disturbed = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct hostread_host *e = &s->v[i];
        int d = 0;
        json_object_set_new(o, e->name, host_json(e, q, warnings, &d));
        *disturbed |= d;
        if (e->r0.ok && e->r1.ok) {
            lo += e->r1.ns.listen_overflows - e->r0.ns.listen_overflows;
            ld += e->r1.ns.listen_drops - e->r0.ns.listen_drops;
            rs += e->r1.ns.retrans_segs - e->r0.ns.retrans_segs;
            lp += e->r1.ns.loss_probes - e->r0.ns.loss_probes;
            nread++;
        }
    }
    *tcp_sum = nread ? json_pack("{s:I, s:I, s:I, s:I, s:s}", "listen_overflows", U(lo), "listen_drops", U(ld),
                                 "retrans_segs", U(rs), "loss_probes", U(lp), "from",
                                 "the sum of each host's own (hosts.NAME.tcp)")
                     : NULL;
    return o;
}
