/* remote/exec (exec_remote_*): the executor for another host. A `loadbench agent` (the
 * same binary, harness/agent/) runs at the other end of a transport given
 * as an argv prefix, and the two speak the line-delimited JSON protocol of
 * docs/agent-protocol.md over the transport's stdin/stdout:
 *
 *   transport {"ssh","-o","BatchMode=yes","-T","user@b",NULL}  a real host
 *   transport {"ip","netns","exec","b",NULL}                   a namespace
 *   transport NULL (or {NULL})                                 this machine: the
 *                                                              agent is our child (tests)
 *
 * exec_remote_open starts the transport, skips whatever a remote shell
 * prints before the agent's magic line, checks the handshake (protocol
 * version, VERSION and the sha256 of the loadbench binary, and with
 * o->check_files every program and support file the agent would run:
 * a different build is refused, naming both), measures the clock offset and round
 * trip (minimum-RTT of several pings) and starts heartbeats both ways.
 * exec_remote_executor then gives a `const struct executor` (exec.h)
 * whose trees run on that host: the agent runs them through exec_local
 * (process group, subreaper, clean environment, CPU set, cgroup, memory
 * cap, bounded output), samples them on its side at spec->sample_interval_ns
 * and streams the points, so `sample` reads what has arrived (returns 0
 * when nothing new has). Remote times (started_ns, readings' t_ns) are
 * converted to this machine's CLOCK_MONOTONIC with the measured offset.
 *
 * Files: paths are the same on both sides. spawn first copies every file
 * under spec->dir here (the adapter's configs) to the host, and `fetch`
 * copies every file the tree left under spec->dir (home/ excepted) back,
 * each at most EXEC_REMOTE_FILE_MAX_BYTES.
 *
 * A lost link (EOF, the transport exited, no heartbeat for the timeout, a
 * protocol error) marks the host lost: every tree it ran is `ended` with
 * t->lost = "host lost: ..." and calls on it fail at once; the agent, on
 * its side, kills every tree it started within 1 s when its stdin ends or
 * the controller's heartbeats stop.
 *
 * One host is used by one thread (the tool run's); a heartbeat thread of
 * its own only writes. */
#ifndef LB_REMOTE_EXEC_H
#define LB_REMOTE_EXEC_H

#include "engine/exec.h"

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#define EXEC_REMOTE_HEARTBEAT_TIMEOUT_NS 5000000000ull  /* default: 5 s without a line = lost */
#define EXEC_REMOTE_FILE_MAX_BYTES (64ull << 20)        /* one file copied either way */

struct exec_remote_opts {
    const char *name;                   /* the host's name, for messages and t->lost ("b") */
    const char *const *transport;       /* argv prefix reaching the host, NULL-terminated;
                                         * NULL or empty: run the agent on this machine */
    const char *agent_bin;              /* the loadbench binary there (NULL: this binary,
                                         * /proc/self/exe, which suits the local transport) */
    const char *self_bin;               /* the build the agent must be (NULL: this binary;
                                         * a test that is not loadbench names loadbench) */
    uint64_t heartbeat_timeout_ns;      /* 0: EXEC_REMOTE_HEARTBEAT_TIMEOUT_NS; heartbeats
                                         * go every third of it, both ways */
    uint64_t connect_timeout_ns;        /* for the magic line and the handshake; 0: 30 s */
    const char *install_cmd;            /* how to put this build there, for a refusal
                                         * (NULL: "loadbench hosts install") */
    int check_files;                    /* refuse a host whose lb-gen, lb-target or support
                                         * files differ from this build's (the hello's files) */
};

/* The clock of the host against ours: remote CLOCK_MONOTONIC = ours +
 * offset_ns, known to within rtt_ns / 2. */
struct exec_remote_clock {
    int64_t offset_ns;
    uint64_t rtt_ns;                    /* the smallest round trip of the pings */
    int pings;                          /* how many were sent */
};

/* What the agent said about itself in the handshake. */
struct exec_remote_ident {
    char version[32];
    char sha256[65];
    char hostname[128];
    pid_t pid;                          /* the agent's pid there */
    char path[1024];                    /* the agent's binary there ("": not said) */
};

struct exec_host;

/* Reach the host, check the build, measure the clock. Returns the host,
 * or NULL with err naming the host and what failed (the transport's last
 * stderr line when it exited, e.g. ssh's "Permission denied"), with
 * nothing left running. */
struct exec_host *exec_remote_open(const struct exec_remote_opts *o, char *err);

/* The executor whose trees run on h (valid until exec_remote_close). */
const struct executor *exec_remote_executor(struct exec_host *h);

