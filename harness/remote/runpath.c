/* runpath: one probe server on the target's host, each tool host measures. */
#include "remote/runpath.h"
#include "remote/pathprobe.h"
#include "common/units.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* The bulk time: RUNPATH_BULK_NS, or LOADBENCH_PATH_BULK (a duration,
 * 100ms to 3s) where the path is a test's veth pair, full speed at once. */
static uint64_t bulk_ns(void)
{
    const char *s = getenv("LOADBENCH_PATH_BULK");
    char e[UTIL_ERR_LEN];
    uint64_t ns;
    if (s && !units_parse_duration_ns(s, &ns, e) && ns >= 100000000ull && ns <= RUNPATH_BULK_NS)
        return ns;
    return RUNPATH_BULK_NS;
}

/* The path from the tool host h (NULL: the controller) to addr:port. */
static json_t *path_from(const struct profile *p, struct exec_host *const *agents, const struct profile_host *h,
                         const char *addr, int port)
{
    char err[UTIL_ERR_LEN];
    struct exec_host *a = h && !h->local ? agents[h - p->hosts] : NULL;
    json_t *out = NULL;
    if (a) {
        json_t *rep = exec_remote_call(a, json_pack("{s:s, s:s, s:i, s:i, s:i, s:I}", "op", "probe", "addr", addr,
                                                    "port", port, "rtts", RUNPATH_RTTS, "flows", RUNPATH_FLOWS,
                                                    "bulk_ns", (json_int_t)bulk_ns()), err);
        out = rep ? json_incref(json_object_get(rep, "path")) : NULL;
        json_decref(rep);
    } else {
        struct pathprobe_result r;
        if (!pathprobe_measure(addr, port, RUNPATH_RTTS, RUNPATH_FLOWS, bulk_ns(), &r, err))
            out = pathprobe_json(&r);
    }
    if (!out)
        return json_pack("{s:s}", "error", err);
    json_object_set_new(out, "to", json_string(addr));
    return out;
}

/* 1 when host name was seen among the tool hosts already. */
static int seen(json_t *o, const char *name)
{
    return json_object_get(o, name) != NULL;
}

json_t *runpath_measure(const struct profile *p, struct exec_host *const *agents, const char *only,
                        const volatile sig_atomic_t *stop)
{
    const struct profile_host *th = profile_host_by_name(p, p->target_host);
    const char *addr = th ? profile_host_load_address(th) : "127.0.0.1";
    struct exec_host *ta = th && !th->local ? agents[th - p->hosts] : NULL;
    char err[UTIL_ERR_LEN] = "";
    int port = 0;
    struct pathprobe_server *srv = NULL;
    if (ta) {
        json_t *rep = exec_remote_call(ta, json_pack("{s:s, s:s}", "op", "probe_serve", "addr", addr), err);
        port = (int)json_integer_value(json_object_get(rep, "port"));
        json_decref(rep);
    } else {
        srv = pathprobe_serve(addr, &port, err);
    }
    json_t *o = json_object();
    for (size_t t = 0; t < p->ntools; t++) {
        const struct profile_tool *pt = &p->tools[t];
        if (!profile_only_selects(only, pt->label))
            continue;
        for (unsigned k = 0; k < (pt->nhosts ? pt->nhosts : 1); k++) {
            const struct profile_host *h = pt->nhosts ? profile_host_by_name(p, pt->hosts[k]) : NULL;
            const char *name = h ? h->name : "controller";
            if (seen(o, name))
                continue;
            if (*stop)
                json_object_set_new(o, name, json_pack("{s:s}", "skipped", "interrupted"));
            else if (profile_hosts_same_machine(h, th))
                json_object_set_new(o, name, json_pack("{s:s}", "skipped", "the tool runs on the target's host"));
            else if (port <= 0)
                json_object_set_new(o, name, json_pack("{s:s}", "error", err));
            else
                json_object_set_new(o, name, path_from(p, agents, h, addr, port));
        }
    }
    if (ta && port > 0)
        json_decref(exec_remote_call(ta, json_pack("{s:s}", "op", "probe_stop"), NULL));
    pathprobe_stop(srv);
    return o;
}
