// SPDX-License-Identifier: GPL-2.0
/*
 * Receive engine: parses FPDUs straight out of the socket's skbs in the
 * data-ready callback and places payload directly into the target buffer:
 * tagged segments at their STag/TO, Sends into the posted receive buffer,
 * Read Responses into the requester's sink. Every header field a peer
 * controls is checked before a byte is placed; any violation sends the
 * RFC 5040/5041/5044 Terminate and stops placement for good.
 */
#include <linux/skbuff.h>
#include <net/tcp.h>

#include "cm.h"
#include "mpa.h"
#include "obj.h"
#include "rx.h"
#include "trace.h"

enum xiw_rx_state {
	XIW_RX_HDR,		/* collecting length, control and headers */
	XIW_RX_PAYLOAD,		/* placing payload */
	XIW_RX_TRAILER,		/* pad and CRC */
	XIW_RX_DEAD,		/* after an error: discard everything */
};

/* The control octets are the first thing after the MPA length. */
#define XIW_RX_PEEK	(XIW_MPA_LEN_SIZE + sizeof(struct xiw_ddp_ctrl))

/**
 * xiw_rx_reset() - forget a partly received FPDU (the stream is over)
 * @qp: the QP
 */
void xiw_rx_reset(struct xiw_qp *qp)
{
	struct xiw_rx *rx = &qp->rx;

	if (rx->place_mr) {
		xiw_mr_put(rx->place_mr);
		rx->place_mr = NULL;
	}
	if (rx->irq_pending) {
		struct xiw_irq_entry *e = xiw_qp_irq_at(qp, qp->irq_head);

		if (e->mr)
			xiw_mr_put(e->mr);
		e->mr = NULL;
		rx->irq_pending = false;
	}
	rx->state = XIW_RX_DEAD;
}

/*
 * What of the segment at fault is known: the DDP header once all of it is
 * in, a Read Request's RDMAP header likewise.
 */
static void xiw_rx_term_src(struct xiw_rx *rx, struct xiw_term_src *src)
{
	const struct xiw_ddp_ctrl *c =
		(const struct xiw_ddp_ctrl *)(rx->hdr + XIW_MPA_LEN_SIZE);
	u8 ddp_len;

	*src = (struct xiw_term_src){};
	if (rx->state == XIW_RX_DEAD ||
	    rx->hdr_got < XIW_MPA_LEN_SIZE + sizeof(*c))
		return;
	ddp_len = c->ddp & XIW_DDP_TAGGED ? sizeof(struct xiw_tagged_hdr) :
					    sizeof(struct xiw_untagged_hdr);
	if (rx->hdr_got < XIW_MPA_LEN_SIZE + ddp_len)
		return;
	src->seg_len = get_unaligned_be16(rx->hdr);
	src->ddp_hdr = c;
	src->ddp_len = ddp_len;
	if (!(c->ddp & XIW_DDP_TAGGED) &&
	    (c->rdmap & XIW_RDMAP_OPCODE_MASK) == XIW_OP_READ_REQ &&
	    rx->hdr_got >= XIW_MPA_LEN_SIZE + ddp_len +
			   sizeof(struct xiw_read_req))
		src->rdma_hdr = (const struct xiw_read_req *)
				(rx->hdr + XIW_MPA_LEN_SIZE + ddp_len);
}

/*
 * The affiliated asynchronous event a fault of the peer raises at the QP
 * that detected it, by Terminate layer and error type: a tagged buffer or
 * protection fault is an access error, a malformed or unexpected request
 * an invalid request, anything else (catastrophic, MPA) fatal.
 */
static const u8 xiw_rx_fault_event[XIW_TERM_LAYER_LLP + 1][3] = {
	[XIW_TERM_LAYER_RDMAP] = {
		[XIW_RDMAP_ETYPE_CATASTROPHIC]	= IB_EVENT_QP_FATAL,
		[XIW_RDMAP_ETYPE_PROT]		= IB_EVENT_QP_ACCESS_ERR,
		[XIW_RDMAP_ETYPE_OP]		= IB_EVENT_QP_REQ_ERR,
	},
	[XIW_TERM_LAYER_DDP] = {
		[XIW_DDP_ETYPE_CATASTROPHIC]	= IB_EVENT_QP_FATAL,
		[XIW_DDP_ETYPE_TAGGED]		= IB_EVENT_QP_ACCESS_ERR,
		[XIW_DDP_ETYPE_UNTAGGED]	= IB_EVENT_QP_REQ_ERR,
	},
	[XIW_TERM_LAYER_LLP] = {
		[XIW_LLP_ETYPE_MPA]		= IB_EVENT_QP_FATAL,
	},
};

static enum ib_event_type xiw_rx_fault_event_of(int cause)
{
	u32 layer = XIW_TERM_LAYER(cause), etype = XIW_TERM_ETYPE(cause);

	if (layer >= ARRAY_SIZE(xiw_rx_fault_event) ||
	    etype >= ARRAY_SIZE(xiw_rx_fault_event[0]))
		return IB_EVENT_QP_FATAL;
	/* an empty slot (0, which is IB_EVENT_CQ_ERR) means fatal as well */
	return xiw_rx_fault_event[layer][etype] ?: IB_EVENT_QP_FATAL;
}

static void xiw_rx_fail(struct xiw_qp *qp, int cause)
{
	struct xiw_rx *rx = &qp->rx;
	struct xiw_term_src src;

	xiw_log(qp->xdev, XIW_DEBUG_FAULTS,
		"qp %u: terminate: layer %u type %u code 0x%02x (%s)\n",
		qp->ibqp.qp_num, XIW_TERM_LAYER(cause), XIW_TERM_ETYPE(cause),
		XIW_TERM_CODE(cause),
		xiw_op_table[rx->op & XIW_RDMAP_OPCODE_MASK].name ?: "?");
	xiw_rx_term_src(rx, &src);	/* before the reset: it reads rx */
	if (xiw_qp_terminate(qp, cause, &src))
		xiw_qp_event(qp, xiw_rx_fault_event_of(cause));
	xiw_rx_reset(qp);
}

/* Tagged buffer errors belong to DDP (RFC 5041); rights stay RDMAP's. */
static int xiw_rx_tagged_cause(int cause)
{
	switch (XIW_TERM_CODE(cause)) {
	case XIW_RDMAP_INV_STAG:
		return TERM_DDP_T(XIW_DDP_T_INV_STAG);
	case XIW_RDMAP_BOUNDS:
		return TERM_DDP_T(XIW_DDP_T_BOUNDS);
	case XIW_RDMAP_STAG_NOT_ASSOC:
		return TERM_DDP_T(XIW_DDP_T_STAG_NOT_ASSOC);
	case XIW_RDMAP_TO_WRAP:
		return TERM_DDP_T(XIW_DDP_T_TO_WRAP);
	default:
		return cause;
	}
}

