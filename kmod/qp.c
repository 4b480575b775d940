// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: creation, state, posting, in-order completion and flush.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/net.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <xiw/verbs.h>

#include <linux/tcp.h>

#include "cm.h"
#include "mpa.h"
#include "netlink.h"
#include "obj.h"
#include "policy.h"
#include "trace.h"

/* Never frame smaller than this, whatever TCP reports as its MSS. */
#define XIW_MIN_MULPDU	128
#include "verbs.h"
#include "../uapi/xiw_abi.h"

static void xiw_qp_release(struct kref *ref)
{
	complete(&container_of(ref, struct xiw_qp, ref)->freed);
}

/**
 * xiw_qp_get() - take a reference on a QP
 * @qp: the QP
 */
void xiw_qp_get(struct xiw_qp *qp)
{
	kref_get(&qp->ref);
}

/**
 * xiw_qp_put() - drop a reference; the last lets destroy finish
 * @qp: the QP
 */
void xiw_qp_put(struct xiw_qp *qp)
{
	kref_put(&qp->ref, xiw_qp_release);
}

/**
 * xiw_qp_add_ref() - iw_cm's reference on a QP: taken by xiw_get_qp()
 * @ibqp: the QP
 *
 * iw_cm calls it right after xiw_get_qp() (its only caller), which took
 * the reference already.
 */
void xiw_qp_add_ref(struct ib_qp *ibqp)
{
}

/**
 * xiw_qp_rem_ref() - iw_cm drops its reference
 * @ibqp: the QP
 */
void xiw_qp_rem_ref(struct ib_qp *ibqp)
{
	xiw_qp_put(to_xiw_qp(ibqp));
}

/**
 * xiw_qp_lookup() - find a QP by number and take a reference
 * @xdev: the device
 * @qpn: QP number
 *
 * Return: the QP or NULL.
 */
struct xiw_qp *xiw_qp_lookup(struct xiw_device *xdev, u32 qpn)
{
	struct xiw_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(&xdev->qps, flags);
	qp = xa_load(&xdev->qps, qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	xa_unlock_irqrestore(&xdev->qps, flags);
	return qp;
}

/**
 * xiw_get_qp() - iw_cm's QP lookup, and iw_cm's reference on the QP
 * @ibdev: the device
 * @qpn: QP number
 *
 * iw_cm (connect and accept, the only callers) follows each lookup that
 * found a QP with iw_add_ref() and lets go with iw_rem_ref(). The
 * reference is taken here, in the lookup: taken in iw_add_ref() after
 * this one's was dropped, a destroy_qp() of the QP in between (another
 * thread of the process that names it) would free it first.
 *
 * Return: the QP or NULL.
 */
struct ib_qp *xiw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct xiw_qp *qp = xiw_qp_lookup(to_xiw_dev(ibdev), qpn);

	return qp ? &qp->ibqp : NULL;
}

static int xiw_qp_check_caps(struct ib_qp_cap *cap)
{
	if (cap->max_send_wr > XIW_MAX_QP_WR || cap->max_recv_wr > XIW_MAX_QP_WR ||
	    cap->max_send_sge > XIW_MAX_SGE || cap->max_recv_sge > XIW_MAX_SGE ||
	    cap->max_inline_data > XIW_MAX_INLINE)
		return -EINVAL;
	return 0;
}

static void xiw_qp_free_queues(struct xiw_qp *qp)
{
	xiw_tx_release(qp);
	kfree(qp->irq);
	kfree(qp->orq);
	xiw_rq_free(&qp->rq);
	xiw_usq_free(qp);
	kvfree(qp->sq);
}

/*
 * The rings a process's provider asked for and was granted: it takes the
 * response, up to its send ring's part (an older provider's has room for
 * the receive ring's only).
 */
static int xiw_qp_init_rings(struct xiw_qp *qp, struct ib_udata *udata)
{
	bool rq = xiw_uctx_granted(udata, XIW_UCTX_RQ_RING) && !qp->srq;
	bool sq = xiw_uctx_granted(udata, XIW_UCTX_SQ_RING);
	struct xiw_uqp_resp resp = {};
	size_t len = sq ? sizeof(resp) : offsetof(typeof(resp), sq);
	int err;

	if (!xiw_uctx_granted(udata, XIW_UCTX_RQ_RING) && !sq)
		return 0;
	if (udata->outlen < len)
		return -EINVAL;
	err = rq ? xiw_rq_init_ring(&qp->rq, udata, &resp.rq) : 0;
	if (!err && sq)
		err = xiw_usq_init(qp, udata, &resp.sq);
	return err ?: ib_copy_to_udata(udata, &resp, len);
}

/**
 * xiw_create_qp() - create an RC queue pair
 * @ibqp: RDMA core object
 * @attr: requested attributes; the granted capacities are written back
 * @udata: a user QP's driver data: nothing in; struct xiw_uqp_resp out
 *	for a context with XIW_UCTX_RQ_RING or XIW_UCTX_SQ_RING; NULL for
 *	kernel consumers
 *
 * A user QP is the same object; its work is posted through the RDMA
 * core's commands (xiw_post_send_user()), or to its rings. Its queues
 * are charged to the process's memory cgroup (xiw_gfp()).
 *
 * Return: 0, -EOPNOTSUPP (non-RC, create flags), -EINVAL (capacities,
 * driver data), -ENOMEM (also when the device has XIW_MAX_QP already).
 */
