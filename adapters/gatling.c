/* The adapter for Gatling (3.14.9 from Maven Central, installed into the
 * tools folder by scripts/registry/maven/gatling/install; the fixtures in
 * tests/fixtures/gatling/ are its real output).
 *
 * The profile becomes a Java-DSL simulation, LbSimulation.java in the run
 * directory: one GET of the target with check(status().is(200)) (the
 * profile's check: status, when it has one, in place of 200) and the
 * per-request timeout (requestTimeout). Closed model: the stages as
 * rampConcurrentUsers / constantConcurrentUsers, each user looping in
 * during(its share of the load's time) so that the profile's N users are
 * held (a user whose scenario ended would leave, and a closed injection
 * only starts new ones); a falling stage lets users leave at its pace
 * (exitHereIf). Open model: the stages as rampUsersPerSec /
 * constantUsersPerSec, one request per user. Gatling's defaults are kept:
 * each virtual user has its own connection pool (shareConnections off).
 *
 * The run is what Gatling's bundle did: javac of the simulation against
 * every jar of TOOLS/gatling/lib, then io.gatling.app.Gatling -s CLASS -rf RESULTS
 * (its CLI, gatling-shared-cli's GatlingCliOptions) with the JVM flags of
 * its launchers. Gatling then writes its HTML report into a timestamped
 * folder of results/, found by listing. Since 3.12.1 simulation.log is
 * binary and the report holds no JSON: the figures are the report's own
 * statistics table (index.html, the "All Requests" row, columns found by
 * their headers) and its errors table. The simulation writes
 * lb-phases.txt: the wall-clock ms of its first user's start and of its
 * after() hook, which Gatling runs when the load has ended, before it
 * parses its log and writes the report: the engine splits the footprint
 * there into load and report phases. */
#include "adapters/adapter.h"
#include "adapters/toolver.h"
#include "common/units.h"
#include "common/util.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The one JDK Gatling is compiled and run with: Debian 12's OpenJDK 17
 * (default-jdk-headless), named by its folder so that the alternatives
 * behind /usr/bin/java can never give javac and java of two JDKs (the
 * Temurin 25 beside it is not used). */
#define GT_JDK "/usr/lib/jvm/java-17-openjdk-amd64"

#define GT_CLASS "LbSimulation"
#define GT_SOURCE GT_CLASS ".java"
#define GT_RESULTS "results"
#define GT_PHASES "lb-phases.txt"
#define GT_LOGBACK "logback.xml"

/* $1 javac, $2 the class path; the rest is the java command. javac's
 * failure is exit 71 (nothing ran). */
#define GT_WRAP                                                                              \
    "javac=$1; cp=$2; shift 2; "                                                             \
    "\"$javac\" -encoding UTF-8 -nowarn -cp \"$cp\" -d classes " GT_SOURCE " || exit 71; "   \
    "exec \"$@\""

/* heap: -Xmx (the JVM's default otherwise: a quarter of the memory);
 * jvm_args: appended to the java command. */
static const char *const gt_options[] = {"heap", "jvm_args", NULL};

/* Gatling's own console log settings (its bundle's conf/logback.xml):
 * warnings and errors only. Without one, logback logs at DEBUG. */
static const char gt_logback[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<configuration>\n"
    "  <appender name=\"CONSOLE\" class=\"ch.qos.logback.core.ConsoleAppender\">\n"
    "    <encoder><pattern>%d{HH:mm:ss.SSS} [%-5level] %logger{15} - %msg%n%rEx</pattern></encoder>\n"
    "    <immediateFlush>false</immediateFlush>\n"
    "  </appender>\n"
    "  <root level=\"WARN\"><appender-ref ref=\"CONSOLE\" /></root>\n"
    "</configuration>\n";

/* The Gatling home: bin (a folder holding lib/), else TOOLS/gatling. */
static int gt_home(const char *bin, char *out, size_t len, char *err)
{
    char lib[PATH_MAX + 8];
    if (bin) {
        if (!realpath(bin, out))
            return util_err(err, "Gatling home \"%s\" not found (bin: names a folder holding Gatling's lib/)", bin);
    } else if (adapter_tools_file("gatling/lib", out, len)) {
        return util_err(err, "Gatling is not installed (%s missing)", out);
    } else {
        *strrchr(out, '/') = 0; /* TOOLS/gatling/lib -> TOOLS/gatling */
    }
    snprintf(lib, sizeof lib, "%s/lib", out);
    if (access(lib, R_OK | X_OK))
        return util_err(err, "%s is not a Gatling home: no readable lib/", out);
    return 0;
}

/* The gatling-app jar of home's lib/ (gatling-app-VERSION.jar), by listing. */
static int gt_app_jar(const char *home, char *out, size_t len)
{
    char lib[PATH_MAX + 8];
    snprintf(lib, sizeof lib, "%s/lib", home);
    DIR *d = opendir(lib);
    if (!d)
        return -1;
    struct dirent *e;
    int rc = -1;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (!strncmp(e->d_name, "gatling-app-", 12) && n > 16 && !strcmp(e->d_name + n - 4, ".jar")) {
            snprintf(out, len, "%s/%s", lib, e->d_name);
            rc = 0;
            break;
        }
    }
    closedir(d);
    return rc;
}

