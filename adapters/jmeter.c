/* The adapter for Apache JMeter: 5.6.3 from Maven Central by default (the
 * home scripts/registry/maven/jmeter/install lays out in the tools folder,
 * TOOLS/jmeter), Debian 12's 2.13 (/usr/share/jmeter) when a profile names
 * it with bin: or when the tools folder has none. The fixtures in
 * tests/fixtures/jmeter/5.6.3/ and (2.13) tests/fixtures/jmeter/ are their
 * real output.
 *
 * Either home runs through the launcher adapters/jmeter/lb-jmeter, on one
 * java, JM_JAVA (Debian's OpenJDK 17), with the JVM flags of that version's
 * own start script (5.6.3's bin/jmeter: HEAP, GC_ALGO, its --add-opens);
 * the version is the Implementation-Version of the home's
 * bin/ApacheJMeter.jar. The same -n -t -l -j -q arguments, plan and JTL
 * columns (read by header name; 5.x adds sentBytes). 5.x's remote mode keeps
 * RMI over SSL on: a keystore made for the run (keytool, as its
 * create-rmi-keystore.sh), fixed RMI ports, every RMI socket bound to the
 * load address (jm_rmi_ssl).
 *
 * Debian's JMeter 2.13 cannot load any plan as shipped (its XStream refuses
 * JMeter's own classes, and the process still exits 0): the launcher mends
 * that (adapters/jmeter/README.md); a bin: naming an executable such as
 * Debian's /usr/bin/jmeter runs it as it is. The profile becomes a generated plan.jmx: ThreadGroups
 * (threads, ramp-up, scheduler delay and duration) with one HTTP GET, and a
 * ConstantThroughputTimer for a rate (paced). Results come from the JTL CSV
 * (-q adapters/jmeter/lb-jtl.properties); counts and percentiles are
 * computed here from its rows. A run that did not load its plan is never
 * ok, whatever JMeter's exit status.
 *
 * instances: N runs JMeter's own distributed mode: N jmeter-server engines
 * on free ports of 127.0.0.1 (processes 1..N, started first) and a
 * controller (process 0, -R) that hands them the plan and writes the
 * result file from the samples they send back. Every engine runs the whole
 * plan it is sent, so the plan takes each group's threads and rate from
 * properties that each engine is started with, its share. */
#include "adapters/adapter.h"
#include "adapters/raw.h"
#include "adapters/toolver.h"
#include "common/fsutil.h"
#include "common/hist.h"
#include "common/net.h"
#include "common/units.h"
#include "common/util.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JM_PLAN "plan.jmx"
#define JM_JTL "results.jtl"
#define JM_LOG "jmeter.log"
#define JM_SERVER_LOG "jmeter-server.log"
#define JM_HOME_DEBIAN "/usr/share/jmeter"
#define JM_TOOLS_JAR "jmeter/bin/ApacheJMeter.jar" /* in a tools folder */
#define JM_JAR "/bin/ApacheJMeter.jar"             /* in a JMeter home */
/* The one java loadbench runs JMeter with, both versions: Debian's
 * default-jdk-headless, OpenJDK 17 (/usr/bin/java, never the first java on
 * PATH: the machine may have another JDK beside it). Its keytool makes 5.x's
 * RMI keystore; lb-jmeter gets it as LB_JMETER_JAVA (and javac beside it
 * compiles 2.13's LbJMeter). */
#define JM_JAVA "/usr/bin/java"
#define JM_KEYTOOL "/usr/bin/keytool"

/* heap: "1g" -> -Xms1g -Xmx1g (LB_JMETER_HEAP); jvm_args: appended (JVM_ARGS),
 * e.g. "-XX:+UseParallelGC"; threads: the paced model's thread count. */
static const char *const jm_options[] = {"heap", "jvm_args", "threads", NULL};

/* The JMeter home whose bin/ApacheJMeter.jar is path (found->path of a
 * home run through the launcher), into out; 0, or -1 when path names
 * something else (a bin: executable run as it is). */
static int jm_home_of(const char *path, char *out, size_t outlen)
{
    size_t n = strlen(path), j = strlen(JM_JAR);
    if (n <= j || strcmp(path + n - j, JM_JAR))
        return -1;
    snprintf(out, outlen, "%.*s", (int)(n - j), path);
    return 0;
}

/* The version in the Implementation-Version of jar's manifest (unzip -p):
 * 5.6.3 in Maven Central's launcher, 2.13.19691222 in Debian's. Returns 0
 * with found->version set, or -1. */
static int jm_manifest_version(const char *jar, struct adapter_found *found)
{
    char mf[8192];
    const char *argv[] = {"unzip", "-p", jar, "META-INF/MANIFEST.MF", NULL};
    if (access(jar, R_OK) || adapter_capture(argv, mf, sizeof mf) != 0)
        return -1;
    return toolver_manifest(mf, "Implementation-Version", found->version, sizeof found->version);
}

/* 1 when found is JMeter 3 or later (5.x: its own flags, RMI over SSL). */
static int jm_is_5x(const struct adapter_found *found)
{
    return toolver_major(found->version) >= 3;
}

/* The home to run: bin: when it names a folder, else $JMETER_HOME, else
 * the tools folder's (5.6.3 from Maven Central), else Debian's 2.13. Its
 * launcher jar into jar. */
static void jm_pick_home(const char *bin, char *jar, size_t len)
{
    const char *env = getenv("JMETER_HOME");
    if (bin)
        snprintf(jar, len, "%s%s", bin, JM_JAR);
    else if (env && *env)
        snprintf(jar, len, "%s%s", env, JM_JAR);
    else if (adapter_tools_file(JM_TOOLS_JAR, jar, len))
        snprintf(jar, len, "%s%s", JM_HOME_DEBIAN, JM_JAR);
}

/* A bin: naming an executable (Debian's /usr/bin/jmeter as shipped): run
 * as it is, its version from --version, else from dpkg. */
static int jm_detect_exec(const char *bin, struct adapter_found *found, char *err)
{
    if (adapter_which(bin, found->path, sizeof found->path))
        return util_err(err, "JMeter \"%s\" not found or not executable (bin: names a JMeter home, e.g. %s, or "
                             "a launcher)", bin, JM_HOME_DEBIAN);
    /* -j /dev/null: --version would leave a jmeter.log in our cwd. */
    const char *argv[] = {found->path, "-j", "/dev/null", "--version", NULL};
    char out[4096];
    int rc = adapter_capture(argv, out, sizeof out);
    if (rc == 0 && toolver_jmeter_banner(out, found->version, sizeof found->version) == 0)
        return 0;
    /* A JVM starts slowly on a busy core: dpkg still names the installed JMeter. */
    const char *dq[] = {"dpkg-query", "-W", "-f=${Version}", "jmeter", NULL};
    char dv[256];
    if (adapter_capture(dq, dv, sizeof dv) == 0 && dv[0] && !strchr(dv, ' ')) {
        snprintf(found->version, sizeof found->version, "%.60s (dpkg; --version did not answer)", dv);
        return 0;
    }
    char *nl = strrchr(out, '\n');
    while (nl && nl > out && nl[1] == 0) {
        *nl = 0;
        nl = strrchr(out, '\n');
    }
    return util_err(err, "`%s --version` failed (exit %d): %.150s", found->path, rc, nl ? nl + 1 : out);
}

