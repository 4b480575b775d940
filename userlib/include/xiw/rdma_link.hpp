// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// RDMA devices and links through the RDMA core's netlink interface (the
// one iproute2's "rdma" tool speaks), so tools need not shell out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <memory>

#include "xiw/export.hpp"
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
XIW_API std::string format_guid(uint64_t guid);

/// Name "rdma dev" uses for an RDMA_NODE_* value.
XIW_API std::string node_type_name(uint8_t type);

/// A connection to the RDMA core's netlink interface.
namespace nl {
class Socket;
}

class XIW_API RdmaNetlink {
public:
    static Result<RdmaNetlink> open();
    RdmaNetlink(RdmaNetlink&&) noexcept;
    RdmaNetlink& operator=(RdmaNetlink&&) noexcept;
    ~RdmaNetlink();

    Result<std::vector<RdmaDevice>> devices();
    Result<RdmaDevice> device(std::string_view name);
    /// "rdma link add NAME type TYPE netdev NETDEV"
    Status add_link(std::string_view name, std::string_view netdev,
                    std::string_view type = "xiw");
    /// "rdma link delete NAME"
    Status delete_link(std::string_view name);

private:
    explicit RdmaNetlink(std::unique_ptr<nl::Socket> sock);
    std::unique_ptr<nl::Socket> sock_;
};

}  // namespace xiw
