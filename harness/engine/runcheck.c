#include "engine/runcheck.h"
#include "adapters/adapter.h"
#include "engine/runlock.h"
#include "common/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Messages quote what the profile says (labels, tool names, paths) at
 * most this many bytes each, so that one message (UTIL_ERR_LEN) always
 * ends whole: the reason at its end is never cut off. */
enum { QUOTED_MAX = 60 };

/* s, or its first QUOTED_MAX bytes (never half a UTF-8 character) and
 * "..." in buf. */
static const char *quoted(const char *s, char buf[QUOTED_MAX + 4])
{
    size_t n = QUOTED_MAX;
    if (strlen(s) <= n)
        return s;
    while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;
    memcpy(buf, s, n);
    memcpy(buf + n, "...", 4);
    return buf;
}

/* Instances on hosts: what a tool's spread needs of its hosts. A master
 * listens on its host's load address (adapters/group.h), which its
 * workers and this machine's readiness check reach by number: an IPv4
 * address. JMeter's engines bind RMI to loopback, so they must run with
 * their controller on this machine. Returns 0, or -1 with err located at
 * the tool entry. */
/* target.protocol and target.tls against what the adapter maps: a tool that
 * cannot is refused here, never run over something else (no silent
 * fallback). Judged per entry: the profile's settings with the entry's own
 * (profile_entry_view). Returns 0, or -1 with err naming the tool and the
 * setting. */
static int check_protocol(const struct profile *whole, const struct profile_tool *t, const struct adapter *a,
                          char *err)
{
    struct profile view;
    const struct profile *p = &view;
    profile_entry_view(whole, t, &view);
    const char *need = NULL, *why = NULL;
    if (p->target.protocol == PROFILE_H2 && !(a->caps & ADAPTER_H2))
        need = "target.protocol h2 (HTTP/2 over TLS)", why = a->no_h2_why;
    else if (p->target.protocol == PROFILE_H2C && !(a->caps & ADAPTER_H2C))
        need = "target.protocol h2c (HTTP/2 with prior knowledge)", why = a->no_h2_why;
    else if (p->target.tls.version && !(a->caps & ADAPTER_TLS))
        need = "target.tls (HTTPS)";
    else if (profile_tool_load(p, t)->no_keepalive && !(a->caps & ADAPTER_NOKEEPALIVE))
        need = "load.keepalive off (a new connection for every request)", why = NULL;
    else if (p->check.status && !(a->caps & ADAPTER_CHECK))
        need = "check (a status check on every response)", why = a->no_check_why;
    else if (p->request.post && !(a->caps & ADAPTER_POST))
        need = "request: method POST (a body on every request)", why = a->no_post_why;
    if (!need)
        return 0;
    return util_err(err, "%s:%d:%d: %s cannot run %s: %s", p->path, t->line, t->col, t->tool, need,
                    why ? why : "its adapter does not map it (`loadbench tools` lists what each supports)");
}

static int check_spread_hosts(const struct profile *p, const struct profile_tool *t, const struct adapter *a,
                              char *err)
{
    struct in_addr in;
    if (t->instances < 2 || !t->nhosts)
        return 0;
    const struct profile_host *h = profile_host_by_name(p, t->host);
    const char *addr = profile_host_load_address(h);
    if (a->spread == ADAPTER_SPREAD_MASTER && inet_pton(AF_INET, addr, &in) != 1)
        return util_err(err, "%s:%d:%d: %s's master on host %s listens on its load address \"%s\", which must be an "
                        "IPv4 address for the workers and loadbench to reach it (give %s an address:)",
                        p->path, t->line, t->col, t->label, h->name, addr, h->name);
    if (a->spread == ADAPTER_SPREAD_MASTER && t->nhosts > 1 && !strncmp(addr, "127.", 4))
        return util_err(err, "%s:%d:%d: %s's master on host %s listens on %s, which its workers on %s cannot reach "
                        "(give %s an address: on the network they share)",
                        p->path, t->line, t->col, t->label, h->name, addr, t->hosts[1], h->name);
    if (a->spread == ADAPTER_SPREAD_INTERNAL && (t->nhosts > 1 || !h->local))
        return util_err(err, "%s:%d:%d: %s instances on %s%s: not supported yet (its controller starts its client VMs "
                        "itself, here only; run them here, or instances: 1 there)",
                        p->path, t->line, t->col, t->label, t->nhosts > 1 ? "several hosts" : "host ",
                        t->nhosts > 1 ? "" : h->name);
    if (a->spread != ADAPTER_SPREAD_ENGINES)
        return 0;
    if (t->nhosts > 1)
        return util_err(err, "%s:%d:%d: %s engines on several hosts: not supported yet (RMI is bound to loopback)",
                        p->path, t->line, t->col, t->label);
    if (!h->local)
        return util_err(err, "%s:%d:%d: %s engines on host %s: not supported yet (RMI is bound to loopback there, "
                        "out of this machine's reach; run them here, or instances: 1 there)",
                        p->path, t->line, t->col, t->label, h->name);
    return 0;
}

