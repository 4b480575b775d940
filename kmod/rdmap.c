// SPDX-License-Identifier: GPL-2.0
/*
 * RDMAP/DDP message rules (RFC 5040, RFC 5041, RFC 6581).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <xiw/compat.h>

#include "atomic.h"
#include "commit.h"
#include "rdmap.h"

#define TAGGED_LEN	sizeof(struct xiw_tagged_hdr)
#define UNTAGGED_LEN	sizeof(struct xiw_untagged_hdr)

/* Indexed by opcode; entries left zero are reserved values. */
const struct xiw_op_info xiw_op_table[XIW_OP_COUNT] = {
	[XIW_OP_WRITE] = {
		.name = "write", .hdr_len = TAGGED_LEN, .tagged = true,
		.fixed_payload = -1, .supported = true,
	},
	[XIW_OP_READ_REQ] = {
		.name = "read_req",
		.hdr_len = UNTAGGED_LEN + sizeof(struct xiw_read_req),
		.qn = XIW_QN_READ_REQ, .fixed_payload = 0, .supported = true,
	},
	[XIW_OP_READ_RESP] = {
		.name = "read_resp", .hdr_len = TAGGED_LEN, .tagged = true,
		.fixed_payload = -1, .supported = true,
	},
	[XIW_OP_SEND] = {
		.name = "send", .hdr_len = UNTAGGED_LEN, .qn = XIW_QN_SEND,
		.fixed_payload = -1, .supported = true,
	},
	[XIW_OP_SEND_INV] = {
		.name = "send_inv", .hdr_len = UNTAGGED_LEN,
		.qn = XIW_QN_SEND, .fixed_payload = -1, .supported = true,
	},
	[XIW_OP_SEND_SE] = {
		.name = "send_se", .hdr_len = UNTAGGED_LEN, .qn = XIW_QN_SEND,
		.fixed_payload = -1, .supported = true,
	},
	[XIW_OP_SEND_SE_INV] = {
		.name = "send_se_inv", .hdr_len = UNTAGGED_LEN,
		.qn = XIW_QN_SEND, .fixed_payload = -1, .supported = true,
	},
	[XIW_OP_TERMINATE] = {
		.name = "terminate",
		.hdr_len = UNTAGGED_LEN + sizeof(struct xiw_terminate_hdr),
		.qn = XIW_QN_TERMINATE, .fixed_payload = -1, .supported = true,
	},
	[XIW_OP_IMM] = {
		.name = "imm", .hdr_len = UNTAGGED_LEN, .qn = XIW_QN_SEND,
		.fixed_payload = XIW_IMM_LEN, .supported = true,
	},
	[XIW_OP_IMM_SE] = {
		.name = "imm_se", .hdr_len = UNTAGGED_LEN, .qn = XIW_QN_SEND,
		.fixed_payload = XIW_IMM_LEN, .supported = true,
	},
	[XIW_OP_ATOMIC_REQ] = {
		.name = "atomic_req",
		.hdr_len = UNTAGGED_LEN + sizeof(struct xiw_atomic_req),
		.qn = XIW_QN_READ_REQ, .fixed_payload = 0, .supported = true,
	},
	[XIW_OP_ATOMIC_RESP] = {
		.name = "atomic_resp",
		.hdr_len = UNTAGGED_LEN + sizeof(struct xiw_atomic_resp),
		.qn = XIW_QN_ATOMIC_RESP, .fixed_payload = 0, .supported = true,
	},
	/* The commit draft's operations. */
	[XIW_OP_FLUSH_REQ] = {
		.name = "flush_req",
		.hdr_len = UNTAGGED_LEN + sizeof(struct xiw_flush_req),
		.qn = XIW_QN_READ_REQ, .fixed_payload = 0, .supported = true,
	},
	[XIW_OP_FLUSH_RESP] = {
		.name = "flush_resp", .hdr_len = UNTAGGED_LEN,
		.qn = XIW_QN_ATOMIC_RESP, .fixed_payload = 0,
		.supported = true,
	},
	[XIW_OP_VERIFY_REQ] = {
		.name = "verify_req",
		.hdr_len = UNTAGGED_LEN + sizeof(struct xiw_verify_req),
		.qn = XIW_QN_READ_REQ, .fixed_payload = -1, .supported = true,
	},
	[XIW_OP_VERIFY_RESP] = {
		.name = "verify_resp", .hdr_len = UNTAGGED_LEN,
		.qn = XIW_QN_ATOMIC_RESP, .fixed_payload = -1,
		.supported = true,
	},
	[XIW_OP_ATOMIC_WRITE_REQ] = {
		.name = "atomic_write_req",
		.hdr_len = UNTAGGED_LEN + sizeof(struct xiw_atomic_write_req),
		.qn = XIW_QN_READ_REQ, .fixed_payload = 0,
		.supported = true,
	},
	[XIW_OP_ATOMIC_WRITE_RESP] = {
		.name = "atomic_write_resp", .hdr_len = UNTAGGED_LEN,
		.qn = XIW_QN_ATOMIC_RESP, .fixed_payload = 0,
		.supported = true,
	},
};

