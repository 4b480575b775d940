// SPDX-License-Identifier: GPL-2.0
/*
 * Send work requests into WQEs: each verb's checks and what its WQE
 * keeps, for kernel ULPs (post_send, xiw_post_verify()), for a process's
 * post_send command and for its send ring (usq.c).
 */
#include <linux/overflow.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <xiw/verbs.h>

#include "obj.h"

/*
 * Inline data into the WQE: from the kernel addresses of @wr's SGEs, or
 * for a user QP from @user_data, where xiw_post_send_user() gathered it
 * from the process before taking the lock.
 */
static int xiw_copy_inline(struct xiw_wqe *wqe, const struct ib_send_wr *wr,
			   const u8 *user_data)
{
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 l = wr->sg_list[i].length;
		u32 end;

		/* A length near 2^32 must not wrap the sum below the bound. */
		if (check_add_overflow(len, l, &end) || end > XIW_MAX_INLINE)
			return -EINVAL;
		memcpy(wqe->inline_data + len, user_data ? user_data + len :
		       (void *)(uintptr_t)wr->sg_list[i].addr, l);
		len += l;
	}
	wqe->sge[0].addr = (uintptr_t)wqe->inline_data;
	wqe->sge[0].length = len;
	wqe->sge[0].lkey = 0;
	wqe->num_sge = 1;
	wqe->bytes = len;
	return 0;
}

/* A fast registration: what it registers is fixed when it is posted. */
static void xiw_fill_reg(struct xiw_wqe *wqe, const struct ib_reg_wr *reg)
{
	wqe->reg.mr = to_xiw_mr(reg->mr);
	wqe->reg.key = reg->key;
	wqe->reg.access = reg->access;
	wqe->reg.iova = reg->mr->iova;
	wqe->reg.length = reg->mr->length;
	wqe->reg.page_size = reg->mr->page_size;
}

/*
 * An atomic verb as an Atomic Request (RFC 7306 figure 5): the verbs'
 * compare_add is the Add Data or the Compare Data; without a mask FetchAdd
 * adds all 64 bits (mask 0) and CmpSwap compares and swaps all of them.
 * The original value comes back into the one 8-octet SGE.
 */
static int xiw_fill_atomic(struct xiw_wqe *wqe, const struct ib_send_wr *wr)
{
	const struct ib_atomic_wr *a = atomic_wr(wr);
	struct xiw_atomic_op *op = &wqe->atomic;

	if (wr->num_sge != 1 || wr->sg_list[0].length != sizeof(u64) ||
	    (wr->send_flags & IB_SEND_INLINE))
		return -EINVAL;
	switch (wr->opcode) {
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		op->aop = XIW_AOP_FETCH_ADD;
		op->data = a->compare_add;
		break;
	case IB_WR_MASKED_ATOMIC_FETCH_AND_ADD:
		op->aop = XIW_AOP_FETCH_ADD;
		op->data = a->compare_add;
		op->mask = a->compare_add_mask;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		op->aop = XIW_AOP_CMP_SWAP;
		op->cmp = a->compare_add;
		op->cmp_mask = U64_MAX;
		op->data = a->swap;
		op->mask = U64_MAX;
		break;
	default:	/* IB_WR_MASKED_ATOMIC_CMP_AND_SWP */
		op->aop = XIW_AOP_CMP_SWAP;
		op->cmp = a->compare_add;
		op->cmp_mask = a->compare_add_mask;
		op->data = a->swap;
		op->mask = a->swap_mask;
		break;
	}
	op->stag = a->rkey;
	op->to = a->remote_addr;
	wqe->rkey = a->rkey;
	wqe->remote_addr = a->remote_addr;
	wqe->sge[0] = wr->sg_list[0];
	wqe->num_sge = 1;
	wqe->bytes = sizeof(u64);
	return 0;
}

/*
 * An Atomic Write (include/xiw/verbs.h): the value travels in the request;
 * nothing local is read or written.
 */
