// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"

namespace {

xiw::Result<xiwctl::Invocation> parse(std::initializer_list<std::string_view> words)
{
    std::vector<std::string_view> v(words);
    return xiwctl::parse(v);
}

// Words xiwctl must refuse as a usage error, and what its message says.
struct UsageCase {
    std::vector<std::string_view> words;
    std::string says;
};

void expect_usage_errors(const std::vector<UsageCase>& cases)
{
    for (const auto& c : cases) {
        auto inv = xiwctl::parse(c.words);
        ASSERT_FALSE(inv) << c.says;
        EXPECT_EQ(inv.error().code, EINVAL);
        EXPECT_NE(inv.error().context.find(c.says), std::string::npos)
            << inv.error().context << " lacks " << c.says;
    }
}

}  // namespace

TEST(XiwctlCli, DevDefaultsToShowAll)
{
    auto inv = parse({"dev"});
    ASSERT_TRUE(inv);
    auto* show = std::get_if<xiwctl::DevShow>(&inv->command);
    ASSERT_NE(show, nullptr);
    EXPECT_FALSE(show->name);
}

TEST(XiwctlCli, AbbreviationsAndOptions)
{
    auto inv = parse({"-j", "-p", "d", "sh", "xiw0"});
    ASSERT_TRUE(inv);
    EXPECT_TRUE(inv->options.json);
    EXPECT_TRUE(inv->options.pretty);
    EXPECT_EQ(std::get<xiwctl::DevShow>(inv->command).name, "xiw0");
}

TEST(XiwctlCli, LinkAdd)
{
    auto inv = parse({"link", "add", "xiw0", "netdev", "eth0"});
    ASSERT_TRUE(inv);
    auto add = std::get<xiwctl::LinkAdd>(inv->command);
    EXPECT_EQ(add.name, "xiw0");
    EXPECT_EQ(add.netdev, "eth0");
    EXPECT_TRUE(parse({"link", "add", "xiw0", "type", "xiw", "netdev", "eth0"}));
}

TEST(XiwctlCli, LinkDeleteAcceptsDelAndDelete)
{
    for (auto verb : {"del", "delete", "d"}) {
        auto inv = parse({"link", verb, "xiw0"});
        ASSERT_TRUE(inv) << verb;
        EXPECT_EQ(std::get<xiwctl::LinkDelete>(inv->command).name, "xiw0");
    }
}

TEST(XiwctlCli, UsageErrorsNameTheProblem)
{
    const std::vector<UsageCase> cases = {
        {{}, "missing object"},
        {{"frob"}, "unknown object \"frob\""},
        // Probing moved to xiwperf, which has the server it talks to.
        {{"probe", "192.0.2.1"}, "xiwperf probe --addr ADDR"},
        {{"--bogus", "dev"}, "unknown option \"--bogus\""},
        {{"link"}, "missing command"},
        {{"link", "add"}, "missing device name"},
        {{"link", "add", "xiw0"}, "missing \"netdev NETDEV\""},
        {{"link", "add", "xiw0", "netdev"}, "needs a value"},
        {{"link", "add", "xiw0", "type", "rxe", "netdev", "eth0"}, "only adds type xiw"},
        {{"link", "add", "xiw0", "color", "red"}, "unknown keyword \"color\""},
        {{"link", "delete"}, "missing device name"},
        {{"link", "delete", "a", "b"}, "unexpected \"b\""},
        {{"dev", "show", "a", "b"}, "unexpected \"b\""},
        {{"dev", "frob"}, "unknown command \"frob\""},
    };
    expect_usage_errors(cases);
}

TEST(XiwctlCli, AnAmbiguousObjectPrefixIsRefused)
{
    // "m" could be mr or monitor: refused, not the first in some list.
    const std::vector<UsageCase> cases = {
        {{"m"}, "object \"m\" is ambiguous (mr, monitor)"},
        {{"c"}, "object \"c\" is ambiguous (caps, config)"},
    };
    expect_usage_errors(cases);
    // A prefix only one object has is that object.
    EXPECT_TRUE(std::holds_alternative<xiwctl::PolicyShow>(parse({"po"})->command));
    EXPECT_TRUE(std::holds_alternative<xiwctl::PolicyShow>(parse({"p"})->command));
    EXPECT_TRUE(std::holds_alternative<xiwctl::ConfigShow>(parse({"co"})->command));
    EXPECT_TRUE(std::holds_alternative<xiwctl::Monitor>(parse({"mo"})->command));
}

