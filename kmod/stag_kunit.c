// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the STag state machine and access checks of RFC 5040.
 */
#include <kunit/test.h>

#include "iwarp.h"
#include "rdmap.h"
#include "stag.h"

#define PROT(code) XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT, code)

/* Rights bits: the layer compares masks and knows no meanings. */
#define RD	0x1
#define WR	0x2
#define AT	0x4

static const int pd_a, pd_b;

/* A fast-registration STag as alloc_mr leaves it: index 7, Invalid. */
static struct xiw_stag fresh(void)
{
	return (struct xiw_stag){ .fast = true, .stag = 7 << 8 | 0x11,
				  .owner = &pd_a };
}

static void stag_fast_register_invalidate_cycle(struct kunit *test)
{
	struct xiw_stag s = fresh();
	u32 key;

	/* Invalid: no access, no invalidation. */
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_a, 0, 0, 1),
			PROT(XIW_RDMAP_INV_STAG));
	KUNIT_EXPECT_EQ(test, xiw_stag_invalidate(&s, s.stag, &pd_a),
			PROT(XIW_RDMAP_INV_STAG));

	for (key = 0x12; key < 0x12 + 300; key++) {
		u32 stag = 7 << 8 | (key & 0xff);
		u32 old = s.stag;

		KUNIT_ASSERT_EQ(test, xiw_stag_register(&s, stag, &pd_a, WR,
							0x1000, 0x2000), 0);
		KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, stag, &pd_a, WR,
						     0x1000, 0x2000), 0);
		/* The previous key names nothing any more. */
		if (old != stag)
			KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, old, &pd_a, 0,
							     0x1000, 1),
					PROT(XIW_RDMAP_INV_STAG));
		/* Valid: registering again needs an invalidation first. */
		KUNIT_EXPECT_EQ(test, xiw_stag_register(&s, stag, &pd_a, WR,
							0, 1), -EBUSY);
		KUNIT_EXPECT_EQ(test, xiw_stag_invalidate(&s, stag, &pd_a), 0);
		KUNIT_EXPECT_FALSE(test, s.valid);
		KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, stag, &pd_a, 0,
						     0x1000, 1),
				PROT(XIW_RDMAP_INV_STAG));
	}
}

static void stag_register_refusals(struct kunit *test)
{
	struct xiw_stag s = fresh();
	struct xiw_stag dma = { .valid = true, .stag = 1 << 8,
				.owner = &pd_a, .access = RD | WR };

	/* Another index, another PD, an empty or wrapping range. */
	KUNIT_EXPECT_EQ(test, xiw_stag_register(&s, 8 << 8, &pd_a, RD, 0, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xiw_stag_register(&s, s.stag, &pd_b, RD, 0, 1),
			-EPERM);
	KUNIT_EXPECT_EQ(test, xiw_stag_register(&s, s.stag, &pd_a, RD, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xiw_stag_register(&s, s.stag, &pd_a, RD,
						U64_MAX, 2), -EINVAL);
	KUNIT_EXPECT_FALSE(test, s.valid);
	/* The all-memory STag is never re-registered. */
	KUNIT_EXPECT_EQ(test, xiw_stag_register(&dma, dma.stag, &pd_a, RD,
						0, 1), -EPERM);
}

static void stag_invalidation_rules(struct kunit *test)
{
	struct xiw_stag s = fresh();
	struct xiw_stag dma = { .valid = true, .stag = 1 << 8 | 0x42,
				.owner = &pd_a, .access = RD | WR };

	KUNIT_ASSERT_EQ(test, xiw_stag_register(&s, s.stag, &pd_a, RD, 0,
						4096), 0);
	/* A wrong key is an invalid STag, and changes nothing. */
	KUNIT_EXPECT_EQ(test, xiw_stag_invalidate(&s, s.stag ^ 1, &pd_a),
			PROT(XIW_RDMAP_INV_STAG));
	/* Another stream's PD may not invalidate it. */
	KUNIT_EXPECT_EQ(test, xiw_stag_invalidate(&s, s.stag, &pd_b),
			PROT(XIW_RDMAP_CANT_INVALIDATE));
	KUNIT_EXPECT_TRUE(test, s.valid);
	/* The all-memory STag cannot be invalidated, by anyone. */
	KUNIT_EXPECT_EQ(test, xiw_stag_invalidate(&dma, dma.stag, &pd_a),
			PROT(XIW_RDMAP_CANT_INVALIDATE));
	KUNIT_EXPECT_TRUE(test, dma.valid);
	KUNIT_EXPECT_EQ(test, xiw_stag_invalidate(&s, s.stag, &pd_a), 0);
}

static void stag_access_checks_in_order(struct kunit *test)
{
	struct xiw_stag s = fresh();
	struct xiw_stag dma = { .valid = true, .stag = 1 << 8,
				.owner = &pd_a, .access = RD };

	KUNIT_ASSERT_EQ(test, xiw_stag_register(&s, s.stag, &pd_a, RD,
						0x1000, 0x1000), 0);
	/* Each failure, and the first one wins when several apply. */
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag ^ 1, &pd_b, WR, 0, 0),
			PROT(XIW_RDMAP_INV_STAG));
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_b, WR, 0, 0),
			PROT(XIW_RDMAP_STAG_NOT_ASSOC));
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_a, WR, 0, 0),
			PROT(XIW_RDMAP_ACCESS));
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_a, RD | AT,
					     0x1000, 1),
			PROT(XIW_RDMAP_ACCESS));
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_a, RD,
					     U64_MAX - 1, 4),
			PROT(XIW_RDMAP_TO_WRAP));
	/* Base and bounds: both ends, one octet either side. */
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_a, RD, 0x1000,
					     0x1000), 0);
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_a, RD, 0x1fff, 1),
			0);
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_a, RD, 0x2000, 0),
			0);
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_a, RD, 0xfff, 1),
			PROT(XIW_RDMAP_BOUNDS));
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_a, RD, 0x1001,
					     0x1000),
			PROT(XIW_RDMAP_BOUNDS));
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_a, RD, 0x2000, 1),
			PROT(XIW_RDMAP_BOUNDS));
	/* A length that would wrap base + length is still bounded. */
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&s, s.stag, &pd_a, RD, 0x1800,
					     U64_MAX - 0x1800),
			PROT(XIW_RDMAP_BOUNDS));
	/* All of memory: any range that does not wrap. */
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&dma, dma.stag, &pd_a, RD,
					     U64_MAX - 8, 8), 0);
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&dma, dma.stag, &pd_a, RD,
					     U64_MAX - 8, 10),
			PROT(XIW_RDMAP_TO_WRAP));
	/* Ending on the last octet is no wrap. */
	KUNIT_EXPECT_EQ(test, xiw_stag_check(&dma, dma.stag, &pd_a, RD,
					     U64_MAX - 7, 8), 0);
}

