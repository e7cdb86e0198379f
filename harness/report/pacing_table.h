/* pacing_table: a row's pacing truth (run.json "pacing") as table cells,
 * one text for summary.md and report.html alike, each bound beside its
 * figure. */
#ifndef LB_PACING_TABLE_H
#define LB_PACING_TABLE_H

#include <jansson.h>
#include <stddef.h>

#define PACING_TABLE_COLS 9
#define PACING_TABLE_CELL 160

extern const char *const pacing_table_head[PACING_TABLE_COLS];

/* Fill cells from row's "pacing". Returns 1, or 0 when the row has none. */
int pacing_table_cells(json_t *row, char cells[PACING_TABLE_COLS][PACING_TABLE_CELL]);

/* The one-paragraph legend printed above the table. */
extern const char *const pacing_table_legend;

#endif