int xiw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(ibqp->device);
	struct xiw_qp *qp = to_xiw_qp(ibqp);
	bool user = udata;
	u32 qpn;
	int err;

	if (attr->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	if (xiw_udata_none(udata))
		return -EINVAL;
	if (attr->create_flags)
		return -EOPNOTSUPP;
	if (xiw_qp_check_caps(&attr->cap))
		return -EINVAL;
	if (!xiw_count_get(&xdev->num_qp, XIW_MAX_QP))
		return -ENOMEM;

	qp->xdev = xdev;
	kref_init(&qp->ref);
	init_completion(&qp->freed);
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->sq_lock);
	mutex_init(&qp->teardown);
	INIT_WORK(&qp->tx_work, xiw_tx_work);
	mutex_init(&qp->tx_mutex);
	qp->state = XIW_QPS_IDLE;
	/*
	 * A new QP is Idle (RFC 5040's verbs), which the RDMA core calls
	 * INIT for an RNIC; siw and cxgb4 report it so too, and rdma-core's
	 * test_qp expects it of a device of node type RNIC.
	 */
	qp->idle_state = IB_QPS_INIT;
	qp->sq_size = max(attr->cap.max_send_wr, 1U);
	qp->sq_mask = xiw_ring_slots(qp->sq_size) - 1;
	qp->srq = attr->srq ? to_xiw_srq(attr->srq) : NULL;
	qp->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_xiw_cq(attr->send_cq);
	qp->rcq = to_xiw_cq(attr->recv_cq);
	qp->ord = XIW_MAX_ORD;
	qp->ird = XIW_MAX_IRD;

	err = -ENOMEM;
	qp->sq = xiw_kvcalloc(qp->sq_mask + 1, sizeof(*qp->sq), user);
	qp->orq = kcalloc(XIW_MAX_ORD, sizeof(*qp->orq), xiw_gfp(user));
	/* With an SRQ the QP's own ring stays empty (post_recv refuses). */
	if (xiw_rq_init(&qp->rq, qp->srq ? 1 : max(attr->cap.max_recv_wr, 1U),
			user) ||
	    !qp->sq || !qp->orq)
		goto fail;

	err = xiw_qp_init_rings(qp, udata);
	if (err)
		goto fail;

	err = xa_alloc_cyclic_irq(&xdev->qps, &qpn, qp,
				  XA_LIMIT(1, XIW_MAX_QP), &xdev->qp_next,
				  GFP_KERNEL);
	if (err < 0)
		goto fail;
	ibqp->qp_num = qpn;

	attr->cap.max_send_wr = qp->sq_size;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.size;
	attr->cap.max_send_sge = XIW_MAX_SGE;
	attr->cap.max_recv_sge = XIW_MAX_SGE;
	attr->cap.max_inline_data = XIW_MAX_INLINE;
	return 0;
fail:
	xiw_qp_free_queues(qp);
	xiw_count_put(&xdev->num_qp);
	return err == -EBUSY ? -ENOMEM : err;
}

/**
 * xiw_destroy_qp() - destroy a QP; waits until iw_cm and the connection
 *	have let go of it
 * @ibqp: the QP
 * @udata: unused
 *
 * A consumer that destroys a QP gives up what it did not poll: its work
 * requests still outstanding end without completions (@qp->destroying),
 * and every completion of the QP still in its CQs is dropped
 * (xiw_cq_purge()). So a destroy neither fills a CQ the QP shares with
 * others (one flushed completion more than it has room for would raise
 * IB_EVENT_CQ_ERR on it) nor wakes a CQ's consumer for nothing.
 *
 * Return: 0.
 */
int xiw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct xiw_qp *qp = to_xiw_qp(ibqp);

	WRITE_ONCE(qp->destroying, true);
	xiw_qp_to_error(qp);
	xa_erase_irq(&qp->xdev->qps, ibqp->qp_num);
	xiw_tx_wait_idle(qp);
	xiw_qp_put(qp);
	wait_for_completion(&qp->freed);
	/* No connection refers to the QP now: the receive engine is idle. */
	xiw_rx_reset(qp);
	xiw_qp_flush(qp);
	xiw_cq_purge(to_xiw_cq(ibqp->send_cq), ibqp);
	if (ibqp->recv_cq != ibqp->send_cq)
		xiw_cq_purge(to_xiw_cq(ibqp->recv_cq), ibqp);
	xiw_qp_free_queues(qp);
	mutex_destroy(&qp->teardown);
	xiw_count_put(&qp->xdev->num_qp);
	return 0;
}

static enum ib_qp_state xiw_ib_state(struct xiw_qp *qp)
{
	switch (qp->state) {
	case XIW_QPS_RTS:
		return IB_QPS_RTS;
	case XIW_QPS_CLOSING:
		return IB_QPS_SQD;
	case XIW_QPS_TERMINATE:
		return IB_QPS_SQE;
	case XIW_QPS_ERROR:
		return IB_QPS_ERR;
	default:
		return qp->idle_state;
	}
}

/*
 * ERR to RESET (or RESET again): the queues are emptied without
 * completions and the QP is as created, so that INIT, RTR and a new
 * connection's RTS follow. Refused while an old connection's endpoint
 * still refers to the QP (its end would stop the next one): after the
 * consumer saw its last connection event, RESET succeeds.
 */
