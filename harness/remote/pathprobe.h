/* pathprobe: the load path from a tool's host to the target's address,
 * measured before the first row (issue 30): round trip on one warm
 * TCP_NODELAY connection and bulk capacity of several parallel flows in
 * the response direction (target to tool). The probe server is not
 * lb-target: nothing it does reaches the server's counters. */
#ifndef LB_PATHPROBE_H
#define LB_PATHPROBE_H
#include <jansson.h>
#include <stdint.h>

struct pathprobe_server;

/* Listen on addr (IPv4, any free port) and serve probes from a thread:
 * a connection that sends 'E' gets every byte it sends back (echo), one
 * that sends 'B' gets data until it closes (bulk). Returns the server
 * with *port set, or NULL with err. */
struct pathprobe_server *pathprobe_serve(const char *addr, int *port, char *err);

/* Stop listening and release the server (open probe connections end
 * when their client closes). NULL does nothing. */
void pathprobe_stop(struct pathprobe_server *s);

struct pathprobe_result {
    char iface[64];                 /* what `ip route get ADDR` picks here ("" unknown) */
    char source[64];                /* the address this host's connections to ADDR come from, as
                                     * the kernel chose it (getsockname; "" unknown): what the
                                     * target sees as this host (engine/peercheck.h) */
    unsigned rtts;                  /* round trips measured */
    double rtt_p50_us, rtt_p99_us, rtt_min_us;
    unsigned flows;
    double bulk_s;                  /* how long the flows read */
    double bytes_per_s;             /* payload bytes all flows received per second */
    double packets_per_s;           /* TCP segments they received per second (tcpi_segs_in) */
};

/* Measure the path to addr:port (a pathprobe_serve there): rtts round
 * trips of 32 bytes on one connection after 50 warm-up ones, then flows
 * connections reading bulk data for bulk_ns. Returns 0, or -1 with err. */
int pathprobe_measure(const char *addr, int port, unsigned rtts, unsigned flows, uint64_t bulk_ns,
                      struct pathprobe_result *r, char *err);

/* r as run.json's path entry of one host (a new object). */
json_t *pathprobe_json(const struct pathprobe_result *r);
#endif
