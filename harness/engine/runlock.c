/* runlock: run-directory ownership by pid + start time + boot id (see
 * runlock.h). */
#include "engine/runlock.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct owner {
    pid_t pid;
    uint64_t start_ticks;
    char boot[64];
    unsigned long long pidns;
};

/* Our pid namespace (the inode of /proc/self/ns/pid): a pid proves
 * something only in the namespace it was read in, and containers may
 * share a cgroup hierarchy or a results directory. 0 when unknown. */
static unsigned long long pid_ns(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

int runlock_start_time(pid_t pid, uint64_t *start_ticks)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (pid <= 0 || fsutil_read_small(path, buf, sizeof buf) <= 0)
        return -1;
    /* comm may hold spaces and ')': fields start after the last ')'; field
     * 22 (starttime) is the 20th after it. */
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return -1;
    /* Field 3, the state: a zombie (Z) or one being reaped (X, x) is gone
     * though its stat is still there until its parent waits for it - a
     * SIGKILLed lb-gen reparented to a slow init, or loadbench itself
     * before its parent shell's wait. */
    if (p[2] == 'Z' || p[2] == 'X' || p[2] == 'x')
        return -1;
    p++;
    for (int field = 3; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (!p)
            return -1;
    }
    *start_ticks = strtoull(p + 1, NULL, 10);
    return 0;
}

int runlock_owner_dead(pid_t pid, uint64_t start_ticks)
{
    uint64_t now;
    if (runlock_start_time(pid, &now) < 0)
        return 1;
    return start_ticks && now != start_ticks;
}

static void boot_id(char *out, size_t len)
{
    fsutil_first_line("/proc/sys/kernel/random/boot_id", out, len);
}

void runlock_tag(char *buf, size_t len)
{
    uint64_t st = 0;
    runlock_start_time(getpid(), &st);
    snprintf(buf, len, "%d.%llu.%llu", (int)getpid(), (unsigned long long)st, pid_ns());
}

int runlock_tag_dead(const char *tag, const char **rest)
{
    char *end;
    long pid = strtol(tag, &end, 10);
    if (end == tag || pid <= 0 || *end != '.')
        return -1;
    unsigned long long start = strtoull(end + 1, &end, 10), ns = 0;
    if (*end != '.')
        return -1;
    ns = strtoull(end + 1, &end, 10);
    *rest = end;
    if (!start || !ns || ns != pid_ns())
        return 0; /* nothing can be proven from here */
    return runlock_owner_dead((pid_t)pid, start);
}

/* The lock in run_dir. Returns 1 with o filled, 0 when there is none, -1
 * when it cannot be read as a lock (then nothing is proven). */
static int read_lock(const char *run_dir, struct owner *o)
{
    char path[PATH_MAX], buf[256];
    snprintf(path, sizeof path, "%s/" RUNLOCK_FILE, run_dir);
    memset(o, 0, sizeof *o);
    /* Checked as any input (a FIFO named like the lock proves nothing and
     * must not hang doctor); a lock longer than buf is not one. */
    int fd = fsutil_open_input(path, sizeof buf - 1, NULL);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = 0;
    int pid = 0;
    unsigned long long st = 0;
    if (sscanf(buf, "loadbench pid %d start %llu boot %63s pidns %llu", &pid, &st, o->boot, &o->pidns) != 4 ||
        pid <= 0)
        return -1;
    o->pid = (pid_t)pid;
    o->start_ticks = st;
    return 1;
}

static int owner_dead(const struct owner *o)
{
    char boot[64];
    boot_id(boot, sizeof boot);
    if (boot[0] && strcmp(boot, o->boot))
        return 1; /* written before the last reboot */
    if (!o->pidns || o->pidns != pid_ns() || !o->start_ticks)
        return 0; /* another pid namespace's loadbench: its pid means nothing here */
    return runlock_owner_dead(o->pid, o->start_ticks);
}

int runlock_take(const char *run_dir, char *err)
{
    struct owner o;
    if (read_lock(run_dir, &o) == 1 && o.pid != getpid() && !owner_dead(&o))
        return util_err(err, "%s is in use by a running loadbench (pid %d): wait for it or choose another directory",
                        run_dir, (int)o.pid);
    uint64_t st = 0;
    char boot[64], text[160], path[PATH_MAX];
    runlock_start_time(getpid(), &st);
    boot_id(boot, sizeof boot);
    snprintf(text, sizeof text, "loadbench pid %d start %llu boot %s pidns %llu\n", (int)getpid(),
             (unsigned long long)st, boot[0] ? boot : "-", pid_ns());
    snprintf(path, sizeof path, "%s/" RUNLOCK_FILE, run_dir);
    /* Written whole or not at all: a half lock would prove nothing. */
    return fsutil_write_text(path, text, err);
}

