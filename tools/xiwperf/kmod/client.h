/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiwperf client internals: what the files of the client share. client.c
 * runs XIWPERF_IOC_RUN and sets up its connections, lane.c carries the
 * operations and their completions, atomic.c what is particular to the
 * atomic operations (and their --check), frwr.c the fast registrations of
 * --mr frwr and inject.c the faults of --inject.
 */
#ifndef XIWPERF_CLIENT_H
#define XIWPERF_CLIENT_H

#include <linux/atomic.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <xiw/verbs.h>

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
	XP_WR_PUT,		/* flush: the Write before the Flush */
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
	void *hbuf;		/* verify: the hash that came back */
	struct xp_map hmap;
	u8 hash[XIWPERF_HASH_MAX];	/* verify: the client's own */
};

/**
 * struct xp_opwr - an operation's work request: a Send or an RDMA one, or
 *	an atomic one (both begin with their struct ib_send_wr).
 * @wr: the work request.
 * @rdma: as a Send, RDMA Write or RDMA Read.
 * @atomic: as an atomic operation.
 * @aw: as an Atomic Write.
 * @raddr: its remote address, in whichever of them it is.
 * @rkey: its remote key, likewise.
 */
struct xp_opwr {
	union {
		struct ib_send_wr wr;
		struct ib_rdma_wr rdma;
		struct ib_atomic_wr atomic;
		struct xiw_atomic_write_wr aw;
	};
	u64 *raddr;
	u32 *rkey;
};

/**
 * struct xp_amo - the atomic operation of a run, as RFC 7306 states it
 *	(the verbs' operands of the non-masked operations mapped to it).
 * @cmp_swap: CmpSwap, else FetchAdd.
 * @data: the Add Data or the Swap Data.
 * @mask: the Add Mask (0 for a plain add) or the Swap Mask.
 * @cmp: CmpSwap: the Compare Data.
 * @cmp_mask: CmpSwap: the Compare Mask.
 */
struct xp_amo {
	bool cmp_swap;
	u64 data;
	u64 mask;
	u64 cmp;
	u64 cmp_mask;
};

/**
 * struct xp_acheck - --check of an atomic run.
 * @cl: the run.
 * @orig: the original value each operation returned, connection by
 *	connection (struct xp_cconn.orig), by sequence number.
 * @expect: f^k(init) for k = 0 .. count - 1; then sorted, then its
 *	distinct values.
 * @nexpect: how often each distinct value of @expect is still expected.
 * @word: the target word, read into here (8 bytes).
 * @map: @word's mapping for connection 0's device.
 * @cqe: completion of the read.
 * @read: the read completed successfully.
 * @final_ok: after the run: the word's final value is f^count(init).
 */
