#include "remote/agentproto.h"
#include "common/sha256.h"
#include "common/util.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- lines ---------------------------------------------------------------------- */

int agentproto_fill(struct agentproto_reader *r)
{
    if (r->off > 0 && r->off == r->len)
        r->off = r->len = 0;
    if (r->off > r->cap / 2) {
        memmove(r->buf, r->buf + r->off, r->len - r->off);
        r->len -= r->off;
        r->off = 0;
    }
    if (r->cap - r->len < 65536) {
        r->cap = r->cap ? r->cap * 2 : 131072;
        r->buf = util_xrealloc(r->buf, r->cap + 1);
    }
    ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? 1 : -1;
    if (n == 0)
        r->eof = 1;
    r->len += (size_t)n;
    return (int)n;
}

char *agentproto_line(struct agentproto_reader *r, int *too_long)
{
    *too_long = 0;
    for (;;) {
        char *start = r->buf + r->off, *nl = r->len > r->off ? memchr(start, '\n', r->len - r->off) : NULL;
        if (!nl) {
            if (r->len - r->off > AGENTPROTO_LINE_MAX_BYTES) {
                r->off = r->len;
                *too_long = 1;
            }
            return NULL;
        }
        *nl = 0;
        r->off = (size_t)(nl - r->buf) + 1;
        if (nl > start && nl[-1] == '\r')
            nl[-1] = 0;
        return start;
    }
}

void agentproto_reader_free(struct agentproto_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    r->len = r->cap = r->off = 0;
}

void agentproto_writer_init(struct agentproto_writer *w, int fd)
{
    w->fd = fd;
    pthread_mutex_init(&w->mu, NULL);
}

void agentproto_writer_destroy(struct agentproto_writer *w)
{
    pthread_mutex_destroy(&w->mu);
}

/* All of buf, to a socket without SIGPIPE or to a pipe (whose writer
 * ignores SIGPIPE: the agent does). */
static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int agentproto_send(struct agentproto_writer *w, const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    if (!s)
        return -1;
    size_t n = strlen(s);
    s = util_xrealloc(s, n + 2);
    s[n] = '\n';
    pthread_mutex_lock(&w->mu);
    int rc = write_all(w->fd, s, n + 1);
    pthread_mutex_unlock(&w->mu);
    free(s);
    return rc;
}

/* ---- identity ------------------------------------------------------------------- */

int agentproto_identity(const char *path, char sha256[65], char *err)
{
    if (!path)
        path = "/proc/self/exe";
    if (sha256_file_hex(path, sha256))
        return util_err(err, "cannot read %s to take its sha256: %s", path, strerror(errno));
    return 0;
}

int agentproto_check_peer(const json_t *hello, const char *who, const char *our_sha256, const char *fix, char *err)
{
    const char *v = json_string_value(json_object_get(hello, "version"));
    const char *sha = json_string_value(json_object_get(hello, "sha256"));
    json_int_t proto = json_integer_value(json_object_get(hello, "proto"));
    if (proto == AGENTPROTO_VERSION && v && sha && !strcmp(v, LB_VERSION) && !strcmp(sha, our_sha256))
        return 0;
    return util_err(err,
                    "%s runs loadbench %s (sha256 %.12s, protocol %lld), not this build (%s, sha256 %.12s, "
                    "protocol %d): run `%s`",
                    who, v ? v : "?", sha ? sha : "?", (long long)proto, LB_VERSION, our_sha256, AGENTPROTO_VERSION,
                    fix ? fix : "loadbench hosts install");
}

/* ---- the build's files ----------------------------------------------------------- */

/* The data subdirectories whose files a host runs from its copy. */
static const char *const build_data[] = {"adapters", "refgen"};

const char *const agentproto_build_progs[] = {"lb-target", "lb-gen", NULL};

/* Every file in a subdirectory of datadir/sub (the adapters' own .c files,
 * directly in adapters/, are sources, not support files) into m as
 * "share/loadbench/SUB/REST": sha256. */
static void build_data_files(json_t *m, const char *datadir, const char *sub)
{
    char dir[PATH_MAX], e[UTIL_ERR_LEN], sha[65];
    snprintf(dir, sizeof dir, "%s/%s", datadir, sub);
    size_t n = strlen(dir), i;
    json_t *list = agentproto_list(dir, e), *x;
    json_array_foreach(list, i, x)
    {
        const char *path = json_string_value(json_object_get(x, "path"));
        if (strncmp(path, dir, n) || path[n] != '/' || !strchr(path + n + 1, '/'))
            continue;
        char *rel = util_xasprintf("share/loadbench/%s/%s", sub, path + n + 1);
        json_object_set_new(m, rel, json_string(sha256_file_hex(path, sha) ? "unreadable" : sha));
        free(rel);
    }
    json_decref(list); /* a directory that is not there has nothing */
}

