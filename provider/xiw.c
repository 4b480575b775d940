// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxiw-rdmav34.so: the rdma-core provider of xiw devices.
 *
 * libibverbs loads it through /etc/libibverbs.d/xiw.driver and offers it
 * every RDMA device; it takes those that carry xiw's sysfs attribute
 * xiw_uabi (uapi/xiw_abi.h) with the user ABI version it speaks.
 *
 * User ABI version 1: every verb is one of the RDMA core's uverbs commands
 * (ibv_cmd_*), sends posted included. The kernel copies each work request
 * in before it looks at it; inline data is copied from this process by
 * the kernel at post time. Completions are polled without a system call
 * from a ring per CQ that the kernel writes and this process maps
 * (XIW_UCTX_CQ_RING), and receives posted without one to a ring per QP
 * or SRQ that this process writes and the kernel copies from
 * (XIW_UCTX_RQ_RING), and sends posted without one to a ring per QP
 * (XIW_UCTX_SQ_RING, sq.c); from a kernel without rings, through the
 * commands. Written in C: the rdma-core headers a provider must include
 * (driver.h and its ccan/ lists and stdatomic.h) are C, not C++
 * (Documentation/architecture.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "xiw.h"

struct xiw_srq {
	struct ibv_srq ibv_srq;
	struct xiw_rq_ring rq;
};

/*
 * A QP being destroyed, or destroyed, whose completions are still in a
 * ring CQ: while @open (the destroy under way) all of @qp_num's are
 * skipped, then those before ring index @until (the kernel adds none
 * after the destroy returned). Gone once the tail passes @until.
 */
struct xiw_skip {
	struct xiw_skip *next;
	uint32_t qp_num;
	uint32_t until;
	bool open;
};

/*
 * A CQ. With a ring (@map.addr set): the kernel writes entries and the
 * head, this process reads entries and writes the tail; @lock serialises
 * this process's pollers and the skip list.
 */
struct xiw_cq {
	struct verbs_cq vcq;	/* ibv_cq, or ibv_create_cq_ex()'s ibv_cq_ex */
	struct ibv_wc cur;	/* ibv_cq_ex: the completion polled last */
	pthread_spinlock_t lock;
	struct xiw_map map;
	uint32_t mask;
	uint32_t tail;
	struct xiw_skip *skip;
};

static inline struct xiw_cq *to_xcq(struct ibv_cq *cq)
{
	return container_of(cq, struct xiw_cq, vcq.cq);
}

struct xiw_device {
	struct verbs_device ibv_dev;
};

/* The context command with xiw's request and response behind the core's. */
struct xiw_get_context_cmd {
	struct ibv_get_context ibv_cmd;
	struct xiw_uctx_req drv;
};

struct xiw_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct xiw_uctx_resp drv;
};

static int xiw_query_device_ex(struct ibv_context *ctx,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);

	return ibv_cmd_query_device_any(ctx, input, attr, attr_size, &resp,
					&resp_size);
}

