// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The arithmetic of xiwperf's atomic operations (RFC 7306 section 5.1):
// the function f every operation of a run applies to the target word, f^k
// (what --check expects: the originals are f^k(init) for k < count, the
// final word f^count(init)), and the operands the ioctl ABI takes; and the
// values an Atomic Write run (--op atomic_write) places in the same word.
// The kernel module has its own C version (tools/xiwperf/kmod/atomic.c).
#pragma once

#include <cstdint>
#include <optional>

#include "args.hpp"
#include "uapi/xiwperf.h"

namespace xiwperf {

/// An atomic operation as RFC 7306 states it: the non-masked verbs are the
/// masked ones with FetchAdd's mask 0 and CmpSwap's masks all ones.
struct AtomicOp {
    bool cmp_swap = false;           ///< CmpSwap, else FetchAdd
    std::uint64_t data = 0;          ///< the Add Data or the Swap Data
    std::uint64_t mask = 0;          ///< the Add Mask or the Swap Mask
    std::uint64_t compare = 0;       ///< CmpSwap: the Compare Data
    std::uint64_t compare_mask = 0;  ///< CmpSwap: the Compare Mask

    bool operator==(const AtomicOp&) const = default;
};

/// The operation of a client run whose op is atomic (is_atomic(), not an
/// Atomic Write, which has no f).
constexpr AtomicOp atomic_op(const Client& c)
{
    if (!is_cmp_swap(c.op))
        return {false, c.add, c.op == Op::masked_fetch_add ? c.mask : 0, 0, 0};
    if (c.op == Op::masked_cmp_swap)
        return {true, c.swap, c.mask, c.compare, c.compare_mask};
    return {true, c.swap, ~0ULL, c.compare, ~0ULL};
}

/// f: the value operation @a leaves in the word over @orig. FetchAdd adds
/// each field on its own, a set mask bit being the most significant bit
/// of a field whose carry out is discarded (mask 0: a plain 64-bit add):
/// with every field's top bit left out of one addition a carry stops
/// there, and the top bits are then added without carry (xor). CmpSwap
/// replaces the bits of the Swap Mask when the bits of the Compare Mask
/// equal the Compare Data's, and leaves the word alone otherwise.
constexpr std::uint64_t atomic_apply(const AtomicOp& a, std::uint64_t orig)
{
    if (!a.cmp_swap)
        return ((orig & ~a.mask) + (a.data & ~a.mask)) ^ ((orig ^ a.data) & a.mask);
    if ((a.compare ^ orig) & a.compare_mask)
        return orig;
    return (orig & ~a.mask) | (a.data & a.mask);
}

/// f^k(@init): @a applied @k times (stopping early at a fixed point).
constexpr std::uint64_t atomic_apply_n(const AtomicOp& a, std::uint64_t init, std::uint64_t k)
{
    for (std::uint64_t i = 0; i < k; i++) {
        std::uint64_t next = atomic_apply(a, init);
        if (next == init)
            break;
        init = next;
    }
    return init;
}

/// The operands of struct xiwperf_run, as struct ib_atomic_wr has them.
struct AtomicOperands {
    std::uint64_t compare_add = 0;
    std::uint64_t swap = 0;
    std::uint64_t compare_add_mask = 0;
    std::uint64_t swap_mask = 0;

    bool operator==(const AtomicOperands&) const = default;
};

/// What a client run passes; all zero unless its op is atomic (so for an
/// Atomic Write too).
constexpr AtomicOperands atomic_operands(const Client& c)
{
    switch (c.op) {
    case Op::fetch_add:
        return {c.add, 0, 0, 0};
    case Op::masked_fetch_add:
        return {c.add, 0, c.mask, 0};
    case Op::cmp_swap:
        return {c.compare, c.swap, 0, 0};
    case Op::masked_cmp_swap:
        return {c.compare, c.swap, c.compare_mask, c.mask};
    default:
        return {};
    }
}

/// Operations connection @q of a run carries: --count spread evenly, the
/// first count % qps connections one more (as the module spreads them).
constexpr std::uint64_t connection_ops(const Client& c, std::uint32_t q)
{
    return c.count / c.qps + (q < c.count % c.qps ? 1 : 0);
}

/// The value Atomic Write @seq of connection @q places in the word: its tag
/// seq * qps + q (modulo 2^32, as the module passes it) made a value by
/// the ABI's xiwperf_aw_value(), so that no two values mix into a third.
inline std::uint64_t atomic_write_value(const Client& c, std::uint64_t seq, std::uint32_t q)
{
    return xiwperf_aw_value(static_cast<__u32>(seq * c.qps + q));
}

/// One Atomic Write of a run: its connection and its sequence number there.
struct AtomicWriteOp {
    std::uint32_t qp = 0;
    std::uint64_t seq = 0;

    bool operator==(const AtomicWriteOp&) const = default;
};

/// The Atomic Write whose value @word is, if it is the last of its
/// connection: what --check requires the word to end as, since each
/// connection's Atomic Writes are placed in order, but the connections'
/// last ones in any. None for a torn value, an earlier operation's (one
/// placed out of order) or one no operation of the run writes.
inline std::optional<AtomicWriteOp> atomic_write_last(const Client& c, std::uint64_t word)
{
    for (std::uint32_t q = 0; q < c.qps; q++) {
        std::uint64_t n = connection_ops(c, q);
        if (n && word == atomic_write_value(c, n - 1, q))
            return AtomicWriteOp{q, n - 1};
    }
    return std::nullopt;
}

}  // namespace xiwperf
