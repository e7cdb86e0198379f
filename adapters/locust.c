/* The adapter for Locust: PyPI's 2.47.0 in the tools folder's venv/locust
 * (scripts/install-tools, hash-pinned) by default, Debian 12's
 * python3-locust 2.12.1 (/usr/bin/locust) through a profile's bin:. The
 * fixtures in tests/fixtures/locust/ (2.47.0) and its 2.12.1/ are their
 * real output.
 *
 * A generated locustfile.py (HttpUser, one GET task) runs headless: -u/-r/-t
 * for a constant closed load, a LoadTestShape for stages. Locust has no open
 * model: a rate becomes users paced with constant_throughput (a closed loop
 * slowed to a rate: "paced"). Results come only from the quit-event hook
 * adapters/locust/lb_hook.py (copied beside the locustfile), which writes
 * Locust's final totals as JSON; its --csv files lag the totals. */
#include "adapters/adapter.h"
#include "common/fsutil.h"
#include "adapters/raw.h"
#include "common/units.h"
#include "common/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOC_FILE "locustfile.py"
#define LOC_HOOK "lb_hook.py"
#define LOC_OUT "locust.json"

/* users: the number of paced users for a rate (default: enough for the
 * target's delay four times over). */
static const char *const loc_options[] = {"users", NULL};

/* The Python that runs the Locust at path, into py: the interpreter its #!
 * line names by absolute path (the tools folder's venv/locust/bin/python3,
 * Debian's /usr/bin/python3). The one place that says which Python runs
 * Locust: the kernel runs the same line when loadbench runs path, and
 * detection asks the same interpreter for the version. A #! through
 * /usr/bin/env (the first python3 on PATH, which need not be Locust's) or
 * none is refused, and so is a path that is not a regular file (a FIFO is
 * refused, never waited on). Returns 0, or -1 with err. */
static int loc_python(const char *path, char *py, size_t pylen, char *err)
{
    char real[PATH_MAX], line[512] = "", why[UTIL_ERR_LEN];
    if (!realpath(path, real))
        return util_err(err, "locust \"%s\": %s", path, strerror(errno));
    FILE *f = fsutil_fopen_input(real, 1 << 20, why);
    if (!f)
        return util_err(err, "locust \"%s\" is not a script loadbench can read (%.200s)", path, why);
    char *first = NULL;
    size_t cap = 0;
    if (fsutil_getline(&first, &cap, f, sizeof line - 1) > 0)
        snprintf(line, sizeof line, "%s", first);
    free(first);
    fclose(f);
    line[strcspn(line, "\r\n")] = 0;
    char *s = line;
    if (!strncmp(s, "#!", 2)) {
        s += 2 + strspn(s + 2, " \t");
        s[strcspn(s, " \t")] = 0;
    }
    if (s == line || s[0] != '/' || !strcmp(strrchr(s, '/'), "/env"))
        return util_err(err, "locust \"%s\" does not name its Python by path in its #! line (%.100s): "
                        "loadbench runs the Locust of a venv or of a package, never the first python3 on PATH",
                        path, line[0] ? line : "empty");
    snprintf(py, pylen, "%s", s);
    return 0;
}

/* "locust 2.47.0 from /…/site-packages/locust (Python 3.11.2)": the word
 * after "locust ", or "" (Debian's 2.12.1 prints "locust "). */
static void loc_version_word(const char *out, char *v, size_t vlen)
{
    v[0] = 0;
    if (strncmp(out, "locust ", 7))
        return;
    int n = (int)strcspn(out + 7, " \t\r\n");
    snprintf(v, vlen, "%.*s", n > 100 ? 100 : n, out + 7);
}

/* Whether the script at path is Debian's python3-locust's (dpkg -S). */
static int loc_debian(const char *path)
{
    char real[PATH_MAX], out[512];
    if (!realpath(path, real))
        return 0;
    const char *argv[] = {"dpkg-query", "-S", real, NULL};
    return adapter_capture(argv, out, sizeof out) == 0 && !strncmp(out, "python3-locust: ", 16);
}

