// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf server: an rdma_cm listener in the caller's network namespace and
 * one buffer that every connection may read and write through the device's
 * global rkey (it is pre-filled with the read pattern). The buffer is a
 * series of physically contiguous chunks; each connection gets a table of
 * their addresses, which its client reads first. For Send tests a
 * connection also posts receives, checks each message, returns credits as
 * it reposts them and finally sends its verdict. A client running with
 * --solicit gets its receives taken from a solicited-only CQ (see
 * xp_qp_create()), whose notifications the verdict reports.
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
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>

#include "conn.h"
#include "pattern.h"
#include "proto.h"
#include "xiwperf.h"

/* Memory for one connection's Send receive buffers. */
#define XP_SRV_RECV_BYTES	(64U << 20)
#define XP_SRV_BACKLOG		64

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
	atomic_t active;
};

struct xp_sconn;

struct xp_rslot {
	struct ib_cqe cqe;
	struct xp_sconn *conn;
	void *buf;
	struct xp_map map;
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
 * own (--solicit).
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
	__be64 *table;
	struct xp_map table_map;
	/* the request */
	u32 op;
	u32 flags;
	u32 size;
	u32 depth;
	u32 qp_index;
	u32 nsge;	/* SGEs per receive */
	bool solicited;	/* XP_HELLO_SOLICITED */
	u64 count;
	/* Send test: receives */
	struct xp_rslot *rslots;
	u32 nrecv;
	u32 batch;
	u64 received;
	u64 reposted;
	u64 credited;
	u64 mismatches;
	u64 first_bad_seq;
	u64 first_bad_offset;
	u64 notifications;	/* --solicit, when the last message came */
	u64 first_batch;
	bool verdict_due;
	bool verdict_sent;
	bool broken;
	/* Send test: control messages to the client */
	struct xp_msg *tx;
	struct xp_map tx_map;
	struct xp_tslot tslots[XP_CTRL_TX];
	unsigned long tx_busy;
};

static void xp_sconn_error(struct xp_sconn *c, const struct ib_wc *wc)
{
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		return;
	atomic64_inc(&c->srv->errors);
	pr_debug("connection %u: %s failed: %s\n", c->qp_index,
		 wc->opcode & IB_WC_RECV ? "receive" : "send",
		 ib_wc_status_msg(wc->status));
}

/* A connection that can no longer work: let the client see it fail. */
static void xp_sconn_break(struct xp_sconn *c)
{
	if (c->broken)
		return;
	c->broken = true;
	atomic64_inc(&c->srv->errors);
	rdma_disconnect(c->q.id);
}

static void xp_tx_done(struct ib_cq *cq, struct ib_wc *wc);

/* Send what is due: credits for reposted receives, then the verdict. */
static void xp_sconn_send_ctrl(struct xp_sconn *c)
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
		bool verdict;

		if (c->verdict_due && !c->verdict_sent)
			verdict = true;
		else if (!c->verdict_due && c->reposted - c->credited >= c->batch)
			verdict = false;
		else
			return;
		i = find_first_zero_bit(&c->tx_busy, XP_CTRL_TX);
		if (i >= XP_CTRL_TX)
			return;		/* again when a send completes */

		m = &c->tx[i];
		memset(m, 0, sizeof(*m));
		m->magic = cpu_to_be32(XP_MAGIC);
		if (verdict) {
			m->type = cpu_to_be32(XP_MSG_VERDICT);
			m->value = cpu_to_be64(c->received);
			m->mismatches = cpu_to_be64(c->mismatches);
			m->first_bad_seq = cpu_to_be64(c->first_bad_seq);
			m->first_bad_offset = cpu_to_be64(c->first_bad_offset);
			m->notifications = cpu_to_be64(c->notifications);
			m->first_batch = cpu_to_be64(c->first_batch);
		} else {
			m->type = cpu_to_be32(XP_MSG_CREDIT);
			m->value = cpu_to_be64(c->reposted);
		}
		xp_sync_for_device(&c->tx_map, i * sizeof(*m), sizeof(*m));
		ts = &c->tslots[i];
		sge.addr = c->tx_map.dma + i * sizeof(*m);
		sge.length = c->solicited ? sizeof(*m) : XP_MSG_BASE_LEN;
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
		if (verdict)
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

