// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "obj.h"
#include "verbs.h"

/**
 * xiw_create_cq() - create a completion queue
 * @ibcq: RDMA core object, allocated by the core
 * @attr: requested size and vector
 * @attrs: a user CQ's attributes (driver data: nothing in ABI version 1);
 *	NULL for kernel consumers (before 6.11: the user's udata,
 *	include/xiw/compat.h)
 *
 * A user CQ is the same ring; the process polls it through the RDMA
 * core's command, and its events come through the completion channel.
 * Its ring is charged to the process's memory cgroup.
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
	cq->ring = xiw_kvcalloc(cq->mask + 1, sizeof(*cq->ring), udata);
	if (!cq->ring) {
		xiw_count_put(&xdev->num_cq);
		return -ENOMEM;
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
	kvfree(to_xiw_cq(ibcq)->ring);
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
 * section 8.1.1, item 10).
 */
void xiw_cq_add(struct xiw_cq *cq, const struct ib_wc *wc, bool solicited)
{
	unsigned long flags;
	bool notify = false;
	bool overflow = false;
	bool lost = false;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->head - cq->tail >= cq->size) {
		overflow = !cq->overflowed;
		cq->overflowed = true;
		lost = true;
	} else {
		cq->ring[xiw_ring_slot(cq->head, cq->mask)] = *wc;
		cq->head++;
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
 * order.
 */
void xiw_cq_purge(struct xiw_cq *cq, const struct ib_qp *qp)
{
	unsigned long flags;
	u32 i, kept;

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
 * Return: the number of completions taken.
 */
int xiw_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);
	unsigned long flags;
	int n = 0;

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
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->head != cq->tail)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
