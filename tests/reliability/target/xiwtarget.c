// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwtarget: the passive end of the hostile-peer tests (tests/reliability).
 *
 * It listens with rdma_cm on addr:port in the network namespace it was
 * loaded in and accepts every connection. Each connection gets an arena
 * of pages: a read-write region and a read-only region, each registered
 * by fast registration in the connection's own protection domain (no
 * global rkey anywhere), receive buffers posted once and never again, and
 * canary pages between and around them. The accept's private data
 * (struct xt_accept) tells the peer the STags and the layout; once the
 * registrations are in place the target sends XT_READY_MSG.
 *
 * debugfs, under xiwtarget/:
 *   N/mem    the arena as it is now, canaries included (the peer compares
 *            it with what its own model of the connection says)
 *   N/state  the QP's state, the rdma_cm events and each receive's
 *            completion (status, length, flags), in completion order
 *   N/dereg  write anything: deregister the large region now (the write
 *            returns when ib_dereg_mr() did); read: "none", "running" or
 *            "done"
 *   reap     write N (or "all"): disconnect, destroy and free connection N
 *
 * A connection lives until it is reaped, its device goes away or the
 * module is unloaded, so that its memory and state can be read after it
 * ended. When the device goes away the target lets go of everything it
 * holds there and stops listening: load it again for the next device.
 */
#include <linux/debugfs.h>
#include <linux/idr.h>
#include <linux/inet.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "xiwtarget.h"

static char *addr = "0.0.0.0";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address to listen on");
static ushort port = 18600;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP port to listen on");

#define XT_SQ_DEPTH	8
#define XT_CQ_DEPTH	(XT_NRECV + XT_SQ_DEPTH + 2)

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
 * @slots: the receives
 * @blob: debugfs view of the arena's first XT_BLOB_PAGES pages
 * @dir: debugfs directory
 * @lock: protects everything below
 * @events: rdma_cm events seen, as text
 * @qp_events: affiliated asynchronous events of the QP, as text
 * @recv_done: receive completions so far
 * @send_ok: successful send queue completions
 * @send_err: failed send queue completions (flushes included)
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
	struct xt_slot slots[XT_NRECV];
	struct debugfs_blob_wrapper blob;
	struct dentry *dir;

	spinlock_t lock;	/* the fields below, and @slots' results */
	char events[160];
	char qp_events[160];
	u32 recv_done;
	u32 send_ok;
	u32 send_err;
};

static struct dentry *xt_root;
/* Protects xt_listener, xt_conns and xt_next. */
static DEFINE_MUTEX(xt_lock);
static struct rdma_cm_id *xt_listener;
static LIST_HEAD(xt_conns);
static u32 xt_next;

static void xt_note(struct xt_conn *c, char *log, size_t size,
		    const char *what)
{
	unsigned long flags;
	size_t n;

	spin_lock_irqsave(&c->lock, flags);
	n = strlen(log);
	if (n + strlen(what) + 2 < size)
		snprintf(log + n, size - n, "%s%s", n ? " " : "", what);
	spin_unlock_irqrestore(&c->lock, flags);
}

static void xt_qp_event(struct ib_event *ev, void *ctx)
{
	struct xt_conn *c = ctx;

	xt_note(c, c->qp_events, sizeof(c->qp_events),
		ib_event_msg(ev->event));
}

static void xt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xt_slot *s = container_of(wc->wr_cqe, struct xt_slot, cqe);
	struct xt_conn *c = s->conn;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	s->completions++;
	s->status = wc->status;
	s->order = c->recv_done++;
	if (wc->status == IB_WC_SUCCESS) {
		s->len = wc->byte_len;
		s->flags = wc->wc_flags;
		if (wc->wc_flags & IB_WC_WITH_IMM)
			s->imm = be32_to_cpu(wc->ex.imm_data);
		if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
			s->inv = wc->ex.invalidate_rkey;
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

static void xt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xt_conn *c = cq->cq_context;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (wc->status == IB_WC_SUCCESS)
		c->send_ok++;
	else
		c->send_err++;
	spin_unlock_irqrestore(&c->lock, flags);
}