json_t *agentproto_build_files(const char *bindir, const char *datadir)
{
    json_t *m = json_object();
    char path[PATH_MAX], sha[65], rel[64];
    for (size_t i = 0; agentproto_build_progs[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", bindir, agentproto_build_progs[i]);
        snprintf(rel, sizeof rel, "bin/%s", agentproto_build_progs[i]);
        json_object_set_new(m, rel, json_string(sha256_file_hex(path, sha) ? "missing" : sha));
    }
    for (size_t d = 0; d < sizeof build_data / sizeof *build_data; d++)
        build_data_files(m, datadir, build_data[d]);
    return m;
}

void agentproto_build_path(const char *rel, const char *bindir, const char *datadir, char *out, size_t len)
{
    if (!strncmp(rel, "bin/", 4))
        snprintf(out, len, "%s/%s", bindir, rel + 4);
    else
        snprintf(out, len, "%s/%s", datadir, rel + strlen("share/loadbench/"));
}

int agentproto_check_files(const json_t *ours, const json_t *theirs, const char *who, const char *fix, char *err)
{
    const char *rel;
    json_t *v;
    json_object_foreach((json_t *)ours, rel, v)
    {
        const char *here = json_string_value(v), *there = json_string_value(json_object_get(theirs, rel));
        if (there && !strcmp(here, there))
            continue;
        return util_err(err,
                        "%s: its %s is not this build's (sha256 %.12s there, %.12s here): run `%s`",
                        who, rel, there ? there : "missing", here, fix);
    }
    return 0;
}

/* ---- files ---------------------------------------------------------------------- */

/* nftw has no user argument: the walk's state goes through thread-locals,
 * set and cleared by agentproto_list around the walk. */
static __thread json_t *list_files;
static __thread const char *list_home;

static int list_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type == FTW_D && !strcmp(path, list_home))
        return FTW_SKIP_SUBTREE;
    if (type == FTW_F && S_ISREG(st->st_mode))
        json_array_append_new(list_files, json_pack("{s:s, s:I}", "path", path, "size", (json_int_t)st->st_size));
    return FTW_CONTINUE;
}

json_t *agentproto_list(const char *dir, char *err)
{
    char home[PATH_MAX + 8];
    snprintf(home, sizeof home, "%s/home", dir);
    list_files = json_array();
    list_home = home;
    int rc = nftw(dir, list_one, 16, FTW_PHYS | FTW_ACTIONRETVAL);
    json_t *files = list_files;
    list_files = NULL;
    list_home = NULL;
    if (rc) {
        json_decref(files);
        util_err(err, "cannot list %s: %s", dir, strerror(errno));
        return NULL;
    }
    return files;
}

/* ---- structs as JSON ------------------------------------------------------------ */

uint64_t agentproto_u64(const json_t *o, const char *key)
{
    return (uint64_t)json_integer_value(json_object_get(o, key));
}

static double num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static int i32(const json_t *o, const char *key)
{
    return (int)json_integer_value(json_object_get(o, key));
}

#define U(x) ((json_int_t)(x))

json_t *agentproto_reading_json(const struct sampler_reading *r)
{
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:i,s:I,s:I,s:I,s:I,s:I,s:i,s:i}", "t_ns", U(r->t_ns), "cpu_ticks",
                     U(r->cpu_ticks), "cpu_user_ticks", U(r->cpu_user_ticks), "cpu_sys_ticks", U(r->cpu_sys_ticks),
                     "cpu_ns", U(r->cpu_ns), "cpu_user_ns", U(r->cpu_user_ns), "cpu_sys_ns", U(r->cpu_sys_ns),
                     "cpu_from_cgroup", r->cpu_from_cgroup, "rss_bytes", U(r->rss_bytes), "max_proc_rss_bytes",
                     U(r->max_proc_rss_bytes), "hwm_bytes", U(r->hwm_bytes), "write_bytes", U(r->write_bytes),
                     "wchar_bytes", U(r->wchar_bytes), "nprocs", r->nprocs, "nthreads", r->nthreads);
}