static int loc_detect(const char *bin, struct adapter_found *found, char *err)
{
    /* The tools folder's (scripts/install-tools: PyPI's, in venv/locust),
     * then PATH (Debian's /usr/bin/locust). */
    static const char *const cands[] = {"T:bin/locust", "locust", NULL};
    if (raw_find("locust", bin, cands, found, err))
        return -1;
    char py[512], out[512] = "", v[128];
    if (loc_python(found->path, py, sizeof py, err))
        return -1;
    /* PyPI's says its version. Debian's 2.12.1 prints an empty one, and so
     * does its locust.__version__ (the dist-info says 0.0.0): dpkg's, when
     * the script is that package's (never for another Locust: a --version
     * that timed out must not turn the venv's into Debian's), else Locust's
     * own interpreter's answer. */
    const char *lv[] = {found->path, "--version", NULL};
    int rc = adapter_capture(lv, out, sizeof out);
    loc_version_word(out, v, sizeof v);
    if (rc == 0 && v[0]) {
        snprintf(found->version, sizeof found->version, "%s", v);
        raw_origin(found); /* scripts/install-tools' note, if it left one */
        return 0;
    }
    if (loc_debian(found->path) && adapter_dpkg_version("python3-locust", found) == 0)
        return 0;
    char pout[512];
    const char *pv[] = {py, "-c", "import locust; print(locust.__version__)", NULL};
    if (adapter_capture(pv, pout, sizeof pout) == 0) {
        pout[strcspn(pout, "\r\n")] = 0;
        if (pout[0] && strcmp(pout, "0.0.0")) {
            snprintf(found->version, sizeof found->version, "%.100s", pout);
            return 0;
        }
    }
    if (rc != 0)
        return util_err(err, "`%s --version` failed (exit %d): %.150s", found->path, rc, out);
    snprintf(found->version, sizeof found->version, "unknown");
    return 0;
}

static int copy_hook(const char *dir, char *err)
{
    char src[PATH_MAX + 64];
    snprintf(src, sizeof src, "%s/adapters/locust/%s", adapter_datadir(), LOC_HOOK);
    char *text = adapter_slurp(NULL, src, 1 << 20, err);
    if (!text)
        return util_err(err, "the Locust hook %s is missing (set LOADBENCH_DATA to the source tree)", src);
    int rc = adapter_write(dir, LOC_HOOK, text, err);
    free(text);
    return rc;
}

/* Debian's Locust 2.12.1 has an empty __version__: a worker says "" when
 * it connects, and the master refuses it as "an old (pre 2.0) worker".
 * Both sides get the detected version instead (the same string; PyPI's
 * 2.47.0 has its own, which the patch leaves alone). The
 * patch goes before the class body, which the textbuf is in the middle
 * of: it is written at the class's indentation as a statement that runs
 * at import. */
static void loc_version_patch(struct textbuf *y, const char *version)
{
    textbuf_printf(y, "    # Debian's Locust has an empty __version__, which its master takes for a pre-2.0\n"
                      "    # worker's and refuses: master and workers say the detected version instead.\n"
                      "    import locust.runners as _lb_runners\n"
                      "    if not _lb_runners.__version__:\n"
                      "        _lb_runners.__version__ = \"%s\"\n\n",
                   version);
}

/* Locust's own distributed mode: instance 0 is the master (it binds the
 * group's port on the group's host, 127.0.0.1 or its host's load address
 * when it runs on a hosts: entry, and waits for every worker before it
 * starts the users), 1..N are workers that connect to it there. */
static void loc_distributed_args(const struct adapter_ctx *c, struct adapter_plan *p)
{
    /* Ours carry the run's nonce in every report (lb_hook.py): the master
     * tells them from a worker started elsewhere that finds its port. */
    if (c->group_nonce)
        strvec_pushf(&p->env, "LB_LOCUST_NONCE=%s", c->group_nonce);
    if (c->instance == 0) {
        strvec_push(&p->argv, "--master");
        strvec_pushf(&p->argv, "--expect-workers=%u", c->instances);
        strvec_pushf(&p->argv, "--master-bind-host=%s", c->group_host ? c->group_host : "127.0.0.1");
        strvec_pushf(&p->argv, "--master-bind-port=%d", c->group_port);
        p->ready_port = c->group_port;
        json_object_set_new(p->settings, "workers", json_integer(c->instances));
    } else {
        strvec_push(&p->argv, "--worker");
        strvec_pushf(&p->argv, "--master-host=%s", c->group_host ? c->group_host : "127.0.0.1");
        strvec_pushf(&p->argv, "--master-port=%d", c->group_port);
    }
}

