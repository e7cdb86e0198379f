#include "engine/hosts.h"
#include "engine/runlock.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The counters kept per interface, in the order of a NIC line. */
static const char *const nic_counters[] = {"rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "rx_dropped", "tx_dropped"};
#define NIC_NCOUNTERS (sizeof nic_counters / sizeof *nic_counters)

/* The same lines read over ssh: "IFACE rx_bytes tx_bytes ...". Run by the
 * remote user's shell, so plain POSIX sh with no single quote inside. */
#define NIC_REMOTE_CMD                                                                                    \
    "sh -c 'cd /sys/class/net && for i in *; do s=$i/statistics; echo \"lb-nic $i $(cat $s/rx_bytes "    \
    "$s/tx_bytes $s/rx_packets $s/tx_packets $s/rx_dropped $s/tx_dropped | tr \"\\n\" \" \")\"; done'"

void hosts_transport_argv(const struct profile_host *h, const char *control_dir, struct strvec *out)
{
    if (!h || h->local)
        return;
    const char *config = getenv("LOADBENCH_SSH_CONFIG");
    static const char *const fixed[] = {"ssh", "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5",
                                        "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        strvec_push(out, fixed[i]);
    if (config && *config) {
        strvec_push(out, "-F");
        strvec_push(out, config);
    }
    if (h->port) {
        strvec_push(out, "-p");
        strvec_pushf(out, "%u", h->port);
    }
    if (control_dir) {
        /* No ControlPersist: the master is the first session and goes with
         * it (after the sessions riding on it), never outliving us. */
        strvec_push(out, "-o");
        strvec_push(out, "ControlMaster=auto");
        strvec_push(out, "-o");
        strvec_push(out, "ControlPersist=no");
        strvec_push(out, "-o");
        strvec_pushf(out, "ControlPath=%s/%%C", control_dir);
    }
    if (h->user)
        strvec_pushf(out, "%s@%s", h->user, h->ssh_host);
    else
        strvec_push(out, h->ssh_host);
}

int hosts_control_dir(char *dir, char *err)
{
    /* /tmp, not TMPDIR: a socket path must fit in 108 bytes (this name is
     * about 55, the socket's %C 40 more). The owner's tag lets a later
     * loadbench remove it once the owner is proven dead. */
    char tag[96];
    runlock_tag(tag, sizeof tag);
    snprintf(dir, PATH_MAX, "%s%s-XXXXXX", HOSTS_CONTROL_PREFIX, tag);
    if (!mkdtemp(dir))
        return util_err(err, "cannot create a directory for ssh control sockets in /tmp: %s", strerror(errno));
    return 0;
}

void hosts_control_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[PATH_MAX + 300];
    if (!d)
        return;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

int hosts_sweep_stale_control_dirs(void)
{
    const char *base = HOSTS_CONTROL_PREFIX;
    size_t plen = strlen(base) - strlen("/tmp/");
    DIR *d = opendir("/tmp");
    struct dirent *e;
    int n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d))) {
        const char *rest;
        if (strncmp(e->d_name, base + strlen("/tmp/"), plen) || runlock_tag_dead(e->d_name + plen, &rest) != 1 ||
            *rest != '-')
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "/tmp/%s", e->d_name);
        struct stat st;
        if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
            continue;
        hosts_control_dir_remove(path);
        n++;
    }
    closedir(d);
    return n;
}

/* The last non-empty line of text (ssh's own message comes last), in place. */
static const char *last_line(char *text)
{
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
        text[--n] = 0;
    char *nl = strrchr(text, '\n');
    return nl ? nl + 1 : text;
}

/* Run cmd on h; returns the exit status (255: ssh's own failure), output
 * in out. */
static int run_on(const struct profile_host *h, const char *control_dir, const char *cmd, char *out, size_t outlen)
{
    struct strvec argv = {0};
    hosts_transport_argv(h, control_dir, &argv);
    strvec_push(&argv, cmd);
    int rc = adapter_capture((const char *const *)argv.v, out, outlen);
    strvec_free(&argv);
    return rc;
}

