/* loadbench: the orchestrator CLI. The only place that prints to the user
 * and picks exit codes. */
#include "adapters/adapter.h"
#include "agent/agent.h"
#include "common/fsutil.h"
#include "common/cgroup.h"
#include "report/compare.h"
#include "report/evidence.h"
#include "report/history.h"
#include "report/export.h"
#include "common/guard.h"
#include "spec/profile.h"
#include "engine/proc.h"
#include "report/report.h"
#include "report/stats.h"
#include "engine/machine.h"
#include "engine/run.h"
#include "generated/charts_hash.h" /* generated: LB_CHARTS_HASH */
#include "engine/runcheck.h"
#include "remote/ssh.h"
#include "remote/hostarg.h"
#include "remote/placement.h"
#include "engine/runlock.h"
#include "common/util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* The default profile, the same text as profiles/quick.yaml (a test keeps
 * the two identical), so `loadbench run` works from any directory. */
static const char quick_profile[] =
    "# The default profile: what `make run` runs. lb-gen alone, about 20 s,\n"
    "# so a fresh machine with no third-party tool can run the whole pipeline.\n"
    "name: quick\n"
    "description: lb-gen against lb-target, 50 connections, 10 s, 1 ms delay\n"
    "target: {delay: 1ms, body: 64B, threads: 1}\n"
    "load:\n"
    "  model: closed\n"
    "  connections: 50\n"
    "  duration: 10s\n"
    "tools: [lb-gen]\n"
    "sampling: {interval: 1s}\n"
    "cooldown: 1s\n";

/* run's handlers, installed by main's first instruction (#18): a signal
 * that comes before the run directory exists ends the command with 130 and
 * nothing made; after that, the run stops and keeps what it measured. */