/* The users of an open load (paced users for a rate: each runs at
 * peak/users per second): the users option, else load.max_inflight, else
 * four times what the target's delay holds at the peak. Returns the count,
 * or 0 with err filled. */
static uint64_t loc_users(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    const struct profile_load *l = c->load;
    const char *uo = adapter_option(c, "users");
    if (l->model != LOAD_OPEN) {
        if (uo)
            strvec_push(&p->warnings, "locust option users ignored: the closed model's users are the profile's connections");
        return 1;
    }
    if (uo) {
        char *end;
        uint64_t users = strtoull(uo, &end, 10);
        if (!*uo || *end || users == 0) {
            util_err(err, "locust option users=\"%s\": want a positive number of users", uo);
            return 0;
        }
        return users;
    }
    if (l->max_inflight)
        return l->max_inflight;
    return raw_paced_workers(c->profile, profile_load_peak(l));
}

/* Stages (closed: users; paced: users in proportion to the rate) as a
 * LoadTestShape. */
static void loc_shape(const struct profile_load *l, uint64_t users, struct textbuf *y)
{
    double peak = profile_load_peak(l);
    textbuf_printf(y,
            "\n\n# Stages: (end time s, users, spawn rate users/s); Locust moves to each\n"
            "# stage's users at its rate, and stops when the last stage ends.\n"
            "STAGES = [\n");
    double from = 0, t = 0;
    for (size_t i = 0; i < l->nstages; i++) {
        double dur = (double)l->stages[i].duration_ns / 1e9;
        double to = l->model == LOAD_OPEN ? round((double)users * l->stages[i].target / peak) : l->stages[i].target;
        double rate = fabs(to - from) / dur;
        if (!l->ramped && i == 0)
            rate = to; /* a constant load: all users at once */
        if (rate <= 0)
            rate = 1;
        t += dur;
        textbuf_printf(y, "    (%.10g, %.0f, %.10g),\n", t, to, rate);
        from = to;
    }
    textbuf_printf(y,
            "]\n\n\n"
            "class LbShape(LoadTestShape):\n"
            "    def tick(self):\n"
            "        now = self.get_run_time()\n"
            "        for end, users, rate in STAGES:\n"
            "            if now < end:\n"
            "                return (int(users), rate)\n"
            "        return None\n");
}

/* The one GET task. With check: as Locust users write it, catch_response
 * and the status judged by hand: the code asked for is a success (even a
 * 404), any other response a failure whose text starts with its status
 * ("200 status, not 404"), so the parse counts it as a status error; a
 * request without a response (status_code 0) keeps Locust's own error. */
static void loc_task(struct textbuf *y, const struct profile_load *l, int status, int post)
{
    char tmo[160] = "";
    if (l->request_timeout_ns)
        snprintf(tmo, sizeof tmo, ", timeout=%.10g", (double)l->request_timeout_ns / 1e9);
    if (post) /* the body read once at import, beside the locustfile */
        snprintf(tmo + strlen(tmo), sizeof tmo - strlen(tmo), ", data=BODY, headers=HEADERS");
    const char *call = post ? "post" : "get";
    textbuf_printf(y, "\n    @task\n    def %s(self):\n", call);
    if (!status) {
        textbuf_printf(y, "        self.client.%s(\"/\"%s)\n", call, tmo);
        return;
    }
    textbuf_printf(y,
            "        with self.client.%s(\"/\"%s, catch_response=True) as r:\n"
            "            if r.status_code == %d:\n"
            "                r.success()\n"
            "            elif r.status_code:\n"
            "                r.failure(\"%%d status, not %d\" %% r.status_code)\n",
            call, tmo, status, status);
}

/* The locustfile: one HttpUser with one GET task, paced for a rate, and
 * the shape when shaped. Returns 0, or -1 with err. */