static int gt_detect(const char *bin, struct adapter_found *found, char *err)
{
    char home[PATH_MAX], jar[PATH_MAX + 300], mf[8192];
    if (gt_home(bin, home, sizeof home, err))
        return -1;
    if (access(GT_JDK "/bin/javac", X_OK) || access(GT_JDK "/bin/java", X_OK))
        return util_err(err, "Gatling needs OpenJDK 17's javac and java in " GT_JDK
                        " (apt-get install default-jdk-headless)");
    if (gt_app_jar(home, jar, sizeof jar))
        return util_err(err, "%s/lib has no gatling-app-*.jar: not a Gatling install", home);
    /* The version is the jar's Implementation-Version: no JVM started. */
    const char *argv[] = {"unzip", "-p", jar, "META-INF/MANIFEST.MF", NULL};
    if (adapter_capture(argv, mf, sizeof mf) != 0 ||
        toolver_manifest(mf, "Implementation-Version", found->version, sizeof found->version))
        return util_err(err, "%s: no Implementation-Version in its manifest (unzip -p)", jar);
    if (strlen(home) >= sizeof found->path)
        return util_err(err, "Gatling's home path is too long (%zu bytes)", strlen(home));
    memcpy(found->path, home, strlen(home) + 1);
    /* " (Maven Central 3.14.9)": the first line of the install's ORIGIN. */
    char *origin = adapter_slurp(home, "ORIGIN", 4096, NULL);
    if (origin) {
        size_t n = strlen(found->version);
        snprintf(found->version + n, sizeof found->version - n, " (%.*s)", (int)strcspn(origin, "\n"), origin);
        free(origin);
    }
    return 0;
}

/* ---- prepare ------------------------------------------------------------------ */

static unsigned long long ms(uint64_t ns)
{
    return (unsigned long long)((ns + 500000) / 1000000);
}

/* The injection steps of the load, one per stage, as Java. */
static void gt_injection(const struct profile_load *l, struct textbuf *b, int *falls)
{
    int open = l->model == LOAD_OPEN;
    double from = l->ramped ? 0 : l->stages[0].target;
    *falls = 0;
    for (size_t i = 0; i < l->nstages; i++) {
        double to = l->stages[i].target;
        unsigned long long d = ms(l->stages[i].duration_ns);
        const char *sep = i ? ",\n            " : "";
        if (open && from == to)
            textbuf_printf(b, "%sconstantUsersPerSec(%.10g).during(Duration.ofMillis(%llu))", sep, to, d);
        else if (open)
            textbuf_printf(b, "%srampUsersPerSec(%.10g).to(%.10g).during(Duration.ofMillis(%llu))", sep, from, to, d);
        else if (from == to)
            textbuf_printf(b, "%sconstantConcurrentUsers(%llu).during(Duration.ofMillis(%llu))", sep,
                           (unsigned long long)to, d);
        else
            textbuf_printf(b, "%srampConcurrentUsers(%llu).to(%llu).during(Duration.ofMillis(%llu))", sep,
                           (unsigned long long)from, (unsigned long long)to, d);
        *falls |= to < from;
        from = to;
    }
}

/* The most users the closed model lets stay at t ms into the load, as
 * Java: on a falling stage its linear ramp; elsewhere no limit, since
 * Gatling's injection starts users as its own ramp rises, a little ahead
 * of or behind this clock (a limit there would send users away that
 * Gatling then replaces). */
static void gt_target_fn(const struct profile_load *l, struct textbuf *b)
{
    textbuf_printf(b, "    static double target(long t) {\n");
    double from = l->ramped ? 0 : l->stages[0].target;
    unsigned long long at = 0;
    for (size_t i = 0; i < l->nstages; i++) {
        unsigned long long d = ms(l->stages[i].duration_ns);
        double to = l->stages[i].target;
        if (to < from)
            textbuf_printf(b, "        if (t >= %lluL && t < %lluL) return %.10g + (%.10g - %.10g) * (t - %lluL) / %llu.0;\n",
                           at, at + d, from, to, from, at, d ? d : 1);
        from = to;
        at += d;
    }
    textbuf_printf(b, "        return Double.MAX_VALUE;\n    }\n");
}

