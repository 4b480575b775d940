/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the xiwdv examples share: the region the server offers (named in
 * its accept's private data) and a connection made with rdma_cm's
 * synchronous calls, its QP serving the ibv_wr_*() API.
 */
#ifndef XIWDV_EXAMPLE_COMMON_H
#define XIWDV_EXAMPLE_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/xiwdv.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

/* The server's region: where, its key, how long. */
struct region {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

static inline void fail(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	exit(1);
}

/* A connected client: its QP (with ibv_wr_*() and xiw's), CQ, PD. */
struct client {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp_ex *qpx;
	struct xiwdv_qp_ex *dv;
	struct region peer;
};

static inline void client_connect(struct client *c, const char *addr,
				  const char *port)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr_ex init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_WRITE,
	};
	struct rdma_conn_param param = { .responder_resources = 4,
					 .initiator_depth = 4 };

	if (rdma_getaddrinfo(addr, port, &hints, &res) ||
	    rdma_create_ep(&c->id, res, NULL, NULL))
		fail("resolving the server");
	rdma_freeaddrinfo(res);
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = c->pd ? ibv_create_cq(c->id->verbs, 16, NULL, NULL, 0) : NULL;
	if (!c->cq)
		fail("PD and CQ");
	init.pd = c->pd;
	init.send_cq = c->cq;
	init.recv_cq = c->cq;
	if (rdma_create_qp_ex(c->id, &init))
		fail("a QP with ibv_wr_*() (not an xiw device?)");
	c->qpx = ibv_qp_to_qp_ex(c->id->qp);
	c->dv = xiwdv_qp_ex_from_ibv_qp_ex(c->qpx);
	if (!c->dv)
		fail("xiw's operations (not an xiw device?)");
	if (rdma_connect(c->id, &param))
		fail("rdma_connect");
	if (c->id->event->param.conn.private_data_len < sizeof(c->peer)) {
		errno = EPROTO;
		fail("the server's region");
	}
	memcpy(&c->peer, c->id->event->param.conn.private_data,
	       sizeof(c->peer));
}

/* Wait for @n completions; each must succeed. */
static inline void client_wait(struct client *c, int n)
{
	struct ibv_wc wc;

	while (n > 0) {
		int got = ibv_poll_cq(c->cq, 1, &wc);

		if (got < 0)
			fail("ibv_poll_cq");
		if (!got)
			continue;
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "work request %llu: %s\n",
				(unsigned long long)wc.wr_id,
				ibv_wc_status_str(wc.status));
			exit(1);
		}
		n--;
	}
}

#endif
