/* Unit tests for harness/profile: good profiles load with units resolved;
 * each class of bad input is rejected with its own located message. */
#include "profile/profile.h"
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

int main(void)
{
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

    p = load("load: {model: open, rate: 7450, duration: 20s, max_inflight: 1000}\ntools: [lb-gen]\n", err);
    ok(p && p->load.model == LOAD_OPEN && p->load.stages[0].target == 7450 && p->load.max_inflight == 1000,
       "open model with rate and max_inflight");
    ok(p && !strcmp(p->name, "t"), "name defaults to the file name");
    profile_free(p);

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
        p = profile_load(fifo, err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ok(!p && strstr(err, "not a regular file (a FIFO)") && t1.tv_sec - t0.tv_sec < 2,
           "a FIFO is refused at once (%s)", err);
        profile_free(p);
        unlink(fifo);
    } else {
        ok(0, "mkfifo %s", fifo);
    }

    ok(profile_load("/nonexistent/profile.yaml", err) == NULL && strstr(err, "cannot open"), "a missing file is named");
    p = profile_load("profiles/quick.yaml", err);
    if (!ok(p != NULL, "profiles/quick.yaml loads"))
        diag("  %s", err);
    profile_free(p);
    return done_testing();
}