void agentproto_reading_from(const json_t *j, struct sampler_reading *r)
{
    *r = (struct sampler_reading){
        .t_ns = agentproto_u64(j, "t_ns"), .cpu_ticks = agentproto_u64(j, "cpu_ticks"),
        .cpu_user_ticks = agentproto_u64(j, "cpu_user_ticks"), .cpu_sys_ticks = agentproto_u64(j, "cpu_sys_ticks"),
        .cpu_ns = agentproto_u64(j, "cpu_ns"), .cpu_user_ns = agentproto_u64(j, "cpu_user_ns"),
        .cpu_sys_ns = agentproto_u64(j, "cpu_sys_ns"), .cpu_from_cgroup = i32(j, "cpu_from_cgroup"),
        .rss_bytes = agentproto_u64(j, "rss_bytes"), .max_proc_rss_bytes = agentproto_u64(j, "max_proc_rss_bytes"),
        .hwm_bytes = agentproto_u64(j, "hwm_bytes"), .write_bytes = agentproto_u64(j, "write_bytes"),
        .wchar_bytes = agentproto_u64(j, "wchar_bytes"), .nprocs = i32(j, "nprocs"), .nthreads = i32(j, "nthreads")};
}

json_t *agentproto_point_json(const struct sampler_point *p)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:i,s:i,s:f,s:f,s:f}", "t_s", p->t_s, "interval_s", p->interval_s,
                     "cpu_pct", p->cpu_pct, "cpu_user_pct", p->cpu_user_pct, "cpu_sys_pct", p->cpu_sys_pct, "rss_mb",
                     p->rss_mb, "nprocs", p->nprocs, "nthreads", p->nthreads, "write_mb_s", p->write_mb_s,
                     "thread_max_pct", p->thread_max_pct, "wait_pct", p->wait_pct);
}

void agentproto_point_from(const json_t *j, struct sampler_point *p)
{
    *p = (struct sampler_point){.t_s = num(j, "t_s"), .interval_s = num(j, "interval_s"), .cpu_pct = num(j, "cpu_pct"),
                                .cpu_user_pct = num(j, "cpu_user_pct"), .cpu_sys_pct = num(j, "cpu_sys_pct"),
                                .rss_mb = num(j, "rss_mb"), .nprocs = i32(j, "nprocs"), .nthreads = i32(j, "nthreads"),
                                .write_mb_s = num(j, "write_mb_s"), .thread_max_pct = num(j, "thread_max_pct"),
                                .wait_pct = num(j, "wait_pct")};
}

json_t *agentproto_summary_json(const struct sampler_summary *s)
{
    return json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:i,s:i,s:f}", "npoints", s->npoints, "cpu_avg_pct", s->cpu_avg_pct,
                     "cpu_peak_pct", s->cpu_peak_pct, "rss_peak_mb", s->rss_peak_mb, "rss_avg_mb", s->rss_avg_mb,
                     "max_proc_hwm_mb", s->max_proc_hwm_mb, "procs_peak", s->procs_peak, "threads_peak",
                     s->threads_peak, "write_mb", s->write_mb);
}

void agentproto_summary_from(const json_t *j, struct sampler_summary *s)
{
    *s = (struct sampler_summary){.npoints = i32(j, "npoints"), .cpu_avg_pct = num(j, "cpu_avg_pct"),
                                  .cpu_peak_pct = num(j, "cpu_peak_pct"), .rss_peak_mb = num(j, "rss_peak_mb"),
                                  .rss_avg_mb = num(j, "rss_avg_mb"), .max_proc_hwm_mb = num(j, "max_proc_hwm_mb"),
                                  .procs_peak = i32(j, "procs_peak"), .threads_peak = i32(j, "threads_peak"),
                                  .write_mb = num(j, "write_mb")};
}

json_t *agentproto_exit_json(const struct exec_exit *e)
{
    return json_pack("{s:i,s:i,s:i,s:i,s:f,s:I,s:b}", "exited", e->exited, "code", e->code, "signaled", e->signaled,
                     "sig", e->sig, "cpu_s", e->cpu_s, "maxrss_kb", U(e->maxrss_kb), "unknown", e->unknown);
}

/* An agent from before "unknown" sends none: its exits were known. */
void agentproto_exit_from(const json_t *j, struct exec_exit *e)
{
    *e = (struct exec_exit){.exited = i32(j, "exited"), .code = i32(j, "code"), .signaled = i32(j, "signaled"),
                            .sig = i32(j, "sig"), .cpu_s = num(j, "cpu_s"), .maxrss_kb = agentproto_u64(j, "maxrss_kb"),
                            .unknown = json_is_true(json_object_get(j, "unknown"))};
}
