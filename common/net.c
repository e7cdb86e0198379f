#include "common/net.h"
#include "common/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int net_parse_addr(const char *s, struct sockaddr_in *out, char *err)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    if (!colon)
        return util_err(err, "bad address \"%s\": expected HOST:PORT, e.g. 127.0.0.1:8080", s);
    size_t hlen = (size_t)(colon - s);
    if (hlen >= sizeof host)
        return util_err(err, "bad address \"%s\": host too long", s);
    memcpy(host, s, hlen);
    host[hlen] = 0;
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || errno || port < 0 || port > 65535)
        return util_err(err, "bad port in \"%s\": expected 0-65535", s);
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons((uint16_t)port);
    if (hlen == 0 || !strcmp(host, "localhost"))
        strcpy(host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &out->sin_addr) != 1)
        return util_err(err, "bad host \"%s\": expected a numeric IPv4 address or localhost", host);
    return 0;
}

int net_nonblock(int fd, char *err)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return util_err(err, "fcntl(O_NONBLOCK): %s", strerror(errno));
    return 0;
}

int net_listen(const struct sockaddr_in *addr, int backlog, int reuseport, char *err)
{
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &addr->sin_addr, ip, sizeof ip);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return util_err(err, "socket: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0) {
        util_err(err, "SO_REUSEPORT: %s", strerror(errno));
        goto err;
    }
    if (bind(fd, (const struct sockaddr *)addr, sizeof *addr) < 0) {
        if (errno == EADDRINUSE && !addr->sin_port)
            util_err(err, "no free port on %s to pick: every port of net.ipv4.ip_local_port_range is taken", ip);
        else if (errno == EADDRINUSE)
            util_err(err, "port %d on %s is already in use: stop what holds it or choose another port (0 picks a free one)",
                     ntohs(addr->sin_port), ip);
        else
            util_err(err, "bind %s:%d: %s", ip, ntohs(addr->sin_port), strerror(errno));
        goto err;
    }
    if (listen(fd, backlog) < 0) {
        util_err(err, "listen: %s", strerror(errno));
        goto err;
    }
    return fd;
err:
    close(fd);
    return -1;
}

int net_local_port(int fd)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
        return -1;
    return ntohs(a.sin_port);
}

int net_connect_blocking(const struct sockaddr_in *addr, char *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return util_err(err, "socket: %s", strerror(errno));
    if (connect(fd, (const struct sockaddr *)addr, sizeof *addr) < 0) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &addr->sin_addr, ip, sizeof ip);
        util_err(err, "cannot connect to %s:%d: %s", ip, ntohs(addr->sin_port), strerror(errno));
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}
