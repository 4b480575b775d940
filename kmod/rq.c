// SPDX-License-Identifier: GPL-2.0
/*
 * Receive queues: a QP's own receive queue and shared receive queues
 * (SRQ), one ring type for both, and how the receive engine takes the
 * entry an incoming Send goes to.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "obj.h"
#include "verbs.h"
#include "../uapi/xiw_abi.h"

static_assert(XIW_URQE_SGE == XIW_MAX_SGE);
/* The ABI's sizes: fixed, multiples of 8, alike for 32- and 64-bit. */
static_assert(sizeof(struct xiw_urqe) == 16 + 16 * XIW_URQE_SGE);
static_assert(sizeof(struct xiw_urq_resp) == 24);

/**
 * xiw_rq_init() - allocate a receive ring
 * @rq: the ring
 * @size: entries it holds at most; its storage is a power of two of
 *	slots (ring.h)
 * @user: the ring is a process's QP's or SRQ's (xiw_gfp())
 *
 * Return: 0 or -ENOMEM.
 */
int xiw_rq_init(struct xiw_rq *rq, u32 size, bool user)
{
	spin_lock_init(&rq->lock);
	rq->size = size;
	rq->mask = xiw_ring_slots(size) - 1;
	rq->head = 0;
	rq->tail = 0;
	rq->ring = xiw_kvcalloc(rq->mask + 1, sizeof(*rq->ring), user);
	return rq->ring ? 0 : -ENOMEM;
}

/**
 * xiw_rq_init_ring() - give an initialised receive ring a process's ring
 *	to be posted to (XIW_UCTX_RQ_RING)
 * @rq: the ring, from xiw_rq_init()
 * @udata: the create command's driver data
 * @resp: where the process maps it, filled in
 *
 * Return: 0 or -ENOMEM.
 */
int xiw_rq_init_ring(struct xiw_rq *rq, struct ib_udata *udata,
		     struct xiw_urq_resp *resp)
{
	struct xiw_ucontext *ctx = rdma_udata_to_drv_context(udata,
							    struct xiw_ucontext,
							    ibucontext);
	size_t len = PAGE_ALIGN(XIW_URQ_RING_ENTRIES + (size_t)(rq->mask + 1) *
				sizeof(struct xiw_urqe));
	struct xiw_umap *m = xiw_umap_new(&ctx->ibucontext, len,
					  &resp->ring_offset);

	if (IS_ERR(m))
		return PTR_ERR(m);
	rq->umap = m;
	resp->ring_len = len;
	resp->slots = rq->mask + 1;
	resp->size = rq->size;
	return 0;
}

/**
 * xiw_rq_free() - free a receive ring's entries
 * @rq: the ring; nothing reads it any more
 */
void xiw_rq_free(struct xiw_rq *rq)
{
	if (rq->umap)
		xiw_umap_remove(rq->umap);	/* read no more */
	rq->umap = NULL;
	kvfree(rq->ring);
	rq->ring = NULL;
}

static u32 *xiw_urq_word(struct xiw_rq *rq, size_t off)
{
	return (u32 *)(rq->umap->mem + off);
}

/**
 * xiw_rq_pull() - copy what a process posted to its ring into @rq
 * @rq: the ring; the caller holds its lock
 *
 * Each field is read once, into the kernel's entry, and only that copy is
 * used. However far the process's head is, no more than @rq->size
 * entries are outstanding; an entry with more SGEs than the device has
 * gets none (it holds no buffer).
 */
void xiw_rq_pull(struct xiw_rq *rq)
{
	const struct xiw_urqe *ring;
	u32 posted;

	if (!rq->umap)
		return;
	ring = rq->umap->mem + XIW_URQ_RING_ENTRIES;
	/* Acquire: pairs with the process's release of its head. */
	posted = smp_load_acquire(xiw_urq_word(rq, XIW_URQ_RING_HEAD));
	while ((s32)(posted - rq->head) > 0 && rq->head - rq->tail < rq->size) {
		const struct xiw_urqe *u = &ring[xiw_ring_slot(rq->head,
							       rq->mask)];
		struct xiw_rqe *rqe = xiw_rq_at(rq, rq->head);
		u32 n = READ_ONCE(u->num_sge), i;

		rqe->wr_id = READ_ONCE(u->wr_id);
		if (n > XIW_MAX_SGE)
			n = 0;
		rqe->num_sge = n;
		for (i = 0; i < n; i++) {
			rqe->sge[i].addr = READ_ONCE(u->sge[i].addr);
			rqe->sge[i].length = READ_ONCE(u->sge[i].length);
			rqe->sge[i].lkey = READ_ONCE(u->sge[i].lkey);
		}
		rq->head++;
	}
}

