// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the commit draft's request headers.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/stddef.h>

#include "commit.h"

static void commit_header_layouts(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct xiw_flush_req), 20);
	KUNIT_EXPECT_EQ(test, offsetof(struct xiw_flush_req, to), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct xiw_flush_req, flags), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct xiw_verify_req), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct xiw_atomic_write_req), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct xiw_atomic_write_req, data), 16);
}

static void commit_flush_request_round_trip_and_wire(struct kunit *test)
{
	static const u8 wire[] = {
		0x12, 0x34, 0x56, 0x78,			/* STag */
		0x00, 0x01, 0x00, 0x00,			/* length */
		0x00, 0x00, 0x7f, 0x00, 0x10, 0x00, 0x00, 0x08,	/* TO */
		0x00, 0x00, 0x00, 0x03,			/* flags */
	};
	struct xiw_commit_req req;
	struct xiw_flush_req h;

	xiw_flush_req_build(&h, 0x12345678, 0x7f0010000008ULL, 0x10000,
			    XIW_FLUSH_PERSISTENT | XIW_FLUSH_GLOBAL);
	KUNIT_EXPECT_MEMEQ(test, &h, wire, sizeof(wire));
	KUNIT_ASSERT_EQ(test, xiw_flush_req_parse(&h, &req), 0);
	KUNIT_EXPECT_EQ(test, req.stag, 0x12345678U);
	KUNIT_EXPECT_EQ(test, req.len, 0x10000U);
	KUNIT_EXPECT_EQ(test, req.to, 0x7f0010000008ULL);
	KUNIT_EXPECT_EQ(test, req.flags, 3);
}

static void commit_flush_request_needs_a_known_disposition(struct kunit *test)
{
	static const struct { u32 flags; int ret; } cases[] = {
		{ 0, -EINVAL },				/* nothing asked */
		{ XIW_FLUSH_PERSISTENT, 0 },
		{ XIW_FLUSH_GLOBAL, 0 },
		{ XIW_FLUSH_GLOBAL | XIW_FLUSH_REGION, 0 },
		{ XIW_FLUSH_REGION, -EINVAL },		/* a level alone */
		{ 0x08, -EINVAL }, { 0x83, -EINVAL },	/* unknown bits */
		{ 0xffffff01, 0 },			/* reserved: ignored */
		{ 0x100, -EINVAL },			/* only reserved bits */
	};
	struct xiw_commit_req req;
	struct xiw_flush_req h;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		xiw_flush_req_build(&h, 1, 0, 8, 0);
		h.flags = cpu_to_be32(cases[i].flags);
		KUNIT_EXPECT_EQ_MSG(test, xiw_flush_req_parse(&h, &req),
				    cases[i].ret, "flags %#x", cases[i].flags);
	}
	/* A zero length is a valid request. */
	xiw_flush_req_build(&h, 1, 0, 0, XIW_FLUSH_PERSISTENT);
	KUNIT_EXPECT_EQ(test, xiw_flush_req_parse(&h, &req), 0);
}

static void commit_verify_request_round_trip(struct kunit *test)
{
	struct xiw_commit_req req;
	struct xiw_verify_req h;

	xiw_verify_req_build(&h, 0xabcdef01, 0x1000, 1 << 20);
	KUNIT_ASSERT_EQ(test, xiw_verify_req_parse(&h, 32, &req), 0);
	KUNIT_EXPECT_EQ(test, req.stag, 0xabcdef01U);
	KUNIT_EXPECT_EQ(test, req.to, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, req.len, 1U << 20);
	KUNIT_EXPECT_EQ(test, req.hash_len, 32);
	KUNIT_EXPECT_EQ(test, xiw_verify_req_parse(&h, 0, &req), 0);
	KUNIT_EXPECT_EQ(test, req.hash_len, 0);
	KUNIT_EXPECT_EQ(test, xiw_verify_req_parse(&h, XIW_VERIFY_HASH_MAX,
						   &req), 0);
	KUNIT_EXPECT_EQ(test, xiw_verify_req_parse(&h, XIW_VERIFY_HASH_MAX + 1,
						   &req), -EMSGSIZE);
}

