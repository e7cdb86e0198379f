/* ssh (the hosts_ functions): reaching the machines of a profile's hosts: map over SSH, and the
 * facts loadbench reads on each (NIC counters).
 *
 * The transport is an argv prefix: nothing for this machine, `ssh ...
 * DEST` for a host, so that whatever runs there (a version probe, a cat of
 * /sys, `loadbench agent`) is started the same way. One multiplexed
 * connection per host: the first ssh to a host becomes its ControlMaster
 * (ControlPersist=no, so it lives as long as its own session and the
 * sessions sharing it, never past loadbench), the others ride on it
 * through a socket in a private directory of the run. */
#ifndef LB_REMOTE_SSH_H
#define LB_REMOTE_SSH_H

#include "adapters/adapter.h"
#include "spec/profile.h"

#include <jansson.h>

/* Append to out the argv prefix that runs a command on h: nothing for h
 * NULL or local; otherwise ssh in batch mode (no password prompt, no tty),
 * with h's port, a 5 s connect timeout, keepalives, `-F
 * $LOADBENCH_SSH_CONFIG` when that is set, and, when control_dir is not
 * NULL, the ControlMaster/ControlPath options (socket DIR/HASH, 16 hex
 * digits of the destination). */
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

struct exec_host;

/* The counters of every network interface of h (this machine for NULL or
 * local; through its agent when there is one, one request; over its own
 * ssh session otherwise, about half a second each on a busy machine),
 * from /sys/class/net/IFACE/statistics:
 * {"IFACE": {"rx_bytes":..., "tx_bytes":..., "rx_packets":...,
 * "tx_packets":..., "rx_dropped":..., "tx_dropped":...}, ...}. Returns a
 * new reference, or NULL with err. */
json_t *hosts_nic_read(const struct profile_host *h, struct exec_host *agent, const char *control_dir, char *err);

/* hosts_nic_read of this machine (the agent's `nic` request). */
json_t *hosts_nic_local(void);

/* after - before, per interface present in both and per counter (a
 * counter that went backwards, e.g. an interface re-created, is left out).
 * Returns a new reference. */
json_t *hosts_nic_delta(const json_t *before, const json_t *after);

/* "PROFILE:LINE:COL: host NAME (DEST)" for a hosts: entry of p, or "host
 * DEST" for p NULL (a destination given on the command line), into out:
 * how messages about h begin. */
void hosts_where(const struct profile *p, const struct profile_host *h, char *out, size_t outlen);

/* h answers over ssh (a login that runs `exit 0`). p may be NULL (see
 * hosts_where). Returns 0 (also for NULL or local), or -1 with err
 * "WHERE cannot be reached over ssh: WHAT SSH SAID (hint)". */
int hosts_reach(const struct profile *p, const struct profile_host *h, const char *control_dir, char *err);

/* Where `loadbench hosts install` keeps builds on a host, for its shell. */
#define HOSTS_CACHE_SH "${XDG_CACHE_HOME:-$HOME/.cache}/loadbench"

/* This build's directory name in that cache, "VERSION-GITREV-SHA12" (the
 * binary's sha256 tells two builds of one commit apart), into out (at
 * least 96 bytes). Returns 0, or -1 with err. */
int hosts_build_id(char *out, size_t outlen, char *err);

/* The command (for a remote shell) that starts this build's `loadbench
 * agent` there: the first executable of HOSTS_CACHE_SH/ID/bin/loadbench
 * (hosts_install's copy), this binary's own path, `loadbench` on PATH;
 * none: exit 127 with a message naming them. The handshake then checks
 * that it is this build. Returns a new string, or NULL with err. */
char *hosts_agent_command(char *err);

/* A `loadbench agent` on h (not local) over its ssh transport, located
 * by hosts_agent_command, handshake and clock done (exec_remote_open),
 * refusing a host whose loadbench, lb-gen, lb-target or support files
 * are not this build's. p may be NULL (see hosts_where). Returns it, or
 * NULL with err "WHERE: why", a refusal ending in the exact command that
 * installs this build there (hosts_install_command). */
struct exec_host *hosts_agent_open(const struct profile *p, const struct profile_host *h, const char *control_dir,
                                   char *err);

/* "loadbench hosts install NAME PROFILE" for h of p (p NULL: "loadbench
 * hosts install DEST"), into out. */
void hosts_install_command(const struct profile *p, const struct profile_host *h, char *out, size_t outlen);

/* Copy this build to h (not local): loadbench, lb-target and lb-gen into
 * HOSTS_CACHE_SH/ID/bin/ and the adapters' support files (every file in
 * a subdirectory of DATADIR/adapters and DATADIR/refgen, as `make
 * install`) into ID/share/loadbench/, through a staging directory renamed
 * at the end, so an agent never starts from half a copy. Refuses a host
 * of another architecture (uname -m). p may be NULL (hosts_where). Fills
 * where (PATH_MAX) with the directory there. Returns 0, or -1 with err. */
int hosts_install(const struct profile *p, const struct profile_host *h, const char *control_dir, char *where,
                  char *err);

#endif
