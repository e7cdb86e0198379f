/* hostfacts: a host's machine and network readings (engine/hostread.h)
 * as the agent's reply to "reading" carries them (docs/agent-protocol.md):
 * the agent writes them, the controller's side of the link reads them. */
#ifndef LB_HOSTFACTS_H
#define LB_HOSTFACTS_H

#include "engine/hostread.h"

#include <jansson.h>

/* The reading as the agent's reply carries it (a new object), and back
 * (r->ok 0 with r->err when j is not a reading). */
json_t *hostfacts_json(const struct hostread *r);
void hostfacts_from(const json_t *j, struct hostread *r);

#endif