/* A tagged segment for an RDMA Write: find and check its target. */
static int xiw_rx_write(struct xiw_qp *qp, u32 len)
{
	struct xiw_tagged_hdr *h = xiw_rx_tagged(&qp->rx);
	u32 stag = be32_to_cpu(h->stag);
	u64 to = be64_to_cpu(h->to);
	struct xiw_mr *mr;
	int bad;

	mr = xiw_mr_lookup(qp->xdev, stag, to_xiw_pd(qp->ibqp.pd),
			   IB_ACCESS_REMOTE_WRITE, to, len, &bad);
	if (!mr)
		return xiw_rx_tagged_cause(bad);
	qp->rx.place_mr = mr;
	qp->rx.place_stag = stag;
	qp->rx.place_to = to;
	return 0;
}

/**
 * xiw_rx_answered() - the request the response being received answers
 * @qp: the QP; the caller holds its sq_lock
 *
 * Responses carry no request kind but their opcode and come in request
 * order: a response answers the oldest outstanding request, and only if
 * that request is of the kind the response answers. Anything else is the
 * peer's fault, an Unexpected OpCode (Documentation/conformance.md),
 * whatever the rest of the response says: a Read Response's STag, TO
 * and length are checked against a Read's sink only, an Atomic
 * Response's identifier against an Atomic only, and so on.
 *
 * Return: that request's send WQE, or NULL if none is outstanding or the
 * oldest is of another kind.
 */
struct xiw_wqe *xiw_rx_answered(struct xiw_qp *qp)
{
	struct xiw_wqe *wqe = xiw_qp_orq_oldest(qp);
	bool match;

	if (!wqe)
		return NULL;
	switch (qp->rx.op) {
	case XIW_OP_READ_RESP:
		match = wqe->opcode == IB_WR_RDMA_READ;
		break;
	case XIW_OP_ATOMIC_RESP:
		match = xiw_wqe_is_atomic(wqe->opcode);
		break;
	case XIW_OP_FLUSH_RESP:
		match = wqe->opcode == IB_WR_FLUSH;
		break;
	case XIW_OP_VERIFY_RESP:
		match = wqe->opcode == XIW_WR_VERIFY;
		break;
	case XIW_OP_ATOMIC_WRITE_RESP:
		match = wqe->opcode == IB_WR_ATOMIC_WRITE;
		break;
	default:
		match = false;
		break;
	}
	return match ? wqe : NULL;
}

/*
 * A Read Response segment: it must answer the oldest outstanding request,
 * a Read, and land inside that Read's sink SGE.
 */
static int xiw_rx_read_resp(struct xiw_qp *qp, u32 len)
{
	struct xiw_tagged_hdr *h = xiw_rx_tagged(&qp->rx);
	u32 stag = be32_to_cpu(h->stag);
	u64 to = be64_to_cpu(h->to);
	struct xiw_wqe *wqe;
	struct xiw_mr *mr;
	unsigned long flags;
	u32 sink, size;
	u64 base;
	int bad;

	/* Our Read RTR's answer: empty, to the null sink we named. */
	if (unlikely(READ_ONCE(qp->rtr_read_pending))) {
		if (stag || to || len || !xiw_rx_last(&qp->rx))
			return TERM_DDP_T(XIW_DDP_T_INV_STAG);
		qp->rx.rtr = true;
		return 0;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	wqe = xiw_rx_answered(qp);
	if (!wqe) {
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return TERM_RDMAP_OP(XIW_RDMAP_UNEXP_OPCODE);
	}
	/* A Read has at most one SGE (XIW_MAX_SGE_RD): the sink is its own. */
	base = wqe->num_sge ? wqe->sge[0].addr : 0;
	sink = wqe->num_sge ? wqe->sge[0].lkey : 0;
	size = wqe->num_sge ? wqe->sge[0].length : 0;
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	if (stag != sink)
		return TERM_DDP_T(XIW_DDP_T_INV_STAG);
	if (to < base || to + len > base + size || to + len < to)
		return TERM_DDP_T(XIW_DDP_T_BOUNDS);
	if (!len)
		return 0;
	mr = xiw_mr_lookup(qp->xdev, stag, to_xiw_pd(qp->ibqp.pd),
			   IB_ACCESS_LOCAL_WRITE, to, len, &bad);
	if (!mr)
		return xiw_rx_tagged_cause(bad);
	qp->rx.place_mr = mr;
	qp->rx.place_stag = stag;
	qp->rx.place_to = to;
	return 0;
}

static int xiw_rx_check_untagged(struct xiw_qp *qp, u8 qn)
{
	struct xiw_untagged_hdr *h = xiw_rx_untagged(&qp->rx);

	if (be32_to_cpu(h->qn) != qn)
		return TERM_DDP_U(XIW_DDP_U_INV_QN);
	if (be32_to_cpu(h->msn) != qp->rx.msn[qn])
		return TERM_DDP_U(XIW_DDP_U_MSN_RANGE);
	return 0;
}

/* A Send segment: open the receive buffer on the first, check MO. */
static int xiw_rx_send(struct xiw_qp *qp, u32 len)
{
	struct xiw_untagged_hdr *h = xiw_rx_untagged(&qp->rx);
	struct xiw_rx *rx = &qp->rx;
	u64 room = 0;
	int i, bad;

	bad = xiw_rx_check_untagged(qp, XIW_QN_SEND);
	if (bad)
		return bad;
	if (!rx->send_rqe_valid) {
		if (be32_to_cpu(h->mo) != 0)
			return TERM_DDP_U(XIW_DDP_U_INV_MO);
		if (xiw_qp_take_recv(qp))
			return TERM_DDP_U(XIW_DDP_U_NO_BUFFER);
		rx->send_len = 0;
		rx->send_op = rx->op;
	} else if (be32_to_cpu(h->mo) != rx->send_len) {
		return TERM_DDP_U(XIW_DDP_U_INV_MO);
	} else if (rx->op != rx->send_op) {
		/* A segment of the Send under way, with another opcode. */
		return TERM_RDMAP_OP(XIW_RDMAP_UNEXP_OPCODE);
	}
	for (i = 0; i < rx->send_rqe.num_sge; i++)
		room += rx->send_rqe.sge[i].length;
	if ((u64)rx->send_len + len > room)
		return TERM_DDP_U(XIW_DDP_U_TOO_LONG);
	return 0;
}

/*
 * A message that is always one whole segment on queue @qn, next in its MSN
 * order: Read and Atomic Requests, Atomic Responses, Immediate Data.
 */
int xiw_rx_check_whole(struct xiw_qp *qp, u8 qn)
{
	struct xiw_untagged_hdr *h = xiw_rx_untagged(&qp->rx);
	int bad = xiw_rx_check_untagged(qp, qn);

	if (bad)
		return bad;
	if (be32_to_cpu(h->mo) != 0)
		return TERM_DDP_U(XIW_DDP_U_INV_MO);
	if (!xiw_rx_last(&qp->rx))
		return TERM_RDMAP_OP(XIW_RDMAP_UNEXP_OPCODE);
	return 0;
}

/*
 * Immediate Data (RFC 7306 section 6): one whole segment on queue 0, in
 * MSN order with Sends, taking a receive of its own. Its 8 octets are not
 * placed in the receive's buffers: the completion reports them.
 */
static int xiw_rx_imm(struct xiw_qp *qp, u32 len)
{
	int bad = xiw_rx_check_whole(qp, XIW_QN_SEND);

	if (bad)
		return bad;
	/*
	 * Its MSN is that of a Send whose last segment has not come: a
	 * segment of that message, with another opcode (found by the hostile
	 * peer: it took a second receive and lost the first's completion).
	 */
	if (qp->rx.send_rqe_valid)
		return TERM_RDMAP_OP(XIW_RDMAP_UNEXP_OPCODE);
	if (xiw_qp_take_recv(qp))
		return TERM_DDP_U(XIW_DDP_U_NO_BUFFER);
	qp->rx.send_len = 0;
	return 0;
}

/*
 * Take the next IRQ slot for a request, within IRD. It is filled now and
 * becomes visible to the transmit engine only when the request has been
 * delivered (xiw_rx_request_done()): nothing is answered or carried out
 * before its FPDU passed every check, CRC included. The slot holds @mr's
 * reference from here on.
 */
int xiw_rx_irq_take(struct xiw_qp *qp, struct xiw_mr *mr,
		    struct xiw_irq_entry **slot)
{
	unsigned long flags;
	int bad = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->irq_head - qp->irq_tail >= qp->ird)
		bad = TERM_DDP_U(XIW_DDP_U_NO_BUFFER);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (bad) {
		if (mr)
			xiw_mr_put(mr);
		return bad;
	}
	*slot = xiw_qp_irq_at(qp, qp->irq_head);
	memset(*slot, 0, sizeof(**slot));
	(*slot)->mr = mr;
	qp->rx.irq_pending = true;
	return 0;
}

