/* netstat: the kernel's TCP counters that change benchmark results without
 * changing counts — dropped SYNs (each adds a 1 s retry to tail latency),
 * retransmits, and TIME_WAIT sockets left by the previous run. */
#ifndef LB_NETSTAT_H
#define LB_NETSTAT_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

struct netstat {
    uint64_t listen_overflows;  /* TcpExt ListenOverflows */
    uint64_t listen_drops;      /* TcpExt ListenDrops */
    uint64_t retrans_segs;      /* Tcp RetransSegs */
    uint64_t time_wait;         /* /proc/net/sockstat TCP tw (now, not a counter) */
};

/* Read the counters of this process's network namespace. Returns 0, or
 * -1 with err filled. */
int netstat_read(struct netstat *n, char *err);

/* The same for the namespace of process pid (/proc/PID/net; pid 0: this
 * process's). Returns 0, or -1 with err filled (n zeroed). */
int netstat_read_pid(pid_t pid, struct netstat *n, char *err);

/* Deltas from a to b as JSON, with a warning appended to warnings for each
 * non-zero drop/retransmit delta. */
json_t *netstat_delta_json(const struct netstat *a, const struct netstat *b, json_t *warnings);

/* The size of the ephemeral port range (ip_local_port_range), 28232 if
 * unreadable. */
uint64_t netstat_port_range(void);

#endif
