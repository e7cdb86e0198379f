/* export: a run's headline figures in the formats other tools read.
 *
 * OpenMetrics text (Prometheus' exposition format, `# EOF`-terminated),
 * for a nightly job that feeds node_exporter's textfile collector or a
 * Pushgateway; and a long CSV table, one line per row x metric, for a
 * spreadsheet. Both read only run.json. */
#ifndef LB_REPORT_EXPORT_H
#define LB_REPORT_EXPORT_H

#include <jansson.h>
#include <stdio.h>

/* Write the run's rows as gauges and counters to f: OpenMetrics 1.0 text
 * (openmetrics 1) or Prometheus' classic text format 0.0.4 (0), which
 * node_exporter's textfile collector and a Pushgateway read. With
 * timestamps, each sample carries its row's start (OpenMetrics: seconds;
 * classic: milliseconds); the textfile collector and the Pushgateway
 * refuse stamped samples, and the loadbench_row_start_timestamp_seconds
 * gauge says when each row ran either way. */
void export_metrics_text(FILE *f, json_t *run, int openmetrics, int timestamps);

/* The same figures as CSV: run_started_ms,tool,label,status,verdict,
 * version,metric,value,unit. */
void export_csv_long(FILE *f, json_t *run);

#endif
