// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the Verify hash dispatch: known digests, piecewise
 * hashing equal to one pass, names and lengths.
 */
#include <kunit/test.h>

#include "hash.h"

static void hash_known_digests(struct kunit *test)
{
	/* CRC-32C check value of "123456789" is 0xe3069283. */
	static const u8 crc[] = { 0x83, 0x92, 0x06, 0xe3 };
	/* FIPS 180-2 appendix B.1: SHA-256("abc") */
	static const u8 sha[] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
		0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
		0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
		0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	struct xiw_hash h;
	u8 out[32];

	xiw_hash_init(&h, XIW_HASH_CRC32C);
	xiw_hash_update(&h, (const u8 *)"123456789", 9);
	xiw_hash_final(&h, out);
	KUNIT_EXPECT_MEMEQ(test, out, crc, sizeof(crc));

	xiw_hash_init(&h, XIW_HASH_SHA256);
	xiw_hash_update(&h, (const u8 *)"abc", 3);
	xiw_hash_final(&h, out);
	KUNIT_EXPECT_MEMEQ(test, out, sha, sizeof(sha));
}

/* A region hashed in pieces (as pages come) hashes as one pass. */
static void hash_pieces_equal_one_pass(struct kunit *test)
{
	static const u32 cuts[] = { 1, 63, 64, 65, 4095, 4096 };
	u8 alg, one[32], pieces[32];
	static u8 data[9000];
	struct xiw_hash h;
	int i;
	u32 off;

	for (i = 0; i < sizeof(data); i++)
		data[i] = i * 7 + 3;
	for (alg = XIW_HASH_CRC32C; alg < XIW_HASH_COUNT; alg++) {
		xiw_hash_init(&h, alg);
		xiw_hash_update(&h, data, sizeof(data));
		xiw_hash_final(&h, one);
		for (i = 0; i < ARRAY_SIZE(cuts); i++) {
			xiw_hash_init(&h, alg);
			for (off = 0; off < sizeof(data); off += cuts[i])
				xiw_hash_update(&h, data + off,
						min_t(u32, cuts[i],
						      sizeof(data) - off));
			xiw_hash_final(&h, pieces);
			KUNIT_EXPECT_MEMEQ_MSG(test, pieces, one,
					       xiw_hash_len(alg),
					       "alg %u, pieces of %u", alg,
					       cuts[i]);
		}
	}
}

static void hash_names_and_lengths(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xiw_hash_alg_by_name("crc32c"), XIW_HASH_CRC32C);
	KUNIT_EXPECT_EQ(test, xiw_hash_alg_by_name("sha256"), XIW_HASH_SHA256);
	KUNIT_EXPECT_EQ(test, xiw_hash_alg_by_name("md5"), -ENOENT);
	KUNIT_EXPECT_EQ(test, xiw_hash_alg_by_name(""), -ENOENT);
	KUNIT_EXPECT_EQ(test, xiw_hash_len(XIW_HASH_NONE), 0);
	KUNIT_EXPECT_EQ(test, xiw_hash_len(XIW_HASH_CRC32C), 4);
	KUNIT_EXPECT_EQ(test, xiw_hash_len(XIW_HASH_SHA256), 32);
	KUNIT_EXPECT_EQ(test, xiw_hash_len(XIW_HASH_COUNT), 0);
	KUNIT_EXPECT_EQ(test, xiw_hash_len(0xff), 0);
}

static struct kunit_case xiw_hash_cases[] = {
	KUNIT_CASE(hash_known_digests),
	KUNIT_CASE(hash_pieces_equal_one_pass),
	KUNIT_CASE(hash_names_and_lengths),
	{}
};

static struct kunit_suite xiw_hash_suite = {
	.name = "xiw_hash",
	.test_cases = xiw_hash_cases,
};

kunit_test_suite(xiw_hash_suite);
