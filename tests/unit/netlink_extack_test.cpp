// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The kernel's extack text is found in NLMSG_ERROR replies whether or not
// the kernel echoed the request (NLM_F_CAPPED).
#include <gtest/gtest.h>

#include <linux/netlink.h>

#include <cstdint>
#include <cstring>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "netlink.hpp"

namespace {

// Build an NLMSG_ERROR as netlink_ack() does: nlmsgerr, the request (all
// of it, or only its header when capped), then the TLVs.
xiw::nl::Message error_reply(bool capped, const char* text)
{
    xiw::nl::Message req(nlmsg_alloc_simple(0x1234, NLM_F_REQUEST));
    nla_put_string(req.get(), 1, "a request payload to be echoed");
    nlmsghdr* rh = nlmsg_hdr(req.get());

    int flags = NLM_F_ACK_TLVS | (capped ? NLM_F_CAPPED : 0);
    xiw::nl::Message m(nlmsg_alloc_simple(NLMSG_ERROR, flags));
    size_t payload = sizeof(nlmsgerr) + (capped ? 0 : rh->nlmsg_len - NLMSG_HDRLEN);
    auto* err = static_cast<nlmsgerr*>(nlmsg_reserve(m.get(), payload, NLMSG_ALIGNTO));
    err->error = -EINVAL;
    std::memcpy(&err->msg, rh, capped ? sizeof(nlmsghdr) : rh->nlmsg_len);
    if (text)
        nla_put_string(m.get(), NLMSGERR_ATTR_MSG, text);
    return m;
}

nlmsgerr* err_of(const xiw::nl::Message& m)
{
    return static_cast<nlmsgerr*>(nlmsg_data(nlmsg_hdr(m.get())));
}

}  // namespace

TEST(Extack, FoundAfterCappedRequest)
{
    auto m = error_reply(true, "crc policy must be required, preferred or off");
    EXPECT_EQ(xiw::nl::extack_message(err_of(m)),
              "crc policy must be required, preferred or off");
}

TEST(Extack, FoundAfterEchoedRequest)
{
    auto m = error_reply(false, "unknown STag");
    EXPECT_EQ(xiw::nl::extack_message(err_of(m)), "unknown STag");
}

TEST(Extack, EmptyWhenKernelSentNone)
{
    auto m = error_reply(true, nullptr);
    EXPECT_EQ(xiw::nl::extack_message(err_of(m)), "");
}

// An echoed request whose length is not what the reply holds (too long,
// wrapping, or shorter than a header) has no TLVs to be found: none is
// read from outside the reply.
TEST(Extack, NoneWhenTheEchoedLengthDoesNotFit)
{
    for (std::uint32_t len : {0xfffffff4U, 0x80000000U, 0x1000U, 4U}) {
        auto m = error_reply(false, "unknown STag");
        err_of(m)->msg.nlmsg_len = len;
        EXPECT_EQ(xiw::nl::extack_message(err_of(m)), "") << len;
    }
}
