// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwtarget: the passive end of the hostile-peer tests (tests/reliability).
 *
 * It listens with rdma_cm on addr:port (and with listeners=N on the N
 * ports from port on) in the network namespace it was loaded in and
 * accepts every connection. Each connection gets an arena
 * of pages: a read-write region and a read-only region, each registered
 * by fast registration in the connection's own protection domain (no
 * global rkey anywhere), receive buffers posted once and never again, and
 * canary pages between and around them. The accept's private data
 * (struct xt_accept) tells the peer the STags and the layout; once the
 * registrations are in place the target sends XT_READY_MSG.
 *
 * A peer that puts a struct xt_ask in its connection's private data is
 * also sent one request of the kind it asks for (a Read, an Atomic, a
 * Flush, a Verify or an Atomic Write) right after XT_READY_MSG, with ORD
 * 1; whatever the request returns lands in the sink, inside the blob.
 * The tests of how responses are matched to requests use it.
 *
 * debugfs, under xiwtarget/ (post.c does what N/post, N/dereg and poke ask):
 *   N/mem    the arena as it is now, canaries included (the peer compares
 *            it with what its own model of the connection says)
 *   N/postmem the post sink, between its canary pages: the local buffers
 *            of the requests posted through N/post
 *   N/post   write "OP IDX SINK_OFF SINK_LEN STAG TO LEN A B C D" (decimal,
 *            enum xt_post_op): post that request as work request IDX,
 *            signaled, its local buffer (if it has one) at SINK_OFF of
 *            the post sink (hostile_peer.py --responses answers them)
 *   N/state  the QP's state, the rdma_cm events, each receive's
 *            completion (status, length, flags), in completion order, the
 *            asked request's (status, opcode, length; status -1 until it
 *            completed) and each posted work request's ("wr ...")
 *   N/dereg  write anything: deregister the large region now (the write
 *            returns when ib_dereg_mr() did); read: "none", "running" or
 *            "done"
 *   reap     write N (or "all"): disconnect, destroy and free connection N
 *   release  (answer=hold or hold_addr only) write anything: let the
 *            held request's handler return
 *   gate     (gate=1 only) read: how many accepts wait at the gate; write
 *            anything: let them, and every later one, go on
 *   poke     write "N OP": a verbs call on connection N's QP that only a
 *            kernel ULP can make, its result in N/state ("poke ..."):
 *            inline_wrap  a Send with inline SGEs whose lengths wrap u32
 *            flush_plain  IB_WR_FLUSH in a plain struct ib_rdma_wr
 *            aw_plain     IB_WR_ATOMIC_WRITE in a plain struct ib_rdma_wr
 *            err          modify to ERR
 *            reset        modify to RESET, then INIT, then RTR, each
 *                         followed by the queried state
 *            err2         modify to ERR from a worker while this thread
 *                         drains the QP (two teardowns at once)
 *
 * With early_send=1 each connection posts a Send before it accepts: it
 * must reach the peer after the MPA Reply, never before.
 *
 * With put_delay_us=N every xiw_mr_put() spins N microseconds first (a
 * kprobe): callers that let go of a transmit batch's MR references at
 * once then overlap for sure, which makes a teardown race that a few
 * instructions would otherwise hide show as a refcount underflow.
 *
 * With answer=ignore it answers no connection request: each stays
 * pending in the RDMA CM until the module goes or the device does. With
 * answer=hold the first request's handler moreover does not return until
 * released (at most XT_HOLD_SECS): iw_cm delivers its events from one
 * ordered workqueue, so the listen's later requests queue up behind it
 * and use up its backlog.
 *
 * With hold_addr=A it also listens on A:port, where every request is
 * held as with answer=hold (its device is another one than addr's): an
 * event of addr's device then waits behind it in iw_cm's queue. With
 * gate=1 each accept waits, its request's handler running, until debugfs
 * gate is written (at most XT_HOLD_SECS): what the peer does meanwhile
 * is queued in iw_cm ahead of the connection's ESTABLISHED.
 *
 * A connection lives until it is reaped, its device goes away or the
 * module is unloaded, so that its memory and state can be read after it
 * ended. When the device goes away the target lets go of everything it
 * holds there and stops listening: load it again for the next device.
 * That happens in its ib_client's remove callback, which the RDMA core
 * calls before the RDMA CM's (clients are removed in the reverse order
 * of their registration), as nvme-rdma does, and not in the handler of
 * the RDMA CM's DEVICE_REMOVAL event: that handler runs with the id's
 * handler mutex held, and a QP destroyed there waits for iw_cm to let go
 * of it, which iw_cm does in the turn of the connection's CLOSE event,
 * on its one ordered workqueue. An earlier event of the same id still
 * queued there (the ESTABLISHED of a connection accepted a moment
 * before) waits for that mutex first: the removal never ends. Every
 * iWARP driver waits in destroy_qp for iw_cm's reference (xiw, siw,
 * cxgb4, irdma), so a ULP that destroys its QP in that handler can hang
 * device removal on any of them (see Documentation/threat-model.md).
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/idr.h>
#include <linux/inet.h>
#include <linux/kprobes.h>
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

