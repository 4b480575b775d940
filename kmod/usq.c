// SPDX-License-Identifier: GPL-2.0
/*
 * Send rings (uapi/xiw_abi.h, XIW_UCTX_SQ_RING): a process posts its QP's
 * send work requests into a ring it maps, without a system call, and the
 * transmit engine copies them into the QP's send queue when it looks for
 * work. The ring is the process's memory and may change under us at any
 * moment: each field of an entry is read once, into a work request built
 * on the stack, and that goes through the very checks a kernel ULP's work
 * request does (xiw_qp_fill_wqe()). What they refuse still takes its
 * place in the queue, as an XIW_WR_BAD WQE that fails when its turn
 * comes: the process learns of it in posting order, from a completion.
 */
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <xiw/verbs.h>

#include "obj.h"
#include "verbs.h"
#include "../uapi/xiw_abi.h"

/* The ABI's sizes: fixed, multiples of 8, alike for 32- and 64-bit. */
static_assert(sizeof(struct xiw_usqe) == 320);
static_assert(sizeof(struct xiw_usq_resp) == 24);
static_assert(sizeof(struct xiw_uqp_resp) == 48);
static_assert(XIW_USQE_SGE == XIW_MAX_SGE);
static_assert(XIW_USQE_INLINE_MAX == XIW_MAX_INLINE);
static_assert(XIW_USQE_HASH_MAX == XIW_VERIFY_HASH_MAX);
/* The flags are libibverbs' IBV_SEND_*, which are the kernel's IB_SEND_*. */
static_assert((int)XIW_USQE_FENCE == (int)IB_SEND_FENCE &&
	      (int)XIW_USQE_SIGNALED == (int)IB_SEND_SIGNALED &&
	      (int)XIW_USQE_SOLICITED == (int)IB_SEND_SOLICITED &&
	      (int)XIW_USQE_INLINE == (int)IB_SEND_INLINE);

#define XIW_USQE_FLAGS	(XIW_USQE_FENCE | XIW_USQE_SIGNALED | \
			 XIW_USQE_SOLICITED | XIW_USQE_INLINE)

/**
 * xiw_usq_init() - give a process's QP a send ring
 * @qp: the QP, its send queue allocated
 * @udata: the create command's driver data
 * @resp: where the process maps it, filled in
 *
 * The ring has as many slots as the kernel's send queue: entry i of the
 * ring becomes WQE i.
 *
 * Return: 0 or -ENOMEM.
 */
int xiw_usq_init(struct xiw_qp *qp, struct ib_udata *udata,
		 struct xiw_usq_resp *resp)
{
	struct xiw_ucontext *ctx = rdma_udata_to_drv_context(udata,
							    struct xiw_ucontext,
							    ibucontext);
	size_t len = PAGE_ALIGN(XIW_USQ_RING_ENTRIES +
				(size_t)(qp->sq_mask + 1) *
				sizeof(struct xiw_usqe));
	struct xiw_umap *m = xiw_umap_new(&ctx->ibucontext, len,
					  &resp->ring_offset);

	if (IS_ERR(m))
		return PTR_ERR(m);
	qp->usq = m;
	resp->ring_len = len;
	resp->slots = qp->sq_mask + 1;
	resp->size = qp->sq_size;
	return 0;
}

/**
 * xiw_usq_free() - the QP is destroyed: its send ring is read no more
 * @qp: the QP
 */
void xiw_usq_free(struct xiw_qp *qp)
{
	if (qp->usq)
		xiw_umap_remove(qp->usq);
	qp->usq = NULL;
}

static u32 *xiw_usq_word(struct xiw_qp *qp, size_t off)
{
	return (u32 *)(qp->usq->mem + off);
}

/* The work requests an entry can be, built on the stack. */
union xiw_usq_wr {
	struct ib_send_wr wr;
	struct ib_rdma_wr rdma;
	struct ib_atomic_wr atomic;
	struct xiw_atomic_write_wr atomic_write;
	struct xiw_flush_wr flush;
	struct xiw_verify_wr verify;
};

/* Read @n SGEs of an entry, each field once. */
static void xiw_usq_sges(struct ib_sge *sge, const struct xiw_usge *u, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		sge[i].addr = READ_ONCE(u[i].addr);
		sge[i].length = READ_ONCE(u[i].length);
		sge[i].lkey = READ_ONCE(u[i].lkey);
	}
}

/*
 * An entry as a work request: what its opcode reads of it, each field
 * once. Return: false if it cannot be one (unknown opcode or flag, a
 * reserved field set); the verbs' own checks come after.
 */
static bool xiw_usq_wr(const struct xiw_usqe *u, union xiw_usq_wr *w,
		       struct ib_sge *sge)
{
	u8 opcode = READ_ONCE(u->opcode);
	u8 flags = READ_ONCE(u->flags);
	u8 num_sge = READ_ONCE(u->num_sge);
	u32 ex = READ_ONCE(u->ex);