static int xiw_qp_reset(struct xiw_qp *qp)
{
	unsigned long flags;
	u32 i;

	mutex_lock(&qp->teardown);
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->cep_held || (qp->state != XIW_QPS_IDLE &&
			     qp->state != XIW_QPS_ERROR)) {
		/* Idle and connecting: RESET changes nothing, as before. */
		int err = qp->state == XIW_QPS_IDLE ? 0 :
			  qp->state == XIW_QPS_ERROR ? -EBUSY : -EINVAL;

		spin_unlock_irqrestore(&qp->lock, flags);
		mutex_unlock(&qp->teardown);
		return err;
	}
	/*
	 * Idle, or in error with the teardown done (it ran under the mutex
	 * we hold, and took the socket away): no engine runs on the QP.
	 */
	qp->state = XIW_QPS_IDLE;
	qp->idle_state = IB_QPS_RESET;
	WRITE_ONCE(qp->tx_open, false);
	qp->term_cause = 0;
	qp->term_info_len = 0;
	qp->term_sent = false;
	qp->ord = XIW_MAX_ORD;
	qp->ird = XIW_MAX_IRD;
	spin_unlock_irqrestore(&qp->lock, flags);
	xiw_tx_wait_idle(qp);

	xiw_tx_drop(qp);
	xiw_rx_reset(qp);
	memset(&qp->rx, 0, sizeof(qp->rx));

	spin_lock_irqsave(&qp->sq_lock, flags);
	xiw_usq_reset(qp);
	qp->sq_tail = qp->sq_head;
	xiw_usq_consumed(qp);
	qp->sq_tx = qp->sq_head;
	WRITE_ONCE(qp->sq_pushed, qp->sq_head);
	WRITE_ONCE(qp->sq_ack, qp->sq_head);
	qp->orq_tail = qp->orq_head;
	for (i = qp->irq_tail; i != qp->irq_head; i++) {
		struct xiw_irq_entry *e = xiw_qp_irq_at(qp, i);

		if (e->mr)
			xiw_mr_put(e->mr);
		e->mr = NULL;
	}
	qp->irq_tail = qp->irq_head;
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	spin_lock_irqsave(&qp->rq.lock, flags);
	xiw_rq_pull(&qp->rq);
	qp->rq.tail = qp->rq.head;
	xiw_rq_consumed(&qp->rq);
	xiw_rq_set_flush(&qp->rq, false);
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	WRITE_ONCE(qp->srq_last_wqe, 0);
	mutex_unlock(&qp->teardown);
	return 0;
}

/**
 * xiw_modify_qp() - state changes and read limits
 * @ibqp: the QP
 * @attr: attributes
 * @mask: IB_QP_* valid in @attr
 * @udata: unused
 *
 * The connection moves the QP to RTS; the consumer (or iw_cm) moves it to
 * SQD for a graceful close and to ERR for an abortive one.
 *
 * RESET from ERR empties the queues without completions and makes the
 * QP reusable for a new connection, once the old connection let go of it
 * (after its last connection event).
 *
 * Return: 0, -EINVAL for a limit out of range or RESET from a live
 * connection, -EBUSY for RESET from ERR while the old connection still
 * holds the QP.
 */
int xiw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct xiw_qp *qp = to_xiw_qp(ibqp);
	struct xiw_cep *cep = NULL;
	unsigned long flags;
	int err = 0;

	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > XIW_MAX_ORD)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > XIW_MAX_IRD)
		return -EINVAL;
	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RESET) {
		/* First: read limits given with it apply to the reset QP. */
		err = xiw_qp_reset(qp);
		if (err)
			return err;
		mask &= ~IB_QP_STATE;
	}

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == XIW_QPS_IDLE) {
		if (mask & IB_QP_MAX_QP_RD_ATOMIC)
			qp->ord = attr->max_rd_atomic;
		if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
			qp->ird = attr->max_dest_rd_atomic;
	}
	if (!(mask & IB_QP_STATE)) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return 0;
	}
	switch (attr->qp_state) {
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		/* The connection moves the QP on to RTS. */
		if (qp->state == XIW_QPS_IDLE)
			qp->idle_state = attr->qp_state;
		break;
	case IB_QPS_SQD:
		if (qp->state == XIW_QPS_RTS && qp->cep) {
			qp->state = XIW_QPS_CLOSING;
			cep = qp->cep;
		}
		break;
	case IB_QPS_ERR:
		spin_unlock_irqrestore(&qp->lock, flags);
		xiw_qp_to_error(qp);
		return 0;
	default:
		break;
	}
	spin_unlock_irqrestore(&qp->lock, flags);

	if (cep)
		xiw_tx_kick(qp);	/* sends FIN once the SQ is drained */
	return err;
}

/**
 * xiw_query_qp() - report QP attributes
 * @ibqp: the QP
 * @attr: output
 * @mask: requested attributes (all are filled)
 * @init: output: creation attributes
 *
 * Return: 0.
 */
int xiw_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct xiw_qp *qp = to_xiw_qp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = xiw_ib_state(qp);
	attr->cur_qp_state = attr->qp_state;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	attr->cap.max_send_wr = qp->sq_size;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.size;
	attr->cap.max_send_sge = XIW_MAX_SGE;
	attr->cap.max_recv_sge = XIW_MAX_SGE;
	attr->cap.max_inline_data = XIW_MAX_INLINE;
	attr->path_mtu = IB_MTU_4096;
	init->qp_type = IB_QPT_RC;
	init->send_cq = &qp->scq->ibcq;
	init->recv_cq = &qp->rcq->ibcq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