static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* Runs whose loadbench died (in results_root's subdirectories, or the one
 * run_dir) are marked abandoned, and cgroups left by a dead loadbench are
 * emptied and removed (#18). Says what it did unless quiet. */
static void reap_dead(const char *results_root, const char *run_dir, int quiet)
{
    char err[UTIL_ERR_LEN];
    int n = results_root ? runlock_reap_all(results_root, err) : runlock_reap(run_dir, err);
    if (n < 0)
        fprintf(stderr, "loadbench: warning: %s\n", err);
    else if (n > 0 && !quiet)
        fprintf(stderr, "loadbench: marked %d run(s) in %s abandoned: their loadbench died before they finished\n", n,
                results_root ? results_root : run_dir);
    int c = cgroup_sweep_stale("loadbench-", runlock_tag_dead, err);
    if (c < 0)
        fprintf(stderr, "loadbench: warning: stale cgroups: %s\n", err);
    else if (c > 0 && !quiet)
        fprintf(stderr, "loadbench: removed %d stale cgroup(s) of a loadbench that died\n", c);
    int s = hosts_sweep_stale_control_dirs();
    if (s > 0 && !quiet)
        fprintf(stderr, "loadbench: removed %d ssh control directory(ies) of a loadbench that died\n", s);
    int pl = run_plan_sweep_stale();
    if (pl > 0 && !quiet)
        fprintf(stderr, "loadbench: removed %d temporary directory(ies) of a `loadbench plan` that died\n", pl);
}

/* reap_dead where this run goes: the --into run, the directory --out is
 * made in, or the results root. */
static void reap_dead_near(const struct run_opts *o)
{
    if (o->into_dir) {
        reap_dead(NULL, o->into_dir, o->quiet);
    } else if (o->out_dir) {
        char *parent = util_xstrdup(o->out_dir), *slash = strrchr(parent, '/');
        if (slash)
            *slash = 0;
        reap_dead(slash ? (*parent ? parent : "/") : ".", NULL, o->quiet);
        free(parent);
    } else {
        reap_dead(o->results_root, NULL, o->quiet);
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: loadbench COMMAND [options]\n"
            "\n"
            "Runs HTTP load-testing tools one at a time against lb-target with the same\n"
            "nominal load, samples each tool's CPU and memory, reconciles its counts with\n"
            "the server's, and writes a run directory (run.json, summary.md, results.csv).\n"
            "\n"
            "commands:\n"
            "  run [PROFILE.yaml]     run a profile (default: the built-in quick profile)\n"
            "      --out DIR          the run directory (must not exist)\n"
            "      --results DIR      where <UTC time>-<name>/ is created (default: results)\n"
            "      --only LABELS      run only these tool entries: labels or shell globs, comma-\n"
            "                         separated (--only wrk,k6 or --only 'lb-gen*')\n"
            "      --into RUN_DIR     with --only: rerun them into an existing run directory\n"
            "      --quiet            no progress or log lines\n"
            "      --scale F          multiply every load duration and the cooldown by F (0 < F <= 1)\n"
            "                         for a quick look; run.json records the factor\n"
            "  validate PROFILE...    check profiles; errors as FILE:LINE:COL: message\n"
            "  plan [--scale F] PROFILE  show resolved profile, generated configs, argv and time; sends no load\n"
            "  tools [--host H [PROFILE]]  list adapters: found or not, version, path (on host H)\n"
            "  report [--include-suspect] RUN_DIR  regenerate summary.md, results.csv, stats.csv, charts/ and\n"
            "                         report.html from run.json (suspect rows' figures kept out unless asked)\n"
            "  compare BASE CURRENT   compare two runs per tool x level x metric; exit 1 on a regression,\n"
            "      --threshold 10%%    2 when not comparable (machine, host, build, profile, another tool's\n"
            "                         binary or version), 3 when a gated cell has no evidence (missing,\n"
            "                         failed, suspect, or from a run not complete)\n"
            "                         (a change counts when significant, rank test over repeats, and past it)\n"
            "  compare BASE... vs CURRENT...  several runs a side (nights, interleaved A/B runs)\n"
            "      --paired           pair the sides' rows run by run, repeat by repeat (signed-rank test)\n"
            "      --junit FILE       also write JUnit XML\n"
            "      --tool LABEL       the compared tool, whose binary may differ (default lb-gen)\n"
            "      --control LABEL    the control generator for RPS ratios (default wrk, else lb-gen)\n"
            "      --allow-missing    missing evidence is shown but does not fail the gate\n"
            "      --include-suspect  suspect rows' figures count (also for report and history)\n"
            "  history [--out DIR] [--include-suspect] RUN_DIR...  each tool's metrics across runs, oldest first,\n"
            "                         by tool version:\n"
            "                         DIR/history.md, history.csv, charts/history_*.png/.svg (DIR: ./history)\n"
            "  export --format openmetrics|prometheus|csv [--no-timestamps] RUN_DIR  the run's headline\n"
            "                         figures on stdout, per row: OpenMetrics or Prometheus text (nightly\n"
            "                         gates: a textfile collector, a Pushgateway), or a long CSV table\n"
            "  doctor [--results DIR] machine facts that distort benchmarks, with warnings; marks runs in DIR\n"
            "                         (default results) whose loadbench died abandoned, removes their cgroups\n"
            "      --host H [PROFILE] the facts of host H instead: a host of PROFILE's hosts:, or without a\n"
            "                         profile an ssh destination [user@]host[:port] (docs/multihost.md)\n"
            "  hosts install H [PROFILE]  copy this build into host H's cache (~/.cache/loadbench/), where\n"
            "                         a run's agent is looked for first\n"
            "  agent                  serve a remote loadbench on stdin/stdout (docs/agent-protocol.md);\n"
            "                         started through ssh by loadbench itself\n"
            "  version                print the version, the charts' code hash and run.json's schema\n"
            "\n"
            "exit codes: 0 all ok, 1 some tool run failed, 2 bad input or setup error, 130 interrupted\n"
            "profiles: see docs/profiles.md and profiles/\n");
}

/* LOADBENCH_QUIET=off turns the quiet gate's wait off whatever the
 * profile says (tests/lib/tap.sh sets it: a busy test machine would
 * wait at every tool run); the background is still measured and marked. */
static struct profile *load_profile(const char *path, char *err)
{
    struct profile *p = path ? profile_load_file(path, err)
                             : profile_load_string("(built-in quick profile)", quick_profile, sizeof quick_profile - 1, err);
    const char *quiet = getenv("LOADBENCH_QUIET");
    if (p && quiet && !strcmp(quiet, "off"))
        p->quiet.wait_max_ns = 0;
    return p;
}

/* A plain decimal number at s (digits, at most one point, nothing else:
 * strtod alone also reads "nan", "inf", "0x10" and "1e3"), then the
 * suffix (may be ""). Returns 0 with *v, or -1. */
static int parse_decimal(const char *s, const char *suffix, double *v)
{
    size_t n = strspn(s, "0123456789.");
    const char *dot = memchr(s, '.', n);
    if (!n || (dot && memchr(dot + 1, '.', n - (size_t)(dot - s) - 1)) || strcmp(s + n, suffix) ||
        strspn(s, ".") == n)
        return -1;
    errno = 0;
    *v = strtod(s, NULL);
    return errno || !isfinite(*v) ? -1 : 0;
}

/* --scale's factor: a plain decimal number. Returns 0, or -1 with err set. */
static int parse_scale(const char *s, double *f, char *err)
{
    if (parse_decimal(s, "", f))
        return util_err(err, "--scale needs a number such as 0.1 (got \"%s\")", s);
    return 0;
}

static char *target_bin(void)
{
    const char *env = getenv("LOADBENCH_TARGET");
    if (env && *env)
        return util_xstrdup(env);
    return util_xasprintf("%s/lb-target", adapter_bindir());
}

static int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, 0, 'o'},     {"results", required_argument, 0, 'r'},
                                         {"only", required_argument, 0, 'O'},    {"into", required_argument, 0, 'i'},
                                         {"quiet", no_argument, 0, 'q'},         {"help", no_argument, 0, 'h'},
                                         {"scale", required_argument, 0, 's'},   {0, 0, 0, 0}};
    struct run_opts o = {.results_root = "results", .stop = &stop_flag, .log = stderr};
    int c;
    optind = 1;
    double scale = 1;
    char err[UTIL_ERR_LEN];
    while ((c = getopt_long(argc, argv, "o:r:O:i:qhs:", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (parse_scale(optarg, &scale, err)) {
                fprintf(stderr, "loadbench run: %s\n", err);
                return 2;
            }
            break;
        case 'o': o.out_dir = optarg; break;
        case 'r': o.results_root = optarg; break;
        case 'O': o.only = optarg; break;
        case 'i': o.into_dir = optarg; break;
        case 'q': o.quiet = 1; o.log = NULL; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc - 1) {
        fprintf(stderr, "loadbench run: one profile at a time (got %d)\n", argc - optind);
        return 2;
    }
    if (o.into_dir && !o.only) {
        fprintf(stderr, "loadbench run: --into needs --only LABELS (the tools to rerun)\n");
        return 2;
    }
    if (o.into_dir && o.out_dir) {
        fprintf(stderr, "loadbench run: give --into or --out, not both\n");
        return 2;
    }
    struct profile *p = load_profile(optind < argc ? argv[optind] : NULL, err);
    if (!p || profile_scale(p, scale, err)) { /* run_profile checks it as validate does (runcheck) */
        fprintf(stderr, "loadbench: %s\n", err);
        profile_free(p);
        return 2;
    }
    o.progress_tty = !o.quiet && isatty(2);
    char *tb = target_bin();
    o.target_bin = tb;
    signal(SIGPIPE, SIG_IGN);
    if (guard_start(err)) /* guard hook (#18): before the first child, while single-threaded */
        fprintf(stderr, "loadbench: warning: %s (a tool's children may outlive a killed loadbench)\n", err);
    if (proc_become_subreaper(err))
        fprintf(stderr, "loadbench: warning: %s (daemonizing tools may escape cleanup)\n", err);
    reap_dead_near(&o); /* runlock hook (#18): abandoned runs and stale cgroups */
    struct run_result res = {0};
    o.place = p->nhosts ? placement_new(p, o.only, &stop_flag) : NULL; /* hosts: remote/placement.h */
    int rc = stop_flag ? 130 : run_profile(p, &o, &res, err);
    placement_free(o.place);
    /* The engine ran; the pages are the reports' (report/report.h), written
     * from the record it saved, while the run directory is still locked. */
    char rerr[UTIL_ERR_LEN];
    if (res.record && report_write_all(res.dir, res.record, rerr)) {
        if (!o.quiet)
            fprintf(stderr, "loadbench: reports: %s\n", rerr);
        if (rc != 130)
            rc = 1;
    }
    int unsaved = res.unsaved;
    char *dir = res.dir ? util_xstrdup(res.dir) : NULL;
    run_result_release(&res);
    guard_stop(); /* guard hook (#18): everything is stopped; the guardian exits at once */
    if (rc == 2 || unsaved)
        fprintf(stderr, "loadbench: %s\n", err);
    else if (!dir) {
        if (!o.quiet)
            fprintf(stderr, "loadbench: interrupted before the run directory was made: nothing was run\n");
    } else if (!o.quiet) {
        fprintf(stderr, "loadbench: %s: %s/summary.md\n",
                rc == 0 ? "done" : rc == 130 ? "interrupted, partial results in" : "done with failures, see", dir);
        if (rc != 2 && dir && isatty(1)) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/summary.md", dir);
            FILE *f = fopen(path, "r");
            if (f) {
                char buf[4096];
                size_t n;
                while ((n = fread(buf, 1, sizeof buf, f)) > 0)
                    fwrite(buf, 1, n, stdout);
                fclose(f);
            }
        }
    }
    if (dir && rc != 2)
        printf("%s\n", dir);
    free(dir);
    free(tb);
    profile_free(p);
    return rc;
}

