/* hosts: reaching the machines of a profile's hosts: map over SSH, and the
 * facts loadbench reads on each (NIC counters).
 *
 * The transport is an argv prefix: nothing for this machine, `ssh ...
 * DEST` for a host, so that whatever runs there (a version probe, a cat of
 * /sys, `loadbench agent`) is started the same way. One multiplexed
 * connection per host: the first ssh to a host becomes its ControlMaster
 * (ControlPersist=no, so it lives as long as its own session and the
 * sessions sharing it, never past loadbench), the others ride on it
 * through a socket in a private directory of the run. */
#ifndef LB_HOSTS_H
#define LB_HOSTS_H

#include "adapters/adapter.h"
#include "profile/profile.h"

#include <jansson.h>

/* Append to out the argv prefix that runs a command on h: nothing for h
 * NULL or local; otherwise ssh in batch mode (no password prompt, no tty),
 * with h's port, a 5 s connect timeout, keepalives, `-F
 * $LOADBENCH_SSH_CONFIG` when that is set, and, when control_dir is not
 * NULL, the ControlMaster/ControlPath options (socket DIR/%C). */
void hosts_transport_argv(const struct profile_host *h, const char *control_dir, struct strvec *out);

/* A private directory (mode 0700) for the control sockets of one run,
 * into dir (PATH_MAX): HOSTS_CONTROL_PREFIX, the owner's runlock_tag,
 * "-XXXXXX". Returns 0, or -1 with err. Remove it with
 * hosts_control_dir_remove once every ssh of the run has ended. */
#define HOSTS_CONTROL_PREFIX "/tmp/loadbench-ssh-"
int hosts_control_dir(char *dir, char *err);
void hosts_control_dir_remove(const char *dir);

/* Remove the control-socket directories (ours by uid) whose loadbench is
 * proven dead by its tag (a SIGKILLed run leaves its directory behind).
 * Returns how many. */
int hosts_sweep_stale_control_dirs(void);

/* Preflight: every host the run places something on (the target, and each
 * tool entry; only the entry labelled only when only is not NULL) answers
 * over ssh. Returns 0, or -1 with err "PROFILE:LINE:COL: host NAME (DEST)
 * cannot be reached over ssh: WHAT SSH SAID (hint)". */
int hosts_check_reachable(const struct profile *p, const char *only, const char *control_dir, char *err);

/* The counters of every network interface of h (this machine for NULL or
 * local; over ssh otherwise), from /sys/class/net/IFACE/statistics:
 * {"IFACE": {"rx_bytes":..., "tx_bytes":..., "rx_packets":...,
 * "tx_packets":..., "rx_dropped":..., "tx_dropped":...}, ...}. Returns a
 * new reference, or NULL with err. */
json_t *hosts_nic_read(const struct profile_host *h, const char *control_dir, char *err);

/* after - before, per interface present in both and per counter (a
 * counter that went backwards, e.g. an interface re-created, is left out).
 * Returns a new reference. */
json_t *hosts_nic_delta(const json_t *before, const json_t *after);

#endif
