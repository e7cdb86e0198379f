/* Every file a tool leaves, read the one safe way (issue 44, defect 2):
 * real captured output (tests/fixtures) parses; then each file of it in
 * turn is replaced by a FIFO nobody writes, a symbolic link to a file only
 * its owner may read, and a 1 GB file with no newline (sparse: no disk
 * used), and the adapter's parse runs in a child of its own with a 20 s
 * alarm. The result file so planted fails the parse, naming it; every
 * file, planted or not, leaves the parse quick (no hang in open, no 1 GB
 * read) with its memory bounded (the child's peak RSS over its RSS before
 * the parse). Also detection's `.origin` note beside a tool: a FIFO
 * there is not waited on (defect 3). tests/e2e/inputs.t checks the
 * sources for the same rule. */
#include "adapters/adapter.h"
#include "adapters/raw.h"
#include "tests/adapter_test.h"
#include "tests/tap.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern const struct adapter adapter_lb_gen, adapter_wrk, adapter_hey, adapter_ab, adapter_h2load, adapter_k6,
    adapter_artillery, adapter_bombardier, adapter_autocannon, adapter_siege, adapter_httperf, adapter_tsung;

#define RSS_BOUND_KB (96 * 1024) /* a 1 GB read is ten times this */
#define GIB (1ull << 30)

struct infile {
    const char *src, *name;     /* fixture file, its name in the run directory */
};

struct tcase {
    const struct adapter *a;
    const char *fixture;        /* tests/fixtures/<fixture> */
    enum load_model model;
    const char *result;         /* the file whose loss fails the parse */
    struct infile files[3];
};

static const struct tcase cases[] = {
    {&adapter_lb_gen, "lb-gen", LOAD_CLOSED, "summary.json", {{"summary.json", "summary.json"}}},
    {&adapter_wrk, "wrk", LOAD_CLOSED, "wrk.json", {{"success.json", "wrk.json"}, {"success.stdout.txt", "stdout.txt"}}},
    {&adapter_k6, "k6", LOAD_CLOSED, "summary.json",
     {{"fast-closed.summary-export.json", "summary.json"}, {"fast-closed.stdout.txt", "stdout.txt"}}},
    {&adapter_artillery, "artillery", LOAD_CLOSED, "report.json",
     {{"success.report.json", "report.json"}, {"success.stdout.txt", "stdout.txt"}}},
    {&adapter_hey, "hey", LOAD_CLOSED, "stdout.txt", {{"success.stdout.txt", "stdout.txt"}}},
    {&adapter_ab, "ab", LOAD_CLOSED, "stdout.txt",
     {{"success.stdout.txt", "stdout.txt"}, {"success.percentiles.csv", "percentiles.csv"}}},
    {&adapter_h2load, "h2load", LOAD_CLOSED, "stdout.txt",
     {{"success-log.stdout.txt", "stdout.txt"}, {"success-log.log", "h2load.log"}}},
    {&adapter_bombardier, "bombardier", LOAD_CLOSED, "stdout.txt", {{"success.stdout.txt", "stdout.txt"}}},
    {&adapter_httperf, "httperf", LOAD_CLOSED, "stdout.txt", {{"success.stdout.txt", "stdout.txt"}}},
};

/* What one parse in a child gave. */
struct outcome {
    int rc;                     /* parse's return; 99: the child died (the alarm: a hang) */
    long rss_kb;                /* peak RSS over RSS before the parse */
    double secs;
    char err[UTIL_ERR_LEN];
};

