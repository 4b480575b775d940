// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The xiw generic netlink family (uapi/xiw_netlink.h, Documentation/
// netlink.md): devices' capabilities and persistence policy, per device
// and per MR.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xiw/netlink.hpp"
#include "xiw/result.hpp"

namespace xiw {

/// What a Flush to persistence takes memory to be (enum xiw_persist).
enum class Persist : uint8_t { auto_ = 0, dram = 1, pmem = 2, file = 3 };

/// Whether a device takes DRAM as persistent (enum xiw_dram_persistent).
enum class DramPersistent : uint8_t { default_ = 0, off = 1, on = 2 };

/// "auto", "dram", "pmem", "file"; "unknown(N)" for a value of a newer kernel.
std::string persist_name(Persist p);
/// The Persist a name gives; EINVAL naming the word otherwise.
Result<Persist> parse_persist(std::string_view word);
/// "default", "off", "on"; "unknown(N)" otherwise.
std::string dram_persistent_name(DramPersistent d);
Result<DramPersistent> parse_dram_persistent(std::string_view word);

/// What a device can do (XIW_ATTR_CAPS).
struct Capabilities {
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

namespace xiw_nl {
/// XIW_CMD_DEV_GET of device @p name, or a dump of all without a name.
Result<nl::Message> build_dev_get(int family, std::optional<std::string_view> name);
/// XIW_CMD_DEV_SET: @p name and the attributes @p change gives (EINVAL
/// if it gives none).
Result<nl::Message> build_dev_set(int family, std::string_view name, const PolicyChange& change);
/// XIW_CMD_MR_GET: MR @p stag of device @p name.
Result<nl::Message> build_mr_get(int family, std::string_view name, uint32_t stag);
/// XIW_CMD_MR_SET: name the MR's own domain (Persist::auto_: none).
Result<nl::Message> build_mr_set(int family, std::string_view name, uint32_t stag,
                                 Persist persist);
/// One XIW_CMD_DEV_GET reply (the reply to XIW_CMD_DEV_SET too), its
/// attributes checked for type and size; EPROTO naming a required one
/// that is missing. Unknown attributes are ignored.
Result<XiwDevice> parse_device(nlmsghdr* hdr);
/// One XIW_CMD_MR_GET reply (the reply to XIW_CMD_MR_SET too), likewise.
Result<MrPolicy> parse_mr(nlmsghdr* hdr);
/// Error @p e of an exchange, as XiwNetlink returns it: @p context (what
/// was asked) before e's own; for EPERM of a @p change (DEV_SET, MR_SET)
/// what it needs, after the kernel's reason if it gave one.
Error exchange_error(Error e, std::string context, bool change);
}  // namespace xiw_nl

/// A connection to the xiw generic netlink family.
class XiwNetlink {
public:
    /// Connect and resolve the family; ENOENT saying so if xiw is not loaded.
    static Result<XiwNetlink> open();

    Result<std::vector<XiwDevice>> devices();
    Result<XiwDevice> device(std::string_view name);
    /// Change a device's policy (CAP_NET_ADMIN); the device afterwards.
    Result<XiwDevice> set_policy(std::string_view name, const PolicyChange& change);
    Result<MrPolicy> mr(std::string_view name, uint32_t stag);
    /// Name an MR's own domain (CAP_NET_ADMIN; Persist::auto_: none).
    Result<MrPolicy> set_mr_persist(std::string_view name, uint32_t stag, Persist persist);

private:
    XiwNetlink(nl::Socket sock, int family) : sock_(std::move(sock)), family_(family) {}
    template <class T, class Parse>
    Result<std::vector<T>> exchange(Result<nl::Message> msg, Parse parse, std::string context);

    nl::Socket sock_;
    int family_;
};

}  // namespace xiw
