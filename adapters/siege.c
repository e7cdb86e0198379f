/* The adapter for siege 4.0.x (Debian 4.0.7): closed model only (-c users
 * for -t), always with loadbench's own rc file (adapters/siege/siegerc:
 * keep-alive, JSON output on stdout, no logging, limit raised) and HOME in
 * the run directory (the harness gives every tool a fresh HOME, where siege
 * writes the siege.conf it insists on). No percentiles: mean, min and max at
 * 10 ms. HTTPS from the https:// URL, unverified and at whatever version the
 * server offers (siege has no version setting). See
 * tests/fixtures/siege/README.md. */
#include "adapters/adapter.h"
#include "adapters/raw.h"
#include "common/units.h"
#include "common/util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIEGE_RC "siegerc"
#define SIEGE_LIMIT 10000       /* `limit` in adapters/siege/siegerc */
#define SIEGE_FAILURES 1024     /* `failures` in adapters/siege/siegerc */

static int siege_detect(const char *bin, struct adapter_found *found, char *err)
{
    static const char *const cands[] = {"siege", NULL};
    if (raw_find("siege", bin, cands, found, err))
        return -1;
    /* `siege --version` writes ~/.siege/siege.conf into the user's HOME:
     * ask dpkg instead. */
    if (adapter_dpkg_version("siege", found))
        snprintf(found->version, sizeof found->version, "unknown (not from a Debian package)");
    return 0;
}

extern const struct adapter adapter_siege;   /* below: its table names the TLS behaviour */

static int siege_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    if (raw_pick_load(c, "siege", p, &l, err) || raw_closed_only("siege", &l, err))
        return -1;
    uint64_t users = (uint64_t)llround(l.level);
    if (users > SIEGE_LIMIT)
        return util_err(err, "siege runs at most %d users with loadbench's rc file (the load asks for %llu)", SIEGE_LIMIT,
                        (unsigned long long)users);
    if (raw_copy_data(c, "siege/siegerc", SIEGE_RC, p, err))
        return -1;
    uint64_t secs = raw_whole_seconds(l.duration_ns, "siege", "duration", p);
    strvec_push(&p->argv, c->found->path);
    strvec_push(&p->argv, "-R");
    strvec_push(&p->argv, SIEGE_RC);
    strvec_push(&p->argv, "-c");
    strvec_pushf(&p->argv, "%llu", (unsigned long long)users);
    strvec_push(&p->argv, "-t");
    strvec_pushf(&p->argv, "%lluS", (unsigned long long)secs);
    int post = adapter_body_file(c, p, err);
    if (post < 0)
        return -1;
    if (post) { /* siege(1): "URL POST </path/file" posts the file; -T sets its Content-Type */
        strvec_pushv(&p->argv, "-T", ADAPTER_BODY_TYPE, NULL);
        strvec_pushf(&p->argv, "%s POST <" ADAPTER_BODY_FILE, c->url);
    } else {
        strvec_push(&p->argv, c->url);
    }
    /* Siege writes $HOME/.siege/siege.conf at every start; the harness's
     * HOME is relative to its own cwd when the run directory is, which
     * from the tool's cwd (the run directory) does not exist. */
    char abs[PATH_MAX];
    if (realpath(c->dir, abs))
        strvec_pushf(&p->env, "HOME=%s/home", abs);
    adapter_plan_tls(p, &adapter_siege, c);
    if (c->load->request_timeout_ns)
        strvec_push(&p->warnings, "siege's socket timeout comes from its rc file (30 s): the profile's timeout is not "
                    "applied");
    strvec_push(&p->warnings, "siege reports no latency percentiles: only mean, min and max, in 10 ms steps");
    /* Siege before 4.1.4 can hang for good at the end of a timed run with
     * many users ("Lifting the server siege...", JoeDog/siege#66): the
     * deadline then ends it with no result. Say so before it happens. */
    unsigned major = 0, minor = 0, patch = 0;
    if (users > 255 && sscanf(c->found->version, "%u.%u.%u", &major, &minor, &patch) >= 2 &&
        major * 10000 + minor * 100 + patch < 40104)
        strvec_pushf(&p->warnings,
                     "siege %s with %llu users: siege before 4.1.4 can hang at the end of a timed run with more "
                     "than ~255 users (JoeDog/siege#66); if it does, the deadline stops it and it leaves no result",
                     c->found->version, (unsigned long long)users);
    p->model = "closed";
    p->load_ns = secs * 1000000000ull;
    p->startup_allowance_ns = 1000000000ull;
    json_object_set_new(p->settings, "users", json_integer((json_int_t)users));
    json_object_set_new(p->settings, "rc", json_string("adapters/siege/siegerc"));
    return 0;
}

/* Sort up to limit error lines of siege's stderr
 * ("[error] socket: unable to connect sock.c:282: Connection refused") into
 * r's kinds; returns how many were sorted. */