static long status_kb(const char *key)
{
    char buf[4096];
    if (fsutil_read_small("/proc/self/status", buf, sizeof buf) <= 0)
        return -1;
    const char *p = strstr(buf, key);
    return p ? atol(p + strlen(key)) : -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The parse of c in dir, in a child (a hang is its alarm, not ours). */
static void parse_child(const struct tcase *c, const char *dir, struct outcome *o)
{
    int pfd[2];
    memset(o, 0, sizeof *o);
    o->rc = 99;
    if (pipe(pfd))
        return;
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        alarm(20);
        struct profile_stage st = {.duration_ns = 5000000000ull, .target = 20};
        struct profile_load l = {.model = c->model, .stages = &st, .nstages = 1};
        struct profile p;
        memset(&p, 0, sizeof p);
        p.load = l;
        struct profile_tool t;
        memset(&t, 0, sizeof t);
        t.tool = (char *)c->a->name;
        t.options = json_object();
        struct adapter_found found = {.path = "/usr/bin/tool", .version = "0"};
        struct adapter_ctx ctx = {.profile = &p, .tool = &t, .load = &l, .found = &found, .dir = dir,
                                  .host = "127.0.0.1", .port = 18080, .url = "http://127.0.0.1:18080/"};
        struct outcome r = {.rc = 0};
        struct adapter_result res;
        adapter_result_init(&res);
        long before = status_kb("VmRSS:");
        r.rc = adapter_parse(c->a, &ctx, &res, r.err);
        r.rss_kb = status_kb("VmHWM:") - before;
        if (write(pfd[1], &r, sizeof r) != (ssize_t)sizeof r)
            _exit(3);
        _exit(0);
    }
    close(pfd[1]);
    struct outcome r;
    if (pid > 0 && read(pfd[0], &r, sizeof r) == (ssize_t)sizeof r)
        *o = r;
    close(pfd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    o->secs = now_s() - t0;
}

/* dir with c's fixtures in place. */
static const char *fill(const struct tcase *c, const char *tag)
{
    char name[128];
    snprintf(name, sizeof name, "%s-%s", c->a->name, tag);
    const char *d = fresh_dir(name);
    for (const struct infile *f = c->files; f->src; f++)
        put_fixture(c->fixture, f->src, d, f->name);
    return d;
}

/* Replace dir/name by kind: "fifo", "link" (to secret) or "1gb". */
static void plant(const char *dir, const char *name, const char *kind, const char *secret)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    if (!strcmp(kind, "fifo")) {
        mkfifo(path, 0644);
    } else if (!strcmp(kind, "link")) {
        if (symlink(secret, path))
            diag("symlink %s: failed", path);
    } else {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || ftruncate(fd, (off_t)GIB))
            diag("cannot make a 1 GB file at %s", path);
        if (fd >= 0)
            close(fd);
    }
}

static void hostile(const struct tcase *c, const char *secret)
{
    static const char *const kinds[] = {"fifo", "link", "1gb"};
    for (const struct infile *f = c->files; f->src; f++)
        for (size_t k = 0; k < 3; k++) {
            char tag[96];
            snprintf(tag, sizeof tag, "%s-%s", kinds[k], f->name);
            const char *d = fill(c, tag);
            plant(d, f->name, kinds[k], secret);
            struct outcome o;
            parse_child(c, d, &o);
            int quick = o.rc != 99 && o.secs < 10;
            if (!ok(quick && o.rss_kb < RSS_BOUND_KB, "%s, %s as a %s: ends in %.2f s, %ld kB more RSS", c->a->name,
                    f->name, kinds[k], o.secs, o.rss_kb))
                diag("  rc %d: %s", o.rc, o.err);
            if (strcmp(f->name, c->result))
                continue;
            const char *why = k == 0 ? "FIFO" : k == 1 ? "symbolic link" : "";
            if (!ok(o.rc == -1 && strstr(o.err, f->name) && strstr(o.err, why), "%s, %s as a %s: the parse fails naming it",
                    c->a->name, f->name, kinds[k]))
                diag("  rc %d: %s", o.rc, o.err);
            ok(!strstr(o.err, "lb-secret"), "%s: nothing of the linked file is read", c->a->name);
        }
}

/* Every adapter of the registry, each file its parse reads
 * (parse_files), alone in a run directory as a FIFO, a link and a 1 GB
 * file: the parse fails (there is nothing to parse), quickly, within the
 * RSS bound. */
static void every_adapter(const char *secret)
{
    static const char *const kinds[] = {"fifo", "link", "1gb"};
    for (const struct adapter *const *a = adapter_registry; *a; a++) {
        struct tcase c = {.a = *a, .model = LOAD_CLOSED};
        for (const char *const *f = (*a)->parse_files; f && *f; f++)
            for (size_t k = 0; k < 3; k++) {
                char tag[200], sub[700];
                snprintf(tag, sizeof tag, "all-%s-%zu-%.40s", kinds[k], (size_t)(f - (*a)->parse_files), (*a)->name);
                const char *d = fresh_dir(tag);
                char dir[512];
                snprintf(dir, sizeof dir, "%s", d);
                const char *slash = strrchr(*f, '/');
                if (slash) { /* tsung's log/RUN/tsung.log */
                    snprintf(sub, sizeof sub, "%s/%.*s", dir, (int)(slash - *f), *f);
                    fsutil_mkdir_p(sub, NULL);
                }
                plant(dir, *f, kinds[k], secret);
                struct outcome o;
                parse_child(&c, dir, &o);
                if (!ok(o.rc == -1 && o.secs < 10 && o.rss_kb < RSS_BOUND_KB,
                        "%s, %s alone as a %s: fails in %.2f s, %ld kB more RSS", (*a)->name, *f, kinds[k], o.secs,
                        o.rss_kb))
                    diag("  rc %d: %s", o.rc, o.err);
            }
    }
}

