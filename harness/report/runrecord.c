#include "report/runrecord.h"
#include "common/fsutil.h"
#include "common/sha256.h"
#include "common/strbuf.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- status: the rows against the profile --------------------------------- */

/* 1 when the row ended with a status a report can stand on: anything but
 * interrupted (or no status, or a word loadbench does not write). */
static int row_final(json_t *row)
{
    /* "invalid": a row whose figures compare and history refuse as
     * evidence (report/evidence.c marks it in memory); it did end. */
    static const char *const final[] = {"ok", "skipped", "suspect", "failed", "timeout", "oom", "invalid", NULL};
    const char *st = json_string_value(json_object_get(row, "status"));
    for (const char *const *f = final; st && *f; f++)
        if (!strcmp(st, *f))
            return 1;
    return 0;
}

/* 1 when label is one the run set out to measure: every tool entry, or
 * only those its --only runs named (run.json "only"). */
static int in_scope(json_t *run, const char *label)
{
    json_t *only = json_object_get(run, "only"), *l;
    size_t i;
    if (!json_is_array(only))
        return 1;
    json_array_foreach(only, i, l) if (json_is_string(l) && !strcmp(json_string_value(l), label)) return 1;
    return 0;
}

/* The key of an entry (label, level, repeat) in the rows' index. */
static void entry_key(char *buf, size_t len, const char *label, double level, long rep)
{
    if (isnan(level))
        snprintf(buf, len, "%s\n-\n%ld", label, rep);
    else
        snprintf(buf, len, "%s\n%.17g\n%ld", label, level, rep);
}

/* Every row's entry to what it has: "" when each of its rows is final,
 * else the status of one that is not ("interrupted", "no status"). One
 * pass, so a run of thousands of rows is checked in linear time. */
static json_t *rows_index(json_t *runs)
{
    json_t *index = json_object(), *r;
    size_t i;
    json_array_foreach(runs, i, r)
    {
        json_t *lv = json_object_get(r, "level"), *rp = json_object_get(r, "repeat");
        char key[600];
        long rep = json_is_integer(rp) ? (long)json_integer_value(rp) : json_is_number(rp) ? (long)json_number_value(rp) : 1;
        entry_key(key, sizeof key, json_string_value(json_object_get(r, "label")) ?: "",
                  json_is_number(lv) ? json_number_value(lv) : NAN, rep);
        const char *had = json_string_value(json_object_get(index, key));
        if (had && had[0]) /* a row not final already spoke for the entry */
            continue;
        const char *st = json_string_value(json_object_get(r, "status"));
        json_object_set_new(index, key, json_string(row_final(r) ? "" : st ? st : "no status"));
    }
    return index;
}

/* NULL when the entry (label, level, rep) has rows and every one is
 * final; else what it has instead ("no row", "interrupted"). */
static const char *entry_state(json_t *index, const char *label, double level, long rep)
{
    char key[600];
    entry_key(key, sizeof key, label, level, rep);
    const char *st = json_string_value(json_object_get(index, key));
    return !st ? "no row" : st[0] ? st : NULL;
}

/* One entry without a final row, said into why ("and N more" past its room). */
static void say_entry(char *why, size_t len, size_t nth, const char *label, double level, long rep, long repeat,
                      const char *state)
{
    size_t used = why ? strlen(why) : 0;
    if (!why || !len || used + 1 >= len)
        return;
    char lv[40] = "", rp[24] = "";
    if (!isnan(level))
        snprintf(lv, sizeof lv, "@%.10g", level);
    if (repeat > 1)
        snprintf(rp, sizeof rp, "#%ld", rep);
    int n = snprintf(why + used, len - used, "%s%s%s%s (%s)", nth ? ", " : "", label, lv, rp, state);
    if (n < 0 || (size_t)n >= len - used) /* cut: end on what is left out rather than mid-name */
        snprintf(why + used, len - used, "%s...", nth ? ", " : "");
}

/* The entries run set out to measure that have no final row, each said
 * into why (may be NULL). Returns how many (a run.json without tool
 * entries has one: nothing it claims can be checked). */
static size_t entries_missing(json_t *run, char *why, size_t len)
{
    json_t *prof = json_object_get(run, "profile"), *t;
    json_t *rp = json_object_get(prof, "repeat");
    long repeat = json_is_integer(rp) && json_integer_value(rp) > 0 ? (long)json_integer_value(rp) : 1;
    size_t i, missing = 0;
    if (!json_array_size(json_object_get(prof, "tools"))) {
        if (why && len)
            snprintf(why, len, "run.json names no tool entries to measure");
        return 1;
    }
    json_t *index = rows_index(json_object_get(run, "runs"));
    json_array_foreach(json_object_get(prof, "tools"), i, t)
    {
        const char *label = json_string_value(json_object_get(t, "label"));
        if (!label || !in_scope(run, label))
            continue;
        json_t *load = json_object_get(t, "load") ?: json_object_get(prof, "load");
        json_t *sweep = json_object_get(load, "sweep");
        size_t nl = json_array_size(sweep) ? json_array_size(sweep) : 1;
        for (size_t li = 0; li < nl; li++)
            for (long rep = 1; rep <= repeat; rep++) {
                double level = json_array_size(sweep) ? json_number_value(json_array_get(sweep, li)) : NAN;
                const char *state = entry_state(index, label, level, rep);
                if (state)
                    say_entry(why, len, missing++, label, level, rep, repeat, state);
            }
    }
    json_decref(index);
    return missing;
}

