// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for MPA framing arithmetic and setup frames.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "mpa.h"

static void mpa_pad_makes_fpdu_word_aligned(struct kunit *test)
{
	unsigned int len;

	for (len = 0; len < 64; len++) {
		unsigned int pad = xiw_mpa_pad(len);

		KUNIT_EXPECT_LE(test, pad, 3U);
		KUNIT_EXPECT_EQ(test, (XIW_MPA_LEN_SIZE + len + pad) % 4, 0U);
		KUNIT_EXPECT_EQ(test, xiw_mpa_fpdu_len(len) % 4, 0U);
	}
	KUNIT_EXPECT_EQ(test, xiw_mpa_pad(2), 0U);
	KUNIT_EXPECT_EQ(test, xiw_mpa_pad(0), 2U);
	KUNIT_EXPECT_EQ(test, xiw_mpa_fpdu_len(14), 2U + 14 + 0 + 4);
	KUNIT_EXPECT_EQ(test, xiw_mpa_fpdu_len(18), 2U + 18 + 0 + 4);
	KUNIT_EXPECT_EQ(test, xiw_mpa_fpdu_len(19), 2U + 19 + 3 + 4);
}

static void mpa_mulpdu_fills_one_segment(struct kunit *test)
{
	unsigned int emss;

	/* The FPDU of a MULPDU-sized ULPDU is the largest that fits EMSS. */
	for (emss = 64; emss < 9000; emss += 7) {
		unsigned int m = xiw_mpa_mulpdu(emss, false);

		KUNIT_EXPECT_LE(test, xiw_mpa_fpdu_len(m), emss);
		KUNIT_EXPECT_GT(test, xiw_mpa_fpdu_len(m + 1), emss);
	}
	KUNIT_EXPECT_EQ(test, xiw_mpa_mulpdu(1448, false), 1442U);
	KUNIT_EXPECT_EQ(test, xiw_mpa_mulpdu(1460, false), 1454U);
	KUNIT_EXPECT_EQ(test, xiw_mpa_mulpdu(1447, false), 1438U);
	/* With markers: 4 octets per started 512 of EMSS. */
	KUNIT_EXPECT_EQ(test, xiw_mpa_mulpdu(1448, true), 1442U - 12);
	KUNIT_EXPECT_EQ(test, xiw_mpa_mulpdu(512, true), 512U - 6 - 4);
	KUNIT_EXPECT_EQ(test, xiw_mpa_mulpdu(6, false), 0U);
	KUNIT_EXPECT_EQ(test, xiw_mpa_mulpdu(0, true), 0U);
}

static __le32 crc_of(const void *data, size_t len)
{
	return xiw_mpa_crc_final(xiw_mpa_crc_update(xiw_mpa_crc_init(),
						    data, len));
}

static void mpa_crc_matches_crc32c_vectors(struct kunit *test)
{
	static const u8 zeros[32];
	u8 ones[32], inc[32];
	static const u8 wire_check[4] = { 0x83, 0x92, 0x06, 0xe3 };
	__le32 crc;
	int i;

	for (i = 0; i < 32; i++) {
		ones[i] = 0xff;
		inc[i] = i;
	}
	/* RFC 3720 appendix B.4 vectors (iSCSI, whose CRC MPA uses). */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(crc_of(zeros, 32)), 0x8a9136aaU);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(crc_of(ones, 32)), 0x62a8ab43U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(crc_of(inc, 32)), 0x46dd794eU);
	/* The CRC-32C check value, and its octet order on the wire. */
	crc = crc_of("123456789", 9);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(crc), 0xe3069283U);
	KUNIT_EXPECT_MEMEQ(test, &crc, wire_check, 4);
}

static void mpa_crc_is_split_invariant(struct kunit *test)
{
	u8 buf[97];
	__le32 whole;
	size_t cut;

	for (cut = 0; cut < sizeof(buf); cut++)
		buf[cut] = cut * 31 + 7;
	whole = crc_of(buf, sizeof(buf));
	for (cut = 0; cut <= sizeof(buf); cut++) {
		u32 s = xiw_mpa_crc_update(xiw_mpa_crc_init(), buf, cut);

		s = xiw_mpa_crc_update(s, buf + cut, sizeof(buf) - cut);
		KUNIT_EXPECT_EQ(test, xiw_mpa_crc_final(s), whole);
	}
}

