#include "report/disclosure.h"
#include "report/jpath.h"
#include "report/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const disclosure_sections[] = {
    "## The run", "## The machine", "## Network and limits", "## Pinning and cgroups", "## Method",
    "## Repeats and spread", "## Each tool", "## Left out", NULL,
};

#define NOT_RECORDED "not recorded (a run made before loadbench recorded it)"

/* s with the user name of any home directory in it left out: /home/NAME
 * becomes /home/USER (a path may name its owner). */
static void redacted(FILE *f, const char *s)
{
    while (*s) {
        const char *h = strstr(s, "/home/");
        if (!h) {
            fputs(s, f);
            return;
        }
        fwrite(s, 1, (size_t)(h - s) + 6, f);
        fputs("USER", f);
        s = h + 6 + strcspn(h + 6, "/ \t\n\"'");
    }
}

/* A value at path as text: a string as it is, a number as written, true or
 * false, or NOT_RECORDED. */
static void value(FILE *f, json_t *o, const char *path)
{
    json_t *cur = jpath_get(o, path);
    if (json_is_string(cur))
        redacted(f, json_string_value(cur));
    else if (json_is_number(cur))
        fprintf(f, "%.15g", json_number_value(cur));
    else if (json_is_boolean(cur))
        fprintf(f, "%s", json_is_true(cur) ? "true" : "false");
    else if (json_is_null(cur))
        fprintf(f, "none");
    else
        fprintf(f, NOT_RECORDED);
}

static void item(FILE *f, const char *name, json_t *o, const char *path)
{
    fprintf(f, "| %s | ", name);
    value(f, o, path);
    fprintf(f, " |\n");
}

/* Rows of a table: a name and a path into the object. */
struct disc_item {
    const char *name, *path;
};

static void items(FILE *f, json_t *o, const struct disc_item *it, size_t n)
{
    for (size_t i = 0; i < n; i++)
        item(f, it[i].name, o, it[i].path);
}
#define ITEMS(f, o, table) items(f, o, table, sizeof table / sizeof *table)

/* An optional field: "none" when the row has none. */
static void item_opt(FILE *f, const char *name, json_t *o, const char *path)
{
    if (jpath_str(o, path) || !isnan(jpath_num(o, path)))
        item(f, name, o, path);
    else
        fprintf(f, "| %s | none |\n", name);
}

static void utc(FILE *f, double ms)
{
    if (isnan(ms)) {
        fprintf(f, NOT_RECORDED);
        return;
    }
    time_t t = (time_t)(ms / 1e3);
    struct tm tm;
    char buf[64];
    gmtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
    fprintf(f, "%s", buf);
}

static void section_run(FILE *f, json_t *run)
{
    static const struct disc_item build_items[] = {
        {"status", "status"},
        {"loadbench version", "loadbench.version"},
        {"loadbench git revision", "loadbench.git"},
        {"build type (lb-target, lb-gen and loadbench are one build)", "loadbench.build"},
        {"charts code hash", "loadbench.charts"},
        {"run.json schema", "schema_version"},
    };
    json_t *p = json_object_get(run, "profile");
    fprintf(f, "## The run\n\n| | |\n|---|---|\n");
    item(f, "profile", p, "name");
    item(f, "profile file", p, "path");
    item(f, "profile SHA-256", run, "profile_sha256");
    fprintf(f, "| started | ");
    utc(f, jpath_num(run, "started_at_ms"));
    fprintf(f, " |\n| ended | ");
    utc(f, jpath_num(run, "ended_at_ms"));
    fprintf(f, " |\n");
    ITEMS(f, run, build_items);
    fprintf(f, "\nRerun exactly this profile from the loadbench checkout of that revision (`git checkout %s`, "
               "`make`, `scripts/install-tools` for the tools): the run directory keeps the profile as it "
               "ran, `profile.yaml`.\n\n```sh\nbuild/bin/loadbench run --out results/rerun RUN_DIR/profile.yaml\n```\n\n"
               "Each row's directory also holds `reproduce.sh`, which reruns that one tool by hand with the "
               "argv and environment below.\n\n",
            jpath_str(run, "loadbench.git") ? jpath_str(run, "loadbench.git") : "REV");
}

static void section_machine(FILE *f, json_t *run)
{
    static const struct disc_item machine_items[] = {
        {"CPU model", "cpu_model"},
        {"cores (online)", "cores"},
        {"clock (MHz, CPU 0 at start)", "cpu_mhz"},
        {"frequency governor", "cpu_governor"},
        {"SMT active", "smt_active"},
        {"memory (MB)", "memory_mb"},
        {"kernel", "kernel"},
        {"architecture", "arch"},
        {"virtualization", "virtualization"},
        {"clocksource", "clocksource"},
        {"transparent huge pages", "transparent_hugepages"},
        {"load average at start (1 min)", "loadavg_1m"},
    };
    json_t *m = json_object_get(run, "machine");
    fprintf(f, "## The machine\n\n| | |\n|---|---|\n");
    ITEMS(f, m, machine_items);
    fprintf(f, "\nCPU steal and the machine's background load during each row are in that row's line under "
               "\"Each tool\".\n\n");
}

