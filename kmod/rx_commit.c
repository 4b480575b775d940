// SPDX-License-Identifier: GPL-2.0
/*
 * Receive side of draft-talpey-rdma-commit-01's messages: RDMA Flush,
 * RDMA Verify and Atomic Write Requests, checked as they arrive (nothing
 * is queued that the responder would refuse), and their responses, which
 * complete the oldest outstanding request of their kind. The requests are
 * carried out in their turn by the transmit engine (tx.c).
 */
#include "hash.h"
#include "persist.h"
#include "rx.h"

/*
 * An Atomic Write Request (commit draft section 3.1.3): eight octets for
 * an aligned word of a region the peer may write; anything else is
 * refused before memory is touched. The word is written in its turn among
 * the requests of queue 1, by the transmit engine: after every Flush and
 * Verify that came before it (section 4).
 */
int xiw_rx_atomic_write_req(struct xiw_qp *qp, u32 len)
{
	struct xiw_untagged_hdr *h = xiw_rx_untagged(&qp->rx);
	struct xiw_commit_req req;
	struct xiw_irq_entry *e;
	struct xiw_mr *mr;
	int bad;

	bad = xiw_rx_check_whole(qp, XIW_QN_READ_REQ);
	if (bad)
		return bad;
	if (xiw_atomic_write_req_parse((struct xiw_atomic_write_req *)(h + 1),
				       &req))
		return TERM_RDMAP_OP(XIW_RDMAP_CATASTROPHIC_STREAM);
	mr = xiw_mr_lookup(qp->xdev, req.stag, to_xiw_pd(qp->ibqp.pd),
			   IB_ACCESS_REMOTE_WRITE, req.to, req.len, &bad);
	if (!mr)
		return bad;
	bad = xiw_rx_irq_take(qp, mr, &e);
	if (bad)
		return bad;
	e->resp_op = XIW_OP_ATOMIC_WRITE_RESP;
	xiw_atomic_write_op(&e->op, req.stag, req.to, req.data);
	e->src_stag = req.stag;
	e->src_to = req.to;
	return 0;
}

/*
 * An RDMA Flush Request (commit draft section 3.1.1): a disposition for a
 * range, or (XIW_FLUSH_REGION) for the whole region its STag names, which
 * must grant the rights the disposition needs. Here only what costs the
 * same for any range is checked: the STag, its rights and bounds, and the
 * IRD. Whether the memory can reach the disposition (persist.c walks the
 * range page by page, which may sleep) is found in its turn among the
 * requests of queue 1, by the transmit engine, which also carries it out
 * then: every Write before it was placed when it arrived (section 4). Its
 * DDP header is kept for the Terminate of a refusal found then.
 */
int xiw_rx_flush_req(struct xiw_qp *qp, u32 len)
{
	struct xiw_untagged_hdr *h = xiw_rx_untagged(&qp->rx);
	struct xiw_pd *pd = to_xiw_pd(qp->ibqp.pd);
	struct xiw_commit_req req;
	struct xiw_irq_entry *e;
	struct xiw_mr *mr;
	int access = 0, bad;
	u64 to, span;

	bad = xiw_rx_check_whole(qp, XIW_QN_READ_REQ);
	if (bad)
		return bad;
	if (xiw_flush_req_parse((struct xiw_flush_req *)(h + 1), &req))
		return TERM_RDMAP_OP(XIW_RDMAP_CATASTROPHIC_STREAM);
	if (req.flags & XIW_FLUSH_PERSISTENT)
		access |= IB_ACCESS_FLUSH_PERSISTENT;
	if (req.flags & XIW_FLUSH_GLOBAL)
		access |= IB_ACCESS_FLUSH_GLOBAL;
	to = req.to;
	span = req.len;
	if (req.flags & XIW_FLUSH_REGION)
		mr = xiw_mr_lookup_region(qp->xdev, req.stag, pd, access, &to,
					  &span, &bad);
	else
		mr = xiw_mr_lookup(qp->xdev, req.stag, pd, access, to, span,
				   &bad);
	if (!mr)
		return bad;
	bad = xiw_rx_irq_take(qp, mr, &e);
	if (bad)
		return bad;
	e->resp_op = XIW_OP_FLUSH_RESP;
	e->flags = req.flags;
	e->src_stag = req.stag;
	e->src_to = to;
	e->len = span;
	e->seg_len = qp->rx.ulpdu_len;
	e->req = *h;
	return 0;
}

/*
 * A response on queue 3 without identifier (Flush, Verify, Atomic Write):
 * it answers the oldest request outstanding, which must be of its kind
 * (xiw_rx_answered()).
 */
