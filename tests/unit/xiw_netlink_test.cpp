// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// libxiw's messages of the xiw generic netlink family: requests parsed
// back, replies built here as the kernel builds them (kmod/netlink.c).
#include <gtest/gtest.h>

#include <linux/genetlink.h>

#include <string>
#include <utility>
#include <vector>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "xiw_netlink_msg.hpp"
#include "xiw_netlink.h"

namespace {

constexpr int family = 0x2a;

using xiw::DramPersistent;
using xiw::Persist;

nlattr* attr_of(nlmsghdr* hdr, int type)
{
    return nlmsg_find_attr(hdr, GENL_HDRLEN, type);
}

int cmd_of(nlmsghdr* hdr)
{
    return static_cast<genlmsghdr*>(nlmsg_data(hdr))->cmd;
}

// A config nest as the kernel sends it: the settings (all default but
// CRC, RTR and debug) or, for XIW_ATTR_CONFIG_NOW, what they amount to.
void put_config(nl_msg* m, int type, bool extra = false)
{
    bool now = type == XIW_ATTR_CONFIG_NOW;
    nlattr* nest = nla_nest_start(m, type);
    nla_put_u8(m, XIW_CONFIG_CRC, XIW_CRC_REQUIRED);
    nla_put_u8(m, XIW_CONFIG_MARKERS, now ? XIW_SWITCH_OFF : XIW_SWITCH_DEFAULT);
    nla_put_u8(m, XIW_CONFIG_MPA_REV, now ? 2 : 0);
    nla_put_u8(m, XIW_CONFIG_P2P, now ? XIW_SWITCH_ON : XIW_SWITCH_DEFAULT);
    nla_put_u32(m, XIW_CONFIG_RTR, XIW_RTR_KIND_READ | XIW_RTR_KIND_SEND << 8);
    nla_put_u32(m, XIW_CONFIG_HASHES, 0b100);
    nla_put_u8(m, XIW_CONFIG_DEBUG, XIW_DEBUG_CONNECTIONS);
    if (extra)
        nla_put_u8(m, XIW_CONFIG_MAX + 1, 1);
    nla_nest_end(m, nest);
}

// A reply as the kernel sends it; @p skip leaves one attribute out,
// @p extra adds one the family may define later.
xiw::nl::Message device_reply(int skip = -1, bool extra = false, int cmd = XIW_CMD_DEV_GET)
{
    xiw::nl::Message msg(nlmsg_alloc());
    nl_msg* m = msg.get();
    genlmsg_put(m, 0, 0, family, 0, 0, cmd, XIW_GENL_VERSION);
    if (skip != XIW_ATTR_DEV_INDEX)
        nla_put_u32(m, XIW_ATTR_DEV_INDEX, 3);
    if (skip != XIW_ATTR_DEV_NAME)
        nla_put_string(m, XIW_ATTR_DEV_NAME, "xiw1");
    if (skip != XIW_ATTR_NETDEV_NAME)
        nla_put_string(m, XIW_ATTR_NETDEV_NAME, "v1");
    if (skip != XIW_ATTR_NETDEV_INDEX)
        nla_put_u32(m, XIW_ATTR_NETDEV_INDEX, 7);
    if (skip != XIW_ATTR_CAPS) {
        nlattr* caps = nla_nest_start(m, XIW_ATTR_CAPS);
        nla_put_u32(m, XIW_CAPS_MPA_REVS, 0b110);
        // nla_put_u64_64bit()'s padding where the u64 would be misaligned
        nla_put(m, XIW_CAPS_PAD, 0, nullptr);
        nla_put_u64(m, XIW_CAPS_OPS, 0x1f | (1ULL << 40));
        nla_put_u32(m, XIW_CAPS_PERSIST, 0xf);
        nla_put_u32(m, XIW_CAPS_HASHES, 0b110);
        nla_put_u32(m, XIW_CAPS_MAX_ORD, 128);
        nla_put_u32(m, XIW_CAPS_MAX_IRD, 64);
        nla_put_u32(m, XIW_CAPS_MAX_MSG, 0x80000000U);
        nla_put_u32(m, XIW_CAPS_MAX_QP, 16384);
        nla_put_u32(m, XIW_CAPS_MAX_MR, 65536);
        if (extra)
            nla_put_u64(m, XIW_CAPS_MAX + 1, 1);
        nla_nest_end(m, caps);
    }
    if (skip != XIW_ATTR_POLICY) {
        nlattr* policy = nla_nest_start(m, XIW_ATTR_POLICY);
        nla_put_u8(m, XIW_POLICY_PERSIST, XIW_PERSIST_PMEM);
        nla_put_u8(m, XIW_POLICY_DRAM_PERSISTENT, XIW_DRAM_PERSISTENT_DEFAULT);
        nla_put_u8(m, XIW_POLICY_DRAM_PERSISTENT_NOW, 1);
        if (extra)
            nla_put_string(m, XIW_POLICY_MAX + 1, "later");
        nla_nest_end(m, policy);
    }
    for (int type : {XIW_ATTR_CONFIG, XIW_ATTR_CONFIG_NOW})
        if (skip != type)
            put_config(m, type, extra);
    if (extra)
        nla_put_u32(m, XIW_ATTR_MAX + 5, 99);
    return msg;
}

}  // namespace