/* A request was delivered: the transmit engine may answer it. */
int xiw_rx_request_done(struct xiw_qp *qp)
{
	struct xiw_irq_entry *e = xiw_qp_irq_at(qp, qp->irq_head);
	unsigned long flags;

	/* A Read's length is what is left of it to answer. */
	trace_xiw_request(dev_name(&qp->xdev->ibdev.dev), qp->ibqp.qp_num, true,
			  xiw_op_table[qp->rx.op].name, e->src_stag, e->src_to,
			  qp->rx.op == XIW_OP_READ_REQ ? e->left : e->len);
	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->irq_head++;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	qp->rx.irq_pending = false;
	qp->rx.msn[XIW_QN_READ_REQ]++;
	xiw_tx_kick(qp);
	return 0;
}

/* An RDMA Read Request: check it against IRD and the source STag. */
static int xiw_rx_read_req(struct xiw_qp *qp, u32 len)
{
	struct xiw_untagged_hdr *h = xiw_rx_untagged(&qp->rx);
	struct xiw_read_req *rr = (struct xiw_read_req *)(h + 1);
	u32 size = be32_to_cpu(rr->size);
	u64 src_to = be64_to_cpu(rr->src_to);
	struct xiw_irq_entry *e;
	struct xiw_mr *mr = NULL;
	int bad;

	bad = xiw_rx_check_whole(qp, XIW_QN_READ_REQ);
	if (bad)
		return bad;
	if (size) {
		mr = xiw_mr_lookup(qp->xdev, be32_to_cpu(rr->src_stag),
				   to_xiw_pd(qp->ibqp.pd), IB_ACCESS_REMOTE_READ,
				   src_to, size, &bad);
		if (!mr)
			return bad;
	}
	bad = xiw_rx_irq_take(qp, mr, &e);
	if (bad)
		return bad;
	e->resp_op = XIW_OP_READ_RESP;
	e->src_stag = be32_to_cpu(rr->src_stag);
	e->src_to = src_to;
	e->sink_stag = be32_to_cpu(rr->sink_stag);
	e->sink_to = be64_to_cpu(rr->sink_to);
	e->left = size;
	return 0;
}

/*
 * An Atomic Request (RFC 7306): an operation xiw knows, on an aligned word
 * the stream may update atomically. It is carried out in its turn among
 * the requests of queue 1, by the transmit engine.
 */
static int xiw_rx_atomic_req(struct xiw_qp *qp, u32 len)
{
	struct xiw_untagged_hdr *h = xiw_rx_untagged(&qp->rx);
	struct xiw_irq_entry *e;
	struct xiw_atomic_op op;
	struct xiw_mr *mr;
	int bad, err;

	bad = xiw_rx_check_whole(qp, XIW_QN_READ_REQ);
	if (bad)
		return bad;
	err = xiw_atomic_req_parse((struct xiw_atomic_req *)(h + 1), &op);
	if (err == -EOPNOTSUPP)
		return TERM_RDMAP_OP(XIW_RDMAP_UNEXP_OPCODE);
	if (err)	/* not 64-bit aligned: RFC 7306 section 8.2 */
		return TERM_RDMAP_OP(XIW_RDMAP_CATASTROPHIC_STREAM);
	mr = xiw_mr_lookup(qp->xdev, op.stag, to_xiw_pd(qp->ibqp.pd),
			   IB_ACCESS_REMOTE_ATOMIC, op.to, sizeof(u64), &bad);
	if (!mr)
		return bad;
	bad = xiw_rx_irq_take(qp, mr, &e);
	if (bad)
		return bad;
	e->resp_op = XIW_OP_ATOMIC_RESP;
	e->op = op;
	e->src_stag = op.stag;
	e->src_to = op.to;
	return 0;
}

/*
 * An Atomic Response (RFC 7306 section 5.2.2) answers the oldest request
 * outstanding, which must be the Atomic Request it names. It is acted on
 * once delivered (xiw_rx_atomic_resp_done()).
 */
static int xiw_rx_atomic_resp(struct xiw_qp *qp, u32 len)
{
	struct xiw_untagged_hdr *h = xiw_rx_untagged(&qp->rx);
	struct xiw_atomic_resp *r = (struct xiw_atomic_resp *)(h + 1);
	struct xiw_wqe *wqe;
	unsigned long flags;
	u64 orig;
	int bad;

	bad = xiw_rx_check_whole(qp, XIW_QN_ATOMIC_RESP);
	if (bad)
		return bad;
	spin_lock_irqsave(&qp->sq_lock, flags);
	wqe = xiw_rx_answered(qp);
	if (!wqe)
		bad = TERM_RDMAP_OP(XIW_RDMAP_UNEXP_OPCODE);
	else if (xiw_atomic_resp_match(r, wqe->atomic.req_id, &orig))
		bad = TERM_RDMAP_OP(XIW_RDMAP_CATASTROPHIC_STREAM);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return bad;
}