/* A file below the run directory reached through a linked directory (the
 * O_NOFOLLOW of the last component does not see it): Tsung's
 * log/RUN/tsung.log with log/ a link to a folder elsewhere holding a
 * readable run log. The parse refuses it, reads nothing of it. */
static void test_linked_dir(const char *secret)
{
    char out[512], path[700], text[1024];
    snprintf(out, sizeof out, "%s", fresh_dir("elsewhere")); /* fresh_dir's buffer is reused */
    snprintf(path, sizeof path, "%s/20260101-0000", out);
    fsutil_mkdir_p(path, NULL);
    snprintf(path, sizeof path, "%s/20260101-0000/tsung.log", out);
    snprintf(text, sizeof text, "# stats: dump at 1\nstats: request 10 10 1 1 1 1 1 1\n%s\n", secret);
    fsutil_write_text(path, text, NULL);
    const char *d = fresh_dir("tsung-linked-log");
    char dir[512];
    snprintf(dir, sizeof dir, "%s", d);
    snprintf(path, sizeof path, "%s/log", dir);
    if (symlink(out, path))
        diag("symlink %s failed", path);
    struct tcase c = {.a = &adapter_tsung, .model = LOAD_CLOSED};
    struct outcome o;
    parse_child(&c, dir, &o);
    if (!ok(o.rc == -1 && strstr(o.err, "through a symbolic link"), "tsung, log/ a link elsewhere: the run log is "
            "refused, not read"))
        diag("  rc %d: %s", o.rc, o.err);
}

/* A FIFO named BIN.origin beside a tool: detection does not wait on it
 * (it hung `plan` and `run` for ever), nor on a FIFO given as a tool. */
static void test_origin(void)
{
    const char *d = fresh_dir("origin");
    char bin[600], note[700];
    snprintf(bin, sizeof bin, "%s/tool", d);
    snprintf(note, sizeof note, "%s.origin", bin);
    fsutil_write_text(bin, "#!/bin/sh\nexit 0\n", NULL);
    chmod(bin, 0755);
    mkfifo(note, 0644);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(10);
        struct adapter_found found;
        memset(&found, 0, sizeof found);
        snprintf(found.path, sizeof found.path, "%s", bin);
        snprintf(found.version, sizeof found.version, "1.0");
        raw_origin(&found);
        _exit(strcmp(found.version, "1.0") ? 2 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a FIFO as BIN.origin: detection goes on without it (%s)",
       WIFSIGNALED(st) ? "killed by its alarm: it hung" : "exited");
    unlink(note);
    fsutil_write_text(note, "source, go1.19.8\nsecond line\n", NULL);
    struct adapter_found found;
    memset(&found, 0, sizeof found);
    snprintf(found.path, sizeof found.path, "%s", bin);
    snprintf(found.version, sizeof found.version, "1.0");
    raw_origin(&found);
    is_str(found.version, "1.0 (source, go1.19.8)", "a regular BIN.origin: its first line is read");
    char fifo[700], out[1024];
    snprintf(fifo, sizeof fifo, "%s/fifo-tool", d);
    mkfifo(fifo, 0755);
    chmod(fifo, 0755);
    ok(adapter_which(fifo, out, sizeof out) == -1, "a FIFO with the x bit is not a program (adapter_which)");
}

int main(void)
{
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures", adapter_datadir());
    snprintf(tmproot, sizeof tmproot, "/tmp/lb-test-inputs.XXXXXX");
    if (!mkdtemp(tmproot)) {
        ok(0, "temp dir");
        return done_testing();
    }
    char secret[600];
    snprintf(secret, sizeof secret, "%s/secret", tmproot);
    fsutil_write_text(secret, "lb-secret: only its owner reads this\n", NULL);
    chmod(secret, 0600);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct tcase *c = &cases[i];
        struct outcome o;
        parse_child(c, fill(c, "real"), &o);
        if (!ok(o.rc == 0, "%s: its real output parses", c->a->name))
            diag("  rc %d: %s", o.rc, o.err);
        hostile(c, secret);
    }
    every_adapter(secret);
    test_linked_dir(secret);
    test_origin();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmproot);
    if (system(cmd) != 0)
        diag("could not remove %s", tmproot);
    return done_testing();
}