/**
 * xiw_check_ctrl() - validate the control octets of a received segment
 * @ctrl: the first two octets of the DDP segment
 *
 * DDP's version is checked first (its error belongs to DDP, tagged or
 * untagged as the T bit says), then RDMAP's version, then that the opcode
 * is one xiw implements and uses the DDP model the opcode requires.
 *
 * Return: 0, or the Terminate cause.
 */
int xiw_check_ctrl(const struct xiw_ddp_ctrl *ctrl)
{
	bool tagged = ctrl->ddp & XIW_DDP_TAGGED;
	const struct xiw_op_info *op;

	if ((ctrl->ddp & XIW_DDP_VERSION_MASK) != XIW_DDP_VERSION)
		return tagged ?
			XIW_TERM(XIW_TERM_LAYER_DDP, XIW_DDP_ETYPE_TAGGED,
				 XIW_DDP_T_INV_VERSION) :
			XIW_TERM(XIW_TERM_LAYER_DDP, XIW_DDP_ETYPE_UNTAGGED,
				 XIW_DDP_U_INV_VERSION);
	if (ctrl->rdmap >> XIW_RDMAP_VERSION_SHIFT != XIW_RDMAP_VERSION)
		return XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_OP,
				XIW_RDMAP_INV_VERSION);

	op = &xiw_op_table[ctrl->rdmap & XIW_RDMAP_OPCODE_MASK];
	if (!op->supported || op->tagged != tagged)
		return XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_OP,
				XIW_RDMAP_UNEXP_OPCODE);
	return 0;
}

/**
 * xiw_term_ctrl() - the Terminate control field for a cause
 * @cause: value made by XIW_TERM()
 * @flags: XIW_TERM_FLAG_M/D/R
 *
 * Return: the 32-bit field in host order; reserved bits are zero.
 */
u32 xiw_term_ctrl(int cause, u32 flags)
{
	return (u32)XIW_TERM_LAYER(cause) << XIW_TERM_LAYER_SHIFT |
	       (u32)XIW_TERM_ETYPE(cause) << XIW_TERM_ETYPE_SHIFT |
	       (u32)XIW_TERM_CODE(cause) << XIW_TERM_CODE_SHIFT |
	       (flags & (XIW_TERM_FLAG_M | XIW_TERM_FLAG_D | XIW_TERM_FLAG_R));
}

/**
 * xiw_term_info_build() - encode a Terminate header with what RFC 5040
 *	figure 10 says it includes
 * @cause: value made by XIW_TERM()
 * @src: the offending received segment, or NULL for a local error
 * @out: %XIW_TERM_INFO_MAX octets
 *
 * LLP (MPA) errors and local catastrophic errors carry nothing but the
 * control field. DDP errors and RDMAP remote operation errors carry the
 * segment length (M) and DDP header (D) when the header is known; RDMAP
 * remote protection errors add the RDMAP header (R) of a Read Request.
 *
 * Return: octets written to @out.
 */
