// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit engine: frames work requests and Read Responses into FPDUs and
 * hands them to TCP without blocking. One work item per QP; a send that
 * would block leaves the FPDU half sent and resumes on write space.
 */
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "cm.h"
#include "mpa.h"
#include "obj.h"

static struct workqueue_struct *xiw_tx_wq;

/* FPDUs sent per pass before yielding the worker to other QPs. */
#define XIW_TX_BUDGET	64

/**
 * xiw_tx_kick() - make the transmit engine look at the QP
 * @qp: the QP
 *
 * Callable from any context.
 */
void xiw_tx_kick(struct xiw_qp *qp)
{
	queue_work(xiw_tx_wq, &qp->tx_work);
}

/* What the FPDU being pushed finishes, once it is fully in TCP's hands. */
enum xiw_tx_after {
	XIW_TX_AFTER_NONE,
	XIW_TX_AFTER_WQE,	/* last FPDU of a Send or Write */
	XIW_TX_AFTER_TERM,	/* the Terminate */
	XIW_TX_LOCAL_ERR,	/* nothing framed: a WQE failed its checks */
};

/*
 * Close the FPDU in qp->tx_kvec: pad, CRC, and the trailer as the last
 * vector. The header is vector 0; payload vectors follow.
 */
static void xiw_tx_seal(struct xiw_qp *qp, u32 ulpdu_len)
{
	u32 pad = xiw_mpa_pad(ulpdu_len);
	__le32 crc = 0;
	int i;

	put_unaligned_be16(ulpdu_len, qp->tx_hdr);
	memset(qp->tx_trailer, 0, sizeof(qp->tx_trailer));
	if (qp->crc) {
		u32 s = xiw_mpa_crc_init();

		for (i = 0; i < qp->tx_nvec; i++)
			s = xiw_mpa_crc_update(s, qp->tx_kvec[i].iov_base,
					       qp->tx_kvec[i].iov_len);
		s = xiw_mpa_crc_update(s, qp->tx_trailer, pad);
		crc = xiw_mpa_crc_final(s);
	}
	memcpy(qp->tx_trailer + pad, &crc, sizeof(crc));
	qp->tx_kvec[qp->tx_nvec].iov_base = qp->tx_trailer;
	qp->tx_kvec[qp->tx_nvec].iov_len = pad + XIW_MPA_CRC_SIZE;
	qp->tx_nvec++;
	qp->tx_len = XIW_MPA_LEN_SIZE + ulpdu_len + pad + XIW_MPA_CRC_SIZE;
	qp->tx_off = 0;
}

static void xiw_tx_hdr(struct xiw_qp *qp, u32 hdr_len)
{
	qp->tx_kvec[0].iov_base = qp->tx_hdr;
	qp->tx_kvec[0].iov_len = XIW_MPA_LEN_SIZE + hdr_len;
	qp->tx_nvec = 1;
}

static void xiw_tx_ctrl(struct xiw_ddp_ctrl *c, bool tagged, bool last, u8 op)
{
	c->ddp = (tagged ? XIW_DDP_TAGGED : 0) | (last ? XIW_DDP_LAST : 0) |
		 XIW_DDP_VERSION;
	c->rdmap = XIW_RDMAP_VERSION << XIW_RDMAP_VERSION_SHIFT | op;
}

static struct xiw_tagged_hdr *xiw_tx_tagged(struct xiw_qp *qp)
{
	return (struct xiw_tagged_hdr *)(qp->tx_hdr + XIW_MPA_LEN_SIZE);
}

static struct xiw_untagged_hdr *xiw_tx_untagged(struct xiw_qp *qp)
{
	return (struct xiw_untagged_hdr *)(qp->tx_hdr + XIW_MPA_LEN_SIZE);
}

/*
 * Add payload vectors for @len octets of the WQE's buffers starting at
 * message offset @off. Local buffers were validated when the WQE started.
 */
static void xiw_tx_payload(struct xiw_qp *qp, struct xiw_wqe *wqe, u32 off,
			   u32 len)
{
	int i;

	for (i = 0; i < wqe->num_sge && len; i++) {
		u32 sl = wqe->sge[i].length;
		u32 take;

		if (off >= sl) {
			off -= sl;
			continue;
		}
		take = min(sl - off, len);
		qp->tx_kvec[qp->tx_nvec].iov_base =
			(void *)(uintptr_t)(wqe->sge[i].addr + off);
		qp->tx_kvec[qp->tx_nvec].iov_len = take;
		qp->tx_nvec++;
		len -= take;
		off = 0;
	}
}

