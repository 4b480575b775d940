// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "netlink.hpp"

#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <optional>

#include <netlink/attr.h>
#include <netlink/handlers.h>
#include <netlink/socket.h>

namespace xiw::nl {

namespace {

struct Exchange {
    const ReplyHandler* on_reply;
    std::optional<Error> error;
    bool done = false;
};

int on_valid(nl_msg* msg, void* arg)
{
    auto* ex = static_cast<Exchange*>(arg);
    if (ex->error || !ex->on_reply || !*ex->on_reply)
        return NL_OK;
    Status st = (*ex->on_reply)(nlmsg_hdr(msg));
    if (!st)
        ex->error = st.error();
    return NL_OK;
}

int any_seq(nl_msg*, void*)
{
    return NL_OK;
}

int on_finish(nl_msg*, void* arg)
{
    static_cast<Exchange*>(arg)->done = true;
    return NL_STOP;
}

int on_error(sockaddr_nl*, nlmsgerr* err, void* arg)
{
    auto* ex = static_cast<Exchange*>(arg);
    ex->done = true;
    if (err->error != 0 && !ex->error)
        ex->error = make_error(-err->error, "", extack_message(err));
    return NL_STOP;
}

}  // namespace

int errno_of_nle(int nle)
{
    switch (nle < 0 ? -nle : nle) {
    case NLE_NOMEM: return ENOMEM;
    case NLE_PERM: return EPERM;
    case NLE_NOACCESS: return EACCES;
    case NLE_EXIST: return EEXIST;
    case NLE_OBJ_NOTFOUND: return ENOENT;
    case NLE_NODEV: return ENODEV;
    case NLE_INVAL: return EINVAL;
    case NLE_OPNOTSUPP: return EOPNOTSUPP;
    case NLE_AGAIN: return EAGAIN;
    case NLE_BUSY: return EBUSY;
    case NLE_RANGE: return ERANGE;
    case NLE_MSGSIZE: return EMSGSIZE;
    default: return EIO;
    }
}

std::string extack_message(nlmsgerr* err)
{
    // The error sits in an NLMSG_ERROR message; its attributes follow the
    // nlmsgerr and, unless the kernel capped it, the echoed request.
    auto* hdr = reinterpret_cast<nlmsghdr*>(reinterpret_cast<char*>(err) -
                                            NLMSG_HDRLEN);
    if (!(hdr->nlmsg_flags & NLM_F_ACK_TLVS))
        return {};
    // What comes before the TLVs: the nlmsgerr and, unless capped, the
    // rest of the echoed request, whose length must lie within this reply.
    std::size_t skip = sizeof(*err);
    if (!(hdr->nlmsg_flags & NLM_F_CAPPED)) {
        if (err->msg.nlmsg_len < NLMSG_HDRLEN)
            return {};
        skip += err->msg.nlmsg_len - NLMSG_HDRLEN;
    }
    if (hdr->nlmsg_len < NLMSG_HDRLEN || skip > hdr->nlmsg_len - NLMSG_HDRLEN)
        return {};
    nlattr* tb[NLMSGERR_ATTR_MAX + 1] = {};
    if (nlmsg_parse(hdr, static_cast<int>(skip), tb, NLMSGERR_ATTR_MAX, nullptr) < 0 ||
        !tb[NLMSGERR_ATTR_MSG])
        return {};
    return nla_get_string(tb[NLMSGERR_ATTR_MSG]);
}

Result<Message> new_message(int type, int flags)
{
    Message msg(nlmsg_alloc_simple(type, flags));
    if (!msg)
        return make_error(ENOMEM, "allocating a netlink message");
    return msg;
}

Result<Socket> Socket::connect(int protocol)
{
    nl_sock* raw = nl_socket_alloc();
    if (!raw)
        return make_error(ENOMEM, "allocating a netlink socket");
    Socket sock(raw);
    if (int r = nl_connect(raw, protocol); r < 0)
        return make_error(errno_of_nle(r), "connecting a netlink socket");
    // Peek at each datagram's size first: a reply may exceed a page.
    nl_socket_enable_msg_peek(raw);
    int one = 1;
    // Best effort: older kernels lack them and still work without text.
    setsockopt(nl_socket_get_fd(raw), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
    setsockopt(nl_socket_get_fd(raw), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
    return sock;
}

Status Socket::transact(Message msg, const ReplyHandler& on_reply)
{
    std::unique_ptr<nl_cb, CallbackDeleter> cb(nl_cb_alloc(NL_CB_DEFAULT));
    if (!cb)
        return make_error(ENOMEM, "allocating netlink callbacks");

    Exchange ex{&on_reply, std::nullopt, false};
    nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, on_valid, &ex);
    nl_cb_set(cb.get(), NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &ex);
    nl_cb_set(cb.get(), NL_CB_ACK, NL_CB_CUSTOM, on_finish, &ex);
    nl_cb_err(cb.get(), NL_CB_CUSTOM, on_error, &ex);

    if (broken_)
        return make_error(EPIPE, "using a netlink socket after a failed exchange");
    nlmsg_hdr(msg.get())->nlmsg_flags |= NLM_F_ACK;
    if (int r = nl_send_auto(sk_.get(), msg.get()); r < 0)
        return make_error(errno_of_nle(r), "sending a netlink request");

    // Read to the end of the exchange (the ACK, NLMSG_DONE or the error)
    // even after a handler failed: what is left unread would be taken as
    // the answer to the next request on this socket.
    while (!ex.done) {
        int r = nl_recvmsgs(sk_.get(), cb.get());
        // An error reply ends the exchange too (libnl returns its code).
        if (r < 0 && !ex.done) {
            // The socket itself failed: whatever of this exchange is
            // still queued can no longer be told from the next one's.
            broken_ = true;
            return ex.error ? *ex.error
                            : make_error(errno_of_nle(r), "receiving a netlink reply");
        }
    }
    if (ex.error)
        return *ex.error;
    return Ok{};
}

Status Socket::subscribe(int group)
{
    nl_socket_disable_seq_check(sk_.get());
    if (int r = nl_socket_add_membership(sk_.get(), group); r < 0)
        return make_error(errno_of_nle(r), "joining a netlink multicast group");
    return Ok{};
}

Status Socket::receive(const ReplyHandler& on_message)
{
    std::unique_ptr<nl_cb, CallbackDeleter> cb(nl_cb_alloc(NL_CB_DEFAULT));
    if (!cb)
        return make_error(ENOMEM, "allocating netlink callbacks");
    Exchange ex{&on_message, std::nullopt, false};
    nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, on_valid, &ex);
    // Multicast messages carry no sequence number of ours.
    nl_cb_set(cb.get(), NL_CB_SEQ_CHECK, NL_CB_CUSTOM, any_seq, nullptr);
    if (int r = nl_recvmsgs(sk_.get(), cb.get()); r < 0 && !ex.error)
        return make_error(errno_of_nle(r), "receiving netlink messages");
    if (ex.error)
        return *ex.error;
    return Ok{};
}

Result<bool> Socket::readable(std::chrono::milliseconds timeout)
{
    pollfd p{nl_socket_get_fd(sk_.get()), POLLIN, 0};
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        int r = ::poll(&p, 1, static_cast<int>(std::max<long long>(left.count(), 0)));
        if (r > 0)
            return true;
        if (r == 0)
            return false;
        if (errno != EINTR)
            return make_error(errno, "waiting for netlink messages");
    }
}

}  // namespace xiw::nl