TEST(XiwctlCli, VersionOption)
{
    for (auto opt : {"-V", "--version"}) {
        auto inv = parse({opt});
        ASSERT_TRUE(inv) << opt;
        EXPECT_TRUE(std::holds_alternative<xiwctl::Version>(inv->command)) << opt;
    }
}

TEST(XiwctlCli, EmptyWordIsNotAPrefix)
{
    EXPECT_FALSE(xiwctl::matches("", "dev"));
    EXPECT_FALSE(xiwctl::matches("devices", "dev"));
    EXPECT_TRUE(xiwctl::matches("de", "dev"));
}

TEST(XiwctlCli, HelpTopics)
{
    auto inv = parse({"link", "help"});
    ASSERT_TRUE(inv);
    EXPECT_EQ(std::get<xiwctl::Help>(inv->command).topic, "link");
    EXPECT_NE(xiwctl::usage("link").find("link add NAME netdev NETDEV"), std::string::npos);
}

TEST(XiwctlCli, CapsAndPolicyShow)
{
    auto inv = parse({"caps"});
    ASSERT_TRUE(inv);
    EXPECT_FALSE(std::get<xiwctl::CapsShow>(inv->command).name);
    inv = parse({"-j", "ca", "sh", "xiw1"});
    ASSERT_TRUE(inv);
    EXPECT_EQ(std::get<xiwctl::CapsShow>(inv->command).name, "xiw1");

    inv = parse({"policy"});
    ASSERT_TRUE(inv);
    EXPECT_FALSE(std::get<xiwctl::PolicyShow>(inv->command).name);
    for (auto words : {std::initializer_list<std::string_view>{"policy", "xiw0"},
                       {"policy", "show", "xiw0"}, {"pol", "li", "xiw0"},
                       {"policy", "s", "xiw0"}}) {
        inv = parse(words);
        ASSERT_TRUE(inv);
        EXPECT_EQ(std::get<xiwctl::PolicyShow>(inv->command).name, "xiw0");
    }
}

TEST(XiwctlCli, PolicySet)
{
    auto inv = parse({"policy", "set", "xiw0", "domain", "pmem"});
    ASSERT_TRUE(inv);
    auto set = std::get<xiwctl::PolicySet>(inv->command);
    EXPECT_EQ(set.name, "xiw0");
    EXPECT_EQ(set.change.persist, xiw::Persist::pmem);
    EXPECT_FALSE(set.change.dram_persistent);

    inv = parse({"policy", "set", "xiw0", "dram-persistent", "on", "dom", "auto"});
    ASSERT_TRUE(inv);
    set = std::get<xiwctl::PolicySet>(inv->command);
    EXPECT_EQ(set.change.persist, xiw::Persist::auto_);
    EXPECT_EQ(set.change.dram_persistent, xiw::DramPersistent::on);
    inv = parse({"policy", "set", "xiw0", "dram", "default"});
    ASSERT_TRUE(inv);
    EXPECT_EQ(std::get<xiwctl::PolicySet>(inv->command).change.dram_persistent,
              xiw::DramPersistent::default_);
    // "se" is set; "s" alone is show (a read, never a change)
    inv = parse({"-j", "po", "se", "xiw0", "dr", "off", "d", "file"});
    ASSERT_TRUE(inv);
    set = std::get<xiwctl::PolicySet>(inv->command);
    EXPECT_EQ(set.change.persist, xiw::Persist::file);
    EXPECT_EQ(set.change.dram_persistent, xiw::DramPersistent::off);
}