static int cmd_validate(int argc, char **argv)
{
    int dashdash = 0; /* the first "--" ends the options: not a file */
    for (int i = 1; i < argc && !dashdash; i++)
        dashdash = !strcmp(argv[i], "--") ? i : 0;
    if (argc - (dashdash > 0) < 2) {
        fprintf(stderr, "usage: loadbench validate PROFILE.yaml...\n");
        return 2;
    }
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        if (i == dashdash)
            continue;
        char err[UTIL_ERR_LEN];
        struct profile *p = profile_load_file(argv[i], err);
        if (!p || runcheck_profile(p, NULL, err)) {
            fprintf(stderr, "%s\n", err);
            bad = 1;
        } else {
            printf("%s: ok (%zu tool(s), load %.4g s)\n", argv[i], p->ntools,
                   (double)profile_load_duration_ns(&p->load) / 1e9);
        }
        profile_free(p);
    }
    return bad ? 2 : 0;
}

static int cmd_plan(int argc, char **argv)
{
    static const struct option opts[] = {{"scale", required_argument, 0, 's'}, {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    char err[UTIL_ERR_LEN];
    double scale = 1;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 's' && parse_scale(optarg, &scale, err) == 0)
            continue;
        if (c == 's')
            fprintf(stderr, "loadbench plan: %s\n", err);
        else
            fprintf(stderr, "usage: loadbench plan [--scale F] [PROFILE.yaml]\n");
        return 2;
    }
    if (argc - optind > 1) {
        fprintf(stderr, "loadbench plan: one profile at a time (got %d)\n", argc - optind);
        return 2;
    }
    struct profile *p = load_profile(optind < argc ? argv[optind] : NULL, err);
    if (!p || profile_scale(p, scale, err)) { /* run_plan checks it as validate does (runcheck) */
        fprintf(stderr, "loadbench: %s\n", err);
        profile_free(p);
        return 2;
    }
    /* The guardian removes plan's temporary directory however plan ends
     * (a signal, SIGKILL included); a dead plan's is doctor's to remove. */
    if (guard_start(err))
        fprintf(stderr, "loadbench: warning: %s (a killed plan may leave its temporary directory)\n", err);
    run_plan_sweep_stale();
    int rc = run_plan(p, stdout, err);
    guard_stop();
    if (rc)
        fprintf(stderr, "loadbench: %s\n", err);
    profile_free(p);
    return rc ? 2 : 0;
}

/* The tools table of `loadbench tools` from adapter_detect_all's list
 * (this machine's, or a host's through its agent). */
