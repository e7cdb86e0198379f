/* adapter: what loadbench knows about one load-testing tool.
 *
 * An adapter is a const table of functions (see adapters/registry.c for the
 * list). It finds the tool, says what it can express, writes the tool's own
 * config from the profile, gives the argv, and reads the tool's own
 * machine-readable output into the common client result. An adapter that
 * cannot express part of a profile says so in plan->warnings, never
 * silently. */
#ifndef LB_ADAPTER_H
#define LB_ADAPTER_H

#include "spec/profile.h"
#include "common/strbuf.h"

#include <jansson.h>
#include <stdint.h>

/* Capability bits. */
#define ADAPTER_CLOSED 0x1   /* fixed connections/VUs */
#define ADAPTER_OPEN 0x2     /* arrivals on a timetable independent of responses */
#define ADAPTER_PACED 0x4    /* a closed loop slowed to a rate */
#define ADAPTER_RAMP 0x8     /* follows stages over time */
#define ADAPTER_POISSON 0x10 /* open loads with Poisson arrivals on request (load.arrivals: poisson) */
#define ADAPTER_POISSON_ONLY 0x20 /* its open loads' arrivals are always Poisson (Tsung): judged so */
#define ADAPTER_TLS 0x40     /* HTTPS (target.tls): ctx->url is https:// */
#define ADAPTER_H2 0x80      /* HTTP/2 over TLS (target.protocol: h2) */
#define ADAPTER_H2C 0x100    /* HTTP/2 with prior knowledge (target.protocol: h2c) */
#define ADAPTER_NOKEEPALIVE 0x200 /* a new connection per request (load.keepalive: off) */
#define ADAPTER_CHECK 0x400  /* checks every response's status (check: {status: N}) as its users write it */
#define ADAPTER_POST 0x800   /* sends request: {method: POST, body: SIZE}, the body exactly SIZE bytes */

struct adapter_found {
    char path[1024];        /* absolute path of the binary run */
    char version[128];      /* as the tool reports it */
};

/* What prepare() gets: the one load this run applies, and where. */
struct adapter_ctx {
    const struct profile *profile;
    const struct profile_tool *tool;
    const struct profile_load *load;    /* the tool's load, sweep level applied */
    const struct adapter_found *found;
    const char *dir;                    /* the tool run's directory (absolute; the tool's cwd) */
    const char *host;                   /* "127.0.0.1" */
    int port;
    const char *url;                    /* "http://127.0.0.1:PORT/" ("https://" with target.tls) */
    const char *ca_file;                /* target.tls: the run's CA certificate (PEM) to verify the
                                         * target against; NULL: plain TCP */
    uint64_t tool_cpus;                 /* the CPU set the tool is pinned to (0 = all) */
    unsigned instance, instances;       /* this process's place in a tool run of several
                                         * (adapters/group.h): instance of instances; 0 of 1 alone */
    int group_port;                     /* several processes of a master's tool: a free TCP port on
                                         * group_host where the workers meet the master; 0 otherwise */
    const char *group_nonce;            /* a master's tool: a secret of this tool run (32 hex digits)
                                         * given to the workers loadbench starts, so that the master
                                         * tells them from any other that joins; NULL otherwise */
    const char *group_host;             /* where a master or engines listen and the group's other
                                         * processes reach them (adapters/group.h); NULL: 127.0.0.1 */
    const int *engine_ports;            /* several processes of a controller's tool: instances free TCP
                                         * ports on group_host, engine k (process k, 1..instances) listening
                                         * on engine_ports[k - 1]; NULL otherwise */
};

/* What prepare() decides. */
struct adapter_plan {
    struct strvec argv;
    struct strvec env;                  /* extra NAME=value for the tool's clean environment */
    struct strvec files;                /* configs written into dir (names relative to dir) */
    struct strvec warnings;             /* what the tool could not express, how it was approximated */
    const char *model;                  /* as run: "closed", "paced" or "open" */
    uint64_t load_ns;                   /* the load duration the tool will apply */
    uint64_t startup_allowance_ns;      /* start-up time to add to the deadline (JVM, node) */
    json_t *settings;                   /* runtime settings that change results (heap, GC, threads) */
    int ready_port;                     /* > 0: the process is ready once it accepts TCP connections on
                                         * this port of ctx->host; the group's later processes start
                                         * only then (Locust's workers, which never reach a master
                                         * that was not yet listening when they started) */
    struct profile_load *as_run;        /* the load really applied when it differs from ctx->load
                                         * (a tool without ramps runs only the hold phase), so
                                         * windows are placed right; NULL = ctx->load. Freed with
                                         * the plan; set it with adapter_plan_constant(). */
};

