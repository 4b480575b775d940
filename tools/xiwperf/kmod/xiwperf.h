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

#endif /* XIWPERF_H */