/* LbSimulation.java for the load. */
static int gt_write_simulation(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    const struct profile_load *l = c->load;
    int open = l->model == LOAD_OPEN, falls;
    struct textbuf inj = {0}, b = {0};
    gt_injection(l, &inj, &falls);
    unsigned long long load_ms = ms(profile_load_duration_ns(l));
    /* The profile's name in a // comment: no line end, and no backslash
     * (javac reads \u000a as one even there). */
    char name[128];
    snprintf(name, sizeof name, "%s", c->profile && c->profile->name ? c->profile->name : "");
    for (char *s = name; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == '\\' || *s == 0x7f)
            *s = '_';
    char tmo[96] = "";
    if (l->request_timeout_ns)
        snprintf(tmo, sizeof tmo, ".requestTimeout(Duration.ofMillis(%llu))", ms(l->request_timeout_ns));
    textbuf_printf(&b,
        "// Generated by loadbench for profile \"%s\": %s model over %llu ms.\n"
        "import static io.gatling.javaapi.core.CoreDsl.*;\n"
        "import static io.gatling.javaapi.http.HttpDsl.*;\n\n"
        "import io.gatling.javaapi.core.*;\n"
        "import io.gatling.javaapi.http.*;\n"
        "import java.nio.file.*;\n"
        "import java.time.Duration;\n"
        "import java.util.concurrent.atomic.*;\n\n"
        "public class " GT_CLASS " extends Simulation {\n"
        "    static final long LOAD_MS = %lluL;\n"
        "    /* the first user's start (wall clock ms): the load's start */\n"
        "    static final AtomicLong START = new AtomicLong();\n"
        "    static final AtomicLong ACTIVE = new AtomicLong();\n\n"
        "    static long started() {\n"
        "        START.compareAndSet(0, System.currentTimeMillis());\n"
        "        return START.get();\n"
        "    }\n\n"
        "    /* a user's time in the load: from now to the load's end */\n"
        "    static long holdMs() {\n"
        "        return Math.max(0, started() + LOAD_MS - System.currentTimeMillis());\n"
        "    }\n\n",
        name, open ? "open" : "closed", load_ms, load_ms);
    if (falls) {
        gt_target_fn(l, &b);
        textbuf_printf(&b,
            "\n    /* above the stage's target: this user leaves (one at a time) */\n"
            "    static boolean leave() {\n"
            "        for (;;) {\n"
            "            long a = ACTIVE.get();\n"
            "            if (a <= Math.ceil(target(System.currentTimeMillis() - START.get()))) return false;\n"
            "            if (ACTIVE.compareAndSet(a, a - 1)) return true;\n"
            "        }\n"
            "    }\n\n");
    }
    char req[PATH_MAX + 200] = "http(\"GET /\").get(\"/\")";
    if (c->profile->request.post) /* a body file, as Gatling's users give one: RawFileBody, its path absolute */
        snprintf(req, sizeof req, "http(\"POST /\").post(\"/\").body(RawFileBody(\"%s/" ADAPTER_BODY_FILE "\"))"
                 ".header(\"Content-Type\", \"" ADAPTER_BODY_TYPE "\")", c->dir);
    /* h2: HTTP/2 by ALPN (Gatling's HttpProtocol enableHttp2), over TLS only.
     * disableWarmUp: by default Gatling's HTTP engine sends one request to
     * https://gatling.io before the first user starts (its docs, "warmUp");
     * a load test sends nothing off this machine, and a warm-up aimed at the
     * target would be a request the server counts and Gatling does not. */
    textbuf_printf(&b,
        "    HttpProtocolBuilder protocol = http.baseUrl(\"%s://%s:%d\").disableWarmUp()%s;\n\n"
        "    ChainBuilder get = exec(%s%s.check(status().is(%d)));\n\n",
        c->ca_file ? "https" : "http", c->host, c->port,
        c->profile->target.protocol == PROFILE_H2 ? ".enableHttp2()" : "", req, tmo,
        c->profile->check.status ? c->profile->check.status : 200);
    if (open)
        textbuf_printf(&b,
            "    ScenarioBuilder scn = scenario(\"loadbench\")\n"
            "        .exec(session -> { started(); return session; })\n"
            "        .exec(get);\n\n"
            "    {\n        setUp(scn.injectOpen(\n            %s))\n            .protocols(protocol);\n    }\n\n",
            inj.s);
    else
        textbuf_printf(&b,
            "    ScenarioBuilder scn = scenario(\"loadbench\")\n"
            "        .exec(session -> { ACTIVE.incrementAndGet(); return session.set(\"lb_hold_ms\", holdMs()); })\n"
            "        .during(session -> Duration.ofMillis(session.getLong(\"lb_hold_ms\"))).on(\n"
            "            exec(get)%s)\n"
            "        .exec(session -> { ACTIVE.decrementAndGet(); return session; });\n\n"
            "    {\n        setUp(scn.injectClosed(\n            %s))\n            .protocols(protocol);\n    }\n\n",
            falls ? "\n            .exitHereIf(session -> leave())" : "", inj.s);
    textbuf_printf(&b,
        "    /* Gatling runs after() once the load has ended, before its report */\n"
        "    @Override\n"
        "    public void after() {\n"
        "        String marks = \"load_start_ms \" + START.get() + \"\\nload_end_ms \" + System.currentTimeMillis() + \"\\n\";\n"
        "        try {\n"
        "            Files.writeString(Paths.get(\"" GT_PHASES "\"), marks);\n"
        "        } catch (java.io.IOException e) {\n"
        "            throw new java.io.UncheckedIOException(e);\n"
        "        }\n"
        "    }\n"
        "}\n");
    int rc = adapter_write(c->dir, GT_SOURCE, b.s, err);
    textbuf_free(&inj);
    textbuf_free(&b);
    if (rc || adapter_write(c->dir, GT_LOGBACK, gt_logback, err))
        return -1;
    strvec_push(&p->files, GT_SOURCE);
    strvec_push(&p->files, GT_LOGBACK);
    if (adapter_body_file(c, p, err) < 0)
        return -1;
    if (falls)
        strvec_push(&p->warnings, "gatling: a falling stage: Gatling's closed injection never stops users, so each "
                                  "user leaves by itself (exitHereIf) when more are active than the stage's "
                                  "target, one at a time");
    return 0;
}