/**
 * xiw_rq_consumed() - tell the process which of its ring's slots are free
 * @rq: the ring; the caller holds its lock
 */
void xiw_rq_consumed(struct xiw_rq *rq)
{
	if (!rq->umap)
		return;
	/* Release: the entries were copied out before their slots free. */
	smp_store_release(xiw_urq_word(rq, XIW_URQ_RING_TAIL), rq->tail);
}

/**
 * xiw_rq_set_flush() - tell the process whether its QP is in error
 * @rq: a QP's ring
 * @flush: in error: what it posts is flushed when it rings the doorbell
 *
 * Set before the flush pulls what was posted, with a full barrier: a
 * process that stores its head and then reads the flags either had its
 * entries pulled by the flush, or sees the flag and rings.
 */
void xiw_rq_set_flush(struct xiw_rq *rq, bool flush)
{
	if (!rq->umap)
		return;
	WRITE_ONCE(*xiw_urq_word(rq, XIW_URQ_RING_FLAGS),
		   flush ? XIW_URQ_FLUSH : 0);
	/* Flag, then read the head: the process stores its head, then reads. */
	smp_mb();
}

/**
 * xiw_rq_post() - queue receive work requests on a ring
 * @rq: the ring
 * @wr: chain of work requests
 * @bad_wr: the first one not queued, on error
 *
 * Return: 0, -ENOMEM (ring full), -EINVAL (too many SGEs; a process's
 * ring queue, which only takes the doorbell: no work request).
 */
