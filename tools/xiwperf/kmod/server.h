/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiwperf server internals: what the files of the server share. server.c
 * listens, accepts and serves connections, srq.c runs the shared receive
 * queues of XP_HELLO_SRQ, frwr.c the fast registrations of
 * XP_HELLO_REMOTE_FRWR, inject.c the receive of XP_HELLO_INV_RECV and
 * backing.c a buffer backed by a file or DAX device.
 */
#ifndef XIWPERF_SERVER_H
#define XIWPERF_SERVER_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "conn.h"
#include "proto.h"
#include "xiwperf.h"

/* Memory for one connection's Send receive buffers. */
#define XP_SRV_RECV_BYTES	(64U << 20)

/* What an rdma_cm id's context points to: the listener's or a connection's. */
enum xp_kind {
	XP_KIND_SERVER,
	XP_KIND_CONN,
};

struct xp_server {
	enum xp_kind kind;
	struct rdma_cm_id *listen;
	void **chunks;
	u32 nchunks;
	size_t chunk;
	size_t size;
	/* A backed buffer (backing.c): its pinned pages; NULL for kmalloc'd */
	struct page **pages;
	unsigned long npages;
	u32 hash;			/* enum xiwperf_hash of every Verify, or 0 */
	struct workqueue_struct *wq;
	spinlock_t lock;		/* conns, conn->node */
	struct list_head conns;
	wait_queue_head_t waitq;
	int failed;			/* errno that ends SERVE */
	atomic64_t connections;
	atomic64_t rejected;
	atomic64_t received;
	atomic64_t mismatches;
	atomic64_t errors;
	struct xp_async async;
	atomic_t active;
	struct mutex group_lock;	/* groups, group->refs */
	struct list_head groups;
};

struct xp_sconn;
struct xp_srq_group;

/* A receive buffer: of one connection, or of an SRQ group's SRQ. */
struct xp_rslot {
	struct ib_cqe cqe;
	struct xp_sconn *conn;
	struct xp_srq_group *group;
	u32 idx;
	void *buf;
	struct xp_map map;
};

/**
 * struct xp_srq_group - the SRQ the connections of one client run share.
 * @node: on srv->groups.
 * @refs: connections holding it (srv->group_lock).
 * @srv: the server.
 * @run_id: the client run (struct xp_hello.run_id).
 * @qps: connections the run has.
 * @size: bytes per receive (0: Immediate Data only, no buffers).
 * @nsge: SGEs per receive (0 with @size).
 * @dev: the device; every connection of the run must be on it.
 * @pd: PD of the SRQ and of every QP on it (with the global rkey).
 * @srq: the SRQ.
 * @rslots: its receive buffers.
 * @nrecv: how many (the SRQ's size).
 * @limit: the limit it is armed with; 0 if it never is.
 * @lock: serialises the receive completions of all its connections, and
 *	protects what follows (lock order: srv->group_lock, @lock, a
 *	connection's lock).
 * @members: connections in the group (struct xp_sconn.gnode).
 * @joined: connections that joined (members now and before).
 * @total: messages the joined connections send.
 * @received: messages received, over all connections.
 * @posted: receives posted to the SRQ so far.
 * @completed: receive completions so far (failed ones too).
 * @granted: credits granted so far, the initial shares included; never
 *	more than @posted, so no client ever finds the SRQ empty.
 * @held: indexes of the buffers completed while armed, not reposted.
 * @nheld: how many.
 * @armed: an arm is pending: buffers are held, not reposted.
 * @done: every message of every connection arrived.
 * @arms: times armed.
 * @crossed: arms during which @posted - @completed fell below @limit.
 * @ev_lock: protects the event counts (the event handler may run in any
 *	context).
 * @ev_pending: arms the device has not reported yet. More than one when
 *	the group saw an arm crossed, and armed again, before the device's
 *	event for it arrived: a device raises the event when it takes the
 *	receive, but may deliver it after another connection's later
 *	receive has completed.
 * @ev_crossed: @crossed, for the event handler.
 * @events: IB_EVENT_SRQ_LIMIT_REACHED events.
 * @stray: of those, events while no arm was pending.
 * @finish_owed: every message arrived, but not yet the event of every
 *	crossed arm: the event that completes them finishes the run
 *	(@finish_work).
 * @finish_work: xp_group_finish() for the event handler.
 */
struct xp_srq_group {
	struct list_head node;
	u32 refs;
	struct xp_server *srv;
	u64 run_id;
	u32 qps;
	u32 size;
	u32 nsge;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_srq *srq;
	struct xp_rslot *rslots;
	u32 nrecv;
	u32 limit;
	struct mutex lock;		/* see above */
	struct list_head members;
	u32 joined;
	u64 total;
	u64 received;
	u64 posted;
	u64 completed;
	u64 granted;
	u32 *held;
	u32 nheld;
	bool armed;
	bool done;
	u32 arms;
	u32 crossed;
	spinlock_t ev_lock;		/* the fields below */
	u32 ev_pending;
	u32 ev_crossed;
	u32 events;
	u32 stray;
	bool finish_owed;
	struct work_struct finish_work;
};