static int check_one(const struct profile *p, const struct profile_host *h, const char *control_dir, char *err)
{
    char out[4096], dest[300], port[16] = "";
    if (!h || h->local)
        return 0;
    if (run_on(h, control_dir, "exit 0", out, sizeof out) == 0)
        return 0;
    profile_host_destination(h, dest, sizeof dest);
    if (h->port)
        snprintf(port, sizeof port, " -p %u", h->port);
    return util_err(err, "%s:%d:%d: host %s (%s) cannot be reached over ssh: %s (try `ssh -o BatchMode=yes%s %s%s%s "
                    "true`: a key login, no prompt)",
                    p->path, h->line, h->col, h->name, dest, out[0] ? last_line(out) : "no answer", port,
                    h->user ? h->user : "", h->user ? "@" : "", h->ssh_host);
}

int hosts_check_reachable(const struct profile *p, const char *only, const char *control_dir, char *err)
{
    /* Each host once, in the order of hosts:, if anything is placed on it. */
    for (size_t i = 0; i < p->nhosts; i++) {
        const struct profile_host *h = &p->hosts[i];
        int used = p->target_host && !strcmp(p->target_host, h->name);
        for (size_t t = 0; t < p->ntools && !used; t++)
            used = p->tools[t].host && !strcmp(p->tools[t].host, h->name) &&
                   (!only || !strcmp(p->tools[t].label, only));
        if (used && check_one(p, h, control_dir, err))
            return -1;
    }
    return 0;
}

/* NIC lines of this machine, as the remote command prints them. */
static void nic_local_lines(struct textbuf *b)
{
    DIR *d = opendir("/sys/class/net");
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        textbuf_printf(b, "lb-nic %s", e->d_name);
        for (size_t i = 0; i < NIC_NCOUNTERS; i++) {
            char path[PATH_MAX], v[64];
            snprintf(path, sizeof path, "/sys/class/net/%s/statistics/%s", e->d_name, nic_counters[i]);
            fsutil_first_line(path, v, sizeof v);
            textbuf_printf(b, " %s", v[0] ? v : "-");
        }
        textbuf_printf(b, "\n");
    }
    closedir(d);
}

/* "lb-nic IFACE N N N N N N" lines into {IFACE: {counter: N}}; other lines
 * (a login banner, ssh's warnings) are not ours and are skipped. */
static json_t *nic_parse(char *text)
{
    json_t *o = json_object();
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char name[64];
        uint64_t v[NIC_NCOUNTERS];
        if (sscanf(line, "lb-nic %63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, name, &v[0],
                   &v[1], &v[2], &v[3], &v[4], &v[5]) != 1 + (int)NIC_NCOUNTERS)
            continue;
        json_t *c = json_object();
        for (size_t i = 0; i < NIC_NCOUNTERS; i++)
            json_object_set_new(c, nic_counters[i], json_integer((json_int_t)v[i]));
        json_object_set_new(o, name, c);
    }
    return o;
}

json_t *hosts_nic_read(const struct profile_host *h, const char *control_dir, char *err)
{
    if (!h || h->local) {
        struct textbuf b = {0};
        nic_local_lines(&b);
        json_t *o = nic_parse(b.s ? b.s : "");
        textbuf_free(&b);
        return o;
    }
    char out[16384];
    if (run_on(h, control_dir, NIC_REMOTE_CMD, out, sizeof out) != 0) {
        util_err(err, "host %s: cannot read its NIC counters: %s", h->name, last_line(out));
        return NULL;
    }
    return nic_parse(out);
}

json_t *hosts_nic_delta(const json_t *before, const json_t *after)
{
    json_t *d = json_object(), *a;
    const char *iface;
    json_object_foreach((json_t *)after, iface, a)
    {
        json_t *b = json_object_get(before, iface);
        if (!b)
            continue;
        json_t *c = json_object();
        for (size_t i = 0; i < NIC_NCOUNTERS; i++) {
            json_int_t va = json_integer_value(json_object_get(a, nic_counters[i]));
            json_int_t vb = json_integer_value(json_object_get(b, nic_counters[i]));
            if (va >= vb)
                json_object_set_new(c, nic_counters[i], json_integer(va - vb));
        }
        json_object_set_new(d, iface, c);
    }
    return d;
}