int xiw_rq_post(struct xiw_rq *rq, const struct ib_recv_wr *wr,
		const struct ib_recv_wr **bad_wr)
{
	unsigned long flags;
	int err = 0;

	if (rq->umap && wr) {
		*bad_wr = wr;
		return -EINVAL;		/* the process posts to its ring */
	}
	spin_lock_irqsave(&rq->lock, flags);
	for (; wr; wr = wr->next) {
		struct xiw_rqe *rqe;

		if (wr->num_sge > XIW_MAX_SGE) {
			err = -EINVAL;
			break;
		}
		if (rq->head - rq->tail >= rq->size) {
			err = -ENOMEM;
			break;
		}
		rqe = xiw_rq_at(rq, rq->head);
		rqe->wr_id = wr->wr_id;
		rqe->num_sge = wr->num_sge;
		memcpy(rqe->sge, wr->sg_list, wr->num_sge * sizeof(*rqe->sge));
		rq->head++;
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/* The SRQ reached its limit: tell the consumer, once per arming. */
static void xiw_srq_limit_event(struct xiw_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/* Take the oldest entry of a ring into @out; ring locked. */
static bool xiw_rq_take(struct xiw_rq *rq, struct xiw_rqe *out)
{
	xiw_rq_pull(rq);
	if (rq->tail == rq->head)
		return false;
	*out = *xiw_rq_at(rq, rq->tail);
	rq->tail++;
	xiw_rq_consumed(rq);
	return true;
}

/* Take from an SRQ; sets *@limit if that crossed the armed limit. */
static bool xiw_srq_take(struct xiw_srq *srq, struct xiw_rqe *out,
			 bool *limit)
{
	bool taken;

	spin_lock(&srq->rq.lock);
	taken = xiw_rq_take(&srq->rq, out);
	if (taken && srq->limit && srq->rq.head - srq->rq.tail < srq->limit) {
		srq->limit = 0;		/* disarmed until modify_srq */
		*limit = true;
	}
	spin_unlock(&srq->rq.lock);
	return taken;
}

/**
 * xiw_qp_take_recv() - take the receive entry for an incoming Send
 * @qp: the QP
 *
 * The entry goes to qp->rx.send_rqe, from the QP's receive queue or its
 * SRQ. Both happen under the QP's receive queue lock, where a flush looks
 * for it (see struct xiw_rx): a QP in error takes nothing.
 *
 * Return: 0, or -ENOBUFS if no receive is posted (or the QP is in error).
 */
int xiw_qp_take_recv(struct xiw_qp *qp)
{
	struct xiw_rqe *out = &qp->rx.send_rqe;
	bool taken = false, limit = false;
	unsigned long flags;

	spin_lock_irqsave(&qp->rq.lock, flags);
	if (READ_ONCE(qp->state) != XIW_QPS_ERROR) {
		taken = qp->srq ? xiw_srq_take(qp->srq, out, &limit) :
				  xiw_rq_take(&qp->rq, out);
		qp->rx.send_rqe_valid = taken;
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (limit)
		xiw_srq_limit_event(qp->srq);
	return taken ? 0 : -ENOBUFS;
}

/*
 * An SRQ's ring lock is taken inside a QP's (xiw_qp_take_recv()), never
 * the other way round: a class of its own tells lockdep so.
 */
static struct lock_class_key xiw_srq_lock_key;

/**
 * xiw_create_srq() - create a shared receive queue
 * @ibsrq: RDMA core object
 * @attr: requested size and SGEs; granted values are written back
 * @udata: a user SRQ's driver data: nothing in; struct xiw_usrq_resp out
 *	for a context with XIW_UCTX_RQ_RING; NULL for kernel consumers
 *
 * A process's SRQ is charged to its memory cgroup (xiw_gfp()).
 *
 * Return: 0, -EOPNOTSUPP (non-basic SRQ), -EINVAL, -ENOMEM (also when the
 * device has XIW_MAX_SRQ already).
 */
int xiw_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(ibsrq->device);
	struct xiw_srq *srq = to_xiw_srq(ibsrq);
	struct ib_srq_attr *a = &attr->attr;
	int err;

	if (attr->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (xiw_udata_none(udata))
		return -EINVAL;
	if (!a->max_wr || a->max_wr > XIW_MAX_SRQ_WR ||
	    a->max_sge > XIW_MAX_SGE || a->srq_limit > a->max_wr)
		return -EINVAL;
	if (!xiw_count_get(&xdev->num_srq, XIW_MAX_SRQ))
		return -ENOMEM;
	err = xiw_rq_init(&srq->rq, a->max_wr, udata);
	lockdep_set_class(&srq->rq.lock, &xiw_srq_lock_key);
	if (!err && xiw_uctx_granted(udata, XIW_UCTX_RQ_RING)) {
		struct xiw_usrq_resp resp = {};

		/* The provider asked for rings: it takes the response. */
		err = udata->outlen < sizeof(resp) ? -EINVAL :
		      xiw_rq_init_ring(&srq->rq, udata, &resp.rq) ?:
		      ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			xiw_rq_free(&srq->rq);
	}
	if (err) {
		xiw_count_put(&xdev->num_srq);
		return err;
	}
	srq->limit = a->srq_limit;
	a->max_sge = XIW_MAX_SGE;
	return 0;
}

/**
 * xiw_modify_srq() - arm the limit event
 * @ibsrq: the SRQ
 * @attr: the new limit (IB_SRQ_LIMIT)
 * @mask: IB_SRQ_LIMIT; resizing (IB_SRQ_MAX_WR) is not supported
 * @udata: unused
 *
 * A limit of n arms the SRQ: IB_EVENT_SRQ_LIMIT_REACHED fires once, when
 * taking a receive leaves fewer than n posted; 0 disarms it.
 *
 * Return: 0, -EOPNOTSUPP (resize), -EINVAL (limit above the size).
 */
int xiw_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct xiw_srq *srq = to_xiw_srq(ibsrq);
	unsigned long flags;

	if (mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->rq.size)
		return -EINVAL;
	spin_lock_irqsave(&srq->rq.lock, flags);
	srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return 0;
}

/**
 * xiw_query_srq() - report an SRQ's size and armed limit
 * @ibsrq: the SRQ
 * @attr: filled in
 *
 * Return: 0.
 */
int xiw_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct xiw_srq *srq = to_xiw_srq(ibsrq);

	attr->max_wr = srq->rq.size;
	attr->max_sge = XIW_MAX_SGE;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

/**
 * xiw_destroy_srq() - destroy an SRQ; the core guarantees no QP uses it
 * @ibsrq: the SRQ
 * @udata: unused
 *
 * Return: 0.
 */
int xiw_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	xiw_rq_free(&to_xiw_srq(ibsrq)->rq);
	xiw_count_put(&to_xiw_dev(ibsrq->device)->num_srq);
	return 0;
}

/**
 * xiw_post_srq_recv() - queue receive work requests on an SRQ
 * @ibsrq: the SRQ
 * @wr: chain of work requests
 * @bad_wr: the first one not queued, on error
 *
 * Return: 0, -ENOMEM (SRQ full), -EINVAL (too many SGEs).
 */
int xiw_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	return xiw_rq_post(&to_xiw_srq(ibsrq)->rq, wr, bad_wr);
}
