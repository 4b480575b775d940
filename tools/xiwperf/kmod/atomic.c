// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf atomic operations: FetchAdd and CmpSwap, masked or not, all on
 * one 64-bit word of the server's buffer (offset 0 of chunk 0), from every
 * connection and every lane, so that they contend. Atomic Write (the
 * commit draft's) targets the same word, the same way.
 *
 * Every operation of a run applies the same function f to the word
 * (xp_amo_apply()). Whatever order the device takes them in, the original
 * values they return are therefore f^k(init) for k = 0 .. count - 1, each
 * once, and the word ends as f^count(init). --check reads the word before
 * the first and after the last operation (an RDMA Read on connection 0),
 * keeps every operation's original value, and compares the two multisets:
 * the expected values are sorted, and each returned one is looked up and
 * counted off.
 */
#include <linux/bsearch.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "client.h"

/* A lane's buffer before an operation returns the original value in it. */
#define XP_ATOMIC_POISON	0xa5a5a5a5a5a5a5a5ULL
/* Values the check handles between two chances to reschedule. */
#define XP_ATOMIC_BATCH		65536

/**
 * xp_amo_apply() - f: the value an atomic operation leaves in the word.
 * @amo: the operation.
 * @orig: the word's value before it.
 *
 * RFC 7306 section 5.1. FetchAdd adds every field of the word on its own:
 * a set bit of the Add Mask is the most significant bit of a field, and
 * the carry out of it is discarded (a mask of 0 adds all 64 bits). Leaving
 * each field's top bit out of one plain addition stops a carry there;
 * adding the top bits without carry (xor) then gives each field's sum
 * modulo its width. CmpSwap replaces the bits of the Swap Mask with the
 * Swap Data's when the word's bits under the Compare Mask equal the
 * Compare Data's, and leaves the word as it is otherwise.
 *
 * Return: the new value (@orig for a CmpSwap that does not match).
 */
u64 xp_amo_apply(const struct xp_amo *amo, u64 orig)
{
	if (!amo->cmp_swap)
		return ((orig & ~amo->mask) + (amo->data & ~amo->mask)) ^
		       ((orig ^ amo->data) & amo->mask);
	if ((amo->cmp ^ orig) & amo->cmp_mask)
		return orig;
	return (orig & ~amo->mask) | (amo->data & amo->mask);
}

/**
 * xp_atomic_valid() - whether a run's operands go with its operation.
 * @run: the run's parameters.
 *
 * An atomic operation has size 8 and one SGE, needs the server's fast
 * registrations (the global rkey has no atomic right) unless a fault is
 * injected, and keeps at most XIWPERF_MAX_ATOMIC_CHECK original values
 * for --check. The operands it does not use must be zero, and all of them
 * for another operation.
 *
 * Return: true if they go together.
 */
bool xp_atomic_valid(const struct xiwperf_run *run)
{
	bool aw = run->op == XIWPERF_OP_ATOMIC_WRITE;

	if (!xp_op_atomic(run->op) &&
	    (run->compare_add || run->swap || run->compare_add_mask ||
	     run->swap_mask))
		return false;
	if (!xp_op_word(run->op))
		return true;
	/* An Atomic Write has no local buffer to register or inline. */
	if (aw && (run->flags & (XIWPERF_F_FRWR | XIWPERF_F_INLINE)))
		return false;
	if (run->size != XP_ATOMIC_LEN || run->sge > 1 ||
	    (!(run->flags & XIWPERF_F_REMOTE_FRWR) && !run->inject) ||
	    ((run->flags & XIWPERF_F_CHECK) &&
	     run->count > XIWPERF_MAX_ATOMIC_CHECK))
		return false;
	switch (run->op) {
	case XIWPERF_OP_FETCH_ADD:
		return !run->swap && !run->compare_add_mask && !run->swap_mask;
	case XIWPERF_OP_MASKED_FETCH_ADD:
		return !run->swap && !run->swap_mask;
	case XIWPERF_OP_CMP_SWAP:
		return !run->compare_add_mask && !run->swap_mask;
	default:
		return true;
	}
}

/**
 * xp_amo_init() - a run's atomic operation as RFC 7306 states it.
 * @amo: filled in.
 * @run: the run's (valid) parameters, an atomic operation.
 *
 * The non-masked verbs are the masked ones with FetchAdd's mask 0 and
 * CmpSwap's masks all ones.
 */
void xp_amo_init(struct xp_amo *amo, const struct xiwperf_run *run)
{
	bool masked = xp_op_masked(run->op);

	memset(amo, 0, sizeof(*amo));
	amo->cmp_swap = run->op == XIWPERF_OP_CMP_SWAP ||
			run->op == XIWPERF_OP_MASKED_CMP_SWAP;
	if (!amo->cmp_swap) {
		amo->data = run->compare_add;
		amo->mask = masked ? run->compare_add_mask : 0;
		return;
	}
	amo->data = run->swap;
	amo->cmp = run->compare_add;
	amo->mask = masked ? run->swap_mask : U64_MAX;
	amo->cmp_mask = masked ? run->compare_add_mask : U64_MAX;
}

/**
 * xp_atomic_wr() - the verb and operands of a lane's atomic operation.
 * @lane: the lane (c->lock held); with --check its buffer is poisoned.
 * @wr: the work request, its SGE, remote address and key the caller's.
 */
void xp_atomic_wr(struct xp_lane *lane, struct ib_atomic_wr *wr)
{
	struct xp_client *cl = lane->c->cl;
	const struct xp_amo *amo = &cl->amo;
	u64 poison = XP_ATOMIC_POISON;

	switch (cl->op) {
	case XIWPERF_OP_FETCH_ADD:
		wr->wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
		wr->compare_add = amo->data;
		break;
	case XIWPERF_OP_MASKED_FETCH_ADD:
		wr->wr.opcode = IB_WR_MASKED_ATOMIC_FETCH_AND_ADD;
		wr->compare_add = amo->data;
		wr->compare_add_mask = amo->mask;
		break;
	case XIWPERF_OP_CMP_SWAP:
		wr->wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
		wr->compare_add = amo->cmp;
		wr->swap = amo->data;
		break;
	default:
		wr->wr.opcode = IB_WR_MASKED_ATOMIC_CMP_AND_SWP;
		wr->compare_add = amo->cmp;
		wr->compare_add_mask = amo->cmp_mask;
		wr->swap = amo->data;
		wr->swap_mask = amo->mask;
		break;
	}
	if (cl->ack)
		memcpy(lane->buf, &poison, sizeof(poison));
}

/**
 * xp_atomic_write_wr() - a lane's Atomic Write: the value of its tag
 *	(xiwperf_aw_value(seq * qps + connection)).
 * @lane: the lane (c->lock held).
 * @wr: the work request, its remote address and key the caller's.
 */
void xp_atomic_write_wr(struct xp_lane *lane, struct xiw_atomic_write_wr *wr)
{
	struct xp_cconn *c = lane->c;

	wr->wr.opcode = IB_WR_ATOMIC_WRITE;
	wr->wr.send_flags |= XIW_SEND_EXT_WR;	/* the value follows wr */
	wr->value = xiwperf_aw_value(lane->seq * c->cl->qps + c->index);
}

/* The completion opcode of atomic operation @op. */
static enum ib_wc_opcode xp_atomic_wc_opcode(u32 op)
{
	switch (op) {
	case XIWPERF_OP_ATOMIC_WRITE:
		return IB_WC_ATOMIC_WRITE;
	case XIWPERF_OP_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case XIWPERF_OP_MASKED_FETCH_ADD:
		return IB_WC_MASKED_FETCH_ADD;
	case XIWPERF_OP_CMP_SWAP:
		return IB_WC_COMP_SWAP;
	default:
		return IB_WC_MASKED_COMP_SWAP;
	}
}

/**
 * xp_atomic_done() - a lane's atomic operation completed successfully:
 *	with --check, keep the original value it returned.
 * @lane: the lane.
 * @wc: its completion; one with another opcode is a mismatch.
 */
void xp_atomic_done(struct xp_lane *lane, const struct ib_wc *wc)
{
	struct xp_cconn *c = lane->c;
	struct xp_client *cl = c->cl;

	if (!cl->ack)
		return;
	if (wc->opcode != xp_atomic_wc_opcode(cl->op))
		xp_mismatch(c, lane->seq, 0);
	if (cl->op == XIWPERF_OP_ATOMIC_WRITE)
		return;		/* nothing comes back */
	xp_sync_for_cpu(&lane->map, 0, XP_ATOMIC_LEN);
	memcpy(&c->orig[lane->seq], lane->buf, XP_ATOMIC_LEN);
}

static void xp_atomic_word_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xp_acheck *ack = container_of(wc->wr_cqe, struct xp_acheck, cqe);
	struct xp_client *cl = ack->cl;

	if (wc->status != IB_WC_SUCCESS) {
		xp_fail_wc(cl->conns[0], wc);
		return;
	}
	xp_sync_for_cpu(&ack->map, 0, XP_ATOMIC_LEN);
	/* pairs with xp_atomic_read_word(): the word first */
	smp_store_release(&ack->read, true);
	wake_up(&cl->waitq);
}

