/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What client and server connections share: buffers mapped for a device,
 * the PD/CQ/QP of one rdma_cm id with its ordered teardown, and what an
 * operation asks of a device.
 */
#ifndef XIWPERF_CONN_H
#define XIWPERF_CONN_H

#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <xiw/verbs.h>

#include "xiwperf.h"

/* The last value of enum xiwperf_op. */
#define XP_OP_LAST	XIWPERF_OP_VERIFY

/* Whether enum xiwperf_op @op is one of the atomic operations. */
static inline bool xp_op_atomic(u32 op)
{
	return op >= XIWPERF_OP_FETCH_ADD && op <= XIWPERF_OP_MASKED_CMP_SWAP;
}

/*
 * Whether it operates on the one word: an atomic operation or an Atomic
 * Write (their target, rights and --check are alike).
 */
static inline bool xp_op_word(u32 op)
{
	return xp_op_atomic(op) || op == XIWPERF_OP_ATOMIC_WRITE;
}

/*
 * Whether it writes its region as an RDMA Write does (its --check reads
 * it back): a Write, or the Write of a Flush operation.
 */
static inline bool xp_op_puts(u32 op)
{
	return op == XIWPERF_OP_WRITE || op == XIWPERF_OP_FLUSH;
}

/* Whether it is one of the masked atomic operations. */
static inline bool xp_op_masked(u32 op)
{
	return op == XIWPERF_OP_MASKED_FETCH_ADD ||
	       op == XIWPERF_OP_MASKED_CMP_SWAP;
}

/* Whether it is one of the Immediate Data operations. */
static inline bool xp_op_imm(u32 op)
{
	return op == XIWPERF_OP_WRITE_IMM || op == XIWPERF_OP_IMM;
}

/* Whether its messages take receives the server posted (and credits). */
static inline bool xp_op_recv(u32 op)
{
	return op == XIWPERF_OP_SEND || xp_op_imm(op);
}

bool xp_atomic_supported(const struct ib_device *dev, u32 op);

/**
 * struct xp_map - a buffer DMA-mapped for one device.
 * @dev: the device, NULL while unmapped.
 * @cpu: kernel address of the buffer.
 * @dma: device address.
 * @len: length in bytes.
 */
struct xp_map {
	struct ib_device *dev;
	void *cpu;
	u64 dma;
	size_t len;
};

void *xp_buf_alloc(size_t len);
void xp_buf_free(void *buf);
int xp_map(struct xp_map *map, struct ib_device *dev, void *cpu, size_t len);
void xp_unmap(struct xp_map *map);
void xp_sync_for_cpu(struct xp_map *map, size_t off, size_t len);
void xp_sync_for_device(struct xp_map *map, size_t off, size_t len);

/**
 * struct xp_frmr - a fast-registration MR for one mapped buffer.
 * @mr: from ib_alloc_mr(), NULL until allocated.
 * @sg: the buffer as a one-entry scatterlist (its device address).
 * @iova: the I/O virtual address each registration gives the buffer: not
 *	its device address (so that a device translating through the MR
 *	rather than using the address is told apart), but with the same
 *	offset in its page.
 */
struct xp_frmr {
	struct ib_mr *mr;
	struct scatterlist sg;
	u64 iova;
};

u32 xp_frmr_pages(const struct xp_map *map);
int xp_frmr_alloc(struct xp_frmr *f, struct ib_pd *pd,
		  const struct xp_map *map, u32 tag);
void xp_frmr_free(struct xp_frmr *f);
int xp_frmr_prepare(struct xp_frmr *f, struct ib_reg_wr *wr,
		    struct ib_cqe *cqe, int access);

/**
 * struct xp_async - the asynchronous events of a client run's or a
 *	server's QPs and CQs, by kind.
 * @qp_fatal: IB_EVENT_QP_FATAL.
 * @qp_req_err: IB_EVENT_QP_REQ_ERR.
 * @qp_access_err: IB_EVENT_QP_ACCESS_ERR.
 * @cq_err: IB_EVENT_CQ_ERR.
 */