static void mpa_hdr_round_trip(struct kunit *test)
{
	static const struct xiw_mpa_hdr cases[] = {
		{ XIW_MPA_REQUEST, false, false, false, false, 1, 0 },
		{ XIW_MPA_REQUEST, true, true, false, true, 2, 512 },
		{ XIW_MPA_REQUEST, false, true, false, false, 2, 0 },
		{ XIW_MPA_REPLY, false, true, true, true, 2, 28 },
		{ XIW_MPA_REPLY, true, false, false, false, 1, 1 },
	};
	u8 buf[XIW_MPA_HDR_LEN];
	struct xiw_mpa_hdr out;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		xiw_mpa_hdr_build(&cases[i], buf);
		KUNIT_ASSERT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
							cases[i].kind, &out), 0);
		KUNIT_EXPECT_EQ(test, out.kind, cases[i].kind);
		KUNIT_EXPECT_EQ(test, out.markers, cases[i].markers);
		KUNIT_EXPECT_EQ(test, out.crc, cases[i].crc);
		KUNIT_EXPECT_EQ(test, out.reject, cases[i].reject);
		KUNIT_EXPECT_EQ(test, out.enhanced, cases[i].enhanced);
		KUNIT_EXPECT_EQ(test, out.rev, cases[i].rev);
		KUNIT_EXPECT_EQ(test, out.pd_len, cases[i].pd_len);
	}
}

static void mpa_hdr_wire_layout(struct kunit *test)
{
	static const u8 expect[XIW_MPA_HDR_LEN] = {
		'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p', ' ',
		'F', 'r', 'a', 'm', 'e', 0x70, 0x02, 0x01, 0x02,
	};
	struct xiw_mpa_hdr hdr = {
		.kind = XIW_MPA_REPLY, .crc = true, .reject = true,
		.enhanced = true, .rev = 2, .pd_len = 258,
	};
	u8 buf[XIW_MPA_HDR_LEN];

	xiw_mpa_hdr_build(&hdr, buf);
	KUNIT_EXPECT_MEMEQ(test, buf, expect, sizeof(expect));
}

static void mpa_hdr_rejects_malformed(struct kunit *test)
{
	struct xiw_mpa_hdr good = {
		.kind = XIW_MPA_REQUEST, .crc = true, .rev = 2, .pd_len = 16,
	};
	struct xiw_mpa_hdr out = { .rev = 0xaa };
	u8 buf[XIW_MPA_HDR_LEN];
	int flag;

	xiw_mpa_hdr_build(&good, buf);
	KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, XIW_MPA_HDR_LEN - 1,
						XIW_MPA_REQUEST, &out), -EAGAIN);
	KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
						XIW_MPA_REPLY, &out), -EBADMSG);

	/* Res bits are not checked on reception (RFC 5044 section 7.1). */
	for (flag = 0; flag < 4; flag++) {
		xiw_mpa_hdr_build(&good, buf);
		buf[16] |= 1 << flag;
		KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
							XIW_MPA_REQUEST, &out),
				0);
		KUNIT_EXPECT_TRUE(test, out.crc);
		KUNIT_EXPECT_FALSE(test, out.enhanced);
	}
	xiw_mpa_hdr_build(&good, buf);
	buf[16] |= XIW_MPA_FLAG_REJECT;
	KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
						XIW_MPA_REQUEST, &out), -EPROTO);

	xiw_mpa_hdr_build(&good, buf);
	buf[17] = 0;
	KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
						XIW_MPA_REQUEST, &out), -EPROTO);
	buf[17] = 3;
	KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
						XIW_MPA_REQUEST, &out), -EPROTO);

	xiw_mpa_hdr_build(&good, buf);
	buf[18] = 0x02;
	buf[19] = 0x01;	/* 513 */
	KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
						XIW_MPA_REQUEST, &out),
			-EMSGSIZE);
	buf[19] = 0x00;	/* 512 is the limit, and legal */
	KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
						XIW_MPA_REQUEST, &out), 0);

	/* S means enhanced data only in revision 2, and it must fit. */
	xiw_mpa_hdr_build(&good, buf);
	buf[16] |= XIW_MPA_FLAG_ENHANCED;
	buf[17] = 1;
	KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
						XIW_MPA_REQUEST, &out), 0);
	KUNIT_EXPECT_FALSE(test, out.enhanced);
	buf[17] = 2;
	buf[18] = 0;
	buf[19] = XIW_MPA_V2_DATA_LEN - 1;
	KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
						XIW_MPA_REQUEST, &out), -EPROTO);
	buf[19] = XIW_MPA_V2_DATA_LEN;
	KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
						XIW_MPA_REQUEST, &out), 0);
	KUNIT_EXPECT_TRUE(test, out.enhanced);

	buf[3] = 'x';
	out.rev = 0xaa;
	KUNIT_EXPECT_EQ(test, xiw_mpa_hdr_parse(buf, sizeof(buf),
						XIW_MPA_REQUEST, &out),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, out.rev, 0xaa);	/* untouched on error */
}

static void mpa_marker_round_trip(struct kunit *test)
{
	u8 m[XIW_MPA_MARKER_SIZE];

	xiw_mpa_marker_build(0x1234, m);
	KUNIT_EXPECT_EQ(test, m[0], 0);
	KUNIT_EXPECT_EQ(test, m[1], 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(m + 2), 0x1234);
	KUNIT_EXPECT_EQ(test, xiw_mpa_marker_check(m, 0x1234), 0);
	KUNIT_EXPECT_EQ(test, xiw_mpa_marker_check(m, 0x1230), -EPROTO);
	/* The reserved half is ignored on receipt. */
	m[0] = 0xff;
	KUNIT_EXPECT_EQ(test, xiw_mpa_marker_check(m, 0x1234), 0);

	KUNIT_EXPECT_EQ(test, xiw_mpa_to_marker(0), 0U);
	KUNIT_EXPECT_EQ(test, xiw_mpa_to_marker(4), 508U);
	KUNIT_EXPECT_EQ(test, xiw_mpa_to_marker(511), 1U);
}