static int xiw_query_port(struct ibv_context *ctx, uint8_t port,
			  struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *xiw_alloc_pd(struct ibv_context *ctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	int err;

	if (!pd)
		return NULL;
	err = ibv_cmd_alloc_pd(ctx, pd, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	return pd;
}

static int xiw_dealloc_pd(struct ibv_pd *pd)
{
	int err = ibv_cmd_dealloc_pd(pd);

	if (!err)
		free(pd);
	return err;
}

static struct ibv_mr *xiw_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct verbs_mr *vmr = calloc(1, sizeof(*vmr));
	struct ibv_reg_mr cmd;
	int err;

	if (!vmr)
		return NULL;
	err = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int xiw_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);

/* The register command with xiw's request behind the core's. */
struct xiw_reg_mr_cmd {
	struct ibv_reg_mr ibv_cmd;
	struct xiw_ureg_mr_req drv;
};

/**
 * xiwdv_provider_reg_mr() - xiwdv.h's xiwdv_reg_mr()
 * @pd: a PD, of any provider's
 * @addr: the memory
 * @length: octets
 * @access: IBV_ACCESS_* and the Flush rights
 * @verify_alg: the hash a Verify of the MR computes (XIW_UREG_VERIFY_*)
 *
 * Return: the MR, or NULL with errno (EOPNOTSUPP: not an xiw PD).
 */
struct ibv_mr *xiwdv_provider_reg_mr(struct ibv_pd *pd, void *addr,
				     size_t length, int access,
				     uint32_t verify_alg)
{
	struct xiw_reg_mr_cmd cmd = { .drv = { .verify_alg = verify_alg } };
	struct ib_uverbs_reg_mr_resp resp;
	struct verbs_mr *vmr;
	int err;

	if (!pd || pd->context->ops.post_send != xiw_post_send) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	err = ibv_cmd_reg_mr(pd, addr, length, (uintptr_t)addr, access, vmr,
			     &cmd.ibv_cmd, sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int xiw_dereg_mr(struct verbs_mr *vmr)
{
	int err = ibv_cmd_dereg_mr(vmr);

	if (!err)
		free(vmr);
	return err;
}

/* Map @len octets of the device file at @offset into @m; 0 or an errno. */
int xiw_map_ring(struct ibv_context *ctx, struct xiw_map *m, uint64_t offset,
		 size_t len)
{
	struct xiw_context *xctx = to_xctx(ctx);

	m->addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       ctx->cmd_fd, offset);
	if (m->addr == MAP_FAILED) {
		m->addr = NULL;
		return errno;
	}
	m->len = len;
	pthread_mutex_lock(&xctx->lock);
	list_add_tail(&xctx->maps, &m->entry);
	pthread_mutex_unlock(&xctx->lock);
	return 0;
}

void xiw_unmap_ring(struct ibv_context *ctx, struct xiw_map *m)
{
	struct xiw_context *xctx = to_xctx(ctx);

	if (!m->addr)
		return;
	pthread_mutex_lock(&xctx->lock);
	list_del(&m->entry);
	pthread_mutex_unlock(&xctx->lock);
	munmap(m->addr, m->len);
	m->addr = NULL;
}

/* The create command's response with xiw's behind the core's. */
struct xiw_create_cq_resp {
	struct ib_uverbs_create_cq_resp ibv_resp;
	struct xiw_ucq_resp drv;
};

static struct ibv_cq *xiw_create_cq(struct ibv_context *ctx, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector)
{
	bool rings = to_xctx(ctx)->flags & XIW_UCTX_CQ_RING;
	struct xiw_create_cq_resp resp = {};
	struct xiw_cq *cq = calloc(1, sizeof(*cq));
	struct ibv_create_cq cmd;
	int err;

	if (!cq)
		return NULL;
	err = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (err)
		goto fail;
	err = ibv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv_resp,
				rings ? sizeof(resp) : sizeof(resp.ibv_resp));
	if (err)
		goto fail_lock;
	if (!rings)
		return &cq->vcq.cq;
	err = xiw_map_ring(ctx, &cq->map, resp.drv.ring_offset,
			   resp.drv.ring_len);
	if (err) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		goto fail_lock;
	}
	cq->mask = resp.drv.slots - 1;
	return &cq->vcq.cq;
fail_lock:
	pthread_spin_destroy(&cq->lock);
fail:
	free(cq);
	errno = err;
	return NULL;
}

static int xiw_destroy_cq(struct ibv_cq *ibcq)
{
	struct xiw_cq *cq = to_xcq(ibcq);
	int err = ibv_cmd_destroy_cq(ibcq);

	if (err)
		return err;
	xiw_unmap_ring(ibcq->context, &cq->map);
	pthread_spin_destroy(&cq->lock);
	while (cq->skip) {
		struct xiw_skip *s = cq->skip;

		cq->skip = s->next;
		free(s);
	}
	free(cq);
	return 0;
}

static inline uint32_t *xiw_ring_index(struct xiw_cq *cq, size_t off)
{
	return (uint32_t *)((char *)cq->map.addr + off);
}

/* Is ring entry @i of @qp_num one of a destroyed QP's? Lock held. */
static bool xiw_skipped(struct xiw_cq *cq, uint32_t i, uint32_t qp_num)
{
	const struct xiw_skip *s;

	for (s = cq->skip; s; s = s->next)
		if (s->qp_num == qp_num &&
		    (s->open || (int32_t)(i - s->until) < 0))
			return true;
	return false;
}

/*
 * Unlink the destroyed QPs whose entries are all behind the tail; the
 * caller frees the list it gets once it dropped the lock.
 */
