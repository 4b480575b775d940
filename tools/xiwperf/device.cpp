// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "device.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "atomic.hpp"

namespace xiwperf {

static_assert(sizeof(xiwperf_addr) == 24);
static_assert(sizeof(xiwperf_listen) == 120);
static_assert(sizeof(xiwperf_serve) == 72);
static_assert(sizeof(xiwperf_result) == 296);
static_assert(sizeof(xiwperf_run) == 504);
// No implicit padding (every byte belongs to a field): with the sizes
// multiples of 8, a 32-bit caller's layout is the same.
static_assert(std::has_unique_object_representations_v<xiwperf_listen>);
static_assert(std::has_unique_object_representations_v<xiwperf_serve>);
static_assert(std::has_unique_object_representations_v<xiwperf_run>);
// run_request() passes enum class Op as enum xiwperf_op.
static_assert(static_cast<int>(Op::send) == XIWPERF_OP_SEND);
static_assert(static_cast<int>(Op::write) == XIWPERF_OP_WRITE);
static_assert(static_cast<int>(Op::read) == XIWPERF_OP_READ);
static_assert(static_cast<int>(Op::fetch_add) == XIWPERF_OP_FETCH_ADD);
static_assert(static_cast<int>(Op::cmp_swap) == XIWPERF_OP_CMP_SWAP);
static_assert(static_cast<int>(Op::masked_fetch_add) == XIWPERF_OP_MASKED_FETCH_ADD);
static_assert(static_cast<int>(Op::masked_cmp_swap) == XIWPERF_OP_MASKED_CMP_SWAP);
static_assert(static_cast<int>(Op::write_imm) == XIWPERF_OP_WRITE_IMM);
static_assert(static_cast<int>(Op::imm) == XIWPERF_OP_IMM);
static_assert(static_cast<int>(Op::atomic_write) == XIWPERF_OP_ATOMIC_WRITE);
static_assert(static_cast<int>(Op::flush) == XIWPERF_OP_FLUSH);
static_assert(static_cast<int>(Op::verify) == XIWPERF_OP_VERIFY);
// ... and enum class Hash as enum xiwperf_hash.
static_assert(static_cast<int>(Hash::crc32c) == XIWPERF_HASH_CRC32C);
static_assert(static_cast<int>(Hash::sha256) == XIWPERF_HASH_SHA256);

Fd& Fd::operator=(Fd&& o) noexcept
{
    if (this != &o) {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = o.release();
    }
    return *this;
}

Fd::~Fd()
{
    if (fd_ >= 0)
        ::close(fd_);
}

int Fd::release()
{
    int fd = fd_;
    fd_ = -1;
    return fd;
}

xiwperf_addr abi_address(const Address& a, std::uint16_t port)
{
    xiwperf_addr out{};
    out.family = static_cast<__u16>(a.family);
    out.port = port;
    out.scope_id = a.scope_id;
    std::memcpy(out.addr, a.bytes.data(), sizeof(out.addr));
    return out;
}

xiw::Result<Device> Device::open()
{
    Fd fd(::open(XIWPERF_DEVICE, O_RDWR | O_CLOEXEC));
    if (!fd.valid()) {
        int err = errno;
        std::string hint = err == ENOENT ? " (is the xiwperf module loaded? modprobe xiwperf)"
                                         : "";
        return xiw::make_error(err, std::string("opening ") + XIWPERF_DEVICE + hint);
    }
    return Device(std::move(fd));
}

xiw::Status Device::listen(const Server& args, xiwperf_listen& out, std::uint64_t backing)
{
    out = xiwperf_listen{};
    out.addr = abi_address(args.addr, args.port);
    out.size = args.size;
    out.hash = static_cast<__u32>(args.hash);
    if (backing) {
        out.flags = XIWPERF_LISTEN_BACKED;
        out.backing = backing;
    }
    if (::ioctl(fd_.get(), XIWPERF_IOC_LISTEN, &out) < 0) {
        int err = errno;
        std::string what = "listening on " + args.addr.text + " port " + std::to_string(args.port);
        if (err == ENODEV)
            what += " (no RDMA device has this address)";
        else if (backing && err == EFAULT)
            what += " (the pages of " + backing_text(args.backing) + " could not be pinned)";
        else if (backing && err == EINVAL)
            what += " with " + backing_text(args.backing) +
                    " (does the xiwperf module take --backing?)";
        return xiw::make_error(err, what);
    }
    return xiw::Ok{};
}

int Device::serve(xiwperf_serve& stats)
{
    stats = xiwperf_serve{};
    if (::ioctl(fd_.get(), XIWPERF_IOC_SERVE, &stats) < 0)
        return errno;
    return 0;
}

xiwperf_run run_request(const Client& args)
{
    xiwperf_run run{};
    run.flags = (args.check ? XIWPERF_F_CHECK : 0) | (args.inline_data ? XIWPERF_F_INLINE : 0) |
                (args.solicit ? XIWPERF_F_SOLICIT : 0) |
                (args.mr == Mr::frwr ? XIWPERF_F_FRWR : 0) |
                (args.remote_mr == Mr::frwr ? XIWPERF_F_REMOTE_FRWR : 0) |
                (args.srq ? XIWPERF_F_SRQ : 0) | (args.imm ? XIWPERF_F_IMM : 0) |
                (args.persist ? XIWPERF_F_PERSIST : 0) | (args.global ? XIWPERF_F_GLOBAL : 0) |
                (args.whole_mr ? XIWPERF_F_FLUSH_MR : 0) | (args.expect ? XIWPERF_F_EXPECT : 0) |
                (args.no_write ? XIWPERF_F_NO_WRITE : 0) | (args.idle ? XIWPERF_F_IDLE : 0);
    run.addr = abi_address(args.addr, args.port);
    // enum class Op has enum xiwperf_op's values (XIWPERF_OP_ATOMIC_WRITE
    // too, whose operands below are all zero: it has none).
    run.op = static_cast<__u32>(args.op);
    run.qps = args.qps;
    run.depth = args.depth;
    run.timeout_ms = args.timeout_ms;
    run.hold_ms = args.hold_ms;
    run.size = args.size;
    run.count = args.count;
    run.sge = args.sge;
    run.solicit = args.solicit;
    run.inject = static_cast<__u32>(args.inject);
    AtomicOperands a = atomic_operands(args);
    run.compare_add = a.compare_add;
    run.swap = a.swap;
    run.compare_add_mask = a.compare_add_mask;
    run.swap_mask = a.swap_mask;
    run.imm = args.imm.value_or(0);
    // A Verify's algorithm, and with --expect HEX the expected hash, its
    // octets copied in (--expect alone: length 0, the client's own hash).
    // More than fit is not copied, and the module refuses its length.
    run.hash = static_cast<__u32>(args.hash);
    if (args.expect && !args.expect_hash.empty()) {
        run.expect_len = static_cast<__u32>(args.expect_hash.size());
        std::memcpy(run.expect, args.expect_hash.data(),
                    std::min(args.expect_hash.size(), sizeof(run.expect)));
    }
    return run;
}

Outcome Device::run(const Client& args)
{
    xiwperf_run run = run_request(args);
    Outcome out;
    if (::ioctl(fd_.get(), XIWPERF_IOC_RUN, &run) < 0) {
        out.error = errno;
        out.has_result = out.error != EFAULT && !(out.error == EINVAL && run.result.reason == 0);
    } else {
        out.has_result = true;
    }
    out.result = run.result;
    out.registrations = run.registrations;
    out.srq_arms = run.srq_arms;
    out.srq_crossed = run.srq_crossed;
    out.srq_limit_events = run.srq_limit_events;
    return out;
}

}  // namespace xiwperf
