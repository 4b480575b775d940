// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf connection resources. Buffers come from kmalloc, so they are
 * physically contiguous and in the kernel's linear map: software devices
 * (siw, rxe) turn a DMA address back into a page with virt_to_page().
 */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "conn.h"
#include "xiwperf.h"

/**
 * xp_buf_alloc() - allocate a zeroed, physically contiguous buffer.
 * @len: its length in bytes, at most KMALLOC_MAX_SIZE (4 MiB on x86-64).
 *
 * Return: the buffer, or NULL without memory (quietly: sizes come from
 * the user).
 */
void *xp_buf_alloc(size_t len)
{
	if (len > KMALLOC_MAX_SIZE)
		return NULL;
	return kzalloc(len, GFP_KERNEL | __GFP_NOWARN);
}

/**
 * xp_buf_free() - free a buffer from xp_buf_alloc().
 * @buf: the buffer, or NULL.
 */
void xp_buf_free(void *buf)
{
	kfree(buf);
}

/**
 * xp_map() - DMA-map a buffer for a device, for either direction.
 * @map: filled in.
 * @dev: the device.
 * @cpu: the buffer (from xp_buf_alloc()).
 * @len: its length.
 *
 * Return: 0, or -ENOMEM if the mapping failed.
 */
int xp_map(struct xp_map *map, struct ib_device *dev, void *cpu, size_t len)
{
	u64 dma;

	dma = ib_dma_map_single(dev, cpu, len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, dma))
		return -ENOMEM;
	map->dev = dev;
	map->cpu = cpu;
	map->dma = dma;
	map->len = len;
	return 0;
}

/**
 * xp_unmap() - undo xp_map(); nothing if @map is not mapped.
 * @map: the mapping.
 */
void xp_unmap(struct xp_map *map)
{
	if (!map->dev)
		return;
	ib_dma_unmap_single(map->dev, map->dma, map->len, DMA_BIDIRECTIONAL);
	map->dev = NULL;
}

/**
 * xp_sync_for_cpu() - make what the device wrote visible to the CPU.
 * @map: the mapping.
 * @off: offset of the region.
 * @len: length of the region.
 */
void xp_sync_for_cpu(struct xp_map *map, size_t off, size_t len)
{
	ib_dma_sync_single_for_cpu(map->dev, map->dma + off, len,
				   DMA_BIDIRECTIONAL);
}

/**
 * xp_sync_for_device() - hand a region the CPU wrote back to the device.
 * @map: the mapping.
 * @off: offset of the region.
 * @len: length of the region.
 */
void xp_sync_for_device(struct xp_map *map, size_t off, size_t len)
{
	ib_dma_sync_single_for_device(map->dev, map->dma + off, len,
				      DMA_BIDIRECTIONAL);
}

/**
 * xp_frmr_pages() - pages a registration of a mapped buffer spans.
 * @map: the buffer's mapping.
 *
 * Return: the number of PAGE_SIZE pages from the one holding its first
 * byte to the one holding its last.
 */
u32 xp_frmr_pages(const struct xp_map *map)
{
	return DIV_ROUND_UP(offset_in_page(map->dma) + map->len, PAGE_SIZE);
}

/**
 * xp_frmr_alloc() - allocate a fast-registration MR for a mapped buffer.
 * @f: filled in.
 * @pd: its protection domain.
 * @map: the buffer (mapped; it stays so while @f is in use).
 * @tag: distinguishes this buffer's I/O virtual address from others'.
 *
 * Return: 0 or the error of ib_alloc_mr().
 */
int xp_frmr_alloc(struct xp_frmr *f, struct ib_pd *pd,
		  const struct xp_map *map, u32 tag)
{
	struct ib_mr *mr;

	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, xp_frmr_pages(map));
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	f->mr = mr;
	sg_init_table(&f->sg, 1);
	sg_dma_address(&f->sg) = map->dma;
	sg_dma_len(&f->sg) = map->len;
	/* Bits 32 and up from @tag, the rest (the page offset) as mapped. */
	f->iova = (u64)tag << 32 | lower_32_bits(map->dma);
	return 0;
}

/**
 * xp_frmr_free() - deregister the MR; nothing if none was allocated.
 * @f: the MR (no work request of it outstanding).
 */
void xp_frmr_free(struct xp_frmr *f)
{
	if (f->mr)
		ib_dereg_mr(f->mr);
	f->mr = NULL;
}

/**
 * xp_frmr_prepare() - prepare the next registration of the buffer.
 * @f: the MR; its previous registration is invalid by the time the work
 *	request executes (or the device fails it with IB_WC_MW_BIND_ERR).
 * @wr: filled in: a signaled IB_WR_REG_MR to post.
 * @cqe: its completion.
 * @access: IB_ACCESS_* rights of the registration.
 *
 * Rotates the MR's key (so the previous STag no longer names it), maps
 * the buffer and gives it @f->iova. From here on @f->mr->lkey and ->rkey
 * are the new STag.
 *
 * Return: 0, or -EIO if the device did not map the buffer.
 */
