// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Send rings (uapi/xiw_abi.h, XIW_UCTX_SQ_RING): sends posted without a
 * system call, by ibv_post_send() and by the ibv_wr_*() API.
 *
 * An entry is built in its slot past the published head, checked, and
 * published with the head (release). What the kernel would refuse is
 * refused here, synchronously, so that the QP survives a mistake: a Send
 * with Immediate that carries data, inline data on a Read or an atomic
 * (refused before anything is gathered: its SGE names a sink), a Read
 * with more than one SGE, an atomic whose SGE is not 8 octets, inline
 * data beyond XIW_USQE_INLINE_MAX. After the head, a full barrier and a
 * look at the flags: XIW_USQ_DOORBELL set means the kernel's engine is
 * idle (or the QP in error) and waits for the post_send command with no
 * work request.
 */
#include <errno.h>
#include <string.h>

#include "xiw.h"

/* The largest message (the device's max_msg_sz). */
#define XIW_MSG_MAX	0x80000000ULL

static inline uint32_t *xiw_sq_word(struct xiw_sq_ring *r, size_t off)
{
	return (uint32_t *)((char *)r->map.addr + off);
}

static inline struct xiw_usqe *xiw_sq_slot(struct xiw_sq_ring *r, uint32_t i)
{
	struct xiw_usqe *ring = (struct xiw_usqe *)((char *)r->map.addr +
						    XIW_USQ_RING_ENTRIES);

	return &ring[i & r->mask];
}

/* Map a send ring the kernel made; 0 or an errno. */
int xiw_sq_ring_open(struct ibv_context *ctx, struct xiw_sq_ring *r,
		     const struct xiw_usq_resp *resp)
{
	int err;

	if (!resp->slots || (resp->slots & (resp->slots - 1)) ||
	    resp->size > resp->slots ||
	    resp->ring_len < XIW_USQ_RING_ENTRIES +
			     (size_t)resp->slots * sizeof(struct xiw_usqe))
		return EPROTO;
	err = pthread_spin_init(&r->lock, PTHREAD_PROCESS_PRIVATE);
	if (err)
		return err;
	r->mask = resp->slots - 1;
	r->size = resp->size;
	err = xiw_map_ring(ctx, &r->map, resp->ring_offset, resp->ring_len);
	if (err) {
		pthread_spin_destroy(&r->lock);
		return err;
	}
	/* A new QP's ring is empty: its head is where the kernel starts. */
	r->head = __atomic_load_n(xiw_sq_word(r, XIW_USQ_RING_HEAD),
				  __ATOMIC_RELAXED);
	return 0;
}

void xiw_sq_ring_close(struct ibv_context *ctx, struct xiw_sq_ring *r)
{
	if (!r->map.addr)
		return;
	xiw_unmap_ring(ctx, &r->map);
	pthread_spin_destroy(&r->lock);
}

/* Opcodes whose payload may be inline: what the sender reads. */
static bool xiw_sq_inline_op(unsigned int op)
{
	return op == XIW_USQE_SEND || op == XIW_USQE_SEND_WITH_IMM ||
	       op == XIW_USQE_SEND_WITH_INV || op == XIW_USQE_RDMA_WRITE ||
	       op == XIW_USQE_RDMA_WRITE_WITH_IMM;
}

static bool xiw_sq_atomic_op(unsigned int op)
{
	return op == XIW_USQE_ATOMIC_CMP_AND_SWP ||
	       op == XIW_USQE_ATOMIC_FETCH_AND_ADD ||
	       op == XIW_USQE_MASKED_ATOMIC_CMP_AND_SWP ||
	       op == XIW_USQE_MASKED_ATOMIC_FETCH_AND_ADD;
}

