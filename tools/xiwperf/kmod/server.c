// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf server: an rdma_cm listener in the caller's network namespace and
 * one buffer that every connection may read and write through the device's
 * global rkey (it is pre-filled with the read pattern). The buffer is a
 * series of physically contiguous chunks; each connection gets a table of
 * their addresses, which its client reads first. For Send tests a
 * connection also posts receives, checks each message, returns credits as
 * it reposts them and finally sends its verdict; so it does for the
 * Immediate Data operations, whose receives have no buffer and whose
 * every completion is checked (xp_imm_check()). A client running with
 * --solicit gets its receives taken from a solicited-only CQ (see
 * xp_qp_create()), whose notifications the verdict reports.
 *
 * With XP_HELLO_REMOTE_FRWR a connection registers the buffer by fast
 * registration instead (one MR per chunk, rkeys in the chunk table, and a
 * read-only MR of chunk 0) and tells the client when that is done: see
 * frwr.c. The atomic operations need nothing of the server but that its
 * device takes them (a connection is rejected otherwise) and, for those
 * registrations, the remote atomic right. With XP_HELLO_SRQ all
 * connections of a client run share one SRQ (struct xp_srq_group): see
 * srq.c for its credits and limit arming. With XP_HELLO_INV_RECV a
 * connection posts the receive of an injected Send with Invalidate
 * (inject.c).
 *
 * Lifetime: connections are set up in the connect-request handler and live
 * on srv->conns. A disconnect (or error) event queues conn->release, which
 * tears the connection down; xp_server_destroy() tears down the rest.
 * Whoever takes a connection off the list under srv->lock owns its
 * teardown; the event handler only queues the release of a listed one.
 */
#include <linux/bitops.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>

#include "pattern.h"
#include "server.h"

#define XP_SRV_BACKLOG		64
/* Hello flags this server knows. */
#define XP_HELLO_FLAGS	(XIWPERF_F_CHECK | XP_HELLO_SOLICITED | XP_HELLO_SRQ | \
			 XP_HELLO_REMOTE_FRWR | XP_HELLO_INV_RECV | XP_HELLO_IMM | \
			 XP_HELLO_TINY_RCQ)

/**
 * xp_sconn_error() - a work request of a connection failed: count it,
 *	unless it was flushed.
 * @c: the connection.
 * @wc: its completion.
 */
void xp_sconn_error(struct xp_sconn *c, const struct ib_wc *wc)
{
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		return;
	atomic64_inc(&c->srv->errors);
	pr_debug("connection %u: %s failed: %s\n", c->qp_index,
		 wc->opcode & IB_WC_RECV ? "receive" : "send",
		 ib_wc_status_msg(wc->status));
}

/**
 * xp_sconn_break() - a connection that can no longer work: let the client
 *	see it fail.
 * @c: the connection (c->lock held).
 */
void xp_sconn_break(struct xp_sconn *c)
{
	if (c->broken)
		return;
	c->broken = true;
	atomic64_inc(&c->srv->errors);
	rdma_disconnect(c->q.id);
}

static void xp_tx_done(struct ib_cq *cq, struct ib_wc *wc);

/* The control message due next on @c, 0 if none. */
static u32 xp_sconn_ctrl_due(const struct xp_sconn *c)
{
	if (c->ready_due && !c->ready_sent)
		return XP_MSG_READY;
	if (c->verdict_due && !c->verdict_sent)
		return XP_MSG_VERDICT;
	if (xp_op_recv(c->op) && !c->verdict_due &&
	    c->reposted - c->credited >= c->batch)
		return XP_MSG_CREDIT;
	return 0;
}

/* How much of struct xp_msg the client of @c takes. */
static u32 xp_sconn_msg_len(const struct xp_sconn *c)
{
	if (c->use_srq)
		return sizeof(struct xp_msg);
	return c->solicited ? XP_MSG_SOLICITED_LEN : XP_MSG_BASE_LEN;
}

/**
 * xp_sconn_send_ctrl() - send the control messages that are due.
 * @c: the connection (c->lock held).
 *
 * That the fast registrations are done, credits for reposted receives,
 * the verdict: as many as there are free message buffers; the rest when
 * a send completes.
 */