TEST(XiwNetlink, NamesAndParsersOfTheEnums)
{
    EXPECT_EQ(xiw::persist_name(Persist::auto_), "auto");
    EXPECT_EQ(xiw::persist_name(Persist::file), "file");
    EXPECT_EQ(xiw::persist_name(static_cast<Persist>(9)), "unknown(9)");
    EXPECT_EQ(*xiw::parse_persist("pmem"), Persist::pmem);
    auto bad = xiw::parse_persist("nvme");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, EINVAL);
    EXPECT_EQ(bad.error().context, "domain \"nvme\" is not one of auto, dram, pmem, file");
    EXPECT_EQ(xiw::dram_persistent_name(DramPersistent::default_), "default");
    EXPECT_EQ(*xiw::parse_dram_persistent("on"), DramPersistent::on);
    EXPECT_FALSE(xiw::parse_dram_persistent("yes"));
    // the values are the uapi's
    EXPECT_EQ(static_cast<int>(Persist::file), XIW_PERSIST_FILE);
    EXPECT_EQ(static_cast<int>(DramPersistent::on), XIW_DRAM_PERSISTENT_ON);
}

// What xiwctl monitor and stats and xiwperf probe print of a Terminate.
TEST(XiwNetlink, NamesTerminateLayersAndCodes)
{
    EXPECT_EQ(xiw::terminate_layer_name(0), "rdmap");
    EXPECT_EQ(xiw::terminate_layer_name(1), "ddp");
    EXPECT_EQ(xiw::terminate_layer_name(2), "llp");
    EXPECT_EQ(xiw::terminate_layer_name(7), "unknown");
    EXPECT_EQ(xiw::terminate_code_hex(6), "0x06");
    EXPECT_EQ(xiw::terminate_code_hex(0xff), "0xff");
}

TEST(XiwNetlink, DevGetIsADumpWithoutAName)
{
    auto dump = xiw::xiw_nl::build_dev_get(family, std::nullopt);
    ASSERT_TRUE(dump);
    nlmsghdr* hdr = nlmsg_hdr(dump->get());
    EXPECT_EQ(hdr->nlmsg_type, family);
    EXPECT_EQ(hdr->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
    EXPECT_EQ(cmd_of(hdr), XIW_CMD_DEV_GET);
    EXPECT_EQ(attr_of(hdr, XIW_ATTR_DEV_NAME), nullptr);

    auto one = xiw::xiw_nl::build_dev_get(family, "xiw0");
    ASSERT_TRUE(one);
    hdr = nlmsg_hdr(one->get());
    EXPECT_EQ(hdr->nlmsg_flags & NLM_F_DUMP, 0);
    ASSERT_NE(attr_of(hdr, XIW_ATTR_DEV_NAME), nullptr);
    EXPECT_STREQ(nla_get_string(attr_of(hdr, XIW_ATTR_DEV_NAME)), "xiw0");
}

TEST(XiwNetlink, DevSetCarriesOnlyWhatChanges)
{
    xiw::PolicyChange change;
    auto none = xiw::xiw_nl::build_dev_set(family, "xiw0", change);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, EINVAL);
    EXPECT_EQ(none.error().context, "changing the policy of xiw0: nothing to change");

    change.dram_persistent = DramPersistent::off;
    auto msg = xiw::xiw_nl::build_dev_set(family, "xiw0", change);
    ASSERT_TRUE(msg);
    nlmsghdr* hdr = nlmsg_hdr(msg->get());
    EXPECT_EQ(cmd_of(hdr), XIW_CMD_DEV_SET);
    nlattr* policy = attr_of(hdr, XIW_ATTR_POLICY);
    ASSERT_NE(policy, nullptr);
    nlattr* tb[XIW_POLICY_MAX + 1] = {};
    ASSERT_EQ(nla_parse_nested(tb, XIW_POLICY_MAX, policy, nullptr), 0);
    EXPECT_EQ(tb[XIW_POLICY_PERSIST], nullptr);
    ASSERT_NE(tb[XIW_POLICY_DRAM_PERSISTENT], nullptr);
    EXPECT_EQ(nla_get_u8(tb[XIW_POLICY_DRAM_PERSISTENT]), XIW_DRAM_PERSISTENT_OFF);
    EXPECT_EQ(tb[XIW_POLICY_DRAM_PERSISTENT_NOW], nullptr);

    change.persist = Persist::file;
    msg = xiw::xiw_nl::build_dev_set(family, "xiw0", change);
    ASSERT_TRUE(msg);
    ASSERT_EQ(nla_parse_nested(tb, XIW_POLICY_MAX, attr_of(nlmsg_hdr(msg->get()),
                                                           XIW_ATTR_POLICY), nullptr),
              0);
    EXPECT_EQ(nla_get_u8(tb[XIW_POLICY_PERSIST]), XIW_PERSIST_FILE);
}