const char *runstatus(json_t *run, char *why, size_t len)
{
    if (why && len)
        why[0] = 0;
    const char *rec = json_string_value(json_object_get(run, "status"));
    size_t missing = entries_missing(run, why, len);
    if (!rec)
        return "absent";
    /* Only a claim of completeness is checked: no other status is upgraded. */
    if (strcmp(rec, RUNSTATUS_COMPLETE))
        return rec;
    return missing ? RUNSTATUS_INCOMPLETE : RUNSTATUS_COMPLETE;
}

/* into's status as runstatus derives run's, and "status_detail": why it
 * is not complete (none when it is). */
static void put_status(json_t *into, json_t *run)
{
    char why[1024];
    /* A copy: the status may be run's own string, which the set replaces. */
    char *st = util_xstrdup(runstatus(run, why, sizeof why));
    json_object_set_new(into, "status", json_string(st));
    if (why[0] && strcmp(st, RUNSTATUS_COMPLETE))
        json_object_set_new(into, "status_detail", json_sprintf("no final row for: %s", why));
    else
        json_object_del(into, "status_detail");
    free(st);
}

void runstatus_settle(json_t *run, const char *ended_as)
{
    json_object_set_new(run, "status", json_string(ended_as));
    put_status(run, run);
}

/* ---- files: recorded at the row's end, checked by every report ------------- */

/* At most this many files a row: a tool's folder is its configs, its
 * output and its result files (a home/ of caches at most). */
#define RUNRECORD_FILES_MAX 4096

/* The keys of o (and of the objects and arrays in it, a few levels deep)
 * that name a file of the run ("samples_file", "server_series_file"):
 * fn(object, key, path) for each. */
static void file_keys(json_t *o, int depth, void (*fn)(json_t *, const char *, const char *, void *), void *arg)
{
    const char *k;
    json_t *v;
    size_t i;
    if (depth > 4)
        return;
    if (json_is_array(o))
        json_array_foreach(o, i, v) file_keys(v, depth + 1, fn, arg);
    if (!json_is_object(o))
        return;
    void *tmp;
    json_object_foreach_safe(o, tmp, k, v)
    {
        size_t n = strlen(k);
        if (json_is_string(v) && n > 5 && !strcmp(k + n - 5, "_file"))
            fn(o, k, json_string_value(v), arg);
        else
            file_keys(v, depth + 1, fn, arg);
    }
}

/* A path recorded for the run: relative, inside it (no ".." part). */
static int inside_run(const char *rel)
{
    if (!rel[0] || rel[0] == '/')
        return 0;
    for (const char *p = rel; p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL)
        if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
            return 0;
    return 1;
}

static void push_key_path(json_t *o, const char *k, const char *path, void *arg)
{
    (void)o;
    (void)k;
    if (inside_run(path))
        strvec_push(arg, path);
}

/* Every regular file below run_dir/rel (links and other kinds are not
 * followed or read), relative to run_dir, into out. */
