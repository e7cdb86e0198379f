/* fake-wrk-liar: a fault program, a wrk that lies. It runs the real wrk
 * (the first "wrk" on PATH) with the arguments loadbench gave, then
 * rewrites the JSON summary wrk's done() hook left ($LB_WRK_OUT, as
 * adapters/wrk/done.lua writes it). What it plants depends on the name it
 * is run by (a test copies it under each name):
 *
 *   fake-wrk-count-x10       "requests" multiplied by 10
 *   fake-wrk-latency-div100  every latency (min, max, mean, stdev and the
 *                            percentiles) divided by 100
 *
 * `-v` (the adapter's version probe) goes to the real wrk untouched.
 * loadbench must call the first row's count and the second's latency
 * suspect: the server counted and held every request itself. */
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Divide o[key] (a number) by 100, when present. */
static void div100(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_number(v))
        json_object_set_new(o, key, json_real(json_number_value(v) / 100));
}

static int plant(const char *path, int count_x10)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j) {
        fprintf(stderr, "fake-wrk-liar: %s: %s\n", path, je.text);
        return 1;
    }
    if (count_x10) {
        json_int_t n = json_integer_value(json_object_get(j, "requests"));
        json_object_set_new(j, "requests", json_integer(n * 10));
    } else {
        json_t *lat = json_object_get(j, "latency_us"), *pc = json_object_get(lat, "percentiles");
        const char *k;
        json_t *v;
        for (const char *const *f = (const char *const[]){"min", "max", "mean", "stdev", NULL}; *f; f++)
            div100(lat, *f);
        json_object_foreach(pc, k, v) div100(pc, k);
    }
    int rc = json_dump_file(j, path, JSON_INDENT(2)) ? 1 : 0;
    json_decref(j);
    return rc;
}

int main(int argc, char **argv)
{
    const char *me = basename(argv[0]);
    int count_x10 = strstr(me, "count-x10") != NULL;
    if (!count_x10 && !strstr(me, "latency-div100")) {
        fprintf(stderr, "fake-wrk-liar: run me as fake-wrk-count-x10 or fake-wrk-latency-div100\n");
        return 2;
    }
    argv[0] = "wrk";
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-v"))
            return execvp("wrk", argv), perror("fake-wrk-liar: wrk"), 127;
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        execvp("wrk", argv);
        perror("fake-wrk-liar: wrk");
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
        return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    const char *out = getenv("LB_WRK_OUT");
    return plant(out ? out : "wrk-summary.json", count_x10);
}
