/* profile: a YAML benchmark profile, validated, with units resolved.
 *
 * Every error names the place: "FILE:LINE:COLUMN: what is wrong (hint)".
 * The schema is documented in docs/profiles.md. */
#ifndef LB_PROFILE_H
#define LB_PROFILE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

enum load_model { LOAD_CLOSED, LOAD_OPEN };

struct profile_stage {
    uint64_t duration_ns;
    double target;          /* connections/VUs (closed) or arrivals per second (open) */
};

struct profile_load {
    enum load_model model;
    struct profile_stage *stages;   /* at least one; a constant load is one stage */
    size_t nstages;
    int ramped;                     /* 1 when written as stages (a ramp from 0 to the first target) */
    uint64_t max_inflight;          /* open model: cap on in-flight requests/connections; 0 = tool default */
    uint64_t request_timeout_ns;    /* per request; 0 = tool default */
    int poisson;                    /* open model: arrivals: poisson (random gaps) instead of a timetable */
    uint64_t arrivals_seed;         /* ... drawn from this seed (arrivals_seed, default 1) */
    int no_keepalive;               /* keepalive: off - a new connection for every request */
    double *sweep;                  /* sweep levels (connections or rates), or NULL */
    size_t nsweep;
};

/* target.delay as a distribution and target.stall: lb-target's latency
 * shape (see targets/README.md). dist NULL: the fixed target.delay. */
struct profile_shape {
    const char *dist;               /* NULL, "lognormal", "exponential" or "uniform" (static strings) */
    uint64_t p50_ns, p99_ns;        /* lognormal */
    uint64_t mean_ns;               /* exponential */
    uint64_t min_ns, max_ns;        /* uniform */
    uint64_t seed;                  /* the draws' seed (default 1: every tool sees the same delays) */
    uint64_t stall_every_ns;        /* 0: no stalls */
    uint64_t stall_for_ns;
};


/* One machine of the profile's hosts: map, reached over SSH (or this one). */
struct profile_host {
    char *name;
    int local;                      /* 1: `local`, the machine running loadbench run */
    char *user;                     /* SSH user, or NULL: ssh's default */
    char *ssh_host;                 /* SSH host name or address (NULL when local) */
    unsigned port;                  /* SSH port; 0: ssh's default */
    char *address;                  /* the load (data network) address, or NULL: ssh_host */
    int line, col;                  /* where the entry is */
};

/* The most instances one tool entry may run: more processes than a few
 * machines' cores measure the scheduler, not the tool. */
#define PROFILE_MAX_INSTANCES 64

/* name: and each label: in bytes (UTF-8 is welcome). Files and folders are
 * named after them: the run directory "<UTC stamp>-<name>", and for a label
 * "<label>[@level][#repeat]" with suffixes up to ".machine.csv", a chart's
 * "ts_" and a temporary file's ".tmp.<pid>" — all well inside NAME_MAX
 * (255) at these lengths, so no name is ever cut. */
#define PROFILE_NAME_MAX 128
#define PROFILE_LABEL_MAX 128

/* How a sweep level is written in the names of its runs' folders and
 * files ("wrk@100"): two levels written alike are refused as duplicates. */
#define PROFILE_LEVEL_FMT "%.10g"

/* Durations: any one written in a profile, and the sum of a load's stages,
 * at most 7 days; the load of the whole run (every tool run at every
 * level and repeat, plus the cooldowns) at most 30 days. Past these a
 * value is a typo, and the sums stay far from wrapping past 2^64. */
#define PROFILE_DURATION_MAX_NS (7ull * 86400 * 1000000000ull)
#define PROFILE_RUN_MAX_NS (30ull * 86400 * 1000000000ull)

/* target.protocol: what the tools must speak (lb-target gets --http2 for
 * h2 and h2c). */
enum profile_protocol { PROFILE_H1, PROFILE_H2, PROFILE_H2C };