extern const struct adapter adapter_gatling; /* below: its table names the TLS behaviour */

/* The run's CA as a PKCS12 truststore (Java reads no PEM store), made with
 * OpenJDK 17's keytool before the tool's start. It holds one public
 * certificate, so its password guards nothing: a fixed one. */
#define GT_TRUSTSTORE "target-ca.p12"
#define GT_TRUSTPASS "loadbench"

/* target.tls: Gatling verifies against the run's CA (gatling.ssl.trustStore
 * replaces its default InsecureTrustManagerFactory, SslContextsFactory),
 * the certificate's IP address too (http.enableHostnameVerification), and
 * enables only the profile's version (ssl.enabledProtocols, a list: its
 * numbered form, as Typesafe Config reads one from system properties). */
static int gt_tls_argv(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    if (!c->ca_file)
        return 0;
    char store[PATH_MAX + 32], out[2048];
    snprintf(store, sizeof store, "%s/" GT_TRUSTSTORE, c->dir);
    unlink(store); /* a store left by an earlier prepare: keytool adds to it, refusing the same alias */
    const char *argv[] = {GT_JDK "/bin/keytool", "-importcert", "-noprompt", "-alias", "lb-target-ca", "-file",
                          c->ca_file, "-keystore", store, "-storetype", "PKCS12", "-storepass", GT_TRUSTPASS, NULL};
    if (adapter_capture(argv, out, sizeof out) != 0)
        return util_err(err, "gatling: keytool could not import the run's CA %s into %s: %.200s", c->ca_file, store, out);
    strvec_push(&p->files, GT_TRUSTSTORE);
    strvec_pushf(&p->argv, "-Dgatling.ssl.trustStore.file=%s", store);
    strvec_push(&p->argv, "-Dgatling.ssl.trustStore.type=PKCS12");
    strvec_push(&p->argv, "-Dgatling.ssl.trustStore.password=" GT_TRUSTPASS);
    strvec_push(&p->argv, "-Dgatling.ssl.useInsecureTrustManager=false");
    strvec_push(&p->argv, "-Dgatling.http.enableHostnameVerification=true");
    strvec_pushf(&p->argv, "-Dgatling.ssl.enabledProtocols.0=%s",
                 c->profile->target.tls.version == 13 ? "TLSv1.3" : "TLSv1.2");
    adapter_plan_tls(p, &adapter_gatling, c);
    return 0;
}