/* A built entry the kernel would take (its verbs' checks); 0 or EINVAL. */
static int xiw_sq_check(const struct xiw_usqe *e)
{
	const unsigned int flags = XIW_USQE_FENCE | XIW_USQE_SIGNALED |
				   XIW_USQE_SOLICITED | XIW_USQE_INLINE;
	bool inl = e->flags & XIW_USQE_INLINE;
	uint64_t bytes = 0;
	unsigned int i;

	if ((e->flags & ~flags) || e->num_sge > XIW_USQE_SGE ||
	    (inl && (e->num_sge || !xiw_sq_inline_op(e->opcode) ||
		     e->length > XIW_USQE_INLINE_MAX)))
		return EINVAL;
	if (e->opcode == XIW_USQE_VERIFY)
		return e->num_sge == 1 &&
		       e->verify.expect_len <= XIW_USQE_HASH_MAX ? 0 : EINVAL;
	for (i = 0; i < e->num_sge; i++)
		bytes += e->sge[i].length;
	if (inl)
		bytes = e->length;
	if (xiw_sq_atomic_op(e->opcode))
		return e->num_sge == 1 && e->sge[0].length == 8 ? 0 : EINVAL;
	switch (e->opcode) {
	case XIW_USQE_SEND_WITH_IMM:
		/* Immediate Data is a message of its own: no payload. */
		return bytes ? EINVAL : 0;
	case XIW_USQE_RDMA_READ:
		return e->num_sge <= 1 ? 0 : EINVAL;
	case XIW_USQE_ATOMIC_WRITE:
		return e->num_sge ? EINVAL : 0;
	case XIW_USQE_FLUSH:
		if (e->num_sge || !e->flush.type ||
		    (e->flush.type & ~(XIW_USQE_FLUSH_GLOBAL |
				       XIW_USQE_FLUSH_PERSISTENT)) ||
		    (e->flush.level != XIW_USQE_FLUSH_RANGE &&
		     e->flush.level != XIW_USQE_FLUSH_MR))
			return EINVAL;
		return 0;
	default:
		return bytes > XIW_MSG_MAX ? EMSGSIZE : 0;
	}
}

/* The next free slot, zeroed, or NULL if the queue is full. Lock held. */
static struct xiw_usqe *xiw_sq_next(struct xiw_sq_ring *r)
{
	uint32_t tail = __atomic_load_n(xiw_sq_word(r, XIW_USQ_RING_TAIL),
					__ATOMIC_ACQUIRE);
	struct xiw_usqe *e;

	if (r->head - tail >= r->size)
		return NULL;
	e = xiw_sq_slot(r, r->head);
	memset(e, 0, offsetof(struct xiw_usqe, sge));
	return e;
}

/* Publish what is built up to the head; return: ring the doorbell. */
static bool xiw_sq_publish(struct xiw_sq_ring *r)
{
	__atomic_store_n(xiw_sq_word(r, XIW_USQ_RING_HEAD), r->head,
			 __ATOMIC_RELEASE);
	/* Against the kernel's flag-then-look (xiw_usq_doorbell()). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(xiw_sq_word(r, XIW_USQ_RING_FLAGS),
			       __ATOMIC_RELAXED) & XIW_USQ_DOORBELL;
}

static void xiw_sq_sges(struct xiw_usge *to, const struct ibv_sge *sge,
			int n)
{
	int i;

	for (i = 0; i < n; i++) {
		to[i].addr = sge[i].addr;
		to[i].length = sge[i].length;
		to[i].lkey = sge[i].lkey;
	}
}

/* @wr into @e; 0 or an errno (nothing gathered from a sink). */
static int xiw_sq_from_wr(struct xiw_usqe *e, const struct ibv_send_wr *wr)
{
	size_t len = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > XIW_USQE_SGE)
		return EINVAL;
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
		break;
	default:
		/* Atomic Write has no ibv_send_wr layout: ibv_wr_*() only. */
		return EINVAL;
	}
	e->wr_id = wr->wr_id;
	e->opcode = wr->opcode;
	e->flags = wr->send_flags;
	if (wr->opcode == IBV_WR_SEND_WITH_IMM ||
	    wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		e->ex = (uint32_t)wr->imm_data;
	else if (wr->opcode == IBV_WR_SEND_WITH_INV)
		e->ex = wr->invalidate_rkey;
	if (xiw_sq_atomic_op(e->opcode)) {
		e->remote_addr = wr->wr.atomic.remote_addr;
		e->rkey = wr->wr.atomic.rkey;
		e->atomic.compare_add = wr->wr.atomic.compare_add;
		e->atomic.swap = wr->wr.atomic.swap;
	} else if (wr->opcode != IBV_WR_SEND &&
		   wr->opcode != IBV_WR_SEND_WITH_IMM &&
		   wr->opcode != IBV_WR_SEND_WITH_INV) {
		e->remote_addr = wr->wr.rdma.remote_addr;
		e->rkey = wr->wr.rdma.rkey;
	}
	if (!(wr->send_flags & IBV_SEND_INLINE)) {
		e->num_sge = wr->num_sge;
		xiw_sq_sges(e->sge, wr->sg_list, wr->num_sge);
		return 0;
	}
	/* Only the payload of a Send or Write is read from memory. */
	if (!xiw_sq_inline_op(e->opcode))
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		size_t l = wr->sg_list[i].length;

		if (l > XIW_USQE_INLINE_MAX - len)
			return EINVAL;
		memcpy(e->inline_data + len,
		       (const void *)(uintptr_t)wr->sg_list[i].addr, l);
		len += l;
	}
	e->length = len;
	return 0;
}

