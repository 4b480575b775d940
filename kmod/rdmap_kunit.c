// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the RDMAP/DDP message rules and wire layouts.
 */
#include <kunit/test.h>
#include <linux/stddef.h>
#include <linux/unaligned.h>

#include "rdmap.h"

static void rdmap_header_layouts(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct xiw_tagged_hdr), 14);
	KUNIT_EXPECT_EQ(test, sizeof(struct xiw_untagged_hdr), 18);
	KUNIT_EXPECT_EQ(test, sizeof(struct xiw_read_req), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct xiw_untagged_hdr, qn), 6);
	KUNIT_EXPECT_EQ(test, offsetof(struct xiw_untagged_hdr, msn), 10);
	KUNIT_EXPECT_EQ(test, offsetof(struct xiw_untagged_hdr, mo), 14);
	KUNIT_EXPECT_EQ(test, offsetof(struct xiw_read_req, size), 12);
	KUNIT_EXPECT_EQ(test, xiw_op_table[XIW_OP_READ_REQ].hdr_len, 46);
	KUNIT_EXPECT_EQ(test, xiw_op_table[XIW_OP_WRITE].hdr_len, 14);
	KUNIT_EXPECT_EQ(test, xiw_op_table[XIW_OP_TERMINATE].hdr_len, 22);
	/* RFC 7306 figures 4 and 6 after the 18-octet untagged header. */
	KUNIT_EXPECT_EQ(test, xiw_op_table[XIW_OP_ATOMIC_REQ].hdr_len, 70);
	KUNIT_EXPECT_EQ(test, xiw_op_table[XIW_OP_ATOMIC_RESP].hdr_len, 30);
	/* The commit draft's requests; its responses carry no header. */
	KUNIT_EXPECT_EQ(test, xiw_op_table[XIW_OP_FLUSH_REQ].hdr_len, 38);
	KUNIT_EXPECT_EQ(test, xiw_op_table[XIW_OP_VERIFY_REQ].hdr_len, 34);
	KUNIT_EXPECT_EQ(test, xiw_op_table[XIW_OP_ATOMIC_WRITE_REQ].hdr_len, 42);
	KUNIT_EXPECT_EQ(test, xiw_op_table[XIW_OP_FLUSH_RESP].hdr_len, 18);
	KUNIT_EXPECT_EQ(test, xiw_op_table[XIW_OP_ATOMIC_WRITE_RESP].qn, 3);
	KUNIT_EXPECT_EQ(test, xiw_op_table[XIW_OP_VERIFY_REQ].qn, 1);
	/* Every RFC 5040 and RFC 7306 opcode keeps its four-bit value. */
	KUNIT_EXPECT_EQ(test, XIW_OP_ATOMIC_RESP & ~0x0f, 0);
	KUNIT_EXPECT_EQ(test, XIW_OP_ATOMIC_WRITE_RESP, 0x11);
	KUNIT_EXPECT_EQ(test, XIW_RDMAP_OPCODE_MASK & XIW_RDMAP_RSVD, 0);
}

static struct xiw_ddp_ctrl ctrl(bool tagged, bool last, u8 dv, u8 rv, u8 op)
{
	struct xiw_ddp_ctrl c = {
		.ddp = (tagged ? XIW_DDP_TAGGED : 0) | (last ? XIW_DDP_LAST : 0) | dv,
		.rdmap = rv << XIW_RDMAP_VERSION_SHIFT | op,
	};
	return c;
}