	memset(w, 0, sizeof(*w));
	w->wr.wr_id = READ_ONCE(u->wr_id);
	if ((flags & ~XIW_USQE_FLAGS) || READ_ONCE(u->reserved0) ||
	    num_sge > XIW_MAX_SGE)
		return false;
	w->wr.send_flags = flags;
	w->wr.sg_list = sge;
	if (flags & XIW_USQE_INLINE) {
		/* Copied from the ring by xiw_copy_inline(), once. */
		if (num_sge)
			return false;
		sge[0].length = READ_ONCE(u->length);
		w->wr.num_sge = 1;
	} else {
		xiw_usq_sges(sge, u->sge, num_sge);
		w->wr.num_sge = num_sge;
	}
	switch (opcode) {
	case XIW_USQE_SEND:
		w->wr.opcode = IB_WR_SEND;
		return !ex;
	case XIW_USQE_SEND_WITH_IMM:
		w->wr.opcode = IB_WR_SEND_WITH_IMM;
		w->wr.ex.imm_data = (__force __be32)ex;
		return true;
	case XIW_USQE_SEND_WITH_INV:
		w->wr.opcode = IB_WR_SEND_WITH_INV;
		w->wr.ex.invalidate_rkey = ex;
		return true;
	case XIW_USQE_RDMA_WRITE_WITH_IMM:
		w->wr.ex.imm_data = (__force __be32)ex;
		fallthrough;
	case XIW_USQE_RDMA_WRITE:
	case XIW_USQE_RDMA_READ:
		if (opcode != XIW_USQE_RDMA_WRITE_WITH_IMM && ex)
			return false;
		w->wr.opcode = opcode == XIW_USQE_RDMA_READ ? IB_WR_RDMA_READ :
			       opcode == XIW_USQE_RDMA_WRITE ? IB_WR_RDMA_WRITE :
			       IB_WR_RDMA_WRITE_WITH_IMM;
		w->rdma.remote_addr = READ_ONCE(u->remote_addr);
		w->rdma.rkey = READ_ONCE(u->rkey);
		return true;
	case XIW_USQE_ATOMIC_CMP_AND_SWP:
	case XIW_USQE_ATOMIC_FETCH_AND_ADD:
	case XIW_USQE_MASKED_ATOMIC_CMP_AND_SWP:
	case XIW_USQE_MASKED_ATOMIC_FETCH_AND_ADD:
		w->wr.opcode =
			opcode == XIW_USQE_ATOMIC_CMP_AND_SWP ?
				IB_WR_ATOMIC_CMP_AND_SWP :
			opcode == XIW_USQE_ATOMIC_FETCH_AND_ADD ?
				IB_WR_ATOMIC_FETCH_AND_ADD :
			opcode == XIW_USQE_MASKED_ATOMIC_CMP_AND_SWP ?
				IB_WR_MASKED_ATOMIC_CMP_AND_SWP :
				IB_WR_MASKED_ATOMIC_FETCH_AND_ADD;
		w->atomic.remote_addr = READ_ONCE(u->remote_addr);
		w->atomic.rkey = READ_ONCE(u->rkey);
		w->atomic.compare_add = READ_ONCE(u->atomic.compare_add);
		w->atomic.swap = READ_ONCE(u->atomic.swap);
		w->atomic.compare_add_mask =
			READ_ONCE(u->atomic.compare_add_mask);
		w->atomic.swap_mask = READ_ONCE(u->atomic.swap_mask);
		return !ex;
	case XIW_USQE_ATOMIC_WRITE:
		w->wr.opcode = IB_WR_ATOMIC_WRITE;
		w->wr.send_flags |= XIW_SEND_EXT_WR;
		w->atomic_write.remote_addr = READ_ONCE(u->remote_addr);
		w->atomic_write.rkey = READ_ONCE(u->rkey);
		w->atomic_write.value = READ_ONCE(u->atomic_write.value);
		return !ex && !memchr_inv(u->atomic_write.reserved, 0,
					  sizeof(u->atomic_write.reserved));
	case XIW_USQE_FLUSH:
		w->wr.opcode = IB_WR_FLUSH;
		w->wr.send_flags |= XIW_SEND_EXT_WR;
		w->flush.remote_addr = READ_ONCE(u->remote_addr);
		w->flush.rkey = READ_ONCE(u->rkey);
		w->flush.length = READ_ONCE(u->length);
		/* The ABI's numbers are upstream's IB_FLUSH_* (compat.h too). */
		w->flush.type = READ_ONCE(u->flush.type);
		w->flush.level = READ_ONCE(u->flush.level);
		return !ex && !memchr_inv(u->flush.reserved, 0,
					  sizeof(u->flush.reserved));
	case XIW_USQE_VERIFY:
		if (flags & XIW_USQE_INLINE || num_sge != 1)
			return false;
		w->wr.opcode = XIW_WR_VERIFY;
		xiw_usq_sges(sge, &u->verify_data.sge, 1);
		w->verify.remote_addr = READ_ONCE(u->remote_addr);
		w->verify.rkey = READ_ONCE(u->rkey);
		w->verify.length = READ_ONCE(u->length);
		w->verify.expect_len = min_t(u32, READ_ONCE(u->verify.expect_len),
					     U8_MAX);
		/* Copied from the ring by xiw_qp_fill_wqe(), once. */
		w->verify.expect = u->verify_data.expect;
		return !ex && !memchr_inv(u->verify.reserved, 0,
					  sizeof(u->verify.reserved));
	default:
		return false;
	}
}

