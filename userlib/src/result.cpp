// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "xiw/result.hpp"

#include <cstring>

namespace xiw {

std::string Error::message() const
{
    std::string s = context;
    if (code != 0) {
        if (!s.empty())
            s += ": ";
        s += std::strerror(code);
    }
    if (!extack.empty())
        s += ": " + extack;
    return s;
}

}  // namespace xiw
