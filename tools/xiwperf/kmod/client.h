/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiwperf client internals: what the files of the client share. client.c
 * runs XIWPERF_IOC_RUN and sets up its connections, lane.c carries the
 * operations and their completions, frwr.c the fast registrations of
 * --mr frwr and inject.c the faults of --inject.
 */
#ifndef XIWPERF_CLIENT_H
#define XIWPERF_CLIENT_H

#include <linux/atomic.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "conn.h"
#include "proto.h"
#include "xiwperf.h"

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

/*
 * The work requests of one operation, posted as one chain: what each is
 * and which XP_WR_* kind it completes as.
 */
struct xp_chain {
	struct ib_send_wr *wr[XP_WR_KINDS];
	u32 kind[XP_WR_KINDS];
	u32 n;
};

/* client.c */
int xp_fail(struct xp_client *cl, int status, u32 reason);
int xp_fail_unsupported(struct xp_client *cl, int status, u32 what,
			u32 limit);
void xp_fail_wc(struct xp_cconn *c, const struct ib_wc *wc);

/* lane.c */
void xp_read_wr(struct ib_rdma_wr *wr, struct ib_sge *sge,
		struct ib_cqe *cqe, u64 addr, u32 len, u32 lkey, u64 raddr,
		u32 rkey);
int xp_post_read(struct xp_cconn *c, struct ib_cqe *cqe, u64 addr, u32 len,
		 u64 raddr, u32 rkey);
void xp_chain_add(struct xp_chain *ch, struct ib_send_wr *wr, u32 kind);
void xp_lanes_fill(struct xp_cconn *c);
bool xp_lane_completes(struct xp_lane *lane, u32 kind,
		       const struct ib_wc *wc);
void xp_lane_step(struct xp_lane *lane);
int xp_cconn_buffers(struct xp_cconn *c);

/* frwr.c */
int xp_lane_frmr(struct xp_lane *lane, u32 tag);
int xp_lane_frwr_reg(struct xp_lane *lane, struct xp_chain *ch,
		     struct ib_reg_wr *reg, u64 *addr, u32 *lkey);
void xp_lane_frwr_inv(struct xp_lane *lane, struct xp_chain *ch,
		      struct ib_rdma_wr *wr, struct ib_send_wr *inv);
void xp_lane_reg_done(struct ib_cq *cq, struct ib_wc *wc);
void xp_lane_inv_done(struct ib_cq *cq, struct ib_wc *wc);

/* inject.c */
bool xp_inject_valid(const struct xiwperf_run *run);
void xp_lane_inject(struct xp_lane *lane, struct xp_chain *ch,
		    struct ib_rdma_wr *wr, struct ib_send_wr *sinv,
		    struct ib_rdma_wr *probe, struct ib_sge *psge);
void xp_lane_sinv_done(struct ib_cq *cq, struct ib_wc *wc);

#endif /* XIWPERF_CLIENT_H */
