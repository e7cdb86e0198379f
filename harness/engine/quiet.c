#include "engine/quiet.h"
#include "common/fsutil.h"
#include "common/jsonutil.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void quiet_psi_read(struct quiet_psi *psi)
{
    char buf[256];
    unsigned long long total;
    memset(psi, 0, sizeof *psi);
    psi->avg10 = NAN;
    if (fsutil_read_small("/proc/pressure/cpu", buf, sizeof buf) <= 0)
        return;
    if (sscanf(buf, "some avg10=%lf avg60=%*f avg300=%*f total=%llu", &psi->avg10, &total) == 2) {
        psi->have = 1;
        psi->total_us = total;
    }
}

double quiet_background_pct(const struct sampler_machine *m0, const struct sampler_machine *m1, double ours_s,
                            double *steal_pct)
{
    double hz = (double)sysconf(_SC_CLK_TCK);
    double total = (double)(m1->total - m0->total) / hz;
    if (total <= 0)
        return *steal_pct = NAN;
    double idle = (double)((m1->idle + m1->iowait) - (m0->idle + m0->iowait)) / hz;
    double softirq = (double)(m1->softirq - m0->softirq) / hz;
    double bg = total - idle - softirq - ours_s;
    *steal_pct = (double)(m1->steal - m0->steal) / hz / total * 100;
    return (bg > 0 ? bg : 0) / total * 100;
}

/* One gate reading: the machine and loadbench's own tree's CPU so far. */
static int gate_read(struct sampler_tree *ours, struct sampler_machine *m, uint64_t *ours_ns)
{
    struct sampler_reading r;
    struct sampler_point pt;
    if (sampler_machine_read(m, NULL))
        return -1;
    sampler_tree_sample(ours, &r, &pt);
    *ours_ns = r.cpu_ns;
    return 0;
}

void quiet_gate_wait(const struct profile_quiet *q, volatile sig_atomic_t *stop, struct quiet_gate *out)
{
    uint64_t t0 = util_now_ns(), ours0, ours1;
    struct sampler_machine m0, m1;
    memset(out, 0, sizeof *out);
    out->verdict = "off";
    out->background_pct = NAN;
    struct sampler_tree *ours = q->wait_max_ns ? sampler_tree_new(getpid(), NULL, NULL) : NULL;
    if (ours && gate_read(ours, &m0, &ours0) == 0) {
        int below = 0;
        for (;;) {
            util_sleep_until_ns(util_now_ns() + q->interval_ns);
            if (*stop) {
                out->verdict = "interrupted";
                break;
            }
            if (gate_read(ours, &m1, &ours1))
                break;
            double steal;
            out->background_pct = quiet_background_pct(&m0, &m1, (double)(ours1 - ours0) / 1e9, &steal);
            m0 = m1;
            ours0 = ours1;
            below = out->background_pct < q->busy_below_pct ? below + 1 : 0;
            if (below >= 2 || util_now_ns() - t0 >= q->wait_max_ns) {
                out->verdict = below >= 2 ? "quiet" : "timed out";
                break;
            }
        }
    }
    sampler_tree_free(ours);
    out->waited_s = (double)(util_now_ns() - t0) / 1e9;
    quiet_psi_read(&out->psi);
}

json_t *quiet_run_json(const struct profile_quiet *q, const struct quiet_gate *g, const struct sampler_machine *m0,
                       const struct sampler_machine *m1, double ours_s, const struct quiet_psi *psi1,
                       json_t *warnings, int *disturbed)
{
    double steal, bg = quiet_background_pct(m0, m1, ours_s, &steal);
    double hz = (double)sysconf(_SC_CLK_TCK), ncpu = (double)sysconf(_SC_NPROCESSORS_ONLN);
    double wall_s = ncpu > 0 ? (double)(m1->total - m0->total) / hz / ncpu : 0;
    json_t *o = json_object();
    json_object_set_new(o, "busy_below_pct", json_real(q->busy_below_pct));
    json_object_set_new(o, "gate", json_string(g->verdict));
    json_object_set_new(o, "waited_s", json_real(g->waited_s));
    json_object_set_new(o, "gate_background_pct", jsonutil_num(g->background_pct));
    json_object_set_new(o, "background_pct", jsonutil_num(bg));
    json_object_set_new(o, "steal_pct", jsonutil_num(steal));
    if (g->psi.have && psi1->have) {
        json_object_set_new(o, "psi_cpu_some_avg10_before", json_real(g->psi.avg10));
        json_object_set_new(o, "psi_cpu_some_avg10_after", json_real(psi1->avg10));
        if (wall_s > 0)
            json_object_set_new(o, "psi_cpu_some_pct", json_real((double)(psi1->total_us - g->psi.total_us) / 1e4 / wall_s));
    }
    *disturbed = !isnan(bg) && bg >= q->busy_below_pct;
    json_object_set_new(o, "disturbed", json_boolean(*disturbed));
    if (!strcmp(g->verdict, "timed out"))
        json_array_append_new(warnings, json_sprintf("the quiet gate waited %.0f s and the machine stayed busy outside loadbench "
                                                     "(%.0f%% of its CPUs over the last interval, the bar is %.0f%%): the run started anyway",
                                                     g->waited_s, g->background_pct, q->busy_below_pct));
    if (*disturbed)
        json_array_append_new(warnings, json_sprintf("disturbed: the machine was %.0f%% busy outside loadbench during the run "
                                                     "(steal %.1f%%; the bar is %.0f%% of its CPUs): other work shared the "
                                                     "CPUs, so this row's figures are not a quiet machine's",
                                                     bg, steal, q->busy_below_pct));
    return o;
}
