/* Unit tests for spec/: good profiles load with units resolved;
 * each class of bad input is rejected with its own located message. */
#include "spec/profile.h"
#include "tests/tap.h"
#include "common/util.h"

#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct profile *load(const char *text, char *err)
{
    return profile_load_string("t.yaml", text, strlen(text), err);
}

/* quiet: its defaults, a map, off; and it stays out of the hash. */
static void quiet_keys(void)
{
    char err[UTIL_ERR_LEN], h1[65], h2[65];
    const char *base = "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\n";
    struct profile *p = load(base, err);
    if (ok(p != NULL, "a profile without quiet: loads") &&
        ok(p->quiet.busy_below_pct == 10 && p->quiet.wait_max_ns == 30000000000ull &&
               p->quiet.interval_ns == 1000000000ull,
           "without quiet: the gate is 10 %%, 30 s, 1 s")) {
        json_t *j = profile_to_json(p);
        ok(!json_object_get(j, "quiet"), "the defaults are not written into the resolved profile");
        profile_json_sha256(j, h1);
        json_decref(j);
    }
    profile_free(p);
    p = load("quiet: {busy_below: 5%, wait_max: 1m, interval: 500ms}\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n",
             err);
    ok(p && p->quiet.busy_below_pct == 5 && p->quiet.wait_max_ns == 60000000000ull && p->quiet.interval_ns == 500000000ull,
       "quiet: {busy_below: 5%%, wait_max: 1m, interval: 500ms}");
    if (p) {
        json_t *j = profile_to_json(p);
        profile_json_sha256(j, h2);
        ok(json_object_get(j, "quiet") && !strcmp(h1, h2), "written into the resolved profile, but not into its hash");
        json_decref(j);
    }
    profile_free(p);
    p = load("quiet: off\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", err);
    ok(p && p->quiet.wait_max_ns == 0 && p->quiet.busy_below_pct == 10, "quiet: off: no wait, the 10 %% bar kept");
    profile_free(p);
}

/* The profile must be rejected with an error starting "t.yaml:LINE:" and
 * containing needle. */
static void bad(const char *why, const char *text, int line, const char *needle)
{
    char err[UTIL_ERR_LEN] = "";
    struct profile *p = load(text, err);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "t.yaml:%d:", line);
    if (!ok(!p && !strncmp(err, prefix, strlen(prefix)) && strstr(err, needle), "rejects %s", why))
        diag("  got: %s", p ? "(accepted)" : err);
    profile_free(p);
}

/* check: {status: N}: parsed, in the resolved profile (and so its hash)
 * only when given; bad values refused at their place. */
static void check_key(void)
{
    char err[UTIL_ERR_LEN] = "", h1[65], h2[65];
    const char *base = "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\n";
    struct profile *p = load(base, err), *q = load("load: {connections: 1, duration: 1s}\ncheck: {status: 404}\n"
                                                   "tools: [lb-gen]\n", err);
    if (ok(p && q, "profiles with and without check: load") && ok(p->check.status == 0, "no check: status 0") &&
        ok(q->check.status == 404 && q->check.line == 2 && q->check.col == 8, "check: {status: 404} at 2:8")) {
        json_t *a = profile_to_json(p), *b = profile_to_json(q);
        ok(!json_object_get(a, "check"), "without check: none in the resolved profile");
        ok(json_integer_value(json_object_get(json_object_get(b, "check"), "status")) == 404,
           "the resolved profile has check.status 404");
        profile_json_sha256(a, h1);
        profile_json_sha256(b, h2);
        ok(strcmp(h1, h2) != 0, "the check is in the profile's hash");
        json_decref(a);
        json_decref(b);
    }
    profile_free(p);
    profile_free(q);
    bad("check.status 600", "load: {connections: 1, duration: 1s}\ncheck: {status: 600}\ntools: [lb-gen]\n", 2,
        "check.status (an HTTP status code) must be between 100 and 599");
    bad("check.status ok", "load: {connections: 1, duration: 1s}\ncheck: {status: ok}\ntools: [lb-gen]\n", 2,
        "must be a number");
    bad("check: 200", "load: {connections: 1, duration: 1s}\ncheck: 200\ntools: [lb-gen]\n", 2,
        "check (a mapping, e.g. check: {status: 200}, or off) must be a mapping");
    bad("check without status", "load: {connections: 1, duration: 1s}\ncheck: {}\ntools: [lb-gen]\n", 2,
        "check needs status:");
    bad("an unknown check key", "load: {connections: 1, duration: 1s}\ncheck: {status: 200, body: x}\ntools: [lb-gen]\n",
        2, "unknown key \"body\" in check (known: status)");
}

/* A profile of load: and the tool entries entries, after head. */
static struct profile *load_entries(const char *head, const char *entries, char *err)
{
    char text[2048];
    snprintf(text, sizeof text, "%sload: {connections: 1, duration: 1s}\ntools: [%s]\n", head, entries);
    return load(text, err);
}

/* The same refused with an error at "t.yaml:" at (line:col) and needle. */
static void bad_entries(const char *why, const char *head, const char *entries, const char *at, const char *needle)
{
    char text[2048], want[1024];
    snprintf(text, sizeof text, "%sload: {connections: 1, duration: 1s}\ntools: [%s]\n", head, entries);
    snprintf(want, sizeof want, "%s: %s", at, needle);
    int line = atoi(at);
    bad(why, text, line, want);
}

/* The entry's own JSON key key (the resolved profile's tools[i]), dumped
 * compact with sorted keys into buf ("-" when absent). */
static const char *entry_key(const struct profile *p, size_t i, const char *key, char *buf, size_t len)
{
    json_t *j = profile_to_json(p), *v = json_object_get(json_array_get(json_object_get(j, "tools"), i), key);
    char *s = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
    snprintf(buf, len, "%s", s ? s : "-");
    free(s);
    json_decref(j);
    return buf;
}

/* A tool entry's own target: {tls, protocol}, request: and check: (study
 * 6, issue #40): each written key replaces the profile's for that entry
 * only (profile_entry_view), target: key by key, request: and check:
 * whole; recorded in the entry's resolved JSON (so the hash) only when
 * written; what disagrees refused at its line and column. */
