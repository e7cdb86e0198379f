/* net: socket helpers shared by lb-target, lb-gen and the harness. */
#ifndef LB_NET_H
#define LB_NET_H

#include <netinet/in.h>
#include <stdint.h>

/* Split "HOST:PORT" (or ":PORT", host defaults to 127.0.0.1) into an IPv4
 * address. Only numeric addresses and "localhost" are accepted. Returns 0,
 * or -1 with err filled. */
int net_parse_addr(const char *s, struct sockaddr_in *out, char *err);

/* A non-blocking TCP listener on addr (port 0 picks a free one) with
 * SO_REUSEADDR; reuseport adds SO_REUSEPORT. Returns the fd, or -1 with err
 * filled (a busy port says so). */
int net_listen(const struct sockaddr_in *addr, int backlog, int reuseport, char *err);

/* The port a bound socket got. Returns it, or -1. */
int net_local_port(int fd);

/* Set O_NONBLOCK. Returns 0, or -1 with err filled. */
int net_nonblock(int fd, char *err);

/* A blocking connect to addr with TCP_NODELAY. Returns the fd, or -1 with
 * err filled. */
int net_connect_blocking(const struct sockaddr_in *addr, char *err);

#endif