static enum ib_wc_opcode xiw_wc_opcode(u8 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_MASKED_ATOMIC_FETCH_AND_ADD:
		return IB_WC_MASKED_FETCH_ADD;
	case IB_WR_MASKED_ATOMIC_CMP_AND_SWP:
		return IB_WC_MASKED_COMP_SWAP;
	case IB_WR_ATOMIC_WRITE:
		return IB_WC_ATOMIC_WRITE;
	case IB_WR_FLUSH:
		return IB_WC_FLUSH;
	case XIW_WR_VERIFY:
		return XIW_WC_VERIFY;
	default:
		return IB_WC_SEND;
	}
}

static void xiw_fill_send_wc(struct xiw_qp *qp, struct xiw_wqe *wqe,
			     struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wqe->wr_id;
	wc->status = wqe->status;
	wc->opcode = xiw_wc_opcode(wqe->opcode);
	wc->byte_len = wqe->opcode == XIW_WR_VERIFY ? wqe->verify.hash_len :
						      wqe->bytes;
	wc->qp = &qp->ibqp;
}

#define XIW_WC_BATCH	16

/**
 * xiw_qp_sq_complete() - complete finished send WQEs in posting order
 * @qp: the QP
 *
 * A WQE completes only once every earlier one has; completions are added
 * to the CQ outside the SQ lock, so a completion handler may post again.
 * Callers in several contexts at once (transmit engine, ACK and receive
 * callbacks) take turns: while one adds completions, the others leave
 * theirs to it, so the CQ sees them in posting order. A QP being
 * destroyed only retires its WQEs.
 *
 * Callable from any context.
 */
void xiw_qp_sq_complete(struct xiw_qp *qp)
{
	struct ib_wc wc[XIW_WC_BATCH];
	unsigned long flags;
	int n, i;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->sq_completing) {
		/* The other caller scans again before it stops. */
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return;
	}
	qp->sq_completing = true;
	for (;;) {
		bool quiet = READ_ONCE(qp->destroying);

		n = 0;
		while (n < XIW_WC_BATCH && qp->sq_tail != qp->sq_tx) {
			struct xiw_wqe *wqe = xiw_qp_sq_at(qp, qp->sq_tail);

			if (!wqe->done)
				break;
			if (!quiet && ((wqe->flags & XIW_WQE_SIGNALED) ||
				       wqe->status != IB_WC_SUCCESS))
				xiw_fill_send_wc(qp, wqe, &wc[n++]);
			qp->sq_tail++;
		}
		/*
		 * The slots are free before their completions are seen: a
		 * process that posts on each completion finds room.
		 */
		xiw_usq_consumed(qp);
		if (!n)
			break;
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		for (i = 0; i < n; i++)
			xiw_cq_add(qp->scq, &wc[i], false);
		spin_lock_irqsave(&qp->sq_lock, flags);
	}
	qp->sq_completing = false;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
}

/* Flush the receive queue: to the CQ, or (a QP being destroyed) to nowhere. */
static void xiw_flush_rq(struct xiw_qp *qp)
{
	struct ib_wc wc = { .status = IB_WC_WR_FLUSH_ERR,
			    .opcode = IB_WC_RECV, .qp = &qp->ibqp };
	bool quiet = READ_ONCE(qp->destroying);
	unsigned long flags;
	bool open;

	/* First the entry of a Send the stream died in (see struct xiw_rx). */
	spin_lock_irqsave(&qp->rq.lock, flags);
	/*
	 * What a process posts from now on waits for its doorbell; what it
	 * posted before is copied in once (at most the queue's size: a head
	 * it moved far ahead does not keep this loop going).
	 */
	xiw_rq_set_flush(&qp->rq, true);
	xiw_rq_pull(&qp->rq);
	open = xchg(&qp->rx.send_rqe_valid, 0);
	wc.wr_id = qp->rx.send_rqe.wr_id;
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (open && !quiet)
		xiw_cq_add(qp->rcq, &wc, false);
	/* An SRQ's entries stay for its other QPs. */
	for (;;) {
		spin_lock_irqsave(&qp->rq.lock, flags);
		if (qp->rq.tail == qp->rq.head) {
			spin_unlock_irqrestore(&qp->rq.lock, flags);
			break;
		}
		if (quiet) {
			qp->rq.tail = qp->rq.head;
			xiw_rq_consumed(&qp->rq);
			spin_unlock_irqrestore(&qp->rq.lock, flags);
			break;
		}
		wc.wr_id = xiw_rq_at(&qp->rq, qp->rq.tail)->wr_id;
		qp->rq.tail++;
		xiw_rq_consumed(&qp->rq);
		spin_unlock_irqrestore(&qp->rq.lock, flags);
		xiw_cq_add(qp->rcq, &wc, false);
	}
}

/**
 * xiw_qp_flush() - complete every outstanding WR with a flush error
 * @qp: a QP in the error state
 *
 * A QP being destroyed completes none (@qp->destroying). Also drops
 * inbound Read Requests not yet answered. Safe to call more than once.
 */