/* The JVM's flags: those of Gatling's own launchers (its bundle's
 * gatling.sh, its build plugins), with its update check and usage
 * analytics kept off the network. */
static int gt_java_argv(const struct adapter_ctx *c, struct adapter_plan *p, const char *cp, char *err)
{
    const char *heap = adapter_option(c, "heap"), *jvm_args = adapter_option(c, "jvm_args");
    if (heap && (!*heap || strspn(heap, "0123456789kKmMgG") != strlen(heap) || !strchr("0123456789", heap[0])))
        return util_err(err, "gatling option heap=\"%s\": want a JVM size such as 512m or 2g", heap);
    strvec_push(&p->argv, GT_JDK "/bin/java");
    strvec_push(&p->argv, "-server");
    if (heap)
        strvec_pushf(&p->argv, "-Xmx%s", heap);
    strvec_push(&p->argv, "-XX:+UseG1GC");
    strvec_push(&p->argv, "-XX:MaxInlineLevel=20");
    strvec_push(&p->argv, "-XX:MaxTrivialSize=12");
    strvec_push(&p->argv, "-XX:+PrintCommandLineFlags");
    /* Gatling 3.14's log writer reads String internals (StringInternals). */
    strvec_push(&p->argv, "--add-opens=java.base/java.lang=ALL-UNNAMED");
    /* Gatling asks Maven Central for its latest release at every start
     * (LatestGatlingRelease), remembered in Java's user preferences: here
     * the preferences are the run's, and the request goes to a port where
     * nothing listens, so it fails at once and nothing leaves the machine. */
    strvec_pushf(&p->argv, "-Djava.util.prefs.userRoot=%s/prefs", c->dir);
    strvec_push(&p->argv, "-Dhttps.proxyHost=127.0.0.1");
    strvec_push(&p->argv, "-Dhttps.proxyPort=1");
    strvec_push(&p->argv, "-Dgatling.data.enableAnalytics=false");
    if (gt_tls_argv(c, p, err))
        return -1;
    if (jvm_args) {
        char *dup = util_xstrdup(jvm_args), *save = NULL;
        for (char *w = strtok_r(dup, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
            strvec_push(&p->argv, w);
        free(dup);
    }
    strvec_push(&p->argv, "-cp");
    strvec_pushf(&p->argv, "%s:classes:.", cp);
    strvec_push(&p->argv, "io.gatling.app.Gatling");
    strvec_push(&p->argv, "-s");
    strvec_push(&p->argv, GT_CLASS);
    strvec_push(&p->argv, "-rf");
    strvec_pushf(&p->argv, "%s/" GT_RESULTS, c->dir);
    strvec_push(&p->argv, "-rd");
    strvec_push(&p->argv, "loadbench");
    json_object_set_new(p->settings, "jdk", json_string(GT_JDK " (Debian's OpenJDK 17)"));
    json_object_set_new(p->settings, "heap", json_string(heap ? heap : "JVM default (a quarter of the memory)"));
    json_object_set_new(p->settings, "gc", json_string("-XX:+UseG1GC"));
    if (jvm_args)
        json_object_set_new(p->settings, "jvm_args", json_string(jvm_args));
    return 0;
}

static int gt_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    const struct profile_load *l = c->load;
    if (profile_load_peak(l) <= 0)
        return util_err(err, "gatling: the load asks for no %s", l->model == LOAD_OPEN ? "arrivals" : "users");
    if (gt_write_simulation(c, p, err))
        return -1;
    char cp[PATH_MAX + 16];
    snprintf(cp, sizeof cp, "%s/lib/*", c->found->path);
    strvec_push(&p->argv, "/bin/sh");
    strvec_push(&p->argv, "-c");
    strvec_push(&p->argv, GT_WRAP);
    strvec_push(&p->argv, "gatling-run");
    strvec_push(&p->argv, GT_JDK "/bin/javac");
    strvec_push(&p->argv, cp);
    if (gt_java_argv(c, p, cp, err))
        return -1;
    p->model = l->model == LOAD_OPEN ? "open" : "closed";
    if (l->model == LOAD_OPEN && l->max_inflight)
        strvec_pushf(&p->warnings, "gatling: max_inflight %llu ignored: Gatling's open model has no cap on the "
                                   "users in flight",
                     (unsigned long long)l->max_inflight);
    if (l->model == LOAD_OPEN)
        strvec_push(&p->warnings, "gatling: each arrival is a new virtual user with its own connection "
                                  "(shareConnections off, Gatling's default): every request opens a connection");
    json_object_set_new(p->settings, "connections", json_string("one pool per virtual user (Gatling's default, "
                                                                 "shareConnections off)"));
    json_object_set_new(p->settings, "request_timeout_ms",
                        json_integer(l->request_timeout_ns ? (json_int_t)ms(l->request_timeout_ns) : 60000));
    p->load_ns = profile_load_duration_ns(l);
    /* javac and a JVM on a busy core (48 s to the first request seen on
     * this 2-core machine shared with other builds), then the report. */
    p->startup_allowance_ns = 60000000000ull;
    return 0;
}

/* ---- parse -------------------------------------------------------------------- */

/* The one report folder of results/, found by listing (its name is the
 * simulation's and a timestamp), into out. Returns 0, or -1 with err. */
static int gt_report_dir(const char *dir, char *out, size_t len, char *err)
{
    char res[PATH_MAX];
    snprintf(res, sizeof res, "%s/" GT_RESULTS, dir);
    DIR *d = opendir(res);
    char cls[PATH_MAX + 40];
    snprintf(cls, sizeof cls, "%s/classes/" GT_CLASS ".class", dir);
    if (!d && access(cls, F_OK))
        return util_err(err, "javac did not compile " GT_SOURCE " (its errors are in stderr.txt): Gatling never ran");
    if (!d)
        return util_err(err, "Gatling wrote no %s/ folder (see stdout.txt)", GT_RESULTS);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (!n)
            snprintf(out, len, GT_RESULTS "/%s", e->d_name);
        n++;
    }
    closedir(d);
    if (n != 1)
        return util_err(err, "Gatling's %s/ holds %d report folders, not one", GT_RESULTS, n);
    return 0;
}

