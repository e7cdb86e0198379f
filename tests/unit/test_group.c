/* Unit tests for a tool run as several instances: the load split between
 * copies (profile_load_share), the merge of their results
 * (adapter_group_merge: sums, and percentiles that are bounds, never
 * averages), and lb-gen's exact merge of two real instances' full
 * distributions (tests/fixtures/lb-gen/instances/), checked against the
 * percentiles taken by brute force from the same files (to the bucket) and,
 * for one instance, against its own summary (exactly). */
#include "adapters/adapter.h"
#include "adapters/group.h"
#include "spec/profile.h"
#include "tests/tap.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const struct adapter adapter_lb_gen;
extern const struct adapter adapter_locust;
extern const struct adapter adapter_tsung;

static void test_share(void)
{
    struct profile_stage st[2] = {{1000000000ull, 0}, {2000000000ull, 21}};
    struct profile_load l = {.model = LOAD_CLOSED, .stages = st, .nstages = 2, .ramped = 1, .max_inflight = 5};
    double sum = 0;
    for (unsigned i = 0; i < 4; i++) {
        struct profile_load *s = profile_load_share(&l, i, 4);
        ok(s->stages[1].target == (i == 0 ? 6 : 5), "closed: copy %u of 4 gets %g of 21 connections", i,
           s->stages[1].target);
        ok(s->stages[0].target == 0 && s->stages[1].duration_ns == 2000000000ull, "copy %u keeps the stages' times", i);
        ok(s->max_inflight == (i == 0 ? 2u : 1u), "copy %u: max_inflight %llu of 5", i,
           (unsigned long long)s->max_inflight);
        sum += s->stages[1].target;
        profile_load_free(s);
    }
    ok(sum == 21, "the copies' connections add up to the load's");
    l.model = LOAD_OPEN;
    st[1].target = 1000;
    struct profile_load *s = profile_load_share(&l, 2, 3);
    ok(fabs(s->stages[1].target * 3 - 1000) < 1e-9, "open: a rate is divided exactly (%.10g)", s->stages[1].target);
    profile_load_free(s);
}

static void part(struct adapter_result *r, uint64_t req, double p50, double p99, double mean)
{
    adapter_result_init(r);
    r->parsed = 1;
    r->requests = r->ok = req;
    r->err_read = r->errors = 1;
    r->duration_s = 2;
    r->rps = (double)req / 2;
    r->lat = (struct adapter_latency){.min = 1, .mean = mean, .p50 = p50, .p90 = p99, .p95 = p99, .p99 = p99,
                                      .p999 = p99, .max = p99 * 2};
}

static void test_merge(void)
{
    struct adapter_result parts[2], sum;
    part(&parts[0], 300, 2, 10, 3);
    part(&parts[1], 100, 4, 50, 7);
    adapter_group_merge(parts, 2, &sum);
    is_u64(sum.requests, 400, "requests summed");
    is_u64(sum.errors, 2, "errors summed");
    is_u64(sum.err_read, 2, "errors by kind summed");
    ok(sum.rps == 200, "rates summed (%g)", sum.rps);
    ok(sum.lat_merged == -1, "percentiles from percentiles are marked not exact");
    ok(sum.lat.p99 == 50 && sum.lat_low.p99 == 10, "p99 is the highest instance's (an upper bound), the lowest beside it");
    ok(sum.lat.p50 == 4 && sum.lat_low.p50 == 2, "so is p50");
    ok(sum.lat.mean == 4, "mean weighted by requests ((300*3 + 100*7) / 400 = %g)", sum.lat.mean);
    ok(sum.lat.max == 100 && sum.lat.min == 1, "min and max are the extremes");
    ok(json_array_size(json_object_get(sum.extra, "instances")) == 2, "each part's own output is kept");
    adapter_result_free(&sum);
    adapter_group_merge(parts, 1, &sum);
    ok(sum.lat_merged == 0 && sum.lat.p99 == 10 && sum.requests == 300, "one part is copied as it is");
    adapter_result_free(&sum);
}

