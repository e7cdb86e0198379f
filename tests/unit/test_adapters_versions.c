/* Unit tests for adapters/toolver.c and the version-aware paths of the k6
 * and JMeter adapters: k6 on versions that cannot be installed here (the
 * fixtures under tests/fixtures/k6/v2.2.0-source/ are taken from that
 * version's source, its README.md names file and tag), beside the real
 * outputs of the versions that ran here (k6 v0.48.0's version.txt; JMeter
 * 5.6.3's manifests and --version from Maven Central's jars,
 * tests/fixtures/jmeter/5.6.3/, and Debian's 2.13 core-jar manifest). */
#include "adapters/adapter.h"
#include "adapters/toolver.h"
#include "tests/tap.h"
#include "tests/adapter_test.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const struct adapter adapter_k6, adapter_jmeter;

/* The text of tests/fixtures/REL (a failed check when missing; "" then). */
static char *fixture_text(const char *rel)
{
    char dir[4200], err[UTIL_ERR_LEN];
    snprintf(dir, sizeof dir, "%s", fixtures);
    char *t = adapter_slurp(dir, rel, 1 << 20, err);
    if (!ok(t != NULL, "fixture %s is there", rel)) {
        diag("  %s", err);
        return util_xstrdup("");
    }
    return t;
}

static void test_k6(void)
{
    char v[64] = "";
    char *t = fixture_text("k6/version.txt");
    ok(toolver_k6(t, v, sizeof v) == 0 && !strcmp(v, "v0.48.0"), "k6 v0.48.0's real `k6 version`: %s", v);
    ok(toolver_k6_known(v) == TOOLVER_LIVE, "k6 v0.48.0: ran live here");
    free(t);
    t = fixture_text("k6/v2.2.0-source/version.txt");
    v[0] = 0;
    ok(toolver_k6(t, v, sizeof v) == 0 && !strcmp(v, "v2.2.0"), "k6 v2.2.0's `k6 version` (commit/…): %s", v);
    ok(toolver_k6_known(v) == TOOLVER_SOURCE, "k6 v2.2.0: checked by source");
    free(t);
    ok(toolver_k6("k6 v1.4.2 (go1.23.4, linux/amd64)\nExtensions:\n  x\n", v, sizeof v) == 0 && !strcmp(v, "v1.4.2"),
       "k6 with extensions listed after: %s", v);
    ok(toolver_k6("usage: k6 [command]\n", v, sizeof v) == -1, "no version line: -1");
    ok(toolver_k6_known("v1.8.1") == TOOLVER_SOURCE && toolver_k6_known("v1.9.0") == TOOLVER_UNKNOWN &&
           toolver_k6_known("v2.3.0") == TOOLVER_UNKNOWN && toolver_k6_known("v0.47.0") == TOOLVER_UNKNOWN &&
           toolver_k6_known("v0.48.0 (source, go1.19.8)") == TOOLVER_LIVE,
       "k6: v1.0.0-v1.8.1 and v2.0.0-v2.2.0 by source, v0.48.0 live, others unknown");

    /* v2.2.0's --summary-export layout, with p(99.9) asked for. */
    const char *d = fresh_dir("k6-v2.2.0");
    put_fixture("k6/v2.2.0-source", "summary-export.json", d, "summary.json");
    struct profile_stage st = {.duration_ns = 5000000000ull, .target = 200};
    struct profile_load l = {.model = LOAD_OPEN, .stages = &st, .nstages = 1};
    struct adapter_ctx c = {.dir = d, .load = &l, .host = "127.0.0.1", .url = "http://127.0.0.1:1/"};
    struct adapter_result r;
    adapter_result_init(&r);
    char err[UTIL_ERR_LEN] = "";
    ok(adapter_parse(&adapter_k6, &c, &r, err) == 0 && r.parsed, "k6 v2.2.0 summary export parses (%s)", err);
    ok(r.requests == 1000 && r.ok == 1000 && r.errors == 0, "k6 v2.2.0: 1000 requests, all ok");
    ok(r.lat.p999 == 28.4, "k6 v2.2.0: p99.9 read from p(99.9) (%g)", r.lat.p999);
    ok(r.lat.p99 == 22.9 && r.lat.p50 == 20.5 && r.lat.max == 31.2, "k6 v2.2.0: p50, p99, max");
    adapter_result_free(&r);
}

