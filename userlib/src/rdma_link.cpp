// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "rdma_link_msg.hpp"

#include <rdma/rdma_netlink.h>

#include <array>
#include <cerrno>
#include <cstdio>

#include <netlink/attr.h>

namespace xiw {

std::string format_guid(uint64_t guid)
{
    std::array<char, 20> buf{};
    std::snprintf(buf.data(), buf.size(), "%04x:%04x:%04x:%04x",
                  unsigned(guid >> 48) & 0xffff, unsigned(guid >> 32) & 0xffff,
                  unsigned(guid >> 16) & 0xffff, unsigned(guid) & 0xffff);
    return buf.data();
}

std::string node_type_name(uint8_t type)
{
    static constexpr std::array<const char*, 8> names = {
        "unknown", "ca", "switch", "router", "rnic", "usnic", "usnic_udp", "unspecified",
    };
    return type < names.size() ? names[type] : "unknown";
}

namespace rdma_nl {

namespace {

constexpr int nldev_type(int op)
{
    return RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
}

Result<nl::Message> with_strings(int op, std::initializer_list<std::pair<int, std::string_view>> attrs)
{
    auto msg = nl::new_message(nldev_type(op), NLM_F_REQUEST);
    if (!msg)
        return msg.error();
    for (const auto& [type, value] : attrs) {
        std::string s(value);
        if (nla_put_string(msg->get(), type, s.c_str()) < 0)
            return make_error(EMSGSIZE, "building an RDMA netlink request");
    }
    return msg;
}

}  // namespace

Result<nl::Message> build_newlink(std::string_view name, std::string_view type,
                                  std::string_view netdev)
{
    return with_strings(RDMA_NLDEV_CMD_NEWLINK, {{RDMA_NLDEV_ATTR_DEV_NAME, name},
                                                 {RDMA_NLDEV_ATTR_LINK_TYPE, type},
                                                 {RDMA_NLDEV_ATTR_NDEV_NAME, netdev}});
}

Result<nl::Message> build_dellink(uint32_t index)
{
    auto msg = nl::new_message(nldev_type(RDMA_NLDEV_CMD_DELLINK), NLM_F_REQUEST);
    if (!msg)
        return msg.error();
    if (nla_put_u32(msg->get(), RDMA_NLDEV_ATTR_DEV_INDEX, index) < 0)
        return make_error(EMSGSIZE, "building an RDMA netlink request");
    return msg;
}

Result<nl::Message> build_device_dump()
{
    return nl::new_message(nldev_type(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_DUMP);
}

Result<RdmaDevice> parse_device(nlmsghdr* hdr)
{
    static nla_policy policy[RDMA_NLDEV_ATTR_MAX] = {};
    policy[RDMA_NLDEV_ATTR_DEV_INDEX].type = NLA_U32;
    policy[RDMA_NLDEV_ATTR_DEV_NAME].type = NLA_STRING;
    policy[RDMA_NLDEV_ATTR_FW_VERSION].type = NLA_STRING;
    policy[RDMA_NLDEV_ATTR_NODE_GUID].type = NLA_U64;
    policy[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID].type = NLA_U64;
    policy[RDMA_NLDEV_ATTR_DEV_NODE_TYPE].type = NLA_U8;

    if (hdr->nlmsg_type != nldev_type(RDMA_NLDEV_CMD_GET))
        return make_error(EPROTO, "unexpected RDMA netlink message type");
    nlattr* tb[RDMA_NLDEV_ATTR_MAX] = {};
    if (nlmsg_parse(hdr, 0, tb, RDMA_NLDEV_ATTR_MAX - 1, policy) < 0)
        return make_error(EPROTO, "malformed RDMA device message");
    if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
        return make_error(EPROTO, "RDMA device message without index or name");

    RdmaDevice dev;
    dev.index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
    dev.name = nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
    if (tb[RDMA_NLDEV_ATTR_FW_VERSION])
        dev.fw_version = nla_get_string(tb[RDMA_NLDEV_ATTR_FW_VERSION]);
    if (tb[RDMA_NLDEV_ATTR_NODE_GUID])
        dev.node_guid = nla_get_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
    if (tb[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID])
        dev.sys_image_guid = nla_get_u64(tb[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID]);
    dev.node_type = node_type_name(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]
                                       ? nla_get_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE])
                                       : 0);
    return dev;
}

}  // namespace rdma_nl

Result<RdmaNetlink> RdmaNetlink::open()
{
    auto sock = nl::Socket::connect(NETLINK_RDMA);
    if (!sock)
        return sock.error();
    return RdmaNetlink(std::make_unique<nl::Socket>(std::move(sock).value()));
}

RdmaNetlink::RdmaNetlink(std::unique_ptr<nl::Socket> sock) : sock_(std::move(sock)) {}
RdmaNetlink::RdmaNetlink(RdmaNetlink&&) noexcept = default;
RdmaNetlink& RdmaNetlink::operator=(RdmaNetlink&&) noexcept = default;
RdmaNetlink::~RdmaNetlink() = default;

Result<std::vector<RdmaDevice>> RdmaNetlink::devices()
{
    auto msg = rdma_nl::build_device_dump();
    if (!msg)
        return msg.error();
    std::vector<RdmaDevice> out;
    Status st = sock_->transact(std::move(msg).value(), [&out](nlmsghdr* hdr) -> Status {
        auto dev = rdma_nl::parse_device(hdr);
        if (!dev)
            return dev.error();
        out.push_back(std::move(dev).value());
        return Ok{};
    });
    if (!st) {
        Error e = st.error();
        e.context = "listing RDMA devices";
        return e;
    }
    return out;
}

Result<RdmaDevice> RdmaNetlink::device(std::string_view name)
{
    auto all = devices();
    if (!all)
        return all.error();
    for (auto& dev : *all)
        if (dev.name == name)
            return dev;
    return make_error(ENODEV, "RDMA device " + std::string(name));
}

Status RdmaNetlink::add_link(std::string_view name, std::string_view netdev,
                             std::string_view type)
{
    auto msg = rdma_nl::build_newlink(name, type, netdev);
    if (!msg)
        return msg.error();
    Status st = sock_->transact(std::move(msg).value());
    if (!st) {
        Error e = st.error();
        e.context = "adding " + std::string(type) + " device " + std::string(name) +
                    " on " + std::string(netdev);
        return e;
    }
    return Ok{};
}

Status RdmaNetlink::delete_link(std::string_view name)
{
    auto dev = device(name);
    if (!dev)
        return dev.error();
    auto msg = rdma_nl::build_dellink(dev->index);
    if (!msg)
        return msg.error();
    Status st = sock_->transact(std::move(msg).value());
    if (!st) {
        Error e = st.error();
        e.context = "deleting RDMA device " + std::string(name);
        return e;
    }
    return Ok{};
}

}  // namespace xiw