int xiw_rx_bare_resp(struct xiw_qp *qp, u32 len)
{
	unsigned long flags;
	int bad;

	bad = xiw_rx_check_whole(qp, XIW_QN_ATOMIC_RESP);
	if (bad)
		return bad;
	spin_lock_irqsave(&qp->sq_lock, flags);
	if (!xiw_rx_answered(qp))
		bad = TERM_RDMAP_OP(XIW_RDMAP_UNEXP_OPCODE);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return bad;
}

/* ...delivered: its request completes. */
int xiw_rx_bare_resp_done(struct xiw_qp *qp)
{
	struct xiw_wqe *wqe;
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	wqe = xiw_rx_answered(qp);	/* NULL: flushed since its header */
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return xiw_rx_resp_retire(qp, wqe, IB_WC_SUCCESS);
}

/*
 * An RDMA Verify Request (commit draft section 3.1.2): a range of a region
 * the peer may read and whose owner chose a hash for it (without one it
 * is not verifiable: an access rights violation), and perhaps an expected
 * hash, the rest of the message. It is hashed in its turn among the
 * requests of queue 1, by the transmit engine; its DDP header is kept for
 * the Terminate of a mismatch found then.
 */
int xiw_rx_verify_req(struct xiw_qp *qp, u32 len)
{
	struct xiw_untagged_hdr *h = xiw_rx_untagged(&qp->rx);
	struct xiw_commit_req req;
	struct xiw_irq_entry *e;
	struct xiw_mr *mr;
	int bad;
	u8 alg;

	bad = xiw_rx_check_whole(qp, XIW_QN_READ_REQ);
	if (bad)
		return bad;
	if (xiw_verify_req_parse((struct xiw_verify_req *)(h + 1), len, &req))
		return TERM_DDP_U(XIW_DDP_U_TOO_LONG);
	mr = xiw_mr_lookup(qp->xdev, req.stag, to_xiw_pd(qp->ibqp.pd),
			   IB_ACCESS_REMOTE_READ, req.to, req.len, &bad);
	if (!mr)
		return bad;
	alg = xiw_mr_verify_alg(mr);
	if (alg == XIW_HASH_NONE ||
	    !(READ_ONCE(qp->xdev->verify_hashes) & BIT(alg))) {
		xiw_mr_put(mr);
		return XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
				XIW_RDMAP_ACCESS);
	}
	bad = xiw_rx_irq_take(qp, mr, &e);
	if (bad)
		return bad;
	e->resp_op = XIW_OP_VERIFY_RESP;
	e->alg = alg;
	e->src_stag = req.stag;
	e->src_to = req.to;
	e->len = req.len;
	e->seg_len = qp->rx.ulpdu_len;
	e->req = *h;
	return 0;	/* the expected hash follows: xiw_rx_place_expect() */
}

/*
 * A Verify Response: the hash, at most XIW_VERIFY_HASH_MAX octets in one
 * segment, for the oldest outstanding request, which must be a Verify.
 */
int xiw_rx_verify_resp(struct xiw_qp *qp, u32 len)
{
	int bad = xiw_rx_bare_resp(qp, len);

	if (bad)
		return bad;
	if (len > XIW_VERIFY_HASH_MAX)
		return TERM_DDP_U(XIW_DDP_U_TOO_LONG);
	qp->rx.hash_len = 0;
	return 0;
}

/*
 * ...delivered: the hash lands in the Verify's SGE and the Verify
 * completes with its length. A hash longer than the SGE fails it (a local
 * length error, and the stream ends: nothing of it landed).
 */
int xiw_rx_verify_resp_done(struct xiw_qp *qp)
{
	struct xiw_wqe *wqe;
	u8 status;

	status = xiw_rx_resp_land(qp, qp->rx.hash, qp->rx.hash_len, &wqe);
	if (!wqe)	/* flushed since its header was checked */
		return 0;
	return xiw_rx_resp_retire(qp, wqe, status);
}

/*
 * A Verify Request's expected hash: into the IRQ slot the request holds
 * (one segment of at most XIW_VERIFY_HASH_MAX octets: checked).
 */
int xiw_rx_place_expect(struct xiw_qp *qp, struct xiw_rx_copy *c, u32 len)
{
	struct xiw_irq_entry *e = xiw_qp_irq_at(qp, qp->irq_head);
	int err = xiw_rx_copy_fn(c, e->expect + e->expect_len, len);

	if (!err)
		e->expect_len += len;
	return err;
}

/* A Verify Response's hash, kept until it is delivered (checked size). */
int xiw_rx_place_hash(struct xiw_qp *qp, struct xiw_rx_copy *c, u32 len)
{
	struct xiw_rx *rx = &qp->rx;
	int err = xiw_rx_copy_fn(c, rx->hash + rx->hash_len, len);

	if (!err)
		rx->hash_len += len;
	return err;
}

