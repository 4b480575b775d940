// SPDX-License-Identifier: GPL-2.0
/*
 * Per-device counters. Paths that count add to their CPU's share without
 * a lock; readers sum the shares, so a reading is a moment's total, each
 * counter exact, not a snapshot of all at one instant.
 *
 * The RDMA core shows them as the port's hardware counters ("rdma
 * statistic show", /sys/class/infiniband/DEV/ports/1/hw_counters).
 */
#include <linux/cpumask.h>
#include <rdma/ib_verbs.h>

#include "device.h"
#include "stats.h"

/* Names as the RDMA core shows them, indexed by enum xiw_stat. */
static const struct rdma_stat_desc xiw_stat_descs[XIW_NUM_STATS] = {
	[XIW_STAT_FLUSH_GLOBAL] = { .name = "flush_global" },
	[XIW_STAT_FLUSH_PERSISTENT] = { .name = "flush_persistent" },
	[XIW_STAT_FLUSH_PMEM] = { .name = "flush_pmem" },
	[XIW_STAT_FLUSH_FILE] = { .name = "flush_file" },
	[XIW_STAT_FLUSH_DRAM] = { .name = "flush_dram" },
	[XIW_STAT_FLUSH_REFUSED] = { .name = "flush_refused" },
	[XIW_STAT_FLUSH_FAILED] = { .name = "flush_failed" },
	[XIW_STAT_PMEM_WB_BYTES] = { .name = "pmem_writeback_bytes" },
	[XIW_STAT_FILE_WB_BYTES] = { .name = "file_writeback_bytes" },
	[XIW_STAT_TX_FPDUS] = { .name = "tx_fpdus" },
	[XIW_STAT_TX_BYTES] = { .name = "tx_bytes" },
	[XIW_STAT_RX_FPDUS] = { .name = "rx_fpdus" },
	[XIW_STAT_RX_BYTES] = { .name = "rx_bytes" },
	[XIW_STAT_CRC_ERRORS] = { .name = "crc_errors" },
	[XIW_STAT_TERM_SENT] = { .name = "terminates_sent" },
	[XIW_STAT_TERM_RECEIVED] = { .name = "terminates_received" },
};

/**
 * xiw_stats_name() - a counter's name, as "rdma statistic" shows it
 * @stat: which
 *
 * Return: the name.
 */
const char *xiw_stats_name(enum xiw_stat stat)
{
	return xiw_stat_descs[stat].name;
}

/**
 * xiw_stats_alloc() - zeroed counters for a new device
 *
 * Return: the per-CPU counters, or NULL without memory.
 */
struct xiw_stats __percpu *xiw_stats_alloc(void)
{
	return alloc_percpu(struct xiw_stats);
}

/**
 * xiw_stats_free() - free counters of xiw_stats_alloc()
 * @stats: the counters, or NULL
 */
void xiw_stats_free(struct xiw_stats __percpu *stats)
{
	free_percpu(stats);
}

/**
 * xiw_stats_read() - the total of one counter over every CPU
 * @stats: the device's counters
 * @stat: which
 *
 * Return: the sum.
 */
u64 xiw_stats_read(struct xiw_stats __percpu *stats, enum xiw_stat stat)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(stats, cpu)->v[stat]);
	return sum;
}

/**
 * xiw_alloc_hw_port_stats() - ib_device_ops.alloc_hw_port_stats: the
 *	counters' names, for the RDMA core
 * @ibdev: the device
 * @port: its port (the only one)
 *
 * The core caches what it read for RDMA_HW_STATS_DEFAULT_LIFESPAN
 * milliseconds in sysfs; its netlink reads are fresh.
 *
 * Return: the table, or NULL without memory.
 */
struct rdma_hw_stats *xiw_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port)
{
	return rdma_alloc_hw_stats_struct(xiw_stat_descs, XIW_NUM_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * xiw_get_hw_stats() - ib_device_ops.get_hw_stats: read every counter
 * @ibdev: the device
 * @hw: the table to fill
 * @port: its port
 * @index: the counter asked for; all are read, as cheap as one
 *
 * Return: how many counters were filled.
 */
int xiw_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *hw,
		     u32 port, int index)
{
	struct xiw_device *xdev = to_xiw_dev(ibdev);
	int i;

	for (i = 0; i < XIW_NUM_STATS; i++)
		hw->value[i] = xiw_stats_read(xdev->stats, i);
	return XIW_NUM_STATS;
}
