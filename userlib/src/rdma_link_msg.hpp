// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Private to libxiw: the RDMA core's netlink requests and replies.
#pragma once

#include "netlink.hpp"
#include "xiw/rdma_link.hpp"

namespace xiw {

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

}  // namespace xiw
