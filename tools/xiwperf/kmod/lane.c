// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf client lanes: the operations of a connection and their
 * completions.
 *
 * Each connection has @depth lanes; a lane carries one operation at a time
 * and owns a buffer of its own and one region of the server's buffer.
 * Completions (CQ callbacks, serialised per connection) record the
 * latency, verify data and start the lane's next operation.
 *
 * Send tests are flow controlled by the server's credits: a Send is posted
 * only while the server has a receive posted for it. So are the Immediate
 * Data operations (RDMA Write with Immediate, Send with Immediate), whose
 * messages take a receive each too. With --solicit the
 * server processes receives only when a solicited Send wakes it, so the
 * last Send and any Send that takes the last credit are solicited too:
 * the client never waits for something the server has not been woken for.
 *
 * An operation is a chain of work requests: with --mr frwr the
 * registration of the lane's buffer, the operation through it and its
 * invalidation (see frwr.c). A lane tracks each kind of work request it
 * has outstanding, so a completion that comes twice or never is seen
 * whichever it is. With --inject the first operation of connection 0
 * carries the fault (see inject.c). The atomic operations all target one
 * word and return its original value into the lane's buffer (atomic.c).
 */
#include <linux/bitops.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "client.h"
#include "hist.h"
#include "pattern.h"

/**
 * xp_mismatch() - an operation's data was wrong: count it, and keep where
 *	if it is the connection's first.
 * @c: the connection.
 * @seq: the operation's sequence number on it.
 * @off: the offset of its first wrong byte.
 */
void xp_mismatch(struct xp_cconn *c, u64 seq, u64 off)
{
	if (!c->mismatches++) {
		c->first_bad_seq = seq;
		c->first_bad_offset = off;
	}
}

static void xp_cconn_finish(struct xp_cconn *c)
{
	if (atomic_dec_and_test(&c->cl->running))
		wake_up(&c->cl->waitq);
}

/*
 * Under c->lock: true the first time everything of @c is done, or, once
 * it is lost, every operation it had posted has returned.
 */
static bool xp_cconn_done(struct xp_cconn *c)
{
	if (c->finished)
		return false;
	if (c->lost ? c->retired < c->posted :
		      c->retired < c->total ||
		      (xp_op_recv(c->cl->op) && !c->verdict))
		return false;
	c->finished = true;
	return true;
}

/*
 * --solicit: whether Send @seq of @c goes with IB_SEND_SOLICITED: every
 * solicit-th, the last one, and one that takes the last credit (c->lock
 * held).
 */
static bool xp_solicit(struct xp_cconn *c, u64 seq)
{
	u32 rem;

	if (!c->cl->solicit)
		return false;
	div_u64_rem(seq + 1, c->cl->solicit, &rem);
	return !rem || seq + 1 == c->total || seq + 1 >= c->credit_limit;
}

/**
 * xp_read_wr() - a signaled RDMA Read of @len bytes at @raddr into @addr
 *	(one SGE).
 * @wr: filled in.
 * @sge: filled in: its one SGE.
 * @cqe: its completion.
 * @addr: local address of the sink.
 * @len: bytes to read.
 * @lkey: local key of the sink.
 * @raddr: remote address of the source.
 * @rkey: its remote key.
 */
void xp_read_wr(struct ib_rdma_wr *wr, struct ib_sge *sge, struct ib_cqe *cqe,
		u64 addr, u32 len, u32 lkey, u64 raddr, u32 rkey)
{
	sge->addr = addr;
	sge->length = len;
	sge->lkey = lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr.wr_cqe = cqe;
	wr->wr.sg_list = sge;
	wr->wr.num_sge = 1;
	wr->wr.opcode = IB_WR_RDMA_READ;
	wr->wr.send_flags = IB_SEND_SIGNALED;
	wr->remote_addr = raddr;
	wr->rkey = rkey;
}

/**
 * xp_chain_add() - append a work request to an operation's chain.
 * @ch: the chain.
 * @wr: the work request; its next pointer is set here.
 * @kind: the XP_WR_* kind it completes as.
 */
