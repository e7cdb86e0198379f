/* machine: the facts about this machine that change benchmark results
 * (run.json "machine", `loadbench doctor`, the agent's "machine" reply
 * for a host), and warnings about what would distort a benchmark. Reads
 * /proc and /sys only: the run and the agent both stand on it. */
#ifndef LB_MACHINE_H
#define LB_MACHINE_H

#include <jansson.h>

/* {cpu_model, cores, kernel, ..., busy_processes, warnings}: a new object. */
json_t *machine_info(void);

#endif