/* Check every local buffer of a WQE against its lkey; 0 or IB_WC_*. */
static int xiw_tx_check_local(struct xiw_qp *qp, struct xiw_wqe *wqe,
			      int access)
{
	struct xiw_pd *pd = to_xiw_pd(qp->ibqp.pd);
	int i;

	if (wqe->flags & XIW_WQE_INLINE)
		return 0;
	for (i = 0; i < wqe->num_sge; i++) {
		struct xiw_mr *mr;
		int bad;

		if (!wqe->sge[i].length)
			continue;
		mr = xiw_mr_get(qp->xdev, wqe->sge[i].lkey);
		if (!mr)
			return IB_WC_LOC_PROT_ERR;
		bad = xiw_mr_check(mr, pd, access, wqe->sge[i].addr,
				   wqe->sge[i].length);
		xiw_mr_put(mr);
		if (bad)
			return IB_WC_LOC_PROT_ERR;
	}
	return 0;
}

static void xiw_tx_read_req(struct xiw_qp *qp, struct xiw_wqe *wqe)
{
	struct xiw_untagged_hdr *h = xiw_tx_untagged(qp);
	struct xiw_read_req *rr = (struct xiw_read_req *)(h + 1);

	xiw_tx_ctrl(&h->ctrl, false, true, XIW_OP_READ_REQ);
	h->inval_stag = 0;
	h->qn = cpu_to_be32(XIW_QN_READ_REQ);
	h->msn = cpu_to_be32(qp->msn[XIW_QN_READ_REQ]++);
	h->mo = 0;
	rr->sink_stag = cpu_to_be32(wqe->num_sge ? wqe->sge[0].lkey : 0);
	rr->sink_to = cpu_to_be64(wqe->num_sge ? wqe->sge[0].addr : 0);
	rr->size = cpu_to_be32(wqe->bytes);
	rr->src_stag = cpu_to_be32(wqe->rkey);
	rr->src_to = cpu_to_be64(wqe->remote_addr);
	xiw_tx_hdr(qp, sizeof(*h) + sizeof(*rr));
	xiw_tx_seal(qp, sizeof(*h) + sizeof(*rr));
}

/*
 * Frame the next FPDU of a Send or Write; returns true on its last one.
 */
static bool xiw_tx_data(struct xiw_qp *qp, struct xiw_wqe *wqe)
{
	bool send = wqe->opcode == IB_WR_SEND;
	u32 hdr_len = send ? sizeof(struct xiw_untagged_hdr) :
			     sizeof(struct xiw_tagged_hdr);
	u32 off = qp->tx_wqe_off;
	u32 len = min(wqe->bytes - off, qp->mulpdu - hdr_len);
	bool last = off + len == wqe->bytes;

	if (send) {
		struct xiw_untagged_hdr *h = xiw_tx_untagged(qp);
		u8 op = wqe->flags & XIW_WQE_SOLICITED ? XIW_OP_SEND_SE :
							 XIW_OP_SEND;

		xiw_tx_ctrl(&h->ctrl, false, last, op);
		h->inval_stag = 0;
		h->qn = cpu_to_be32(XIW_QN_SEND);
		h->msn = cpu_to_be32(qp->msn[XIW_QN_SEND]);
		h->mo = cpu_to_be32(off);
		if (last)
			qp->msn[XIW_QN_SEND]++;
	} else {
		struct xiw_tagged_hdr *h = xiw_tx_tagged(qp);

		xiw_tx_ctrl(&h->ctrl, true, last, XIW_OP_WRITE);
		h->stag = cpu_to_be32(wqe->rkey);
		h->to = cpu_to_be64(wqe->remote_addr + off);
	}
	xiw_tx_hdr(qp, hdr_len);
	xiw_tx_payload(qp, wqe, off, len);
	xiw_tx_seal(qp, hdr_len + len);
	qp->tx_wqe_off = last ? 0 : off + len;
	return last;
}

/* Frame the next Read Response FPDU of the oldest inbound Read Request. */
static void xiw_tx_read_resp(struct xiw_qp *qp, struct xiw_irq_entry *e)
{
	struct xiw_tagged_hdr *h = xiw_tx_tagged(qp);
	u32 len = min_t(u32, e->left, qp->mulpdu - sizeof(*h));
	bool last = len == e->left;

	xiw_tx_ctrl(&h->ctrl, true, last, XIW_OP_READ_RESP);
	h->stag = cpu_to_be32(e->sink_stag);
	h->to = cpu_to_be64(e->sink_to);
	xiw_tx_hdr(qp, sizeof(*h));
	if (len) {
		qp->tx_kvec[1].iov_base = (void *)(uintptr_t)e->src_to;
		qp->tx_kvec[1].iov_len = len;
		qp->tx_nvec = 2;
	}
	xiw_tx_seal(qp, sizeof(*h) + len);
	e->src_to += len;
	e->sink_to += len;
	e->left -= len;
}

