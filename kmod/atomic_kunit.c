// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the RFC 7306 Atomic Operation headers and arithmetic.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/stddef.h>

#include "atomic.h"

/* RFC 7306 section 5.1.1's bit-serial pseudocode, transcribed. */
static u64 ref_fetch_add(u64 orig, u64 add, u64 mask)
{
	u64 bit_location = 1, result = 0;
	unsigned int bit, carry = 0;

	for (bit = 0; bit < 64; bit++) {
		unsigned int val1, val2, sum;

		if (bit)
			bit_location <<= 1;
		val1 = (orig & bit_location) >> bit;
		val2 = (add & bit_location) >> bit;
		sum = carry + val1 + val2;
		carry = (sum & 2) >> 1;
		sum &= 1;
		if (sum)
			result |= bit_location;
		carry = carry && !(mask & bit_location);
	}
	return result;
}

static void atomic_fetch_add_matches_rfc_pseudocode(struct kunit *test)
{
	static const u64 edge[] = {
		0, 1, 0x7f, 0x80, 0xff, 0x8000000000000000ULL,
		0x7fffffffffffffffULL, U64_MAX, 0x8080808080808080ULL,
		0x0101010101010101ULL, 0x00000000ffffffffULL,
	};
	struct rnd_state rnd;
	size_t a, b, m;
	int i;

	for (a = 0; a < ARRAY_SIZE(edge); a++)
		for (b = 0; b < ARRAY_SIZE(edge); b++)
			for (m = 0; m < ARRAY_SIZE(edge); m++)
				KUNIT_ASSERT_EQ(test,
						xiw_atomic_fetch_add(edge[a], edge[b], edge[m]),
						ref_fetch_add(edge[a], edge[b], edge[m]));
	prandom_seed_state(&rnd, 7306);
	for (i = 0; i < 20000; i++) {
		u64 o = prandom_u32_state(&rnd) |
			(u64)prandom_u32_state(&rnd) << 32;
		u64 d = prandom_u32_state(&rnd) |
			(u64)prandom_u32_state(&rnd) << 32;
		u64 k = prandom_u32_state(&rnd) &
			prandom_u32_state(&rnd);	/* sparse masks too */

		k |= (u64)(prandom_u32_state(&rnd) & prandom_u32_state(&rnd))
		     << 32;
		KUNIT_ASSERT_EQ(test, xiw_atomic_fetch_add(o, d, k),
				ref_fetch_add(o, d, k));
	}
}

static void atomic_fetch_add_fields(struct kunit *test)
{
	/* Mask 0: one 64-bit add, carry out of bit 63 lost. */
	KUNIT_EXPECT_EQ(test, xiw_atomic_fetch_add(U64_MAX, 2, 0), 1ULL);
	/* Eight byte fields: each wraps on its own. */
	KUNIT_EXPECT_EQ(test, xiw_atomic_fetch_add(0x00ff7f0100000000ULL,
						   0x0101010101010101ULL,
						   0x8080808080808080ULL),
			0x0100800201010101ULL);
	/* Two 32-bit counters in one word. */
	KUNIT_EXPECT_EQ(test, xiw_atomic_fetch_add(0x00000005ffffffffULL,
						   0x0000000100000001ULL,
						   0x8000000080000000ULL),
			0x0000000600000000ULL);
}

static void atomic_cmp_swap_swaps_on_masked_match(struct kunit *test)
{
	/* Plain: all ones masks. */
	KUNIT_EXPECT_EQ(test, xiw_atomic_cmp_swap(5, 5, U64_MAX, 9, U64_MAX),
			9ULL);
	KUNIT_EXPECT_EQ(test, xiw_atomic_cmp_swap(5, 6, U64_MAX, 9, U64_MAX),
			5ULL);
	/* Only masked compare bits matter... */
	KUNIT_EXPECT_EQ(test, xiw_atomic_cmp_swap(0xab, 0x0b, 0x0f, 0x00,
						  U64_MAX), 0ULL);
	KUNIT_EXPECT_EQ(test, xiw_atomic_cmp_swap(0xab, 0x0c, 0x0f, 0x00,
						  U64_MAX), 0xabULL);
	/* ...and only masked swap bits change. */
	KUNIT_EXPECT_EQ(test, xiw_atomic_cmp_swap(0x1234, 0, 0, 0xffff,
						  0x00f0), 0x12f4ULL);
	/* Compare mask 0 always matches. */
	KUNIT_EXPECT_EQ(test, xiw_atomic_cmp_swap(1, 2, 0, 3, U64_MAX), 3ULL);
}

static void atomic_header_layouts(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct xiw_atomic_req), 52);
	KUNIT_EXPECT_EQ(test, offsetof(struct xiw_atomic_req, stag), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct xiw_atomic_req, to), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct xiw_atomic_req, cmp_mask), 44);
	KUNIT_EXPECT_EQ(test, sizeof(struct xiw_atomic_resp), 12);
}

