/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libxiw-rdmav34.so: what the provider's files share. xiw.c has the
 * device, its context and every verb but posting sends; sq.c posts sends
 * into a QP's send ring (XIW_UCTX_SQ_RING), through ibv_post_send() and
 * through the ibv_wr_*() API of struct ibv_qp_ex.
 */
#ifndef XIW_PROVIDER_H
#define XIW_PROVIDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <infiniband/verbs.h>

#include "infiniband/xiwdv.h"
#include "xiw_abi.h"

/*
 * A device opened. @maps lists its mapped rings (CQs', QPs' and SRQs')
 * under @lock: each mapping holds the device file open, so those the
 * application leaves are unmapped when it closes the device, which the
 * kernel then cleans up as it does for a provider without rings.
 */
struct xiw_context {
	struct verbs_context ibv_ctx;
	uint32_t flags;		/* XIW_UCTX_* the kernel granted */
	pthread_mutex_t lock;
	struct list_head maps;
};

/* A ring mapped from the device file (@addr NULL: none), in @maps. */
struct xiw_map {
	struct list_node entry;
	void *addr;
	size_t len;
};

/*
 * A receive ring (XIW_UCTX_RQ_RING) of a QP or SRQ: this process writes
 * entries and the head, the kernel copies entries out and writes its
 * tail and flags; @lock serialises this process's posters.
 */
struct xiw_rq_ring {
	pthread_spinlock_t lock;
	struct xiw_map map;
	uint32_t mask;
	uint32_t size;
	uint32_t head;
};

/*
 * A send ring (XIW_UCTX_SQ_RING): this process writes entries and the
 * head, the kernel copies entries out and writes its tail and flags.
 * @lock serialises this process's posters; an ibv_wr_*() batch holds it
 * from ibv_wr_start() to ibv_wr_complete() or ibv_wr_abort(), and builds
 * entries from @start on, in slots the kernel does not read before the
 * head is stored: @cur is the one being built, @err the first error.
 */
struct xiw_sq_ring {
	pthread_spinlock_t lock;
	struct xiw_map map;
	uint32_t mask;
	uint32_t size;
	uint32_t head;
	uint32_t start;
	struct xiw_usqe *cur;
	int err;
};

struct xiw_qp {
	struct verbs_qp vqp;
	struct xiw_rq_ring rq;	/* map.addr NULL: posts through the command */
	struct xiw_sq_ring sq;	/* likewise */
	struct xiwdv_qp_ex dv;	/* xiwdv.h's operations, with the ibv_wr_*() */
};

static inline struct xiw_context *to_xctx(struct ibv_context *ctx)
{
	return container_of(ctx, struct xiw_context, ibv_ctx.context);
}

static inline struct xiw_qp *to_xqp(struct ibv_qp *qp)
{
	return container_of(qp, struct xiw_qp, vqp.qp);
}

/* xiw.c */
int xiw_map_ring(struct ibv_context *ctx, struct xiw_map *m, uint64_t offset,
		 size_t len);
void xiw_unmap_ring(struct ibv_context *ctx, struct xiw_map *m);

/* sq.c */
int xiw_sq_ring_open(struct ibv_context *ctx, struct xiw_sq_ring *r,
		     const struct xiw_usq_resp *resp);
void xiw_sq_ring_close(struct ibv_context *ctx, struct xiw_sq_ring *r);
int xiw_sq_post(struct xiw_sq_ring *r, struct ibv_send_wr *wr,
		struct ibv_send_wr **bad_wr, bool *doorbell);
int xiw_sq_init_ex(struct xiw_qp *qp, uint64_t send_ops);

/* xiwdv.h's, found by name (provider.map) */
struct xiwdv_qp_ex *xiwdv_provider_qp_ex(struct ibv_qp_ex *qpx);
struct ibv_mr *xiwdv_provider_reg_mr(struct ibv_pd *pd, void *addr,
				     size_t length, int access,
				     uint32_t verify_alg);

#endif /* XIW_PROVIDER_H */
