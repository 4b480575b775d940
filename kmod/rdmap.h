/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RDMAP/DDP message rules: the opcode table, control-octet validation,
 * Terminate causes and RFC 6581 IRD/ORD negotiation. Pure protocol code.
 */
#ifndef XIW_RDMAP_H
#define XIW_RDMAP_H

#include <linux/types.h>

#include "iwarp.h"

/**
 * struct xiw_op_info - what sender and receiver need to know of an opcode
 * @name: for logs and traces
 * @hdr_len: DDP plus RDMAP header octets (without the MPA length field)
 * @tagged: the DDP model the opcode must use
 * @qn: untagged queue number (untagged opcodes)
 * @fixed_payload: octets of payload the opcode always carries, or -1
 * @supported: xiw implements it; the rest get "unexpected opcode"
 */
struct xiw_op_info {
	const char *name;
	u8 hdr_len;
	bool tagged;
	u8 qn;
	s16 fixed_payload;
	bool supported;
};

extern const struct xiw_op_info xiw_op_table[XIW_OP_COUNT];

/*
 * A Terminate cause: layer, error type and code packed into an int that
 * is never 0, so that 0 can mean "no error".
 */
#define XIW_TERM(layer, etype, code) \
	(1 << 24 | (layer) << 16 | (etype) << 8 | (code))
#define XIW_TERM_LAYER(cause)	(((cause) >> 16) & 0xf)
#define XIW_TERM_ETYPE(cause)	(((cause) >> 8) & 0xf)
#define XIW_TERM_CODE(cause)	((cause) & 0xff)

/* A local catastrophic error (RFC 5040 section 7.2): no code, no headers. */
#define XIW_TERM_LOCAL_CATASTROPHIC \
	XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_CATASTROPHIC, 0)

int xiw_check_ctrl(const struct xiw_ddp_ctrl *ctrl);
u32 xiw_term_ctrl(int cause, u32 flags);
int xiw_term_cause(u32 ctrl);

/*
 * The Terminate header after the untagged DDP header: control field, then
 * (per RFC 5040 figure 10) the offending segment's DDP segment length and
 * DDP header, and for a Read Request its RDMAP header.
 */
#define XIW_TERM_INFO_MAX	(sizeof(struct xiw_terminate_hdr) + 2 + \
				 sizeof(struct xiw_untagged_hdr) + \
				 sizeof(struct xiw_read_req))

/**
 * struct xiw_term_src - the received segment a Terminate is about
 * @seg_len: its DDP segment length (ULPDU length); valid if @ddp_hdr
 * @ddp_hdr: its DDP header as received, or NULL if not available (the
 *	error was found before the whole header was in)
 * @ddp_len: length of @ddp_hdr: tagged or untagged header size
 * @rdma_hdr: the RDMA Read Request header it carried, or NULL
 */
struct xiw_term_src {
	u16 seg_len;
	const void *ddp_hdr;
	u8 ddp_len;
	const struct xiw_read_req *rdma_hdr;
};

size_t xiw_term_info_build(int cause, const struct xiw_term_src *src,
			   u8 *out);
int xiw_term_info_parse(const u8 *in, size_t len, bool rtr_sent, int *cause,
			struct xiw_term_src *src);

/**
 * struct xiw_mpa_v2 - decoded RFC 6581 enhanced connection data
 * @ird: IRD, 0..0x3fff (0x3fff: "do not negotiate")
 * @ord: ORD, 0..0x3fff
 * @p2p: A, peer-to-peer model
 * @rtr: RTR kinds, XIW_RTR_* bits
 */
struct xiw_mpa_v2 {
	u16 ird;
	u16 ord;
	bool p2p;
	u8 rtr;
};

#define XIW_RTR_SEND	0x1	/* zero-length Send */
#define XIW_RTR_WRITE	0x2	/* zero-length RDMA Write */
#define XIW_RTR_READ	0x4	/* zero-length RDMA Read */

void xiw_mpa_v2_encode(const struct xiw_mpa_v2 *v, struct xiw_mpa_v2_data *d);
void xiw_mpa_v2_decode(const struct xiw_mpa_v2_data *d, struct xiw_mpa_v2 *v);
void xiw_mpa_v2_respond(const struct xiw_mpa_v2 *req, u16 ird_local,
			u16 ord_local, struct xiw_mpa_v2 *rep);
u8 xiw_rtr_respond(u8 requested, u8 supported);
u8 xiw_rtr_choose(u8 offered, const u8 *pref, unsigned int n);

#endif /* XIW_RDMAP_H */
