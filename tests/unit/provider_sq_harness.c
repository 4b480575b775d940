// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * provider/sq.c built into the unit tests, its ring in plain memory: what
 * xiw.c and libibverbs would give it (the mapping, the doorbell command)
 * is played here.
 */
#include <stdlib.h>
#include <string.h>

#include "../../provider/xiw.h"
#include "provider_sq_harness.h"

struct xh {
	struct xiw_qp qp;
	void *mem;
};

static int doorbells;

/* xiw.c's: here the ring is memory of the harness's, given by offset. */
int xiw_map_ring(struct ibv_context *ctx, struct xiw_map *m, uint64_t offset,
		 size_t len)
{
	(void)ctx;
	m->addr = (void *)(uintptr_t)offset;
	m->len = len;
	return 0;
}

void xiw_unmap_ring(struct ibv_context *ctx, struct xiw_map *m)
{
	(void)ctx;
	m->addr = NULL;
}

/* libibverbs's: only the doorbell reaches it. */
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr)
{
	(void)ibqp;
	(void)bad_wr;
	if (!wr)
		doorbells++;
	return 0;
}

struct xh *xh_new(uint32_t slots, uint32_t size, uint32_t start)
{
	size_t len = XIW_USQ_RING_ENTRIES + (size_t)slots *
					   sizeof(struct xiw_usqe);
	struct xiw_usq_resp resp = { .ring_len = len, .slots = slots,
				     .size = size };
	struct xh *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->mem = calloc(1, len);
	if (!h->mem) {
		free(h);
		return NULL;
	}
	*(uint32_t *)((char *)h->mem + XIW_USQ_RING_HEAD) = start;
	*(uint32_t *)((char *)h->mem + XIW_USQ_RING_TAIL) = start;
	resp.ring_offset = (uintptr_t)h->mem;
	if (xiw_sq_ring_open(NULL, &h->qp.sq, &resp) ||
	    xiw_sq_init_ex(&h->qp, IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_WRITE)) {
		free(h->mem);
		free(h);
		return NULL;
	}
	return h;
}

void xh_free(struct xh *h)
{
	xiw_sq_ring_close(NULL, &h->qp.sq);
	free(h->mem);
	free(h);
}

int xh_post(struct xh *h, struct ibv_send_wr *wr, struct ibv_send_wr **bad,
	    bool *doorbell)
{
	return xiw_sq_post(&h->qp.sq, wr, bad, doorbell);
}

struct ibv_qp_ex *xh_qpx(struct xh *h)
{
	return &h->qp.vqp.qp_ex;
}

struct xiwdv_qp_ex *xh_dv(struct xh *h)
{
	return xiwdv_provider_qp_ex(&h->qp.vqp.qp_ex);
}

uint32_t xh_head(struct xh *h)
{
	return __atomic_load_n((uint32_t *)((char *)h->mem + XIW_USQ_RING_HEAD),
			       __ATOMIC_ACQUIRE);
}

const struct xiw_usqe *xh_entry(struct xh *h, uint32_t i)
{
	const struct xiw_usqe *ring = (const void *)((char *)h->mem +
						     XIW_USQ_RING_ENTRIES);

	return &ring[i & h->qp.sq.mask];
}

void xh_set_tail(struct xh *h, uint32_t tail)
{
	*(uint32_t *)((char *)h->mem + XIW_USQ_RING_TAIL) = tail;
}

void xh_set_flags(struct xh *h, uint32_t flags)
{
	*(uint32_t *)((char *)h->mem + XIW_USQ_RING_FLAGS) = flags;
}

int xh_doorbells(void)
{
	return doorbells;
}
