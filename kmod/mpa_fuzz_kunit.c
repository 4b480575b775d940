// SPDX-License-Identifier: GPL-2.0
/*
 * Parser fuzzing of MPA (RFC 5044): Request and Reply headers, FPDU length,
 * pad, MULPDU and CRC32c, and markers and their stripping. How the cases
 * work, their oracles and how to replay them: fuzz_kunit.h.
 */
#include <kunit/test.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "fuzz_kunit.h"
#include "mpa.h"

/* MPA Request and Reply headers (RFC 5044 section 7.1) */

static void mpa_raw(u8 *p, enum xiw_mpa_frame_kind kind, u8 flags, u8 rev,
		    u16 pd_len)
{
	memcpy(p, kind == XIW_MPA_REQUEST ? "MPA ID Req Frame" :
					    "MPA ID Rep Frame", XIW_MPA_KEY_LEN);
	p[XIW_MPA_KEY_LEN] = flags;
	p[XIW_MPA_KEY_LEN + 1] = rev;
	put_unaligned_be16(pd_len, p + XIW_MPA_KEY_LEN + 2);
}

static bool check_mpa_hdr(struct kunit *test, const u8 *in, size_t len,
			  enum xiw_mpa_frame_kind expect)
{
	u8 key[XIW_MPA_HDR_LEN], again[XIW_MPA_HDR_LEN], flags, rev, kept;
	bool key_ok, rev_ok, r_ok, pd_ok, s_ok;
	struct xiw_mpa_hdr out, canary;
	u8 *buf = exact(test, in, len);
	u16 pd;
	int ret;

	memset(&canary, 0xa5, sizeof(canary));
	memcpy(&out, &canary, sizeof(out));
	ret = xiw_mpa_hdr_parse(buf, len, expect, &out);
	kunit_kfree(test, buf);
	if (len < XIW_MPA_HDR_LEN) {
		KUNIT_ASSERT_EQ(test, ret, -EAGAIN);
		KUNIT_ASSERT_MEMEQ(test, &out, &canary, sizeof(out));
		return false;
	}

	mpa_raw(key, expect, 0, 0, 0);
	flags = in[XIW_MPA_KEY_LEN];
	rev = in[XIW_MPA_KEY_LEN + 1];
	pd = get_unaligned_be16(in + XIW_MPA_KEY_LEN + 2);
	key_ok = !memcmp(in, key, XIW_MPA_KEY_LEN);
	rev_ok = rev >= XIW_MPA_REV_MIN && rev <= XIW_MPA_REV_MAX;
	r_ok = expect == XIW_MPA_REPLY || !(flags & XIW_MPA_FLAG_REJECT);
	pd_ok = pd <= XIW_MPA_PD_MAX;
	s_ok = rev != 2 || !(flags & XIW_MPA_FLAG_ENHANCED) ||
	       pd >= XIW_MPA_V2_DATA_LEN;

	if (key_ok && rev_ok && r_ok && pd_ok && s_ok) {
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "header %*ph", 20, in);
		KUNIT_ASSERT_EQ(test, out.kind, expect);
		/* The same octets again, but for the reserved flag bits. */
		kept = XIW_MPA_FLAG_MARKERS | XIW_MPA_FLAG_CRC |
		       XIW_MPA_FLAG_REJECT;
		if (rev == 2)
			kept |= XIW_MPA_FLAG_ENHANCED;
		xiw_mpa_hdr_build(&out, again);
		KUNIT_ASSERT_MEMEQ(test, again, in, XIW_MPA_KEY_LEN);
		KUNIT_ASSERT_EQ(test, again[XIW_MPA_KEY_LEN], flags & kept);
		KUNIT_ASSERT_MEMEQ(test, again + XIW_MPA_KEY_LEN + 1,
				   in + XIW_MPA_KEY_LEN + 1, 3);
		return true;
	}
	/* Refused with an error that fits, the output left alone. */
	KUNIT_ASSERT_TRUE_MSG(test, (!key_ok && ret == -EBADMSG) ||
			      ((!rev_ok || !r_ok || !s_ok) && ret == -EPROTO) ||
			      (!pd_ok && ret == -EMSGSIZE),
			      "ret %d for header %*ph", ret, 20, in);
	KUNIT_ASSERT_MEMEQ(test, &out, &canary, sizeof(out));
	return false;
}

