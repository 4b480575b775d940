// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf fault injection (--inject): the first operation of connection 0
 * of a client run breaks a rule the server's device must enforce (enum
 * xiwperf_inject), or, for a bad local key, the client's own device must.
 * An atomic operation waits for its response as a Read does: no probe.
 * For the faults that first invalidate an STag with a
 * Send with Invalidate, the server posts one receive for it
 * (XP_HELLO_INV_RECV). For a CQ overflow nothing is wrong with the
 * operations: the server gets a receive CQ too small for connection 0
 * (XP_HELLO_TINY_RCQ), and that connection may fail alone
 * (xp_cconn_lose()).
 */
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "client.h"
#include "server.h"

/* The receive an injected Send with Invalidate lands in (zero-length). */
#define XP_INV_RECV_LEN		64

/**
 * xp_inject_valid() - whether the fault and flags of a run go together.
 * @run: the run's parameters.
 *
 * Return: true for no fault, or for one the run's operation, flags and
 * connections can carry.
 */
bool xp_inject_valid(const struct xiwperf_run *run)
{
	bool remote_frwr = run->flags & XIWPERF_F_REMOTE_FRWR;
	bool atomic = xp_op_atomic(run->op);
	bool word = xp_op_word(run->op);

	switch (run->inject) {
	case XIWPERF_INJECT_NONE:
		return true;
	case XIWPERF_INJECT_STAG:
		return run->op != XIWPERF_OP_SEND;
	case XIWPERF_INJECT_WRAP:
		/* an aligned word never straddles 2^64 */
		return run->op == XIWPERF_OP_WRITE || run->op == XIWPERF_OP_READ;
	case XIWPERF_INJECT_DMA_INVALIDATE:
		/* the fault is the Send's: nothing an atomic adds to it */
		return run->op == XIWPERF_OP_WRITE || run->op == XIWPERF_OP_READ;
	case XIWPERF_INJECT_FOREIGN:
		return run->op != XIWPERF_OP_SEND && run->qps >= 2;
	case XIWPERF_INJECT_BOUNDS:
	case XIWPERF_INJECT_INVALIDATED:
		return run->op != XIWPERF_OP_SEND && remote_frwr;
	case XIWPERF_INJECT_RIGHTS:
		/* an atomic has no right through the global rkey either */
		return ((run->op == XIWPERF_OP_WRITE ||
			 run->op == XIWPERF_OP_ATOMIC_WRITE ||
			 run->op == XIWPERF_OP_FLUSH) && remote_frwr) ||
		       atomic;
	case XIWPERF_INJECT_LKEY:
		/* an Atomic Write has no local buffer */
		return !(run->flags & XIWPERF_F_INLINE) &&
		       run->op != XIWPERF_OP_ATOMIC_WRITE;
	case XIWPERF_INJECT_UNALIGNED:
		return word;
	case XIWPERF_INJECT_CQ_OVERFLOW:
		/* two unsolicited Sends in a row, at least two connections */
		return run->op == XIWPERF_OP_SEND &&
		       (run->flags & XIWPERF_F_SOLICIT) && run->solicit >= 3 &&
		       run->depth >= 2 && run->qps >= 2 &&
		       !(run->flags & XIWPERF_F_SRQ);
	default:
		return false;
	}
}

/* Length of chunk @ch of the server's buffer. */
static u64 xp_chunk_len(struct xp_cconn *c, u64 ch)
{
	return ch + 1 < c->nchunks ? c->rchunk :
	       c->rsize - (u64)(c->nchunks - 1) * c->rchunk;
}

/**
 * xp_lane_inject() - --inject: the fault the first operation of connection
 *	0 carries.
 * @lane: the lane (c->lock held).
 * @ch: the operation's chain.
 * @op: the operation; its remote address or key becomes the faulty one.
 * @sinv: filled in: a Send with Invalidate that goes first if the fault
 *	needs one.
 * @probe: filled in: after an RDMA Write, the probe: a Read of the
 *	region, which cannot complete once the server has terminated the
 *	stream.
 * @psge: filled in: the probe's SGE.
 *
 * What is filled in is added to @ch; @sinv, @probe and @psge are the
 * caller's, until @ch is posted.
 */
void xp_lane_inject(struct xp_lane *lane, struct xp_chain *ch,
		    struct xp_opwr *op, struct ib_send_wr *sinv,
		    struct ib_rdma_wr *probe, struct ib_sge *psge)
{
	struct xp_cconn *c = lane->c;
	struct xp_client *cl = c->cl;
	u64 chunk = div64_u64(lane->rpos, c->rchunk);
	int i;

