/* limits: bounds that two programs must agree on, kept in one place so
 * that what loadbench validates is what lb-target accepts. */
#ifndef LB_LIMITS_H
#define LB_LIMITS_H

/* lb-target's worker threads: --threads 1..LB_TARGET_MAX_THREADS, and a
 * profile's target.threads the same (issue #29: the profile allowed 256). */
#define LB_TARGET_MAX_THREADS 64

/* run.json's version (schema/run.schema.json, docs/reports.md): the major,
 * schema_version, is raised when a field is removed or renamed or changes
 * its type, unit or meaning; the run writes it, and report, compare and
 * history read only it (issue 44: a run.json of schema 999 was read as
 * this one). The minor, schema_minor, is raised when fields are added, and
 * a reader of the same major reads any minor. tests/e2e/sample_fresh.t
 * compares results/published/sample-200vus's major with it. Minor 1:
 * machine.net, cpu_mhz, smt_active, virtualization. Minor 2: a row's
 * server_hlog_file, tool_hlog_file, windows.hold_server_time_ms.p999,
 * pacing and target_protocol. Minor 3: a row's ran_with. Minor 4:
 * tcp.loss_probes (rows, hosts.NAME.tcp, limits.network). Minor 5:
 * ran_with.target.delay_ns and shape, exit.unknown, h2.goaway_sent. */
#define LB_SCHEMA_VERSION 1
#define LB_SCHEMA_MINOR 5

#endif
