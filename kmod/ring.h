/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring arithmetic shared by every ring of the module: the CQ, the send
 * queue, receive queues and SRQs, the inbound read queue (IRQ) and the
 * outbound one (ORQ). Pure (no ib_verbs.h): KUnit's xiw_ring suite
 * (ring_kunit.c) tests it under UML, across the wrap.
 *
 * A ring's producer and consumer positions are free-running u32 counters,
 * and its occupancy is head - tail, right across the 2^32 wrap; a ring is
 * full when that reaches the capacity the consumer asked for. The slot of
 * a position must be continuous across the wrap too, and pos % capacity
 * is not unless the capacity is a power of two: with 3 entries, positions
 * 2^32 - 1 and 0 (the next one) both map to slot 0, so an entry not yet
 * consumed is overwritten and another is taken twice. A busy kernel
 * consumer's CQ reaches the wrap in hours, and a peer can walk the IRQ
 * there with zero-length Read Requests. So storage is allocated with
 * xiw_ring_slots() slots, a power of two (at most twice the capacity),
 * and a position's slot is its low bits, xiw_ring_slot().
 */
#ifndef XIW_RING_H
#define XIW_RING_H

#include <linux/log2.h>
#include <linux/types.h>

/**
 * xiw_ring_slots() - slots to allocate for a ring
 * @capacity: entries the ring holds at most at once, up to 2^31 (0 is
 *	taken as 1)
 *
 * Return: @capacity rounded up to a power of two: at least @capacity and
 * less than twice it. A ring of xiw_ring_slots(c) slots indexes with the
 * mask xiw_ring_slots(c) - 1.
 */
static inline u32 xiw_ring_slots(u32 capacity)
{
	return capacity > 1 ? (u32)roundup_pow_of_two(capacity) : 1;
}

/**
 * xiw_ring_slot() - the slot of a free-running ring position
 * @pos: the position (head or tail counter, free-running)
 * @mask: the ring's slot count less one, xiw_ring_slots() - 1
 *
 * Any xiw_ring_slots(c) consecutive positions, across the 2^32 wrap
 * too, map to distinct slots, so any c entries between tail and head
 * do.
 *
 * Return: the index into the ring's storage, at most @mask.
 */
static inline u32 xiw_ring_slot(u32 pos, u32 mask)
{
	return pos & mask;
}

#endif /* XIW_RING_H */
