// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// /dev/xiwperf: the open file (RAII) and its three ioctls.
#pragma once

#include <cstdint>

#include "args.hpp"
#include "report.hpp"
#include "uapi/xiwperf.h"
#include "xiw/result.hpp"

namespace xiwperf {

/// Owns one file descriptor.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&& o) noexcept : fd_(o.release()) {}
    Fd& operator=(Fd&& o) noexcept;
    ~Fd();

    [[nodiscard]] int get() const { return fd_; }
    [[nodiscard]] bool valid() const { return fd_ >= 0; }
    int release();

private:
    int fd_ = -1;
};

/// The xiwperf module's character device.
class Device {
public:
    /// Open XIWPERF_DEVICE; the error explains a missing module.
    static xiw::Result<Device> open();

    /// XIWPERF_IOC_LISTEN; on success @p out holds the bound port,
    /// buffer size and device. A non-zero @p backing is the address of
    /// the caller's shared mapping (BackedBuffer::address(), at least the
    /// buffer's size) that becomes the buffer (XIWPERF_LISTEN_BACKED):
    /// it must stay mapped until the server is done.
    xiw::Status listen(const Server& args, xiwperf_listen& out, std::uint64_t backing = 0);

    /// XIWPERF_IOC_SERVE: blocks until a signal (EINTR) or the device's
    /// removal (ENODEV); @p stats is filled in either way.
    int serve(xiwperf_serve& stats);

    /// XIWPERF_IOC_RUN.
    Outcome run(const Client& args);

private:
    explicit Device(Fd fd) : fd_(std::move(fd)) {}
    Fd fd_;
};

/// The ABI address of @p a with @p port.
xiwperf_addr abi_address(const Address& a, std::uint16_t port);

/// The argument of XIWPERF_IOC_RUN for @p args (what Device::run() passes;
/// apart so that it can be tested without the module). It holds all it
/// needs (with --expect HEX a copy of @p args.expect_hash).
xiwperf_run run_request(const Client& args);

}  // namespace xiwperf
