/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzzing of every parser of the pure protocol files: what comes from the
 * wire (MPA frames and markers, DDP/RDMAP control octets, Terminates,
 * RFC 6581 connection data, Atomic, Flush, Verify and Atomic Write
 * requests, STags and the offsets they name), from netlink (RTR lists) and
 * from module parameters (the rtr text). One suite per concern:
 * mpa_fuzz_kunit.c (xiw_mpa_fuzz: MPA headers, framing, markers),
 * rdmap_fuzz_kunit.c (xiw_rdmap_fuzz: DDP/RDMAP control, Terminate,
 * RFC 6581 data and RTR) and ext_fuzz_kunit.c (xiw_ext_fuzz: RFC 7306
 * atomics, the commit draft's requests, Verify hashes, STags). This
 * header holds what they share; fuzz_kunit.c the seed and count.
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
#ifndef XIW_FUZZ_KUNIT_H
#define XIW_FUZZ_KUNIT_H

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>

/* Random inputs per case: the xiw_kunit.fuzz_iters parameter. */
extern unsigned int xiw_fuzz_iters;

/* The suite_init of every fuzzing suite: settles the run's seed. */
int xiw_fuzz_suite_init(struct kunit_suite *suite);

/* Seeds @r with the run's seed and prints it. */
void xiw_fuzz_start(struct kunit *test, struct rnd_state *r);

static inline u32 rnd32(struct rnd_state *r)
{
	return prandom_u32_state(r);
}

static inline u64 rnd64(struct rnd_state *r)
{
	u64 hi = rnd32(r);

	return hi << 32 | rnd32(r);
}

/* 0 .. @n - 1 (the bias of the modulo does not matter here) */
static inline u32 below(struct rnd_state *r, u32 n)
{
	return n ? rnd32(r) % n : 0;
}

static inline bool one_in(struct rnd_state *r, u32 n)
{
	return !below(r, n);
}

static inline void rnd_fill(struct rnd_state *r, void *buf, size_t len)
{
	prandom_bytes_state(r, buf, len);
}

/* A value at some limit, near one, a single bit, or anything. */
static inline u64 rnd_edge(struct rnd_state *r)
{
	/* Values at the limits of 8-, 16-, 32- and 64-bit fields and xiw's. */
	static const u64 edge64[] = {
		0, 1, 2, 3, 4, 7, 8, 9, 0x7f, 0x80, 0xff, 0x100, 0x1ff, 0x200,
		0x201, 0x3ffe, 0x3fff, 0x4000, 0x7fff, 0x8000, 0xfffe, 0xffff,
		0x10000, 0xffffff, 0x1000000, 0x7fffffff, 0x80000000,
		0xfffffff8, 0xffffffff, 0x100000000ULL, 0x7fffffffffffffffULL,
		0x8000000000000000ULL, U64_MAX - 8, U64_MAX - 7, U64_MAX - 1,
		U64_MAX,
	};

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

/* One to four bit flips, limit octets or random octets in @buf. */
static inline void mutate(struct rnd_state *r, u8 *buf, size_t len)
{
	static const u8 edge8[] = { 0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff };
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
static inline u8 *exact(struct kunit *test, const void *src, size_t len)
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
static inline void fuzz_mix(struct kunit *test, const char *what,
			    unsigned int yes, unsigned int n)
{
	kunit_info(test, "%s: %u of %u random inputs accepted\n", what, yes, n);
	if (n < 1000)
		return;
	KUNIT_EXPECT_GE_MSG(test, yes, n / 100, "%s: too few accepted", what);
	KUNIT_EXPECT_GE_MSG(test, n - yes, n / 100, "%s: too few refused",
			    what);
}

#endif /* XIW_FUZZ_KUNIT_H */