/* target.tls: {version: 1.3|1.2, key: ecdsa|rsa, resumption: on|off}. */
struct profile_tls {
    int version;                    /* 0: no TLS; 12 or 13 */
    int key_rsa;                    /* 1: RSA 2048; 0: ECDSA P-256 */
    int no_resumption;              /* 1: resumption: off */
};

/* check: {status: 200}: what every response must be, checked by each tool
 * the way its users write it (k6 check(), a JMeter Response Assertion,
 * Gatling's check(status.is()), ...). A map so that more checks can come. */
struct profile_check {
    int status;                     /* 100-599: every response must have this status; 0 = no check */
    int line, col;                  /* where check: is */
};

/* request: {method: POST, body: 1KiB}: the request every tool sends. A
 * POST carries a body of exactly body_bytes bytes; lb-target counts the
 * bodies of another length (--expect-body). */
struct profile_request {
    int post;                       /* 1: POST with a body; 0: GET (the default) */
    uint64_t body_bytes;            /* with post: the body's size, PROFILE_BODY_MIN-PROFILE_BODY_MAX */
    int line, col;                  /* where request: is */
};

/* A POST body: 1 byte to 1 MiB (lb-target's default --max-body). */
#define PROFILE_BODY_MIN 1ull
#define PROFILE_BODY_MAX (1ull << 20)

struct profile_tool {
    char *tool;                     /* adapter name: lb-gen, wrk, k6, ... */
    char *label;                    /* unique per profile; defaults to tool */
    char *bin;                      /* explicit binary, or NULL for the adapter's lookup */
    struct profile_load *load;      /* per-tool load override, or NULL */
    json_t *options;                /* adapter-specific options object (never NULL) */
    uint64_t memory_limit_bytes;    /* 0 = none */
    uint64_t timeout_ns;            /* extra time beyond the load before the deadline; 0 = profile grace */
    unsigned instances;             /* processes sending the load (1-PROFILE_MAX_INSTANCES): the tool's
                                     * distributed mode, or copies with the load split */
    int line, col;                  /* where the entry is, for adapter option errors */
    int label_line, label_col;      /* where its label: is (the entry's place when it has none) */
    char *host;                     /* the hosts: entry it runs on (the first of several), or NULL:
                                     * this machine; hosts[0], not owned */
    char **hosts;                   /* host: as written, one entry or a list (1 to instances of
                                     * them, owned); NULL with nhosts 0 */
    unsigned nhosts;
    /* target: {tls:, protocol:, delay:}, request: and check: written in the entry
     * itself: each one it writes (a bit of own) replaces the profile's for
     * this entry only; see profile_entry_view. */
    unsigned own;                   /* PROFILE_OWN_* */
    struct profile_tls tls;         /* with PROFILE_OWN_TLS (version 0: tls: off) */
    enum profile_protocol protocol; /* with PROFILE_OWN_PROTOCOL */
    struct profile_request request; /* with PROFILE_OWN_REQUEST */
    struct profile_check check;     /* with PROFILE_OWN_CHECK (status 0: check: off) */
    uint64_t delay_ns;              /* with PROFILE_OWN_DELAY: a fixed delay in place of the profile's
                                     * (fixed or drawn; its target.stall kept) */
};

#define PROFILE_OWN_TLS 1u
#define PROFILE_OWN_PROTOCOL 2u
#define PROFILE_OWN_REQUEST 4u
#define PROFILE_OWN_CHECK 8u
#define PROFILE_OWN_DELAY 16u


/* "h1", "h2" or "h2c". */
const char *profile_protocol_name(enum profile_protocol p);