void xp_sconn_send_ctrl(struct xp_sconn *c)
{
	lockdep_assert_held(&c->lock);
	while (!c->broken) {
		struct xp_tslot *ts;
		struct xp_msg *m;
		unsigned int i;
		int ret;
		struct ib_sge sge;
		struct ib_send_wr wr = {
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		};
		u32 type = xp_sconn_ctrl_due(c);

		if (!type)
			return;
		i = find_first_zero_bit(&c->tx_busy, XP_CTRL_TX);
		if (i >= XP_CTRL_TX)
			return;		/* again when a send completes */

		m = &c->tx[i];
		memset(m, 0, sizeof(*m));
		m->magic = cpu_to_be32(XP_MAGIC);
		m->type = cpu_to_be32(type);
		if (type == XP_MSG_VERDICT) {
			m->value = cpu_to_be64(c->received);
			m->mismatches = cpu_to_be64(c->mismatches);
			m->first_bad_seq = cpu_to_be64(c->first_bad_seq);
			m->first_bad_offset = cpu_to_be64(c->first_bad_offset);
			m->notifications = cpu_to_be64(c->notifications);
			m->first_batch = cpu_to_be64(c->first_batch);
			m->srq_arms = cpu_to_be32(c->srq_arms);
			m->srq_crossed = cpu_to_be32(c->srq_crossed);
			m->srq_events = cpu_to_be32(c->srq_events);
			m->srq_stray = cpu_to_be32(c->srq_stray);
		} else if (type == XP_MSG_CREDIT) {
			m->value = cpu_to_be64(c->reposted);
		}
		xp_sync_for_device(&c->tx_map, i * sizeof(*m), sizeof(*m));
		ts = &c->tslots[i];
		sge.addr = c->tx_map.dma + i * sizeof(*m);
		sge.length = type == XP_MSG_READY ? XP_MSG_BASE_LEN :
			     xp_sconn_msg_len(c);
		sge.lkey = c->q.pd->local_dma_lkey;
		wr.wr_cqe = &ts->cqe;
		ret = ib_post_send(c->q.qp, &wr, NULL);
		if (ret) {
			pr_debug("connection %u: posting a control message failed: %d\n",
				 c->qp_index, ret);
			xp_sconn_break(c);
			return;
		}
		__set_bit(i, &c->tx_busy);
		if (type == XP_MSG_READY)
			c->ready_sent = true;
		else if (type == XP_MSG_VERDICT)
			c->verdict_sent = true;
		else
			c->credited = c->reposted;
	}
}

static void xp_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_tslot *ts = container_of(wc->wr_cqe, struct xp_tslot, cqe);
	struct xp_sconn *c = ts->conn;

	mutex_lock(&c->lock);
	__clear_bit(ts->idx, &c->tx_busy);
	if (wc->status != IB_WC_SUCCESS)
		xp_sconn_error(c, wc);
	else
		xp_sconn_send_ctrl(c);
	mutex_unlock(&c->lock);
}

/* Count a wrong message; keep the first one's place for the verdict. */
static void xp_recv_mismatch(struct xp_sconn *c, u64 seq, u64 off)
{
	if (!c->mismatches++) {
		c->first_bad_seq = seq;
		c->first_bad_offset = off;
	}
	atomic64_inc(&c->srv->mismatches);
}

/* Check a received Send message against the pattern (--check). */
static void xp_recv_check(struct xp_sconn *c, struct xp_rslot *rs, u32 len,
			  u64 seq)
{
	size_t bad = len;

	xp_sync_for_cpu(&rs->map, 0, c->size);
	if (len == c->size)
		bad = xp_pattern_check(rs->buf, c->size,
				       xp_pattern_seed(XIWPERF_OP_SEND,
						       c->qp_index, seq), 0);
	if (bad != XP_PATTERN_OK)
		xp_recv_mismatch(c, seq, bad);
}

/*
 * XIWPERF_OP_WRITE_IMM --check: whether the region of message @seq holds
 * its pattern; the offset of the first wrong byte in @bad if not. The
 * client writes operation k into region (q * r + k % r) % nslot, r being
 * the receives it was granted (@nrecv), so operation k + r, which may
 * overwrite it, is posted only once this message was checked and its
 * receive reposted (a credit).
 */
static bool xp_imm_region_ok(struct xp_sconn *c, u64 seq, u64 *bad)
{
	struct xp_server *srv = c->srv;
	u64 slot, chunk, off;
	size_t b;

	if (!c->nslot || !c->per_chunk || !c->nrecv)
		return true;	/* the client does not run then */
	div64_u64_rem(seq, c->nrecv, &slot);
	div64_u64_rem((u64)c->qp_index * c->nrecv + slot, c->nslot, &slot);
	chunk = div64_u64(slot, c->per_chunk);
	off = (slot - chunk * c->per_chunk) * c->size;
	xp_sync_for_cpu(&c->chunk_maps[chunk], off, c->size);
	b = xp_pattern_check(srv->chunks[chunk] + off, c->size,
			     xp_pattern_seed(XIWPERF_OP_WRITE_IMM, c->qp_index,
					     seq), 0);
	*bad = b;
	return b == XP_PATTERN_OK;
}

