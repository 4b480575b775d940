// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf client: one run of XIWPERF_IOC_RUN, entirely within the ioctl.
 *
 * Each connection has @depth lanes; a lane carries one operation at a time
 * and owns a buffer of its own and one region of the server's buffer.
 * Completions (CQ callbacks, serialised per connection) record the
 * latency, verify data and start the lane's next operation. The ioctl
 * thread connects, posts the first operations, waits for the end (or a
 * failure, a signal, or no progress within the timeout) and tears down.
 *
 * Send tests are flow controlled by the server's credits: a Send is posted
 * only while the server has a receive posted for it. With --solicit the
 * server processes receives only when a solicited Send wakes it, so the
 * last Send and any Send that takes the last credit are solicited too:
 * the client never waits for something the server has not been woken for.
 *
 * With --mr frwr an operation is a chain of work requests: a fast
 * registration of the lane's buffer (a rotated key each time), the
 * operation through it, and its local invalidation (on iWARP an RDMA Read
 * invalidates by itself: IB_WR_RDMA_READ_WITH_INV). A lane tracks each
 * kind of work request it has outstanding, so a completion that comes
 * twice or never is seen whichever it is. With --inject the first
 * operation of connection 0 carries the fault (see xp_lane_inject()).
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/nsproxy.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <net/net_namespace.h>

#include "conn.h"
#include "hist.h"
#include "pattern.h"
#include "proto.h"
#include "xiwperf.h"

/* One attempt at resolving the server's address (see xp_resolve_addr()). */
#define XP_RESOLVE_MS	200U
/* Sanity limit on the server's chunk table. */
#define XP_MAX_CHUNKS	4096U

struct xp_client;
struct xp_cconn;

/* The work requests of a lane, bits of struct xp_lane.pending. */
enum xp_wr_kind {
	XP_WR_OP,		/* the operation */
	XP_WR_VERIFY,		/* reading its region back (or the probe) */
	XP_WR_REG,		/* --mr frwr: the registration */
	XP_WR_INV,		/* --mr frwr: the local invalidation */
	XP_WR_SEND_INV,		/* --inject: the Send with Invalidate */
	XP_WR_KINDS,
};

struct xp_lane {
	struct ib_cqe cqe[XP_WR_KINDS];	/* one per kind of work request */
	struct xp_cconn *c;
	u32 idx;
	u64 seq;
	u64 raddr;		/* its region of the server's buffer */
	u64 rpos;		/* that region's offset in the buffer */
	u32 rkey;		/* and the rkey of its chunk */
	u64 t_post;
	unsigned long pending;	/* XP_WR_* posted, not yet completed */
	bool verifying;		/* the read-back is posted (or the probe) */
	bool probe;		/* --inject: it is the probe, not checked */
	void *buf;		/* the operation's data */
	struct xp_map map;
	struct xp_frmr frmr;	/* --mr frwr */
	void *vbuf;		/* write --check: what was read back */
	struct xp_map vmap;
};

struct xp_crx {
	struct ib_cqe cqe;
	struct xp_cconn *c;
	u32 idx;
};

/* Connection setup progress, set by the event handler. */
enum xp_step {
	XP_STEP_NONE,
	XP_STEP_ADDR,
	XP_STEP_ROUTE,
	XP_STEP_ESTABLISHED,
	XP_STEP_REGISTERED,	/* --remote-mr frwr: c->registered (not stored) */
	XP_STEP_READY,		/* the server's chunk table is read */
	XP_STEP_FAILED,
};

struct xp_cconn {
	struct xp_client *cl;
	u32 index;
	struct rdma_cm_id *id;
	struct xp_qp q;
	int step;
	bool addr_timeout;
	bool established;
	bool registered;	/* XP_MSG_READY arrived */
	bool read_inv;		/* the device has IB_WR_RDMA_READ_WITH_INV */
	/* from the server's accept, and its chunk table */
	u64 rtable;
	u64 rsize;
	u32 rchunk;
	u32 nchunks;
	u32 rkey;		/* the table's, and the buffer's without rkeys */
	u32 ro_rkey;		/* --remote-mr frwr: chunk 0 read-only */
	u32 credits;
	void *table;
	struct xp_map table_map;
	struct ib_cqe tcqe;
	u64 *chunks;
	u32 *rkeys;		/* each chunk's */
	/* buffers */
	struct xp_msg *rx;
	struct xp_map rx_map;
	struct xp_crx crx[XP_CTRL_RX];
	struct xp_lane *lanes;
	/* lanes and credits, under lock */
	spinlock_t lock;
	u32 *free;
	u32 nfree;
	u64 total;
	u64 posted;
	u64 retired;
	u64 credit_limit;
	u64 solicited;
	bool verdict;
	bool finished;
	/* results: CQ callbacks only, read after teardown */
	struct xp_hist *hist;
	u64 completed;
	u64 registrations;
	u64 errors;
	u64 flushed;
	u32 wc_unexpected;
	u64 mismatches;
	u64 first_bad_seq;
	u64 first_bad_offset;
	u64 t_last;
	/* --solicit, --srq: from the server's verdict */
	u64 notifications;
	u64 first_batch;
	u32 srq_arms;
	u32 srq_crossed;
	u32 srq_events;
	u32 srq_stray;
};

struct xp_client {
	u32 op;
	u32 flags;
	u32 qps;
	u32 depth;
	u32 nsge;			/* SGEs per operation: min(sge, size) */
	u32 solicit;			/* --solicit N, or 0 */
	u32 inject;			/* enum xiwperf_inject */
	u32 wrs;			/* work requests per operation */
	u64 run_id;
	u64 size;
	u64 count;
	unsigned long timeout;		/* jiffies */
	u32 timeout_ms;
	struct sockaddr_storage dst;
	u64 nslot;			/* operation-sized regions at the server */
	u64 per_chunk;			/* of them in each chunk */
	struct xp_cconn **conns;
	wait_queue_head_t waitq;
	atomic_t running;		/* connections not finished */
	atomic64_t progress;		/* completions so far */
	bool stop;
	spinlock_t lock;		/* the first failure */
	struct xiwperf_result *res;
};