static void tools_print(const json_t *tools)
{
    printf("%-12s %-6s %-40s %-24s %s\n", "TOOL", "FOUND", "VERSION", "MODELS", "PATH / HOW TO GET IT");
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
    {
        int found = json_is_true(json_object_get(t, "found"));
        const char *get = json_string_value(json_object_get(t, found ? "path" : "install_hint"));
        const char *why = found ? NULL : json_string_value(json_object_get(t, "why"));
        printf("%-12s %-6s %-40.40s %-24s %s%s%s%s\n", json_string_value(json_object_get(t, "tool")),
               found ? "yes" : "no", found ? json_string_value(json_object_get(t, "version")) : "-",
               json_string_value(json_object_get(t, "models")), why ? why : "", why ? " (" : "", get ? get : "",
               why ? ")" : "");
    }
    printf("\nversions: \"live\" ran here in loadbench's tests; \"by source\" checked against that version's "
           "source only (docs/versions.md):\n");
    json_array_foreach(tools, i, t)
    {
        const char *v = json_string_value(json_object_get(t, "versions"));
        if (v)
            printf("  %-12s %s\n", json_string_value(json_object_get(t, "tool")), v);
    }
    printf("\nprotocols and settings (target.tls, target.protocol, load.keepalive: off, check:; a profile asking a "
           "tool for one it lacks is refused):\n");
    for (const struct adapter *const *a = adapter_registry; *a; a++) {
        unsigned c = (*a)->caps;
        printf("  %-12s h1%s%s%s%s%s", (*a)->name, c & ADAPTER_TLS ? " tls" : "", c & ADAPTER_H2 ? " h2" : "",
               c & ADAPTER_H2C ? " h2c" : "", c & ADAPTER_NOKEEPALIVE ? " keepalive-off" : "",
               c & ADAPTER_CHECK ? " check" : "");
        if (c & ADAPTER_TLS)
            printf("; certificate: %s; library: %s", (*a)->tls_how ? (*a)->tls_how : "not stated",
                   (*a)->tls_library ? (*a)->tls_library : "not stated");
        if ((*a)->no_h2_why)
            printf("; %s", (*a)->no_h2_why);
        if (c & ADAPTER_CHECK)
            printf("; check: %s", (*a)->check_how ? (*a)->check_how : "not stated");
        printf("\n");
    }
    printf("\nrequest: POST (request: {method: POST, body: SIZE}; a profile asking a tool without it is refused):\n");
    for (const struct adapter *const *a = adapter_registry; *a; a++) {
        const char *why = (*a)->no_post_why ? (*a)->no_post_why : "its adapter does not map it";
        if ((*a)->caps & ADAPTER_POST)
            printf("  %-12s POST: %s\n", (*a)->name, (*a)->post_how ? (*a)->post_how : "not stated");
        else
            printf("  %-12s no POST: %s\n", (*a)->name, why);
    }
    printf("\nper-tool options (a tool entry's `options:` in a profile; see docs/profiles.md):\n");
    for (const struct adapter *const *a = adapter_registry; *a; a++) {
        printf("  %-12s", (*a)->name);
        if (!(*a)->options || !(*a)->options[0])
            printf(" (none)");
        for (const char *const *o = (*a)->options; o && *o; o++)
            printf(" %s", *o);
        printf("\n");
    }
}

/* --host ARG [PROFILE] resolved (remote/hostarg.h). Returns 0, or 2 with
 * the error printed. */
static int host_arg_open(const char *cmd, const char *arg, const char *profile_path, struct host_arg *ha)
{
    char err[UTIL_ERR_LEN];
    if (host_arg_resolve(ha, arg, profile_path, err) == 0)
        return 0;
    fprintf(stderr, "loadbench %s: %s\n", cmd, err);
    return 2;
}

/* What fetch brings from ha's agent, saying which machine answered;
 * NULL with the error printed. */
static json_t *host_arg_ask(const char *cmd, struct host_arg *ha, const char *arg,
                            json_t *(*fetch)(struct exec_host *, char *))
{
    char err[UTIL_ERR_LEN], said[UTIL_ERR_LEN * 2];
    json_t *v = host_arg_fetch(ha, arg, fetch, said, sizeof said, err);
    if (said[0])
        fprintf(stderr, "loadbench %s: %s\n", cmd, said);
    if (!v)
        fprintf(stderr, "loadbench %s: %s\n", cmd, err);
    return v;
}

/* --host ARG and at most one PROFILE among argv[1..argc): 0 with them
 * set, or 2 with the usage printed. results: --results DIR (doctor's),
 * or NULL where it is not taken. */
static int host_opts(const char *cmd, int argc, char **argv, const char **host, const char **profile,
                     const char **results)
{
    *host = *profile = NULL;
    int dashdash = 0; /* after "--", an argument is never an option */
    for (int i = 1; i < argc; i++) {
        if (!dashdash && !strcmp(argv[i], "--")) {
            dashdash = 1;
            continue;
        }
        int opt = !dashdash && (!strcmp(argv[i], "--host") || (results && !strcmp(argv[i], "--results")));
        if (opt && i + 1 == argc) {
            fprintf(stderr, "loadbench %s: %s needs a value\n", cmd, argv[i]);
            return 2;
        }
        if (opt && !strcmp(argv[i], "--host"))
            *host = argv[++i];
        else if (opt)
            *results = argv[++i];
        else if ((dashdash || argv[i][0] != '-') && !*profile)
            *profile = argv[i];
        else {
            fprintf(stderr, "loadbench %s: unexpected \"%s\"\n", cmd, argv[i]);
            return 2;
        }
    }
    if (*profile && !*host) {
        fprintf(stderr, "loadbench %s: a profile goes with --host NAME (the host of its hosts: to ask)\n", cmd);
        return 2;
    }
    if (results && *results && *host) {
        fprintf(stderr, "loadbench %s: give --results or --host, not both (--results is about this machine)\n", cmd);
        return 2;
    }
    return 0;
}