#include <xiw/verbs.h>

#include "target.h"

static char *addr = "0.0.0.0";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address to listen on");
static ushort port = 18600;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP port to listen on");
static int listeners = 1;
module_param(listeners, int, 0444);
MODULE_PARM_DESC(listeners, "How many ports to listen on, from port on (1 to 64)");
static int backlog = 16;
module_param(backlog, int, 0444);
MODULE_PARM_DESC(backlog, "Backlog of the rdma_cm listen");
static char *answer = "accept";
module_param(answer, charp, 0444);
MODULE_PARM_DESC(answer, "What a connection request gets: accept, ignore or hold");

static char *hold_addr = "";
module_param(hold_addr, charp, 0444);
MODULE_PARM_DESC(hold_addr, "IPv4 address of one more listener (on port), of another device, whose requests are held");
static bool gate;
module_param(gate, bool, 0444);
MODULE_PARM_DESC(gate, "each accept waits until debugfs gate is written");

static bool early_send;
module_param(early_send, bool, 0444);
MODULE_PARM_DESC(early_send, "post a Send before accepting");

static uint put_delay_us;
module_param(put_delay_us, uint, 0444);
MODULE_PARM_DESC(put_delay_us, "spin this long in every xiw_mr_put() (0: off)");

static int xt_put_delay(struct kprobe *p, struct pt_regs *regs)
{
	udelay(put_delay_us);
	return 0;
}

static struct kprobe xt_put_probe = {
	.symbol_name = "xiw_mr_put",
	.pre_handler = xt_put_delay,
};

#define XT_EARLY_MSG	"XTGT early"

#define XT_HOLD_SECS	60

#define XT_SQ_DEPTH	(XT_ORD + 16)
#define XT_CQ_DEPTH	(XT_NRECV + XT_SQ_DEPTH + 2)

static struct dentry *xt_root;
#define XT_MAX_LISTENERS	64

/* Protects xt_listeners, xt_hold_listener, xt_conns and xt_next. */
static DEFINE_MUTEX(xt_lock);
static struct rdma_cm_id *xt_listeners[XT_MAX_LISTENERS];
static struct rdma_cm_id *xt_hold_listener;
static __be32 xt_hold_ip;
static LIST_HEAD(xt_conns);
static u32 xt_next;

/**
 * struct xt_ignored - a connection request left unanswered
 * @node: in xt_ignored (xt_lock)
 * @id: its rdma_cm id
 */
struct xt_ignored {
	struct list_head node;
	struct rdma_cm_id *id;
};

/* Protected by xt_lock. */
static LIST_HEAD(xt_ignored);
static bool xt_holding;
static DECLARE_COMPLETION(xt_released);

/* gate=1: the accepts waiting at the gate, and the gate. */
static atomic_t xt_gated = ATOMIC_INIT(0);
static DECLARE_COMPLETION(xt_gate_open);

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

