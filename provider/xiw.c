// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxiw-rdmav34.so: the rdma-core provider of xiw devices.
 *
 * libibverbs loads it through /etc/libibverbs.d/xiw.driver and offers it
 * every RDMA device; it takes those that carry xiw's sysfs attribute
 * xiw_uabi (uapi/xiw_abi.h) with the user ABI version it speaks.
 *
 * User ABI version 1: every verb is one of the RDMA core's uverbs commands
 * (ibv_cmd_*), work posted and completions polled included. The kernel
 * copies each work request in before it looks at it; inline data is
 * copied from this process by the kernel at post time. Written in C: the
 * rdma-core headers a provider must include (driver.h and its ccan/ lists
 * and stdatomic.h) are C, not C++ (Documentation/architecture.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/driver.h>
#include <infiniband/verbs.h>

#include "xiw_abi.h"

struct xiw_context {
	struct verbs_context ibv_ctx;
	uint32_t max_inline;
};

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

static int xiw_dereg_mr(struct verbs_mr *vmr)
{
	int err = ibv_cmd_dereg_mr(vmr);

	if (!err)
		free(vmr);
	return err;
}

static struct ibv_cq *xiw_create_cq(struct ibv_context *ctx, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector)
{
	struct ib_uverbs_create_cq_resp resp;
	struct ibv_cq *cq = calloc(1, sizeof(*cq));
	struct ibv_create_cq cmd;
	int err;

	if (!cq)
		return NULL;
	err = ibv_cmd_create_cq(ctx, cqe, channel, comp_vector, cq, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(cq);
		errno = err;
		return NULL;
	}
	return cq;
}

static int xiw_destroy_cq(struct ibv_cq *cq)
{
	int err = ibv_cmd_destroy_cq(cq);

	if (!err)
		free(cq);
	return err;
}

static int xiw_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)
{
	return ibv_cmd_poll_cq(cq, ne, wc);
}

static int xiw_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(cq, solicited_only);
}

static struct ibv_srq *xiw_create_srq(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr)
{
	struct ib_uverbs_create_srq_resp resp;
	struct ibv_srq *srq = calloc(1, sizeof(*srq));
	struct ibv_create_srq cmd;
	int err;

	if (!srq)
		return NULL;
	err = ibv_cmd_create_srq(pd, srq, attr, &cmd, sizeof(cmd), &resp,
				 sizeof(resp));
	if (err) {
		free(srq);
		errno = err;
		return NULL;
	}
	return srq;
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

	if (!err)
		free(srq);
	return err;
}

static int xiw_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr)
{
	return ibv_cmd_post_srq_recv(srq, wr, bad_wr);
}

static struct ibv_qp *xiw_create_qp(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_qp *qp = calloc(1, sizeof(*qp));
	struct ibv_create_qp cmd;
	int err;

	if (!qp)
		return NULL;
	err = ibv_cmd_create_qp(pd, qp, attr, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	return qp;
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

static int xiw_destroy_qp(struct ibv_qp *qp)
{
	int err = ibv_cmd_destroy_qp(qp);

	if (!err)
		free(qp);
	return err;
}

static int xiw_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr)
{
	return ibv_cmd_post_send(qp, wr, bad_wr);
}

static int xiw_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr)
{
	return ibv_cmd_post_recv(qp, wr, bad_wr);
}

static void xiw_free_context(struct ibv_context *ibctx)
{
	struct xiw_context *ctx =
		container_of(ibctx, struct xiw_context, ibv_ctx.context);

	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static const struct verbs_context_ops xiw_ctx_ops = {
	.alloc_pd = xiw_alloc_pd,
	.create_cq = xiw_create_cq,
	.create_qp = xiw_create_qp,
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

	(void)private_data;
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;
	cmd.drv.uabi = XIW_UABI_VERSION;
	if (ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp))) {
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
	ctx->max_inline = resp.drv.max_inline;
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
