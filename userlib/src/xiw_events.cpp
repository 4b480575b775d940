// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "xiw/xiw_events.hpp"

#include <linux/genetlink.h>

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
    return XiwEvents(std::move(sock).value());
}

Status XiwEvents::watch(const std::function<bool(const Event&)>& on)
{
    bool more = true;
    while (more) {
        Status st = sock_.receive([&on, &more](nlmsghdr* hdr) -> Status {
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

}  // namespace xiw