static int cmd_tools(int argc, char **argv)
{
    const char *host, *profile;
    struct host_arg ha;
    if (host_opts("tools", argc, argv, &host, &profile, NULL))
        return 2;
    int rc = host ? host_arg_open("tools", host, profile, &ha) : 0;
    json_t *tools = NULL;
    if (rc) {
        host_arg_free(&ha);
        return rc;
    }
    if (!host || ha.h->local) {
        tools = adapter_detect_all();
    } else {
        tools = host_arg_ask("tools", &ha, host, host_arg_tools);
        rc = tools ? 0 : 2;
    }
    if (tools)
        tools_print(tools);
    json_decref(tools);
    if (host)
        host_arg_free(&ha);
    return rc;
}

/* Why path's JSON did not load. jansson gives line -1 when the error has
 * no place in the text (the file cannot be opened): say no line then. */
static void json_load_error(const char *path, const json_error_t *je)
{
    if (je->line > 0)
        fprintf(stderr, "loadbench: %s:%d: %s\n", path, je->line, je->text);
    else
        fprintf(stderr, "loadbench: %s: %s\n", path, je->text);
}

/* 1 when a run argument names a run.json, not its directory. */
static int names_json(const char *arg)
{
    size_t n = strlen(arg);
    return n > 5 && !strcmp(arg + n - 5, ".json");
}

/* The run directory a run argument names (a run.json's folder), in a heap
 * string the caller frees. */
static char *run_dir_of(const char *arg)
{
    const char *slash = strrchr(arg, '/');
    if (!names_json(arg))
        return util_xstrdup(arg);
    return slash ? util_xasprintf("%.*s", (int)(slash - arg) + (slash == arg), arg) : util_xstrdup(".");
}

/* A run directory or its run.json, checked (evidence_run_check: evidence
 * for report, which refuses invalid values that compare and history show
 * as no evidence). NULL with the error printed. */
static json_t *load_run(const char *arg, int evidence)
{
    char path[PATH_MAX];
    if (names_json(arg))
        snprintf(path, sizeof path, "%s", arg);
    else
        snprintf(path, sizeof path, "%s/run.json", arg);
    json_error_t je;
    json_t *run = fsutil_load_json(path, FSUTIL_CAP_RUN_JSON, &je);
    char err[UTIL_ERR_LEN];
    if (!run)
        json_load_error(path, &je);
    else if (evidence_run_check(run, evidence, err)) {
        fprintf(stderr, "loadbench: %s: %s\n", path, err);
        json_decref(run);
        run = NULL;
    } else {
        evidence_mark_invalid(run); /* compare and history: no evidence, named */
    }
    return run;
}

static int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"include-suspect", no_argument, 0, 'S'}, {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    static const char use[] = "usage: loadbench report [--include-suspect] RUN_DIR\n";
    int c, include_suspect = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'S': include_suspect = 1; break;
        case 'h': fputs(use, stdout); return 0;
        default: fputs(use, stderr); return 2;
        }
    }
    if (argc - optind != 1 || names_json(argv[optind])) { /* its outputs go beside run.json: the directory */
        fputs(use, stderr);
        return 2;
    }
    const char *dir = argv[optind];
    char err[UTIL_ERR_LEN];
    reap_dead(NULL, dir, 0); /* runlock hook (#18) */
    json_t *run = load_run(dir, 1);
    if (!run)
        return 2;
    if (include_suspect) /* in memory only: run.json is not written back */
        json_object_set_new(run, STATS_INCLUDE_SUSPECT, json_true());
    struct report_out ro;
    int rc = report_write(dir, run, &ro, err);
    json_decref(run);
    if (rc) {
        fprintf(stderr, "loadbench: %s\n", err);
        return 2;
    }
    fprintf(stderr, "loadbench: %s\n", ro.charts.note);
    if (ro.files_bad)
        fprintf(stderr, "loadbench: %d files the run recorded are missing or changed since it ran (summary.md's notes "
                        "name them)\n", ro.files_bad);
    printf("%s/summary.md\n%s/results.csv\n%s/stats.csv\n%s/report.html\n%s/charts/\n", dir, dir, dir, dir, dir);
    return 0;
}

static const char compare_usage[] =
    "usage: loadbench compare BASELINE_RUN CURRENT_RUN [options]\n"
    "       loadbench compare BASELINE_RUN... vs CURRENT_RUN... [options]\n"
    "  --threshold 10%   a significant change past this regresses (exit 1)\n"
    "  --paired          pair the sides' rows by run and repeat (interleaved A/B runs): signed-rank test\n"
    "  --junit FILE      also write JUnit XML\n"
    "  --tool LABEL      the compared tool, whose binary may differ (default lb-gen)\n"
    "  --control LABEL   the control generator for RPS ratios (default wrk, else lb-gen)\n"
    "  --allow-missing   a gated cell missing, failed, suspect or from a run not complete is\n"
    "                    shown but does not fail the gate (else exit 3)\n"
    "  --include-suspect suspect rows' figures count (kept out by default)\n";

/* One side of a comparison: the run directories in argv[0..n), merged. */
static json_t *load_side(char **argv, int n)
{
    json_t **runs = util_xcalloc((size_t)n, sizeof *runs), *side = NULL;
    int k = 0;
    while (k < n && (runs[k] = load_run(argv[k], 0)))
        k++;
    if (k == n) {
        char err[UTIL_ERR_LEN];
        side = compare_merge_runs(runs, (const char *const *)argv, (size_t)n, err);
        if (!side)
            fprintf(stderr, "loadbench compare: %s\n", err);
    }
    for (int i = 0; i < k; i++)
        json_decref(runs[i]);
    free(runs);
    return side;
}