void xp_chain_add(struct xp_chain *ch, struct ib_send_wr *wr, u32 kind)
{
	if (ch->n)
		ch->wr[ch->n - 1]->next = wr;
	wr->next = NULL;
	ch->wr[ch->n] = wr;
	ch->kind[ch->n++] = kind;
}

/*
 * Post the work requests of @ch in order: in one ib_post_send(), or, for a
 * Verify, which xiw's own function posts, the requests before it, then
 * it, then the rest.
 */
static int xp_chain_post_wrs(struct xp_cconn *c, struct xp_chain *ch,
			     const struct ib_send_wr **bad)
{
	u32 i = 0, j;
	int ret = 0;

	while (!ret && i < ch->n) {
		for (j = i; j < ch->n && ch->wr[j]->opcode != XIW_WR_VERIFY; j++)
			;
		if (j > i) {
			ch->wr[j - 1]->next = NULL;
			ret = ib_post_send(c->q.qp, ch->wr[i], bad);
		}
		if (!ret && j < ch->n) {
			ch->wr[j]->next = NULL;
			ret = c->cl->post_verify(c->q.qp,
						 container_of(ch->wr[j],
							      struct xiw_verify_wr,
							      wr), bad);
		}
		i = j + 1;
	}
	return ret;
}

/*
 * Post @ch for @lane: its kinds are pending from before the post (a
 * completion may come before ib_post_send() returns), and again not
 * pending if they were not posted after all.
 */
static int xp_chain_post(struct xp_lane *lane, struct xp_chain *ch)
{
	struct xp_cconn *c = lane->c;
	const struct ib_send_wr *bad = NULL;
	bool posted = true;
	u32 i;
	int ret;

	for (i = 0; i < ch->n; i++)
		set_bit(ch->kind[i], &lane->pending);
	ret = xp_chain_post_wrs(c, ch, &bad);
	if (!ret)
		return 0;
	/* @bad and what follows it were not posted. */
	for (i = 0; i < ch->n; i++) {
		if (ch->wr[i] == bad || !bad)
			posted = false;
		if (!posted)
			clear_bit(ch->kind[i], &lane->pending);
	}
	return xp_fail(c->cl, ret, XIWPERF_REASON_POST);
}

/*
 * The server's region the next operation of @lane targets: by connection
 * and lane, or for the atomic operations the one word at offset 0.
 */
static void xp_lane_region(struct xp_lane *lane)
{
	struct xp_cconn *c = lane->c;
	struct xp_client *cl = c->cl;
	u64 slot, chunk;
	u32 rem;

	if (cl->atomic || !cl->size) {	/* not used by a Send with Imm */
		lane->raddr = c->chunks[0];
		lane->rpos = 0;
		lane->rkey = c->rkeys[0];
		return;
	}
	if (cl->op == XIWPERF_OP_WRITE_IMM) {
		/* by sequence number: the server checks it (see uapi) */
		div_u64_rem(lane->seq, cl->window, &rem);
		slot = ((u64)c->index * cl->window + rem) % cl->nslot;
	} else {
		slot = ((u64)c->index * cl->depth + lane->idx) % cl->nslot;
	}
	chunk = div64_u64(slot, cl->per_chunk);
	slot -= chunk * cl->per_chunk;
	lane->raddr = c->chunks[chunk] + slot * cl->size;
	lane->rpos = chunk * c->rchunk + slot * cl->size;
	lane->rkey = c->rkeys[chunk];
}

/*
 * The opcode of a Send, Write or Read of @lane (or one with Immediate),
 * its immediate value, its --check pattern.
 */