static void fuzz_mpa_hdr(struct kunit *test)
{
	static const u8 revs[] = { 0, 1, 2, 3, 0x80, 0xff };
	static const u16 pds[] = { 0, 1, 3, 4, 5, 511, 512, 513, 0x8000,
				   0xffff };
	u8 frame[XIW_MPA_HDR_LEN + 8];
	unsigned int kind, expect, i, j, len, bit, yes = 0;
	struct rnd_state r;
	u16 pd;
	u8 rev;

	xiw_fuzz_start(test, &r);
	for (kind = 0; kind < 2; kind++) {
		/* Every length up to one past the header. */
		for (len = 0; len <= XIW_MPA_HDR_LEN + 1; len++) {
			mpa_raw(frame, kind, XIW_MPA_FLAG_CRC, 2, 16);
			frame[XIW_MPA_HDR_LEN] = 0x5a;
			check_mpa_hdr(test, frame, len, kind);
			memset(frame, 0, sizeof(frame));
			check_mpa_hdr(test, frame, len, kind);
			memset(frame, 0xff, sizeof(frame));
			check_mpa_hdr(test, frame, len, kind);
		}
		/* Each single bit of a valid header flipped. */
		for (bit = 0; bit < 8 * XIW_MPA_HDR_LEN; bit++) {
			mpa_raw(frame, kind, XIW_MPA_FLAG_ENHANCED, 2, 4);
			frame[bit / 8] ^= 1 << (bit % 8);
			check_mpa_hdr(test, frame, XIW_MPA_HDR_LEN, kind);
		}
		/*
		 * Every flag octet at every limit of revision and length,
		 * for the frame expected and the other one.
		 */
		for (i = 0; i < 512 * ARRAY_SIZE(revs) * ARRAY_SIZE(pds); i++) {
			j = i / 512;
			mpa_raw(frame, kind, i % 256, revs[j % ARRAY_SIZE(revs)],
				pds[j / ARRAY_SIZE(revs)]);
			check_mpa_hdr(test, frame, XIW_MPA_HDR_LEN, i / 256 % 2);
		}
	}

	for (i = 0; i < xiw_fuzz_iters; i++) {
		kind = below(&r, 2);
		expect = one_in(&r, 8) ? !kind : kind;
		rev = one_in(&r, 2) ? 1 + below(&r, 2) :
				      revs[below(&r, ARRAY_SIZE(revs))];
		pd = one_in(&r, 2) ? below(&r, XIW_MPA_PD_MAX + 1) :
				     pds[below(&r, ARRAY_SIZE(pds))];
		mpa_raw(frame, kind, rnd32(&r), one_in(&r, 8) ? rnd32(&r) : rev,
			one_in(&r, 8) ? rnd32(&r) : pd);
		/* Private data may follow; the parser must not care. */
		rnd_fill(&r, frame + XIW_MPA_HDR_LEN, 8);
		len = XIW_MPA_HDR_LEN + below(&r, 9);
		switch (below(&r, 4)) {
		case 0:
			mutate(&r, frame, XIW_MPA_HDR_LEN);
			break;
		case 1:
			len = below(&r, XIW_MPA_HDR_LEN + 2);
			break;
		case 2:
			rnd_fill(&r, frame, sizeof(frame));
			break;
		}
		yes += check_mpa_hdr(test, frame, len, expect);
	}
	fuzz_mix(test, "MPA header", yes, xiw_fuzz_iters);
}

/* FPDU length arithmetic, MULPDU and CRC32c */