static void section_net(FILE *f, json_t *run)
{
    json_t *m = json_object_get(run, "machine");
    static const char *const keys[] = {"somaxconn",   "tcp_max_syn_backlog", "ip_local_port_range",
                                       "tcp_tw_reuse", "tcp_fin_timeout",     "rmem_max",
                                       "wmem_max",    "tcp_rmem",            "tcp_wmem"};
    fprintf(f, "## Network and limits\n\nThe kernel settings that shape a load on loopback, read at the run's "
               "start (`/proc/sys/net/...`):\n\n| setting | value |\n|---|---|\n");
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        char path[64];
        snprintf(path, sizeof path, "net.%s", keys[i]);
        /* Runs before machine.net kept the port range beside it. */
        if (!json_object_get(json_object_get(m, "net"), keys[i]) && json_object_get(m, keys[i]))
            snprintf(path, sizeof path, "%s", keys[i]);
        item(f, keys[i], m, path);
    }
    item(f, "ulimit -n (open files)", m, "ulimit_nofile");
    fprintf(f, "\n");
}

/* A CPU mask as its CPUs, "all (not pinned)" for 0 or none. */
static void cpu_mask(FILE *f, const char *what, double mask)
{
    fprintf(f, "| %s | ", what);
    if (isnan(mask) || mask <= 0) {
        fprintf(f, "all (not pinned) |\n");
        return;
    }
    unsigned long long m = (unsigned long long)mask;
    fprintf(f, "0x%llx: CPU", m);
    for (int c = 0, n = 0; c < 64; c++)
        if (m >> c & 1)
            fprintf(f, "%s %d", n++ ? "," : "", c);
    fprintf(f, " |\n");
}

static void section_pinning(FILE *f, json_t *run)
{
    json_t *p = json_object_get(run, "profile");
    fprintf(f, "## Pinning and cgroups\n\n| | |\n|---|---|\n");
    cpu_mask(f, "lb-target's CPUs", jpath_num(p, "target_cpus_mask"));
    cpu_mask(f, "the tools' CPUs", jpath_num(p, "tool_cpus_mask"));
    item(f, "lb-target threads", p, "target.threads");
    fprintf(f, "\nEach tool runs in a cgroup of its own where the machine allows it; a row's footprint says "
               "its source (`cgroup` or `/proc` sampling) below.\n\n");
}

static void section_method(FILE *f, json_t *run)
{
    static const struct disc_item method_items[] = {
        {"target delay (ns)", "target.delay_ns"},
        {"response body (bytes)", "target.body_bytes"},
        {"sample interval (ns)", "sample_interval_ns"},
        {"cool-down between tools (ns)", "cooldown_ns"},
        {"grace after the load (ns)", "grace_ns"},
    };
    json_t *p = json_object_get(run, "profile");
    double from = NAN, to = NAN;
    json_t *hw = json_object_get(json_object_get(p, "load"), "hold_window_ns");
    if (json_is_array(hw)) {
        from = json_number_value(json_array_get(hw, 0));
        to = json_number_value(json_array_get(hw, 1));
    }
    fprintf(f, "## Method\n\n| | |\n|---|---|\n");
    item(f, "load model", p, "load.model");
    item(f, "load duration (ns)", p, "load.duration_ns");
    fprintf(f, "| hold window (the steady state judged) | %.3f s to %.3f s of the load |\n", from / 1e9, to / 1e9);
    ITEMS(f, p, method_items);
    fprintf(f, "\nWarm-up and steady state: the ramp before the hold window is warm-up and is shown, not "
               "judged; rates, latency truth and the bottleneck are judged over the hold window, whose "
               "server-counted rate is tested for a trend (Mann-Kendall over 2 s blocks: `hold_steady`). "
               "A row's count is reconciled with lb-target's own count (`crosscheck`).\n\n");
}

