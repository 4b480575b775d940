// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// xiwperf's command line: "xiwperf server ...", "xiwperf client ..." and
// "xiwperf probe ...".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "xiw/result.hpp"

namespace xiwperf {

/// What a client run does; values as enum xiwperf_op.
enum class Op {
    send = 1,
    write = 2,
    read = 3,
    fetch_add = 4,
    cmp_swap = 5,
    masked_fetch_add = 6,
    masked_cmp_swap = 7,
    write_imm = 8,
    imm = 9,
    atomic_write = 10,
    flush = 11,
    verify = 12,
};

/// "send", ..., "masked_cmp_swap", "write_imm", "imm", "atomic_write",
/// "flush", "verify" (as --op takes them).
std::string_view op_name(Op op);

/// fetch_add, cmp_swap and their masked forms: the RFC 7306 atomic
/// operations, each an AtomicOp (atomic.hpp) returning the original value.
constexpr bool is_atomic(Op op)
{
    return op == Op::fetch_add || op == Op::cmp_swap || op == Op::masked_fetch_add ||
           op == Op::masked_cmp_swap;
}

/// The operations on the server's one 64-bit word: the atomic ones and
/// atomic_write (the commit draft's Atomic Write). They share the target,
/// --size 8, --remote-mr frwr and the bound on --check; only the atomic
/// ones have operands, a function f and original values.
constexpr bool targets_word(Op op)
{
    return is_atomic(op) || op == Op::atomic_write;
}

constexpr bool is_masked(Op op)
{
    return op == Op::masked_fetch_add || op == Op::masked_cmp_swap;
}

constexpr bool is_cmp_swap(Op op)
{
    return op == Op::cmp_swap || op == Op::masked_cmp_swap;
}

/// RDMA Write with Immediate and Send with Immediate (no payload).
constexpr bool is_imm(Op op)
{
    return op == Op::write_imm || op == Op::imm;
}

/// Operations whose messages take a receive at the server (and credits).
constexpr bool takes_receives(Op op)
{
    return op == Op::send || is_imm(op);
}

/// Bytes of an operation on the word (targets_word()): one 64-bit word.
constexpr std::uint64_t atomic_size = 8;

/// Write, then a second operation on the region just written (the Write's
/// options: --size, --sge, --inline, --mr, --check's regions): RDMA Flush
/// and RDMA Verify.
constexpr bool writes_first(Op op)
{
    return op == Op::flush || op == Op::verify;
}

/// The hash of an RDMA Verify (--hash); values as enum xiwperf_hash.
enum class Hash { none = 0, crc32c = 1, sha256 = 2 };

/// "crc32c", "sha256"; "" for none.
std::string_view hash_name(Hash hash);

/// How a buffer is registered: the PD's DMA lkey / the global rkey, or
/// fast registration (--mr, --remote-mr).
enum class Mr { dma, frwr };

std::string_view mr_name(Mr mr);

/// A fault the client injects (--inject); values as enum xiwperf_inject.
enum class Inject {
    none = 0,
    stag = 1,
    bounds = 2,
    rights = 3,
    invalidated = 4,
    dma_invalidate = 5,
    wrap = 6,
    foreign = 7,
    lkey = 8,
    unaligned = 9,
    cq_overflow = 10,
};

/// "stag", "dma-invalidate", ...; "" for none.
std::string_view inject_name(Inject inject);

/// A numeric IPv4 or IPv6 address as the ioctl ABI wants it.
struct Address {
    int family = 0;                       ///< AF_INET or AF_INET6
    std::array<std::uint8_t, 16> bytes{}; ///< network byte order
    std::uint32_t scope_id = 0;           ///< IPv6 "%ifname" / "%index"
    std::string text;                     ///< as given

    bool operator==(const Address&) const = default;
};

/// What the server's buffer is (--backing KIND:PATH): kernel memory
/// (none), or the pages of a regular file (file) or of a DAX device or a
/// file on a DAX filesystem (pmem), mapped shared (backing.hpp).
struct Backing {
    enum class Kind { none, file, pmem };
    Kind kind = Kind::none;
    std::string path;  ///< "" for none