/*
 * An Immediate Data message's receive completion (successful): the
 * opcode, IB_WC_WITH_IMM, no payload, the immediate value (the message's
 * sequence number modulo 2^32, or the fixed value), and with --check the
 * RDMA Write's data, which RFC 7306 places before the message completes.
 * False, with the offset to report in @bad, if any of it is wrong.
 */
static bool xp_imm_check(struct xp_sconn *c, const struct ib_wc *wc,
			 u64 seq, u64 *bad)
{
	bool write = c->op == XIWPERF_OP_WRITE_IMM;
	u32 want = c->imm_fixed ? c->imm : lower_32_bits(seq);

	*bad = XIWPERF_BAD_COMPLETION;
	if (wc->opcode != (write ? IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV) ||
	    !(wc->wc_flags & IB_WC_WITH_IMM) || wc->byte_len ||
	    be32_to_cpu(wc->ex.imm_data) != want) {
		pr_debug("connection %u: message %llu: opcode %d, flags %#x, %u bytes, immediate %#x (expected %#x)\n",
			 c->qp_index, seq, wc->opcode, wc->wc_flags,
			 wc->byte_len, be32_to_cpu(wc->ex.imm_data), want);
		return false;
	}
	if (!write || !(c->flags & XIWPERF_F_CHECK))
		return true;
	return xp_imm_region_ok(c, seq, bad);
}

/**
 * xp_recv_verify() - check a message a receive took (successfully).
 * @c: the connection that received it (c->lock held).
 * @rs: the receive.
 * @wc: its completion.
 * @seq: the message's sequence number on @c.
 *
 * A Send's payload with --check; every Immediate Data message (see
 * xp_imm_check()). A mismatch is counted; the first one's place is kept
 * for the verdict.
 */
void xp_recv_verify(struct xp_sconn *c, struct xp_rslot *rs,
		    const struct ib_wc *wc, u64 seq)
{
	u64 bad;

	if (xp_op_imm(c->op)) {
		if (!xp_imm_check(c, wc, seq, &bad))
			xp_recv_mismatch(c, seq, bad);
		return;
	}
	if (c->flags & XIWPERF_F_CHECK)
		xp_recv_check(c, rs, wc->byte_len, seq);
}

static void xp_recv_one(struct xp_sconn *c, struct xp_rslot *rs,
			const struct ib_wc *wc)
{
	u64 seq;

	if (wc->status != IB_WC_SUCCESS) {
		xp_sconn_error(c, wc);
		return;
	}
	seq = c->received++;
	atomic64_inc(&c->srv->received);
	xp_recv_verify(c, rs, wc, seq);

	if (xp_post_recv(&c->q, &rs->cqe, rs->map.dma, c->rlen, c->nsge)) {
		xp_sconn_break(c);
		return;
	}
	c->reposted++;
	if (c->received == c->count) {
		c->verdict_due = true;
		if (c->solicited) {
			c->notifications = atomic64_read(&c->q.notifications);
			c->first_batch = xp_qp_first_batch(&c->q);
		}
	}
	xp_sconn_send_ctrl(c);
}

static void xp_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_rslot *rs = container_of(wc->wr_cqe, struct xp_rslot, cqe);
	struct xp_sconn *c = rs->conn;

	mutex_lock(&c->lock);
	xp_recv_one(c, rs, wc);
	mutex_unlock(&c->lock);
}

/* Control message buffers: credits, verdict, the registrations' end. */
static int xp_sconn_setup_ctrl(struct xp_sconn *c)
{
	u32 i;

	c->tx = kcalloc(XP_CTRL_TX, sizeof(*c->tx), GFP_KERNEL);
	if (!c->tx)
		return -ENOMEM;
	for (i = 0; i < XP_CTRL_TX; i++) {
		c->tslots[i].cqe.done = xp_tx_done;
		c->tslots[i].conn = c;
		c->tslots[i].idx = i;
	}
	return xp_map(&c->tx_map, c->q.id->device, c->tx,
		      XP_CTRL_TX * sizeof(*c->tx));
}

/*
 * Receive buffers of a Send test, on the connection's own queue; an
 * Immediate Data test's receives have none.
 */
static int xp_sconn_setup_recv(struct xp_sconn *c)
{
	struct ib_device *dev = c->q.id->device;
	u32 i;
	int ret;

	c->rslots = kcalloc(c->nrecv, sizeof(*c->rslots), GFP_KERNEL);
	if (!c->rslots)
		return -ENOMEM;
	for (i = 0; i < c->nrecv; i++) {
		struct xp_rslot *rs = &c->rslots[i];

		rs->cqe.done = xp_recv_done;
		rs->conn = c;
		rs->idx = i;
		if (c->rlen) {
			rs->buf = xp_buf_alloc(c->rlen);
			if (!rs->buf)
				return -ENOMEM;
			ret = xp_map(&rs->map, dev, rs->buf, c->rlen);
			if (ret)
				return ret;
		}
		ret = xp_post_recv(&c->q, &rs->cqe, rs->map.dma, c->rlen,
				   c->nsge);
		if (ret)
			return ret;
	}
	return 0;
}