void xiw_qp_flush(struct xiw_qp *qp)
{
	unsigned long flags;
	u32 i;

	/*
	 * What a process posts to its send ring from now on waits for its
	 * doorbell (xiw_post_send_user()); what it posted before is pulled
	 * here, as much as the queue holds.
	 */
	xiw_usq_doorbell(qp, true);
	spin_lock_irqsave(&qp->sq_lock, flags);
	xiw_usq_pull(qp);
	for (i = qp->sq_tail; i != qp->sq_head; i++) {
		struct xiw_wqe *wqe = xiw_qp_sq_at(qp, i);

		if (!wqe->done || (s32)(i - qp->sq_tx) >= 0) {
			wqe->done = true;
			wqe->status = IB_WC_WR_FLUSH_ERR;
		}
	}
	qp->sq_tx = qp->sq_head;
	WRITE_ONCE(qp->sq_pushed, qp->sq_head);
	WRITE_ONCE(qp->sq_ack, qp->sq_head);
	qp->orq_tail = qp->orq_head;
	while (qp->irq_tail != qp->irq_head) {
		struct xiw_irq_entry *e = xiw_qp_irq_at(qp, qp->irq_tail);

		if (e->mr)
			xiw_mr_put(e->mr);
		e->mr = NULL;
		qp->irq_tail++;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	xiw_qp_sq_complete(qp);
	xiw_flush_rq(qp);
}

/**
 * xiw_qp_to_error() - stop the stream and flush; the connection ends with
 *	a FIN if an orderly close was under way, else with an RST
 * @qp: the QP
 *
 * Callers at once take turns (@qp->teardown): the second finds the work
 * done, so that the batch's MR references are put once and no caller
 * returns while another still tears down. Sleeps.
 *
 * An orderly close is under way after SQD (rdma_disconnect()) or after
 * our Terminate: iw_cm's and ib_drain_qp()'s move to error that follows
 * at once must not turn it into an abortive one (RFC 5040 section 5; issue
 * 24, finding 9). Nor does it wait for the peer's FIN, which a vanished
 * peer never sends: the connection lets the QP go at once and finishes
 * the close on its own (xiw_cep_close()). An RST still ends the stream
 * when the QP left RTS any other way, and when part of a batch went to
 * TCP (the stream would end inside an FPDU).
 */
void xiw_qp_to_error(struct xiw_qp *qp)
{
	enum xiw_qp_state was;
	struct sock *sk = NULL;
	struct xiw_cep *cep;
	unsigned long flags;
	bool orderly;
	u32 una = 0;

	mutex_lock(&qp->teardown);
	spin_lock_irqsave(&qp->lock, flags);
	was = qp->state;
	qp->state = XIW_QPS_ERROR;
	cep = qp->cep;
	qp->cep = NULL;
	spin_unlock_irqrestore(&qp->lock, flags);

	/* The transmit engine checks the state; wait out a running pass. */
	xiw_tx_wait_idle(qp);
	/* In error with a connection still: our Terminate and FIN went out. */
	orderly = (was == XIW_QPS_CLOSING || was == XIW_QPS_ERROR) &&
		  !(qp->tx_off && qp->tx_off < qp->tx_len);
	/*
	 * The connection releases the socket only after its own call here
	 * took it away under the lock, so it is alive while we see it.
	 */
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->sock) {
		sk = qp->sock->sk;
		sock_hold(sk);	/* the connection may release the socket */
		una = READ_ONCE(tcp_sk(sk)->snd_una);
	}
	WRITE_ONCE(qp->sock, NULL);
	spin_unlock_irqrestore(&qp->lock, flags);
	if (sk) {
		/*
		 * A receive pass runs under the socket's callback lock and
		 * sees no socket after this: wait out one under way, then
		 * let go of what a partly received FPDU holds. A ULP may
		 * deregister that MR before it destroys the QP (the QP's MR
		 * pools go first in ib_destroy_qp()), and deregistration
		 * waits for the reference.
		 */
		write_lock_bh(&sk->sk_callback_lock);
		write_unlock_bh(&sk->sk_callback_lock);
		sock_put(sk);
		xiw_rx_reset(qp);
		/* What TCP acknowledged completes; the rest flushes. */
		xiw_tx_acked(qp, una);
	}
	xiw_tx_drop(qp);
	if (cep) {
		if (orderly)
			xiw_cep_close(cep);
		else
			xiw_cep_abort(cep);
		xiw_cep_put(cep);
	}
	xiw_qp_flush(qp);
	mutex_unlock(&qp->teardown);
	/*
	 * No Send will take an SRQ entry for this QP any more. Raised
	 * outside the mutex: a consumer's handler may disconnect.
	 */
	if (qp->srq && !xchg(&qp->srq_last_wqe, 1))
		xiw_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/**
 * xiw_qp_holds_mr() - does a QP hold a reference on an MR?
 * @qp: the QP, referenced
 * @mr: the MR
 *
 * A placement under way (a tagged FPDU received in part), a request of
 * queue 1 being received or answered, or a transmit batch not yet in
 * TCP's hands. For deregistration that ran out of patience (mr.c): the
 * receive and transmit state is read without their serialisation, so the
 * answer may be stale; a holder missed is found in the next round, and
 * one that just let go is ended a little early, which only a stalled
 * peer can make happen.
 *
 * Return: true if it seems to.
 */
bool xiw_qp_holds_mr(struct xiw_qp *qp, struct xiw_mr *mr)
{
	unsigned long flags;
	bool held = false;
	u32 i, n;

	/* Racy on purpose: a stale answer costs one round (see above). */
	if (data_race(READ_ONCE(qp->rx.place_mr)) == mr)
		return true;
	spin_lock_irqsave(&qp->sq_lock, flags);
	/* The entry at irq_head: a request being received holds it. */
	for (i = qp->irq_tail; qp->irq && !held && i != qp->irq_head + 1; i++)
		held = xiw_qp_irq_at(qp, i)->mr == mr;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	/* Racy on purpose, likewise: the transmit engine's own fields. */
	n = min_t(u32, data_race(READ_ONCE(qp->tx_nmr)), XIW_TX_MR_MAX);
	for (i = 0; !held && i < n; i++) {
		/* Racy on purpose, likewise. */
		held = data_race(READ_ONCE(qp->tx_mr[i])) == mr;
	}
	return held;
}

/*
 * A WQE posted at sq_head to a QP in error is done at once; the transmit
 * engine will frame none of it. Move sq_tx past it only if nothing before
 * it waits: between the QP's entering error and the teardown's flush
 * (xiw_qp_to_error()), the engine's last pass may still be framing the
 * WQE at sq_tx, and moving sq_tx under it would make its own sq_tx++ run
 * past sq_head. Left behind, the WQE is completed by that flush.
 * sq_lock held.
 */
static void xiw_sq_past_flushed(struct xiw_qp *qp)
{
	lockdep_assert_held(&qp->sq_lock);
	if (qp->sq_tx == qp->sq_head)
		qp->sq_tx = qp->sq_head + 1;
}

/*
 * Queue @wr and, unless @one, the rest of its chain; @user_data: a user
 * WR's inline data (wqe.c, xiw_copy_inline()). On error *@bad_wr is the WR
 * not queued.
 */
static int xiw_sq_post(struct xiw_qp *qp, const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr, const u8 *user_data,
		       bool one)
{
	unsigned long flags;
	bool flush;
	int err = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	flush = READ_ONCE(qp->state) == XIW_QPS_ERROR;
	for (; wr; wr = one ? NULL : wr->next) {
		struct xiw_wqe *wqe;

		if (qp->sq_head - qp->sq_tail >= qp->sq_size) {
			err = -ENOMEM;
			break;
		}
		wqe = xiw_qp_sq_at(qp, qp->sq_head);
		err = xiw_qp_fill_wqe(qp, wqe, wr, user_data);
		if (err)
			break;
		if (flush) {
			wqe->done = true;
			wqe->status = IB_WC_WR_FLUSH_ERR;
			xiw_sq_past_flushed(qp);
		}
		qp->sq_head++;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	if (err)
		*bad_wr = wr;
	if (flush)
		xiw_qp_sq_complete(qp);
	else if (!one)
		xiw_tx_kick(qp);	/* a user QP's poster sends: see below */
	return err;
}

/* What a process may ask of a send queue (uapi/xiw_abi.h, version 1). */
#define XIW_USER_SEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | \
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

static bool xiw_user_opcode(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return true;
	default:
		return false;
	}
}

/* A user WR's inline data, from the process's addresses into @data. */
static int xiw_user_inline(const struct ib_send_wr *wr, u8 *data)
{
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		void __user *from = u64_to_user_ptr(wr->sg_list[i].addr);
		u32 l = wr->sg_list[i].length;
		u32 end;

		if (check_add_overflow(len, l, &end) || end > XIW_MAX_INLINE)
			return -EINVAL;
		if (copy_from_user(data + len, from, l))
			return -EFAULT;
		len = end;
	}
	return 0;
}