static struct xiw_skip *xiw_skips_done(struct xiw_cq *cq)
{
	struct xiw_skip **p = &cq->skip, *done = NULL, *s;

	while ((s = *p))
		if (!s->open && (int32_t)(cq->tail - s->until) >= 0) {
			*p = s->next;
			s->next = done;
			done = s;
		} else {
			p = &s->next;
		}
	return done;
}

static void xiw_skips_free(struct xiw_skip *s)
{
	while (s) {
		struct xiw_skip *next = s->next;

		free(s);
		s = next;
	}
}

static void xiw_wc_from_ring(struct ibv_wc *wc, const struct xiw_ucqe *e)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->wr_id;
	wc->status = e->status;
	wc->opcode = e->opcode;
	wc->vendor_err = e->vendor_err;
	wc->byte_len = e->byte_len;
	wc->qp_num = e->qp_num;
	if (e->flags & XIW_UCQE_WITH_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = e->ex_data;	/* network order, as sent */
	} else if (e->flags & XIW_UCQE_WITH_INV) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = e->ex_data;
	}
}

static int xiw_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct xiw_cq *cq = to_xcq(ibcq);
	struct xiw_skip *done = NULL;
	const struct xiw_ucqe *entries;
	uint32_t head;
	int n = 0;

	if (!cq->map.addr)
		return ibv_cmd_poll_cq(ibcq, ne, wc);
	entries = (const void *)((char *)cq->map.addr +
				  XIW_UCQ_RING_ENTRIES);
	pthread_spin_lock(&cq->lock);
	/* The entries before the head are written before it is. */
	head = __atomic_load_n(xiw_ring_index(cq, XIW_UCQ_RING_HEAD),
			       __ATOMIC_ACQUIRE);
	while (n < ne && cq->tail != head) {
		const struct xiw_ucqe *e = &entries[cq->tail & cq->mask];

		if (!cq->skip || !xiw_skipped(cq, cq->tail, e->qp_num))
			xiw_wc_from_ring(&wc[n++], e);
		cq->tail++;
	}
	/* Read before the kernel may write the slots again. */
	__atomic_store_n(xiw_ring_index(cq, XIW_UCQ_RING_TAIL), cq->tail,
			 __ATOMIC_RELEASE);
	if (cq->skip)
		done = xiw_skips_done(cq);
	pthread_spin_unlock(&cq->lock);
	xiw_skips_free(done);
	return n;
}

/*
 * A QP's destroy begins: from now on the poll skips its completions in a
 * ring CQ (another thread's poll must not return them once the QP may be
 * gone), as the kernel drops them from a CQ it polls for us. Return: the
 * entry, NULL for a CQ without a ring, or ERR: out of memory.
 */
static struct xiw_skip xiw_skip_failed;

static struct xiw_skip *xiw_skip_begin(struct ibv_cq *ibcq, uint32_t qp_num)
{
	struct xiw_cq *cq = ibcq ? to_xcq(ibcq) : NULL;
	struct xiw_skip *s;

	if (!cq || !cq->map.addr)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return &xiw_skip_failed;
	s->qp_num = qp_num;
	s->open = true;
	pthread_spin_lock(&cq->lock);
	s->next = cq->skip;
	cq->skip = s;
	pthread_spin_unlock(&cq->lock);
	return s;
}

/*
 * The destroy is over: @s skips what the QP left before the head now
 * (the kernel adds nothing after a destroy), or, if the destroy failed,
 * nothing: the QP lives on.
 */
static void xiw_skip_end(struct ibv_cq *ibcq, struct xiw_skip *s,
			 bool destroyed)
{
	struct xiw_cq *cq;
	struct xiw_skip **p;

	if (!s || s == &xiw_skip_failed)
		return;
	cq = to_xcq(ibcq);
	pthread_spin_lock(&cq->lock);
	s->until = __atomic_load_n(xiw_ring_index(cq, XIW_UCQ_RING_HEAD),
				   __ATOMIC_ACQUIRE);
	s->open = false;
	if (!destroyed || s->until == cq->tail) {
		for (p = &cq->skip; *p != s; p = &(*p)->next)
			;
		*p = s->next;
	} else {
		s = NULL;	/* stays, until the tail passes */
	}
	pthread_spin_unlock(&cq->lock);
	free(s);
}