TEST(XiwctlCli, MrShowAndSet)
{
    auto inv = parse({"mr", "show", "xiw1", "0x1a2B3c4d"});
    ASSERT_TRUE(inv);
    auto mr = std::get<xiwctl::MrPolicyCmd>(inv->command);
    EXPECT_EQ(mr.name, "xiw1");
    EXPECT_EQ(mr.stag, 0x1a2b3c4dU);
    EXPECT_FALSE(mr.persist);
    inv = parse({"mr", "se", "xiw1", "4294967295", "domain", "dram"});
    ASSERT_TRUE(inv);
    mr = std::get<xiwctl::MrPolicyCmd>(inv->command);
    EXPECT_EQ(mr.stag, 0xffffffffU);
    EXPECT_EQ(mr.persist, xiw::Persist::dram);
    // auto: none of its own, the device's applies
    inv = parse({"mr", "set", "xiw1", "0XFFFFFFFF", "dom", "auto"});
    ASSERT_TRUE(inv);
    mr = std::get<xiwctl::MrPolicyCmd>(inv->command);
    EXPECT_EQ(mr.stag, 0xffffffffU);
    EXPECT_EQ(mr.persist, xiw::Persist::auto_);
    // "s" is show, never set.
    inv = parse({"mr", "s", "xiw1", "7"});
    ASSERT_TRUE(inv);
    EXPECT_FALSE(std::get<xiwctl::MrPolicyCmd>(inv->command).persist);
    for (auto [word, stag] : {std::pair<std::string_view, uint32_t>{"0", 0},
                              {"0x0", 0}, {"000000000017", 17}, {"0x00000000ff", 0xff}}) {
        inv = parse({"mr", "show", "xiw1", word});
        ASSERT_TRUE(inv) << word;
        EXPECT_EQ(std::get<xiwctl::MrPolicyCmd>(inv->command).stag, stag) << word;
    }
}

TEST(XiwctlCli, PolicyAndMrUsageErrors)
{
    const std::vector<UsageCase> cases = {
        {{"policy", "set"}, "policy set: missing device name"},
        {{"policy", "set", "xiw0"}, "policy set: nothing to change (domain, dram-persistent)"},
        {{"policy", "set", "xiw0", "domain"}, "\"domain\" needs a value (auto, dram, pmem, file)"},
        {{"policy", "set", "xiw0", "domain", "nvme"},
         "policy set: domain \"nvme\" is not one of auto, dram, pmem, file"},
        {{"policy", "set", "xiw0", "domain", "pmem", "domain", "dram"},
         "\"domain\" given twice"},
        {{"policy", "set", "xiw0", "dram-persistent", "yes"},
         "dram-persistent \"yes\" is not one of default, off, on"},
        {{"policy", "set", "xiw0", "dram-persistent"}, "needs a value (on, off, default)"},
        {{"policy", "set", "xiw0", "dram-persistent", "on", "dram-persistent", "off"},
         "\"dram-persistent\" given twice"},
        {{"policy", "set", "xiw0", "color", "red"}, "unknown keyword \"color\""},
        {{"policy", "show", "a", "b"}, "policy show: unexpected \"b\""},
        {{"caps", "a", "b"}, "caps: unexpected \"b\""},
        {{"mr"}, "mr: missing command (show, set)"},
        {{"mr", "policy", "xiw0", "1"}, "mr: unknown command \"policy\""},
        {{"mr", "frob"}, "mr: unknown command \"frob\""},
        {{"mr", "show"}, "mr show: missing device name"},
        {{"mr", "set", "xiw0"}, "mr set: missing STAG"},
        {{"mr", "set", "xiw0", "1"}, "mr set: nothing to change (domain)"},
        {{"mr", "show", "xiw0", "1", "domain", "dram"}, "mr show: unexpected \"domain\""},
        {{"mr", "show", "xiw0", "0x"}, "\"0x\" is not an STag"},
        {{"mr", "show", "xiw0", "12ab"}, "\"12ab\" is not an STag"},
        {{"mr", "show", "xiw0", "-1"}, "\"-1\" is not an STag"},
        {{"mr", "show", "xiw0", "4294967296"}, "\"4294967296\" is not an STag"},
        {{"mr", "show", "xiw0", "0x100000000"}, "\"0x100000000\" is not an STag"},
        {{"mr", "show", "xiw0", "99999999999999999999999"}, "is not an STag"},
        {{"mr", "show", "xiw0", "+1"}, "\"+1\" is not an STag"},
        {{"mr", "show", "xiw0", " 1"}, "\" 1\" is not an STag"},
        {{"mr", "show", "xiw0", "1 "}, "\"1 \" is not an STag"},
        {{"mr", "show", "xiw0", "0x-1"}, "\"0x-1\" is not an STag"},
        {{"mr", "show", "xiw0", "0x0x1"}, "\"0x0x1\" is not an STag"},
        {{"mr", "show", "xiw0", ""}, "\"\" is not an STag"},
        {{"mr", "show", "xiw0", "0x1g"}, "\"0x1g\" is not an STag"},
        {{"policy", "s", "xiw0", "domain", "pmem"}, "policy show: unexpected \"domain\""},
        {{"policy", "set", "xiw0", "domain", "pmem", "dram-persistent"},
         "\"dram-persistent\" needs a value"},
        {{"policy", "set", "xiw0", "dram-persistent", "on", "dom", "auto", "dr", "off"},
         "\"dram-persistent\" given twice"},
        {{"policy", "set", "xiw0", "pmem"}, "unknown keyword \"pmem\""},
        {{"caps", "show", "a", "b"}, "caps: unexpected \"b\""},
        {{"mr", "set", "xiw0", "1", "domain", "dram", "domain", "pmem"},
         "mr set: \"domain\" given twice"},
        {{"mr", "set", "xiw0", "1", "domain"}, "\"domain\" needs a value"},
        {{"mr", "set", "xiw0", "1", "domain", "tape"}, "domain \"tape\" is not one of"},
        {{"mr", "set", "xiw0", "1", "color", "red"}, "unknown keyword \"color\""},
        {{"mr", "set", "xiw0", "1", "domain", "dram", "x"}, "unknown keyword \"x\""},
    };
    expect_usage_errors(cases);
}