TEST(XiwNetlink, MrRequests)
{
    auto get = xiw::xiw_nl::build_mr_get(family, "xiw1", 0xdeadbe01);
    ASSERT_TRUE(get);
    nlmsghdr* hdr = nlmsg_hdr(get->get());
    EXPECT_EQ(hdr->nlmsg_type, family);
    EXPECT_EQ(hdr->nlmsg_flags & NLM_F_DUMP, 0);
    EXPECT_EQ(cmd_of(hdr), XIW_CMD_MR_GET);
    EXPECT_STREQ(nla_get_string(attr_of(hdr, XIW_ATTR_DEV_NAME)), "xiw1");
    EXPECT_EQ(nla_get_u32(attr_of(hdr, XIW_ATTR_MR_STAG)), 0xdeadbe01U);
    EXPECT_EQ(attr_of(hdr, XIW_ATTR_MR_PERSIST), nullptr);

    auto set = xiw::xiw_nl::build_mr_set(family, "xiw1", 7, Persist::dram);
    ASSERT_TRUE(set);
    hdr = nlmsg_hdr(set->get());
    EXPECT_EQ(cmd_of(hdr), XIW_CMD_MR_SET);
    EXPECT_STREQ(nla_get_string(attr_of(hdr, XIW_ATTR_DEV_NAME)), "xiw1");
    EXPECT_EQ(nla_get_u32(attr_of(hdr, XIW_ATTR_MR_STAG)), 7U);
    EXPECT_EQ(nla_get_u8(attr_of(hdr, XIW_ATTR_MR_PERSIST)), XIW_PERSIST_DRAM);
    // auto (none of its own) is a value like any other
    set = xiw::xiw_nl::build_mr_set(family, "xiw1", 7, Persist::auto_);
    ASSERT_TRUE(set);
    EXPECT_EQ(nla_get_u8(attr_of(nlmsg_hdr(set->get()), XIW_ATTR_MR_PERSIST)), XIW_PERSIST_AUTO);
}

TEST(XiwNetlink, ParsesADeviceIgnoringWhatItDoesNotKnow)
{
    auto msg = device_reply(-1, true);
    auto d = xiw::xiw_nl::parse_device(nlmsg_hdr(msg.get()));
    ASSERT_TRUE(d) << d.error().message();
    EXPECT_EQ(d->index, 3u);
    EXPECT_EQ(d->name, "xiw1");
    EXPECT_EQ(d->netdev, "v1");
    EXPECT_EQ(d->netdev_index, 7u);
    EXPECT_EQ(d->caps.mpa_rev_names(), (std::vector<std::string>{"1", "2"}));
    EXPECT_EQ(d->caps.op_names(), (std::vector<std::string>{"atomics", "immediate", "flush",
                                                            "atomic_write", "verify", "bit40"}));
    EXPECT_EQ(d->caps.persist_names(),
              (std::vector<std::string>{"auto", "dram", "pmem", "file"}));
    EXPECT_EQ(d->caps.hash_names(), (std::vector<std::string>{"crc32c", "sha256"}));
    EXPECT_EQ(d->caps.max_ord, 128u);
    EXPECT_EQ(d->caps.max_ird, 64u);
    EXPECT_EQ(d->caps.max_msg, 0x80000000U);
    EXPECT_EQ(d->caps.max_qp, 16384u);
    EXPECT_EQ(d->caps.max_mr, 65536u);
    EXPECT_EQ(d->policy.persist, Persist::pmem);
    EXPECT_EQ(d->policy.dram_persistent, DramPersistent::default_);
    EXPECT_TRUE(d->policy.dram_persistent_now);
    EXPECT_EQ(d->config.crc, xiw::Crc::required);
    EXPECT_EQ(d->config.markers, xiw::Switch::default_);
    EXPECT_EQ(d->config.mpa_rev, 0);
    EXPECT_EQ(d->config.p2p, xiw::Switch::default_);
    EXPECT_EQ(d->config.rtr_names(), (std::vector<std::string>{"read", "send"}));
    EXPECT_EQ(d->config.hash_names(), (std::vector<std::string>{"sha256"}));
    EXPECT_EQ(d->config.debug, xiw::Debug::connections);
    EXPECT_EQ(d->config_now.markers, xiw::Switch::off);
    EXPECT_EQ(d->config_now.mpa_rev, 2);
    EXPECT_EQ(d->config_now.p2p, xiw::Switch::on);
}