static int xiw_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(cq, solicited_only);
}

/*
 * ibv_create_cq_ex(): the same CQ, read a completion at a time through
 * ibv_start_poll(), ibv_next_poll() and the ibv_wc_read_*() of the
 * standard fields (from the ring, or through the poll command). The poll
 * takes no lock of its own across start and end: each completion is
 * taken whole by xiw_poll_cq(), which serialises with other pollers.
 */
static inline struct xiw_cq *cqx_to_xcq(struct ibv_cq_ex *cqx)
{
	return container_of(cqx, struct xiw_cq, vcq.cq_ex);
}

static int xiw_cqx_next(struct ibv_cq_ex *cqx)
{
	struct xiw_cq *cq = cqx_to_xcq(cqx);
	int n = xiw_poll_cq(&cq->vcq.cq, 1, &cq->cur);

	if (n < 0)
		return -n ?: EINVAL;
	if (!n)
		return ENOENT;
	cqx->wr_id = cq->cur.wr_id;
	cqx->status = cq->cur.status;
	return 0;
}

static int xiw_cqx_start(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	if (attr->comp_mask)
		return EINVAL;
	return xiw_cqx_next(cqx);
}

static void xiw_cqx_end(struct ibv_cq_ex *cqx)
{
	(void)cqx;
}

static enum ibv_wc_opcode xiw_cqx_opcode(struct ibv_cq_ex *cqx)
{
	return cqx_to_xcq(cqx)->cur.opcode;
}

static uint32_t xiw_cqx_vendor_err(struct ibv_cq_ex *cqx)
{
	return cqx_to_xcq(cqx)->cur.vendor_err;
}

static uint32_t xiw_cqx_byte_len(struct ibv_cq_ex *cqx)
{
	return cqx_to_xcq(cqx)->cur.byte_len;
}

static __be32 xiw_cqx_imm_data(struct ibv_cq_ex *cqx)
{
	return cqx_to_xcq(cqx)->cur.imm_data;
}

static uint32_t xiw_cqx_qp_num(struct ibv_cq_ex *cqx)
{
	return cqx_to_xcq(cqx)->cur.qp_num;
}

static uint32_t xiw_cqx_src_qp(struct ibv_cq_ex *cqx)
{
	return cqx_to_xcq(cqx)->cur.src_qp;
}

static unsigned int xiw_cqx_wc_flags(struct ibv_cq_ex *cqx)
{
	return cqx_to_xcq(cqx)->cur.wc_flags;
}

/* iWARP has no LIDs or service levels: zero, as ibv_poll_cq() gives. */
static uint32_t xiw_cqx_slid(struct ibv_cq_ex *cqx)
{
	return cqx_to_xcq(cqx)->cur.slid;
}

static uint8_t xiw_cqx_sl(struct ibv_cq_ex *cqx)
{
	return cqx_to_xcq(cqx)->cur.sl;
}

static uint8_t xiw_cqx_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cqx_to_xcq(cqx)->cur.dlid_path_bits;
}