/* Every tool named in the profile has an adapter, and its options are ones
 * the adapter knows; every CPU it pins to is one this process may use. */
static int check_tools(const struct profile *p, char *err)
{
    if (profile_check_cpus(p, err))
        return -1;
    for (size_t i = 0; i < p->ntools; i++) {
        const struct profile_tool *t = &p->tools[i];
        const struct adapter *a = adapter_by_name(t->tool);
        for (const struct adapter_unrunnable *u = adapter_unrunnable; !a && u->name; u++)
            if (!strcmp(u->name, t->tool))
                return util_err(err, "%s:%d:%d: %s: %s", p->path, t->line, t->col, t->tool, u->why);
        if (!a) {
            /* Not the list itself: it outgrew a message line (UTIL_ERR_LEN). */
            size_t n = 0;
            while (adapter_registry[n])
                n++;
            char q[QUOTED_MAX + 4];
            return util_err(err, "%s:%d:%d: unknown tool \"%s\" (`loadbench tools` lists the %zu it knows)", p->path,
                            t->line, t->col, quoted(t->tool, q), n);
        }
        const char *key;
        json_t *v;
        json_object_foreach(t->options, key, v)
        {
            int ok = 0;
            char q[QUOTED_MAX + 4];
            for (const char *const *o = a->options; o && *o; o++)
                ok |= !strcmp(*o, key);
            if (!ok)
                return util_err(err, "%s:%d:%d: %s has no option \"%s\"", p->path, t->line, t->col, t->tool,
                                quoted(key, q));
        }
        if (check_spread_hosts(p, t, a, err) || check_protocol(p, t, a, err))
            return -1;
        const struct profile_load *l = profile_tool_load(p, t);
        if (l->model == LOAD_OPEN && !(a->caps & (ADAPTER_OPEN | ADAPTER_PACED)))
            return util_err(err, "%s:%d:%d: %s cannot run the open model (arrivals per second); give it a closed load",
                            p->path, t->line, t->col, t->tool);
        if (l->poisson && !(a->caps & (ADAPTER_POISSON | ADAPTER_POISSON_ONLY)))
            return util_err(err, "%s:%d:%d: %s sends its arrivals on a timetable: load.arrivals: poisson needs a tool "
                            "that draws them (lb-gen; Tsung's are always Poisson)", p->path, t->line, t->col, t->tool);
        if (l->model == LOAD_CLOSED && !(a->caps & ADAPTER_CLOSED))
            return util_err(err, "%s:%d:%d: %s cannot run the closed model; give it an open load", p->path, t->line,
                            t->col, t->tool);
    }
    return 0;
}

/* A tool entry's bin: is there and executable (found in PATH when it has
 * no '/'). Whether it works as that tool needs its version probe, which
 * starts it: run checks that after this. A bin: naming a toolchain is the
 * adapter's to find. Returns 0, or -1 with err at the tool entry. */
const struct adapter *runcheck_own_bin(const struct profile_tool *t, const char *only)
{
    const struct adapter *a = t->bin ? adapter_by_name(t->tool) : NULL;
    return a && !a->bin_is_toolchain && profile_only_selects(only, t->label) ? a : NULL;
}

static int check_bin_paths(const struct profile *p, const char *only, char *err)
{
    for (size_t i = 0; i < p->ntools; i++) {
        const struct profile_tool *t = &p->tools[i];
        char found[PATH_MAX], ql[QUOTED_MAX + 4], qb[QUOTED_MAX + 4];
        struct stat st;
        if (!runcheck_own_bin(t, only) || !adapter_which(t->bin, found, sizeof found))
            continue;
        const char *label = quoted(t->label, ql), *bin = quoted(t->bin, qb);
        if (!strchr(t->bin, '/'))
            return util_err(err, "%s:%d:%d: %s: bin %s: not found in PATH", p->path, t->line, t->col, label, bin);
        if (stat(t->bin, &st) < 0)
            return util_err(err, "%s:%d:%d: %s: bin %s: %s", p->path, t->line, t->col, label, bin, strerror(errno));
        /* A folder is a tool's home (JMeter's bin: names one): its adapter
         * finds what it needs in it, and a folder cannot hang a probe. */
        if (S_ISDIR(st.st_mode))
            continue;
        if (!S_ISREG(st.st_mode)) /* a FIFO's probe (its #! line, its --version) would wait for ever */
            return util_err(err, "%s:%d:%d: %s: bin %s: not a regular file%s: a tool is a regular executable file",
                            p->path, t->line, t->col, label, bin,
                            S_ISFIFO(st.st_mode) ? " (a FIFO)" : " (a device or socket)");
        return util_err(err, "%s:%d:%d: %s: bin %s: not executable (chmod +x it)", p->path, t->line, t->col, label,
                        bin);
    }
    return 0;
}

/* ---- names derived from labels --------------------------------------------- */