static void fuzz_mpa_framing(struct kunit *test)
{
	unsigned int len, emss, i, markers;
	struct rnd_state r;
	u8 *data;

	xiw_fuzz_start(test, &r);
	/* Every ULPDU_Length and one past: length field, ULPDU, pad, CRC. */
	for (len = 0; len <= 0x10000; len++) {
		unsigned int pad = xiw_mpa_pad(len);

		KUNIT_ASSERT_LE(test, pad, 3U);
		KUNIT_ASSERT_EQ(test, (XIW_MPA_LEN_SIZE + len + pad) % 4, 0U);
		KUNIT_ASSERT_EQ(test, xiw_mpa_fpdu_len(len),
				XIW_MPA_LEN_SIZE + len + pad + XIW_MPA_CRC_SIZE);
	}

	/*
	 * Every EMSS up to 128 KiB: an FPDU of MULPDU octets, plus the
	 * markers any EMSS octets of the stream can hold, fits in EMSS, and
	 * one octet more would not.
	 */
	for (emss = 0; emss <= 0x20000; emss++) {
		for (markers = 0; markers < 2; markers++) {
			unsigned int m = xiw_mpa_mulpdu(emss, markers);
			u64 mk = markers ? XIW_MPA_MARKER_SIZE *
				 DIV_ROUND_UP((u64)emss,
					      XIW_MPA_MARKER_PERIOD) : 0;

			if (m)
				KUNIT_ASSERT_LE_MSG(test,
						    xiw_mpa_fpdu_len(m) + mk,
						    (u64)emss, "emss %u", emss);
			KUNIT_ASSERT_GT_MSG(test, xiw_mpa_fpdu_len(m + 1) + mk,
					    (u64)emss, "emss %u", emss);
		}
	}

	/* CRC32c of octets in exact buffers, split anywhere. */
	data = kunit_kmalloc(test, 2100, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);
	for (i = 0; i < max(xiw_fuzz_iters / 100, 1U); i++) {
		unsigned int cut;
		u8 *a, *b, *all;
		u32 one, two;

		len = one_in(&r, 2) ? below(&r, 2100) : below(&r, 70);
		cut = below(&r, len + 1);
		rnd_fill(&r, data, len);
		all = exact(test, data, len);
		a = exact(test, data, cut);
		b = exact(test, data + cut, len - cut);
		one = xiw_mpa_crc_update(xiw_mpa_crc_init(), all, len);
		two = xiw_mpa_crc_update(xiw_mpa_crc_init(), a, cut);
		two = xiw_mpa_crc_update(two, b, len - cut);
		KUNIT_ASSERT_EQ(test, xiw_mpa_crc_final(one),
				xiw_mpa_crc_final(two));
		kunit_kfree(test, all);
		kunit_kfree(test, a);
		kunit_kfree(test, b);
	}
}

/* Markers (RFC 5044 section 5) */

/*
 * A reference sender: FPDUs of @len[] octets of @plain, markers every 512
 * octets of the marked stream, each pointing at the start of its FPDU.
 * Records each marker's position in @at[]; returns the stream's length.
 */
static size_t mark(const u8 *plain, const unsigned int *len, unsigned int n,
		   u8 *out, size_t *at, unsigned int *markers)
{
	size_t pos = 0, p = 0;
	unsigned int i, j;

	*markers = 0;
	for (i = 0; i < n; i++) {
		unsigned int fpdu_off = 0;

		for (j = 0; j < len[i]; j++) {
			if (pos % XIW_MPA_MARKER_PERIOD == 0) {
				at[(*markers)++] = pos;
				xiw_mpa_marker_build(fpdu_off, out + pos);
				pos += XIW_MPA_MARKER_SIZE;
				fpdu_off += XIW_MPA_MARKER_SIZE;
			}
			out[pos++] = plain[p++];
			fpdu_off++;
		}
	}
	return pos;
}

#define STREAM_FPDUS	24
#define STREAM_FPDU_MAX	2400
#define STREAM_PLAIN	(STREAM_FPDUS * STREAM_FPDU_MAX)
#define STREAM_MARKERS	(STREAM_PLAIN / (XIW_MPA_MARKER_PERIOD - \
					 XIW_MPA_MARKER_SIZE) + 2)

/* Receiver state of one stream, as rx.c keeps it. */
struct strip {
	struct xiw_mpa_unmark u;
	unsigned int fpdu, fpdu_off, left, marker;
	size_t plain;
};

/*
 * Strip one chunk as rx.c does, checking data against @plain and each
 * marker's verdict against @bad[].
 */