static void commit_atomic_write_round_trip_and_checks(struct kunit *test)
{
	static const u8 wire[] = {
		0x00, 0x00, 0x01, 0x02,			/* STag */
		0x00, 0x00, 0x00, 0x08,			/* length */
		0, 0, 0, 0, 0, 0, 0x40, 0x08,		/* TO */
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,	/* data */
	};
	struct xiw_atomic_write_req h;
	struct xiw_commit_req req;
	unsigned int off;

	xiw_atomic_write_req_build(&h, 0x102, 0x4008, 0x0123456789abcdefULL);
	KUNIT_EXPECT_MEMEQ(test, &h, wire, sizeof(wire));
	KUNIT_ASSERT_EQ(test, xiw_atomic_write_req_parse(&h, &req), 0);
	KUNIT_EXPECT_EQ(test, req.data, 0x0123456789abcdefULL);
	KUNIT_EXPECT_EQ(test, req.to, 0x4008ULL);
	KUNIT_EXPECT_EQ(test, req.len, 8U);
	/* Every misalignment, and every other length, is refused. */
	for (off = 1; off < 8; off++) {
		xiw_atomic_write_req_build(&h, 0x102, 0x4000 + off, 1);
		KUNIT_EXPECT_EQ(test, xiw_atomic_write_req_parse(&h, &req),
				-EINVAL);
	}
	xiw_atomic_write_req_build(&h, 0x102, 0x4000, 1);
	h.len = cpu_to_be32(4);
	KUNIT_EXPECT_EQ(test, xiw_atomic_write_req_parse(&h, &req), -EINVAL);
	h.len = cpu_to_be32(16);
	KUNIT_EXPECT_EQ(test, xiw_atomic_write_req_parse(&h, &req), -EINVAL);
	h.len = 0;
	KUNIT_EXPECT_EQ(test, xiw_atomic_write_req_parse(&h, &req), -EINVAL);
}

/*
 * An Atomic Write is an unconditional swap: whatever the word held, it
 * ends as the value, every bit of it, and the operation names its target.
 */
static void commit_atomic_write_replaces_the_whole_word(struct kunit *test)
{
	static const u64 words[] = {
		0, U64_MAX, 0x0123456789abcdefULL, 0x8000000000000001ULL,
	};
	static const u64 values[] = {
		0, U64_MAX, 0xfedcba9876543210ULL, 1,
	};
	struct xiw_atomic_op op;
	int i, j;

	for (i = 0; i < ARRAY_SIZE(values); i++) {
		xiw_atomic_write_op(&op, 0x102, 0x4008, values[i]);
		KUNIT_EXPECT_EQ(test, op.stag, 0x102);
		KUNIT_EXPECT_EQ(test, op.to, 0x4008);
		for (j = 0; j < ARRAY_SIZE(words); j++)
			KUNIT_EXPECT_EQ(test, xiw_atomic_apply(&op, words[j]),
					values[i]);
	}
}

static struct kunit_case xiw_commit_cases[] = {
	KUNIT_CASE(commit_header_layouts),
	KUNIT_CASE(commit_flush_request_round_trip_and_wire),
	KUNIT_CASE(commit_flush_request_needs_a_known_disposition),
	KUNIT_CASE(commit_verify_request_round_trip),
	KUNIT_CASE(commit_atomic_write_round_trip_and_checks),
	KUNIT_CASE(commit_atomic_write_replaces_the_whole_word),
	{}
};

static struct kunit_suite xiw_commit_suite = {
	.name = "xiw_commit",
	.test_cases = xiw_commit_cases,
};

kunit_test_suite(xiw_commit_suite);