/* Record the first failure, stop every connection and wake the ioctl. */
static int xp_fail(struct xp_client *cl, int status, u32 reason)
{
	spin_lock_bh(&cl->lock);
	if (!cl->res->status) {
		cl->res->status = status;
		cl->res->reason = reason;
	}
	WRITE_ONCE(cl->stop, true);
	spin_unlock_bh(&cl->lock);
	wake_up(&cl->waitq);
	return status;
}

static void xp_fail_cm(struct xp_client *cl, int status, u32 reason,
		       int cm_status)
{
	spin_lock_bh(&cl->lock);
	if (!cl->res->status)
		cl->res->cm_status = cm_status;
	spin_unlock_bh(&cl->lock);
	xp_fail(cl, status, reason);
}

/* A device cannot do what was asked: enum xiwperf_unsupported, its limit. */
static int xp_fail_unsupported(struct xp_client *cl, int status, u32 what,
			       u32 limit)
{
	spin_lock_bh(&cl->lock);
	if (!cl->res->status) {
		cl->res->unsupported = what;
		cl->res->limit = limit;
	}
	spin_unlock_bh(&cl->lock);
	return xp_fail(cl, status, XIWPERF_REASON_UNSUPPORTED);
}

static void xp_fail_wc(struct xp_cconn *c, const struct ib_wc *wc)
{
	struct xp_client *cl = c->cl;

	/* The first failed completion, even if another failure came first. */
	spin_lock_bh(&cl->lock);
	if (cl->res->wc_status == IB_WC_SUCCESS)
		cl->res->wc_status = wc->status;
	spin_unlock_bh(&cl->lock);
	xp_fail(cl, -EIO, XIWPERF_REASON_WC);
}

static void xp_mismatch(struct xp_cconn *c, u64 seq, u64 off)
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