static void xp_lane_rdma_wr(struct xp_lane *lane, struct ib_rdma_wr *wr,
			    bool *solicited)
{
	struct xp_cconn *c = lane->c;
	struct xp_client *cl = c->cl;
	bool check = cl->flags & XIWPERF_F_CHECK;

	if (xp_op_recv(cl->op)) {
		*solicited = xp_solicit(c, lane->seq);
		if (*solicited)
			wr->wr.send_flags |= IB_SEND_SOLICITED;
	}
	if (xp_op_imm(cl->op))
		wr->wr.ex.imm_data = cpu_to_be32(cl->imm_fixed ? cl->imm :
						 lower_32_bits(lane->seq));
	switch (cl->op) {
	case XIWPERF_OP_SEND:
		wr->wr.opcode = IB_WR_SEND;
		if (check)
			xp_pattern_fill(lane->buf, cl->size,
					xp_pattern_seed(cl->op, c->index,
							lane->seq), 0, false);
		break;
	case XIWPERF_OP_IMM:
		wr->wr.opcode = IB_WR_SEND_WITH_IMM;	/* no payload */
		break;
	case XIWPERF_OP_WRITE:
	case XIWPERF_OP_WRITE_IMM:
	case XIWPERF_OP_FLUSH:
	case XIWPERF_OP_VERIFY:
		wr->wr.opcode = cl->op == XIWPERF_OP_WRITE_IMM ?
				IB_WR_RDMA_WRITE_WITH_IMM : IB_WR_RDMA_WRITE;
		/* A Verify hashes the pattern: its Write always has one. */
		if (check || (cl->op == XIWPERF_OP_VERIFY &&
			      !(cl->flags & XIWPERF_F_NO_WRITE)))
			xp_pattern_fill(lane->buf, cl->size,
					xp_pattern_seed(cl->op, c->index,
							lane->seq), 0, false);
		break;
	default:
		wr->wr.opcode = IB_WR_RDMA_READ;
		if (check)	/* poison: the read must overwrite every byte */
			xp_pattern_fill(lane->buf, cl->size,
					xp_pattern_seed(cl->op, 0, 0),
					lane->rpos, true);
		break;
	}
}

/* Start the next operation on @lane (c->lock held). */
static int xp_lane_post(struct xp_lane *lane)
{
	struct xp_cconn *c = lane->c;
	struct xp_client *cl = c->cl;
	bool check = cl->flags & XIWPERF_F_CHECK;
	bool inl = cl->flags & XIWPERF_F_INLINE;
	bool frwr = cl->flags & XIWPERF_F_FRWR;
	struct ib_sge sge[XIWPERF_MAX_SGE], psge;
	struct xp_opwr op;
	struct ib_send_wr inv, sinv;
	struct ib_rdma_wr probe;
	struct xiw_flush_wr flush;
	struct xiw_verify_wr verify;
	struct ib_sge vsge;
	struct ib_reg_wr reg;
	struct xp_chain ch = {};
	bool solicited = false;
	u64 addr;
	u32 lkey;
	int ret;

	/*
	 * The device copies inline data at posting, through the CPU: the
	 * SGEs hold kernel addresses then (as with siw, rxe and hardware).
	 * A fast registration gives the buffer an address of its own.
	 */
	addr = inl ? (uintptr_t)lane->buf : lane->map.dma;
	lkey = c->q.pd->local_dma_lkey;
	if (frwr) {
		ret = xp_lane_frwr_reg(lane, &ch, &reg, &addr, &lkey);
		if (ret)
			return ret;
	}
	/* All of the union: the atomic operands the verb does not use too. */
	memset(&op, 0, sizeof(op));
	op.wr.wr_cqe = &lane->cqe[XP_WR_OP];
	op.wr.sg_list = sge;
	op.wr.send_flags = IB_SEND_SIGNALED;
	/* A Send with Immediate has no payload: no SGE. */
	if (cl->size)
		op.wr.num_sge = xp_sge_split(sge, cl->nsge, addr, cl->size,
					     lkey);
	if (inl)
		op.wr.send_flags |= IB_SEND_INLINE;

	xp_lane_region(lane);
	if (cl->op == XIWPERF_OP_ATOMIC_WRITE) {
		op.raddr = &op.aw.remote_addr;
		op.rkey = &op.aw.rkey;
		op.wr.num_sge = 0;	/* the value is in the request */
		xp_atomic_write_wr(lane, &op.aw);
	} else if (cl->atomic) {
		op.raddr = &op.atomic.remote_addr;
		op.rkey = &op.atomic.rkey;
		xp_atomic_wr(lane, &op.atomic);
	} else {
		op.raddr = &op.rdma.remote_addr;
		op.rkey = &op.rdma.rkey;
		xp_lane_rdma_wr(lane, &op.rdma, &solicited);
	}
	if (check && cl->size)
		xp_sync_for_device(&lane->map, 0, cl->size);
	*op.raddr = lane->raddr;
	*op.rkey = lane->rkey;
	if (cl->op == XIWPERF_OP_FLUSH) {
		/* The Write, then the Flush: the operation (and the fault). */
		op.wr.wr_cqe = &lane->cqe[XP_WR_PUT];
		xp_chain_add(&ch, &op.wr, XP_WR_PUT);
		xp_flush_wr(lane, &flush);
		op.raddr = &flush.remote_addr;
		op.rkey = &flush.rkey;
		xp_chain_add(&ch, &flush.wr, XP_WR_OP);
	} else if (cl->op == XIWPERF_OP_VERIFY) {
		/* The Write, then the Verify of what it wrote; or the Verify. */
		if (!(cl->flags & XIWPERF_F_NO_WRITE)) {
			op.wr.wr_cqe = &lane->cqe[XP_WR_PUT];
			xp_chain_add(&ch, &op.wr, XP_WR_PUT);
		}
		xp_verify_wr(lane, &verify, &vsge);
		op.raddr = &verify.remote_addr;
		op.rkey = &verify.rkey;
		xp_chain_add(&ch, &verify.wr, XP_WR_OP);
	} else {
		xp_chain_add(&ch, &op.wr, XP_WR_OP);
	}
	if (frwr)
		xp_lane_frwr_inv(lane, &ch, &op.wr, &inv);
	lane->verifying = false;
	lane->probe = false;
	if (cl->inject && !c->index && !lane->seq)
		xp_lane_inject(lane, &ch, &op, &sinv, &probe, &psge);

	lane->t_post = ktime_get_ns();
	ret = xp_chain_post(lane, &ch);
	if (!ret && solicited)
		c->solicited++;
	return ret;
}