size_t xiw_term_info_build(int cause, const struct xiw_term_src *src, u8 *out)
{
	unsigned int layer = XIW_TERM_LAYER(cause);
	unsigned int etype = XIW_TERM_ETYPE(cause);
	size_t len = sizeof(struct xiw_terminate_hdr);
	bool headers = src && src->ddp_hdr &&
		       (layer == XIW_TERM_LAYER_DDP ||
			(layer == XIW_TERM_LAYER_RDMAP &&
			 etype != XIW_RDMAP_ETYPE_CATASTROPHIC));
	bool rdma = headers && src->rdma_hdr && layer == XIW_TERM_LAYER_RDMAP &&
		    etype == XIW_RDMAP_ETYPE_PROT;
	u32 flags = 0;

	if (headers) {
		flags |= XIW_TERM_FLAG_M | XIW_TERM_FLAG_D;
		put_unaligned_be16(src->seg_len, out + len);
		len += 2;
		memcpy(out + len, src->ddp_hdr, src->ddp_len);
		len += src->ddp_len;
	}
	if (rdma) {
		flags |= XIW_TERM_FLAG_R;
		memcpy(out + len, src->rdma_hdr, sizeof(*src->rdma_hdr));
		len += sizeof(*src->rdma_hdr);
	}
	put_unaligned_be32(xiw_term_ctrl(cause, flags), out);
	return len;
}

/**
 * xiw_term_cause() - the cause carried by a received Terminate control field
 * @ctrl: the field in host order
 *
 * Return: value comparable with XIW_TERM().
 */
int xiw_term_cause(u32 ctrl)
{
	return XIW_TERM(ctrl >> XIW_TERM_LAYER_SHIFT & 0xf,
			ctrl >> XIW_TERM_ETYPE_SHIFT & 0xf,
			ctrl >> XIW_TERM_CODE_SHIFT & 0xff);
}

/*
 * Stock Linux siw declares the control field as bitfields in the order of
 * a little-endian host, so on x86 it sends layer and error type in
 * swapped nibbles and M, D, R in bits 8, 9, 10 (RFC 5040: reserved, and
 * zero). Such a field with headers included has RFC bits 15..13 clear and
 * some of bits 10..8 set: read it as siw meant it.
 *
 * Without headers the bits alone cannot tell the layouts apart, but the
 * stream can: siw's RDMAP Remote Operation Errors 0x06 (unexpected
 * opcode) and 0x07 (catastrophic, this stream) read in the RFC's layout
 * as the MPA errors 0x06 (insufficient IRD) and 0x07 (no matching RTR),
 * which RFC 6581 has a responder send only in answer to the initiator's
 * RTR. On a stream that sent no RTR (@rtr_sent false) they are siw's.
 * Anything else without headers is taken as the RFC says.
 */
static u32 xiw_term_ctrl_unswap(u32 ctrl, bool rtr_sent)
{
	u32 rfc_flags = XIW_TERM_FLAG_M | XIW_TERM_FLAG_D | XIW_TERM_FLAG_R;
	u32 flags = 0;
	int rfc = xiw_term_cause(ctrl);

	if (!(ctrl & 0xffff) && !rtr_sent &&
	    (rfc == XIW_TERM(XIW_TERM_LAYER_LLP, XIW_LLP_ETYPE_MPA,
			     XIW_MPA_ERR_IRD) ||
	     rfc == XIW_TERM(XIW_TERM_LAYER_LLP, XIW_LLP_ETYPE_MPA,
			     XIW_MPA_ERR_RTR)))
		return xiw_term_ctrl(XIW_TERM(XIW_TERM_LAYER_RDMAP,
					      XIW_RDMAP_ETYPE_OP,
					      XIW_TERM_CODE(rfc)), 0);
	if ((ctrl & 0xffff) & ~0x0700U || !(ctrl & 0x0700))
		return ctrl;
	if (ctrl & BIT(8))
		flags |= XIW_TERM_FLAG_M;
	if (ctrl & BIT(9))
		flags |= XIW_TERM_FLAG_D;
	if (ctrl & BIT(10))
		flags |= XIW_TERM_FLAG_R;
	return xiw_term_ctrl(XIW_TERM(ctrl >> 24 & 0xf, ctrl >> 28 & 0xf,
				      ctrl >> 16 & 0xff), flags & rfc_flags);
}