/* xiw_mr_place() callback: the octets a response returns, in order. */
static int xiw_rx_put_bytes(void *ctx, u8 *p, u32 len)
{
	const u8 **src = ctx;

	memcpy(p, *src, len);
	*src += len;
	return 0;
}

/**
 * xiw_rx_resp_land() - put what a delivered response returns into the
 *	first SGE of the request it answers (xiw_rx_answered())
 * @qp: the QP
 * @src: the octets
 * @len: how many
 * @wqe: set to that request; NULL if a flush took it since the response's
 *	header was checked (nothing lands then)
 *
 * The SGE is the consumer's, checked when the request went out; its key
 * may have been invalidated since.
 *
 * Return: IB_WC_SUCCESS, IB_WC_LOC_LEN_ERR for an SGE shorter than @len,
 * or IB_WC_LOC_PROT_ERR if the octets could not land.
 */
u8 xiw_rx_resp_land(struct xiw_qp *qp, const u8 *src, u32 len,
		    struct xiw_wqe **wqe)
{
	unsigned long flags;
	struct ib_sge sge;
	struct xiw_mr *mr;
	u8 status;
	int bad;

	spin_lock_irqsave(&qp->sq_lock, flags);
	*wqe = xiw_rx_answered(qp);
	if (*wqe)
		sge = (*wqe)->sge[0];
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (!*wqe)
		return IB_WC_SUCCESS;
	if (len > sge.length)
		return IB_WC_LOC_LEN_ERR;
	mr = xiw_mr_lookup(qp->xdev, sge.lkey, to_xiw_pd(qp->ibqp.pd),
			   IB_ACCESS_LOCAL_WRITE, sge.addr, len, &bad);
	if (!mr)
		return IB_WC_LOC_PROT_ERR;
	status = xiw_mr_place(mr, sge.lkey, sge.addr, len, xiw_rx_put_bytes,
			      &src) ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	xiw_mr_put(mr);
	return status;
}

/**
 * xiw_rx_resp_retire() - a response of queue 3 was delivered: complete the
 *	request it answered
 * @qp: the QP
 * @wqe: that request, the oldest outstanding one when the response was
 *	delivered; it completes only if it still is (a flush may have taken
 *	it). A Verify completes with the length of the hash it got.
 * @status: IB_WC_* it completes with; anything but success is a local
 *	failure, which ends the stream
 *
 * Return: 0, or the Terminate cause of the local failure.
 */
int xiw_rx_resp_retire(struct xiw_qp *qp, struct xiw_wqe *wqe, u8 status)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (wqe && xiw_qp_orq_oldest(qp) == wqe) {
		wqe->status = status;
		if (wqe->opcode == XIW_WR_VERIFY)
			wqe->verify.hash_len = qp->rx.hash_len;
		wqe->done = true;
		qp->orq_tail++;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	qp->rx.msn[XIW_QN_ATOMIC_RESP]++;
	xiw_qp_sq_complete(qp);
	xiw_tx_kick(qp);	/* an ORD slot is free */
	return status ? XIW_TERM(XIW_TERM_LAYER_RDMAP,
				 XIW_RDMAP_ETYPE_CATASTROPHIC, 0) : 0;
}

/*
 * Land the original value in the Atomic's SGE, in host order (as the
 * other software RDMA devices do), and complete it.
 */
static int xiw_rx_atomic_resp_done(struct xiw_qp *qp)
{
	struct xiw_untagged_hdr *h = xiw_rx_untagged(&qp->rx);
	struct xiw_atomic_resp *r = (struct xiw_atomic_resp *)(h + 1);
	u64 orig = be64_to_cpu(r->orig);
	struct xiw_wqe *wqe;
	u8 status;

	status = xiw_rx_resp_land(qp, (const u8 *)&orig, sizeof(orig), &wqe);
	if (!wqe)	/* flushed since its header was checked */
		return 0;
	return xiw_rx_resp_retire(qp, wqe, status);
}

/*
 * Peer-to-peer model, responder: the stream's first message must be an
 * RTR of a kind the Reply offered — a zero-length Send, RDMA Write or RDMA
 * Read — or the negotiation failed (RFC 6581 section 8, "no matching RTR
 * option"). A Send RTR consumes no receive; a Write RTR's STag is not
 * looked at; a Read RTR is answered like any zero-length Read.
 */
static int xiw_rx_rtr(struct xiw_qp *qp, u32 len)
{
	struct xiw_untagged_hdr *h = xiw_rx_untagged(&qp->rx);
	u8 kinds = READ_ONCE(qp->rtr_expect);
	int bad = TERM_LLP(XIW_MPA_ERR_RTR);

	if (len || !xiw_rx_last(&qp->rx))
		return bad;
	switch (qp->rx.op) {
	case XIW_OP_SEND:
		if (!(kinds & XIW_RTR_SEND))
			return bad;
		bad = xiw_rx_check_untagged(qp, XIW_QN_SEND);
		if (!bad && h->mo)
			bad = TERM_DDP_U(XIW_DDP_U_INV_MO);
		break;
	case XIW_OP_WRITE:
		if (!(kinds & XIW_RTR_WRITE))
			return bad;
		bad = 0;
		break;
	case XIW_OP_READ_REQ:
		if (!(kinds & XIW_RTR_READ) ||
		    ((struct xiw_read_req *)(h + 1))->size)
			return bad;
		bad = xiw_rx_read_req(qp, 0);
		break;
	default:
		return bad;
	}
	if (!bad)
		qp->rx.rtr = true;
	return bad;
}

/* The RTR is in: the send queue may go. */
static void xiw_rx_rtr_done(struct xiw_qp *qp)
{
	struct xiw_rx *rx = &qp->rx;

	rx->rtr = false;
	if (rx->op == XIW_OP_READ_RESP) {
		WRITE_ONCE(qp->rtr_read_pending, false);
	} else {
		if (rx->op == XIW_OP_SEND)
			rx->msn[XIW_QN_SEND]++;
		if (rx->op == XIW_OP_READ_REQ)
			xiw_rx_request_done(qp);
		WRITE_ONCE(qp->rtr_expect, 0);
	}
	xiw_tx_kick(qp);
}

