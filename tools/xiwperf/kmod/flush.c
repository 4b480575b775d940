// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf RDMA Flush (XIWPERF_OP_FLUSH): each operation is an RDMA Write
 * of its region, then an RDMA Flush of that region (or of the whole chunk
 * MR) through xiw's kernel verbs (include/xiw/verbs.h). The operation is
 * the Flush: its completion says the data reached the state asked for at
 * the server. The Write completes on its own (XP_WR_PUT).
 */
#include "client.h"

/**
 * xp_flush_valid() - whether a run's flags go with its operation.
 * @run: the run's parameters.
 *
 * The flush flags are XIWPERF_OP_FLUSH's, which needs a disposition and
 * the server's fast registrations (only they have flush rights) unless a
 * fault is injected; of the faults, only a bad key or missing rights on
 * the Flush.
 *
 * Return: true if they go together.
 */
bool xp_flush_valid(const struct xiwperf_run *run)
{
	u32 flush_flags = XIWPERF_F_PERSIST | XIWPERF_F_GLOBAL |
			  XIWPERF_F_FLUSH_MR;

	if (run->op != XIWPERF_OP_FLUSH)
		return !(run->flags & flush_flags);
	if (!(run->flags & (XIWPERF_F_PERSIST | XIWPERF_F_GLOBAL)))
		return false;
	switch (run->inject) {
	case XIWPERF_INJECT_NONE:
		return run->flags & XIWPERF_F_REMOTE_FRWR;
	case XIWPERF_INJECT_STAG:
		return true;
	case XIWPERF_INJECT_RIGHTS:
		return run->flags & XIWPERF_F_REMOTE_FRWR;
	default:
		return false;
	}
}

/**
 * xp_flush_supported() - does the local device offer the Flush a run asks
 *	for?
 * @dev: the device.
 * @flags: the run's flags.
 *
 * Return: true if its device_cap_flags have IB_DEVICE_FLUSH_PERSISTENT
 * and IB_DEVICE_FLUSH_GLOBAL as needed.
 */
bool xp_flush_supported(const struct ib_device *dev, u32 flags)
{
	u64 caps = dev->attrs.device_cap_flags;

	return (!(flags & XIWPERF_F_PERSIST) ||
		(caps & IB_DEVICE_FLUSH_PERSISTENT)) &&
	       (!(flags & XIWPERF_F_GLOBAL) ||
		(caps & IB_DEVICE_FLUSH_GLOBAL));
}

/**
 * xp_flush_wr() - the Flush of a lane's operation.
 * @lane: the lane (c->lock held), its region chosen.
 * @wr: filled in, all of it; its remote address and key may then be
 *	changed by an injected fault.
 */
void xp_flush_wr(struct xp_lane *lane, struct xiw_flush_wr *wr)
{
	struct xp_client *cl = lane->c->cl;

	memset(wr, 0, sizeof(*wr));
	wr->wr.wr_cqe = &lane->cqe[XP_WR_OP];
	wr->wr.opcode = IB_WR_FLUSH;
	wr->wr.send_flags = IB_SEND_SIGNALED | XIW_SEND_EXT_WR;
	wr->remote_addr = lane->raddr;
	wr->rkey = lane->rkey;
	wr->length = cl->size;
	if (cl->flags & XIWPERF_F_PERSIST)
		wr->type |= IB_FLUSH_PERSISTENT;
	if (cl->flags & XIWPERF_F_GLOBAL)
		wr->type |= IB_FLUSH_GLOBAL;
	wr->level = cl->flags & XIWPERF_F_FLUSH_MR ? IB_FLUSH_MR :
						     IB_FLUSH_RANGE;
}

/**
 * xp_put_done() - the Write of a flush operation completed.
 * @cq: the CQ.
 * @wc: the completion.
 */
void xp_put_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_lane *lane = container_of(wc->wr_cqe, struct xp_lane,
					    cqe[XP_WR_PUT]);

	if (xp_lane_completes(lane, XP_WR_PUT, wc))
		xp_lane_step(lane);
}