static struct ibv_cq_ex *xiw_create_cq_ex(struct ibv_context *ctx,
					  struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cqx;
	struct ibv_cq *ibcq;

	/* The standard fields only; no PD, no creation flags. */
	if ((attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS) ||
	    (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) && attr->flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->cqe > INT32_MAX) {
		errno = EINVAL;
		return NULL;
	}
	ibcq = xiw_create_cq(ctx, (int)attr->cqe, attr->channel,
			     (int)attr->comp_vector);
	if (!ibcq)
		return NULL;
	/* libibverbs initialises ibv_create_cq()'s; this one is ours to. */
	verbs_init_cq(ibcq, ctx, attr->channel, attr->cq_context);
	cqx = &to_xcq(ibcq)->vcq.cq_ex;
	cqx->start_poll = xiw_cqx_start;
	cqx->next_poll = xiw_cqx_next;
	cqx->end_poll = xiw_cqx_end;
	cqx->read_opcode = xiw_cqx_opcode;
	cqx->read_vendor_err = xiw_cqx_vendor_err;
	cqx->read_wc_flags = xiw_cqx_wc_flags;
	if (attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = xiw_cqx_byte_len;
	if (attr->wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = xiw_cqx_imm_data;
	if (attr->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = xiw_cqx_qp_num;
	if (attr->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = xiw_cqx_src_qp;
	if (attr->wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = xiw_cqx_slid;
	if (attr->wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = xiw_cqx_sl;
	if (attr->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = xiw_cqx_dlid_path_bits;
	return cqx;
}

static inline uint32_t *xiw_rq_word(struct xiw_rq_ring *r, size_t off)
{
	return (uint32_t *)((char *)r->map.addr + off);
}

/* Map a receive ring the kernel made; 0 or an errno. */
static int xiw_rq_ring_open(struct ibv_context *ctx, struct xiw_rq_ring *r,
			    const struct xiw_urq_resp *resp)
{
	int err;

	if (!resp->slots || (resp->slots & (resp->slots - 1)) ||
	    resp->size > resp->slots ||
	    resp->ring_len < XIW_URQ_RING_ENTRIES +
			     (size_t)resp->slots * sizeof(struct xiw_urqe))
		return EPROTO;
	err = pthread_spin_init(&r->lock, PTHREAD_PROCESS_PRIVATE);
	if (err)
		return err;
	r->mask = resp->slots - 1;
	r->size = resp->size;
	r->head = 0;
	err = xiw_map_ring(ctx, &r->map, resp->ring_offset, resp->ring_len);
	if (err)
		pthread_spin_destroy(&r->lock);
	return err;
}

static void xiw_rq_ring_close(struct ibv_context *ctx, struct xiw_rq_ring *r)
{
	if (!r->map.addr)
		return;
	xiw_unmap_ring(ctx, &r->map);
	pthread_spin_destroy(&r->lock);
}

/*
 * Post receives into a ring: no system call. *@doorbell: the queue is
 * flushed (its QP is in error), and what was posted is flushed only when
 * the kernel is told.
 */
static int xiw_rq_ring_post(struct xiw_rq_ring *r, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr, bool *doorbell)
{
	struct xiw_urqe *ring = (struct xiw_urqe *)((char *)r->map.addr +
						    XIW_URQ_RING_ENTRIES);
	int err = 0;

	pthread_spin_lock(&r->lock);
	for (; wr; wr = wr->next) {
		uint32_t tail = __atomic_load_n(xiw_rq_word(r, XIW_URQ_RING_TAIL),
						__ATOMIC_ACQUIRE);
		struct xiw_urqe *e = &ring[r->head & r->mask];
		int i;

		if (wr->num_sge < 0 || wr->num_sge > XIW_URQE_SGE) {
			err = EINVAL;
			break;
		}
		if (r->head - tail >= r->size) {
			err = ENOMEM;
			break;
		}
		e->wr_id = wr->wr_id;
		e->num_sge = wr->num_sge;
		e->reserved = 0;
		for (i = 0; i < wr->num_sge; i++) {
			e->sge[i].addr = wr->sg_list[i].addr;
			e->sge[i].length = wr->sg_list[i].length;
			e->sge[i].lkey = wr->sg_list[i].lkey;
		}
		r->head++;
	}
	__atomic_store_n(xiw_rq_word(r, XIW_URQ_RING_HEAD), r->head,
			 __ATOMIC_RELEASE);
	/* Against the kernel's flag-then-pull (xiw_rq_set_flush()). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*doorbell = __atomic_load_n(xiw_rq_word(r, XIW_URQ_RING_FLAGS),
				    __ATOMIC_RELAXED) & XIW_URQ_FLUSH;
	pthread_spin_unlock(&r->lock);
	if (err)
		*bad_wr = wr;
	return err;
}

/* The create command's responses with xiw's behind the core's. */
struct xiw_create_srq_resp {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct xiw_usrq_resp drv;
};

struct xiw_create_qp_resp {
	struct ib_uverbs_create_qp_resp ibv_resp;
	struct xiw_uqp_resp drv;
};

static inline struct xiw_srq *to_xsrq(struct ibv_srq *srq)
{
	return container_of(srq, struct xiw_srq, ibv_srq);
}

static struct ibv_srq *xiw_create_srq(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr)
{
	bool rings = to_xctx(pd->context)->flags & XIW_UCTX_RQ_RING;
	struct xiw_create_srq_resp resp = {};
	struct xiw_srq *srq = calloc(1, sizeof(*srq));
	struct ibv_create_srq cmd;
	int err;

	if (!srq)
		return NULL;
	err = ibv_cmd_create_srq(pd, &srq->ibv_srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp,
				 rings ? sizeof(resp) : sizeof(resp.ibv_resp));
	if (!err && rings) {
		err = xiw_rq_ring_open(pd->context, &srq->rq, &resp.drv.rq);
		if (err)
			ibv_cmd_destroy_srq(&srq->ibv_srq);
	}
	if (err) {
		free(srq);
		errno = err;
		return NULL;
	}
	return &srq->ibv_srq;
}

static int xiw_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int mask)
{
	struct ibv_modify_srq cmd;

	return ibv_cmd_modify_srq(srq, attr, mask, &cmd, sizeof(cmd));
}

static int xiw_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

static int xiw_destroy_srq(struct ibv_srq *srq)
{
	int err = ibv_cmd_destroy_srq(srq);

	if (err)
		return err;
	xiw_rq_ring_close(srq->context, &to_xsrq(srq)->rq);
	free(to_xsrq(srq));
	return 0;
}

static int xiw_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr)
{
	struct xiw_rq_ring *r = &to_xsrq(srq)->rq;
	bool doorbell;

	if (!r->map.addr)
		return ibv_cmd_post_srq_recv(srq, wr, bad_wr);
	/* An SRQ is not flushed: its entries wait for its other QPs. */
	return xiw_rq_ring_post(r, wr, bad_wr, &doorbell);
}

/* A QP and the rings it was granted; *@err an errno on failure. */
static struct xiw_qp *xiw_qp_new(struct ibv_pd *pd,
				 struct ibv_qp_init_attr *attr, int *err)
{
	uint32_t flags = to_xctx(pd->context)->flags;
	bool rq = flags & XIW_UCTX_RQ_RING, sq = flags & XIW_UCTX_SQ_RING;
	struct xiw_create_qp_resp resp = {};
	struct xiw_qp *qp = calloc(1, sizeof(*qp));
	struct ibv_create_qp cmd;
	size_t len = sizeof(resp.ibv_resp);

	if (!qp) {
		*err = ENOMEM;
		return NULL;
	}
	/* The kernel's part is as long as the rings it may answer for. */
	if (sq)
		len = sizeof(resp);
	else if (rq)
		len = offsetof(struct xiw_create_qp_resp, drv.sq);
	*err = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, len);
	if (*err) {
		free(qp);
		return NULL;
	}
	if (rq && !attr->srq)
		*err = xiw_rq_ring_open(pd->context, &qp->rq, &resp.drv.rq);
	if (!*err && sq)
		*err = xiw_sq_ring_open(pd->context, &qp->sq, &resp.drv.sq);
	if (*err) {
		xiw_rq_ring_close(pd->context, &qp->rq);
		ibv_cmd_destroy_qp(&qp->vqp.qp);
		free(qp);
		return NULL;
	}
	return qp;
}

static struct ibv_qp *xiw_create_qp(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr)
{
	int err;
	struct xiw_qp *qp = xiw_qp_new(pd, attr, &err);

	if (!qp) {
		errno = err;
		return NULL;
	}
	return &qp->vqp.qp;
}

static int xiw_destroy_qp(struct ibv_qp *qp);

/*
 * ibv_create_qp_ex() of what create_qp makes: a PD, and creation flags
 * named but none set (libibverbs itself sends a mask of only the PD to
 * create_qp); and the ibv_wr_*() posting API
 * (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) on a QP with a send ring (sq.c). Every
 * other extension: EOPNOTSUPP.
 */
static struct ibv_qp *xiw_create_qp_ex(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr)
{
	const uint32_t known = IBV_QP_INIT_ATTR_PD |
			       IBV_QP_INIT_ATTR_CREATE_FLAGS |
			       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	struct ibv_qp_init_attr init;
	struct xiw_qp *qp;
	int err;

	if ((attr->comp_mask & IBV_QP_INIT_ATTR_PD) &&
	    attr->pd->context != context) {
		errno = EINVAL;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) ||
	    (attr->comp_mask & ~known) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	init = (struct ibv_qp_init_attr){
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
	};
	qp = xiw_qp_new(attr->pd, &init, &err);
	if (qp && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		err = xiw_sq_init_ex(qp, attr->send_ops_flags);
		if (err) {
			xiw_destroy_qp(&qp->vqp.qp);
			qp = NULL;
		}
	}
	if (!qp) {
		errno = err;
		return NULL;
	}
	attr->cap = init.cap;
	return &qp->vqp.qp;
}

static int xiw_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int mask, struct ibv_qp_init_attr *init)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(qp, attr, mask, init, &cmd, sizeof(cmd));
}

static int xiw_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int mask)
{
	struct ibv_modify_qp cmd;

	return ibv_cmd_modify_qp(qp, attr, mask, &cmd, sizeof(cmd));
}

/*
 * Its completions still in a ring CQ would name a QP this process no
 * longer has: they are skipped from the moment the destroy begins.
 */
static int xiw_destroy_qp(struct ibv_qp *qp)
{
	struct ibv_cq *scq = qp->send_cq;
	struct ibv_cq *rcq = qp->recv_cq != scq ? qp->recv_cq : NULL;
	struct xiw_skip *ss, *rs;
	int err;

	ss = xiw_skip_begin(scq, qp->qp_num);
	rs = xiw_skip_begin(rcq, qp->qp_num);
	if (ss == &xiw_skip_failed || rs == &xiw_skip_failed) {
		xiw_skip_end(scq, ss, false);
		xiw_skip_end(rcq, rs, false);
		return ENOMEM;
	}
	err = ibv_cmd_destroy_qp(qp);
	xiw_skip_end(scq, ss, !err);
	xiw_skip_end(rcq, rs, !err);
	if (!err) {
		xiw_rq_ring_close(qp->context, &to_xqp(qp)->rq);
		xiw_sq_ring_close(qp->context, &to_xqp(qp)->sq);
		free(to_xqp(qp));
	}
	return err;
}

static int xiw_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr)
{
	struct xiw_sq_ring *r = &to_xqp(qp)->sq;
	struct ibv_send_wr *none;
	bool doorbell;
	int err;

	if (!r->map.addr)
		return ibv_cmd_post_send(qp, wr, bad_wr);
	err = xiw_sq_post(r, wr, bad_wr, &doorbell);
	/* The engine is idle, or the QP in error: it sends, or flushes. */
	if (doorbell)
		ibv_cmd_post_send(qp, NULL, &none);
	return err;
}

static int xiw_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr)
{
	struct xiw_rq_ring *r = &to_xqp(qp)->rq;
	struct ibv_recv_wr *none;
	bool doorbell;
	int err;

	if (!r->map.addr)
		return ibv_cmd_post_recv(qp, wr, bad_wr);
	err = xiw_rq_ring_post(r, wr, bad_wr, &doorbell);
	/* In error: the doorbell (no work request) flushes what is posted. */
	if (doorbell)
		ibv_cmd_post_recv(qp, NULL, &none);
	return err;
}

