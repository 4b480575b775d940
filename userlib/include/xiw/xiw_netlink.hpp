// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The xiw generic netlink family (uapi/xiw_netlink.h, Documentation/
// netlink.md): devices' capabilities, connection settings and persistence
// policy, per device and per MR.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <memory>

#include "xiw/export.hpp"
#include "xiw/result.hpp"

namespace xiw {

/// What a Flush to persistence takes memory to be (enum xiw_persist).
enum class Persist : uint8_t { auto_ = 0, dram = 1, pmem = 2, file = 3 };

/// Whether a device takes DRAM as persistent (enum xiw_dram_persistent).
enum class DramPersistent : uint8_t { default_ = 0, off = 1, on = 2 };

/// "auto", "dram", "pmem", "file"; "unknown(N)" for a value of a newer kernel.
XIW_API std::string persist_name(Persist p);
/// The Persist a name gives; EINVAL naming the word otherwise.
XIW_API Result<Persist> parse_persist(std::string_view word);
/// "default", "off", "on"; "unknown(N)" otherwise.
XIW_API std::string dram_persistent_name(DramPersistent d);
XIW_API Result<DramPersistent> parse_dram_persistent(std::string_view word);

/// When a device asks for MPA CRC32c (enum xiw_crc).
enum class Crc : uint8_t { default_ = 0, off = 1, preferred = 2, required = 3 };
/// A setting that is on, off or the module parameter's (enum xiw_switch).
enum class Switch : uint8_t { default_ = 0, off = 1, on = 2 };
/// An RFC 6581 RTR kind (enum xiw_rtr_kind).
enum class RtrKind : uint8_t { send = 1, write = 2, read = 3 };
/// What a device logs about its connections (enum xiw_debug).
enum class Debug : uint8_t { quiet = 0, faults = 1, connections = 2 };

/// Names of each, "unknown(N)" for a value of a newer kernel; parsing a
/// name that is none of them is EINVAL naming the word and the choices.
XIW_API std::string crc_name(Crc c);
XIW_API Result<Crc> parse_crc(std::string_view word);
XIW_API std::string switch_name(Switch s);
XIW_API Result<Switch> parse_switch(std::string_view word, std::string_view what);
XIW_API std::string rtr_name(RtrKind k);
XIW_API Result<RtrKind> parse_rtr_kind(std::string_view word);
XIW_API std::string debug_name(Debug d);
XIW_API Result<Debug> parse_debug(std::string_view word);
/// A Verify hash's name ("crc32c", "sha256"), and back.
XIW_API std::string hash_name(unsigned alg);
XIW_API Result<unsigned> parse_hash(std::string_view word);

/// A device's settings (XIW_ATTR_CONFIG), or what they amount to now
/// (XIW_ATTR_CONFIG_NOW: no "default" there).
struct XIW_API Config {
    Crc crc = Crc::default_;
    Switch markers = Switch::default_;
    uint8_t mpa_rev = 0;          ///< 0: the module parameter's
    Switch p2p = Switch::default_;
    std::vector<RtrKind> rtr;     ///< most preferred first; empty: the module parameter's
    uint32_t hashes = 0;          ///< bit N: Verify hash N allowed
    Debug debug = Debug::faults;

    [[nodiscard]] std::vector<std::string> rtr_names() const;
    [[nodiscard]] std::vector<std::string> hash_names() const;
};

/// What XiwNetlink::set_config() changes: the settings given only.
struct ConfigChange {
    std::optional<Crc> crc;
    std::optional<Switch> markers;
    std::optional<uint8_t> mpa_rev;
    std::optional<Switch> p2p;
    std::optional<std::vector<RtrKind>> rtr;  ///< empty: back to the module parameter's
    std::optional<uint32_t> hashes;
    std::optional<Debug> debug;

    [[nodiscard]] bool empty() const
    {
        return !crc && !markers && !mpa_rev && !p2p && !rtr && !hashes && !debug;
    }
};

/// What a device can do (XIW_ATTR_CAPS).
struct XIW_API Capabilities {
    uint32_t mpa_revs = 0;  ///< bit N: MPA revision N
    uint64_t ops = 0;       ///< XIW_CAP_OP_*
    uint32_t persist = 0;   ///< bit N: Persist N can be named
    uint32_t hashes = 0;    ///< bit N: Verify hash N (enum xiw_verify_alg)
    uint32_t max_ord = 0;
    uint32_t max_ird = 0;
    uint32_t max_msg = 0;
    uint32_t max_qp = 0;
    uint32_t max_mr = 0;