static int loc_file(const struct adapter_ctx *c, uint64_t users, int shaped, struct adapter_plan *p, char *err)
{
    const struct profile_load *l = c->load;
    struct textbuf y = {0};
    textbuf_printf(&y,
            "# Generated by loadbench for profile \"%s\": one HttpUser, one GET task.\n"
            "import os\n\n"
            "import lb_hook  # noqa: F401  (writes Locust's final totals to $LB_LOCUST_OUT)\n"
            "from locust import HttpUser, LoadTestShape, constant, constant_throughput, task\n\n\n",
            c->profile->name ? c->profile->name : "");
    int post = adapter_body_file(c, p, err);
    if (post < 0) {
        textbuf_free(&y);
        return -1;
    }
    if (post)
        textbuf_printf(&y, "with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), \"" ADAPTER_BODY_FILE
                       "\"), \"rb\") as f:\n"
                       "    BODY = f.read()\n"
                       "HEADERS = {\"Content-Type\": \"" ADAPTER_BODY_TYPE "\"}\n\n\n");
    textbuf_printf(&y, "class LbUser(HttpUser):\n");
    if (c->instances > 1)
        loc_version_patch(&y, c->found->version);
    if (l->model == LOAD_OPEN)
        textbuf_printf(&y, "    wait_time = constant_throughput(%.10g)\n", profile_load_peak(l) / (double)users);
    else
        textbuf_printf(&y, "    wait_time = constant(0)\n");
    if (c->ca_file) /* HttpUser sets client.trust_env = False: REQUESTS_CA_BUNDLE would go unread */
        textbuf_printf(&y, "\n    def on_start(self):\n"
                       "        self.client.verify = os.environ[\"LB_LOCUST_CA\"]  # the run's CA\n");
    loc_task(&y, l, c->profile->check.status, post);
    if (shaped)
        loc_shape(l, users, &y);
    int rc = adapter_write(c->dir, LOC_FILE, y.s, err);
    textbuf_free(&y);
    if (rc)
        return -1;
    strvec_push(&p->files, LOC_FILE);
    return 0;
}

/* The master's (or the one process's) command line, environment, model,
 * warnings and settings. */
static void loc_master(const struct adapter_ctx *c, uint64_t users, int shaped, uint64_t stop_s, struct adapter_plan *p)
{
    const struct profile_load *l = c->load;
    double peak = profile_load_peak(l);
    strvec_push(&p->argv, "--headless");
    strvec_push(&p->argv, "--only-summary");
    if (!shaped) {
        strvec_push(&p->argv, "-u");
        strvec_pushf(&p->argv, "%.0f", l->stages[0].target);
        strvec_push(&p->argv, "-r");
        strvec_pushf(&p->argv, "%.0f", l->stages[0].target);
        /* Locust's -t knows h, m and s only: "1500ms" would read as 1500
         * minutes. Whole seconds, rounded with a warning. */
        strvec_push(&p->argv, "-t");
        strvec_pushf(&p->argv, "%llus",
                     (unsigned long long)raw_whole_seconds(l->stages[0].duration_ns, "locust", "-t", p));
    }
    /* Users finish the request in flight when the test stops (at -t, at
     * the shape's end, in a falling stage) instead of being killed with it:
     * Locust then counts what the server answered. */
    strvec_push(&p->argv, "--stop-timeout");
    strvec_pushf(&p->argv, "%llu", (unsigned long long)stop_s);
    strvec_push(&p->argv, "-H");
    strvec_pushf(&p->argv, "%s://%s:%d", c->ca_file ? "https" : "http", c->host, c->port);
    strvec_pushf(&p->env, "LB_LOCUST_OUT=%s", LOC_OUT);
    strvec_push(&p->env, "PYTHONDONTWRITEBYTECODE=1");

    if (l->model == LOAD_OPEN) {
        p->model = "paced";
        strvec_pushf(&p->warnings,
                     "Locust has no open model: %llu users paced with constant_throughput(%.4g), %.10g/s at most "
                     "(a closed loop slowed to the rate; a slow response delays that user's next request)%s",
                     (unsigned long long)users, peak / (double)users, peak,
                     l->ramped ? "; stages scale the number of users with the rate" : "");
        json_object_set_new(p->settings, "users", json_integer((json_int_t)users));
        json_object_set_new(p->settings, "per_user_rate", json_real(peak / (double)users));
    } else {
        p->model = "closed";
    }
    if (shaped)
        strvec_push(&p->warnings, "stages through a LoadTestShape: Locust changes users once a second at the stage's "
                                  "spawn rate");
    strvec_pushf(&p->warnings, "--stop-timeout %llu: Locust's default kills its users at the stop with their requests "
                               "in flight (answered by the server, never counted); with it they finish them",
                 (unsigned long long)stop_s);
    if (l->max_inflight && l->model == LOAD_CLOSED)
        strvec_push(&p->warnings, "load.max_inflight ignored in the closed model");
    json_object_set_new(p->settings, "user_class", json_string("HttpUser (python-requests)"));
    char py[512], why[UTIL_ERR_LEN];
    if (!loc_python(c->found->path, py, sizeof py, why))
        json_object_set_new(p->settings, "python", adapter_json_text(py));
    p->load_ns = profile_load_duration_ns(l);
    p->startup_allowance_ns = 5000000000ull + stop_s * 1000000000ull;
    json_object_set_new(p->settings, "stop_timeout_s", json_integer((json_int_t)stop_s));
}

