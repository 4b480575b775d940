// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "backing.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "uapi/xiwperf.h"

namespace xiwperf {

xiw::Result<BackedBuffer> BackedBuffer::open(const Backing& backing, std::uint64_t size)
{
    if (backing.kind == Backing::Kind::none || backing.path.empty())
        return xiw::make_error(EINVAL, "no --backing KIND:PATH to open");
    if (size == 0)
        size = XIWPERF_DEFAULT_BUF;
    const std::string& path = backing.path;
    const std::string bytes = std::to_string(size) + " bytes";
    const bool file = backing.kind == Backing::Kind::file;

    // A directory fails here, EISDIR (O_RDWR).
    Fd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC | (file ? O_CREAT : 0), 0600));
    if (!fd.valid())
        return xiw::make_error(errno, "opening " + path);
    struct stat st {};
    if (::fstat(fd.get(), &st) < 0)
        return xiw::make_error(errno, "opening " + path);
    const auto length = static_cast<std::uint64_t>(st.st_size);
    if (file) {
        if (!S_ISREG(st.st_mode))
            return xiw::make_error(EINVAL, "opening " + path +
                                               " (not a regular file, which file:PATH needs; a "
                                               "DAX device is pmem:PATH)");
        // Sparse: the kernel's pinning allocates the blocks, as a write.
        if (length < size && ::ftruncate(fd.get(), static_cast<off_t>(size)) < 0)
            return xiw::make_error(errno, "growing " + path + " to " + bytes);
    } else if (S_ISREG(st.st_mode) && length < size) {
        // Pages past the end of the file could not be pinned.
        return xiw::make_error(EINVAL, "mapping " + bytes + " of " + path + " (it has only " +
                                           std::to_string(length) +
                                           ": pmem:PATH is not grown, file:PATH would be)");
    }
    void* addr = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ | PROT_WRITE, MAP_SHARED,
                        fd.get(), 0);
    if (addr == MAP_FAILED)
        return xiw::make_error(errno, "mapping " + bytes + " of " + path);
    return BackedBuffer(std::move(fd), addr, static_cast<std::size_t>(size), path,
                        S_ISREG(st.st_mode) || S_ISBLK(st.st_mode));
}

BackedBuffer::BackedBuffer(BackedBuffer&& o) noexcept
    : fd_(std::move(o.fd_)), addr_(std::exchange(o.addr_, nullptr)),
      size_(std::exchange(o.size_, 0)), path_(std::move(o.path_)), syncable_(o.syncable_)
{
}

BackedBuffer& BackedBuffer::operator=(BackedBuffer&& o) noexcept
{
    if (this != &o) {
        unmap();
        fd_ = std::move(o.fd_);
        addr_ = std::exchange(o.addr_, nullptr);
        size_ = std::exchange(o.size_, 0);
        path_ = std::move(o.path_);
        syncable_ = o.syncable_;
    }
    return *this;
}

// Unmapped first, then fd_ closes.
BackedBuffer::~BackedBuffer()
{
    unmap();
}

void BackedBuffer::unmap()
{
    if (addr_)
        ::munmap(addr_, size_);
    addr_ = nullptr;
    size_ = 0;
}

std::uint64_t BackedBuffer::address() const
{
    return reinterpret_cast<std::uintptr_t>(addr_);
}

xiw::Status BackedBuffer::sync()
{
    if (::fsync(fd_.get()) < 0)
        return xiw::make_error(errno, "syncing " + path_);
    return xiw::Ok{};
}

}  // namespace xiwperf
