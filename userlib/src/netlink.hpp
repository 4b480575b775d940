// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// RAII over libnl-3: sockets, messages, and one request/reply exchange.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "xiw/result.hpp"

namespace xiw::nl {

struct SocketDeleter {
    void operator()(nl_sock* s) const { nl_socket_free(s); }
};
struct MessageDeleter {
    void operator()(nl_msg* m) const { nlmsg_free(m); }
};
struct CallbackDeleter {
    void operator()(nl_cb* cb) const { nl_cb_put(cb); }
};

/// An owned netlink message.
using Message = std::unique_ptr<nl_msg, MessageDeleter>;

/// A new, empty message of type @p type with @p flags (NLM_F_*).
Result<Message> new_message(int type, int flags);

/// Called once per reply message; a returned Error ends the exchange.
using ReplyHandler = std::function<Status(nlmsghdr*)>;

/// One connected netlink socket of a given protocol.
class Socket {
public:
    /// Open and connect a socket of @p protocol (NETLINK_RDMA, NETLINK_GENERIC...),
    /// asking the kernel for extended-ack messages on errors.
    static Result<Socket> connect(int protocol);

    /// Send @p msg and receive until the kernel acknowledges it, ends the
    /// dump, or reports an error (returned with its extack text). The
    /// whole exchange is read even when @p on_reply fails (its Error is
    /// returned): the next request gets its own answer. After a receive
    /// error the socket refuses further requests (EPIPE).
    Status transact(Message msg, const ReplyHandler& on_reply = {});

    /// Join multicast group @p group: its messages come unasked, without
    /// sequence numbers (checking them is turned off).
    Status subscribe(int group);

    /// Wait for what the kernel sends next and hand each message of it to
    /// @p on_message, which may end the wait with an Error.
    Status receive(const ReplyHandler& on_message);

    /// Wait at most @p timeout for something to receive: true if there
    /// is, false if the time ran out first.
    Result<bool> readable(std::chrono::milliseconds timeout);

    [[nodiscard]] nl_sock* get() const { return sk_.get(); }

private:
    explicit Socket(nl_sock* sk) : sk_(sk) {}
    std::unique_ptr<nl_sock, SocketDeleter> sk_;
    bool broken_ = false;  ///< an exchange was left unfinished
};

/// The errno value of libnl's NLE_* code @p nle (either sign); EIO for
/// one without a counterpart.
int errno_of_nle(int nle);

/// The extended-ack text carried by an NLMSG_ERROR message, or "".
std::string extack_message(nlmsgerr* err);

}  // namespace xiw::nl