extern const struct adapter adapter_locust;   /* below: its table names the TLS behaviour */

static int loc_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    const struct profile_load *l = c->load;
    if (copy_hook(c->dir, err))
        return -1;
    strvec_push(&p->files, LOC_HOOK);
    uint64_t users = loc_users(c, p, err);
    if (!users)
        return -1;
    /* Stages go through a LoadTestShape; a constant closed load through
     * -u/-r/-t. */
    int shaped = l->ramped || l->model == LOAD_OPEN;
    if (loc_file(c, users, shaped, p, err))
        return -1;

    uint64_t stop_s = l->request_timeout_ns ? (l->request_timeout_ns + 999999999ull) / 1000000000ull : 10;
    /* target.tls: the locustfile's users verify against the run's CA
     * (python-requests' verify=, from LB_LOCUST_CA), the master's and every
     * worker's alike. */
    if (c->ca_file) {
        strvec_pushf(&p->env, "LB_LOCUST_CA=%s", c->ca_file);
        adapter_plan_tls(p, &adapter_locust, c);
    }
    strvec_push(&p->argv, c->found->path);
    strvec_push(&p->argv, "-f");
    strvec_push(&p->argv, LOC_FILE);
    if (c->instances > 1)
        loc_distributed_args(c, p);
    if (c->instance > 0) {
        /* A worker: the master gives it its users and the stop. */
        strvec_push(&p->argv, "--stop-timeout");
        strvec_pushf(&p->argv, "%llu", (unsigned long long)stop_s);
        p->model = l->model == LOAD_OPEN ? "paced" : "closed";
        p->load_ns = profile_load_duration_ns(l);
        p->startup_allowance_ns = 5000000000ull + stop_s * 1000000000ull;
        strvec_pushf(&p->env, "LB_LOCUST_OUT=%s", LOC_OUT);
        strvec_push(&p->env, "PYTHONDONTWRITEBYTECODE=1");
        return 0;
    }
    loc_master(c, users, shaped, stop_s, p);
    return 0;
}

/* ---- parse ------------------------------------------------------------------ */

/* Lines of Locust's log (stderr) worth a warning, at most a few. */
static void scan_log(const char *dir, struct strvec *w, int *cpu_seen)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/stderr.txt", dir);
    FILE *f = fsutil_fopen_input(path, FSUTIL_CAP_STREAM, NULL);
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    int n = 0;
    while (fsutil_getline(&line, &cap, f, FSUTIL_LINE_MAX) > 0) {
        /* "[2026-11-29 22:48:23,688] vm/WARNING/locust.runners: CPU usage above 90%! ..." */
        const char *lvl = strstr(line, "/WARNING/");
        if (!lvl)
            lvl = strstr(line, "/ERROR/");
        if (!lvl)
            lvl = strstr(line, "/CRITICAL/");
        if (!lvl || n >= 8)
            continue;
        const char *msg = strstr(lvl, ": ");
        msg = msg ? msg + 2 : lvl;
        if (strstr(msg, "CPU usage")) /* "above 90%!", "threshold was exceeded on workers" (2.47) */
            *cpu_seen = 1;
        size_t len = strcspn(msg, "\r\n");
        strvec_pushf(w, "Locust: %.*s", (int)(len > 300 ? 300 : len), msg);
        n++;
    }
    free(line);
    fclose(f);
}

/* Distributed: exactly the workers loadbench started took part. The
 * master's hook lists every worker id that reported or was connected
 * ("workers": {ID: {"ours": bool}}); one without the run's nonce, or fewer
 * of ours than started, fails the row (its figures kept). */