/* Under c->lock: true the first time everything of @c is done. */
static bool xp_cconn_done(struct xp_cconn *c)
{
	if (c->finished || c->retired < c->total ||
	    (c->cl->op == XIWPERF_OP_SEND && !c->verdict))
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

/* Length of chunk @ch of the server's buffer. */
static u64 xp_chunk_len(struct xp_cconn *c, u64 ch)
{
	return ch + 1 < c->nchunks ? c->rchunk :
	       c->rsize - (u64)(c->nchunks - 1) * c->rchunk;
}

/* A signaled RDMA Read of @len bytes at @raddr into @addr (one SGE). */
static void xp_read_wr(struct ib_rdma_wr *wr, struct ib_sge *sge,
		       struct ib_cqe *cqe, u64 addr, u32 len, u32 lkey,
		       u64 raddr, u32 rkey)
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

/*
 * The work requests of one operation, posted as one chain: what each is
 * and which XP_WR_* kind it completes as.
 */
struct xp_chain {
	struct ib_send_wr *wr[XP_WR_KINDS];
	u32 kind[XP_WR_KINDS];
	u32 n;
};

static void xp_chain_add(struct xp_chain *ch, struct ib_send_wr *wr, u32 kind)
{
	if (ch->n)
		ch->wr[ch->n - 1]->next = wr;
	wr->next = NULL;
	ch->wr[ch->n] = wr;
	ch->kind[ch->n++] = kind;
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
	ret = ib_post_send(c->q.qp, ch->wr[0], &bad);
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
 * --inject: the fault the first operation of connection 0 carries (c->lock
 * held). The remote address or key of @wr becomes the faulty one; a Send
 * with Invalidate goes first if the fault needs one (@sinv), and an RDMA
 * Write is followed by the probe (@probe, @psge): a Read of the region,
 * which cannot complete once the server has terminated the stream.
 */
static void xp_lane_inject(struct xp_lane *lane, struct xp_chain *ch,
			   struct ib_rdma_wr *wr, struct ib_send_wr *sinv,
			   struct ib_rdma_wr *probe, struct ib_sge *psge)
{
	struct xp_cconn *c = lane->c;
	struct xp_client *cl = c->cl;
	u64 chunk = div64_u64(lane->rpos, c->rchunk);

	switch (cl->inject) {
	case XIWPERF_INJECT_STAG:
		wr->rkey ^= 0xff;	/* the key byte of the STag */
		break;
	case XIWPERF_INJECT_BOUNDS:
		wr->remote_addr = c->chunks[chunk] + xp_chunk_len(c, chunk);
		break;
	case XIWPERF_INJECT_RIGHTS:
		wr->rkey = c->ro_rkey;	/* lane 0 of connection 0: chunk 0 */
		break;
	case XIWPERF_INJECT_WRAP:
		/* The first segment already wraps. */
		wr->remote_addr = U64_MAX - min_t(u64, cl->size, 16) / 2;
		break;
	case XIWPERF_INJECT_FOREIGN:
		/* Connection 1's key for the same region: another PD. */
		wr->rkey = c->rkeys ? cl->conns[1]->rkeys[chunk] :
				      cl->conns[1]->rkey;
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

/* Start the next operation on @lane (c->lock held). */
static int xp_lane_post(struct xp_lane *lane)
{
	struct xp_cconn *c = lane->c;
	struct xp_client *cl = c->cl;
	bool check = cl->flags & XIWPERF_F_CHECK;
	bool inl = cl->flags & XIWPERF_F_INLINE;
	bool frwr = cl->flags & XIWPERF_F_FRWR;
	struct ib_sge sge[XIWPERF_MAX_SGE], psge;
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &lane->cqe[XP_WR_OP],
			.sg_list = sge,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	struct ib_send_wr inv, sinv;
	struct ib_rdma_wr probe;
	struct ib_reg_wr reg;
	struct xp_chain ch = {};
	bool solicited = false;
	u64 addr, slot, chunk;
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
		int access = cl->op != XIWPERF_OP_READ ? 0 :
			     /* an iWARP Read's sink is written remotely */
			     IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;

		ret = xp_frmr_prepare(&lane->frmr, &reg, &lane->cqe[XP_WR_REG],
				      access);
		if (ret)
			return xp_fail(cl, ret, XIWPERF_REASON_RESOURCES);
		addr = lane->frmr.iova;
		lkey = lane->frmr.mr->lkey;
		xp_chain_add(&ch, &reg.wr, XP_WR_REG);
	}
	wr.wr.num_sge = xp_sge_split(sge, cl->nsge, addr, cl->size, lkey);
	if (inl)
		wr.wr.send_flags |= IB_SEND_INLINE;

	slot = ((u64)c->index * cl->depth + lane->idx) % cl->nslot;
	chunk = div64_u64(slot, cl->per_chunk);
	slot -= chunk * cl->per_chunk;
	lane->raddr = c->chunks[chunk] + slot * cl->size;
	lane->rpos = chunk * c->rchunk + slot * cl->size;
	lane->rkey = c->rkeys[chunk];
	switch (cl->op) {
	case XIWPERF_OP_SEND:
		wr.wr.opcode = IB_WR_SEND;
		solicited = xp_solicit(c, lane->seq);
		if (solicited)
			wr.wr.send_flags |= IB_SEND_SOLICITED;
		if (check)
			xp_pattern_fill(lane->buf, cl->size,
					xp_pattern_seed(cl->op, c->index,
							lane->seq), 0, false);
		break;
	case XIWPERF_OP_WRITE:
		wr.wr.opcode = IB_WR_RDMA_WRITE;
		if (check)
			xp_pattern_fill(lane->buf, cl->size,
					xp_pattern_seed(cl->op, c->index,
							lane->seq), 0, false);
		break;
	default:
		wr.wr.opcode = IB_WR_RDMA_READ;
		if (frwr && c->read_inv) {
			/* The sink's STag (sg_list[0].lkey) is invalidated. */
			wr.wr.opcode = IB_WR_RDMA_READ_WITH_INV;
			wr.wr.ex.invalidate_rkey = lkey;
		}
		if (check)	/* poison: the read must overwrite every byte */
			xp_pattern_fill(lane->buf, cl->size,
					xp_pattern_seed(cl->op, 0, 0),
					lane->rpos, true);
		break;
	}
	if (check)
		xp_sync_for_device(&lane->map, 0, cl->size);
	wr.remote_addr = lane->raddr;
	wr.rkey = lane->rkey;
	xp_chain_add(&ch, &wr.wr, XP_WR_OP);
	if (frwr && wr.wr.opcode != IB_WR_RDMA_READ_WITH_INV) {
		memset(&inv, 0, sizeof(inv));
		inv.wr_cqe = &lane->cqe[XP_WR_INV];
		inv.opcode = IB_WR_LOCAL_INV;
		inv.send_flags = IB_SEND_SIGNALED;
		/* Not before the Read's response has landed in the MR. */
		if (cl->op == XIWPERF_OP_READ)
			inv.send_flags |= IB_SEND_FENCE;
		inv.ex.invalidate_rkey = lkey;
		xp_chain_add(&ch, &inv, XP_WR_INV);
	}
	lane->verifying = false;
	lane->probe = false;
	if (cl->inject && !c->index && !lane->seq)
		xp_lane_inject(lane, &ch, &wr, &sinv, &probe, &psge);

	lane->t_post = ktime_get_ns();
	ret = xp_chain_post(lane, &ch);
	if (!ret && solicited)
		c->solicited++;
	return ret;
}

/* Start operations on idle lanes while there is work and credit. */
static void xp_lanes_fill(struct xp_cconn *c)
{
	struct xp_client *cl = c->cl;

	lockdep_assert_held(&c->lock);
	while (c->nfree && c->posted < c->total && !READ_ONCE(cl->stop)) {
		struct xp_lane *lane;

		if (cl->op == XIWPERF_OP_SEND && c->posted >= c->credit_limit)
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

/*
 * Post a signaled RDMA Read of @len bytes at @raddr of the server's buffer
 * into @addr (a device address), one SGE, through @rkey: the client's own
 * reads.
 */
static int xp_post_read(struct xp_cconn *c, struct ib_cqe *cqe, u64 addr,
			u32 len, u64 raddr, u32 rkey)
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

/*
 * Account for a completion of @lane's work request of kind @kind: false if
 * none was outstanding (a duplicate, counted and otherwise ignored), or
 * if it failed (counted, and the run fails). Posting and completing one
 * lane never overlap but for the bits of @lane->pending: a lane is posted
 * again only once all its work requests completed.
 */
static bool xp_lane_completes(struct xp_lane *lane, u32 kind,
			      const struct ib_wc *wc)
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
	return false;
}

/*
 * A work request of @lane completed successfully: once they all have,
 * read the written region back (write --check) or take the next
 * operation.
 */
static void xp_lane_step(struct xp_lane *lane)
{
	struct xp_client *cl = lane->c->cl;

	if (READ_ONCE(lane->pending))
		return;
	if (!lane->verifying && cl->op == XIWPERF_OP_WRITE &&
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

	if ((cl->flags & XIWPERF_F_CHECK) && cl->op == XIWPERF_OP_READ) {
		xp_sync_for_cpu(&lane->map, 0, cl->size);
		bad = xp_pattern_check(lane->buf, cl->size,
				       xp_pattern_seed(cl->op, 0, 0),
				       lane->rpos);
		if (bad != XP_PATTERN_OK)
			xp_mismatch(c, lane->seq, bad);
	}
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

static void xp_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_lane *lane = container_of(wc->wr_cqe, struct xp_lane,
					    cqe[XP_WR_REG]);

	if (!xp_lane_completes(lane, XP_WR_REG, wc))
		return;
	lane->c->registrations++;
	xp_lane_step(lane);
}

static void xp_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_lane *lane = container_of(wc->wr_cqe, struct xp_lane,
					    cqe[XP_WR_INV]);

	if (xp_lane_completes(lane, XP_WR_INV, wc))
		xp_lane_step(lane);
}

static void xp_sinv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_lane *lane = container_of(wc->wr_cqe, struct xp_lane,
					    cqe[XP_WR_SEND_INV]);

	if (xp_lane_completes(lane, XP_WR_SEND_INV, wc))
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

static int xp_client_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct xp_cconn *c = id->context;
	struct xp_client *cl = c->cl;
	const struct xp_accept *acc;
	struct xp_accept a = {};
	int step = XP_STEP_FAILED;
	u8 len;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		step = XP_STEP_ADDR;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		step = XP_STEP_ROUTE;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		WRITE_ONCE(c->established, true);
		len = ev->param.conn.private_data_len;
		/* A server that predates ro_rkey sends less: the rest is 0. */
		if (!ev->param.conn.private_data || len < XP_ACCEPT_MIN_LEN) {
			xp_fail(cl, -EPROTO, XIWPERF_REASON_PROTOCOL);
			break;
		}
		memcpy(&a, ev->param.conn.private_data,
		       min_t(size_t, len, sizeof(a)));
		if (be32_to_cpu(a.magic) != XP_MAGIC ||
		    be16_to_cpu(a.version) != XP_VERSION) {
			xp_fail(cl, -EPROTO, XIWPERF_REASON_PROTOCOL);
			break;
		}
		c->rtable = be64_to_cpu(a.table);
		c->rsize = be64_to_cpu(a.size);
		c->rchunk = be32_to_cpu(a.chunk);
		c->rkey = be32_to_cpu(a.rkey);
		c->ro_rkey = be32_to_cpu(a.ro_rkey);
		c->credits = be32_to_cpu(a.credits);
		if (!c->rsize || !c->rchunk ||
		    div64_u64(c->rsize + c->rchunk - 1, c->rchunk) >
		    XP_MAX_CHUNKS) {
			xp_fail(cl, -EPROTO, XIWPERF_REASON_PROTOCOL);
			break;
		}
		c->nchunks = div64_u64(c->rsize + c->rchunk - 1, c->rchunk);
		step = XP_STEP_ESTABLISHED;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		if (ev->status == -ETIMEDOUT) {
			/* xp_resolve_addr() tries again */
			WRITE_ONCE(c->addr_timeout, true);
			wake_up(&cl->waitq);
			return 0;
		}
		xp_fail_cm(cl, ev->status < 0 ? ev->status : -EHOSTUNREACH,
			   XIWPERF_REASON_ADDR, ev->status);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		xp_fail_cm(cl, ev->status < 0 ? ev->status : -EHOSTUNREACH,
			   XIWPERF_REASON_ROUTE, ev->status);
		break;
	case RDMA_CM_EVENT_REJECTED:
		acc = rdma_consumer_reject_data(id, ev, &len);
		if (acc && len >= XP_ACCEPT_MIN_LEN)
			memcpy(&a, acc, min_t(size_t, len, sizeof(a)));
		if (acc && len >= XP_ACCEPT_MIN_LEN &&
		    be32_to_cpu(a.magic) == XP_MAGIC &&
		    be16_to_cpu(a.reject) == XIWPERF_REJECT_UNSUPPORTED) {
			spin_lock_bh(&cl->lock);
			if (!cl->res->status)
				cl->res->remote_reason = XIWPERF_REJECT_UNSUPPORTED;
			spin_unlock_bh(&cl->lock);
			/* 0 from a server that predates the field: SGEs */
			xp_fail_unsupported(cl, -EOPNOTSUPP,
					    be16_to_cpu(a.unsupported) ?:
					    XIWPERF_UNSUPPORTED_RECV_SGE,
					    be32_to_cpu(a.limit));
		} else if (acc && len >= XP_ACCEPT_MIN_LEN &&
			   be32_to_cpu(a.magic) == XP_MAGIC) {
			spin_lock_bh(&cl->lock);
			if (!cl->res->status)
				cl->res->remote_reason = be16_to_cpu(a.reject);
			spin_unlock_bh(&cl->lock);
			xp_fail_cm(cl, -ECONNREFUSED, XIWPERF_REASON_REJECTED,
				   ev->status);
		} else {
			xp_fail_cm(cl, -ECONNREFUSED, XIWPERF_REASON_REFUSED,
				   ev->status);
		}
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		xp_fail_cm(cl, ev->status < 0 ? ev->status : -EHOSTUNREACH,
			   XIWPERF_REASON_UNREACHABLE, ev->status);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		/* Our own disconnect at teardown, or after a finished run. */
		if (!READ_ONCE(cl->stop) && atomic_read(&cl->running))
			xp_fail(cl, -ECONNRESET, XIWPERF_REASON_DISCONNECTED);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		xp_fail(cl, -ENODEV, XIWPERF_REASON_DEVICE_REMOVED);
		break;
	default:
		return 0;
	}
	if (step != XP_STEP_FAILED || READ_ONCE(c->step) < XP_STEP_ESTABLISHED)
		/* pairs with xp_wait_step(): the accept data comes first */
		smp_store_release(&c->step, step);
	wake_up(&cl->waitq);
	return 0;
}

static bool xp_step_reached(struct xp_cconn *c, int step)
{
	if (step == XP_STEP_REGISTERED)	/* pairs with xp_ctrl_msg() */
		return smp_load_acquire(&c->registered);
	/* pairs with the event handler's release: the accept data first */
	return smp_load_acquire(&c->step) >= step;
}

/* Wait for connection setup to reach @step. */
static int xp_wait_step(struct xp_cconn *c, int step)
{
	struct xp_client *cl = c->cl;
	long t;

	t = wait_event_interruptible_timeout(cl->waitq,
					     xp_step_reached(c, step) ||
					     READ_ONCE(c->addr_timeout) ||
					     READ_ONCE(cl->stop), cl->timeout);
	if (READ_ONCE(cl->stop))
		return -EIO;	/* the failure is recorded */
	if (t < 0)
		return xp_fail(cl, -EINTR, XIWPERF_REASON_INTERRUPTED);
	if (!t)
		return xp_fail(cl, -ETIMEDOUT, XIWPERF_REASON_TIMEOUT);
	return 0;
}

/*
 * Address resolution, in short attempts: the RDMA core retries a neighbour
 * lookup when a neighbour update arrives, but misses one that arrives
 * before the request is queued (as an ARP reply over veth does), and then
 * waits for the whole timeout. So ask for XP_RESOLVE_MS at a time, within
 * the run's timeout.
 */
static int xp_resolve_addr(struct xp_cconn *c)
{
	struct xp_client *cl = c->cl;
	unsigned long deadline = jiffies + cl->timeout;
	int ret;

	for (;;) {
		WRITE_ONCE(c->addr_timeout, false);
		ret = rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&cl->dst,
					min(cl->timeout_ms, XP_RESOLVE_MS));
		if (ret) {
			xp_fail_cm(cl, ret, XIWPERF_REASON_ADDR, ret);
			return ret;
		}
		ret = xp_wait_step(c, XP_STEP_ADDR);
		if (ret || !READ_ONCE(c->addr_timeout))
			return ret;
		if (time_after(jiffies, deadline)) {
			xp_fail_cm(cl, -ETIMEDOUT, XIWPERF_REASON_ADDR,
				   -ETIMEDOUT);
			return -ETIMEDOUT;
		}
	}
}

/* Bytes of the server's chunk table: addresses, then maybe rkeys. */
static size_t xp_table_len(struct xp_cconn *c)
{
	bool rkeys = c->cl->flags & XIWPERF_F_REMOTE_FRWR;

	return c->nchunks * (XP_TABLE_ADDR + (rkeys ? XP_TABLE_RKEY : 0));
}

static void xp_table_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_cconn *c = container_of(wc->wr_cqe, struct xp_cconn, tcqe);
	const __be64 *addr = c->table;
	const __be32 *rkey = c->table + c->nchunks * XP_TABLE_ADDR;
	u32 i;

	if (wc->status != IB_WC_SUCCESS) {
		xp_fail_wc(c, wc);
		return;
	}
	xp_sync_for_cpu(&c->table_map, 0, xp_table_len(c));
	for (i = 0; i < c->nchunks; i++) {
		c->chunks[i] = be64_to_cpu(addr[i]);
		c->rkeys[i] = c->cl->flags & XIWPERF_F_REMOTE_FRWR ?
			      be32_to_cpu(rkey[i]) : c->rkey;
	}
	/* pairs with xp_step_reached(): the chunk addresses come first */
	smp_store_release(&c->step, XP_STEP_READY);
	wake_up(&c->cl->waitq);
}