static uint64_t classify_stderr(const char *dir, struct adapter_result *r, uint64_t limit)
{
    char e[UTIL_ERR_LEN];
    char *text = adapter_slurp(dir, "stderr.txt", 32 << 20, e);
    if (!text)
        return 0;
    uint64_t n = 0;
    for (char *line = strtok(text, "\n"); line && n < limit; line = strtok(NULL, "\n")) {
        if (!strstr(line, "error"))
            continue;
        raw_add_error(r, line, 1);
        n++;
    }
    free(text);
    return n;
}

static int siege_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char e[UTIL_ERR_LEN];
    char *text = adapter_slurp(c->dir, "stdout.txt", 1 << 20, e);
    if (!text)
        return util_err(err, "siege wrote nothing on stdout: %s", e);
    /* Anything siege says before its JSON (a note about a new siege.conf)
     * is skipped. */
    const char *brace = strchr(text, '{');
    json_error_t je;
    json_t *j = brace ? json_loads(brace, JSON_DISABLE_EOF_CHECK, &je) : NULL;
    free(text);
    if (!json_is_object(j) || !json_is_number(json_object_get(j, "transactions"))) {
        json_decref(j);
        char *all = raw_output(c->dir, 1 << 20), line[160] = "";
        raw_line_with(all, "rror", line, sizeof line);
        free(all);
        return util_err(err, "siege printed no JSON summary (json_output in its rc file)%s%s", line[0] ? ": " : "",
                        line);
    }
    /* A 4xx/5xx is a transaction that is neither successful nor failed;
     * failed_transactions counts socket failures only. */
    uint64_t trans = adapter_json_count(j, "transactions"), good = adapter_json_count(j, "successful_transactions"),
             failed = adapter_json_count(j, "failed_transactions");
    r->requests = trans;
    r->ok = good < trans ? good : trans;
    r->err_status = trans - r->ok;
    uint64_t sorted = classify_stderr(c->dir, r, failed);
    r->err_other += failed - sorted;
    raw_sum_errors(r);
    r->duration_s = adapter_json_num(j, "elapsed_time");
    if (r->duration_s > 0)
        r->rps = (double)trans / r->duration_s;
    if (trans > 0) {
        r->lat.mean = adapter_json_num(j, "response_time") * 1000;
        r->lat.min = adapter_json_num(j, "shortest_transaction") * 1000;
        r->lat.max = adapter_json_num(j, "longest_transaction") * 1000;
    }
    if (failed >= SIEGE_FAILURES)
        strvec_pushf(&r->warnings, "siege gave up after %llu socket failures (its `failures` limit, %d)",
                     (unsigned long long)failed, SIEGE_FAILURES);
    /* Siege ends early at times (2.65 s of a 3 s run in the fixtures) and
     * late under load (17 s of 10 s with 100 users on a busy core). */
    struct adapter_plan scratch;
    struct raw_load l;
    adapter_plan_init(&scratch);
    if (c->load && raw_pick_load(c, "siege", &scratch, &l, e) == 0 && r->duration_s > 0) {
        double want = (double)raw_whole_seconds(l.duration_ns, "siege", "duration", &scratch);
        if (r->duration_s < want * 0.95 || r->duration_s > want * 1.05)
            strvec_pushf(&r->warnings, "siege stopped after %.2f s of the %.0f s asked for", r->duration_s, want);
    }
    adapter_plan_free(&scratch);
    r->extra = j;
    r->parsed = 1;
    return 0;
}

const struct adapter adapter_siege = {
    .name = "siege",
    .parse_files = (const char *const[]){"stdout.txt", "stderr.txt", NULL},
    .description = "siege 4: closed model (-c users, -t), keep-alive, JSON summary; no percentiles",
    .install_hint = "apt-get install siege (or scripts/install-tools)",
    .caps = ADAPTER_CLOSED | ADAPTER_TLS | ADAPTER_POST,
    .post_how = "\"URL POST <body.bin\" -T application/octet-stream",
    /* siege 4.0.7 src/ssl.c; its rc file has ssl-cert, ssl-key, ssl-timeout
     * and ssl-ciphers, nothing for a CA or a version. */
    .tls_how = "does not verify (siege's ssl.c sets no SSL_CTX_set_verify: OpenSSL's SSL_VERIFY_NONE; no CA "
               "setting); no version setting (SSLv23_client_method: TLS 1.0-1.3), held to the profile's by "
               "lb-target offering only that one; a fresh SSL_CTX per connection, no session offered for "
               "resumption",
    .tls_library = "OpenSSL 3 (libssl.so.3, dynamically linked)",
    .no_h2_why = "siege 4 speaks HTTP/1.0 and HTTP/1.1 only (its protocol setting)",
    .versions = "live: 4.0.7 (Debian 4.0.7-1+b1)",
    .latency_measures = "transaction start (connect when a new socket is needed, then request write) to response "
                        "read; mean, shortest and longest only, in seconds with 2 decimals",
    .latency_resolution_ms = 10,
    .detect = siege_detect,
    .prepare = siege_prepare,
    .parse = siege_parse,
};
