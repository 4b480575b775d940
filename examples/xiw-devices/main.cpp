// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// An example of libxiw from outside the tree: list the xiw devices, their
// netdev and the RDMAP extensions they take, or say why it cannot.
#include <iostream>

#include <xiw/version.hpp>
#include <xiw/xiw_netlink.hpp>

int main()
{
    std::cout << "libxiw " << xiw::version() << " (headers " << XIW_VERSION_STRING << ")\n";
    auto nl = xiw::XiwNetlink::open();
    if (!nl) {
        std::cerr << "xiw-devices: " << nl.error().message() << "\n";
        return 1;
    }
    auto devices = nl->devices();
    if (!devices) {
        std::cerr << "xiw-devices: " << devices.error().message() << "\n";
        return 1;
    }
    for (const xiw::XiwDevice& d : *devices) {
        std::cout << d.name << " on " << d.netdev << ":";
        for (const std::string& op : d.caps.op_names())
            std::cout << " " << op;
        std::cout << "\n";
    }
    return 0;
}