static void entry_settings(void)
{
    char err[UTIL_ERR_LEN] = "", b[512], h1[65], h2[65];
    struct profile v, *p = load_entries("", "lb-gen, {tool: lb-gen, label: tls, target: {tls: {version: 1.3}}}, "
                                            "{tool: lb-gen, label: post, request: {method: POST, body: 1KiB}, "
                                            "check: {status: 200}}", err);
    if (!ok(p != NULL, "entries with their own target:, request:, check: load (%s)", err))
        return;
    profile_entry_view(p, &p->tools[0], &v);
    ok(!v.target.tls.version && !v.request.post && !v.check.status && p->tools[0].own == 0,
       "an entry without them runs the profile's (plain GET, no check)");
    profile_entry_view(p, &p->tools[1], &v);
    ok(v.target.tls.version == 13 && !v.target.tls.key_rsa && !v.target.tls.no_resumption && v.target.protocol == PROFILE_H1 &&
           !v.request.post && !p->target.tls.version,
       "tls: {version: 1.3} on one entry: its view has TLS 1.3 (ecdsa, resumption), the profile none");
    profile_entry_view(p, &p->tools[2], &v);
    ok(v.request.post && v.request.body_bytes == 1024 && v.check.status == 200 && !v.target.tls.version &&
           !p->request.post && !p->check.status,
       "request: POST 1KiB and check: 200 on another: its view only");
    ok(v.tools == p->tools && v.path == p->path && v.load.stages == p->load.stages, "a view shares the rest with the profile");
    is_str(entry_key(p, 0, "target", b, sizeof b), "-", "an entry without its own writes none in the resolved profile");
    is_str(entry_key(p, 1, "target", b, sizeof b), "{\"tls\":{\"key\":\"ecdsa\",\"resumption\":true,\"version\":\"1.3\"}}",
           "the resolved entry records the tls: it wrote, and only that");
    is_str(entry_key(p, 2, "request", b, sizeof b), "{\"body_bytes\":1024,\"method\":\"POST\"}", "and its request:");
    is_str(entry_key(p, 2, "check", b, sizeof b), "{\"status\":200}", "and its check:");
    json_t *rw = profile_entry_json(p, &p->tools[1]);
    char *s = json_dumps(rw, JSON_COMPACT | JSON_SORT_KEYS);
    is_str(s, "{\"check\":null,\"request\":{\"method\":\"GET\"},\"target\":{\"delay_ns\":0,\"protocol\":\"h1\",\"tls\":"
              "{\"key\":\"ecdsa\",\"resumption\":true,\"version\":\"1.3\"}}}",
           "profile_entry_json: everything the row runs with, the profile's included");
    free(s);
    json_decref(rw);
    json_t *j = profile_to_json(p);
    profile_json_sha256(j, h1);
    json_decref(j);
    profile_free(p);
    p = load_entries("", "lb-gen, {tool: lb-gen, label: tls}, {tool: lb-gen, label: post}", err);
    j = profile_to_json(p);
    profile_json_sha256(j, h2);
    json_decref(j);
    ok(strcmp(h1, h2) != 0, "an entry's own settings are in the profile's hash");
    profile_free(p);

    /* Merged key by key over the profile's target:; off drops TLS, a check. */
    p = load_entries("target: {protocol: h2, tls: {version: 1.2, key: rsa}}\nrequest: {method: POST, body: 10B}\n"
                     "check: {status: 200}\n",
                     "h2load, {tool: h2load, label: h1, target: {protocol: h1}}, "
                     "{tool: wrk, label: plain, target: {tls: off, protocol: h1}, request: {method: GET}, check: off}, "
                     "{tool: h2load, label: h2c, target: {tls: off, protocol: h2c}}", err);
    if (ok(p != NULL, "a TLS h2 POST profile with entries that drop each of them loads (%s)", err)) {
        profile_entry_view(p, &p->tools[1], &v);
        ok(v.target.protocol == PROFILE_H1 && v.target.tls.version == 12 && v.target.tls.key_rsa && v.request.post &&
               v.check.status == 200,
           "protocol: h1 alone keeps the profile's TLS 1.2 rsa, its POST and its check");
        profile_entry_view(p, &p->tools[2], &v);
        ok(v.target.protocol == PROFILE_H1 && !v.target.tls.version && !v.request.post && !v.check.status,
           "tls: off, request: {method: GET}, check: off: plain GET without a check");
        is_str(entry_key(p, 2, "check", b, sizeof b), "null", "check: off is null in the resolved entry");
        is_str(entry_key(p, 2, "target", b, sizeof b), "{\"protocol\":\"h1\",\"tls\":null}", "tls: off is null");
        profile_entry_view(p, &p->tools[3], &v);
        ok(v.target.protocol == PROFILE_H2C && !v.target.tls.version, "tls: off, protocol: h2c: h2c");
    }
    profile_free(p);
    p = load_entries("target: {tls: {version: 1.2, key: rsa}}\n", "{tool: lb-gen, target: {tls: {resumption: off}}}", err);
    if (ok(p != NULL, "an entry's tls: over the profile's loads (%s)", err)) {
        profile_entry_view(p, &p->tools[0], &v);
        ok(v.target.tls.version == 13 && !v.target.tls.key_rsa && v.target.tls.no_resumption,
           "an entry's tls: is whole: what it leaves out is the default (1.3, ecdsa), not the profile's");
    }
    profile_free(p);

    bad_entries("an entry's tls: off under the profile's h2", "target: {protocol: h2, tls: {version: 1.3}}\n",
                "{tool: h2load, target: {tls: off}}", "3:38",
                "this entry's tls: off, the profile's target.protocol is h2 (HTTP/2 over TLS): give the entry protocol: h1 or h2c");
    bad_entries("an entry's tls: under the profile's h2c", "target: {protocol: h2c}\n",
                "{tool: h2load, target: {tls: {version: 1.3}}}", "3:38", "this entry's tls: on, the profile's target.protocol is h2c");
    bad_entries("an entry's protocol: h2 on a plain profile", "", "{tool: h2load, target: {protocol: h2}}", "2:43",
                "target.protocol h2 is HTTP/2 over TLS and the profile's target.tls is off: give this entry tls: {version: 1.3} too");
    bad_entries("an entry's protocol: h2c on a TLS profile", "target: {tls: {version: 1.3}}\n",
                "{tool: h2load, target: {protocol: h2c}}", "3:43",
                "target.protocol h2c is HTTP/2 without TLS and the profile's target.tls is on: give this entry tls: off too");
    bad_entries("an entry's body", "", "{tool: lb-gen, target: {body: 5B}}", "2:33",
                "\"body\" in a tool entry's target: an entry sets only tls:, protocol: and delay:");
    bad_entries("an entry's target.host", "", "{tool: lb-gen, target: {host: a}}", "2:33", "\"host\" in a tool entry's target");
    bad_entries("an entry's target: 1.3", "", "{tool: lb-gen, target: 1.3}", "2:32", "a tool entry's target (a mapping");
    bad_entries("an entry's TLS 1.1", "", "{tool: lb-gen, target: {tls: {version: 1.1}}}", "2:48",
                "target.tls.version \"1.1\": use 1.3, 1.2");
    bad_entries("an entry's POST without a body", "", "{tool: lb-gen, request: {method: POST}}", "2:33",
                "request: method: POST needs body: SIZE");
    bad_entries("an entry's check: 200", "", "{tool: lb-gen, check: 200}", "2:31",
                "check (a mapping, e.g. check: {status: 200}, or off) must be a mapping");
    bad_entries("an entry's check.status 600", "", "{tool: lb-gen, check: {status: 600}}", "2:40",
                "check.status (an HTTP status code) must be between 100 and 599");
    bad_entries("an entry's TLS with target.host", "hosts: {a: x@h}\ntarget: {host: a}\n",
                "{tool: lb-gen, target: {tls: {version: 1.3}}}", "4:32", "target.host with target.tls");
}

