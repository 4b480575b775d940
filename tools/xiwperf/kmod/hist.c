// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf latency histogram. Values below 2^S have a bucket each; above,
 * every power of two [2^e, 2^(e+1)) is cut into 2^S equal buckets.
 */
#include <linux/bitops.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>

#include "hist.h"

#define S	XP_HIST_SUB_BITS

static unsigned int xp_bucket(u64 v)
{
	unsigned int e;

	if (v < (1ULL << S))
		return v;
	e = fls64(v) - 1;
	return ((e - S + 1) << S) | ((v >> (e - S)) & ((1U << S) - 1));
}

/* Midpoint of bucket @b. */
static u64 xp_bucket_value(unsigned int b)
{
	unsigned int g = b >> S;
	u64 lower, width;

	if (!g)
		return b;
	lower = (u64)((1U << S) | (b & ((1U << S) - 1))) << (g - 1);
	width = 1ULL << (g - 1);
	return lower + (width - 1) / 2;
}

/**
 * xp_hist_alloc() - allocate an empty histogram.
 *
 * Return: the histogram, or NULL without memory.
 */
struct xp_hist *xp_hist_alloc(void)
{
	struct xp_hist *h = kvzalloc(sizeof(*h), GFP_KERNEL);

	if (h)
		h->min = U64_MAX;
	return h;
}

/**
 * xp_hist_free() - free a histogram from xp_hist_alloc().
 * @h: the histogram, or NULL.
 */
void xp_hist_free(struct xp_hist *h)
{
	kvfree(h);
}

/**
 * xp_hist_add() - record one sample.
 * @h: the histogram.
 * @v: the sample (nanoseconds).
 */
void xp_hist_add(struct xp_hist *h, u64 v)
{
	h->count[xp_bucket(v)]++;
	h->n++;
	h->sum += v;
	h->min = min(h->min, v);
	h->max = max(h->max, v);
}

/**
 * xp_hist_merge() - add the samples of one histogram to another.
 * @into: the histogram that grows.
 * @from: the histogram to add.
 */
void xp_hist_merge(struct xp_hist *into, const struct xp_hist *from)
{
	unsigned int i;

	for (i = 0; i < XP_HIST_BUCKETS; i++)
		into->count[i] += from->count[i];
	into->n += from->n;
	into->sum += from->sum;
	into->min = min(into->min, from->min);
	into->max = max(into->max, from->max);
}

/**
 * xp_hist_percentile() - a percentile of the samples.
 * @h: the histogram.
 * @permille: which one, in tenths of a percent (500: median, 990: p99).
 *
 * Return: the midpoint of the bucket holding the sample of rank
 * ceil(@permille * n / 1000), clamped to the smallest and largest sample;
 * 0 for an empty histogram.
 */
u64 xp_hist_percentile(const struct xp_hist *h, unsigned int permille)
{
	u64 rank, seen = 0;
	unsigned int i;

	if (!h->n)
		return 0;
	rank = div_u64(h->n * permille + 999, 1000);
	rank = clamp(rank, 1ULL, h->n);
	for (i = 0; i < XP_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank)
			return clamp(xp_bucket_value(i), h->min, h->max);
	}
	return h->max;
}
