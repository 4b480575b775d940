// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "xiw/version.hpp"

namespace xiw {

const char* version()
{
    return XIW_VERSION_STRING;
}

}  // namespace xiw