/* The host's name (exec_remote_opts.name). */
const char *exec_remote_name(const struct exec_host *h);

/* The host behind an executor: h for exec_remote_executor(h), NULL for
 * any other (exec_local). */
struct exec_host *exec_remote_host_of(const struct executor *ex);

void exec_remote_clock_get(const struct exec_host *h, struct exec_remote_clock *c);
void exec_remote_ident_get(const struct exec_host *h, struct exec_remote_ident *id);

/* Convert a time of the host's CLOCK_MONOTONIC to ours. */
uint64_t exec_remote_to_local_ns(const struct exec_host *h, uint64_t remote_ns);

/* Read what has arrived and send a heartbeat when due, without blocking.
 * Returns 0 while the host is there, -1 when it is lost (why filled,
 * "host lost: ...", when why is not NULL). */
int exec_remote_check(struct exec_host *h, char *why);

/* An HTTP/1.0 call to 127.0.0.1:port on the host (lb-target's control
 * port, which stays on the host's loopback), made by the agent. Returns
 * the JSON body of a 200 answer (new reference), or NULL with err. */
json_t *exec_remote_http(struct exec_host *h, int port, const char *method, const char *path, char *err);

/* Remove path (a file or a directory tree) on the host, where its agent
 * made it for this run; a path it did not make stays. Returns 0, or -1
 * with err. */
int exec_remote_remove(struct exec_host *h, const char *path, char *err);

/* The same, made by the agent at at_ns (our CLOCK_MONOTONIC, converted to
 * the host's; 0 or past: now), so the link's delay does not move it;
 * waits for it. *done_ns (may be NULL): when the agent started it, on
 * our clock. */
json_t *exec_remote_http_at(struct exec_host *h, int port, const char *method, const char *path, uint64_t at_ns,
                            uint64_t *done_ns, char *err);

/* A raw request (an object with "op" and its fields; stolen), for the
 * operations with no function here (target.c's target_start, target_stop).
 * Returns the reply (new reference) when ok, or NULL with err. */
json_t *exec_remote_call(struct exec_host *h, json_t *req, char *err);

/* A tree the agent started by another request (lb-target), from that
 * reply's "tree", "pid" and "started_ns": its streamed samples and its end
 * arrive as a spawned tree's, so poll, sample and summary work on it
 * through t->ex (nothing else does). Release it with exec_remote_forget,
 * which tells the agent nothing. */
struct exec_tree *exec_remote_adopt(struct exec_host *h, const json_t *reply);
void exec_remote_forget(struct exec_tree *t);

/* The agent's id of a tree of h, for raw requests. */
int exec_remote_tree_id(const struct exec_tree *t);

/* lb-target's tree t (adopted): its sampling starts again now, as a tool
 * run's does (the points streamed so far and the aggregates are dropped:
 * they came before the tool). Fills rd with the first reading, on this
 * machine's clock. Returns 0, or -1 with err. */
int exec_remote_rebase(struct exec_tree *t, struct sampler_reading *rd, char *err);

/* A reading of lb-target's tree t now, queued behind the points streamed
 * before it: the next `sample` calls return them, this one last. Returns
 * 0, or -1 with err. */
int exec_remote_sample_now(struct exec_tree *t, char *err);

/* The host's machine facts (machine_info there, engine/machine.h). Returns a new
 * reference, or NULL with err. */
json_t *exec_remote_machine(struct exec_host *h, char *err);

/* Copy one file: local -> host (put) or host -> local (get), at most
 * max_bytes (0: EXEC_REMOTE_FILE_MAX_BYTES), written to a temporary name
 * and renamed, so a path that is the same file on both sides survives.
 * Returns 0, or -1 with err. */
int exec_remote_put(struct exec_host *h, const char *local_path, const char *remote_path, char *err);
int exec_remote_get(struct exec_host *h, const char *remote_path, const char *local_path, uint64_t max_bytes,
                    char *err);

/* The transport's pid here (a child of ours in its own process group,
 * spared by proc_stop_tree), for tests and diagnostics. */
pid_t exec_remote_transport_pid(const struct exec_host *h);

/* Send the goodbye now (the agent stops what is left and exits);
 * exec_remote_close takes its reply. Closing N hosts: begin on each, then
 * close each, so their agents and transports end together, not one after
 * another (bench/hosts-scale.sh). NULL or a lost host does nothing. */
void exec_remote_close_begin(struct exec_host *h);

/* Say goodbye (unless exec_remote_close_begin did), wait up to 2 s for the
 * transport, kill it if needed, release h. Trees of h must have been
 * freed. NULL does nothing. */
void exec_remote_close(struct exec_host *h);

#endif
