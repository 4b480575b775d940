// SPDX-License-Identifier: GPL-2.0
/*
 * Parser fuzzing of DDP and RDMAP (RFC 5041, RFC 5040) and of the RFC 6581
 * connection data: control octets, Terminate build and parse, IRD/ORD and
 * RTR negotiation, and the RTR preference lists that come from netlink and
 * the rtr module parameter. How the cases work, their oracles and how to
 * replay them: fuzz_kunit.h.
 */
#include <kunit/test.h>
#include <linux/ctype.h>
#include <linux/minmax.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "fuzz_kunit.h"
#include "mpa.h"
#include "policy.h"
#include "rdmap.h"

/* DDP and RDMAP control octets (RFC 5041 and RFC 5040) */

static void fuzz_rdmap_ctrl(struct kunit *test)
{
	const u8 largest = xiw_op_table[XIW_OP_ATOMIC_REQ].hdr_len;
	struct xiw_ddp_ctrl *c, plain;
	unsigned int v;

	c = kunit_kmalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	/* All 65536 pairs: every version, opcode, model and reserved bit. */
	for (v = 0; v <= 0xffff; v++) {
		bool tagged = v & XIW_DDP_TAGGED << 8;
		const struct xiw_op_info *op = &xiw_op_table[v &
							     XIW_RDMAP_OPCODE_MASK];
		bool ok = ((v >> 8) & XIW_DDP_VERSION_MASK) == XIW_DDP_VERSION &&
			  (v & 0xff) >> XIW_RDMAP_VERSION_SHIFT ==
			  XIW_RDMAP_VERSION && op->supported &&
			  op->tagged == tagged;
		int cause;

		c->ddp = v >> 8;
		c->rdmap = v;
		cause = xiw_check_ctrl(c);
		KUNIT_ASSERT_EQ_MSG(test, !cause, ok, "control %04x", v);
		/* The L bit and the reserved bits never change the verdict. */
		plain.ddp = c->ddp & ~(XIW_DDP_LAST | XIW_DDP_RSVD);
		plain.rdmap = c->rdmap & ~XIW_RDMAP_RSVD;
		KUNIT_ASSERT_EQ_MSG(test, xiw_check_ctrl(&plain), cause,
				    "control %04x", v);
		if (((v >> 8) & XIW_DDP_VERSION_MASK) != XIW_DDP_VERSION) {
			KUNIT_ASSERT_EQ(test, XIW_TERM_LAYER(cause),
					XIW_TERM_LAYER_DDP);
			KUNIT_ASSERT_EQ(test, XIW_TERM_ETYPE(cause),
					tagged ? XIW_DDP_ETYPE_TAGGED :
						 XIW_DDP_ETYPE_UNTAGGED);
		}
		if (!ok)
			continue;
		/* What passes has headers the receive engine can hold. */
		KUNIT_ASSERT_NOT_NULL(test, op->name);
		if (tagged)
			KUNIT_ASSERT_EQ(test, op->hdr_len,
					sizeof(struct xiw_tagged_hdr));
		else
			KUNIT_ASSERT_GE(test, op->hdr_len,
					sizeof(struct xiw_untagged_hdr));
		KUNIT_ASSERT_LE(test, op->hdr_len, largest);
		KUNIT_ASSERT_LE(test, op->qn, XIW_QN_ATOMIC_RESP);
		KUNIT_ASSERT_GE(test, op->fixed_payload, -1);
	}
}

/* Terminate (RFC 5040 section 4.8) */

/* Control field and DDP segment length, before the DDP header. */
#define TERM_FIXED	(sizeof(struct xiw_terminate_hdr) + 2)
#define TAGGED_LEN	sizeof(struct xiw_tagged_hdr)
#define UNTAGGED_LEN	sizeof(struct xiw_untagged_hdr)

static bool ddp_is_read_req(const u8 *ddp)
{
	return !(ddp[0] & XIW_DDP_TAGGED) &&
	       (ddp[1] & XIW_RDMAP_OPCODE_MASK) == XIW_OP_READ_REQ &&
	       get_unaligned_be32(ddp + offsetof(struct xiw_untagged_hdr, qn)) ==
	       XIW_QN_READ_REQ;
}