static void check_members(const struct adapter_ctx *c, const json_t *j, struct adapter_result *r)
{
    const json_t *ws = json_object_get(j, "workers"), *w;
    const char *id, *stranger = NULL;
    unsigned ours = 0, others = 0;
    if (c->instances < 2 || c->instance != 0)
        return;
    json_object_foreach((json_t *)ws, id, w)
    {
        if (json_is_true(json_object_get(w, "ours")))
            ours++;
        else if (++others == 1)
            stranger = id;
    }
    char why[512] = "";
    if (!json_is_object(ws))
        snprintf(why, sizeof why, "Locust's hook did not list the master's workers: who sent load is unknown");
    else if (others)
        snprintf(why, sizeof why, "%u Locust worker%s that loadbench did not start took part (%.120s%s): part of the "
                 "load came from elsewhere", others, others == 1 ? "" : "s", stranger, others > 1 ? ", ..." : "");
    else if (ours != c->instances)
        snprintf(why, sizeof why, "only %u of the %u Locust workers loadbench started reported to the master", ours,
                 c->instances);
    if (why[0])
        r->fail_reason = util_xstrdup(why);
}

static int loc_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char path[PATH_MAX + 64];
    json_error_t je;
    snprintf(path, sizeof path, "%s/%s", c->dir, LOC_OUT);
    json_t *j = fsutil_load_json(path, FSUTIL_CAP_RESULT, &je);
    if (!j)
        return util_err(err, "Locust's hook wrote no readable %s: %s", LOC_OUT, je.text);
    json_t *tot = json_object_get(j, "total");
    if (!json_is_object(tot) || !json_is_integer(json_object_get(tot, "num_requests"))) {
        json_decref(j);
        return util_err(err, "%s has no total.num_requests", LOC_OUT);
    }
    check_members(c, j, r);
    const char *event = json_string_value(json_object_get(j, "event"));
    if (!event || strcmp(event, "quit"))
        strvec_pushf(&r->warnings, "Locust's totals were written at \"%s\", not at its final quit event: it died "
                                   "while stopping and the counts may be short", event ? event : "(none)");
    uint64_t attempts = adapter_json_count(tot, "num_requests"), failures = adapter_json_count(tot, "num_failures");
    /* Failures are requests in Locust; split them by their error text:
     * "404 Client Error: ..." got a response, the rest did not. */
    uint64_t status = 0;
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(j, "errors"), i, e)
    {
        const char *s = json_string_value(json_object_get(e, "error"));
        uint64_t n = adapter_json_count(e, "occurrences");
        if (!s)
            s = "";
        if (strlen(s) > 4 && s[0] >= '1' && s[0] <= '5' && s[1] >= '0' && s[1] <= '9' && s[2] >= '0' &&
            s[2] <= '9' && s[3] == ' ')
            status += n;
        else if (strstr(s, "refused") || strstr(s, "Errno 111") || strstr(s, "NewConnectionError") ||
                 strstr(s, "Failed to establish"))
            r->err_connect += n;
        else if (strstr(s, "timed out") || strstr(s, "Timeout"))
            r->err_timeout += n;
        else if (strstr(s, "reset") || strstr(s, "RemoteDisconnected") || strstr(s, "aborted") ||
                 strstr(s, "IncompleteRead"))
            r->err_read += n;
        else if (strstr(s, "Broken pipe"))
            r->err_write += n;
        else
            r->err_other += n;
    }
    uint64_t transport = r->err_connect + r->err_timeout + r->err_read + r->err_write + r->err_other;
    if (transport > attempts)
        transport = attempts;
    r->requests = attempts - transport;
    r->ok = failures <= attempts ? attempts - failures : 0;
    r->err_status = failures > transport ? failures - transport : 0;
    if (status != r->err_status)
        strvec_pushf(&r->warnings, "Locust counted %llu failures; its error list explains %llu",
                     (unsigned long long)failures, (unsigned long long)(status + transport));
    r->errors = r->err_status + transport;
    if (c->profile && c->profile->check.status) /* r.failure("NNN status, not CODE") */
        r->check_failed = r->err_status;
    r->duration_s = adapter_json_num(j, "duration_s");
    if (r->duration_s > 0)
        r->rps = (double)r->requests / r->duration_s;
    else
        r->duration_s = NAN;
    r->bytes_read = adapter_json_count(tot, "total_content_length_bytes");

    json_t *pc = json_object_get(tot, "percentiles_ms");
    if (r->requests && json_is_number(json_object_get(tot, "min_ms"))) {
        r->lat.min = adapter_json_num(tot, "min_ms");
        r->lat.mean = adapter_json_num(tot, "avg_ms");
        r->lat.max = adapter_json_num(tot, "max_ms");
        r->lat.p50 = adapter_json_num(pc, "50");
        r->lat.p90 = adapter_json_num(pc, "90");
        r->lat.p95 = adapter_json_num(pc, "95");
        r->lat.p99 = adapter_json_num(pc, "99");
        r->lat.p999 = adapter_json_num(pc, "99.9");
        if (transport)
            strvec_pushf(&r->warnings, "Locust's latency includes the times of its %llu requests that got no "
                                       "response",
                         (unsigned long long)transport);
    }
    if (c->load && c->load->model == LOAD_OPEN) {
        double n = 0;
        double from = c->load->ramped ? 0 : c->load->stages[0].target;
        for (size_t k = 0; k < c->load->nstages; k++) {
            double dsec = (double)c->load->stages[k].duration_ns / 1e9, to = c->load->stages[k].target;
            n += c->load->ramped ? dsec * (from + to) / 2 : dsec * to;
            from = to;
        }
        r->scheduled = (uint64_t)llround(n);
    }
    int cpu_seen = 0;
    scan_log(c->dir, &r->warnings, &cpu_seen);
    if (json_is_true(json_object_get(j, "cpu_warning")) && !cpu_seen)
        strvec_push(&r->warnings, "Locust: CPU usage above 90% (its own warning: its numbers may be unreliable)");
    r->extra = json_pack("{s:O, s:O, s:O}", "total", tot, "errors",
                         json_object_get(j, "errors") ? json_object_get(j, "errors") : json_null(), "exit_code",
                         json_object_get(j, "exit_code") ? json_object_get(j, "exit_code") : json_null());
    r->parsed = 1;
    json_decref(j);
    return 0;
}