    bool operator==(const Backing&) const = default;
};

/// "file", "pmem"; "" for none.
std::string_view backing_kind_name(Backing::Kind kind);

/// "KIND:PATH" as --backing takes it; "" for none.
std::string backing_text(const Backing& backing);

struct Server {
    Address addr;
    std::uint16_t port = 0;
    std::uint64_t size = 0;  ///< 0: the module's default
    bool json = false;
    Backing backing;         ///< --backing: none, kernel memory
    Hash hash = Hash::none;  ///< --hash: every Verify's; none: each run's own
};

struct Client {
    Address addr;
    std::uint16_t port = 0;
    Op op = Op::write;
    std::uint64_t size = 0;
    std::uint64_t count = 0;
    std::uint32_t depth = 1;
    std::uint32_t qps = 1;
    std::uint32_t timeout_ms = 0;  ///< 0: the module's default
    std::uint32_t hold_ms = 0;     ///< --hold: connections kept open, idle, after the run
    bool idle = false;             ///< --idle: QPs set up and held (--hold), never connected
    std::uint32_t sge = 1;         ///< SGEs per operation, 1..XIWPERF_MAX_SGE
    bool inline_data = false;      ///< --inline: IB_SEND_INLINE (send, write)
    std::uint32_t solicit = 0;     ///< --solicit N: every Nth Send solicited (send); 0: off
    Mr mr = Mr::dma;               ///< --mr: the client's buffers
    Mr remote_mr = Mr::dma;        ///< --remote-mr: the server's buffer (not send)
    Inject inject = Inject::none;  ///< --inject KIND (not send but lkey)
    bool srq = false;              ///< --srq: the server's connections share an SRQ (send)
    // What a Flush (--op flush) makes of the data it follows: at least one
    // of persist and global; of the region just written (--range, the
    // default) or of the whole chunk MR holding it (--whole-mr).
    bool persist = false;          ///< --persist: to persistence (flush)
    bool global = false;           ///< --global: to global visibility (flush)
    bool whole_mr = false;         ///< --whole-mr: the whole MR, not --range (flush)
    // What a Verify (--op verify) hashes the region with (--hash), and
    // whether each carries an expected hash for the server to compare
    // (--expect): the client's own hash of what it wrote (--expect alone,
    // expect_hash empty) or a fixed one (--expect HEX, its octets).
    Hash hash = Hash::none;        ///< --hash ALG (verify)
    bool expect = false;           ///< --expect [HEX] (verify)
    /// --no-write (verify): no Write first; the Verify hashes what the
    /// region holds (then no --check, and --expect needs HEX).
    bool no_write = false;
    /// --expect HEX: the expected hash, 1..XIWPERF_HASH_MAX octets; empty
    /// for the client's own. run_request() copies it into run.expect.
    std::vector<std::uint8_t> expect_hash;
    // Atomic operands, as the options give them (see atomic.hpp).
    std::uint64_t add = 1;                 ///< --add (fetch_add, masked_fetch_add)
    std::uint64_t compare = 0;             ///< --compare (cmp_swap, masked_cmp_swap)
    std::uint64_t swap = 0;                ///< --swap (cmp_swap, masked_cmp_swap)
    std::uint64_t mask = 0;                ///< --mask: add mask or swap mask (masked ops)
    std::uint64_t compare_mask = ~0ULL;    ///< --compare-mask (masked_cmp_swap)
    /// --imm V (write_imm, imm): every operation's immediate value; unset:
    /// each carries its sequence number on its connection.
    std::optional<std::uint32_t> imm;
    bool check = false;
    bool json = false;
};

/// How long one probe run may go without progress unless --timeout says.
constexpr std::uint32_t probe_default_timeout_ms = 5000;

/// probe: which RFC 7306 and commit-draft operations the peer's xiwperf
/// server takes (probe.hpp).
struct Probe {
    Address addr;
    std::uint16_t port = 0;
    std::uint32_t timeout_ms = probe_default_timeout_ms;  ///< each run's, without progress
    bool json = false;
};

struct Help {};

using Command = std::variant<Help, Server, Client, Probe>;

/// Parse argv[1..]. A usage error is an Error with code EINVAL whose
/// context names the offending word.
xiw::Result<Command> parse(std::span<const std::string_view> args);

/// A byte count: digits with an optional binary suffix K, M, G (or KiB,
/// MiB, GiB, any case): "4096", "4K", "1MiB".
xiw::Result<std::uint64_t> parse_size(std::string_view text);

/// A decimal number without suffix, within [min, max].
xiw::Result<std::uint64_t> parse_number(std::string_view text, std::uint64_t min,
                                        std::uint64_t max);

/// A 64-bit value: decimal, or hexadecimal after "0x" (or "0X").
xiw::Result<std::uint64_t> parse_value(std::string_view text);

/// A numeric IPv4 or IPv6 address, IPv6 optionally with "%scope".
xiw::Result<Address> parse_address(std::string_view text);

std::string usage();

}  // namespace xiwperf
