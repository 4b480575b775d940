// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// One request/reply exchange stays one exchange: whatever a reply handler
// says, the socket is read to the end of the exchange, so that the next
// request on it gets its own answer (issue 29). Against the host's own
// generic netlink controller, which every Linux kernel has.
#include <gtest/gtest.h>

#include <linux/genetlink.h>

#include <cerrno>
#include <string>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "netlink.hpp"

namespace {

// CTRL_CMD_GETFAMILY for @name: one reply message, then the ACK.
xiw::nl::Message get_family(const char* name)
{
    auto msg = xiw::nl::new_message(GENL_ID_CTRL, NLM_F_REQUEST);
    EXPECT_TRUE(msg.ok());
    genlmsghdr hdr{};
    hdr.cmd = CTRL_CMD_GETFAMILY;
    hdr.version = 1;
    EXPECT_EQ(nlmsg_append(msg->get(), &hdr, sizeof(hdr), NLMSG_ALIGNTO), 0);
    EXPECT_EQ(nla_put_string(msg->get(), CTRL_ATTR_FAMILY_NAME, name), 0);
    return std::move(msg).value();
}

// The family name a GETFAMILY reply carries, or "".
std::string family_name(nlmsghdr* h)
{
    nlattr* tb[CTRL_ATTR_MAX + 1] = {};
    if (genlmsg_parse(h, 0, tb, CTRL_ATTR_MAX, nullptr) < 0 ||
        !tb[CTRL_ATTR_FAMILY_NAME])
        return {};
    return nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]);
}

// GETFAMILY "nlctrl" on @sock gets exactly one reply, its own.
void expect_own_reply(xiw::nl::Socket& sock)
{
    int replies = 0;
    std::string name;
    auto answered = sock.transact(get_family("nlctrl"), [&](nlmsghdr* h) {
        ++replies;
        name = family_name(h);
        return xiw::Status(xiw::Ok{});
    });
    ASSERT_TRUE(answered.ok()) << answered.error().message();
    EXPECT_EQ(replies, 1);
    EXPECT_EQ(name, "nlctrl");
}

}  // namespace

TEST(Exchange, ARejectedReplyLeavesTheNextRequestItsOwnAnswer)
{
    auto sock = xiw::nl::Socket::connect(NETLINK_GENERIC);
    ASSERT_TRUE(sock.ok()) << sock.error().message();

    // The handler refuses the reply: the exchange fails with its error...
    auto refused = sock->transact(get_family("nlctrl"), [](nlmsghdr*) {
        return xiw::Status(xiw::make_error(EBADMSG, "parsing a reply"));
    });
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, EBADMSG);

    // ...and the next request on the same socket gets its own reply, not
    // the first one's leftover ACK.
    expect_own_reply(*sock);

    // A request the kernel refuses still fails (ENOENT or EINVAL, by
    // kernel version)...
    auto missing = sock->transact(get_family("no-such-family-xiw"));
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().code, 0);

    // ...and leaves the socket in step too.
    expect_own_reply(*sock);
}
