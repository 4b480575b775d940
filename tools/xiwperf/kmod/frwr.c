// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf fast registration (FRWR), of the client's lane buffers and of the
 * server's buffer; the MRs themselves are conn.c's (struct xp_frmr).
 *
 * Client, --mr frwr: an operation is a chain of work requests: a fast
 * registration of the lane's buffer (a rotated key each time), the
 * operation through it, and its local invalidation (on iWARP an RDMA Read
 * invalidates by itself: IB_WR_RDMA_READ_WITH_INV).
 *
 * Server, XP_HELLO_REMOTE_FRWR (the client's --remote-mr frwr): a
 * connection registers the buffer with one MR per chunk, whose rkeys go in
 * the chunk table (with the remote atomic right for atomic operations),
 * and chunk 0 once more read-only; it posts the registrations once
 * connected, and after them XP_MSG_READY.
 */
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "client.h"
#include "server.h"

/*
 * Access rights of a chunk's registration (for atomic operations with
 * IB_ACCESS_REMOTE_ATOMIC too), and of chunk 0's read-only one.
 */
#define XP_CHUNK_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)
#define XP_RO_ACCESS	IB_ACCESS_REMOTE_READ

/**
 * xp_lane_frmr() - --mr frwr: an MR for the lane's buffer, if the device
 *	takes it.
 * @lane: the lane, its buffer mapped.
 * @tag: gives the lane's addresses their own range (see struct xp_frmr).
 *
 * Return: 0, -EOPNOTSUPP (the run failed with XIWPERF_UNSUPPORTED_FRWR)
 * if the device has no fast registration or too short a page list for the
 * buffer, or the error of xp_frmr_alloc().
 */
int xp_lane_frmr(struct xp_lane *lane, u32 tag)
{
	struct xp_cconn *c = lane->c;
	struct ib_device *dev = c->id->device;
	u32 limit = dev->attrs.max_fast_reg_page_list_len;

	if (!(dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) ||
	    xp_frmr_pages(&lane->map) > limit)
		return xp_fail_unsupported(c->cl, -EOPNOTSUPP,
					   XIWPERF_UNSUPPORTED_FRWR, limit);
	return xp_frmr_alloc(&lane->frmr, c->q.pd, &lane->map, tag);
}

/**
 * xp_lane_frwr_reg() - --mr frwr: begin an operation's chain with the
 *	registration of the lane's buffer.
 * @lane: the lane (c->lock held).
 * @ch: the operation's chain, empty.
 * @reg: filled in: the registration, to post with @ch.
 * @addr: set to the buffer's address through the registration.
 * @lkey: set to the registration's key.
 *
 * Return: 0, or the status of the run's failure if the device did not map
 * the buffer.
 */
int xp_lane_frwr_reg(struct xp_lane *lane, struct xp_chain *ch,
		     struct ib_reg_wr *reg, u64 *addr, u32 *lkey)
{
	struct xp_client *cl = lane->c->cl;
	int access = 0;
	int ret;

	/* An iWARP Read's sink is written remotely; an atomic's locally. */
	if (cl->op == XIWPERF_OP_READ)
		access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	else if (cl->atomic)
		access = IB_ACCESS_LOCAL_WRITE;

	ret = xp_frmr_prepare(&lane->frmr, reg, &lane->cqe[XP_WR_REG], access);
	if (ret)
		return xp_fail(cl, ret, XIWPERF_REASON_RESOURCES);
	*addr = lane->frmr.iova;
	*lkey = lane->frmr.mr->lkey;
	xp_chain_add(ch, &reg->wr, XP_WR_REG);
	return 0;
}

/**
 * xp_lane_frwr_inv() - --mr frwr: end an operation's chain with the
 *	invalidation of the registration.
 * @lane: the lane (c->lock held).
 * @ch: the operation's chain, the operation last.
 * @wr: the operation.
 * @inv: filled in: the local invalidation, to post with @ch, unless the
 *	operation invalidates by itself.
 *
 * An RDMA Read on a device that has IB_WR_RDMA_READ_WITH_INV becomes one;
 * anything else is followed by an IB_WR_LOCAL_INV (fenced after a Read or
 * an atomic operation, whose response lands in the MR).
 */
void xp_lane_frwr_inv(struct xp_lane *lane, struct xp_chain *ch,
		      struct ib_send_wr *wr, struct ib_send_wr *inv)
{
	struct xp_cconn *c = lane->c;
	u32 lkey = lane->frmr.mr->lkey;

	if (wr->opcode == IB_WR_RDMA_READ && c->read_inv) {
		/* The sink's STag (sg_list[0].lkey) is invalidated. */
		wr->opcode = IB_WR_RDMA_READ_WITH_INV;
		wr->ex.invalidate_rkey = lkey;
		return;
	}
	memset(inv, 0, sizeof(*inv));
	inv->wr_cqe = &lane->cqe[XP_WR_INV];
	inv->opcode = IB_WR_LOCAL_INV;
	inv->send_flags = IB_SEND_SIGNALED;
	/* Not before the response has landed in the MR. */
	if (c->cl->op == XIWPERF_OP_READ || c->cl->atomic)
		inv->send_flags |= IB_SEND_FENCE;
	inv->ex.invalidate_rkey = lkey;
	xp_chain_add(ch, inv, XP_WR_INV);
}

/**
 * xp_lane_reg_done() - a lane's registration completed.
 * @cq: the CQ.
 * @wc: the completion.
 */
void xp_lane_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_lane *lane = container_of(wc->wr_cqe, struct xp_lane,
					    cqe[XP_WR_REG]);

	if (!xp_lane_completes(lane, XP_WR_REG, wc))
		return;
	lane->c->registrations++;
	xp_lane_step(lane);
}