static_assert((int)XIW_USQE_FLUSH_GLOBAL == (int)IB_FLUSH_GLOBAL &&
	      (int)XIW_USQE_FLUSH_PERSISTENT == (int)IB_FLUSH_PERSISTENT &&
	      (int)XIW_USQE_FLUSH_RANGE == (int)IB_FLUSH_RANGE &&
	      (int)XIW_USQE_FLUSH_MR == (int)IB_FLUSH_MR);

/* Make the WQE at @qp->sq_head of ring entry @u; sq_lock held. */
static void xiw_usq_take(struct xiw_qp *qp, const struct xiw_usqe *u,
			 struct xiw_wqe *wqe)
{
	struct ib_sge sge[XIW_MAX_SGE] = {};
	union xiw_usq_wr w;

	if (xiw_usq_wr(u, &w, sge) &&
	    !xiw_qp_fill_wqe(qp, wqe, &w.wr,
			     (w.wr.send_flags & IB_SEND_INLINE) ?
			     u->inline_data : NULL))
		return;
	/* Refused: it fails in its turn (tx.c), signaled or not. */
	memset(wqe, 0, offsetof(struct xiw_wqe, inline_data));
	wqe->wr_id = w.wr.wr_id;
	wqe->opcode = XIW_WR_BAD;
	wqe->flags = XIW_WQE_SIGNALED;
}

/**
 * xiw_usq_pull() - copy what the process posted to its ring into the
 *	QP's send queue
 * @qp: the QP; the caller holds its sq_lock
 *
 * However far the process's head is, the queue never holds more than
 * its size: entries past that wait for slots to free.
 *
 * Return: the number of entries copied.
 */
u32 xiw_usq_pull(struct xiw_qp *qp)
{
	const struct xiw_usqe *ring;
	u32 posted, n = 0;

	lockdep_assert_held(&qp->sq_lock);
	if (!qp->usq)
		return 0;
	ring = qp->usq->mem + XIW_USQ_RING_ENTRIES;
	/* Acquire: pairs with the process's release of its head. */
	posted = smp_load_acquire(xiw_usq_word(qp, XIW_USQ_RING_HEAD));
	while ((s32)(posted - qp->sq_head) > 0 &&
	       qp->sq_head - qp->sq_tail < qp->sq_size) {
		xiw_usq_take(qp, &ring[xiw_ring_slot(qp->sq_head, qp->sq_mask)],
			     xiw_qp_sq_at(qp, qp->sq_head));
		qp->sq_head++;
		n++;
	}
	return n;
}

/**
 * xiw_usq_consumed() - tell the process which of its ring's slots are free
 * @qp: the QP; the caller holds its sq_lock
 *
 * Called before the completions of the WQEs it frees go to the CQ.
 */
void xiw_usq_consumed(struct xiw_qp *qp)
{
	lockdep_assert_held(&qp->sq_lock);
	if (!qp->usq)
		return;
	/* Release: the WQEs were done with before their slots free. */
	smp_store_release(xiw_usq_word(qp, XIW_USQ_RING_TAIL), qp->sq_tail);
}

/**
 * xiw_usq_doorbell() - set or clear the ring's doorbell flag
 * @qp: the QP
 * @on: the engine stops looking at the ring (idle, or the QP in error)
 *
 * With a full barrier after it: setting it, then reading the head,
 * against the process's storing its head, then reading the flag, means
 * that either the caller sees the entries or the process rings.
 */
void xiw_usq_doorbell(struct xiw_qp *qp, bool on)
{
	u32 *flags;

	if (!qp->usq)
		return;
	flags = xiw_usq_word(qp, XIW_USQ_RING_FLAGS);
	if (READ_ONCE(*flags) == (on ? XIW_USQ_DOORBELL : 0))
		return;
	WRITE_ONCE(*flags, on ? XIW_USQ_DOORBELL : 0);
	/* The flag, then the head: the process stores its head, then reads. */
	smp_mb();
}

/**
 * xiw_usq_reset() - RESET: drop what the ring holds
 * @qp: the QP, idle; the caller holds its sq_lock
 *
 * The send queue starts over at the process's head, empty.
 */
void xiw_usq_reset(struct xiw_qp *qp)
{
	lockdep_assert_held(&qp->sq_lock);
	if (!qp->usq)
		return;
	qp->sq_head = READ_ONCE(*xiw_usq_word(qp, XIW_USQ_RING_HEAD));
	WRITE_ONCE(*xiw_usq_word(qp, XIW_USQ_RING_FLAGS), 0);
}