    /// Names of the set bits: {"1", "2"}; {"atomics", "immediate", ...};
    /// {"auto", "dram", ...}; {"crc32c", "sha256"}. Unknown bits as "bitN".
    [[nodiscard]] std::vector<std::string> mpa_rev_names() const;
    [[nodiscard]] std::vector<std::string> op_names() const;
    [[nodiscard]] std::vector<std::string> persist_names() const;
    [[nodiscard]] std::vector<std::string> hash_names() const;
};

/// A device's persistence policy (XIW_ATTR_POLICY).
struct Policy {
    Persist persist = Persist::auto_;
    DramPersistent dram_persistent = DramPersistent::default_;
    bool dram_persistent_now = false;  ///< the module parameter applied
};

/// One xiw device as the family reports it.
struct XiwDevice {
    uint32_t index = 0;
    std::string name;
    std::string netdev;
    uint32_t netdev_index = 0;
    Capabilities caps;
    Policy policy;
    Config config;      ///< the device's settings
    Config config_now;  ///< what they amount to now, module parameters applied
};


/// A Terminate that ended a connection (XIW_ATTR_TERMINATE).
struct TerminateInfo {
    bool sent = false;  ///< the device sent it; else the peer did
    uint8_t layer = 0;  ///< 0 RDMAP, 1 DDP, 2 LLP (MPA)
    uint8_t type = 0;
    uint8_t code = 0;
};

/// A Terminate's layer as xiw's events and xiwctl name it: "rdmap", "ddp",
/// "llp"; "unknown" for any other value.
XIW_API std::string_view terminate_layer_name(uint8_t layer);
/// A Terminate's error code as two hex digits: "0x06".
XIW_API std::string terminate_code_hex(uint8_t code);

/// How many Terminates of one kind ended a device's connections.
struct TerminateCount {
    TerminateInfo term;  ///< code 0xff: every code above 0x0e
    uint64_t count = 0;
};

/// A device's counters (XIW_CMD_STATS_GET), in the kernel's order, named
/// as "rdma statistic" names them, and its Terminates by code.
struct Stats {
    uint32_t index = 0;
    std::string name;
    std::vector<std::pair<std::string, uint64_t>> counters;
    std::vector<TerminateCount> terminates;
};

/// One message of the family's events group.
struct Event {
    /// lost: the socket overflowed and events were dropped (no device)
    enum class Kind { dev_new, dev_del, qp_error, lost };
    Kind kind = Kind::dev_new;
    uint32_t dev_index = 0;
    std::string dev_name;
    std::string netdev;          ///< dev_new
    uint32_t netdev_index = 0;   ///< dev_new
    uint32_t qp_num = 0;         ///< qp_error
    TerminateInfo term;          ///< qp_error
};

/// What XiwNetlink::set_policy() changes: the attributes given only.
struct PolicyChange {
    std::optional<Persist> persist;
    std::optional<DramPersistent> dram_persistent;
};

/// An MR's own persistence domain (XIW_CMD_MR_GET).
struct MrPolicy {
    uint32_t dev_index = 0;
    std::string dev_name;
    uint32_t stag = 0;
    Persist persist = Persist::auto_;  ///< auto_: none, the device's applies
};

/// A connection to the xiw generic netlink family.
namespace nl {
class Socket;
}

class XIW_API XiwNetlink {
public:
    /// Connect and resolve the family; ENOENT saying so if xiw is not loaded.
    static Result<XiwNetlink> open();
    XiwNetlink(XiwNetlink&&) noexcept;
    XiwNetlink& operator=(XiwNetlink&&) noexcept;
    ~XiwNetlink();

    Result<std::vector<XiwDevice>> devices();
    Result<XiwDevice> device(std::string_view name);
    /// Change a device's policy (CAP_NET_ADMIN in the user namespace that owns
    /// the device's network namespace); the device afterwards.
    Result<XiwDevice> set_policy(std::string_view name, const PolicyChange& change);
    /// Change a device's settings (CAP_NET_ADMIN); the device afterwards.
    Result<XiwDevice> set_config(std::string_view name, const ConfigChange& change);
    Result<MrPolicy> mr(std::string_view name, uint32_t stag);
    /// Every device's counters, or the named device's.
    Result<std::vector<Stats>> stats();
    Result<Stats> stats(std::string_view name);
    /// Name an MR's own domain (CAP_NET_ADMIN; Persist::auto_: none).
    Result<MrPolicy> set_mr_persist(std::string_view name, uint32_t stag, Persist persist);

private:
    XiwNetlink(std::unique_ptr<nl::Socket> sock, int family);

    std::unique_ptr<nl::Socket> sock_;
    int family_;
};

}  // namespace xiw