/*
 * The headerless Terminates RFC 6581 sends only in answer to an RTR, which
 * a stream that sent none reads as stock siw's (rdmap.c).
 */
static bool term_siw_headerless(int cause)
{
	return cause == XIW_TERM(XIW_TERM_LAYER_LLP, XIW_LLP_ETYPE_MPA,
				 XIW_MPA_ERR_IRD) ||
	       cause == XIW_TERM(XIW_TERM_LAYER_LLP, XIW_LLP_ETYPE_MPA,
				 XIW_MPA_ERR_RTR);
}

static size_t term_build(struct kunit *test, int cause,
			 const struct xiw_term_src *src, u8 **out)
{
	size_t len;

	*out = kunit_kmalloc(test, XIW_TERM_INFO_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *out);
	len = xiw_term_info_build(cause, src, *out);
	KUNIT_ASSERT_GE(test, len, sizeof(struct xiw_terminate_hdr));
	KUNIT_ASSERT_LE(test, len, XIW_TERM_INFO_MAX);
	return len;
}

/* Any octets: what xiw_term_info_parse() must make of them. */
static bool check_term_parse(struct kunit *test, const u8 *in, size_t len,
			     bool rtr_sent)
{
	u8 *buf = exact(test, in, len), *y1, *y1x, *y2;
	struct xiw_term_src src, src2;
	int cause, cause2, ret;
	size_t l1, l2;

	memset(&src, 0xa5, sizeof(src));
	ret = xiw_term_info_parse(buf, len, rtr_sent, &cause, &src);
	if (len < sizeof(struct xiw_terminate_hdr)) {
		KUNIT_ASSERT_EQ(test, ret, -EINVAL);
		KUNIT_ASSERT_NULL(test, src.ddp_hdr);
		KUNIT_ASSERT_NULL(test, src.rdma_hdr);
		kunit_kfree(test, buf);
		return false;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* A cause XIW_TERM() could have made. */
	KUNIT_ASSERT_EQ(test, cause & ~XIW_TERM(0xf, 0xf, 0xff), 0);
	KUNIT_ASSERT_NE(test, cause & XIW_TERM(0, 0, 0), 0);
	if (!src.ddp_hdr) {
		KUNIT_ASSERT_NULL(test, src.rdma_hdr);
		KUNIT_ASSERT_EQ(test, src.seg_len, 0);
		KUNIT_ASSERT_EQ(test, src.ddp_len, 0);
	} else {
		/* Headers where they must be, all inside the input. */
		KUNIT_ASSERT_PTR_EQ(test, src.ddp_hdr,
				    (const void *)(buf + TERM_FIXED));
		KUNIT_ASSERT_LE(test, TERM_FIXED + src.ddp_len, len);
		KUNIT_ASSERT_EQ(test, src.ddp_len,
				buf[TERM_FIXED] & XIW_DDP_TAGGED ? TAGGED_LEN :
								   UNTAGGED_LEN);
		KUNIT_ASSERT_EQ(test, src.seg_len,
				get_unaligned_be16(buf +
					sizeof(struct xiw_terminate_hdr)));
		if (src.rdma_hdr) {
			KUNIT_ASSERT_PTR_EQ(test, (const void *)src.rdma_hdr,
					    (const void *)(buf + TERM_FIXED +
							   UNTAGGED_LEN));
			KUNIT_ASSERT_LE(test, TERM_FIXED + UNTAGGED_LEN +
					sizeof(struct xiw_read_req), len);
			KUNIT_ASSERT_TRUE(test, ddp_is_read_req(src.ddp_hdr));
		}
	}

	/*
	 * What it read, built again, reads the same: the build is a fixed
	 * point of parse and build. Only the headerless MPA errors of
	 * RFC 6581 move, once, to siw's reading on a stream without RTR.
	 */
	l1 = term_build(test, cause, &src, &y1);
	y1x = exact(test, y1, l1);
	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(y1x, l1, rtr_sent, &cause2,
						  &src2), 0);
	l2 = term_build(test, cause2, &src2, &y2);
	if (l1 == sizeof(struct xiw_terminate_hdr) && !rtr_sent &&
	    term_siw_headerless(cause)) {
		KUNIT_ASSERT_EQ(test, cause2,
				XIW_TERM(XIW_TERM_LAYER_RDMAP,
					 XIW_RDMAP_ETYPE_OP,
					 XIW_TERM_CODE(cause)));
	} else {
		KUNIT_ASSERT_EQ(test, cause2, cause);
		KUNIT_ASSERT_EQ(test, l2, l1);
		KUNIT_ASSERT_MEMEQ(test, y2, y1, l1);
	}
	kunit_kfree(test, y2);
	kunit_kfree(test, y1x);
	kunit_kfree(test, y1);
	kunit_kfree(test, buf);
	return !!src.ddp_hdr;
}