static int jm_detect(const char *bin, struct adapter_found *found, char *err)
{
    struct stat st;
    if (bin && (stat(bin, &st) || !S_ISDIR(st.st_mode)))
        return jm_detect_exec(bin, found, err);
    char jar[PATH_MAX], cand[PATH_MAX + 64];
    jm_pick_home(bin, jar, sizeof jar);
    if (access(jar, R_OK))
        return util_err(err, "JMeter is not installed (%s missing; scripts/install-tools installs 5.6.3 into the "
                             "tools folder)", jar);
    if (access(JM_JAVA, X_OK))
        return util_err(err, "%s is missing (JMeter needs a JDK: apt-get install default-jdk-headless)", JM_JAVA);
    snprintf(cand, sizeof cand, "%s/adapters/jmeter/lb-jmeter", adapter_datadir());
    if (access(cand, X_OK))
        return util_err(err, "the JMeter launcher %s is missing (set LOADBENCH_DATA to the source tree)", cand);
    /* The launcher jar's manifest names the version without starting a JVM. */
    if (jm_manifest_version(jar, found))
        return util_err(err, "%s: no Implementation-Version in its manifest (unzip -p)", jar);
    /* As found, not resolved: Debian's jar is a link into /usr/share/java. */
    if (strlen(jar) >= sizeof found->path)
        return util_err(err, "%.200s...: the JMeter home's path is too long", jar);
    memcpy(found->path, jar, strlen(jar) + 1);
    return 0;
}

/* One ThreadGroup: threads started evenly over [delay_s, delay_s+ramp_s],
 * all stopped at end_s (2.13: end = delay + duration, for every thread). */
struct jm_group {
    uint64_t threads;
    uint64_t delay_s, ramp_s, end_s;
    double rate_per_s;      /* paced: the group's ConstantThroughputTimer; 0 = none */
};

struct jm_groups {
    struct jm_group *g;
    size_t n, cap;
    int rounded;            /* a time was rounded to whole seconds */
};

static void group_add(struct jm_groups *gs, struct jm_group g)
{
    if (gs->n == gs->cap) {
        gs->cap = gs->cap ? gs->cap * 2 : 8;
        gs->g = util_xrealloc(gs->g, gs->cap * sizeof *gs->g);
    }
    gs->g[gs->n++] = g;
}

/* Whole seconds (the ThreadGroup's unit), noting any rounding. */
static uint64_t secs(struct jm_groups *gs, double s)
{
    double r = round(s);
    if (fabs(r - s) > 1e-9)
        gs->rounded = 1;
    return (uint64_t)r;
}

/* The closed model's stages as thread groups: a rising stage starts a group
 * of (rise) threads over the stage; a falling stage stops (fall) threads,
 * the most recently started first, at the stage's midpoint (2.13 stops a
 * group's threads together, so a linear ramp-down becomes one step with the
 * same thread-seconds); the rest stop at the end. */
static void closed_groups(const struct profile_load *l, struct jm_groups *gs)
{
    double t = 0, from = 0;
    double total = (double)profile_load_duration_ns(l) / 1e9;
    if (!l->ramped) {
        group_add(gs, (struct jm_group){.threads = (uint64_t)l->stages[0].target, .delay_s = 0, .ramp_s = 0,
                                        .end_s = secs(gs, total)});
        return;
    }
    size_t open_from = 0; /* groups [open_from, n) may still be running; end_s == 0 means open */
    for (size_t i = 0; i < l->nstages; i++) {
        double d = (double)l->stages[i].duration_ns / 1e9, to = l->stages[i].target;
        if (to > from) {
            group_add(gs, (struct jm_group){.threads = (uint64_t)llround(to - from), .delay_s = secs(gs, t),
                                            .ramp_s = secs(gs, d), .end_s = 0});
        } else if (to < from) {
            uint64_t stop = (uint64_t)llround(from - to), at = secs(gs, t + d / 2);
            for (size_t k = gs->n; k-- > open_from && stop;) {
                struct jm_group *g = &gs->g[k];
                if (g->end_s)
                    continue;
                if (g->threads <= stop) {
                    g->end_s = at;
                    stop -= g->threads;
                } else {
                    /* Split: two groups over the same ramp still start their
                     * threads evenly over it, together. */
                    struct jm_group part = *g;
                    part.threads = stop;
                    part.end_s = at;
                    g->threads -= stop;
                    stop = 0;
                    group_add(gs, part); /* may move gs->g: g is not used after */
                }
            }
        }
        t += d;
        from = to;
    }
    for (size_t k = open_from; k < gs->n; k++)
        if (!gs->g[k].end_s)
            gs->g[k].end_s = secs(gs, total);
}

/* The sampler's children: with check: a Response Assertion, as JMeter
 * users write it: Response Code, Equals, the code; "Ignore Status"
 * (assume_success) on, so that the assertion alone judges the status
 * (without it a 404 asked for would still fail as a non-2xx/3xx).
 * A failed assertion makes the sample unsuccessful in the JTL.
 * "Asserion.test_strings" is JMeter's own spelling (ResponseAssertion's
 * TEST_STRINGS, 2.13 and 5.6.3); test_type 8 is EQUALS. */
/* The sampler's arguments: none for a GET; for a POST its Body Data
 * (postBodyRaw: the one unnamed argument's value is the whole body), the
 * profile's size of 'x', as JMeter's GUI writes a body typed in. */
static void xml_body(struct textbuf *b, uint64_t bytes)
{
    if (!bytes) {
        textbuf_printf(b,
                "          <elementProp name=\"HTTPsampler.Arguments\" elementType=\"Arguments\" guiclass=\"HTTPArgumentsPanel\" testclass=\"Arguments\" testname=\"User Defined Variables\" enabled=\"true\">\n"
                "            <collectionProp name=\"Arguments.arguments\"/>\n"
                "          </elementProp>\n");
        return;
    }
    textbuf_printf(b,
            "          <boolProp name=\"HTTPSampler.postBodyRaw\">true</boolProp>\n"
            "          <elementProp name=\"HTTPsampler.Arguments\" elementType=\"Arguments\">\n"
            "            <collectionProp name=\"Arguments.arguments\">\n"
            "              <elementProp name=\"\" elementType=\"HTTPArgument\">\n"
            "                <boolProp name=\"HTTPArgument.always_encode\">false</boolProp>\n"
            "                <stringProp name=\"Argument.value\">");
    char *x = util_xmalloc(bytes + 1);
    memset(x, 'x', bytes);
    x[bytes] = 0;
    textbuf_printf(b, "%s</stringProp>\n", x);
    free(x);
    textbuf_printf(b,

            "                <stringProp name=\"Argument.metadata\">=</stringProp>\n"
            "              </elementProp>\n"
            "            </collectionProp>\n"
            "          </elementProp>\n");
}

static void xml_check(struct textbuf *b, int status)
{
    if (!status) {
        textbuf_printf(b, "        <hashTree/>\n");
        return;
    }
    textbuf_printf(b,
            "        <hashTree>\n"
            "          <ResponseAssertion guiclass=\"AssertionGui\" testclass=\"ResponseAssertion\" testname=\"status is %d\" enabled=\"true\">\n"
            "            <collectionProp name=\"Asserion.test_strings\">\n"
            "              <stringProp name=\"status\">%d</stringProp>\n"
            "            </collectionProp>\n"
            "            <stringProp name=\"Assertion.custom_message\"></stringProp>\n"
            "            <stringProp name=\"Assertion.test_field\">Assertion.response_code</stringProp>\n"
            "            <boolProp name=\"Assertion.assume_success\">true</boolProp>\n"
            "            <intProp name=\"Assertion.test_type\">8</intProp>\n"
            "          </ResponseAssertion>\n"
            "          <hashTree/>\n"
            "        </hashTree>\n",
            status, status);
}

/* One ThreadGroup with its sampler (and timer). by_property: its threads
 * and rate are ${__P(lb.g<idx>.threads)} and ${__P(lb.g<idx>.rate_per_min)},
 * which each remote engine resolves from its own -J properties (2.13
 * compiles the tree on the engine: the controller resolves only its
 * result collectors), so that each runs its own share. */