/**
 * xiw_sq_post() - ibv_post_send() into a send ring
 * @r: the ring
 * @wr: the chain
 * @bad_wr: the first one not posted, on error
 * @doorbell: out: the caller rings the doorbell (post_send command with
 *	no work request)
 *
 * Return: 0, ENOMEM (the queue is full), EINVAL or EMSGSIZE (a work
 * request the kernel would refuse; those before it are posted).
 */
int xiw_sq_post(struct xiw_sq_ring *r, struct ibv_send_wr *wr,
		struct ibv_send_wr **bad_wr, bool *doorbell)
{
	int err = 0;

	pthread_spin_lock(&r->lock);
	for (; wr; wr = wr->next) {
		struct xiw_usqe *e = xiw_sq_next(r);

		if (!e) {
			err = ENOMEM;
			break;
		}
		err = xiw_sq_from_wr(e, wr) ?: xiw_sq_check(e);
		if (err)
			break;
		r->head++;
	}
	*doorbell = xiw_sq_publish(r);
	pthread_spin_unlock(&r->lock);
	if (err)
		*bad_wr = wr;
	return err;
}

/* -- ibv_qp_ex: the ibv_wr_*() API ------------------------------------- */

static inline struct xiw_qp *qpx_to_xqp(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct xiw_qp, vqp.qp_ex);
}

/* Check the entry built last; the batch fails if it would be refused. */
static void xiw_wr_finish(struct xiw_sq_ring *r)
{
	if (!r->cur)
		return;
	if (!r->err)
		r->err = xiw_sq_check(r->cur);
	r->cur = NULL;
	r->head++;
}

/* A new entry of @op with the QP's wr_id and wr_flags, or NULL. */
static struct xiw_usqe *xiw_wr_begin(struct ibv_qp_ex *qpx, uint8_t op)
{
	struct xiw_sq_ring *r = &qpx_to_xqp(qpx)->sq;
	struct xiw_usqe *e;

	xiw_wr_finish(r);
	if (r->err)
		return NULL;
	e = xiw_sq_next(r);
	if (!e) {
		r->err = ENOMEM;
		return NULL;
	}
	e->wr_id = qpx->wr_id;
	e->opcode = op;
	e->flags = qpx->wr_flags;
	r->cur = e;
	return e;
}

static void xiw_wr_start(struct ibv_qp_ex *qpx)
{
	struct xiw_sq_ring *r = &qpx_to_xqp(qpx)->sq;

	pthread_spin_lock(&r->lock);
	r->start = r->head;
	r->cur = NULL;
	r->err = 0;
}