static int rnd_cause(struct rnd_state *r)
{
	static const u8 layers[] = {
		XIW_TERM_LAYER_RDMAP, XIW_TERM_LAYER_DDP, XIW_TERM_LAYER_LLP,
	};
	u8 layer = one_in(r, 8) ? below(r, 16) :
				  layers[below(r, ARRAY_SIZE(layers))];
	u8 etype = one_in(r, 4) ? below(r, 16) : below(r, 3);
	u8 code = one_in(r, 2) ? below(r, 10) : rnd32(r);

	return XIW_TERM(layer, etype, code);
}

/* A Terminate built from random parts parses back into them. */
static void check_term_round_trip(struct kunit *test, struct rnd_state *r,
				  u8 *wire, size_t *wire_len)
{
	u8 ddp[UNTAGGED_LEN], rr[sizeof(struct xiw_read_req)], *y, *yx;
	struct xiw_term_src src = {}, got;
	int cause = rnd_cause(r), got_cause;
	unsigned int layer = XIW_TERM_LAYER(cause);
	unsigned int etype = XIW_TERM_ETYPE(cause);
	bool headers, rdma, tagged, rtr_sent = one_in(r, 2);
	size_t len, want;

	rnd_fill(r, ddp, sizeof(ddp));
	rnd_fill(r, rr, sizeof(rr));
	tagged = one_in(r, 3);
	if (tagged) {
		ddp[0] |= XIW_DDP_TAGGED;
	} else {
		ddp[0] &= ~XIW_DDP_TAGGED;
		if (one_in(r, 2)) {	/* an RDMA Read Request */
			ddp[1] = (ddp[1] & ~XIW_RDMAP_OPCODE_MASK) |
				 XIW_OP_READ_REQ;
			put_unaligned_be32(XIW_QN_READ_REQ, ddp +
					   offsetof(struct xiw_untagged_hdr,
						    qn));
		}
	}
	src.seg_len = rnd32(r);
	src.ddp_hdr = one_in(r, 8) ? NULL : ddp;
	src.ddp_len = tagged ? TAGGED_LEN : UNTAGGED_LEN;
	src.rdma_hdr = one_in(r, 2) ? (const void *)rr : NULL;

	/* RFC 5040 figure 10: what a Terminate of this cause includes. */
	headers = src.ddp_hdr && (layer == XIW_TERM_LAYER_DDP ||
				  (layer == XIW_TERM_LAYER_RDMAP &&
				   etype != XIW_RDMAP_ETYPE_CATASTROPHIC));
	rdma = headers && src.rdma_hdr && layer == XIW_TERM_LAYER_RDMAP &&
	       etype == XIW_RDMAP_ETYPE_PROT;
	want = sizeof(struct xiw_terminate_hdr);
	if (headers)
		want += 2 + src.ddp_len;
	if (rdma)
		want += sizeof(rr);

	len = term_build(test, cause, &src, &y);
	KUNIT_ASSERT_EQ(test, len, want);
	yx = exact(test, y, len);
	KUNIT_ASSERT_EQ(test, xiw_term_info_parse(yx, len, rtr_sent,
						  &got_cause, &got), 0);
	if (!headers && !rtr_sent && term_siw_headerless(cause))
		KUNIT_ASSERT_EQ(test, got_cause,
				XIW_TERM(XIW_TERM_LAYER_RDMAP,
					 XIW_RDMAP_ETYPE_OP,
					 XIW_TERM_CODE(cause)));
	else
		KUNIT_ASSERT_EQ(test, got_cause, cause);
	if (!headers || (rdma && !ddp_is_read_req(ddp))) {
		/* An R header after anything but a Read Request: none. */
		KUNIT_ASSERT_NULL(test, got.ddp_hdr);
		KUNIT_ASSERT_NULL(test, got.rdma_hdr);
	} else {
		KUNIT_ASSERT_EQ(test, got.seg_len, src.seg_len);
		KUNIT_ASSERT_EQ(test, got.ddp_len, src.ddp_len);
		KUNIT_ASSERT_MEMEQ(test, got.ddp_hdr, ddp, src.ddp_len);
		if (rdma) {
			KUNIT_ASSERT_NOT_NULL(test, got.rdma_hdr);
			KUNIT_ASSERT_MEMEQ(test, got.rdma_hdr, rr, sizeof(rr));
		} else {
			KUNIT_ASSERT_NULL(test, got.rdma_hdr);
		}
	}
	memcpy(wire, y, len);
	*wire_len = len;
	kunit_kfree(test, yx);
	kunit_kfree(test, y);
}