/* The text of the element after the first tag holding needle from p on:
 * "<td class="value total col-2">805</td>" gives "805". NULL when absent. */
static const char *cell_after(const char *p, const char *needle, char *out, size_t len)
{
    const char *s = strstr(p, needle);
    if (!s || !(s = strchr(s, '>')))
        return NULL;
    s++;
    size_t n = strcspn(s, "<");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), s);
    return s + n;
}

/* The statistics table's header: the name of each column col-2..col-14
 * ("Total", "OK", "KO", "Cnt/s", "Min", "50th pct", ..., "Max", "Mean"). */
#define GT_COLS 16
static void gt_header(const char *html, char names[GT_COLS][32])
{
    for (int i = 2; i < GT_COLS; i++) {
        char id[32];
        snprintf(id, sizeof id, "<th id=\"col-%d\"", i);
        const char *th = strstr(html, id);
        names[i][0] = 0;
        if (!th)
            continue;
        const char *end = strstr(th, "</th>");
        /* the innermost text: after the last '>' before </th>'s tags */
        const char *s = th;
        for (const char *q = th; end && q < end; q++)
            if (*q == '>' && q[1] != '<')
                s = q + 1;
        if (end && s > th)
            snprintf(names[i], sizeof names[i], "%.*s", (int)strcspn(s, "<"), s);
    }
}

/* A number of the table, or NAN when it is not one ("-"). */
static double cell_num(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return end == s || *end ? NAN : v;
}

/* The "All Requests" row (tr id="ROOT") of index.html into r. */
static int gt_stats_row(const char *html, struct adapter_result *r, json_t *extra, char *err)
{
    char names[GT_COLS][32];
    gt_header(html, names);
    const char *row = strstr(html, "<tr id=\"ROOT\"");
    if (!row)
        return util_err(err, "index.html has no \"All Requests\" row (tr id=\"ROOT\")");
    double total = NAN, ok = NAN, ko = NAN;
    json_t *pct = json_object();
    json_object_set_new(extra, "percentiles_ms", pct); /* extra holds it: an early return frees it too */
    for (int i = 2; i < GT_COLS && names[i][0]; i++) {
        char cls[32], v[64];
        snprintf(cls, sizeof cls, " col-%d\">", i);
        if (!cell_after(row, cls, v, sizeof v))
            return util_err(err, "index.html's All Requests row has no column %d (%s)", i, names[i]);
        double x = cell_num(v);
        const char *n = names[i];
        double q;
        char *end;
        if (!strcmp(n, "Total")) total = x;
        else if (!strcmp(n, "OK")) ok = x;
        else if (!strcmp(n, "KO")) ko = x;
        else if (!strcmp(n, "Cnt/s")) r->rps = x;
        else if (!strcmp(n, "Min")) r->lat.min = x;
        else if (!strcmp(n, "Max")) r->lat.max = x;
        else if (!strcmp(n, "Mean")) r->lat.mean = x;
        else if ((q = strtod(n, &end)) > 0 && !strcmp(end, "th pct")) {
            json_object_set_new(pct, n, json_real(x));
            if (q == 50) r->lat.p50 = x;
            else if (q == 90) r->lat.p90 = x;
            else if (q == 95) r->lat.p95 = x;
            else if (q == 99) r->lat.p99 = x;
            else if (q == 99.9) r->lat.p999 = x;
        }
    }
    if (isnan(total) || isnan(ok) || isnan(ko) || total < 0 || ok < 0 || ko < 0 || total != ok + ko ||
        total != floor(total) || total > (double)ADAPTER_COUNT_MAX)
        return util_err(err, "index.html's All Requests row has no consistent Total/OK/KO counts (%.17g, %.17g, %.17g)",
                        total, ok, ko);
    r->requests = (uint64_t)total;
    r->ok = (uint64_t)ok;
    r->errors = (uint64_t)ko;
    return 0;
}