static void xiw_free_context(struct ibv_context *ibctx)
{
	struct xiw_context *ctx =
		container_of(ibctx, struct xiw_context, ibv_ctx.context);
	struct xiw_map *m, *next;

	/*
	 * CQs, QPs and SRQs not destroyed: their rings go, so that the file
	 * is closed.
	 */
	list_for_each_safe(&ctx->maps, m, next, entry) {
		list_del(&m->entry);
		munmap(m->addr, m->len);
		m->addr = NULL;
	}
	pthread_mutex_destroy(&ctx->lock);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static const struct verbs_context_ops xiw_ctx_ops = {
	.alloc_pd = xiw_alloc_pd,
	.create_cq = xiw_create_cq,
	.create_cq_ex = xiw_create_cq_ex,
	.create_qp = xiw_create_qp,
	.create_qp_ex = xiw_create_qp_ex,
	.create_srq = xiw_create_srq,
	.dealloc_pd = xiw_dealloc_pd,
	.dereg_mr = xiw_dereg_mr,
	.destroy_cq = xiw_destroy_cq,
	.destroy_qp = xiw_destroy_qp,
	.destroy_srq = xiw_destroy_srq,
	.free_context = xiw_free_context,
	.modify_qp = xiw_modify_qp,
	.modify_srq = xiw_modify_srq,
	.poll_cq = xiw_poll_cq,
	.post_recv = xiw_post_recv,
	.post_send = xiw_post_send,
	.post_srq_recv = xiw_post_srq_recv,
	.query_device_ex = xiw_query_device_ex,
	.query_port = xiw_query_port,
	.query_qp = xiw_query_qp,
	.query_srq = xiw_query_srq,
	.reg_mr = xiw_reg_mr,
	.req_notify_cq = xiw_req_notify_cq,
};

static struct verbs_context *xiw_alloc_context(struct ibv_device *ibdev,
					       int cmd_fd, void *private_data)
{
	struct xiw_get_context_resp resp = {};
	struct xiw_get_context_cmd cmd = {};
	struct xiw_context *ctx;
	const char *env;
	int err;

	(void)private_data;
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;
	cmd.drv.uabi = XIW_UABI_VERSION;
	/* XIW_CQ_RINGS=0: poll through the command, as from an old kernel. */
	env = getenv("XIW_CQ_RINGS");
	if (!env || strcmp(env, "0"))
		cmd.drv.flags |= XIW_UCTX_CQ_RING;
	/* XIW_RQ_RINGS=0: post receives through the command. */
	env = getenv("XIW_RQ_RINGS");
	if (!env || strcmp(env, "0"))
		cmd.drv.flags |= XIW_UCTX_RQ_RING;
	/* XIW_SQ_RINGS=0: post sends through the command. */
	env = getenv("XIW_SQ_RINGS");
	if (!env || strcmp(env, "0"))
		cmd.drv.flags |= XIW_UCTX_SQ_RING;
	err = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err == EINVAL && cmd.drv.flags) {
		/* A kernel from before the flags: it refuses any. */
		cmd.drv.flags = 0;
		memset(&resp, 0, sizeof(resp));
		err = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd,
					  sizeof(cmd), &resp.ibv_resp,
					  sizeof(resp));
	}
	if (err) {
		errno = err;
		if (errno == EPROTO)
			fprintf(stderr, "libxiw: %s refused user ABI %u\n",
				ibdev->name, XIW_UABI_VERSION);
		goto fail;
	}
	if (resp.drv.uabi != XIW_UABI_VERSION) {
		fprintf(stderr, "libxiw: %s answered with user ABI %u, not %u\n",
			ibdev->name, resp.drv.uabi, XIW_UABI_VERSION);
		errno = EPROTO;
		goto fail;
	}
	ctx->flags = resp.drv.flags & cmd.drv.flags;
	pthread_mutex_init(&ctx->lock, NULL);
	list_head_init(&ctx->maps);
	verbs_set_ops(&ctx->ibv_ctx, &xiw_ctx_ops);
	return &ctx->ibv_ctx;
