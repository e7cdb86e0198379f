#include "engine/netstat.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* /proc/net/netstat and /proc/net/snmp hold pairs of lines: "Prefix: names"
 * then "Prefix: values". Find name under prefix. */
static int pair_value(const char *path, const char *prefix, const char *name, uint64_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char names[8192], values[8192];
    int rc = -1;
    size_t plen = strlen(prefix);
    while (fgets(names, sizeof names, f) && fgets(values, sizeof values, f)) {
        if (strncmp(names, prefix, plen) || names[plen] != ':')
            continue;
        char *ns = NULL, *vs = NULL;
        char *n = strtok_r(names + plen + 1, " \n", &ns);
        char *v = strtok_r(values + plen + 1, " \n", &vs);
        while (n && v) {
            if (!strcmp(n, name)) {
                *out = strtoull(v, NULL, 10);
                rc = 0;
                break;
            }
            n = strtok_r(NULL, " \n", &ns);
            v = strtok_r(NULL, " \n", &vs);
        }
        break;
    }
    fclose(f);
    return rc;
}

int netstat_read(struct netstat *n, char *err)
{
    return netstat_read_pid(0, n, err);
}

int netstat_read_pid(pid_t pid, struct netstat *n, char *err)
{
    /* /proc/net is /proc/self/net: the reader's namespace. Another
     * process's counters are those of its namespace, under its pid. */
    char dir[64], p1[96], p2[96], p3[96];
    if (pid > 0)
        snprintf(dir, sizeof dir, "/proc/%d/net", (int)pid);
    else
        snprintf(dir, sizeof dir, "/proc/net");
    snprintf(p1, sizeof p1, "%s/netstat", dir);
    snprintf(p2, sizeof p2, "%s/snmp", dir);
    snprintf(p3, sizeof p3, "%s/sockstat", dir);
    memset(n, 0, sizeof *n);
    if (pair_value(p1, "TcpExt", "ListenOverflows", &n->listen_overflows) ||
        pair_value(p1, "TcpExt", "ListenDrops", &n->listen_drops) ||
        pair_value(p2, "Tcp", "RetransSegs", &n->retrans_segs))
        return util_err(err, "cannot read TCP counters from %s and %s", p1, p2);
    /* Probes that recovered a loss were answering a real one: only the
     * others are left out of the retransmits that witness loss. */
    uint64_t probes = 0, recovered = 0;
    if (pair_value(p1, "TcpExt", "TCPLossProbes", &probes) == 0 &&
        pair_value(p1, "TcpExt", "TCPLossProbeRecovery", &recovered) == 0 && probes >= recovered)
        n->loss_probes = probes - recovered;
    FILE *f = fopen(p3, "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            char *tw = strstr(line, " tw ");
            if (!strncmp(line, "TCP:", 4) && tw)
                n->time_wait = strtoull(tw + 4, NULL, 10);
        }
        fclose(f);
    }
    return 0;
}

/* The row's note on retransmits: how many, and how many of them were
 * tail-loss probes (new reference). */
static json_t *retrans_note(uint64_t retrans, uint64_t probes)
{
    if (!probes)
        return json_sprintf("TCP retransmitted %llu segments during the run", (unsigned long long)retrans);
    return json_sprintf("TCP retransmitted %llu segments during the run, %s %llu tail-loss probes (the kernel "
                        "re-sending a flight's last segment when its acknowledgement is slow, as during a TLS "
                        "handshake on a busy core: no loss)", (unsigned long long)retrans,
                        probes >= retrans ? "all" : "of them", (unsigned long long)probes);
}

json_t *netstat_delta_json(const struct netstat *a, const struct netstat *b, json_t *warnings)
{
    uint64_t lo = b->listen_overflows - a->listen_overflows, ld = b->listen_drops - a->listen_drops,
             rs = b->retrans_segs - a->retrans_segs, lp = b->loss_probes - a->loss_probes;
    if (lo || ld)
        json_array_append_new(warnings, json_sprintf("the kernel dropped SYNs during the run (ListenOverflows +%llu, ListenDrops +%llu): "
                                                     "each adds a 1 s retry to tail latency while counts still match",
                                                     (unsigned long long)lo, (unsigned long long)ld));
    if (rs)
        json_array_append_new(warnings, retrans_note(rs, lp));
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "listen_overflows", (json_int_t)lo, "listen_drops", (json_int_t)ld,
                     "retrans_segs", (json_int_t)rs, "loss_probes", (json_int_t)lp, "time_wait_before",
                     (json_int_t)a->time_wait, "time_wait_after", (json_int_t)b->time_wait);
}