/* What a run directory holds of its own. A tool run's folder is
 * "<label>[@level][#repeat]" beside them, and each file is written through
 * "<name>.tmp.<pid>": a label equal to one of these, or one followed by
 * what joins (below), would take its place (issue #29: label run.json). */
static const char *const run_dir_names[] = {"run.json",    "profile.yaml", RUNLOCK_FILE, "summary.md", "results.csv",
                                            "stats.csv",   "report.html",  "samples",    "charts",     NULL};

/* Whether c (and the character after it) can join a label to what is
 * derived from it: samples/"x.target.csv", "x.p0.csv", "x.csv.tmp.PID"
 * after '.'; a level "x@10" (%.10g of a positive number: a digit first)
 * or a repeat "x#2" after '@' and '#'. So "k6@head" beside "k6" is fine,
 * "k6@10" is not. */
static int joins(const char *c)
{
    return *c == '.' || ((*c == '@' || *c == '#') && c[1] >= '0' && c[1] <= '9');
}

/* A label as file names derived from it read it: charts/ts_<folder>.png
 * has ' ' as '_', and a file system that folds case (a results folder on
 * vfat or macOS) reads "WRK" as "wrk". Returns a heap string. */
static char *label_as_file(const char *label)
{
    char *s = util_xstrdup(label);
    for (char *c = s; *c; c++)
        *c = *c == ' ' ? '_' : *c >= 'A' && *c <= 'Z' ? (char)(*c - 'A' + 'a') : *c;
    return s;
}

struct named {
    char *name; /* label_as_file */
    size_t tool; /* index in the profile */
};

static int named_cmp(const void *a, const void *b)
{
    return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* The entry of sorted names n[0..count) whose name is exactly s[0..len),
 * or NULL. */
static const struct named *named_find(const struct named *n, size_t count, const char *s, size_t len)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strncmp(n[mid].name, s, len);
        if (c == 0 && n[mid].name[len])
            c = 1;
        if (c == 0)
            return &n[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* t's label clashes with o's: the message at t's label. */
static int clash_err(const struct profile *p, const struct profile_tool *t, const struct profile_tool *o, char *err)
{
    char qt[QUOTED_MAX + 4], qo[QUOTED_MAX + 4];
    return util_err(err, "%s:%d:%d: labels \"%s\" and \"%s\" (line %d) would share file names: no label may be "
                    "another followed by '.', '@'/'#' and a digit, or differ from it only in case, ' ' and '_'",
                    p->path, t->label_line, t->label_col, quoted(t->label, qt), quoted(o->label, qo), o->label_line);
}

/* Two labels whose derived names could be one file: equal as files read
 * them (label_as_file), or one the other followed by what joins (derived
 * names are a label and what joins it, so two can be equal only then).
 * Sorted, each label's prefixes at those characters are looked up: n log
 * n for a profile of many tools. Returns 0, or -1 with err at the longer
 * label's entry. */
static int check_label_clashes(const struct profile *p, char *err)
{
    struct named *n = util_xcalloc(p->ntools ? p->ntools : 1, sizeof *n);
    int rc = 0;
    for (size_t i = 0; i < p->ntools; i++)
        n[i] = (struct named){.name = label_as_file(p->tools[i].label), .tool = i};
    qsort(n, p->ntools, sizeof *n, named_cmp);
    for (size_t i = 0; i < p->ntools && !rc; i++) {
        if (i && !strcmp(n[i - 1].name, n[i].name)) {
            size_t a = n[i - 1].tool, b = n[i].tool;
            rc = clash_err(p, &p->tools[a > b ? a : b], &p->tools[a > b ? b : a], err);
        }
        for (const char *c = n[i].name; *c && !rc; c++) {
            const struct named *o = joins(c) ? named_find(n, p->ntools, n[i].name, (size_t)(c - n[i].name)) : NULL;
            if (o)
                rc = clash_err(p, &p->tools[n[i].tool], &p->tools[o->tool], err);
        }
    }
    for (size_t i = 0; i < p->ntools; i++)
        free(n[i].name);
    free(n);
    return rc;
}

/* No label names a file of the run directory itself (case aside: some
 * file systems fold it). Returns 0, or -1 with err at the entry. */
static int check_run_dir_names(const struct profile *p, char *err)
{
    for (size_t i = 0; i < p->ntools; i++) {
        const struct profile_tool *t = &p->tools[i];
        for (const char *const *r = run_dir_names; *r; r++) {
            size_t len = strlen(*r);
            char q[QUOTED_MAX + 4];
            if (!strncasecmp(t->label, *r, len) && (!t->label[len] || joins(t->label + len)))
                return util_err(err, "%s:%d:%d: label \"%s\" would take the place of the run directory's own %s: "
                                "choose another label", p->path, t->label_line, t->label_col, quoted(t->label, q), *r);
        }
    }
    return 0;
}

int runcheck_profile(const struct profile *p, const char *only, char *err)
{
    if (check_tools(p, err) || check_bin_paths(p, only, err))
        return -1;
    if (check_run_dir_names(p, err) || check_label_clashes(p, err))
        return -1;
    return 0;
}
