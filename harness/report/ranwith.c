#include "report/ranwith.h"
#include "report/fmt.h"
#include "report/jpath.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const ranwith_heads[] = {"Protocol", "TLS", "Delay", "Connections", "Request", "Check", NULL};

/* The Delay cell: lb-target's fixed delay, or its drawn delay's
 * distribution. A row from before ran_with recorded it ran with the
 * profile's (no entry could write its own then). */
static const char *ran_with_delay(json_t *run, json_t *r, char *buf, size_t len)
{
    json_t *tg = jpath_get(r, "ran_with.target");
    if (!json_object_get(tg, "delay_ns"))
        tg = jpath_get(run, "profile.target");
    const char *dist = jpath_str(tg, "shape.dist");
    double ns = jpath_num(tg, "delay_ns");
    if (dist)
        snprintf(buf, len, "%s (drawn)", dist);
    else if (!isnan(ns))
        snprintf(buf, len, "%g ms", ns / 1e6);
    else
        snprintf(buf, len, "–");
    return buf;
}

const char *ranwith_cells(json_t *run, json_t *r, char *buf, size_t len)
{
    char tls[96] = "plain", req[64], chk[48], nb[32], delay[48];
    const char *v = jpath_str(r, "ran_with.target.tls.version");
    if (v)
        snprintf(tls, sizeof tls, "TLS %s (%s, resumption %s)", v, jpath_str(r, "ran_with.target.tls.key") ?: "?",
                 json_is_false(jpath_get(r, "ran_with.target.tls.resumption")) ? "off" : "on");
    double body = jpath_num(r, "ran_with.request.body_bytes");
    const char *method = jpath_str(r, "ran_with.request.method") ?: "GET";
    if (isnan(body))
        snprintf(req, sizeof req, "%s", method);
    else
        snprintf(req, sizeof req, "%s %s B", method, fmt_thousands(nb, sizeof nb, body));
    if (!isnan(jpath_num(r, "ran_with.check.status")))
        snprintf(chk, sizeof chk, "status %.0f", jpath_num(r, "ran_with.check.status"));
    else
        snprintf(chk, sizeof chk, "–");
    snprintf(buf, len, "%s | %s | %s | %s | %s | %s", jpath_str(r, "ran_with.target.protocol") ?: "h1", tls,
             ran_with_delay(run, r, delay, sizeof delay),
             json_is_false(jpath_get(r, "load.keepalive")) ? "new per request" : "keep-alive", req, chk);
    return buf;
}

int ranwith_own_delay(json_t *run)
{
    json_t *r;
    size_t i;
    char prof[48], mine[48];
    ran_with_delay(run, NULL, prof, sizeof prof); /* no row: the profile's */
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        if (strcmp(ran_with_delay(run, r, mine, sizeof mine), prof))
            return 1;
    }
    return 0;
}

int ranwith_differ(json_t *run)
{
    json_t *runs = json_object_get(run, "runs"), *r;
    size_t i;
    char first[RANWITH_LEN] = "", cells[RANWITH_LEN];
    int differ = 0;
    json_array_foreach(runs, i, r)
    {
        if (!json_object_get(r, "ran_with"))
            return 0; /* a run from before rows recorded it */
        ranwith_cells(run, r, cells, sizeof cells);
        if (!i)
            snprintf(first, sizeof first, "%s", cells);
        differ |= strcmp(first, cells) != 0;
    }
    return differ;
}