/* Every (value, count) line of the distribution files, for a brute-force
 * percentile. */
struct bucket {
    double ms;
    unsigned long long n;
};

static int by_value(const void *a, const void *b)
{
    double x = ((const struct bucket *)a)->ms, y = ((const struct bucket *)b)->ms;
    return x < y ? -1 : x > y;
}

static size_t read_buckets(const char *path, struct bucket *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    char line[256];
    unsigned long long seen = 0, total;
    double ms, q;
    size_t n = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%lf %lf %llu", &ms, &q, &total) == 3 && n < cap) {
            out[n++] = (struct bucket){ms, total - seen};
            seen = total;
        }
    if (f)
        fclose(f);
    return n;
}

static double brute_percentile(const struct bucket *b, size_t n, double pct)
{
    unsigned long long total = 0, seen = 0;
    for (size_t i = 0; i < n; i++)
        total += b[i].n;
    unsigned long long rank = (unsigned long long)ceil(pct / 100 * (double)total);
    for (size_t i = 0; i < n; i++)
        if ((seen += b[i].n) >= rank && b[i].n)
            return b[i].ms;
    return NAN;
}

static void test_lbgen_exact(void)
{
    char d0[1200], d1[1200], path[1300];
    snprintf(d0, sizeof d0, "%s/tests/fixtures/lb-gen/instances/p0", adapter_datadir());
    snprintf(d1, sizeof d1, "%s/tests/fixtures/lb-gen/instances/p1", adapter_datadir());
    const char *one[] = {d0}, *two[] = {d0, d1};
    struct adapter_latency lat;
    char err[UTIL_ERR_LEN];
    ok(adapter_lb_gen.merge_latency(one, 1, &lat, err) == 0, "lb-gen merges one distribution (%s)", err);
    snprintf(path, sizeof path, "%s/summary.json", d0);
    json_t *j = json_load_file(path, 0, NULL), *l = json_object_get(j, "latency_ms");
    static const char *const keys[] = {"min", "mean", "p50", "p90", "p95", "p99", "p999", "max"};
    for (int i = 0; i < 8; i++) {
        double want = adapter_json_num(l, keys[i]), got = (&lat.min)[i];
        ok(fabs(got - want) < 1e-6, "one instance: %s %.6f is its own summary's %.6f", keys[i], got, want);
    }
    json_decref(j);
    ok(adapter_lb_gen.merge_latency(two, 2, &lat, err) == 0, "lb-gen merges two distributions (%s)", err);
    static struct bucket b[8192];
    snprintf(path, sizeof path, "%s/latency.txt", d0);
    size_t n = read_buckets(path, b, 8192);
    snprintf(path, sizeof path, "%s/latency.txt", d1);
    n += read_buckets(path, b + n, 8192 - n);
    qsort(b, n, sizeof *b, by_value);
    static const double pct[] = {50, 90, 95, 99, 99.9};
    for (int i = 0; i < 5; i++) {
        double want = brute_percentile(b, n, pct[i]), got = (&lat.p50)[i];
        /* An instance's top line is its exact max, below its bucket's
         * highest value: the merged histogram reports that bucket's
         * highest value, so the two agree to the bucket (3 digits). */
        ok(got >= want - 1e-6 && got <= want * (1 + 1.0 / 1024) + 1e-6,
           "two instances: p%g %.6f is the pooled buckets' %.6f, to the bucket", pct[i], got, want);
    }
    ok(lat.max == b[n - 1].ms, "the merged max is the larger max (%.6f)", lat.max);
}

/* host: [a, b]: which host each process runs on (adapter_group_place):
 * copies in turn, a master with the first worker. */
