/* peercheck: the server's client addresses against the row's hosts. */
#include "engine/peercheck.h"

#include <stdio.h>
#include <string.h>

static void add(json_t *a, const char *addr)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        if (!strcmp(json_string_value(v), addr))
            return;
    }
    json_array_append_new(a, json_string(addr));
}

/* The addresses one host of the row loads from, into a; -1 with why when
 * its path gave none. */
static int host_addresses(const struct profile *p, const struct profile_host *h, const json_t *path, json_t *a,
                          char *why, size_t len)
{
    const struct profile_host *th = profile_host_by_name(p, p->target_host);
    const char *name = h ? h->name : "controller";
    if (profile_hosts_same_machine(h, th)) {
        add(a, "loopback");
        add(a, profile_host_load_address(th));
        return 0;
    }
    json_t *e = json_object_get(path, name);
    const char *src = json_string_value(json_object_get(e, "source"));
    if (!src) {
        const char *said = json_string_value(json_object_get(e, "error"));
        snprintf(why, len, "the path from host %s gave no source address (%s)", name,
                 said ? said : e ? "no \"source\" in run.json's path" : "its path was not measured");
        return -1;
    }
    add(a, src);
    if (h)
        add(a, profile_host_load_address(h));
    return 0;
}

json_t *peercheck_expected(const struct profile *p, const struct profile_tool *t, const json_t *path, char *why,
                           size_t len)
{
    json_t *a = json_array();
    if (!p->nhosts) { /* one box: the load goes over loopback */
        add(a, "loopback");
        return a;
    }
    for (unsigned k = 0; k < (t->nhosts ? t->nhosts : 1); k++) {
        const char *name = t->nhosts ? t->hosts[k] : t->host;
        if (host_addresses(p, name ? profile_host_by_name(p, name) : NULL, path, a, why, len)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static int loopback(const char *addr)
{
    return !strncmp(addr, "127.", 4) || !strcmp(addr, "::1");
}

int peercheck_is_own(const json_t *expected, const char *addr)
{
    if (!expected)
        return 1;
    if (!strncmp(addr, "::ffff:", 7)) /* an IPv4 client of an IPv6 socket */
        addr += 7;
    size_t i;
    json_t *v;
    json_array_foreach(expected, i, v) {
        const char *e = json_string_value(v);
        if (!strcmp(e, addr) || (!strcmp(e, "loopback") && loopback(addr)))
            return 1;
    }
    return 0;
}

static void name_one(struct peercheck *out, size_t *n, unsigned long long count, const char *from)
{
    if (*n < sizeof out->named)
        *n += (size_t)snprintf(out->named + *n, sizeof out->named - *n, "%s%llu request%s from %s",
                               *n ? ", " : "", count, count == 1 ? "" : "s", from);
}

void peercheck_judge(const json_t *peers, const json_t *expected, struct peercheck *out)
{
    memset(out, 0, sizeof *out);
    if (!expected)
        return;
    size_t i, n = 0;
    json_t *e;
    json_array_foreach(json_object_get(peers, "peers"), i, e) {
        const char *addr = json_string_value(json_object_get(e, "address"));
        json_int_t c = json_integer_value(json_object_get(e, "requests"));
        if (!addr || c <= 0 || peercheck_is_own(expected, addr))
            continue;
        out->foreign += (uint64_t)c;
        out->naddrs++;
        name_one(out, &n, (unsigned long long)c, addr);
    }
    json_int_t others = json_integer_value(json_object_get(peers, "others"));
    if (others > 0) {
        out->foreign += (uint64_t)others;
        name_one(out, &n, (unsigned long long)others, "addresses past the server's table");
    }
}