/**
 * xp_lanes_fill() - start operations on idle lanes while there is work and
 *	credit.
 * @c: the connection (c->lock held).
 */
void xp_lanes_fill(struct xp_cconn *c)
{
	struct xp_client *cl = c->cl;

	lockdep_assert_held(&c->lock);
	while (c->nfree && c->posted < c->total && !c->lost &&
	       !READ_ONCE(cl->stop)) {
		struct xp_lane *lane;

		if (xp_op_recv(cl->op) && c->posted >= c->credit_limit)
			break;
		lane = &c->lanes[c->free[--c->nfree]];
		lane->seq = c->posted;
		if (xp_lane_post(lane)) {
			c->nfree++;
			break;
		}
		c->posted++;
	}
}

static void xp_lane_retire(struct xp_lane *lane)
{
	struct xp_cconn *c = lane->c;
	bool done;

	spin_lock_bh(&c->lock);
	c->retired++;
	c->free[c->nfree++] = lane->idx;
	xp_lanes_fill(c);
	done = xp_cconn_done(c);
	spin_unlock_bh(&c->lock);
	if (done)
		xp_cconn_finish(c);
}

/**
 * xp_post_read() - post a signaled RDMA Read of the server's buffer: the
 *	client's own reads.
 * @c: the connection.
 * @cqe: its completion.
 * @addr: the sink, a device address (one SGE).
 * @len: bytes to read.
 * @raddr: address in the server's buffer.
 * @rkey: remote key to read it through.
 *
 * Return: 0 or the error of ib_post_send().
 */
int xp_post_read(struct xp_cconn *c, struct ib_cqe *cqe, u64 addr, u32 len,
		 u64 raddr, u32 rkey)
{
	struct ib_rdma_wr wr;
	struct ib_sge sge;

	xp_read_wr(&wr, &sge, cqe, addr, len, c->q.pd->local_dma_lkey, raddr,
		   rkey);
	return ib_post_send(c->q.qp, &wr.wr, NULL);
}

/* write --check: read the region back into the verify buffer. */
static void xp_verify_post(struct xp_lane *lane)
{
	struct xp_cconn *c = lane->c;
	struct xp_client *cl = c->cl;
	int ret;

	xp_pattern_fill(lane->vbuf, cl->size,
			xp_pattern_seed(cl->op, c->index, lane->seq), 0, true);
	xp_sync_for_device(&lane->vmap, 0, cl->size);
	lane->verifying = true;
	set_bit(XP_WR_VERIFY, &lane->pending);
	ret = xp_post_read(c, &lane->cqe[XP_WR_VERIFY], lane->vmap.dma,
			   cl->size, lane->raddr, lane->rkey);
	if (ret) {
		clear_bit(XP_WR_VERIFY, &lane->pending);
		xp_fail(cl, ret, XIWPERF_REASON_POST);
	}
}