static void xiw_tx_terminate(struct xiw_qp *qp)
{
	struct xiw_untagged_hdr *h = xiw_tx_untagged(qp);

	xiw_tx_ctrl(&h->ctrl, false, true, XIW_OP_TERMINATE);
	h->inval_stag = 0;
	h->qn = cpu_to_be32(XIW_QN_TERMINATE);
	h->msn = cpu_to_be32(qp->msn[XIW_QN_TERMINATE]++);
	h->mo = 0;
	xiw_tx_hdr(qp, sizeof(*h));
	/* Control field and included headers, built by xiw_qp_terminate(). */
	qp->tx_kvec[1].iov_base = qp->term_info;
	qp->tx_kvec[1].iov_len = qp->term_info_len;
	qp->tx_nvec = 2;
	xiw_tx_seal(qp, sizeof(*h) + qp->term_info_len);
}

/* Complete the WQE at sq_tx with a local error; caller holds sq_lock. */
static int xiw_tx_fail_wqe(struct xiw_qp *qp, struct xiw_wqe *wqe, u8 status)
{
	wqe->status = status;
	wqe->done = true;
	qp->sq_tx++;
	return XIW_TX_LOCAL_ERR;
}

/*
 * Pick and frame the next FPDU. Return: what finishing it completes, or
 * -1 when there is nothing to send now.
 */
static int xiw_tx_next(struct xiw_qp *qp)
{
	struct xiw_wqe *wqe;
	unsigned long flags;
	int bad;

	spin_lock_irqsave(&qp->sq_lock, flags);
	/* Read Responses first: the peer's Reads wait on them. */
	if (qp->irq_tail != qp->irq_head) {
		struct xiw_irq_entry *e = &qp->irq[qp->irq_tail % XIW_MAX_IRD];

		xiw_tx_read_resp(qp, e);
		if (!e->left) {
			if (e->mr)
				xiw_mr_put(e->mr);
			e->mr = NULL;
			qp->irq_tail++;
		}
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return XIW_TX_AFTER_NONE;
	}
	if (qp->sq_tx == qp->sq_head) {
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return -1;
	}
	wqe = &qp->sq[qp->sq_tx % qp->sq_size];
	if (wqe->opcode == IB_WR_RDMA_READ && !qp->ord) {
		/* The connection allows no Reads: fail it, never wait. */
		bad = xiw_tx_fail_wqe(qp, wqe, IB_WC_LOC_QP_OP_ERR);
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return bad;
	}
	if (wqe->opcode == IB_WR_RDMA_READ &&
	    (qp->orq_head - qp->orq_tail >= qp->ord ||
	     qp->orq_head - qp->orq_tail >= XIW_MAX_ORD)) {
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return -1;	/* ORD reached: a Read Response frees a slot */
	}
	if ((wqe->flags & XIW_WQE_FENCE) && qp->orq_head != qp->orq_tail) {
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return -1;	/* fenced behind outstanding Reads */
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	if (qp->tx_wqe_off == 0) {
		bad = xiw_tx_check_local(qp, wqe, wqe->opcode == IB_WR_RDMA_READ ?
					 IB_ACCESS_LOCAL_WRITE : 0);
		if (bad) {
			spin_lock_irqsave(&qp->sq_lock, flags);
			bad = xiw_tx_fail_wqe(qp, wqe, bad);
			spin_unlock_irqrestore(&qp->sq_lock, flags);
			return bad;
		}
	}

	if (wqe->opcode == IB_WR_RDMA_READ) {
		xiw_tx_read_req(qp, wqe);
		spin_lock_irqsave(&qp->sq_lock, flags);
		qp->orq[qp->orq_head % XIW_MAX_ORD] = qp->sq_tx;
		qp->orq_head++;
		qp->sq_tx++;
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return XIW_TX_AFTER_NONE;
	}
	if (!xiw_tx_data(qp, wqe))
		return XIW_TX_AFTER_NONE;
	return XIW_TX_AFTER_WQE;
}

/* Push the pending FPDU; 0 when fully handed to TCP, -EAGAIN, or error. */
static int xiw_tx_push(struct xiw_qp *qp, struct socket *sock)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int n;

	if (!qp->tx_len)
		return 0;
	iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, qp->tx_kvec, qp->tx_nvec,
		      qp->tx_len);
	iov_iter_advance(&msg.msg_iter, qp->tx_off);
	n = sock_sendmsg(sock, &msg);
	if (n < 0)
		return n;
	qp->tx_off += n;
	if (qp->tx_off < qp->tx_len)
		return -EAGAIN;
	qp->tx_len = 0;
	return 0;
}

