/* fsutil's input checks and whole-file writes (issue #29): what
 * fsutil_open_input refuses (a FIFO at once, a symbolic link, a directory,
 * a device, a file over its cap), what it reads, and that a failed write
 * leaves the old file as it was. Real files in a temporary directory. */
#include "common/fsutil.h"
#include "common/util.h"
#include "tests/tap.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

static const char *at(const char *name)
{
    static char path[2][256];
    static int k;
    k ^= 1;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void refusals(void)
{
    char err[UTIL_ERR_LEN] = "";
    mkfifo(at("fifo.json"), 0644);
    double t0 = now_s();
    int fd = fsutil_open_input(at("fifo.json"), FSUTIL_CAP_RESULT, err);
    ok(fd < 0 && now_s() - t0 < 1.0, "a FIFO with no writer is refused at once, not waited on");
    ok(strstr(err, "fifo.json: is a FIFO, not a regular file") != NULL, "the error names the FIFO (%s)", err);
    json_error_t je;
    ok(!fsutil_load_json(at("fifo.json"), FSUTIL_CAP_RUN_JSON, &je) && je.line == -1 && strstr(je.text, "is a FIFO"),
       "fsutil_load_json refuses it with no line (%s)", je.text);

    fsutil_write_text(at("secret.json"), "{\"secret\": 1}\n", NULL);
    chmod(at("secret.json"), 0600);
    symlink(at("secret.json"), at("link.json"));
    ok(fsutil_open_input(at("link.json"), FSUTIL_CAP_RESULT, err) < 0 && strstr(err, "is a symbolic link: refused"),
       "a symbolic link is refused, not followed (%s)", err);
    ok(fsutil_slurp(at("link.json"), FSUTIL_CAP_RESULT, NULL, err) == NULL, "fsutil_slurp refuses it too");
    ok(fsutil_open_input(dir, FSUTIL_CAP_RESULT, err) < 0 && strstr(err, "is a directory"), "a directory is refused");
    ok(fsutil_open_input("/dev/null", FSUTIL_CAP_RESULT, err) < 0 && strstr(err, "character device"),
       "a device is refused (%s)", err);
    fsutil_write_text(at("big.txt"), "0123456789", NULL);
    ok(fsutil_open_input(at("big.txt"), 9, err) < 0 && strstr(err, "is 10 bytes, over the 9-byte limit"),
       "a file over its cap is refused (%s)", err);
    errno = 0;
    ok(fsutil_open_input(at("none.json"), 9, err) < 0 && errno == ENOENT, "a missing file is ENOENT for the caller");
}

static void reads(void)
{
    char err[UTIL_ERR_LEN] = "";
    size_t len = 0;
    char *s = fsutil_slurp(at("big.txt"), 10, &len, err);
    ok(s && len == 10 && !strcmp(s, "0123456789"), "a regular file at its cap is read whole");
    free(s);
    json_t *j = fsutil_load_json(at("secret.json"), FSUTIL_CAP_RUN_JSON, NULL);
    ok(j && json_integer_value(json_object_get(j, "secret")) == 1, "the file itself (not the link) loads as JSON");
    json_decref(j);
    FILE *f = fsutil_fopen_input(at("big.txt"), 10, err);
    char line[32] = "";
    ok(f && fgets(line, sizeof line, f) && !strcmp(line, "0123456789"), "fsutil_fopen_input gives a stream");
    if (f)
        fclose(f);
}

/* fsutil_getline: lines as getline gives them, and a line over its cap
 * refused (E2BIG) with the buffer never past the cap. */
static void lines(void)
{
    fsutil_write_text(at("lines.txt"), "one\ntwo two\n\nlast", NULL);
    FILE *f = fsutil_fopen_input(at("lines.txt"), 100, NULL);
    char *l = NULL;
    size_t cap = 0;
    ssize_t n1 = fsutil_getline(&l, &cap, f, 16);
    ok(n1 == 4 && !strcmp(l, "one\n"), "a line with its newline (%zd)", n1);
    ssize_t n2 = fsutil_getline(&l, &cap, f, 16), n3 = fsutil_getline(&l, &cap, f, 16);
    ssize_t n4 = fsutil_getline(&l, &cap, f, 16);
    ok(n2 == 8 && n3 == 1 && n4 == 4 && !strcmp(l, "last"), "an empty line, and a last one with no newline");
    ok(fsutil_getline(&l, &cap, f, 16) == 0, "then 0: the end");
    fclose(f);
    fsutil_write_text(at("long.txt"), "0123456789abcdefXYZ\nnext\n", NULL);
    f = fsutil_fopen_input(at("long.txt"), 100, NULL);
    errno = 0;
    ok(fsutil_getline(&l, &cap, f, 16) == -1 && errno == E2BIG && cap <= 17,
       "a line over the cap: -1, E2BIG, the buffer at most the cap + 1 (%zu)", cap);
    fclose(f);
    free(l);
}

/* fsutil_open_input_beneath: every component checked, not only the last. */
static void beneath(void)
{
    char err[UTIL_ERR_LEN] = "", sub[128];
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    fsutil_mkdir_p(sub, NULL);
    fsutil_write_text(at("a/b/f.txt"), "below\n", NULL);
    if (symlink(at("a"), at("lnk")))
        diag("symlink failed");
    int fd = fsutil_open_input_beneath(dir, "a/b/f.txt", 100, err);
    ok(fd >= 0, "a file two directories down opens (%s)", err);
    if (fd >= 0)
        close(fd);
    ok(fsutil_open_input_beneath(dir, "lnk/b/f.txt", 100, err) < 0 && strstr(err, "through a symbolic link"),
       "the same file through a linked directory is refused (%s)", err);
    ok(fsutil_open_input_beneath(at("a"), "../a/b/f.txt", 100, err) < 0 && strstr(err, "out of its directory"),
       "a path leading out with .. is refused (%s)", err);
    ok(fsutil_open_input_beneath(dir, at("a/b/f.txt"), 100, err) < 0, "an absolute path is refused");
}

static void writes(void)
{
    char err[UTIL_ERR_LEN] = "";
    fsutil_write_text(at("keep.json"), "{\"v\": 1}\n", NULL);
    /* The temporary cannot be made (a directory holds its name): the
     * write fails naming the path, and the old file stays as it was. */
    char tmpname[64];
    snprintf(tmpname, sizeof tmpname, "keep.json.tmp.%d", (int)getpid());
    mkdir(at(tmpname), 0755);
    ok(fsutil_write_text(at("keep.json"), "{\"v\": 2}\n", err) < 0 && strstr(err, "cannot write") &&
           strstr(err, "keep.json: Is a directory"),
       "a write whose temporary cannot be made fails naming the path (%s)", err);
    char *s = fsutil_slurp(at("keep.json"), 100, NULL, NULL);
    ok(s && !strcmp(s, "{\"v\": 1}\n"), "the file written before is intact");
    free(s);
    ok(fsutil_reserve(at("room"), 65536, err) == 0, "room can be reserved");
    struct stat st;
    int rc = stat(at("room"), &st);
    long long bytes = rc == 0 ? (long long)st.st_blocks * 512 : -1;
    ok(bytes >= 65536, "and is allocated on disk (%lld bytes)", bytes);
    /* In place (a full disk's last resort): shorter text over the file,
     * cut to its length; longer text, or a link, refused, nothing changed. */
    fsutil_write_text(at("run.json"), "{\n  \"status\": \"running\"\n}\n", NULL);
    ok(fsutil_overwrite_in_place(at("run.json"), "{\"status\":\"abandoned\"}", err) == 0,
       "in place: a shorter text is written (%s)", err);
    s = fsutil_slurp(at("run.json"), 100, NULL, NULL);
    ok(s && !strcmp(s, "{\"status\":\"abandoned\"}"), "... and the file is exactly it (%s)", s ? s : "-");
    free(s);
    ok(fsutil_overwrite_in_place(at("run.json"), "{\"status\":\"abandoned\", \"longer\": true}", err) < 0 &&
           errno == ENOSPC, "in place: a longer text is refused (%s)", err);
    s = fsutil_slurp(at("run.json"), 100, NULL, NULL);
    ok(s && !strcmp(s, "{\"status\":\"abandoned\"}"), "... and the file is unchanged");
    free(s);
    symlink(at("run.json"), at("run-link.json"));
    ok(fsutil_overwrite_in_place(at("run-link.json"), "{}", err) < 0, "in place: a symbolic link is refused (%s)", err);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_fsutil.XXXXXX");
    if (!mkdtemp(dir)) {
        printf("1..0 # SKIP cannot make a temporary directory\n");
        return 0;
    }
    refusals();
    reads();
    lines();
    beneath();
    writes();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