static void strip_chunk(struct kunit *test, struct strip *s, const u8 *in,
			unsigned int n, const u8 *plain, const unsigned int *len,
			unsigned int fpdus, const bool *bad)
{
	unsigned int pos = 0;

	while (pos < n) {
		unsigned int d = xiw_mpa_unmark_data(&s->u, n - pos);

		if (!d) {
			unsigned int t = xiw_mpa_unmark_take(&s->u, in + pos,
							     n - pos);

			KUNIT_ASSERT_GT(test, t, 0U);
			pos += t;
			if (s->u.got < XIW_MPA_MARKER_SIZE)
				continue;
			s->u.got = 0;
			KUNIT_ASSERT_EQ_MSG(test,
					    xiw_mpa_marker_check(s->u.marker,
								 s->fpdu_off),
					    bad[s->marker] ? -EPROTO : 0,
					    "marker %u (%*ph) at FPDU offset %u",
					    s->marker, XIW_MPA_MARKER_SIZE,
					    s->u.marker, s->fpdu_off);
			s->marker++;
			s->fpdu_off += XIW_MPA_MARKER_SIZE;
			continue;
		}
		KUNIT_ASSERT_LE(test, d, n - pos);
		d = min(d, s->left);
		KUNIT_ASSERT_GT(test, d, 0U);	/* no octet after the last FPDU */
		KUNIT_ASSERT_MEMEQ(test, in + pos, plain + s->plain, d);
		pos += d;
		s->plain += d;
		xiw_mpa_unmark_advance(&s->u, d);
		s->fpdu_off += d;
		s->left -= d;
		if (!s->left && s->fpdu + 1 < fpdus) {
			s->left = len[++s->fpdu];
			s->fpdu_off = 0;
		}
	}
}