static int xiw_fill_atomic_write(struct xiw_wqe *wqe,
				 const struct ib_send_wr *wr)
{
	const struct xiw_atomic_write_wr *aw = xiw_atomic_write_wr(wr);

	if (wr->num_sge || (wr->send_flags & IB_SEND_INLINE))
		return -EINVAL;
	xiw_atomic_write_op(&wqe->atomic, aw->rkey, aw->remote_addr,
			    aw->value);
	wqe->rkey = aw->rkey;
	wqe->remote_addr = aw->remote_addr;
	wqe->bytes = XIW_ATOMIC_WRITE_LEN;
	return 0;
}

/*
 * An RDMA Flush (include/xiw/verbs.h): the verbs' type and level as the
 * Flush Request's flags; a whole region goes with no offset or length.
 */
static int xiw_fill_flush(struct xiw_wqe *wqe, const struct ib_send_wr *wr)
{
	const struct xiw_flush_wr *f = xiw_flush_wr(wr);

	if (wr->num_sge || (wr->send_flags & IB_SEND_INLINE) || !f->type ||
	    (f->type & ~(IB_FLUSH_GLOBAL | IB_FLUSH_PERSISTENT)) ||
	    (f->level != IB_FLUSH_RANGE && f->level != IB_FLUSH_MR))
		return -EINVAL;
	if (f->type & IB_FLUSH_PERSISTENT)
		wqe->flush |= XIW_FLUSH_PERSISTENT;
	if (f->type & IB_FLUSH_GLOBAL)
		wqe->flush |= XIW_FLUSH_GLOBAL;
	wqe->rkey = f->rkey;
	if (f->level == IB_FLUSH_MR) {
		wqe->flush |= XIW_FLUSH_REGION;
		return 0;
	}
	wqe->remote_addr = f->remote_addr;
	wqe->bytes = f->length;
	return 0;
}

/*
 * An RDMA Verify (include/xiw/verbs.h, posted by xiw_post_verify()): the
 * expected hash travels in the request (kept in @inline_data); the hash
 * that comes back lands in the one SGE.
 */
static int xiw_fill_verify(struct xiw_wqe *wqe, const struct ib_send_wr *wr)
{
	const struct xiw_verify_wr *v =
		container_of(wr, struct xiw_verify_wr, wr);

	if (wr->num_sge != 1 || (wr->send_flags & IB_SEND_INLINE) ||
	    v->expect_len > XIW_VERIFY_HASH_MAX ||
	    (v->expect_len && !v->expect))
		return -EINVAL;
	memcpy(wqe->inline_data, v->expect, v->expect_len);
	wqe->verify.expect_len = v->expect_len;
	wqe->rkey = v->rkey;
	wqe->remote_addr = v->remote_addr;
	wqe->bytes = v->length;
	wqe->sge[0] = wr->sg_list[0];
	wqe->num_sge = 1;
	return 0;
}

/**
 * xiw_qp_fill_wqe() - check a send work request and build its WQE
 * @qp: the QP it is posted to
 * @wqe: the WQE, in the send queue's slot at sq_head (sq_lock held)
 * @wr: the work request; a process's comes from the post_send command
 *	(only the user ABI's opcodes and flags pass xiw_post_send_user()) or
 *	from its send ring (usq.c), built on the stack there
 * @user_data: a process's inline data, copied out of the process before
 *	(xiw_copy_inline()); NULL for a kernel ULP's
 *
 * Return: 0, -EINVAL, -EOPNOTSUPP or -EMSGSIZE (the work request is
 * refused; @wqe holds nothing of it).
 */