int xp_frmr_prepare(struct xp_frmr *f, struct ib_reg_wr *wr,
		    struct ib_cqe *cqe, int access)
{
	struct ib_mr *mr = f->mr;
	int n;

	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	n = ib_map_mr_sg(mr, &f->sg, 1, NULL, PAGE_SIZE);
	if (n != 1)
		return n < 0 ? n : -EIO;
	mr->iova = f->iova;
	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = IB_WR_REG_MR;
	wr->wr.wr_cqe = cqe;
	wr->wr.send_flags = IB_SEND_SIGNALED;
	wr->mr = mr;
	wr->key = mr->rkey;
	wr->access = access;
	return 0;
}

/* The QP's asynchronous events; ctx is its struct xp_qp. */
static void xp_qp_event(struct ib_event *ev, void *ctx)
{
	struct xp_qp *q = ctx;

	pr_debug("QP event %s\n", ib_event_msg(ev->event));
	if (!q->async)
		return;
	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
		atomic_inc(&q->async->qp_fatal);
		break;
	case IB_EVENT_QP_REQ_ERR:
		atomic_inc(&q->async->qp_req_err);
		break;
	case IB_EVENT_QP_ACCESS_ERR:
		atomic_inc(&q->async->qp_access_err);
		break;
	default:
		break;
	}
}

/* Both CQs of a connection; ctx is its struct xp_qp. */
static void xp_cq_event(struct ib_event *ev, void *ctx)
{
	struct xp_qp *q = ctx;

	pr_debug("CQ event %s\n", ib_event_msg(ev->event));
	if (ev->event != IB_EVENT_CQ_ERR)
		return;
	WRITE_ONCE(q->cq_failed, true);
	if (q->async)
		atomic_inc(&q->async->cq_err);
}

/* A solicited receive CQ notified: count it, poll from process context. */
static void xp_rcq_notify(struct ib_cq *cq, void *ctx)
{
	struct xp_qp *q = ctx;

	atomic64_inc(&q->notifications);
	queue_work(system_unbound_wq, &q->rcq_work);
}

/*
 * Deliver what the solicited receive CQ holds, as the RDMA core's polling
 * does, and arm it again: for solicited events only, or while draining for
 * any. A completion that arrived before the arm took effect is polled now
 * rather than waiting for a notification that may never come.
 */
static void xp_rcq_work(struct work_struct *work)
{
	struct xp_qp *q = container_of(work, struct xp_qp, rcq_work);
	enum ib_cq_notify_flags arm;
	int n, i;

	do {
		while ((n = ib_poll_cq(q->rcq, XP_RCQ_BATCH, q->wc)) > 0) {
			for (i = 0; i < n; i++) {
				struct ib_wc *wc = &q->wc[i];

				q->polled++;
				if (READ_ONCE(q->rcq_discard))
					continue;
				if (wc->wr_cqe)
					wc->wr_cqe->done(q->rcq, wc);
				else
					WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
			}
		}
		arm = READ_ONCE(q->draining) ? IB_CQ_NEXT_COMP : IB_CQ_SOLICITED;
	} while (ib_req_notify_cq(q->rcq, arm | IB_CQ_REPORT_MISSED_EVENTS) > 0);
	if (!q->first_done) {
		q->first_batch = q->polled;
		q->first_done = true;
	}
}

/**
 * xp_qp_first_batch() - receive completions of the first wake-up.
 * @q: a connection with a solicited receive CQ.
 *
 * Call from a receive completion callback (in @q->rcq_work): during the
 * first run of the work that is what it has taken so far.
 *
 * Return: the completions the run of @q->rcq_work that the first
 * notification caused took from the CQ, 0 before any notification.
 */
u64 xp_qp_first_batch(const struct xp_qp *q)
{
	return q->first_done ? q->first_batch : q->polled;
}

static int xp_rcq_create(struct xp_qp *q, struct ib_device *dev, u32 cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	int ret;

	q->wc = kcalloc(XP_RCQ_BATCH, sizeof(*q->wc), GFP_KERNEL);
	if (!q->wc)
		return -ENOMEM;
	INIT_WORK(&q->rcq_work, xp_rcq_work);
	q->rcq = ib_create_cq(dev, xp_rcq_notify, xp_cq_event, q, &attr);
	if (IS_ERR(q->rcq)) {
		ret = PTR_ERR(q->rcq);
		q->rcq = NULL;
		return ret;
	}
	ret = ib_req_notify_cq(q->rcq, IB_CQ_SOLICITED);
	return ret < 0 ? ret : 0;
}

