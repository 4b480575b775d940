/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What client and server connections share: buffers mapped for a device,
 * and the PD/CQ/QP of one rdma_cm id with its ordered teardown.
 */
#ifndef XIWPERF_CONN_H
#define XIWPERF_CONN_H

#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

/**
 * struct xp_map - a buffer DMA-mapped for one device.
 * @dev: the device, NULL while unmapped.
 * @cpu: kernel address of the buffer.
 * @dma: device address.
 * @len: length in bytes.
 */
struct xp_map {
	struct ib_device *dev;
	void *cpu;
	u64 dma;
	size_t len;
};

void *xp_buf_alloc(size_t len);
void xp_buf_free(void *buf);
int xp_map(struct xp_map *map, struct ib_device *dev, void *cpu, size_t len);
void xp_unmap(struct xp_map *map);
void xp_sync_for_cpu(struct xp_map *map, size_t off, size_t len);
void xp_sync_for_device(struct xp_map *map, size_t off, size_t len);

/**
 * struct xp_qp - the verbs resources of one connection.
 * @id: its rdma_cm id (not owned).
 * @pd: protection domain.
 * @cq: the one CQ for sends and receives, polled from a workqueue.
 * @qp: the RC QP, created on @id.
 * @create_err: the error of rdma_create_qp() if xp_qp_create() failed
 *	there (the device refused the QP's capabilities), else 0.
 */
struct xp_qp {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	int create_err;
};

int xp_qp_create(struct xp_qp *q, struct rdma_cm_id *id, unsigned int pd_flags,
		 struct ib_qp_cap *cap);
void xp_qp_destroy(struct xp_qp *q, bool connected);
u32 xp_sge_split(struct ib_sge *sge, u32 n, u64 addr, u32 len, u32 lkey);
int xp_post_recv(struct xp_qp *q, struct ib_cqe *cqe, u64 addr, u32 len,
		 u32 nsge);

#endif /* XIWPERF_CONN_H */
