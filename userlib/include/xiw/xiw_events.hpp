// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The xiw family's events group (uapi/xiw_netlink.h, Documentation/
// netlink.md "Events"): devices created and gone, connections ended by a
// Terminate, as they happen.
#pragma once

#include <chrono>
#include <functional>

#include <memory>

#include "xiw/export.hpp"
#include "xiw/result.hpp"
#include "xiw/xiw_netlink.hpp"

namespace xiw {

/// A subscription to the events group of the caller's network namespace.
namespace nl {
class Socket;
}

class XIW_API XiwEvents {
public:
    /// Subscribe; ENOENT saying so if xiw is not loaded.
    static Result<XiwEvents> open();
    XiwEvents(XiwEvents&&) noexcept;
    XiwEvents& operator=(XiwEvents&&) noexcept;
    ~XiwEvents();

    /// Hand each event to @p on as it comes, until @p on returns false
    /// (Ok) or receiving fails (the error; a malformed event is EPROTO).
    /// Events dropped because the socket overflowed come as one
    /// Event::Kind::lost, and the watch goes on.
    Status watch(const std::function<bool(const Event&)>& on);

    /// As watch(), but for at most @p timeout: Ok when the time runs out
    /// or @p on returns false, whichever comes first.
    Status watch_for(std::chrono::milliseconds timeout,
                     const std::function<bool(const Event&)>& on);

private:
    explicit XiwEvents(std::unique_ptr<nl::Socket> sock);
    std::unique_ptr<nl::Socket> sock_;
};

}  // namespace xiw