/* Release what xp_sconn_setup() made, except the rdma_cm id. */
static void xp_sconn_put(struct xp_sconn *c)
{
	u32 i;

	if (c->group) {
		/* No credits, no verdict for it from here on. */
		mutex_lock(&c->group->lock);
		list_del_init(&c->gnode);
		mutex_unlock(&c->group->lock);
	}
	xp_qp_destroy(&c->q, c->accepted);
	for (i = 0; c->frmr && i <= c->srv->nchunks; i++)
		xp_frmr_free(&c->frmr[i]);
	xp_qp_free_pd(&c->q);
	if (c->group)
		xp_group_put(c->group);
	c->group = NULL;
	for (i = 0; c->chunk_maps && i < c->srv->nchunks; i++)
		xp_unmap(&c->chunk_maps[i]);
	xp_unmap(&c->table_map);
	for (i = 0; c->rslots && i < c->nrecv; i++)
		xp_unmap(&c->rslots[i].map);
	xp_unmap(&c->inv.map);
	xp_unmap(&c->tx_map);
}

static void xp_sconn_free(struct xp_sconn *c)
{
	u32 i;

	for (i = 0; c->rslots && i < c->nrecv; i++)
		xp_buf_free(c->rslots[i].buf);
	kfree(c->rslots);
	xp_buf_free(c->inv.buf);
	kfree(c->tx);
	kfree(c->table);
	kfree(c->chunk_maps);
	kfree(c->frmr);
	kfree(c->reg_wr);
	mutex_destroy(&c->lock);
	kfree(c);
}

/* Tear down a connection taken off srv->conns. */
static void xp_sconn_destroy(struct xp_sconn *c)
{
	struct xp_server *srv = c->srv;

	xp_sconn_put(c);
	rdma_destroy_id(c->q.id);
	if (c->accepted)
		atomic_dec(&srv->active);
	xp_sconn_free(c);
}

static void xp_sconn_release(struct work_struct *work)
{
	struct xp_sconn *c = container_of(work, struct xp_sconn, release);
	struct xp_server *srv = c->srv;

	spin_lock_bh(&srv->lock);
	if (list_empty(&c->node)) {
		spin_unlock_bh(&srv->lock);
		return;		/* xp_server_destroy() has it */
	}
	list_del_init(&c->node);
	spin_unlock_bh(&srv->lock);
	xp_sconn_destroy(c);
}

static void xp_sconn_queue_release(struct xp_sconn *c)
{
	struct xp_server *srv = c->srv;

	spin_lock_bh(&srv->lock);
	if (!list_empty(&c->node))
		queue_work(srv->wq, &c->release);
	spin_unlock_bh(&srv->lock);
}

