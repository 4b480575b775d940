/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The receive engine's insides shared by rx.c (FPDU parsing, RFC 5040 and
 * RFC 7306 messages) and rx_commit.c (the commit draft's messages).
 */
#ifndef XIW_RX_H
#define XIW_RX_H

#include "obj.h"

#define TERM_DDP_T(code) \
	XIW_TERM(XIW_TERM_LAYER_DDP, XIW_DDP_ETYPE_TAGGED, code)
#define TERM_DDP_U(code) \
	XIW_TERM(XIW_TERM_LAYER_DDP, XIW_DDP_ETYPE_UNTAGGED, code)
#define TERM_RDMAP_OP(code) \
	XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_OP, code)
#define TERM_LLP(code) \
	XIW_TERM(XIW_TERM_LAYER_LLP, XIW_LLP_ETYPE_MPA, code)

/**
 * struct xiw_rx_copy - where payload is copied from: the skb, and the CRC
 *	it feeds
 * @qp: the QP
 * @skb: the skb
 * @off: next octet in @skb
 */
struct xiw_rx_copy {
	struct xiw_qp *qp;
	struct sk_buff *skb;
	u32 off;
};

/**
 * struct xiw_rx_handler - what the receive engine does with a message of
 *	one opcode
 * @header: its segment's header is in: check it and find where its
 *	payload goes (@len octets in this segment). Return: 0 or the cause
 *	of the Terminate.
 * @place: @len octets of its payload are at @c: put them where they go
 *	(NULL: the opcode has no payload). Return: 0 or a Terminate cause.
 * @done: its last segment passed every check, CRC included: deliver it
 *	(complete, answer, act on it). Return: 0 or a Terminate cause.
 * @interleaves: a response or a Terminate: it does not end a sequence of
 *	the peer's own messages (an RDMA Write and the Immediate Data after
 *	it stay a pair across it)
 */
struct xiw_rx_handler {
	int (*header)(struct xiw_qp *qp, u32 len);
	int (*place)(struct xiw_qp *qp, struct xiw_rx_copy *c, u32 len);
	int (*done)(struct xiw_qp *qp);
	bool interleaves;
};

extern const struct xiw_rx_handler xiw_rx_handlers[XIW_OP_COUNT];

static inline struct xiw_ddp_ctrl *xiw_rx_ctrl(struct xiw_rx *rx)
{
	return (struct xiw_ddp_ctrl *)(rx->hdr + XIW_MPA_LEN_SIZE);
}

static inline struct xiw_tagged_hdr *xiw_rx_tagged(struct xiw_rx *rx)
{
	return (struct xiw_tagged_hdr *)(rx->hdr + XIW_MPA_LEN_SIZE);
}

static inline struct xiw_untagged_hdr *xiw_rx_untagged(struct xiw_rx *rx)
{
	return (struct xiw_untagged_hdr *)(rx->hdr + XIW_MPA_LEN_SIZE);
}

static inline bool xiw_rx_last(struct xiw_rx *rx)
{
	return xiw_rx_ctrl(rx)->ddp & XIW_DDP_LAST;
}

int xiw_rx_copy_fn(void *ctx, u8 *dst, u32 len);
int xiw_rx_check_whole(struct xiw_qp *qp, u8 qn);
int xiw_rx_irq_take(struct xiw_qp *qp, struct xiw_mr *mr,
		    struct xiw_irq_entry **slot);
int xiw_rx_request_done(struct xiw_qp *qp);
struct xiw_wqe *xiw_rx_answered(struct xiw_qp *qp);
u8 xiw_rx_resp_land(struct xiw_qp *qp, const u8 *src, u32 len,
		    struct xiw_wqe **wqe);
int xiw_rx_resp_retire(struct xiw_qp *qp, struct xiw_wqe *wqe, u8 status);

/* rx_commit.c */
int xiw_rx_flush_req(struct xiw_qp *qp, u32 len);
int xiw_rx_verify_req(struct xiw_qp *qp, u32 len);
int xiw_rx_verify_resp(struct xiw_qp *qp, u32 len);
int xiw_rx_verify_resp_done(struct xiw_qp *qp);
int xiw_rx_atomic_write_req(struct xiw_qp *qp, u32 len);
int xiw_rx_bare_resp(struct xiw_qp *qp, u32 len);
int xiw_rx_bare_resp_done(struct xiw_qp *qp);
int xiw_rx_place_expect(struct xiw_qp *qp, struct xiw_rx_copy *c, u32 len);
int xiw_rx_place_hash(struct xiw_qp *qp, struct xiw_rx_copy *c, u32 len);

#endif /* XIW_RX_H */