/**
 * xp_lane_completes() - account for a completion of a lane's work request.
 * @lane: the lane.
 * @kind: the XP_WR_* kind of the work request.
 * @wc: its completion.
 *
 * Posting and completing one lane never overlap but for the bits of
 * @lane->pending: a lane is posted again only once all its work requests
 * completed.
 *
 * Return: true if the work request was outstanding and succeeded; false
 * if none was outstanding (a duplicate, counted and otherwise ignored), or
 * if it failed (counted, and the run fails).
 */
bool xp_lane_completes(struct xp_lane *lane, u32 kind, const struct ib_wc *wc)
{
	struct xp_cconn *c = lane->c;

	if (!test_and_clear_bit(kind, &lane->pending)) {
		c->wc_unexpected++;
		return false;
	}
	if (wc->status == IB_WC_SUCCESS)
		return true;
	c->errors++;
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		c->flushed++;
	atomic64_inc(&c->cl->progress);
	xp_fail_wc(c, wc);
	/* A connection that fails alone takes its lanes back as they end. */
	if (c->isolated && !READ_ONCE(lane->pending))
		xp_lane_retire(lane);
	return false;
}

/**
 * xp_cconn_lose() - a connection failed: if it may fail alone (struct
 *	xp_cconn.isolated), it ends and the run goes on without it.
 * @c: the connection.
 * @reason: enum xiwperf_reason of the failure.
 *
 * Return: true if @c may fail alone (it posts nothing more and finishes
 * once its outstanding operations have returned), false if the failure
 * is the run's.
 */
bool xp_cconn_lose(struct xp_cconn *c, u32 reason)
{
	bool done;

	if (!c->isolated)
		return false;
	spin_lock_bh(&c->lock);
	if (!c->lost) {
		c->lost = true;
		c->lost_reason = reason;
	}
	done = xp_cconn_done(c);
	spin_unlock_bh(&c->lock);
	atomic64_inc(&c->cl->progress);
	if (done)
		xp_cconn_finish(c);
	return true;
}

/**
 * xp_lane_step() - a work request of a lane completed successfully.
 * @lane: the lane.
 *
 * Once all its work requests have, read the written region back (write
 * --check) or take the next operation.
 */
void xp_lane_step(struct xp_lane *lane)
{
	struct xp_client *cl = lane->c->cl;

	if (READ_ONCE(lane->pending))
		return;
	if (!lane->verifying && xp_op_puts(cl->op) &&
	    !READ_ONCE(lane->c->lost) &&
	    (cl->flags & XIWPERF_F_CHECK)) {
		if (!READ_ONCE(cl->stop))
			xp_verify_post(lane);
		return;
	}
	xp_lane_retire(lane);
}

static void xp_op_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_lane *lane = container_of(wc->wr_cqe, struct xp_lane,
					    cqe[XP_WR_OP]);
	struct xp_cconn *c = lane->c;
	struct xp_client *cl = c->cl;
	u64 now = ktime_get_ns();
	size_t bad;

	if (!xp_lane_completes(lane, XP_WR_OP, wc))
		return;
	xp_hist_add(c->hist, now - lane->t_post);
	c->completed++;
	c->t_last = now;
	atomic64_inc(&cl->progress);

	if ((cl->flags & XIWPERF_F_CHECK) && cl->op == XIWPERF_OP_FLUSH &&
	    wc->opcode != IB_WC_FLUSH)
		xp_mismatch(c, lane->seq, 0);
	if ((cl->flags & XIWPERF_F_CHECK) && cl->op == XIWPERF_OP_READ) {
		xp_sync_for_cpu(&lane->map, 0, cl->size);
		bad = xp_pattern_check(lane->buf, cl->size,
				       xp_pattern_seed(cl->op, 0, 0),
				       lane->rpos);
		if (bad != XP_PATTERN_OK)
			xp_mismatch(c, lane->seq, bad);
	}
	if (cl->atomic)
		xp_atomic_done(lane, wc);
	if (cl->op == XIWPERF_OP_VERIFY)
		xp_verify_op_done(lane, wc);
	xp_lane_step(lane);
}

