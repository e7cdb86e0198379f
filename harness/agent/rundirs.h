/* rundirs: the directories an agent made on its host for a run, so that
 * it removes exactly those (docs/multihost.md, "What a run leaves on a
 * host"), and the run directories it was given (op mkdir), below which
 * every file it reads, writes or removes for the controller must lie
 * (docs/agent-protocol.md, "Confinement"). A directory that was there
 * before the agent (the controller's own, when the host shares its files,
 * or the user's) is never removed.
 *
 * A path is taken only absolute and plain: no empty, "." or ".."
 * component, no trailing '/'. Below its run directory it is resolved one
 * component at a time from the run directory's descriptor with
 * O_NOFOLLOW: a symbolic link anywhere below the run directory is refused,
 * never followed, and a directory renamed meanwhile cannot lead outside. */
#ifndef LB_RUNDIRS_H
#define LB_RUNDIRS_H
#include "common/util.h"

#include <stdint.h>
#include <sys/types.h>

struct rundirs {
    char **made;                        /* the topmost directory of each chain this agent created */
    size_t n, cap;
    char **roots;                       /* the run directories (op mkdir) */
    int *root_fds;                      /* each one's O_PATH descriptor, opened when it was given */
    size_t nroots, caproots;
};

/* mkdir -p dir, remembering the first directory it had to create. With
 * probe, also proves that a file can be made in dir (and removes it).
 * Returns 0, or -1 with err ("cannot create X: Not a directory"). */
int rundirs_mkdir(struct rundirs *d, const char *dir, int probe, char *err);

/* Op mkdir: rundirs_mkdir(dir, probe) and dir becomes a run directory.
 * Returns 0, or -1 with err. */
int rundirs_root(struct rundirs *d, const char *dir, char *err);

/* path (a regular file below a run directory) opened to read, as
 * fsutil_open_input opens (a FIFO, a link, a device refused). Returns a
 * descriptor, or -1 with err. */
int rundirs_open_read(struct rundirs *d, const char *path, char *err);

/* One chunk of op put: n bytes at off into path.lb-part below a run
 * directory (its missing directories made), renamed to path with mode
 * when last. Returns 0, or -1 with err. */
int rundirs_put(struct rundirs *d, const char *path, uint64_t off, const char *buf, size_t n, int last, mode_t mode,
                char *err);

/* 0 when dir is a run directory or a directory below one (op list), else
 * -1 with err. */
int rundirs_check_dir(struct rundirs *d, const char *dir, char *err);

/* Remove path (a file, or a directory and everything under it) when it
 * lies below a run directory and in a directory this agent made;
 * elsewhere, nothing. Returns 1 removed, 0 not ours (left), or -1 with err
 * (a path refused as above: outside every run directory, not plain, or
 * through a link). */
int rundirs_remove(struct rundirs *d, const char *path, char *err);

/* Remove every empty directory below and including the ones made (files
 * stay: output not fetched back is not thrown away), forget them and the
 * run directories. */
void rundirs_tidy(struct rundirs *d);
#endif
