#include "adapters/refgen.h"
#include "adapters/raw.h"
#include "common/units.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int refgen_closed_argv(const struct adapter_ctx *c, const char *tool, const char *timeout_flag,
                       struct adapter_plan *p, char *err)
{
    struct raw_load l;
    char d[32];
    if (raw_pick_load(c, tool, p, &l, err) || raw_closed_only(tool, &l, err))
        return -1;
    uint64_t conns = (uint64_t)llround(l.level);
    if ((double)conns != l.level)
        strvec_pushf(&p->warnings, "%s runs whole connections: %.10g rounded to %llu", tool, l.level,
                     (unsigned long long)conns);
    strvec_pushf(&p->argv, "-c");
    strvec_pushf(&p->argv, "%llu", (unsigned long long)conns);
    strvec_push(&p->argv, "-d");
    strvec_push(&p->argv, units_format_duration(l.duration_ns, d));
    if (c->load->request_timeout_ns) {
        strvec_push(&p->argv, timeout_flag);
        strvec_push(&p->argv, units_format_duration(c->load->request_timeout_ns, d));
    }
    strvec_push(&p->argv, c->url);
    p->model = "closed";
    p->load_ns = l.duration_ns;
    return 0;
}

/* The last line of text that parses as a JSON object, or NULL. */
static json_t *last_json_line(const char *text)
{
    const char *end = text + strlen(text);
    while (end > text) {
        const char *start = end;
        while (start > text && start[-1] != '\n')
            start--;
        if (*start == '{') {
            json_t *j = json_loadb(start, (size_t)(end - start), 0, NULL);
            if (json_is_object(j))
                return j;
            json_decref(j);
        }
        end = start > text ? start - 1 : text;
    }
    return NULL;
}

/* The lb-refgen/1 summary in text into r; refgen_parse's work once stdout
 * is in memory (the unit tests reach it through refgen_parse, on the
 * captured outputs under tests/fixtures/). */
static int parse_text(const char *text, const char *tool, struct adapter_result *r, char *err)
{
    json_t *j = last_json_line(text);
    if (!j)
        return util_err(err, "%s printed no JSON summary on stdout", tool);
    const char *schema = json_string_value(json_object_get(j, "schema"));
    json_t *req = json_object_get(j, "requests"), *e = json_object_get(j, "errors");
    if (!schema || strcmp(schema, "lb-refgen/1")) {
        util_err(err, "%s's summary has schema \"%s\", expected lb-refgen/1", tool, schema ? schema : "(none)");
        json_decref(j);
        return -1;
    }
    if (!json_is_object(req) || !json_is_integer(json_object_get(req, "completed")) || !json_is_object(e)) {
        json_decref(j);
        return util_err(err, "%s's summary has no requests.completed or errors", tool);
    }
    raw_gen_counts(req, e, r);
    json_t *t = json_object_get(j, "time");
    r->duration_s = adapter_json_num(t, "elapsed_s");
    if (r->duration_s > 0)
        r->rps = (double)r->requests / r->duration_s;
    json_t *l = json_object_get(j, "latency_ms");
    if (json_is_object(l) && adapter_json_uint(l, "count") > 0) {
        r->lat.min = adapter_json_num(l, "min");
        r->lat.mean = adapter_json_num(l, "mean");
        r->lat.p50 = adapter_json_num(l, "p50");
        r->lat.p90 = adapter_json_num(l, "p90");
        r->lat.p95 = adapter_json_num(l, "p95");
        r->lat.p99 = adapter_json_num(l, "p99");
        r->lat.p999 = adapter_json_num(l, "p999");
        r->lat.max = adapter_json_num(l, "max");
    }
    if (json_is_true(json_object_get(j, "interrupted")))
        strvec_pushf(&r->warnings, "%s was stopped by a signal after %.3g s of load (asked for %.10g s)", tool,
                     adapter_json_num(t, "load_s"), adapter_json_num(j, "duration_s"));
    uint64_t unfinished = adapter_json_uint(req, "unfinished");
    if (unfinished)
        strvec_pushf(&r->warnings, "%s gave up on %llu request(s) still in flight at its stop (not counted)", tool,
                     (unsigned long long)unfinished);
    /* The commonest error message, so that a failed run says why. */
    json_t *msgs = json_object_get(j, "error_messages");
    const char *key, *top = NULL;
    json_t *v;
    uint64_t topn = 0;
    json_object_foreach(msgs, key, v)
    {
        if (json_is_integer(v) && (uint64_t)json_integer_value(v) > topn) {
            topn = (uint64_t)json_integer_value(v);
            top = key;
        }
    }
    if (top)
        strvec_pushf(&r->warnings, "%s: %llu x \"%.160s\"", tool, (unsigned long long)topn, top);
    r->extra = j;
    r->parsed = 1;
    return 0;
}

int refgen_parse(const struct adapter_ctx *c, const char *tool, struct adapter_result *r, char *err)
{
    char e[UTIL_ERR_LEN];
    char *out = adapter_slurp(c->dir, "stdout.txt", 1 << 20, e);
    if (!out)
        return util_err(err, "%s: %s", tool, e);
    int rc = parse_text(out, tool, r, err);
    free(out);
    if (rc) {
        /* Nothing on stdout: stderr says why (a traceback, a Go panic). */
        char *se = adapter_slurp(c->dir, "stderr.txt", 16 << 20, e);
        if (se && *se) {
            char first[160];
            snprintf(first, sizeof first, "%s", se);
            first[strcspn(first, "\n")] = 0;
            size_t n = strlen(err);
            snprintf(err + n, UTIL_ERR_LEN - n, "; stderr: %s", first);
        }
        free(se);
    }
    return rc;
}

int refgen_exec(const char *const *argv, const char *const *envp, const char *log_path, uint64_t limit_ms,
                char *err)
{
    int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return util_err(err, "cannot write %s: %s", log_path, strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        return util_err(err, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        setpgid(0, 0);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        if (envp)
            execve(argv[0], (char *const *)argv, (char *const *)envp);
        else
            execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fd);
    uint64_t deadline = util_now_ns() + limit_ms * 1000000ull;
    int status = 0, timed_out = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            kill(-pid, SIGKILL);
            return util_err(err, "waitpid: %s", strerror(errno));
        }
        if (util_now_ns() >= deadline && !timed_out) {
            kill(-pid, SIGKILL);
            timed_out = 1;
        }
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL); /* anything it left behind in its group */
    if (timed_out)
        return util_err(err, "%s took more than %llu s and was killed", argv[0], (unsigned long long)(limit_ms / 1000));
    if (WIFEXITED(status)) {
        if (WEXITSTATUS(status) == 127)
            return util_err(err, "cannot run %s", argv[0]);
        return WEXITSTATUS(status);
    }
    return util_err(err, "%s was killed by signal %d", argv[0], WTERMSIG(status));
}
