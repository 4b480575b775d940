/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Latency histogram: log-linear buckets (2^XP_HIST_SUB_BITS per power of
 * two), so percentiles come out within 1/64 of the true value at any scale.
 */
#ifndef XIWPERF_HIST_H
#define XIWPERF_HIST_H

#include <linux/types.h>

#define XP_HIST_SUB_BITS	6
#define XP_HIST_BUCKETS		((65 - XP_HIST_SUB_BITS) << XP_HIST_SUB_BITS)

/**
 * struct xp_hist - latency histogram of one connection.
 * @n: samples.
 * @sum: sum of the samples.
 * @min: smallest sample (U64_MAX while empty).
 * @max: largest sample.
 * @count: samples per bucket.
 */
struct xp_hist {
	u64 n;
	u64 sum;
	u64 min;
	u64 max;
	u64 count[XP_HIST_BUCKETS];
};

struct xp_hist *xp_hist_alloc(void);
void xp_hist_free(struct xp_hist *h);
void xp_hist_add(struct xp_hist *h, u64 v);
void xp_hist_merge(struct xp_hist *into, const struct xp_hist *from);
u64 xp_hist_percentile(const struct xp_hist *h, unsigned int permille);

#endif /* XIWPERF_HIST_H */
