/* wrk.h: what the wrk adapter shares with wrk2's (adapters/wrk2.c), which
 * keeps wrk's Lua API and so runs the same done() hook,
 * adapters/wrk/done.lua. */
#ifndef LB_ADAPTER_WRK_H
#define LB_ADAPTER_WRK_H

#include "adapters/adapter.h"

/* The JSON file the hook writes in the run directory ($LB_WRK_OUT). */
#define WRK_JSON "wrk.json"

/* Read WRK_JSON of the run in c->dir into r: counts, errors by kind, bytes,
 * duration and the latency of the histogram the hook was handed; tool names
 * the tool in messages. Without the file, the tool's own "unable to
 * connect" line when it printed one. Returns 0 with r->parsed set, or -1. */
int wrk_read_summary(const struct adapter_ctx *c, const char *tool, struct adapter_result *r, char *err);

/* The done() hook copied into the run directory and the command line both
 * tools take: -t -c -d, -R rate when rate > 0 (wrk2), --timeout, the
 * latency flag (wrk's --latency, wrk2's -U), -s done.lua, the URL, and
 * LB_WRK_OUT. tool names the tool in warnings. Returns 0, or -1 with err. */
int wrk_command(const struct adapter_ctx *c, struct adapter_plan *p, const char *tool, uint64_t threads,
                uint64_t conns, uint64_t secs, uint64_t rate, const char *latency_flag, char *err);

#endif