/* A tool entry's own target: {delay: D}: a fixed delay, parsed as the
 * profile's target.delay, in place of the profile's (fixed or drawn) in
 * that entry's view only, the profile's stall kept; in the resolved entry
 * and in what the row ran with; a bad one refused at its place. */
static void entry_delay(void)
{
    char err[UTIL_ERR_LEN] = "", b[512];
    struct profile v, *p = load_entries("target: {delay: 20ms}\n", "lb-gen, {tool: lb-gen, label: fast, target: {delay: 0ms}}, "
                                        "{tool: lb-gen, label: slow, target: {delay: 1.5s, tls: {version: 1.3}}}", err);
    if (ok(p != NULL, "entries with their own target.delay load (%s)", err)) {
        profile_entry_view(p, &p->tools[0], &v);
        ok(v.target.delay_ns == 20000000 && !(p->tools[0].own & PROFILE_OWN_DELAY), "an entry without: the profile's 20ms");
        profile_entry_view(p, &p->tools[1], &v);
        ok(v.target.delay_ns == 0 && (p->tools[1].own & PROFILE_OWN_DELAY) && p->target.delay_ns == 20000000,
           "delay: 0ms on one entry: its view 0, the profile's still 20ms");
        profile_entry_view(p, &p->tools[2], &v);
        ok(v.target.delay_ns == 1500000000ull && v.target.tls.version == 13, "delay: 1.5s beside tls: both in its view");
        is_str(entry_key(p, 1, "target", b, sizeof b), "{\"delay_ns\":0}", "the resolved entry records delay_ns 0");
        json_t *rw = profile_entry_json(p, &p->tools[1]), *rw0 = profile_entry_json(p, &p->tools[0]);
        ok(json_integer_value(json_object_get(json_object_get(rw, "target"), "delay_ns")) == 0 &&
               json_integer_value(json_object_get(json_object_get(rw0, "target"), "delay_ns")) == 20000000 &&
               !json_object_get(json_object_get(rw, "target"), "shape"),
           "ran_with: target.delay_ns 0 for it, 20000000 for the entry without");
        json_decref(rw);
        json_decref(rw0);
    }
    profile_free(p);
    p = load_entries("target:\n  delay: {dist: lognormal, p50: 20ms, p99: 100ms}\n  stall: {every: 10s, for: 1s}\n",
                     "lb-gen, {tool: lb-gen, label: fixed, target: {delay: 5ms}}", err);
    if (ok(p != NULL, "an entry's fixed delay under a drawn one with stalls loads (%s)", err)) {
        profile_entry_view(p, &p->tools[1], &v);
        ok(!v.target.shape.dist && !v.target.shape.p50_ns && v.target.delay_ns == 5000000 &&
               v.target.shape.stall_every_ns == 10000000000ull && v.target.shape.stall_for_ns == 1000000000ull,
           "its view: the fixed 5ms in place of the lognormal draw, the profile's stall kept");
        profile_entry_view(p, &p->tools[0], &v);
        ok(v.target.shape.dist && !strcmp(v.target.shape.dist, "lognormal"), "the entry without keeps the draw");
        json_t *rw = profile_entry_json(p, &p->tools[1]), *rw0 = profile_entry_json(p, &p->tools[0]);
        char *s = json_dumps(json_object_get(rw, "target"), JSON_COMPACT | JSON_SORT_KEYS);
        is_str(s, "{\"delay_ns\":5000000,\"protocol\":\"h1\",\"shape\":{\"stall\":{\"every_ns\":10000000000,"
                  "\"for_ns\":1000000000}},\"tls\":null}", "ran_with.target: the fixed delay and the stall, no dist");
        free(s);
        ok(!strcmp(json_string_value(json_object_get(json_object_get(json_object_get(rw0, "target"), "shape"), "dist")) ?: "",
                   "lognormal"),
           "ran_with.target.shape.dist lognormal for the entry without");
        json_decref(rw);
        json_decref(rw0);
    }
    profile_free(p);
    bad_entries("an entry's delay: soon", "", "{tool: lb-gen, target: {delay: soon}}", "2:40", "target.delay");
    bad_entries("an entry's delay over 60s", "", "{tool: lb-gen, target: {delay: 61s}}", "2:40",
                "target.delay above 60s is not a benchmark");
    bad_entries("an entry's drawn delay", "", "{tool: lb-gen, target: {delay: {dist: exponential, mean: 1ms}}}", "2:40",
                "a tool entry's target.delay is a duration, e.g. delay: 0ms");
}

/* --only's list: labels and globs, comma-separated; each must select an
 * entry, else refused naming it. */
static void only_list(void)
{
    char err[UTIL_ERR_LEN] = "";
    struct profile *p = load_entries("", "{tool: wrk, label: wrk-sat}, {tool: k6, label: k6-sat}, lb-gen", err);
    if (!ok(p != NULL, "three entries load (%s)", err))
        return;
    ok(profile_only_selects(NULL, "lb-gen") && profile_only_selects("lb-gen", "lb-gen") &&
           !profile_only_selects("lb-gen", "wrk-sat"),
       "no --only selects every entry; one label itself alone");
    ok(profile_only_selects("k6-sat,lb-gen", "lb-gen") && profile_only_selects("k6-sat,lb-gen", "k6-sat") &&
           !profile_only_selects("k6-sat,lb-gen", "wrk-sat"),
       "k6-sat,lb-gen selects those two, not wrk-sat");
    ok(profile_only_selects("*-sat", "wrk-sat") && profile_only_selects("*-sat", "k6-sat") &&
           !profile_only_selects("*-sat", "lb-gen") && !profile_only_selects("lb", "lb-gen"),
       "the glob *-sat selects both -sat entries; a prefix is no match");
    ok(!profile_only_check(p, "*-sat,lb-gen", err), "*-sat,lb-gen: each selects an entry (%s)", err);
    ok(profile_only_check(p, "lb-gen,wrk", err) < 0 && strstr(err, "--only lb-gen,wrk: \"wrk\" is no tool label"),
       "lb-gen,wrk: refused naming wrk (%s)", err);
    ok(profile_only_check(p, "*-x", err) < 0 && strstr(err, "\"*-x\" is no tool label of the profile (a pattern matching none)"),
       "a glob that matches none: refused naming it (%s)", err);
    ok(profile_only_check(p, "lb-gen,,k6-sat", err) < 0 && strstr(err, "\"\" is no tool label"),
       "an empty name in the list: refused (%s)", err);
    profile_free(p);
}

/* request: {method: POST, body: SIZE}: parsed with the sizes' units, in
 * the resolved profile (and its hash) only for a POST; a body without
 * POST, a POST without body, a size out of 1 B-1 MiB refused at its place. */