/* The tool's own account of its run. Latencies in ms; NAN = the tool does
 * not report it (absent stays absent, never 0). */
struct adapter_latency {
    double min, mean, p50, p90, p95, p99, p999, max;
};

struct adapter_result {
    int parsed;                 /* 1 when the tool's output was read */
    uint64_t requests;          /* requests the tool counts as completed (any status) */
    uint64_t ok;                /* 2xx/3xx as the tool counts success */
    uint64_t errors;            /* total errors of all kinds */
    uint64_t err_connect, err_read, err_write, err_timeout, err_status, err_other;
    double duration_s;          /* the tool's own duration, NAN if none */
    double rps;                 /* the tool's own rate, NAN if none */
    struct adapter_latency lat;
    struct adapter_latency lat_uncorrected;     /* open model: from actual send; NAN when n/a */
    uint64_t scheduled, dropped, late;          /* open model schedule figures (0 when n/a) */
    uint64_t bytes_read;
    uint64_t check_failed;      /* check: responses that failed the profile's status check, as the tool
                                 * counts them (also in errors, as status errors) */
    int lat_merged;             /* several instances: 0 one process (the tool's own figures), 1 merged
                                 * exactly from their distributions, -1 percentiles are bounds (each
                                 * the highest instance's; lat_low the lowest's) */
    struct adapter_latency lat_low;
    json_t *extra;              /* tool-specific figures kept as they are (may be NULL) */
    uint64_t load_start_unix_ms, load_end_unix_ms;  /* the tool's own marks of its load (wall clock ms;
                                 * 0: none): after load_end its processes do other work, which
                                 * after_load names (Gatling: its report); the engine splits the
                                 * footprint there */
    const char *after_load;     /* a static string, or NULL */
    struct strvec warnings;     /* the tool's own warnings */
    char *fail_reason;          /* set: the result is not what the row claims (e.g. a process
                                 * loadbench did not start took part): the row fails with it,
                                 * its figures kept */
};

void adapter_result_init(struct adapter_result *r);
void adapter_result_free(struct adapter_result *r);

/* How `instances: N` runs a tool (adapters/group.h). */
enum adapter_spread {
    ADAPTER_SPREAD_COPIES = 0,      /* N copies, each given its share of the load
                                     * (profile_load_share); results summed */
    ADAPTER_SPREAD_SEGMENTS,        /* N processes given the whole load: each takes its own share
                                     * from ctx->instance of ctx->instances (k6's execution
                                     * segments); results summed */
    ADAPTER_SPREAD_MASTER,          /* process 0 a master that sends no load and holds the
                                     * results, 1..N workers (Locust) */
    ADAPTER_SPREAD_ENGINES,         /* process 0 a controller that sends no load and holds the
                                     * results, 1..N engines: servers started first, each ready once
                                     * it listens on its ready_port, then the controller, which hands
                                     * them the test and collects their samples (JMeter's remote
                                     * engines); each engine's share of the load is its own */
    ADAPTER_SPREAD_INTERNAL,        /* one process whose tool runs the N instances itself, all on
                                     * this machine, inside its own process tree (Tsung's controller
                                     * and its N client VMs): ctx->instances is N, one result */
};