/* Parse a connect request into @c; false if it is not a valid one. */
static bool xp_hello_parse(struct xp_sconn *c, const struct rdma_cm_event *ev)
{
	u8 len = ev->param.conn.private_data_len;
	struct xp_hello h = {};
	u32 sge;

	/* A client that predates run_id sends less: the rest reads as 0. */
	if (!ev->param.conn.private_data || len < XP_HELLO_MIN_LEN)
		return false;
	memcpy(&h, ev->param.conn.private_data, min_t(size_t, len, sizeof(h)));
	if (be32_to_cpu(h.magic) != XP_MAGIC ||
	    be16_to_cpu(h.version) != XP_VERSION)
		return false;
	c->op = h.op;
	c->flags = h.flags;
	c->size = be32_to_cpu(h.size);
	c->depth = be32_to_cpu(h.depth);
	c->count = be64_to_cpu(h.count);
	c->qp_index = be32_to_cpu(h.qp_index);
	sge = be32_to_cpu(h.sge) ?: 1;
	/* Immediate Data receives take no payload: no buffer, no SGE. */
	c->rlen = c->op == XIWPERF_OP_SEND ? c->size : 0;
	c->nsge = min(sge, c->rlen);
	c->run_id = be64_to_cpu(h.run_id);
	c->qps = be32_to_cpu(h.qps);
	c->solicited = c->flags & XP_HELLO_SOLICITED;
	c->use_srq = c->flags & XP_HELLO_SRQ;
	c->frwr = c->flags & XP_HELLO_REMOTE_FRWR;
	c->inv_recv = c->flags & XP_HELLO_INV_RECV;
	c->imm_fixed = c->flags & XP_HELLO_IMM;
	c->imm = be32_to_cpu(h.imm);
	return c->op >= XIWPERF_OP_SEND && c->op <= XP_OP_LAST &&
	       !(c->flags & ~XP_HELLO_FLAGS) &&
	       (!c->solicited || xp_op_recv(c->op)) &&
	       (!(c->flags & XP_HELLO_TINY_RCQ) || c->solicited) &&
	       (!c->use_srq || (xp_op_recv(c->op) && !c->solicited &&
				c->qps && c->qps <= XIWPERF_MAX_QPS &&
				c->qp_index < c->qps)) &&
	       /* SRQ credits do not wait for a connection's own checks */
	       !(c->use_srq && c->op == XIWPERF_OP_WRITE_IMM &&
		 (c->flags & XIWPERF_F_CHECK)) &&
	       (!c->frwr || (c->op != XIWPERF_OP_SEND &&
			     c->op != XIWPERF_OP_IMM)) &&
	       (!c->inv_recv || !xp_op_recv(c->op)) &&
	       /* a Verify's hello carries the hash where @imm goes */
	       (xp_op_imm(c->op) ||
		(c->op == XIWPERF_OP_VERIFY ? !c->imm_fixed :
					      !c->imm_fixed && !c->imm)) &&
	       (c->op == XIWPERF_OP_IMM ? !c->size : c->size) &&
	       c->size <= XIWPERF_MAX_SIZE && c->depth &&
	       c->depth <= XIWPERF_MAX_DEPTH && c->count &&
	       sge <= XIWPERF_MAX_SGE;
}

/**
 * xp_server_chunk_len() - length of a chunk of the server's buffer.
 * @srv: the server.
 * @i: the chunk's index.
 *
 * Return: its length in bytes.
 */
size_t xp_server_chunk_len(const struct xp_server *srv, u32 i)
{
	return min(srv->chunk, srv->size - i * srv->chunk);
}

/*
 * Map the buffer's chunks for this connection's device, register them if
 * asked to, and build the table: the chunks' addresses, then (fast
 * registration) their rkeys.
 */
static int xp_sconn_map_chunks(struct xp_sconn *c)
{
	struct xp_server *srv = c->srv;
	struct ib_device *dev = c->q.id->device;
	size_t len = srv->nchunks * (XP_TABLE_ADDR + (c->frwr ? XP_TABLE_RKEY : 0));
	__be64 *addr;
	__be32 *rkey;
	u32 i;
	int ret;

	c->chunk_maps = kcalloc(srv->nchunks, sizeof(*c->chunk_maps),
				GFP_KERNEL);
	c->table = kzalloc(len, GFP_KERNEL);
	if (!c->chunk_maps || !c->table)
		return -ENOMEM;
	for (i = 0; i < srv->nchunks; i++) {
		ret = xp_map(&c->chunk_maps[i], dev, srv->chunks[i],
			     xp_server_chunk_len(srv, i));
		if (ret)
			return ret;
	}
	if (c->frwr) {
		ret = xp_sconn_setup_frwr(c);
		if (ret)
			return ret;
	}
	addr = c->table;
	rkey = c->table + srv->nchunks * XP_TABLE_ADDR;
	for (i = 0; i < srv->nchunks; i++) {
		if (c->frwr) {
			addr[i] = cpu_to_be64(c->frmr[i].iova);
			rkey[i] = cpu_to_be32(c->frmr[i].mr->rkey);
		} else {
			addr[i] = cpu_to_be64(c->chunk_maps[i].dma);
		}
	}
	return xp_map(&c->table_map, dev, c->table, len);
}

/*
 * Resources of an accepted connection; returns an enum xiwperf_reject, and
 * for XIWPERF_REJECT_UNSUPPORTED what the device cannot do in @what and
 * its limit in @limit.
 */
