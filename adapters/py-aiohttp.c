/* The adapter for refgen/py-aiohttp, loadbench's Python asyncio reference
 * generator: a small closed-model program on aiohttp (N tasks over one
 * ClientSession), the kind the asyncio-vs-JMeter studies write by hand
 * (refgen/README.md). It runs on Debian's /usr/bin/python3 with
 * python3-aiohttp (a profile's `bin` names another interpreter); the script
 * is copied into the run directory, so the run keeps what it ran. */
#include "adapters/adapter.h"
#include "adapters/refgen.h"
#include "common/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AIO_SCRIPT "lb_aiohttp.py"

static int aio_detect(const char *bin, struct adapter_found *found, char *err)
{
    const char *py = bin ? bin : "/usr/bin/python3";
    if (adapter_which(py, found->path, sizeof found->path))
        return util_err(err, "Python interpreter \"%s\" not found or not executable: install python3", py);
    char script[PATH_MAX + 32];
    snprintf(script, sizeof script, "%s/refgen/py-aiohttp/" AIO_SCRIPT, adapter_datadir());
    if (access(script, R_OK))
        return util_err(err, "%s not found (set LOADBENCH_DATA to the loadbench source tree)", script);
    /* "lb_aiohttp aiohttp 3.8.4 python 3.11.2"; exit 3 when aiohttp does
     * not import. */
    char out[512], av[64] = "", pv[64] = "";
    const char *argv[] = {found->path, script, "--version", NULL};
    int rc = adapter_capture(argv, out, sizeof out);
    if (rc == 3)
        return util_err(err, "%s cannot import aiohttp: install python3-aiohttp", found->path);
    if (rc != 0 || sscanf(out, "lb_aiohttp aiohttp %63s python %63s", av, pv) != 2) {
        out[strcspn(out, "\n")] = 0;
        return util_err(err, "%s %s --version failed: %.120s", found->path, script, out);
    }
    snprintf(found->version, sizeof found->version, "%s (Python %s)", av, pv);
    return 0;
}

static int aio_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    char src[PATH_MAX + 32], e[UTIL_ERR_LEN];
    snprintf(src, sizeof src, "%s/refgen/py-aiohttp/" AIO_SCRIPT, adapter_datadir());
    char *text = adapter_slurp(NULL, src, 1 << 20, e);
    if (!text)
        return util_err(err, "py-aiohttp: %s", e);
    int rc = adapter_write(c->dir, AIO_SCRIPT, text, err);
    free(text);
    if (rc)
        return -1;
    strvec_push(&p->files, AIO_SCRIPT);
    strvec_push(&p->argv, c->found->path);
    strvec_pushf(&p->argv, "%s/" AIO_SCRIPT, c->dir);
    if (refgen_closed_argv(c, "py-aiohttp", "--timeout", p, err))
        return -1;
    /* Importing aiohttp takes ~0.3 s on an idle core. */
    p->startup_allowance_ns = 2000000000ull;
    char av[64] = "", pv[64] = "";
    if (sscanf(c->found->version, "%63s (Python %63[^)])", av, pv) == 2) {
        json_object_set_new(p->settings, "python", json_string(pv));
        json_object_set_new(p->settings, "aiohttp", json_string(av));
    }
    json_object_set_new(p->settings, "interpreter", json_string(c->found->path));
    json_object_set_new(p->settings, "event_loop", json_string("asyncio default (selector on epoll), one thread"));
    json_object_set_new(p->settings, "workers", json_string("one task per connection, one ClientSession, "
                                                            "TCPConnector(limit=connections), keep-alive"));
    json_object_set_new(p->settings, "stop", json_string("drain: no request started after the deadline, those in flight finished"));
    return 0;
}

static int aio_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    return refgen_parse(c, "py-aiohttp", r, err);
}

const struct adapter adapter_py_aiohttp = {
    .name = "py-aiohttp",
    .parse_files = (const char *const[]){"stdout.txt", "stderr.txt", NULL},
    .description = "reference Python asyncio generator on aiohttp (refgen/py-aiohttp; closed model, N tasks)",
    .install_hint = "apt-get install python3-aiohttp (scripts/install-tools)",
    .caps = ADAPTER_CLOSED,
    .versions = "live: 3.8.4 (Debian python3-aiohttp)",
    .latency_measures = "session.get() call to the body read in full (connection wait, write, server time, read, "
                        "and the event loop's queueing: one thread runs every task); log-linear histogram, exact "
                        "to 1 us below 2.048 ms, < 0.1 % relative above; min/max/mean exact",
    .latency_resolution_ms = 0.001,
    .bin_is_toolchain = 1,
    .detect = aio_detect,
    .prepare = aio_prepare,
    .parse = aio_parse,
};