/**
 * xp_atomic_check_alloc() - atomic --check: room for every operation's
 *	original value and for the expected ones, allocated before the run
 *	so that checking cannot fail for want of memory.
 * @cl: the run; cl->ack is set (xp_atomic_check_free() releases it, even
 *	when this fails).
 *
 * Return: 0 or -ENOMEM.
 */
int xp_atomic_check_alloc(struct xp_client *cl)
{
	struct xp_acheck *ack;

	ack = kzalloc(sizeof(*ack), GFP_KERNEL);
	if (!ack)
		return -ENOMEM;
	cl->ack = ack;
	ack->cl = cl;
	ack->cqe.done = xp_atomic_word_done;
	ack->orig = kvmalloc_array(cl->count, sizeof(*ack->orig), GFP_KERNEL);
	ack->expect = kvmalloc_array(cl->count, sizeof(*ack->expect),
				     GFP_KERNEL);
	ack->nexpect = kvmalloc_array(cl->count, sizeof(*ack->nexpect),
				      GFP_KERNEL);
	ack->word = xp_buf_alloc(XP_ATOMIC_LEN);
	if (!ack->orig || !ack->expect || !ack->nexpect || !ack->word)
		return -ENOMEM;
	return 0;
}

static bool xp_atomic_word_read(struct xp_acheck *ack)
{
	/* pairs with xp_atomic_word_done(): the word first */
	return smp_load_acquire(&ack->read);
}