static int xiw_wr_complete(struct ibv_qp_ex *qpx)
{
	struct xiw_sq_ring *r = &qpx_to_xqp(qpx)->sq;
	bool doorbell = false;
	struct ibv_send_wr *bad;
	int err;

	xiw_wr_finish(r);
	err = r->err;
	if (err)
		r->head = r->start;	/* the whole batch or nothing */
	else
		doorbell = xiw_sq_publish(r);
	pthread_spin_unlock(&r->lock);
	if (doorbell)
		ibv_cmd_post_send(&qpx->qp_base, NULL, &bad);
	return err;
}

static void xiw_wr_abort(struct ibv_qp_ex *qpx)
{
	struct xiw_sq_ring *r = &qpx_to_xqp(qpx)->sq;

	r->cur = NULL;
	r->head = r->start;
	pthread_spin_unlock(&r->lock);
}

static void xiw_wr_rdma(struct ibv_qp_ex *qpx, uint8_t op, uint32_t rkey,
			uint64_t remote_addr, uint32_t ex)
{
	struct xiw_usqe *e = xiw_wr_begin(qpx, op);

	if (!e)
		return;
	e->rkey = rkey;
	e->remote_addr = remote_addr;
	e->ex = ex;
}

static void xiw_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	xiw_wr_rdma(qpx, XIW_USQE_RDMA_WRITE, rkey, remote_addr, 0);
}

static void xiw_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, __be32 imm)
{
	xiw_wr_rdma(qpx, XIW_USQE_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
		    (uint32_t)imm);
}

static void xiw_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			     uint64_t remote_addr)
{
	xiw_wr_rdma(qpx, XIW_USQE_RDMA_READ, rkey, remote_addr, 0);
}

static void xiw_wr_send(struct ibv_qp_ex *qpx)
{
	xiw_wr_rdma(qpx, XIW_USQE_SEND, 0, 0, 0);
}

static void xiw_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	xiw_wr_rdma(qpx, XIW_USQE_SEND_WITH_IMM, 0, 0, (uint32_t)imm);
}

static void xiw_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	xiw_wr_rdma(qpx, XIW_USQE_SEND_WITH_INV, 0, 0, rkey);
}

static void xiw_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, uint64_t compare,
				  uint64_t swap)
{
	struct xiw_usqe *e = xiw_wr_begin(qpx, XIW_USQE_ATOMIC_CMP_AND_SWP);

	if (!e)
		return;
	e->rkey = rkey;
	e->remote_addr = remote_addr;
	e->atomic.compare_add = compare;
	e->atomic.swap = swap;
}

static void xiw_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t add)
{
	struct xiw_usqe *e = xiw_wr_begin(qpx, XIW_USQE_ATOMIC_FETCH_AND_ADD);

	if (!e)
		return;
	e->rkey = rkey;
	e->remote_addr = remote_addr;
	e->atomic.compare_add = add;
}

static void xiw_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr, const void *value)
{
	struct xiw_usqe *e = xiw_wr_begin(qpx, XIW_USQE_ATOMIC_WRITE);

	if (!e)
		return;
	e->rkey = rkey;
	e->remote_addr = remote_addr;
	/* The 8 octets as they are in the buffer (host order). */
	memcpy(&e->atomic_write.value, value, sizeof(e->atomic_write.value));
}

/* The data setters: of the entry begun last. */
static struct xiw_usqe *xiw_wr_cur(struct ibv_qp_ex *qpx)
{
	struct xiw_sq_ring *r = &qpx_to_xqp(qpx)->sq;

	if (!r->cur && !r->err)
		r->err = EINVAL;	/* no work request begun */
	return r->err ? NULL : r->cur;
}