static void fuzz_rdmap_terminate(struct kunit *test)
{
	u8 in[XIW_TERM_INFO_MAX + 1], valid[XIW_TERM_INFO_MAX];
	unsigned int v, bit, rtr, i, yes = 0;
	size_t len, valid_len;
	struct rnd_state r;

	xiw_fuzz_start(test, &r);
	/* The control field carries every cause, and nothing reserved. */
	for (v = 0; v <= 0xffff; v++) {
		int cause = XIW_TERM(v >> 12, (v >> 8) & 0xf, v & 0xff);
		u32 mdr = XIW_TERM_FLAG_M | XIW_TERM_FLAG_D | XIW_TERM_FLAG_R;
		u32 flags = rnd32(&r), ctrl = xiw_term_ctrl(cause, flags);

		KUNIT_ASSERT_EQ(test, xiw_term_cause(ctrl), cause);
		KUNIT_ASSERT_EQ(test, ctrl & ~mdr & 0xffff, 0U);
		KUNIT_ASSERT_EQ(test, ctrl & mdr, flags & mdr);
	}

	/*
	 * Every length to one past the largest: all zeros, all ones, each
	 * single bit set, and a full Terminate cut there.
	 */
	for (rtr = 0; rtr < 2; rtr++) {
		for (len = 0; len <= XIW_TERM_INFO_MAX + 1; len++) {
			memset(in, 0, sizeof(in));
			check_term_parse(test, in, len, rtr);
			memset(in, 0xff, sizeof(in));
			check_term_parse(test, in, len, rtr);
			for (bit = 0; bit < 8 * len; bit++) {
				memset(in, 0, sizeof(in));
				in[bit / 8] = 1 << (bit % 8);
				check_term_parse(test, in, len, rtr);
			}
		}
	}
	for (i = 0; i < 200; i++) {
		check_term_round_trip(test, &r, valid, &valid_len);
		for (len = 0; len <= valid_len; len++)
			check_term_parse(test, valid, len, one_in(&r, 2));
	}

	/* Random Terminates, then damaged or cut. */
	for (i = 0; i < xiw_fuzz_iters; i++) {
		check_term_round_trip(test, &r, valid, &valid_len);
		memcpy(in, valid, valid_len);
		len = valid_len;
		switch (below(&r, 4)) {
		case 0:
			len = below(&r, valid_len + 1);
			break;
		case 1:
			rnd_fill(&r, in, sizeof(in));
			len = below(&r, sizeof(in) + 1);
			break;
		default:
			mutate(&r, in, len);
			break;
		}
		yes += check_term_parse(test, in, len, one_in(&r, 2));
	}
	fuzz_mix(test, "Terminate naming a message", yes, xiw_fuzz_iters);
}

/* RFC 6581 enhanced connection data and negotiation */

