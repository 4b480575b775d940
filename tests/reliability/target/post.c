// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwtarget's requests toward the peer and its ULP-only verbs calls: the
 * request a peer asks for in its private data (struct xt_ask), those
 * written to debugfs N/post, the deregistration of the large region
 * (N/dereg) and what debugfs poke does to a connection's QP. main.c's
 * top comment describes each file.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <xiw/verbs.h>

#include "target.h"

static void xt_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xt_wr *w = container_of(wc->wr_cqe, struct xt_wr, cqe);
	struct xt_conn *c = w->conn;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	w->completions++;
	w->status = wc->status;
	w->len = wc->byte_len;
	w->order = c->wr_done++;
	spin_unlock_irqrestore(&c->lock, flags);
}

/* The sink's SGE: XT_SINK_LEN octets, or @len of them. */
struct ib_sge xt_sink(struct xt_conn *c, u32 len)
{
	return (struct ib_sge){
		.addr = c->dma + XT_SINK_PAGE * PAGE_SIZE + XT_SINK_OFF,
		.length = len,
		.lkey = c->pd->local_dma_lkey,
	};
}

/*
 * One request toward the peer of each kind the target posts, from a
 * template @wr (completion, SGE, flags): what N/post and the peer's ask
 * (xt_post_ask()) share.
 */
static int xt_send_read(struct xt_conn *c, const struct ib_send_wr *wr,
			u32 stag, u64 to)
{
	struct ib_rdma_wr r = { .wr = *wr, .remote_addr = to, .rkey = stag };

	r.wr.opcode = IB_WR_RDMA_READ;
	return ib_post_send(c->id->qp, &r.wr, NULL);
}

/* An RFC 7306 atomic; @v: compare/add, swap and their masks. */
static int xt_send_atomic(struct xt_conn *c, const struct ib_send_wr *wr,
			  enum ib_wr_opcode opcode, u32 stag, u64 to,
			  const u64 *v)
{
	struct ib_atomic_wr a = {
		.wr = *wr, .remote_addr = to, .rkey = stag,
		.compare_add = v[0], .swap = v[1],
		.compare_add_mask = v[2], .swap_mask = v[3],
	};

	a.wr.opcode = opcode;
	return ib_post_send(c->id->qp, &a.wr, NULL);
}

/* Flush and Atomic Write carry no SGE, and need xiw's extended WR flag. */
static int xt_send_flush(struct xt_conn *c, const struct ib_send_wr *wr,
			 u32 stag, u64 to, u32 len, u8 type, u8 level)
{
	struct xiw_flush_wr f = {
		.wr = *wr, .remote_addr = to, .rkey = stag, .length = len,
		.type = type, .level = level,
	};

	f.wr.opcode = IB_WR_FLUSH;
	f.wr.send_flags |= XIW_SEND_EXT_WR;
	f.wr.sg_list = NULL;
	f.wr.num_sge = 0;
	return ib_post_send(c->id->qp, &f.wr, NULL);
}

static int xt_send_atomic_write(struct xt_conn *c,
				const struct ib_send_wr *wr, u32 stag, u64 to,
				u64 value)
{
	struct xiw_atomic_write_wr aw = {
		.wr = *wr, .remote_addr = to, .rkey = stag, .value = value,
	};

	aw.wr.opcode = IB_WR_ATOMIC_WRITE;
	aw.wr.send_flags |= XIW_SEND_EXT_WR;
	aw.wr.sg_list = NULL;
	aw.wr.num_sge = 0;
	return ib_post_send(c->id->qp, &aw.wr, NULL);
}

/* RDMA Verify has no verb upstream: xiw's own, found at run time. */
static int xt_send_verify(struct xt_conn *c, const struct ib_send_wr *wr,
			  u32 stag, u64 to, u32 len)
{
	int (*post)(struct ib_qp *qp, const struct xiw_verify_wr *wr,
		    const struct ib_send_wr **bad_wr);
	struct xiw_verify_wr v = {
		.wr = *wr, .remote_addr = to, .rkey = stag, .length = len,
	};
	int ret;

	post = symbol_get(xiw_post_verify);
	if (!post)
		return -EOPNOTSUPP;
	v.wr.opcode = XIW_WR_VERIFY;
	ret = post(c->id->qp, &v, NULL);
	symbol_put(xiw_post_verify);
	return ret;
}

/* XT_ASK_FETCH_ADD and the atomics after it, in order. */
static const enum ib_wr_opcode xt_ask_atomic[] = {
	IB_WR_ATOMIC_FETCH_AND_ADD, IB_WR_ATOMIC_CMP_AND_SWP,
	IB_WR_MASKED_ATOMIC_FETCH_AND_ADD, IB_WR_MASKED_ATOMIC_CMP_AND_SWP,
};