/**
 * xp_atomic_read_word() - atomic --check: read the target word (an RDMA
 *	Read on connection 0, through chunk 0's rkey) and wait for it.
 * @cl: the run, no operation outstanding.
 * @value: set to the word's value.
 *
 * Return: 0, or the status of the run's failure.
 */
int xp_atomic_read_word(struct xp_client *cl, u64 *value)
{
	struct xp_acheck *ack = cl->ack;
	struct xp_cconn *c = cl->conns[0];
	long t;
	int ret;

	if (!ack->map.dev) {
		ret = xp_map(&ack->map, c->id->device, ack->word, XP_ATOMIC_LEN);
		if (ret)
			return xp_fail(cl, ret, XIWPERF_REASON_RESOURCES);
	}
	WRITE_ONCE(ack->read, false);
	ret = xp_post_read(c, &ack->cqe, ack->map.dma, XP_ATOMIC_LEN,
			   c->chunks[0], c->rkeys[0]);
	if (ret)
		return xp_fail(cl, ret, XIWPERF_REASON_POST);
	t = wait_event_interruptible_timeout(cl->waitq,
					     xp_atomic_word_read(ack) ||
					     READ_ONCE(cl->stop), cl->timeout);
	ret = xp_waited(cl, t);
	if (ret)
		return ret;
	memcpy(value, ack->word, sizeof(*value));
	return 0;
}

