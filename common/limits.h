/* limits: bounds that two programs must agree on, kept in one place so
 * that what loadbench validates is what lb-target accepts. */
#ifndef LB_LIMITS_H
#define LB_LIMITS_H

/* lb-target's worker threads: --threads 1..LB_TARGET_MAX_THREADS, and a
 * profile's target.threads the same (issue #29: the profile allowed 256). */
#define LB_TARGET_MAX_THREADS 64

/* run.json's schema_version: raised when a key changes meaning or goes.
 * The run writes it, report, compare and history read only it (issue 44:
 * a run.json of schema 999 was read as this one); tests/e2e/sample_fresh.t
 * compares docs/sample-run's with it. */
#define LB_SCHEMA_VERSION 1

#endif
