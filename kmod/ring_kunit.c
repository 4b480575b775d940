// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the ring arithmetic (ring.h): free-running u32
 * positions, storage of a power-of-two slot count, across the 2^32 wrap.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/log2.h>

#include "ring.h"

/*
 * How a ring of @capacity entries places a position, as cq.c, qp.c, tx.c,
 * rq.c and obj.h do it: the slots its storage has, and a position's slot.
 * (Before ring.h they took pos % capacity of capacity slots: every
 * capacity not a power of two failed the first two cases.)
 */
static u32 ring_storage(u32 capacity)
{
	return xiw_ring_slots(capacity);
}

static u32 ring_slot_of(u32 capacity, u32 pos)
{
	return xiw_ring_slot(pos, xiw_ring_slots(capacity) - 1);
}

/* The largest capacity tested: storage for it is less than twice that. */
#define RING_MAX	65536

/* Beyond 1..300: round, just past a power of two, the SQ/SRQ and CQ maxima. */
static const u32 large[] = { 1000, 4097, 16384, RING_MAX };

/* Report only the first few failing capacities; count them all. */
#define RING_REPORT	4

/*
 * From U32_MAX - 2 * @capacity on, across the wrap to 2 * @capacity
 * past it: are any @capacity consecutive positions in distinct slots,
 * each within the storage? @seen[slot] is 1 + the step that last used it.
 */
static bool ring_check_wrap(struct kunit *test, u32 capacity, u32 *seen,
			    bool report)
{
	u32 slots = ring_storage(capacity);
	u32 start = U32_MAX - 2 * capacity;
	u32 k;

	memset(seen, 0, slots * sizeof(*seen));
	for (k = 0; k <= 4 * capacity; k++) {
		u32 pos = start + k;
		u32 slot = ring_slot_of(capacity, pos);

		if (slot >= slots) {
			if (report)
				KUNIT_FAIL(test, "capacity %u: position %u in slot %u of %u",
					   capacity, pos, slot, slots);
			return false;
		}
		if (seen[slot] && k - (seen[slot] - 1) < capacity) {
			if (report)
				KUNIT_FAIL(test, "capacity %u: positions %u and %u share slot %u",
					   capacity, start + seen[slot] - 1,
					   pos, slot);
			return false;
		}
		seen[slot] = k + 1;
	}
	return true;
}

static void ring_positions_across_the_wrap_have_distinct_slots(struct kunit *test)
{
	u32 *seen = kunit_kcalloc(test, 2 * RING_MAX, sizeof(*seen),
				  GFP_KERNEL);
	unsigned int failed = 0, i;
	u32 capacity;

	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (capacity = 1; capacity <= 300; capacity++)
		failed += !ring_check_wrap(test, capacity, seen,
					   failed < RING_REPORT);
	for (i = 0; i < ARRAY_SIZE(large); i++)
		failed += !ring_check_wrap(test, large[i], seen,
					   failed < RING_REPORT);
	KUNIT_EXPECT_EQ_MSG(test, failed, 0U,
			    "capacities whose slots collide across the wrap");
}

/* Take the entry at @tail: is it @expect? */
static bool ring_take(struct kunit *test, const u32 *ring, u32 capacity,
		      u32 tail, u32 expect, bool report)
{
	u32 got = ring[ring_slot_of(capacity, tail)];

	if (got != expect && report)
		KUNIT_FAIL(test, "capacity %u: position %u holds entry %u, not %u",
			   capacity, tail, got, expect);
	return got == expect;
}

/*
 * A ring used as the module uses one, its positions starting just short of
 * the wrap: filled to capacity, then one entry taken and one posted in turn
 * across the wrap, then drained.
 * Every entry must come out once, in order.
 */
static bool ring_fifo(struct kunit *test, u32 capacity, bool report)
{
	u32 *ring = kunit_kcalloc(test, ring_storage(capacity), sizeof(*ring),
				  GFP_KERNEL);
	u32 head = U32_MAX - capacity, tail = head;
	u32 next_in = 1, next_out = 1, k;

	KUNIT_ASSERT_NOT_NULL(test, ring);
	while (head - tail < capacity)
		ring[ring_slot_of(capacity, head++)] = next_in++;
	for (k = 0; k < 4 * capacity; k++) {
		if (!ring_take(test, ring, capacity, tail++, next_out++, report))
			return false;
		ring[ring_slot_of(capacity, head++)] = next_in++;
	}
	while (tail != head)
		if (!ring_take(test, ring, capacity, tail++, next_out++, report))
			return false;
	return true;
}

static void ring_entries_cross_the_wrap_once_in_order(struct kunit *test)
{
	unsigned int failed = 0, i;
	u32 capacity;

	for (capacity = 1; capacity <= 300; capacity++)
		failed += !ring_fifo(test, capacity, failed < RING_REPORT);
	for (i = 0; i < ARRAY_SIZE(large); i++)
		failed += !ring_fifo(test, large[i], failed < RING_REPORT);
	KUNIT_EXPECT_EQ_MSG(test, failed, 0U,
			    "capacities that lose or repeat an entry at the wrap");
}

/* Storage: a power of two, at least the capacity, less than twice it. */
static void ring_slots_round_up_to_a_power_of_two(struct kunit *test)
{
	u32 capacity;

	KUNIT_EXPECT_EQ(test, xiw_ring_slots(0), 1U);
	for (capacity = 1; capacity <= 70000; capacity++) {
		u32 slots = xiw_ring_slots(capacity);

		if (!is_power_of_2(slots) || slots < capacity ||
		    slots >= 2 * capacity) {
			KUNIT_FAIL(test, "capacity %u: %u slots", capacity, slots);
			break;
		}
	}
	/* The maxima (device.h) are powers of two: nothing beyond them. */
	KUNIT_EXPECT_EQ(test, xiw_ring_slots(128), 128U);
	KUNIT_EXPECT_EQ(test, xiw_ring_slots(16384), 16384U);
	KUNIT_EXPECT_EQ(test, xiw_ring_slots(65536), 65536U);
	KUNIT_EXPECT_EQ(test, xiw_ring_slots(1U << 31), 1U << 31);
	KUNIT_EXPECT_EQ(test, xiw_ring_slot(U32_MAX, 3), 3U);
	KUNIT_EXPECT_EQ(test, xiw_ring_slot(0, 3), 0U);
}

static struct kunit_case xiw_ring_cases[] = {
	KUNIT_CASE(ring_positions_across_the_wrap_have_distinct_slots),
	KUNIT_CASE(ring_entries_cross_the_wrap_once_in_order),
	KUNIT_CASE(ring_slots_round_up_to_a_power_of_two),
	{}
};

static struct kunit_suite xiw_ring_suite = {
	.name = "xiw_ring",
	.test_cases = xiw_ring_cases,
};

kunit_test_suite(xiw_ring_suite);