static void xt_req_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xt_conn *c = cq->cq_context;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->req_completions++;
	c->req_status = wc->status;
	if (wc->status == IB_WC_SUCCESS) {
		c->req_opcode = wc->opcode;
		c->req_len = wc->byte_len;
	}
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
	get_random_bytes(xt_mem(c) + XT_POST_BLOB * PAGE_SIZE,
			 XT_POST_BLOB_PAGES * PAGE_SIZE);
	c->postmem.data = xt_mem(c) + XT_POST_BLOB * PAGE_SIZE;
	c->postmem.size = XT_POST_BLOB_PAGES * PAGE_SIZE;

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
	if (ib_post_send(c->id->qp, &rw.wr, NULL) ||
	    (c->ask.magic && xt_post_ask(c)))
		xt_note(c, c->events, sizeof(c->events), "post_failed");
}

static void xt_conn_free(struct xt_conn *c)
{
	/* An ESTABLISHED handled from now on posts nothing. */
	mutex_lock(&c->post_lock);
	c->gone = true;
	mutex_unlock(&c->post_lock);
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
	seq_printf(m, "req status %d opcode %u len %u completions %u\n",
		   c->req_status, c->req_opcode, c->req_len,
		   c->req_completions);
	seq_printf(m, "poke %s\n", c->poke);
	for (i = 0; i < XT_NRECV; i++) {
		struct xt_slot *s = &c->slots[i];

		seq_printf(m, "recv %d status %d len %u flags %u imm %u inv %u order %u completions %u\n",
			   i, s->status, s->len, s->flags, s->imm, s->inv,
			   s->order, s->completions);
	}
	for (i = 0; i < XT_NWR; i++) {
		struct xt_wr *w = &c->wrs[i];

		if (w->posted)
			seq_printf(m, "wr %d status %d len %u order %u completions %u\n",
				   i, w->status, w->len, w->order,
				   w->completions);
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
	mutex_init(&c->post_lock);
	c->reg_cqe.done = xt_send_done;	/* counted with the Send */
	c->send_cqe.done = xt_send_done;
	c->req_cqe.done = xt_req_done;
	c->req_status = -1;
	if (ev->param.conn.private_data_len >= sizeof(c->ask)) {
		memcpy(&c->ask, ev->param.conn.private_data, sizeof(c->ask));
		if (be32_to_cpu(c->ask.magic) != XT_ASK_MAGIC)
			memset(&c->ask, 0, sizeof(c->ask));
	}
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
	debugfs_create_blob("postmem", 0400, c->dir, &c->postmem);
	debugfs_create_file("post", 0200, c->dir, c, &xt_post_fops);
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
	acc.sink_off = cpu_to_be32(XT_SINK_PAGE * PAGE_SIZE + XT_SINK_OFF);
	acc.sink_len = cpu_to_be32(XT_SINK_LEN);
	acc.sink_stag = cpu_to_be32(c->pd->local_dma_lkey);
	acc.sink_to = cpu_to_be64(xt_sink(c, 0).addr);
	acc.post_to = cpu_to_be64(c->dma + XT_POST_PAGE * PAGE_SIZE);
	acc.post_len = cpu_to_be32(XT_POST_PAGES * PAGE_SIZE);
	acc.post_off = cpu_to_be32((XT_POST_PAGE - XT_POST_BLOB) * PAGE_SIZE);
	acc.post_blob_len = cpu_to_be32(c->postmem.size);
	acc.big_stag = cpu_to_be32(c->big->rkey);
	acc.big_len = cpu_to_be32(XT_BIG_PAGES * PAGE_SIZE);
	acc.big_to = cpu_to_be64(c->big->iova);
	if (early_send) {
		struct ib_sge sge = {
			.addr = c->dma + XT_READY_PAGE * PAGE_SIZE + PAGE_SIZE / 2,
			.length = sizeof(XT_EARLY_MSG) - 1,
			.lkey = c->pd->local_dma_lkey,
		};
		struct ib_send_wr send = {
			.wr_cqe = &c->send_cqe, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
		};

		memcpy(xt_mem(c) + XT_READY_PAGE * PAGE_SIZE + PAGE_SIZE / 2,
		       XT_EARLY_MSG, sizeof(XT_EARLY_MSG) - 1);
		if (ib_post_send(id->qp, &send, NULL))
			xt_note(c, c->events, sizeof(c->events), "early_failed");
	}
	if (gate) {
		atomic_inc(&xt_gated);
		wait_for_completion_timeout(&xt_gate_open, XT_HOLD_SECS * HZ);
		atomic_dec(&xt_gated);
	}
	param.private_data = &acc;
	param.private_data_len = sizeof(acc);
	param.responder_resources = min_t(u32, XT_IRD,
					  id->device->attrs.max_qp_rd_atom);
	param.initiator_depth = c->ask.magic ? 1 : XT_ORD;
	ret = rdma_accept(id, &param);
	if (ret)
		xt_note(c, c->events, sizeof(c->events), "accept_failed");
	/* Kept either way: the peer reaps it. */
	return 0;
}

/*
 * @id's device is going away (@c is NULL for a listener): free what is
 * held on it. A non-zero return has the RDMA CM destroy @id; zero leaves
 * it to whoever already took it off the lists (xt_reap(), xt_exit() or
 * xt_remove_one()), whose rdma_destroy_id() waits for this handler to
 * return. xt_remove_one() ran first and took the device's listeners and
 * connections: what is left to come here are ids it could not see (a
 * listener still being set up, an unanswered request's id).
 */
static int xt_device_removal(struct rdma_cm_id *id, struct xt_conn *c)
{
	struct xt_conn *pos;
	bool ours = false;

	mutex_lock(&xt_lock);
	if (!c) {
		int i;

		for (i = 0; i < listeners; i++) {
			if (xt_listeners[i] == id) {
				xt_listeners[i] = NULL;
				ours = true;
			}
		}
		if (xt_hold_listener == id) {
			xt_hold_listener = NULL;
			ours = true;
		}
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

/* A request to hold_addr's listener. */
static bool xt_hold_request(struct rdma_cm_id *id)
{
	const struct sockaddr_in *sin =
		(const struct sockaddr_in *)&id->route.addr.src_addr;

	return xt_hold_ip && sin->sin_family == AF_INET &&
	       sin->sin_addr.s_addr == xt_hold_ip;
}

/*
 * answer=ignore or hold, or a request to hold_addr: keep the request's
 * id, answer nothing; the first of answer=hold's or hold_addr's also
 * blocks its handler until released.
 */
static int xt_ignore(struct rdma_cm_id *id, bool held)
{
	struct xt_ignored *ig = kzalloc(sizeof(*ig), GFP_KERNEL);
	bool hold = false;

	if (!ig)
		return -ENOMEM;
	ig->id = id;
	mutex_lock(&xt_lock);
	if (held && !xt_holding) {
		xt_holding = true;
		hold = true;
	}
	list_add_tail(&ig->node, &xt_ignored);
	mutex_unlock(&xt_lock);
	if (hold)
		wait_for_completion_timeout(&xt_released, XT_HOLD_SECS * HZ);
	return 0;
}

/* If @id is an ignored request's, forget it: the caller destroys it. */
static bool xt_forget_ignored(struct rdma_cm_id *id)
{
	struct xt_ignored *ig;
	bool found = false;

	mutex_lock(&xt_lock);
	list_for_each_entry(ig, &xt_ignored, node) {
		if (ig->id == id) {
			list_del(&ig->node);
			kfree(ig);
			found = true;
			break;
		}
	}
	mutex_unlock(&xt_lock);
	return found;
}

static void xt_destroy_ignored(void)
{
	struct xt_ignored *ig, *tmp;
	LIST_HEAD(doomed);

	mutex_lock(&xt_lock);
	list_splice_init(&xt_ignored, &doomed);
	mutex_unlock(&xt_lock);
	list_for_each_entry_safe(ig, tmp, &doomed, node) {
		rdma_destroy_id(ig->id);
		kfree(ig);
	}
}

static int xt_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct xt_conn *c = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (xt_hold_request(id))
			return xt_ignore(id, true);
		return strcmp(answer, "accept") ?
		       xt_ignore(id, !strcmp(answer, "hold")) :
		       xt_accept(id, ev);
	}
	/* An ignored request's id goes with its device. */
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL && !c &&
	    xt_forget_ignored(id))
		return 1;
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		return xt_device_removal(id, c);
	if (!c)
		return 0;	/* the listener's own events */
	xt_note(c, c->events, sizeof(c->events), rdma_event_msg(ev->event));
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
		mutex_lock(&c->post_lock);
		if (!c->gone)
			xt_conn_ready(c);
		mutex_unlock(&c->post_lock);
	}
	return 0;
}