static void xml_group(struct textbuf *b, size_t idx, const struct jm_group *g, const struct adapter_ctx *c,
                      int by_property)
{
    const struct profile_load *l = c->load;
    int post = c->profile->request.post;
    uint64_t dur = g->end_s > g->delay_s ? g->end_s - g->delay_s : 1;
    char threads[64], rate[64];
    if (by_property) {
        snprintf(threads, sizeof threads, "${__P(lb.g%zu.threads)}", idx);
        snprintf(rate, sizeof rate, "${__P(lb.g%zu.rate_per_min)}", idx);
    } else {
        snprintf(threads, sizeof threads, "%llu", (unsigned long long)g->threads);
        snprintf(rate, sizeof rate, "%.10g", g->rate_per_s * 60);
    }
    textbuf_printf(b,
            "      <ThreadGroup guiclass=\"ThreadGroupGui\" testclass=\"ThreadGroup\" testname=\"lb-%zu\" enabled=\"true\">\n"
            "        <stringProp name=\"ThreadGroup.on_sample_error\">continue</stringProp>\n"
            "        <elementProp name=\"ThreadGroup.main_controller\" elementType=\"LoopController\" guiclass=\"LoopControlPanel\" testclass=\"LoopController\" testname=\"Loop Controller\" enabled=\"true\">\n"
            "          <boolProp name=\"LoopController.continue_forever\">false</boolProp>\n"
            "          <intProp name=\"LoopController.loops\">-1</intProp>\n"
            "        </elementProp>\n"
            "        <stringProp name=\"ThreadGroup.num_threads\">%s</stringProp>\n"
            "        <stringProp name=\"ThreadGroup.ramp_time\">%llu</stringProp>\n"
            "        <longProp name=\"ThreadGroup.start_time\">0</longProp>\n"
            "        <longProp name=\"ThreadGroup.end_time\">0</longProp>\n"
            "        <boolProp name=\"ThreadGroup.scheduler\">true</boolProp>\n"
            "        <stringProp name=\"ThreadGroup.duration\">%llu</stringProp>\n"
            "        <stringProp name=\"ThreadGroup.delay\">%llu</stringProp>\n"
            "      </ThreadGroup>\n"
            "      <hashTree>\n",
            idx, threads, (unsigned long long)g->ramp_s, (unsigned long long)dur,
            (unsigned long long)g->delay_s);
    char tmo[32] = "";
    if (l->request_timeout_ns)
        snprintf(tmo, sizeof tmo, "%llu", (unsigned long long)((l->request_timeout_ns + 999999) / 1000000));
    textbuf_printf(b,
            "        <HTTPSamplerProxy guiclass=\"HttpTestSampleGui\" testclass=\"HTTPSamplerProxy\" testname=\"%s\" enabled=\"true\">\n",
            post ? "POST" : "GET");
    xml_body(b, post ? c->profile->request.body_bytes : 0);
    textbuf_printf(b,
            "          <stringProp name=\"HTTPSampler.domain\">%s</stringProp>\n"
            "          <stringProp name=\"HTTPSampler.port\">%d</stringProp>\n"
            "          <stringProp name=\"HTTPSampler.connect_timeout\">%s</stringProp>\n"
            "          <stringProp name=\"HTTPSampler.response_timeout\">%s</stringProp>\n"
            "          <stringProp name=\"HTTPSampler.protocol\">%s</stringProp>\n"
            "          <stringProp name=\"HTTPSampler.contentEncoding\"></stringProp>\n"
            "          <stringProp name=\"HTTPSampler.path\">/</stringProp>\n"
            "          <stringProp name=\"HTTPSampler.method\">%s</stringProp>\n"
            "          <boolProp name=\"HTTPSampler.follow_redirects\">false</boolProp>\n"
            "          <boolProp name=\"HTTPSampler.auto_redirects\">false</boolProp>\n"
            "          <boolProp name=\"HTTPSampler.use_keepalive\">true</boolProp>\n"
            "          <boolProp name=\"HTTPSampler.DO_MULTIPART_POST\">false</boolProp>\n"
            "          <boolProp name=\"HTTPSampler.monitor\">false</boolProp>\n"
            "          <stringProp name=\"HTTPSampler.embedded_url_re\"></stringProp>\n"
            "          <stringProp name=\"HTTPSampler.implementation\">HttpClient4</stringProp>\n"
            "        </HTTPSamplerProxy>\n",
            c->host, c->port, tmo, tmo, c->ca_file ? "https" : "http", post ? "POST" : "GET");
    xml_check(b, c->profile->check.status);
    if (g->rate_per_s > 0)
        /* calcMode 2: all active threads in this thread group share the
         * rate; throughput is in samples per minute. */
        textbuf_printf(b,
                "        <ConstantThroughputTimer guiclass=\"TestBeanGUI\" testclass=\"ConstantThroughputTimer\" testname=\"rate\" enabled=\"true\">\n"
                "          <intProp name=\"calcMode\">2</intProp>\n"
                "          <stringProp name=\"throughput\">%s</stringProp>\n"
                "        </ConstantThroughputTimer>\n"
                "        <hashTree/>\n",
                rate);
    textbuf_printf(b, "      </hashTree>\n");
}

/* The profile's load as thread groups (the whole load, all engines
 * together), with what JMeter cannot express as warnings. Returns 0, or
 * -1 with err (gs is then empty). */
static int jm_groups_for(const struct adapter_ctx *c, struct adapter_plan *p, struct jm_groups *gs, char *err)
{
    const struct profile_load *l = c->load;
    const char *topt = adapter_option(c, "threads");
    if (l->model == LOAD_CLOSED) {
        p->model = "closed";
        closed_groups(l, gs);
        if (topt)
            strvec_push(&p->warnings, "jmeter option threads ignored: the closed model's threads are the profile's "
                                      "connections");
        int falls = 0;
        for (size_t i = 0; i < l->nstages; i++)
            falls |= l->ramped && l->stages[i].target < (i ? l->stages[i - 1].target : 0);
        if (l->ramped)
            strvec_pushf(&p->warnings,
                         "stages as %zu JMeter thread group(s): each rising stage starts its threads evenly over the "
                         "stage%s",
                         gs->n, falls ? "; JMeter's ThreadGroup has no ramp-down: a falling stage stops its threads "
                                       "together at the stage's midpoint (same thread-seconds as the linear ramp)" : "");
        if (!falls)
            strvec_push(&p->warnings, "JMeter's ThreadGroup has no ramp-down: all threads of a thread group stop "
                                      "together at its end");
    } else {
        p->model = "paced";
        double peak = profile_load_peak(l);
        uint64_t threads;
        if (topt) {
            char *end;
            threads = strtoull(topt, &end, 10);
            if (!*topt || *end || !threads)
                return util_err(err, "jmeter option threads=\"%s\": want a positive number of threads", topt);
        } else if (l->max_inflight) {
            threads = l->max_inflight;
        } else {
            threads = raw_paced_workers(c->profile, peak);
        }
        /* The timer's rate is fixed per group: one group per stage, running
         * the stage's mean rate with threads in proportion. */
        double t = 0, from = l->ramped ? 0 : l->stages[0].target;
        for (size_t i = 0; i < l->nstages; i++) {
            double d = (double)l->stages[i].duration_ns / 1e9, to = l->stages[i].target;
            double mean = (from + to) / 2;
            uint64_t n = (uint64_t)ceil((double)threads * (from > to ? from : to) / peak);
            if (mean > 0 && n > 0)
                group_add(gs, (struct jm_group){.threads = n, .delay_s = secs(gs, t), .ramp_s = 0,
                                                 .end_s = secs(gs, t + d), .rate_per_s = mean});
            t += d;
            from = to;
        }
        strvec_pushf(&p->warnings,
                     "JMeter has no open model: %llu threads paced by a ConstantThroughputTimer (all active threads "
                     "of the group share %.10g/s); it only delays threads, so it cannot exceed what they can do",
                     (unsigned long long)threads, peak);
        if (l->ramped && l->nstages > 1)
            strvec_pushf(&p->warnings, "rate stages as %zu JMeter thread groups, each at its stage's mean rate (the "
                                       "timer's rate is fixed per group): ramps become steps",
                         gs->n);
        json_object_set_new(p->settings, "threads", json_integer((json_int_t)threads));
    }
    if (gs->rounded)
        strvec_push(&p->warnings, "JMeter's thread group times are whole seconds: some were rounded");
    return 0;
}