struct xp_acheck {
	struct xp_client *cl;
	u64 *orig;
	u64 *expect;
	u32 *nexpect;
	u64 *word;
	struct xp_map map;
	struct ib_cqe cqe;
	bool read;
	bool final_ok;
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
	/* the DISCONNECTED event came: the peer's, or our own disconnect's */
	struct completion disconnected;
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
	bool isolated;		/* CQ overflow: it may fail alone... */
	bool lost;		/* ...and did: it posts nothing more */
	u32 lost_reason;	/* enum xiwperf_reason of that */
	/* results: CQ callbacks only, read after teardown */
	u64 *orig;		/* atomic --check: its part of cl->ack->orig */
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
	bool atomic;			/* an atomic op or Atomic Write */
	bool imm_fixed;			/* --imm: every operation carries @imm */
	u32 imm;
	struct xp_amo amo;		/* which, with its operands */
	struct xp_acheck *ack;		/* and its --check */
	u64 run_id;
	u64 size;
	u64 count;
	unsigned long timeout;		/* jiffies */
	u32 timeout_ms;
	struct sockaddr_storage dst;
	u64 nslot;			/* operation-sized regions at the server */
	u64 per_chunk;			/* of them in each chunk */
	u32 window;			/* write_imm: regions per connection */
	struct xp_cconn **conns;
	wait_queue_head_t waitq;
	atomic_t running;		/* connections not finished */
	atomic64_t progress;		/* completions so far */
	bool stop;
	spinlock_t lock;		/* the first failure */
	struct xiwperf_result *res;
	struct xp_async async;		/* of every connection */
	u32 hash;			/* verify: enum xiwperf_hash */
	u32 expect_len;			/* verify: a fixed expected hash */
	u8 expect[XIWPERF_HASH_MAX];
	/* verify: xiw's functions (symbol_get()), NULL without xiw */
	int (*post_verify)(struct ib_qp *qp, const struct xiw_verify_wr *wr,
			   const struct ib_send_wr **bad_wr);
	bool (*is_xiw)(const struct ib_device *dev);
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

/* The local buffer of an atomic operation: the word's original value. */
#define XP_ATOMIC_LEN	sizeof(u64)
/*
 * Longest wait for a connection's DISCONNECTED event at the end of a run:
 * more than xiw's own limit on a graceful close (mpa_timeout_ms, 10 s).
 */
#define XP_DISCONNECT_WAIT	(15 * HZ)

/* client.c */
int xp_fail(struct xp_client *cl, int status, u32 reason);
int xp_fail_unsupported(struct xp_client *cl, int status, u32 what,
			u32 limit);
void xp_fail_wc(struct xp_cconn *c, const struct ib_wc *wc);
int xp_waited(struct xp_client *cl, long t);

/* lane.c */
void xp_mismatch(struct xp_cconn *c, u64 seq, u64 off);
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
bool xp_cconn_lose(struct xp_cconn *c, u32 reason);

/* frwr.c */
int xp_lane_frmr(struct xp_lane *lane, u32 tag);
int xp_lane_frwr_reg(struct xp_lane *lane, struct xp_chain *ch,
		     struct ib_reg_wr *reg, u64 *addr, u32 *lkey);
void xp_lane_frwr_inv(struct xp_lane *lane, struct xp_chain *ch,
		      struct ib_send_wr *wr, struct ib_send_wr *inv);
void xp_lane_reg_done(struct ib_cq *cq, struct ib_wc *wc);
void xp_lane_inv_done(struct ib_cq *cq, struct ib_wc *wc);

/* atomic.c */
u64 xp_amo_apply(const struct xp_amo *amo, u64 orig);
bool xp_atomic_valid(const struct xiwperf_run *run);
void xp_amo_init(struct xp_amo *amo, const struct xiwperf_run *run);
void xp_atomic_wr(struct xp_lane *lane, struct ib_atomic_wr *wr);
void xp_atomic_write_wr(struct xp_lane *lane, struct xiw_atomic_write_wr *wr);
void xp_atomic_done(struct xp_lane *lane, const struct ib_wc *wc);
int xp_atomic_check_alloc(struct xp_client *cl);
int xp_atomic_read_word(struct xp_client *cl, u64 *value);
void xp_atomic_verify(struct xp_client *cl);
void xp_atomic_check_free(struct xp_client *cl);

/* flush.c */
bool xp_flush_valid(const struct xiwperf_run *run);
bool xp_flush_supported(const struct ib_device *dev, u32 flags);
void xp_flush_wr(struct xp_lane *lane, struct xiw_flush_wr *wr);
void xp_put_done(struct ib_cq *cq, struct ib_wc *wc);

/* verify.c (xp_hash_len() in xiwperf.h) */
bool xp_verify_valid(const struct xiwperf_run *run);
void xp_verify_start(struct xp_client *cl, const struct xiwperf_run *run);
void xp_verify_stop(struct xp_client *cl);
bool xp_verify_supported(const struct xp_client *cl,
			 const struct ib_device *dev);
void xp_verify_wr(struct xp_lane *lane, struct xiw_verify_wr *wr,
		  struct ib_sge *sge);
void xp_verify_op_done(struct xp_lane *lane, const struct ib_wc *wc);

/* inject.c */
bool xp_inject_valid(const struct xiwperf_run *run);
void xp_lane_inject(struct xp_lane *lane, struct xp_chain *ch,
		    struct xp_opwr *op, struct ib_send_wr *sinv,
		    struct ib_rdma_wr *probe, struct ib_sge *psge);
void xp_lane_sinv_done(struct ib_cq *cq, struct ib_wc *wc);

#endif /* XIWPERF_CLIENT_H */