/**
 * xiw_term_info_parse() - decode a received Terminate header
 * @in: the control field and the octets after it, as xiw_term_info_build()
 *	lays them out
 * @len: octets available at @in (a Terminate may be cut short)
 * @rtr_sent: the stream's initiator sent an RFC 6581 RTR (this end is
 *	the initiator of a peer-to-peer stream): only then can an MPA error
 *	about the RTR be meant
 * @cause: output, comparable with XIW_TERM()
 * @src: output: the terminated segment's headers where the M, D and R bits
 *	say they follow and they are all there; pointers into @in
 *
 * The DDP header's own T bit gives its length; the DDP segment length
 * is not relied on (siw sends 0). An R bit whose DDP header
 * is not an untagged Read Request, or headers the length does not cover,
 * leave @src empty: the Terminate then names no message, which only makes
 * the local completion less specific.
 *
 * Return: 0, or -EINVAL if @len does not even hold the control field.
 */
int xiw_term_info_parse(const u8 *in, size_t len, bool rtr_sent, int *cause,
			struct xiw_term_src *src)
{
	u32 ctrl;
	size_t off = sizeof(struct xiw_terminate_hdr);
	const struct xiw_ddp_ctrl *dc;
	u8 ddp_len;

	memset(src, 0, sizeof(*src));
	if (len < off)
		return -EINVAL;
	ctrl = xiw_term_ctrl_unswap(get_unaligned_be32(in), rtr_sent);
	*cause = xiw_term_cause(ctrl);
	if (!(ctrl & XIW_TERM_FLAG_D) || !(ctrl & XIW_TERM_FLAG_M))
		return 0;
	if (len < off + 2 + sizeof(*dc))
		return 0;
	dc = (const struct xiw_ddp_ctrl *)(in + off + 2);
	ddp_len = dc->ddp & XIW_DDP_TAGGED ? sizeof(struct xiw_tagged_hdr) :
					     sizeof(struct xiw_untagged_hdr);
	if (len < off + 2 + ddp_len)
		return 0;
	if (ctrl & XIW_TERM_FLAG_R) {
		const struct xiw_untagged_hdr *u = (const void *)dc;

		if (len < off + 2 + ddp_len + sizeof(struct xiw_read_req) ||
		    (dc->ddp & XIW_DDP_TAGGED) ||
		    (dc->rdmap & XIW_RDMAP_OPCODE_MASK) != XIW_OP_READ_REQ ||
		    be32_to_cpu(u->qn) != XIW_QN_READ_REQ)
			return 0;
		src->rdma_hdr = (const void *)(in + off + 2 + ddp_len);
	}
	src->seg_len = get_unaligned_be16(in + off);
	src->ddp_hdr = dc;
	src->ddp_len = ddp_len;
	return 0;
}

/**
 * xiw_mpa_v2_encode() - RFC 6581 enhanced connection data for the wire
 * @v: values; IRD and ORD are cut to 14 bits
 * @d: output
 */
