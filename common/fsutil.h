/* fsutil: the file helpers every part shares: reading the small kernel
 * files (/proc, cgroup control files) the sampler, the cgroup manager and
 * the process-tree code poll, mkdir -p, and atomic writes of text and
 * JSON (run.json, reports, charts). */
#ifndef LB_FSUTIL_H
#define LB_FSUTIL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Hard size caps for the files loadbench reads but did not just write
 * (issue #29): a larger file is refused, never read. */
#define FSUTIL_CAP_RUN_JSON (1024ull << 20) /* run.json: 1 GiB (3,000 rows are 26 MB) */
#define FSUTIL_CAP_RESULT (256ull << 20)    /* a tool's summary or output parsed whole: wrk.json, k6's summary, lb-gen's JSON */
#define FSUTIL_CAP_STREAM (64ull << 30)     /* read line by line: JMeter's JTL, Locust's and k6's CSVs, sample CSVs */
#define FSUTIL_CAP_SMALL (64ull << 10)      /* the run lock, a version file */

/* Read the file at path into buf (at most cap_bytes-1 bytes, always
 * NUL-terminated; a longer file is cut). Returns the length read, or -1
 * (errno set) when the file cannot be opened. */
ssize_t fsutil_read_small(const char *path, char *buf, size_t cap_bytes);

/* Read the whole file at path into *buf, a heap buffer of *cap_bytes that
 * is grown as needed (both may start as NULL/0; the caller frees *buf).
 * Returns the length read (NUL-terminated), or -1 (errno set) when the file
 * cannot be opened or read. */
ssize_t fsutil_read_all(const char *path, char **buf, size_t *cap_bytes);

/* Open path to read a file loadbench did not just write itself (a tool's
 * result, run.json, the run lock): a symbolic link as the last component
 * is refused, not followed (O_NOFOLLOW: a link to a root-only file is not
 * read as root); the open never waits (O_NONBLOCK: a FIFO or a device is
 * refused, not blocked on); the file must be a regular file of at most
 * max_bytes. Returns a close-on-exec descriptor in blocking mode, or -1
 * with errno set and err "PATH: why" (err may be NULL). */
int fsutil_open_input(const char *path, uint64_t max_bytes, char *err);

/* fsutil_open_input of path relative to the directory dirfd (the agent
 * reads beneath its run directory's descriptor). */
int fsutil_open_input_at(int dirfd, const char *path, uint64_t max_bytes, char *err);

/* fsutil_open_input of rel (one component or more) below the directory
 * dir: no component of rel may be a symbolic link or lead out of dir
 * ("..", an absolute rel), not only the last (O_NOFOLLOW checks only
 * that): openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or one
 * directory at a time with O_NOFOLLOW on a kernel without it. dir itself
 * is taken as given. err "DIR/REL: why". */
int fsutil_open_input_beneath(const char *dir, const char *rel, uint64_t max_bytes, char *err);

/* fsutil_open_input as a stdio stream ("r"). NULL with err on failure. */
FILE *fsutil_fopen_input(const char *path, uint64_t max_bytes, char *err);

/* The longest line fsutil_getline gives by default (a CSV row, a log
 * line): a tool's line is a few hundred bytes; 1 MiB is far past any. */
#define FSUTIL_LINE_MAX (1u << 20)

/* One line of f (a stream of fsutil_fopen_input) into *line, a heap
 * buffer of *cap bytes grown as getline grows it (both may start as
 * NULL/0; the caller frees *line), but never past max_line + 1 bytes:
 * getline would hold a 1 GB line with no newline whole. Returns the
 * line's length (its newline included, NUL-terminated), 0 at the end of
 * the file, or -1: a read error (errno set) or a line longer than
 * max_line (errno E2BIG: the stream is left mid-line, stop reading). The
 * one line reader of a file a tool leaves (tests/e2e/inputs.t). */
ssize_t fsutil_getline(char **line, size_t *cap, FILE *f, size_t max_line);

/* The whole file (checked as fsutil_open_input) in a NUL-terminated heap
 * buffer the caller frees; *len (may be NULL) gets its length. NULL with
 * err on failure. */
char *fsutil_slurp(const char *path, uint64_t max_bytes, size_t *len, char *err);

/* The JSON in the file (checked as fsutil_open_input). NULL on failure,
 * with je filled as json_load_file fills it (line -1 and the reason when
 * the file was refused or could not be opened; je may be NULL). */
json_t *fsutil_load_json(const char *path, uint64_t max_bytes, json_error_t *je);

/* The first line of the file at path into out (outlen bytes, newline
 * dropped); an empty string when the file is missing or empty. */
void fsutil_first_line(const char *path, char *out, size_t outlen);

/* Remove dir and everything under it (a link is removed, never followed).
 * A missing dir is no error. */
void fsutil_remove_tree(const char *dir);

/* mkdir -p: create path and every missing parent (mode 0755). Returns 0,
 * or -1 with err naming the directory that could not be created (err may
 * be NULL). */
int fsutil_mkdir_p(const char *path, char *err);

/* Output paths (issue 44): the one way loadbench writes a file a person
 * named or a file of a report. An existing path that is not a regular
 * file is refused, never replaced: a symbolic link (as root, replacing
 * /dev/stdout's link or following one to /etc is how a system file is
 * clobbered), a directory, a device, a FIFO or a socket; the message says
 * "-" is the way to standard output. Returns 0 when path may be written,
 * or -1 with err. */
int fsutil_output_check(const char *path, char *err);

/* fsutil_output_check, and path must not lie inside any of the
 * directories in inside (NULL-ended; may be NULL), compared once both are
 * resolved (realpath of path's folder): a compare's --junit inside a
 * compared run directory would overwrite its evidence. what names them in
 * err ("the compared run directory"). */
int fsutil_output_check_outside(const char *path, const char *const *inside, const char *what, char *err);

/* Write text to the output path a person named: "-" is standard output,
 * anything else fsutil_write_text (checked as fsutil_output_check_outside).
 * Returns 0, or -1 with err. */
int fsutil_write_output(const char *path, const char *text, const char *const *inside, const char *what, char *err);

/* rename(tmp, path) for a temporary loadbench just wrote beside path:
 * path is checked first (fsutil_output_check), so no link, device or
 * directory is replaced. On failure tmp is removed. Returns 0, or -1 with
 * err and errno set. */
int fsutil_replace(const char *tmp, const char *path, char *err);

/* Write text to path atomically: path checked as fsutil_output_check, a
 * temporary NAME.tmp.PID beside it, fsync, close, fsutil_replace, fsync of
 * the directory, so a reader (or a
 * loadbench killed mid-write) sees the old file or the new one, never
 * half of one. A full disk may surface at write, fsync or close: each is
 * checked, the temporary removed, the old file left as it was, and err
 * then starts "disk full:" and names path. Returns 0, or -1 with err
 * (err may be NULL) and errno set. */
int fsutil_write_text(const char *path, const char *text, char *err);

/* The last resort of a full disk: text over the regular file at path in
 * place (no temporary, so no new block), then cut to its length; only
 * when text is no longer than the file is now (else -1, ENOSPC). Not
 * atomic: a crash in between leaves the file cut. doctor uses it to mark
 * a run that died of a full disk abandoned, in compact JSON. Returns 0,
 * or -1 with err. */
int fsutil_overwrite_in_place(const char *path, const char *text, char *err);

/* Make path a file of at least bytes allocated on disk (posix_fallocate),
 * room kept for a later write: unlinking it gives the room back. A
 * filesystem that cannot allocate ahead is not an error. Returns 0, or -1
 * with errno set and err ("disk full: ..." when it is one). */
int fsutil_reserve(const char *path, uint64_t bytes, char *err);

/* Write j as indented ASCII JSON (reals at 10 significant digits, a final
 * newline) atomically, as fsutil_write_text. Returns 0, or -1 with err. */
int fsutil_write_json(const char *path, json_t *j, char *err);
/* The same with the caller's own jansson dump flags (e.g. key order kept). */
int fsutil_write_json_flags(const char *path, json_t *j, size_t flags, char *err);

#endif
