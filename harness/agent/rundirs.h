/* rundirs: the directories an agent made on its host for a run, so that
 * it removes exactly those (docs/multihost.md, "What a run leaves on a
 * host"). A directory that was there before the agent (the controller's
 * own, when the host shares its files, or the user's) is never removed. */
#ifndef LB_RUNDIRS_H
#define LB_RUNDIRS_H
#include "common/util.h"

struct rundirs {
    char **made;                        /* the topmost directory of each chain this agent created */
    size_t n, cap;
};

/* mkdir -p dir, remembering the first directory it had to create. With
 * probe, also proves that a file can be made in dir (and removes it).
 * Returns 0, or -1 with err ("cannot create X: Not a directory"). */
int rundirs_mkdir(struct rundirs *d, const char *dir, int probe, char *err);

/* Remove path (a file, or a directory and everything under it) when it
 * lies in a directory this agent made; elsewhere, nothing. Returns 1
 * removed, 0 not ours (left), or -1 with err. */
int rundirs_remove(struct rundirs *d, const char *path, char *err);

/* Remove every empty directory below and including the ones made (files
 * stay: output not fetched back is not thrown away), and forget them. */
void rundirs_tidy(struct rundirs *d);
#endif