struct adapter {
    const char *name;               /* as written in profiles */
    const char *description;
    const char *install_hint;       /* one line: how to get the tool */
    unsigned caps;
    const char *tls_how;            /* with ADAPTER_TLS: what the tool does with the certificate
                                     * ("verifies against the run's CA (--cacert)", "does not verify
                                     * (...)"), shown by `loadbench tools` and in each row */
    int tls_verifies;               /* 1: the tool verifies the certificate against ctx->ca_file */
    const char *tls_library;        /* with ADAPTER_TLS: the TLS library its requests go through
                                     * ("OpenSSL 3 (libssl.so.3)", "Go's crypto/tls", "rustls"): over
                                     * TLS a latency and a CPU figure are the library's as much as
                                     * the tool's; in each row and its "what each latency measures" */
    const char *no_h2_why;          /* why the tool cannot speak HTTP/2, when the reason is the
                                     * tool's ("JMeter core has no HTTP/2 client"); NULL: generic */
    const char *check_how;          /* with ADAPTER_CHECK: how the tool checks each response's status
                                     * ("k6 check() on every response"), shown by `loadbench tools` */
    const char *no_check_why;       /* without ADAPTER_CHECK: why, when the reason is the tool's
                                     * (for the validate refusal); NULL: generic */
    const char *post_how;           /* with ADAPTER_POST: how the tool sends the body ("-m POST -D
                                     * FILE"), shown by `loadbench tools` */
    const char *no_post_why;        /* without ADAPTER_POST: why, when the reason is the tool's
                                     * (for the validate refusal); NULL: generic */
    const char *const *parse_files; /* the files parse() reads from the run directory, main one
                                     * first (NULL-terminated): fuzz/fuzz_parsers.c feeds them */
    const char *latency_measures;   /* from which event to which */
    double latency_resolution_ms;   /* smallest step the tool reports */
    int latency_digits;             /* significant digits it keeps, so its step grows with the value
                                     * (Locust: 2, 10 ms steps from 100 ms, 100 ms from 1 s); 0: all */
    double latency_rounding_pct;    /* how far a reported latency may sit below the value it
                                     * rounds, in % of it (Locust keeps two significant digits
                                     * from 100 ms up: 1149 -> 1100, up to 5 %); 0: no more than
                                     * the bounds check's own 2 % */
    const char *versions;           /* the versions run here by the tests ("live") and those checked
                                     * against their sources only ("by source"), one line, or NULL */
    const char *const *options;     /* option keys the adapter accepts (NULL-terminated), or NULL */
    enum adapter_spread spread;     /* how instances: N runs it */
    const char *spread_note;        /* with instances > 1: what the mode changes in what is
                                     * measured (a plan warning), or NULL */
    int bin_is_toolchain;           /* 1: a profile's bin: names the toolchain or interpreter the
                                     * tool is built or run with, whose absence is a skipped row
                                     * like a tool not installed; 0: bin: is the tool itself, and
                                     * run refuses to start when it is missing */
    /* Find the tool (bin overrides the lookup). Returns 0 with found
     * filled, or -1 with err saying what is missing and how to get it. */
    int (*detect)(const char *bin, struct adapter_found *found, char *err);
    /* Write the tool's config into ctx->dir and fill plan. Returns 0 or -1
     * with err filled. */
    int (*prepare)(const struct adapter_ctx *ctx, struct adapter_plan *plan, char *err);
    /* Read the tool's output from ctx->dir. Returns 0 with r->parsed set,
     * or -1 with err saying what was missing or malformed. */
    int (*parse)(const struct adapter_ctx *ctx, struct adapter_result *r, char *err);
    /* Optional: merge the full latency distributions several instances
     * left in dirs[0..n) into lat, exactly (min, mean, percentiles, max).
     * Returns 0, or -1 with err (the merge then falls back to bounds). */
    int (*merge_latency)(const char *const *dirs, size_t n, struct adapter_latency *lat, char *err);
    /* Optional: each response the tool timed, from the raw samples it left
     * in dir (any order): fn(arg, its start in ns since the epoch, its
     * latency in the tool's own unit (samples_unit_ns), and how
     * many responses had it: 1 for a sample per request). Returns 0, or -1
     * with err. harness/engine/toollog.c makes the row's HdrHistogram
     * interval log of them. */
    int (*samples)(const char *dir, void (*fn)(void *arg, int64_t t_unix_ns, uint64_t latency, uint64_t count),
                   void *arg, char *err);
    /* 0: samples() gives each request's start. Else the tool's own
     * intervals: t is the start of the interval (this long) the responses
     * completed in, and each is one interval of the log (lb-gen: 1 s). */
    uint64_t samples_period_ns;
    /* The unit of samples()' latencies in ns; 0: latency_resolution_ms's. */
    uint64_t samples_unit_ns;
};

/* Every adapter, NULL-terminated, in the order `loadbench tools` lists them. */
extern const struct adapter *const adapter_registry[];

/* The adapter named name, or NULL. */
const struct adapter *adapter_by_name(const char *name);

/* A tool the field compares that loadbench cannot run here: its name and
 * why, with what a user would install. */
struct adapter_unrunnable {
    const char *name;
    const char *why;
};