/*
 * Atomic Write --check: each connection's Atomic Writes are placed in
 * order, so the word ends as the value of some connection's last one (or
 * as it began, if there was none). Anything else, a torn value above all,
 * is wrong.
 */
static void xp_atomic_write_verify(struct xp_client *cl)
{
	u64 final = cl->res->atomic_final;
	bool any = false;
	u32 q;

	cl->ack->final_ok = false;
	for (q = 0; q < cl->qps; q++) {
		struct xp_cconn *c = cl->conns[q];

		if (!c->total)
			continue;
		any = true;
		if (final == xiwperf_aw_value((c->total - 1) * cl->qps + q))
			cl->ack->final_ok = true;
	}
	if (!any)
		cl->ack->final_ok = final == cl->res->atomic_init;
}

static int xp_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/**
 * xp_atomic_verify() - atomic --check, once the run completed: compare
 *	the original values the operations returned with f^k(init), and the
 *	final value with f^count(init).
 * @cl: the run; cl->res holds the word's initial and final values. Every
 *	completion has run (the connections are torn down).
 *
 * A returned value that is not expected (any more) counts as a mismatch
 * of its operation, on its connection; ack->final_ok says whether the
 * word ended right.
 */
void xp_atomic_verify(struct xp_client *cl)
{
	struct xp_acheck *ack = cl->ack;
	u64 x = cl->res->atomic_init;
	u64 i, n = 0;
	u32 q;

	if (cl->op == XIWPERF_OP_ATOMIC_WRITE) {
		xp_atomic_write_verify(cl);
		return;
	}

	for (i = 0; i < cl->count; i++) {
		ack->expect[i] = x;
		x = xp_amo_apply(&cl->amo, x);
		if (!(i & (XP_ATOMIC_BATCH - 1)))
			cond_resched();
	}
	ack->final_ok = x == cl->res->atomic_final;
	sort(ack->expect, cl->count, sizeof(*ack->expect), xp_u64_cmp, NULL);
	/* The distinct values, and how often each is expected. */
	for (i = 0; i < cl->count; i++) {
		if (n && ack->expect[n - 1] == ack->expect[i]) {
			ack->nexpect[n - 1]++;
			continue;
		}
		ack->expect[n] = ack->expect[i];
		ack->nexpect[n++] = 1;
	}
	for (q = 0; q < cl->qps; q++) {
		struct xp_cconn *c = cl->conns[q];

		for (i = 0; i < c->total; i++) {
			u64 *hit = bsearch(&c->orig[i], ack->expect, n,
					   sizeof(*ack->expect), xp_u64_cmp);
			u32 *left = hit ? &ack->nexpect[hit - ack->expect] : NULL;

			if (left && *left)
				(*left)--;
			else
				xp_mismatch(c, i, 0);
			if (!(i & (XP_ATOMIC_BATCH - 1)))
				cond_resched();
		}
	}
}

/**
 * xp_atomic_check_free() - release what xp_atomic_check_alloc() and
 *	xp_atomic_read_word() made; nothing without atomic --check.
 * @cl: the run, its connections not destroyed yet (connection 0's id
 *	still holds the device the word is mapped for).
 */
void xp_atomic_check_free(struct xp_client *cl)
{
	struct xp_acheck *ack = cl->ack;

	if (!ack)
		return;
	xp_unmap(&ack->map);
	xp_buf_free(ack->word);
	kvfree(ack->nexpect);
	kvfree(ack->expect);
	kvfree(ack->orig);
	kfree(ack);
	cl->ack = NULL;
}