TEST(XiwNetlink, ConfigSetCarriesOnlyWhatChanges)
{
    xiw::ConfigChange c;
    auto none = xiw::xiw_nl::build_config_set(family, "xiw0", c);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().context, "changing the settings of xiw0: nothing to change");

    c.crc = xiw::Crc::off;
    c.rtr = std::vector<xiw::RtrKind>{xiw::RtrKind::send, xiw::RtrKind::read};
    c.debug = xiw::Debug::quiet;
    auto msg = xiw::xiw_nl::build_config_set(family, "xiw0", c);
    ASSERT_TRUE(msg) << msg.error().message();
    nlmsghdr* hdr = nlmsg_hdr(msg->get());
    EXPECT_EQ(cmd_of(hdr), XIW_CMD_DEV_SET);
    EXPECT_STREQ(nla_get_string(attr_of(hdr, XIW_ATTR_DEV_NAME)), "xiw0");
    EXPECT_EQ(attr_of(hdr, XIW_ATTR_POLICY), nullptr);
    nlattr* nest = attr_of(hdr, XIW_ATTR_CONFIG);
    ASSERT_NE(nest, nullptr);
    nlattr* tb[XIW_CONFIG_MAX + 1] = {};
    ASSERT_EQ(nla_parse_nested(tb, XIW_CONFIG_MAX, nest, nullptr), 0);
    EXPECT_EQ(nla_get_u8(tb[XIW_CONFIG_CRC]), XIW_CRC_OFF);
    EXPECT_EQ(nla_get_u32(tb[XIW_CONFIG_RTR]),
              static_cast<uint32_t>(XIW_RTR_KIND_SEND | XIW_RTR_KIND_READ << 8));
    EXPECT_EQ(nla_get_u8(tb[XIW_CONFIG_DEBUG]), XIW_DEBUG_QUIET);
    for (int a : {XIW_CONFIG_MARKERS, XIW_CONFIG_MPA_REV, XIW_CONFIG_P2P, XIW_CONFIG_HASHES})
        EXPECT_EQ(tb[a], nullptr) << a;

    // an empty list goes back to the module parameter's: 0
    xiw::ConfigChange back;
    back.rtr = std::vector<xiw::RtrKind>{};
    back.hashes = 0;
    msg = xiw::xiw_nl::build_config_set(family, "xiw0", back);
    ASSERT_TRUE(msg);
    ASSERT_EQ(nla_parse_nested(tb, XIW_CONFIG_MAX, attr_of(nlmsg_hdr(msg->get()), XIW_ATTR_CONFIG),
                               nullptr),
              0);
    EXPECT_EQ(nla_get_u32(tb[XIW_CONFIG_RTR]), 0U);
    EXPECT_EQ(nla_get_u32(tb[XIW_CONFIG_HASHES]), 0U);

    xiw::ConfigChange four;
    four.rtr = std::vector<xiw::RtrKind>(4, xiw::RtrKind::send);
    auto bad = xiw::xiw_nl::build_config_set(family, "xiw0", four);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().context, "changing the settings of xiw0: more than three RTR kinds");
}

TEST(XiwNetlink, NamesOfTheSettings)
{
    EXPECT_EQ(xiw::crc_name(xiw::Crc::preferred), "preferred");
    EXPECT_EQ(*xiw::parse_crc("required"), xiw::Crc::required);
    EXPECT_EQ(xiw::parse_crc("maybe").error().context,
              "crc \"maybe\" is not one of default, off, preferred, required");
    EXPECT_EQ(*xiw::parse_switch("on", "p2p"), xiw::Switch::on);
    EXPECT_EQ(xiw::parse_switch("yes", "p2p").error().context,
              "p2p \"yes\" is not one of default, off, on");
    EXPECT_EQ(*xiw::parse_rtr_kind("write"), xiw::RtrKind::write);
    EXPECT_FALSE(xiw::parse_rtr_kind("none"));
    EXPECT_EQ(*xiw::parse_debug("connections"), xiw::Debug::connections);
    EXPECT_EQ(*xiw::parse_hash("sha256"), 2U);
    EXPECT_FALSE(xiw::parse_hash("none"));
    EXPECT_EQ(xiw::debug_name(static_cast<xiw::Debug>(7)), "unknown(7)");
    // the values are the uapi's
    EXPECT_EQ(static_cast<int>(xiw::Crc::required), XIW_CRC_REQUIRED);
    EXPECT_EQ(static_cast<int>(xiw::Switch::on), XIW_SWITCH_ON);
    EXPECT_EQ(static_cast<int>(xiw::RtrKind::read), XIW_RTR_KIND_READ);
    EXPECT_EQ(static_cast<int>(xiw::Debug::connections), XIW_DEBUG_CONNECTIONS);
}

TEST(XiwNetlink, RefusesADeviceWithoutWhatItNeeds)
{
    const std::pair<int, const char*> required[] = {
        {XIW_ATTR_DEV_INDEX, "XIW_ATTR_DEV_INDEX"},
        {XIW_ATTR_DEV_NAME, "XIW_ATTR_DEV_NAME"},
        {XIW_ATTR_NETDEV_NAME, "XIW_ATTR_NETDEV_NAME"},
        {XIW_ATTR_NETDEV_INDEX, "XIW_ATTR_NETDEV_INDEX"},
        {XIW_ATTR_CAPS, "XIW_ATTR_CAPS"},
        {XIW_ATTR_POLICY, "XIW_ATTR_POLICY"},
        {XIW_ATTR_CONFIG, "XIW_ATTR_CONFIG"},
        {XIW_ATTR_CONFIG_NOW, "XIW_ATTR_CONFIG_NOW"},
    };
    for (const auto& [skip, name] : required) {
        auto msg = device_reply(skip);
        auto d = xiw::xiw_nl::parse_device(nlmsg_hdr(msg.get()));
        ASSERT_FALSE(d) << name;
        EXPECT_EQ(d.error().code, EPROTO);
        EXPECT_EQ(d.error().context,
                  std::string("malformed xiw netlink reply: device without ") + name);
    }
    // another command's reply
    auto msg = device_reply(-1, false, XIW_CMD_MR_GET);
    auto d = xiw::xiw_nl::parse_device(nlmsg_hdr(msg.get()));
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().context, "malformed xiw netlink reply: command 3 where 1 was expected");
}