static void xp_rcq_destroy(struct xp_qp *q)
{
	if (q->rcq) {
		/* No QP feeds it any more; let a last run finish. */
		cancel_work_sync(&q->rcq_work);
		ib_destroy_cq(q->rcq);
		q->rcq = NULL;
	}
	kfree(q->wc);
	q->wc = NULL;
}

/*
 * Before draining: from now on the work arms the solicited receive CQ for
 * every completion. Run it once to arm it so (and to take what waits).
 */
static void xp_rcq_drain_mode(struct xp_qp *q)
{
	WRITE_ONCE(q->draining, true);
	queue_work(system_unbound_wq, &q->rcq_work);
}

/**
 * xp_qp_create() - allocate a PD, a CQ and an RC QP for an rdma_cm id.
 * @q: filled in; on failure everything allocated is released again, and
 *	@q->create_err says whether rdma_create_qp() was what failed.
 * @id: the id, bound to its device (route resolved, or a connect request).
 * @opts: the PD to use or its flags, an SRQ, and whether receives complete
 *	on a solicited-only CQ of their own (@q->rcq, polled only when it
 *	notifies; its callbacks run in @q->rcq_work, alongside those of
 *	@q->cq).
 * @cap: the capabilities the caller needs: queue depths (one more work
 *	request each is added for ib_drain_qp()), SGEs per work request (at
 *	least one) and inline data. On success, what the device granted.
 *	With an SRQ, @cap->max_recv_wr sizes the CQ for the receives this
 *	QP may take from it; the QP itself has no receive queue.
 *
 * SGE counts are the caller's to check against the device's attributes
 * first; the device itself judges the inline data.
 *
 * Return: 0 or a negative errno; -EINVAL if the device's queue limits are
 * lower.
 */
int xp_qp_create(struct xp_qp *q, struct rdma_cm_id *id,
		 const struct xp_qp_opts *opts, struct ib_qp_cap *cap)
{
	struct ib_device *dev = id->device;
	struct ib_qp_init_attr attr = {};
	bool solicited = opts->solicited;
	u32 send_wr = cap->max_send_wr + 1;
	u32 recv_wr = cap->max_recv_wr + 1;
	int ret;

	q->id = id;
	q->create_err = 0;
	q->async = opts->async;
	if (send_wr > dev->attrs.max_qp_wr ||
	    (!opts->srq && recv_wr > dev->attrs.max_qp_wr) ||
	    send_wr + recv_wr > dev->attrs.max_cqe)
		return -EINVAL;

	if (opts->pd) {
		q->pd = opts->pd;
		q->own_pd = false;
	} else {
		q->pd = ib_alloc_pd(dev, opts->pd_flags);
		if (IS_ERR(q->pd)) {
			ret = PTR_ERR(q->pd);
			q->pd = NULL;
			return ret;
		}
		q->own_pd = true;
	}
	q->cq = ib_alloc_cq_any(dev, q, solicited ? send_wr : send_wr + recv_wr,
				IB_POLL_WORKQUEUE);
	if (IS_ERR(q->cq)) {
		ret = PTR_ERR(q->cq);
		q->cq = NULL;
		goto err_pd;
	}
	if (solicited) {
		ret = xp_rcq_create(q, dev, opts->tiny_rcq ? 1 : recv_wr);
		if (ret)
			goto err_cq;
	}
	attr.event_handler = xp_qp_event;
	attr.qp_context = q;
	attr.send_cq = q->cq;
	attr.recv_cq = q->rcq ?: q->cq;
	attr.cap = *cap;
	attr.cap.max_send_wr = send_wr;
	attr.cap.max_recv_wr = recv_wr;
	attr.cap.max_send_sge = max(cap->max_send_sge, 1U);
	attr.cap.max_recv_sge = max(cap->max_recv_sge, 1U);
	if (opts->srq) {
		attr.srq = opts->srq;
		attr.cap.max_recv_wr = 0;
		attr.cap.max_recv_sge = 0;
	}
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(id, q->pd, &attr);
	if (ret) {
		q->create_err = ret;
		goto err_cq;
	}
	q->qp = id->qp;
	q->srq = opts->srq;
	*cap = attr.cap;
	return 0;

err_cq:
	xp_rcq_destroy(q);
	ib_free_cq(q->cq);
	q->cq = NULL;
err_pd:
	if (q->own_pd)
		ib_dealloc_pd(q->pd);
	q->pd = NULL;
	return ret;
}

