/* Unit tests for harness/engine/peercheck (issue 44, defect 15): which
 * addresses a row's hosts load from, given a profile and run.json's path,
 * and which of the server's client addresses (GET /peers) are foreign.
 * The live case, a stranger on the network during a row, is in
 * tests/e2e/multihost_faults.t. */
#include "engine/peercheck.h"
#include "common/util.h"
#include "tests/tap.h"

#include <string.h>

static struct profile *load(const char *text)
{
    char err[UTIL_ERR_LEN];
    struct profile *p = profile_load_string("t.yaml", text, strlen(text), err);
    if (!p)
        diag("profile: %s", err);
    return p;
}

/* The expected addresses of p's tool i, joined with spaces, or "NULL: why". */
static const char *expected(const struct profile *p, size_t i, const char *path_json, char *buf, size_t len)
{
    char why[256] = "";
    json_t *path = json_loads(path_json, 0, NULL);
    json_t *a = peercheck_expected(p, &p->tools[i], path, why, sizeof why);
    size_t n = 0, k;
    json_t *v;
    if (!a)
        snprintf(buf, len, "NULL: %s", why);
    else
        buf[0] = 0;
    json_array_foreach(a, k, v)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", json_string_value(v));
    json_decref(a);
    json_decref(path);
    return buf;
}

static void judge(const char *peers_json, const char *expected_json, struct peercheck *pc)
{
    json_t *peers = json_loads(peers_json, 0, NULL), *ex = expected_json ? json_loads(expected_json, 0, NULL) : NULL;
    peercheck_judge(peers, ex, pc);
    json_decref(peers);
    json_decref(ex);
}

static void test_expected(void)
{
    char b[512];
    struct profile *one = load("load: {connections: 2, duration: 1s}\ntools: [{tool: lb-gen}]\n");
    ok(one && !strcmp(expected(one, 0, "{\"skipped\": \"one box\"}", b, sizeof b), "loopback"),
       "one box: loopback only (%s)", one ? b : "-");
    profile_free(one);
    struct profile *p = load("load: {connections: 2, duration: 1s}\nhosts: {ctl: local, a: 'root@198.18.0.2:2202', b: {ssh: 'root@10.0.0.3', address: 198.18.0.3}}\n"
                             "target: {host: a}\n"
                             "tools: [{tool: lb-gen, host: ctl}, {tool: lb-gen, label: on-a, host: a},\n"
                             "        {tool: lb-gen, label: both, host: [ctl, b], instances: 2}, {tool: lb-gen, label: nobody}]\n");
    const char *path = "{\"ctl\": {\"source\": \"198.18.0.1\", \"to\": \"198.18.0.2\"},"
                       " \"b\": {\"source\": \"198.18.0.3\"}}";
    ok(p && !strcmp(expected(p, 0, path, b, sizeof b), "198.18.0.1 127.0.0.1"),
       "a tool host: its probe's source address and its load address (%s)", p ? b : "-");
    ok(p && !strcmp(expected(p, 1, path, b, sizeof b), "loopback 198.18.0.2"),
       "a tool on the target's host: loopback and the target's address (%s)", p ? b : "-");
    ok(p && !strcmp(expected(p, 2, path, b, sizeof b), "198.18.0.1 127.0.0.1 198.18.0.3"),
       "a tool on two hosts: both hosts' addresses, b's load address not its ssh one (%s)", p ? b : "-");
    ok(p && !strcmp(expected(p, 3, path, b, sizeof b),
                    "NULL: the path from host controller gave no source address (its path was not measured)"),
       "no path for the controller: not judged, and why (%s)", p ? b : "-");
    ok(p && !strcmp(expected(p, 0, "{\"ctl\": {\"error\": \"cannot connect\"}}", b, sizeof b),
                    "NULL: the path from host ctl gave no source address (cannot connect)"),
       "a failed probe: not judged, with its error (%s)", p ? b : "-");
    profile_free(p);
}

static void test_judge(void)
{
    struct peercheck pc;
    const char *peers = "{\"peers\": [{\"address\": \"198.18.0.1\", \"requests\": 5000},"
                        " {\"address\": \"198.19.40.254\", \"requests\": 3},"
                        " {\"address\": \"::ffff:198.18.0.3\", \"requests\": 10}], \"others\": 0}";
    judge(peers, "[\"198.18.0.1\", \"198.18.0.3\"]", &pc);
    ok(pc.foreign == 3 && pc.naddrs == 1 && !strcmp(pc.named, "3 requests from 198.19.40.254"),
       "a stranger's 3 requests are foreign, named; an IPv4-mapped host address is the host's (%llu, %s)",
       (unsigned long long)pc.foreign, pc.named);
    judge(peers, "[\"198.18.0.1\", \"198.18.0.3\", \"198.19.40.254\"]", &pc);
    ok(pc.foreign == 0 && !pc.named[0], "every address a host's: none foreign");
    judge(peers, NULL, &pc);
    ok(pc.foreign == 0, "no expected list: nothing judged foreign");
    judge("{\"peers\": [{\"address\": \"127.0.0.1\", \"requests\": 9}, {\"address\": \"::1\", \"requests\": 1},"
          " {\"address\": \"10.1.1.1\", \"requests\": 1}], \"others\": 4}", "[\"loopback\"]", &pc);
    ok(pc.foreign == 5 && pc.naddrs == 1 &&
           !strcmp(pc.named, "1 request from 10.1.1.1, 4 requests from addresses past the server's table"),
       "loopback covers 127/8 and ::1; requests past the table count as foreign (%llu, %s)",
       (unsigned long long)pc.foreign, pc.named);
    ok(peercheck_is_own(NULL, "1.2.3.4") == 1, "no expected list: every address is the row's");
}

int main(void)
{
    test_expected();
    test_judge();
    return done_testing();
}