/* Write plan.jmx: the thread groups of gs, their threads and rates as
 * numbers, or (by_property, a controller's) as properties each engine
 * gives its own share of. The groups go into the settings. Returns 0, or
 * -1 with err. */
static int jm_write_plan(const struct adapter_ctx *c, struct adapter_plan *p, const struct jm_groups *gs,
                         int by_property, char *err)
{

    /* The profile's name in an XML comment: no "--", no markup. */
    char name[128];
    snprintf(name, sizeof name, "%s", c->profile->name ? c->profile->name : "");
    for (char *s = name; *s; s++)
        if (*s == '-' || *s == '<' || *s == '>' || *s == '&')
            *s = '_';
    struct textbuf b = {0};
    textbuf_printf(&b,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<!-- Generated by loadbench for profile \"%s\" (JMeter 2.13 format; 5.6.3 loads it). -->\n"
            "<jmeterTestPlan version=\"1.2\" properties=\"2.8\" jmeter=\"2.13 r1665067\">\n"
            "  <hashTree>\n"
            "    <TestPlan guiclass=\"TestPlanGui\" testclass=\"TestPlan\" testname=\"loadbench\" enabled=\"true\">\n"
            "      <stringProp name=\"TestPlan.comments\"></stringProp>\n"
            "      <boolProp name=\"TestPlan.functional_mode\">false</boolProp>\n"
            "      <boolProp name=\"TestPlan.serialize_threadgroups\">false</boolProp>\n"
            "      <elementProp name=\"TestPlan.user_defined_variables\" elementType=\"Arguments\" guiclass=\"ArgumentsPanel\" testclass=\"Arguments\" testname=\"User Defined Variables\" enabled=\"true\">\n"
            "        <collectionProp name=\"Arguments.arguments\"/>\n"
            "      </elementProp>\n"
            "      <stringProp name=\"TestPlan.user_define_classpath\"></stringProp>\n"
            "    </TestPlan>\n"
            "    <hashTree>\n",
            name);
    for (size_t i = 0; i < gs->n; i++)
        xml_group(&b, i + 1, &gs->g[i], c, by_property);
    textbuf_printf(&b, "    </hashTree>\n  </hashTree>\n</jmeterTestPlan>\n");
    json_t *groups = json_array();
    for (size_t i = 0; i < gs->n; i++) {
        const struct jm_group *jg = &gs->g[i];
        json_t *g = json_pack("{s:I, s:I, s:I, s:I}", "threads", (json_int_t)jg->threads, "delay_s",
                              (json_int_t)jg->delay_s, "ramp_s", (json_int_t)jg->ramp_s, "end_s", (json_int_t)jg->end_s);
        if (jg->rate_per_s > 0)
            json_object_set_new(g, "rate_per_s", json_real(jg->rate_per_s));
        json_array_append_new(groups, g);
    }
    json_object_set_new(p->settings, "thread_groups", groups);
    int rc = adapter_write(c->dir, JM_PLAN, b.s, err);
    textbuf_free(&b);
    if (rc)
        return -1;
    strvec_push(&p->files, JM_PLAN);
    return adapter_body_file(c, p, err) < 0 ? -1 : 0;
}

/* The launcher's environment and the JVM settings, the same for every
 * process: java, the home, heap, collector, extra JVM arguments, and for a
 * distributed run the address RMI binds (rmi_host; NULL otherwise). A bin:
 * executable gets only JVM_ARGS. */
static void jm_jvm(const struct adapter_ctx *c, struct adapter_plan *p, const char *heap, const char *rmi_host)
{
    const char *jvm_args = adapter_option(c, "jvm_args");
    int v5 = jm_is_5x(c->found);
    char home[PATH_MAX];
    int launcher = jm_home_of(c->found->path, home, sizeof home) == 0;
    /* The launcher's flags (adapters/jmeter/lb-jmeter), each version's own
     * start script's: 5.6.3's bin/jmeter HEAP and GC_ALGO (G1, 100 ms
     * pause goal); 2.13's heap and young generation, no collector named
     * (the JVM's default: G1 on Java 17 with 2+ CPUs). Either way stdout's
     * first line has the flags in effect (-XX:+PrintCommandLineFlags). */
    char heapflags[128];
    if (heap)
        snprintf(heapflags, sizeof heapflags, "-Xms%s -Xmx%s", heap, heap);
    else
        snprintf(heapflags, sizeof heapflags, v5 ? "-Xms1g -Xmx1g -XX:MaxMetaspaceSize=256m" : "-Xms512m -Xmx512m");
    if (launcher) {
        strvec_pushf(&p->env, "JMETER_HOME=%s", home);
        strvec_pushf(&p->env, "LB_JMETER_JAVA=%s", JM_JAVA);
        if (heap)
            strvec_pushf(&p->env, "LB_JMETER_HEAP=%s", heapflags);
        if (rmi_host)
            strvec_pushf(&p->env, "LB_JMETER_RMI_HOST=%s", rmi_host);
        json_object_set_new(p->settings, "jmeter_home", json_string(home));
        json_object_set_new(p->settings, "java", json_string(JM_JAVA));
    }
    if (!launcher && rmi_host) /* a bin: launcher: the stubs' name at least */
        strvec_pushf(&p->env, "JVM_ARGS=-Djava.rmi.server.hostname=%s%s%s", rmi_host, jvm_args ? " " : "",
                     jvm_args ? jvm_args : "");
    else if (jvm_args)
        strvec_pushf(&p->env, "JVM_ARGS=%s", jvm_args);
    json_object_set_new(p->settings, "heap", json_string(heapflags));
    if (!v5)
        json_object_set_new(p->settings, "young_gen",
                            json_string("-XX:NewSize=128m -XX:MaxNewSize=128m -XX:SurvivorRatio=8 "
                                        "-XX:TargetSurvivorRatio=50 -XX:MaxTenuringThreshold=2"));
    const char *gc_default = v5 ? "-XX:+UseG1GC -XX:MaxGCPauseMillis=100 -XX:G1ReservePercent=20 (5.6.3's GC_ALGO)"
                                : "JVM default (see client.tool_output.jvm)";
    json_object_set_new(p->settings, "gc", json_string(jvm_args && strstr(jvm_args, "GC") ? jvm_args : gc_default));
    if (jvm_args)
        json_object_set_new(p->settings, "jvm_args", json_string(jvm_args));
    json_object_set_new(p->settings, "http_implementation", json_string("HttpClient4, keep-alive"));
}

/* Engine k's (1..n) share of group g: its threads (the remainder one
 * each to the first engines) and the group's rate in proportion, so that
 * the n engines together run exactly g. */
static struct jm_group engine_share(const struct jm_group *g, unsigned k, unsigned n)
{
    struct jm_group s = *g;
    s.threads = g->threads / n + (k - 1 < g->threads % n ? 1 : 0);
    s.rate_per_s = g->threads ? g->rate_per_s * (double)s.threads / (double)g->threads : 0;
    return s;
}

