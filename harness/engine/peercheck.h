/* peercheck: whose requests lb-target counted (issue 44, defect 15).
 * Every client address the server saw (GET /peers, targets/peers.h) is
 * matched against the addresses the row's tool hosts load from: the
 * source address each host's path probe connected from (run.json's
 * path, remote/pathprobe.h), the host's load address, and, for a tool on
 * the target's own machine, loopback and the target's address. Requests
 * from any other address are foreign: counted apart, named in the row,
 * taken out of the server's count before the tool's is reconciled with
 * it, and so never used to explain that count. */
#ifndef LB_PEERCHECK_H
#define LB_PEERCHECK_H
#include "spec/profile.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The addresses row t's processes may load from (a new array of
 * strings; "loopback" stands for 127.0.0.0/8 and ::1), given the run's
 * path measurements. NULL with why when a tool host's address is unknown
 * (its path probe failed): then no address is judged foreign. */
json_t *peercheck_expected(const struct profile *p, const struct profile_tool *t, const json_t *path, char *why,
                           size_t len);

struct peercheck {
    uint64_t foreign;               /* requests from addresses no host of the row has, and from any
                                     * the server could not name (past its table) */
    unsigned naddrs;                /* how many foreign addresses */
    char named[240];                /* "3 requests from 198.19.40.254, ..." (as many as fit), or "" */
};

/* 1 when addr (as GET /peers names it) is among expected's, or expected
 * is NULL. */
int peercheck_is_own(const json_t *expected, const char *addr);

/* peers (GET /peers) against expected (peercheck_expected's, or NULL:
 * not judged, out zeroed). */
void peercheck_judge(const json_t *peers, const json_t *expected, struct peercheck *out);

#endif
