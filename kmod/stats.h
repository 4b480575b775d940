/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-device counters (stats.c): what the device did, for "rdma statistic"
 * and xiwctl. Each is a per-CPU sum, cheap enough for any path.
 */
#ifndef XIW_STATS_H
#define XIW_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

struct ib_device;
struct rdma_hw_stats;

/**
 * enum xiw_stat - a device counter; names in stats.c
 * @XIW_STAT_FLUSH_GLOBAL: Flushes served for global visibility only
 * @XIW_STAT_FLUSH_PERSISTENT: Flushes to persistence served
 * @XIW_STAT_FLUSH_PMEM: of those, ones whose range held pmem
 * @XIW_STAT_FLUSH_FILE: of those, ones whose range held file pages
 * @XIW_STAT_FLUSH_DRAM: of those, ones whose range held DRAM (only when
 *	declared persistent)
 * @XIW_STAT_FLUSH_REFUSED: Flushes to persistence refused on arrival
 *	(the range holds DRAM not declared persistent)
 * @XIW_STAT_FLUSH_FAILED: Flushes that failed in their turn (writeback
 *	error, STag invalidated meanwhile)
 * @XIW_STAT_PMEM_WB_BYTES: octets of pmem whose cache lines were written
 *	back
 * @XIW_STAT_FILE_WB_BYTES: octets of file ranges written back and waited
 *	on
 * @XIW_STAT_TX_FPDUS: FPDUs framed for sending
 * @XIW_STAT_TX_BYTES: their ULPDU octets (DDP and RDMAP headers included)
 * @XIW_STAT_RX_FPDUS: FPDUs received whole, their CRC good (if used)
 * @XIW_STAT_RX_BYTES: their ULPDU octets
 * @XIW_STAT_CRC_ERRORS: FPDUs received with a bad CRC
 * @XIW_STAT_TERM_SENT: Terminates framed for sending
 * @XIW_STAT_TERM_RECEIVED: Terminates received
 * @XIW_NUM_STATS: how many there are
 */
enum xiw_stat {
	XIW_STAT_FLUSH_GLOBAL,
	XIW_STAT_FLUSH_PERSISTENT,
	XIW_STAT_FLUSH_PMEM,
	XIW_STAT_FLUSH_FILE,
	XIW_STAT_FLUSH_DRAM,
	XIW_STAT_FLUSH_REFUSED,
	XIW_STAT_FLUSH_FAILED,
	XIW_STAT_PMEM_WB_BYTES,
	XIW_STAT_FILE_WB_BYTES,
	XIW_STAT_TX_FPDUS,
	XIW_STAT_TX_BYTES,
	XIW_STAT_RX_FPDUS,
	XIW_STAT_RX_BYTES,
	XIW_STAT_CRC_ERRORS,
	XIW_STAT_TERM_SENT,
	XIW_STAT_TERM_RECEIVED,
	XIW_NUM_STATS
};

/**
 * struct xiw_stats - one CPU's share of a device's counters
 * @v: indexed by enum xiw_stat
 */
struct xiw_stats {
	u64 v[XIW_NUM_STATS];
};

/* Count @n events of @stat on @stats (struct xiw_stats __percpu *). */
#define xiw_stat_add(stats, stat, n)	this_cpu_add((stats)->v[stat], (n))

struct xiw_stats __percpu *xiw_stats_alloc(void);
void xiw_stats_free(struct xiw_stats __percpu *stats);
u64 xiw_stats_read(struct xiw_stats __percpu *stats, enum xiw_stat stat);
const char *xiw_stats_name(enum xiw_stat stat);
struct rdma_hw_stats *xiw_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port);
int xiw_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *hw,
		     u32 port, int index);

#endif /* XIW_STATS_H */
