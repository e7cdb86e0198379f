/* Per-peer first/last arrival and request count (targets/peers.h).
 *
 * A connection looks its peer up once, at accept, under a mutex (a linear
 * search would be O(peers) per connection; the table is a small open-
 * addressing hash of PEERS_MAX * 2 slots). Each request then costs three
 * relaxed atomics on its slot: no lock on the request path. */
#include "targets/peers.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/util.h"

#define PEERS_HASH (PEERS_MAX * 2)

struct peer {
    char addr[INET6_ADDRSTRLEN];
    _Atomic uint64_t first_ns, last_ns, requests;
};

struct peers {
    pthread_mutex_t mu;
    int n;
    int16_t hash[PEERS_HASH];   /* index into peer + 1; 0: empty */
    struct peer peer[PEERS_MAX];
    _Atomic uint64_t others;
};

struct peers *peers_new(void)
{
    struct peers *p = util_xcalloc(1, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    return p;
}

void peers_free(struct peers *p)
{
    if (!p)
        return;
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static unsigned peers_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

int peers_slot(struct peers *p, int fd)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char a[INET6_ADDRSTRLEN];
    if (!p || getpeername(fd, (struct sockaddr *)&ss, &sl) < 0)
        return -1;
    const void *in = ss.ss_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
                                              : (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
    if ((ss.ss_family != AF_INET && ss.ss_family != AF_INET6) || !inet_ntop(ss.ss_family, in, a, sizeof a))
        return -1;
    pthread_mutex_lock(&p->mu);
    int slot = -1;
    for (unsigned h = peers_hash(a) % PEERS_HASH;; h = (h + 1) % PEERS_HASH) {
        int i = p->hash[h] - 1;
        if (i >= 0 && !strcmp(p->peer[i].addr, a)) {
            slot = i;
            break;
        }
        if (i < 0) {
            if (p->n < PEERS_MAX) {
                slot = p->n++;
                memcpy(p->peer[slot].addr, a, sizeof a);
                p->hash[h] = (int16_t)(slot + 1);
            }
            break;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return slot;
}

void peers_note(struct peers *p, int slot, uint64_t now_ns)
{
    if (!p)
        return;
    if (slot < 0) {
        atomic_fetch_add_explicit(&p->others, 1, memory_order_relaxed);
        return;
    }
    struct peer *e = &p->peer[slot];
    uint64_t f = atomic_load_explicit(&e->first_ns, memory_order_relaxed);
    while ((!f || now_ns < f) &&
           !atomic_compare_exchange_weak_explicit(&e->first_ns, &f, now_ns, memory_order_relaxed, memory_order_relaxed))
        ;
    uint64_t l = atomic_load_explicit(&e->last_ns, memory_order_relaxed);
    while (now_ns > l &&
           !atomic_compare_exchange_weak_explicit(&e->last_ns, &l, now_ns, memory_order_relaxed, memory_order_relaxed))
        ;
    atomic_fetch_add_explicit(&e->requests, 1, memory_order_relaxed);
}

json_t *peers_json(struct peers *p)
{
    json_t *a = json_array();
    pthread_mutex_lock(&p->mu);
    int n = p->n;
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < n; i++) {
        struct peer *e = &p->peer[i];
        uint64_t r = atomic_load_explicit(&e->requests, memory_order_relaxed);
        if (!r)
            continue;   /* connected, no request yet */
        json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:I}", "address", e->addr, "first_ns",
                                           (json_int_t)atomic_load(&e->first_ns), "last_ns",
                                           (json_int_t)atomic_load(&e->last_ns), "requests", (json_int_t)r));
    }
    return json_pack("{s:o, s:I, s:i, s:I}", "peers", a, "others", (json_int_t)atomic_load(&p->others), "max",
                     PEERS_MAX, "now_ns", (json_int_t)util_now_ns());
}