/* A remote engine, as jmeter-server starts one (2.13's script: jmeter
 * -Dserver_port=PORT -s -j jmeter-server.log): its RMI registry on its
 * own port of 127.0.0.1; its share of every thread group as the
 * properties the controller's plan names; it exits by itself once its
 * test has ended (server.exitaftertest, and jmeterengine.remote.system.exit
 * for a System.exit: RMI's exported objects would keep the JVM alive). */
static void jm_engine_argv(const struct adapter_ctx *c, struct adapter_plan *p, const struct jm_groups *gs)
{
    int port = c->engine_ports[c->instance - 1];
    strvec_pushf(&p->argv, "-Dserver_port=%d", port);
    strvec_push(&p->argv, "-s");
    strvec_push(&p->argv, "-j");
    strvec_push(&p->argv, JM_SERVER_LOG);
    strvec_push(&p->argv, "-Jserver.exitaftertest=true");
    strvec_push(&p->argv, "-Jjmeterengine.remote.system.exit=true");
    json_t *share = json_array();
    for (size_t i = 0; i < gs->n; i++) {
        struct jm_group s = engine_share(&gs->g[i], c->instance, c->instances);
        strvec_pushf(&p->argv, "-Jlb.g%zu.threads=%llu", i + 1, (unsigned long long)s.threads);
        if (gs->g[i].rate_per_s > 0) /* the group has a timer */
            strvec_pushf(&p->argv, "-Jlb.g%zu.rate_per_min=%.10g", i + 1, s.rate_per_s * 60);
        json_array_append_new(share, json_pack("{s:I, s:f}", "threads", (json_int_t)s.threads, "rate_per_s",
                                               s.rate_per_s));
    }
    json_object_set_new(p->settings, "engine_share", share);
    json_object_set_new(p->settings, "rmi_port", json_integer(port));
    p->ready_port = port;
}

/* The controller of n engines: -R names them all; it sends them the
 * plan and writes the samples they send back. */
static void jm_controller_argv(const struct adapter_ctx *c, struct adapter_plan *p)
{
    struct textbuf hosts = {0};
    for (unsigned k = 0; k < c->instances; k++)
        textbuf_printf(&hosts, "%s%s:%d", k ? "," : "", c->group_host ? c->group_host : "127.0.0.1",
                       c->engine_ports[k]);
    strvec_push(&p->argv, "-R");
    strvec_push(&p->argv, hosts.s);
    json_object_set_new(p->settings, "remote_engines", json_string(hosts.s));
    /* The default of 2.13 and 5.6.3 (SampleSenderFactory): batches of 100
     * samples or 60 s, response data stripped. */
    json_object_set_new(p->settings, "sample_sender", json_string("StrippedBatch (JMeter's default mode)"));
    textbuf_free(&hosts);
}

/* Each engine must run at least one thread: the load needs as many as
 * there are engines. Returns 0, or -1 with err. */
static int jm_check_engines(const struct adapter_ctx *c, const struct adapter_plan *p, char *err)
{
    uint64_t threads = 0;
    if (c->load->model == LOAD_CLOSED)
        threads = (uint64_t)profile_load_peak(c->load);
    else
        threads = (uint64_t)json_integer_value(json_object_get(p->settings, "threads"));
    if (threads < c->instances)
        return util_err(err, "%u JMeter engines need at least %u threads (one each); the load gives %llu%s",
                        c->instances, c->instances, (unsigned long long)threads,
                        c->load->model == LOAD_CLOSED ? "" : " (jmeter option threads)");
    return 0;
}

/* ---- JMeter 5.x's remote mode: RMI over SSL ---------------------------------- */

#define JM_KEYSTORE "rmi_keystore.jks"
#define JM_KEYPASS "rmi_keystore.pass"
#define JM_LOCALPORTS "rmi_localports" /* " PORT " per engine: their server.rmi.localport */

/* count consecutive free TCP ports on host, the first in *first. Returns
 * 0, or -1 with err. (Free when probed: another process may take one
 * before JMeter binds it, as with the group's own ports.) */
static int jm_free_ports(const char *host, int count, int *first, char *err)
{
    char addr[96];
    struct sockaddr_in a;
    for (int attempt = 0; attempt < 50; attempt++) {
        snprintf(addr, sizeof addr, "%s:0", host);
        if (net_parse_addr(addr, &a, err))
            return -1;
        int fds[4] = {-1, -1, -1, -1}, ok = 1;
        fds[0] = net_listen(&a, 1, 0, err);
        if (fds[0] < 0)
            return -1;
        int port = net_local_port(fds[0]);
        for (int i = 1; i < count && ok; i++) {
            snprintf(addr, sizeof addr, "%s:%d", host, port + i);
            ok = port + i < 65536 && net_parse_addr(addr, &a, err) == 0 && (fds[i] = net_listen(&a, 1, 0, err)) >= 0;
        }
        for (int i = 0; i < count; i++)
            if (fds[i] >= 0)
                close(fds[i]);
        if (ok && port > 0) {
            *first = port;
            return 0;
        }
    }
    return util_err(err, "no %d consecutive free ports on %s for JMeter's RMI", count, host);
}

/* The run's keystore for RMI over SSL, shared by the controller and every
 * engine (each one's keystore and truststore): made once, in the folder
 * above the processes' own, with keytool as 5.x's bin/create-rmi-keystore.sh
 * makes it (RSA 2048, alias rmi, 7 days), under a password drawn for the
 * run. Fills path and pass. Returns 0, or -1 with err. */
static int jm_keystore(const struct adapter_ctx *c, char *path, size_t plen, char *pass, size_t passlen, char *err)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", c->dir);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = 0;
    snprintf(path, plen, "%s/%s", dir, JM_KEYSTORE);
    char *have = access(path, R_OK) == 0 ? adapter_slurp(dir, JM_KEYPASS, 128, err) : NULL;
    if (have) {
        snprintf(pass, passlen, "%.*s", (int)strcspn(have, "\n"), have);
        free(have);
        return 0;
    }
    char why[UTIL_ERR_LEN] = "the buffer is too small";
    if (passlen < 25 || adapter_random_hex(pass, 12, why))
        return util_err(err, "no password for the RMI keystore: %s", why);
    char out[2048];
    if (access(JM_KEYTOOL, X_OK))
        return util_err(err, "%s is missing (JMeter 5.x's RMI over SSL needs a keystore; it comes with the JDK)",
                        JM_KEYTOOL);
    const char *argv[] = {JM_KEYTOOL, "-genkeypair", "-keyalg", "RSA", "-keysize", "2048", "-alias", "rmi", "-validity", "7",
                          "-dname", "CN=loadbench-rmi", "-keystore", path, "-storetype", "JKS", "-storepass", pass,
                          "-keypass", pass, NULL};
    if (adapter_capture(argv, out, sizeof out) != 0)
        return util_err(err, "keytool could not make the RMI keystore %s: %.200s", path, out);
    return adapter_write(dir, JM_KEYPASS, pass, err);
}

/* A free port for engine c->instance's remote object (server.rmi.localport)
 * that is none of the group's: not an engine's registry port, nor one an
 * earlier engine of the run took (JM_LOCALPORTS in the tool run's folder).
 * Those are free when probed, as they are not bound until the engines
 * start, so a probe may hand one out again. Returns 0, or -1 with err. */