/* The request the peer asked for, toward it, signaled, into the sink. */
int xt_post_ask(struct xt_conn *c)
{
	static const u64 operands[4] = { 1, 2, U64_MAX, U64_MAX };
	const struct xt_ask *a = &c->ask;
	struct ib_sge sge = xt_sink(c, XT_SINK_LEN);
	struct ib_send_wr wr = {
		.wr_cqe = &c->req_cqe, .sg_list = &sge, .num_sge = 1,
		.send_flags = IB_SEND_SIGNALED,
	};
	u32 kind = be32_to_cpu(a->kind), stag = be32_to_cpu(a->stag);
	u32 len = be32_to_cpu(a->len);
	u64 to = be64_to_cpu(a->to);

	switch (kind) {
	case XT_ASK_READ:
		return xt_send_read(c, &wr, stag, to);
	case XT_ASK_FETCH_ADD:
	case XT_ASK_CMP_SWAP:
	case XT_ASK_MASKED_FETCH_ADD:
	case XT_ASK_MASKED_CMP_SWAP:
		sge.length = sizeof(u64);
		return xt_send_atomic(c, &wr,
				      xt_ask_atomic[kind - XT_ASK_FETCH_ADD],
				      stag, to, operands);
	case XT_ASK_FLUSH:
		return xt_send_flush(c, &wr, stag, to, len, IB_FLUSH_GLOBAL,
				     IB_FLUSH_RANGE);
	case XT_ASK_VERIFY:
		return xt_send_verify(c, &wr, stag, to, len);
	case XT_ASK_ATOMIC_WRITE:
		return xt_send_atomic_write(c, &wr, stag, to, 42);
	default:
		return -EINVAL;
	}
}

/*
 * Post what a line of N/post asks for (see the top of main.c). Each
 * work request number is posted once; nothing is posted for a line that
 * does not parse or names a buffer outside the sink.
 */
static int xt_post(struct xt_conn *c, const char *line)
{
	static const enum ib_wr_opcode atomics[] = {
		[XT_POST_FADD] = IB_WR_ATOMIC_FETCH_AND_ADD,
		[XT_POST_MFADD] = IB_WR_MASKED_ATOMIC_FETCH_AND_ADD,
		[XT_POST_CSWAP] = IB_WR_ATOMIC_CMP_AND_SWP,
		[XT_POST_MCSWAP] = IB_WR_MASKED_ATOMIC_CMP_AND_SWP,
	};
	struct ib_send_wr wr = { .send_flags = IB_SEND_SIGNALED };
	u32 op, idx, off, slen, stag, len;
	unsigned long flags;
	struct ib_sge sge;
	struct xt_wr *w;
	u64 to, v[4];
	int ret;

	if (sscanf(line, "%u %u %u %u %u %llu %u %llu %llu %llu %llu", &op,
		   &idx, &off, &slen, &stag, &to, &len, &v[0], &v[1], &v[2],
		   &v[3]) != 11)
		return -EINVAL;
	if (op >= XT_POST_OPS || idx >= XT_NWR ||
	    off > XT_POST_PAGES * PAGE_SIZE ||
	    slen > XT_POST_PAGES * PAGE_SIZE - off)
		return -EINVAL;
	w = &c->wrs[idx];
	spin_lock_irqsave(&c->lock, flags);
	ret = w->posted ? -EBUSY : 0;
	w->posted = true;
	w->status = -1;
	spin_unlock_irqrestore(&c->lock, flags);
	if (ret)
		return ret;
	w->conn = c;
	w->cqe.done = xt_wr_done;
	sge.addr = c->dma + XT_POST_PAGE * PAGE_SIZE + off;
	sge.length = slen;
	sge.lkey = c->pd->local_dma_lkey;
	wr.wr_cqe = &w->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	switch (op) {
	case XT_POST_READ:
		ret = xt_send_read(c, &wr, stag, to);
		break;
	case XT_POST_ATOMIC_WRITE:
		ret = xt_send_atomic_write(c, &wr, stag, to, v[0]);
		break;
	case XT_POST_FLUSH:
		ret = xt_send_flush(c, &wr, stag, to, len,
				    (v[0] & 1 ? IB_FLUSH_GLOBAL : 0) |
				    (v[0] & 2 ? IB_FLUSH_PERSISTENT : 0),
				    v[1] ? IB_FLUSH_MR : IB_FLUSH_RANGE);
		break;
	case XT_POST_VERIFY:
		ret = xt_send_verify(c, &wr, stag, to, len);
		break;
	default:
		ret = xt_send_atomic(c, &wr, atomics[op], stag, to, v);
		break;
	}
	if (ret) {
		spin_lock_irqsave(&c->lock, flags);
		w->posted = false;
		spin_unlock_irqrestore(&c->lock, flags);
	}
	return ret;
}