static void rdmap_accepts_each_supported_opcode(struct kunit *test)
{
	static const struct { u8 op; bool tagged; } good[] = {
		{ XIW_OP_WRITE, true }, { XIW_OP_READ_REQ, false },
		{ XIW_OP_READ_RESP, true }, { XIW_OP_SEND, false },
		{ XIW_OP_SEND_SE, false }, { XIW_OP_TERMINATE, false },
		{ XIW_OP_ATOMIC_REQ, false }, { XIW_OP_ATOMIC_RESP, false },
		{ XIW_OP_IMM, false }, { XIW_OP_IMM_SE, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		struct xiw_ddp_ctrl c = ctrl(good[i].tagged, true, 1, 1,
					     good[i].op);

		KUNIT_EXPECT_EQ_MSG(test, xiw_check_ctrl(&c), 0, "op %u",
				    good[i].op);
	}
}

static void rdmap_rejects_bad_control(struct kunit *test)
{
	static const u8 served[] = {
		XIW_OP_FLUSH_REQ, XIW_OP_FLUSH_RESP,
		XIW_OP_VERIFY_REQ, XIW_OP_VERIFY_RESP,
		XIW_OP_ATOMIC_WRITE_REQ, XIW_OP_ATOMIC_WRITE_RESP,
	};
	struct xiw_ddp_ctrl c;
	size_t i;
	int op;

	c = ctrl(true, true, 2, 1, XIW_OP_WRITE);
	KUNIT_EXPECT_EQ(test, xiw_check_ctrl(&c),
			XIW_TERM(XIW_TERM_LAYER_DDP, XIW_DDP_ETYPE_TAGGED,
				 XIW_DDP_T_INV_VERSION));
	c = ctrl(false, true, 0, 1, XIW_OP_SEND);
	KUNIT_EXPECT_EQ(test, xiw_check_ctrl(&c),
			XIW_TERM(XIW_TERM_LAYER_DDP, XIW_DDP_ETYPE_UNTAGGED,
				 XIW_DDP_U_INV_VERSION));
	c = ctrl(false, true, 1, 2, XIW_OP_SEND);
	KUNIT_EXPECT_EQ(test, xiw_check_ctrl(&c),
			XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_OP,
				 XIW_RDMAP_INV_VERSION));
	/* A Send on the tagged model, a Write on the untagged one. */
	c = ctrl(true, true, 1, 1, XIW_OP_SEND);
	KUNIT_EXPECT_EQ(test, xiw_check_ctrl(&c),
			XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_OP,
				 XIW_RDMAP_UNEXP_OPCODE));
	c = ctrl(false, true, 1, 1, XIW_OP_WRITE);
	KUNIT_EXPECT_EQ(test, xiw_check_ctrl(&c),
			XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_OP,
				 XIW_RDMAP_UNEXP_OPCODE));
	/* Atomic messages are untagged. */
	c = ctrl(true, true, 1, 1, XIW_OP_ATOMIC_REQ);
	KUNIT_EXPECT_EQ(test, xiw_check_ctrl(&c),
			XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_OP,
				 XIW_RDMAP_UNEXP_OPCODE));
	/* The commit draft's messages xiw serves are untagged too. */
	for (i = 0; i < ARRAY_SIZE(served); i++) {
		c = ctrl(false, true, 1, 1, served[i]);
		KUNIT_EXPECT_EQ(test, xiw_check_ctrl(&c), 0);
		c = ctrl(true, true, 1, 1, served[i]);
		KUNIT_EXPECT_EQ(test, xiw_check_ctrl(&c),
				XIW_TERM(XIW_TERM_LAYER_RDMAP,
					 XIW_RDMAP_ETYPE_OP,
					 XIW_RDMAP_UNEXP_OPCODE));
	}
	/* The unassigned values of the five-bit field, either model. */
	for (op = XIW_OP_ATOMIC_WRITE_RESP + 1; op <= XIW_RDMAP_OPCODE_MASK;
	     op++) {
		c = ctrl(false, true, 1, 1, op);
		KUNIT_EXPECT_EQ(test, xiw_check_ctrl(&c),
				XIW_TERM(XIW_TERM_LAYER_RDMAP,
					 XIW_RDMAP_ETYPE_OP,
					 XIW_RDMAP_UNEXP_OPCODE));
		c = ctrl(true, true, 1, 1, op);
		KUNIT_EXPECT_NE(test, xiw_check_ctrl(&c), 0);
	}
}

static void rdmap_terminate_ctrl_round_trip(struct kunit *test)
{
	int cause = XIW_TERM(XIW_TERM_LAYER_DDP, XIW_DDP_ETYPE_UNTAGGED,
			     XIW_DDP_U_MSN_RANGE);
	u32 v = xiw_term_ctrl(cause, XIW_TERM_FLAG_M | XIW_TERM_FLAG_D);

	KUNIT_EXPECT_EQ(test, v, 0x1203c000U);
	KUNIT_EXPECT_EQ(test, xiw_term_cause(v), cause);
	/* Reserved bits never leak from the flags argument. */
	KUNIT_EXPECT_EQ(test, xiw_term_ctrl(cause, 0x1fff), 0x12030000U);
	v = xiw_term_ctrl(XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
				   XIW_RDMAP_ACCESS), XIW_TERM_FLAG_R);
	KUNIT_EXPECT_EQ(test, v, 0x01022000U);
	KUNIT_EXPECT_NE(test, XIW_TERM(0, 0, 0), 0);
}