static int xp_sconn_setup(struct xp_sconn *c, struct rdma_cm_id *id,
			  u32 *limit, u32 *what)
{
	struct ib_device *dev = id->device;
	struct ib_qp_cap cap = { .max_send_sge = 1, .max_recv_sge = 1 };
	struct xp_qp_opts opts = {
		.pd_flags = IB_PD_UNSAFE_GLOBAL_RKEY,
		.solicited = c->solicited,
		.tiny_rcq = c->flags & XP_HELLO_TINY_RCQ,
		.async = &c->srv->async,
	};
	int why;

	if (!xp_backing_device_ok(c->srv, dev)) {
		*what = XIWPERF_UNSUPPORTED_BACKING;
		*limit = 0;
		return XIWPERF_REJECT_UNSUPPORTED;
	}
	/* The run's hash (in the hello) against the one the server sets. */
	if (c->op == XIWPERF_OP_VERIFY && c->srv->hash && c->imm != c->srv->hash) {
		*what = XIWPERF_UNSUPPORTED_HASH;
		*limit = c->srv->hash;
		return XIWPERF_REJECT_UNSUPPORTED;
	}
	/*
	 * No check of the server's atomic_cap: a device without atomics
	 * refuses them on the wire, which is worth seeing.
	 */
	if (c->frwr) {
		if (!xp_frwr_supported(c->srv, dev, limit)) {
			*what = XIWPERF_UNSUPPORTED_REMOTE_FRWR;
			return XIWPERF_REJECT_UNSUPPORTED;
		}
		/* the registrations, then the message saying so */
		cap.max_send_wr = c->srv->nchunks + 1 + XP_CTRL_TX;
	}
	if (xp_op_recv(c->op)) {
		/* Receives take the SGEs of the client's Sends, never fewer. */
		if (c->nsge > dev->attrs.max_recv_sge) {
			*what = XIWPERF_UNSUPPORTED_RECV_SGE;
			*limit = dev->attrs.max_recv_sge;
			return XIWPERF_REJECT_UNSUPPORTED;
		}
		cap.max_send_wr = max(cap.max_send_wr, XP_CTRL_TX);
		cap.max_recv_sge = max(c->nsge, 1U);
		if (c->use_srq) {
			why = xp_group_get(c, dev, limit, what);
			if (why)
				return why;
			opts.pd = c->group->pd;
			opts.srq = c->group->srq;
			/* Its CQ takes whatever it may take from the SRQ. */
			cap.max_recv_wr = c->group->nrecv;
			c->batch = 1;
		} else {
			c->nrecv = min3(2 * c->depth,
					c->rlen ? max(1U, XP_SRV_RECV_BYTES /
							  c->rlen) : U32_MAX,
					(u32)max(dev->attrs.max_qp_wr - 1, 1));
			c->batch = DIV_ROUND_UP(c->nrecv, 2);
			cap.max_recv_wr = c->nrecv;
		}
	} else if (c->inv_recv) {
		cap.max_recv_wr = 1;
	}
	if (c->op == XIWPERF_OP_WRITE_IMM) {
		struct xp_server *srv = c->srv;
		size_t last = xp_server_chunk_len(srv, srv->nchunks - 1);

		/* The client's regions of @size, as it counts them. */
		c->per_chunk = srv->chunk / c->size;
		c->nslot = (u64)(srv->nchunks - 1) * c->per_chunk +
			   last / c->size;
	}
	if (xp_qp_create(&c->q, id, &opts, &cap))
		return XIWPERF_REJECT_RESOURCES;
	if (xp_sconn_map_chunks(c))
		return XIWPERF_REJECT_RESOURCES;
	if (c->op == XIWPERF_OP_VERIFY && c->frwr &&
	    xp_sconn_setup_verify(c, c->imm)) {
		*what = XIWPERF_UNSUPPORTED_VERIFY;
		*limit = 0;
		return XIWPERF_REJECT_UNSUPPORTED;
	}
	if ((xp_op_recv(c->op) || c->frwr) && xp_sconn_setup_ctrl(c))
		return XIWPERF_REJECT_RESOURCES;
	if (xp_op_recv(c->op) && !c->use_srq && xp_sconn_setup_recv(c))
		return XIWPERF_REJECT_RESOURCES;
	if (c->inv_recv && xp_sconn_setup_inv(c))
		return XIWPERF_REJECT_RESOURCES;
	if (c->use_srq)
		xp_group_join(c);
	return 0;
}

static int xp_reject(struct xp_server *srv, struct rdma_cm_id *id, u16 why,
		     u32 what, u32 limit)
{
	struct xp_accept rej = {
		.magic = cpu_to_be32(XP_MAGIC),
		.version = cpu_to_be16(XP_VERSION),
		.reject = cpu_to_be16(why),
		.limit = cpu_to_be32(limit),
		.unsupported = cpu_to_be16(what),
	};

	atomic64_inc(&srv->rejected);
	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	return -ECONNREFUSED;	/* the RDMA CM destroys the new id */
}

