// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include <initializer_list>
#include <string_view>
#include <vector>

#include "cli.hpp"

namespace {

xiw::Result<xiwctl::Invocation> parse(std::initializer_list<std::string_view> words)
{
    std::vector<std::string_view> v(words);
    return xiwctl::parse(v);
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
    struct Case {
        std::initializer_list<std::string_view> words;
        const char* says;
    };
    const Case cases[] = {
        {{}, "missing object"},
        {{"frob"}, "unknown object \"frob\""},
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
    for (const auto& c : cases) {
        auto inv = parse(c.words);
        ASSERT_FALSE(inv) << c.says;
        EXPECT_EQ(inv.error().code, EINVAL);
        EXPECT_NE(inv.error().context.find(c.says), std::string::npos)
            << inv.error().context << " lacks " << c.says;
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
