#include "engine/machine.h"
#include "adapters/adapter.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static uint64_t meminfo_kb(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    uint64_t v = 0;
    size_t klen = strlen(key);
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, klen) && line[klen] == ':')
            v = strtoull(line + klen + 1, NULL, 10);
    fclose(f);
    return v;
}

/* Processes other than ours that used more than 5 % of a core over a
 * 300 ms look at start: other work on the machine distorts every figure.
 * One full /proc scan, twice, at start only. */
static json_t *busy_processes(json_t *warn)
{
    struct ent {
        int pid;
        unsigned long long ticks;
        char comm[64];
    } *a = NULL;
    size_t na = 0, cap = 0;
    json_t *out = json_array();
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            struct timespec ts = {0, 300000000};
            nanosleep(&ts, NULL);
        }
        DIR *d = opendir("/proc");
        struct dirent *e;
        if (!d)
            break;
        while ((e = readdir(d))) {
            int pid = atoi(e->d_name);
            if (pid <= 0 || pid == (int)getpid())
                continue;
            char path[64], buf[1024];
            snprintf(path, sizeof path, "/proc/%d/stat", pid);
            FILE *f = fopen(path, "r");
            if (!f)
                continue;
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[n] = 0;
            char *lp = strchr(buf, '('), *rp = strrchr(buf, ')');
            if (!lp || !rp)
                continue;
            unsigned long long ut = 0, st = 0;
            /* After ")": state ppid pgrp session tty tpgid flags minflt
             * cminflt majflt cmajflt utime stime */
            if (sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
                continue;
            if (pass == 0) {
                if (na == cap) {
                    cap = cap ? cap * 2 : 256;
                    a = util_xrealloc(a, cap * sizeof *a);
                }
                a[na].pid = pid;
                a[na].ticks = ut + st;
                snprintf(a[na].comm, sizeof a[na].comm, "%.*s", (int)(rp - lp - 1), lp + 1);
                na++;
            } else {
                for (size_t i = 0; i < na; i++) {
                    if (a[i].pid != pid)
                        continue;
                    double pct = (double)(ut + st - a[i].ticks) / (double)sysconf(_SC_CLK_TCK) / 0.3 * 100;
                    if (pct > 5) {
                        /* A process name is any bytes its program chose. */
                        json_array_append_new(out, json_pack("{s:i, s:o, s:f}", "pid", pid, "comm",
                                                             adapter_json_text(a[i].comm), "cpu_pct", pct));
                        char *w = util_xasprintf("another process was busy at start: %s (pid %d) at %.0f%% of a core",
                                                 a[i].comm, pid, pct);
                        json_array_append_new(warn, adapter_json_text(w));
                        free(w);
                    }
                }
            }
        }
        closedir(d);
    }
    free(a);
    return out;
}

/* A file's first line as a JSON string with tabs as spaces, or null when
 * it cannot be read. */
static json_t *first_line_json(const char *path)
{
    char line[256];
    fsutil_first_line(path, line, sizeof line);
    for (char *t = line; *t; t++)
        if (*t == '\t')
            *t = ' ';
    return line[0] ? json_string(line) : json_null();
}

/* The settings that shape a load on loopback (docs/reports.md, disclosure). */
static json_t *net_settings(void)
{
    static const struct { const char *key, *path; } f[] = {
        {"somaxconn", "/proc/sys/net/core/somaxconn"},
        {"tcp_max_syn_backlog", "/proc/sys/net/ipv4/tcp_max_syn_backlog"},
        {"ip_local_port_range", "/proc/sys/net/ipv4/ip_local_port_range"},
        {"tcp_tw_reuse", "/proc/sys/net/ipv4/tcp_tw_reuse"},
        {"tcp_fin_timeout", "/proc/sys/net/ipv4/tcp_fin_timeout"},
        {"rmem_max", "/proc/sys/net/core/rmem_max"},
        {"wmem_max", "/proc/sys/net/core/wmem_max"},
        {"tcp_rmem", "/proc/sys/net/ipv4/tcp_rmem"},
        {"tcp_wmem", "/proc/sys/net/ipv4/tcp_wmem"},
    };
    json_t *n = json_object();
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        json_object_set_new(n, f[i].key, first_line_json(f[i].path));
    return n;
}