static ssize_t xt_post_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *pos)
{
	struct xt_conn *c = f->private_data;
	char buf[192];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	mutex_lock(&c->post_lock);
	ret = xt_post(c, buf);
	mutex_unlock(&c->post_lock);
	return ret ? ret : len;
}

const struct file_operations xt_post_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = xt_post_write,
};

/* Deregister the large region, once, whoever asks first. */
void xt_dereg_big(struct xt_conn *c)
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

const struct file_operations xt_dereg_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = xt_dereg_read,
	.write = xt_dereg_write,
};

static void xt_err_work(struct work_struct *w)
{
	struct xt_conn *c = container_of(w, struct xt_conn, err_work);
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	ib_modify_qp(c->id->qp, &attr, IB_QP_STATE);
}

static int xt_qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	if (ib_query_qp(qp, &attr, IB_QP_STATE, &init))
		return -1;
	return attr.qp_state;
}

static int xt_modify(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/*
 * A work request of @opcode as a generic ULP may post it: a plain struct
 * ib_rdma_wr, followed in memory by octets that would make a valid xiw
 * Flush or Atomic Write of the whole read-write region if they were read
 * as one (each octet 1: IB_FLUSH_GLOBAL, IB_FLUSH_MR).
 */
static int xt_post_plain(struct xt_conn *c, enum ib_wr_opcode opcode)
{
	struct {
		struct ib_rdma_wr wr;
		u8 after[32];
	} *p;
	int ret;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	memset(p->after, 1, sizeof(p->after));
	p->wr.wr.opcode = opcode;
	p->wr.wr.wr_cqe = &c->send_cqe;
	p->wr.wr.send_flags = IB_SEND_SIGNALED;
	p->wr.remote_addr = c->rw->iova;
	p->wr.rkey = c->rw->rkey;
	ret = ib_post_send(c->id->qp, &p->wr.wr, NULL);
	kfree(p);
	return ret;
}

/*
 * A Send with two inline SGEs, 16 octets and 2^32 - 8: their sum wraps
 * to 8. The second's source is one vmalloc page, so that a copy of its
 * length faults at the page's end rather than reading on.
 */
static int xt_post_inline_wrap(struct xt_conn *c)
{
	u8 *small = kzalloc(16, GFP_KERNEL);
	u8 *big = vzalloc(PAGE_SIZE);
	struct ib_sge sge[2] = {
		{ .addr = (uintptr_t)small, .length = 16 },
		{ .addr = (uintptr_t)big, .length = U32_MAX - 7 },
	};
	struct ib_send_wr wr = {
		.wr_cqe = &c->send_cqe, .sg_list = sge, .num_sge = 2,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE,
	};
	int ret = -ENOMEM;

	if (small && big)
		ret = ib_post_send(c->id->qp, &wr, NULL);
	vfree(big);
	kfree(small);
	return ret;
}

void xt_poke(struct xt_conn *c, const char *op)
{
	struct ib_qp *qp = c->id->qp;
	char res[sizeof(c->poke)];
	unsigned long flags;

	if (!strcmp(op, "inline_wrap")) {
		snprintf(res, sizeof(res), "%d", xt_post_inline_wrap(c));
	} else if (!strcmp(op, "flush_plain")) {
		snprintf(res, sizeof(res), "%d",
			 xt_post_plain(c, IB_WR_FLUSH));
	} else if (!strcmp(op, "aw_plain")) {
		snprintf(res, sizeof(res), "%d",
			 xt_post_plain(c, IB_WR_ATOMIC_WRITE));
	} else if (!strcmp(op, "err")) {
		snprintf(res, sizeof(res), "%d", xt_modify(qp, IB_QPS_ERR));
	} else if (!strcmp(op, "reset")) {
		int r = xt_modify(qp, IB_QPS_RESET), s = xt_qp_state(qp);
		int i = xt_modify(qp, IB_QPS_INIT), si = xt_qp_state(qp);
		int t = xt_modify(qp, IB_QPS_RTR), st = xt_qp_state(qp);

		snprintf(res, sizeof(res), "reset %d %d init %d %d rtr %d %d",
			 r, s, i, si, t, st);
	} else if (!strcmp(op, "err2")) {
		INIT_WORK(&c->err_work, xt_err_work);
		queue_work(system_unbound_wq, &c->err_work);
		ib_drain_qp(qp);
		flush_work(&c->err_work);
		snprintf(res, sizeof(res), "0");
	} else {
		snprintf(res, sizeof(res), "unknown");
	}
	spin_lock_irqsave(&c->lock, flags);
	strscpy(c->poke, res, sizeof(c->poke));
	spin_unlock_irqrestore(&c->lock, flags);
}
