/* fsutil: the file helpers every part shares: reading the small kernel
 * files (/proc, cgroup control files) the sampler, the cgroup manager and
 * the process-tree code poll, mkdir -p, and atomic writes of text and
 * JSON (run.json, reports, charts). */
#ifndef LB_FSUTIL_H
#define LB_FSUTIL_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

/* Read the file at path into buf (at most cap_bytes-1 bytes, always
 * NUL-terminated; a longer file is cut). Returns the length read, or -1
 * (errno set) when the file cannot be opened. */
ssize_t fsutil_read_small(const char *path, char *buf, size_t cap_bytes);

/* Read the whole file at path into *buf, a heap buffer of *cap_bytes that
 * is grown as needed (both may start as NULL/0; the caller frees *buf).
 * Returns the length read (NUL-terminated), or -1 (errno set) when the file
 * cannot be opened or read. */
ssize_t fsutil_read_all(const char *path, char **buf, size_t *cap_bytes);

/* The first line of the file at path into out (outlen bytes, newline
 * dropped); an empty string when the file is missing or empty. */
void fsutil_first_line(const char *path, char *out, size_t outlen);

/* mkdir -p: create path and every missing parent (mode 0755). Returns 0,
 * or -1 with err naming the directory that could not be created (err may
 * be NULL). */
int fsutil_mkdir_p(const char *path, char *err);

/* Write text to path atomically: a temporary NAME.tmp.PID beside it,
 * fsync, rename, so a reader (or a loadbench killed mid-write) sees the old
 * file or the new one, never half of one. Returns 0, or -1 with err
 * (err may be NULL). */
int fsutil_write_text(const char *path, const char *text, char *err);

/* Write j as indented ASCII JSON (reals at 10 significant digits, a final
 * newline) atomically, as fsutil_write_text. Returns 0, or -1 with err. */
int fsutil_write_json(const char *path, json_t *j, char *err);
/* The same with the caller's own jansson dump flags (e.g. key order kept). */
int fsutil_write_json_flags(const char *path, json_t *j, size_t flags, char *err);

#endif