TEST(XiwNetlink, RefusesAttributesOfTheWrongSize)
{
    xiw::nl::Message msg(nlmsg_alloc());
    genlmsg_put(msg.get(), 0, 0, family, 0, 0, XIW_CMD_MR_GET, XIW_GENL_VERSION);
    nla_put_u32(msg.get(), XIW_ATTR_DEV_INDEX, 1);
    nla_put_string(msg.get(), XIW_ATTR_DEV_NAME, "xiw0");
    nla_put_u8(msg.get(), XIW_ATTR_MR_STAG, 1);  // a u32 as one octet
    nla_put_u8(msg.get(), XIW_ATTR_MR_PERSIST, 1);
    auto m = xiw::xiw_nl::parse_mr(nlmsg_hdr(msg.get()));
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, EPROTO);
    EXPECT_EQ(m.error().context,
              "malformed xiw netlink reply: an attribute of the wrong type or size");
}

// Too long is as wrong as too short (the kernel's sizes are exact); a
// string ends in its NUL.
TEST(XiwNetlink, RefusesAttributesLongerThanTheirType)
{
    struct Case {
        const char* what;
        void (*put)(nl_msg*);
    };
    const Case cases[] = {
        {"a u32 as a u64", [](nl_msg* m) { nla_put_u64(m, XIW_ATTR_MR_STAG, 1); }},
        {"a u8 as a u32", [](nl_msg* m) { nla_put_u32(m, XIW_ATTR_MR_PERSIST, 1); }},
        {"a string without its NUL", [](nl_msg* m) { nla_put(m, XIW_ATTR_DEV_NAME, 4, "xiw0"); }},
    };
    for (const auto& c : cases) {
        xiw::nl::Message msg(nlmsg_alloc());
        genlmsg_put(msg.get(), 0, 0, family, 0, 0, XIW_CMD_MR_GET, XIW_GENL_VERSION);
        c.put(msg.get());
        auto m = xiw::xiw_nl::parse_mr(nlmsg_hdr(msg.get()));
        ASSERT_FALSE(m) << c.what;
        EXPECT_EQ(m.error().context,
                  "malformed xiw netlink reply: an attribute of the wrong type or size")
            << c.what;
    }
}

namespace {

// A device reply whose nest @p nest_type holds what @p put puts only.
xiw::nl::Message device_with_nest(int nest_type, void (*put)(nl_msg*))
{
    xiw::nl::Message msg(nlmsg_alloc());
    nl_msg* m = msg.get();
    genlmsg_put(m, 0, 0, family, 0, 0, XIW_CMD_DEV_GET, XIW_GENL_VERSION);
    nla_put_u32(m, XIW_ATTR_DEV_INDEX, 3);
    nla_put_string(m, XIW_ATTR_DEV_NAME, "xiw1");
    nla_put_string(m, XIW_ATTR_NETDEV_NAME, "v1");
    nla_put_u32(m, XIW_ATTR_NETDEV_INDEX, 7);
    for (int type : {XIW_ATTR_CAPS, XIW_ATTR_POLICY}) {
        nlattr* nest = nla_nest_start(m, type);
        if (type == nest_type) {
            put(m);
        } else if (type == XIW_ATTR_POLICY) {
            nla_put_u8(m, XIW_POLICY_PERSIST, XIW_PERSIST_AUTO);
            nla_put_u8(m, XIW_POLICY_DRAM_PERSISTENT, XIW_DRAM_PERSISTENT_DEFAULT);
            nla_put_u8(m, XIW_POLICY_DRAM_PERSISTENT_NOW, 0);
        }
        // as the kernel's nla_nest_end() does, an empty nest stays
        nla_nest_end_keep_empty(m, nest);
    }
    put_config(m, XIW_ATTR_CONFIG);
    put_config(m, XIW_ATTR_CONFIG_NOW);
    return msg;
}

}  // namespace