static void xiw_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t n,
				const struct ibv_sge *sge)
{
	struct xiw_usqe *e = xiw_wr_cur(qpx);

	if (!e)
		return;
	if (n > XIW_USQE_SGE) {
		qpx_to_xqp(qpx)->sq.err = EINVAL;
		return;
	}
	if (e->flags & XIW_USQE_INLINE) {
		e->flags &= ~XIW_USQE_INLINE;
		e->length = 0;	/* a Flush's and Verify's range stays */
	}
	e->num_sge = n;
	xiw_sq_sges(e->sge, sge, n);
}

static void xiw_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			   uint64_t addr, uint32_t length)
{
	const struct ibv_sge sge = { .addr = addr, .length = length,
				     .lkey = lkey };

	xiw_wr_set_sge_list(qpx, 1, &sge);
}

static void xiw_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t n,
					const struct ibv_data_buf *buf)
{
	struct xiw_usqe *e = xiw_wr_cur(qpx);
	size_t len = 0, i;

	if (!e)
		return;
	/* Refused before anything is read: a Read's buffer is a sink. */
	if (!xiw_sq_inline_op(e->opcode)) {
		qpx_to_xqp(qpx)->sq.err = EINVAL;
		return;
	}
	for (i = 0; i < n; i++) {
		if (buf[i].length > XIW_USQE_INLINE_MAX - len) {
			qpx_to_xqp(qpx)->sq.err = EINVAL;
			return;
		}
		memcpy(e->inline_data + len, buf[i].addr, buf[i].length);
		len += buf[i].length;
	}
	e->num_sge = 0;
	e->flags |= XIW_USQE_INLINE;
	e->length = len;
}

static void xiw_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				   size_t length)
{
	const struct ibv_data_buf buf = { .addr = addr, .length = length };

	xiw_wr_set_inline_data_list(qpx, 1, &buf);
}

/* -- xiwdv.h's operations ------------------------------------------- */

static inline struct ibv_qp_ex *dv_to_qpx(struct xiwdv_qp_ex *dv)
{
	return &container_of(dv, struct xiw_qp, dv)->vqp.qp_ex;
}

static void xiwdv_wr_flush_op(struct xiwdv_qp_ex *dv, uint32_t rkey,
			      uint64_t remote_addr, size_t len, uint8_t type,
			      uint8_t level)
{
	struct ibv_qp_ex *qpx = dv_to_qpx(dv);
	struct xiw_usqe *e = xiw_wr_begin(qpx, XIW_USQE_FLUSH);

	if (!e)
		return;
	if (len > UINT32_MAX) {
		qpx_to_xqp(qpx)->sq.err = EINVAL;
		return;
	}
	e->rkey = rkey;
	e->remote_addr = remote_addr;
	e->length = len;
	e->flush.type = type;
	e->flush.level = level;
}

static void xiwdv_wr_verify_op(struct xiwdv_qp_ex *dv, uint32_t rkey,
			       uint64_t remote_addr, uint32_t len,
			       const void *expect, uint8_t expect_len)
{
	struct ibv_qp_ex *qpx = dv_to_qpx(dv);
	struct xiw_usqe *e = xiw_wr_begin(qpx, XIW_USQE_VERIFY);

	if (!e)
		return;
	if (expect_len > XIW_USQE_HASH_MAX || (expect_len && !expect)) {
		qpx_to_xqp(qpx)->sq.err = EINVAL;
		return;
	}
	e->rkey = rkey;
	e->remote_addr = remote_addr;
	e->length = len;
	e->verify.expect_len = expect_len;
	if (expect_len)
		memcpy(e->verify_data.expect, expect, expect_len);
}

static void xiwdv_wr_masked_cmp_swap_op(struct xiwdv_qp_ex *dv,
					uint32_t rkey, uint64_t remote_addr,
					uint64_t compare, uint64_t compare_mask,
					uint64_t swap, uint64_t swap_mask)
{
	struct xiw_usqe *e = xiw_wr_begin(dv_to_qpx(dv),
					  XIW_USQE_MASKED_ATOMIC_CMP_AND_SWP);

	if (!e)
		return;
	e->rkey = rkey;
	e->remote_addr = remote_addr;
	e->atomic.compare_add = compare;
	e->atomic.compare_add_mask = compare_mask;
	e->atomic.swap = swap;
	e->atomic.swap_mask = swap_mask;
}