static void rdmap_terminate_includes_per_figure_10(struct kunit *test)
{
	static const u8 ddp[sizeof(struct xiw_untagged_hdr)] = {
		0x41, 0x41, 1, 2, 3, 4, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 0,
	};
	struct xiw_read_req rr = { .size = cpu_to_be32(0x1000) };
	struct xiw_term_src src = {
		.seg_len = 46, .ddp_hdr = ddp, .ddp_len = sizeof(ddp),
		.rdma_hdr = &rr,
	};
	u8 out[XIW_TERM_INFO_MAX];
	size_t len;

	/* MPA errors: control field only, whatever is known. */
	len = xiw_term_info_build(XIW_TERM(XIW_TERM_LAYER_LLP, 0, 2), &src,
				  out);
	KUNIT_EXPECT_EQ(test, len, 4);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(out), 0x20020000U);

	/* DDP error: M, D, segment length and DDP header. */
	len = xiw_term_info_build(XIW_TERM(XIW_TERM_LAYER_DDP,
					   XIW_DDP_ETYPE_UNTAGGED, 1), &src,
				  out);
	KUNIT_EXPECT_EQ(test, len, 4 + 2 + sizeof(ddp));
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(out),
			0x12010000U | XIW_TERM_FLAG_M | XIW_TERM_FLAG_D);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(out + 4), 46);
	KUNIT_EXPECT_MEMEQ(test, out + 6, ddp, sizeof(ddp));

	/* Remote protection error on a Read Request: R and its header. */
	len = xiw_term_info_build(XIW_TERM(XIW_TERM_LAYER_RDMAP,
					   XIW_RDMAP_ETYPE_PROT,
					   XIW_RDMAP_INV_STAG), &src, out);
	KUNIT_EXPECT_EQ(test, len, 4 + 2 + sizeof(ddp) + sizeof(rr));
	KUNIT_EXPECT_TRUE(test, get_unaligned_be32(out) & XIW_TERM_FLAG_R);
	KUNIT_EXPECT_MEMEQ(test, out + 6 + sizeof(ddp), &rr, sizeof(rr));

	/* Remote operation error: headers, but never the RDMAP header. */
	len = xiw_term_info_build(XIW_TERM(XIW_TERM_LAYER_RDMAP,
					   XIW_RDMAP_ETYPE_OP,
					   XIW_RDMAP_UNEXP_OPCODE), &src, out);
	KUNIT_EXPECT_EQ(test, len, 4 + 2 + sizeof(ddp));
	KUNIT_EXPECT_FALSE(test, get_unaligned_be32(out) & XIW_TERM_FLAG_R);

	/* Local catastrophic error, or no header known: control only. */
	len = xiw_term_info_build(XIW_TERM(XIW_TERM_LAYER_RDMAP,
					   XIW_RDMAP_ETYPE_CATASTROPHIC, 0),
				  &src, out);
	KUNIT_EXPECT_EQ(test, len, 4);
	src.ddp_hdr = NULL;
	len = xiw_term_info_build(XIW_TERM(XIW_TERM_LAYER_DDP,
					   XIW_DDP_ETYPE_UNTAGGED, 1), &src,
				  out);
	KUNIT_EXPECT_EQ(test, len, 4);
	KUNIT_EXPECT_EQ(test, xiw_term_info_build(XIW_TERM(XIW_TERM_LAYER_DDP,
							   1, 0), NULL, out),
			4);
}