/*
 * The doorbell of a process's send ring: post_send with no work request.
 * In error, what the ring holds is flushed, once the teardown's flush has
 * run (xiw_sq_past_flushed() tells: until then that flush takes it);
 * otherwise the engine sends in the call.
 */
static int xiw_usq_ring(struct xiw_qp *qp)
{
	unsigned long flags;

	if (READ_ONCE(qp->state) != XIW_QPS_ERROR) {
		xiw_tx_now(qp);
		return 0;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->sq_tx == qp->sq_head) {
		u32 n = xiw_usq_pull(qp);

		for (; n; n--) {
			struct xiw_wqe *wqe = xiw_qp_sq_at(qp, qp->sq_tx);

			wqe->done = true;
			wqe->status = IB_WC_WR_FLUSH_ERR;
			qp->sq_tx++;
		}
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	xiw_qp_sq_complete(qp);
	return 0;
}

/*
 * A user QP's work requests, built by the RDMA core from the process's
 * (ib_uverbs_post_send()): a WR at a time, its inline data copied from
 * the process first, outside the lock (the copy may fault and sleep).
 * Only the opcodes and flags of the user ABI pass, whatever a later core
 * lets through: xiw's extended WRs are kernel structures.
 */
static int xiw_post_send_user(struct xiw_qp *qp, const struct ib_send_wr *wr,
			      const struct ib_send_wr **bad_wr)
{
	u8 data[XIW_MAX_INLINE];
	int err = 0;

	if (qp->usq) {
		/* The process posts to its ring; this is its doorbell. */
		if (!wr)
			return xiw_usq_ring(qp);
		*bad_wr = wr;
		return -EINVAL;
	}
	for (; wr; wr = wr->next) {
		bool inl = wr->send_flags & IB_SEND_INLINE;

		if (!xiw_user_opcode(wr->opcode) ||
		    (wr->send_flags & ~XIW_USER_SEND_FLAGS) ||
		    wr->num_sge > XIW_MAX_SGE)
			err = -EINVAL;
		else if (inl)
			err = xiw_user_inline(wr, data);
		if (!err)
			err = xiw_sq_post(qp, wr, bad_wr, inl ? data : NULL,
					  true);
		if (err)
			break;
	}
	if (err)
		*bad_wr = wr;
	/* In the system call, as siw does: no worker to wake and wait for. */
	xiw_tx_now(qp);
	return err;
}

/**
 * xiw_post_send() - queue send work requests
 * @ibqp: the QP
 * @wr: chain of work requests
 * @bad_wr: the first one not queued, on error
 *
 * In the error state each WR completes at once with a flush error (this
 * is how ib_drain_sq() finds the end of the queue).
 *
 * A process's ring QP (XIW_UCTX_SQ_RING) takes no work request here, only
 * the doorbell (none), see xiw_usq_ring().
 *
 * Return: 0, -ENOMEM (queue full), -EINVAL/-EOPNOTSUPP/-EMSGSIZE (bad WR;
 * a work request for a ring QP),
 * -EFAULT (a user QP's inline data at an address the process cannot
 * read).
 */
int xiw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct xiw_qp *qp = to_xiw_qp(ibqp);

	if (ibqp->uobject)
		return xiw_post_send_user(qp, wr, bad_wr);
	return xiw_sq_post(qp, wr, bad_wr, NULL, false);
}