/* Those tools, {NULL, NULL}-terminated, listed after the adapters. */
extern const struct adapter_unrunnable adapter_unrunnable[];

/* Every adapter's detection here, in registry order (what `loadbench
 * tools` lists, and the agent's `tools` reply): [{"tool", "found" (bool),
 * "version" and "path" when found, "models" (e.g. "closed paced"),
 * "install_hint", "versions" when the adapter states them}], then one
 * {"tool", "found": false, "unrunnable": why, "models": "", "install_hint":
 * why} per adapter_unrunnable. Returns a new reference. */
json_t *adapter_detect_all(void);

void adapter_plan_init(struct adapter_plan *p);

/* With target.tls (ctx->ca_file set): record in p->settings whether the
 * tool verified the certificate and how (a->tls_verifies, a->tls_how). */
void adapter_plan_tls(struct adapter_plan *p, const struct adapter *a, const struct adapter_ctx *ctx);

/* Record that the tool applies one constant stage of level for
 * duration_ns (model as in load) instead of the profile's load. */
void adapter_plan_constant(struct adapter_plan *p, const struct profile_load *load, double level, uint64_t duration_ns);
void adapter_plan_free(struct adapter_plan *p);

/* Helpers for adapters. */

/* Find name on PATH (or accept an explicit path). Returns 0 with out filled
 * (absolute), or -1. */
int adapter_which(const char *name, char *out, size_t outlen);

/* Run argv (no shell) with a 10 s limit and capture its stdout+stderr
 * (at most outlen-1 bytes). Returns the exit status (0-255), or -1. */
int adapter_capture(const char *const *argv, char *out, size_t outlen);

/* The same with in_fd as its stdin (-1: /dev/null), e.g. a file sent
 * through `ssh HOST 'cat > FILE'`. */
int adapter_capture_in(const char *const *argv, int in_fd, char *out, size_t outlen);

/* The Debian version of package (dpkg-query), for tools without a usable
 * version flag, into found->version. Returns 0, or -1 (version untouched)
 * when the package is not installed or dpkg-query fails. */
int adapter_dpkg_version(const char *package, struct adapter_found *found);

/* The profile's string option key for the tool (tool.options), or NULL
 * when absent or not a string. */
const char *adapter_option(const struct adapter_ctx *c, const char *key);

/* Read a whole file into a heap string (NUL-terminated), through
 * fsutil_open_input (a FIFO, a link or a device is refused; with dir,
 * fsutil_open_input_beneath: name may have several components, none of
 * them a link, none leading out of dir). Returns NULL
 * with err filled when missing, refused or unreadable; a file over
 * max_bytes is refused whole ("is N bytes, over the M-byte limit"), never
 * read in part. */
char *adapter_slurp(const char *dir, const char *name, size_t max_bytes, char *err);

/* n TCP ports free on 127.0.0.1 now, all different (each held until all
 * are found), for a master and its workers to meet on, engines to listen
 * on or a run's own epmd (another process may take one before the tool
 * binds it: the run then fails with the tool's own message). Returns 0,
 * or -1 with err. */
int adapter_free_ports(int *ports, size_t n, char *err);

/* nbytes (at most 64) random bytes as 2 * nbytes hex digits and a NUL in
 * out: a run's nonce, a keystore's password. Returns 0, or -1 with err. */
int adapter_random_hex(char *out, size_t nbytes, char *err);

/* Split one CSV line in place into at most max fields (RFC 4180: a field
 * holding a comma or a quote is quoted, inner quotes doubled; no newline
 * inside a field), the line's end dropped. Returns the field count. The
 * one CSV reader of the adapters (JMeter's JTL, Vegeta's results). */
int adapter_csv_split(char *line, char **f, int max);

/* Write a file into dir. Returns 0 or -1 with err. */
int adapter_write(const char *dir, const char *name, const char *text, char *err);

/* adapter_write, and name listed in p->files (the row's configs). */
int adapter_write_config(const char *dir, const char *name, const char *text, struct adapter_plan *p, char *err);

/* request: POST: the body every request carries, a file of the profile's
 * request.body_bytes bytes of 'x', sent as ADAPTER_BODY_TYPE. */
/* The TLS library of the Node tools (autocannon, Artillery): Node's own
 * OpenSSL, the version this machine's Node bundles. */
