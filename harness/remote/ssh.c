#include "remote/ssh.h"
#include "remote/agentproto.h"
#include "remote/exec.h"
#include "engine/runlock.h"
#include "adapters/refgen.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The counters kept per interface, in the order of a NIC line. */
static const char *const nic_counters[] = {"rx_bytes",   "tx_bytes",   "rx_packets",       "tx_packets",
                                           "rx_dropped", "tx_dropped", "rx_missed_errors", "rx_fifo_errors"};
#define NIC_NCOUNTERS (sizeof nic_counters / sizeof *nic_counters)

/* The same lines read over ssh: "IFACE rx_bytes tx_bytes ...". Run by the
 * remote user's shell, so plain POSIX sh with no single quote inside. */
#define NIC_REMOTE_CMD                                                                                    \
    "sh -c 'cd /sys/class/net && for i in *; do s=$i/statistics; echo \"lb-nic $i $(cat $s/rx_bytes "    \
    "$s/tx_bytes $s/rx_packets $s/tx_packets $s/rx_dropped $s/tx_dropped $s/rx_missed_errors "     \
    "$s/rx_fifo_errors | tr \"\\n\" \" \")\"; done'"

/* The control socket's name for h: a 64-bit FNV-1a of its destination.
 * Not ssh's %C (40 hex digits): the master binds its socket first under
 * a 17-character temporary suffix, and with the directory's name (about
 * 60 bytes: pid, start time, pid namespace) that passed the 108 bytes of
 * a socket path ("unix_listener: path ... too long") once the machine's
 * uptime made the start time 7 digits long. */
static uint64_t control_name(const struct profile_host *h)
{
    char dest[300];
    uint64_t x = 14695981039346656037ull;
    profile_host_destination(h, dest, sizeof dest);
    for (const char *c = dest; *c; c++)
        x = (x ^ (unsigned char)*c) * 1099511628211ull;
    return x;
}

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
        strvec_pushf(out, "ControlPath=%s/%016" PRIx64, control_dir, control_name(h));
    }
    if (h->user)
        strvec_pushf(out, "%s@%s", h->user, h->ssh_host);
    else
        strvec_push(out, h->ssh_host);
}