struct xp_tslot {
	struct ib_cqe cqe;
	struct xp_sconn *conn;
	u32 idx;
};

/*
 * One accepted connection. Everything below @q is used by its completion
 * callbacks only, under @lock: those of the receives and of the control
 * messages run in different contexts when the receives have a CQ of their
 * own (--solicit), or when they come from an SRQ shared with other
 * connections (which also hold @group->lock then).
 */
struct xp_sconn {
	enum xp_kind kind;
	struct xp_server *srv;
	struct list_head node;
	struct work_struct release;
	struct xp_qp q;
	struct mutex lock;	/* the completion callbacks */
	bool accepted;
	struct xp_map *chunk_maps;
	void *table;
	struct xp_map table_map;
	/* the request */
	u32 op;
	u32 flags;
	u32 size;
	u32 depth;
	u32 qp_index;
	u32 nsge;	/* SGEs per receive */
	bool solicited;	/* XP_HELLO_SOLICITED */
	bool use_srq;	/* XP_HELLO_SRQ */
	bool frwr;	/* XP_HELLO_REMOTE_FRWR */
	bool inv_recv;	/* XP_HELLO_INV_RECV */
	u64 count;
	u64 run_id;
	u32 qps;
	u32 rlen;	/* bytes per receive (0: Immediate Data only) */
	bool imm_fixed;	/* XP_HELLO_IMM: every message carries @imm */
	u32 imm;
	/* XIWPERF_OP_WRITE_IMM --check: the client's regions (see uapi) */
	u64 per_chunk;
	u64 nslot;
	/* XP_HELLO_REMOTE_FRWR: chunk MRs, then chunk 0's read-only one */
	struct xp_frmr *frmr;
	struct ib_reg_wr *reg_wr;
	struct ib_cqe reg_cqe;
	bool ready_due;
	bool ready_sent;
	/* XP_HELLO_INV_RECV */
	struct xp_rslot inv;
	/* XP_HELLO_SRQ (the group's lock protects gnode and share) */
	struct xp_srq_group *group;
	struct list_head gnode;
	u32 share;	/* credits granted in the accept */
	u32 grant;	/* granted, not yet added to @reposted */
	bool live;	/* accepted: may be sent credits */
	/* Send and Immediate Data tests: receives */
	struct xp_rslot *rslots;
	u32 nrecv;
	u32 batch;
	u64 received;
	u64 reposted;	/* credits to announce (SRQ: granted beyond @share) */
	u64 credited;
	u64 mismatches;
	u64 first_bad_seq;
	u64 first_bad_offset;
	u64 notifications;	/* --solicit, when the last message came */
	u64 first_batch;
	u32 srq_arms;		/* --srq, when the group was done */
	u32 srq_crossed;
	u32 srq_events;
	u32 srq_stray;
	bool verdict_due;
	bool verdict_sent;
	bool broken;
	/* Send and Immediate Data tests: control messages to the client */
	struct xp_msg *tx;
	struct xp_map tx_map;
	struct xp_tslot tslots[XP_CTRL_TX];
	unsigned long tx_busy;
};

/* server.c */
size_t xp_server_chunk_len(const struct xp_server *srv, u32 i);
void xp_sconn_error(struct xp_sconn *c, const struct ib_wc *wc);
void xp_sconn_break(struct xp_sconn *c);
void xp_sconn_send_ctrl(struct xp_sconn *c);
void xp_recv_verify(struct xp_sconn *c, struct xp_rslot *rs,
		    const struct ib_wc *wc, u64 seq);

/* srq.c */
int xp_group_get(struct xp_sconn *c, struct ib_device *dev, u32 *limit,
		 u32 *what);
void xp_group_join(struct xp_sconn *c);
void xp_group_live(struct xp_sconn *c);
void xp_group_put(struct xp_srq_group *g);

/* frwr.c */
bool xp_frwr_supported(const struct xp_server *srv, struct ib_device *dev,
		       u32 *limit);
int xp_sconn_setup_frwr(struct xp_sconn *c);
void xp_sconn_post_frwr(struct xp_sconn *c);

/* inject.c */
int xp_sconn_setup_inv(struct xp_sconn *c);

int xp_sconn_setup_verify(struct xp_sconn *c, u32 alg);

/* backing.c */
int xp_backing_pin(struct xp_server *srv, u64 uaddr);
void xp_backing_dirty(struct xp_server *srv);
void xp_backing_release(struct xp_server *srv);
bool xp_backing_device_ok(const struct xp_server *srv,
			  const struct ib_device *dev);

#endif /* XIWPERF_SERVER_H */
