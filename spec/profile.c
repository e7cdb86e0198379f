#include "spec/profile.h"
#include "common/limits.h"
#include "common/sha256.h"
#include "common/units.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* Limits that keep hostile files cheap: profiles are small documents. */
#define MAX_DEPTH 32
#define MAX_NODES 100000
#define MAX_FILE_BYTES (4 << 20)

/* ---- a small YAML tree with positions --------------------------------- */

enum ykind { Y_SCALAR, Y_MAP, Y_SEQ };

struct ynode {
    enum ykind kind;
    int line, col;          /* 1-based */
    char *str;              /* scalar value */
    int plain;              /* scalar was unquoted */
    struct ynode **kids;    /* seq items; map: key, value, key, value... */
    size_t n, cap;
};

struct yparse {
    const char *name;
    const char *text;       /* the document, to place reader (encoding) errors */
    size_t len;
    char *err;
    size_t nodes;
};

static void ynode_free(struct ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++)
        ynode_free(n->kids[i]);
    free(n->kids);
    free(n->str);
    free(n);
}

static void ynode_push(struct ynode *parent, struct ynode *kid)
{
    if (parent->n == parent->cap) {
        parent->cap = parent->cap ? parent->cap * 2 : 8;
        parent->kids = util_xrealloc(parent->kids, parent->cap * sizeof *parent->kids);
    }
    parent->kids[parent->n++] = kid;
}