fail:
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	return NULL;
}

/* An xiw device carries xiw_uabi; a version this provider speaks, or a word. */
static bool xiw_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char buf[16];
	unsigned long v;
	char *end;

	if (ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev,
				      "xiw_uabi") <= 0)
		return false;
	v = strtoul(buf, &end, 10);
	if (end == buf || v != XIW_UABI_VERSION) {
		fprintf(stderr,
			"libxiw: %s speaks user ABI %s, this provider %u: not used\n",
			sysfs_dev->ibdev_name, buf, XIW_UABI_VERSION);
		return false;
	}
	return true;
}

static struct verbs_device *xiw_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct xiw_device *dev = calloc(1, sizeof(*dev));

	(void)sysfs_dev;
	return dev ? &dev->ibv_dev : NULL;
}

static void xiw_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct xiw_device, ibv_dev));
}

/*
 * No table entry matches (xiw has no driver id, and device names are the
 * administrator's): xiw_match_device() decides. libibverbs walks every
 * provider's table when a device has a driver id, so there must be one.
 */
static const struct verbs_match_ent xiw_match_table[] = {
	{},
};

static const struct verbs_device_ops xiw_dev_ops = {
	.name = "xiw",
	.match_min_abi_version = 1,
	.match_max_abi_version = 1,
	.match_table = xiw_match_table,
	.match_device = xiw_match_device,
	.alloc_device = xiw_alloc_device,
	.uninit_device = xiw_uninit_device,
	.alloc_context = xiw_alloc_context,
};
PROVIDER_DRIVER(xiw, xiw_dev_ops);