static int compare_opts_parse(int argc, char **argv, struct compare_opts *co, const char **junit)
{
    static const struct option opts[] = {
        {"threshold", required_argument, 0, 't'}, {"junit", required_argument, 0, 'j'}, {"tool", required_argument, 0, 'T'},
        {"control", required_argument, 0, 'c'},   {"paired", no_argument, 0, 'p'},      {"help", no_argument, 0, 'h'},
        {"allow-missing", no_argument, 0, 'A'},   {"include-suspect", no_argument, 0, 'S'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "t:j:T:c:ph", opts, NULL)) != -1) {
        switch (c) {
        case 't': {
            double v;
            if ((parse_decimal(optarg, "%", &v) && parse_decimal(optarg, "", &v)) || v <= 0 || v >= 1000) {
                fprintf(stderr, "loadbench compare: --threshold \"%s\": give a decimal percentage above 0 and "
                                "below 1000, such as 10%%\n", optarg);
                return 2;
            }
            co->threshold = v / 100;
            break;
        }
        case 'j': *junit = optarg; break;
        case 'T': co->tool = optarg; break;
        case 'c': co->control = optarg; break;
        case 'p': co->paired = 1; break;
        case 'A': co->allow_missing = 1; break;
        case 'S': co->include_suspect = 1; break;
        case 'h': fputs(compare_usage, stdout); return 0;
        default: return 2;
        }
    }
    return -1;
}

/* BASE CURRENT, or BASE... vs CURRENT...: the sides' first argument and
 * count. Returns 0, or -1 when the positional arguments are neither. */
static int compare_sides(char **pos, int npos, char ***b, int *nb, char ***c, int *nc)
{
    int vs = -1, seen = 0;
    for (int i = 0; i < npos; i++)
        if (!strcmp(pos[i], "vs"))
            vs = i, seen++;
    if (!seen && npos == 2)
        vs = 1;
    else if (seen != 1 || vs < 1 || vs > npos - 2)
        return -1;
    *b = pos;
    *nb = vs;
    *c = pos + vs + seen;
    *nc = npos - vs - seen;
    return 0;
}

/* The run directories among compare's positional arguments (a run.json's
 * folder), NULL-ended, for the --junit check: an output never goes into a
 * run it reads. */
static const char **compare_run_dirs(char **pos, int npos)
{
    const char **d = util_xcalloc((size_t)npos + 1, sizeof *d);
    for (int i = 0, k = 0; i < npos; i++) {
        if (strcmp(pos[i], "vs"))
            d[k++] = run_dir_of(pos[i]);
    }
    return d;
}

static void compare_run_dirs_free(const char **d)
{
    for (size_t i = 0; d[i]; i++)
        free((char *)d[i]);
    free(d);
}

static int cmd_compare(int argc, char **argv)
{
    struct compare_opts co = {.threshold = 0.10};
    const char *junit = NULL;
    int rc = compare_opts_parse(argc, argv, &co, &junit);
    if (rc >= 0)
        return rc;
    char **bp, **cp;
    int nb, nc;
    if (compare_sides(argv + optind, argc - optind, &bp, &nb, &cp, &nc) < 0) {
        fprintf(stderr, "%s", compare_usage);
        return 2;
    }
    char err[UTIL_ERR_LEN] = "";
    const char **dirs = compare_run_dirs(argv + optind, argc - optind);
    if (junit && fsutil_output_check_outside(junit, dirs, "the compared run directory", err)) {
        fprintf(stderr, "loadbench compare: --junit %s\n", err);
        compare_run_dirs_free(dirs);
        return 2;
    }
    json_t *base = load_side(bp, nb), *cur = base ? load_side(cp, nc) : NULL;
    if (!base || !cur) {
        json_decref(base);
        compare_run_dirs_free(dirs);
        return 2;
    }
    char *jbuf = NULL;
    size_t jlen = 0;
    FILE *jf = junit ? open_memstream(&jbuf, &jlen) : NULL;
    rc = compare_runs(base, cur, &co, junit && !strcmp(junit, "-") ? stderr : stdout, jf, err);
    if (jf) {
        fclose(jf);
        char werr[UTIL_ERR_LEN];
        /* nothing written: bad input, no file */
        if (jlen && fsutil_write_output(junit, jbuf, dirs, "the compared run directory", werr)) {
            fprintf(stderr, "loadbench compare: --junit %s\n", werr);
            rc = 2;
        }
        free(jbuf);
    }
    compare_run_dirs_free(dirs);
    if (rc == COMPARE_EXIT_REGRESSED)
        fprintf(stderr, "loadbench compare: regressed: %s\n", err);
    else if (rc == COMPARE_EXIT_MISSING)
        fprintf(stderr, "loadbench compare: missing evidence: %s (--allow-missing to pass without it)\n", err);
    else if (rc == 2)
        fprintf(stderr, "loadbench compare: %s\n", err);
    json_decref(base);
    json_decref(cur);
    return rc;
}

static const char export_usage[] =
    "usage: loadbench export --format openmetrics|prometheus|csv [--no-timestamps] RUN_DIR\n"
    "Writes the run's headline figures to standard output: gauges and counters per row\n"
    "(labels tool, label, status, verdict, version) in OpenMetrics 1.0 or Prometheus' classic\n"
    "text format, each sample stamped with its row's start unless --no-timestamps\n"
    "(node_exporter's textfile collector and the Pushgateway refuse stamps), or a long CSV\n"
    "table, one line per row and metric.\n";