static void check_mpa_v2_decode(struct kunit *test, struct xiw_mpa_v2_data *d)
{
	struct xiw_mpa_v2_data again;
	struct xiw_mpa_v2 v;

	xiw_mpa_v2_decode(d, &v);
	KUNIT_ASSERT_LE(test, v.ird, XIW_MPA_V2_DEPTH_MASK);
	KUNIT_ASSERT_LE(test, v.ord, XIW_MPA_V2_DEPTH_MASK);
	KUNIT_ASSERT_EQ(test, v.rtr & ~(XIW_RTR_SEND | XIW_RTR_WRITE |
					XIW_RTR_READ), 0);
	/* Every bit is a field: the four octets come back unchanged. */
	xiw_mpa_v2_encode(&v, &again);
	KUNIT_ASSERT_MEMEQ(test, &again, d, sizeof(again));
}

static void fuzz_rdmap_mpa_v2(struct kunit *test)
{
	static const u16 depth[] = { 0, 1, 2, 0x3ffe, 0x3fff, 0x4000, 0x7fff,
				     0x8000, 0xfffe, 0xffff };
	struct xiw_mpa_v2_data *d;
	struct xiw_mpa_v2 v, out, req, rep;
	unsigned int x, i, n;
	struct rnd_state r;
	u8 pref[3], *p;

	xiw_fuzz_start(test, &r);
	d = kunit_kmalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	/* Every value of each half, the other one random. */
	for (x = 0; x <= 0xffff; x++) {
		d->ird = cpu_to_be16(x);
		d->ord = cpu_to_be16(rnd32(&r));
		check_mpa_v2_decode(test, d);
		d->ird = cpu_to_be16(rnd32(&r));
		d->ord = cpu_to_be16(x);
		check_mpa_v2_decode(test, d);
	}

	for (i = 0; i < xiw_fuzz_iters; i++) {
		/* Encoding cuts depths to 14 bits and keeps the flags. */
		v.ird = one_in(&r, 2) ? depth[below(&r, ARRAY_SIZE(depth))] :
					rnd32(&r);
		v.ord = one_in(&r, 2) ? depth[below(&r, ARRAY_SIZE(depth))] :
					rnd32(&r);
		v.p2p = one_in(&r, 2);
		v.rtr = rnd32(&r);
		xiw_mpa_v2_encode(&v, d);
		xiw_mpa_v2_decode(d, &out);
		KUNIT_ASSERT_EQ(test, out.ird, min_t(u16, v.ird,
						     XIW_MPA_V2_DEPTH_MASK));
		KUNIT_ASSERT_EQ(test, out.ord, min_t(u16, v.ord,
						     XIW_MPA_V2_DEPTH_MASK));
		KUNIT_ASSERT_EQ(test, out.p2p, v.p2p);
		KUNIT_ASSERT_EQ(test, out.rtr, v.rtr & (XIW_RTR_SEND |
							XIW_RTR_WRITE |
							XIW_RTR_READ));

		/*
		 * The responder's depths for any request off the wire:
		 * its IRD below "no negotiation", its ORD within the
		 * initiator's IRD, 0x3fff echoed.
		 */
		d->ird = cpu_to_be16(one_in(&r, 4) ? XIW_MPA_V2_NO_NEGOTIATE :
					rnd32(&r));
		d->ord = cpu_to_be16(one_in(&r, 4) ? XIW_MPA_V2_NO_NEGOTIATE :
					rnd32(&r));
		xiw_mpa_v2_decode(d, &req);
		v.ird = depth[below(&r, ARRAY_SIZE(depth))];
		v.ord = one_in(&r, 2) ? depth[below(&r, ARRAY_SIZE(depth))] :
					rnd32(&r);
		xiw_mpa_v2_respond(&req, v.ird, v.ord, &rep);
		if (req.ord == XIW_MPA_V2_NO_NEGOTIATE) {
			KUNIT_ASSERT_EQ(test, rep.ird, XIW_MPA_V2_NO_NEGOTIATE);
		} else {
			KUNIT_ASSERT_LT(test, rep.ird, XIW_MPA_V2_NO_NEGOTIATE);
			KUNIT_ASSERT_LE(test, rep.ird, v.ird);
		}
		if (req.ird == XIW_MPA_V2_NO_NEGOTIATE) {
			KUNIT_ASSERT_EQ(test, rep.ord, XIW_MPA_V2_NO_NEGOTIATE);
		} else {
			KUNIT_ASSERT_LE(test, rep.ord, req.ird);
			KUNIT_ASSERT_LE(test, rep.ord, v.ord);
		}
	}

	/* RTR kinds: every offer against every preference list. */
	for (x = 0; x <= 0xffff; x++) {
		u8 req_kinds = x >> 8, sup = x, got = xiw_rtr_respond(x >> 8, x);

		KUNIT_ASSERT_EQ(test, got, req_kinds & sup ? req_kinds & sup :
							      sup);
		n = below(&r, ARRAY_SIZE(pref) + 1);
		for (i = 0; i < n; i++)
			pref[i] = one_in(&r, 4) ? rnd32(&r) : BIT(below(&r, 3));
		p = exact(test, pref, n);
		got = xiw_rtr_choose(x, p, n);
		kunit_kfree(test, p);
		for (i = 0; i < n && !(pref[i] & (u8)x); i++)
			;
		KUNIT_ASSERT_EQ(test, got, i < n ? pref[i] : 0);
	}
}