void xiw_mpa_v2_encode(const struct xiw_mpa_v2 *v, struct xiw_mpa_v2_data *d)
{
	u16 ird = min_t(u16, v->ird, XIW_MPA_V2_DEPTH_MASK);
	u16 ord = min_t(u16, v->ord, XIW_MPA_V2_DEPTH_MASK);

	if (v->p2p)
		ird |= XIW_MPA_V2_P2P;
	if (v->rtr & XIW_RTR_SEND)
		ird |= XIW_MPA_V2_RTR_SEND;
	if (v->rtr & XIW_RTR_WRITE)
		ord |= XIW_MPA_V2_RTR_WRITE;
	if (v->rtr & XIW_RTR_READ)
		ord |= XIW_MPA_V2_RTR_READ;
	d->ird = cpu_to_be16(ird);
	d->ord = cpu_to_be16(ord);
}

/**
 * xiw_mpa_v2_decode() - decode received RFC 6581 enhanced connection data
 * @d: the first four octets of the private data
 * @v: output
 */
void xiw_mpa_v2_decode(const struct xiw_mpa_v2_data *d, struct xiw_mpa_v2 *v)
{
	u16 ird = be16_to_cpu(d->ird);
	u16 ord = be16_to_cpu(d->ord);

	v->ird = ird & XIW_MPA_V2_DEPTH_MASK;
	v->ord = ord & XIW_MPA_V2_DEPTH_MASK;
	v->p2p = ird & XIW_MPA_V2_P2P;
	v->rtr = 0;
	if (ird & XIW_MPA_V2_RTR_SEND)
		v->rtr |= XIW_RTR_SEND;
	if (ord & XIW_MPA_V2_RTR_WRITE)
		v->rtr |= XIW_RTR_WRITE;
	if (ord & XIW_MPA_V2_RTR_READ)
		v->rtr |= XIW_RTR_READ;
}

/**
 * xiw_mpa_v2_respond() - the responder's IRD/ORD for an MPA Reply
 * @req: what the initiator sent
 * @ird_local: the inbound reads the responder will hold (its IRD)
 * @ord_local: the outbound reads the responder's ULP asked for
 * @rep: the reply values (p2p and rtr are left for the caller)
 *
 * RFC 6581 section 9.1: the responder reports its own IRD (the initiator
 * then keeps its ORD at most that), and its ORD never exceeds the
 * initiator's IRD. 0x3fff in the request means "not negotiated": the
 * corresponding reply field echoes 0x3fff and the local value stays.
 */
void xiw_mpa_v2_respond(const struct xiw_mpa_v2 *req, u16 ird_local,
			u16 ord_local, struct xiw_mpa_v2 *rep)
{
	if (req->ord == XIW_MPA_V2_NO_NEGOTIATE)
		rep->ird = XIW_MPA_V2_NO_NEGOTIATE;
	else
		rep->ird = min_t(u16, ird_local, XIW_MPA_V2_DEPTH_MASK - 1);

	if (req->ird == XIW_MPA_V2_NO_NEGOTIATE)
		rep->ord = XIW_MPA_V2_NO_NEGOTIATE;
	else
		rep->ord = min(ord_local, req->ird);
}

/**
 * xiw_rtr_respond() - the RTR kinds a responder's Reply offers
 * @requested: XIW_RTR_* the initiator's Request offered
 * @supported: XIW_RTR_* the responder supports
 *
 * RFC 6581 section 9.2: each requested kind the responder supports; if it
 * supports none of them, every kind it supports (the initiator then has no
 * match and terminates).
 *
 * Return: XIW_RTR_* bits for the Reply.
 */
u8 xiw_rtr_respond(u8 requested, u8 supported)
{
	return requested & supported ?: supported;
}

/**
 * xiw_rtr_choose() - the RTR kind an initiator sends
 * @offered: XIW_RTR_* in the responder's Reply
 * @pref: XIW_RTR_* kinds the initiator supports, most preferred first
 * @n: entries in @pref
 *
 * Return: the first kind of @pref the Reply offers, or 0 when none is
 * (the initiator must then send the "no matching RTR option" Terminate).
 */
u8 xiw_rtr_choose(u8 offered, const u8 *pref, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (pref[i] & offered)
			return pref[i];
	return 0;
}