static u8 *xt_mem(struct xt_conn *c)
{
	return page_address(c->arena);
}

/* A registration of @pages pages mapped at @dma. */
static struct ib_mr *xt_mr_at(struct xt_conn *c, u64 dma, u32 pages,
			      u64 iova)
{
	struct scatterlist sg;
	struct ib_mr *mr;
	int n;

	mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, pages);
	if (IS_ERR(mr))
		return mr;
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = dma;
	sg_dma_len(&sg) = pages * PAGE_SIZE;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		ib_dereg_mr(mr);
		return ERR_PTR(n < 0 ? n : -EIO);
	}
	mr->iova = iova;
	return mr;
}

/* A registration of @pages pages of the arena from page @first. */
static struct ib_mr *xt_mr(struct xt_conn *c, u32 first, u32 pages, u64 iova)
{
	return xt_mr_at(c, c->dma + first * PAGE_SIZE, pages, iova);
}

static int xt_post_recvs(struct xt_conn *c)
{
	int i;

	for (i = 0; i < XT_NRECV; i++) {
		struct xt_slot *s = &c->slots[i];
		struct ib_sge sge = {
			.addr = c->dma + XT_RECV_PAGE * PAGE_SIZE +
				i * XT_RECV_LEN,
			.length = XT_RECV_LEN,
			.lkey = c->pd->local_dma_lkey,
		};
		struct ib_recv_wr wr = {
			.wr_cqe = &s->cqe, .sg_list = &sge, .num_sge = 1,
		};
		int ret;

		s->conn = c;
		s->cqe.done = xt_recv_done;
		s->status = -1;
		ret = ib_post_recv(c->id->qp, &wr, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static int xt_conn_setup(struct xt_conn *c, struct rdma_cm_id *id)
{
	struct ib_device *dev = id->device;
	struct ib_qp_init_attr attr = {
		.event_handler = xt_qp_event,
		.qp_context = c,
		.cap = {
			.max_send_wr = XT_SQ_DEPTH,
			.max_recv_wr = XT_NRECV,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	u64 iova = (u64)get_random_u32() << 32;
	int ret;

	c->id = id;
	c->dev = dev;
	c->arena = alloc_pages(GFP_KERNEL | __GFP_ZERO, XT_ARENA_ORDER);
	if (!c->arena)
		return -ENOMEM;
	/* Canaries and regions alike start random: the peer reads them. */
	get_random_bytes(xt_mem(c), XT_BLOB_PAGES * PAGE_SIZE);
	memcpy(xt_mem(c) + XT_READY_PAGE * PAGE_SIZE, XT_READY_MSG,
	       sizeof(XT_READY_MSG) - 1);
	c->blob.data = xt_mem(c);
	c->blob.size = XT_BLOB_PAGES * PAGE_SIZE;

	c->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(c->pd))
		return PTR_ERR(c->pd);
	c->dma = ib_dma_map_single(dev, xt_mem(c), XT_ARENA_PAGES * PAGE_SIZE,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, c->dma)) {
		c->dma = 0;
		return -EIO;
	}
	c->cq = ib_alloc_cq(dev, c, XT_CQ_DEPTH, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(c->cq))
		return PTR_ERR(c->cq);
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	ret = rdma_create_qp(id, c->pd, &attr);
	if (ret)
		return ret;
	c->rw = xt_mr(c, XT_RW_PAGE, XT_RW_PAGES, iova | 0x10000);
	if (IS_ERR(c->rw))
		return PTR_ERR(c->rw);
	c->ro = xt_mr(c, XT_RO_PAGE, XT_RO_PAGES, iova | 0x40000);
	if (IS_ERR(c->ro))
		return PTR_ERR(c->ro);
	c->big_pages = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_COMP,
				   XT_BIG_ORDER);
	if (!c->big_pages)
		return -ENOMEM;
	c->big_dma = ib_dma_map_single(dev, page_address(c->big_pages),
				       XT_BIG_PAGES * PAGE_SIZE,
				       DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, c->big_dma)) {
		c->big_dma = 0;
		return -EIO;
	}
	c->big = xt_mr_at(c, c->big_dma, XT_BIG_PAGES, iova | 0x1000000);
	if (IS_ERR(c->big))
		return PTR_ERR(c->big);
	return xt_post_recvs(c);
}

/* Established: register both regions, then tell the peer. */
static void xt_conn_ready(struct xt_conn *c)
{
	struct ib_reg_wr rw = {
		.wr = { .opcode = IB_WR_REG_MR, .wr_cqe = &c->reg_cqe,
			.send_flags = IB_SEND_SIGNALED },
		.mr = c->rw, .key = c->rw->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
			  IB_ACCESS_FLUSH_GLOBAL,
	};
	struct ib_reg_wr ro = {
		.wr = { .opcode = IB_WR_REG_MR, .wr_cqe = &c->reg_cqe,
			.send_flags = IB_SEND_SIGNALED },
		.mr = c->ro, .key = c->ro->rkey,
		.access = IB_ACCESS_REMOTE_READ,
	};
	struct ib_reg_wr big = {
		.wr = { .opcode = IB_WR_REG_MR, .wr_cqe = &c->reg_cqe,
			.send_flags = IB_SEND_SIGNALED },
		.mr = c->big, .key = c->big->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ | IB_ACCESS_FLUSH_GLOBAL |
			  IB_ACCESS_FLUSH_PERSISTENT,
	};
	struct ib_sge sge = {
		.addr = c->dma + XT_READY_PAGE * PAGE_SIZE,
		.length = sizeof(XT_READY_MSG) - 1,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_send_wr send = {
		.wr_cqe = &c->send_cqe, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};

	rw.wr.next = &ro.wr;
	ro.wr.next = &big.wr;
	big.wr.next = &send;
	if (ib_post_send(c->id->qp, &rw.wr, NULL))
		xt_note(c, c->events, sizeof(c->events), "post_failed");
}

/* Deregister the large region, once, whoever asks first. */
static void xt_dereg_big(struct xt_conn *c)
{
	struct ib_mr *mr = xchg(&c->big, NULL);

	if (IS_ERR_OR_NULL(mr))
		return;
	atomic_set(&c->dereg, 1);
	ib_dereg_mr(mr);
	atomic_set(&c->dereg, 2);
}

static ssize_t xt_dereg_write(struct file *f, const char __user *ubuf,
			      size_t len, loff_t *pos)
{
	xt_dereg_big(f->private_data);
	return len;
}

static ssize_t xt_dereg_read(struct file *f, char __user *ubuf, size_t len,
			     loff_t *pos)
{
	static const char * const what[] = { "none\n", "running\n", "done\n" };
	struct xt_conn *c = f->private_data;
	const char *s = what[atomic_read(&c->dereg)];

	return simple_read_from_buffer(ubuf, len, pos, s, strlen(s));
}

static const struct file_operations xt_dereg_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = xt_dereg_read,
	.write = xt_dereg_write,
};

static void xt_conn_free(struct xt_conn *c)
{
	debugfs_remove_recursive(c->dir);
	if (c->id) {
		if (c->id->qp) {
			rdma_disconnect(c->id);
			rdma_destroy_qp(c->id);
		}
		rdma_destroy_id(c->id);
	}
	if (!IS_ERR_OR_NULL(c->rw))
		ib_dereg_mr(c->rw);
	if (!IS_ERR_OR_NULL(c->ro))
		ib_dereg_mr(c->ro);
	xt_dereg_big(c);
	if (c->big_dma)
		ib_dma_unmap_single(c->dev, c->big_dma,
				    XT_BIG_PAGES * PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	if (c->big_pages)
		__free_pages(c->big_pages, XT_BIG_ORDER);
	if (!IS_ERR_OR_NULL(c->cq))
		ib_free_cq(c->cq);
	if (c->dma)
		ib_dma_unmap_single(c->dev, c->dma, XT_ARENA_PAGES * PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	if (!IS_ERR_OR_NULL(c->pd))
		ib_dealloc_pd(c->pd);
	if (c->arena)
		__free_pages(c->arena, XT_ARENA_ORDER);
	kfree(c);
}

static int xt_state_show(struct seq_file *m, void *unused)
{
	struct xt_conn *c = m->private;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	unsigned long flags;
	int i;

	if (ib_query_qp(c->id->qp, &attr, IB_QP_STATE, &init))
		attr.qp_state = -1;
	spin_lock_irqsave(&c->lock, flags);
	seq_printf(m, "qp_state %d\n", attr.qp_state);
	seq_printf(m, "cm_events %s\n", c->events);
	seq_printf(m, "qp_events %s\n", c->qp_events);
	seq_printf(m, "send_ok %u\nsend_err %u\nrecv_done %u\n", c->send_ok,
		   c->send_err, c->recv_done);
	for (i = 0; i < XT_NRECV; i++) {
		struct xt_slot *s = &c->slots[i];

		seq_printf(m, "recv %d status %d len %u flags %u imm %u inv %u order %u completions %u\n",
			   i, s->status, s->len, s->flags, s->imm, s->inv,
			   s->order, s->completions);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xt_state);

static int xt_accept(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = {};
	struct xt_accept acc = {};
	struct xt_conn *c;
	char name[16];
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	spin_lock_init(&c->lock);
	c->reg_cqe.done = xt_send_done;	/* counted with the Send */
	c->send_cqe.done = xt_send_done;
	ret = xt_conn_setup(c, id);
	if (ret) {
		/* The RDMA CM destroys the id when the handler fails. */
		if (id->qp)
			rdma_destroy_qp(id);
		c->id = NULL;
		xt_conn_free(c);
		return ret;
	}
	id->context = c;

	mutex_lock(&xt_lock);
	c->num = xt_next++;
	list_add_tail(&c->node, &xt_conns);
	mutex_unlock(&xt_lock);
	snprintf(name, sizeof(name), "%u", c->num);
	c->dir = debugfs_create_dir(name, xt_root);
	debugfs_create_blob("mem", 0400, c->dir, &c->blob);
	debugfs_create_file("state", 0400, c->dir, c, &xt_state_fops);
	debugfs_create_file("dereg", 0600, c->dir, c, &xt_dereg_fops);

	acc.magic = cpu_to_be32(XT_MAGIC);
	acc.conn = cpu_to_be32(c->num);
	acc.rw_stag = cpu_to_be32(c->rw->rkey);
	acc.ro_stag = cpu_to_be32(c->ro->rkey);
	acc.rw_to = cpu_to_be64(c->rw->iova);
	acc.ro_to = cpu_to_be64(c->ro->iova);
	acc.rw_len = cpu_to_be32(XT_RW_PAGES * PAGE_SIZE);
	acc.ro_len = cpu_to_be32(XT_RO_PAGES * PAGE_SIZE);
	acc.rw_off = cpu_to_be32(XT_RW_PAGE * PAGE_SIZE);
	acc.ro_off = cpu_to_be32(XT_RO_PAGE * PAGE_SIZE);
	acc.recv_off = cpu_to_be32(XT_RECV_PAGE * PAGE_SIZE);
	acc.nrecv = cpu_to_be32(XT_NRECV);
	acc.recv_len = cpu_to_be32(XT_RECV_LEN);
	acc.blob_len = cpu_to_be32(c->blob.size);
	acc.big_stag = cpu_to_be32(c->big->rkey);
	acc.big_len = cpu_to_be32(XT_BIG_PAGES * PAGE_SIZE);
	acc.big_to = cpu_to_be64(c->big->iova);
	param.private_data = &acc;
	param.private_data_len = sizeof(acc);
	param.responder_resources = min_t(u32, XT_IRD,
					  id->device->attrs.max_qp_rd_atom);
	param.initiator_depth = XT_ORD;
	ret = rdma_accept(id, &param);
	if (ret)
		xt_note(c, c->events, sizeof(c->events), "accept_failed");
	/* Kept either way: the peer reaps it. */
	return 0;
}

/*
 * @id's device is going away (@c is NULL for the listener): free what is
 * held on it. A non-zero return has the RDMA CM destroy @id; zero leaves
 * it to whoever already took it off the lists (xt_reap() or xt_exit()),
 * whose rdma_destroy_id() waits for this handler to return.
 */
static int xt_device_removal(struct rdma_cm_id *id, struct xt_conn *c)
{
	struct xt_conn *pos;
	bool ours = false;

	mutex_lock(&xt_lock);
	if (!c) {
		ours = xt_listener == id;
		if (ours)
			xt_listener = NULL;
	} else {
		list_for_each_entry(pos, &xt_conns, node) {
			if (pos == c) {
				list_del(&c->node);
				ours = true;
				break;
			}
		}
	}
	mutex_unlock(&xt_lock);
	if (!ours || !c)
		return ours;
	if (id->qp)
		rdma_destroy_qp(id);
	c->id = NULL;
	xt_conn_free(c);
	return 1;
}

static int xt_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct xt_conn *c = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return xt_accept(id, ev);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		return xt_device_removal(id, c);
	if (!c)
		return 0;	/* the listener's own events */
	xt_note(c, c->events, sizeof(c->events), rdma_event_msg(ev->event));
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED)
		xt_conn_ready(c);
	return 0;
}

static void xt_reap(const char *what)
{
	struct xt_conn *c, *tmp;
	LIST_HEAD(doomed);
	u32 num = 0;
	bool all = sysfs_streq(what, "all");

	if (!all && kstrtou32(what, 0, &num))
		return;
	mutex_lock(&xt_lock);
	list_for_each_entry_safe(c, tmp, &xt_conns, node) {
		if (all || c->num == num)
			list_move_tail(&c->node, &doomed);
	}
	mutex_unlock(&xt_lock);
	list_for_each_entry_safe(c, tmp, &doomed, node)
		xt_conn_free(c);
}

static ssize_t xt_reap_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *pos)
{
	char buf[16];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	xt_reap(buf);
	return len;
}

static const struct file_operations xt_reap_fops = {
	.owner = THIS_MODULE,
	.write = xt_reap_write,
};

static int __init xt_init(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_id *id;
	int ret;

	sin.sin_port = htons(port);
	if (!in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	xt_root = debugfs_create_dir("xiwtarget", NULL);
	debugfs_create_file("reap", 0200, xt_root, NULL, &xt_reap_fops);
	id = rdma_create_id(current->nsproxy->net_ns, xt_cm_handler, NULL,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto fail;
	}
	/* Published first: a device removal may come as soon as it is bound. */
	mutex_lock(&xt_lock);
	xt_listener = id;
	mutex_unlock(&xt_lock);
	ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(id, 16);
	if (ret) {
		mutex_lock(&xt_lock);
		if (xt_listener != id)
			id = NULL;	/* the RDMA CM destroyed it */
		xt_listener = NULL;
		mutex_unlock(&xt_lock);
		if (id)
			rdma_destroy_id(id);
		goto fail;
	}
	return 0;
fail:
	debugfs_remove_recursive(xt_root);
	return ret;
}

static void __exit xt_exit(void)
{
	struct rdma_cm_id *id;

	mutex_lock(&xt_lock);
	id = xt_listener;
	xt_listener = NULL;
	mutex_unlock(&xt_lock);
	if (id)
		rdma_destroy_id(id);
	xt_reap("all");
	debugfs_remove_recursive(xt_root);
}

module_init(xt_init);
module_exit(xt_exit);
MODULE_DESCRIPTION("xiw hostile-peer test target");
MODULE_LICENSE("Dual BSD/GPL");