static void request_key(void)
{
    char err[UTIL_ERR_LEN] = "", h1[65], h2[65];
    const char *base = "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\n";
    struct profile *p = load(base, err),
                   *q = load("load: {connections: 1, duration: 1s}\nrequest: {method: POST, body: 1KiB}\n"
                             "tools: [lb-gen]\n", err),
                   *g = load("load: {connections: 1, duration: 1s}\nrequest: {method: GET}\ntools: [lb-gen]\n", err);
    if (ok(p && q && g, "profiles without request:, with a POST and with a GET load") &&
        ok(!p->request.post && !g->request.post, "no request: and method GET: no POST") &&
        ok(q->request.post && q->request.body_bytes == 1024 && q->request.line == 2 && q->request.col == 10,
           "request: {method: POST, body: 1KiB} at 2:10: 1024 bytes")) {
        json_t *a = profile_to_json(p), *b = profile_to_json(q), *c = profile_to_json(g);
        ok(!json_object_get(a, "request") && !json_object_get(c, "request"), "a GET: no request in the resolved profile");
        json_t *r = json_object_get(b, "request");
        ok(!strcmp(json_string_value(json_object_get(r, "method")), "POST") &&
               json_integer_value(json_object_get(r, "body_bytes")) == 1024,
           "the resolved profile has request {method POST, body_bytes 1024}");
        profile_json_sha256(a, h1);
        profile_json_sha256(b, h2);
        ok(strcmp(h1, h2) != 0, "the POST is in the profile's hash");
        profile_json_sha256(c, h2);
        ok(!strcmp(h1, h2), "an explicit GET hashes as no request:");
        json_decref(a);
        json_decref(b);
        json_decref(c);
    }
    profile_free(p);
    profile_free(q);
    profile_free(g);
    q = load("load: {connections: 1, duration: 1s}\nrequest: {method: POST, body: 1KB}\ntools: [lb-gen]\n", err);
    ok(q && q->request.body_bytes == 1000, "body: 1KB is 1000 bytes, as every size (KiB is 1024)");
    profile_free(q);
    bad("a body with GET", "load: {connections: 1, duration: 1s}\nrequest: {method: GET, body: 1KiB}\ntools: [lb-gen]\n",
        2, "2:30: request.body needs method: POST");
    bad("a body without method", "load: {connections: 1, duration: 1s}\nrequest: {body: 10B}\ntools: [lb-gen]\n", 2,
        "request.body needs method: POST");
    bad("a POST without body", "load: {connections: 1, duration: 1s}\nrequest: {method: POST}\ntools: [lb-gen]\n", 2,
        "2:10: request: method: POST needs body: SIZE");
    bad("method PUT", "load: {connections: 1, duration: 1s}\nrequest: {method: PUT, body: 1B}\ntools: [lb-gen]\n", 2,
        "2:19: request.method \"PUT\": use GET, POST");
    bad("a body of 0 bytes", "load: {connections: 1, duration: 1s}\nrequest: {method: POST, body: 0B}\ntools: [lb-gen]\n",
        2, "request.body 0B is 0 bytes: use 1B to 1MiB");
    bad("a body over 1 MiB", "load: {connections: 1, duration: 1s}\nrequest: {method: POST, body: 2MB}\ntools: [lb-gen]\n",
        2, "request.body 2MB is 2000000 bytes: use 1B to 1MiB");
    bad("a bad size", "load: {connections: 1, duration: 1s}\nrequest: {method: POST, body: 1kilo}\ntools: [lb-gen]\n",
        2, "2:31: request.body: bad size");
    bad("request: POST", "load: {connections: 1, duration: 1s}\nrequest: POST\ntools: [lb-gen]\n", 2,
        "request (a mapping, e.g. request: {method: POST, body: 1KiB}) must be a mapping");
    bad("an unknown request key", "load: {connections: 1, duration: 1s}\nrequest: {method: POST, body: 1B, path: /x}\n"
        "tools: [lb-gen]\n", 2, "unknown key \"path\" in request (known: method, body)");
}

/* target.delay as a distribution, target.stall, and their run.json form. */
static void test_shapes(void)
{
    char err[UTIL_ERR_LEN] = "";
    struct profile *p = load("target:\n"
                             "  delay: {dist: lognormal, p50: 20ms, p99: 100ms, seed: 42}\n"
                             "  stall: {every: 10s, for: 1s}\n"
                             "load: {connections: 10, duration: 5s}\n"
                             "tools: [lb-gen]\n",
                             err);
    if (!ok(p != NULL, "a lognormal delay with stalls loads"))
        diag("  %s", err);
    if (p) {
        is_str(p->target.shape.dist, "lognormal", "dist");
        is_u64(p->target.shape.p99_ns, 100000000, "p99 100ms");
        is_u64(p->target.shape.seed, 42, "seed 42");
        is_u64(p->target.shape.stall_for_ns, 1000000000, "stall for 1s");
        json_t *j = profile_to_json(p);
        char *text = json_dumps(json_object_get(json_object_get(j, "target"), "shape"), JSON_COMPACT | JSON_SORT_KEYS);
        is_str(text, "{\"dist\":\"lognormal\",\"p50_ns\":20000000,\"p99_ns\":100000000,\"seed\":42,"
                     "\"stall\":{\"every_ns\":10000000000,\"for_ns\":1000000000}}", "run.json records the shape");
        free(text);
        json_decref(j);
    }
    profile_free(p);
    p = load("target: {delay: {dist: uniform, min: 0s, max: 30ms}}\nload: {connections: 1, duration: 1s}\n"
             "tools: [lb-gen]\n", err);
    ok(p && p->target.shape.seed == 1 && p->target.shape.max_ns == 30000000, "uniform from 0s; the seed defaults to 1");
    profile_free(p);
    const char *tail = "\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n";
    char text[512];
    snprintf(text, sizeof text, "target: {delay: {dist: gauss, mean: 1ms}}%s", tail);
    bad("an unknown distribution", text, 1, "use lognormal, exponential or uniform");
    snprintf(text, sizeof text, "target: {delay: {dist: lognormal, p50: 20ms}}%s", tail);
    bad("a lognormal without p99", text, 1, "needs p50 and p99");
    snprintf(text, sizeof text, "target: {delay: {dist: exponential, mean: 5ms, p99: 1s}}%s", tail);
    bad("a parameter of another distribution", text, 1, "p99 is not a parameter of a exponential delay");
    snprintf(text, sizeof text, "target: {delay: {dist: lognormal, p50: 20ms, p99: 10ms}}%s", tail);
    bad("p99 below p50", text, 1, "p99 must be above p50");
    snprintf(text, sizeof text, "target: {stall: {every: 1s, for: 1s}}%s", tail);
    bad("a stall as long as its period", text, 1, "shorter than every");
    snprintf(text, sizeof text, "target: {stall: {every: 1s}}%s", tail);
    bad("a stall without for", text, 1, "needs every: and for:");
}

/* hosts: and placement: destinations parsed, names checked where they are
 * used, and a profile without hosts: resolving exactly as before. */
