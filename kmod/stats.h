/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-device counters (stats.c): what the device did, for "rdma statistic"
 * and xiwctl. Each is a per-CPU sum, cheap enough for any path.
 */
#ifndef XIW_STATS_H
#define XIW_STATS_H

#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/types.h>

#include "iwarp.h"

struct ib_device;
struct rdma_hw_stats;

/*
 * Opcodes counted by message: every one xiw knows (enum xiw_opcode); the
 * receiver takes no other (xiw_check_ctrl()), the sender sends no other.
 */
#define XIW_STAT_MSG_OPS	(XIW_OP_ATOMIC_WRITE_RESP + 1)

/**
 * enum xiw_stat - a device counter; names in stats.c
 * @XIW_STAT_FLUSH_GLOBAL: Flushes served for global visibility only
 * @XIW_STAT_FLUSH_PERSISTENT: Flushes to persistence served
 * @XIW_STAT_FLUSH_PMEM: of those, ones whose range held pmem
 * @XIW_STAT_FLUSH_FILE: of those, ones whose range held file pages
 * @XIW_STAT_FLUSH_DRAM: of those, ones whose range held DRAM (only when
 *	declared persistent)
 * @XIW_STAT_FLUSH_REFUSED: Flushes to persistence refused in their turn
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
 * @XIW_STAT_MARKERS_STRIPPED: MPA markers taken out of the received stream
 * @XIW_STAT_VERIFY_MISMATCHES: Verify Requests whose expected hash was not
 *	the responder's (each ends its stream with a Terminate)
 * @XIW_STAT_TX_STALLS: times the transmit engine found TCP's send buffer
 *	full and waited for the peer to acknowledge (a slow or lossy path:
 *	TCP retransmits while xiw waits)
 * @XIW_STAT_TX_MSGS: the first of XIW_STAT_MSG_OPS counters, one per
 *	RDMAP opcode (enum xiw_opcode): messages of that opcode sent whole
 *	(their last FPDU framed)
 * @XIW_STAT_RX_MSGS: likewise, messages received whole (their last FPDU
 *	in, its CRC good)
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
	XIW_STAT_MARKERS_STRIPPED,
	XIW_STAT_VERIFY_MISMATCHES,
	XIW_STAT_TX_STALLS,
	XIW_STAT_TX_MSGS,
	XIW_STAT_RX_MSGS = XIW_STAT_TX_MSGS + XIW_STAT_MSG_OPS,
	XIW_NUM_STATS = XIW_STAT_RX_MSGS + XIW_STAT_MSG_OPS
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

/*
 * Terminates by direction, layer, type and code: what RFC 5040 section 7
 * defines (layers RDMAP, DDP, LLP; types 0-3), codes 0x00-0x0e each and
 * the rest (0xff) together.
 */
#define XIW_TERM_COUNT_LAYERS	3
#define XIW_TERM_COUNT_TYPES	4
#define XIW_TERM_COUNT_CODES	16

/**
 * struct xiw_term_counts - a device's Terminates by code (rare: atomics)
 * @n: [received 0, sent 1][layer][type][code slot]
 */
struct xiw_term_counts {
	atomic64_t n[2][XIW_TERM_COUNT_LAYERS][XIW_TERM_COUNT_TYPES]
		    [XIW_TERM_COUNT_CODES];
};

void xiw_stats_count_term(struct xiw_term_counts *tc, u8 layer, u8 type,
			  u8 code, bool sent);
/**
 * struct xiw_term_iter - a walk over struct xiw_term_counts
 * @next: where the walk goes on (0 to start)
 * @sent: the code's direction
 * @layer: its layer
 * @type: its error type
 * @code: the code, 0xff for every code above 0x0e
 * @n: its count
 */
struct xiw_term_iter {
	unsigned int next;
	bool sent;
	u8 layer;
	u8 type;
	u8 code;
	u64 n;
};

bool xiw_stats_next_term(struct xiw_term_counts *tc,
			 struct xiw_term_iter *it);

struct xiw_stats __percpu *xiw_stats_alloc(void);
void xiw_stats_free(struct xiw_stats __percpu *stats);
u64 xiw_stats_read(struct xiw_stats __percpu *stats, enum xiw_stat stat);
const char *xiw_stats_name(enum xiw_stat stat);
struct rdma_hw_stats *xiw_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port);
int xiw_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *hw,
		     u32 port, int index);

#endif /* XIW_STATS_H */