/* "kvm", "vmware", ... when the CPU says it runs under a hypervisor
 * (/proc/cpuinfo's hypervisor flag; the vendor from DMI when readable),
 * "none seen" otherwise. */
static json_t *virtualization(const char *cpuinfo_flags)
{
    if (!strstr(cpuinfo_flags, " hypervisor"))
        return json_string("none seen");
    char vendor[128];
    fsutil_first_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof vendor);
    return json_sprintf("hypervisor (%s)", vendor[0] ? vendor : "vendor not readable");
}

json_t *machine_info(void)
{
    json_t *m = json_object(), *warn = json_array();
    char model[256] = "unknown", line[512], flags[4096] = "", mhz[32] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        /* The first CPU's block: its model, clock and flags. */
        while (fgets(line, sizeof line, f) && line[0] != '\n') {
            char *c = strchr(line, ':');
            if (!c)
                continue;
            c[strcspn(c, "\n")] = 0;
            if (!strncmp(line, "model name", 10))
                snprintf(model, sizeof model, "%s", c + 2);
            else if (!strncmp(line, "cpu MHz", 7))
                snprintf(mhz, sizeof mhz, "%s", c + 2);
            else if (!strncmp(line, "flags", 5))
                snprintf(flags, sizeof flags, "%s ", c + 1);
        }
        fclose(f);
    }
    struct utsname u;
    uname(&u);
    char host[256];
    gethostname(host, sizeof host);
    host[sizeof host - 1] = 0;
    json_object_set_new(m, "cpu_model", json_string(model));
    json_object_set_new(m, "cores", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
    json_object_set_new(m, "kernel", json_string(u.release));
    json_object_set_new(m, "arch", json_string(u.machine));
    json_object_set_new(m, "hostname", json_string(host));
    json_object_set_new(m, "memory_mb", json_integer((json_int_t)(meminfo_kb("MemTotal") / 1024)));
    json_object_set_new(m, "cpu_mhz", mhz[0] ? json_real(atof(mhz)) : json_null());
    json_object_set_new(m, "smt_active", first_line_json("/sys/devices/system/cpu/smt/active"));
    json_object_set_new(m, "virtualization", virtualization(flags));
    json_object_set_new(m, "net", net_settings());
    fsutil_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", line, sizeof line);
    json_object_set_new(m, "cpu_governor", line[0] ? json_string(line) : json_null());
    if (line[0] && strcmp(line, "performance"))
        json_array_append_new(warn, json_sprintf("CPU governor is \"%s\": frequency scaling adds noise (use performance)", line));
    fsutil_first_line("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof line);
    json_object_set_new(m, "transparent_hugepages", line[0] ? json_string(line) : json_null());
    fsutil_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", line, sizeof line);
    json_object_set_new(m, "clocksource", line[0] ? json_string(line) : json_null());
    if (line[0] && strcmp(line, "tsc") && strcmp(line, "kvm-clock") && strcmp(line, "arch_sys_counter"))
        json_array_append_new(warn, json_sprintf("clocksource is \"%s\": clock reads are slow, timing costs rise", line));
    fsutil_first_line("/proc/sys/net/ipv4/ip_local_port_range", line, sizeof line);
    json_object_set_new(m, "ip_local_port_range", json_string(line));
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    json_object_set_new(m, "ulimit_nofile", json_integer((json_int_t)rl.rlim_cur));
    double load[3] = {0};
    if (getloadavg(load, 3) == 3) {
        json_object_set_new(m, "loadavg_1m", json_real(load[0]));
        if (load[0] > 0.5)
            json_array_append_new(warn, json_sprintf("the machine was busy at start (load average %.2f): other work distorts results", load[0]));
    }
    json_object_set_new(m, "busy_processes", busy_processes(warn));
    json_object_set_new(m, "warnings", warn);
    return m;
}