static void atomic_request_round_trip_and_wire(struct kunit *test)
{
	static const u8 wire[52] = {
		0, 0, 0, 2,  0, 0, 0, 7,  0xab, 0xcd, 0x01, 0x00,
		0, 0, 0, 0, 0, 0, 0x10, 0x08,
		0, 0, 0, 0, 0, 0, 0, 9,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0, 0, 0, 0, 0, 0, 0, 5,
		0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};
	struct xiw_atomic_op op = {
		.aop = XIW_AOP_CMP_SWAP, .req_id = 7, .stag = 0xabcd0100,
		.to = 0x1008, .data = 9, .mask = U64_MAX, .cmp = 5,
		.cmp_mask = 0xffffffff,
	}, back = {};
	struct xiw_atomic_req r;

	xiw_atomic_req_build(&op, &r);
	KUNIT_EXPECT_MEMEQ(test, &r, wire, sizeof(wire));
	KUNIT_ASSERT_EQ(test, xiw_atomic_req_parse(&r, &back), 0);
	KUNIT_EXPECT_MEMEQ(test, &back, &op, sizeof(op));

	/* FetchAdd sends Compare Data 0 and Compare Mask all ones. */
	op.aop = XIW_AOP_FETCH_ADD;
	xiw_atomic_req_build(&op, &r);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(r.cmp), 0ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(r.cmp_mask), U64_MAX);
}

static void atomic_request_checks(struct kunit *test)
{
	struct xiw_atomic_op op = { .aop = XIW_AOP_FETCH_ADD, .to = 8 };
	struct xiw_atomic_op out = { .req_id = 0x55 };
	struct xiw_atomic_req r;
	u32 aop;

	xiw_atomic_req_build(&op, &r);
	for (aop = 0; aop < 16; aop++) {
		r.aopcode = cpu_to_be32(aop);
		KUNIT_EXPECT_EQ(test, xiw_atomic_req_parse(&r, &out),
				aop == XIW_AOP_FETCH_ADD ||
				aop == XIW_AOP_CMP_SWAP ? 0 : -EOPNOTSUPP);
	}
	/* Reserved bits are ignored. */
	r.aopcode = cpu_to_be32(0xfffffff0 | XIW_AOP_CMP_SWAP);
	KUNIT_EXPECT_EQ(test, xiw_atomic_req_parse(&r, &out), 0);
	KUNIT_EXPECT_EQ(test, out.aop, XIW_AOP_CMP_SWAP);
	/* Every misalignment is refused, and the output left alone. */
	for (op.to = 1; op.to < 8; op.to++) {
		xiw_atomic_req_build(&op, &r);
		out.req_id = 0x55;
		KUNIT_EXPECT_EQ(test, xiw_atomic_req_parse(&r, &out), -EINVAL);
		KUNIT_EXPECT_EQ(test, out.req_id, 0x55U);
	}
}

static void atomic_response_round_trip_and_matching(struct kunit *test)
{
	static const u8 wire[] = {
		0xde, 0xad, 0xbe, 0xef,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	};
	struct xiw_atomic_resp r;
	u64 orig = 0x55;

	/* Figure 6: identifier, then the original value, big-endian. */
	xiw_atomic_resp_build(0xdeadbeef, 0x0123456789abcdefULL, &r);
	KUNIT_EXPECT_MEMEQ(test, &r, wire, sizeof(wire));
	KUNIT_EXPECT_EQ(test, xiw_atomic_resp_match(&r, 0xdeadbeef, &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 0x0123456789abcdefULL);
	/* Any other identifier: no match, and the value is left alone. */
	orig = 0x55;
	KUNIT_EXPECT_EQ(test, xiw_atomic_resp_match(&r, 0xdeadbeee, &orig),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, xiw_atomic_resp_match(&r, 0xefbeadde, &orig),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, orig, 0x55ULL);
}

static struct kunit_case xiw_atomic_cases[] = {
	KUNIT_CASE(atomic_fetch_add_matches_rfc_pseudocode),
	KUNIT_CASE(atomic_fetch_add_fields),
	KUNIT_CASE(atomic_cmp_swap_swaps_on_masked_match),
	KUNIT_CASE(atomic_header_layouts),
	KUNIT_CASE(atomic_request_round_trip_and_wire),
	KUNIT_CASE(atomic_request_checks),
	KUNIT_CASE(atomic_response_round_trip_and_matching),
	{}
};

static struct kunit_suite xiw_atomic_suite = {
	.name = "xiw_atomic",
	.test_cases = xiw_atomic_cases,
};

kunit_test_suite(xiw_atomic_suite);