/* ip_local_port_range into lo, hi (Linux's default when unreadable). */
static void port_bounds(uint64_t *lo, uint64_t *hi)
{
    unsigned a = 32768, b = 60999;
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f) {
        if (fscanf(f, "%u %u", &a, &b) != 2 || b < a)
            a = 32768, b = 60999;
        fclose(f);
    }
    *lo = a, *hi = b;
}

uint64_t netstat_port_range(void)
{
    uint64_t lo, hi;
    port_bounds(&lo, &hi);
    return hi - lo + 1;
}

void netstat_ports_init(struct netstat_ports *p)
{
    char line[64];
    memset(p, 0, sizeof *p);
    port_bounds(&p->lo, &p->hi);
    fsutil_first_line("/proc/sys/net/ipv4/tcp_tw_reuse", line, sizeof line);
    p->tw_reuse = line[0] ? atoi(line) : -1;
}

/* The local ports in [lo, hi] but exclude of TIME_WAIT sockets (state
 * 06) of one /proc/net/tcp* file, marked in held (a bit per port); the
 * count of ports newly marked. A server's port (lb-target's control
 * port) in TIME_WAIT many times over is one port. */
static uint64_t tw_in_range(const char *path, uint64_t lo, uint64_t hi, unsigned exclude, uint8_t *held)
{
    FILE *f = fopen(path, "r");
    char line[512];
    uint64_t n = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        char local[80];
        unsigned st, port;
        if (sscanf(line, " %*s %79s %*s %x", local, &st) != 2 || st != 6)
            continue;
        const char *c = strrchr(local, ':');
        if (c && sscanf(c + 1, "%x", &port) == 1 && port >= lo && port <= hi && port != exclude && port < 65536 &&
            !(held[port >> 3] & (1u << (port & 7)))) {
            held[port >> 3] |= (uint8_t)(1u << (port & 7));
            n++;
        }
    }
    fclose(f);
    return n;
}

/* The ports in [lo, hi] but exclude held by TIME_WAIT sockets of this
 * namespace (IPv4 and IPv6), each port once. */
static uint64_t tw_ports_held(uint64_t lo, uint64_t hi, unsigned exclude)
{
    uint8_t marks[65536 / 8] = {0};
    return tw_in_range("/proc/net/tcp", lo, hi, exclude, marks) + tw_in_range("/proc/net/tcp6", lo, hi, exclude, marks);
}

uint64_t netstat_tw_ports_held(void)
{
    uint64_t lo, hi;
    port_bounds(&lo, &hi);
    return tw_ports_held(lo, hi, 0);
}

void netstat_ports_look(struct netstat_ports *p, unsigned exclude_port)
{
    struct netstat n;
    if (netstat_read(&n, NULL))
        return;
    p->looks++;
    if (n.time_wait > p->tw_peak)
        p->tw_peak = n.time_wait;
    if (n.time_wait * 4 < p->hi - p->lo + 1)
        return;
    uint64_t held = tw_ports_held(p->lo, p->hi, exclude_port);
    if (held > p->held_peak)
        p->held_peak = held;
}

json_t *netstat_ports_json(const struct netstat_ports *p, int *exhausted)
{
    uint64_t range = p->hi - p->lo + 1;
    *exhausted = p->looks && p->held_peak * 10 >= range * 9;
    return json_pack("{s:[I,I], s:I, s:i, s:I, s:I, s:b}", "range", (json_int_t)p->lo, (json_int_t)p->hi, "range_size",
                     (json_int_t)range, "tcp_tw_reuse", p->tw_reuse, "time_wait_peak", (json_int_t)p->tw_peak,
                     "time_wait_ports_held_peak", (json_int_t)p->held_peak, "exhausted", *exhausted);
}