static int jm_engine_localport(const struct adapter_ctx *c, int *port, char *err)
{
    char dir[PATH_MAX], mine[16];
    snprintf(dir, sizeof dir, "%s", c->dir);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = 0;
    char *taken = adapter_slurp(dir, JM_LOCALPORTS, 4096, NULL);
    struct textbuf b = {0};
    textbuf_printf(&b, "%s", taken ? taken : "");
    int rc = -1;
    for (int tries = 0; tries < 50 && rc; tries++) {
        if (jm_free_ports(c->host, 1, port, err))
            break;
        int clash = 0;
        for (unsigned k = 0; k < c->instances; k++)
            clash |= c->engine_ports[k] == *port;
        snprintf(mine, sizeof mine, " %d ", *port);
        if (!clash && !strstr(b.s ? b.s : "", mine))
            rc = 0;
    }
    if (rc == 0) {
        textbuf_printf(&b, "%s", mine);
        rc = adapter_write(dir, JM_LOCALPORTS, b.s, err);
    } else if (!err[0]) {
        util_err(err, "no free port for JMeter engine %u's remote object on %s", c->instance, c->host);
    }
    free(taken);
    textbuf_free(&b);
    return rc;
}

/* JMeter 5.x's remote mode, RMI over SSL kept on (turning it off reopens
 * CVE-2018-1287/1297): the run's keystore as keystore and truststore of
 * every process; every RMI server socket bound to the load address
 * (java.rmi.server.hostname, which the launcher sets from
 * LB_JMETER_RMI_HOST: 5.6.3's RmiUtils.getRmiHost, also what the stubs
 * name, where Debian's 127.0.1.1 host entry would break them). An engine's
 * ports are fixed: its registry (its engine port) and its remote object
 * (server.rmi.localport). The controller's listeners keep anonymous ports,
 * bound to the load address all the same: 5.6.3's SSLRMIServerSocketFactory
 * has no equals(), so RMI opens a server socket per exported listener, and
 * with a fixed client.rmi.localport every listener after the first fails
 * to bind ("Listen failed on port", seen here: a remote sample listener per
 * engine and result collector). Returns 0, or -1 with err. */
static int jm_rmi_ssl(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    char ks[PATH_MAX + 64], pass[32] = "";
    const char *host = c->host; /* the load address */
    int port = 0;
    if (jm_keystore(c, ks, sizeof ks, pass, sizeof pass, err) || (c->instance && jm_engine_localport(c, &port, err)))
        return -1;
    if (c->instance)
        strvec_pushf(&p->argv, "-Jserver.rmi.localport=%d", port);
    strvec_pushf(&p->argv, "-Jserver.rmi.ssl.keystore.file=%s", ks);
    strvec_pushf(&p->argv, "-Jserver.rmi.ssl.truststore.file=%s", ks);
    strvec_pushf(&p->argv, "-Jserver.rmi.ssl.keystore.password=%s", pass);
    strvec_pushf(&p->argv, "-Jserver.rmi.ssl.truststore.password=%s", pass);
    json_t *j = json_pack("{s:s, s:s}", "keystore", ks, "hostname", host);
    if (c->instance)
        json_object_set_new(j, "rmi_localport", json_integer(port));
    else
        json_object_set_new(j, "client_rmi_localport",
                            json_string("0: anonymous ports bound to the load address (5.6.3 cannot share a fixed "
                                        "one among its SSL listeners)"));
    json_object_set_new(p->settings, "rmi_ssl", j);
    return 0;
}

extern const struct adapter adapter_jmeter; /* below: its table names the TLS behaviour */

/* target.tls: the sampler (HTTPSampler.protocol https) enables only the
 * profile's version, https.socket.protocols, which 5.6.3's
 * LazyLayeredConnectionSocketFactory (and 2.13's HttpSSLProtocolSocketFactory)
 * read in the process that samples: the standalone jmeter or each engine,
 * so every process gets it. */
static void jm_tls(const struct adapter_ctx *c, struct adapter_plan *p)
{
    if (!c->ca_file)
        return;
    strvec_pushf(&p->argv, "-Jhttps.socket.protocols=%s", c->profile->target.tls.version == 13 ? "TLSv1.3" : "TLSv1.2");
    adapter_plan_tls(p, &adapter_jmeter, c);
}

static int jm_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct jm_groups gs = {0};
    const char *heap = adapter_option(c, "heap");
    int engines = c->instances > 1 && c->engine_ports;
    if (heap && (!*heap || strspn(heap, "0123456789kKmMgG") != strlen(heap) || !strchr("0123456789", heap[0])))
        return util_err(err, "jmeter option heap=\"%s\": want a JVM size such as 512m or 2g", heap);
    char props[PATH_MAX + 64];
    snprintf(props, sizeof props, "%s/adapters/jmeter/lb-jtl.properties", adapter_datadir());
    if (access(props, R_OK))
        return util_err(err, "%s is missing (set LOADBENCH_DATA to the source tree)", props);
    if (jm_groups_for(c, p, &gs, err) || (engines && jm_check_engines(c, p, err)) ||
        (c->instance == 0 && jm_write_plan(c, p, &gs, engines, err))) {
        free(gs.g);
        return -1;
    }
    char launcher[PATH_MAX + 64], home[PATH_MAX];
    snprintf(launcher, sizeof launcher, "%s/adapters/jmeter/lb-jmeter", adapter_datadir());
    strvec_push(&p->argv, jm_home_of(c->found->path, home, sizeof home) ? c->found->path : launcher);
    if (engines && c->instance > 0) {
        jm_engine_argv(c, p, &gs);
    } else {
        strvec_push(&p->argv, "-n");
        strvec_push(&p->argv, "-t");
        strvec_push(&p->argv, JM_PLAN);
        strvec_push(&p->argv, "-l");
        strvec_push(&p->argv, JM_JTL);
        strvec_push(&p->argv, "-j");
        strvec_push(&p->argv, JM_LOG);
        if (engines)
            jm_controller_argv(c, p);
    }
    free(gs.g);
    if (engines && jm_is_5x(c->found) && jm_rmi_ssl(c, p, err))
        return -1;
    jm_tls(c, p);
    strvec_push(&p->argv, "-q");
    strvec_push(&p->argv, props);
    /* Every RMI socket of a distributed run on the load address, which the
     * stubs name (java.rmi.server.hostname, also what 2.13's server needs
     * to start on a loopback address at all): 5.x binds them to that name
     * itself, 2.13 through the launcher. */
    jm_jvm(c, p, heap, engines ? c->host : NULL);
    p->load_ns = profile_load_duration_ns(c->load);
    /* JVM start (and the launcher's javac on its first run) on a busy
     * core; a controller then waits 5 s for its listeners after the
     * engines' end (2.13's ListenToTest). */
    p->startup_allowance_ns = engines ? 25000000000ull : 20000000000ull;
    return 0;
}

/* ---- parse ------------------------------------------------------------------ */

static int col(char **f, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(f[i], name))
            return i;
    return -1;
}