static void test_place(void)
{
    char err[UTIL_ERR_LEN] = "";
    static const char text[] = "hosts: {a: x@h, b: y@h}\n"
                               "load: {connections: 4, duration: 1s}\n"
                               "tools: [{tool: lb-gen, instances: 3, host: [a, b]}, {tool: locust, instances: 2, "
                               "host: [a, b]}, {tool: lb-gen, label: one}]\n";
    struct profile *p = profile_load_string("t.yaml", text, strlen(text), err);
    if (!ok(p != NULL, "a profile with host lists loads")) {
        diag("  got: %s", err);
        return;
    }
    char got[128] = "";
    unsigned h;
    for (size_t k = 0; k < adapter_group_size(&adapter_lb_gen, &p->tools[0]); k++) {
        const char *role = adapter_group_place(&adapter_lb_gen, &p->tools[0], k, &h);
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s@%s", k ? " " : "", role, p->tools[0].hosts[h]);
    }
    is_str(got, "copy@a copy@b copy@a", "3 copies on [a, b]: a, b, a");
    got[0] = 0;
    for (size_t k = 0; k < adapter_group_size(&adapter_locust, &p->tools[1]); k++) {
        const char *role = adapter_group_place(&adapter_locust, &p->tools[1], k, &h);
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s@%s", k ? " " : "", role, p->tools[1].hosts[h]);
    }
    is_str(got, "master@a worker@a worker@b", "Locust on [a, b]: the master with the first worker on a");
    const char *role = adapter_group_place(&adapter_lb_gen, &p->tools[2], 0, &h);
    ok(!strcmp(role, "tool") && h == 0 && adapter_group_size(&adapter_lb_gen, &p->tools[2]) == 1,
       "no host:, one instance: one process, host index 0");
    profile_free(p);
}

static int has_note(const struct strvec *w, const char *needle)
{
    for (size_t i = 0; i < w->n; i++)
        if (strstr(w->v[i], needle))
            return 1;
    return 0;
}

/* A tool that runs its instances itself (Tsung's controller and client
 * VMs): one process in the run's own folder, its adapter told N. */
static void test_internal(void)
{
    char err[UTIL_ERR_LEN] = "";
    static const char text[] = "load: {connections: 6, duration: 2s}\ntools: [{tool: tsung, instances: 3}]\n";
    struct profile *p = profile_load_string("t.yaml", text, strlen(text), err);
    if (!ok(p != NULL, "a tsung profile loads")) {
        diag("  got: %s", err);
        return;
    }
    unsigned h;
    ok(adapter_group_size(&adapter_tsung, &p->tools[0]) == 1 &&
           !strcmp(adapter_group_place(&adapter_tsung, &p->tools[0], 0, &h), "tool"),
       "tsung instances 3: one process, the tool");
    char dir[] = "/tmp/lb-test-group-XXXXXX";
    struct adapter_found found = {.path = "/usr/bin/tsung", .version = "test"};
    struct adapter_ctx base = {.profile = p, .tool = &p->tools[0], .load = profile_tool_load(p, &p->tools[0]),
                               .found = &found, .dir = mkdtemp(dir), .host = "127.0.0.1", .port = 8080,
                               .url = "http://127.0.0.1:8080/"};
    struct adapter_group g;
    ok(base.dir && adapter_group_prepare(&adapter_tsung, &base, &g, err) == 0, "tsung group prepared (%s)", err);
    ok(g.n == 1 && g.instances == 3 && g.procs[0].ctx.instances == 3 && !strcmp(g.procs[0].dir, dir),
       "one process in the run's folder, told 3 instances (n %zu, instances %u)", g.n, g.instances);
    ok(!has_note(&g.procs[0].plan.warnings, "percentiles only") && has_note(&g.procs[0].plan.warnings, "client VMs"),
       "its note says how Tsung runs them, no bounds warning (one result)");
    adapter_group_free(&g);
    profile_free(p);
    for (const char *const *f = (const char *const[]){"tsung.xml", "tsung-hosts.inetrc", NULL}; *f; f++) {
        char path[64];
        snprintf(path, sizeof path, "%s/%s", dir, *f);
        unlink(path);
    }
    rmdir(dir);
}

int main(void)
{
    test_place();
    test_internal();
    test_share();
    test_merge();
    test_lbgen_exact();
    return done_testing();
}