TEST(XiwctlCli, HelpOfTheNewObjects)
{
    for (auto topic : {"caps", "policy", "mr", "config", "stats", "monitor"}) {
        auto inv = parse({topic, "help"});
        ASSERT_TRUE(inv) << topic;
        EXPECT_EQ(std::get<xiwctl::Help>(inv->command).topic, topic);
    }
    EXPECT_NE(xiwctl::usage("policy").find(
                  "policy set NAME [domain DOMAIN] [dram-persistent DRAM]"),
              std::string::npos);
    EXPECT_NE(xiwctl::usage("mr").find("DOMAIN := { auto | dram | pmem | file }"),
              std::string::npos);
    EXPECT_NE(xiwctl::usage("").find("OBJECT := { dev | link | caps | config | policy | mr | "
                                     "stats | monitor | help }"),
              std::string::npos);
}

TEST(XiwctlCli, ConfigShowAndSet)
{
    auto inv = parse({"config"});
    ASSERT_TRUE(inv);
    EXPECT_FALSE(std::get<xiwctl::ConfigShow>(inv->command).name);
    // "s" is show, never set
    inv = parse({"co", "s", "xiw0"});
    ASSERT_TRUE(inv);
    EXPECT_EQ(std::get<xiwctl::ConfigShow>(inv->command).name, "xiw0");

    inv = parse({"config", "set", "xiw0", "crc", "required", "mark", "on", "mpa", "1", "p2p",
                 "off", "rtr", "read,send", "hashes", "sha256", "debug", "quiet"});
    ASSERT_TRUE(inv) << inv.error().context;
    const auto& set = std::get<xiwctl::ConfigSet>(inv->command);
    EXPECT_EQ(set.name, "xiw0");
    EXPECT_EQ(set.change.crc, xiw::Crc::required);
    EXPECT_EQ(set.change.markers, xiw::Switch::on);
    EXPECT_EQ(set.change.mpa_rev, 1);
    EXPECT_EQ(set.change.p2p, xiw::Switch::off);
    EXPECT_EQ(set.change.rtr, (std::vector<xiw::RtrKind>{xiw::RtrKind::read, xiw::RtrKind::send}));
    EXPECT_EQ(set.change.hashes, 1U << 2);
    EXPECT_EQ(set.change.debug, xiw::Debug::quiet);

    // back to the module parameters; no hash at all
    inv = parse({"config", "set", "xiw0", "mpa", "default", "rtr", "default", "hashes", "none"});
    ASSERT_TRUE(inv);
    const auto& back = std::get<xiwctl::ConfigSet>(inv->command);
    EXPECT_EQ(back.change.mpa_rev, 0);
    EXPECT_EQ(back.change.rtr, std::vector<xiw::RtrKind>{});
    EXPECT_EQ(back.change.hashes, 0U);
    EXPECT_FALSE(back.change.crc);
}