#define ADAPTER_NODE_TLS_LIBRARY "OpenSSL 3 bundled in Node (3.0.19 in Node 20.20.2 here, statically linked)"
#define ADAPTER_BODY_FILE "body.bin"
#define ADAPTER_BODY_TYPE "application/octet-stream"

/* With the profile's request: POST, write ADAPTER_BODY_FILE into c->dir
 * (listed in p->files). Returns 1 when written, 0 for a GET (nothing
 * written), -1 with err. */
int adapter_body_file(const struct adapter_ctx *c, struct adapter_plan *p, char *err);

/* The number under key of JSON object o, or NAN when absent or not a
 * number (o may be NULL). */
double adapter_json_num(json_t *o, const char *key);

/* What the count helpers below give for a negative number: a count no
 * run can reach, so adapter_parse's bounds check refuses the result (and
 * sums of a few such counts neither wrap nor fall back into bounds). */
#define ADAPTER_COUNT_NEGATIVE (1ull << 60)

/* The largest count a tool may report (2^53: exact in a double, and beyond
 * any run: a million requests a second for 285 years). */
#define ADAPTER_COUNT_MAX (1ull << 53)

/* The number under key of o rounded to a whole count; 0 when absent or not
 * a number, ADAPTER_COUNT_NEGATIVE when negative or at least 2^60 (past
 * 2^64 included: never an undefined cast), so that adapter_parse refuses
 * the result. The one reader of a tool's JSON counts. */
uint64_t adapter_json_count(json_t *o, const char *key);

/* The JSON integer under key of o when it is >= 0; 0 when absent or not a
 * number; ADAPTER_COUNT_NEGATIVE (refused by adapter_parse) when negative
 * or not an integer: for tools whose counts are always JSON integers
 * (lb-gen, the reference generators), where 1e300 is a broken summary, not
 * a missing field. */
uint64_t adapter_json_uint(json_t *o, const char *key);

/* Run a's parser (a->parse) on the tool run ctx describes, then hold its
 * result to physical bounds, one check for every adapter: counts at most
 * ADAPTER_COUNT_MAX (a negative count read as unsigned lands above it);
 * every latency absent (NAN) or finite, >= 0 and below a day, in order
 * (min <= p50 <= p90 <= p95 <= p99 <= p99.9 <= max, mean within [min, max],
 * allowing the tool's resolution and 2 % of rounding, or the adapter's
 * latency_rounding_pct where larger); duration and rate
 * absent or finite and >= 0. Returns 0 with r->parsed set, or -1 with err
 * saying what was unparseable or impossible (r->parsed is then 0, so no
 * client figures are reported). */
int adapter_parse(const struct adapter *a, const struct adapter_ctx *ctx, struct adapter_result *r, char *err);

/* The bounds check of adapter_parse alone, on a result r of a tool whose
 * latency resolution is resolution_ms and whose rounding may take a value
 * rounding_pct % below the true one. Returns 0, or -1 with err. */
int adapter_result_check(const struct adapter_result *r, double resolution_ms, double rounding_pct, char *err);

/* A JSON string of free text from a tool or the system (a reason, a
 * warning, a version, a path), which may hold any bytes: valid UTF-8 is
 * kept as it is, every byte that is not is written as the four characters
 * \xHH, so the text is never dropped (jansson refuses invalid UTF-8).
 * NULL gives JSON null. Returns a new reference. */
json_t *adapter_json_text(const char *s);

/* The directory holding the running loadbench binary's siblings (lb-gen),
 * found from /proc/self/exe. */
const char *adapter_bindir(void);

/* The project's data directory (adapters/ helper files such as wrk's Lua
 * hook): $LOADBENCH_DATA, else next to the binary's source tree, else the
 * installed share/loadbench. */
const char *adapter_datadir(void);

/* The tools folders scripts/install-tools installs the registry tools into
 * (bin/, npm/, venv/, jmeter/, ...), in the order loadbench looks in them:
 * $LB_TOOLS_DIR when set, /opt/loadbench-tools (root's default), then
 * ${XDG_DATA_HOME:-$HOME/.local/share}/loadbench/tools (everyone else's).
 * NULL-terminated; the strings live as long as the process. */
const char *const *adapter_tools_dirs(void);

/* The first tools folder holding rel (a file, e.g. "bin/vegeta"), as
 * DIR/rel into out. Returns 0, or -1 (out then names the first folder's,
 * for a message). */
int adapter_tools_file(const char *rel, char *out, size_t outlen);

#endif