int xiw_qp_fill_wqe(struct xiw_qp *qp, struct xiw_wqe *wqe,
		    const struct ib_send_wr *wr, const u8 *user_data)
{
	u8 opcode = wr->opcode;
	u64 bytes = 0;
	int i;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_INV:
		opcode = IB_WR_SEND;
		break;
	case IB_WR_SEND:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_REG_MR:
	case IB_WR_LOCAL_INV:
		break;
	case IB_WR_SEND_WITH_IMM:
		/*
		 * Immediate Data is a message of its own: a Send with
		 * Immediate is that message alone, so it carries no payload
		 * (Documentation/rfc7306.md).
		 */
		for (i = 0; i < wr->num_sge; i++)
			if (wr->sg_list[i].length)
				return -EINVAL;
		break;
	case IB_WR_RDMA_READ_WITH_INV:
		opcode = IB_WR_RDMA_READ;
		fallthrough;
	case IB_WR_RDMA_READ:
		if (wr->num_sge > XIW_MAX_SGE_RD || wr->send_flags & IB_SEND_INLINE)
			return -EINVAL;
		break;
	case IB_WR_ATOMIC_WRITE:
	case IB_WR_FLUSH:
		/*
		 * Upstream has no kernel layout for these: only a work
		 * request that says it is xiw's struct is read past its
		 * struct ib_send_wr (include/xiw/verbs.h).
		 */
		if (!(wr->send_flags & XIW_SEND_EXT_WR))
			return -EINVAL;
		break;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_MASKED_ATOMIC_FETCH_AND_ADD:
	case IB_WR_MASKED_ATOMIC_CMP_AND_SWP:
	case XIW_WR_VERIFY:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (wr->num_sge > XIW_MAX_SGE)
		return -EINVAL;

	memset(wqe, 0, offsetof(struct xiw_wqe, inline_data));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = opcode;
	if (qp->sig_all || (wr->send_flags & IB_SEND_SIGNALED))
		wqe->flags |= XIW_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		wqe->flags |= XIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		wqe->flags |= XIW_WQE_FENCE;
	switch (wr->opcode) {
	case IB_WR_RDMA_READ_WITH_INV:
		/*
		 * The STag invalidated is the sink's, sg_list[0].lkey, as
		 * hardware RNICs do: ex.invalidate_rkey may be stale (rdma_rw
		 * fills it in before it rotates the MR's key).
		 */
		wqe->flags |= XIW_WQE_INVALIDATE;
		if (wr->num_sge)
			wqe->inv_stag = wr->sg_list[0].lkey;
		break;
	case IB_WR_SEND_WITH_INV:
		wqe->flags |= XIW_WQE_INVALIDATE;
		fallthrough;
	case IB_WR_LOCAL_INV:
		wqe->inv_stag = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
		xiw_fill_reg(wqe, reg_wr(wr));
		return 0;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_MASKED_ATOMIC_FETCH_AND_ADD:
	case IB_WR_MASKED_ATOMIC_CMP_AND_SWP:
		return xiw_fill_atomic(wqe, wr);
	case IB_WR_ATOMIC_WRITE:
		return xiw_fill_atomic_write(wqe, wr);
	case IB_WR_FLUSH:
		return xiw_fill_flush(wqe, wr);
	case XIW_WR_VERIFY:
		return xiw_fill_verify(wqe, wr);
	default:
		break;
	}
	if (opcode == IB_WR_LOCAL_INV)
		return 0;
	if (xiw_wqe_has_imm(opcode))
		wqe->imm = wr->ex.imm_data;
	if (opcode != IB_WR_SEND && opcode != IB_WR_SEND_WITH_IMM) {
		wqe->remote_addr = rdma_wr(wr)->remote_addr;
		wqe->rkey = rdma_wr(wr)->rkey;
	}
	if (wr->send_flags & IB_SEND_INLINE) {
		wqe->flags |= XIW_WQE_INLINE;
		return xiw_copy_inline(wqe, wr, user_data);
	}
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i] = wr->sg_list[i];
		bytes += wr->sg_list[i].length;
	}
	if (bytes > XIW_MAX_MSG_SIZE)
		return -EMSGSIZE;
	wqe->num_sge = wr->num_sge;
	wqe->bytes = bytes;
	return 0;
}