TEST(XiwNetlink, ChecksTheNestsToo)
{
    auto msg = device_with_nest(XIW_ATTR_CAPS,
                                [](nl_msg* m) { nla_put_u32(m, XIW_CAPS_OPS, 0x1f); });
    auto d = xiw::xiw_nl::parse_device(nlmsg_hdr(msg.get()));
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().context, "malformed xiw netlink reply: XIW_ATTR_CAPS: an attribute of "
                                 "the wrong type or size");

    msg = device_with_nest(XIW_ATTR_POLICY, [](nl_msg* m) {
        nla_put_u8(m, XIW_POLICY_PERSIST, XIW_PERSIST_AUTO);
        nla_put_u16(m, XIW_POLICY_DRAM_PERSISTENT, XIW_DRAM_PERSISTENT_ON);
        nla_put_u8(m, XIW_POLICY_DRAM_PERSISTENT_NOW, 0);
    });
    d = xiw::xiw_nl::parse_device(nlmsg_hdr(msg.get()));
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().context, "malformed xiw netlink reply: XIW_ATTR_POLICY: an attribute "
                                 "of the wrong type or size");

    msg = device_with_nest(XIW_ATTR_POLICY, [](nl_msg* m) {
        nla_put_u8(m, XIW_POLICY_PERSIST, XIW_PERSIST_AUTO);
        nla_put_u8(m, XIW_POLICY_DRAM_PERSISTENT, XIW_DRAM_PERSISTENT_ON);
    });
    d = xiw::xiw_nl::parse_device(nlmsg_hdr(msg.get()));
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().context, "malformed xiw netlink reply: XIW_ATTR_POLICY without "
                                 "XIW_POLICY_DRAM_PERSISTENT_NOW");

    // every capability may be absent: none of them is required
    msg = device_with_nest(XIW_ATTR_CAPS, [](nl_msg*) {});
    d = xiw::xiw_nl::parse_device(nlmsg_hdr(msg.get()));
    ASSERT_TRUE(d) << d.error().message();
    EXPECT_EQ(d->caps.ops, 0U);
    EXPECT_TRUE(d->caps.op_names().empty());
    EXPECT_EQ(d->caps.max_qp, 0U);
}

TEST(XiwNetlink, ValuesOfANewerKernelAreNamedAsNumbers)
{
    auto msg = device_with_nest(XIW_ATTR_POLICY, [](nl_msg* m) {
        nla_put_u8(m, XIW_POLICY_PERSIST, XIW_PERSIST_MAX + 1);
        nla_put_u8(m, XIW_POLICY_DRAM_PERSISTENT, XIW_DRAM_PERSISTENT_MAX + 1);
        nla_put_u8(m, XIW_POLICY_DRAM_PERSISTENT_NOW, 0);
    });
    auto d = xiw::xiw_nl::parse_device(nlmsg_hdr(msg.get()));
    ASSERT_TRUE(d) << d.error().message();
    EXPECT_EQ(xiw::persist_name(d->policy.persist), "unknown(4)");
    EXPECT_EQ(xiw::dram_persistent_name(d->policy.dram_persistent), "unknown(3)");
}

TEST(XiwNetlink, RefusesAnMrWithoutWhatItNeeds)
{
    xiw::nl::Message msg(nlmsg_alloc());
    genlmsg_put(msg.get(), 0, 0, family, 0, 0, XIW_CMD_MR_GET, XIW_GENL_VERSION);
    nla_put_u32(msg.get(), XIW_ATTR_DEV_INDEX, 1);
    nla_put_string(msg.get(), XIW_ATTR_DEV_NAME, "xiw0");
    nla_put_u32(msg.get(), XIW_ATTR_MR_STAG, 0x12345678);
    auto m = xiw::xiw_nl::parse_mr(nlmsg_hdr(msg.get()));
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, EPROTO);
    EXPECT_EQ(m.error().context, "malformed xiw netlink reply: MR without XIW_ATTR_MR_PERSIST");
    // a device's reply is not an MR's
    auto dev = device_reply();
    m = xiw::xiw_nl::parse_mr(nlmsg_hdr(dev.get()));
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().context, "malformed xiw netlink reply: command 1 where 3 was expected");
}

TEST(XiwNetlink, ErrorsOfAnExchange)
{
    using xiw::xiw_nl::exchange_error;
    const std::string needs =
        " needs CAP_NET_ADMIN in the user namespace that owns the device's network namespace";
    // a refusal without a reason (the generic netlink core's) says what
    // the command needs
    auto e = exchange_error(xiw::make_error(EPERM, ""), "changing the policy of xiw0",
                            XIW_CMD_DEV_SET);
    EXPECT_EQ(e.message(), "changing the policy of xiw0: Operation not permitted: changing "
                           "xiw settings" + needs);
    e = exchange_error(xiw::make_error(EPERM, ""), "naming", XIW_CMD_MR_SET);
    EXPECT_EQ(e.extack, "changing xiw settings" + needs);
    e = exchange_error(xiw::make_error(EPERM, ""), "MR 0x1 of xiw0", XIW_CMD_MR_GET);
    EXPECT_EQ(e.extack, "reading an MR" + needs);
    // the kernel's reason stays as it is
    e = exchange_error(xiw::make_error(EPERM, "", "reading an MR" + needs), "MR 0x1 of xiw0",
                       XIW_CMD_MR_GET);
    EXPECT_EQ(e.extack, "reading an MR" + needs);
    // a read anyone may do, refused, is only what the kernel said
    e = exchange_error(xiw::make_error(EPERM, "", "no"), "listing xiw devices", XIW_CMD_DEV_GET);
    EXPECT_EQ(e.message(), "listing xiw devices: Operation not permitted: no");
    e = exchange_error(xiw::make_error(EPERM, ""), "xiw stats", XIW_CMD_STATS_GET);
    EXPECT_EQ(e.extack, "");
    // other refusals keep the kernel's text as it is
    e = exchange_error(xiw::make_error(ENODEV, "", "no such xiw device"), "xiw device x",
                       XIW_CMD_DEV_SET);
    EXPECT_EQ(e.message(), "xiw device x: No such device: no such xiw device");
    // a malformed reply says what was wrong with it too
    e = exchange_error(xiw::make_error(EPROTO, "malformed xiw netlink reply: MR without X"),
                       "MR 0x1 of xiw0", XIW_CMD_MR_GET);
    EXPECT_EQ(e.context, "MR 0x1 of xiw0: malformed xiw netlink reply: MR without X");
    // the kernel's EPROTO is the kernel's
    e = exchange_error(xiw::make_error(EPROTO, "", "why"), "MR 0x1 of xiw0", XIW_CMD_MR_GET);
    EXPECT_EQ(e.message(), "MR 0x1 of xiw0: Protocol error: why");
}