struct xp_async {
	atomic_t qp_fatal;
	atomic_t qp_req_err;
	atomic_t qp_access_err;
	atomic_t cq_err;
};

/* Completions taken from a solicited receive CQ per ib_poll_cq() call. */
#define XP_RCQ_BATCH	16

/**
 * struct xp_qp - the verbs resources of one connection.
 * @id: its rdma_cm id (not owned).
 * @pd: protection domain.
 * @cq: the CQ for sends, and for receives unless @rcq; polled from a
 *	workqueue by the RDMA core (ib_alloc_cq_any()).
 * @rcq: the solicited receive CQ, or NULL: from ib_create_cq(), armed for
 *	solicited events only and polled by @rcq_work when notified.
 * @qp: the RC QP, created on @id.
 * @srq: the shared receive queue it receives from (not owned), or NULL.
 * @own_pd: @pd was allocated here (else it is shared, and not freed here).
 * @create_err: the error of rdma_create_qp() if xp_qp_create() failed
 *	there (the device refused the QP's capabilities), else 0.
 * @rcq_work: polls @rcq and arms it again.
 * @notifications: completion notifications @rcq raised.
 * @polled: completions @rcq_work took from @rcq.
 * @first_batch: @polled when the first run of @rcq_work ended.
 * @first_done: that run has ended.
 * @draining: teardown: arm @rcq for every completion (ib_drain_qp() must
 *	see its flushes, and not every provider notifies a solicited-only
 *	CQ of them).
 * @wc: @rcq_work's completions, room for XP_RCQ_BATCH.
 * @async: where its asynchronous events are counted, or NULL.
 * @cq_failed: @rcq overflowed (IB_EVENT_CQ_ERR; only @rcq has an event
 *	handler).
 * @rcq_discard: teardown after that: @rcq_work drops what it polls.
 */
struct xp_qp {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_cq *rcq;
	struct ib_qp *qp;
	struct ib_srq *srq;
	bool own_pd;
	int create_err;
	struct work_struct rcq_work;
	atomic64_t notifications;
	u64 polled;
	u64 first_batch;
	bool first_done;
	bool draining;
	struct ib_wc *wc;
	struct xp_async *async;
	bool cq_failed;
	bool rcq_discard;
};

/**
 * struct xp_qp_opts - how xp_qp_create() builds a connection's resources.
 * @pd_flags: IB_PD_* flags for a PD of its own (the server asks for the
 *	global rkey).
 * @pd: a PD to use instead of allocating one (not freed by
 *	xp_qp_destroy()), or NULL.
 * @srq: a shared receive queue of @pd to receive from, or NULL.
 * @solicited: receives complete on a CQ of their own (struct xp_qp.rcq).
 * @tiny_rcq: with @solicited: that CQ has room for one completion only
 *	(XIWPERF_INJECT_CQ_OVERFLOW).
 * @async: where to count the asynchronous events, or NULL.
 */
struct xp_qp_opts {
	unsigned int pd_flags;
	struct ib_pd *pd;
	struct ib_srq *srq;
	bool solicited;
	bool tiny_rcq;
	struct xp_async *async;
};

int xp_qp_create(struct xp_qp *q, struct rdma_cm_id *id,
		 const struct xp_qp_opts *opts, struct ib_qp_cap *cap);
void xp_qp_destroy(struct xp_qp *q, bool connected);
void xp_qp_free_pd(struct xp_qp *q);
u64 xp_qp_first_batch(const struct xp_qp *q);
u32 xp_sge_split(struct ib_sge *sge, u32 n, u64 addr, u32 len, u32 lkey);
int xp_post_recv(struct xp_qp *q, struct ib_cqe *cqe, u64 addr, u32 len,
		 u32 nsge);

#endif /* XIWPERF_CONN_H */