static void xiw_tx_finish(struct xiw_qp *qp, int after)
{
	unsigned long flags;

	if (after != XIW_TX_AFTER_WQE)
		return;
	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->sq_tx != qp->sq_head) {
		struct xiw_wqe *wqe = &qp->sq[qp->sq_tx % qp->sq_size];

		if (!wqe->done) {
			wqe->done = true;
			qp->sq_tx++;
		}
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	xiw_qp_sq_complete(qp);
}

/*
 * The stream ends: abortively after a failed send or a local error, with
 * a FIN after a Terminate (an RST could make the peer drop the Terminate
 * unread).
 */
static void xiw_tx_fail(struct xiw_qp *qp, bool graceful)
{
	struct xiw_cep *cep;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	qp->state = XIW_QPS_ERROR;
	cep = qp->cep;
	if (cep)
		xiw_cep_get(cep);
	spin_unlock_irqrestore(&qp->lock, flags);
	if (cep) {
		if (graceful)
			xiw_cep_shutdown(cep);
		else
			xiw_cep_abort(cep);
		xiw_cep_put(cep);
	}
}

/**
 * xiw_tx_work() - the transmit engine's pass over one QP
 * @work: the QP's tx_work
 */
void xiw_tx_work(struct work_struct *work)
{
	struct xiw_qp *qp = container_of(work, struct xiw_qp, tx_work);
	struct socket *sock = READ_ONCE(qp->sock);
	int budget = XIW_TX_BUDGET;
	int err;

	if (!sock)
		return;
	while (budget--) {
		enum xiw_qp_state state = READ_ONCE(qp->state);
		int after;

		if (state != XIW_QPS_RTS && state != XIW_QPS_CLOSING &&
		    state != XIW_QPS_TERMINATE)
			return;

		err = xiw_tx_push(qp, sock);
		if (err == -EAGAIN)
			return;	/* the write space callback kicks us again */
		if (err) {
			xiw_tx_fail(qp, false);
			return;
		}
		after = qp->tx_after;
		qp->tx_after = XIW_TX_AFTER_NONE;
		xiw_tx_finish(qp, after);
		if (after == XIW_TX_AFTER_TERM) {
			qp->term_sent = true;
			xiw_tx_fail(qp, true);
			return;
		}

		if (state == XIW_QPS_TERMINATE) {
			if (qp->term_sent)
				return;
			xiw_tx_terminate(qp);
			qp->tx_after = XIW_TX_AFTER_TERM;
			continue;
		}
		after = xiw_tx_next(qp);
		if (after < 0)
			break;
		if (after == XIW_TX_LOCAL_ERR) {
			xiw_qp_sq_complete(qp);
			xiw_tx_fail(qp, false);
			return;
		}
		qp->tx_after = after;
	}
	if (budget < 0) {
		xiw_tx_kick(qp);	/* let other QPs have the worker */
		return;
	}
	if (READ_ONCE(qp->state) == XIW_QPS_CLOSING) {
		struct xiw_cep *cep = xiw_qp_cep_get(qp);
		unsigned long flags;
		bool drained;

		spin_lock_irqsave(&qp->sq_lock, flags);
		drained = qp->sq_tx == qp->sq_head &&
			  qp->irq_tail == qp->irq_head;
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		if (cep) {
			if (drained)
				xiw_cep_shutdown(cep);
			xiw_cep_put(cep);
		}
	}
}

/**
 * xiw_tx_init() - create the transmit workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int xiw_tx_init(void)
{
	xiw_tx_wq = alloc_workqueue("xiw_tx", WQ_UNBOUND | WQ_MEM_RECLAIM |
				    WQ_HIGHPRI, 0);
	return xiw_tx_wq ? 0 : -ENOMEM;
}

/**
 * xiw_tx_exit() - destroy the transmit workqueue
 */
void xiw_tx_exit(void)
{
	destroy_workqueue(xiw_tx_wq);
}
