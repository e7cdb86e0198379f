#include "adapters/adapter.h"
#include "common/util.h"

#include <stdio.h>
#include <string.h>

extern const struct adapter adapter_lb_gen;
extern const struct adapter adapter_wrk;
extern const struct adapter adapter_wrk2;
extern const struct adapter adapter_hey;
extern const struct adapter adapter_ab;
extern const struct adapter adapter_h2load;
extern const struct adapter adapter_siege;
extern const struct adapter adapter_autocannon;
extern const struct adapter adapter_k6;
extern const struct adapter adapter_artillery;
extern const struct adapter adapter_locust;
extern const struct adapter adapter_jmeter;
extern const struct adapter adapter_go_fasthttp;
extern const struct adapter adapter_py_aiohttp;
extern const struct adapter adapter_bombardier;
extern const struct adapter adapter_vegeta;
extern const struct adapter adapter_oha;
extern const struct adapter adapter_httperf;
extern const struct adapter adapter_tsung;
extern const struct adapter adapter_gatling;

const struct adapter *const adapter_registry[] = {
    &adapter_lb_gen,
    &adapter_wrk,
    &adapter_wrk2,
    &adapter_hey,
    &adapter_ab,
    &adapter_h2load,
    &adapter_siege,
    &adapter_httperf,
    &adapter_autocannon,
    &adapter_bombardier,
    &adapter_vegeta,
    &adapter_oha,
    &adapter_k6,
    &adapter_artillery,
    &adapter_locust,
    &adapter_jmeter,
    &adapter_gatling,
    &adapter_tsung,
    &adapter_go_fasthttp,
    &adapter_py_aiohttp,
    NULL,
};

const struct adapter_unrunnable adapter_unrunnable[] = {
    {"fusillade", "not run here: in no registry this machine reaches (npm has no fusillade; PyPI's fusillade 0.0.1 "
                  "is an unrelated identity service, crates.io's fusillade 24.1.0 an unrelated LLM request batcher; Debian, "
                  "the Go proxy, Maven Central: none)"},
    {"funtester", "not run here: a Java/Groovy framework whose jars come from its own site, not from a registry this "
                  "machine reaches (npm and PyPI have no funtester)"},
    {NULL, NULL},
};

const struct adapter *adapter_by_name(const char *name)
{
    for (const struct adapter *const *a = adapter_registry; *a; a++)
        if (!strcmp((*a)->name, name))
            return *a;
    return NULL;
}

json_t *adapter_detect_all(void)
{
    json_t *all = json_array();
    for (const struct adapter *const *a = adapter_registry; *a; a++) {
        struct adapter_found f;
        char err[UTIL_ERR_LEN], models[64] = "";
        memset(&f, 0, sizeof f);
        int found = (*a)->detect(NULL, &f, err) == 0;
        static const struct { unsigned cap; const char *name; } caps[] = {
            {ADAPTER_CLOSED, "closed"}, {ADAPTER_PACED, "paced"}, {ADAPTER_OPEN, "open"}, {ADAPTER_RAMP, "ramp"}};
        for (size_t i = 0; i < sizeof caps / sizeof *caps; i++)
            if ((*a)->caps & caps[i].cap)
                snprintf(models + strlen(models), sizeof models - strlen(models), "%s%s", models[0] ? " " : "",
                         caps[i].name);
        json_t *t = json_pack("{s:s, s:b, s:s, s:s}", "tool", (*a)->name, "found", found, "models", models,
                              "install_hint", (*a)->install_hint ? (*a)->install_hint : "");
        if (found) {
            json_object_set_new(t, "version", adapter_json_text(f.version));
            json_object_set_new(t, "path", adapter_json_text(f.path));
        } else {
            json_object_set_new(t, "why", json_string(err)); /* what detect found, not only the hint */
        }
        if ((*a)->versions)
            json_object_set_new(t, "versions", json_string((*a)->versions));
        json_array_append_new(all, t);
    }
    for (const struct adapter_unrunnable *u = adapter_unrunnable; u->name; u++)
        json_array_append_new(all, json_pack("{s:s, s:b, s:s, s:s, s:s}", "tool", u->name, "found", 0, "models", "-",
                                             "install_hint", u->why, "unrunnable", u->why));
    return all;
}
