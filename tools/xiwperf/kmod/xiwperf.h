/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiwperf module internals: what main.c (the character device) calls in
 * server.c and client.c.
 */
#ifndef XIWPERF_H
#define XIWPERF_H

#include <linux/socket.h>

#include "../../../uapi/xiwperf.h"

struct xp_server;

int xp_sockaddr(struct sockaddr_storage *ss, const struct xiwperf_addr *a);

int xp_server_listen(struct xp_server **srvp, struct xiwperf_listen *arg);
int xp_server_serve(struct xp_server *srv, struct xiwperf_serve *st);
void xp_server_destroy(struct xp_server *srv);

int xp_client_run(struct xiwperf_run *run);

/* verify.c: digest length of an enum xiwperf_hash, 0 for an unknown one */
u32 xp_hash_len(u32 alg);

#endif /* XIWPERF_H */