/**
 * xiw_post_recv() - queue receive work requests
 * @ibqp: the QP
 * @wr: chain of work requests
 * @bad_wr: the first one not queued, on error
 *
 * A process's ring queue (XIW_UCTX_RQ_RING) takes no work request here,
 * only the doorbell (none): in error, what the process posted is flushed.
 *
 * Return: 0, -ENOMEM (queue full), -EINVAL (too many SGEs, the QP
 * receives through an SRQ, or a work request for a ring queue).
 */
int xiw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct xiw_qp *qp = to_xiw_qp(ibqp);
	int err;

	if (qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	err = xiw_rq_post(&qp->rq, wr, bad_wr);
	if (READ_ONCE(qp->state) == XIW_QPS_ERROR)
		xiw_flush_rq(qp);
	return err;
}

/**
 * xiw_qp_start() - the connection is up: move to RTS and start the engines
 * @qp: the QP
 * @sock: the connected TCP socket (callbacks already installed)
 * @p: what connection setup negotiated: CRC, markers, ORD/IRD, RTR
 *
 * Return: 0, or -EINVAL if the QP is not idle.
 */
int xiw_qp_start(struct xiw_qp *qp, struct socket *sock,
		 const struct xiw_stream_params *p)
{
	/* A power of two of slots, for the wrap of the positions (ring.h). */
	u32 irq_slots = xiw_ring_slots(clamp_t(u32, p->ird, 1, XIW_MAX_IRD));
	struct xiw_irq_entry *irq, *old;
	unsigned long flags;
	int i;

	/* Sized by the IRD: up to 128 entries of a Verify's hash and more. */
	irq = kcalloc(irq_slots, sizeof(*irq), GFP_KERNEL);
	if (!irq)
		return -ENOMEM;
	/*
	 * The QP is claimed (xiw_qp_claim()) and no engine runs: the queue
	 * is empty. Swapped under the lock that guards it, which
	 * xiw_qp_holds_mr() takes to look into it.
	 */
	spin_lock_irqsave(&qp->sq_lock, flags);
	old = qp->irq;
	qp->irq = irq;
	qp->irq_mask = irq_slots - 1;
	qp->irq_head = 0;
	qp->irq_tail = 0;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	kfree(old);
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != XIW_QPS_IDLE) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return -EINVAL;
	}
	qp->sock = sock;
	qp->crc = p->crc;
	qp->mulpdu = max(xiw_mpa_mulpdu(tcp_sk(sock->sk)->mss_cache,
					p->markers_tx), XIW_MIN_MULPDU);
	qp->tx_markers = p->markers_tx;
	qp->tx_mark_off = 0;
	qp->tx_seg_align = xiw_policy_segment_headers();
	/* The MPA frame before: the first untagged FPDU starts a segment. */
	qp->tx_seg_known = false;
	qp->rx.markers = p->markers_rx;
	memset(&qp->rx.unmark, 0, sizeof(qp->rx.unmark));
	qp->ord = min_t(u16, p->ord, XIW_MAX_ORD);
	qp->ird = min_t(u16, p->ird, XIW_MAX_IRD);
	qp->rtr_send = p->rtr_send;
	qp->rtr_initiator = p->rtr_send != 0;
	qp->rtr_expect = p->rtr_expect;
	qp->rtr_read_pending = false;
	for (i = 0; i < 4; i++) {
		qp->msn[i] = 1;
		qp->rx.msn[i] = 1;
	}
	qp->state = XIW_QPS_RTS;
	spin_unlock_irqrestore(&qp->lock, flags);
	/* Nothing goes out before xiw_qp_open_tx(). */
	return 0;
}

/**
 * xiw_qp_open_tx() - the MPA exchange is complete on the wire: FPDUs may
 *	follow it
 * @qp: a started QP
 *
 * The responder calls it once its MPA Reply is in the socket, the
 * initiator once it received the Reply: work posted before (even before
 * accept) cannot overtake the Reply.
 */
void xiw_qp_open_tx(struct xiw_qp *qp)
{
	/* Pairs with the acquire in xiw_tx_work(). */
	smp_store_release(&qp->tx_open, true);
	xiw_tx_kick(qp);
}

/*
 * Whether the caller of a connect or an accept may name @qp. iw_cm hands
 * the driver the QP number its caller gave, and the RDMA CM's user
 * command passes a process's number as it is (rdma_connect() and
 * rdma_accept() of an id without a QP: conn_param.qp_num), so any
 * process could otherwise name any QP of the device. A QP is the
 * caller's when the caller is the kernel, when it is a user's QP and its
 * creator had the caller's effective user ID, or else when the caller is
 * an administrator (CAP_NET_ADMIN; asked last, so that a process naming
 * its own QP, the everyday case, leaves no capability check in an LSM's
 * audit log). Both verbs run in their caller's context.
 */