/* RTR preference lists: netlink's u32 and the rtr parameter's text */

static const char *const rtr_word[] = {
	[XIW_RTR_KIND_SEND] = "send",
	[XIW_RTR_KIND_WRITE] = "write",
	[XIW_RTR_KIND_READ] = "read",
};

/* enum xiw_netlink.h's list rules, octet by octet. */
static bool ref_rtr_list_valid(u32 list)
{
	u8 kind[4], seen = 0;
	unsigned int i, n;

	for (i = 0; i < 4; i++)
		kind[i] = list >> (8 * i);
	for (n = 0; n < 4 && kind[n]; n++)
		;
	if (!n || n > 3)
		return false;
	for (i = 0; i < 4; i++) {
		if (i >= n) {
			if (kind[i])
				return false;
			continue;
		}
		if (kind[i] > XIW_RTR_KIND_MAX || (seen & BIT(kind[i])))
			return false;
		seen |= BIT(kind[i]);
	}
	return true;
}

static bool check_rtr_list(struct kunit *test, u32 list)
{
	struct xiw_conn_config cfg = { .rtr = list }, now;
	struct xiw_conn_policy pol;
	bool valid = xiw_policy_rtr_list_valid(list);
	unsigned int i;

	KUNIT_ASSERT_EQ_MSG(test, valid, ref_rtr_list_valid(list), "0x%08x",
			    list);
	if (!valid)
		return false;
	/* What netlink lets through, a connection takes and reports. */
	xiw_policy_resolve(&cfg, &pol);
	KUNIT_ASSERT_GE(test, pol.n_rtr, 1);
	KUNIT_ASSERT_LE(test, pol.n_rtr, 3);
	for (i = 0; i < pol.n_rtr; i++)
		KUNIT_ASSERT_TRUE(test, pol.rtr[i] == XIW_RTR_SEND ||
				  pol.rtr[i] == XIW_RTR_WRITE ||
				  pol.rtr[i] == XIW_RTR_READ);
	xiw_policy_settings(&pol, &now);
	KUNIT_ASSERT_EQ(test, now.rtr, list);
	return true;
}

/*
 * The rtr parameter's grammar written out: one to three distinct kinds
 * joined by commas, white space (isspace()) around the whole, in fewer
 * than 32 characters.
 */
static int ref_rtr_parse(const char *s, u32 *list)
{
	const char *end = s + strlen(s), *comma;
	unsigned int n = 0, k;
	u32 l = 0;
	u8 seen = 0;

	if (end - s >= 32)
		return -EINVAL;
	while (s < end && isspace(*s))
		s++;
	while (end > s && isspace(end[-1]))
		end--;
	for (;;) {
		comma = memchr(s, ',', end - s);
		if (!comma)
			comma = end;
		for (k = XIW_RTR_KIND_SEND; k <= XIW_RTR_KIND_MAX; k++)
			if (comma - s == strlen(rtr_word[k]) &&
			    !memcmp(s, rtr_word[k], comma - s))
				break;
		if (k > XIW_RTR_KIND_MAX || n == 3 || (seen & BIT(k)))
			return -EINVAL;
		seen |= BIT(k);
		l |= k << (8 * n++);
		if (comma == end)
			break;
		s = comma + 1;
	}
	*list = l;
	return 0;
}

