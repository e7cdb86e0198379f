/* target: a running lb-target, started fresh for each tool run, and its
 * control channel (GET /stats, POST /window, GET /series). */
#ifndef LB_TARGET_H
#define LB_TARGET_H

#include "engine/proc.h"

#include <jansson.h>
#include <stdint.h>

struct target_opts {
    const char *bin;            /* lb-target binary */
    const char *dir;            /* where its stdout/stderr files go */
    const char *name;           /* file prefix, e.g. "target" */
    uint64_t delay_ns;
    uint64_t work_ns;           /* CPU burnt per request (0 = none) */
    uint64_t body_bytes;
    unsigned threads;
    uint64_t cpus_mask;         /* 0 = not pinned */
    const char *listen_host;    /* the IPv4 address load comes to; NULL: 127.0.0.1 (the control
                                 * port stays on 127.0.0.1 either way) */
};

struct target {
    struct proc proc;
    int port;
    int control_port;
    char stdout_path[1024];
    char stderr_path[1024];
};

/* Start lb-target and wait (up to 5 s) for its "listening" line. Returns 0,
 * or -1 with err naming the cause (its stderr's first line when it exited). */
int target_start(struct target *t, const struct target_opts *o, char *err);

/* One HTTP/1.0 exchange with an lb-target control port on 127.0.0.1
 * (3 s timeouts). Returns the JSON body of a 200 answer (new reference),
 * or NULL with err. */
json_t *target_control(int control_port, const char *method, const char *path, char *err);

/* GET /stats. Returns the parsed JSON (new reference), or NULL with err. */
json_t *target_stats(const struct target *t, char *err);

/* POST /window: start a new window; returns the stats at that instant. */
json_t *target_window(const struct target *t, char *err);

/* GET /series?since=K. */
json_t *target_series(const struct target *t, uint64_t since, char *err);

/* GET /histogram: the cumulative server-time histogram, bucket by bucket. */
json_t *target_histogram(const struct target *t, char *err);

/* The histogram of what happened between two /histogram snapshots (b minus
 * a, bucket by bucket), as {count, mean, p50, p90, p95, p99, max} in ms,
 * or NULL when either is missing or they do not match. */
json_t *target_histogram_window_ms(json_t *a, json_t *b);

/* Is the process still running? (Reaps it if it died.) */
int target_alive(struct target *t);

/* SIGTERM, wait up to 3 s (then SIGKILL), reap. Returns 0, or -1 when it
 * had to be killed or had already died (err says which). */
int target_stop(struct target *t, char *err);

/* A uint64 field of a stats object (0 when absent). */
uint64_t target_u64(json_t *stats, const char *key);

#endif
