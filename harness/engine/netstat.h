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
    uint64_t loss_probes;       /* TcpExt TCPLossProbes less TCPLossProbeRecovery: tail-loss
                                 * probes (a flight's last segment sent again because its ACK
                                 * was slow) that recovered no loss; 0 where the kernel has
                                 * no such counters */
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

/* The ephemeral ports (ip_local_port_range) this namespace's TIME_WAIT
 * sockets hold, each port once: a server's listening port in TIME_WAIT
 * thousands of times over (it closed first: ab, keep-alive off) is one. */
uint64_t netstat_tw_ports_held(void);

/* Ephemeral ports held in TIME_WAIT during a row (issue 40: a new
 * connection per request). The side that closes first keeps each
 * connection in TIME_WAIT for 60 s; a client's holds its ephemeral port,
 * a server's only its listening one. */
struct netstat_ports {
    uint64_t lo, hi;                /* ip_local_port_range */
    int tw_reuse;                   /* net.ipv4.tcp_tw_reuse (-1 unknown) */
    uint64_t tw_peak;               /* sockstat's TIME_WAIT sockets, the most seen */
    uint64_t held_peak;             /* the ephemeral ports (but the server's) they held, each port
                                     * once: the most seen; counted only once tw reached a quarter of
                                     * the range */
    unsigned looks;
};

/* Before the row: the range and the reuse setting (this namespace). */
void netstat_ports_init(struct netstat_ports *p);

/* One look during the row: sockstat's TIME_WAIT count, and when it is a
 * quarter of the range or more, /proc/net/tcp and tcp6 for those whose
 * local port is ephemeral, but exclude_port (the server's own). */
void netstat_ports_look(struct netstat_ports *p, unsigned exclude_port);

/* The row's "ports" object; *exhausted 1 when the ports held reached 90 %
 * of the range: new connections were limited by ephemeral ports. */
json_t *netstat_ports_json(const struct netstat_ports *p, int *exhausted);

#endif