/*
 * Disconnect, destroy and free the connections on @dev (on every device
 * when NULL) numbered *@num (whatever their number when @num is NULL):
 * taken off xt_conns under xt_lock, freed outside it.
 */
static void xt_reap_conns(struct ib_device *dev, const u32 *num)
{
	struct xt_conn *c, *tmp;
	LIST_HEAD(doomed);

	mutex_lock(&xt_lock);
	list_for_each_entry_safe(c, tmp, &xt_conns, node) {
		if ((!dev || c->dev == dev) && (!num || c->num == *num))
			list_move_tail(&c->node, &doomed);
	}
	mutex_unlock(&xt_lock);
	list_for_each_entry_safe(c, tmp, &doomed, node)
		xt_conn_free(c);
}

/* debugfs reap: @what is a connection's number or "all". */
static void xt_reap(const char *what)
{
	u32 num;

	if (sysfs_streq(what, "all"))
		xt_reap_conns(NULL, NULL);
	else if (!kstrtou32(what, 0, &num))
		xt_reap_conns(NULL, &num);
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

/* release and gate: write anything to complete the file's completion. */
static ssize_t xt_complete_write(struct file *f, const char __user *ubuf,
				 size_t len, loff_t *pos)
{
	complete_all(f->private_data);
	return len;
}

static const struct file_operations xt_release_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = xt_complete_write,
};