static void section_repeats(FILE *f, json_t *run)
{
    fprintf(f, "## Repeats and spread\n\n");
    item(f, "repeats per tool", json_object_get(run, "profile"), "repeat");
    struct stats_groups gs;
    stats_group_run(run, &gs);
    fprintf(f, "\n| label | level | runs | runs ok | requests/s median | min | max | cv |\n|---|--:|--:|--:|--:|--:|--:|--:|\n");
    for (size_t i = 0; i < gs.n; i++) {
        const struct stats_group *g = &gs.g[i];
        for (const struct stats_metric *m = stats_metrics; m->key; m++) {
            if (strcmp(m->key, "rps"))
                continue;
            struct stats_summary s;
            stats_group_metric(g, m, &s);
            char level[32] = "–";
            if (!isnan(g->level))
                snprintf(level, sizeof level, "%g", g->level);
            char cv[32] = "–";
            if (!isnan(s.cv))
                snprintf(cv, sizeof cv, "%.3f", s.cv);
            fprintf(f, "| %s | %s | %zu | %zu | %.1f | %.1f | %.1f | %s |\n", g->label, level, g->nrows, g->nok,
                    s.median, s.min, s.max, cv);
        }
    }
    stats_groups_free(&gs);
    fprintf(f, "\n(cv: the coefficient of variation over the repeats; `stats.csv` has every metric.)\n\n");
}

static void code_list(FILE *f, json_t *a)
{
    size_t i;
    json_t *x;
    json_array_foreach(a, i, x)
    {
        fputs(i ? " " : "", f);
        redacted(f, json_string_value(x) ? json_string_value(x) : "?");
    }
}

static void section_tool(FILE *f, json_t *r)
{
    static const struct disc_item tool_items[] = {
        {"tool", "tool"},
        {"version (origin)", "identity.version"},
        {"binary", "identity.path"},
        {"binary SHA-256", "identity.sha256"},
        {"model as run", "identity.model"},
        {"instances", "instances"},
        {"what its latency measures", "identity.latency_measures"},
        {"exit code", "exit.code"},
        {"status", "status"},
    };
    static const struct disc_item count_items[] = {
        {"server count", "crosscheck.server"},
        {"tool count", "crosscheck.client"},
        {"reconciliation", "crosscheck.verdict"},
        {"bottleneck", "limits.bottleneck"},
    };
    static const struct disc_item quiet_items[] = {
        {"footprint source", "footprint.source"},
        {"machine background CPU (%)", "quiet.background_pct"},
        {"CPU steal (%)", "quiet.steal_pct"},
        {"disturbed", "quiet.disturbed"},
    };
    json_t *id = json_object_get(r, "identity");
    fprintf(f, "### %s (repeat ", jpath_str(r, "label") ? jpath_str(r, "label") : "?");
    value(f, r, "repeat");
    fprintf(f, ")\n\n| | |\n|---|---|\n");
    ITEMS(f, r, tool_items);
    item_opt(f, "reason", r, "reason");
    ITEMS(f, r, count_items);
    item_opt(f, "bottleneck witness", r, "limits.witness");
    ITEMS(f, r, quiet_items);
    fprintf(f, "\nargv (run in `%s/`):\n\n```\n", jpath_str(r, "dir") ? jpath_str(r, "dir") : "?");
    code_list(f, json_object_get(id, "argv"));
    fprintf(f, "\n```\n\nenvironment loadbench set: ");
    if (json_array_size(json_object_get(id, "env"))) {
        fputc('`', f);
        code_list(f, json_object_get(id, "env"));
        fputc('`', f);
    } else {
        fprintf(f, "none");
    }
    fprintf(f, "; generated configs: ");
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(id, "configs"), i, c)
        /* Named, not linked: a published run prunes the copies of
         * loadbench's own hook files (PRUNED.txt). */
        fprintf(f, "%s`%s/%s`", i ? ", " : "", jpath_str(r, "dir"), json_string_value(c));
    if (!json_array_size(json_object_get(id, "configs")))
        fprintf(f, "none (all in argv)");
    fprintf(f, "; settings: `");
    char *s = json_dumps(json_object_get(id, "settings"), JSON_COMPACT | JSON_SORT_KEYS);
    fprintf(f, "%s", s ? s : "{}");
    free(s);
    fprintf(f, "`\n\n");
}

static void section_left_out(FILE *f)
{
    fprintf(f, "## Left out\n\nNothing that could be a secret is copied here: the machine's host name, user "
               "names (a path under /home/NAME reads /home/USER), the hosts' SSH key and config paths and the environment of loadbench itself are left "
               "out (each tool ran with a clean environment: only the variables listed under its row, plus "
               "PATH, LANG, TZ, HOME and TMPDIR). run.json keeps the host name for the run's owner.\n");
}

void disclosure_markdown(FILE *f, json_t *run)
{
    fprintf(f, "# Full disclosure: %s\n\nEverything another person needs to repeat this run, from run.json "
               "(`loadbench report` writes this page).\n\n",
            jpath_str(run, "profile.name") ? jpath_str(run, "profile.name") : "?");
    section_run(f, run);
    section_machine(f, run);
    section_net(f, run);
    section_pinning(f, run);
    section_method(f, run);
    section_repeats(f, run);
    fprintf(f, "## Each tool\n\n");
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(run, "runs"), i, r)
        if (json_is_object(r))
            section_tool(f, r);
    section_left_out(f);
}