static int xp_connect_request(struct xp_server *srv, struct rdma_cm_id *id,
			      const struct rdma_cm_event *ev)
{
	struct ib_device *dev = id->device;
	struct rdma_conn_param param = {};
	struct xp_accept acc = {};
	struct xp_sconn *c;
	u32 limit = 0, what = 0;
	int why, ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return xp_reject(srv, id, XIWPERF_REJECT_RESOURCES, 0, 0);
	c->kind = XP_KIND_CONN;
	c->srv = srv;
	INIT_LIST_HEAD(&c->node);
	INIT_LIST_HEAD(&c->gnode);
	INIT_WORK(&c->release, xp_sconn_release);
	mutex_init(&c->lock);
	c->q.id = id;
	id->context = c;

	if (!xp_hello_parse(c, ev)) {
		why = XIWPERF_REJECT_PROTOCOL;
		goto reject;
	}
	why = xp_sconn_setup(c, id, &limit, &what);
	if (why)
		goto reject;

	acc.magic = cpu_to_be32(XP_MAGIC);
	acc.version = cpu_to_be16(XP_VERSION);
	acc.table = cpu_to_be64(c->table_map.dma);
	acc.size = cpu_to_be64(srv->size);
	acc.chunk = cpu_to_be32(srv->chunk);
	acc.rkey = cpu_to_be32(c->q.pd->unsafe_global_rkey);
	acc.credits = cpu_to_be32(c->use_srq ? c->share : c->nrecv);
	if (c->frwr)
		acc.ro_rkey = cpu_to_be32(c->frmr[srv->nchunks].mr->rkey);
	param.private_data = &acc;
	param.private_data_len = sizeof(acc);
	/*
	 * Clients read (the chunk table at least): offer the device's whole
	 * IRD. The request's figure is no guide without MPA revision 2's
	 * negotiation: siw then reports 0. The event states the initiator
	 * depth from this side's point of view already.
	 */
	param.responder_resources = dev->attrs.max_qp_rd_atom;
	param.initiator_depth = min_t(u32, ev->param.conn.initiator_depth,
				      dev->attrs.max_qp_init_rd_atom);
	param.rnr_retry_count = 6;
	ret = rdma_accept(id, &param);
	if (ret) {
		pr_debug("accept failed: %d\n", ret);
		atomic64_inc(&srv->rejected);
		xp_sconn_put(c);
		xp_sconn_free(c);
		return ret;	/* the RDMA CM destroys the new id */
	}
	c->accepted = true;
	atomic64_inc(&srv->connections);
	atomic_inc(&srv->active);
	if (c->group)
		xp_group_live(c);
	/*
	 * Listed only now: no other event of this id runs before this handler
	 * returns, and xp_server_destroy() collects connections only after
	 * the listener (whose handler lock this request holds) is destroyed.
	 */
	spin_lock_bh(&srv->lock);
	list_add_tail(&c->node, &srv->conns);
	spin_unlock_bh(&srv->lock);
	return 0;

reject:
	xp_sconn_put(c);
	xp_sconn_free(c);
	return xp_reject(srv, id, why, what, limit);
}

static int xp_server_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum xp_kind *kind = id->context;
	struct xp_server *srv;
	struct xp_sconn *c;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		srv = container_of(kind, struct xp_server, kind);
		return xp_connect_request(srv, id, ev);
	}
	if (*kind == XP_KIND_SERVER) {
		srv = container_of(kind, struct xp_server, kind);
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			WRITE_ONCE(srv->failed, -ENODEV);
			wake_up(&srv->waitq);
		}
		return 0;
	}
	c = container_of(kind, struct xp_sconn, kind);
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		if (c->frwr)
			xp_sconn_post_frwr(c);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		xp_sconn_queue_release(c);
		break;
	default:
		break;
	}
	return 0;
}

/**
 * xp_server_listen() - start a server (XIWPERF_IOC_LISTEN).
 * @srvp: set to the new server on success.
 * @arg: the request; the bound port, buffer size and device are filled in.
 *
 * Return: 0 or a negative errno (-EADDRINUSE, -ENODEV for an address
 * without an RDMA device, -ENOMEM, ...).
 */