/* The hidden sibling run_dir is built in: ".NAME.lbnew.PID". */
static int stage_name(char *out, size_t len, const char *run_dir, pid_t pid)
{
    const char *slash = strrchr(run_dir, '/');
    const char *base = slash ? slash + 1 : run_dir;
    int plen = slash ? (int)(slash - run_dir + 1) : 0;
    return (size_t)snprintf(out, len, "%.*s.%s.lbnew.%d", plen, run_dir, base, (int)pid) < len ? 0 : -1;
}

/* Remove a staging directory: its entries are files (the lock, a lock's
 * temporary), never directories. */
static void remove_stage(const char *stage)
{
    DIR *d = opendir(stage);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)))
            if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
                unlinkat(dirfd(d), de->d_name, 0);
        closedir(d);
    }
    rmdir(stage);
}

int runlock_mkdir(const char *run_dir, char *err)
{
    char stage[PATH_MAX];
    struct stat st;
    if (lstat(run_dir, &st) == 0)
        return util_err(err, "%s already exists: loadbench never overwrites a run (choose another --out)", run_dir);
    if (stage_name(stage, sizeof stage, run_dir, getpid()))
        return util_err(err, "%s: path too long", run_dir);
    remove_stage(stage); /* a dead namesake's, pid reused */
    if (mkdir(stage, 0755) < 0)
        return util_err(err, "cannot create the run directory %s: %s", run_dir, strerror(errno));
    /* The lock is also the proof that the directory takes writes. */
    if (runlock_take(stage, err)) {
        remove_stage(stage);
        return -1;
    }
    /* Into place whole, never over anything: an empty directory of the
     * same name would be replaced by a plain rename. */
    int rc = renameat2(AT_FDCWD, stage, AT_FDCWD, run_dir, RENAME_NOREPLACE);
    if (rc < 0 && (errno == EINVAL || errno == ENOSYS)) /* a filesystem without it */
        rc = lstat(run_dir, &st) == 0 ? (errno = EEXIST, -1) : rename(stage, run_dir);
    if (rc < 0) {
        int e = errno;
        remove_stage(stage);
        if (e == EEXIST || e == ENOTEMPTY)
            return util_err(err, "%s already exists: loadbench never overwrites a run (choose another --out)",
                            run_dir);
        return util_err(err, "cannot create the run directory %s: %s", run_dir, strerror(e));
    }
    return 0;
}

void runlock_release(const char *run_dir)
{
    struct owner o;
    char path[PATH_MAX];
    if (!run_dir || read_lock(run_dir, &o) != 1 || o.pid != getpid())
        return;
    snprintf(path, sizeof path, "%s/" RUNLOCK_FILE, run_dir);
    unlink(path);
}

/* run.json written compact, a third smaller than indented: beside the old
 * one when that fits, else over it in place (a full disk leaves no room
 * for two copies; the compact form is shorter than the file it replaces). */
static int mark_compact(const char *path, json_t *run, char *err)
{
    const size_t flags = JSON_COMPACT | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII;
    if (fsutil_write_json_flags(path, run, flags, err) == 0)
        return 0;
    if (errno != ENOSPC && errno != EDQUOT)
        return -1;
    char *s = json_dumps(run, flags);
    int rc = s ? fsutil_overwrite_in_place(path, s, err) : util_err(err, "cannot encode %s", path);
    free(s);
    return rc;
}

/* Mark run.json abandoned. Returns 1 when marked, 0 when the run had ended
 * (its status is final), -1 with err. */
