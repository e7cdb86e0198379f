#include "remote/hostfacts.h"
#include "remote/agentproto.h"
#include "common/jsonutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define U(x) ((json_int_t)(x))

json_t *hostfacts_json(const struct hostread *r)
{
    const struct sampler_machine *m = &r->m;
    json_t *j = json_pack("{s:{s:I, s:I, s:I, s:I, s:I}, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:f, s:o, s:I}",
                          "netstat", "listen_overflows", U(r->ns.listen_overflows), "listen_drops",
                          U(r->ns.listen_drops), "retrans_segs", U(r->ns.retrans_segs), "loss_probes",
                          U(r->ns.loss_probes), "time_wait",
                          U(r->ns.time_wait), "stat", "user", U(m->user), "nice", U(m->nice), "system",
                          U(m->system), "idle", U(m->idle), "iowait", U(m->iowait), "irq", U(m->irq), "softirq",
                          U(m->softirq), "steal", U(m->steal), "total", U(m->total), "self_cpu_s", r->self_cpu_s,
                          "tree_cpu_s", jsonutil_num(r->tree_cpu_s), "ncpu", U(r->ncpu));
    if (r->psi.have)
        json_object_set_new(j, "psi", json_pack("{s:f, s:I}", "avg10", r->psi.avg10, "total_us", U(r->psi.total_us)));
    return j;
}

void hostfacts_from(const json_t *j, struct hostread *r)
{
    const json_t *n = json_object_get(j, "netstat"), *m = json_object_get(j, "stat"), *p = json_object_get(j, "psi");
    memset(r, 0, sizeof *r);
    r->psi.avg10 = NAN;
    if (!json_is_object(n) || !json_is_object(m)) {
        snprintf(r->err, sizeof r->err, "the agent's reading has no netstat or stat");
        return;
    }
    r->ns = (struct netstat){agentproto_u64(n, "listen_overflows"), agentproto_u64(n, "listen_drops"),
                             agentproto_u64(n, "retrans_segs"), agentproto_u64(n, "loss_probes"),
                             agentproto_u64(n, "time_wait")};
    r->m = (struct sampler_machine){agentproto_u64(m, "user"), agentproto_u64(m, "nice"), agentproto_u64(m, "system"),
                                    agentproto_u64(m, "idle"), agentproto_u64(m, "iowait"), agentproto_u64(m, "irq"),
                                    agentproto_u64(m, "softirq"), agentproto_u64(m, "steal"),
                                    agentproto_u64(m, "total")};
    if (json_is_object(p)) {
        r->psi.have = 1;
        r->psi.avg10 = json_number_value(json_object_get(p, "avg10"));
        r->psi.total_us = agentproto_u64(p, "total_us");
    }
    r->self_cpu_s = json_number_value(json_object_get(j, "self_cpu_s"));
    json_t *tc = json_object_get(j, "tree_cpu_s");
    r->tree_cpu_s = json_is_number(tc) ? json_number_value(tc) : NAN;
    r->ncpu = (long)json_integer_value(json_object_get(j, "ncpu"));
    r->ok = 1;
}