static void test_jmeter(void)
{
    char v[64] = "";
    char *t = fixture_text("jmeter/5.6.3/ApacheJMeter.MANIFEST.MF");
    ok(toolver_manifest(t, "Implementation-Version", v, sizeof v) == 0 && !strcmp(v, "5.6.3"),
       "JMeter 5.6.3 launcher jar manifest (Maven Central's bin/ApacheJMeter.jar): %s", v);
    ok(toolver_jmeter_known(v) == TOOLVER_LIVE, "JMeter 5.6.3: ran live here");
    free(t);
    t = fixture_text("jmeter/5.6.3/ApacheJMeter_core.MANIFEST.MF");
    v[0] = 0;
    ok(toolver_manifest(t, "Implementation-Version", v, sizeof v) == 0 && !strcmp(v, "5.6.3"),
       "JMeter 5.6.3 core jar manifest: %s", v);
    free(t);
    t = fixture_text("jmeter/debian-2.13-core.MANIFEST.MF");
    ok(toolver_manifest(t, "Implementation-Version", v, sizeof v) == 0 && !strcmp(v, "2.13.19691222"),
       "Debian's JMeter 2.13 manifest (Class-Path continuation lines before it): %s", v);
    ok(toolver_jmeter_known(v) == TOOLVER_LIVE, "JMeter 2.13: ran live here");
    ok(toolver_manifest(t, "Implementation-Vendor-Id", v, sizeof v) == 0 && !strcmp(v, "org.apache"),
       "manifest: a value's blanks trimmed (%s)", v);
    ok(toolver_manifest(t, "Main-Class", v, sizeof v) == -1, "manifest: an absent key is -1");
    free(t);
    t = fixture_text("jmeter/5.6.3/version.txt");
    v[0] = 0;
    ok(toolver_jmeter_banner(t, v, sizeof v) == 0 && !strcmp(v, "5.6.3"),
       "JMeter 5.6.3 --version banner (after the JVM's and log4j2's lines): %s", v);
    ok(strstr(t, "Version ") == NULL, "the 5.6.3 banner has no \"Version \" (the old detection found none)");
    free(t);
    ok(toolver_jmeter_banner("Copyright (c) 1998-2015 Apache Software Foundation\nVersion 2.13.19691222\n", v,
                             sizeof v) == 0 && !strcmp(v, "2.13.19691222"),
       "JMeter 2.13's \"Version \" line: %s", v);
    ok(toolver_jmeter_banner("Error: could not find or load main class\n", v, sizeof v) == -1, "no version: -1");
    ok(toolver_jmeter_known("5.6.2") == TOOLVER_UNKNOWN && toolver_jmeter_known("2.13") == TOOLVER_LIVE,
       "JMeter: 5.6.2 unknown, 2.13 live");
}

/* 1 when one of v's strings is s. */
static int has_str(const struct strvec *v, const char *s)
{
    for (size_t i = 0; i < v->n; i++)
        if (!strcmp(v->v[i], s))
            return 1;
    return 0;
}

/* JMeter's path in prepare(): a home (found->path its bin/ApacheJMeter.jar)
 * runs through the launcher with its home, java and heap; the same
 * arguments for 5.6.3 and 2.13; 5.6.3's remote engines over RMI with SSL. */