/* One message of the errors table into its kind. 1 when the request had
 * a response (a failed status check), 0 when it had none. */
static int gt_error_kind(const char *msg, uint64_t n, struct adapter_result *r)
{
    const char *found = strstr(msg, "found ");
    if (strstr(msg, "status.find") && found && found[6] >= '1' && found[6] <= '5') {
        r->err_status += n;
        return 1;
    }
    if (strstr(msg, "ConnectException") || strstr(msg, "Connection refused"))
        r->err_connect += n;
    else if (strstr(msg, "Timeout") || strstr(msg, "timed out"))
        r->err_timeout += n;
    else if (strstr(msg, "closed") || strstr(msg, "reset") || strstr(msg, "Premature"))
        r->err_read += n;
    else
        r->err_other += n;
    return 0;
}

/* The errors table (id container_errors): each message and its count
 * into r by kind. A request with no response is not a completed one.
 * Returns 0, or -1 with err when its counts do not add up to KO. */
static int gt_errors(const char *html, struct adapter_result *r, json_t *extra, char *err)
{
    const char *t = strstr(html, "id=\"container_errors\"");
    uint64_t sum = 0, no_response = 0;
    json_t *msgs = json_object();
    json_object_set_new(extra, "errors", msgs);
    for (const char *p = t; p;) {
        char msg[512], count[64];
        const char *m = cell_after(p, "class=\"error-col-1 total ko\"", msg, sizeof msg);
        if (!m || !(p = cell_after(m, "class=\"value error-col-2 total ko\"", count, sizeof count)))
            break;
        char *end;
        unsigned long long n = strtoull(count, &end, 10);
        if (end == count || *end)
            return util_err(err, "index.html's errors table: count \"%.40s\" for \"%.100s\"", count, msg);
        json_object_set_new(msgs, msg, json_integer((json_int_t)n));
        sum += n;
        if (!gt_error_kind(msg, n, r))
            no_response += n;
    }
    if (sum != r->errors)
        return util_err(err, "index.html's errors table counts %llu errors, its statistics %llu KO",
                        (unsigned long long)sum, (unsigned long long)r->errors);
    if (no_response > r->requests)
        return util_err(err, "index.html counts more failed connections (%llu) than requests (%llu)",
                        (unsigned long long)no_response, (unsigned long long)r->requests);
    json_object_set_new(extra, "requests_sent", json_integer((json_int_t)r->requests));
    r->requests -= no_response; /* completed: a response came, of any status */
    return 0;
}

/* lb-phases.txt: the load's start and end (wall clock ms) as the
 * simulation marked them. Returns 0, or -1 with err. */
static int gt_phases(const char *dir, struct adapter_result *r, json_t *extra, char *err)
{
    char why[UTIL_ERR_LEN];
    char *t = adapter_slurp(dir, GT_PHASES, 4096, why);
    if (!t)
        return util_err(err, "the simulation's after() hook left no %s (the load did not end normally): %s",
                        GT_PHASES, why);
    unsigned long long a = 0, b = 0;
    int n = sscanf(t, "load_start_ms %llu\nload_end_ms %llu", &a, &b);
    free(t);
    /* a wall-clock ms after 2001 and before 2286 */
    if (n != 2 || a < 1000000000000ull || b < a || b > 9999999999999ull)
        return util_err(err, "%s does not hold two times in order (load_start_ms, load_end_ms)", GT_PHASES);
    r->load_start_unix_ms = a;
    r->load_end_unix_ms = b;
    r->after_load = "report";
    r->duration_s = (double)(b - a) / 1000;
    json_object_set_new(extra, "load_start_unix_ms", json_integer((json_int_t)a));
    json_object_set_new(extra, "load_end_unix_ms", json_integer((json_int_t)b));
    return 0;
}

