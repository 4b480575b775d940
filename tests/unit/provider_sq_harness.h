/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The provider's send ring code (provider/sq.c) over a ring in plain
 * memory, for provider_sq_test.cpp: no device, no kernel. The kernel's
 * side is played by the test: it reads the published head and entries,
 * and writes the tail and the flags.
 */
#ifndef XIW_PROVIDER_SQ_HARNESS_H
#define XIW_PROVIDER_SQ_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "infiniband/xiwdv.h"
#include "xiw_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

struct xh;

/* A QP with a ring of @slots slots holding @size work requests at most,
 * its head and tail at @start, serving ibv_wr_*() (all of xiw's). */
struct xh *xh_new(uint32_t slots, uint32_t size, uint32_t start);
void xh_free(struct xh *h);

int xh_post(struct xh *h, struct ibv_send_wr *wr, struct ibv_send_wr **bad,
	    bool *doorbell);
struct ibv_qp_ex *xh_qpx(struct xh *h);
struct xiwdv_qp_ex *xh_dv(struct xh *h);

/* The kernel's view: the head published, entry @i, the tail, the flags */
uint32_t xh_head(struct xh *h);
const struct xiw_usqe *xh_entry(struct xh *h, uint32_t i);
void xh_set_tail(struct xh *h, uint32_t tail);
void xh_set_flags(struct xh *h, uint32_t flags);

/* Post_send commands without work requests (doorbells) so far. */
int xh_doorbells(void);

#ifdef __cplusplus
}
#endif

#endif