static ssize_t xt_gate_read(struct file *f, char __user *ubuf, size_t len,
			    loff_t *pos)
{
	char buf[24];
	int n = scnprintf(buf, sizeof(buf), "%d waiting\n",
			  atomic_read(&xt_gated));

	return simple_read_from_buffer(ubuf, len, pos, buf, n);
}

static const struct file_operations xt_gate_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = xt_gate_read,
	.write = xt_complete_write,
};

static ssize_t xt_poke_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *pos)
{
	struct xt_conn *c;
	char buf[32], op[16];
	u32 num;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%u %15s", &num, op) != 2)
		return -EINVAL;
	/* Held throughout: xt_reap() cannot take the connection meanwhile. */
	mutex_lock(&xt_lock);
	list_for_each_entry(c, &xt_conns, node) {
		if (c->num == num && c->id && c->id->qp) {
			xt_poke(c, op);
			mutex_unlock(&xt_lock);
			return len;
		}
	}
	mutex_unlock(&xt_lock);
	return -ENOENT;
}

static const struct file_operations xt_poke_fops = {
	.owner = THIS_MODULE,
	.write = xt_poke_write,
};

/* Listen on @sin, as *@slot (xt_listeners[] or xt_hold_listener). */
static int xt_listen(const struct sockaddr_in *sin, struct rdma_cm_id **slot)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(current->nsproxy->net_ns, xt_cm_handler, NULL,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	/* Published first: a device removal may come as soon as it is bound. */
	mutex_lock(&xt_lock);
	*slot = id;
	mutex_unlock(&xt_lock);
	ret = rdma_bind_addr(id, (struct sockaddr *)sin);
	if (!ret)
		ret = rdma_listen(id, backlog);
	if (ret) {
		mutex_lock(&xt_lock);
		if (*slot != id)
			id = NULL;	/* the RDMA CM or xt_remove_one() took it */
		else
			*slot = NULL;
		mutex_unlock(&xt_lock);
		if (id)
			rdma_destroy_id(id);
	}
	return ret;
}

/*
 * The listeners on @dev (every one when @dev is NULL), taken off the
 * lists into @ids: the caller destroys them. Returns how many.
 */
static int xt_take_listeners(struct ib_device *dev,
			     struct rdma_cm_id *ids[XT_MAX_LISTENERS + 1])
{
	int i, n = 0;