static int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, 0, 'f'},
                                         {"no-timestamps", no_argument, 0, 'n'},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *format = NULL;
    int c, timestamps = 1;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        if (c == 'f')
            format = optarg;
        else if (c == 'n')
            timestamps = 0;
        else if (c == 'h') {
            fputs(export_usage, stdout);
            return 0;
        } else {
            fputs(export_usage, stderr);
            return 2;
        }
    }
    int known = format && (!strcmp(format, "openmetrics") || !strcmp(format, "prometheus") || !strcmp(format, "csv"));
    if (!known || argc - optind != 1) {
        if (format && !known)
            fprintf(stderr, "loadbench export: unknown format \"%s\" (openmetrics, prometheus, csv)\n", format);
        fputs(export_usage, stderr);
        return 2;
    }
    json_t *run = load_run(argv[optind], 1);
    if (!run)
        return 2;
    if (!strcmp(format, "csv"))
        export_csv_long(stdout, run);
    else
        export_metrics_text(stdout, run, !strcmp(format, "openmetrics"), timestamps);
    json_decref(run);
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "loadbench export: cannot write to standard output\n");
        return 2;
    }
    return 0;
}

static const char history_usage[] =
    "usage: loadbench history [--out DIR] [--include-suspect] RUN_DIR...\n"
    "Each tool's headline metrics across the runs (nights, releases), oldest first, labelled\n"
    "with the tool's version: DIR/history.md (a table per metric), DIR/history.csv and\n"
    "DIR/charts/history_<metric>.png/.svg (gnuplot). DIR defaults to ./history.\n";

static int cmd_history(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'},
                                         {"include-suspect", no_argument, 0, 'S'}, {0, 0, 0, 0}};
    const char *out_dir = "history";
    int c, include_suspect = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out_dir = optarg; break;
        case 'S': include_suspect = 1; break;
        case 'h': fputs(history_usage, stdout); return 0;
        default: fputs(history_usage, stderr); return 2;
        }
    }
    int n = argc - optind;
    if (n < 1) {
        fputs(history_usage, stderr);
        return 2;
    }
    json_t **runs = util_xcalloc((size_t)n, sizeof *runs);
    int k = 0, rc = 2;
    while (k < n && (runs[k] = load_run(argv[optind + k], 0)))
        if (include_suspect) /* in memory only */
            json_object_set_new(runs[k++], STATS_INCLUDE_SUSPECT, json_true());
        else
            k++;
    if (k == n) {
        char err[UTIL_ERR_LEN];
        struct history_out ho;
        rc = 0;
        if (history_write(runs, (const char *const *)argv + optind, (size_t)n, out_dir, &ho, err)) {
            fprintf(stderr, "loadbench history: %s\n", err);
            rc = 2;
        } else {
            printf("loadbench history: %zu runs, %zu tools: %s/history.md, %s/history.csv; %s\n", ho.nruns, ho.nseries,
                   out_dir, out_dir, ho.charts.note);
        }
    }
    for (int i = 0; i < k; i++)
        json_decref(runs[i]);
    free(runs);
    return rc;
}

/* Machine facts as `doctor` prints them: JSON on stdout, each warning a
 * line on stderr. */
static void machine_print(const json_t *m)
{
    char *s = json_dumps(m, JSON_INDENT(2));
    printf("%s\n", s);
    free(s);
    json_t *w = json_object_get(m, "warnings"), *x;
    size_t i;
    json_array_foreach(w, i, x) fprintf(stderr, "warning: %s\n", json_string_value(x));
}

static int cmd_doctor(int argc, char **argv)
{
    const char *host, *profile, *results = NULL;
    if (host_opts("doctor", argc, argv, &host, &profile, &results))
        return 2;
    struct host_arg ha;
    int rc = host ? host_arg_open("doctor", host, profile, &ha) : 0;
    json_t *m = NULL;
    if (rc) {
        host_arg_free(&ha);
        return rc;
    }
    if (!host || ha.h->local) {
        if (!host)
            reap_dead(results ? results : "results", NULL, 0);
        m = machine_info();
    } else {
        m = host_arg_ask("doctor", &ha, host, host_arg_machine);
        rc = m ? 0 : 2;
    }
    if (m)
        machine_print(m);
    json_decref(m);
    if (host)
        host_arg_free(&ha);
    return rc;
}

static const char hosts_usage[] =
    "usage: loadbench hosts install NAME PROFILE.yaml\n"
    "       loadbench hosts install [USER@]HOST[:PORT]\n"
    "Copies this build (loadbench, lb-target, lb-gen and the adapters' support files) over ssh\n"
    "into ${XDG_CACHE_HOME:-~/.cache}/loadbench/VERSION-REV-SHA/ on the host (NAME of the\n"
    "profile's hosts:, or an ssh destination), where a run's agent is looked for first.\n"
    "Refuses a host of another architecture.\n";

static int cmd_hosts(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || strcmp(argv[1], "install") || argv[2][0] == '-') {
        fputs(hosts_usage, stderr);
        return 2;
    }
    struct host_arg ha;
    char err[UTIL_ERR_LEN], where[PATH_MAX];
    int rc = host_arg_open("hosts install", argv[2], argc == 4 ? argv[3] : NULL, &ha);
    if (rc == 0 && ha.h->local) {
        fprintf(stderr, "loadbench hosts install: %s is this machine (local): nothing to copy\n", argv[2]);
        rc = 2;
    } else if (rc == 0) {
        if (host_arg_install(&ha, where, err)) {
            fprintf(stderr, "loadbench hosts install: %s\n", err);
            rc = 2;
        } else {
            printf("%s\n", where);
        }
    }
    host_arg_free(&ha);
    return rc;
}