static void stag_index_permutation_is_a_bijection(struct kunit *test)
{
	const struct xiw_stag_perm p = { .key = { 0x1234567, 0x89abcdef,
						  0xdeadbeef, 0x0badf00d } };
	u32 slot, bad = 0, zero = 0;

	/* Every slot maps to a nonzero index and back. */
	for (slot = 1; slot < 1U << XIW_STAG_INDEX_BITS; slot++) {
		u32 index = xiw_stag_perm_index(&p, slot);

		if (!index)
			zero++;
		if (index >> XIW_STAG_INDEX_BITS ||
		    xiw_stag_perm_slot(&p, index) != slot)
			bad++;
	}
	KUNIT_EXPECT_EQ(test, zero, 0);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, xiw_stag_perm_slot(&p, 0), 0);
}

static void stag_indices_of_next_slots_scatter(struct kunit *test)
{
	const struct xiw_stag_perm p = { .key = { 1, 2, 3, 4 } };
	const struct xiw_stag_perm q = { .key = { 5, 6, 7, 8 } };
	u32 slot, near = 0, same = 0;

	/* What the dense table allocates next says little about the index. */
	for (slot = 1; slot < 4096; slot++) {
		u32 a = xiw_stag_perm_index(&p, slot);
		u32 b = xiw_stag_perm_index(&p, slot + 1);

		if (a - b + 16 < 32)
			near++;
		if (a == xiw_stag_perm_index(&q, slot))
			same++;
	}
	KUNIT_EXPECT_LT(test, near, 8);
	/* Another device's key, other indices. */
	KUNIT_EXPECT_LT(test, same, 8);
}

static struct kunit_case xiw_stag_cases[] = {
	KUNIT_CASE(stag_fast_register_invalidate_cycle),
	KUNIT_CASE(stag_register_refusals),
	KUNIT_CASE(stag_invalidation_rules),
	KUNIT_CASE(stag_access_checks_in_order),
	KUNIT_CASE(stag_index_permutation_is_a_bijection),
	KUNIT_CASE(stag_indices_of_next_slots_scatter),
	{}
};

static struct kunit_suite xiw_stag_suite = {
	.name = "xiw_stag",
	.test_cases = xiw_stag_cases,
};

kunit_test_suite(xiw_stag_suite);