int hosts_control_dir(char *dir, char *err)
{
    /* /tmp, not TMPDIR: a socket path must fit in 108 bytes (this name is
     * about 60, the socket's 16 more and ssh's temporary suffix 17). The
     * owner's tag lets a later
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
    return runlock_sweep_dirs("/tmp", HOSTS_CONTROL_PREFIX + strlen("/tmp/"), hosts_control_dir_remove);
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

/* What ssh said, from its output: its last line, and, when it refused a
 * host key that changed, its "REMOTE HOST IDENTIFICATION HAS CHANGED"
 * line before it (alone, "Host key verification failed." reads like an
 * unknown key). In place. */
static const char *ssh_said(char *out)
{
    static __thread char both[600];
    if (!out[0])
        return "no answer";
    char *changed = strstr(out, "REMOTE HOST IDENTIFICATION HAS CHANGED");
    const char *last = last_line(out);
    if (!changed || changed > last)
        return last;
    char *eol = strchr(changed, '\n');
    int len = eol ? (int)(eol - changed) : (int)strlen(changed);
    while (len > 0 && strchr("@! \r", changed[len - 1]))
        len--;
    snprintf(both, sizeof both, "%.*s: %s", len, changed, last);
    return both;
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

void hosts_where(const struct profile *p, const struct profile_host *h, char *out, size_t outlen)
{
    char dest[300];
    profile_host_destination(h, dest, sizeof dest);
    if (p)
        snprintf(out, outlen, "%s:%d:%d: host %s (%s)", p->path, h->line, h->col, h->name, dest);
    else
        snprintf(out, outlen, "host %s", dest);
}

int hosts_reach(const struct profile *p, const struct profile_host *h, const char *control_dir, char *err)
{
    char out[4096], where[600], port[16] = "", conf[PATH_MAX + 8] = "";
    if (!h || h->local)
        return 0;
    if (run_on(h, control_dir, "exit 0", out, sizeof out) == 0)
        return 0;
    hosts_where(p, h, where, sizeof where);
    if (h->port)
        snprintf(port, sizeof port, " -p %u", h->port);
    const char *config = getenv("LOADBENCH_SSH_CONFIG");
    if (config && *config) /* the hint's ssh reads what loadbench's reads */
        snprintf(conf, sizeof conf, " -F %s", config);
    return util_err(err, "%s cannot be reached over ssh: %s (try `ssh%s -o BatchMode=yes%s %s%s%s true`)",
                    where, ssh_said(out), conf, port, h->user ? h->user : "", h->user ? "@" : "", h->ssh_host);
}

int hosts_check_reachable(const struct profile *p, const char *only, const char *control_dir, char *err)
{
    /* Each host once, in the order of hosts:, if anything is placed on it. */
    for (size_t i = 0; i < p->nhosts; i++) {
        const struct profile_host *h = &p->hosts[i];
        int used = p->target_host && !strcmp(p->target_host, h->name);
        for (size_t t = 0; t < p->ntools && !used; t++)
            for (unsigned k = 0; k < p->tools[t].nhosts && !used; k++)
                used = !strcmp(p->tools[t].hosts[k], h->name) && profile_only_selects(only, p->tools[t].label);
        if (used && hosts_reach(p, h, control_dir, err))
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
        if (sscanf(line, "lb-nic %63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                   " %" SCNu64, name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 1 + (int)NIC_NCOUNTERS)
            continue;
        json_t *c = json_object();
        for (size_t i = 0; i < NIC_NCOUNTERS; i++)
            json_object_set_new(c, nic_counters[i], json_integer((json_int_t)v[i]));
        json_object_set_new(o, name, c);
    }
    return o;
}

json_t *hosts_nic_local(void)
{
    struct textbuf b = {0};
    nic_local_lines(&b);
    json_t *o = nic_parse(b.s ? b.s : "");
    textbuf_free(&b);
    return o;
}

json_t *hosts_nic_read(const struct profile_host *h, struct exec_host *agent, const char *control_dir, char *err)
{
    if (!h || h->local)
        return hosts_nic_local();
    if (agent) {
        json_t *rep = exec_remote_call(agent, json_pack("{s:s}", "op", "nic"), err);
        json_t *o = json_is_object(json_object_get(rep, "nic")) ? json_incref(json_object_get(rep, "nic")) : NULL;
        if (rep && !o)
            util_err(err, "host %s: its agent's nic reply has no counters", h->name);
        json_decref(rep);
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

/* ---- this build on a host: its cache, the agent's command ------------------------ */

int hosts_build_id(char *out, size_t outlen, char *err)
{
    char sha[65];
    if (agentproto_identity(NULL, sha, err))
        return -1;
    snprintf(out, outlen, "%s-%s-%.12s", LB_VERSION, LB_GIT_REV, sha);
    return 0;
}

/* s can go between double quotes inside single quotes (the remote
 * commands here): none of ' " $ ` \\ or a control character. */
static int sh_plain(const char *s)
{
    for (; *s; s++)
        if (strchr("'\"$`\\", *s) || (unsigned char)*s < 0x20)
            return 0;
    return 1;
}

char *hosts_agent_command(char *err)
{
    char id[128], self[PATH_MAX];
    if (hosts_build_id(id, sizeof id, err))
        return NULL;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    if (!sh_plain(self)) /* a path the remote shell would misread is left out, not quoted */
        self[0] = 0;
    /* ssh hands the words to the remote user's shell, whatever it is:
     * one sh -c '...' is read alike by all of them. The word "agent"
     * exec_remote appends becomes the script's $0. */
    return util_xasprintf("sh -c 'for c in \"" HOSTS_CACHE_SH "/%s/bin/loadbench\" \"%s\" \"$(command -v loadbench)\"; "
                          "do [ -n \"$c\" ] && [ -x \"$c\" ] && exec \"$c\" agent; done; "
                          "echo \"no loadbench here: not in " HOSTS_CACHE_SH "/%s (loadbench hosts install), "
                          "not at %s, not on PATH\" >&2; exit 127'",
                          id, self, id, self[0] ? self : "this path");
}

void hosts_install_command(const struct profile *p, const struct profile_host *h, char *out, size_t outlen)
{
    char dest[300];
    profile_host_destination(h, dest, sizeof dest);
    if (p)
        snprintf(out, outlen, "loadbench hosts install %s %s", h->name, p->path);
    else
        snprintf(out, outlen, "loadbench hosts install %s", dest);
}

/* err, exec_remote's ("host NAME: why" or "host NAME runs ..."), as
 * "WHERE: why" or "WHERE runs ...". */
static void locate_err(const struct profile *p, const struct profile_host *h, const char *name, char *err)
{
    char where[600], why[UTIL_ERR_LEN], prefix[80];
    size_t n = (size_t)snprintf(prefix, sizeof prefix, "host %s", name);
    const char *rest = err, *sep = ": ";
    if (!strncmp(err, prefix, n) && (err[n] == ':' || err[n] == ' ')) {
        sep = err[n] == ':' ? ": " : " ";
        rest = err + n + strlen(sep);
    }
    snprintf(why, sizeof why, "%s", rest);
    hosts_where(p, h, where, sizeof where);
    util_err(err, "%s%s%s", where, sep, why);
}

struct exec_host *hosts_agent_open(const struct profile *p, const struct profile_host *h, const char *control_dir,
                                   char *err)
{
    struct strvec tr = {0};
    char fix[PATH_MAX + 400];
    char *cmd = hosts_agent_command(err);
    if (!cmd)
        return NULL;
    hosts_transport_argv(h, control_dir, &tr);
    hosts_install_command(p, h, fix, sizeof fix);
    struct exec_remote_opts eo = {.name = h->name ? h->name : h->ssh_host, .transport = (const char *const *)tr.v,
                                  .agent_bin = cmd, .install_cmd = fix, .check_files = 1};
    struct exec_host *a = exec_remote_open(&eo, err);
    if (!a)
        locate_err(p, h, eo.name, err);
    strvec_free(&tr);
    free(cmd);
    return a;
}

/* ---- hosts install ---------------------------------------------------------------- */

/* One file of the build and where it goes below the cache directory. */
struct install_file {
    char src[PATH_MAX];
    char rel[PATH_MAX];
};

/* The files to copy: loadbench, then the files of this build a host runs
 * from its copy (agentproto_build_files: lb-target, lb-gen, every file in
 * a subdirectory of DATADIR/adapters and DATADIR/refgen, as `make
 * install` lays them out). Returns how many (into *files), or -1 with err. */
static ssize_t install_files(struct install_file **files, char *err)
{
    json_t *m = agentproto_build_files(adapter_bindir(), adapter_datadir()), *v;
    size_t n = 0;
    const char *rel;
    struct install_file *f = util_xcalloc(json_object_size(m) + 1, sizeof *f);
    snprintf(f[n].src, sizeof f[n].src, "%s/loadbench", adapter_bindir());
    snprintf(f[n].rel, sizeof f[n].rel, "bin/loadbench");
    n++;
    json_object_foreach(m, rel, v)
    {
        agentproto_build_path(rel, adapter_bindir(), adapter_datadir(), f[n].src, sizeof f[n].src);
        snprintf(f[n].rel, sizeof f[n].rel, "%s", rel);
        n++;
    }
    json_decref(m);
    for (size_t i = 0; i < n; i++)
        if (!strncmp(f[i].rel, "bin/", 4) && access(f[i].src, X_OK)) {
            util_err(err, "%s: %s (build it first: make)", f[i].src, strerror(errno));
            free(f);
            return -1;
        }
    *files = f;
    return (ssize_t)n;
}

/* The host's architecture and cache directory, from one login. Returns
 * 0, or -1 with err. */
static int install_probe(const struct profile_host *h, const char *control_dir, const char *where, char *arch,
                         char *cache, char *err)
{
    char out[4096];
    int rc = run_on(h, control_dir, "sh -c 'echo lb-arch $(uname -m); echo lb-cache \"" HOSTS_CACHE_SH "\"'", out,
                    sizeof out);
    const char *a = strstr(out, "lb-arch "), *c = strstr(out, "lb-cache ");
    if (rc || !a || !c)
        return util_err(err, "%s: cannot read its architecture and home: %s", where,
                        out[0] ? last_line(out) : "no answer");
    sscanf(a, "lb-arch %63s", arch);
    sscanf(c, "lb-cache %1023[^\n]", cache);
    if (cache[0] != '/' || !sh_plain(cache))
        return util_err(err, "%s: its cache directory \"%s\" is not a plain absolute path (set XDG_CACHE_HOME there)",
                        where, cache);
    return 0;
}

/* Send the file src to path on h (its directory made, mode of src). */
static int install_put(const struct profile_host *h, const char *control_dir, const char *src, const char *path,
                       char *err)
{
    struct stat st;
    if (!sh_plain(path))
        return util_err(err, "%s: a name the remote shell would misread (no ' \" $ ` \\ there)", path);
    int fd = open(src, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st)) {
        if (fd >= 0)
            close(fd);
        return util_err(err, "cannot read %s: %s", src, strerror(errno));
    }
    char *cmd = util_xasprintf("sh -c 'mkdir -p \"$(dirname \"%s\")\" && cat > \"%s\" && chmod %o \"%s\"'", path, path,
                               (unsigned)(st.st_mode & 0777), path);
    struct strvec argv = {0};
    char out[4096];
    hosts_transport_argv(h, control_dir, &argv);
    strvec_push(&argv, cmd);
    int rc = adapter_capture_in((const char *const *)argv.v, fd, out, sizeof out);
    strvec_free(&argv);
    free(cmd);
    close(fd);
    if (rc)
        return util_err(err, "cannot write %s there: %s", path, out[0] ? last_line(out) : "ssh failed");
    return 0;
}

/* files[0] (loadbench) by one `ssh ... cat`, then the others through an
 * agent started from that copy (one session, its puts multiplexed: a
 * login per file took about a second each on a busy machine). Returns 0,
 * or -1 with err. */
static int install_copy(const struct profile_host *h, const char *control_dir, const struct install_file *files,
                        size_t n, const char *stage, char *err)
{
    char *bin = util_xasprintf("%s/%s", stage, files[0].rel);
    int rc = install_put(h, control_dir, files[0].src, bin, err);
    struct strvec tr = {0};
    hosts_transport_argv(h, control_dir, &tr);
    struct exec_remote_opts eo = {.name = h->name ? h->name : h->ssh_host, .transport = (const char *const *)tr.v,
                                  .agent_bin = bin};
    struct exec_host *a = rc ? NULL : exec_remote_open(&eo, err);
    rc = a ? 0 : -1;
    /* The stage is the agent's run directory: it puts files only below one. */
    json_t *made = a ? exec_remote_call(a, json_pack("{s:s, s:s}", "op", "mkdir", "dir", stage), err) : NULL;
    rc = made ? 0 : -1;
    json_decref(made);
    for (size_t i = 1; i < n && !rc; i++) {
        char *path = util_xasprintf("%s/%s", stage, files[i].rel);
        rc = exec_remote_put(a, files[i].src, path, err);
        free(path);
    }
    exec_remote_close(a);
    strvec_free(&tr);
    free(bin);
    return rc;
}

/* `loadbench tools` of the copy just installed, on the host: it builds
 * what it builds on first use (at most 5 minutes), each build leaving
 * BUILD/NAME/build-failed when it failed (adapters/go-fasthttp.c), which
 * the same login then prints. Returns 0, or -1 with err naming the step
 * that failed (a tool that cannot be built there for want of its
 * toolchain is not one: `tools --host` says why). */
static int install_build(const struct profile_host *h, const char *control_dir, const char *where_dir, char *err)
{
    struct strvec argv = {0};
    char log[PATH_MAX], e[UTIL_ERR_LEN];
    hosts_transport_argv(h, control_dir, &argv);
    strvec_pushf(&argv,
                 "\"%s/bin/loadbench\" tools >/dev/null 2>&1; for f in \"%s\"/share/loadbench/build/refgen/*/build-failed; "
                 "do [ -f \"$f\" ] && echo \"lb-build-failed $(basename \"$(dirname \"$f\")\"): $(head -c 300 \"$f\")\"; "
                 "done; exit 0",
                 where_dir, where_dir);
    char ssh[PATH_MAX]; /* refgen_exec does not search PATH */
    if (adapter_which(argv.v[0], ssh, sizeof ssh) == 0) {
        free(argv.v[0]);
        argv.v[0] = util_xstrdup(ssh);
    }
    snprintf(log, sizeof log, "%s/install-build.log", control_dir);
    int rc = refgen_exec((const char *const *)argv.v, NULL, log, 300000, e);
    char *out = adapter_slurp(NULL, log, 1 << 20, e);
    const char *failed = out ? strstr(out, "lb-build-failed ") : NULL;
    if (failed) {
        char line[UTIL_ERR_LEN];
        snprintf(line, sizeof line, "%s", failed + strlen("lb-build-failed "));
        line[strcspn(line, "\n")] = 0;
        rc = util_err(err, "the build step refgen/%s", line);
    } else if (rc) {
        rc = util_err(err, "its first-use builds (`loadbench tools` there) did not finish: %s", rc < 0 ? e : "ssh failed");
    }
    free(out);
    unlink(log);
    strvec_free(&argv);
    return rc ? -1 : 0;
}

int hosts_install(const struct profile *p, const struct profile_host *h, const char *control_dir, char *where_dir,
                  char *err)
{
    char where[600], arch[64] = "", cache[1024] = "", id[128], out[4096], e[UTIL_ERR_LEN];
    struct utsname u;
    struct install_file *files = NULL;
    hosts_where(p, h, where, sizeof where);
    if (hosts_build_id(id, sizeof id, err) || hosts_reach(p, h, control_dir, err) ||
        install_probe(h, control_dir, where, arch, cache, err))
        return -1;
    uname(&u);
    if (strcmp(arch, u.machine))
        return util_err(err, "%s is %s but this build is %s: build loadbench there (make install) instead", where, arch,
                        u.machine);
    ssize_t n = install_files(&files, err);
    if (n < 0)
        return -1;
    char *stage = util_xasprintf("%s/%s.lb-part-%d", cache, id, (int)getpid());
    snprintf(where_dir, PATH_MAX, "%s/%s", cache, id);
    int rc = install_copy(h, control_dir, files, (size_t)n, stage, e) ? util_err(err, "%s: %s", where, e) : 0;
    /* The whole build appears at once: an agent never starts from half.
     * What an earlier install of this very build built there (build/:
     * refgen/go-fasthttp) moves into the new copy, so a reinstall keeps it. */
    char *fin = rc ? util_xasprintf("sh -c 'rm -rf \"%s\"'", stage)
                   : util_xasprintf("sh -c 'B=\"%s/share/loadbench/build\"; if [ -d \"$B\" ]; then mv \"$B\" "
                                    "\"%s/share/loadbench/\" || exit 1; fi; rm -rf \"%s\" && mv \"%s\" \"%s\"'",
                                    where_dir, stage, where_dir, stage, where_dir);
    if (run_on(h, control_dir, fin, out, sizeof out) && !rc)
        rc = util_err(err, "%s: cannot move the copy into %s: %s", where, where_dir, last_line(out));
    free(fin);
    /* What the host builds for itself (refgen/go-fasthttp, when Go and
     * fasthttp are there: ~20 s) is built here, by install, never by a
     * look-up (`tools --host` only looks). A build that fails (a full
     * disk) fails the install, naming it; a tool that cannot be built
     * there for want of Go is not an install error: `tools --host` then
     * says why. */
    if (!rc && install_build(h, control_dir, where_dir, e))
        rc = util_err(err, "%s: %s", where, e);
    free(stage);
    free(files);
    return rc;
}
