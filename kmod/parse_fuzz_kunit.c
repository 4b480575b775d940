// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzing of every parser of the pure protocol files: what comes from the
 * wire (MPA frames and markers, DDP/RDMAP control octets, Terminates,
 * RFC 6581 connection data, Atomic, Flush, Verify and Atomic Write
 * requests, STags and the offsets they name), from netlink (RTR lists) and
 * from module parameters (the rtr text).
 *
 * Each case feeds boundary inputs (every length up to the largest plus
 * one, all zeros, all ones, each single bit, every value at a field's
 * limits) and then pseudo-random ones from a seeded PRNG, most of them
 * valid encodings with bits flipped, octets set to limit values, or cut
 * short. Parsers read from allocations of exactly the input's length, so
 * KASAN (kmod/.kunitconfig) catches a read past the end, and UBSAN any
 * undefined shift or index; either fails the case. The oracles: a parser
 * accepts exactly what the rules it implements allow, refuses the rest
 * with an error its kernel-doc names and, where it promises to, without
 * touching its output; what it accepts encodes back to the same octets;
 * builders and parsers invert each other.
 *
 * Every case prints its seed. Replay one with the kernel parameter
 * xiw_kunit.fuzz_seed=<seed> (scripts/kunit.sh --kernel_args=...);
 * xiw_kunit.fuzz_seed=0 draws a fresh seed, xiw_kunit.fuzz_iters=<n> sets
 * the number of random inputs per case.
 */
#include <kunit/test.h>
#include <linux/ctype.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "atomic.h"
#include "commit.h"
#include "hash.h"
#include "mpa.h"
#include "policy.h"
#include "rdmap.h"
#include "stag.h"

static ulong fuzz_seed = 10;
module_param(fuzz_seed, ulong, 0444);
MODULE_PARM_DESC(fuzz_seed, "Seed of the parser fuzzing; 0 draws one");

static uint fuzz_iters = 100000;
module_param(fuzz_iters, uint, 0444);
MODULE_PARM_DESC(fuzz_iters, "Random inputs per parser fuzzing case");

/* The seed of this run: fuzz_seed, or the one drawn for 0. */
static u64 fuzz_run_seed;

static void fuzz_start(struct kunit *test, struct rnd_state *r)
{
	prandom_seed_state(r, fuzz_run_seed);
	kunit_info(test, "seed %llu, %u random inputs (replay: xiw_kunit.fuzz_seed=%llu)\n",
		   fuzz_run_seed, fuzz_iters, fuzz_run_seed);
}

static u32 rnd32(struct rnd_state *r)
{
	return prandom_u32_state(r);
}

static u64 rnd64(struct rnd_state *r)
{
	u64 hi = rnd32(r);

	return hi << 32 | rnd32(r);
}

/* 0 .. @n - 1 (the bias of the modulo does not matter here) */
static u32 below(struct rnd_state *r, u32 n)
{
	return n ? rnd32(r) % n : 0;
}

static bool one_in(struct rnd_state *r, u32 n)
{
	return !below(r, n);
}

static void rnd_fill(struct rnd_state *r, void *buf, size_t len)
{
	prandom_bytes_state(r, buf, len);
}

/* Values at the limits of 8-, 16-, 32- and 64-bit fields and of xiw's. */
static const u64 edge64[] = {
	0, 1, 2, 3, 4, 7, 8, 9, 0x7f, 0x80, 0xff, 0x100, 0x1ff, 0x200, 0x201,
	0x3ffe, 0x3fff, 0x4000, 0x7fff, 0x8000, 0xfffe, 0xffff, 0x10000,
	0xffffff, 0x1000000, 0x7fffffff, 0x80000000, 0xfffffff8, 0xffffffff,
	0x100000000ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
	U64_MAX - 8, U64_MAX - 7, U64_MAX - 1, U64_MAX,
};

/* A value at some limit, near one, a single bit, or anything. */
static u64 rnd_edge(struct rnd_state *r)
{
	switch (below(r, 4)) {
	case 0:
		return edge64[below(r, ARRAY_SIZE(edge64))];
	case 1:
		return edge64[below(r, ARRAY_SIZE(edge64))] + below(r, 9) - 4;
	case 2:
		return 1ULL << below(r, 64);
	default:
		return rnd64(r);
	}
}

static const u8 edge8[] = { 0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff };

/* One to four bit flips, limit octets or random octets in @buf. */
static void mutate(struct rnd_state *r, u8 *buf, size_t len)
{
	unsigned int n = 1 + below(r, 4);

	while (len && n--) {
		size_t at = below(r, len);

		switch (below(r, 3)) {
		case 0:
			buf[at] ^= 1 << below(r, 8);
			break;
		case 1:
			buf[at] = edge8[below(r, ARRAY_SIZE(edge8))];
			break;
		default:
			buf[at] = rnd32(r);
			break;
		}
	}
}

/*
 * @len octets of @src in an allocation of exactly @len octets (ZERO_SIZE_PTR
 * for none): KASAN reports any access past them.
 */
static u8 *exact(struct kunit *test, const void *src, size_t len)
{
	u8 *p = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p, src, len);
	return p;
}

/*
 * The random inputs of a case must reach both sides of a parser's verdict:
 * at least one in a hundred accepted, and one in a hundred refused.
 */
static void fuzz_mix(struct kunit *test, const char *what, unsigned int yes,
		     unsigned int n)
{
	kunit_info(test, "%s: %u of %u random inputs accepted\n", what, yes, n);
	if (n < 1000)
		return;
	KUNIT_EXPECT_GE_MSG(test, yes, n / 100, "%s: too few accepted", what);
	KUNIT_EXPECT_GE_MSG(test, n - yes, n / 100, "%s: too few refused",
			    what);
}

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

	fuzz_start(test, &r);
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

	for (i = 0; i < fuzz_iters; i++) {
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
	fuzz_mix(test, "MPA header", yes, fuzz_iters);
}

/* FPDU length arithmetic, MULPDU and CRC32c */

