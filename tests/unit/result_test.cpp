// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "xiw/result.hpp"

TEST(Result, HoldsValue)
{
    xiw::Result<std::string> r(std::string("xiw0"));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, "xiw0");
    EXPECT_EQ(r->size(), 4u);
}

TEST(Result, HoldsError)
{
    xiw::Result<int> r(xiw::make_error(EEXIST, "adding xiw0"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, EEXIST);
    EXPECT_EQ(r.error().message(), "adding xiw0: File exists");
}

TEST(Result, MessageCarriesKernelExtack)
{
    auto e = xiw::make_error(EINVAL, "setting crc", "value out of range");
    EXPECT_EQ(e.message(), "setting crc: Invalid argument: value out of range");
}

TEST(Result, MessageWithoutErrnoIsJustContext)
{
    EXPECT_EQ(xiw::make_error(0, "usage").message(), "usage");
}