struct profile {
    char *path;
    char *name;
    char *description;
    struct {
        uint64_t delay_ns;
        struct profile_shape shape; /* a drawn delay, stalls */
        uint64_t work_ns;           /* CPU per request on the target: a CPU-bound backend */
        uint64_t body_bytes;
        unsigned threads;
        enum profile_protocol protocol;  /* target.protocol: h1 (default), h2 (over TLS), h2c */
        struct profile_tls tls;          /* target.tls; version 0: plain TCP */
    } target;
    char *target_host;              /* the hosts: entry lb-target runs on, or NULL: this machine */
    struct profile_host *hosts;     /* the hosts: map (nhosts 0: everything on this machine) */
    size_t nhosts;
    struct profile_load load;
    struct profile_check check;     /* check: (status 0: none) */
    struct profile_request request; /* request: (post 0: GET, no body) */
    struct profile_tool *tools;
    size_t ntools;
    uint64_t sample_interval_ns;
    unsigned repeat;
    uint64_t cooldown_ns;
    uint64_t grace_ns;
    uint64_t target_cpus;           /* bitmask; 0 = not pinned */
    uint64_t tool_cpus;             /* bitmask; 0 = not pinned */
    int target_cpus_pos[2], tool_cpus_pos[2];   /* line, column of cpus.target and cpus.tool */
    double scale;                   /* durations multiplied by this (run --scale); 1 = as written */
    struct profile_quiet {          /* the quiet gate before each tool run (docs/reports.md) */
        double busy_below_pct;      /* the machine's CPU outside loadbench, % of all its CPUs: the gate's
                                     * bar, and a run's bar for "disturbed" */
        uint64_t wait_max_ns;       /* how long the gate may wait; 0 = no wait (quiet: off) */
        uint64_t interval_ns;       /* one reading per interval; two in a row below the bar pass */
    } quiet;
};

/* The shape as run.json records it: {"dist", parameters in ns, "seed"}
 * and/or "stall": {"every_ns","for_ns"}. Returns a new object, or NULL when
 * the shape is the fixed delay without stalls. */
json_t *profile_shape_json(const struct profile_shape *s);

/* The quiet gate's defaults: 10 %, 30 s, 1 s. */
#define PROFILE_QUIET_BUSY_PCT 10.0
#define PROFILE_QUIET_WAIT_NS 30000000000ull
#define PROFILE_QUIET_INTERVAL_NS 1000000000ull

/* --only's list: labels and shell globs ("fnmatch"), comma-separated
 * ("wrk,k6", "*-sat"). 1 when it selects label (only NULL: every entry
 * is selected). */
int profile_only_selects(const char *only, const char *label);

/* Each name of the list only selects at least one tool entry of p.
 * Returns 0, or -1 with err naming the first that selects none. */
int profile_only_check(const struct profile *p, const char *only, char *err);

/* Load and validate the profile at path. Returns a profile, or NULL with err
 * (UTIL_ERR_LEN bytes) set to "path:line:col: message". */
struct profile *profile_load_file(const char *path, char *err);

/* The same from a string already in memory (name used in messages). */
struct profile *profile_load_string(const char *name, const char *text, size_t len, char *err);

void profile_free(struct profile *p);

/* Multiply every load duration (stages of the profile's and the tools' own
 * loads) and the cooldown by factor, for a quick look at a long profile
 * (`loadbench run --scale 0.1`). A stage never drops below 1 s, so tools that
 * take whole seconds still run it. Returns 0, or -1 with err set when the
 * factor is not in (0, 1]. The factor is recorded in profile_to_json. */
int profile_scale(struct profile *p, double factor, char *err);

/* The hosts: entry called name, or NULL (also for name NULL: this machine). */
const struct profile_host *profile_host_by_name(const struct profile *p, const char *name);
/* 1 when hosts a and b (NULL: the controller) are the same machine: the
 * same entry, or the controller and a local: entry. */
int profile_hosts_same_machine(const struct profile_host *a, const struct profile_host *b);

/* The hosts: entry instance i (0-based) of t runs on: hosts[i % nhosts],
 * instances dealt out round-robin in the order written; NULL without
 * host: (this machine). A master or controller that sends no load runs
 * where instance 0 does (adapters/group.h). */
const char *profile_tool_host(const struct profile_tool *t, unsigned instance);