/* Read the server's chunk table (where each chunk of its buffer is). */
static int xp_read_table(struct xp_cconn *c)
{
	struct xp_client *cl = c->cl;
	size_t len = xp_table_len(c);
	int ret;

	c->table = kzalloc(len, GFP_KERNEL);
	c->chunks = kcalloc(c->nchunks, sizeof(*c->chunks), GFP_KERNEL);
	c->rkeys = kcalloc(c->nchunks, sizeof(*c->rkeys), GFP_KERNEL);
	if (!c->table || !c->chunks || !c->rkeys)
		return xp_fail(cl, -ENOMEM, XIWPERF_REASON_RESOURCES);
	ret = xp_map(&c->table_map, c->id->device, c->table, len);
	if (ret)
		return xp_fail(cl, ret, XIWPERF_REASON_RESOURCES);
	c->tcqe.done = xp_table_done;
	ret = xp_post_read(c, &c->tcqe, c->table_map.dma, len, c->rtable,
			   c->rkey);
	if (ret)
		return xp_fail(cl, ret, XIWPERF_REASON_POST);
	return xp_wait_step(c, XP_STEP_READY);
}

/* --mr frwr: an MR for the lane's buffer, if the device takes it. */
static int xp_lane_frmr(struct xp_lane *lane, u32 tag)
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