/* The full header is in: validate it and get ready for the payload. */
static int xiw_rx_header(struct xiw_qp *qp)
{
	struct xiw_rx *rx = &qp->rx;
	const struct xiw_op_info *info = &xiw_op_table[rx->op];
	u32 len = rx->ulpdu_len - info->hdr_len;

	rx->payload_left = len;
	/*
	 * Before the RTR nothing else is taken but a Terminate: an initiator
	 * with no RTR kind it can send says so in one (RFC 6581 section 8),
	 * which is delivered as any Terminate and never answered with one.
	 */
	if (unlikely(READ_ONCE(qp->rtr_expect)) && rx->op != XIW_OP_TERMINATE)
		return xiw_rx_rtr(qp, len);
	/*
	 * A message of fixed size: longer is DDP's "message too long",
	 * shorter a malformed RDMAP message (Documentation/rfc7306.md).
	 */
	if (info->fixed_payload >= 0 && len > info->fixed_payload)
		return TERM_DDP_U(XIW_DDP_U_TOO_LONG);
	if (info->fixed_payload >= 0 && len < info->fixed_payload)
		return TERM_RDMAP_OP(XIW_RDMAP_CATASTROPHIC_STREAM);
	if (!xiw_rx_handlers[rx->op].header)
		return TERM_RDMAP_OP(XIW_RDMAP_UNEXP_OPCODE);
	return xiw_rx_handlers[rx->op].header(qp, len);
}

int xiw_rx_copy_fn(void *ctx, u8 *dst, u32 len)
{
	struct xiw_rx_copy *c = ctx;

	if (skb_copy_bits(c->skb, c->off, dst, len))
		return TERM_LLP(XIW_MPA_ERR_CATASTROPHIC);
	if (c->qp->crc)
		c->qp->rx.crc = xiw_mpa_crc_update(c->qp->rx.crc, dst, len);
	c->off += len;
	return 0;
}

/* Place @len octets at tagged offset @to of @mr, named by @stag. */
static int xiw_rx_copy_to(struct xiw_rx_copy *c, struct xiw_mr *mr, u32 stag,
			  u64 to, u32 len)
{
	int err = xiw_mr_place(mr, stag, to, len, xiw_rx_copy_fn, c);

	/* Invalidated while the segment arrived: nothing more lands. */
	if (err == -EACCES)
		return TERM_DDP_T(XIW_DDP_T_INV_STAG);
	/* The global rkey's range is all memory, but only mapped memory. */
	if (err == -EFAULT)
		return TERM_DDP_T(XIW_DDP_T_BOUNDS);
	return err;
}

/* A Send's payload: into the receive buffer's SGEs from offset send_len. */
static int xiw_rx_place_send(struct xiw_qp *qp, struct xiw_rx_copy *c,
			     u32 len)
{
	struct xiw_rx *rx = &qp->rx;
	u32 mo = rx->send_len;
	int i, err;

	for (i = 0; i < rx->send_rqe.num_sge && len; i++) {
		struct ib_sge *sge = &rx->send_rqe.sge[i];
		struct xiw_mr *mr;
		u32 take;
		int bad;

		if (mo >= sge->length) {
			mo -= sge->length;
			continue;
		}
		take = min(sge->length - mo, len);
		mr = xiw_mr_lookup(qp->xdev, sge->lkey, to_xiw_pd(qp->ibqp.pd),
				   IB_ACCESS_LOCAL_WRITE, sge->addr + mo, take,
				   &bad);
		if (!mr)	/* the consumer's buffer: a local error */
			return XIW_TERM(XIW_TERM_LAYER_RDMAP,
					XIW_RDMAP_ETYPE_CATASTROPHIC, 0);
		err = xiw_mr_place(mr, sge->lkey, sge->addr + mo, take,
				   xiw_rx_copy_fn, c);
		xiw_mr_put(mr);
		if (err)
			return err == -EACCES || err == -EFAULT ?
			       XIW_TERM(XIW_TERM_LAYER_RDMAP,
					XIW_RDMAP_ETYPE_CATASTROPHIC, 0) : err;
		len -= take;
		rx->send_len += take;
		mo = 0;
	}
	return 0;
}

/*
 * A Terminate's payload: the terminated segment's headers are kept (what
 * fits after the control field, already in the header), the rest is read
 * for the CRC only.
 */
static int xiw_rx_place_terminate(struct xiw_rx *rx, struct xiw_rx_copy *c,
				  u32 len)
{
	const u32 room = sizeof(rx->term) - sizeof(struct xiw_terminate_hdr);
	u8 tmp[32];
	int err;

	while (len) {
		u32 keep = room - rx->term_len;
		u8 *dst = rx->term + sizeof(struct xiw_terminate_hdr) +
			  rx->term_len;
		u32 take = min(len, keep);

		if (!keep) {
			dst = tmp;
			take = min_t(u32, len, sizeof(tmp));
		}
		err = xiw_rx_copy_fn(c, dst, take);
		if (err)
			return err;
		if (keep)
			rx->term_len += take;
		len -= take;
	}
	return 0;
}

/* A tagged segment's payload: at its STag and offset. */
static int xiw_rx_place_tagged(struct xiw_qp *qp, struct xiw_rx_copy *c,
			       u32 len)
{
	struct xiw_rx *rx = &qp->rx;
	int err = xiw_rx_copy_to(c, rx->place_mr, rx->place_stag,
				 rx->place_to, len);

	if (!err)
		rx->place_to += len;
	return err;
}

/* Immediate Data: whole in one segment (xiw_rx_header() checked it). */
static int xiw_rx_place_imm(struct xiw_qp *qp, struct xiw_rx_copy *c,
			    u32 len)
{
	struct xiw_rx *rx = &qp->rx;
	int err = xiw_rx_copy_fn(c, rx->imm + rx->send_len, len);

	if (!err)
		rx->send_len += len;
	return err;
}

static int xiw_rx_place_term(struct xiw_qp *qp, struct xiw_rx_copy *c,
			     u32 len)
{
	return xiw_rx_place_terminate(&qp->rx, c, len);
}

/* Copy @len payload octets from the skb to where the segment goes. */
static int xiw_rx_place(struct xiw_qp *qp, struct sk_buff *skb, u32 off,
			u32 len)
{
	const struct xiw_rx_handler *h = &xiw_rx_handlers[qp->rx.op];
	struct xiw_rx_copy c = { .qp = qp, .skb = skb, .off = off };

	/* Every opcode with a payload has a place (xiw_rx_header()). */
	return h->place ? h->place(qp, &c, len) :
			  TERM_RDMAP_OP(XIW_RDMAP_CATASTROPHIC_STREAM);
}

static bool xiw_rx_op_invalidates(u8 op)
{
	return op == XIW_OP_SEND_INV || op == XIW_OP_SEND_SE_INV;
}

/*
 * A Send or Immediate Data message is delivered: invalidate the STag a
 * Send with Invalidate names (a failure is the peer's: Terminate), then
 * complete the receive. Immediate Data after an RDMA Write is the second
 * half of an RDMA Write with Immediate (RFC 7306 section 6); alone, it is
 * a receive with an immediate value and no data. Either way the verbs'
 * 32-bit value is the low half of the 64-bit Immediate Data.
 */