static bool xiw_qp_callers(struct xiw_qp *qp)
{
	const struct rdma_restrack_entry *res = &qp->ibqp.res;
	bool ours = false;

	if (!current->mm)
		return true;
	if (!rdma_is_kernel_res(res)) {
		rcu_read_lock();
		if (res->task)
			ours = uid_eq(task_euid(res->task), current_euid());
		rcu_read_unlock();
	}
	return ours || capable(CAP_NET_ADMIN);
}

/**
 * xiw_qp_claim() - bind a connection's endpoint to the QP its connect or
 *	accept named
 * @qp: the QP, referenced by the caller
 * @cep: the endpoint; the QP refers to it from now on (qp->cep, whose
 *	reference the caller took for it)
 *
 * Only an idle QP (created or reset, never connected since) that no
 * endpoint holds can be claimed: a number naming a QP that is
 * connecting, connected or being torn down changes nothing of it. Taken
 * under @qp->teardown, so that a reset (which runs under it) either
 * finishes before or finds the QP held.
 *
 * Return: 0, -EPERM (not the caller's QP: xiw_qp_callers()) or -EBUSY.
 */
int xiw_qp_claim(struct xiw_qp *qp, struct xiw_cep *cep)
{
	unsigned long flags;
	int err = 0;

	if (!xiw_qp_callers(qp))
		return -EPERM;
	mutex_lock(&qp->teardown);
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != XIW_QPS_IDLE || qp->cep || qp->cep_held) {
		err = -EBUSY;
	} else {
		qp->cep = cep;
		qp->cep_held = true;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	mutex_unlock(&qp->teardown);
	return err;
}

/**
 * xiw_qp_cep_release() - the connection endpoint let go of the QP
 * @qp: the QP
 */
void xiw_qp_cep_release(struct xiw_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	qp->cep_held = false;
	spin_unlock_irqrestore(&qp->lock, flags);
}

/**
 * xiw_qp_terminate() - a local error ends the stream: send a Terminate
 *	carrying @cause, then close
 * @qp: the QP
 * @cause: XIW_TERM() value
 * @src: the received segment at fault (its headers go into the Terminate
 *	where RFC 5040 says so), or NULL
 *
 * Return: true if this call ended the stream, false if it was already
 * ending (or not yet running) and nothing was done.
 */
bool xiw_qp_terminate(struct xiw_qp *qp, int cause,
		      const struct xiw_term_src *src)
{
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == XIW_QPS_RTS || qp->state == XIW_QPS_CLOSING) {
		qp->term_cause = cause;
		qp->term_info_len = xiw_term_info_build(cause, src,
							qp->term_info);
		/*
		 * The transmit engine reads the state without the lock: the
		 * Terminate it is told to send must be complete before.
		 */
		smp_store_release(&qp->state, XIW_QPS_TERMINATE);
		kick = true;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	if (kick) {
		xiw_tx_kick(qp);
		xiw_qp_report_terminate(qp, cause, true);
	}
	return kick;
}

/**
 * xiw_qp_report_terminate() - count a Terminate that ended a connection
 *	by its code, and tell the tracepoint and the netlink events group
 * @qp: its QP
 * @cause: the Terminate's error, XIW_TERM()
 * @sent: the device sent it (else the peer did)
 *
 * Callable in any context.
 */
void xiw_qp_report_terminate(struct xiw_qp *qp, int cause, bool sent)
{
	trace_xiw_terminate(dev_name(&qp->xdev->ibdev.dev), qp->ibqp.qp_num,
			    sent, XIW_TERM_LAYER(cause), XIW_TERM_ETYPE(cause),
			    XIW_TERM_CODE(cause));
	xiw_stats_count_term(&qp->xdev->terms, XIW_TERM_LAYER(cause),
			     XIW_TERM_ETYPE(cause), XIW_TERM_CODE(cause), sent);
	xiw_nl_event_qp(qp, cause, sent);
}

/**
 * xiw_qp_fatal() - the QP can no longer work: a local catastrophic error
 * @qp: the QP
 *
 * Sends the Terminate of a local catastrophic error (RDMAP, RFC 5040
 * section 7.2) and raises IB_EVENT_QP_FATAL, once: a QP already leaving
 * RTS is left as it is. Callable from any context, but not under
 * @qp->lock.
 */
void xiw_qp_fatal(struct xiw_qp *qp)
{
	if (xiw_qp_terminate(qp, XIW_TERM_LOCAL_CATASTROPHIC, NULL))
		xiw_qp_event(qp, IB_EVENT_QP_FATAL);
}

/**
 * xiw_qp_event() - raise an affiliated asynchronous event of a QP
 * @qp: the QP
 * @type: the event
 */
void xiw_qp_event(struct xiw_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * xiw_qp_cep_get() - the QP's connection endpoint, referenced
 * @qp: the QP
 *
 * Return: the endpoint (drop with xiw_cep_put()) or NULL.
 */
struct xiw_cep *xiw_qp_cep_get(struct xiw_qp *qp)
{
	struct xiw_cep *cep;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	cep = qp->cep;
	if (cep)
		xiw_cep_get(cep);
	spin_unlock_irqrestore(&qp->lock, flags);
	return cep;
}