static void walk(const char *run_dir, const char *rel, int depth, struct strvec *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", run_dir, rel);
    DIR *d = depth < 16 ? opendir(path) : NULL;
    struct dirent *de;
    while (d && (de = readdir(d)) && out->n < RUNRECORD_FILES_MAX) {
        struct stat st;
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        char *sub = util_xasprintf("%s/%s", rel, de->d_name);
        if (S_ISDIR(st.st_mode))
            walk(run_dir, sub, depth + 1, out);
        else if (S_ISREG(st.st_mode))
            strvec_push(out, sub);
        free(sub);
    }
    if (d)
        closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The size and SHA-256 of run_dir/rel as it is now. Returns 0, or -1 with
 * why ("is missing", or what it is instead of a regular file) and errno
 * (ENOENT: missing). */
static int file_now(const char *run_dir, const char *rel, long long *bytes, char sha[65], char *why, size_t len)
{
    char path[4096], err[UTIL_ERR_LEN];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", run_dir, rel);
    int fd = fsutil_open_input(path, FSUTIL_CAP_STREAM, err);
    if (fd < 0) {
        int e = errno;
        const char *colon = strstr(err, ": ");
        snprintf(why, len, "%s", e == ENOENT ? "is missing" : colon ? colon + 2 : err);
        errno = e;
        return -1;
    }
    int rc = fstat(fd, &st) < 0 || sha256_fd_hex(fd, sha) < 0 ? -1 : 0;
    if (rc < 0)
        snprintf(why, len, "cannot be read: %s", strerror(errno));
    else
        *bytes = (long long)st.st_size;
    close(fd);
    return rc;
}

void runrecord_files(const char *run_dir, json_t *row)
{
    struct strvec paths = {0};
    const char *dir = json_string_value(json_object_get(row, "dir"));
    if (dir && inside_run(dir))
        walk(run_dir, dir, 0, &paths);
    size_t in_dir = paths.n;
    file_keys(row, 0, push_key_path, &paths);
    qsort(paths.v, paths.n, sizeof *paths.v, cmp_str);
    json_t *files = json_array();
    for (size_t i = 0; i < paths.n; i++) {
        char sha[65], why[256];
        long long bytes;
        if ((i && !strcmp(paths.v[i], paths.v[i - 1])) || file_now(run_dir, paths.v[i], &bytes, sha, why, sizeof why))
            continue; /* a series file never written (a row that failed at start) is not evidence */
        json_array_append_new(files, json_pack("{s:s, s:I, s:s}", "path", paths.v[i], "bytes", (json_int_t)bytes,
                                               "sha256", sha));
    }
    json_object_set_new(row, "files", files);
    if (in_dir >= RUNRECORD_FILES_MAX)
        json_object_set_new(row, "files_unrecorded", json_sprintf("the row's folder has more than %d files: the "
                                                                  "first %d found are recorded",
                                                                  RUNRECORD_FILES_MAX, RUNRECORD_FILES_MAX));
    strvec_free(&paths);
}

/* The files a publishing script pruned on purpose: the first word of each
 * line of dir/PRUNED.txt ("PATH SIZE bytes", scripts/prune-run-dir), as
 * the keys of an object (empty without one). */
static json_t *pruned_list(const char *dir)
{
    char path[4096];
    json_t *set = json_object();
    snprintf(path, sizeof path, "%s/PRUNED.txt", dir);
    char *text = fsutil_slurp(path, 64u << 20, NULL, NULL);
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        char *sp = strchr(line, ' ');
        if (sp && sp > line) {
            *sp = 0;
            json_object_set_new(set, line, json_true());
        }
    }
    free(text);
    return set;
}

/* Why the recorded file e is no longer what the run left (a sentence into
 * note), or 0 when it still is, or was pruned on purpose (listed in
 * pruned: PRUNED.txt says so in the run directory itself). */
static int file_changed(const char *dir, json_t *e, json_t *pruned, char *note, size_t len)
{
    const char *rel = json_string_value(json_object_get(e, "path")),
               *sha = json_string_value(json_object_get(e, "sha256"));
    json_t *b = json_object_get(e, "bytes");
    char now[65], why[256];
    long long bytes;
    if (!rel || !sha || !json_is_integer(b) || !inside_run(rel))
        return snprintf(note, len, "a files entry of run.json is malformed or names a path outside the run: "
                                   "the row's files cannot be checked"), 1;
    long long was = (long long)json_integer_value(b);
    int gone = file_now(dir, rel, &bytes, now, why, sizeof why), e_now = errno;
    if (gone && e_now == ENOENT && json_object_get(pruned, rel))
        return 0;
    if (gone)
        return snprintf(note, len, "file %s %s since the run (recorded: %lld bytes, sha256 %.12s…): what it held is "
                                   "not shown", rel, why, was, sha), 1;
    if (bytes == was && !strcmp(now, sha))
        return 0;
    return snprintf(note, len, "file %s changed since the run (recorded: %lld bytes, sha256 %.12s…; now: %lld bytes, "
                               "sha256 %.12s…): what it holds is not this row's evidence and is not shown",
                    rel, was, sha, bytes, now), 1;
}

/* Drop o's key k when it names the bad file arg. */
static void drop_key(json_t *o, const char *k, const char *path, void *arg)
{
    if (!strcmp(path, arg))
        json_object_del(o, k);
}

/* Check row's recorded files under dir: a note for each missing or
 * changed one, whose keys are dropped. Returns how many. */
static int check_row(const char *dir, json_t *row, json_t *pruned)
{
    json_t *e, *w = json_object_get(row, "warnings");
    size_t i;
    int bad = 0;
    if (!json_is_array(w)) {
        w = json_array();
        json_object_set_new(row, "warnings", w);
    }
    json_array_foreach(json_object_get(row, "files"), i, e)
    {
        char note[1024];
        if (!file_changed(dir, e, pruned, note, sizeof note))
            continue;
        json_array_append_new(w, json_string(note));
        const char *rel = json_string_value(json_object_get(e, "path"));
        if (rel)
            file_keys(row, 0, drop_key, (void *)rel);
        bad++;
    }
    return bad;
}

json_t *runrecord_view(const char *dir, json_t *run, int *bad)
{
    json_t *view = json_deep_copy(run), *r, *pruned = pruned_list(dir);
    size_t i;
    int n = 0;
    put_status(view, run);
    json_array_foreach(json_object_get(view, "runs"), i, r)
    {
        if (json_is_array(json_object_get(r, "files")))
            n += check_row(dir, r, pruned);
    }
    json_decref(pruned);
    if (n) /* for the reports' first lines */
        json_object_set_new(view, "files_changed", json_integer(n));
    if (bad)
        *bad = n;
    return view;
}