static int xiw_rx_recv_done(struct xiw_qp *qp)
{
	struct xiw_rx *rx = &qp->rx;
	bool after_write = rx->after_write;
	u8 op = rx->op;
	bool imm = op == XIW_OP_IMM || op == XIW_OP_IMM_SE;
	struct ib_wc wc = {
		.wr_id = rx->send_rqe.wr_id,
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.byte_len = imm ? 0 : rx->send_len,
		.qp = &qp->ibqp,
	};

	if (imm) {
		if (after_write)
			wc.opcode = IB_WC_RECV_RDMA_WITH_IMM;
		wc.wc_flags = IB_WC_WITH_IMM;
		memcpy(&wc.ex.imm_data, rx->imm + XIW_IMM_LEN - sizeof(__be32),
		       sizeof(__be32));
	}
	if (xiw_rx_op_invalidates(op)) {
		u32 stag = be32_to_cpu(xiw_rx_untagged(rx)->inval_stag);
		int bad = xiw_mr_invalidate(qp->xdev, stag,
					    to_xiw_pd(qp->ibqp.pd));

		if (bad)
			return bad;
		wc.wc_flags = IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = stag;
	}
	rx->msn[XIW_QN_SEND]++;
	if (xchg(&rx->send_rqe_valid, 0))
		xiw_cq_add(qp->rcq, &wc,
			   op == XIW_OP_SEND_SE || op == XIW_OP_SEND_SE_INV ||
			   op == XIW_OP_IMM_SE);
	return 0;
}

/*
 * A Read Response completed the oldest outstanding request, a Read (none
 * if a flush took it since the header was checked); a Read with
 * Invalidate now invalidates its sink STag.
 */
