// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The server's buffer backed by a file or DAX device (--backing): the
// shared mapping XIWPERF_IOC_LISTEN takes as its buffer (RAII).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "args.hpp"
#include "device.hpp"
#include "xiw/result.hpp"

namespace xiwperf {

/// PATH of a Backing, opened read/write and mapped shared: the memory a
/// backed server's buffer is. Unmapped and closed when it goes.
class BackedBuffer {
public:
    /// Open @p backing.path and map @p size bytes of it (0:
    /// XIWPERF_DEFAULT_BUF), PROT_READ | PROT_WRITE, MAP_SHARED. For
    /// Backing::Kind::file PATH is created (mode 0600) if missing and
    /// must be a regular file, which is grown to @p size if smaller
    /// (never shrunk); for Backing::Kind::pmem (a DAX device, or a file
    /// on a DAX filesystem) it is taken as it is, a regular file of at
    /// least @p size bytes. The errors name PATH.
    static xiw::Result<BackedBuffer> open(const Backing& backing, std::uint64_t size);

    BackedBuffer(const BackedBuffer&) = delete;
    BackedBuffer& operator=(const BackedBuffer&) = delete;
    BackedBuffer(BackedBuffer&& o) noexcept;
    BackedBuffer& operator=(BackedBuffer&& o) noexcept;
    ~BackedBuffer();

    /// The mapping (page-aligned).
    [[nodiscard]] void* data() const { return addr_; }
    /// The mapping's address as struct xiwperf_listen's backing takes it.
    [[nodiscard]] std::uint64_t address() const;
    /// Bytes mapped.
    [[nodiscard]] std::uint64_t size() const { return size_; }
    [[nodiscard]] const std::string& path() const { return path_; }

    /// Whether PATH has a page cache sync() writes back: a regular file
    /// or a block device (not a DAX character device).
    [[nodiscard]] bool syncable() const { return syncable_; }

    /// fsync() the file: what is in its page cache (the mapping's
    /// writes, the kernel's) reaches the disk.
    xiw::Status sync();

private:
    BackedBuffer(Fd fd, void* addr, std::size_t size, std::string path, bool syncable)
        : fd_(std::move(fd)), addr_(addr), size_(size), path_(std::move(path)),
          syncable_(syncable)
    {
    }
    void unmap();

    Fd fd_;
    void* addr_ = nullptr;  ///< nullptr once moved from
    std::size_t size_ = 0;
    std::string path_;
    bool syncable_ = false;
};

}  // namespace xiwperf
