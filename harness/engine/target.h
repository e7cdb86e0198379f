/* target: a running lb-target, started fresh for each tool run, and its
 * control channel (GET /stats, POST /window, GET /series). */
#ifndef LB_TARGET_H
#define LB_TARGET_H

#include "engine/exec.h"
#include "engine/proc.h"
#include "spec/profile.h"

#include <jansson.h>
#include <stdint.h>

struct target_opts {
    const char *bin;            /* lb-target binary */
    const char *dir;            /* where its stdout/stderr files go */
    const char *name;           /* file prefix, e.g. "target" */
    uint64_t delay_ns;
    const struct profile_shape *shape;  /* a drawn delay, stalls; NULL = none */
    uint64_t work_ns;           /* CPU burnt per request (0 = none) */
    uint64_t body_bytes;
    uint64_t expect_body;       /* > 0: every request's body must be this size (request: POST):
                                 * --expect-body and --max-body at it (a longer body gets 413) */
    unsigned threads;
    uint64_t cpus_mask;         /* 0 = not pinned */
    struct exec_host *host;     /* NULL: this machine; else lb-target runs there, started by its
                                 * agent (its own lb-target, beside the agent's binary; bin is
                                 * not used), its control port reached through the agent */
    uint64_t sample_interval_ns;/* host: the agent samples it at this interval (0: 1 s) */
    const char *listen_addr;    /* the address it serves load on (NULL: 127.0.0.1); its control
                                 * port stays on 127.0.0.1 */
    const struct profile_tls *tls;   /* NULL or version 0: plain TCP (this machine only) */
    int http2;                  /* lb-target --http2 (target.protocol h2 or h2c) */
    const char *ca_path;        /* with tls: where lb-target writes the run's CA */
};

struct target {
    struct proc proc;
    int port;
    int control_port;
    char stdout_path[1024];
    char stderr_path[1024];
    struct exec_host *host;     /* where it runs (NULL: here, proc is it) */
    pid_t pid;                  /* its pid on its host */
    struct exec_tree *tree;     /* on a host: its samples and end as the agent streams them
                                 * (poll, sample, summary through tree->ex; nothing else) */
};

/* Start lb-target and wait (up to 5 s) for its "listening" line. Returns 0,
 * or -1 with err naming the cause (its stderr's first line when it exited). */
int target_start(struct target *t, const struct target_opts *o, char *err);

/* One HTTP/1.0 exchange with an lb-target control port on 127.0.0.1
 * (3 s timeouts). Returns the JSON body of a 200 answer (new reference),
 * or NULL with err. */
json_t *target_control(int control_port, const char *method, const char *path, char *err);

/* The same through t's host when it has one. at_ns (our CLOCK_MONOTONIC,
 * 0: now): on a host, the agent makes the call at that time, whatever
 * the link's delay ("do this at T"); here, the caller sleeps until then.
 * *done_ns (may be NULL): when it was started. Returns as target_control;
 * on a host, lb-target's times in the body (now_ns, started_ns,
 * first_request_ns, ...) are converted to our clock. */
json_t *target_call_at(const struct target *t, const char *method, const char *path, uint64_t at_ns, uint64_t *done_ns,
                       char *err);

/* lb-target's options for shape (" --delay-dist lognormal --delay-p50
 * 20000000ns ... --seed 1 --stall-every ... --stall-for ..."; empty for
 * NULL or no shape) into buf. Returns buf. */
char *target_shape_flags(const struct profile_shape *shape, char *buf, size_t len);

/* GET /stalls: the shape and the stalls begun so far. */
json_t *target_stalls(const struct target *t, char *err);
/* GET /peers: each client address's first and last request (the
 * server's clock) and count, at most 1024 addresses (targets/peers.h). */
json_t *target_peers(const struct target *t, char *err);

/* GET /stats. Returns the parsed JSON (new reference), or NULL with err. */
json_t *target_stats(const struct target *t, char *err);

/* POST /window: start a new window; returns the stats at that instant. */
json_t *target_window(const struct target *t, char *err);

/* GET /series?since=K. */
json_t *target_series(const struct target *t, uint64_t since, char *err);

/* GET /histogram: the cumulative server-time histogram, bucket by bucket. */
json_t *target_histogram(const struct target *t, char *err);

struct hist;

/* The histogram between two /histogram snapshots (b minus a; a NULL: all
 * of b), or NULL when b is missing or they do not match. Caller frees. */
struct hist *target_histogram_between(json_t *a, json_t *b);

/* The histogram of what happened between two /histogram snapshots (b minus
 * a, bucket by bucket), as {count, mean, p50, p90, p95, p99, max} in ms,
 * or NULL when either is missing or they do not match. */
json_t *target_histogram_window_ms(json_t *a, json_t *b);

/* Is the process still running? (Reaps it if it died.) */
int target_alive(struct target *t);

/* SIGTERM, wait up to 3 s (then SIGKILL), reap. Returns 0, or -1 when it
 * had to be killed or had already died (err says which). On a host, the
 * agent does it, then its stdout and stderr files are copied back. */
int target_stop(struct target *t, char *err);

/* On a host (t->tree): the agent's sampling of lb-target starts again now,
 * for a tool run (what it streamed before is dropped: it came before the
 * tool), rd the first reading; and a reading now, the last of a tool run,
 * queued behind the points streamed before it (t->tree->ex->sample takes
 * them in order). Each returns 0, or -1 with err. Here, lb-target is
 * sampled directly (sampler_tree_new on t->proc.pid). */
int target_rebase(struct target *t, struct sampler_reading *rd, char *err);
int target_sample_now(struct target *t, char *err);

/* A uint64 field of a stats object (0 when absent). */
uint64_t target_u64(json_t *stats, const char *key);

/* How far a counter of the stats moved from before to after (0 when it
 * did not grow). */
uint64_t target_delta(json_t *before, json_t *after, const char *key);

#endif