/**
 * xp_qp_destroy() - disconnect and release what xp_qp_create() made, but
 *	the PD (xp_qp_free_pd()).
 * @q: the resources; whatever is NULL is skipped, so this also cleans up
 *	after a partial setup.
 * @connected: the connection was accepted or established: disconnect it
 *	and drain the QP, so that every posted work request has completed
 *	(flushed) before the QP goes away. A solicited receive CQ is armed
 *	for every completion first. After a CQ overflowed, only the send
 *	queue is drained: the receive queue's drain could complete into a
 *	CQ still full, and be lost; destroying the QP ends its receives
 *	as surely. Without that drain nothing orders the receive
 *	completions still in the CQ before the QP's end, so they are
 *	discarded from then on: a handler must not repost to a QP being
 *	destroyed.
 *
 * Buffers the QP used may be unmapped and freed once this returns. The
 * rdma_cm id itself is left to the caller.
 */
void xp_qp_destroy(struct xp_qp *q, bool connected)
{
	if (q->qp) {
		/* With an SRQ, ib_drain_qp() drains the send queue only. */
		if (connected) {
			rdma_disconnect(q->id);
			if (q->rcq)
				xp_rcq_drain_mode(q);
			if (READ_ONCE(q->cq_failed)) {
				ib_drain_sq(q->qp);
				WRITE_ONCE(q->rcq_discard, true);
				/* a run under way ends; later ones discard */
				cancel_work_sync(&q->rcq_work);
			} else {
				ib_drain_qp(q->qp);
			}
		}
		rdma_destroy_qp(q->id);
		q->qp = NULL;
	}
	xp_rcq_destroy(q);
	if (q->cq) {
		ib_free_cq(q->cq);
		q->cq = NULL;
	}
}

/**
 * xp_qp_free_pd() - release the PD, after xp_qp_destroy() and after the
 *	MRs of the PD were deregistered; nothing for a shared PD.
 * @q: the resources.
 */
void xp_qp_free_pd(struct xp_qp *q)
{
	if (q->pd && q->own_pd)
		ib_dealloc_pd(q->pd);
	q->pd = NULL;
}

/**
 * xp_atomic_supported() - can a device carry out an atomic operation, as
 *	requester and as responder?
 * @dev: the device.
 * @op: enum xiwperf_op, an atomic one or an Atomic Write.
 *
 * Return: true unless its atomic_cap (for a masked operation its
 * masked_atomic_cap) is IB_ATOMIC_NONE; for an Atomic Write, whether it
 * has IB_DEVICE_ATOMIC_WRITE.
 */
bool xp_atomic_supported(const struct ib_device *dev, u32 op)
{
	if (op == XIWPERF_OP_ATOMIC_WRITE)
		return dev->attrs.device_cap_flags & IB_DEVICE_ATOMIC_WRITE;
	if (xp_op_masked(op))
		return dev->attrs.masked_atomic_cap != IB_ATOMIC_NONE;
	return dev->attrs.atomic_cap != IB_ATOMIC_NONE;
}

/**
 * xp_sge_split() - describe a buffer by consecutive SGEs of equal length.
 * @sge: filled in; room for @n entries.
 * @n: SGEs wanted, at least 1.
 * @addr: address of the buffer.
 * @len: its length, at least 1.
 * @lkey: local key of every SGE.
 *
 * The first len % n SGEs are one byte longer than the others; a buffer
 * shorter than @n bytes gets one SGE per byte.
 *
 * Return: the number of SGEs filled in, min(@n, @len).
 */
u32 xp_sge_split(struct ib_sge *sge, u32 n, u64 addr, u32 len, u32 lkey)
{
	u32 i, base, rem;

	n = clamp(n, 1U, max(len, 1U));
	base = len / n;
	rem = len % n;
	for (i = 0; i < n; i++) {
		sge[i].addr = addr;
		sge[i].length = base + (i < rem ? 1 : 0);
		sge[i].lkey = lkey;
		addr += sge[i].length;
	}
	return n;
}

/**
 * xp_post_recv() - post one receive of a buffer.
 * @q: the connection.
 * @cqe: completion callback.
 * @addr: device address of the buffer.
 * @len: its length.
 * @nsge: SGEs to describe it with (see xp_sge_split()), 1 to
 *	XIWPERF_MAX_SGE; 0 for a receive without buffer (@addr and @len
 *	unused), which takes only an Immediate Data message.
 *
 * Return: 0 or the error of ib_post_recv().
 */
int xp_post_recv(struct xp_qp *q, struct ib_cqe *cqe, u64 addr, u32 len,
		 u32 nsge)
{
	struct ib_sge sge[XIWPERF_MAX_SGE];
	struct ib_recv_wr wr = {
		.wr_cqe = cqe,
		.sg_list = sge,
	};

	if (nsge > XIWPERF_MAX_SGE)
		return -EINVAL;
	if (nsge)
		wr.num_sge = xp_sge_split(sge, nsge, addr, len,
					  q->pd->local_dma_lkey);
	return ib_post_recv(q->qp, &wr, NULL);
}
