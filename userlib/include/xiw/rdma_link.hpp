// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// RDMA devices and links through the RDMA core's netlink interface (the
// one iproute2's "rdma" tool speaks), so tools need not shell out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xiw/netlink.hpp"
#include "xiw/result.hpp"

namespace xiw {

/// One RDMA device as the RDMA core reports it.
struct RdmaDevice {
    uint32_t index = 0;
    std::string name;
    std::string node_type;   ///< "ca", "rnic", ... as "rdma dev" prints it
    std::string fw_version;
    uint64_t node_guid = 0;
    uint64_t sys_image_guid = 0;
};

/// "xxxx:xxxx:xxxx:xxxx", as "rdma dev" prints GUIDs.
std::string format_guid(uint64_t guid);

/// Name "rdma dev" uses for an RDMA_NODE_* value.
std::string node_type_name(uint8_t type);

namespace rdma_nl {
/// RDMA_NLDEV_CMD_NEWLINK: create device @p name of link @p type on @p netdev.
Result<nl::Message> build_newlink(std::string_view name, std::string_view type,
                                  std::string_view netdev);
/// RDMA_NLDEV_CMD_DELLINK of the device with index @p index.
Result<nl::Message> build_dellink(uint32_t index);
/// RDMA_NLDEV_CMD_GET dump of every device.
Result<nl::Message> build_device_dump();
/// One RDMA_NLDEV_CMD_GET reply.
Result<RdmaDevice> parse_device(nlmsghdr* hdr);
}  // namespace rdma_nl

/// A connection to the RDMA core's netlink interface.
class RdmaNetlink {
public:
    static Result<RdmaNetlink> open();

    Result<std::vector<RdmaDevice>> devices();
    Result<RdmaDevice> device(std::string_view name);
    /// "rdma link add NAME type TYPE netdev NETDEV"
    Status add_link(std::string_view name, std::string_view netdev,
                    std::string_view type = "xiw");
    /// "rdma link delete NAME"
    Status delete_link(std::string_view name);

private:
    explicit RdmaNetlink(nl::Socket sock) : sock_(std::move(sock)) {}
    nl::Socket sock_;
};

}  // namespace xiw