const struct adapter adapter_locust = {
    .name = "locust",
    .parse_files = (const char *const[]){"locust.json", "stderr.txt", NULL},
    .description = "Locust (Python, gevent): HttpUser closed loop; paced with constant_throughput for a rate",
    .install_hint = "PyPI: scripts/install-tools (Locust 2.47.0, hash-pinned, into the tools folder's venv/locust)",
    .caps = ADAPTER_CLOSED | ADAPTER_PACED | ADAPTER_RAMP | ADAPTER_TLS | ADAPTER_CHECK | ADAPTER_POST,
    .tls_how = "verifies against the run's CA (self.client.verify = CA in on_start; python-requests); no TLS "
               "version option (urllib3's 1.2 and up: lb-target's one version), no session offered (urllib3 passes "
               "none: a full handshake per connection)",
    .tls_verifies = 1,
    .tls_library = "OpenSSL 3 (libssl.so.3 through Python's ssl module, dynamically linked)",
    .post_how = "self.client.post(\"/\", data=BODY, headers=HEADERS): BODY read once at import from body.bin",
    .check_how = "with self.client.get(..., catch_response=True) as r: r.success() for the code, else "
                 "r.failure(\"NNN status, not CODE\")",
    .no_h2_why = "Locust's HttpUser (python-requests) speaks HTTP/1.1 only",
    .versions = "live: 2.47.0 (PyPI), 2.12.1 (Debian, bin:)",
    .latency_measures = "python-requests call: request start (including connect) to response body read, "
                        "percentiles rounded to whole ms (2 significant digits above 100 ms); failed requests' "
                        "times included",
    .latency_resolution_ms = 1,
    .latency_digits = 2,
    .latency_rounding_pct = 5,
    .options = loc_options,
    .spread = ADAPTER_SPREAD_MASTER,
    .spread_note = "Locust in its distributed mode: the master sends no load (it hands users to the workers and "
                   "sums the statistics they report every 3 s, the last at their stop); the row's counts and "
                   "latency are the master's, its footprint every process's",
    .detect = loc_detect,
    .prepare = loc_prepare,
    .parse = loc_parse,
};