static int mark_abandoned(const char *run_dir, const struct owner *o, char *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/run.json", run_dir);
    json_t *run;
    if (access(path, F_OK) < 0 && errno == ENOENT) {
        /* Killed between making the directory and the first save. */
        run = json_pack("{s:i, s:s, s:[]}", "schema_version", 1, "status", "running", "runs");
    } else {
        json_error_t je;
        if (!(run = fsutil_load_json(path, FSUTIL_CAP_RUN_JSON, &je)) && je.line > 0)
            return util_err(err, "%s:%d: %s (cannot mark the run abandoned)", path, je.line, je.text);
        if (!run) /* refused or unopenable: no line to name */
            return util_err(err, "%s: %s (cannot mark the run abandoned)", path, je.text);
    }
    const char *st = json_string_value(json_object_get(run, "status"));
    if (st && strcmp(st, "running")) {
        json_decref(run);
        return 0;
    }
    json_object_set_new(run, "status", json_string("abandoned"));
    json_object_set_new(run, "abandoned",
                        json_pack("{s:i, s:I, s:s}", "owner_pid", (int)o->pid, "found_at_ms",
                                  (json_int_t)util_wall_ms(), "reason",
                                  "the loadbench that ran it died (killed?) before it finished; the tool runs it "
                                  "finished are kept, the one in progress is not in runs"));
    int rc = fsutil_write_json(path, run, err);
    if (rc < 0 && (errno == ENOSPC || errno == EDQUOT)) /* the run died of a full disk */
        rc = mark_compact(path, run, err);
    json_decref(run);
    return rc < 0 ? -1 : 1;
}

/* The PID of a name ending in MARKER + PID (NAME.tmp.PID, .NAME.lbnew.PID:
 * the last marker, not at the name's start, then digits only), or 0. */
static pid_t marker_pid(const char *name, const char *marker)
{
    size_t ml = strlen(marker);
    const char *t = NULL;
    for (const char *p = name; (p = strstr(p, marker)); p++)
        t = p;
    if (!t || t == name || !isdigit((unsigned char)t[ml]))
        return 0;
    char *end;
    long pid = strtol(t + ml, &end, 10);
    return *end || pid <= 0 || pid > INT_MAX ? 0 : (pid_t)pid;
}

/* Whether name is a leftover of an atomic write (NAME.tmp.PID, see
 * fsutil_write_text) by the dead owner or by another process that is gone:
 * lb-gen writes its --json summary that way, and a tool run killed with
 * its loadbench may stop between write and rename. A PID that is alive
 * (reused, or a writer still at work) keeps its file. */
static int dead_temp(const char *name, pid_t owner)
{
    pid_t pid = marker_pid(name, ".tmp.");
    uint64_t start;
    return pid > 0 && (pid == owner || runlock_start_time(pid, &start) < 0);
}

/* Remove the dead writers' temporary files in dir and its direct
 * subdirectories (each tool's, charts/). */
static void remove_temps(const char *dir, pid_t owner, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[PATH_MAX];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path)
            continue;
        if (de->d_type != DT_DIR && dead_temp(de->d_name, owner))
            unlink(path);
        else if (depth > 0 && de->d_type == DT_DIR)
            remove_temps(path, owner, depth - 1);
    }
    closedir(d);
}

int runlock_reap(const char *run_dir, char *err)
{
    struct owner o;
    if (read_lock(run_dir, &o) != 1 || !owner_dead(&o))
        return 0;
    remove_temps(run_dir, o.pid, 1);
    int rc = mark_abandoned(run_dir, &o, err);
    if (rc >= 0) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/" RUNLOCK_FILE, run_dir);
        unlink(path);
    }
    return rc;
}

/* Whether name is a staging directory (see runlock_mkdir) whose builder
 * is gone: killed between its mkdir and its rename. */
static int dead_stage(const char *name)
{
    pid_t pid = marker_pid(name, ".lbnew.");
    uint64_t start;
    return pid > 0 && runlock_start_time(pid, &start) < 0;
}

int runlock_reap_all(const char *results_root, char *err)
{
    DIR *d = opendir(results_root);
    if (!d)
        return 0;
    int marked = 0, failed = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char dir[PATH_MAX];
        if ((size_t)snprintf(dir, sizeof dir, "%s/%s", results_root, de->d_name) >= sizeof dir)
            continue;
        if (de->d_name[0] == '.') {
            if (dead_stage(de->d_name))
                remove_stage(dir);
            continue;
        }
        int rc = runlock_reap(dir, failed ? NULL : err);
        if (rc > 0)
            marked++;
        else if (rc < 0)
            failed = 1;
    }
    closedir(d);
    return failed ? -1 : marked;
}

int runlock_sweep_dirs(const char *root, const char *prefix, void (*remove_dir)(const char *path))
{
    size_t plen = strlen(prefix);
    DIR *d = opendir(root);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        const char *rest;
        char path[PATH_MAX];
        struct stat st;
        if (strncmp(e->d_name, prefix, plen) || runlock_tag_dead(e->d_name + plen, &rest) != 1 || *rest != '-' ||
            snprintf(path, sizeof path, "%s/%s", root, e->d_name) >= (int)sizeof path)
            continue;
        if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
            continue;
        remove_dir(path);
        n++;
    }
    if (d)
        closedir(d);
    return n;
}
