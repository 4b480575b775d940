/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The data pattern xiwperf --check writes and verifies: a stream of bytes
 * defined by a 64-bit seed and a position, so a region can be produced or
 * checked starting at any offset of the stream.
 */
#ifndef XIWPERF_PATTERN_H
#define XIWPERF_PATTERN_H

#include <linux/types.h>

u64 xp_pattern_seed(u32 op, u32 qp, u64 seq);
void xp_pattern_fill(void *buf, size_t len, u64 seed, u64 pos, bool invert);
size_t xp_pattern_check(const void *buf, size_t len, u64 seed, u64 pos);

/* xp_pattern_check() result when every byte matched. */
#define XP_PATTERN_OK	SIZE_MAX

#endif /* XIWPERF_PATTERN_H */