TEST(XiwctlCli, ConfigUsageErrors)
{
    const std::vector<UsageCase> cases = {
        {{"config", "set"}, "config set: missing device name"},
        {{"config", "set", "xiw0"}, "config set: nothing to change (crc, markers, mpa, p2p, "
                                    "rtr, hashes, debug)"},
        {{"config", "set", "xiw0", "crc"}, "config set: \"crc\" needs a value"},
        {{"config", "set", "xiw0", "crc", "maybe"},
         "config set: crc \"maybe\" is not one of default, off, preferred, required"},
        {{"config", "set", "xiw0", "crc", "off", "crc", "on"}, "\"crc\" given twice"},
        {{"config", "set", "xiw0", "mpa", "3"}, "mpa \"3\" is not one of default, 1, 2"},
        {{"config", "set", "xiw0", "p2p", "yes"}, "p2p \"yes\" is not one of default, off, on"},
        {{"config", "set", "xiw0", "rtr", "write,write"}, "\"write,write\" names one twice"},
        {{"config", "set", "xiw0", "rtr", "write,"}, "rtr \"\" is not one of send, write, read"},
        {{"config", "set", "xiw0", "rtr", "none"}, "rtr \"none\" is not one of send, write, read"},
        {{"config", "set", "xiw0", "hashes", "md5"}, "hash \"md5\" is not one of crc32c, sha256"},
        {{"config", "set", "xiw0", "debug", "loud"}, "debug \"loud\" is not one of"},
        {{"config", "set", "xiw0", "color", "red"}, "unknown keyword \"color\""},
        {{"config", "show", "a", "b"}, "config show: unexpected \"b\""},
    };
    expect_usage_errors(cases);
}

TEST(XiwctlCli, StatsShow)
{
    auto inv = parse({"stats"});
    ASSERT_TRUE(inv);
    EXPECT_FALSE(std::get<xiwctl::StatsShow>(inv->command).name);
    inv = parse({"-j", "st", "sh", "xiw1"});
    ASSERT_TRUE(inv);
    EXPECT_EQ(std::get<xiwctl::StatsShow>(inv->command).name, "xiw1");
    inv = parse({"stats", "xiw1", "more"});
    ASSERT_FALSE(inv);
    EXPECT_EQ(inv.error().context, "stats: unexpected \"more\"");
}

TEST(XiwctlCli, Monitor)
{
    auto inv = parse({"-j", "mon"});
    ASSERT_TRUE(inv);
    EXPECT_TRUE(std::holds_alternative<xiwctl::Monitor>(inv->command));
    EXPECT_TRUE(inv->options.json);
    inv = parse({"monitor", "all"});
    ASSERT_FALSE(inv);
    EXPECT_EQ(inv.error().context, "monitor: unexpected \"all\"");
}

TEST(XiwctlCli, StatsWatch)
{
    auto inv = parse({"stats", "-w"});
    ASSERT_TRUE(inv);
    const auto& a = std::get<xiwctl::StatsShow>(inv->command);
    EXPECT_FALSE(a.name);
    EXPECT_EQ(a.watch, 1.0);
    inv = parse({"stats", "show", "xiw1", "--watch", "0.25"});
    ASSERT_TRUE(inv);
    const auto& b = std::get<xiwctl::StatsShow>(inv->command);
    EXPECT_EQ(b.name, "xiw1");
    EXPECT_EQ(b.watch, 0.25);
    inv = parse({"stats", "-w", "2", "xiw0"});
    ASSERT_TRUE(inv);
    EXPECT_EQ(std::get<xiwctl::StatsShow>(inv->command).name, "xiw0");
    EXPECT_EQ(std::get<xiwctl::StatsShow>(inv->command).watch, 2.0);
    for (auto bad : {"0", "1e9", "1x", ".", "-3"}) {
        inv = parse({"stats", "-w", bad});
        ASSERT_FALSE(inv) << bad;
    }
    EXPECT_EQ(parse({"stats", "-w", "0"}).error().context,
              "stats: \"0\" is not a number of seconds (more than 0, at most 86400)");
    EXPECT_EQ(parse({"stats", "-w", "-w"}).error().context, "stats: \"-w\" given twice");
    EXPECT_EQ(parse({"stats", "a", "b"}).error().context, "stats: unexpected \"b\"");
}