static void xp_verify_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_lane *lane = container_of(wc->wr_cqe, struct xp_lane,
					    cqe[XP_WR_VERIFY]);
	struct xp_cconn *c = lane->c;
	struct xp_client *cl = c->cl;
	size_t bad;

	if (!xp_lane_completes(lane, XP_WR_VERIFY, wc))
		return;
	atomic64_inc(&cl->progress);
	if (!lane->probe) {
		xp_sync_for_cpu(&lane->vmap, 0, cl->size);
		bad = xp_pattern_check(lane->vbuf, cl->size,
				       xp_pattern_seed(cl->op, c->index,
						       lane->seq), 0);
		if (bad != XP_PATTERN_OK)
			xp_mismatch(c, lane->seq, bad);
	}
	xp_lane_step(lane);
}

static void xp_ctrl_msg(struct xp_cconn *c, const struct xp_msg *m)
{
	struct xp_client *cl = c->cl;
	u64 value = be64_to_cpu(m->value);
	bool done = false;

	if (be32_to_cpu(m->magic) != XP_MAGIC) {
		xp_fail(cl, -EPROTO, XIWPERF_REASON_PROTOCOL);
		return;
	}
	switch (be32_to_cpu(m->type)) {
	case XP_MSG_CREDIT:
		spin_lock_bh(&c->lock);
		c->credit_limit = max(c->credit_limit, c->credits + value);
		xp_lanes_fill(c);
		spin_unlock_bh(&c->lock);
		break;
	case XP_MSG_VERDICT:
		if (value != c->total) {
			xp_fail(cl, -EPROTO, XIWPERF_REASON_PROTOCOL);
			return;
		}
		if (m->mismatches) {
			c->mismatches += be64_to_cpu(m->mismatches);
			c->first_bad_seq = be64_to_cpu(m->first_bad_seq);
			c->first_bad_offset = be64_to_cpu(m->first_bad_offset);
		}
		c->notifications = be64_to_cpu(m->notifications);
		c->first_batch = be64_to_cpu(m->first_batch);
		c->srq_arms = be32_to_cpu(m->srq_arms);
		c->srq_crossed = be32_to_cpu(m->srq_crossed);
		c->srq_events = be32_to_cpu(m->srq_events);
		c->srq_stray = be32_to_cpu(m->srq_stray);
		spin_lock_bh(&c->lock);
		c->verdict = true;
		done = xp_cconn_done(c);
		spin_unlock_bh(&c->lock);
		break;
	case XP_MSG_READY:
		if (!(cl->flags & XIWPERF_F_REMOTE_FRWR)) {
			xp_fail(cl, -EPROTO, XIWPERF_REASON_PROTOCOL);
			return;
		}
		/* pairs with xp_step_reached() */
		smp_store_release(&c->registered, true);
		wake_up(&cl->waitq);
		break;
	default:
		xp_fail(cl, -EPROTO, XIWPERF_REASON_PROTOCOL);
		return;
	}
	if (done)
		xp_cconn_finish(c);
}

static void xp_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_crx *rx = container_of(wc->wr_cqe, struct xp_crx, cqe);
	struct xp_cconn *c = rx->c;
	size_t off = rx->idx * sizeof(struct xp_msg);
	struct xp_msg m = {};

	if (wc->status != IB_WC_SUCCESS) {
		/* Flushed at teardown, or with the operations that report it. */
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			xp_fail_wc(c, wc);
		return;
	}
	xp_sync_for_cpu(&c->rx_map, off, sizeof(m));
	/* Only solicited and SRQ runs' verdicts have the last fields. */
	if (wc->byte_len < XP_MSG_BASE_LEN) {
		xp_fail(c->cl, -EPROTO, XIWPERF_REASON_PROTOCOL);
		return;
	}
	memcpy(&m, &c->rx[rx->idx], min_t(size_t, wc->byte_len, sizeof(m)));
	if (xp_post_recv(&c->q, &rx->cqe, c->rx_map.dma + off, sizeof(m), 1)) {
		xp_fail(c->cl, -EIO, XIWPERF_REASON_POST);
		return;
	}
	xp_ctrl_msg(c, &m);
}