	switch (cl->inject) {
	case XIWPERF_INJECT_CQ_OVERFLOW:
		return;		/* the server's CQ is the fault */
	case XIWPERF_INJECT_STAG:
		*op->rkey ^= 0xff;	/* the key byte of the STag */
		break;
	case XIWPERF_INJECT_BOUNDS:
		*op->raddr = c->chunks[chunk] + xp_chunk_len(c, chunk);
		break;
	case XIWPERF_INJECT_RIGHTS:
		/*
		 * Lane 0 of connection 0: chunk 0. An atomic operation
		 * without the server's registrations keeps the global
		 * rkey, which has no atomic right.
		 */
		if (cl->flags & XIWPERF_F_REMOTE_FRWR)
			*op->rkey = c->ro_rkey;
		break;
	case XIWPERF_INJECT_WRAP:
		/* The first segment already wraps. */
		*op->raddr = U64_MAX - min_t(u64, cl->size, 16) / 2;
		break;
	case XIWPERF_INJECT_FOREIGN:
		/* Connection 1's key for the same region: another PD. */
		*op->rkey = c->rkeys ? cl->conns[1]->rkeys[chunk] :
				       cl->conns[1]->rkey;
		break;
	case XIWPERF_INJECT_LKEY:
		for (i = 0; i < op->wr.num_sge; i++)
			op->wr.sg_list[i].lkey ^= 0xff;
		break;
	case XIWPERF_INJECT_UNALIGNED:
		*op->raddr += XP_ATOMIC_LEN / 2;
		break;
	case XIWPERF_INJECT_INVALIDATED:
	case XIWPERF_INJECT_DMA_INVALIDATE:
		memset(sinv, 0, sizeof(*sinv));
		sinv->wr_cqe = &lane->cqe[XP_WR_SEND_INV];
		sinv->opcode = IB_WR_SEND_WITH_INV;
		sinv->send_flags = IB_SEND_SIGNALED;
		sinv->ex.invalidate_rkey =
			cl->inject == XIWPERF_INJECT_INVALIDATED ? c->rkeys[0] :
								   c->rkey;
		/* Before everything else of the operation. */
		sinv->next = ch->wr[0];
		memmove(&ch->wr[1], &ch->wr[0], ch->n * sizeof(ch->wr[0]));
		memmove(&ch->kind[1], &ch->kind[0], ch->n * sizeof(ch->kind[0]));
		ch->wr[0] = sinv;
		ch->kind[0] = XP_WR_SEND_INV;
		ch->n++;
		break;
	}
	if (cl->op != XIWPERF_OP_WRITE)
		return;
	xp_read_wr(probe, psge, &lane->cqe[XP_WR_VERIFY], lane->vmap.dma,
		   cl->size, c->q.pd->local_dma_lkey, lane->raddr, lane->rkey);
	xp_chain_add(ch, &probe->wr, XP_WR_VERIFY);
	lane->verifying = true;
	lane->probe = true;
}

/**
 * xp_lane_sinv_done() - a lane's injected Send with Invalidate completed.
 * @cq: the CQ.
 * @wc: the completion.
 */
void xp_lane_sinv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_lane *lane = container_of(wc->wr_cqe, struct xp_lane,
					    cqe[XP_WR_SEND_INV]);

	if (xp_lane_completes(lane, XP_WR_SEND_INV, wc))
		xp_lane_step(lane);
}

/* An injected Send with Invalidate arrived (or was flushed). */
static void xp_sconn_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_rslot *rs = container_of(wc->wr_cqe, struct xp_rslot, cqe);
	struct xp_sconn *c = rs->conn;

	if (wc->status != IB_WC_SUCCESS) {
		xp_sconn_error(c, wc);
		return;
	}
	pr_debug("connection %u: Send of %u bytes%s %#x\n", c->qp_index,
		 wc->byte_len, wc->wc_flags & IB_WC_WITH_INVALIDATE ?
		 ", invalidated" : " without invalidation",
		 wc->ex.invalidate_rkey);
}

/**
 * xp_sconn_setup_inv() - XP_HELLO_INV_RECV: post one receive, for the
 *	injected Send with Invalidate.
 * @c: the connection, its QP created.
 *
 * Return: 0 or a negative errno; what was made is released by the
 * connection's teardown.
 */
int xp_sconn_setup_inv(struct xp_sconn *c)
{
	struct xp_rslot *rs = &c->inv;
	int ret;

	rs->cqe.done = xp_sconn_inv_done;
	rs->conn = c;
	rs->buf = xp_buf_alloc(XP_INV_RECV_LEN);
	if (!rs->buf)
		return -ENOMEM;
	ret = xp_map(&rs->map, c->q.id->device, rs->buf, XP_INV_RECV_LEN);
	if (ret)
		return ret;
	return xp_post_recv(&c->q, &rs->cqe, rs->map.dma, XP_INV_RECV_LEN, 1);
}