/*
 * A reference sender: the FPDUs of @len[] octets (multiples of 4, their
 * octets numbered by position in the unmarked stream) with markers
 * inserted every 512 octets of the marked stream. Returns its length.
 */
static size_t mark_stream(const unsigned int *len, int n, u8 *out)
{
	size_t pos = 0, plain = 0;
	int i;

	for (i = 0; i < n; i++) {
		unsigned int fpdu_off = 0, j;

		for (j = 0; j < len[i]; j++) {
			if (pos % XIW_MPA_MARKER_PERIOD == 0) {
				xiw_mpa_marker_build(fpdu_off, out + pos);
				pos += XIW_MPA_MARKER_SIZE;
				fpdu_off += XIW_MPA_MARKER_SIZE;
			}
			out[pos++] = plain++ & 0xff;
			fpdu_off++;
		}
	}
	return pos;
}

/*
 * The receiver's side as rx.c drives it: the marked stream in chunks of
 * random size, markers stripped and checked against the octets of their
 * FPDU seen so far (FPDU lengths known from @len[]), data in order.
 */
static void mpa_markers_strip_across_any_split(struct kunit *test)
{
	static const unsigned int fixed[] = { 20, 508, 512, 4, 1460, 16, 3000 };
	unsigned int len[64];
	struct rnd_state rnd;
	size_t total = 0, marked, pos = 0, plain = 0;
	int n = 0, i, round;
	u8 *wire;

	prandom_seed_state(&rnd, 5044);
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		len[n++] = fixed[i];
	while (n < ARRAY_SIZE(len))
		len[n++] = 4 * (1 + prandom_u32_state(&rnd) % 400);
	for (i = 0; i < n; i++)
		total += len[i];
	wire = kunit_kzalloc(test, total + total / 100 + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	marked = mark_stream(len, n, wire);

	for (round = 0; round < 20; round++) {
		struct xiw_mpa_unmark u = {};
		unsigned int fpdu = 0, fpdu_off = 0, left = len[0];
		bool ok = true;

		pos = 0;
		plain = 0;
		while (pos < marked && ok) {
			/* Round 0 feeds single octets, the others random chunks. */
			size_t chunk = round ? 1 + prandom_u32_state(&rnd) % 700 :
					       1;
			size_t end = min(pos + chunk, marked);

			while (pos < end && ok) {
				unsigned int d = xiw_mpa_unmark_data(&u, end - pos);

				if (!d) {
					pos += xiw_mpa_unmark_take(&u, wire + pos,
								   end - pos);
					if (u.got < XIW_MPA_MARKER_SIZE)
						continue;
					u.got = 0;
					ok = !xiw_mpa_marker_check(u.marker,
								   fpdu_off);
					fpdu_off += XIW_MPA_MARKER_SIZE;
					continue;
				}
				d = min(d, left);
				for (i = 0; i < d; i++)
					ok &= wire[pos + i] == (plain++ & 0xff);
				pos += d;
				xiw_mpa_unmark_advance(&u, d);
				fpdu_off += d;
				left -= d;
				if (!left && fpdu + 1 < n) {
					left = len[++fpdu];
					fpdu_off = 0;
				}
			}
		}
		KUNIT_EXPECT_TRUE_MSG(test, ok, "round %d at %zu", round, pos);
		KUNIT_EXPECT_EQ(test, plain, total);
		KUNIT_EXPECT_EQ(test, fpdu, (unsigned int)n - 1);
		KUNIT_EXPECT_EQ(test, left, 0U);
	}
}

static struct kunit_case xiw_mpa_cases[] = {
	KUNIT_CASE(mpa_pad_makes_fpdu_word_aligned),
	KUNIT_CASE(mpa_mulpdu_fills_one_segment),
	KUNIT_CASE(mpa_crc_matches_crc32c_vectors),
	KUNIT_CASE(mpa_crc_is_split_invariant),
	KUNIT_CASE(mpa_hdr_round_trip),
	KUNIT_CASE(mpa_hdr_wire_layout),
	KUNIT_CASE(mpa_hdr_rejects_malformed),
	KUNIT_CASE(mpa_marker_round_trip),
	KUNIT_CASE(mpa_markers_strip_across_any_split),
	{}
};

static struct kunit_suite xiw_mpa_suite = {
	.name = "xiw_mpa",
	.test_cases = xiw_mpa_cases,
};

kunit_test_suite(xiw_mpa_suite);

MODULE_DESCRIPTION("KUnit tests for xiw MPA framing");
MODULE_LICENSE("GPL");