TEST(XiwNetlink, ParsesAnMr)
{
    xiw::nl::Message msg(nlmsg_alloc());
    genlmsg_put(msg.get(), 0, 0, family, 0, 0, XIW_CMD_MR_GET, XIW_GENL_VERSION);
    nla_put_u32(msg.get(), XIW_ATTR_DEV_INDEX, 1);
    nla_put_string(msg.get(), XIW_ATTR_DEV_NAME, "xiw0");
    nla_put_u32(msg.get(), XIW_ATTR_MR_STAG, 0x12345678);
    nla_put_u8(msg.get(), XIW_ATTR_MR_PERSIST, XIW_PERSIST_DRAM);
    auto m = xiw::xiw_nl::parse_mr(nlmsg_hdr(msg.get()));
    ASSERT_TRUE(m) << m.error().message();
    EXPECT_EQ(m->dev_index, 1u);
    EXPECT_EQ(m->dev_name, "xiw0");
    EXPECT_EQ(m->stag, 0x12345678U);
    EXPECT_EQ(m->persist, Persist::dram);
}

TEST(XiwNetlink, StatsRequestsAndReplies)
{
    auto dump = xiw::xiw_nl::build_stats_get(family, std::nullopt);
    ASSERT_TRUE(dump);
    nlmsghdr* hdr = nlmsg_hdr(dump->get());
    EXPECT_EQ(cmd_of(hdr), XIW_CMD_STATS_GET);
    EXPECT_NE(hdr->nlmsg_flags & NLM_F_DUMP, 0);
    auto one = xiw::xiw_nl::build_stats_get(family, "xiw1");
    ASSERT_TRUE(one);
    EXPECT_STREQ(nla_get_string(attr_of(nlmsg_hdr(one->get()), XIW_ATTR_DEV_NAME)), "xiw1");

    // As the kernel sends them: counters by name, u64 values padded.
    xiw::nl::Message msg(nlmsg_alloc());
    nl_msg* m = msg.get();
    genlmsg_put(m, 0, 0, family, 0, 0, XIW_CMD_STATS_GET, XIW_GENL_VERSION);
    nla_put_u32(m, XIW_ATTR_DEV_INDEX, 4);
    nla_put_string(m, XIW_ATTR_DEV_NAME, "xiw1");
    nlattr* stats = nla_nest_start(m, XIW_ATTR_STATS);
    for (auto [name, value] : {std::pair<const char*, uint64_t>{"tx_fpdus", 12},
                               {"rx_bytes", 1ULL << 40}}) {
        nlattr* c = nla_nest_start(m, XIW_ATTR_COUNTER);
        nla_put_string(m, XIW_COUNTER_NAME, name);
        nla_put(m, XIW_COUNTER_PAD, 0, nullptr);
        nla_put_u64(m, XIW_COUNTER_VALUE, value);
        nla_nest_end(m, c);
    }
    nla_put_u32(m, XIW_ATTR_MAX + 3, 1);  // a newer kernel's, ignored
    nla_nest_end(m, stats);
    auto s = xiw::xiw_nl::parse_stats(nlmsg_hdr(m));
    ASSERT_TRUE(s) << s.error().message();
    EXPECT_EQ(s->index, 4U);
    EXPECT_EQ(s->name, "xiw1");
    using C = std::vector<std::pair<std::string, uint64_t>>;
    EXPECT_EQ(s->counters, (C{{"tx_fpdus", 12}, {"rx_bytes", 1ULL << 40}}));
    EXPECT_TRUE(s->terminates.empty());

    // Terminates by code
    nlattr* terms = nla_nest_start(m, XIW_ATTR_TERMINATES);
    nlattr* t = nla_nest_start(m, XIW_ATTR_TERMINATE);
    nla_put_u8(m, XIW_TERMINATE_SENT, 1);
    nla_put_u8(m, XIW_TERMINATE_LAYER, 1);
    nla_put_u8(m, XIW_TERMINATE_TYPE, 1);
    nla_put_u8(m, XIW_TERMINATE_CODE, 0);
    nla_put(m, XIW_TERMINATE_PAD, 0, nullptr);
    nla_put_u64(m, XIW_TERMINATE_COUNT, 3);
    nla_nest_end(m, t);
    nla_nest_end(m, terms);
    s = xiw::xiw_nl::parse_stats(nlmsg_hdr(m));
    ASSERT_TRUE(s) << s.error().message();
    ASSERT_EQ(s->terminates.size(), 1U);
    EXPECT_TRUE(s->terminates[0].term.sent);
    EXPECT_EQ(s->terminates[0].term.layer, 1);
    EXPECT_EQ(s->terminates[0].term.type, 1);
    EXPECT_EQ(s->terminates[0].term.code, 0);
    EXPECT_EQ(s->terminates[0].count, 3U);

    // a counter without its value
    xiw::nl::Message bad(nlmsg_alloc());
    m = bad.get();
    genlmsg_put(m, 0, 0, family, 0, 0, XIW_CMD_STATS_GET, XIW_GENL_VERSION);
    nla_put_u32(m, XIW_ATTR_DEV_INDEX, 4);
    nla_put_string(m, XIW_ATTR_DEV_NAME, "xiw1");
    stats = nla_nest_start(m, XIW_ATTR_STATS);
    nlattr* c = nla_nest_start(m, XIW_ATTR_COUNTER);
    nla_put_string(m, XIW_COUNTER_NAME, "tx_fpdus");
    nla_nest_end(m, c);
    nla_nest_end(m, stats);
    s = xiw::xiw_nl::parse_stats(nlmsg_hdr(m));
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().context,
              "malformed xiw netlink reply: XIW_ATTR_COUNTER without XIW_COUNTER_VALUE");
}