int xp_server_listen(struct xp_server **srvp, struct xiwperf_listen *arg)
{
	struct sockaddr_storage ss;
	struct xp_server *srv;
	struct rdma_cm_id *id;
	struct sockaddr *sa;
	u32 i;
	int ret;

	ret = xp_sockaddr(&ss, &arg->addr);
	if (ret)
		return ret;
	if (!arg->size)
		arg->size = XIWPERF_DEFAULT_BUF;
	if (arg->size > XIWPERF_MAX_BUF)
		return -EINVAL;

	srv = kzalloc(sizeof(*srv), GFP_KERNEL);
	if (!srv)
		return -ENOMEM;
	srv->kind = XP_KIND_SERVER;
	spin_lock_init(&srv->lock);
	INIT_LIST_HEAD(&srv->conns);
	mutex_init(&srv->group_lock);
	INIT_LIST_HEAD(&srv->groups);
	init_waitqueue_head(&srv->waitq);
	srv->size = arg->size;
	srv->hash = arg->hash;
	srv->chunk = min_t(size_t, XP_CHUNK, KMALLOC_MAX_SIZE);
	srv->nchunks = DIV_ROUND_UP(srv->size, srv->chunk);
	ret = -ENOMEM;
	srv->chunks = kcalloc(srv->nchunks, sizeof(*srv->chunks), GFP_KERNEL);
	if (!srv->chunks)
		goto err;
	if (arg->flags & XIWPERF_LISTEN_BACKED) {
		ret = xp_backing_pin(srv, arg->backing);
		if (ret)
			goto err;
		ret = -ENOMEM;
	}
	for (i = 0; i < srv->nchunks; i++) {
		size_t len = xp_server_chunk_len(srv, i);

		if (!srv->pages)
			srv->chunks[i] = xp_buf_alloc(len);
		if (!srv->chunks[i])
			goto err;
		xp_pattern_fill(srv->chunks[i], len,
				xp_pattern_seed(XIWPERF_OP_READ, 0, 0),
				(u64)i * srv->chunk, false);
	}
	if (srv->pages)
		xp_backing_dirty(srv);
	srv->wq = alloc_workqueue("xiwperf_srv", WQ_UNBOUND, 0);
	if (!srv->wq)
		goto err;

	id = rdma_create_id(current->nsproxy->net_ns, xp_server_cm_handler,
			    &srv->kind, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto err;
	}
	srv->listen = id;
	ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (ret)
		goto err;
	ret = rdma_listen(id, XP_SRV_BACKLOG);
	if (ret)
		goto err;

	sa = (struct sockaddr *)&id->route.addr.src_addr;
	if (sa->sa_family == AF_INET6)
		arg->addr.port = ntohs(((struct sockaddr_in6 *)sa)->sin6_port);
	else
		arg->addr.port = ntohs(((struct sockaddr_in *)sa)->sin_port);
	memset(arg->device, 0, sizeof(arg->device));
	if (id->device)
		strscpy(arg->device, dev_name(&id->device->dev),
			sizeof(arg->device));
	*srvp = srv;
	return 0;

err:
	xp_server_destroy(srv);
	return ret;
}

/**
 * xp_server_serve() - serve until interrupted (XIWPERF_IOC_SERVE).
 * @srv: the server.
 * @st: filled in with the server's counters, however this returns.
 *
 * Connections are accepted and served by event handlers and CQ callbacks;
 * this only waits.
 *
 * Return: -EINTR when a signal arrived, -ENODEV if the listener's device
 * went away.
 */
int xp_server_serve(struct xp_server *srv, struct xiwperf_serve *st)
{
	int ret;

	ret = wait_event_interruptible(srv->waitq, READ_ONCE(srv->failed));
	st->connections = atomic64_read(&srv->connections);
	st->active = atomic_read(&srv->active);
	st->rejected = atomic64_read(&srv->rejected);
	st->received = atomic64_read(&srv->received);
	st->mismatches = atomic64_read(&srv->mismatches);
	st->errors = atomic64_read(&srv->errors);
	st->qp_fatal_events = atomic_read(&srv->async.qp_fatal);
	st->qp_req_err_events = atomic_read(&srv->async.qp_req_err);
	st->qp_access_err_events = atomic_read(&srv->async.qp_access_err);
	st->cq_err_events = atomic_read(&srv->async.cq_err);
	return ret ? -EINTR : READ_ONCE(srv->failed);
}

/**
 * xp_server_destroy() - stop listening, tear down every connection, free.
 * @srv: the server (possibly partly set up by xp_server_listen()).
 */
void xp_server_destroy(struct xp_server *srv)
{
	struct xp_sconn *c;
	u32 i;

	/* No connect request handler runs once the listener is gone. */
	if (srv->listen)
		rdma_destroy_id(srv->listen);
	for (;;) {
		spin_lock_bh(&srv->lock);
		c = list_first_entry_or_null(&srv->conns, struct xp_sconn, node);
		if (c)
			list_del_init(&c->node);
		spin_unlock_bh(&srv->lock);
		if (!c)
			break;
		cancel_work_sync(&c->release);
		xp_sconn_destroy(c);
	}
	/* Releases that took their connection off the list themselves. */
	if (srv->wq)
		destroy_workqueue(srv->wq);
	if (srv->pages)
		xp_backing_release(srv);
	for (i = 0; srv->chunks && i < srv->nchunks; i++)
		xp_buf_free(srv->chunks[i]);
	kfree(srv->chunks);
	/* The last connection of each group freed it. */
	WARN_ON(!list_empty(&srv->groups));
	mutex_destroy(&srv->group_lock);
	kfree(srv);
}
