/* refgen: what the adapters of loadbench's two reference generators share
 * (refgen/go-fasthttp and refgen/py-aiohttp, adapters/go-fasthttp.c and
 * adapters/py-aiohttp.c): the same command line (-c N -d DURATION [-timeout
 * DURATION] URL), the same stop (drain: no request started after the
 * deadline, the ones in flight finished), the same JSON summary on stdout
 * (schema "lb-refgen/1", refgen/README.md). Every name starts with refgen_. */
#ifndef LB_ADAPTER_REFGEN_H
#define LB_ADAPTER_REFGEN_H

#include "adapters/adapter.h"

#include <stddef.h>
#include <stdint.h>

/* Pick the closed load (the hold phase of a ramp, with a warning in plan;
 * an arrival rate is refused) and push "-c N -d DURATION [-timeout T]"
 * then url onto plan->argv, timeout_flag being the program's spelling
 * ("-timeout" or "--timeout"). Sets plan->model and plan->load_ns.
 * Returns 0, or -1 with err filled. */
int refgen_closed_argv(const struct adapter_ctx *c, const char *tool, const char *timeout_flag,
                       struct adapter_plan *p, char *err);

/* Read the lb-refgen/1 summary from the run's stdout.txt (its last line
 * that parses as JSON) into r. Returns 0 with r->parsed set, or -1 with
 * err saying what was missing (with the start of stderr.txt when the
 * program wrote nothing). */
int refgen_parse(const struct adapter_ctx *c, const char *tool, struct adapter_result *r, char *err);

/* Run argv with envp (NULL: inherit) and no shell, stdout+stderr appended to
 * log_path, killed (its whole process group) after limit_ms. Returns the exit
 * status (0-255), or -1 with err filled when it could not run, was killed
 * or timed out. */
int refgen_exec(const char *const *argv, const char *const *envp, const char *log_path, uint64_t limit_ms,
                char *err);

#endif
