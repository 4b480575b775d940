/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiwtarget internals: what its files share. main.c listens, accepts,
 * sets up, reaps and frees connections (its top comment tells the whole
 * module); post.c posts the requests the target makes toward the peer
 * (the asked one and those of debugfs N/post), deregisters the large
 * region (N/dereg) and makes poke's verbs calls. xiwtarget.h is the
 * contract with the peer, not this.
 */
#ifndef XIWTARGET_TARGET_H
#define XIWTARGET_TARGET_H

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "xiwtarget.h"

/* One posted receive and what its completion said. */
struct xt_slot {
	struct ib_cqe cqe;
	struct xt_conn *conn;
	int status;		/* -1 until completed */
	u32 len;
	u32 flags;
	u32 imm;
	u32 inv;
	u32 order;		/* completion sequence number */
	u32 completions;	/* more than one is a bug */
};

/* A work request the peer had posted, and what its completion said. */
struct xt_wr {
	struct ib_cqe cqe;
	struct xt_conn *conn;
	int status;		/* -1 until completed */
	u32 len;
	u32 order;		/* completion sequence number */
	u32 completions;	/* more than one is a bug */
	bool posted;
};

/**
 * struct xt_conn - one accepted connection
 * @node: in xt_conns
 * @num: its number (debugfs directory)
 * @id: its rdma_cm id
 * @dev: its device
 * @pd: its own protection domain
 * @cq: send and receive completions
 * @arena: XT_ARENA_PAGES pages
 * @dma: the arena mapped for the device
 * @rw: read-write registration
 * @ro: read-only registration
 * @big_pages: the large region (XT_BIG_PAGES)
 * @big_dma: it mapped for the device
 * @big: its registration, until deregistered (xchg()ed to NULL first)
 * @dereg: 0 none, 1 running, 2 done (debugfs N/dereg)
 * @reg_cqe: completion of the registrations
 * @send_cqe: completion of the READY Send
 * @req_cqe: completion of the asked request
 * @ask: the request the peer asked for (kind 0: none)
 * @slots: the receives
 * @blob: debugfs view of the arena's first XT_BLOB_PAGES pages
 * @dir: debugfs directory
 * @lock: protects everything below
 * @events: rdma_cm events seen, as text
 * @qp_events: affiliated asynchronous events of the QP, as text
 * @recv_done: receive completions so far
 * @send_ok: successful send queue completions
 * @send_err: failed send queue completions (flushes included)
 * @req_status: the asked request's completion status, -1 until then
 * @req_opcode: its completion's opcode
 * @req_len: its completion's byte_len
 * @req_completions: how many it had (more than one is a bug)
 * @postmem: debugfs view of the post sink and its canary pages
 * @post_lock: serialises the writers of N/post, and the READY posts with
 *	the connection's end
 * @gone: the connection is being freed: post nothing more (@post_lock)
 * @wrs: the work requests posted through N/post
 * @wr_done: completions of @wrs so far
 * @poke: what the last poke returned
 * @err_work: the second teardown of an err2 poke
 */
struct xt_conn {
	struct list_head node;
	u32 num;
	struct rdma_cm_id *id;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct page *arena;
	u64 dma;
	struct ib_mr *rw;
	struct ib_mr *ro;
	struct page *big_pages;
	u64 big_dma;
	struct ib_mr *big;
	atomic_t dereg;
	struct ib_cqe reg_cqe;
	struct ib_cqe send_cqe;
	struct ib_cqe req_cqe;
	struct xt_ask ask;
	struct xt_slot slots[XT_NRECV];
	struct debugfs_blob_wrapper blob;
	struct debugfs_blob_wrapper postmem;
	struct dentry *dir;
	struct mutex post_lock;	/* the posting of @wrs, @gone */
	bool gone;
	struct xt_wr wrs[XT_NWR];

	spinlock_t lock;	/* the fields below, and @slots' results */
	char events[160];
	char qp_events[160];
	u32 recv_done;
	u32 send_ok;
	u32 send_err;
	int req_status;
	u32 req_opcode;
	u32 req_len;
	u32 req_completions;
	u32 wr_done;
	char poke[96];
	struct work_struct err_work;
};

/* post.c */
struct ib_sge xt_sink(struct xt_conn *c, u32 len);
int xt_post_ask(struct xt_conn *c);
void xt_dereg_big(struct xt_conn *c);
void xt_poke(struct xt_conn *c, const char *op);
extern const struct file_operations xt_post_fops;
extern const struct file_operations xt_dereg_fops;

#endif /* XIWTARGET_TARGET_H */