static void fuzz_mpa_markers(struct kunit *test)
{
	static const unsigned int lens[] = {
		0, 1, 2, 3, 4, 5, 507, 508, 509, 511, 512, 513, 1024, U32_MAX,
	};
	static const unsigned int far[] = {
		0x10000, 0x10001, 0x10004, 0x1fffc, 0x7fffffff, 0x80000000,
		U32_MAX,
	};
	unsigned int off, got, len, i, round, fpdus, markers, n;
	unsigned int fpdu_len[STREAM_FPDUS];
	struct xiw_mpa_unmark u;
	u8 src[8], *m, *p, *plain, *wire;
	size_t *at, total, marked, pos;
	struct rnd_state r;
	struct strip s;
	bool *bad;

	xiw_fuzz_start(test, &r);
	/* Every FPDUPTR finds its marker; any other offset does not. */
	m = kunit_kmalloc(test, XIW_MPA_MARKER_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	for (off = 0; off <= 0xffff; off++) {
		xiw_mpa_marker_build(off, m);
		KUNIT_ASSERT_EQ(test, get_unaligned_be16(m + 2), off);
		m[0] = rnd32(&r);	/* reserved: ignored on receipt */
		m[1] = rnd32(&r);
		KUNIT_ASSERT_EQ(test, xiw_mpa_marker_check(m, off), 0);
		KUNIT_ASSERT_EQ(test, xiw_mpa_marker_check(m, off ^
							   BIT(below(&r, 16))),
				-EPROTO);
	}
	/* FPDUPTR has 16 bits: no marker points further into an FPDU. */
	for (i = 0; i < 1000; i++) {
		rnd_fill(&r, m, XIW_MPA_MARKER_SIZE);
		off = i < ARRAY_SIZE(far) ? far[i] :
		      0x10000 + below(&r, U32_MAX - 0xffff);
		KUNIT_ASSERT_EQ(test, xiw_mpa_marker_check(m, off), -EPROTO);
	}

	/* Data runs up to the next marker, never past it nor past @len. */
	for (off = 0; off < XIW_MPA_MARKER_PERIOD; off++) {
		for (i = 0; i < ARRAY_SIZE(lens) + 4; i++) {
			unsigned int d;

			len = i < ARRAY_SIZE(lens) ? lens[i] : rnd32(&r);
			u = (struct xiw_mpa_unmark){ .off = off };
			d = xiw_mpa_unmark_data(&u, len);
			if (off < XIW_MPA_MARKER_SIZE) {
				KUNIT_ASSERT_EQ(test, d, 0U);
				continue;
			}
			KUNIT_ASSERT_LE(test, d, len);
			KUNIT_ASSERT_LE(test, off + d, XIW_MPA_MARKER_PERIOD);
			KUNIT_ASSERT_TRUE(test, d == len ||
					  off + d == XIW_MPA_MARKER_PERIOD);
			xiw_mpa_unmark_advance(&u, d);
			KUNIT_ASSERT_EQ(test, u.off,
					(off + d) % XIW_MPA_MARKER_PERIOD);
		}
	}

	/* A marker in pieces of every size, from exact buffers. */
	for (got = 0; got < XIW_MPA_MARKER_SIZE; got++) {
		for (len = 0; len <= XIW_MPA_MARKER_SIZE + 1; len++) {
			u8 before[XIW_MPA_MARKER_SIZE];

			u = (struct xiw_mpa_unmark){ .off = got, .got = got };
			rnd_fill(&r, u.marker, sizeof(u.marker));
			memcpy(before, u.marker, sizeof(before));
			rnd_fill(&r, src, sizeof(src));
			p = exact(test, src, len);
			n = xiw_mpa_unmark_take(&u, p, len);
			kunit_kfree(test, p);
			KUNIT_ASSERT_EQ(test, n, min(len, XIW_MPA_MARKER_SIZE -
							  got));
			KUNIT_ASSERT_EQ(test, u.got, got + n);
			KUNIT_ASSERT_EQ(test, u.off, got + n);
			KUNIT_ASSERT_MEMEQ(test, u.marker, before, got);
			KUNIT_ASSERT_MEMEQ(test, u.marker + got, src, n);
			KUNIT_ASSERT_MEMEQ(test, u.marker + got + n,
					   before + got + n,
					   XIW_MPA_MARKER_SIZE - got - n);
		}
	}

	/*
	 * Random marked streams, some markers damaged, received in chunks
	 * of random size, each in an exact buffer: the data comes out
	 * whole and in order, a marker whose FPDUPTR was damaged is refused
	 * and one whose reserved half was is not.
	 */
	plain = kunit_kmalloc(test, STREAM_PLAIN, GFP_KERNEL);
	wire = kunit_kmalloc(test, STREAM_PLAIN + 4 * STREAM_MARKERS,
			     GFP_KERNEL);
	at = kunit_kcalloc(test, STREAM_MARKERS, sizeof(*at), GFP_KERNEL);
	bad = kunit_kcalloc(test, STREAM_MARKERS, sizeof(*bad), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, plain);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	KUNIT_ASSERT_NOT_NULL(test, at);
	KUNIT_ASSERT_NOT_NULL(test, bad);
	for (round = 0; round < max(xiw_fuzz_iters / 1000, 1U); round++) {
		fpdus = 1 + below(&r, STREAM_FPDUS);
		total = 0;
		for (i = 0; i < fpdus; i++) {
			static const unsigned int edge[] = {
				8, 12, 504, 508, 512, 516, 1020, 1024,
			};

			fpdu_len[i] = one_in(&r, 3) ?
				      edge[below(&r, ARRAY_SIZE(edge))] :
				      4 * (2 + below(&r, STREAM_FPDU_MAX / 4 - 1));
			total += fpdu_len[i];
		}
		rnd_fill(&r, plain, total);
		marked = mark(plain, fpdu_len, fpdus, wire, at, &markers);
		KUNIT_ASSERT_LE(test, markers, STREAM_MARKERS);
		for (i = 0; i < markers; i++) {
			bad[i] = false;
			if (one_in(&r, 8)) {	/* FPDUPTR */
				wire[at[i] + 2 + below(&r, 2)] ^=
					1 << below(&r, 8);
				bad[i] = true;
			} else if (one_in(&r, 8)) {	/* reserved */
				wire[at[i] + below(&r, 2)] ^= 1 << below(&r, 8);
			}
		}

		s = (struct strip){ .left = fpdu_len[0] };
		for (pos = 0; pos < marked; pos += n) {
			switch (below(&r, 4)) {
			case 0:
				n = 1 + below(&r, 5);
				break;
			case 1:
				n = XIW_MPA_MARKER_PERIOD - 3 + below(&r, 7);
				break;
			default:
				n = 1 + below(&r, 1500);
				break;
			}
			n = min_t(size_t, n, marked - pos);
			p = exact(test, wire + pos, n);
			strip_chunk(test, &s, p, n, plain, fpdu_len, fpdus, bad);
			kunit_kfree(test, p);
		}
		KUNIT_ASSERT_EQ(test, s.plain, total);
		KUNIT_ASSERT_EQ(test, s.marker, markers);
		KUNIT_ASSERT_EQ(test, s.fpdu, fpdus - 1);
		KUNIT_ASSERT_EQ(test, s.left, 0U);
	}
}

static struct kunit_case xiw_mpa_fuzz_cases[] = {
	KUNIT_CASE(fuzz_mpa_hdr),
	KUNIT_CASE(fuzz_mpa_framing),
	KUNIT_CASE(fuzz_mpa_markers),
	{}
};

static struct kunit_suite xiw_mpa_fuzz_suite = {
	.name = "xiw_mpa_fuzz",
	.suite_init = xiw_fuzz_suite_init,
	.test_cases = xiw_mpa_fuzz_cases,
};

kunit_test_suite(xiw_mpa_fuzz_suite);