static int xp_cconn_buffers(struct xp_cconn *c)
{
	struct xp_client *cl = c->cl;
	struct ib_device *dev = c->id->device;
	/* the read-back of write --check, and the probe of an injection */
	bool verify = cl->op == XIWPERF_OP_WRITE &&
		      ((cl->flags & XIWPERF_F_CHECK) || cl->inject);
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
		lane->cqe[XP_WR_REG].done = xp_reg_done;
		lane->cqe[XP_WR_INV].done = xp_inv_done;
		lane->cqe[XP_WR_SEND_INV].done = xp_sinv_done;
		lane->c = c;
		lane->idx = i;
		c->free[i] = cl->depth - 1 - i;
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
	if (cl->op != XIWPERF_OP_SEND && !(cl->flags & XIWPERF_F_REMOTE_FRWR))
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

/*
 * The QP, once the device is known: it must take the operation's SGEs and
 * inline data as asked, or the run fails (never quietly with less).
 */
static int xp_cconn_qp(struct xp_cconn *c)
{
	struct xp_client *cl = c->cl;
	struct ib_device *dev = c->id->device;
	bool inl = cl->flags & XIWPERF_F_INLINE;
	bool ctrl = cl->op == XIWPERF_OP_SEND ||
		    (cl->flags & XIWPERF_F_REMOTE_FRWR);
	struct xp_qp_opts opts = {};
	struct ib_qp_cap cap = {
		/* an injection's Send with Invalidate and probe on top */
		.max_send_wr = cl->depth * cl->wrs + (cl->inject ? 2 : 0),
		.max_recv_wr = ctrl ? XP_CTRL_RX : 0,
		.max_send_sge = cl->nsge,
		.max_recv_sge = 1,
		.max_inline_data = inl ? cl->size : 0,
	};
	u32 limit = dev->attrs.max_send_sge;
	int ret;

	if (cl->op == XIWPERF_OP_READ)
		limit = min_t(u32, limit, dev->attrs.max_sge_rd);
	if (cl->nsge > limit)
		return xp_fail_unsupported(cl, -EOPNOTSUPP,
					   XIWPERF_UNSUPPORTED_SGE, limit);
	ret = xp_qp_create(&c->q, c->id, &opts, &cap);
	if (ret && inl && c->q.create_err)
		return xp_fail_unsupported(cl, ret, XIWPERF_UNSUPPORTED_INLINE,
					   0);
	if (ret)
		return xp_fail(cl, ret, XIWPERF_REASON_RESOURCES);
	if (inl && cap.max_inline_data < cl->size)
		return xp_fail_unsupported(cl, -EOPNOTSUPP,
					   XIWPERF_UNSUPPORTED_INLINE,
					   cap.max_inline_data);
	return 0;
}

/* Resolve, set up and connect connection @c. */
static int xp_cconn_connect(struct xp_cconn *c)
{
	struct xp_client *cl = c->cl;
	struct ib_device *dev;
	struct rdma_conn_param param = {};
	struct xp_hello hello = {};
	bool reads;
	int ret;

	c->id = rdma_create_id(current->nsproxy->net_ns, xp_client_cm_handler,
			       c, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(c->id)) {
		ret = PTR_ERR(c->id);
		c->id = NULL;
		return xp_fail(cl, ret, XIWPERF_REASON_RESOURCES);
	}
	ret = xp_resolve_addr(c);
	if (ret)
		return ret;
	dev = c->id->device;
	if (!c->index)
		strscpy(cl->res->device, dev_name(&dev->dev),
			sizeof(cl->res->device));
	ret = rdma_resolve_route(c->id, cl->timeout_ms);
	if (ret) {
		xp_fail_cm(cl, ret, XIWPERF_REASON_ROUTE, ret);
		return ret;
	}
	ret = xp_wait_step(c, XP_STEP_ROUTE);
	if (ret)
		return ret;

	ret = xp_cconn_qp(c);
	if (ret)
		return ret;
	c->read_inv = rdma_cap_read_inv(dev, c->id->port_num);
	ret = xp_cconn_buffers(c);
	if (ret)
		return xp_fail(cl, ret, XIWPERF_REASON_RESOURCES);

	hello.magic = cpu_to_be32(XP_MAGIC);
	hello.version = cpu_to_be16(XP_VERSION);
	hello.op = cl->op;
	hello.flags = cl->flags & XIWPERF_F_CHECK;
	if (cl->flags & XIWPERF_F_SOLICIT)
		hello.flags |= XP_HELLO_SOLICITED;
	if (cl->flags & XIWPERF_F_SRQ)
		hello.flags |= XP_HELLO_SRQ;
	if (cl->flags & XIWPERF_F_REMOTE_FRWR)
		hello.flags |= XP_HELLO_REMOTE_FRWR;
	if (cl->inject == XIWPERF_INJECT_INVALIDATED ||
	    cl->inject == XIWPERF_INJECT_DMA_INVALIDATE)
		hello.flags |= XP_HELLO_INV_RECV;
	hello.size = cpu_to_be32(cl->size);
	hello.depth = cpu_to_be32(cl->depth);
	hello.count = cpu_to_be64(c->total);
	hello.qp_index = cpu_to_be32(c->index);
	hello.sge = cpu_to_be32(cl->nsge);
	hello.run_id = cpu_to_be64(cl->run_id);
	hello.qps = cpu_to_be32(cl->qps);
	/* Every run reads the chunk table; some read all along. */
	reads = cl->op == XIWPERF_OP_READ ||
		(cl->op == XIWPERF_OP_WRITE &&
		 ((cl->flags & XIWPERF_F_CHECK) || cl->inject));
	param.private_data = &hello;
	param.private_data_len = sizeof(hello);
	param.initiator_depth = min3(reads ? cl->depth : 1, 255U,
				     (u32)dev->attrs.max_qp_init_rd_atom);
	param.responder_resources = 0;
	param.retry_count = 7;
	param.rnr_retry_count = 6;
	/*
	 * From this (the caller's) context: an iWARP provider may open its
	 * TCP socket right here, in the caller's network namespace (siw even
	 * connects it here, blocking until TCP succeeds, fails or a signal
	 * arrives).
	 */
	ret = rdma_connect(c->id, &param);
	if (ret && signal_pending(current))
		return xp_fail(cl, -EINTR, XIWPERF_REASON_INTERRUPTED);
	if (ret) {
		xp_fail_cm(cl, ret, ret == -ECONNREFUSED ?
			   XIWPERF_REASON_REFUSED : XIWPERF_REASON_UNREACHABLE,
			   ret);
		return ret;
	}
	ret = xp_wait_step(c, XP_STEP_ESTABLISHED);
	if (ret)
		return ret;
	/* The rkeys in the table work once the server registered. */
	if (cl->flags & XIWPERF_F_REMOTE_FRWR) {
		ret = xp_wait_step(c, XP_STEP_REGISTERED);
		if (ret)
			return ret;
	}
	return xp_read_table(c);
}

static void xp_cconn_destroy(struct xp_cconn *c)
{
	u32 i;

	if (c->id) {
		xp_qp_destroy(&c->q, READ_ONCE(c->established));
		for (i = 0; c->lanes && i < c->cl->depth; i++)
			xp_frmr_free(&c->lanes[i].frmr);
		xp_qp_free_pd(&c->q);
		/* Unmap while the id still holds the device. */
		for (i = 0; c->lanes && i < c->cl->depth; i++) {
			xp_unmap(&c->lanes[i].map);
			xp_unmap(&c->lanes[i].vmap);
		}
		xp_unmap(&c->rx_map);
		xp_unmap(&c->table_map);
		rdma_destroy_id(c->id);
	}
	kfree(c->chunks);
	kfree(c->rkeys);
	kfree(c->table);
	for (i = 0; c->lanes && i < c->cl->depth; i++) {
		xp_buf_free(c->lanes[i].vbuf);
		xp_buf_free(c->lanes[i].buf);
	}
	kfree(c->rx);
	xp_hist_free(c->hist);
	kfree(c->free);
	kfree(c->lanes);
	kfree(c);
}

/* All connections up: check the server's buffer, post, wait for the end. */
static int xp_client_go(struct xp_client *cl, u64 *t_start)
{
	struct xiwperf_result *res = cl->res;
	struct xp_cconn *c0 = cl->conns[0];
	u64 last;
	long t;
	u32 i;

	res->remote_size = c0->rsize;
	for (i = 1; i < cl->qps; i++)
		if (cl->conns[i]->rsize != c0->rsize ||
		    cl->conns[i]->rchunk != c0->rchunk)
			return xp_fail(cl, -EPROTO, XIWPERF_REASON_PROTOCOL);
	/* Regions of @size never straddle two chunks. */
	cl->per_chunk = div64_u64(c0->rchunk, cl->size);
	cl->nslot = (c0->nchunks - 1) * cl->per_chunk +
		    div64_u64(c0->rsize - (u64)(c0->nchunks - 1) * c0->rchunk,
			      cl->size);
	res->regions = min_t(u64, cl->nslot, U32_MAX);
	if (!cl->nslot ||
	    (cl->op == XIWPERF_OP_WRITE && (cl->flags & XIWPERF_F_CHECK) &&
	     cl->nslot < (u64)cl->qps * cl->depth))
		return xp_fail(cl, -EMSGSIZE, XIWPERF_REASON_REMOTE_TOO_SMALL);

	*t_start = ktime_get_ns();
	for (i = 0; i < cl->qps; i++) {
		struct xp_cconn *c = cl->conns[i];

		spin_lock_bh(&c->lock);
		c->credit_limit = c->credits;
		xp_lanes_fill(c);
		spin_unlock_bh(&c->lock);
	}
	for (;;) {
		last = atomic64_read(&cl->progress);
		t = wait_event_interruptible_timeout(cl->waitq,
						     !atomic_read(&cl->running) ||
						     READ_ONCE(cl->stop),
						     cl->timeout);
		if (READ_ONCE(cl->stop))
			return -EIO;	/* the failure is recorded */
		if (!atomic_read(&cl->running))
			return 0;
		if (t < 0)
			return xp_fail(cl, -EINTR, XIWPERF_REASON_INTERRUPTED);
		if (!t && atomic64_read(&cl->progress) == last)
			return xp_fail(cl, -ETIMEDOUT, XIWPERF_REASON_TIMEOUT);
	}
}

static void xp_client_results(struct xp_client *cl, struct xiwperf_run *run,
			      u64 t_start, int ret)
{
	struct xiwperf_result *res = cl->res;
	struct xp_hist *all = xp_hist_alloc();
	u64 first_batch = U64_MAX;
	u64 t_end = t_start;
	bool srq = false;
	u32 i, j;

	for (i = 0; i < cl->qps && cl->conns[i]; i++) {
		struct xp_cconn *c = cl->conns[i];

		res->completed += c->completed;
		run->registrations += c->registrations;
		res->errors += c->errors;
		res->flushed += c->flushed;
		res->wc_unexpected += c->wc_unexpected;
		for (j = 0; c->lanes && j < cl->depth; j++)
			res->wc_missing += hweight_long(c->lanes[j].pending);
		/* One SRQ for the run: every verdict has its final figures. */
		if (c->verdict && (cl->flags & XIWPERF_F_SRQ) && !srq) {
			srq = true;
			run->srq_arms = c->srq_arms;
			run->srq_crossed = c->srq_crossed;
			run->srq_limit_events = c->srq_events;
			res->srq_stray_events = c->srq_stray;
		}
		if (c->mismatches && !res->mismatches) {
			res->first_bad_qp = i;
			res->first_bad_seq = c->first_bad_seq;
			res->first_bad_offset = c->first_bad_offset;
		}
		res->mismatches += c->mismatches;
		res->solicited += c->solicited;
		if (c->verdict && cl->solicit) {
			res->notifications += c->notifications;
			first_batch = min(first_batch, c->first_batch);
		}
		if (c->completed)
			t_end = max(t_end, c->t_last);
		if (all && c->hist)
			xp_hist_merge(all, c->hist);
	}
	if (first_batch != U64_MAX)
		res->first_batch = min_t(u64, first_batch, U32_MAX);
	res->bytes = res->completed * cl->size;
	res->nsec = t_end - t_start;
	if (all && all->n) {
		res->lat_min_ns = all->min;
		res->lat_max_ns = all->max;
		res->lat_mean_ns = div64_u64(all->sum, all->n);
		res->lat_p50_ns = xp_hist_percentile(all, 500);
		res->lat_p99_ns = xp_hist_percentile(all, 990);
	}
	xp_hist_free(all);
	res->checked = !ret && (cl->flags & XIWPERF_F_CHECK);
	res->data_ok = res->checked && !res->mismatches;
	res->depth = cl->depth;
	res->status = ret;
}

/* Whether the fault and flags of @run go together. */
static bool xp_inject_valid(const struct xiwperf_run *run)
{
	bool remote_frwr = run->flags & XIWPERF_F_REMOTE_FRWR;

	switch (run->inject) {
	case XIWPERF_INJECT_NONE:
		return true;
	case XIWPERF_INJECT_STAG:
	case XIWPERF_INJECT_DMA_INVALIDATE:
	case XIWPERF_INJECT_WRAP:
		return run->op != XIWPERF_OP_SEND;
	case XIWPERF_INJECT_FOREIGN:
		return run->op != XIWPERF_OP_SEND && run->qps >= 2;
	case XIWPERF_INJECT_BOUNDS:
	case XIWPERF_INJECT_INVALIDATED:
		return run->op != XIWPERF_OP_SEND && remote_frwr;
	case XIWPERF_INJECT_RIGHTS:
		return run->op == XIWPERF_OP_WRITE && remote_frwr;
	default:
		return false;
	}
}

static int xp_run_valid(const struct xiwperf_run *run)
{
	bool solicit = run->flags & XIWPERF_F_SOLICIT;
	bool send = run->op == XIWPERF_OP_SEND;

	if (run->op < XIWPERF_OP_SEND || run->op > XIWPERF_OP_READ ||
	    (run->flags & XIWPERF_F_INLINE && run->op == XIWPERF_OP_READ) ||
	    (run->flags & XIWPERF_F_INLINE && run->flags & XIWPERF_F_FRWR) ||
	    (run->flags & XIWPERF_F_REMOTE_FRWR && send) ||
	    (run->flags & XIWPERF_F_SRQ && (!send || solicit)) ||
	    !xp_inject_valid(run) ||
	    run->sge > XIWPERF_MAX_SGE ||
	    (solicit && !send) || solicit != !!run->solicit ||
	    !run->qps || run->qps > XIWPERF_MAX_QPS ||
	    !run->depth || run->depth > XIWPERF_MAX_DEPTH ||
	    !run->size || run->size > XIWPERF_MAX_SIZE ||
	    run->size * run->depth * run->qps > XIWPERF_MAX_MEMORY ||
	    run->count < run->qps)
		return -EINVAL;
	return 0;
}

/*
 * Work requests one operation takes at most: --mr frwr adds its
 * registration and invalidation (which an iWARP Read does itself).
 */
static u32 xp_wrs_per_op(const struct xiwperf_run *run)
{
	return run->flags & XIWPERF_F_FRWR ? 3 : 1;
}

/**
 * xp_client_run() - run a client test (XIWPERF_IOC_RUN).
 * @run: parameters; run->result is filled in.
 *
 * Connects run->qps connections to the server one after the other, runs
 * the operations and tears every connection down (disconnect, drain,
 * destroy) before returning, whatever happened.
 *
 * Return: 0 if every operation completed (the data verdict is in
 * run->result), -EINVAL for bad parameters (run->result untouched), else
 * the negative errno also stored in run->result.status.
 */
int xp_client_run(struct xiwperf_run *run)
{
	struct xiwperf_result *res = &run->result;
	struct xp_client *cl;
	u64 t_start = 0;
	u32 i, rem;
	int ret;

	ret = xp_run_valid(run);
	if (ret)
		return ret;
	cl = kzalloc(sizeof(*cl), GFP_KERNEL);
	if (!cl)
		return -ENOMEM;
	memset(res, 0, sizeof(*res));
	run->srq_arms = 0;
	run->registrations = 0;
	run->srq_crossed = 0;
	run->srq_limit_events = 0;
	cl->res = res;
	cl->op = run->op;
	cl->flags = run->flags;
	cl->qps = run->qps;
	cl->depth = run->depth;
	cl->size = run->size;
	cl->count = run->count;
	cl->nsge = min_t(u64, run->sge ?: 1, run->size);
	cl->solicit = run->solicit;
	cl->inject = run->inject;
	cl->wrs = xp_wrs_per_op(run);
	cl->run_id = get_random_u64();
	cl->timeout_ms = run->timeout_ms ?: XIWPERF_DEFAULT_TIMEOUT_MS;
	cl->timeout = msecs_to_jiffies(cl->timeout_ms);
	init_waitqueue_head(&cl->waitq);
	spin_lock_init(&cl->lock);
	ret = xp_sockaddr(&cl->dst, &run->addr);
	if (ret) {
		kfree(cl);
		return ret;
	}

	/* From here on a disconnect by the server fails the run. */
	atomic_set(&cl->running, cl->qps);
	cl->conns = kcalloc(cl->qps, sizeof(*cl->conns), GFP_KERNEL);
	if (!cl->conns) {
		ret = xp_fail(cl, -ENOMEM, XIWPERF_REASON_RESOURCES);
		goto out;
	}
	for (i = 0; i < cl->qps; i++) {
		struct xp_cconn *c = kzalloc(sizeof(*c), GFP_KERNEL);

		if (!c) {
			ret = xp_fail(cl, -ENOMEM, XIWPERF_REASON_RESOURCES);
			goto out;
		}
		c->cl = cl;
		c->index = i;
		spin_lock_init(&c->lock);
		c->total = div_u64_rem(cl->count, cl->qps, &rem) +
			   (i < rem ? 1 : 0);
		cl->conns[i] = c;
		ret = xp_cconn_connect(c);
		if (ret)
			goto out;
	}
	ret = xp_client_go(cl, &t_start);
out:
	spin_lock_bh(&cl->lock);
	WRITE_ONCE(cl->stop, true);
	if (ret)
		ret = res->status ?: ret;
	spin_unlock_bh(&cl->lock);
	for (i = 0; cl->conns && i < cl->qps && cl->conns[i]; i++)
		xp_qp_destroy(&cl->conns[i]->q,
			      READ_ONCE(cl->conns[i]->established));
	/* Every completion has run now: collect, then free. */
	xp_client_results(cl, run, t_start, ret);
	for (i = 0; cl->conns && i < cl->qps && cl->conns[i]; i++)
		xp_cconn_destroy(cl->conns[i]);
	kfree(cl->conns);
	kfree(cl);
	return ret;
}