static int perr(struct yparse *y, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int perr(struct yparse *y, int line, int col, const char *fmt, ...)
{
    char msg[UTIL_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return util_err(y->err, "%s:%d:%d: %s", y->name, line, col, msg);
}

/* Report libyaml's error with its position. Encoding errors come from the
 * reader, which gives a byte offset instead of a mark. */
static int syntax_err(struct yparse *y, const yaml_parser_t *p)
{
    int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
    if (p->error == YAML_READER_ERROR) {
        line = 1;
        col = 1;
        for (size_t i = 0; i < p->problem_offset && i < y->len; i++) {
            if (y->text[i] == '\n') {
                line++;
                col = 1;
            } else if (((unsigned char)y->text[i] & 0xC0) != 0x80) {
                col++;
            }
        }
    }
    return perr(y, line, col, "YAML syntax: %s%s%s", p->problem ? p->problem : "unreadable",
                p->context ? " " : "", p->context ? p->context : "");
}

/* Build the node for the event just read (and, for collections, everything
 * up to its end event). Returns NULL with y->err set. */
static struct ynode *ybuild(struct yparse *y, yaml_parser_t *p, yaml_event_t *ev, int depth)
{
    int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
    if (++y->nodes > MAX_NODES) {
        perr(y, line, col, "profile too large (over %d YAML nodes)", MAX_NODES);
        return NULL;
    }
    if (ev->type == YAML_ALIAS_EVENT) {
        perr(y, line, col, "YAML aliases (*name) are not allowed in profiles: write the value out");
        return NULL;
    }
    if (depth > MAX_DEPTH) {
        perr(y, line, col, "profile nested too deeply (over %d levels)", MAX_DEPTH);
        return NULL;
    }
    struct ynode *n = util_xcalloc(1, sizeof *n);
    n->line = line;
    n->col = col;
    if (ev->type == YAML_SCALAR_EVENT) {
        n->kind = Y_SCALAR;
        n->str = util_xstrdup((const char *)ev->data.scalar.value);
        n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (strlen(n->str) != ev->data.scalar.length) {
            perr(y, line, col, "NUL byte inside a value");
            goto err;
        }
        return n;
    }
    yaml_event_type_t end;
    if (ev->type == YAML_MAPPING_START_EVENT) {
        n->kind = Y_MAP;
        end = YAML_MAPPING_END_EVENT;
    } else if (ev->type == YAML_SEQUENCE_START_EVENT) {
        n->kind = Y_SEQ;
        end = YAML_SEQUENCE_END_EVENT;
    } else {
        perr(y, line, col, "unexpected YAML element");
        goto err;
    }
    for (;;) {
        yaml_event_t kev;
        if (!yaml_parser_parse(p, &kev)) {
            syntax_err(y, p);
            goto err;
        }
        if (kev.type == end) {
            yaml_event_delete(&kev);
            break;
        }
        struct ynode *kid = ybuild(y, p, &kev, depth + 1);
        yaml_event_delete(&kev);
        if (!kid)
            goto err;
        if (n->kind == Y_MAP && (n->n % 2) == 0) {
            if (kid->kind != Y_SCALAR) {
                perr(y, kid->line, kid->col, "a mapping key must be a plain name");
                ynode_free(kid);
                goto err;
            }
            for (size_t i = 0; i < n->n; i += 2) {
                if (!strcmp(n->kids[i]->str, kid->str)) {
                    perr(y, kid->line, kid->col, "key \"%s\" given twice (first at line %d)", kid->str, n->kids[i]->line);
                    ynode_free(kid);
                    goto err;
                }
            }
        }
        ynode_push(n, kid);
    }
    return n;
err:
    ynode_free(n);
    return NULL;
}

static struct ynode *yparse_doc(struct yparse *y, const char *text, size_t len)
{
    yaml_parser_t p;
    yaml_event_t ev;
    struct ynode *root = NULL;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int docs = 0;
    for (;;) {
        if (!yaml_parser_parse(&p, &ev)) {
            syntax_err(y, &p);
            goto err;
        }
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (t == YAML_DOCUMENT_START_EVENT) {
            if (++docs > 1) {
                perr(y, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
                     "more than one YAML document: a profile is one document");
                yaml_event_delete(&ev);
                goto err;
            }
        } else if (t == YAML_SCALAR_EVENT || t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT ||
                   t == YAML_ALIAS_EVENT) {
            root = ybuild(y, &p, &ev, 0);
            if (!root) {
                yaml_event_delete(&ev);
                goto err;
            }
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    if (!root) {
        perr(y, 1, 1, "empty profile: expected a mapping with at least `load:` and `tools:`");
        return NULL;
    }
    if (root->kind != Y_MAP) {
        perr(y, root->line, root->col, "a profile is a mapping of keys (name:, target:, load:, tools:, ...)");
        ynode_free(root);
        return NULL;
    }
    return root;
err:
    ynode_free(root);
    yaml_parser_delete(&p);
    return NULL;
}

/* ---- typed access -------------------------------------------------------- */

static const char *kind_name(enum ykind k)
{
    return k == Y_MAP ? "a mapping" : k == Y_SEQ ? "a list" : "a value";
}

static int want_kind(struct yparse *y, const struct ynode *n, enum ykind k, const char *what)
{
    if (n->kind == k)
        return 0;
    return perr(y, n->line, n->col, "%s must be %s, not %s", what, kind_name(k), kind_name(n->kind));
}

/* Reject keys of map that are not in allowed (NULL-terminated). */
static int check_keys(struct yparse *y, const struct ynode *map, const char *where, const char *const *allowed)
{
    for (size_t i = 0; i < map->n; i += 2) {
        const struct ynode *k = map->kids[i];
        int found = 0;
        for (const char *const *a = allowed; *a; a++)
            if (!strcmp(*a, k->str))
                found = 1;
        if (!found) {
            char list[160] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 1);
                if (a[1])
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return perr(y, k->line, k->col, "unknown key \"%s\" in %s (known: %s)", k->str, where, list);
        }
    }
    return 0;
}

static const struct ynode *get(const struct ynode *map, const char *key)
{
    for (size_t i = 0; i < map->n; i += 2)
        if (!strcmp(map->kids[i]->str, key))
            return map->kids[i + 1];
    return NULL;
}

static int get_str(struct yparse *y, const struct ynode *n, const char *what, char **out)
{
    if (want_kind(y, n, Y_SCALAR, what))
        return -1;
    if (!n->str[0])
        return perr(y, n->line, n->col, "%s must not be empty", what);
    free(*out);
    *out = util_xstrdup(n->str);
    return 0;
}

static int get_duration(struct yparse *y, const struct ynode *n, const char *what, int allow_zero, uint64_t *out)
{
    char e[UTIL_ERR_LEN];
    if (want_kind(y, n, Y_SCALAR, what))
        return -1;
    if (units_parse_duration_ns(n->str, out, e))
        return perr(y, n->line, n->col, "%s: %s", what, e);
    if (!allow_zero && *out == 0)
        return perr(y, n->line, n->col, "%s must be longer than 0s", what);
    if (*out > PROFILE_DURATION_MAX_NS)
        return perr(y, n->line, n->col, "%s %s is longer than 7 days, the most a profile may give: a typo?", what,
                    n->str);
    return 0;
}

/* a + b, or UINT64_MAX where the sum would wrap past 2^64. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

/* a * b, or UINT64_MAX where the product would wrap. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    uint64_t m;
    return __builtin_mul_overflow(a, b, &m) ? UINT64_MAX : m;
}

/* name: or a label: text that files and folders are named after (what:
 * "name" or "label"): at most max bytes, without control characters,
 * '/' or '\\', not starting with '.'. Bytes from 0x80 up are UTF-8
 * (café, emoji): libyaml has refused invalid UTF-8, in the file and from
 * escapes, before any value gets here. Returns 0, or -1 with the error
 * at line:col (the text not quoted: it may be long or unprintable). */
static int check_file_name(struct yparse *y, int line, int col, const char *what, const char *s, size_t max)
{
    size_t len = strlen(s);
    if (len > max)
        return perr(y, line, col, "%s is %zu bytes long; at most %zu (files are named after it)", what, len, max);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c < 0x20 || *c == 0x7f || *c == '/' || *c == '\\')
            return perr(y, line, col, "%s must not contain '/', '\\' or control characters (byte %ld is 0x%02x)", what,
                        (long)(c - (const unsigned char *)s) + 1, *c);
    if (s[0] == '.')
        return perr(y, line, col, "%s must not start with '.' (a hidden name, or . and ..)", what);
    return 0;
}

static int get_size(struct yparse *y, const struct ynode *n, const char *what, uint64_t *out)
{
    char e[UTIL_ERR_LEN];
    if (want_kind(y, n, Y_SCALAR, what))
        return -1;
    if (units_parse_size_bytes(n->str, out, e))
        return perr(y, n->line, n->col, "%s: %s", what, e);
    return 0;
}

/* A number: integer or decimal, finite, within [min, max]. */
static int get_number(struct yparse *y, const struct ynode *n, const char *what, double min, double max, int integer,
                      double *out)
{
    if (want_kind(y, n, Y_SCALAR, what))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(n->str, &end);
    if (!n->str[0] || *end || errno == ERANGE || !isfinite(v) || (n->str[0] != '-' && n->str[0] != '.' &&
                                                                  (n->str[0] < '0' || n->str[0] > '9')))
        return perr(y, n->line, n->col, "%s must be a number, not \"%s\"", what, n->str);
    if (integer && v != floor(v))
        return perr(y, n->line, n->col, "%s must be a whole number, not %s", what, n->str);
    if (v < min || v > max)
        return perr(y, n->line, n->col, "%s must be between %g and %g, not %s", what, min, max, n->str);
    *out = v;
    return 0;
}

static int get_cpus(struct yparse *y, const struct ynode *n, const char *what, uint64_t *mask, int pos[2])
{
    pos[0] = n->line;
    pos[1] = n->col;
    char e[UTIL_ERR_LEN];
    char buf[256] = "";
    if (n->kind == Y_SEQ) {
        for (size_t i = 0; i < n->n; i++) {
            if (want_kind(y, n->kids[i], Y_SCALAR, what))
                return -1;
            if (strlen(buf) + strlen(n->kids[i]->str) + 2 >= sizeof buf)
                return perr(y, n->line, n->col, "%s: list too long", what);
            if (i)
                strcat(buf, ",");
            strcat(buf, n->kids[i]->str);
        }
    } else if (n->kind == Y_SCALAR) {
        snprintf(buf, sizeof buf, "%s", n->str);
    } else {
        return perr(y, n->line, n->col, "%s must be a CPU list like [0] or \"1,3\"", what);
    }
    if (util_parse_cpulist(buf, mask, e))
        return perr(y, n->line, n->col, "%s: %s", what, e);
    return 0;
}

/* ---- the schema -------------------------------------------------------- */

static uint64_t fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
        return 1 << 20;
    return rl.rlim_cur;
}

/* Connections a tool can open: the fd limit less what a tool process needs
 * for itself (files, epoll, pipes, a JVM's jars). */
#define FD_RESERVE 64

static int check_level(struct yparse *y, const struct ynode *n, enum load_model model, double v, const char *what)
{
    if (model == LOAD_CLOSED) {
        if (v != floor(v))
            return perr(y, n->line, n->col, "%s is a number of connections and must be whole, not %g", what, v);
        uint64_t lim = fd_limit();
        if (v > (double)(lim - FD_RESERVE))
            return perr(y, n->line, n->col,
                        "%s of %g connections exceeds what `ulimit -n` (%llu) allows one process (%llu): lower it or raise the limit",
                        what, v, (unsigned long long)lim, (unsigned long long)(lim - FD_RESERVE));
    }
    return 0;
}

static const char *const load_keys[] = {"model", "connections", "vus", "rate", "duration", "stages", "sweep",
                                        "max_inflight", "timeout", "arrivals", "arrivals_seed", "keepalive",
                                        NULL};

struct level_name {
    char text[32]; /* PROFILE_LEVEL_FMT */
    size_t i;      /* index in the sweep */
};

static int level_name_cmp(const void *a, const void *b)
{
    const struct level_name *x = a, *y = b;
    int c = strcmp(x->text, y->text);
    return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* No two sweep levels are written alike in the names of their runs
 * ("lb-gen@10" twice: the second run's files would replace the first's).
 * Sorted, so a sweep of many levels costs n log n. Returns 0, or -1 with
 * the error at the later of the two. */
static int check_sweep_names(struct yparse *y, const struct ynode *lv, const struct profile_load *l)
{
    struct level_name *n = util_xcalloc(l->nsweep, sizeof *n);
    for (size_t i = 0; i < l->nsweep; i++) {
        snprintf(n[i].text, sizeof n[i].text, PROFILE_LEVEL_FMT, l->sweep[i]);
        n[i].i = i;
    }
    qsort(n, l->nsweep, sizeof *n, level_name_cmp);
    int rc = 0;
    for (size_t i = 1; i < l->nsweep && !rc; i++)
        if (!strcmp(n[i - 1].text, n[i].text)) {
            const struct ynode *k = lv->kids[n[i].i];
            rc = perr(y, k->line, k->col, "sweep level %.40s is there twice (as its runs are named): each level once",
                      k->str);
        }
    free(n);
    return rc;
}

/* load.stages: a ramp of {duration, target} stages whose durations add
 * up to at most PROFILE_DURATION_MAX_NS. Returns 0, or -1 with the error
 * at its place. */
static int parse_stages(struct yparse *y, const struct ynode *stages, struct profile_load *l, double max_level)
{
    if (want_kind(y, stages, Y_SEQ, "load.stages"))
        return -1;
    if (stages->n == 0)
        return perr(y, stages->line, stages->col, "load.stages is empty");
    l->ramped = 1;
    l->stages = util_xcalloc(stages->n, sizeof *l->stages);
    l->nstages = stages->n;
    double peak = 0;
    for (size_t i = 0; i < stages->n; i++) {
        const struct ynode *s = stages->kids[i];
        static const char *const stage_keys[] = {"duration", "target", NULL};
        if (want_kind(y, s, Y_MAP, "a stage") || check_keys(y, s, "a stage", stage_keys))
            return -1;
        const struct ynode *sd = get(s, "duration"), *st = get(s, "target");
        if (!sd || !st)
            return perr(y, s->line, s->col, "a stage needs duration and target, e.g. {duration: 30s, target: 200}");
        if (get_duration(y, sd, "stage duration", 0, &l->stages[i].duration_ns) ||
            get_number(y, st, "stage target", 0, max_level, l->model == LOAD_CLOSED, &l->stages[i].target) ||
            check_level(y, st, l->model, l->stages[i].target, "stage target"))
            return -1;
        if (l->stages[i].target > peak)
            peak = l->stages[i].target;
        if (profile_load_duration_ns(l) > PROFILE_DURATION_MAX_NS)
            return perr(y, sd->line, sd->col, "load.stages add up to more than 7 days by this stage, the most one "
                        "load may run");
    }
    if (peak <= 0)
        return perr(y, stages->line, stages->col, "every stage targets 0: nothing would be sent");
    return 0;
}

/* load.arrivals (timetable or poisson) and load.arrivals_seed: the open
 * model's arrival process. Returns 0, or -1 with the error at its place. */
static int parse_arrivals(struct yparse *y, const struct ynode *n, struct profile_load *l)
{
    const struct ynode *v = get(n, "arrivals"), *s = get(n, "arrivals_seed");
    l->arrivals_seed = 1;
    if (v) {
        if (want_kind(y, v, Y_SCALAR, "load.arrivals"))
            return -1;
        if (l->model != LOAD_OPEN)
            return perr(y, v->line, v->col, "load.arrivals belongs to the open model: add `model: open` and a rate");
        if (strcmp(v->str, "poisson") && strcmp(v->str, "timetable"))
            return perr(y, v->line, v->col, "load.arrivals must be \"timetable\" (evenly spaced) or \"poisson\" "
                        "(random gaps, seeded), not \"%.40s\"", v->str);
        l->poisson = !strcmp(v->str, "poisson");
    }
    if (s) {
        double d;
        if (!l->poisson)
            return perr(y, s->line, s->col, "load.arrivals_seed draws Poisson arrivals: add `arrivals: poisson`");
        if (get_number(y, s, "load.arrivals_seed", 0, 9007199254740992.0, 1, &d))
            return -1;
        l->arrivals_seed = (uint64_t)d;
    }
    return 0;
}

static int parse_load(struct yparse *y, const struct ynode *n, struct profile_load *l)
{
    if (want_kind(y, n, Y_MAP, "load") || check_keys(y, n, "load", load_keys))
        return -1;
    const struct ynode *v;
    l->model = LOAD_CLOSED;
    if ((v = get(n, "model"))) {
        if (want_kind(y, v, Y_SCALAR, "load.model"))
            return -1;
        if (!strcmp(v->str, "closed"))
            l->model = LOAD_CLOSED;
        else if (!strcmp(v->str, "open"))
            l->model = LOAD_OPEN;
        else
            return perr(y, v->line, v->col,
                        "load.model must be \"closed\" (connections/VUs) or \"open\" (arrivals per second), not \"%s\"", v->str);
    }
    const struct ynode *conns = get(n, "connections") ? get(n, "connections") : get(n, "vus");
    const struct ynode *rate = get(n, "rate");
    const struct ynode *stages = get(n, "stages");
    const struct ynode *sweep = get(n, "sweep");
    const struct ynode *dur = get(n, "duration");
    if (get(n, "connections") && get(n, "vus"))
        return perr(y, get(n, "vus")->line, get(n, "vus")->col, "give either connections or vus, not both");
    if (l->model == LOAD_CLOSED && rate)
        return perr(y, rate->line, rate->col, "load.rate belongs to the open model: add `model: open` or use connections");
    if (l->model == LOAD_OPEN && conns)
        return perr(y, conns->line, conns->col,
                    "load.connections belongs to the closed model; in the open model cap concurrency with max_inflight");
    const struct ynode *level = l->model == LOAD_CLOSED ? conns : rate;
    const char *level_name = l->model == LOAD_CLOSED ? "load.connections" : "load.rate";
    int forms = !!level + !!stages + !!sweep;
    if (forms == 0)
        return perr(y, n->line, n->col, "load needs one of: %s with duration, stages, or sweep", level_name);
    if (forms > 1)
        return perr(y, n->line, n->col, "load takes only one of %s, stages, sweep", level_name);
    double max_level = l->model == LOAD_CLOSED ? 1e7 : 1e9;
    if (level || sweep) {
        uint64_t d;
        const struct ynode *dn = dur;
        if (sweep) {
            if (want_kind(y, sweep, Y_MAP, "load.sweep"))
                return -1;
            static const char *const sweep_keys[] = {"levels", "duration", NULL};
            if (check_keys(y, sweep, "load.sweep", sweep_keys))
                return -1;
            if (dur)
                return perr(y, dur->line, dur->col, "with a sweep, give the duration inside sweep:");
            dn = get(sweep, "duration");
        }
        if (!dn)
            return perr(y, (sweep ? sweep : n)->line, (sweep ? sweep : n)->col, "%s needs a duration, e.g. duration: 30s",
                        sweep ? "load.sweep" : "load");
        if (get_duration(y, dn, "duration", 0, &d))
            return -1;
        l->stages = util_xcalloc(1, sizeof *l->stages);
        l->nstages = 1;
        l->stages[0].duration_ns = d;
        if (level) {
            if (get_number(y, level, level_name, 1e-3, max_level, l->model == LOAD_CLOSED, &l->stages[0].target) ||
                check_level(y, level, l->model, l->stages[0].target, level_name))
                return -1;
        } else {
            const struct ynode *lv = get(sweep, "levels");
            if (!lv)
                return perr(y, sweep->line, sweep->col, "load.sweep needs levels, e.g. levels: [10, 50, 100]");
            if (want_kind(y, lv, Y_SEQ, "load.sweep.levels"))
                return -1;
            if (lv->n == 0)
                return perr(y, lv->line, lv->col, "load.sweep.levels is empty");
            l->sweep = util_xcalloc(lv->n, sizeof *l->sweep);
            l->nsweep = lv->n;
            for (size_t i = 0; i < lv->n; i++)
                if (get_number(y, lv->kids[i], "a sweep level", 1e-3, max_level, l->model == LOAD_CLOSED, &l->sweep[i]) ||
                    check_level(y, lv->kids[i], l->model, l->sweep[i], "a sweep level"))
                    return -1;
            if (check_sweep_names(y, lv, l))
                return -1;
            l->stages[0].target = l->sweep[0];
        }
    } else {
        if (dur)
            return perr(y, dur->line, dur->col, "with stages, each stage has its own duration: remove load.duration");
        if (parse_stages(y, stages, l, max_level))
            return -1;
    }
    if ((v = get(n, "max_inflight"))) {
        double d;
        if (get_number(y, v, "load.max_inflight", 1, 1e7, 1, &d) || check_level(y, v, LOAD_CLOSED, d, "load.max_inflight"))
            return -1;
        l->max_inflight = (uint64_t)d;
    }
    if ((v = get(n, "timeout")) && get_duration(y, v, "load.timeout", 0, &l->request_timeout_ns))
        return -1;
    if ((v = get(n, "keepalive"))) {
        if (want_kind(y, v, Y_SCALAR, "load.keepalive"))
            return -1;
        int off = !strcmp(v->str, "off") || !strcmp(v->str, "false");
        if (!off && strcmp(v->str, "on") && strcmp(v->str, "true"))
            return perr(y, v->line, v->col, "load.keepalive must be on (the default: connections carry many requests) "
                        "or off (a new connection for every request), not \"%.40s\"", v->str);
        l->no_keepalive = off;
    }
    return parse_arrivals(y, n, l);
}

static void load_clear(struct profile_load *l)
{
    free(l->stages);
    free(l->sweep);
    memset(l, 0, sizeof *l);
}

static int parse_entry_settings(struct yparse *y, const struct profile *p, const struct ynode *n,
                                struct profile_tool *t);

static int parse_tool(struct yparse *y, const struct profile *p, const struct ynode *n, struct profile_tool *t)
{
    t->instances = 1;
    t->line = n->line;
    t->col = n->col;
    t->options = json_object();
    if (n->kind == Y_SCALAR) {
        if (get_str(y, n, "a tool name", &t->tool))
            return -1;
    } else if (n->kind == Y_MAP) {
        static const char *const tool_keys[] = {"tool",      "label",  "bin",     "load",  "options", "memory_limit",
                                                "timeout",   "host",   "instances", "target", "request", "check",
                                                NULL};
        if (check_keys(y, n, "a tool entry", tool_keys))
            return -1;
        const struct ynode *v = get(n, "tool");
        if (!v)
            return perr(y, n->line, n->col, "a tool entry needs tool:, e.g. {tool: wrk, label: wrk-4t}");
        if (get_str(y, v, "tool", &t->tool))
            return -1;
        if ((v = get(n, "label")) && get_str(y, v, "label", &t->label))
            return -1;
        if ((v = get(n, "bin")) && get_str(y, v, "bin", &t->bin))
            return -1;
        if ((v = get(n, "load"))) {
            t->load = util_xcalloc(1, sizeof *t->load);
            if (parse_load(y, v, t->load))
                return -1;
        }
        if ((v = get(n, "memory_limit")) && get_size(y, v, "memory_limit", &t->memory_limit_bytes))
            return -1;
        if ((v = get(n, "timeout")) && get_duration(y, v, "timeout", 0, &t->timeout_ns))
            return -1;
        double inst = 1;
        if ((v = get(n, "instances")) && get_number(y, v, "instances", 1, PROFILE_MAX_INSTANCES, 1, &inst))
            return -1;
        t->instances = (unsigned)inst;
        if ((v = get(n, "options"))) {
            if (want_kind(y, v, Y_MAP, "options"))
                return -1;
            for (size_t i = 0; i < v->n; i += 2) {
                const struct ynode *val = v->kids[i + 1];
                if (want_kind(y, val, Y_SCALAR, "an option value"))
                    return -1;
                json_object_set_new(t->options, v->kids[i]->str, json_string(val->str));
            }
        }
        if (parse_entry_settings(y, p, n, t))
            return -1;
    } else {
        return perr(y, n->line, n->col, "a tool is a name (wrk) or a mapping ({tool: wrk, label: ...})");
    }
    for (const char *c = t->tool; *c; c++)
        if (!(*c == '-' || *c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
            return perr(y, n->line, n->col, "tool name \"%s\" may use only a-z, 0-9, - and _", t->tool);
    if (!t->label)
        t->label = util_xstrdup(t->tool);
    const struct ynode *lb = n->kind == Y_MAP && get(n, "label") ? get(n, "label") : n;
    t->label_line = lb->line;
    t->label_col = lb->col;
    return check_file_name(y, lb->line, lb->col, "label", t->label, PROFILE_LABEL_MAX);
}

/* ---- hosts: and placement ------------------------------------------------ */

/* A host name, an SSH host or a load address: letters, digits and . - _ :
 * % (an IPv6 address, a scope), never starting with '-' (ssh would read an
 * option). */
static int host_chars_ok(const char *s, int colon_ok)
{
    if (!*s || *s == '-')
        return 0;
    for (const char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
              *c == '-' || *c == '_' || *c == '%' || (colon_ok && *c == ':')))
            return 0;
    return 1;
}

int profile_host_parse(const char *s, struct profile_host *h, const char **why)
{
    char *d = util_xstrdup(s), *hostpart = d, *port = NULL;
    char *at = strrchr(d, '@');
    int rc = -1;
    if (at) {
        *at = 0;
        hostpart = at + 1;
        if (!host_chars_ok(d, 0)) {
            *why = "the user must be a plain login name";
            goto out;
        }
        h->user = util_xstrdup(d);
    }
    if (*hostpart == '[') {
        char *close = strchr(hostpart, ']');
        if (!close || (close[1] && close[1] != ':')) {
            *why = "an IPv6 address is written [addr] or [addr]:port";
            goto out;
        }
        *close = 0;
        hostpart++;
        port = close[1] == ':' ? close + 2 : NULL;
    } else if ((port = strchr(hostpart, ':'))) {
        *port++ = 0;
    }
    if (!host_chars_ok(hostpart, 1)) {
        *why = "the host must be a name or an address (letters, digits, . - _ :), not starting with -";
        goto out;
    }
    if (port) {
        char *end;
        unsigned long v = strtoul(port, &end, 10);
        if (!*port || *end || v < 1 || v > 65535) {
            *why = "the port must be a number from 1 to 65535";
            goto out;
        }
        h->port = (unsigned)v;
    }
    h->ssh_host = util_xstrdup(hostpart);
    rc = 0;
out:
    free(d);
    return rc;
}

/* One entry of hosts:, NAME: DESTINATION or NAME: {ssh: DESTINATION, address: ADDR}. */
static int parse_host(struct yparse *y, const struct ynode *key, const struct ynode *v, struct profile_host *h)
{
    static const char *const keys[] = {"ssh", "address", NULL};
    const struct ynode *dest = v, *addr = NULL;
    h->name = util_xstrdup(key->str);
    h->line = key->line;
    h->col = key->col;
    if (!host_chars_ok(key->str, 0) || strchr(key->str, '%'))
        return perr(y, key->line, key->col, "host name \"%s\" may use only letters, digits, . - and _", key->str);
    if (v->kind == Y_MAP) {
        if (check_keys(y, v, "a host", keys))
            return -1;
        if (!(dest = get(v, "ssh")))
            return perr(y, v->line, v->col, "host %s needs ssh:, e.g. {ssh: bench@10.0.0.2, address: 192.168.1.2}",
                        h->name);
        addr = get(v, "address");
    }
    if (want_kind(y, dest, Y_SCALAR, "a host's SSH destination"))
        return -1;
    const char *why = NULL;
    if (!strcmp(dest->str, "local"))
        h->local = 1;
    else if (profile_host_parse(dest->str, h, &why))
        return perr(y, dest->line, dest->col, "host %s: \"%s\" is not an SSH destination user@host[:port] or local: %s",
                    h->name, dest->str, why);
    if (addr) {
        if (get_str(y, addr, "a host's address", &h->address))
            return -1;
        if (!host_chars_ok(h->address, 1))
            return perr(y, addr->line, addr->col, "host %s: address \"%s\" must be a host name or an IP address",
                        h->name, h->address);
    }
    return 0;
}

static int parse_hosts(struct yparse *y, const struct ynode *n, struct profile *p)
{
    if (want_kind(y, n, Y_MAP, "hosts"))
        return -1;
    if (n->n == 0)
        return perr(y, n->line, n->col, "hosts is empty: name at least one, e.g. hosts: {a: bench@10.0.0.2}");
    p->hosts = util_xcalloc(n->n / 2, sizeof *p->hosts);
    for (size_t i = 0; i < n->n; i += 2) {
        p->nhosts++;
        if (parse_host(y, n->kids[i], n->kids[i + 1], &p->hosts[i / 2]))
            return -1;
    }
    return 0;
}

/* A `host: NAME` placement (v), into *out: NAME must be in hosts:. */
static int get_placement(struct yparse *y, const struct profile *p, const struct ynode *v, char **out)
{
    if (get_str(y, v, "host", out))
        return -1;
    if (profile_host_by_name(p, *out))
        return 0;
    if (!p->nhosts)
        return perr(y, v->line, v->col, "host \"%s\": the profile has no hosts: map naming it (e.g. hosts: {%s: user@addr})",
                    *out, *out);
    char list[160] = "";
    for (size_t i = 0; i < p->nhosts; i++) {
        if (i)
            strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, p->hosts[i].name, sizeof list - strlen(list) - 1);
    }
    return perr(y, v->line, v->col, "unknown host \"%s\" (hosts: %s)", *out, list);
}

/* A tool entry's `host:`: one hosts: entry, or a list of them that its
 * instances are dealt out to (profile_tool_host): at most one per
 * instance, each named once. */
static int get_tool_hosts(struct yparse *y, const struct profile *p, const struct ynode *v, struct profile_tool *t)
{
    size_t n = v->kind == Y_SEQ ? v->n : 1;
    if (v->kind == Y_SEQ && !n)
        return perr(y, v->line, v->col, "host: an empty list (name a hosts: entry, or several for the instances)");
    if (n > t->instances)
        return perr(y, v->line, v->col, "host: %zu hosts for %u instance%s (at most one host per instance; raise "
                    "instances: or name fewer hosts)", n, t->instances, t->instances == 1 ? "" : "s");
    t->hosts = util_xcalloc(n, sizeof *t->hosts);
    for (size_t k = 0; k < n; k++) {
        const struct ynode *e = v->kind == Y_SEQ ? v->kids[k] : v;
        t->nhosts = (unsigned)k + 1; /* freed with the profile, even when refused */
        if (get_placement(y, p, e, &t->hosts[k]))
            return -1;
        for (size_t j = 0; j < k; j++)
            if (!strcmp(t->hosts[j], t->hosts[k]))
                return perr(y, e->line, e->col, "host \"%s\" is named twice in this host: list", t->hosts[k]);
    }
    t->host = t->hosts[0];
    return 0;
}

/* The tool entries' `host:` keys (checked once hosts: is known). */
static int parse_tool_hosts(struct yparse *y, const struct ynode *tools, struct profile *p)
{
    for (size_t i = 0; i < tools->n; i++) {
        const struct ynode *v;
        if (tools->kids[i]->kind == Y_MAP && (v = get(tools->kids[i], "host")) && get_tool_hosts(y, p, v, &p->tools[i]))
            return -1;
    }
    return 0;
}

const char *profile_tool_host(const struct profile_tool *t, unsigned instance)
{
    return t->nhosts ? t->hosts[instance % t->nhosts] : NULL;
}

void profile_host_clear(struct profile_host *h)
{
    free(h->name);
    free(h->user);
    free(h->ssh_host);
    free(h->address);
    memset(h, 0, sizeof *h);
}

static void hosts_free(struct profile *p)
{
    for (size_t i = 0; i < p->nhosts; i++)
        profile_host_clear(&p->hosts[i]);
    free(p->hosts);
    free(p->target_host);
}

const struct profile_host *profile_host_by_name(const struct profile *p, const char *name)
{
    for (size_t i = 0; name && i < p->nhosts; i++)
        if (!strcmp(p->hosts[i].name, name))
            return &p->hosts[i];
    return NULL;
}

int profile_hosts_same_machine(const struct profile_host *a, const struct profile_host *b)
{
    return a == b || (!a && b && b->local) || (!b && a && a->local);
}

const char *profile_host_load_address(const struct profile_host *h)
{
    if (h && h->address)
        return h->address;
    return h && !h->local ? h->ssh_host : "127.0.0.1";
}

void profile_host_destination(const struct profile_host *h, char *out, size_t outlen)
{
    if (!h || h->local) {
        snprintf(out, outlen, "local");
        return;
    }
    const char *v6 = strchr(h->ssh_host, ':') ? "[" : "";
    char port[16] = "";
    if (h->port)
        snprintf(port, sizeof port, ":%u", h->port);
    snprintf(out, outlen, "%s%s%s%s%s%s", h->user ? h->user : "", h->user ? "@" : "", v6, h->ssh_host,
             *v6 ? "]" : "", port);
}

static json_t *hosts_to_json(const struct profile *p)
{
    json_t *o = json_object();
    for (size_t i = 0; i < p->nhosts; i++) {
        char dest[512];
        profile_host_destination(&p->hosts[i], dest, sizeof dest);
        json_t *h = json_pack("{s:s}", "ssh", dest);
        if (p->hosts[i].address)
            json_object_set_new(h, "address", json_string(p->hosts[i].address));
        json_object_set_new(o, p->hosts[i].name, h);
    }
    return o;
}

/* The shortest load any tool entry runs (one sweep level, for a sweep). */
static uint64_t shortest_load_ns(const struct profile *p)
{
    uint64_t m = UINT64_MAX;
    for (size_t i = 0; i < p->ntools; i++) {
        uint64_t d = profile_load_duration_ns(profile_tool_load(p, &p->tools[i]));
        if (d < m)
            m = d;
    }
    return m;
}

/* A fixed target.delay (the scalar v): the profile's, or a tool entry's
 * own. */
static int parse_fixed_delay(struct yparse *y, const struct ynode *v, uint64_t *delay_ns)
{
    if (get_duration(y, v, "target.delay", 1, delay_ns))
        return -1;
    if (*delay_ns > 60000000000ull)
        return perr(y, v->line, v->col, "target.delay above 60s is not a benchmark");
    return 0;
}

/* target.delay: a duration, or {dist: lognormal, p50, p99, seed},
 * {dist: exponential, mean, seed}, {dist: uniform, min, max, seed}. */
static int parse_target_delay(struct yparse *y, const struct ynode *v, struct profile *p)
{
    if (v->kind == Y_SCALAR)
        return parse_fixed_delay(y, v, &p->target.delay_ns);
    static const char *const keys[] = {"dist", "p50", "p99", "mean", "min", "max", "seed", NULL};
    /* Each distribution's parameters: the first may be 0 for uniform only. */
    static const struct { const char *dist, *a, *b, *need; } forms[] = {
        {"lognormal", "p50", "p99", "p50 and p99"}, {"exponential", "mean", NULL, "mean"},
        {"uniform", "min", "max", "min and max"}};
    struct profile_shape *sh = &p->target.shape;
    const struct ynode *w;
    if (want_kind(y, v, Y_MAP, "target.delay (a duration, or a mapping with dist:)") ||
        check_keys(y, v, "target.delay", keys))
        return -1;
    if (!(w = get(v, "dist")) || w->kind != Y_SCALAR)
        return perr(y, v->line, v->col, "target.delay needs dist: lognormal, exponential or uniform");
    int f = -1;
    for (int i = 0; i < 3; i++)
        if (!strcmp(w->str, forms[i].dist))
            f = i;
    if (f < 0)
        return perr(y, w->line, w->col, "target.delay.dist \"%s\": use lognormal, exponential or uniform", w->str);
    sh->dist = forms[f].dist;
    for (const char *const *k = keys + 1; *k; k++)
        if ((w = get(v, *k)) && strcmp(*k, "seed") && strcmp(*k, forms[f].a) && (!forms[f].b || strcmp(*k, forms[f].b)))
            return perr(y, w->line, w->col, "target.delay: %s is not a parameter of a %s delay (it takes %s)", *k,
                        sh->dist, forms[f].need);
    const struct ynode *na = get(v, forms[f].a), *nb = forms[f].b ? get(v, forms[f].b) : na;
    uint64_t *pa = f == 0 ? &sh->p50_ns : f == 1 ? &sh->mean_ns : &sh->min_ns;
    uint64_t *pb = f == 0 ? &sh->p99_ns : f == 1 ? &sh->mean_ns : &sh->max_ns;
    if (!na || !nb)
        return perr(y, v->line, v->col, "target.delay: a %s delay needs %s", sh->dist, forms[f].need);
    if (get_duration(y, na, "target.delay", f == 2, pa) || get_duration(y, nb, "target.delay", 0, pb))
        return -1;
    if (*pb > 60000000000ull)
        return perr(y, nb->line, nb->col, "target.delay above 60s is not a benchmark");
    if (f == 0 && (sh->p99_ns <= sh->p50_ns || sh->p99_ns / sh->p50_ns > 1000))
        return perr(y, nb->line, nb->col, "target.delay: p99 must be above p50, and at most 1000 times it");
    if (f == 2 && sh->max_ns < sh->min_ns)
        return perr(y, nb->line, nb->col, "target.delay: max must not be below min");
    sh->seed = 1;
    double seed;
    if ((w = get(v, "seed"))) {
        if (get_number(y, w, "target.delay.seed", 0, 9007199254740992.0, 1, &seed))
            return -1;
        sh->seed = (uint64_t)seed;
    }
    return 0;
}

/* target.stall: {every: 10s, for: 1s}. */
static int parse_target_stall(struct yparse *y, const struct ynode *v, struct profile_shape *sh)
{
    static const char *const keys[] = {"every", "for", NULL};
    const struct ynode *e = get(v, "every"), *f = get(v, "for");
    if (want_kind(y, v, Y_MAP, "target.stall") || check_keys(y, v, "target.stall", keys))
        return -1;
    if (!e || !f)
        return perr(y, v->line, v->col, "target.stall needs every: and for:, e.g. {every: 10s, for: 1s}");
    if (get_duration(y, e, "target.stall.every", 0, &sh->stall_every_ns) ||
        get_duration(y, f, "target.stall.for", 0, &sh->stall_for_ns))
        return -1;
    if (sh->stall_for_ns >= sh->stall_every_ns)
        return perr(y, f->line, f->col, "target.stall.for must be shorter than every");
    return 0;
}

static const char *const top_keys[] = {"name",   "description", "hosts", "target", "load",  "tools", "sampling",
                                       "repeat", "cooldown",    "grace", "cpus",   "quiet", "check",
                                       "request", NULL};

/* A scalar that must be one of choices (NULL-terminated): its index in
 * *out. Returns 0, or -1 naming what is allowed. */
static int get_choice(struct yparse *y, const struct ynode *n, const char *what, const char *const *choices, int *out)
{
    if (want_kind(y, n, Y_SCALAR, what))
        return -1;
    char list[128] = "";
    for (int i = 0; choices[i]; i++) {
        if (!strcmp(n->str, choices[i])) {
            *out = i;
            return 0;
        }
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", choices[i]);
    }
    return perr(y, n->line, n->col, "%s \"%.60s\": use %s", what, n->str, list);
}

const char *profile_protocol_name(enum profile_protocol p)
{
    return p == PROFILE_H2 ? "h2" : p == PROFILE_H2C ? "h2c" : "h1";
}

/* target.tls: {version: 1.3|1.2, key: ecdsa|rsa, resumption: on|off}. */
static int parse_target_tls(struct yparse *y, const struct ynode *v, struct profile_tls *t)
{
    static const char *const keys[] = {"version", "key", "resumption", NULL};
    static const char *const versions[] = {"1.3", "1.2", NULL}, *const key_types[] = {"ecdsa", "rsa", NULL},
                             *const on_off[] = {"on", "off", NULL};
    memset(t, 0, sizeof *t);
    if (v->kind == Y_SCALAR && !strcmp(v->str, "off"))
        return 0; /* plain TCP: what a tool entry writes to drop the profile's TLS */
    if (want_kind(y, v, Y_MAP, "target.tls (a mapping, or off)") || check_keys(y, v, "target.tls", keys))
        return -1;
    const struct ynode *w;
    int i = 0;
    if ((w = get(v, "version")) && get_choice(y, w, "target.tls.version", versions, &i))
        return -1;
    t->version = i == 0 ? 13 : 12;
    if ((w = get(v, "key")) && get_choice(y, w, "target.tls.key", key_types, &t->key_rsa))
        return -1;
    if ((w = get(v, "resumption")) && get_choice(y, w, "target.tls.resumption", on_off, &t->no_resumption))
        return -1;
    return 0;
}

/* tls: and protocol: of the mapping v (the profile's target: or a tool
 * entry's) over what *tls and *proto hold (the defaults, or for an entry
 * the profile's): each one written replaces its own and sets its bit in
 * *own. The two as they end must agree: h2 is over TLS, h2c is not. For an
 * entry (entry 1) that wrote one of the two, the other may be the
 * profile's, and the message says so. */
static int parse_tls_protocol(struct yparse *y, const struct ynode *v, int entry, struct profile_tls *tls,
                              enum profile_protocol *proto, unsigned *own)
{
    static const char *const protocols[] = {"h1", "h2", "h2c", NULL};
    const struct ynode *w = get(v, "tls"), *pr = get(v, "protocol");
    int i = (int)*proto;
    if (w && parse_target_tls(y, w, tls))
        return -1;
    if (pr && get_choice(y, pr, "target.protocol", protocols, &i))
        return -1;
    *proto = (enum profile_protocol)i;
    *own |= (w ? PROFILE_OWN_TLS : 0) | (pr ? PROFILE_OWN_PROTOCOL : 0);
    int h2_bare = *proto == PROFILE_H2 && !tls->version, h2c_tls = *proto == PROFILE_H2C && tls->version;
    if (!h2_bare && !h2c_tls)
        return 0;
    if (entry && !pr) /* the entry's tls: against the profile's protocol */
        return perr(y, w->line, w->col, "this entry's tls: %s, the profile's target.protocol is %s (HTTP/2 %s TLS): "
                    "give the entry protocol: h1 or %s too", h2_bare ? "off" : "on", profile_protocol_name(*proto),
                    h2_bare ? "over" : "without", h2_bare ? "h2c" : "h2");
    if (entry && !w) /* the entry's protocol: against the profile's tls: */
        return perr(y, pr->line, pr->col, "target.protocol %s is HTTP/2 %s TLS and the profile's target.tls is %s: "
                    "give this entry tls: %s too (or use %s)", profile_protocol_name(*proto),
                    h2_bare ? "over" : "without", h2_bare ? "off" : "on", h2_bare ? "{version: 1.3}" : "off",
                    h2_bare ? "h2c" : "h2");
    if (h2_bare)
        return perr(y, pr->line, pr->col, "target.protocol h2 is HTTP/2 over TLS: add target.tls (or use h2c)");
    return perr(y, pr->line, pr->col, "target.protocol h2c is HTTP/2 without TLS: drop target.tls (or use h2)");
}

/* TLS and HTTP/2 need lb-target here: the run's CA is made where it runs. */
static int check_target_host_tls(struct yparse *y, const struct profile *p, const struct ynode *at,
                                  const struct profile_tls *tls, enum profile_protocol proto)
{
    if (!p->target_host || (!tls->version && proto == PROFILE_H1))
        return 0;
    return perr(y, at->line, at->col, "target.host with target.tls or target.protocol h2/h2c: not supported yet "
                                      "(the run's CA is made on the target's host)");
}

/* target: lb-target's settings and where it runs. */
static int parse_target(struct yparse *y, const struct ynode *v, struct profile *p)
{
    static const char *const keys[] = {"delay", "stall", "work", "body", "threads", "host", "protocol", "tls", NULL};
    if (want_kind(y, v, Y_MAP, "target") || check_keys(y, v, "target", keys))
        return -1;
    const struct ynode *w;
    if ((w = get(v, "delay")) && parse_target_delay(y, w, p))
        return -1;
    if ((w = get(v, "stall")) && parse_target_stall(y, w, &p->target.shape))
        return -1;
    if ((w = get(v, "work")) && get_duration(y, w, "target.work", 1, &p->target.work_ns))
        return -1;
    if (p->target.work_ns > 1000000000ull)
        return perr(y, w->line, w->col, "target.work above 1s per request is not a benchmark");
    if ((w = get(v, "body")) && get_size(y, w, "target.body", &p->target.body_bytes))
        return -1;
    if (p->target.body_bytes < 2 || p->target.body_bytes > (64u << 20))
        return perr(y, w->line, w->col, "target.body must be between 2B (\"{}\") and 64MiB");
    double th;
    if ((w = get(v, "threads"))) {
        if (get_number(y, w, "target.threads", 1, LB_TARGET_MAX_THREADS, 1, &th))
            return -1;
        p->target.threads = (unsigned)th;
    }
    if ((w = get(v, "host")) && get_placement(y, p, w, &p->target_host))
        return -1;
    unsigned own = 0;
    if (parse_tls_protocol(y, v, 0, &p->target.tls, &p->target.protocol, &own))
        return -1;
    return check_target_host_tls(y, p, w, &p->target.tls, p->target.protocol);
}

/* quiet: off, or {busy_below: 10%, wait_max: 30s, interval: 1s}. */
static int parse_quiet(struct yparse *y, const struct ynode *v, struct profile_quiet *q)
{
    static const char *const keys[] = {"busy_below", "wait_max", "interval", NULL};
    const struct ynode *w;
    q->busy_below_pct = PROFILE_QUIET_BUSY_PCT;
    q->wait_max_ns = PROFILE_QUIET_WAIT_NS;
    q->interval_ns = PROFILE_QUIET_INTERVAL_NS;
    if (!v)
        return 0;
    if (v->kind == Y_SCALAR && !strcmp(v->str, "off")) {
        q->wait_max_ns = 0;
        return 0;
    }
    if (want_kind(y, v, Y_MAP, "quiet (off, or a map)") || check_keys(y, v, "quiet", keys))
        return -1;
    if ((w = get(v, "busy_below"))) {
        struct ynode n = *w;
        char num[64];
        snprintf(num, sizeof num, "%s", w->kind == Y_SCALAR ? w->str : "");
        size_t len = strlen(num);
        if (len && num[len - 1] == '%')
            num[len - 1] = 0;
        n.str = num;
        if (get_number(y, &n, "quiet.busy_below (a percentage of the machine's CPUs, e.g. 10%)", 0.1, 100, 0,
                       &q->busy_below_pct))
            return -1;
    }
    if ((w = get(v, "wait_max")) && get_duration(y, w, "quiet.wait_max", 1, &q->wait_max_ns))
        return -1;
    if ((w = get(v, "interval"))) {
        if (get_duration(y, w, "quiet.interval", 0, &q->interval_ns))
            return -1;
        if (q->interval_ns < 100000000ull)
            return perr(y, w->line, w->col, "quiet.interval below 100ms reads noise; use 100ms or more");
    }
    return 0;
}

/* check: {status: 200}: one status code every response must have. */
static int parse_check(struct yparse *y, const struct ynode *v, struct profile_check *c)
{
    static const char *const keys[] = {"status", NULL};
    const struct ynode *w;
    double st;
    if (!v)
        return 0;
    c->status = 0;
    c->line = v->line;
    c->col = v->col;
    if (v->kind == Y_SCALAR && !strcmp(v->str, "off"))
        return 0; /* no check: what a tool entry writes to drop the profile's */
    if (want_kind(y, v, Y_MAP, "check (a mapping, e.g. check: {status: 200}, or off)") || check_keys(y, v, "check", keys))
        return -1;
    if (!(w = get(v, "status")))
        return perr(y, v->line, v->col, "check needs status:, e.g. check: {status: 200}");
    if (get_number(y, w, "check.status (an HTTP status code)", 100, 599, 1, &st))
        return -1;
    c->status = (int)st;
    return 0;
}

/* request: {method: POST, body: 1KiB}: body: only with POST, and required
 * with it; a size within PROFILE_BODY_MIN-PROFILE_BODY_MAX. */
static int parse_request(struct yparse *y, const struct ynode *v, struct profile_request *r)
{
    static const char *const keys[] = {"method", "body", NULL};
    static const char *const methods[] = {"GET", "POST", NULL};
    const struct ynode *m, *b;
    int method = 0;
    if (!v)
        return 0;
    if (want_kind(y, v, Y_MAP, "request (a mapping, e.g. request: {method: POST, body: 1KiB})") ||
        check_keys(y, v, "request", keys))
        return -1;
    if ((m = get(v, "method")) && get_choice(y, m, "request.method", methods, &method))
        return -1;
    b = get(v, "body");
    if (!method && b)
        return perr(y, b->line, b->col, "request.body needs method: POST (a GET sends no body)");
    if (method && !b)
        return perr(y, v->line, v->col, "request: method: POST needs body: SIZE, e.g. body: 1KiB");
    if (b) {
        if (get_size(y, b, "request.body", &r->body_bytes))
            return -1;
        if (r->body_bytes < PROFILE_BODY_MIN || r->body_bytes > PROFILE_BODY_MAX)
            return perr(y, b->line, b->col, "request.body %s is %llu bytes: use 1B to 1MiB", b->str,
                        (unsigned long long)r->body_bytes);
    }
    r->post = method;
    r->line = v->line;
    r->col = v->col;
    return 0;
}

/* A tool entry's own target: (tls:, protocol:, delay:), request: and
 * check: (docs/profiles.md "One entry's own target, request and check").
 * An entry's target: is merged key by key over the profile's (its tls: is
 * whole: keys it leaves out take their defaults, not the profile's; its
 * delay: is a fixed one, in place of the profile's fixed or drawn delay,
 * the profile's stall: kept); its request: and check: replace the
 * profile's whole. The rest of target: is lb-target's own for every row
 * (its body, threads, work, stall and host are what the tools are
 * compared under), so an entry may not set it. */
static int parse_entry_target(struct yparse *y, const struct profile *p, const struct ynode *v,
                              struct profile_tool *t)
{
    if (want_kind(y, v, Y_MAP, "a tool entry's target (a mapping, e.g. target: {tls: {version: 1.3}})"))
        return -1;
    for (size_t i = 0; i < v->n; i += 2) {
        const struct ynode *k = v->kids[i];
        if (strcmp(k->str, "tls") && strcmp(k->str, "protocol") && strcmp(k->str, "delay"))
            return perr(y, k->line, k->col, "\"%.40s\" in a tool entry's target: an entry sets only tls:, "
                        "protocol: and delay: (body, threads, work, stall and host are the profile's target:, the "
                        "same for every entry)", k->str);
    }
    const struct ynode *d = get(v, "delay");
    if (d && d->kind != Y_SCALAR)
        return perr(y, d->line, d->col, "a tool entry's target.delay is a duration, e.g. delay: 0ms (a drawn delay, "
                    "{dist: ...}, is the profile's target.delay only)");
    if (d && parse_fixed_delay(y, d, &t->delay_ns))
        return -1;
    t->own |= d ? PROFILE_OWN_DELAY : 0;
    t->tls = p->target.tls;
    t->protocol = p->target.protocol;
    if (parse_tls_protocol(y, v, 1, &t->tls, &t->protocol, &t->own))
        return -1;
    return check_target_host_tls(y, p, v, &t->tls, t->protocol);
}

static int parse_entry_settings(struct yparse *y, const struct profile *p, const struct ynode *n,
                                struct profile_tool *t)
{
    const struct ynode *v;
    if ((v = get(n, "target")) && parse_entry_target(y, p, v, t))
        return -1;
    if ((v = get(n, "request"))) {
        if (parse_request(y, v, &t->request))
            return -1;
        t->own |= PROFILE_OWN_REQUEST;
    }
    if ((v = get(n, "check"))) {
        if (parse_check(y, v, &t->check))
            return -1;
        t->own |= PROFILE_OWN_CHECK;
    }
    return 0;
}

void profile_entry_view(const struct profile *p, const struct profile_tool *t, struct profile *view)
{
    *view = *p;
    if (t->own & PROFILE_OWN_TLS)
        view->target.tls = t->tls;
    if (t->own & PROFILE_OWN_PROTOCOL)
        view->target.protocol = t->protocol;
    if (t->own & PROFILE_OWN_REQUEST)
        view->request = t->request;
    if (t->own & PROFILE_OWN_CHECK)
        view->check = t->check;
    if (t->own & PROFILE_OWN_DELAY) { /* a fixed delay in place of the profile's, drawn or not; its stall kept */
        view->target.delay_ns = t->delay_ns;
        view->target.shape = (struct profile_shape){.stall_every_ns = p->target.shape.stall_every_ns,
                                                    .stall_for_ns = p->target.shape.stall_for_ns};
    }
}

/* The next name of the list only ("A,B,*-sat") from *at into buf, *at
 * moved past it. Returns 0, or -1 at the list's end. */
static int only_next(const char **at, char *buf, size_t len)
{
    if (!**at)
        return -1;
    size_t n = strcspn(*at, ",");
    snprintf(buf, len, "%.*s", (int)n, *at);
    *at += n + ((*at)[n] == ',');
    return 0;
}

/* A name of --only's list selects label: the label itself, or a shell
 * glob matching it. */
static int only_name_selects(const char *name, const char *label)
{
    return !strcmp(name, label) || !fnmatch(name, label, 0);
}

int profile_only_selects(const char *only, const char *label)
{
    char name[PROFILE_LABEL_MAX + 1];
    if (!only || !strcmp(only, label)) /* the whole list: a label may hold a comma */
        return 1;
    for (const char *at = only; !only_next(&at, name, sizeof name);)
        if (only_name_selects(name, label))
            return 1;
    return 0;
}

int profile_only_check(const struct profile *p, const char *only, char *err)
{
    char name[PROFILE_LABEL_MAX + 1];
    if (!only)
        return 0;
    if (!*only)
        return util_err(err, "--only: give a label, or several as A,B,C");
    for (size_t i = 0; i < p->ntools; i++)
        if (!strcmp(only, p->tools[i].label))
            return 0;
    for (const char *at = only; !only_next(&at, name, sizeof name);) {
        size_t i = 0;
        while (i < p->ntools && !only_name_selects(name, p->tools[i].label))
            i++;
        if (!name[0] || i == p->ntools)
            return util_err(err, "--only %s: \"%s\" is no tool label of the profile%s", only, name,
                            strpbrk(name, "*?[") ? " (a pattern matching none)" : "");
    }
    return 0;
}

/* The load of the whole run: every tool run (each sweep level, each
 * repeat) plus the cooldowns between them, summed without wrapping.
 * Returns 0, or -1 with the error at where (repeat:, else tools:) when it
 * is over PROFILE_RUN_MAX_NS. */
static int check_run_total(struct yparse *y, const struct ynode *where, const struct profile *p)
{
    uint64_t total = 0, runs = 0;
    for (size_t i = 0; i < p->ntools; i++) {
        const struct profile_load *l = profile_tool_load(p, &p->tools[i]);
        uint64_t each = l->nsweep ? l->stages[0].duration_ns : profile_load_duration_ns(l);
        uint64_t n = mul_sat(l->nsweep ? l->nsweep : 1, p->repeat);
        total = add_sat(total, mul_sat(n, each));
        runs = add_sat(runs, n);
    }
    total = add_sat(total, mul_sat(runs - 1, p->cooldown_ns));
    if (total <= PROFILE_RUN_MAX_NS)
        return 0;
    return perr(y, where->line, where->col,
                "the whole run would send load for %s%.4g days (%llu tool runs%s); at most 30 days: split the profile",
                total == UINT64_MAX ? "over " : "", (double)total / 86400e9, (unsigned long long)runs,
                p->cooldown_ns ? " and their cooldowns" : "");
}

static int parse_profile(struct yparse *y, const struct ynode *root, struct profile *p)
{
    const struct ynode *v;
    if (check_keys(y, root, "the profile", top_keys))
        return -1;
    if ((v = get(root, "name")) && get_str(y, v, "name", &p->name))
        return -1;
    if (p->name && check_file_name(y, v->line, v->col, "name", p->name, PROFILE_NAME_MAX))
        return -1;
    if ((v = get(root, "description")) && get_str(y, v, "description", &p->description))
        return -1;
    if ((v = get(root, "hosts")) && parse_hosts(y, v, p))
        return -1;
    p->target.threads = 1;
    p->target.body_bytes = 64;
    if ((v = get(root, "target")) && parse_target(y, v, p))
        return -1;
    if (!(v = get(root, "load")))
        return perr(y, root->line, root->col, "the profile needs load:, e.g. load: {connections: 50, duration: 20s}");
    if (parse_load(y, v, &p->load))
        return -1;
    if (!(v = get(root, "tools")))
        return perr(y, root->line, root->col, "the profile needs tools:, e.g. tools: [lb-gen, wrk]");
    if (want_kind(y, v, Y_SEQ, "tools"))
        return -1;
    if (v->n == 0)
        return perr(y, v->line, v->col, "tools is empty: name at least one, e.g. [lb-gen]");
    p->tools = util_xcalloc(v->n, sizeof *p->tools);
    for (size_t i = 0; i < v->n; i++) {
        p->ntools++;
        if (parse_tool(y, p, v->kids[i], &p->tools[i]))
            return -1;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(p->tools[j].label, p->tools[i].label))
                return perr(y, v->kids[i]->line, v->kids[i]->col,
                            "two tool entries are labelled \"%s\": give one a label:, e.g. {tool: %s, label: %s-2}",
                            p->tools[i].label, p->tools[i].tool, p->tools[i].tool);
    }
    if (parse_tool_hosts(y, v, p))
        return -1;
    /* The default interval is 2 s, or the shortest tool load when that is
     * shorter, so that every tool run gets at least one sample. */
    uint64_t shortest = shortest_load_ns(p);
    p->sample_interval_ns = shortest < 2000000000ull ? shortest : 2000000000ull;
    if ((v = get(root, "sampling"))) {
        static const char *const keys[] = {"interval", NULL};
        const struct ynode *w;
        if (want_kind(y, v, Y_MAP, "sampling") || check_keys(y, v, "sampling", keys))
            return -1;
        if ((w = get(v, "interval"))) {
            if (get_duration(y, w, "sampling.interval", 0, &p->sample_interval_ns))
                return -1;
            if (p->sample_interval_ns < 10000000ull)
                return perr(y, w->line, w->col, "sampling.interval below 10ms costs more than it tells; use 100ms or more");
            if (p->sample_interval_ns > shortest)
                return perr(y, w->line, w->col,
                            "sampling.interval %s is longer than the shortest tool load (%.3g s): that run would "
                            "get no sample; use at most %.3g s",
                            w->str, (double)shortest / 1e9, (double)shortest / 1e9);
        }
    }
    p->repeat = 1;
    p->scale = 1;
    if ((v = get(root, "repeat"))) {
        double r;
        if (get_number(y, v, "repeat", 1, 1000, 1, &r))
            return -1;
        p->repeat = (unsigned)r;
    }
    p->cooldown_ns = 0;
    if ((v = get(root, "cooldown")) && get_duration(y, v, "cooldown", 1, &p->cooldown_ns))
        return -1;
    p->grace_ns = 30000000000ull;
    if ((v = get(root, "grace")) && get_duration(y, v, "grace", 0, &p->grace_ns))
        return -1;
    if (check_run_total(y, get(root, "repeat") ? get(root, "repeat") : get(root, "tools"), p))
        return -1;
    if ((v = get(root, "cpus"))) {
        static const char *const keys[] = {"target", "tool", NULL};
        const struct ynode *w;
        if (want_kind(y, v, Y_MAP, "cpus") || check_keys(y, v, "cpus", keys))
            return -1;
        if ((w = get(v, "target")) && get_cpus(y, w, "cpus.target", &p->target_cpus, p->target_cpus_pos))
            return -1;
        if ((w = get(v, "tool")) && get_cpus(y, w, "cpus.tool", &p->tool_cpus, p->tool_cpus_pos))
            return -1;
    }
    if (parse_check(y, get(root, "check"), &p->check) || parse_request(y, get(root, "request"), &p->request))
        return -1;
    return parse_quiet(y, get(root, "quiet"), &p->quiet);
}

static char *name_from_path(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    char *s = util_xstrdup(b);
    char *dot = strrchr(s, '.');
    if (dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml")))
        *dot = 0;
    if (!*s) {
        free(s);
        s = util_xstrdup("profile");
    }
    return s;
}

struct profile *profile_load_string(const char *name, const char *text, size_t len, char *err)
{
    struct yparse y = {.name = name, .err = err, .text = text, .len = len};
    struct profile *p = util_xcalloc(1, sizeof *p);
    p->path = util_xstrdup(name);
    struct ynode *root = yparse_doc(&y, text, len);
    if (!root)
        goto err;
    if (parse_profile(&y, root, p))
        goto err;
    if (!p->name) {
        p->name = name_from_path(name);
        if (strlen(p->name) > PROFILE_NAME_MAX) {
            util_err(err, "%s:1:1: the file's name (%zu bytes) is too long to name the run after: give the profile a "
                     "name: of at most %d bytes", name, strlen(p->name), PROFILE_NAME_MAX);
            goto err;
        }
        /* The run is named after it as after a name: (control
         * characters, '\\', a leading '.'). */
        if (check_file_name(&y, 1, 1, "the file's name (the profile has no name:)", p->name, PROFILE_NAME_MAX))
            goto err;
    }
    ynode_free(root);
    return p;
err:
    ynode_free(root);
    profile_free(p);
    return NULL;
}

struct profile *profile_load_file(const char *path, char *err)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer forever. Only a regular file is read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        util_err(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st = {0};
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        util_err(err, "%s: not a regular file (%s): give the path of a profile file", path,
                 S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory" :
                 S_ISCHR(st.st_mode) ? "a character device" : S_ISSOCK(st.st_mode) ? "a socket" : "not a file");
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        util_err(err, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    char *buf = util_xmalloc(MAX_FILE_BYTES + 1);
    size_t n = fread(buf, 1, MAX_FILE_BYTES + 1, f);
    int rerr = ferror(f);
    fclose(f);
    struct profile *p = NULL;
    if (rerr)
        util_err(err, "%s: cannot read", path);
    else if (n > MAX_FILE_BYTES)
        util_err(err, "%s:1:1: file larger than %d bytes: not a profile", path, MAX_FILE_BYTES);
    else
        p = profile_load_string(path, buf, n, err);
    free(buf);
    return p;
}

void profile_load_free(struct profile_load *l)
{
    if (!l)
        return;
    load_clear(l);
    free(l);
}

void profile_free(struct profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ntools; i++) {
        struct profile_tool *t = &p->tools[i];
        free(t->tool);
        free(t->label);
        free(t->bin);
        profile_load_free(t->load);
        json_decref(t->options);
        for (unsigned k = 0; k < t->nhosts; k++)
            free(t->hosts[k]);
        free(t->hosts);
    }
    free(p->tools);
    hosts_free(p);
    load_clear(&p->load);
    free(p->path);
    free(p->name);
    free(p->description);
    free(p);
}

/* ---- derived figures -------------------------------------------------- */

uint64_t profile_load_duration_ns(const struct profile_load *l)
{
    uint64_t d = 0;
    for (size_t i = 0; i < l->nstages; i++)
        d = add_sat(d, l->stages[i].duration_ns);
    return d;
}

int profile_hold_window(const struct profile_load *l, uint64_t *start_ns, uint64_t *end_ns)
{
    uint64_t t = 0, best = 0;
    int found = 0;
    double prev = l->ramped ? 0 : l->stages[0].target;
    for (size_t i = 0; i < l->nstages; i++) {
        const struct profile_stage *s = &l->stages[i];
        if (s->target == prev && s->target > 0 && s->duration_ns > best) {
            best = s->duration_ns;
            *start_ns = t;
            *end_ns = add_sat(t, s->duration_ns);
            found = 1;
        }
        prev = s->target;
        t = add_sat(t, s->duration_ns);
    }
    return found ? 0 : -1;
}

double profile_load_peak(const struct profile_load *l)
{
    double m = 0;
    for (size_t i = 0; i < l->nstages; i++)
        if (l->stages[i].target > m)
            m = l->stages[i].target;
    for (size_t i = 0; i < l->nsweep; i++)
        if (l->sweep[i] > m)
            m = l->sweep[i];
    return m;
}

const struct profile_load *profile_tool_load(const struct profile *p, const struct profile_tool *t)
{
    return t->load ? t->load : &p->load;
}

struct profile_load *profile_load_at_level(const struct profile_load *l, double level)
{
    struct profile_load *c = util_xcalloc(1, sizeof *c);
    *c = *l;
    c->sweep = NULL;
    c->nsweep = 0;
    c->ramped = 0;
    c->nstages = 1;
    c->stages = util_xcalloc(1, sizeof *c->stages);
    c->stages[0].duration_ns = l->stages[0].duration_ns;
    if (l->nsweep == 0) {
        /* Not a sweep: a constant load at level for the whole duration. */
        c->stages[0].duration_ns = profile_load_duration_ns(l);
    }
    c->stages[0].target = level;
    return c;
}

/* Target t's share for instance i of n: whole connections (remainder to
 * the first instances), exact rates. */
static double share_of(double t, enum load_model m, unsigned i, unsigned n)
{
    if (m == LOAD_OPEN)
        return t / n;
    double whole = floor(t / n), rem = t - whole * n;
    return whole + (i < rem ? 1 : 0);
}

struct profile_load *profile_load_share(const struct profile_load *l, unsigned i, unsigned n)
{
    struct profile_load *c = util_xcalloc(1, sizeof *c);
    *c = *l;
    c->stages = util_xcalloc(l->nstages, sizeof *c->stages);
    for (size_t s = 0; s < l->nstages; s++) {
        c->stages[s].duration_ns = l->stages[s].duration_ns;
        c->stages[s].target = share_of(l->stages[s].target, l->model, i, n);
    }
    c->sweep = NULL;
    c->nsweep = 0;
    if (l->max_inflight) {
        uint64_t each = l->max_inflight / n, rem = l->max_inflight % n;
        c->max_inflight = each + (i < rem ? 1 : 0);
        if (!c->max_inflight)
            c->max_inflight = 1;
    }
    return c;
}

json_t *profile_load_to_json(const struct profile_load *l)
{
    json_t *stages = json_array();
    for (size_t i = 0; i < l->nstages; i++)
        json_array_append_new(stages, json_pack("{s:I, s:f}", "duration_ns", (json_int_t)l->stages[i].duration_ns,
                                                "target", l->stages[i].target));
    json_t *o = json_pack("{s:s, s:o, s:b, s:I}", "model", l->model == LOAD_OPEN ? "open" : "closed", "stages", stages,
                          "ramped", l->ramped, "duration_ns", (json_int_t)profile_load_duration_ns(l));
    if (l->max_inflight)
        json_object_set_new(o, "max_inflight", json_integer((json_int_t)l->max_inflight));
    if (l->request_timeout_ns)
        json_object_set_new(o, "request_timeout_ns", json_integer((json_int_t)l->request_timeout_ns));
    if (l->no_keepalive)
        json_object_set_new(o, "keepalive", json_false());
    if (l->poisson)
        json_object_set_new(o, "arrivals", json_pack("{s:s, s:I}", "process", "poisson", "seed",
                                                     (json_int_t)l->arrivals_seed));
    if (l->nsweep) {
        json_t *sw = json_array();
        for (size_t i = 0; i < l->nsweep; i++)
            json_array_append_new(sw, json_real(l->sweep[i]));
        json_object_set_new(o, "sweep", sw);
    }
    uint64_t hs, he;
    if (profile_hold_window(l, &hs, &he) == 0)
        json_object_set_new(o, "hold_window_ns", json_pack("[I, I]", (json_int_t)hs, (json_int_t)he));
    return o;
}

static void scale_load(struct profile_load *l, double factor)
{
    for (size_t i = 0; i < l->nstages; i++) {
        double d = (double)l->stages[i].duration_ns * factor;
        d = d < 1e9 ? 1e9 : d;
        l->stages[i].duration_ns = (uint64_t)(d / 1e6 + 0.5) * 1000000u; /* whole milliseconds */
    }
}

int profile_scale(struct profile *p, double factor, char *err)
{
    if (!(factor > 0 && factor <= 1)) {
        /* The shortest decimal that reads back as factor: 1.0000001 stays
         * 1.0000001, not "1". */
        char shown[32];
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(shown, sizeof shown, "%.*g", prec, factor);
            if (strtod(shown, NULL) == factor)
                break;
        }
        return util_err(err, "--scale must be a factor in (0, 1], e.g. 0.1 (got %s)", shown);
    }
    if (factor == 1)
        return 0;
    scale_load(&p->load, factor);
    for (size_t i = 0; i < p->ntools; i++)
        if (p->tools[i].load)
            scale_load(p->tools[i].load, factor);
    p->cooldown_ns = (uint64_t)((double)p->cooldown_ns * factor);
    /* An interval that fitted the written loads may not fit the scaled
     * ones: sample at least once per shortest load. */
    uint64_t shortest = shortest_load_ns(p);
    if (p->sample_interval_ns > shortest)
        p->sample_interval_ns = shortest;
    p->scale *= factor;
    return 0;
}

json_t *profile_shape_json(const struct profile_shape *s)
{
    if (!s->dist && !s->stall_every_ns)
        return NULL;
    json_t *o = json_object();
    if (s->dist) {
        json_object_set_new(o, "dist", json_string(s->dist));
        const char *k[] = {"p50_ns", "p99_ns", "mean_ns", "min_ns", "max_ns"};
        uint64_t v[] = {s->p50_ns, s->p99_ns, s->mean_ns, s->min_ns, s->max_ns};
        for (int i = 0; i < 5; i++)
            if (v[i] || (i == 3 && !strcmp(s->dist, "uniform")))
                json_object_set_new(o, k[i], json_integer((json_int_t)v[i]));
        json_object_set_new(o, "seed", json_integer((json_int_t)s->seed));
    }
    if (s->stall_every_ns)
        json_object_set_new(o, "stall", json_pack("{s:I, s:I}", "every_ns", (json_int_t)s->stall_every_ns, "for_ns",
                                                  (json_int_t)s->stall_for_ns));
    return o;
}

/* target.tls as recorded: {version, key, resumption}, or null for plain
 * TCP. */
static json_t *tls_json(const struct profile_tls *t)
{
    if (!t->version)
        return json_null();
    return json_pack("{s:s, s:s, s:b}", "version", t->version == 13 ? "1.3" : "1.2", "key", t->key_rsa ? "rsa" : "ecdsa",
                     "resumption", !t->no_resumption);
}

/* request: as recorded: {method: POST, body_bytes} or {method: GET}. */
static json_t *request_json(const struct profile_request *r)
{
    return r->post ? json_pack("{s:s, s:I}", "method", "POST", "body_bytes", (json_int_t)r->body_bytes)
                   : json_pack("{s:s}", "method", "GET");
}

/* check: as recorded: {status}, or null for none. */
static json_t *check_json(const struct profile_check *c)
{
    return c->status ? json_pack("{s:i}", "status", c->status) : json_null();
}

json_t *profile_entry_json(const struct profile *p, const struct profile_tool *t)
{
    struct profile v;
    profile_entry_view(p, t, &v);
    json_t *o = json_pack("{s:{s:s, s:o, s:I}, s:o, s:o}", "target", "protocol", profile_protocol_name(v.target.protocol),
                          "tls", tls_json(&v.target.tls), "delay_ns", (json_int_t)v.target.delay_ns, "request",
                          request_json(&v.request), "check", check_json(&v.check));
    json_t *shape = profile_shape_json(&v.target.shape); /* as profile.target records it */
    if (shape)
        json_object_set_new(json_object_get(o, "target"), "shape", shape);
    return o;
}

/* What entry t writes itself (profile_entry_view), as the resolved
 * profile's tool entry records it: only those keys, so an entry without
 * them hashes as before; target.tls and check null for off. */
static void entry_own_json(const struct profile_tool *t, json_t *o)
{
    if (t->own & (PROFILE_OWN_TLS | PROFILE_OWN_PROTOCOL | PROFILE_OWN_DELAY)) {
        json_t *tg = json_object();
        if (t->own & PROFILE_OWN_DELAY)
            json_object_set_new(tg, "delay_ns", json_integer((json_int_t)t->delay_ns));
        if (t->own & PROFILE_OWN_PROTOCOL)
            json_object_set_new(tg, "protocol", json_string(profile_protocol_name(t->protocol)));
        if (t->own & PROFILE_OWN_TLS)
            json_object_set_new(tg, "tls", tls_json(&t->tls));
        json_object_set_new(o, "target", tg);
    }
    if (t->own & PROFILE_OWN_REQUEST)
        json_object_set_new(o, "request", request_json(&t->request));
    if (t->own & PROFILE_OWN_CHECK)
        json_object_set_new(o, "check", check_json(&t->check));
}

json_t *profile_to_json(const struct profile *p)
{
    json_t *tools = json_array();
    for (size_t i = 0; i < p->ntools; i++) {
        const struct profile_tool *t = &p->tools[i];
        json_t *o = json_pack("{s:s, s:s, s:O}", "tool", t->tool, "label", t->label, "options", t->options);
        if (t->bin)
            json_object_set_new(o, "bin", json_string(t->bin));
        if (t->load)
            json_object_set_new(o, "load", profile_load_to_json(t->load));
        if (t->memory_limit_bytes)
            json_object_set_new(o, "memory_limit_bytes", json_integer((json_int_t)t->memory_limit_bytes));
        if (t->timeout_ns)
            json_object_set_new(o, "timeout_ns", json_integer((json_int_t)t->timeout_ns));
        if (t->nhosts == 1) /* as before the lists: one host hashes as it did */
            json_object_set_new(o, "host", json_string(t->host));
        if (t->nhosts > 1) {
            json_t *hl = json_array();
            for (unsigned k = 0; k < t->nhosts; k++)
                json_array_append_new(hl, json_string(t->hosts[k]));
            json_object_set_new(o, "host", hl);
        }
        /* Only when several: a profile without instances hashes as before. */
        if (t->instances > 1)
            json_object_set_new(o, "instances", json_integer(t->instances));
        entry_own_json(t, o);
        json_array_append_new(tools, o);
    }
    json_t *o = json_pack("{s:s, s:s, s:{s:I, s:I, s:i}, s:o, s:o, s:I, s:i, s:I, s:I}", "name", p->name, "path", p->path,
                          "target", "delay_ns", (json_int_t)p->target.delay_ns, "body_bytes",
                          (json_int_t)p->target.body_bytes, "threads", (int)p->target.threads, "load",
                          profile_load_to_json(&p->load), "tools", tools, "sample_interval_ns",
                          (json_int_t)p->sample_interval_ns, "repeat", (int)p->repeat, "cooldown_ns",
                          (json_int_t)p->cooldown_ns, "grace_ns", (json_int_t)p->grace_ns);
    if (p->description)
        json_object_set_new(o, "description", json_string(p->description));
    if (p->scale != 1)
        json_object_set_new(o, "scale", json_real(p->scale));
    if (p->target.work_ns)
        json_object_set_new(json_object_get(o, "target"), "work_ns", json_integer((json_int_t)p->target.work_ns));
    /* Only when set: a plain HTTP/1.1 profile hashes as before. */
    if (p->target.protocol != PROFILE_H1)
        json_object_set_new(json_object_get(o, "target"), "protocol", json_string(profile_protocol_name(p->target.protocol)));
    if (p->target.tls.version)
        json_object_set_new(json_object_get(o, "target"), "tls", tls_json(&p->target.tls));
    json_t *shape = profile_shape_json(&p->target.shape);
    if (shape)
        json_object_set_new(json_object_get(o, "target"), "shape", shape);
    if (p->target_cpus)
        json_object_set_new(o, "target_cpus_mask", json_integer((json_int_t)p->target_cpus));
    if (p->tool_cpus)
        json_object_set_new(o, "tool_cpus_mask", json_integer((json_int_t)p->tool_cpus));
    /* Only a profile with hosts: says so: one without hashes as before. */
    if (p->nhosts)
        json_object_set_new(o, "hosts", hosts_to_json(p));
    if (p->target_host)
        json_object_set_new(json_object_get(o, "target"), "host", json_string(p->target_host));
    /* Only when set: a profile without check: hashes as before. */
    if (p->check.status)
        json_object_set_new(o, "check", check_json(&p->check));
    /* Only a POST: a profile without request: (or with GET) hashes as before. */
    if (p->request.post)
        json_object_set_new(o, "request", request_json(&p->request));
    /* Only when not the defaults: a profile without quiet: hashes as before. */
    const struct profile_quiet *q = &p->quiet;
    if (q->busy_below_pct != PROFILE_QUIET_BUSY_PCT || q->wait_max_ns != PROFILE_QUIET_WAIT_NS ||
        q->interval_ns != PROFILE_QUIET_INTERVAL_NS)
        json_object_set_new(o, "quiet", json_pack("{s:f, s:I, s:I}", "busy_below_pct", q->busy_below_pct, "wait_max_ns",
                                                  (json_int_t)q->wait_max_ns, "interval_ns", (json_int_t)q->interval_ns));
    return o;
}

void profile_json_sha256(const json_t *resolved, char hex[65])
{
    json_t *c = json_deep_copy(resolved);
    json_object_del(c, "path");
    /* The quiet gate decides when a run starts, not what it does. */
    json_object_del(c, "quiet");
    /* Reals at run.json's precision (fsutil_write_json): a profile read back
     * from run.json dumps as it did before it was written. */
    char *s = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
    sha256_hex(s ? s : "", s ? strlen(s) : 0, hex);
    free(s);
    json_decref(c);
}

/* CPUs as a list of ranges ("0-3,6") into out. */
static void cpu_ranges(const cpu_set_t *set, char *out, size_t outlen)
{
    out[0] = 0;
    for (int a = 0; a < 64; a++) {
        if (!CPU_ISSET(a, set) || (a > 0 && CPU_ISSET(a - 1, set)))
            continue;
        int b = a;
        while (b + 1 < 64 && CPU_ISSET(b + 1, set))
            b++;
        size_t len = strlen(out);
        if (b > a)
            snprintf(out + len, outlen - len, "%s%d-%d", len ? "," : "", a, b);
        else
            snprintf(out + len, outlen - len, "%s%d", len ? "," : "", a);
    }
}

int profile_check_cpus(const struct profile *p, char *err)
{
    /* A CPU this process may not run on would fail the pinning of every
     * tool run after the run directory is made (or, in a range, be counted
     * as a tool CPU the tool never had): refuse it before anything starts. */
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) < 0)
        return 0; /* nothing to check against: pinning will say */
    const struct {
        const char *what;
        uint64_t mask;
        const int *pos;
    } sets[] = {{"cpus.target", p->target_cpus, p->target_cpus_pos}, {"cpus.tool", p->tool_cpus, p->tool_cpus_pos}};
    for (size_t i = 0; i < 2; i++) {
        for (int c = 0; c < 64; c++) {
            if (!(sets[i].mask >> c & 1) || CPU_ISSET(c, &allowed))
                continue;
            char have[96];
            cpu_ranges(&allowed, have, sizeof have);
            return util_err(err, "%s:%d:%d: %s: CPU %d is not one loadbench may run on here (allowed: %s)", p->path,
                            sets[i].pos[0], sets[i].pos[1], sets[i].what, c, have);
        }
    }
    return 0;
}