/**
 * xp_cconn_buffers() - the lanes of a connection and their buffers, and
 *	the receives of the server's control messages.
 * @c: the connection, its QP created.
 *
 * With --mr frwr each lane gets its MR (xp_lane_frmr()).
 *
 * Return: 0, or a negative errno; what was made is released by the
 * connection's teardown.
 */
int xp_cconn_buffers(struct xp_cconn *c)
{
	struct xp_client *cl = c->cl;
	struct ib_device *dev = c->id->device;
	/* the read-back of write --check, and the probe of an injection */
	bool verify = (cl->op == XIWPERF_OP_WRITE && cl->inject) ||
		      (xp_op_puts(cl->op) && (cl->flags & XIWPERF_F_CHECK));
	u32 i;
	int ret;

	c->lanes = kcalloc(cl->depth, sizeof(*c->lanes), GFP_KERNEL);
	c->free = kcalloc(cl->depth, sizeof(*c->free), GFP_KERNEL);
	c->hist = xp_hist_alloc();
	if (!c->lanes || !c->free || !c->hist)
		return -ENOMEM;
	for (i = 0; i < cl->depth; i++) {
		struct xp_lane *lane = &c->lanes[i];

		lane->cqe[XP_WR_OP].done = xp_op_done;
		lane->cqe[XP_WR_VERIFY].done = xp_verify_done;
		lane->cqe[XP_WR_REG].done = xp_lane_reg_done;
		lane->cqe[XP_WR_INV].done = xp_lane_inv_done;
		lane->cqe[XP_WR_SEND_INV].done = xp_lane_sinv_done;
		lane->cqe[XP_WR_PUT].done = xp_put_done;
		lane->c = c;
		lane->idx = i;
		c->free[i] = cl->depth - 1 - i;
		if (!cl->size)
			continue;	/* Send with Immediate: no buffer */
		lane->buf = xp_buf_alloc(cl->size);
		if (!lane->buf)
			return -ENOMEM;
		ret = xp_map(&lane->map, dev, lane->buf, cl->size);
		if (ret)
			return ret;
		if (cl->flags & XIWPERF_F_FRWR) {
			/* Each lane's addresses of their own: see xp_frmr. */
			ret = xp_lane_frmr(lane, c->index * cl->depth + i + 1);
			if (ret)
				return ret;
		}
		if (cl->op == XIWPERF_OP_VERIFY) {
			lane->hbuf = xp_buf_alloc(XIWPERF_HASH_MAX);
			if (!lane->hbuf)
				return -ENOMEM;
			ret = xp_map(&lane->hmap, dev, lane->hbuf,
				     XIWPERF_HASH_MAX);
			if (ret)
				return ret;
		}
		if (!verify)
			continue;
		lane->vbuf = xp_buf_alloc(cl->size);
		if (!lane->vbuf)
			return -ENOMEM;
		ret = xp_map(&lane->vmap, dev, lane->vbuf, cl->size);
		if (ret)
			return ret;
	}
	c->nfree = cl->depth;
	if (!xp_op_recv(cl->op) && !(cl->flags & XIWPERF_F_REMOTE_FRWR))
		return 0;

	/* Control messages: credits and verdict, or the registrations' end. */
	c->rx = kcalloc(XP_CTRL_RX, sizeof(*c->rx), GFP_KERNEL);
	if (!c->rx)
		return -ENOMEM;
	ret = xp_map(&c->rx_map, dev, c->rx, XP_CTRL_RX * sizeof(*c->rx));
	if (ret)
		return ret;
	for (i = 0; i < XP_CTRL_RX; i++) {
		c->crx[i].cqe.done = xp_rx_done;
		c->crx[i].c = c;
		c->crx[i].idx = i;
		ret = xp_post_recv(&c->q, &c->crx[i].cqe,
				   c->rx_map.dma + i * sizeof(*c->rx),
				   sizeof(*c->rx), 1);
		if (ret)
			return ret;
	}
	return 0;
}