static int gt_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char rdir[PATH_MAX], why[UTIL_ERR_LEN];
    if (gt_report_dir(c->dir, rdir, sizeof rdir, err))
        return -1;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/index.html", rdir);
    char *html = adapter_slurp(c->dir, path, 64 << 20, why);
    if (!html)
        return util_err(err, "Gatling's report %s has no index.html (cut short?): %s", rdir, why);
    /* The report is written whole or not at all: a page cut short is no result. */
    const char *tail = html + strlen(html);
    while (tail > html && (tail[-1] == '\n' || tail[-1] == ' '))
        tail--;
    json_t *extra = json_object();
    int rc = -1;
    if (tail - html < 7 || strncmp(tail - 7, "</html>", 7))
        util_err(err, "Gatling's report %s/index.html is cut short (no </html>): a half-written report", rdir);
    else if (gt_stats_row(html, r, extra, err) == 0 && gt_errors(html, r, extra, err) == 0 &&
             gt_phases(c->dir, r, extra, err) == 0)
        rc = 0;
    free(html);
    if (rc) {
        json_decref(extra);
        return -1;
    }
    json_object_set_new(extra, "report", json_string(rdir));
    if (c->profile && c->profile->check.status) /* KO "status.find.is(CODE), but actually found ..." */
        r->check_failed = r->err_status;
    r->extra = extra;
    r->parsed = 1;
    return 0;
}

const struct adapter adapter_gatling = {
    .name = "gatling",
    .parse_files = (const char *const[]){GT_RESULTS "/lbsimulation-20261204093000000/index.html", GT_PHASES, NULL},
    .description = "Gatling (Java DSL, JVM): a generated simulation, closed (concurrent users held in a during "
                   "loop) or open (users per second), with its HTML report",
    .install_hint = "scripts/install-tools (Maven Central, with the system mvn: "
                    "scripts/registry/maven/gatling/install TOOLS) and default-jdk-headless",
    .caps = ADAPTER_CLOSED | ADAPTER_OPEN | ADAPTER_RAMP | ADAPTER_TLS | ADAPTER_H2 | ADAPTER_CHECK | ADAPTER_POST,
    .tls_how = "verifies against the run's CA (gatling.ssl.trustStore: a PKCS12 store of it made by keytool, in place "
               "of Gatling's default InsecureTrustManagerFactory) and the certificate's address "
               "(gatling.http.enableHostnameVerification); only the profile's version enabled "
               "(gatling.ssl.enabledProtocols); ALPN offered only with h2 (enableHttp2); resumption offered "
               "(netty's OpenSSL client session cache, which Gatling turns on)",
    .tls_verifies = 1,
    .tls_library = "BoringSSL (netty-tcnative-boringssl-static 2.0.74, Gatling's default gatling.ssl.useOpenSsl; "
                   "JSSE only if it cannot load, with a warning)",
    .no_h2_why = "Gatling's enableHttp2 is HTTP/2 over TLS by ALPN only (its DefaultHttpClient installs the HTTP/2 "
                 "handler only on a secured URI): no h2c",
    .post_how = "http(\"POST /\").post(\"/\").body(RawFileBody(\"DIR/body.bin\")) and a Content-Type header",
    .check_how = ".check(status().is(CODE)) on the request (200 without check:, which replaces Gatling's implicit "
                 "2xx/304 check); a failed one is KO, \"status.find.is(CODE), but actually found ...\"",
    .versions = "live: 3.14.9 (Maven Central, OpenJDK 17); instances: N runs N independent JVMs, the load split "
                "(open-source Gatling has no distributed mode)",
    .latency_measures = "Gatling's response time: from just before the request is written (including the "
                        "connection's opening: each virtual user has its own pool, so a closed-model user connects "
                        "once, an open-model arrival every time) to the last byte of the response; whole ms; its "
                        "report's All Requests row, OK and KO together (50th, 75th, 95th, 99th percentiles)",
    .latency_resolution_ms = 1,
    .options = gt_options,
    .spread = ADAPTER_SPREAD_COPIES,
    .spread_note = "Gatling's open-source edition has no distributed mode: instances: N runs N independent "
                   "Gatling JVMs on this machine, each with its share of the users or the rate, each with its "
                   "own report; counts and footprint summed, percentiles the highest instance's",
    .detect = gt_detect,
    .prepare = gt_prepare,
    .parse = gt_parse,
};