/* The line of path holding needle, into out (first match); 0 when found. */
static int find_line(const char *dir, const char *name, const char *needle, char *out, size_t outlen)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fsutil_fopen_input(path, FSUTIL_CAP_STREAM, NULL);
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    int rc = -1;
    while (fsutil_getline(&line, &cap, f, FSUTIL_LINE_MAX) > 0) {
        if (strstr(line, needle)) {
            line[strcspn(line, "\r\n")] = 0;
            snprintf(out, outlen, "%s", line);
            rc = 0;
            break;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

/* The message of a jmeter.log line at ERROR (or FATAL), logger first;
 * NULL for any other line. 2.13 (LogKit): "2026/11/29 22:58:17 ERROR -
 * jmeter.JMeter: Error in NonGUIDriver ..."; 5.6.3 (log4j2's %d %p %c{1.}:
 * %m): "2026-12-04 08:57:50,428 ERROR o.a.j.JMeter: Error in NonGUIDriver". */
static const char *log_error_msg(const char *line)
{
    const char *e = strstr(line, " ERROR - ");
    if (!e)
        e = strstr(line, " FATAL_ERROR - ");
    if (e)
        return strstr(e, " - ") + 3;
    /* 5.x: the level is the third word, after the date and the time. */
    const char *w = strchr(line, ' ');
    if (!w || !isdigit((unsigned char)line[0]) || !(w = strchr(w + 1, ' ')))
        return NULL;
    if (!strncmp(w, " ERROR ", 7))
        return w + 7;
    if (!strncmp(w, " FATAL ", 7))
        return w + 7;
    return NULL;
}

/* jmeter.log's ERROR lines (a few) into w; returns how many there were and
 * sets *forbidden when one is XStream's ForbiddenClassException. */
static int log_errors(const char *dir, struct strvec *w, int *forbidden, char *first, size_t firstlen)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, JM_LOG);
    FILE *f = fsutil_fopen_input(path, FSUTIL_CAP_STREAM, NULL);
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int n = 0;
    while (fsutil_getline(&line, &cap, f, FSUTIL_LINE_MAX) > 0) {
        const char *msg = log_error_msg(line);
        if (!msg)
            continue;
        if (strstr(line, "ForbiddenClassException"))
            *forbidden = 1;
        line[strcspn(line, "\r\n")] = 0;
        if (!n)
            snprintf(first, firstlen, "%s", msg);
        if (n < 5)
            strvec_pushf(w, "jmeter.log: ERROR %.300s", msg);
        n++;
    }
    if (n > 5)
        strvec_pushf(w, "jmeter.log: %d more ERROR lines", n - 5);
    free(line);
    fclose(f);
    return n;
}

/* The JVM's -XX:+PrintCommandLineFlags line (stdout's first): max heap and
 * the collector in effect. */
static json_t *jvm_flags(const char *dir)
{
    char line[4096];
    if (find_line(dir, "stdout.txt", "-XX:MaxHeapSize=", line, sizeof line))
        return NULL;
    json_t *j = json_object();
    json_object_set_new(j, "flags", json_string(line));
    const char *h = strstr(line, "-XX:MaxHeapSize=");
    if (h)
        json_object_set_new(j, "max_heap_bytes", json_integer(strtoll(h + 16, NULL, 10)));
    for (const char *s = line; (s = strstr(s, "-XX:+Use")); s++) {
        size_t len = strcspn(s + 8, " ");
        if (len > 2 && !strncmp(s + 8 + len - 2, "GC", 2)) {
            json_object_set_new(j, "gc", json_stringn(s + 8, len));
            break;
        }
    }
    return j;
}

/* JMeter exits 0 when it cannot load the plan: never ok without the tree
 * it built. Reads jmeter.log's errors into r's warnings (their count into
 * *nerr). Returns 0 when stdout.txt shows the tree, or -1 with err. */
static int jm_check_tree(const struct adapter_ctx *c, struct adapter_result *r, int *nerr, char *err)
{
    char line[2048] = "", first[512] = "";
    int forbidden = 0;
    *nerr = log_errors(c->dir, &r->warnings, &forbidden, first, sizeof first);
    int load_error = find_line(c->dir, "stdout.txt", "Error in NonGUIDriver", line, sizeof line) == 0;
    if (load_error && strstr(line, "ForbiddenClassException"))
        forbidden = 1;
    if (forbidden)
        return util_err(err, "JMeter could not load the plan: Debian's XStream refused JMeter's classes "
                             "(ForbiddenClassException); run it through adapters/jmeter/lb-jmeter");
    if (load_error) {
        /* find_line keeps a line's first sizeof line bytes: the marker may
         * lie past them, or end the line. */
        const char *why = strstr(line, "Error in NonGUIDriver");
        why = why ? why + strlen("Error in NonGUIDriver") : line;
        why += strspn(why, " ");
        return util_err(err, "JMeter could not load the plan: %.180s", why);
    }
    if (find_line(c->dir, "stdout.txt", "Created the tree successfully", line, sizeof line)) {
        if (first[0])
            return util_err(err, "JMeter built no test tree; jmeter.log: %.180s", first);
        return util_err(err, "JMeter built no test tree (no \"Created the tree successfully\" in stdout.txt)");
    }
    return 0;
}

/* The JTL's columns, found by name in its header (5.x adds sentBytes). */
struct jtl_cols {
    int ts, el, code, ok, bytes, threads, n;
};

/* What the JTL's rows add up to. */
struct jtl_sums {
    struct hist *h;           /* elapsed of the completed requests, whole ms */
    double sum;
    uint64_t rows, bad, threads_max;
    int64_t t_first, t_last;
    /* samples(): each completed request to fn (adapter.h), or NULL */
    void (*fn)(void *arg, int64_t t_unix_ns, uint64_t latency, uint64_t count);
    void *arg;
};

/* One sample of the JTL into r and t: an HTTP response (any code) is a
 * completed request; a failure without one is an error of its kind. */
static void jtl_sample(struct adapter_result *r, struct jtl_sums *t, const struct jtl_cols *k, char **fld, long long ts,
                       long long el)
{
    const char *code = fld[k->code];
    int numeric = strlen(code) == 3 && strspn(code, "0123456789") == 3;
    int success = !strcmp(fld[k->ok], "true");
    if (numeric || success) {
        /* An HTTP response came back; or not HTTP, yet a success: count it as JMeter does. */
        r->requests++;
        hist_record(t->h, (uint64_t)el);
        if (t->fn)
            t->fn(t->arg, (int64_t)ts * 1000000, (uint64_t)el, 1);
        t->sum += (double)el;
        if (success)
            r->ok++;
        else
            r->err_status++;
        if (numeric && k->bytes >= 0)
            r->bytes_read += strtoull(fld[k->bytes], NULL, 10);
    } else if (strstr(code, "ConnectException") || strstr(code, "NoRouteToHost") ||
               strstr(code, "UnknownHost") || strstr(code, "BindException")) {
        r->err_connect++;
    } else if (strstr(code, "SocketTimeout") || strstr(code, "ConnectTimeout") || strstr(code, "Timeout")) {
        r->err_timeout++;
    } else if (strstr(code, "NoHttpResponse") || strstr(code, "SocketException") ||
               strstr(code, "ConnectionClosed") || strstr(code, "reset")) {
        r->err_read++;
    } else {
        r->err_other++;
    }
}

/* One JTL line (split into fld, n fields) into r and t; a line cut short
 * or with an impossible time is counted bad. */
static void jtl_line(struct adapter_result *r, struct jtl_sums *t, const struct jtl_cols *k, char **fld, int n)
{
    if (n < k->n) {
        t->bad++; /* a line cut short by a hard stop */
        return;
    }
    char *end;
    long long ts = strtoll(fld[k->ts], &end, 10);
    long long el = strtoll(fld[k->el], NULL, 10);
    /* A timestamp (epoch ms) below 0 or one whose end overflows is
     * garbage, not a sample: ts + el and t_last - t_first must fit. */
    if (end == fld[k->ts] || el < 0 || ts < 0 || ts > LLONG_MAX - el) {
        t->bad++;
        return;
    }
    t->rows++;
    if (ts < t->t_first)
        t->t_first = ts;
    if (ts + el > t->t_last)
        t->t_last = ts + el;
    if (k->threads >= 0) {
        uint64_t th = strtoull(fld[k->threads], NULL, 10);
        if (th > t->threads_max)
            t->threads_max = th;
    }
    jtl_sample(r, t, k, fld, ts, el);
}

