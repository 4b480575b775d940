// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Private to libxiw: the xiw family's request builders and reply parsers
// (the unit tests use them through the static xiw_core library).
#pragma once

#include "netlink.hpp"
#include "xiw/xiw_netlink.hpp"

namespace xiw {

namespace xiw_nl {
/// XIW_CMD_DEV_GET of device @p name, or a dump of all without a name.
Result<nl::Message> build_dev_get(int family, std::optional<std::string_view> name);
/// XIW_CMD_DEV_SET: @p name and the attributes @p change gives (EINVAL
/// if it gives none).
Result<nl::Message> build_dev_set(int family, std::string_view name, const PolicyChange& change);
/// XIW_CMD_DEV_SET of the connection settings @p change gives (EINVAL if
/// it gives none, or more than three RTR kinds).
Result<nl::Message> build_config_set(int family, std::string_view name,
                                     const ConfigChange& change);
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
/// XIW_CMD_STATS_GET of device @p name, or a dump of all without a name.
Result<nl::Message> build_stats_get(int family, std::optional<std::string_view> name);
/// One XIW_CMD_STATS_GET reply, likewise checked.
Result<Stats> parse_stats(nlmsghdr* hdr);
/// One message of the events group (XIW_CMD_DEV_NEW, _DEV_DEL,
/// _QP_ERROR), likewise checked; EPROTO for another command.
Result<Event> parse_event(nlmsghdr* hdr);
/// Error @p e of an exchange of command @p cmd, as XiwNetlink returns it:
/// @p context (what was asked) before e's own; for EPERM of a command
/// that needs CAP_NET_ADMIN (MR_GET, DEV_SET, MR_SET) what it needs, in
/// the kernel's words, when the kernel gave no reason (the generic
/// netlink core refuses without one).
Error exchange_error(Error e, std::string context, int cmd);
}  // namespace xiw_nl

}  // namespace xiw
