/* disclosure: disclosure.md, everything another person needs to repeat a
 * run, in the spirit of SPEC's run rules and the TPC's full disclosure
 * reports: the machine, the settings that shape a load on loopback,
 * pinning, each tool's version, origin, argv and generated configs, the
 * warm-up and steady-state rule, repeats and their spread, each row's
 * reconciliation and bottleneck witness, the build, and the command that
 * reruns the profile. Generated from run.json alone. */
#ifndef LB_REPORT_DISCLOSURE_H
#define LB_REPORT_DISCLOSURE_H

#include <jansson.h>
#include <stdio.h>

/* The disclosure of run as Markdown into f. */
void disclosure_markdown(FILE *f, json_t *run);

/* The headings disclosure_markdown always writes, in order
 * (NULL-terminated): what tests/e2e/disclosure.t requires. */
extern const char *const disclosure_sections[];

#endif
