// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf client: one run of XIWPERF_IOC_RUN, entirely within the ioctl.
 *
 * The ioctl thread connects (each connection resolves, creates its QP and
 * buffers, connects and reads the server's chunk table), posts the first
 * operations, waits for the end (or a failure, a signal, or no progress
 * within the timeout) and tears down. The operations themselves are
 * lane.c's, what is particular to the atomic ones atomic.c's, their fast
 * registrations (--mr frwr) frwr.c's and the faults of --inject
 * inject.c's.
 */
#include <linux/delay.h>
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

#include "client.h"
#include "hist.h"

/* One attempt at resolving the server's address (see xp_resolve_addr()). */
#define XP_RESOLVE_MS	200U
/* Sanity limit on the server's chunk table. */
#define XP_MAX_CHUNKS	4096U

/**
 * xp_fail() - record the first failure, stop every connection and wake the
 *	ioctl.
 * @cl: the run.
 * @status: negative errno of the failure.
 * @reason: enum xiwperf_reason.
 *
 * Return: @status.
 */
int xp_fail(struct xp_client *cl, int status, u32 reason)
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

/**
 * xp_fail_unsupported() - a device cannot do what was asked: fail the run
 *	with XIWPERF_REASON_UNSUPPORTED.
 * @cl: the run.
 * @status: negative errno of the failure.
 * @what: enum xiwperf_unsupported.
 * @limit: the device's figure.
 *
 * Return: @status.
 */
int xp_fail_unsupported(struct xp_client *cl, int status, u32 what, u32 limit)
{
	spin_lock_bh(&cl->lock);
	if (!cl->res->status) {
		cl->res->unsupported = what;
		cl->res->limit = limit;
	}
	spin_unlock_bh(&cl->lock);
	return xp_fail(cl, status, XIWPERF_REASON_UNSUPPORTED);
}

/**
 * xp_fail_wc() - a work request failed: fail the run with
 *	XIWPERF_REASON_WC.
 * @c: its connection.
 * @wc: its completion.
 */
void xp_fail_wc(struct xp_cconn *c, const struct ib_wc *wc)
{
	struct xp_client *cl = c->cl;

	/* The first failed completion, even if another failure came first. */
	spin_lock_bh(&cl->lock);
	if (cl->res->wc_status == IB_WC_SUCCESS)
		cl->res->wc_status = wc->status;
	spin_unlock_bh(&cl->lock);
	if (!xp_cconn_lose(c, XIWPERF_REASON_WC))
		xp_fail(cl, -EIO, XIWPERF_REASON_WC);
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
		complete_all(&c->disconnected);
		/* Our own disconnect at teardown, or after a finished run. */
		if (!READ_ONCE(cl->stop) && atomic_read(&cl->running) &&
		    !xp_cconn_lose(c, XIWPERF_REASON_DISCONNECTED))
			xp_fail(cl, -ECONNRESET, XIWPERF_REASON_DISCONNECTED);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * rdma_cm delivers nothing on this id after it (its state is
		 * no longer RDMA_CM_CONNECT): the teardown must not wait for
		 * a DISCONNECTED that never comes.
		 */
		complete_all(&c->disconnected);
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

/**
 * xp_waited() - what a wait on cl->waitq for one step of the run came to.
 * @cl: the run.
 * @t: what wait_event_interruptible_timeout() returned; its condition
 *	included READ_ONCE(cl->stop).
 *
 * Return: 0 if the step was reached; -EIO if the run failed meanwhile
 * (the failure is recorded); else the run fails now, interrupted or timed
 * out, and that error.
 */
int xp_waited(struct xp_client *cl, long t)
{
	if (READ_ONCE(cl->stop))
		return -EIO;
	if (t < 0)
		return xp_fail(cl, -EINTR, XIWPERF_REASON_INTERRUPTED);
	if (!t)
		return xp_fail(cl, -ETIMEDOUT, XIWPERF_REASON_TIMEOUT);
	return 0;
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
	return xp_waited(cl, t);
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

/*
 * The QP, once the device is known: it must take the operation's SGEs and
 * inline data as asked, or the run fails (never quietly with less).
 */
static int xp_cconn_qp(struct xp_cconn *c)
{
	struct xp_client *cl = c->cl;
	struct ib_device *dev = c->id->device;
	bool inl = cl->flags & XIWPERF_F_INLINE;
	bool ctrl = xp_op_recv(cl->op) || (cl->flags & XIWPERF_F_REMOTE_FRWR);
	struct xp_qp_opts opts = { .async = &cl->async };
	struct ib_qp_cap cap = {
		/* an injection's Send with Invalidate and probe on top */
		.max_send_wr = cl->depth * cl->wrs + (cl->inject ? 2 : 0),
		.max_recv_wr = ctrl ? XP_CTRL_RX : 0,
		.max_send_sge = max(cl->nsge, 1U),
		.max_recv_sge = 1,
		.max_inline_data = inl ? cl->size : 0,
	};
	u32 limit = dev->attrs.max_send_sge;
	int ret;

	if (cl->atomic && !xp_atomic_supported(dev, cl->op))
		return xp_fail_unsupported(cl, -EOPNOTSUPP,
					   XIWPERF_UNSUPPORTED_ATOMIC, 0);
	if (cl->op == XIWPERF_OP_FLUSH && !xp_flush_supported(dev, cl->flags))
		return xp_fail_unsupported(cl, -EOPNOTSUPP,
					   XIWPERF_UNSUPPORTED_FLUSH, 0);
	if (cl->op == XIWPERF_OP_VERIFY && !xp_verify_supported(cl, dev))
		return xp_fail_unsupported(cl, -EOPNOTSUPP,
					   XIWPERF_UNSUPPORTED_VERIFY, 0);
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
	if (cl->flags & XIWPERF_F_IDLE)
		return 0;	/* set up, and never connected */

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
	if (cl->op == XIWPERF_OP_VERIFY)
		hello.imm = cpu_to_be32(cl->hash);	/* see struct xp_hello */
	if (cl->imm_fixed) {
		hello.flags |= XP_HELLO_IMM;
		hello.imm = cpu_to_be32(cl->imm);
	}
	if (cl->inject == XIWPERF_INJECT_INVALIDATED ||
	    cl->inject == XIWPERF_INJECT_DMA_INVALIDATE)
		hello.flags |= XP_HELLO_INV_RECV;
	if (c->isolated)
		hello.flags |= XP_HELLO_TINY_RCQ;
	hello.size = cpu_to_be32(cl->size);
	hello.depth = cpu_to_be32(cl->depth);
	hello.count = cpu_to_be64(c->total);
	hello.qp_index = cpu_to_be32(c->index);
	hello.sge = cpu_to_be32(cl->nsge);
	hello.run_id = cpu_to_be64(cl->run_id);
	hello.qps = cpu_to_be32(cl->qps);
	/* Every run reads the chunk table; some read (or atomics) all along. */
	reads = cl->op == XIWPERF_OP_READ || cl->atomic ||
		cl->op == XIWPERF_OP_FLUSH || cl->op == XIWPERF_OP_VERIFY ||
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

/*
 * Wait for the DISCONNECTED event of an established connection, which
 * its disconnect (xp_qp_destroy()) started: a graceful close ends when
 * the peer closed too, and destroying the id before would drop the
 * event. Bounded (a peer that never closes: the device gives up on its
 * own) and cut short by a signal (an interrupted run ends at once).
 */
static void xp_cconn_disconnected(struct xp_cconn *c)
{
	if (c->id && READ_ONCE(c->established))
		wait_for_completion_interruptible_timeout(&c->disconnected,
							  XP_DISCONNECT_WAIT);
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
			xp_unmap(&c->lanes[i].hmap);
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
		xp_buf_free(c->lanes[i].hbuf);
		xp_buf_free(c->lanes[i].buf);
	}
	kfree(c->rx);
	xp_hist_free(c->hist);
	kfree(c->free);
	kfree(c->lanes);
	kfree(c);
}

/* Wait until every connection finished, or the run failed. */
static int xp_client_wait(struct xp_client *cl)
{
	u64 last;
	long t;

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

/*
 * All connections up: check the server's buffer, post, wait for the end.
 * Atomic --check reads the word before and after.
 */
static int xp_client_go(struct xp_client *cl, u64 *t_start)
{
	struct xiwperf_result *res = cl->res;
	struct xp_cconn *c0 = cl->conns[0];
	int ret;
	u32 i;

	res->remote_size = c0->rsize;
	/* write_imm: as many regions per connection as it has receives */
	cl->window = max(c0->credits, 1U);
	for (i = 1; i < cl->qps; i++)
		if (cl->conns[i]->rsize != c0->rsize ||
		    cl->conns[i]->rchunk != c0->rchunk ||
		    (cl->op == XIWPERF_OP_WRITE_IMM &&
		     !(cl->flags & XIWPERF_F_SRQ) &&
		     cl->conns[i]->credits != c0->credits))
			return xp_fail(cl, -EPROTO, XIWPERF_REASON_PROTOCOL);
	/* Regions of @size never straddle two chunks; imm has no data. */
	if (cl->size) {
		cl->per_chunk = div64_u64(c0->rchunk, cl->size);
		cl->nslot = (c0->nchunks - 1) * cl->per_chunk +
			    div64_u64(c0->rsize -
				      (u64)(c0->nchunks - 1) * c0->rchunk,
				      cl->size);
		res->regions = min_t(u64, cl->nslot, U32_MAX);
		if (!cl->nslot)
			return xp_fail(cl, -EMSGSIZE,
				       XIWPERF_REASON_REMOTE_TOO_SMALL);
	}
	if ((cl->flags & XIWPERF_F_CHECK) &&
	    ((xp_op_puts(cl->op) &&
	      cl->nslot < (u64)cl->qps * cl->depth) ||
	     (cl->op == XIWPERF_OP_VERIFY &&
	      cl->nslot < (u64)cl->qps * cl->depth) ||
	     (cl->op == XIWPERF_OP_WRITE_IMM &&
	      cl->nslot < (u64)cl->qps * cl->window)))
		return xp_fail(cl, -EMSGSIZE, XIWPERF_REASON_REMOTE_TOO_SMALL);

	if (cl->ack) {
		ret = xp_atomic_read_word(cl, &res->atomic_init);
		if (ret)
			return ret;
	}

	*t_start = ktime_get_ns();
	for (i = 0; i < cl->qps; i++) {
		struct xp_cconn *c = cl->conns[i];

		spin_lock_bh(&c->lock);
		c->credit_limit = c->credits;
		xp_lanes_fill(c);
		spin_unlock_bh(&c->lock);
	}
	ret = xp_client_wait(cl);
	if (ret || !cl->ack)
		return ret;
	/* Every operation completed: nothing else is outstanding. */
	return xp_atomic_read_word(cl, &res->atomic_final);
}

static void xp_client_results(struct xp_client *cl, struct xiwperf_run *run,
			      u64 t_start, int ret)
{
	struct xiwperf_result *res = cl->res;
	struct xp_hist *all = xp_hist_alloc();
	bool checked = !ret && (cl->flags & XIWPERF_F_CHECK);
	u64 first_batch = U64_MAX;
	u64 t_end = t_start;
	bool srq = false;
	u32 i, j;

	if (checked && cl->ack)
		xp_atomic_verify(cl);	/* counts mismatches per connection */
	for (i = 0; i < cl->qps && cl->conns[i]; i++) {
		struct xp_cconn *c = cl->conns[i];

		res->completed += c->completed;
		res->conns_failed += c->lost;
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
	res->checked = checked;
	res->data_ok = checked && !res->mismatches &&
		       (!cl->ack || cl->ack->final_ok);
	res->depth = cl->depth;
	res->status = ret;
	res->qp_fatal_events = atomic_read(&cl->async.qp_fatal);
	res->qp_req_err_events = atomic_read(&cl->async.qp_req_err);
	res->qp_access_err_events = atomic_read(&cl->async.qp_access_err);
	res->cq_err_events = atomic_read(&cl->async.cq_err);
}

/*
 * Every connection ended: one that failed alone (struct xp_cconn.isolated)
 * fails the run now.
 */
static int xp_client_lost(struct xp_client *cl)
{
	u32 i;

	for (i = 0; i < cl->qps; i++)
		if (cl->conns[i]->lost)
			return xp_fail(cl, -EIO, cl->conns[i]->lost_reason);
	return 0;
}

/*
 * The Immediate Data operations: XIWPERF_F_IMM and run->imm with them
 * only; XIWPERF_OP_IMM has no payload, so neither a buffer to register,
 * inline data nor SGEs; no injected faults.
 */
static bool xp_imm_valid(const struct xiwperf_run *run)
{
	if (!xp_op_imm(run->op))
		return !(run->flags & XIWPERF_F_IMM) && !run->imm;
	if ((!(run->flags & XIWPERF_F_IMM) && run->imm) || run->inject)
		return false;
	if (run->op == XIWPERF_OP_WRITE_IMM)
		/* SRQ credits do not wait for a connection's own checks */
		return !(run->flags & XIWPERF_F_SRQ &&
			 run->flags & XIWPERF_F_CHECK);
	return !run->size && run->sge <= 1 &&
	       !(run->flags & (XIWPERF_F_INLINE | XIWPERF_F_FRWR |
			       XIWPERF_F_REMOTE_FRWR));
}

static int xp_run_valid(const struct xiwperf_run *run)
{
	bool solicit = run->flags & XIWPERF_F_SOLICIT;
	bool send = run->op == XIWPERF_OP_SEND;
	bool recv = xp_op_recv(run->op);

	if (run->op < XIWPERF_OP_SEND || run->op > XP_OP_LAST ||
	    (run->flags & XIWPERF_F_INLINE && !send &&
	     !xp_op_puts(run->op) && run->op != XIWPERF_OP_WRITE_IMM) ||
	    (run->flags & XIWPERF_F_INLINE && run->flags & XIWPERF_F_FRWR) ||
	    (run->flags & XIWPERF_F_REMOTE_FRWR && send) ||
	    (run->flags & XIWPERF_F_SRQ && (!recv || solicit)) ||
	    !xp_inject_valid(run) || !xp_atomic_valid(run) ||
	    !xp_flush_valid(run) || !xp_verify_valid(run) ||
	    !xp_imm_valid(run) || run->sge > XIWPERF_MAX_SGE ||
	    (solicit && !recv) || solicit != !!run->solicit ||
	    !run->qps || run->qps > XIWPERF_MAX_QPS ||
	    !run->depth || run->depth > XIWPERF_MAX_DEPTH ||
	    (!run->size && run->op != XIWPERF_OP_IMM) ||
	    run->size > XIWPERF_MAX_SIZE ||
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
	return (run->flags & XIWPERF_F_FRWR ? 3 : 1) +
	       (run->op == XIWPERF_OP_FLUSH ||	/* their Write */
		run->op == XIWPERF_OP_VERIFY);
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
	u64 t_start = 0, orig = 0;
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
	cl->atomic = xp_op_word(run->op);
	cl->imm_fixed = run->flags & XIWPERF_F_IMM;
	cl->imm = run->imm;
	if (cl->atomic)
		xp_amo_init(&cl->amo, run);
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
	if (cl->atomic && (cl->flags & XIWPERF_F_CHECK)) {
		ret = xp_atomic_check_alloc(cl);
		if (ret) {
			xp_fail(cl, ret, XIWPERF_REASON_RESOURCES);
			goto out;
		}
	}
	if (cl->op == XIWPERF_OP_VERIFY)
		xp_verify_start(cl, run);
	for (i = 0; i < cl->qps; i++) {
		struct xp_cconn *c = kzalloc(sizeof(*c), GFP_KERNEL);

		if (!c) {
			ret = xp_fail(cl, -ENOMEM, XIWPERF_REASON_RESOURCES);
			goto out;
		}
		c->cl = cl;
		c->index = i;
		c->isolated = cl->inject == XIWPERF_INJECT_CQ_OVERFLOW && !i;
		spin_lock_init(&c->lock);
		init_completion(&c->disconnected);
		c->total = div_u64_rem(cl->count, cl->qps, &rem) +
			   (i < rem ? 1 : 0);
		if (cl->ack)
			c->orig = cl->ack->orig + orig;
		orig += c->total;
		cl->conns[i] = c;
		ret = xp_cconn_connect(c);
		if (ret)
			goto out;
	}
	if (cl->flags & XIWPERF_F_IDLE) {
		/* What the unconnected QPs cost can be measured now. */
		msleep_interruptible(run->hold_ms);
		goto out;
	}
	ret = xp_client_go(cl, &t_start);
	if (!ret)
		ret = xp_client_lost(cl);
	/* Connected and idle: what the QPs cost can be measured now. */
	if (!ret && run->hold_ms)
		msleep_interruptible(run->hold_ms);
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
	xp_atomic_check_free(cl);
	for (i = 0; cl->conns && i < cl->qps && cl->conns[i]; i++)
		xp_cconn_disconnected(cl->conns[i]);
	for (i = 0; cl->conns && i < cl->qps && cl->conns[i]; i++)
		xp_cconn_destroy(cl->conns[i]);
	kfree(cl->conns);
	xp_verify_stop(cl);	/* no QP posts any more */
	kfree(cl);
	return ret;
}
