/* Unit test of the k6 adapter over HTTPS and HTTP/2. k6 is in no registry
 * loadbench installs from and not on this machine, so what it would run is
 * checked here: the generated script.js's tlsVersion (k6's option, "tls1.2"
 * / "tls1.3" as min and max: lib/options.go TLSVersions), no
 * insecureSkipTLSVerify, the https:// URL, SSL_CERT_FILE naming the run's
 * CA in the environment (Go's crypto/x509 reads it for the system roots
 * k6's tls.Config leaves RootCAs to), and the row's settings.tls. h2 needs
 * nothing more (k6 negotiates it by ALPN); a plain run gets none of it. */
#include "adapters/adapter.h"
#include "spec/profile.h"
#include "tests/tap.h"
#include "tests/adapter_test.h"
#include "common/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const struct adapter adapter_k6;

#define CA "/runs/r1/k6/target-ca.pem"

/* k6's prepare() for profile text, against the https:// URL and the CA
 * a TLS row gets (plain http:// and no CA without target.tls, as the
 * engine gives); the script in *js (freed by the caller). Returns
 * prepare()'s value. */
static int prepare_tls(const char *text, struct prepared *out, char **js)
{
    struct profile *p = load_profile(text);
    *js = NULL;
    if (!p) {
        adapter_plan_init(&out->plan); /* prepare_found_url inits it otherwise */
        return -1;
    }
    static const struct adapter_found found = {.path = "/usr/bin/k6", .version = "v0.48.0"};
    int tls = p->target.tls.version != 0;
    prepare_found_url(&adapter_k6, p, 0, &found, tls ? "https://127.0.0.1:8443/" : "http://127.0.0.1:8443/",
                      tls ? CA : NULL, out);
    if (out->rc)
        diag("prepare: %s", out->err);
    else
        *js = adapter_slurp(out->dir, "script.js", 1 << 20, out->err);
    profile_free(p);
    return out->rc;
}

static int has_env(const struct adapter_plan *plan, const char *kv)
{
    for (size_t i = 0; i < plan->env.n; i++)
        if (!strcmp(plan->env.v[i], kv))
            return 1;
    return 0;
}

static void tls_case(const char *name, const char *target, const char *version)
{
    char text[256], want[96];
    snprintf(text, sizeof text, "target: %s\nload: {connections: 2, duration: 1s}\ntools: [k6]\n", target);
    snprintf(want, sizeof want, "  tlsVersion: { min: '%s', max: '%s' },\n", version, version);
    struct prepared P;
    const struct adapter_plan *plan = &P.plan;
    char *js;
    if (!ok(prepare_tls(text, &P, &js) == 0 && js, "%s: prepare", name))
        goto out;
    if (!ok(strstr(js, want) != NULL, "%s: script pins tlsVersion %s", name, version))
        diag("%s", js);
    ok(strstr(js, "http.get('https://127.0.0.1:8443/', params)") != NULL, "%s: GETs the https:// URL", name);
    ok(!strstr(js, "insecureSkipTLSVerify"), "%s: no insecureSkipTLSVerify (k6 verifies)", name);
    ok(has_env(plan, "SSL_CERT_FILE=" CA), "%s: SSL_CERT_FILE names the run's CA", name);
    json_t *t = json_object_get(plan->settings, "tls");
    ok(json_is_true(json_object_get(t, "verified")), "%s: the row says verified", name);
    const char *how = json_string_value(json_object_get(t, "how"));
    ok(how && strstr(how, "SSL_CERT_FILE"), "%s: and how: %s", name, how ? how : "(none)");
    if (system("command -v node >/dev/null 2>&1") == 0) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "cd '%s' && cp script.js script.mjs && node --check script.mjs", P.dir);
        ok(system(cmd) == 0, "%s: node --check accepts the script as a module", name);
    } else {
        ok(1, "# SKIP node not installed: %s script not syntax-checked", name);
    }
out:
    free(js);
    adapter_plan_free(&P.plan);
}

int main(void)
{
    snprintf(tmproot, sizeof tmproot, "%s/lb-k6-tls.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmproot)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    tls_case("tls13", "{tls: {version: 1.3}}", "tls1.3");
    tls_case("tls12", "{tls: {version: 1.2, resumption: off}}", "tls1.2");
    tls_case("h2", "{tls: {version: 1.3}, protocol: h2}", "tls1.3");

    /* Plain HTTP: no TLS option, no CA, no tls settings. */
    struct prepared P;
    const struct adapter_plan *plan = &P.plan;
    char *js;
    if (ok(prepare_tls("load: {connections: 2, duration: 1s}\ntools: [k6]\n", &P, &js) == 0 && js, "plain: prepare")) {
        ok(!strstr(js, "tlsVersion") && strstr(js, "'http://127.0.0.1:8443/'"), "plain: no tlsVersion, http:// URL");
        ok(!json_object_get(plan->settings, "tls"), "plain: no settings.tls");
        int env_ca = 0;
        for (size_t i = 0; i < plan->env.n; i++)
            env_ca |= !strncmp(plan->env.v[i], "SSL_CERT_FILE=", 14);
        ok(!env_ca, "plain: no SSL_CERT_FILE");
    }
    free(js);
    adapter_plan_free(&P.plan);
    ok((adapter_k6.caps & (ADAPTER_TLS | ADAPTER_H2)) == (ADAPTER_TLS | ADAPTER_H2) && !(adapter_k6.caps & ADAPTER_H2C),
       "k6 maps tls and h2, not h2c (refused: %s)", adapter_k6.no_h2_why);
    if (!getenv("LB_KEEP_TMP")) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmproot);
        if (system(cmd) != 0)
            diag("could not remove %s", tmproot);
    }
    return done_testing();
}
