// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "xiw/xiw_events.hpp"

#include "netlink.hpp"
#include "xiw_netlink_msg.hpp"

#include <linux/genetlink.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include <netlink/genl/ctrl.h>

#include "xiw_netlink.h"

namespace xiw {

Result<XiwEvents> XiwEvents::open()
{
    auto sock = nl::Socket::connect(NETLINK_GENERIC);
    if (!sock)
        return sock.error();
    int group = genl_ctrl_resolve_grp(sock->get(), XIW_GENL_NAME, XIW_GENL_MCGRP_EVENTS);
    if (group == -NLE_OBJ_NOTFOUND)
        return make_error(ENOENT, "the xiw generic netlink family or its events group is not "
                                  "registered: is the xiw module loaded? (modprobe xiw)");
    if (group < 0)
        return make_error(nl::errno_of_nle(group), "resolving the xiw events group");
    if (auto st = sock->subscribe(group); !st)
        return st.error();
    return XiwEvents(std::make_unique<nl::Socket>(std::move(sock).value()));
}

XiwEvents::XiwEvents(std::unique_ptr<nl::Socket> sock) : sock_(std::move(sock)) {}
XiwEvents::XiwEvents(XiwEvents&&) noexcept = default;
XiwEvents& XiwEvents::operator=(XiwEvents&&) noexcept = default;
XiwEvents::~XiwEvents() = default;

namespace {

using Clock = std::chrono::steady_clock;

// watch() and watch_for(): receive until @p on declines more, receiving
// fails, or the deadline (if any) passes.
Status watch_until(nl::Socket& sock, std::optional<Clock::time_point> deadline,
                   const std::function<bool(const Event&)>& on)
{
    bool more = true;
    while (more) {
        if (deadline) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline -
                                                                              Clock::now());
            auto ready = sock.readable(std::max(left, std::chrono::milliseconds(0)));
            if (!ready)
                return ready.error();
            if (!*ready)
                return Ok{};
        }
        Status st = sock.receive([&on, &more](nlmsghdr* hdr) -> Status {
            if (!more)
                return Ok{};  // the rest of a batch after the last wanted
            auto e = xiw_nl::parse_event(hdr);
            if (!e)
                return make_error(e.error().code, "xiw event: " + e.error().context);
            more = on(*e);
            return Ok{};
        });
        if (!st && st.error().code == ENOMEM && more) {
            // ENOBUFS, as libnl reports it: the kernel dropped events.
            Event lost;
            lost.kind = Event::Kind::lost;
            more = on(lost);
            continue;
        }
        if (!st)
            return st;
    }
    return Ok{};
}

}  // namespace

Status XiwEvents::watch(const std::function<bool(const Event&)>& on)
{
    return watch_until(*sock_, std::nullopt, on);
}

Status XiwEvents::watch_for(std::chrono::milliseconds timeout,
                            const std::function<bool(const Event&)>& on)
{
    return watch_until(*sock_, Clock::now() + timeout, on);
}

}  // namespace xiw
