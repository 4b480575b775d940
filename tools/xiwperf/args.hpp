// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// xiwperf's command line: "xiwperf server ..." and "xiwperf client ...".
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "xiw/result.hpp"

namespace xiwperf {

enum class Op { send = 1, write = 2, read = 3 };

std::string_view op_name(Op op);

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

struct Server {
    Address addr;
    std::uint16_t port = 0;
    std::uint64_t size = 0;  ///< 0: the module's default
    bool json = false;
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
    std::uint32_t sge = 1;         ///< SGEs per operation, 1..XIWPERF_MAX_SGE
    bool inline_data = false;      ///< --inline: IB_SEND_INLINE (send, write)
    std::uint32_t solicit = 0;     ///< --solicit N: every Nth Send solicited (send); 0: off
    Mr mr = Mr::dma;               ///< --mr: the client's buffers
    Mr remote_mr = Mr::dma;        ///< --remote-mr: the server's buffer (write, read)
    Inject inject = Inject::none;  ///< --inject KIND (write, read)
    bool srq = false;              ///< --srq: the server's connections share an SRQ (send)
    bool check = false;
    bool json = false;
};

struct Help {};

using Command = std::variant<Help, Server, Client>;

/// Parse argv[1..]. A usage error is an Error with code EINVAL whose
/// context names the offending word.
xiw::Result<Command> parse(std::span<const std::string_view> args);

/// A byte count: digits with an optional binary suffix K, M, G (or KiB,
/// MiB, GiB, any case): "4096", "4K", "1MiB".
xiw::Result<std::uint64_t> parse_size(std::string_view text);

/// A decimal number without suffix, within [min, max].
xiw::Result<std::uint64_t> parse_number(std::string_view text, std::uint64_t min,
                                        std::uint64_t max);

/// A numeric IPv4 or IPv6 address, IPv6 optionally with "%scope".
xiw::Result<Address> parse_address(std::string_view text);

std::string usage();

}  // namespace xiwperf
