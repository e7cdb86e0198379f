/* agentproto: what `loadbench agent` (agent/agent.c) and exec_remote share
 * of the line-delimited JSON protocol of docs/agent-protocol.md: reading
 * and writing lines, the build's identity and its check, and the
 * encoding of samples and exits. */
#ifndef LB_AGENTPROTO_H
#define LB_AGENTPROTO_H

#include "engine/exec.h"
#include "engine/sampler.h"

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define AGENTPROTO_VERSION 1
#define AGENTPROTO_MAGIC "loadbench-agent-7d3e91"
#define AGENTPROTO_CHUNK_BYTES 49152            /* decoded bytes of one get/put */
#define AGENTPROTO_LINE_MAX_BYTES (1u << 20)    /* a longer line is a protocol error */

/* Lines from a descriptor, buffered. */
struct agentproto_reader {
    int fd;
    char *buf;
    size_t len, cap, off;                       /* bytes held, allocated, consumed */
    int eof;
};

/* Read what the descriptor has now (one read; call when poll says it is
 * readable). Returns the bytes read, 0 at EOF (r->eof set), -1 on error
 * (errno; EAGAIN/EINTR are not errors: they return 1 with nothing read). */
int agentproto_fill(struct agentproto_reader *r);

/* The next complete line, without its newline, NUL-terminated, valid
 * until the next call; NULL when none is complete yet. A line longer than
 * AGENTPROTO_LINE_MAX_BYTES sets *too_long (and is dropped). */
char *agentproto_line(struct agentproto_reader *r, int *too_long);
void agentproto_reader_free(struct agentproto_reader *r);

/* Whole lines to a descriptor, one writer at a time (the heartbeat thread
 * writes too). Sockets are written with MSG_NOSIGNAL (a peer gone is an
 * error, not SIGPIPE). */
struct agentproto_writer {
    int fd;
    pthread_mutex_t mu;
};
void agentproto_writer_init(struct agentproto_writer *w, int fd);
void agentproto_writer_destroy(struct agentproto_writer *w);

/* Write j as one line. Returns 0, or -1 (errno) when the peer is gone. */
int agentproto_send(struct agentproto_writer *w, const json_t *j);

/* This build's identity: VERSION and the sha256 of the binary at path
 * (NULL: the running one, /proc/self/exe). Returns 0, or -1 with err. */
int agentproto_identity(const char *path, char sha256[65], char *err);

/* Compare a peer's hello (its "proto", "version", "sha256") with ours.
 * who names the peer for the message ("host b", "the controller"), fix
 * the command that installs this build there (NULL: "loadbench hosts
 * install"). Returns 0 when they match, or -1 with err naming both builds. */
int agentproto_check_peer(const json_t *hello, const char *who, const char *our_sha256, const char *fix, char *err);

/* The programs of this build a host runs from its copy: lb-target,
 * lb-gen (NULL-terminated; loadbench itself is checked by the hello). */
extern const char *const agentproto_build_progs[];

/* The files of the build at bindir and datadir a host runs from its copy
 * (the programs, every support file of an adapter or a refgen: hook
 * scripts, launchers, the sources a host builds its refgen from), as
 * {"bin/lb-gen": sha256, "share/loadbench/adapters/wrk/done.lua": ...},
 * named as `hosts install` lays them out; "missing" for a program not
 * there. A new reference. */
json_t *agentproto_build_files(const char *bindir, const char *datadir);

/* The file rel of agentproto_build_files at bindir or datadir, into out. */
void agentproto_build_path(const char *rel, const char *bindir, const char *datadir, char *out, size_t len);

/* Every file of ours (agentproto_build_files) the same in theirs. Returns
 * 0, or -1 with err naming the first that is not, both sha256s and fix
 * (the command that installs this build there). */
int agentproto_check_files(const json_t *ours, const json_t *theirs, const char *who, const char *fix, char *err);

/* The structs of sampler.h and exec.h as JSON objects and back (missing
 * fields read as 0). */
json_t *agentproto_reading_json(const struct sampler_reading *r);
void agentproto_reading_from(const json_t *j, struct sampler_reading *r);
json_t *agentproto_point_json(const struct sampler_point *p);
void agentproto_point_from(const json_t *j, struct sampler_point *p);
json_t *agentproto_summary_json(const struct sampler_summary *s);
void agentproto_summary_from(const json_t *j, struct sampler_summary *s);
json_t *agentproto_exit_json(const struct exec_exit *e);
void agentproto_exit_from(const json_t *j, struct exec_exit *e);

/* The regular files below dir, dir/home/ left out (a tool's HOME holds
 * caches, not results), as a JSON array of {"path", "size"}. Returns a
 * new reference, or NULL with err. */
json_t *agentproto_list(const char *dir, char *err);

/* A uint64 field (0 when absent or negative; full 64 bits pass as the
 * two's complement json_int_t). */
uint64_t agentproto_u64(const json_t *o, const char *key);

#endif