	mutex_lock(&xt_lock);
	for (i = 0; i < XT_MAX_LISTENERS; i++) {
		if (xt_listeners[i] &&
		    (!dev || xt_listeners[i]->device == dev)) {
			ids[n++] = xt_listeners[i];
			xt_listeners[i] = NULL;
		}
	}
	if (xt_hold_listener && (!dev || xt_hold_listener->device == dev)) {
		ids[n++] = xt_hold_listener;
		xt_hold_listener = NULL;
	}
	mutex_unlock(&xt_lock);
	return n;
}

/*
 * Stop listening on @dev (on every device when NULL): every listener the
 * device's removal has not taken. Once done, no request is being handled
 * there any more: the connections of @dev are all on xt_conns.
 */
static void xt_unlisten(struct ib_device *dev)
{
	struct rdma_cm_id *ids[XT_MAX_LISTENERS + 1];
	int i, n = xt_take_listeners(dev, ids);

	for (i = 0; i < n; i++)
		rdma_destroy_id(ids[i]);
}

static int xt_add_one(struct ib_device *dev)
{
	return 0;
}

/*
 * @dev is being unregistered: let go of everything on it, outside any
 * RDMA CM handler (see the top of the file), before the RDMA CM's own
 * removal sends its DEVICE_REMOVAL events.
 */
static void xt_remove_one(struct ib_device *dev, void *client_data)
{
	xt_unlisten(dev);
	xt_reap_conns(dev, NULL);
}

static struct ib_client xt_client = {
	.name = "xiwtarget",
	.add = xt_add_one,
	.remove = xt_remove_one,
};

static bool xt_client_registered;

/* Let go of everything: module unload, or a load that failed midway. */
static void xt_teardown(void)
{
	/* A held handler would keep the listen's destruction waiting. */
	complete_all(&xt_released);
	complete_all(&xt_gate_open);
	xt_unlisten(NULL);
	xt_destroy_ignored();
	xt_reap("all");
	if (xt_client_registered)
		ib_unregister_client(&xt_client);
	debugfs_remove_recursive(xt_root);
	if (put_delay_us)
		unregister_kprobe(&xt_put_probe);
}

static int __init xt_init(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_in hold = { .sin_family = AF_INET,
				    .sin_port = htons(port) };
	int ret, i;

	if (!in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	if (*hold_addr &&
	    (!in4_pton(hold_addr, -1, (u8 *)&hold.sin_addr.s_addr, -1, NULL) ||
	     !hold.sin_addr.s_addr ||
	     hold.sin_addr.s_addr == sin.sin_addr.s_addr))
		return -EINVAL;
	xt_hold_ip = hold.sin_addr.s_addr;
	if (strcmp(answer, "accept") && strcmp(answer, "ignore") &&
	    strcmp(answer, "hold"))
		return -EINVAL;
	if (listeners < 1 || listeners > XT_MAX_LISTENERS ||
	    port + listeners - 1 > U16_MAX)
		return -EINVAL;
	if (put_delay_us > 10000)
		return -EINVAL;
	if (put_delay_us) {
		ret = register_kprobe(&xt_put_probe);
		if (ret)
			return ret;
	}
	xt_root = debugfs_create_dir("xiwtarget", NULL);
	debugfs_create_file("reap", 0200, xt_root, NULL, &xt_reap_fops);
	if (!strcmp(answer, "hold") || xt_hold_ip)
		debugfs_create_file("release", 0200, xt_root, &xt_released,
				    &xt_release_fops);
	if (gate)
		debugfs_create_file("gate", 0600, xt_root, &xt_gate_open,
				    &xt_gate_fops);
	debugfs_create_file("poke", 0200, xt_root, NULL, &xt_poke_fops);
	ret = ib_register_client(&xt_client);
	if (ret)
		goto fail;
	xt_client_registered = true;
	for (i = 0; i < listeners; i++) {
		sin.sin_port = htons(port + i);
		ret = xt_listen(&sin, &xt_listeners[i]);
		if (ret)
			goto fail;
	}
	if (xt_hold_ip) {
		ret = xt_listen(&hold, &xt_hold_listener);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	xt_teardown();
	return ret;
}

static void __exit xt_exit(void)
{
	xt_teardown();
}

module_init(xt_init);
module_exit(xt_exit);
MODULE_DESCRIPTION("xiw hostile-peer test target");
MODULE_LICENSE("Dual BSD/GPL");