/**
 * xp_lane_inv_done() - a lane's local invalidation completed.
 * @cq: the CQ.
 * @wc: the completion.
 */
void xp_lane_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_lane *lane = container_of(wc->wr_cqe, struct xp_lane,
					    cqe[XP_WR_INV]);

	if (xp_lane_completes(lane, XP_WR_INV, wc))
		xp_lane_step(lane);
}

/* A signaled fast registration completed (flushed, or failed). */
static void xp_sconn_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_sconn *c = container_of(wc->wr_cqe, struct xp_sconn, reg_cqe);

	if (wc->status == IB_WC_SUCCESS)
		return;
	xp_sconn_error(c, wc);
	if (wc->status != IB_WC_WR_FLUSH_ERR) {
		mutex_lock(&c->lock);
		xp_sconn_break(c);
		mutex_unlock(&c->lock);
	}
}

/**
 * xp_sconn_setup_frwr() - XP_HELLO_REMOTE_FRWR: an MR per chunk and the
 *	read-only one of chunk 0, with the registrations to post once
 *	connected, ready: their rkeys are known from here on.
 * @c: the connection, its chunks mapped (c->chunk_maps).
 *
 * Return: 0 or a negative errno; what was made is released by the
 * connection's teardown.
 */
int xp_sconn_setup_frwr(struct xp_sconn *c)
{
	u32 i, n = c->srv->nchunks;
	int access = XP_CHUNK_ACCESS;
	int ret;

	if (xp_op_atomic(c->op))
		access |= IB_ACCESS_REMOTE_ATOMIC;
	if (c->op == XIWPERF_OP_FLUSH)
		access |= IB_ACCESS_FLUSH_GLOBAL | IB_ACCESS_FLUSH_PERSISTENT;

	c->frmr = kcalloc(n + 1, sizeof(*c->frmr), GFP_KERNEL);
	c->reg_wr = kcalloc(n + 1, sizeof(*c->reg_wr), GFP_KERNEL);
	if (!c->frmr || !c->reg_wr)
		return -ENOMEM;
	c->reg_cqe.done = xp_sconn_reg_done;
	for (i = 0; i <= n; i++) {
		u32 chunk = i < n ? i : 0;

		/* Chunk 0's two MRs cover the same addresses. */
		ret = xp_frmr_alloc(&c->frmr[i], c->q.pd, &c->chunk_maps[chunk],
				    chunk + 1);
		if (ret)
			return ret;
		ret = xp_frmr_prepare(&c->frmr[i], &c->reg_wr[i], &c->reg_cqe,
				      i < n ? access : XP_RO_ACCESS);
		if (ret)
			return ret;
		if (i)
			c->reg_wr[i - 1].wr.next = &c->reg_wr[i].wr;
	}
	return 0;
}

/**
 * xp_frwr_supported() - can a device register each chunk of the server's
 *	buffer by fast registration?
 * @srv: the server.
 * @dev: the device.
 * @limit: set to the device's longest page list.
 *
 * Return: true if it can.
 */
bool xp_frwr_supported(const struct xp_server *srv, struct ib_device *dev,
		       u32 *limit)
{
	u32 i;

	*limit = dev->attrs.max_fast_reg_page_list_len;
	if (!(dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		return false;
	for (i = 0; i < srv->nchunks; i++) {
		/* A mapping keeps the offset in the page. */
		struct xp_map m = {
			.dma = (uintptr_t)srv->chunks[i],
			.len = xp_server_chunk_len(srv, i),
		};

		if (xp_frmr_pages(&m) > *limit)
			return false;
	}
	return true;
}

/**
 * xp_sconn_post_frwr() - connected, XP_HELLO_REMOTE_FRWR: post the
 *	registrations, and after them (so sent once they are done) the
 *	message saying so.
 * @c: the connection.
 */
void xp_sconn_post_frwr(struct xp_sconn *c)
{
	int ret;

	ret = ib_post_send(c->q.qp, &c->reg_wr[0].wr, NULL);
	mutex_lock(&c->lock);
	if (ret) {
		pr_debug("connection %u: posting the registrations failed: %d\n",
			 c->qp_index, ret);
		xp_sconn_break(c);
	} else {
		c->ready_due = true;
		xp_sconn_send_ctrl(c);
	}
	mutex_unlock(&c->lock);
}