static void test_jmeter_5x_prepare(void)
{
    struct profile *p = load_profile("target: {delay: 20ms}\nload: {connections: 4, duration: 2s}\n"
                                     "tools: [{tool: jmeter, options: {heap: 2g, jvm_args: \"-XX:+UseZGC\"}}]\n");
    if (!p)
        return;
    struct adapter_found f = {.path = "/opt/loadbench-tools/jmeter/bin/ApacheJMeter.jar", .version = "5.6.3"};
    struct prepared P;
    prepare_found(&adapter_jmeter, p, 0, &f, &P);
    ok(P.rc == 0, "jmeter 5.6.3: prepared (%s)", P.err);
    ok(!strncmp(P.argv, "-n -t plan.jmx -l results.jtl -j jmeter.log -q ", 47),
       "jmeter 5.6.3: the same -n -t -l -j -q as 2.13 (%s)", P.argv);
    ok(P.plan.argv.n && strstr(P.plan.argv.v[0], "adapters/jmeter/lb-jmeter"), "jmeter 5.6.3: run by the launcher");
    ok(has_str(&P.plan.env, "JMETER_HOME=/opt/loadbench-tools/jmeter") && has_str(&P.plan.env, "LB_JMETER_JAVA=/usr/bin/java"),
       "jmeter 5.6.3: the launcher gets the home and the one java");
    ok(has_str(&P.plan.env, "LB_JMETER_HEAP=-Xms2g -Xmx2g"), "jmeter 5.6.3: heap through LB_JMETER_HEAP");
    ok(has_str(&P.plan.env, "JVM_ARGS=-XX:+UseZGC"), "jmeter 5.6.3: the profile's JVM_ARGS");
    adapter_plan_free(&P.plan);
    /* instances: 2: the controller and an engine as the group prepares
     * them (process folders p0, p1 of one tool-run folder). */
    static const int ports[2] = {40001, 40002};
    if (access("/usr/bin/keytool", X_OK) == 0) {
        char base[600], d0[700], d1[700], pass0[64] = "", pass1[64] = "";
        snprintf(base, sizeof base, "%s", fresh_dir("jm5-remote"));
        snprintf(d0, sizeof d0, "%s/p0", base);
        snprintf(d1, sizeof d1, "%s/p1", base);
        mkdir(d0, 0755);
        mkdir(d1, 0755);
        struct prepared E, C;
        for (unsigned k = 0; k < 2; k++) {
            struct prepared *P2 = k ? &E : &C;
            struct adapter_ctx c = {.profile = p, .tool = &p->tools[0], .load = profile_tool_load(p, &p->tools[0]),
                                    .found = &f, .dir = k ? d1 : d0, .host = "127.0.0.1", .port = 8080,
                                    .url = "http://127.0.0.1:8080/", .instance = k, .instances = 2,
                                    .engine_ports = ports};
            adapter_plan_init(&P2->plan);
            P2->err[0] = 0;
            P2->rc = adapter_jmeter.prepare(&c, &P2->plan, P2->err);
            ok(P2->rc == 0, "jmeter 5.6.3 remote, process %u: prepared (%s)", k, P2->err);
        }
        char ks[800], arg[900];
        snprintf(ks, sizeof ks, "%s/rmi_keystore.jks", base);
        ok(access(ks, R_OK) == 0, "jmeter 5.6.3 remote: one keystore for the run, made by keytool");
        snprintf(arg, sizeof arg, "-Jserver.rmi.ssl.keystore.file=%s", ks);
        ok(has_str(&C.plan.argv, arg) && has_str(&E.plan.argv, arg), "controller and engine use it as keystore");
        snprintf(arg, sizeof arg, "-Jserver.rmi.ssl.truststore.file=%s", ks);
        ok(has_str(&C.plan.argv, arg) && has_str(&E.plan.argv, arg), "and as truststore");
        for (size_t i = 0; i < C.plan.argv.n; i++)
            sscanf(C.plan.argv.v[i], "-Jserver.rmi.ssl.keystore.password=%63s", pass0);
        for (size_t i = 0; i < E.plan.argv.n; i++)
            sscanf(E.plan.argv.v[i], "-Jserver.rmi.ssl.keystore.password=%63s", pass1);
        ok(strlen(pass0) == 24 && !strcmp(pass0, pass1) && strcmp(pass0, "changeit"),
           "one password drawn for the run, not JMeter's default (%s)", pass0);
        int disabled = 0, localport = 0, clientport = 0;
        for (unsigned k = 0; k < 2; k++) {
            const struct strvec *v = k ? &E.plan.argv : &C.plan.argv;
            for (size_t i = 0; i < v->n; i++) {
                disabled |= strstr(v->v[i], "ssl.disable") != NULL;
                localport |= k && !strncmp(v->v[i], "-Jserver.rmi.localport=", 23) && atoi(v->v[i] + 23) > 0;
                clientport |= !k && !strncmp(v->v[i], "-Jclient.rmi.localport=", 23) && atoi(v->v[i] + 23) > 0;
            }
        }
        ok(!disabled, "RMI SSL is never disabled");
        /* A second engine: its remote object's port is none the run took. */
        char d2[700];
        snprintf(d2, sizeof d2, "%s/p2", base);
        mkdir(d2, 0755);
        struct prepared E2;
        struct adapter_ctx c2 = {.profile = p, .tool = &p->tools[0], .load = profile_tool_load(p, &p->tools[0]),
                                 .found = &f, .dir = d2, .host = "127.0.0.1", .port = 8080,
                                 .url = "http://127.0.0.1:8080/", .instance = 2, .instances = 2,
                                 .engine_ports = ports};
        adapter_plan_init(&E2.plan);
        E2.err[0] = 0;
        E2.rc = adapter_jmeter.prepare(&c2, &E2.plan, E2.err);
        int lp1 = 0, lp2 = 0;
        for (size_t i = 0; i < E.plan.argv.n; i++)
            sscanf(E.plan.argv.v[i], "-Jserver.rmi.localport=%d", &lp1);
        for (size_t i = 0; i < E2.plan.argv.n; i++)
            sscanf(E2.plan.argv.v[i], "-Jserver.rmi.localport=%d", &lp2);
        char *taken = NULL, want[64];
        snprintf(want, sizeof want, " %d  %d ", lp1, lp2);
        size_t tlen = 0;
        char tpath[800];
        snprintf(tpath, sizeof tpath, "%s/rmi_localports", base);
        FILE *tf = fopen(tpath, "r");
        if (tf) {
            getdelim(&taken, &tlen, 0, tf);
            fclose(tf);
        }
        ok(E2.rc == 0 && lp1 > 0 && lp2 > 0 && lp1 != lp2 && lp1 != 40001 && lp1 != 40002 && lp2 != 40001 &&
               lp2 != 40002 && taken && !strcmp(taken, want),
           "two engines: distinct remote-object ports, none an engine's registry port, recorded (%d, %d: %s)", lp1, lp2,
           taken ? taken : "no rmi_localports");
        free(taken);
        adapter_plan_free(&E2.plan);
        ok(localport && has_str(&E.plan.argv, "-Dserver_port=40001"),
           "the engine: its registry on its engine port, its remote object on a fixed server.rmi.localport");
        ok(!clientport, "the controller: no fixed client.rmi.localport (5.6.3 binds only its first SSL listener there)");
        ok(has_str(&C.plan.env, "LB_JMETER_RMI_HOST=127.0.0.1") && has_str(&E.plan.env, "LB_JMETER_RMI_HOST=127.0.0.1"),
           "every process: RMI bound to and named by the load address (the launcher's java.rmi.server.hostname)");
        adapter_plan_free(&C.plan);
        adapter_plan_free(&E.plan);
    } else {
        ok(1, "# SKIP keytool not installed (a JDK: default-jdk-headless)");
    }
    f = (struct adapter_found){.path = "/usr/share/jmeter/bin/ApacheJMeter.jar", .version = "2.13.19691222"};
    prepare_found(&adapter_jmeter, p, 0, &f, &P);
    ok(P.rc == 0 && has_str(&P.plan.env, "LB_JMETER_HEAP=-Xms2g -Xmx2g") && has_str(&P.plan.env, "JVM_ARGS=-XX:+UseZGC") &&
           has_str(&P.plan.env, "JMETER_HOME=/usr/share/jmeter"),
       "jmeter 2.13: the launcher's variables, Debian's home (%s)", P.err);
    adapter_plan_free(&P.plan);
    /* A bin: executable (Debian's /usr/bin/jmeter as shipped): run as it is. */
    f = (struct adapter_found){.path = "/usr/bin/jmeter", .version = "2.13-5"};
    prepare_found(&adapter_jmeter, p, 0, &f, &P);
    ok(P.rc == 0 && P.plan.argv.n && !strcmp(P.plan.argv.v[0], "/usr/bin/jmeter") &&
           !has_str(&P.plan.env, "JMETER_HOME=/usr/share/jmeter"),
       "jmeter bin: /usr/bin/jmeter: run as it is, no launcher (%s)", P.err);
    adapter_plan_free(&P.plan);
    profile_free(p);
}

int main(void)
{
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures", adapter_datadir());
    snprintf(tmproot, sizeof tmproot, "/tmp/lb-test-versions.XXXXXX");
    if (!mkdtemp(tmproot)) {
        ok(0, "temp dir");
        return done_testing();
    }
    test_k6();
    test_jmeter();
    test_jmeter_5x_prepare();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmproot);
    if (system(cmd) != 0)
        diag("could not remove %s", tmproot);
    return done_testing();
}
