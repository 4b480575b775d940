// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA Verify (draft-talpey-rdma-commit-01 section 3.1.2) beside the
 * engines: the functions a kernel ULP calls, which upstream has no verbs
 * for (posting a Verify, choosing an MR's hash), and the responder's
 * hashing of a range in the Verify's turn.
 */
#include <linux/export.h>
#include <linux/sched.h>
#include <linux/sizes.h>

#include "hash.h"
#include "obj.h"
#include "verbs.h"

/*
 * Octets hashed per call of xiw_mr_place(): a fast MR's lock is held,
 * interrupts off, for that long.
 */
#define XIW_VERIFY_STEP		SZ_256K

/**
 * xiw_device() - is an RDMA device an xiw one?
 * @dev: the device
 *
 * For ULPs that use xiw's own functions (xiw_post_verify(),
 * xiw_mr_set_verify()), which work on xiw's objects only.
 *
 * Return: true if it is.
 */
bool xiw_device(const struct ib_device *dev)
{
	return dev->ops.post_send == xiw_post_send;
}
EXPORT_SYMBOL_GPL(xiw_device);

/**
 * xiw_post_verify() - post an RDMA Verify on an xiw QP
 * @qp: the QP; another device's is refused
 * @wr: the Verify; @wr->wr.opcode must be XIW_WR_VERIFY, @wr->wr.next NULL
 * @bad_wr: set to &@wr->wr if it was not posted
 *
 * The Verify goes out on queue 1 in send queue order, under ORD, like an
 * RDMA Read. It completes with ib_wc.opcode XIW_WC_VERIFY, the hash in
 * the work request's SGE and its length in ib_wc.byte_len.
 *
 * Return: 0; -EOPNOTSUPP for a QP not of an xiw device; -EINVAL for a bad
 * work request; -ENOMEM if the send queue is full.
 */
int xiw_post_verify(struct ib_qp *qp, const struct xiw_verify_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	if (!xiw_device(qp->device)) {
		*bad_wr = &wr->wr;
		return -EOPNOTSUPP;
	}
	if (wr->wr.opcode != XIW_WR_VERIFY || wr->wr.next) {
		*bad_wr = &wr->wr;
		return -EINVAL;
	}
	return xiw_post_send(qp, &wr->wr, bad_wr);
}
EXPORT_SYMBOL_GPL(xiw_post_verify);

/**
 * xiw_mr_set_verify() - choose the hash a Verify of an MR computes
 * @ibmr: an MR of an xiw device
 * @alg: enum xiw_verify_alg; XIW_VERIFY_NONE makes it not verifiable
 *
 * The algorithm is the responder's choice and never travels: a requester
 * that sends an expected hash must know it from its ULP. A Verify uses
 * the algorithm set when it arrives.
 *
 * Return: 0, -EOPNOTSUPP for another device's MR, -EINVAL for an unknown
 * algorithm.
 */
int xiw_mr_set_verify(struct ib_mr *ibmr, enum xiw_verify_alg alg)
{
	struct xiw_mr *mr = to_xiw_mr(ibmr);
	unsigned long flags;

	BUILD_BUG_ON((int)XIW_VERIFY_CRC32C != (int)XIW_HASH_CRC32C ||
		     (int)XIW_VERIFY_SHA256 != (int)XIW_HASH_SHA256);
	if (!xiw_device(ibmr->device))
		return -EOPNOTSUPP;
	if (alg != XIW_VERIFY_NONE && !xiw_hash_len(alg))
		return -EINVAL;
	spin_lock_irqsave(&mr->lock, flags);
	mr->verify_alg = alg;
	spin_unlock_irqrestore(&mr->lock, flags);
	return 0;
}
EXPORT_SYMBOL_GPL(xiw_mr_set_verify);

/**
 * xiw_mr_verify_alg() - the hash a Verify of an MR computes now
 * @mr: the MR
 *
 * Return: enum xiw_hash_alg.
 */
u8 xiw_mr_verify_alg(struct xiw_mr *mr)
{
	unsigned long flags;
	u8 alg;

	spin_lock_irqsave(&mr->lock, flags);
	alg = mr->verify_alg;
	spin_unlock_irqrestore(&mr->lock, flags);
	return alg;
}

static int xiw_verify_piece(void *ctx, u8 *p, u32 len)
{
	xiw_hash_update(ctx, p, len);
	return 0;
}

/**
 * xiw_verify_range() - the responder's hash of a Verify's range, in its
 *	turn (every Write before it placed, every Flush before it done)
 * @mr: the MR, referenced
 * @stag: its STag
 * @to: first octet
 * @len: octets
 * @alg: enum xiw_hash_alg, not XIW_HASH_NONE
 * @out: xiw_hash_len(@alg) octets
 *
 * Sleeps between steps: a long range does not hold the CPU.
 *
 * Return: 0, -EACCES if the STag was invalidated meanwhile, -EFAULT for
 * a DMA MR address that is not memory.
 */
int xiw_verify_range(struct xiw_mr *mr, u32 stag, u64 to, u64 len, u8 alg,
		     u8 *out)
{
	struct xiw_hash h;
	u64 done = 0;
	int err = 0;

	xiw_hash_init(&h, alg);
	while (!err && done < len) {
		u32 step = min_t(u64, len - done, XIW_VERIFY_STEP);

		err = xiw_mr_place(mr, stag, to + done, step,
				   xiw_verify_piece, &h);
		done += step;
		cond_resched();
	}
	if (!err)
		xiw_hash_final(&h, out);
	return err;
}