/* Where load for a process on h is sent: its address:, else its SSH host,
 * else (local, or h NULL) 127.0.0.1. */
const char *profile_host_load_address(const struct profile_host *h);

/* h's SSH destination as written in the profile ("user@host:port", or
 * "local"; "local" also for h NULL), into out. */
void profile_host_destination(const struct profile_host *h, char *out, size_t outlen);

/* An SSH destination "[user@]host[:port]" or "[user@][v6addr]:port" (as
 * in hosts:) into h's user, ssh_host and port (h zeroed first by the
 * caller; h->name is left alone). Returns 0, or -1 with why (a phrase)
 * set. */
int profile_host_parse(const char *dest, struct profile_host *h, const char **why);

/* Free what h owns and zero it. */
void profile_host_clear(struct profile_host *h);

/* Total duration of a load (sum of its stages). */
uint64_t profile_load_duration_ns(const struct profile_load *l);

/* The hold window of a load: the longest stage whose target equals the
 * previous stage's (a constant stage; for a single-stage load, that stage).
 * Fills start and end offsets from the load's start; returns 0, or -1 when
 * the load has no constant stage. */
int profile_hold_window(const struct profile_load *l, uint64_t *start_ns, uint64_t *end_ns);

/* The highest level a load reaches (max stage target, or max sweep level). */
double profile_load_peak(const struct profile_load *l);

/* The profile as tool entry t runs it: a shallow copy of p into view
 * with t's own target.tls, target.protocol, target.delay, request and
 * check (those t writes) in place of p's (an own delay is fixed: the
 * view's shape keeps only p's stall). Everything else, pointers included, is p's:
 * view is valid while p is, and is never freed. */
void profile_entry_view(const struct profile *p, const struct profile_tool *t, struct profile *view);

/* What entry t runs with, as run.json's row records it ("ran_with"):
 * {"target": {"protocol", "tls": null or {version, key, resumption},
 *  "delay_ns"[, "shape" as profile_shape_json]}, "request": {"method"[, "body_bytes"]}, "check": null or {"status"}}.
 * Returns a new reference. */
json_t *profile_entry_json(const struct profile *p, const struct profile_tool *t);

/* The load a tool runs: its override or the profile's. */
const struct profile_load *profile_tool_load(const struct profile *p, const struct profile_tool *t);

/* A copy of load with every stage replaced by one constant stage at level
 * for duration (sweep expansion). Free with profile_load_free. */
struct profile_load *profile_load_at_level(const struct profile_load *l, double level);
void profile_load_free(struct profile_load *l);

/* Instance i's share (0 <= i < n) of load l for a tool run as n copies:
 * every stage target divided by n, max_inflight too. Closed-model targets
 * (connections) stay whole: the remainder goes one each to the first
 * instances; open-model rates are divided exactly. Returns a copy to free
 * with profile_load_free. */
struct profile_load *profile_load_share(const struct profile_load *l, unsigned i, unsigned n);

/* The profile as resolved (units in ns/bytes, defaults filled), for run.json
 * and `loadbench plan`. Returns a new reference. */
json_t *profile_to_json(const struct profile *p);
json_t *profile_load_to_json(const struct profile_load *l);

/* Every CPU of the profile's cpus: is one this process may run on (its
 * sched_getaffinity set), so that pinning cannot fail after a run has
 * started. Kept out of profile_load so that a profile reads the same on
 * every machine. Returns 0, or -1 with err "PATH:LINE:COL: ...". */
int profile_check_cpus(const struct profile *p, char *err);

/* The canonical SHA-256 (hex, 64 digits and a NUL) of a profile's
 * effective content: resolved is a profile as profile_to_json gives it (or
 * as run.json recorded it), hashed with sorted keys, reals at run.json's
 * precision, and without "path", so the same profile read from another
 * file hashes the same and any change to what a run does hashes apart. */
void profile_json_sha256(const json_t *resolved, char hex[65]);

#endif