namespace {

xiw::nl::Message event(int cmd)
{
    xiw::nl::Message msg(nlmsg_alloc());
    nl_msg* m = msg.get();
    genlmsg_put(m, 0, 0, family, 0, 0, cmd, XIW_GENL_VERSION);
    nla_put_u32(m, XIW_ATTR_DEV_INDEX, 5);
    nla_put_string(m, XIW_ATTR_DEV_NAME, "xiw0");
    return msg;
}

}  // namespace

TEST(XiwNetlink, ParsesEvents)
{
    auto msg = event(XIW_CMD_DEV_NEW);
    nla_put_string(msg.get(), XIW_ATTR_NETDEV_NAME, "v0");
    nla_put_u32(msg.get(), XIW_ATTR_NETDEV_INDEX, 9);
    auto e = xiw::xiw_nl::parse_event(nlmsg_hdr(msg.get()));
    ASSERT_TRUE(e) << e.error().message();
    EXPECT_EQ(e->kind, xiw::Event::Kind::dev_new);
    EXPECT_EQ(e->dev_index, 5U);
    EXPECT_EQ(e->dev_name, "xiw0");
    EXPECT_EQ(e->netdev, "v0");
    EXPECT_EQ(e->netdev_index, 9U);

    msg = event(XIW_CMD_DEV_DEL);
    e = xiw::xiw_nl::parse_event(nlmsg_hdr(msg.get()));
    ASSERT_TRUE(e) << e.error().message();
    EXPECT_EQ(e->kind, xiw::Event::Kind::dev_del);

    msg = event(XIW_CMD_QP_ERROR);
    nla_put_u32(msg.get(), XIW_ATTR_QP_NUM, 17);
    nlattr* t = nla_nest_start(msg.get(), XIW_ATTR_TERMINATE);
    nla_put_u8(msg.get(), XIW_TERMINATE_SENT, 1);
    nla_put_u8(msg.get(), XIW_TERMINATE_LAYER, 0);
    nla_put_u8(msg.get(), XIW_TERMINATE_TYPE, 1);
    nla_put_u8(msg.get(), XIW_TERMINATE_CODE, 0x02);
    nla_nest_end(msg.get(), t);
    e = xiw::xiw_nl::parse_event(nlmsg_hdr(msg.get()));
    ASSERT_TRUE(e) << e.error().message();
    EXPECT_EQ(e->kind, xiw::Event::Kind::qp_error);
    EXPECT_EQ(e->qp_num, 17U);
    EXPECT_TRUE(e->term.sent);
    EXPECT_EQ(e->term.layer, 0);
    EXPECT_EQ(e->term.type, 1);
    EXPECT_EQ(e->term.code, 0x02);
}

TEST(XiwNetlink, RefusesMalformedEvents)
{
    auto msg = event(XIW_CMD_QP_ERROR);
    nla_put_u32(msg.get(), XIW_ATTR_QP_NUM, 17);
    auto e = xiw::xiw_nl::parse_event(nlmsg_hdr(msg.get()));
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().context,
              "malformed xiw netlink reply: QP event without XIW_ATTR_TERMINATE");
    msg = event(XIW_CMD_DEV_NEW);
    e = xiw::xiw_nl::parse_event(nlmsg_hdr(msg.get()));
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().context,
              "malformed xiw netlink reply: device event without XIW_ATTR_NETDEV_NAME");
    msg = event(XIW_CMD_DEV_GET);
    e = xiw::xiw_nl::parse_event(nlmsg_hdr(msg.get()));
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().context, "malformed xiw netlink reply: event 1 is none xiw sends");
}
