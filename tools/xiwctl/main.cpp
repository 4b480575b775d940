// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// xiwctl: inspect and manage xiw devices.
#include <cstdio>
#include <iostream>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "xiw/rdma_link.hpp"

namespace {

constexpr int exit_failed = 1;
constexpr int exit_usage = 2;

int fail(const xiw::Error& e)
{
    std::cerr << "xiwctl: " << e.message() << "\n";
    return exit_failed;
}

nlohmann::json device_json(const xiw::RdmaDevice& d)
{
    return {{"ifindex", d.index},
            {"ifname", d.name},
            {"node_type", d.node_type},
            {"fw", d.fw_version},
            {"node_guid", xiw::format_guid(d.node_guid)},
            {"sys_image_guid", xiw::format_guid(d.sys_image_guid)}};
}

void print_device(const xiw::RdmaDevice& d)
{
    std::cout << d.index << ": " << d.name << ": node_type " << d.node_type;
    if (!d.fw_version.empty())
        std::cout << " fw " << d.fw_version;
    std::cout << " node_guid " << xiw::format_guid(d.node_guid) << " sys_image_guid "
              << xiw::format_guid(d.sys_image_guid) << "\n";
}

int dev_show(const xiwctl::Options& opt, const xiwctl::DevShow& cmd)
{
    auto rnl = xiw::RdmaNetlink::open();
    if (!rnl)
        return fail(rnl.error());
    auto devs = rnl->devices();
    if (!devs)
        return fail(devs.error());
    std::vector<xiw::RdmaDevice> shown;
    for (const auto& d : *devs)
        if (!cmd.name || d.name == *cmd.name)
            shown.push_back(d);
    if (cmd.name && shown.empty())
        return fail(xiw::make_error(ENODEV, "RDMA device " + *cmd.name));
    if (opt.json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& d : shown)
            arr.push_back(device_json(d));
        std::cout << arr.dump(opt.pretty ? 4 : -1) << "\n";
    } else {
        for (const auto& d : shown)
            print_device(d);
    }
    return 0;
}

int link_add(const xiwctl::LinkAdd& cmd)
{
    auto rnl = xiw::RdmaNetlink::open();
    if (!rnl)
        return fail(rnl.error());
    if (auto st = rnl->add_link(cmd.name, cmd.netdev); !st)
        return fail(st.error());
    return 0;
}

int link_delete(const xiwctl::LinkDelete& cmd)
{
    auto rnl = xiw::RdmaNetlink::open();
    if (!rnl)
        return fail(rnl.error());
    if (auto st = rnl->delete_link(cmd.name); !st)
        return fail(st.error());
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    std::vector<std::string_view> args(argv + 1, argv + argc);
    auto inv = xiwctl::parse(args);
    if (!inv) {
        std::cerr << "xiwctl: " << inv.error().context << "\n"
                  << "Try \"xiwctl help\".\n";
        return exit_usage;
    }
    const auto& opt = inv->options;
    return std::visit(
        [&opt](const auto& cmd) -> int {
            using T = std::decay_t<decltype(cmd)>;
            if constexpr (std::is_same_v<T, xiwctl::Help>) {
                std::cout << xiwctl::usage(cmd.topic);
                return 0;
            } else if constexpr (std::is_same_v<T, xiwctl::DevShow>) {
                return dev_show(opt, cmd);
            } else if constexpr (std::is_same_v<T, xiwctl::LinkAdd>) {
                return link_add(cmd);
            } else {
                return link_delete(cmd);
            }
        },
        inv->command);
}
