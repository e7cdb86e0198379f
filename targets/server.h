/* server: lb-target's worker threads (one epoll loop each), its delayed
 * responses, and its control channel. */
#ifndef LB_SERVER_H
#define LB_SERVER_H

#include "common/limits.h"
#include "targets/delay.h"
#include "targets/tls.h"

#include <jansson.h>
#include <netinet/in.h>
#include <stdint.h>

struct server_config {
    struct sockaddr_in listen_addr;   /* port 0 picks a free one */
    struct sockaddr_in control_addr;  /* port 0 picks a free one */
    int threads;                      /* worker threads, 1..SERVER_MAX_THREADS */
    uint64_t cpu_mask;                /* 0: no pinning; else workers round-robin over these CPUs */
    struct delay_spec delay;          /* how long each response is held (fixed, drawn, stalls) */
    uint64_t work_ns;                 /* burn this much CPU per request on the worker (a CPU-bound backend) */
    uint64_t body_bytes;              /* JSON body size */
    uint64_t max_body;                /* request bodies above this get 413 (counted, connection closed) */
    uint64_t expect_body;             /* with expect_body_on: requests whose body differs count in body_mismatch */
    int expect_body_on;
    int backlog;
    struct tls_config tls;            /* version TLS_OFF: plain HTTP */
    int http2;                        /* also HTTP/2: h2 by ALPN over TLS, h2c with prior knowledge */
};

#define SERVER_MAX_THREADS LB_TARGET_MAX_THREADS /* common/limits.h: the profile checks the same */

struct server;

/* Bind the listener and the control listener. Returns the server, or NULL
 * with err filled (a busy port says so). Starts no thread. */
struct server *server_new(const struct server_config *cfg, char *err);

/* The bound ports. */
int server_port(const struct server *s);
int server_control_port(const struct server *s);

/* The latency shape as JSON (delay_json: distribution, seed, stalls).
 * Returns a new object. */
json_t *server_delay_json(const struct server *s);

/* Start the workers and the control thread. Returns 0, or -1 with err
 * filled (thread creation or pinning failed; nothing is left running). */
int server_start(struct server *s, char *err);

/* Stop and join every thread (idempotent). */
void server_stop(struct server *s);

/* The /stats object after server_stop. Returns a new JSON object. */
json_t *server_final_stats(struct server *s);

/* Close everything and free s (stops it first if needed). */
void server_free(struct server *s);

#endif
