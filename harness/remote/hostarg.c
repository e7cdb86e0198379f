#include "remote/hostarg.h"
#include "remote/exec.h"
#include "remote/ssh.h"
#include "common/util.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

int host_arg_resolve(struct host_arg *ha, const char *arg, const char *profile_path, char *err)
{
    memset(ha, 0, sizeof *ha);
    if (profile_path) {
        if (!(ha->p = profile_load_file(profile_path, err)))
            return -1;
        if ((ha->h = profile_host_by_name(ha->p, arg)))
            return 0;
        char list[200] = "";
        for (size_t i = 0; i < ha->p->nhosts; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", ha->p->hosts[i].name);
        return util_err(err,
                        "%s has no host \"%s\" in hosts: (%s); to reach an ssh destination, give it without "
                        "the profile",
                        profile_path, arg, list[0] ? list : "it has no hosts: map");
    }
    const char *why = NULL;
    if (!strcmp(arg, "local"))
        ha->own.local = 1;
    else if (profile_host_parse(arg, &ha->own, &why))
        return util_err(err,
                        "\"%s\" is not an ssh destination [user@]host[:port]: %s (a host of a profile's "
                        "hosts: is named with the profile: --host NAME PROFILE.yaml)",
                        arg, why);
    ha->h = &ha->own;
    return 0;
}

void host_arg_free(struct host_arg *ha)
{
    if (ha->ssh_dir[0])
        hosts_control_dir_remove(ha->ssh_dir);
    profile_host_clear(&ha->own);
    profile_free(ha->p);
}

/* The agent on ha's host, reached first with a plain login. said: which
 * machine answered. Returns it, or NULL with err. */
static struct exec_host *host_arg_agent(struct host_arg *ha, char *said, size_t len, char *err)
{
    char where[600];
    struct exec_host *a = NULL;
    signal(SIGPIPE, SIG_IGN);
    hosts_sweep_stale_control_dirs(); /* those of a loadbench that died */
    if (hosts_control_dir(ha->ssh_dir, err) == 0 && hosts_reach(ha->p, ha->h, ha->ssh_dir, err) == 0 &&
        !(a = hosts_agent_open(ha->p, ha->h, ha->ssh_dir, err)))
        return NULL; /* located by hosts_agent_open */
    if (!a) {
        const char *hint = !ha->p && !strchr(ha->h->ssh_host, '.') && !ha->h->user
                               ? " (a host of a profile's hosts: is named with the profile: --host NAME PROFILE.yaml)"
                               : "";
        size_t n = strlen(err);
        snprintf(err + n, UTIL_ERR_LEN - n, "%s", hint);
        return NULL;
    }
    struct exec_remote_ident id;
    exec_remote_ident_get(a, &id);
    hosts_where(ha->p, ha->h, where, sizeof where);
    snprintf(said, len, "%s: hostname %s, loadbench agent %s (pid %d)", where, id.hostname, id.path, (int)id.pid);
    return a;
}

json_t *host_arg_fetch(struct host_arg *ha, const char *arg, json_t *(*fetch)(struct exec_host *, char *), char *said,
                       size_t len, char *err)
{
    char e[UTIL_ERR_LEN];
    json_t *v = NULL;
    said[0] = 0;
    struct exec_host *a = host_arg_agent(ha, said, len, err);
    if (a && !(v = fetch(a, e)))
        util_err(err, "host %s: %s", ha->h->name ? ha->h->name : arg, e);
    exec_remote_close(a);
    return v;
}

json_t *host_arg_tools(struct exec_host *a, char *err)
{
    json_t *rep = exec_remote_call(a, json_pack("{s:s}", "op", "tools"), err);
    json_t *tools = json_incref(json_object_get(rep, "tools"));
    if (rep && !tools)
        util_err(err, "the agent's reply has no tools list");
    json_decref(rep);
    return tools;
}

json_t *host_arg_machine(struct exec_host *a, char *err)
{
    return exec_remote_machine(a, err);
}

int host_arg_install(struct host_arg *ha, char *where, char *err)
{
    signal(SIGPIPE, SIG_IGN);
    hosts_sweep_stale_control_dirs();
    return hosts_control_dir(ha->ssh_dir, err) || hosts_install(ha->p, ha->h, ha->ssh_dir, where, err) ? -1 : 0;
}
