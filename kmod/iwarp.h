/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iWARP wire formats: DDP (RFC 5041) and RDMAP (RFC 5040, RFC 7306)
 * headers, Terminate codes, and the RFC 6581 enhanced connection data.
 * All multi-octet fields are big-endian. Pure protocol definitions.
 */
#ifndef XIW_IWARP_H
#define XIW_IWARP_H

#include <linux/bits.h>
#include <linux/types.h>

/* DDP control octet */
#define XIW_DDP_TAGGED		0x80
#define XIW_DDP_LAST		0x40
#define XIW_DDP_RSVD		0x3c
#define XIW_DDP_VERSION_MASK	0x03
#define XIW_DDP_VERSION		1

/*
 * RDMAP control octet: RV in the two high bits, then one reserved bit and
 * a five-bit opcode. RFC 5040 has two reserved bits and four opcode bits;
 * the commit draft's Atomic Write opcodes (0x10, 0x11) need a fifth, which
 * xiw takes from the reserved bit next to the opcode, so that every
 * RFC 5040 and RFC 7306 opcode keeps its encoding (see
 * Documentation/commit-draft.md).
 */
#define XIW_RDMAP_VERSION_SHIFT	6
#define XIW_RDMAP_VERSION	1
#define XIW_RDMAP_RSVD		0x20
#define XIW_RDMAP_OPCODE_MASK	0x1f

/**
 * enum xiw_opcode - RDMAP opcodes
 * @XIW_OP_WRITE: RDMA Write
 * @XIW_OP_READ_REQ: RDMA Read Request
 * @XIW_OP_READ_RESP: RDMA Read Response
 * @XIW_OP_SEND: Send
 * @XIW_OP_SEND_INV: Send with Invalidate
 * @XIW_OP_SEND_SE: Send with Solicited Event
 * @XIW_OP_SEND_SE_INV: Send with Solicited Event and Invalidate
 * @XIW_OP_TERMINATE: Terminate
 * @XIW_OP_IMM: Immediate Data (RFC 7306)
 * @XIW_OP_IMM_SE: Immediate Data with Solicited Event (RFC 7306)
 * @XIW_OP_ATOMIC_REQ: Atomic Request (RFC 7306)
 * @XIW_OP_ATOMIC_RESP: Atomic Response (RFC 7306)
 * @XIW_OP_FLUSH_REQ: RDMA Flush Request (commit draft)
 * @XIW_OP_FLUSH_RESP: RDMA Flush Response (commit draft)
 * @XIW_OP_VERIFY_REQ: RDMA Verify Request (commit draft)
 * @XIW_OP_VERIFY_RESP: RDMA Verify Response (commit draft)
 * @XIW_OP_ATOMIC_WRITE_REQ: Atomic Write Request (commit draft)
 * @XIW_OP_ATOMIC_WRITE_RESP: Atomic Write Response (commit draft)
 * @XIW_OP_COUNT: number of opcode values
 */
enum xiw_opcode {
	XIW_OP_WRITE = 0x0,
	XIW_OP_READ_REQ = 0x1,
	XIW_OP_READ_RESP = 0x2,
	XIW_OP_SEND = 0x3,
	XIW_OP_SEND_INV = 0x4,
	XIW_OP_SEND_SE = 0x5,
	XIW_OP_SEND_SE_INV = 0x6,
	XIW_OP_TERMINATE = 0x7,
	XIW_OP_IMM = 0x8,
	XIW_OP_IMM_SE = 0x9,
	XIW_OP_ATOMIC_REQ = 0xa,
	XIW_OP_ATOMIC_RESP = 0xb,
	XIW_OP_FLUSH_REQ = 0xc,
	XIW_OP_FLUSH_RESP = 0xd,
	XIW_OP_VERIFY_REQ = 0xe,
	XIW_OP_VERIFY_RESP = 0xf,
	XIW_OP_ATOMIC_WRITE_REQ = 0x10,
	XIW_OP_ATOMIC_WRITE_RESP = 0x11,
	XIW_OP_COUNT = 0x20,
};

/* Immediate Data and Immediate Data with SE carry exactly this payload. */
#define XIW_IMM_LEN		8

/* Untagged queue numbers */
#define XIW_QN_SEND		0	/* Send, Immediate Data */
#define XIW_QN_READ_REQ		1	/* Read Request, Atomic Request */
#define XIW_QN_TERMINATE	2
#define XIW_QN_ATOMIC_RESP	3

/**
 * struct xiw_ddp_ctrl - the two control octets every DDP segment starts with
 * @ddp: T, L, reserved, DV
 * @rdmap: RV, reserved, opcode (DDP's reserved-for-ULP octet)
 */
struct xiw_ddp_ctrl {
	u8 ddp;
	u8 rdmap;
} __packed;

/**
 * struct xiw_tagged_hdr - DDP tagged header (14 octets)
 * @ctrl: control octets
 * @stag: steering tag of the target buffer
 * @to: tagged offset of this segment's first octet
 */
struct xiw_tagged_hdr {
	struct xiw_ddp_ctrl ctrl;
	__be32 stag;
	__be64 to;
} __packed;