static void test_hosts(void)
{
    char err[UTIL_ERR_LEN] = "";
    struct profile *p = load("hosts:\n"
                             "  a: bench@10.0.0.1:2222\n"
                             "  b: {ssh: 'load@[fd00::2]', address: 198.18.1.2}\n"
                             "  here: local\n"
                             "target: {host: a, delay: 1ms}\n"
                             "load: {connections: 1, duration: 1s}\n"
                             "tools: [lb-gen, {tool: wrk, host: b}, {tool: hey, host: here}]\n",
                             err);
    if (!ok(p != NULL, "a profile with hosts: loads"))
        diag("  %s", err);
    if (p) {
        const struct profile_host *a = profile_host_by_name(p, "a"), *b = profile_host_by_name(p, "b");
        char dest[128];
        is_u64(p->nhosts, 3, "three hosts");
        ok(a && !strcmp(a->user, "bench") && !strcmp(a->ssh_host, "10.0.0.1") && a->port == 2222 && !a->local,
           "user@host:port is split");
        ok(b && !strcmp(b->ssh_host, "fd00::2") && b->port == 0 && !strcmp(b->address, "198.18.1.2"),
           "an IPv6 destination in brackets, and a separate load address");
        ok(profile_host_by_name(p, "here")->local, "local is this machine");
        ok(!strcmp(profile_host_load_address(a), "10.0.0.1") && !strcmp(profile_host_load_address(b), "198.18.1.2") &&
               !strcmp(profile_host_load_address(profile_host_by_name(p, "here")), "127.0.0.1") &&
               !strcmp(profile_host_load_address(NULL), "127.0.0.1"),
           "load addresses: address:, else the SSH host, else 127.0.0.1");
        profile_host_destination(b, dest, sizeof dest);
        is_str(dest, "load@[fd00::2]", "the destination written back");
        ok(p->target_host && !strcmp(p->target_host, "a"), "target.host");
        ok(!p->tools[0].host && !strcmp(p->tools[1].host, "b") && !strcmp(p->tools[2].host, "here"), "tool hosts");
        json_t *j = profile_to_json(p);
        is_str(json_string_value(json_object_get(json_object_get(json_object_get(j, "hosts"), "a"), "ssh")),
               "bench@10.0.0.1:2222", "run.json's profile keeps the hosts");
        is_str(json_string_value(json_object_get(json_object_get(j, "target"), "host")), "a", "and the placement");
        json_decref(j);
    }
    profile_free(p);

    /* host: [a, b]: the instances dealt out round-robin in that order. */
    p = load("hosts: {a: x@h, b: y@h, here: local}\n"
             "load: {connections: 4, duration: 1s}\n"
             "tools: [{tool: wrk, instances: 3, host: [a, b]}, {tool: lb-gen, host: here}]\n",
             err);
    if (ok(p != NULL, "a tool entry may name several hosts for its instances")) {
        const struct profile_tool *t = &p->tools[0];
        is_u64(t->nhosts, 2, "two hosts");
        ok(!strcmp(t->host, "a"), "host is the first of them");
        ok(!strcmp(profile_tool_host(t, 0), "a") && !strcmp(profile_tool_host(t, 1), "b") &&
               !strcmp(profile_tool_host(t, 2), "a"),
           "instance i on hosts[i %% 2]: a, b, a");
        ok(p->tools[1].nhosts == 1 && !strcmp(profile_tool_host(&p->tools[1], 5), "here"), "one host: every instance there");
        json_t *j = profile_to_json(p), *tools = json_object_get(j, "tools");
        json_t *h0 = json_object_get(json_array_get(tools, 0), "host"), *h1 = json_object_get(json_array_get(tools, 1), "host");
        ok(json_array_size(h0) == 2 && !strcmp(json_string_value(json_array_get(h0, 1)), "b") &&
               json_is_string(h1) && !strcmp(json_string_value(h1), "here"),
           "run.json's profile: a list for several hosts, a name for one (as before)");
        json_decref(j);
    } else {
        diag("  got: %s", err);
    }
    profile_free(p);

    /* Without hosts: the resolved profile (and its hash) is what it was. */
    p = load("load: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", err);
    json_t *j = profile_to_json(p);
    ok(p && !p->nhosts && !json_object_get(j, "hosts") && !json_object_get(json_object_get(j, "target"), "host") &&
           !json_object_get(json_array_get(json_object_get(j, "tools"), 0), "host"),
       "no hosts: adds nothing to the resolved profile");
    json_decref(j);
    profile_free(p);

    /* Each bad case: what comes before load:, what after it, the line, the message. */
    static const struct {
        const char *why, *head, *tools;
        int line;
        const char *needle;
    } cases[] = {
        {"a tool on an unknown host", "hosts: {a: x@h}\n", "[lb-gen, {tool: wrk, host: c}]", 3, "unknown host \"c\" (hosts: a)"},
        {"the target on an unknown host", "hosts: {a: x@h}\ntarget: {host: b}\n", "[lb-gen]", 2, "unknown host \"b\""},
        {"a host without hosts:", "", "[{tool: wrk, host: a}]", 2, "no hosts: map"},
        {"an option as a destination", "hosts: {a: '-oProxyCommand=x'}\n", "[lb-gen]", 1, "not an SSH destination"},
        {"a port out of range", "hosts: {a: x@h:99999}\n", "[lb-gen]", 1, "port must be a number"},
        {"a user with a space", "hosts: {a: 'x y@h'}\n", "[lb-gen]", 1, "plain login name"},
        {"a host without ssh:", "hosts: {a: {address: 1.2.3.4}}\n", "[lb-gen]", 1, "needs ssh:"},
        {"an unknown host key", "hosts: {a: {ssh: local, port: 2}}\n", "[lb-gen]", 1, "unknown key \"port\""},
        {"empty hosts:", "hosts: {}\n", "[lb-gen]", 1, "hosts is empty"},
        {"an address starting with -", "hosts: {a: {ssh: x@h, address: '-x'}}\n", "[lb-gen]", 1,
         "must be a host name or an IP address"},
        {"more hosts than instances", "hosts: {a: x@h, b: y@h}\n", "[{tool: wrk, host: [a, b]}]", 3,
         "2 hosts for 1 instance (at most one host per instance"},
        {"an unknown host in a list", "hosts: {a: x@h, b: y@h}\n", "[{tool: wrk, instances: 3, host: [a, c]}]", 3,
         "unknown host \"c\" (hosts: a, b)"},
        {"a host named twice in a list", "hosts: {a: x@h, b: y@h}\n", "[{tool: wrk, instances: 3, host: [a, b, a]}]", 3,
         "host \"a\" is named twice"},
        {"an empty host list", "hosts: {a: x@h}\n", "[{tool: wrk, instances: 2, host: []}]", 3, "an empty list"},
        {"a list in a host list", "hosts: {a: x@h}\n", "[{tool: wrk, instances: 2, host: [[a]]}]", 3, "host"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[512];
        snprintf(text, sizeof text, "%sload: {connections: 1, duration: 1s}\ntools: %s\n", cases[i].head, cases[i].tools);
        bad(cases[i].why, text, cases[i].line, cases[i].needle);
    }
}

/* Issue #29: names and labels in UTF-8 with length limits, durations
 * capped and summed without wrapping, lb-target's thread limit. */
static void test_limits(void)
{
    char err[UTIL_ERR_LEN] = "", text[1024];
    struct profile *p = load("name: \"caf\xc3\xa9\"\nload: {connections: 1, duration: 1s}\n"
                             "tools: [{tool: lb-gen, label: \"\xf0\x9f\x9a\x80 gen\"}]\n",
                             err);
    if (!ok(p && !strcmp(p->name, "caf\xc3\xa9") && !strcmp(p->tools[0].label, "\xf0\x9f\x9a\x80 gen"),
            "name caf\xc3\xa9 and an emoji label load (bytes >= 0x80 are not control characters)"))
        diag("  %s", err);
    profile_free(p);
    bad("a control character in name", "name: \"a\\x01b\"\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", 1,
        "byte 2 is 0x01");
    bad("DEL in a label", "load: {connections: 1, duration: 1s}\ntools: [{tool: lb-gen, label: \"a\\x7f\"}]\n", 2,
        "byte 2 is 0x7f");
    bad("a label starting with '.'", "load: {connections: 1, duration: 1s}\ntools: [{tool: lb-gen, label: .x}]\n", 2,
        "must not start with '.'");
    char long_label[PROFILE_LABEL_MAX + 2];
    memset(long_label, 'a', sizeof long_label - 1);
    long_label[sizeof long_label - 1] = 0; /* 129 bytes */
    snprintf(text, sizeof text, "load: {connections: 1, duration: 1s}\ntools: [{tool: lb-gen, label: %s}]\n", long_label);
    bad("a 129-byte label", text, 2, "label is 129 bytes long; at most 128");
    long_label[PROFILE_LABEL_MAX] = 0;
    snprintf(text, sizeof text, "load: {connections: 1, duration: 1s}\ntools: [{tool: lb-gen, label: %s}]\n", long_label);
    p = load(text, err);
    ok(p != NULL, "a 128-byte label loads");
    profile_free(p);
    long_label[PROFILE_LABEL_MAX] = 'a';
    snprintf(text, sizeof text, "name: %s\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", long_label);
    bad("a 129-byte name", text, 1, "name is 129 bytes long; at most 128");
    char path[300] = "";
    memset(path, 'f', 200);
    strcpy(path + 200, ".yaml");
    const char *plain = "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\n";
    p = profile_load_string(path, plain, strlen(plain), err);
    ok(!p && strstr(err, ":1:1: the file's name (200 bytes) is too long"), "a 200-byte file name without name: is refused");
    profile_free(p);
    p = profile_load_string("/tmp/run\x01now.yaml", plain, strlen(plain), err);
    ok(!p && strstr(err, ":1:1: the file's name (the profile has no name:) must not contain"),
       "a file name with a control character, without name:, is refused as a name: would be (%s)", err);
    profile_free(p);

    bad("three stages whose sum wraps past 2^64",
        "load:\n  stages:\n    - {duration: 6148914691903183872ns, target: 1}\n"
        "    - {duration: 6148914691903183872ns, target: 1}\n    - {duration: 6148914691903183872ns, target: 1}\n"
        "tools: [lb-gen]\n",
        3, "longer than 7 days");
    bad("stages adding up to over 7 days",
        "load:\n  stages:\n    - {duration: 100h, target: 1}\n    - {duration: 100h, target: 1}\ntools: [lb-gen]\n", 4,
        "add up to more than 7 days");
    p = load("load: {connections: 1, duration: 168h}\ntools: [lb-gen]\n", err);
    ok(p != NULL, "a load of exactly 7 days loads");
    profile_free(p);
    bad("a cooldown of 200000 h", "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\ncooldown: 200000h\n", 3,
        "cooldown 200000h is longer than 7 days");
    bad("1000 repeats of 100 h", "load: {connections: 1, duration: 100h}\ntools: [lb-gen]\nrepeat: 1000\n", 3,
        "the whole run would send load for 4167 days (1000 tool runs)");
    bad("a sweep of 10 levels of 100 h",
        "load: {sweep: {levels: [1,2,3,4,5,6,7,8,9,10], duration: 100h}}\ntools: [lb-gen]\n", 2, "(10 tool runs)");
    bad("a sweep level given twice", "load: {sweep: {levels: [10, 20, 10], duration: 1s}}\ntools: [lb-gen]\n", 1,
        "sweep level 10 is there twice");

    /* The sums saturate rather than wrap, whatever built the load. */
    struct profile_stage st[3] = {{6148914691903183872ull, 1}, {6148914691903183872ull, 1}, {6148914691903183872ull, 1}};
    struct profile_load l = {.model = LOAD_CLOSED, .stages = st, .nstages = 3};
    uint64_t hs = 0, he = 0;
    is_u64(profile_load_duration_ns(&l), UINT64_MAX, "a load's duration saturates at 2^64-1, never wraps to 2 s");
    ok(profile_hold_window(&l, &hs, &he) == 0 && he >= hs, "and its hold window never ends before it starts");

    p = load("target: {threads: 64}\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", err);
    ok(p && p->target.threads == 64, "target.threads 64 (lb-target's most) loads");
    profile_free(p);
    bad("target.threads 65 (lb-target takes 1-64)",
        "target: {threads: 65}\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", 1, "between 1 and 64");
}

int main(void)
{
    check_key();
    request_key();
    entry_settings();
    entry_delay();
    only_list();
    test_shapes();
    test_limits();
    char err[UTIL_ERR_LEN] = "";
    struct profile *p = load("name: ramp\n"
                             "target: {delay: 20ms, body: 800B, threads: 2}\n"
                             "load:\n"
                             "  model: closed\n"
                             "  stages:\n"
                             "    - {duration: 30s, target: 200}\n"
                             "    - {duration: 1m, target: 200}\n"
                             "    - {duration: 10s, target: 0}\n"
                             "tools: [lb-gen, {tool: wrk, label: wrk-head, bin: ./wrk, options: {threads: 2}}]\n"
                             "sampling: {interval: 500ms}\n"
                             "repeat: 3\n"
                             "cooldown: 5s\n"
                             "cpus: {target: [1], tool: \"0\"}\n",
                             err);
    if (!ok(p != NULL, "a full profile loads"))
        diag("  %s", err);
    if (p) {
        is_u64(p->target.delay_ns, 20000000, "delay 20ms");
        is_u64(p->target.body_bytes, 800, "body 800B");
        is_u64(p->target.threads, 2, "threads");
        is_u64(p->load.nstages, 3, "three stages");
        is_u64(profile_load_duration_ns(&p->load), 100000000000ull, "load lasts 100 s");
        uint64_t hs = 0, he = 0;
        ok(profile_hold_window(&p->load, &hs, &he) == 0 && hs == 30000000000ull && he == 90000000000ull,
           "hold window is 30 s..90 s");
        is_u64((uint64_t)profile_load_peak(&p->load), 200, "peak 200");
        is_u64(p->ntools, 2, "two tools");
        is_str(p->tools[0].label, "lb-gen", "label defaults to tool");
        is_str(p->tools[1].label, "wrk-head", "explicit label");
        is_str(p->tools[1].bin, "./wrk", "bin");
        is_str(json_string_value(json_object_get(p->tools[1].options, "threads")), "2", "options kept");
        is_u64(p->sample_interval_ns, 500000000, "sampling interval");
        is_u64(p->repeat, 3, "repeat");
        is_u64(p->target_cpus, 2, "target cpus [1]");
        is_u64(p->tool_cpus, 1, "tool cpus \"0\"");
        json_t *j = profile_to_json(p);
        ok(j && json_integer_value(json_object_get(json_object_get(j, "load"), "duration_ns")) == 100000000000ll,
           "resolved JSON carries the load duration");
        json_decref(j);
    }
    profile_free(p);

    /* instances: several processes of one tool. */
    p = load("load: {connections: 10, duration: 2s}\ntools: [wrk, {tool: locust, instances: 2}]\n", err);
    ok(p && p->tools[0].instances == 1 && p->tools[1].instances == 2, "instances defaults to 1 and reads 2");
    if (p) {
        json_t *j = profile_to_json(p), *tl = json_object_get(j, "tools");
        ok(!json_object_get(json_array_get(tl, 0), "instances") &&
               json_integer_value(json_object_get(json_array_get(tl, 1), "instances")) == 2,
           "resolved JSON names instances only where there are several (old profiles hash as before)");
        json_decref(j);
    }
    profile_free(p);
    bad("instances: 0", "load: {connections: 10, duration: 2s}\ntools: [{tool: wrk, instances: 0}]\n", 2,
        "instances must be between 1 and 64");
    bad("instances: 65", "load: {connections: 10, duration: 2s}\ntools: [{tool: wrk, instances: 65}]\n", 2,
        "instances must be between 1 and 64");
    bad("instances: 1.5", "load: {connections: 10, duration: 2s}\ntools: [{tool: wrk, instances: 1.5}]\n", 2,
        "instances must be a whole number");

    p = load("load: {model: open, rate: 7450, duration: 20s, max_inflight: 1000}\ntools: [lb-gen]\n", err);
    ok(p && p->load.model == LOAD_OPEN && p->load.stages[0].target == 7450 && p->load.max_inflight == 1000,
       "open model with rate and max_inflight");
    ok(p && !strcmp(p->name, "t"), "name defaults to the file name");
    profile_free(p);

    p = load("load: {model: open, rate: 100, duration: 2s, arrivals: poisson, arrivals_seed: 9}\ntools: [lb-gen]\n", err);
    ok(p && p->load.poisson && p->load.arrivals_seed == 9, "arrivals: poisson with its seed");
    profile_free(p);
    p = load("load: {model: open, rate: 100, duration: 2s}\ntools: [lb-gen]\n", err);
    ok(p && !p->load.poisson && p->load.arrivals_seed == 1, "a timetable by default, seed 1");
    profile_free(p);
    bad("arrivals in the closed model", "load: {connections: 2, duration: 2s, arrivals: poisson}\ntools: [lb-gen]\n", 1,
        "load.arrivals belongs to the open model");
    bad("arrivals: normal", "load: {model: open, rate: 9, duration: 2s, arrivals: normal}\ntools: [lb-gen]\n", 1,
        "must be \"timetable\" (evenly spaced) or \"poisson\"");
    bad("a seed without poisson", "load: {model: open, rate: 9, duration: 2s, arrivals_seed: 2}\ntools: [lb-gen]\n", 1,
        "add `arrivals: poisson`");

    p = load("load: {sweep: {levels: [10, 50, 100], duration: 30s}}\ntools: [lb-gen]\n", err);
    ok(p && p->load.nsweep == 3 && p->load.sweep[2] == 100 && profile_load_duration_ns(&p->load) == 30000000000ull,
       "sweep of three levels, 30 s each");
    if (p) {
        struct profile_load *l = profile_load_at_level(&p->load, 50);
        ok(l->nstages == 1 && l->stages[0].target == 50 && l->stages[0].duration_ns == 30000000000ull && !l->nsweep,
           "sweep level expands to one constant stage");
        profile_load_free(l);
    }
    profile_free(p);

    p = load("load: {connections: 10, duration: 5s}\n"
             "tools: [lb-gen, {tool: artillery, label: art200, load: {model: open, rate: 200, duration: 5s}}]\n",
             err);
    ok(p && p->tools[1].load && profile_tool_load(p, &p->tools[1])->model == LOAD_OPEN &&
           profile_tool_load(p, &p->tools[0])->model == LOAD_CLOSED,
       "per-tool load override");
    profile_free(p);

    /* Each class of bad input, with its line. */
    bad("an empty file", "", 1, "empty profile");
    bad("a comment-only file", "# nothing\n", 1, "empty profile");
    bad("a list at the top", "- a\n- b\n", 1, "mapping of keys");
    bad("an unknown top-level key", "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\nrepeats: 3\n", 3,
        "unknown key \"repeats\"");
    bad("an unknown key in load", "load:\n  connections: 1\n  duraton: 1s\ntools: [lb-gen]\n", 3, "unknown key \"duraton\"");
    bad("a wrong type", "load: {connections: [1], duration: 1s}\ntools: [lb-gen]\n", 1, "must be a value");
    bad("a non-number", "load: {connections: many, duration: 1s}\ntools: [lb-gen]\n", 1, "must be a number");
    bad("a zero duration", "load: {connections: 1, duration: 0s}\ntools: [lb-gen]\n", 1, "longer than 0s");
    bad("a duration without unit", "load: {connections: 1, duration: 30}\ntools: [lb-gen]\n", 1, "needs a unit");
    bad("a negative rate", "load: {model: open, rate: -5, duration: 1s}\ntools: [lb-gen]\n", 1, "between");
    bad("fractional connections", "load: {connections: 1.5, duration: 1s}\ntools: [lb-gen]\n", 1, "whole number");
    bad("more connections than ulimit -n", "load: {connections: 5000000, duration: 1s}\ntools: [lb-gen]\n", 1,
        "ulimit -n");
    bad("rate in the closed model", "load: {rate: 5, duration: 1s}\ntools: [lb-gen]\n", 1, "open model");
    bad("two load forms", "load:\n  connections: 5\n  duration: 1s\n  stages: [{duration: 1s, target: 1}]\ntools: [x]\n", 2,
        "only one of");
    bad("a stage without target", "load:\n  stages:\n    - {duration: 1s}\ntools: [lb-gen]\n", 3, "needs duration and target");
    bad("all-zero stages", "load:\n  stages:\n    - {duration: 1s, target: 0}\ntools: [lb-gen]\n", 3, "every stage");
    bad("no tools", "load: {connections: 1, duration: 1s}\n", 1, "needs tools");
    bad("an empty tool list", "load: {connections: 1, duration: 1s}\ntools: []\n", 2, "tools is empty");
    bad("duplicate labels", "load: {connections: 1, duration: 1s}\ntools:\n  - wrk\n  - wrk\n", 4, "labelled \"wrk\"");
    bad("a bad tool name", "load: {connections: 1, duration: 1s}\ntools: [\"../x\"]\n", 2, "may use only");
    bad("a duplicate key", "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\ntools: [wrk]\n", 3, "given twice");
    bad("an alias", "a: &x {connections: 1, duration: 1s}\nload: *x\ntools: [lb-gen]\n", 2, "aliases");
    bad("an alias bomb", "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\nname: &a x\ndescription: *a\n", 4,
        "aliases");
    bad("a YAML syntax error", "load: {connections: 1, duration: 1s\ntools: [lb-gen]\n", 2, "YAML syntax");
    bad("invalid UTF-8", "load: {connections: 1, duration: 1s}\ntools: [\xff\xfe]\n", 2, "YAML syntax");
    bad("a bad size", "target: {body: 16 KiB}\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", 1, "target.body");
    bad("a bad CPU list", "cpus: {tool: [99]}\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", 1, "cpus.tool");
    bad("a tiny sampling interval", "sampling: {interval: 1ms}\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", 1,
        "sampling.interval");
    bad("two documents", "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\n---\nx: 1\n", 3, "one document");
    bad("quiet: a word other than off", "quiet: on\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", 1, "quiet");
    bad("quiet: an unknown key", "quiet: {busy: 5%}\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", 1,
        "unknown key \"busy\"");
    bad("quiet: a bar above 100 %", "quiet: {busy_below: 150%}\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", 1,
        "quiet.busy_below");
    bad("quiet: a tiny interval", "quiet: {interval: 10ms}\nload: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", 1,
        "quiet.interval below 100ms");
    quiet_keys();

    /* Deep nesting is cut off, not a stack overflow. */
    char deep[4096] = "load: ";
    for (int i = 0; i < 500; i++)
        strcat(deep, "[");
    bad("deep nesting", deep, 1, "nested too deeply");

    /* Issue #19: sampling that would give a tool run no sample. */
    bad("a sampling interval longer than the load",
        "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\nsampling: {interval: 3s}\n", 3,
        "longer than the shortest tool load (1 s)");
    bad("a sampling interval longer than one tool's own load",
        "load: {connections: 1, duration: 10s}\n"
        "tools: [lb-gen, {tool: lb-gen, label: short, load: {connections: 1, duration: 2s}}]\n"
        "sampling: {interval: 5s}\n",
        3, "shortest tool load (2 s)");
    p = load("load: {connections: 1, duration: 1s}\ntools: [lb-gen]\n", err);
    ok(p && p->sample_interval_ns == 1000000000ull, "the default interval shrinks to a 1 s load");
    profile_free(p);
    p = load("load: {connections: 1, duration: 10s}\ntools: [lb-gen]\n", err);
    ok(p && p->sample_interval_ns == 2000000000ull, "and is 2 s for a longer one");
    ok(p && profile_scale(p, 0.1, err) == 0 && p->sample_interval_ns == 1000000000ull,
       "--scale 0.1 shrinks it to the scaled 1 s load");
    ok(p && profile_scale(p, 1.0000001, err) == -1 && strstr(err, "(got 1.0000001)"),
       "--scale 1.0000001 is refused naming 1.0000001, not 1 (%s)", err);
    profile_free(p);

    /* The profile's hash: the same content from another file hashes the
     * same; a changed load hashes apart. */
    const char *two = "name: x\nload: {connections: 2, duration: 1s}\ntools: [lb-gen]\n";
    struct profile *pa = profile_load_string("a.yaml", two, strlen(two), err);
    struct profile *pb = profile_load_string("elsewhere/b.yaml", two, strlen(two), err);
    const char *twenty = "name: x\nload: {connections: 20, duration: 1s}\ntools: [lb-gen]\n";
    struct profile *pc = profile_load_string("a.yaml", twenty, strlen(twenty), err);
    if (ok(pa && pb && pc, "three profiles load")) {
        char ha[65], hb[65], hc[65];
        json_t *ja = profile_to_json(pa), *jb = profile_to_json(pb), *jc = profile_to_json(pc);
        profile_json_sha256(ja, ha);
        profile_json_sha256(jb, hb);
        profile_json_sha256(jc, hc);
        ok(strlen(ha) == 64 && !strcmp(ha, hb), "the same profile from another path hashes the same");
        ok(strcmp(ha, hc) != 0, "2 connections and 20 hash apart");
        /* Read back from JSON (as run.json keeps it), it hashes the same. */
        char *dumped = json_dumps(ja, JSON_REAL_PRECISION(10));
        json_t *back = json_loads(dumped, 0, NULL);
        char hback[65];
        profile_json_sha256(back, hback);
        ok(!strcmp(ha, hback), "and the same once written and read back");
        free(dumped);
        json_decref(back);
        json_decref(ja);
        json_decref(jb);
        json_decref(jc);
    }
    profile_free(pa);
    profile_free(pb);
    profile_free(pc);

    /* CPUs this process may not run on are refused, at their place. */
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    int absent = -1;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 63; c >= 0 && absent < 0; c--)
            if (!CPU_ISSET(c, &allowed))
                absent = c;
    int present = 0;
    while (present < 64 && !CPU_ISSET(present, &allowed))
        present++;
    if (absent >= 0 && present < 64) {
        char text[256];
        snprintf(text, sizeof text, "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\ncpus: {target: [%d], tool: \"%d-%d\"}\n",
                 present, present < absent ? present : absent, present < absent ? absent : present);
        p = load(text, err);
        char want[64];
        snprintf(want, sizeof want, "t.yaml:3:%d: cpus.tool: CPU ", (int)(strstr(text, "tool:") - strstr(text, "cpus:")) + 7);
        ok(p && profile_check_cpus(p, err) == -1 && !strncmp(err, want, strlen(want)) && strstr(err, "allowed: "),
           "a CPU range reaching CPU %d (not allowed here) is refused at its place (%s)", absent, err);
        profile_free(p);
        snprintf(text, sizeof text, "load: {connections: 1, duration: 1s}\ntools: [lb-gen]\ncpus: {target: [%d]}\n", present);
        p = load(text, err);
        ok(p && profile_check_cpus(p, err) == 0, "an allowed CPU passes");
        profile_free(p);
    } else {
        ok(1, "# SKIP every CPU 0-63 is allowed here: no absent CPU to refuse");
        ok(1, "# SKIP no absent CPU");
    }

    /* A FIFO is not read (open would wait for a writer forever). */
    char fifo[64];
    snprintf(fifo, sizeof fifo, "/tmp/lb-test-profile-%d.yaml", (int)getpid());
    if (mkfifo(fifo, 0600) == 0) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        p = profile_load_file(fifo, err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ok(!p && strstr(err, "not a regular file (a FIFO)") && t1.tv_sec - t0.tv_sec < 2,
           "a FIFO is refused at once (%s)", err);
        profile_free(p);
        unlink(fifo);
    } else {
        ok(0, "mkfifo %s", fifo);
    }

    ok(profile_load_file("/nonexistent/profile.yaml", err) == NULL && strstr(err, "cannot open"), "a missing file is named");
    p = profile_load_file("profiles/quick.yaml", err);
    if (!ok(p != NULL, "profiles/quick.yaml loads"))
        diag("  %s", err);
    profile_free(p);
    test_hosts();
    return done_testing();
}