static void rdmap_terminate_parse_inverts_build(struct kunit *test)
{
	static const u8 ddp[sizeof(struct xiw_untagged_hdr)] = {
		0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0,
	};
	static const u8 tagged[sizeof(struct xiw_tagged_hdr)] = {
		0xc1, 0x40, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0x10, 0,
	};
	struct xiw_read_req rr = { .sink_stag = cpu_to_be32(0x1234),
				   .size = cpu_to_be32(0x1000) };
	struct xiw_term_src src = {
		.seg_len = 28, .ddp_hdr = ddp, .ddp_len = sizeof(ddp),
		.rdma_hdr = &rr,
	};
	int prot = XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
			    XIW_RDMAP_ACCESS);
	struct xiw_term_src got;
	u8 out[XIW_TERM_INFO_MAX];
	size_t len;
	int cause;

	/* Read Request refused: every header comes back. */
	len = xiw_term_info_build(prot, &src, out);
	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(out, len, false, &cause,
						  &got), 0);
	KUNIT_EXPECT_EQ(test, cause, prot);
	KUNIT_EXPECT_EQ(test, got.seg_len, 28);
	KUNIT_EXPECT_EQ(test, got.ddp_len, sizeof(ddp));
	KUNIT_EXPECT_PTR_EQ(test, got.ddp_hdr, (const void *)(out + 6));
	KUNIT_ASSERT_NOT_NULL(test, got.rdma_hdr);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(got.rdma_hdr->sink_stag), 0x1234);

	/* Cut anywhere inside the RDMAP header: DDP header only is not
	 * claimed either; the Terminate names no message.
	 */
	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(out, len - 1, false, &cause,
						  &got), 0);
	KUNIT_EXPECT_NULL(test, got.rdma_hdr);
	KUNIT_EXPECT_NULL(test, got.ddp_hdr);

	/* A tagged DDP header is 14 octets; R on it is inconsistent. */
	src.ddp_hdr = tagged;
	src.ddp_len = sizeof(tagged);
	len = xiw_term_info_build(XIW_TERM(XIW_TERM_LAYER_DDP,
					   XIW_DDP_ETYPE_TAGGED, 0), &src, out);
	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(out, len, false, &cause,
						  &got), 0);
	KUNIT_EXPECT_EQ(test, got.ddp_len, sizeof(tagged));
	KUNIT_EXPECT_NULL(test, got.rdma_hdr);
	put_unaligned_be32(get_unaligned_be32(out) | XIW_TERM_FLAG_R, out);
	memset(out + len, 0, sizeof(rr));
	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(out, len + sizeof(rr), false,
						  &cause, &got), 0);
	KUNIT_EXPECT_NULL(test, got.ddp_hdr);

	/* Control field only, and less than that. */
	len = xiw_term_info_build(XIW_TERM(XIW_TERM_LAYER_LLP, 0, 2), &src,
				  out);
	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(out, len, false, &cause,
						  &got), 0);
	KUNIT_EXPECT_EQ(test, cause, XIW_TERM(XIW_TERM_LAYER_LLP, 0, 2));
	KUNIT_EXPECT_NULL(test, got.ddp_hdr);
	KUNIT_EXPECT_EQ(test, xiw_term_info_parse(out, 3, false, &cause, &got),
			-EINVAL);
}

/* The Terminate stock siw sent for a Read with a wrong key (a capture). */
static void rdmap_terminate_parse_reads_siw_layout(struct kunit *test)
{
	static const u8 siw[] = {
		0x10, 0x00, 0x07, 0x00, 0x00, 0x00,
		0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0x10, 0, 0, 0, 0, 0,
		0, 0, 0x01, 0xaa, 0xff, 0x2b, 0x0a, 0x54, 0x02, 0xc6, 0x50, 0,
		0, 0, 0x10, 0, 0xac, 0xe5, 0xc0, 0xff,
		0xff, 0x2b, 0x0a, 0x54, 0x07, 0, 0, 0,
	};
	struct xiw_term_src got;
	int cause;

	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(siw, sizeof(siw), false,
						  &cause, &got), 0);
	KUNIT_EXPECT_EQ(test, cause, XIW_TERM(XIW_TERM_LAYER_RDMAP,
					      XIW_RDMAP_ETYPE_PROT,
					      XIW_RDMAP_INV_STAG));
	KUNIT_ASSERT_NOT_NULL(test, got.rdma_hdr);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(got.rdma_hdr->src_stag),
			0xace5c0ffU);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(got.rdma_hdr->size), 4096);

	/* The same error as the RFC lays it out reads the same. */
	KUNIT_EXPECT_EQ(test, xiw_term_cause(0x01000000U |
					     XIW_TERM_FLAG_M |
					     XIW_TERM_FLAG_D |
					     XIW_TERM_FLAG_R), cause);
}

/*
 * siw's Terminate for an opcode it does not know carries no headers: its
 * swapped nibbles read as the MPA error "insufficient IRD", which only
 * answers an RTR. Without one sent it is siw's unexpected opcode.
 */