static void xp_recv_check(struct xp_sconn *c, struct xp_rslot *rs, u32 len,
			  u64 seq)
{
	size_t bad = len;

	xp_sync_for_cpu(&rs->map, 0, c->size);
	if (len == c->size)
		bad = xp_pattern_check(rs->buf, c->size,
				       xp_pattern_seed(XIWPERF_OP_SEND,
						       c->qp_index, seq), 0);
	if (bad == XP_PATTERN_OK)
		return;
	if (!c->mismatches++) {
		c->first_bad_seq = seq;
		c->first_bad_offset = bad;
	}
	atomic64_inc(&c->srv->mismatches);
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
	if (c->flags & XIWPERF_F_CHECK)
		xp_recv_check(c, rs, wc->byte_len, seq);

	if (xp_post_recv(&c->q, &rs->cqe, rs->map.dma, c->size, c->nsge)) {
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

/* Receive buffers and control messages of a Send test. */
static int xp_sconn_setup_send(struct xp_sconn *c)
{
	struct ib_device *dev = c->q.id->device;
	u32 i;
	int ret;

	c->rslots = kcalloc(c->nrecv, sizeof(*c->rslots), GFP_KERNEL);
	c->tx = kcalloc(XP_CTRL_TX, sizeof(*c->tx), GFP_KERNEL);
	if (!c->rslots || !c->tx)
		return -ENOMEM;
	ret = xp_map(&c->tx_map, dev, c->tx, XP_CTRL_TX * sizeof(*c->tx));
	if (ret)
		return ret;
	for (i = 0; i < XP_CTRL_TX; i++) {
		c->tslots[i].cqe.done = xp_tx_done;
		c->tslots[i].conn = c;
		c->tslots[i].idx = i;
	}
	for (i = 0; i < c->nrecv; i++) {
		struct xp_rslot *rs = &c->rslots[i];

		rs->cqe.done = xp_recv_done;
		rs->conn = c;
		rs->buf = xp_buf_alloc(c->size);
		if (!rs->buf)
			return -ENOMEM;
		ret = xp_map(&rs->map, dev, rs->buf, c->size);
		if (ret)
			return ret;
		ret = xp_post_recv(&c->q, &rs->cqe, rs->map.dma, c->size,
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

	xp_qp_destroy(&c->q, c->accepted);
	for (i = 0; c->chunk_maps && i < c->srv->nchunks; i++)
		xp_unmap(&c->chunk_maps[i]);
	xp_unmap(&c->table_map);
	for (i = 0; c->rslots && i < c->nrecv; i++)
		xp_unmap(&c->rslots[i].map);
	xp_unmap(&c->tx_map);
}

static void xp_sconn_free(struct xp_sconn *c)
{
	u32 i;

	for (i = 0; c->rslots && i < c->nrecv; i++)
		xp_buf_free(c->rslots[i].buf);
	kfree(c->rslots);
	kfree(c->tx);
	kfree(c->table);
	kfree(c->chunk_maps);
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
	const struct xp_hello *h = ev->param.conn.private_data;
	u32 sge;

	if (!h || ev->param.conn.private_data_len < sizeof(*h) ||
	    be32_to_cpu(h->magic) != XP_MAGIC ||
	    be16_to_cpu(h->version) != XP_VERSION)
		return false;
	c->op = h->op;
	c->flags = h->flags;
	c->size = be32_to_cpu(h->size);
	c->depth = be32_to_cpu(h->depth);
	c->count = be64_to_cpu(h->count);
	c->qp_index = be32_to_cpu(h->qp_index);
	sge = be32_to_cpu(h->sge) ?: 1;
	c->nsge = min(sge, c->size);
	c->solicited = c->flags & XP_HELLO_SOLICITED;
	return c->op >= XIWPERF_OP_SEND && c->op <= XIWPERF_OP_READ &&
	       !(c->flags & ~(XIWPERF_F_CHECK | XP_HELLO_SOLICITED)) &&
	       (!c->solicited || c->op == XIWPERF_OP_SEND) && c->size &&
	       c->size <= XIWPERF_MAX_SIZE && c->depth &&
	       c->depth <= XIWPERF_MAX_DEPTH && c->count &&
	       sge <= XIWPERF_MAX_SGE;
}

static size_t xp_chunk_len(struct xp_server *srv, u32 i)
{
	return min(srv->chunk, srv->size - i * srv->chunk);
}

/* Map the buffer's chunks for this connection's device, and the table. */
static int xp_sconn_map_chunks(struct xp_sconn *c)
{
	struct xp_server *srv = c->srv;
	struct ib_device *dev = c->q.id->device;
	u32 i;
	int ret;

	c->chunk_maps = kcalloc(srv->nchunks, sizeof(*c->chunk_maps),
				GFP_KERNEL);
	c->table = kcalloc(srv->nchunks, sizeof(*c->table), GFP_KERNEL);
	if (!c->chunk_maps || !c->table)
		return -ENOMEM;
	for (i = 0; i < srv->nchunks; i++) {
		ret = xp_map(&c->chunk_maps[i], dev, srv->chunks[i],
			     xp_chunk_len(srv, i));
		if (ret)
			return ret;
		c->table[i] = cpu_to_be64(c->chunk_maps[i].dma);
	}
	return xp_map(&c->table_map, dev, c->table,
		      srv->nchunks * sizeof(*c->table));
}

/*
 * Resources of an accepted connection; returns an enum xiwperf_reject, and
 * for XIWPERF_REJECT_UNSUPPORTED the device's limit in @limit.
 */
static int xp_sconn_setup(struct xp_sconn *c, struct rdma_cm_id *id,
			  u32 *limit)
{
	struct ib_device *dev = id->device;
	struct ib_qp_cap cap = { .max_send_sge = 1, .max_recv_sge = 1 };

	if (c->op == XIWPERF_OP_SEND) {
		/* Receives take the SGEs of the client's Sends, never fewer. */
		if (c->nsge > dev->attrs.max_recv_sge) {
			*limit = dev->attrs.max_recv_sge;
			return XIWPERF_REJECT_UNSUPPORTED;
		}
		c->nrecv = min3(2 * c->depth,
				max(1U, XP_SRV_RECV_BYTES / c->size),
				(u32)max(dev->attrs.max_qp_wr - 1, 1));
		c->batch = DIV_ROUND_UP(c->nrecv, 2);
		cap.max_send_wr = XP_CTRL_TX;
		cap.max_recv_wr = c->nrecv;
		cap.max_recv_sge = c->nsge;
	}
	if (xp_qp_create(&c->q, id, IB_PD_UNSAFE_GLOBAL_RKEY, &cap,
			 c->solicited))
		return XIWPERF_REJECT_RESOURCES;
	if (xp_sconn_map_chunks(c))
		return XIWPERF_REJECT_RESOURCES;
	if (c->op == XIWPERF_OP_SEND && xp_sconn_setup_send(c))
		return XIWPERF_REJECT_RESOURCES;
	return 0;
}

static int xp_reject(struct xp_server *srv, struct rdma_cm_id *id, u16 why,
		     u32 limit)
{
	struct xp_accept rej = {
		.magic = cpu_to_be32(XP_MAGIC),
		.version = cpu_to_be16(XP_VERSION),
		.reject = cpu_to_be16(why),
		.limit = cpu_to_be32(limit),
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
	u32 limit = 0;
	int why, ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return xp_reject(srv, id, XIWPERF_REJECT_RESOURCES, 0);
	c->kind = XP_KIND_CONN;
	c->srv = srv;
	INIT_LIST_HEAD(&c->node);
	INIT_WORK(&c->release, xp_sconn_release);
	mutex_init(&c->lock);
	c->q.id = id;
	id->context = c;

	if (!xp_hello_parse(c, ev)) {
		why = XIWPERF_REJECT_PROTOCOL;
		goto reject;
	}
	why = xp_sconn_setup(c, id, &limit);
	if (why)
		goto reject;

	acc.magic = cpu_to_be32(XP_MAGIC);
	acc.version = cpu_to_be16(XP_VERSION);
	acc.table = cpu_to_be64(c->table_map.dma);
	acc.size = cpu_to_be64(srv->size);
	acc.chunk = cpu_to_be32(srv->chunk);
	acc.rkey = cpu_to_be32(c->q.pd->unsafe_global_rkey);
	acc.credits = cpu_to_be32(c->nrecv);
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
	return xp_reject(srv, id, why, limit);
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
	init_waitqueue_head(&srv->waitq);
	srv->size = arg->size;
	srv->chunk = min_t(size_t, XP_CHUNK, KMALLOC_MAX_SIZE);
	srv->nchunks = DIV_ROUND_UP(srv->size, srv->chunk);
	ret = -ENOMEM;
	srv->chunks = kcalloc(srv->nchunks, sizeof(*srv->chunks), GFP_KERNEL);
	if (!srv->chunks)
		goto err;
	for (i = 0; i < srv->nchunks; i++) {
		size_t len = xp_chunk_len(srv, i);

		srv->chunks[i] = xp_buf_alloc(len);
		if (!srv->chunks[i])
			goto err;
		xp_pattern_fill(srv->chunks[i], len,
				xp_pattern_seed(XIWPERF_OP_READ, 0, 0),
				(u64)i * srv->chunk, false);
	}
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
	for (i = 0; srv->chunks && i < srv->nchunks; i++)
		xp_buf_free(srv->chunks[i]);
	kfree(srv->chunks);
	kfree(srv);
}
