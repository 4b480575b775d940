// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Requests libxiw builds, checked by parsing them back with libnl, and a
// device reply assembled attribute by attribute as the kernel sends it.
#include <gtest/gtest.h>

#include <rdma/rdma_netlink.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "rdma_link_msg.hpp"

namespace {

constexpr int nldev(int op)
{
    return RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
}

struct Parsed {
    nlattr* tb[RDMA_NLDEV_ATTR_MAX] = {};
};

Parsed parse(nl_msg* msg)
{
    Parsed p;
    EXPECT_EQ(nlmsg_parse(nlmsg_hdr(msg), 0, p.tb, RDMA_NLDEV_ATTR_MAX - 1, nullptr), 0);
    return p;
}

}  // namespace

TEST(RdmaLink, NewlinkCarriesNameTypeAndNetdev)
{
    auto msg = xiw::rdma_nl::build_newlink("xiw0", "xiw", "eth0");
    ASSERT_TRUE(msg);
    nlmsghdr* hdr = nlmsg_hdr(msg->get());
    EXPECT_EQ(hdr->nlmsg_type, nldev(RDMA_NLDEV_CMD_NEWLINK));
    EXPECT_TRUE(hdr->nlmsg_flags & NLM_F_REQUEST);
    EXPECT_FALSE(hdr->nlmsg_flags & NLM_F_DUMP);
    auto p = parse(msg->get());
    ASSERT_NE(p.tb[RDMA_NLDEV_ATTR_DEV_NAME], nullptr);
    ASSERT_NE(p.tb[RDMA_NLDEV_ATTR_LINK_TYPE], nullptr);
    ASSERT_NE(p.tb[RDMA_NLDEV_ATTR_NDEV_NAME], nullptr);
    EXPECT_STREQ(nla_get_string(p.tb[RDMA_NLDEV_ATTR_DEV_NAME]), "xiw0");
    EXPECT_STREQ(nla_get_string(p.tb[RDMA_NLDEV_ATTR_LINK_TYPE]), "xiw");
    EXPECT_STREQ(nla_get_string(p.tb[RDMA_NLDEV_ATTR_NDEV_NAME]), "eth0");
    // NUL-terminated, as the kernel's NLA_NUL_STRING policy demands.
    EXPECT_EQ(nla_len(p.tb[RDMA_NLDEV_ATTR_DEV_NAME]), 5);
}

TEST(RdmaLink, DellinkCarriesIndex)
{
    auto msg = xiw::rdma_nl::build_dellink(7);
    ASSERT_TRUE(msg);
    EXPECT_EQ(nlmsg_hdr(msg->get())->nlmsg_type, nldev(RDMA_NLDEV_CMD_DELLINK));
    auto p = parse(msg->get());
    ASSERT_NE(p.tb[RDMA_NLDEV_ATTR_DEV_INDEX], nullptr);
    EXPECT_EQ(nla_get_u32(p.tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 7u);
}

TEST(RdmaLink, DeviceDumpIsADump)
{
    auto msg = xiw::rdma_nl::build_device_dump();
    ASSERT_TRUE(msg);
    nlmsghdr* hdr = nlmsg_hdr(msg->get());
    EXPECT_EQ(hdr->nlmsg_type, nldev(RDMA_NLDEV_CMD_GET));
    EXPECT_EQ(hdr->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
}

namespace {

// A device reply shaped as nldev's fill_dev_info() emits it.
xiw::nl::Message device_reply(bool with_name = true)
{
    xiw::nl::Message m(nlmsg_alloc_simple(nldev(RDMA_NLDEV_CMD_GET), NLM_F_MULTI));
    nla_put_u32(m.get(), RDMA_NLDEV_ATTR_DEV_INDEX, 3);
    if (with_name)
        nla_put_string(m.get(), RDMA_NLDEV_ATTR_DEV_NAME, "xiw1");
    nla_put_u32(m.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
    nla_put_string(m.get(), RDMA_NLDEV_ATTR_FW_VERSION, "0.1.0");
    nla_put_u64(m.get(), RDMA_NLDEV_ATTR_NODE_GUID, 0x5054'00ff'fe12'3456ULL);
    nla_put_u64(m.get(), RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, 0x5054'00ff'fe12'3456ULL);
    nla_put_u8(m.get(), RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 4);
    nla_put_string(m.get(), RDMA_NLDEV_ATTR_DEV_PROTOCOL, "iw");
    return m;
}

}  // namespace

TEST(RdmaLink, ParsesDeviceReply)
{
    auto m = device_reply();
    auto dev = xiw::rdma_nl::parse_device(nlmsg_hdr(m.get()));
    ASSERT_TRUE(dev) << dev.error().message();
    EXPECT_EQ(dev->index, 3u);
    EXPECT_EQ(dev->name, "xiw1");
    EXPECT_EQ(dev->fw_version, "0.1.0");
    EXPECT_EQ(dev->node_type, "rnic");
    EXPECT_EQ(xiw::format_guid(dev->node_guid), "5054:00ff:fe12:3456");
}

TEST(RdmaLink, RejectsDeviceReplyWithoutName)
{
    auto m = device_reply(false);
    auto dev = xiw::rdma_nl::parse_device(nlmsg_hdr(m.get()));
    ASSERT_FALSE(dev);
    EXPECT_EQ(dev.error().code, EPROTO);
}

TEST(RdmaLink, RejectsOtherMessageTypes)
{
    xiw::nl::Message m(nlmsg_alloc_simple(nldev(RDMA_NLDEV_CMD_PORT_GET), 0));
    nla_put_u32(m.get(), RDMA_NLDEV_ATTR_DEV_INDEX, 3);
    nla_put_string(m.get(), RDMA_NLDEV_ATTR_DEV_NAME, "xiw1");
    EXPECT_FALSE(xiw::rdma_nl::parse_device(nlmsg_hdr(m.get())));
}

TEST(RdmaLink, NodeTypeNamesMatchRdmaTool)
{
    EXPECT_EQ(xiw::node_type_name(1), "ca");
    EXPECT_EQ(xiw::node_type_name(4), "rnic");
    EXPECT_EQ(xiw::node_type_name(200), "unknown");
}
