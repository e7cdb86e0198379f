/* Per-peer arrival times: for each client address (IPv4 or IPv6, port
 * left out), the first and last request parsed (CLOCK_MONOTONIC ns) and
 * how many. Bounded: PEERS_MAX addresses, later ones counted together in
 * `others`. GET /peers on the control channel answers it: across hosts,
 * the spread of the first arrivals is the hosts' start skew as the server
 * saw it, with no host's clock involved. */
#ifndef TARGETS_PEERS_H
#define TARGETS_PEERS_H

#include <jansson.h>
#include <stdint.h>

#define PEERS_MAX 1024

struct peers;

struct peers *peers_new(void);
void peers_free(struct peers *p);
/* The slot of fd's peer address (looked up, or added), -1 when the table
 * is full or the address unknown. Called once per accepted connection. */
int peers_slot(struct peers *p, int fd);
/* A request from slot (>= 0, or -1: counted in others) parsed at now_ns.
 * Lock-free; any worker thread. */
void peers_note(struct peers *p, int slot, uint64_t now_ns);
/* {"peers":[{"address","first_ns","last_ns","requests"}...],"others":N,
 *  "max":PEERS_MAX,"now_ns"} */
json_t *peers_json(struct peers *p);

#endif