/* The far end of a remote executor (docs/agent-protocol.md): stdin and
 * stdout are the protocol, stderr says why it ended. */
static int cmd_agent(int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        fprintf(stderr, "usage: loadbench agent   (started by loadbench itself, through ssh)\n");
        return 2;
    }
    char err[UTIL_ERR_LEN];
    signal(SIGPIPE, SIG_IGN);
    if (guard_start(err))
        fprintf(stderr, "loadbench agent: warning: %s\n", err);
    if (proc_become_subreaper(err))
        fprintf(stderr, "loadbench agent: warning: %s\n", err);
    struct agent_opts o = {.in_fd = 0, .out_fd = 1, .stop = &stop_flag};
    int rc = agent_serve(&o, err);
    guard_stop();
    if (err[0])
        fprintf(stderr, "loadbench agent: %s\n", err);
    return rc;
}

/* The commands that take no getopt of their own: their usage, printed for
 * --help/-h anywhere among their arguments (stdout, exit 0), and an
 * option they do not know refused with it (stderr, exit 2), so that
 * "loadbench report --help" is never read as a run directory. */
static const struct {
    const char *cmd, *usage, *options; /* options: the ones it takes, as "--a --b" */
} plain_usage[] = {
    {"validate", "usage: loadbench validate PROFILE.yaml...\n"
                 "Checks each profile; errors as FILE:LINE:COL: message. Exit 2 if any is bad.\n", ""},
    {"plan", "usage: loadbench plan [--scale F] [PROFILE.yaml]\n"
             "Shows the resolved profile, each tool's generated config, argv and the time it\n"
             "will take; sends no load. Without a profile: the built-in quick profile.\n", "--scale"},
    {"report", "usage: loadbench report [--include-suspect] RUN_DIR\n"
               "Regenerates summary.md, results.csv, stats.csv, charts/ and report.html from\n"
               "RUN_DIR/run.json. Suspect rows' figures stay out of the statistics and charts\n"
               "unless --include-suspect.\n", "--include-suspect"},
    {"doctor", "usage: loadbench doctor [--results DIR]\n"
               "       loadbench doctor --host NAME PROFILE.yaml | --host [USER@]HOST[:PORT]\n"
               "Prints machine facts that distort benchmarks (JSON), with warnings on stderr;\n"
               "marks runs in DIR (default results) whose loadbench died abandoned and removes\n"
               "their cgroups. With --host: the facts of that machine, read by a loadbench agent\n"
               "over ssh (NAME: a host of the profile's hosts:; without a profile, an ssh\n"
               "destination). An unreachable host exits 2.\n", "--results --host"},
    {"tools", "usage: loadbench tools [--host NAME PROFILE.yaml | --host [USER@]HOST[:PORT]]\n"
              "Lists every adapter: found or not, version, load models, path or how to get it.\n"
              "With --host: as found on that machine, by a loadbench agent over ssh.\n", "--host"},
    {"hosts", hosts_usage, ""},
};

/* 0: go on; otherwise the exit code (help printed, or an unknown option). */
static int plain_help(const char *cmd, int argc, char **argv)
{
    for (size_t i = 0; i < sizeof plain_usage / sizeof plain_usage[0]; i++) {
        if (strcmp(cmd, plain_usage[i].cmd))
            continue;
        for (int a = 1; a < argc && strcmp(argv[a], "--"); a++)
            if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
                fputs(plain_usage[i].usage, stdout);
                return -1;
            }
        for (int a = 1; a < argc; a++) {
            if (argv[a][0] != '-' || !argv[a][1])
                continue;
            if (!strcmp(argv[a], "--"))
                break;
            const char *o = strstr(plain_usage[i].options, argv[a]);
            size_t n = strlen(argv[a]);
            if (o && (o[n] == ' ' || !o[n]) && (o == plain_usage[i].options || o[-1] == ' ')) {
                a++; /* its value */
                continue;
            }
            fprintf(stderr, "loadbench %s: unknown option \"%s\"\n", cmd, argv[a]);
            fputs(plain_usage[i].usage, stderr);
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "run") || !strcmp(argv[1], "agent"))
        catch_stop_signals();
    const char *cmd = argv[1];
    int hrc = plain_help(cmd, argc - 1, argv + 1);
    if (hrc)
        return hrc < 0 ? 0 : hrc;
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "validate"))
        return cmd_validate(argc - 1, argv + 1);
    if (!strcmp(cmd, "plan"))
        return cmd_plan(argc - 1, argv + 1);
    if (!strcmp(cmd, "tools"))
        return cmd_tools(argc - 1, argv + 1);
    if (!strcmp(cmd, "hosts"))
        return cmd_hosts(argc - 1, argv + 1);
    if (!strcmp(cmd, "report"))
        return cmd_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare"))
        return cmd_compare(argc - 1, argv + 1);
    if (!strcmp(cmd, "export"))
        return cmd_export(argc - 1, argv + 1);
    if (!strcmp(cmd, "history"))
        return cmd_history(argc - 1, argv + 1);
    if (!strcmp(cmd, "doctor"))
        return cmd_doctor(argc - 1, argv + 1);
    if (!strcmp(cmd, "agent"))
        return cmd_agent(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("loadbench %s (%s, %s)\ncharts %s\nschema %d\n", LB_VERSION, LB_GIT_REV, LB_BUILD_TYPE, LB_CHARTS_HASH,
               LB_SCHEMA_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "loadbench: unknown command \"%s\"\n", cmd);
    usage(stderr);
    return 2;
}
