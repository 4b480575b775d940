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

/* The counters of messages sent and received, named by the opcode. */
#define XIW_TX_MSG(op, suffix) \
	[XIW_STAT_TX_MSGS + (op)] = { .name = "tx_msg_" suffix }
#define XIW_RX_MSG(op, suffix) \
	[XIW_STAT_RX_MSGS + (op)] = { .name = "rx_msg_" suffix }

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
	[XIW_STAT_MARKERS_STRIPPED] = { .name = "markers_stripped" },
	[XIW_STAT_VERIFY_MISMATCHES] = { .name = "verify_mismatches" },
	[XIW_STAT_TX_STALLS] = { .name = "tx_stalls" },
	XIW_TX_MSG(XIW_OP_WRITE, "write"),
	XIW_TX_MSG(XIW_OP_READ_REQ, "read_req"),
	XIW_TX_MSG(XIW_OP_READ_RESP, "read_resp"),
	XIW_TX_MSG(XIW_OP_SEND, "send"),
	XIW_TX_MSG(XIW_OP_SEND_INV, "send_inv"),
	XIW_TX_MSG(XIW_OP_SEND_SE, "send_se"),
	XIW_TX_MSG(XIW_OP_SEND_SE_INV, "send_se_inv"),
	XIW_TX_MSG(XIW_OP_TERMINATE, "terminate"),
	XIW_TX_MSG(XIW_OP_IMM, "imm"),
	XIW_TX_MSG(XIW_OP_IMM_SE, "imm_se"),
	XIW_TX_MSG(XIW_OP_ATOMIC_REQ, "atomic_req"),
	XIW_TX_MSG(XIW_OP_ATOMIC_RESP, "atomic_resp"),
	XIW_TX_MSG(XIW_OP_FLUSH_REQ, "flush_req"),
	XIW_TX_MSG(XIW_OP_FLUSH_RESP, "flush_resp"),
	XIW_TX_MSG(XIW_OP_VERIFY_REQ, "verify_req"),
	XIW_TX_MSG(XIW_OP_VERIFY_RESP, "verify_resp"),
	XIW_TX_MSG(XIW_OP_ATOMIC_WRITE_REQ, "atomic_write_req"),
	XIW_TX_MSG(XIW_OP_ATOMIC_WRITE_RESP, "atomic_write_resp"),
	XIW_RX_MSG(XIW_OP_WRITE, "write"),
	XIW_RX_MSG(XIW_OP_READ_REQ, "read_req"),
	XIW_RX_MSG(XIW_OP_READ_RESP, "read_resp"),
	XIW_RX_MSG(XIW_OP_SEND, "send"),
	XIW_RX_MSG(XIW_OP_SEND_INV, "send_inv"),
	XIW_RX_MSG(XIW_OP_SEND_SE, "send_se"),
	XIW_RX_MSG(XIW_OP_SEND_SE_INV, "send_se_inv"),
	XIW_RX_MSG(XIW_OP_TERMINATE, "terminate"),
	XIW_RX_MSG(XIW_OP_IMM, "imm"),
	XIW_RX_MSG(XIW_OP_IMM_SE, "imm_se"),
	XIW_RX_MSG(XIW_OP_ATOMIC_REQ, "atomic_req"),
	XIW_RX_MSG(XIW_OP_ATOMIC_RESP, "atomic_resp"),
	XIW_RX_MSG(XIW_OP_FLUSH_REQ, "flush_req"),
	XIW_RX_MSG(XIW_OP_FLUSH_RESP, "flush_resp"),
	XIW_RX_MSG(XIW_OP_VERIFY_REQ, "verify_req"),
	XIW_RX_MSG(XIW_OP_VERIFY_RESP, "verify_resp"),
	XIW_RX_MSG(XIW_OP_ATOMIC_WRITE_REQ, "atomic_write_req"),
	XIW_RX_MSG(XIW_OP_ATOMIC_WRITE_RESP, "atomic_write_resp"),
};

/**
 * xiw_stats_count_term() - count a Terminate that ended a connection
 * @tc: the device's counts
 * @layer: its layer
 * @type: its error type
 * @code: its error code
 * @sent: the device sent it (else it received it)
 *
 * A Terminate of a layer or type RFC 5040 does not define (a peer's) is
 * left out; terminates_received counts it still.
 */
void xiw_stats_count_term(struct xiw_term_counts *tc, u8 layer, u8 type,
			  u8 code, bool sent)
{
	unsigned int slot = min_t(unsigned int, code, XIW_TERM_COUNT_CODES - 1);

	if (layer < XIW_TERM_COUNT_LAYERS && type < XIW_TERM_COUNT_TYPES)
		atomic64_inc(&tc->n[sent][layer][type][slot]);
}

/**
 * xiw_stats_next_term() - the next Terminate code counted at least once
 * @tc: the device's counts
 * @it: the walk: zeroed to start, then filled with each code and count
 *
 * Return: true with @it filled, false past the last.
 */
bool xiw_stats_next_term(struct xiw_term_counts *tc,
			 struct xiw_term_iter *it)
{
	const unsigned int codes = XIW_TERM_COUNT_CODES;
	const unsigned int types = XIW_TERM_COUNT_TYPES;
	const unsigned int layers = XIW_TERM_COUNT_LAYERS;

	for (; it->next < 2 * layers * types * codes; it->next++) {
		unsigned int slot = it->next % codes;
		unsigned int type = it->next / codes % types;
		unsigned int layer = it->next / (codes * types) % layers;
		unsigned int dir = it->next / (codes * types * layers);

		it->n = atomic64_read(&tc->n[dir][layer][type][slot]);
		if (!it->n)
			continue;
		it->sent = dir;
		it->layer = layer;
		it->type = type;
		it->code = slot < codes - 1 ? slot : 0xff;
		it->next++;
		return true;
	}
	return false;
}

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