static void rdmap_terminate_parse_reads_siw_headerless_by_rtr(struct kunit *test)
{
	static const u8 siw[] = { 0x20, 0x06, 0x00, 0x00 };
	static const u8 siw_catastrophic[] = { 0x20, 0x07, 0x00, 0x00 };
	static const u8 mpa_crc[] = { 0x20, 0x02, 0x00, 0x00 };
	struct xiw_term_src got;
	int cause;

	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(siw, sizeof(siw), false,
						  &cause, &got), 0);
	KUNIT_EXPECT_EQ(test, cause, XIW_TERM(XIW_TERM_LAYER_RDMAP,
					      XIW_RDMAP_ETYPE_OP,
					      XIW_RDMAP_UNEXP_OPCODE));
	KUNIT_EXPECT_NULL(test, got.ddp_hdr);
	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(siw_catastrophic,
						  sizeof(siw_catastrophic),
						  false, &cause, &got), 0);
	KUNIT_EXPECT_EQ(test, cause, XIW_TERM(XIW_TERM_LAYER_RDMAP,
					      XIW_RDMAP_ETYPE_OP, 0x07));

	/* After an RTR the same octets are the RFC 6581 MPA errors. */
	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(siw, sizeof(siw), true,
						  &cause, &got), 0);
	KUNIT_EXPECT_EQ(test, cause, XIW_TERM(XIW_TERM_LAYER_LLP,
					      XIW_LLP_ETYPE_MPA,
					      XIW_MPA_ERR_IRD));
	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(siw_catastrophic,
						  sizeof(siw_catastrophic),
						  true, &cause, &got), 0);
	KUNIT_EXPECT_EQ(test, cause, XIW_TERM(XIW_TERM_LAYER_LLP,
					      XIW_LLP_ETYPE_MPA,
					      XIW_MPA_ERR_RTR));

	/* Any other MPA error reads as the RFC says, RTR or not. */
	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(mpa_crc, sizeof(mpa_crc),
						  false, &cause, &got), 0);
	KUNIT_EXPECT_EQ(test, cause, XIW_TERM(XIW_TERM_LAYER_LLP,
					      XIW_LLP_ETYPE_MPA,
					      XIW_MPA_ERR_CRC));
}

static void rdmap_mpa_v2_round_trip(struct kunit *test)
{
	struct xiw_mpa_v2 in = { .ird = 16, .ord = 0x3ffe, .p2p = true,
				 .rtr = XIW_RTR_SEND | XIW_RTR_READ };
	struct xiw_mpa_v2_data d;
	struct xiw_mpa_v2 out;
	const u8 *b = (const u8 *)&d;

	xiw_mpa_v2_encode(&in, &d);
	KUNIT_EXPECT_EQ(test, b[0], 0xc0);	/* A, B, IRD high bits 0 */
	KUNIT_EXPECT_EQ(test, b[1], 16);
	KUNIT_EXPECT_EQ(test, b[2], 0x7f);	/* C=0, D=1, ORD 0x3ffe */
	KUNIT_EXPECT_EQ(test, b[3], 0xfe);
	xiw_mpa_v2_decode(&d, &out);
	KUNIT_EXPECT_EQ(test, out.ird, in.ird);
	KUNIT_EXPECT_EQ(test, out.ord, in.ord);
	KUNIT_EXPECT_EQ(test, out.p2p, in.p2p);
	KUNIT_EXPECT_EQ(test, out.rtr, in.rtr);

	/* Depths beyond 14 bits are cut, never spill into the flags. */
	in = (struct xiw_mpa_v2){ .ird = 0xffff, .ord = 0x4001 };
	xiw_mpa_v2_encode(&in, &d);
	xiw_mpa_v2_decode(&d, &out);
	KUNIT_EXPECT_EQ(test, out.ird, 0x3fff);
	KUNIT_EXPECT_EQ(test, out.ord, 0x3fff);
	KUNIT_EXPECT_FALSE(test, out.p2p);
	KUNIT_EXPECT_EQ(test, out.rtr, 0);
}