static bool check_rtr_parse(struct kunit *test, const char *text)
{
	char *s = exact(test, text, strlen(text) + 1);
	u32 list = 0xa5a5a5a5, want = 0xa5a5a5a5;
	int ret = xiw_policy_rtr_parse(s, &list);

	kunit_kfree(test, s);
	KUNIT_ASSERT_EQ_MSG(test, ret, ref_rtr_parse(text, &want), "'%s'",
			    text);
	/* Refusals leave the list alone. */
	KUNIT_ASSERT_EQ_MSG(test, list, want, "'%s'", text);
	if (!ret)
		KUNIT_ASSERT_TRUE(test, xiw_policy_rtr_list_valid(list));
	return !ret;
}

static void fuzz_policy_rtr(struct kunit *test)
{
	static const u8 octet[] = { 0, 1, 2, 3, 4, 0x80, 0xff };
	static const char *const piece[] = {
		"send", "write", "read", "none", "", ",", ",,", " ", "\t",
		"\n", "\xa0", "Send", "sendx", "rea", "writes", "send,read",
	};
	const unsigned int o = ARRAY_SIZE(octet);
	unsigned int i, n, len, used, yes = 0;
	struct rnd_state r;
	char text[40];

	xiw_fuzz_start(test, &r);
	/* Every list of limit octets, then random ones. */
	for (i = 0; i < o * o * o * o; i++)
		check_rtr_list(test, octet[i % o] | octet[i / o % o] << 8 |
			       octet[i / o / o % o] << 16 |
			       (u32)octet[i / o / o / o] << 24);
	for (i = 0; i < xiw_fuzz_iters; i++)
		yes += check_rtr_list(test, one_in(&r, 2) ? rnd32(&r) :
				      (below(&r, 5) | below(&r, 5) << 8 |
				       below(&r, 5) << 16 | below(&r, 2) << 24));
	fuzz_mix(test, "RTR list", yes, xiw_fuzz_iters);

	yes = 0;
	/* Around the 31 characters the parameter holds. */
	for (len = 0; len < sizeof(text); len++) {
		memset(text, ' ', len);
		text[len] = 0;
		if (len >= 4)
			memcpy(text + len / 2 - 2, "read", 4);
		check_rtr_parse(test, text);
	}
	/* Random sentences of words, separators, spaces and anything. */
	for (i = 0; i < xiw_fuzz_iters / 4; i++) {
		used = 0;
		for (n = below(&r, 7); n; n--) {
			const char *p = piece[below(&r, ARRAY_SIZE(piece))];
			char any[2] = { 1 + below(&r, 255), 0 };

			if (one_in(&r, 8))
				p = any;
			if (used + strlen(p) >= sizeof(text))
				break;
			memcpy(text + used, p, strlen(p));
			used += strlen(p);
		}
		text[used] = 0;
		yes += check_rtr_parse(test, text);
	}
	fuzz_mix(test, "rtr text", yes, xiw_fuzz_iters / 4);
}

static struct kunit_case xiw_rdmap_fuzz_cases[] = {
	KUNIT_CASE(fuzz_rdmap_ctrl),
	KUNIT_CASE(fuzz_rdmap_terminate),
	KUNIT_CASE(fuzz_rdmap_mpa_v2),
	KUNIT_CASE(fuzz_policy_rtr),
	{}
};

static struct kunit_suite xiw_rdmap_fuzz_suite = {
	.name = "xiw_rdmap_fuzz",
	.suite_init = xiw_fuzz_suite_init,
	.test_cases = xiw_rdmap_fuzz_cases,
};

kunit_test_suite(xiw_rdmap_fuzz_suite);