static int xiw_rx_read_done(struct xiw_qp *qp)
{
	struct xiw_wqe *wqe;
	unsigned long flags;
	int bad = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	wqe = xiw_rx_answered(qp);
	if (wqe) {
		if ((wqe->flags & XIW_WQE_INVALIDATE) &&
		    xiw_mr_invalidate(qp->xdev, wqe->inv_stag,
				      to_xiw_pd(qp->ibqp.pd))) {
			/* The consumer's STag: a local error ends the stream. */
			wqe->status = IB_WC_MW_BIND_ERR;
			bad = TERM_RDMAP_OP(XIW_RDMAP_CATASTROPHIC_STREAM);
		}
		wqe->done = true;
		qp->orq_tail++;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	xiw_qp_sq_complete(qp);
	xiw_tx_kick(qp);	/* an ORD slot is free */
	return bad;
}

/* The local completion of a request the peer refused, by its kind. */
static enum ib_wc_status xiw_rx_refused_status(int cause)
{
	switch (XIW_TERM_LAYER(cause)) {
	case XIW_TERM_LAYER_RDMAP:
		if (XIW_TERM_ETYPE(cause) == XIW_RDMAP_ETYPE_PROT)
			return IB_WC_REM_ACCESS_ERR;
		if (XIW_TERM_ETYPE(cause) == XIW_RDMAP_ETYPE_OP)
			return IB_WC_REM_INV_REQ_ERR;
		break;
	case XIW_TERM_LAYER_DDP:
		if (XIW_TERM_ETYPE(cause) == XIW_DDP_ETYPE_TAGGED)
			return IB_WC_REM_ACCESS_ERR;
		if (XIW_TERM_ETYPE(cause) == XIW_DDP_ETYPE_UNTAGGED)
			return IB_WC_REM_INV_REQ_ERR;
		break;
	}
	return IB_WC_REM_OP_ERR;
}

/*
 * A Terminate whose included headers are one of our requests of queue 1
 * (Read, Atomic, Atomic Write, Flush, Verify): that request completes with
 * the error the peer gave rather than being flushed. The Read Request
 * header, when included, picks the Read among those outstanding (stock
 * siw's MSN there is not one); else the DDP header's MSN on queue 1 does.
 * Any other Terminate names no work request of ours: Sends and Writes
 * complete when TCP has them, and the rest flushes.
 */
static bool xiw_rx_names_request(const struct xiw_wqe *w,
				 const struct xiw_untagged_hdr *u,
				 const struct xiw_read_req *rr)
{
	if (!rr)
		return w->msn == be32_to_cpu(u->msn);
	return w->opcode == IB_WR_RDMA_READ &&
	       be32_to_cpu(rr->src_stag) == w->rkey &&
	       be64_to_cpu(rr->src_to) == w->remote_addr &&
	       be32_to_cpu(rr->size) == w->bytes;
}

static void xiw_rx_fail_refused_request(struct xiw_qp *qp, int cause,
					const struct xiw_term_src *src)
{
	const struct xiw_untagged_hdr *u = src->ddp_hdr;
	const struct xiw_read_req *rr = src->rdma_hdr;
	struct xiw_wqe *wqe = NULL;
	unsigned long flags;
	u8 op;
	u32 i;

	if (!u || src->ddp_len != sizeof(*u) ||
	    be32_to_cpu(u->qn) != XIW_QN_READ_REQ)
		return;
	op = u->ctrl.rdmap & XIW_RDMAP_OPCODE_MASK;
	if (xiw_op_table[op].qn != XIW_QN_READ_REQ || xiw_op_table[op].tagged)
		return;
	spin_lock_irqsave(&qp->sq_lock, flags);
	for (i = qp->orq_tail; i != qp->orq_head; i++) {
		struct xiw_wqe *w = xiw_qp_orq_wqe(qp, i);

		if (xiw_rx_names_request(w, u, rr)) {
			wqe = w;
			break;
		}
	}
	if (wqe && !wqe->done) {
		wqe->status = xiw_rx_refused_status(cause);
		wqe->done = true;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
}

static int xiw_rx_got_terminate(struct xiw_qp *qp)
{
	struct xiw_rx *rx = &qp->rx;
	struct xiw_untagged_hdr *h = xiw_rx_untagged(rx);
	struct xiw_terminate_hdr *t = (struct xiw_terminate_hdr *)(h + 1);
	struct xiw_term_src src;
	int cause;
	struct xiw_cep *cep;
	unsigned long flags;

	xiw_stat_add(qp->xdev->stats, XIW_STAT_TERM_RECEIVED, 1);
	memcpy(rx->term, &t->ctrl, sizeof(t->ctrl));
	xiw_term_info_parse(rx->term, sizeof(t->ctrl) + rx->term_len,
			    qp->rtr_initiator, &cause, &src);
	xiw_rx_fail_refused_request(qp, cause, &src);
	xiw_log(qp->xdev, XIW_DEBUG_FAULTS,
		"qp %u: peer terminated: layer %u type %u code 0x%02x\n",
		qp->ibqp.qp_num, XIW_TERM_LAYER(cause), XIW_TERM_ETYPE(cause),
		XIW_TERM_CODE(cause));
	xiw_rx_reset(qp);
	spin_lock_irqsave(&qp->lock, flags);
	qp->state = XIW_QPS_ERROR;
	spin_unlock_irqrestore(&qp->lock, flags);
	xiw_qp_event(qp, IB_EVENT_QP_FATAL);
	xiw_qp_report_terminate(qp, cause, false);
	cep = xiw_qp_cep_get(qp);
	if (cep) {
		xiw_cep_abort(cep);
		xiw_cep_put(cep);
	}
	return 0;
}

/* A Terminate's header: its own queue, in order. */
static int xiw_rx_terminate(struct xiw_qp *qp, u32 len)
{
	return xiw_rx_check_untagged(qp, XIW_QN_TERMINATE);
}

/*
 * What the receive engine does with each opcode it serves; an opcode
 * without @header is answered with "unexpected opcode".
 */
const struct xiw_rx_handler xiw_rx_handlers[XIW_OP_COUNT] = {
	[XIW_OP_WRITE] = {
		.header = xiw_rx_write, .place = xiw_rx_place_tagged,
	},
	[XIW_OP_READ_REQ] = {
		.header = xiw_rx_read_req, .done = xiw_rx_request_done,
	},
	[XIW_OP_READ_RESP] = {
		.header = xiw_rx_read_resp, .place = xiw_rx_place_tagged,
		.done = xiw_rx_read_done, .interleaves = true,
	},
	[XIW_OP_SEND] = {
		.header = xiw_rx_send, .place = xiw_rx_place_send,
		.done = xiw_rx_recv_done,
	},
	[XIW_OP_SEND_INV] = {
		.header = xiw_rx_send, .place = xiw_rx_place_send,
		.done = xiw_rx_recv_done,
	},
	[XIW_OP_SEND_SE] = {
		.header = xiw_rx_send, .place = xiw_rx_place_send,
		.done = xiw_rx_recv_done,
	},
	[XIW_OP_SEND_SE_INV] = {
		.header = xiw_rx_send, .place = xiw_rx_place_send,
		.done = xiw_rx_recv_done,
	},
	[XIW_OP_TERMINATE] = {
		.header = xiw_rx_terminate, .place = xiw_rx_place_term,
		.done = xiw_rx_got_terminate, .interleaves = true,
	},
	[XIW_OP_IMM] = {
		.header = xiw_rx_imm, .place = xiw_rx_place_imm,
		.done = xiw_rx_recv_done,
	},
	[XIW_OP_IMM_SE] = {
		.header = xiw_rx_imm, .place = xiw_rx_place_imm,
		.done = xiw_rx_recv_done,
	},
	[XIW_OP_ATOMIC_REQ] = {
		.header = xiw_rx_atomic_req, .done = xiw_rx_request_done,
	},
	[XIW_OP_ATOMIC_RESP] = {
		.header = xiw_rx_atomic_resp, .done = xiw_rx_atomic_resp_done,
		.interleaves = true,
	},
	[XIW_OP_FLUSH_REQ] = {
		.header = xiw_rx_flush_req, .done = xiw_rx_request_done,
	},
	[XIW_OP_FLUSH_RESP] = {
		.header = xiw_rx_bare_resp, .done = xiw_rx_bare_resp_done,
		.interleaves = true,
	},
	[XIW_OP_VERIFY_REQ] = {
		.header = xiw_rx_verify_req, .place = xiw_rx_place_expect,
		.done = xiw_rx_request_done,
	},
	[XIW_OP_VERIFY_RESP] = {
		.header = xiw_rx_verify_resp, .place = xiw_rx_place_hash,
		.done = xiw_rx_verify_resp_done, .interleaves = true,
	},
	[XIW_OP_ATOMIC_WRITE_REQ] = {
		.header = xiw_rx_atomic_write_req,
		.done = xiw_rx_request_done,
	},
	[XIW_OP_ATOMIC_WRITE_RESP] = {
		.header = xiw_rx_bare_resp, .done = xiw_rx_bare_resp_done,
		.interleaves = true,
	},
};

/* Pad and CRC are in: check the CRC and finish the segment. */
static int xiw_rx_fpdu_done(struct xiw_qp *qp)
{
	struct xiw_rx *rx = &qp->rx;
	const struct xiw_rx_handler *h = &xiw_rx_handlers[rx->op];
	u32 pad = xiw_mpa_pad(rx->ulpdu_len);
	__le32 got;
	int bad;

	if (qp->crc) {
		memcpy(&got, rx->trailer + pad, sizeof(got));
		if (got != xiw_mpa_crc_final(rx->crc)) {
			xiw_stat_add(qp->xdev->stats, XIW_STAT_CRC_ERRORS, 1);
			return TERM_LLP(XIW_MPA_ERR_CRC);
		}
	}
	xiw_stat_add(qp->xdev->stats, XIW_STAT_RX_FPDUS, 1);
	xiw_stat_add(qp->xdev->stats, XIW_STAT_RX_BYTES, rx->ulpdu_len);
	if (rx->place_mr) {
		xiw_mr_put(rx->place_mr);
		rx->place_mr = NULL;
	}
	if (!xiw_rx_last(rx))
		return 0;
	/* An RTR too, as its sender counts it. */
	xiw_stat_add(qp->xdev->stats, XIW_STAT_RX_MSGS + rx->op, 1);
	if (unlikely(rx->rtr)) {
		xiw_rx_rtr_done(qp);
		return 0;
	}
	/* Their senders may wait for the acknowledgment (see below). */
	if (rx->op != XIW_OP_READ_RESP && rx->op != XIW_OP_TERMINATE)
		rx->msg_end = true;
	bad = h->done ? h->done(qp) : 0;
	/* Responses interleave with the peer's own messages. */
	if (!h->interleaves)
		rx->after_write = rx->op == XIW_OP_WRITE;
	return bad;
}

static void xiw_rx_next_fpdu(struct xiw_rx *rx)
{
	rx->state = XIW_RX_HDR;
	rx->hdr_got = 0;
	rx->hdr_need = XIW_RX_PEEK;
	rx->fpdu_off = 0;
	rx->crc = xiw_mpa_crc_init();
	rx->term_len = 0;
}

/* @n octets of the current FPDU were consumed. */
static void xiw_rx_count(struct xiw_rx *rx, u32 n)
{
	if (rx->markers) {
		xiw_mpa_unmark_advance(&rx->unmark, n);
		rx->fpdu_off += n;
	}
}

/*
 * Marker octets at the head of @len: collect them; a complete marker must
 * point at the start of its FPDU (a marker between FPDUs leads the next)
 * and is CRC'd with it. Return: octets consumed, or a Terminate cause as
 * a negative number.
 */
static int xiw_rx_marker(struct xiw_qp *qp, struct sk_buff *skb, u32 off,
			 u32 len)
{
	struct xiw_rx *rx = &qp->rx;
	struct xiw_mpa_unmark *u = &rx->unmark;
	u8 tmp[XIW_MPA_MARKER_SIZE];
	u32 n = min_t(u32, len, XIW_MPA_MARKER_SIZE - u->got);

	if (skb_copy_bits(skb, off, tmp, n))
		return -TERM_LLP(XIW_MPA_ERR_CATASTROPHIC);
	n = xiw_mpa_unmark_take(u, tmp, n);
	if (u->got < XIW_MPA_MARKER_SIZE)
		return n;
	u->got = 0;
	if (xiw_mpa_marker_check(u->marker, rx->fpdu_off))
		return -TERM_LLP(XIW_MPA_ERR_MARKER);
	xiw_stat_add(qp->xdev->stats, XIW_STAT_MARKERS_STRIPPED, 1);
	if (qp->crc)
		rx->crc = xiw_mpa_crc_update(rx->crc, u->marker,
					     XIW_MPA_MARKER_SIZE);
	rx->fpdu_off += XIW_MPA_MARKER_SIZE;
	return n;
}

/*
 * Consume @len octets of @skb from @off. Return: octets consumed (all of
 * them, unless the QP stopped).
 */
static int xiw_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			unsigned int off, size_t len)
{
	struct xiw_qp *qp = desc->arg.data;
	struct xiw_rx *rx = &qp->rx;
	size_t done = 0;
	int bad = 0;

	while (done < len) {
		u32 room = min_t(size_t, len - done, U32_MAX);
		u32 take;

		if (rx->state == XIW_RX_DEAD)
			return len;	/* drain and drop */
		if (rx->markers) {
			room = xiw_mpa_unmark_data(&rx->unmark, room);
			if (!room) {
				int n = xiw_rx_marker(qp, skb, off + done,
						      len - done);

				if (n < 0) {
					xiw_rx_fail(qp, -n);
					return len;
				}
				done += n;
				continue;
			}
		}
		switch (rx->state) {
		case XIW_RX_HDR:
			take = min_t(u32, rx->hdr_need - rx->hdr_got, room);
			if (skb_copy_bits(skb, off + done, rx->hdr + rx->hdr_got,
					  take)) {
				bad = TERM_LLP(XIW_MPA_ERR_CATASTROPHIC);
				break;
			}
			if (qp->crc)
				rx->crc = xiw_mpa_crc_update(rx->crc,
							     rx->hdr + rx->hdr_got,
							     take);
			rx->hdr_got += take;
			done += take;
			xiw_rx_count(rx, take);
			if (rx->hdr_got < rx->hdr_need)
				break;
			if (rx->hdr_need == XIW_RX_PEEK) {
				bad = xiw_check_ctrl(xiw_rx_ctrl(rx));
				if (bad)
					break;
				rx->op = xiw_rx_ctrl(rx)->rdmap &
					 XIW_RDMAP_OPCODE_MASK;
				rx->ulpdu_len = get_unaligned_be16(rx->hdr);
				if (rx->ulpdu_len < xiw_op_table[rx->op].hdr_len) {
					bad = TERM_LLP(XIW_MPA_ERR_REQ);
					break;
				}
				rx->hdr_need = XIW_MPA_LEN_SIZE +
					       xiw_op_table[rx->op].hdr_len;
				if (rx->hdr_got < rx->hdr_need)
					break;
			}
			bad = xiw_rx_header(qp);
			if (bad)
				break;
			rx->state = rx->payload_left ? XIW_RX_PAYLOAD :
						       XIW_RX_TRAILER;
			rx->trailer_left = xiw_mpa_pad(rx->ulpdu_len) +
					   XIW_MPA_CRC_SIZE;
			break;
		case XIW_RX_PAYLOAD:
			take = min(rx->payload_left, room);
			bad = xiw_rx_place(qp, skb, off + done, take);
			if (bad)
				break;
			rx->payload_left -= take;
			done += take;
			xiw_rx_count(rx, take);
			if (!rx->payload_left)
				rx->state = XIW_RX_TRAILER;
			break;
		case XIW_RX_TRAILER: {
			u32 pad = xiw_mpa_pad(rx->ulpdu_len);
			u32 have = pad + XIW_MPA_CRC_SIZE - rx->trailer_left;

			take = min_t(u32, rx->trailer_left, room);
			if (skb_copy_bits(skb, off + done, rx->trailer + have,
					  take)) {
				bad = TERM_LLP(XIW_MPA_ERR_CATASTROPHIC);
				break;
			}
			/* The pad is CRC'd as it comes: a marker may follow. */
			if (qp->crc && have < pad)
				rx->crc = xiw_mpa_crc_update(rx->crc,
							     rx->trailer + have,
							     min(take, pad - have));
			rx->trailer_left -= take;
			done += take;
			xiw_rx_count(rx, take);
			if (rx->trailer_left)
				break;
			bad = xiw_rx_fpdu_done(qp);
			if (!bad && rx->state != XIW_RX_DEAD)
				xiw_rx_next_fpdu(rx);
			break;
		}
		}
		if (bad) {
			xiw_rx_fail(qp, bad);
			return len;
		}
	}
	return done;
}

/*
 * A message ended: acknowledge it now. Its sender may keep the message's
 * buffers until TCP acknowledges them (xiw does, when it spliced them),
 * and a delayed ACK (up to the delayed-ACK timeout, longer in interactive
 * mode) would stall it for nothing. TCP acknowledges more than one
 * segment by itself when tcp_read_sock() frees them; this covers the
 * last, odd one.
 */
static void xiw_rx_ack_now(struct sock *sk)
{
	if (((1 << sk->sk_state) & (TCPF_ESTABLISHED | TCPF_CLOSE_WAIT)) &&
	    inet_csk_ack_scheduled(sk))
		__tcp_send_ack(sk, tcp_sk(sk)->rcv_nxt);
}

/**
 * xiw_rx_data_ready() - the socket has data for a connected QP
 * @qp: the QP
 *
 * Called with the socket locked (softirq receive, or the owner's
 * release_sock()), under the socket's callback lock.
 */
void xiw_rx_data_ready(struct xiw_qp *qp)
{
	read_descriptor_t desc = { .arg.data = qp, .count = 1 };
	enum xiw_qp_state state = READ_ONCE(qp->state);
	struct socket *sock = READ_ONCE(qp->sock);
	struct sock *sk;

	if (!sock || (state != XIW_QPS_RTS && state != XIW_QPS_CLOSING &&
		      state != XIW_QPS_TERMINATE))
		return;
	sk = sock->sk;
	if (qp->rx.hdr_need == 0)
		xiw_rx_next_fpdu(&qp->rx);
	qp->rx.msg_end = false;
	tcp_read_sock(sk, &desc, xiw_rx_actor);
	if (qp->rx.msg_end)
		xiw_rx_ack_now(sk);
	/* ACKs for what we sent ride on data too. */
	xiw_tx_acked(qp, tcp_sk(sk)->snd_una);
}