static void xiwdv_wr_masked_fetch_add_op(struct xiwdv_qp_ex *dv,
					 uint32_t rkey, uint64_t remote_addr,
					 uint64_t add, uint64_t field_mask)
{
	struct xiw_usqe *e = xiw_wr_begin(dv_to_qpx(dv),
					  XIW_USQE_MASKED_ATOMIC_FETCH_AND_ADD);

	if (!e)
		return;
	e->rkey = rkey;
	e->remote_addr = remote_addr;
	e->atomic.compare_add = add;
	e->atomic.compare_add_mask = field_mask;
}

/**
 * xiwdv_provider_qp_ex() - xiwdv.h's xiwdv_qp_ex_from_ibv_qp_ex()
 * @qpx: a QP's ibv_qp_ex, of any provider's
 *
 * Return: the QP's xiwdv operations, or NULL (errno EOPNOTSUPP) if it is
 * not an xiw QP serving ibv_wr_*().
 */
struct xiwdv_qp_ex *xiwdv_provider_qp_ex(struct ibv_qp_ex *qpx)
{
	if (!qpx || qpx->wr_start != xiw_wr_start) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return &qpx_to_xqp(qpx)->dv;
}

/* What ibv_wr_*() serves on xiw: every RC operation it has but binds. */
#define XIW_SEND_OPS (IBV_QP_EX_WITH_RDMA_WRITE | \
		      IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
		      IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
		      IBV_QP_EX_WITH_RDMA_READ | \
		      IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		      IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
		      IBV_QP_EX_WITH_SEND_WITH_INV | \
		      IBV_QP_EX_WITH_ATOMIC_WRITE)

/**
 * xiw_sq_init_ex() - serve ibv_wr_*() on a QP with a send ring
 * @qp: the QP
 * @send_ops: IBV_QP_EX_WITH_* asked for
 *
 * Return: 0, or EOPNOTSUPP (an operation xiw does not serve: local
 * invalidation, memory windows, TSO).
 */
int xiw_sq_init_ex(struct xiw_qp *qp, uint64_t send_ops)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	if ((send_ops & ~(uint64_t)XIW_SEND_OPS) || !qp->sq.map.addr)
		return EOPNOTSUPP;
	qpx->wr_start = xiw_wr_start;
	qpx->wr_complete = xiw_wr_complete;
	qpx->wr_abort = xiw_wr_abort;
	qpx->wr_rdma_write = xiw_wr_rdma_write;
	qpx->wr_rdma_write_imm = xiw_wr_rdma_write_imm;
	qpx->wr_rdma_read = xiw_wr_rdma_read;
	qpx->wr_send = xiw_wr_send;
	qpx->wr_send_imm = xiw_wr_send_imm;
	qpx->wr_send_inv = xiw_wr_send_inv;
	qpx->wr_atomic_cmp_swp = xiw_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = xiw_wr_atomic_fetch_add;
	qpx->wr_atomic_write = xiw_wr_atomic_write;
	qpx->wr_set_sge = xiw_wr_set_sge;
	qpx->wr_set_sge_list = xiw_wr_set_sge_list;
	qpx->wr_set_inline_data = xiw_wr_set_inline_data;
	qpx->wr_set_inline_data_list = xiw_wr_set_inline_data_list;
	qp->dv.wr_flush = xiwdv_wr_flush_op;
	qp->dv.wr_verify = xiwdv_wr_verify_op;
	qp->dv.wr_masked_cmp_swap = xiwdv_wr_masked_cmp_swap_op;
	qp->dv.wr_masked_fetch_add = xiwdv_wr_masked_fetch_add_op;
	qp->vqp.comp_mask |= VERBS_QP_EX;
	return 0;
}