static void fuzz_mpa_framing(struct kunit *test)
{
	unsigned int len, emss, i, markers;
	struct rnd_state r;
	u8 *data;

	fuzz_start(test, &r);
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
	for (i = 0; i < max(fuzz_iters / 100, 1U); i++) {
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

	fuzz_start(test, &r);
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
	for (round = 0; round < max(fuzz_iters / 1000, 1U); round++) {
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

	fuzz_start(test, &r);
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
	for (i = 0; i < fuzz_iters; i++) {
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
	fuzz_mix(test, "Terminate naming a message", yes, fuzz_iters);
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

	fuzz_start(test, &r);
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

	for (i = 0; i < fuzz_iters; i++) {
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

/* RFC 7306 Atomic Operation Request and Response */

static bool check_atomic_req(struct kunit *test, const struct xiw_atomic_req *in)
{
	struct xiw_atomic_req *buf = (void *)exact(test, in, sizeof(*in));
	struct xiw_atomic_op op, canary;
	struct xiw_atomic_req again;
	u8 aop = be32_to_cpu(in->aopcode) & XIW_AOP_MASK;
	bool aop_ok = aop == XIW_AOP_FETCH_ADD || aop == XIW_AOP_CMP_SWAP;
	bool to_ok = !(be64_to_cpu(in->to) & 7);
	int ret;

	memset(&canary, 0xa5, sizeof(canary));
	memcpy(&op, &canary, sizeof(op));
	ret = xiw_atomic_req_parse(buf, &op);
	kunit_kfree(test, buf);
	if (!aop_ok || !to_ok) {
		KUNIT_ASSERT_TRUE_MSG(test, (!aop_ok && ret == -EOPNOTSUPP) ||
				      (!to_ok && ret == -EINVAL),
				      "ret %d for %*ph", ret,
				      (int)sizeof(*in), in);
		KUNIT_ASSERT_MEMEQ(test, &op, &canary, sizeof(op));
		return false;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* Compare Data and Mask come as sent, whatever the AOpCode. */
	KUNIT_ASSERT_EQ(test, op.cmp, be64_to_cpu(in->cmp));
	KUNIT_ASSERT_EQ(test, op.cmp_mask, be64_to_cpu(in->cmp_mask));
	/*
	 * Encoded again: the same, reserved bits clear, FetchAdd's unused
	 * compare fields as RFC 7306 has a requester send them.
	 */
	xiw_atomic_req_build(&op, &again);
	KUNIT_ASSERT_EQ(test, be32_to_cpu(again.aopcode), aop);
	KUNIT_ASSERT_MEMEQ(test, &again.req_id, &in->req_id,
			   offsetof(struct xiw_atomic_req, cmp) -
			   offsetof(struct xiw_atomic_req, req_id));
	if (aop == XIW_AOP_CMP_SWAP) {
		KUNIT_ASSERT_EQ(test, be64_to_cpu(again.cmp),
				be64_to_cpu(in->cmp));
		KUNIT_ASSERT_EQ(test, be64_to_cpu(again.cmp_mask),
				be64_to_cpu(in->cmp_mask));
	} else {
		KUNIT_ASSERT_EQ(test, be64_to_cpu(again.cmp), 0ULL);
		KUNIT_ASSERT_EQ(test, be64_to_cpu(again.cmp_mask), U64_MAX);
	}
	return true;
}

static void rnd_atomic_req(struct rnd_state *r, struct xiw_atomic_req *a)
{
	a->aopcode = cpu_to_be32(one_in(r, 4) ? rnd32(r) :
				 (one_in(r, 2) ? XIW_AOP_CMP_SWAP :
						 XIW_AOP_FETCH_ADD));
	a->req_id = cpu_to_be32(rnd_edge(r));
	a->stag = cpu_to_be32(rnd_edge(r));
	a->to = cpu_to_be64(one_in(r, 2) ? rnd_edge(r) : rnd_edge(r) & ~7ULL);
	a->data = cpu_to_be64(rnd_edge(r));
	a->mask = cpu_to_be64(rnd_edge(r));
	a->cmp = cpu_to_be64(rnd_edge(r));
	a->cmp_mask = cpu_to_be64(rnd_edge(r));
}

static void fuzz_atomic(struct kunit *test)
{
	static const u64 tos[] = {
		0, 1, 2, 4, 7, 8, 0xfff8, 0x8000000000000000ULL,
		0x8000000000000001ULL, U64_MAX - 7, U64_MAX - 1, U64_MAX,
	};
	struct xiw_atomic_resp *resp;
	struct xiw_atomic_req req;
	unsigned int aop, i, bit, yes = 0;
	struct rnd_state r;
	u64 orig;

	fuzz_start(test, &r);
	/* Every AOpCode, reserved bits clear or set, at every offset limit. */
	for (aop = 0; aop <= XIW_AOP_MASK; aop++) {
		for (i = 0; i < ARRAY_SIZE(tos); i++) {
			rnd_atomic_req(&r, &req);
			req.to = cpu_to_be64(tos[i]);
			req.aopcode = cpu_to_be32(aop);
			check_atomic_req(test, &req);
			req.aopcode = cpu_to_be32(aop | ~XIW_AOP_MASK);
			check_atomic_req(test, &req);
		}
	}
	/* Each single bit of valid requests, and all zeros and all ones. */
	for (aop = 0; aop < 2; aop++) {
		for (bit = 0; bit < 8 * sizeof(req); bit++) {
			rnd_atomic_req(&r, &req);
			req.aopcode = cpu_to_be32(aop ? XIW_AOP_CMP_SWAP :
						  XIW_AOP_FETCH_ADD);
			req.to = cpu_to_be64(be64_to_cpu(req.to) & ~7ULL);
			((u8 *)&req)[bit / 8] ^= 1 << (bit % 8);
			check_atomic_req(test, &req);
		}
	}
	memset(&req, 0, sizeof(req));
	check_atomic_req(test, &req);
	memset(&req, 0xff, sizeof(req));
	check_atomic_req(test, &req);

	for (i = 0; i < fuzz_iters; i++) {
		rnd_atomic_req(&r, &req);
		if (one_in(&r, 2))
			mutate(&r, (u8 *)&req, sizeof(req));
		yes += check_atomic_req(test, &req);
	}
	fuzz_mix(test, "Atomic Request", yes, fuzz_iters);

	/* A response matches its own Request Identifier, and only it. */
	resp = kunit_kmalloc(test, sizeof(*resp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, resp);
	for (i = 0; i < fuzz_iters; i++) {
		u32 id = rnd_edge(&r), want = one_in(&r, 2) ? id : rnd_edge(&r);
		u64 val = rnd_edge(&r);

		xiw_atomic_resp_build(id, val, resp);
		if (one_in(&r, 4))
			mutate(&r, (u8 *)resp, sizeof(*resp));
		orig = ~be64_to_cpu(resp->orig);
		if (be32_to_cpu(resp->req_id) != want) {
			KUNIT_ASSERT_EQ(test, xiw_atomic_resp_match(resp, want,
								    &orig),
					-EPROTO);
			KUNIT_ASSERT_EQ(test, orig, ~be64_to_cpu(resp->orig));
		} else {
			KUNIT_ASSERT_EQ(test, xiw_atomic_resp_match(resp, want,
								    &orig), 0);
			KUNIT_ASSERT_EQ(test, orig, be64_to_cpu(resp->orig));
		}
	}
}

/* The commit draft's Flush, Verify and Atomic Write requests */

static bool check_flush_req(struct kunit *test, const struct xiw_flush_req *in)
{
	struct xiw_flush_req *buf = (void *)exact(test, in, sizeof(*in));
	u8 flags = be32_to_cpu(in->flags);
	bool ok = (flags & XIW_FLUSH_DISPOSITION) && !(flags & ~XIW_FLUSH_FLAGS);
	struct xiw_flush_req again;
	struct xiw_commit_req req;
	int ret;

	ret = xiw_flush_req_parse(buf, &req);
	kunit_kfree(test, buf);
	KUNIT_ASSERT_EQ_MSG(test, ret, ok ? 0 : -EINVAL, "flags %08x",
			    be32_to_cpu(in->flags));
	if (!ok)
		return false;
	KUNIT_ASSERT_EQ(test, req.hash_len, 0);
	KUNIT_ASSERT_EQ(test, req.data, 0ULL);
	/* The same octets again, the reserved ones above the flags clear. */
	xiw_flush_req_build(&again, req.stag, req.to, req.len, req.flags);
	KUNIT_ASSERT_MEMEQ(test, &again, in, offsetof(struct xiw_flush_req,
						      flags));
	KUNIT_ASSERT_EQ(test, be32_to_cpu(again.flags), flags);
	return true;
}

static bool check_verify_req(struct kunit *test,
			     const struct xiw_verify_req *in, size_t hash_len)
{
	struct xiw_verify_req *buf = (void *)exact(test, in, sizeof(*in));
	struct xiw_verify_req again;
	struct xiw_commit_req req;
	int ret;

	ret = xiw_verify_req_parse(buf, hash_len, &req);
	kunit_kfree(test, buf);
	if (hash_len > XIW_VERIFY_HASH_MAX) {
		KUNIT_ASSERT_EQ(test, ret, -EMSGSIZE);
		return false;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, req.hash_len, hash_len);
	KUNIT_ASSERT_EQ(test, req.flags, 0);
	xiw_verify_req_build(&again, req.stag, req.to, req.len);
	KUNIT_ASSERT_MEMEQ(test, &again, in, sizeof(again));
	return true;
}

static bool check_atomic_write_req(struct kunit *test,
				   const struct xiw_atomic_write_req *in,
				   u64 orig)
{
	struct xiw_atomic_write_req *buf = (void *)exact(test, in, sizeof(*in));
	bool ok = be32_to_cpu(in->len) == XIW_ATOMIC_WRITE_LEN &&
		  !(be64_to_cpu(in->to) % XIW_ATOMIC_WRITE_LEN);
	struct xiw_atomic_write_req again;
	struct xiw_commit_req req;
	struct xiw_atomic_op op;
	int ret;

	ret = xiw_atomic_write_req_parse(buf, &req);
	kunit_kfree(test, buf);
	KUNIT_ASSERT_EQ_MSG(test, ret, ok ? 0 : -EINVAL, "request %*ph",
			    (int)sizeof(*in), in);
	if (!ok)
		return false;
	xiw_atomic_write_req_build(&again, req.stag, req.to, req.data);
	KUNIT_ASSERT_MEMEQ(test, &again, in, sizeof(again));
	/* Placed as an unconditional swap: whatever was there, the data. */
	xiw_atomic_write_op(&op, req.stag, req.to, req.data);
	KUNIT_ASSERT_EQ(test, xiw_atomic_apply(&op, orig), req.data);
	return true;
}

static void fuzz_commit(struct kunit *test)
{
	static const u64 hash_lens[] = {
		0, 1, 4, 31, 32, 33, 63, XIW_VERIFY_HASH_MAX,
		XIW_VERIFY_HASH_MAX + 1, 255, 256, 0xffff, 0x10000, U32_MAX,
		SIZE_MAX,
	};
	static const u32 wlens[] = { 0, 1, 4, 7, 8, 9, 16, 0x80000008,
				     U32_MAX };
	struct xiw_atomic_write_req aw;
	struct xiw_verify_req vr;
	struct xiw_flush_req fr;
	unsigned int i, bit, yes = 0;
	struct rnd_state r;

	fuzz_start(test, &r);
	/* Every flag octet, with the reserved octets above clear or not. */
	for (i = 0; i < 512; i++) {
		xiw_flush_req_build(&fr, rnd_edge(&r), rnd_edge(&r),
				    rnd_edge(&r), i & 0xff);
		if (i >= 256)
			fr.flags |= cpu_to_be32(rnd32(&r) & ~0xffU);
		check_flush_req(test, &fr);
	}
	/* Every hash length to one past the largest, and the far limits. */
	for (i = 0; i < ARRAY_SIZE(hash_lens) + XIW_VERIFY_HASH_MAX + 2; i++) {
		xiw_verify_req_build(&vr, rnd_edge(&r), rnd_edge(&r),
				     rnd_edge(&r));
		check_verify_req(test, &vr, i < ARRAY_SIZE(hash_lens) ?
				 hash_lens[i] : i - ARRAY_SIZE(hash_lens));
	}
	/* Atomic Write: every length limit, every misalignment. */
	for (i = 0; i < ARRAY_SIZE(wlens) * 16; i++) {
		xiw_atomic_write_req_build(&aw, rnd_edge(&r),
					   (rnd_edge(&r) & ~15ULL) + i % 16,
					   rnd_edge(&r));
		aw.len = cpu_to_be32(wlens[i / 16]);
		check_atomic_write_req(test, &aw, rnd_edge(&r));
	}
	/* Each single bit of valid requests, all zeros and all ones. */
	for (bit = 0; bit < 8 * sizeof(aw); bit++) {
		xiw_flush_req_build(&fr, rnd32(&r), rnd64(&r), rnd32(&r),
				    XIW_FLUSH_PERSISTENT);
		xiw_atomic_write_req_build(&aw, rnd32(&r), rnd64(&r) & ~7ULL,
					   rnd64(&r));
		if (bit < 8 * sizeof(fr)) {
			((u8 *)&fr)[bit / 8] ^= 1 << (bit % 8);
			check_flush_req(test, &fr);
		}
		((u8 *)&aw)[bit / 8] ^= 1 << (bit % 8);
		check_atomic_write_req(test, &aw, rnd64(&r));
	}
	memset(&fr, 0, sizeof(fr));
	memset(&aw, 0, sizeof(aw));
	check_flush_req(test, &fr);
	check_atomic_write_req(test, &aw, rnd64(&r));
	memset(&fr, 0xff, sizeof(fr));
	memset(&aw, 0xff, sizeof(aw));
	check_flush_req(test, &fr);
	check_atomic_write_req(test, &aw, rnd64(&r));

	for (i = 0; i < fuzz_iters; i++) {
		switch (below(&r, 3)) {
		case 0:
			xiw_flush_req_build(&fr, rnd_edge(&r), rnd_edge(&r),
					    rnd_edge(&r), rnd32(&r));
			mutate(&r, (u8 *)&fr, below(&r, 2) * sizeof(fr));
			yes += check_flush_req(test, &fr);
			break;
		case 1:
			xiw_verify_req_build(&vr, rnd_edge(&r), rnd_edge(&r),
					     rnd_edge(&r));
			mutate(&r, (u8 *)&vr, below(&r, 2) * sizeof(vr));
			yes += check_verify_req(test, &vr, one_in(&r, 2) ?
						below(&r,
						      2 * XIW_VERIFY_HASH_MAX) :
						rnd_edge(&r));
			break;
		default:
			xiw_atomic_write_req_build(&aw, rnd_edge(&r),
						   rnd_edge(&r) & ~7ULL,
						   rnd_edge(&r));
			mutate(&r, (u8 *)&aw, below(&r, 2) * sizeof(aw));
			yes += check_atomic_write_req(test, &aw, rnd_edge(&r));
			break;
		}
	}
	fuzz_mix(test, "Flush, Verify or Atomic Write Request", yes,
		 fuzz_iters);
}

/* RDMA Verify hashes */

static void hash_of(struct kunit *test, u8 alg, const u8 *data, u32 len,
		    u32 cut, u8 *out)
{
	u8 *a = exact(test, data, cut), *b = exact(test, data + cut, len - cut);
	struct xiw_hash h;

	xiw_hash_init(&h, alg);
	xiw_hash_update(&h, a, cut);
	xiw_hash_update(&h, b, len - cut);
	xiw_hash_final(&h, out);
	kunit_kfree(test, a);
	kunit_kfree(test, b);
}

static void check_hash_name(struct kunit *test, const char *name)
{
	char *s = (char *)exact(test, name, strlen(name) + 1);
	int want = -ENOENT;

	if (!strcmp(name, "crc32c"))
		want = XIW_HASH_CRC32C;
	else if (!strcmp(name, "sha256"))
		want = XIW_HASH_SHA256;
	KUNIT_ASSERT_EQ_MSG(test, xiw_hash_alg_by_name(s), want, "'%s'", name);
	kunit_kfree(test, s);
}

static void fuzz_hash(struct kunit *test)
{
	static const char *const names[] = { "crc32c", "sha256" };
	static const u32 lens[] = { 0, 1, 3, 4, 5, 55, 56, 63, 64, 65, 127,
				    128, 129, 4095, 4096 };
	static const char alphabet[] = "\ncrc32csha256CRCSHA-_ \x01\x7f\xa0\xff";
	unsigned int alg, i, j, len;
	u8 *data, *one, *two;
	struct rnd_state r;
	char name[24];

	fuzz_start(test, &r);
	/* Every algorithm value: only the two known ones have a digest. */
	for (alg = 0; alg < 256; alg++) {
		unsigned int n = xiw_hash_len(alg);

		KUNIT_ASSERT_LE(test, n, XIW_VERIFY_HASH_MAX);
		KUNIT_ASSERT_EQ(test, !!n,
				alg == XIW_HASH_CRC32C || alg == XIW_HASH_SHA256);
	}
	/* Names: exact, each prefix, one more character, another case. */
	check_hash_name(test, "");
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		for (len = 0; len <= strlen(names[i]); len++) {
			strscpy(name, names[i], len + 1);
			check_hash_name(test, name);
			for (j = 0; j < sizeof(alphabet) - 1; j++) {
				name[len] = alphabet[j];
				name[len + 1] = 0;
				check_hash_name(test, name);
			}
		}
		strscpy(name, names[i], sizeof(name));
		name[0] = toupper(name[0]);
		check_hash_name(test, name);
	}
	for (i = 0; i < fuzz_iters / 10; i++) {
		len = below(&r, sizeof(name));
		for (j = 0; j < len; j++)
			name[j] = one_in(&r, 8) ? 1 + below(&r, 255) :
				  alphabet[below(&r, sizeof(alphabet) - 1)];
		name[len] = 0;
		check_hash_name(test, name);
	}

	/* Digests of exact buffers, into exact buffers, split anywhere. */
	data = kunit_kmalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);
	for (i = 0; i < ARRAY_SIZE(lens) + fuzz_iters / 200; i++) {
		alg = one_in(&r, 2) ? XIW_HASH_CRC32C : XIW_HASH_SHA256;
		len = i < ARRAY_SIZE(lens) ? lens[i] : below(&r, 4097);
		rnd_fill(&r, data, len);
		one = kunit_kmalloc(test, xiw_hash_len(alg), GFP_KERNEL);
		two = kunit_kmalloc(test, xiw_hash_len(alg), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, one);
		KUNIT_ASSERT_NOT_NULL(test, two);
		hash_of(test, alg, data, len, len, one);
		hash_of(test, alg, data, len, below(&r, len + 1), two);
		KUNIT_ASSERT_MEMEQ(test, one, two, xiw_hash_len(alg));
		kunit_kfree(test, one);
		kunit_kfree(test, two);
	}
}

/* STags: what a tagged access names, and the index permutation */

#define STAG_ACCESS_BITS	0xf

/*
 * RFC 5040's checks, written from the ranges' last octets: a range of
 * @len octets at @to wraps if its last octet is past 2^64 - 1, and fits a
 * registration if its first and last octets (its first, when empty) lie
 * within the registration's.
 */
static int ref_stag_check(const struct xiw_stag *s, u32 stag,
			  const void *owner, int access, u64 to, u64 len)
{
	int prot = XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT, 0);

	if (!s->valid || s->stag != stag)
		return prot | XIW_RDMAP_INV_STAG;
	if (s->owner != owner)
		return prot | XIW_RDMAP_STAG_NOT_ASSOC;
	if ((s->access & access) != access)
		return prot | XIW_RDMAP_ACCESS;
	if (len && U64_MAX - to < len - 1)
		return prot | XIW_RDMAP_TO_WRAP;
	if (!s->length)
		return 0;	/* all of memory */
	if (to < s->base)
		return prot | XIW_RDMAP_BOUNDS;
	if (!len)
		return to - s->base <= s->length ? 0 :
		       prot | XIW_RDMAP_BOUNDS;
	return to + (len - 1) <= s->base + (s->length - 1) ? 0 :
	       prot | XIW_RDMAP_BOUNDS;
}

/* Offsets and lengths around a registration's edges. */
static u64 rnd_near(struct rnd_state *r, u64 base, u64 length)
{
	switch (below(r, 4)) {
	case 0:
		return base + below(r, 5) - 2;
	case 1:
		return base + length + below(r, 5) - 2;
	case 2:
		return base + below(r, length ? min_t(u64, length, U32_MAX) :
						U32_MAX);
	default:
		return rnd_edge(r);
	}
}

/* A registration that can exist: its last octet is in the 64-bit space. */
static void rnd_stag(struct rnd_state *r, struct xiw_stag *s,
		     const int *owners)
{
	s->valid = !one_in(r, 8);
	s->fast = one_in(r, 2);
	s->stag = rnd_edge(r);
	s->owner = &owners[below(r, 2)];
	s->access = rnd32(r) & STAG_ACCESS_BITS;
	s->base = 0;
	s->length = 0;	/* all of memory */
	if (one_in(r, 8))
		return;
	s->base = rnd_edge(r);
	s->length = max_t(u64, rnd_edge(r), 1);
	if (s->length - 1 > U64_MAX - s->base)
		s->length = U64_MAX - s->base + 1;
}

#define STAG_INDEX_MAX	(BIT(XIW_STAG_INDEX_BITS) - 1)

static void fuzz_stag(struct kunit *test)
{
	static const u32 ends[] = { 1, 2, STAG_INDEX_MAX - 1, STAG_INDEX_MAX };
	static const int owners[2];
	struct xiw_stag_perm perm;
	struct xiw_stag s, model;
	unsigned int i, k, yes = 0;
	struct rnd_state r;

	fuzz_start(test, &r);
	/* Tagged accesses around the edges of any registration. */
	for (i = 0; i < fuzz_iters; i++) {
		const void *owner;
		int access, ret;
		u64 to, len;
		u32 stag;

		rnd_stag(&r, &s, owners);
		stag = one_in(&r, 4) ? rnd_edge(&r) :
		       s.stag ^ (one_in(&r, 4) ? BIT(below(&r, 32)) : 0);
		owner = one_in(&r, 8) ? &owners[s.owner == &owners[0]] :
					s.owner;
		access = one_in(&r, 4) ? rnd32(&r) & STAG_ACCESS_BITS :
					 s.access & rnd32(&r);
		to = rnd_near(&r, s.base, s.length);
		len = one_in(&r, 2) ? rnd_edge(&r) :
		      rnd_near(&r, s.base, s.length) - to;
		ret = xiw_stag_check(&s, stag, owner, access, to, len);
		KUNIT_ASSERT_EQ_MSG(test, ret,
				    ref_stag_check(&s, stag, owner, access, to,
						   len),
				    "base %llx length %llx to %llx len %llx",
				    s.base, s.length, to, len);
		yes += !ret;
	}
	fuzz_mix(test, "tagged access", yes, fuzz_iters);

	/*
	 * Registration and invalidation in random order against a model of
	 * their kernel-doc: what is registered is exactly what checks pass.
	 */
	for (i = 0; i < fuzz_iters / 10; i++) {
		const void *owner = &owners[below(&r, 2)];
		u64 base = rnd_edge(&r), length = rnd_edge(&r);
		u32 key;
		int ret, want;

		if (!(i % 64)) {
			rnd_stag(&r, &model, owners);
			s = model;
		}
		key = one_in(&r, 4) ? rnd_edge(&r) :
		      (model.stag & ~XIW_STAG_KEY_MASK) | below(&r, 256);
		if (one_in(&r, 2)) {
			ret = xiw_stag_register(&s, key, owner, model.access,
						base, length);
			if (!model.fast || model.owner != owner)
				want = -EPERM;
			else if (model.valid)
				want = -EBUSY;
			else if (xiw_stag_index(key) !=
				 xiw_stag_index(model.stag) || !length ||
				 length - 1 >= U64_MAX - base)
				want = -EINVAL;	/* its end must be a u64 */
			else
				want = 0;
			KUNIT_ASSERT_EQ_MSG(test, ret, want,
					    "base %llx length %llx", base,
					    length);
			if (!ret) {
				model.valid = true;
				model.stag = key;
				model.base = base;
				model.length = length;
			}
		} else {
			key = one_in(&r, 2) ? model.stag : key;
			ret = xiw_stag_invalidate(&s, key, owner);
			if (!model.valid || model.stag != key)
				want = XIW_TERM(XIW_TERM_LAYER_RDMAP,
						XIW_RDMAP_ETYPE_PROT,
						XIW_RDMAP_INV_STAG);
			else if (!model.fast || model.owner != owner)
				want = XIW_TERM(XIW_TERM_LAYER_RDMAP,
						XIW_RDMAP_ETYPE_PROT,
						XIW_RDMAP_CANT_INVALIDATE);
			else
				want = 0;
			KUNIT_ASSERT_EQ(test, ret, want);
			if (!ret)
				model.valid = false;
		}
		KUNIT_ASSERT_EQ(test, s.valid, model.valid);
		KUNIT_ASSERT_EQ(test, s.stag, model.stag);
		KUNIT_ASSERT_EQ(test, s.base, model.base);
		KUNIT_ASSERT_EQ(test, s.length, model.length);
	}

	/*
	 * Permutations under random keys: every slot and every STag index
	 * a peer can name maps and maps back.
	 */
	for (k = 0; k < 16; k++) {
		rnd_fill(&r, perm.key, sizeof(perm.key));
		KUNIT_ASSERT_EQ(test, xiw_stag_perm_slot(&perm, 0), 0U);
		for (i = 0; i < fuzz_iters / 16; i++) {
			u32 x = i < ARRAY_SIZE(ends) ? ends[i] :
				xiw_stag_index(rnd32(&r)) ?: 1;
			u32 index = xiw_stag_perm_index(&perm, x);
			u32 slot = xiw_stag_perm_slot(&perm, x);

			KUNIT_ASSERT_GE(test, index, 1U);
			KUNIT_ASSERT_LE(test, index, STAG_INDEX_MAX);
			KUNIT_ASSERT_EQ(test, xiw_stag_perm_slot(&perm, index),
					x);
			KUNIT_ASSERT_GE(test, slot, 1U);
			KUNIT_ASSERT_LE(test, slot, STAG_INDEX_MAX);
			KUNIT_ASSERT_EQ(test, xiw_stag_perm_index(&perm, slot),
					x);
		}
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

	fuzz_start(test, &r);
	/* Every list of limit octets, then random ones. */
	for (i = 0; i < o * o * o * o; i++)
		check_rtr_list(test, octet[i % o] | octet[i / o % o] << 8 |
			       octet[i / o / o % o] << 16 |
			       (u32)octet[i / o / o / o] << 24);
	for (i = 0; i < fuzz_iters; i++)
		yes += check_rtr_list(test, one_in(&r, 2) ? rnd32(&r) :
				      (below(&r, 5) | below(&r, 5) << 8 |
				       below(&r, 5) << 16 | below(&r, 2) << 24));
	fuzz_mix(test, "RTR list", yes, fuzz_iters);

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
	for (i = 0; i < fuzz_iters / 4; i++) {
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
	fuzz_mix(test, "rtr text", yes, fuzz_iters / 4);
}

static int fuzz_suite_init(struct kunit_suite *suite)
{
	fuzz_run_seed = fuzz_seed ?: get_random_u64();
	return 0;
}

static struct kunit_case xiw_parse_fuzz_cases[] = {
	KUNIT_CASE(fuzz_mpa_hdr),
	KUNIT_CASE(fuzz_mpa_framing),
	KUNIT_CASE(fuzz_mpa_markers),
	KUNIT_CASE(fuzz_rdmap_ctrl),
	KUNIT_CASE(fuzz_rdmap_terminate),
	KUNIT_CASE(fuzz_rdmap_mpa_v2),
	KUNIT_CASE(fuzz_atomic),
	KUNIT_CASE(fuzz_commit),
	KUNIT_CASE(fuzz_hash),
	KUNIT_CASE(fuzz_stag),
	KUNIT_CASE(fuzz_policy_rtr),
	{}
};

static struct kunit_suite xiw_parse_fuzz_suite = {
	.name = "xiw_parse_fuzz",
	.suite_init = fuzz_suite_init,
	.test_cases = xiw_parse_fuzz_cases,
};

kunit_test_suite(xiw_parse_fuzz_suite);