/* The JTL (results.jtl) into r and t. Returns 0, or -1 with err. */
static int jm_read_jtl(const struct adapter_ctx *c, struct adapter_result *r, struct jtl_sums *t, char *err)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", c->dir, JM_JTL);
    char why[UTIL_ERR_LEN];
    FILE *f = fsutil_fopen_input(path, FSUTIL_CAP_STREAM, why);
    if (!f)
        return util_err(err, "JMeter wrote no readable %s: %s", JM_JTL, why);
    char *buf = NULL;
    size_t cap = 0;
    char *fld[32];
    struct jtl_cols k = {-1, -1, -1, -1, -1, -1, 0};
    if (fsutil_getline(&buf, &cap, f, FSUTIL_LINE_MAX) > 0) {
        k.n = adapter_csv_split(buf, fld, 32);
        k.ts = col(fld, k.n, "timeStamp");
        k.el = col(fld, k.n, "elapsed");
        k.code = col(fld, k.n, "responseCode");
        k.ok = col(fld, k.n, "success");
        k.bytes = col(fld, k.n, "bytes");
        k.threads = col(fld, k.n, "allThreads");
    }
    if (k.ts < 0 || k.el < 0 || k.code < 0 || k.ok < 0) {
        free(buf);
        fclose(f);
        return util_err(err, "%s has no CSV header with timeStamp, elapsed, responseCode, success (was -q "
                             "lb-jtl.properties applied?)",
                        JM_JTL);
    }
    while (fsutil_getline(&buf, &cap, f, FSUTIL_LINE_MAX) > 0)
        if (buf[0] != '\n' && buf[0])
            jtl_line(r, t, &k, fld, adapter_csv_split(buf, fld, 32));
    free(buf);
    fclose(f);
    return 0;
}

/* Each completed request of DIR's JTL to fn: its start (timeStamp) and its
 * elapsed, whole ms as JMeter times them (adapter.h's samples). */
static int jm_samples(const char *dir, void (*fn)(void *arg, int64_t t_unix_ns, uint64_t latency, uint64_t count),
                      void *arg, char *err)
{
    struct adapter_ctx c = {.dir = dir};
    struct adapter_result r;
    adapter_result_init(&r);
    struct jtl_sums t = {.h = hist_new(3600000, 3), .t_first = INT64_MAX, .fn = fn, .arg = arg};
    int rc = jm_read_jtl(&c, &r, &t, err);
    hist_free(t.h);
    adapter_result_free(&r);
    return rc;
}

static int jm_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char line[2048] = "";
    int nerr;
    if (jm_check_tree(c, r, &nerr, err))
        return -1;
    struct jtl_sums t = {.h = hist_new(3600000, 3), .t_first = INT64_MAX}; /* whole ms up to an hour */
    if (jm_read_jtl(c, r, &t, err)) {
        hist_free(t.h);
        return -1;
    }
    r->errors = r->err_status + r->err_connect + r->err_timeout + r->err_read + r->err_write + r->err_other;
    if (c->profile && c->profile->check.status) /* the assertion alone judges a response */
        r->check_failed = r->err_status;
    if (t.rows && t.t_last > t.t_first) {
        r->duration_s = (double)(t.t_last - t.t_first) / 1000.0;
        r->rps = (double)r->requests / r->duration_s;
    }
    if (r->requests) {
        r->lat.min = (double)hist_min(t.h);
        r->lat.max = (double)hist_max(t.h);
        r->lat.mean = t.sum / (double)r->requests;
        r->lat.p50 = (double)hist_percentile(t.h, 50);
        r->lat.p90 = (double)hist_percentile(t.h, 90);
        r->lat.p95 = (double)hist_percentile(t.h, 95);
        r->lat.p99 = (double)hist_percentile(t.h, 99);
        r->lat.p999 = (double)hist_percentile(t.h, 99.9);
    }
    hist_free(t.h);
    if (t.bad)
        strvec_pushf(&r->warnings, "%llu malformed JTL line(s) skipped (a hard stop cuts the last line)",
                     (unsigned long long)t.bad);
    if (find_line(c->dir, "stdout.txt", "summary =", line, sizeof line))
        strvec_push(&r->warnings, "JMeter ended without its final summary (stopped by a signal): the samples in "
                                  "flight at the stop are not in the JTL");
    json_t *extra = json_object();
    json_object_set_new(extra, "jtl_rows", json_integer((json_int_t)t.rows));
    json_object_set_new(extra, "threads_max", json_integer((json_int_t)t.threads_max));
    json_object_set_new(extra, "log_errors", json_integer(nerr));
    if (find_line(c->dir, "stdout.txt", "summary =", line, sizeof line) == 0)
        json_object_set_new(extra, "summary", json_string(line));
    json_t *jvm = jvm_flags(c->dir);
    if (jvm)
        json_object_set_new(extra, "jvm", jvm);
    r->extra = extra;
    r->parsed = 1;
    return 0;
}

const struct adapter adapter_jmeter = {
    .name = "jmeter",
    .parse_files = (const char *const[]){"results.jtl", "stdout.txt", "jmeter.log", NULL},
    .description = "Apache JMeter 5.6.3 (Maven Central; Debian's 2.13 via bin: /usr/share/jmeter) (Java), non-GUI, "
                   "through adapters/jmeter/lb-jmeter: thread groups; ConstantThroughputTimer for a rate",
    .install_hint = "scripts/install-tools (JMeter 5.6.3 from Maven Central into TOOLS/jmeter; Debian's jmeter "
                    "jmeter-http default-jdk-headless for 2.13)",
    .caps = ADAPTER_CLOSED | ADAPTER_PACED | ADAPTER_RAMP | ADAPTER_TLS | ADAPTER_CHECK | ADAPTER_POST,
    .tls_how = "does not verify (JMeter's JsseSSLManager wraps the JDK's trust managers in CustomX509TrustManager, "
               "whose checkServerTrusted accepts any certificate, and HttpClient4 takes NoopHostnameVerifier: no "
               "setting makes it verify); only the profile's version enabled (-Jhttps.socket.protocols); no ALPN "
               "offered; each thread keeps its SSLContext across iterations (https.use.cached.ssl.context), so "
               "its JSSE session cache offers resumption",
    .tls_library = "Java's JSSE (SunJSSE of OpenJDK 17)",
    .post_how = "the sampler's Body Data (HTTPSampler.postBodyRaw, the body in plan.jmx), method POST",
    .check_how = "a Response Assertion under the sampler (Response Code, Equals, Ignore Status): a failed one is an "
                 "unsuccessful sample in the JTL",
    .no_h2_why = "JMeter core has no HTTP/2 client",
    .versions = "live: 5.6.3 (Maven Central), 2.13 (Debian, bin:)",
    .latency_measures = "JTL elapsed: from just before the connection is taken or opened to the last response "
                        "byte, including connect; whole ms; percentiles computed by loadbench from every sample",
    .latency_resolution_ms = 1,
    .samples = jm_samples,
    .samples_unit_ns = 1000000, /* the JTL's whole ms */
    .options = jm_options,
    .spread = ADAPTER_SPREAD_ENGINES,
    .spread_note = "JMeter in its distributed mode: the controller (jmeter -n -R) sends no load: it sends the "
                   "plan to the jmeter-server engines over RMI (5.6.3: over SSL, a keystore made for the run), each "
                   "engine runs its share of the threads and rate (the plan's ${__P()} properties, set on each "
                   "engine), and the engines send every sample back over RMI in JMeter's default mode StrippedBatch "
                   "(every 100 samples or 60 s) to the controller, which writes the result file: the row's counts "
                   "and latency are the controller's (every engine's samples, so its percentiles are exact), its "
                   "footprint every process's",
    .detect = jm_detect,
    .prepare = jm_prepare,
    .parse = jm_parse,
};
