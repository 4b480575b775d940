// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf data pattern. Stream position p holds byte p % 8 (little-endian)
 * of the 64-bit word seed + (p / 8) * XP_STEP. Each word of a stream is
 * distinct, and streams of different seeds differ at every word, so a
 * stale, shifted or foreign buffer fails the check at its first word.
 */
#include <linux/bits.h>
#include <xiw/compat.h>

#include "pattern.h"

#define XP_STEP		0x9e3779b97f4a7c15ULL	/* odd: word values never repeat */

static u64 xp_mix(u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/**
 * xp_pattern_seed() - the seed of one operation's pattern.
 * @op: enum xiwperf_op.
 * @qp: index of the connection.
 * @seq: sequence number of the operation on its connection.
 *
 * Return: a seed that differs for every (@op, @qp, @seq).
 */
u64 xp_pattern_seed(u32 op, u32 qp, u64 seq)
{
	return xp_mix(seq ^ ((u64)qp << 44) ^ ((u64)op << 56));
}

static u64 xp_word(u64 seed, u64 w)
{
	return seed + w * XP_STEP;
}

static u8 xp_byte(u64 seed, u64 pos)
{
	return xp_word(seed, pos >> 3) >> (8 * (pos & 7));
}

/**
 * xp_pattern_fill() - write part of a pattern stream.
 * @buf: destination.
 * @len: bytes to write.
 * @seed: the stream (xp_pattern_seed()).
 * @pos: stream position of @buf[0].
 * @invert: write the complement, which differs from the pattern at every
 *	byte (used to poison a buffer that is about to be read into).
 */
void xp_pattern_fill(void *buf, size_t len, u64 seed, u64 pos, bool invert)
{
	u64 x = invert ? ~0ULL : 0;
	u8 *p = buf;
	size_t i = 0;
	u64 w;

	for (; i < len && ((pos + i) & 7); i++)
		p[i] = xp_byte(seed, pos + i) ^ (u8)x;
	for (w = (pos + i) >> 3; len - i >= 8; i += 8, w++)
		put_unaligned_le64(xp_word(seed, w) ^ x, p + i);
	for (; i < len; i++)
		p[i] = xp_byte(seed, pos + i) ^ (u8)x;
}

/**
 * xp_pattern_check() - verify part of a pattern stream.
 * @buf: data to verify.
 * @len: bytes to verify.
 * @seed: the stream (xp_pattern_seed()).
 * @pos: stream position of @buf[0].
 *
 * Return: offset in @buf of the first wrong byte, or XP_PATTERN_OK.
 */
size_t xp_pattern_check(const void *buf, size_t len, u64 seed, u64 pos)
{
	const u8 *p = buf;
	size_t i = 0;
	u64 w;

	for (; i < len && ((pos + i) & 7); i++)
		if (p[i] != xp_byte(seed, pos + i))
			return i;
	for (w = (pos + i) >> 3; len - i >= 8; i += 8, w++)
		if (get_unaligned_le64(p + i) != xp_word(seed, w))
			break;
	for (; i < len; i++)
		if (p[i] != xp_byte(seed, pos + i))
			return i;
	return XP_PATTERN_OK;
}
