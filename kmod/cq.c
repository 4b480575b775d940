// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "obj.h"
#include "verbs.h"
#include "../uapi/xiw_abi.h"

/* The process's consumer index of a ring CQ: any value at all. */
static u32 xiw_ucq_tail(const struct xiw_cq *cq)
{
	/*
	 * Acquire: the process stores it (release) after it read the
	 * entries before it, whose slots the kernel may then overwrite.
	 */
	return smp_load_acquire((u32 *)(cq->umap->mem + XIW_UCQ_RING_TAIL));
}

/* The consumer's index: the process's for a ring CQ, else our own. */
static u32 xiw_cq_tail(const struct xiw_cq *cq)
{
	return cq->umap ? xiw_ucq_tail(cq) : cq->tail;
}

/*
 * A ring CQ for a process of a context with XIW_UCTX_CQ_RING: the ring
 * is mapped from the device file at the offset the response gives.
 */
static int xiw_create_ucq(struct xiw_cq *cq, struct ib_udata *udata)
{
	struct xiw_ucq_resp resp = { .slots = cq->mask + 1 };
	size_t len = PAGE_ALIGN(XIW_UCQ_RING_ENTRIES +
				(size_t)resp.slots * sizeof(struct xiw_ucqe));
	struct xiw_ucontext *ctx = rdma_udata_to_drv_context(udata,
							    struct xiw_ucontext,
							    ibucontext);
	int err;

	/* The provider asked for rings: it takes the response. */
	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	cq->umap = xiw_umap_new(&ctx->ibucontext, len, &resp.ring_offset);
	if (IS_ERR(cq->umap)) {
		err = PTR_ERR(cq->umap);
		cq->umap = NULL;
		return err;
	}
	resp.ring_len = len;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err) {
		xiw_umap_remove(cq->umap);
		cq->umap = NULL;
	}
	return err;
}

/*
 * A completion's opcode as a ring carries it: libibverbs' IBV_WC_* (the
 * uverbs numbers, which the kernel's share but for the commit draft's on
 * 6.1, include/xiw/compat.h) and xiw's own for what libibverbs has no
 * number for.
 */
static u8 xiw_ucq_opcode(u32 op)
{
	switch (op) {
	case IB_WC_FLUSH:
		return IB_UVERBS_WC_FLUSH;
	case IB_WC_ATOMIC_WRITE:
		return IB_UVERBS_WC_ATOMIC_WRITE;
	case XIW_WC_VERIFY:
		return XIW_UCQE_VERIFY;
	case IB_WC_MASKED_COMP_SWAP:
		return XIW_UCQE_MASKED_CMP_SWAP;
	case IB_WC_MASKED_FETCH_ADD:
		return XIW_UCQE_MASKED_FETCH_ADD;
	default:
		return op;
	}
}

/* Write @wc at the head of a ring CQ, as the process reads it. */
static void xiw_ucq_put(struct xiw_cq *cq, const struct ib_wc *wc)
{
	struct xiw_ucqe *e = cq->umap->mem + XIW_UCQ_RING_ENTRIES;
	struct xiw_ucqe c = {
		.wr_id = wc->wr_id,
		.qp_num = wc->qp->qp_num,
		.byte_len = wc->byte_len,
		.status = wc->status,
		.opcode = xiw_ucq_opcode(wc->opcode),
		.vendor_err = wc->vendor_err,
	};

	if (wc->wc_flags & IB_WC_WITH_IMM) {
		c.flags |= XIW_UCQE_WITH_IMM;
		c.ex_data = (__force u32)wc->ex.imm_data;
	} else if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		c.flags |= XIW_UCQE_WITH_INV;
		c.ex_data = wc->ex.invalidate_rkey;
	}
	e[xiw_ring_slot(cq->head, cq->mask)] = c;
}

/**
 * xiw_create_cq() - create a completion queue
 * @ibcq: RDMA core object, allocated by the core
 * @attr: requested size and vector
 * @attrs: a user CQ's attributes (driver data: none in, struct
 *	xiw_ucq_resp out for a context with XIW_UCTX_CQ_RING);
 *	NULL for kernel consumers (before 6.11: the user's udata,
 *	include/xiw/compat.h)
 *
 * A process's CQ is the same ring, polled through the RDMA core's
 * command, or, for a context with XIW_UCTX_CQ_RING, a ring of struct
 * xiw_ucqe the process maps and polls itself (uapi/xiw_abi.h); either
 * way its events come through the completion channel and its ring is
 * charged to the process's memory cgroup.
 *
 * Return: 0, -EINVAL for a bad size or driver data, -ENOMEM (also at the
 * limit of a process's memory cgroup, and when the device has XIW_MAX_CQ
 * already).
 */
int xiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct xiw_create_cq_arg *attrs)
{
	struct ib_udata *udata = xiw_create_cq_udata(attrs);
	struct xiw_device *xdev = to_xiw_dev(ibcq->device);
	struct xiw_cq *cq = to_xiw_cq(ibcq);

	if (udata && xiw_udata_none(udata))
		return -EINVAL;
	if (attr->cqe < 1 || attr->cqe > XIW_MAX_CQE || attr->flags)
		return -EINVAL;
	if (!xiw_count_get(&xdev->num_cq, XIW_MAX_CQ))
		return -ENOMEM;

	/*
	 * A power of two of slots, for the wrap of head and tail (ring.h);
	 * a process's CQ is its memory (xiw_gfp()).
	 */
	cq->mask = xiw_ring_slots(attr->cqe) - 1;
	if (xiw_uctx_granted(udata, XIW_UCTX_CQ_RING)) {
		int err = xiw_create_ucq(cq, udata);

		if (err) {
			xiw_count_put(&xdev->num_cq);
			return err;
		}
	} else {
		cq->ring = xiw_kvcalloc(cq->mask + 1, sizeof(*cq->ring),
					udata);
		if (!cq->ring) {
			xiw_count_put(&xdev->num_cq);
			return -ENOMEM;
		}
	}
	spin_lock_init(&cq->lock);
	cq->size = attr->cqe;
	ibcq->cqe = attr->cqe;
	return 0;
}

/**
 * xiw_destroy_cq() - destroy a completion queue
 * @ibcq: the CQ; the core guarantees no QP uses it any more
 * @udata: unused
 *
 * Return: 0.
 */
int xiw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);

	if (cq->umap)
		xiw_umap_remove(cq->umap);	/* written no more */
	kvfree(cq->ring);
	xiw_count_put(&to_xiw_dev(ibcq->device)->num_cq);
	return 0;
}

/**
 * xiw_cq_add() - add a completion and notify the consumer if armed
 * @cq: the CQ
 * @wc: the completion
 * @solicited: the completion is for a solicited event
 *
 * Callable from any context, but not under the QP's lock. A full CQ loses the
 * completion, raises IB_EVENT_CQ_ERR (once per CQ) and ends the stream of
 * the completion's QP: its consumer can no longer learn what became of its
 * work requests (xiw_qp_fatal()). Only the QPs whose completions are lost
 * are touched; streams that do not use this CQ never notice (RFC 5040
 * section 8.1.1, item 10). A ring CQ is full by the tail its process
 * wrote, whatever that is: one that does not leave room is a full CQ.
 */
void xiw_cq_add(struct xiw_cq *cq, const struct ib_wc *wc, bool solicited)
{
	unsigned long flags;
	bool notify = false;
	bool overflow = false;
	bool lost = false;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->head - xiw_cq_tail(cq) >= cq->size) {
		overflow = !cq->overflowed;
		cq->overflowed = true;
		lost = true;
	} else {
		if (cq->umap)
			xiw_ucq_put(cq, wc);
		else
			cq->ring[xiw_ring_slot(cq->head, cq->mask)] = *wc;
		cq->head++;
		if (cq->umap)	/* the entry first, then its index */
			smp_store_release((u32 *)(cq->umap->mem +
						  XIW_UCQ_RING_HEAD),
					  cq->head);
		if (cq->notify == IB_CQ_NEXT_COMP ||
		    (cq->notify == IB_CQ_SOLICITED &&
		     (solicited || wc->status != IB_WC_SUCCESS))) {
			cq->notify = 0;
			notify = true;
		}
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (overflow && cq->ibcq.event_handler) {
		struct ib_event ev = {
			.device = cq->ibcq.device,
			.element.cq = &cq->ibcq,
			.event = IB_EVENT_CQ_ERR,
		};

		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	if (lost)
		xiw_qp_fatal(to_xiw_qp(wc->qp));
	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/**
 * xiw_cq_purge() - drop a destroyed QP's completions from a CQ
 * @cq: the CQ
 * @qp: the QP, on its way out: it adds no completion any more
 *
 * What the QP left in the CQ names it by pointer (ib_wc.qp), and the RDMA
 * core frees the QP once destroy_qp returns: a consumer polling after
 * that would read freed memory (the core's poll command for a process
 * reads wc->qp->qp_num). Those completions go, the others keep their
 * order. A ring CQ's entries are the process's, and name QPs by number:
 * its provider skips a destroyed QP's.
 */
void xiw_cq_purge(struct xiw_cq *cq, const struct ib_qp *qp)
{
	unsigned long flags;
	u32 i, kept;

	if (cq->umap)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	for (i = cq->tail, kept = cq->tail; i != cq->head; i++) {
		const struct ib_wc *wc = &cq->ring[xiw_ring_slot(i, cq->mask)];

		if (wc->qp == qp)
			continue;
		if (kept != i)
			cq->ring[xiw_ring_slot(kept, cq->mask)] = *wc;
		kept++;
	}
	cq->head = kept;
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * xiw_poll_cq() - take up to @num completions
 * @ibcq: the CQ
 * @num: room in @wc
 * @wc: output
 *
 * Return: the number of completions taken; -EOPNOTSUPP for a ring CQ,
 * which its process polls itself.
 */
int xiw_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);
	unsigned long flags;
	int n = 0;

	if (cq->umap)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	while (n < num && cq->tail != cq->head) {
		wc[n++] = cq->ring[xiw_ring_slot(cq->tail, cq->mask)];
		cq->tail++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * xiw_req_notify_cq() - arm the CQ for the next (solicited) completion
 * @ibcq: the CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally
 *	   IB_CQ_REPORT_MISSED_EVENTS
 *
 * Return: 0, or 1 with IB_CQ_REPORT_MISSED_EVENTS when completions are
 * already waiting.
 */
int xiw_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED) {
		if (cq->notify != IB_CQ_NEXT_COMP)
			cq->notify = IB_CQ_SOLICITED;
	} else {
		cq->notify = IB_CQ_NEXT_COMP;
	}
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->head != xiw_cq_tail(cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