/**
 * struct xiw_untagged_hdr - DDP untagged header (18 octets)
 * @ctrl: control octets
 * @inval_stag: RDMAP's Invalidate STag (Send with Invalidate), else 0
 * @qn: queue number
 * @msn: message sequence number, from 1 per queue
 * @mo: message offset of this segment's first octet
 */
struct xiw_untagged_hdr {
	struct xiw_ddp_ctrl ctrl;
	__be32 inval_stag;
	__be32 qn;
	__be32 msn;
	__be32 mo;
} __packed;

/**
 * struct xiw_read_req - RDMA Read Request header, after the untagged header
 * @sink_stag: data sink STag (the requester's buffer)
 * @sink_to: data sink tagged offset
 * @size: RDMA Read message size in octets
 * @src_stag: data source STag (the responder's buffer)
 * @src_to: data source tagged offset
 */
struct xiw_read_req {
	__be32 sink_stag;
	__be64 sink_to;
	__be32 size;
	__be32 src_stag;
	__be64 src_to;
} __packed;

/* Terminate control field: layer(4) etype(4) code(8) M D R reserved(13) */
#define XIW_TERM_LAYER_SHIFT	28
#define XIW_TERM_ETYPE_SHIFT	24
#define XIW_TERM_CODE_SHIFT	16
#define XIW_TERM_FLAG_M		BIT(15)	/* DDP segment length valid */
#define XIW_TERM_FLAG_D		BIT(14)	/* DDP header included */
#define XIW_TERM_FLAG_R		BIT(13)	/* RDMAP header included */

/**
 * struct xiw_terminate_hdr - Terminate header, after the untagged header
 * @ctrl: layer, error type, error code, header-control bits
 */
struct xiw_terminate_hdr {
	__be32 ctrl;
} __packed;

/* Terminate layers */
#define XIW_TERM_LAYER_RDMAP	0
#define XIW_TERM_LAYER_DDP	1
#define XIW_TERM_LAYER_LLP	2

/* RDMAP error types and codes (RFC 5040 figure 9) */
#define XIW_RDMAP_ETYPE_CATASTROPHIC	0
#define XIW_RDMAP_ETYPE_PROT		1
#define XIW_RDMAP_ETYPE_OP		2

#define XIW_RDMAP_INV_STAG		0x00
#define XIW_RDMAP_BOUNDS		0x01
#define XIW_RDMAP_ACCESS		0x02
#define XIW_RDMAP_STAG_NOT_ASSOC	0x03
#define XIW_RDMAP_TO_WRAP		0x04
#define XIW_RDMAP_INV_VERSION		0x05
#define XIW_RDMAP_UNEXP_OPCODE		0x06
#define XIW_RDMAP_CATASTROPHIC_STREAM	0x07
#define XIW_RDMAP_CATASTROPHIC_GLOBAL	0x08
#define XIW_RDMAP_CANT_INVALIDATE	0x09
#define XIW_RDMAP_UNSPECIFIED		0xff

/* DDP error types and codes (RFC 5041) */
#define XIW_DDP_ETYPE_CATASTROPHIC	0
#define XIW_DDP_ETYPE_TAGGED		1
#define XIW_DDP_ETYPE_UNTAGGED		2

#define XIW_DDP_T_INV_STAG		0x00
#define XIW_DDP_T_BOUNDS		0x01
#define XIW_DDP_T_STAG_NOT_ASSOC	0x02
#define XIW_DDP_T_TO_WRAP		0x03
#define XIW_DDP_T_INV_VERSION		0x04

#define XIW_DDP_U_INV_QN		0x01
#define XIW_DDP_U_NO_BUFFER		0x02
#define XIW_DDP_U_MSN_RANGE		0x03
#define XIW_DDP_U_INV_MO		0x04
#define XIW_DDP_U_TOO_LONG		0x05
#define XIW_DDP_U_INV_VERSION		0x06

/* MPA (LLP) error type 0 codes (RFC 5044, RFC 6581) */
#define XIW_LLP_ETYPE_MPA		0
#define XIW_MPA_ERR_CLOSED		0x01
#define XIW_MPA_ERR_CRC			0x02
#define XIW_MPA_ERR_MARKER		0x03
#define XIW_MPA_ERR_REQ			0x04
#define XIW_MPA_ERR_CATASTROPHIC	0x05
#define XIW_MPA_ERR_IRD			0x06
#define XIW_MPA_ERR_RTR			0x07

/* RFC 6581 enhanced connection data: A|B|IRD(14), C|D|ORD(14) */
#define XIW_MPA_V2_P2P		0x8000	/* A, in the IRD half */
#define XIW_MPA_V2_RTR_SEND	0x4000	/* B, in the IRD half */
#define XIW_MPA_V2_RTR_WRITE	0x8000	/* C, in the ORD half */
#define XIW_MPA_V2_RTR_READ	0x4000	/* D, in the ORD half */
#define XIW_MPA_V2_DEPTH_MASK	0x3fff
#define XIW_MPA_V2_NO_NEGOTIATE	0x3fff

/**
 * struct xiw_mpa_v2_data - RFC 6581 enhanced connection data
 * @ird: A, B and IRD
 * @ord: C, D and ORD
 */
struct xiw_mpa_v2_data {
	__be16 ird;
	__be16 ord;
} __packed;

#endif /* XIW_IWARP_H */