static void rdmap_mpa_v2_negotiation(struct kunit *test)
{
	static const struct {
		u16 req_ird, req_ord, ird_local, ord_local;
		u16 rep_ird, rep_ord;
	} m[] = {
		{ 8, 8, 16, 16, 16, 8 },	/* ORD capped by initiator IRD */
		{ 16, 4, 2, 2, 2, 2 },	/* small responder IRD reported */
		{ 0, 0, 1, 4, 1, 0 },	/* initiator takes no reads */
		{ 0x3fff, 4, 8, 8, 8, 0x3fff },	/* IRD not negotiated */
		{ 4, 0x3fff, 8, 8, 0x3fff, 4 },	/* ORD not negotiated */
		{ 4, 4, 0x3fff, 8, 0x3ffe, 4 },	/* local IRD stays below 0x3fff */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(m); i++) {
		struct xiw_mpa_v2 req = { .ird = m[i].req_ird,
					  .ord = m[i].req_ord };
		struct xiw_mpa_v2 rep = {};

		xiw_mpa_v2_respond(&req, m[i].ird_local, m[i].ord_local, &rep);
		KUNIT_EXPECT_EQ_MSG(test, rep.ird, m[i].rep_ird, "case %zu", i);
		KUNIT_EXPECT_EQ_MSG(test, rep.ord, m[i].rep_ord, "case %zu", i);
	}
}

static void rdmap_rtr_negotiation(struct kunit *test)
{
	static const u8 all[] = { XIW_RTR_WRITE, XIW_RTR_READ, XIW_RTR_SEND };
	static const u8 send_only[] = { XIW_RTR_SEND };
	const u8 any = XIW_RTR_SEND | XIW_RTR_WRITE | XIW_RTR_READ;

	/* The responder answers with what both support... */
	KUNIT_EXPECT_EQ(test, xiw_rtr_respond(XIW_RTR_READ | XIW_RTR_SEND, any),
			XIW_RTR_READ | XIW_RTR_SEND);
	KUNIT_EXPECT_EQ(test, xiw_rtr_respond(any, XIW_RTR_WRITE),
			XIW_RTR_WRITE);
	/* ...or, with nothing in common, all it supports. */
	KUNIT_EXPECT_EQ(test, xiw_rtr_respond(XIW_RTR_SEND,
					      XIW_RTR_WRITE | XIW_RTR_READ),
			XIW_RTR_WRITE | XIW_RTR_READ);
	KUNIT_EXPECT_EQ(test, xiw_rtr_respond(0, XIW_RTR_READ), XIW_RTR_READ);

	/* The initiator takes its most preferred kind the Reply offers. */
	KUNIT_EXPECT_EQ(test, xiw_rtr_choose(any, all, ARRAY_SIZE(all)),
			XIW_RTR_WRITE);
	KUNIT_EXPECT_EQ(test, xiw_rtr_choose(XIW_RTR_SEND | XIW_RTR_READ, all,
					     ARRAY_SIZE(all)), XIW_RTR_READ);
	KUNIT_EXPECT_EQ(test, xiw_rtr_choose(XIW_RTR_SEND, all,
					     ARRAY_SIZE(all)), XIW_RTR_SEND);
	/* No match: 0, and the initiator terminates. */
	KUNIT_EXPECT_EQ(test, xiw_rtr_choose(XIW_RTR_WRITE | XIW_RTR_READ,
					     send_only, ARRAY_SIZE(send_only)),
			0);
	KUNIT_EXPECT_EQ(test, xiw_rtr_choose(0, all, ARRAY_SIZE(all)), 0);
}

static struct kunit_case xiw_rdmap_cases[] = {
	KUNIT_CASE(rdmap_header_layouts),
	KUNIT_CASE(rdmap_accepts_each_supported_opcode),
	KUNIT_CASE(rdmap_rejects_bad_control),
	KUNIT_CASE(rdmap_terminate_ctrl_round_trip),
	KUNIT_CASE(rdmap_terminate_includes_per_figure_10),
	KUNIT_CASE(rdmap_terminate_parse_inverts_build),
	KUNIT_CASE(rdmap_terminate_parse_reads_siw_layout),
	KUNIT_CASE(rdmap_terminate_parse_reads_siw_headerless_by_rtr),
	KUNIT_CASE(rdmap_mpa_v2_round_trip),
	KUNIT_CASE(rdmap_mpa_v2_negotiation),
	KUNIT_CASE(rdmap_rtr_negotiation),
	{}
};

static struct kunit_suite xiw_rdmap_suite = {
	.name = "xiw_rdmap",
	.test_cases = xiw_rdmap_cases,
};

kunit_test_suite(xiw_rdmap_suite);
