/* capture: a tool's stdout or stderr read through a pipe into a file whose
 * size is bounded. A tool that floods its output (hundreds of MB) must not
 * fill the disk of the run directory: the first head_bytes are written to
 * the file as they come, the last tail_bytes are kept in memory and
 * appended at the end after one marker line saying how many bytes were left
 * out between them. A reader thread drains the pipe so the tool never
 * blocks on a full pipe for long. */
#ifndef LB_CAPTURE_H
#define LB_CAPTURE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* The bounds loadbench uses for every tool's stdout and stderr. */
#define CAPTURE_HEAD_BYTES (8u << 20)
#define CAPTURE_TAIL_BYTES (8u << 20)

struct capture {
    int write_fd;           /* the pipe's write end, for the child's stdout/stderr (CLOEXEC here) */
    int read_fd;
    int file_fd;
    uint64_t head_bytes, tail_bytes;
    uint64_t total_bytes;   /* everything the tool wrote */
    char *ring;             /* the last tail_bytes, once the head is full */
    uint64_t ring_fill, ring_pos;
    int write_errno;        /* first error writing the file (e.g. ENOSPC), 0 if none */
    int finish;             /* set (atomically) by capture_finish: stop at the next quiet moment */
    pthread_t thread;
    int started;
    char path[1024];
};

/* Create path (truncated) and a pipe, and start the reader thread. Returns
 * 0 with c->write_fd ready to hand to the child, or -1 with err filled. */
int capture_start(struct capture *c, const char *path, uint64_t head_bytes, uint64_t tail_bytes, char *err);

/* Close our copy of the write end (once the child has its own). */
void capture_close_writer(struct capture *c);

/* Call once the tool is stopped: read on until the end of the output
 * (every writer gone) or 100 ms without data (a leftover process may still
 * hold the pipe), then write the marker and the kept tail. Returns 0, or
 * -1 with err filled when the file could not be written completely (e.g.
 * the disk is full). Does nothing on a capture that capture_start did not
 * start. */
int capture_finish(struct capture *c, char *err);

/* Bytes left out of the file (0 when the whole output was kept). */
uint64_t capture_dropped(const struct capture *c);

/* A failed tool's own last word: of the last 16 KiB of the captured file
 * at path (read the safe way: no FIFO, no symbolic link), the last line
 * that reads as a fatal one (error, fatal, exception, busy, refused,
 * cannot, could not, failed, denied, no such, not found, invalid, usage),
 * else its last non-empty line, cut to fit out. Returns 1 with out
 * filled, 0 ("" in out) when the file holds no line. */
int capture_fatal_line(const char *path, char *out, size_t len);

#endif
