// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// BackedBuffer (backing.cpp), the mapping behind --backing, against files
// in a temporary directory under /tmp (no module needed).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

#include "backing.hpp"
#include "uapi/xiwperf.h"

namespace {

using namespace xiwperf;
namespace fs = std::filesystem;

class XiwperfBacking : public ::testing::Test {
protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/xiwperf_backing_test.XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr) << std::strerror(errno);
        dir_ = tmpl;
    }

    void TearDown() override
    {
        if (!dir_.empty()) {
            std::error_code ec;
            fs::remove_all(dir_, ec);
        }
    }

    // @name in the test's directory.
    [[nodiscard]] std::string path(const std::string& name) const { return dir_ + "/" + name; }

    static Backing file(std::string p) { return Backing{Backing::Kind::file, std::move(p)}; }
    static Backing pmem(std::string p) { return Backing{Backing::Kind::pmem, std::move(p)}; }

    // The file's contents as read through a file descriptor of its own.
    static std::string contents(const std::string& p)
    {
        std::ifstream in(p, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    // A file of @size bytes, byte i being i % 251.
    static void make_file(const std::string& p, std::size_t size)
    {
        std::string data(size, '\0');
        for (std::size_t i = 0; i < size; i++)
            data[i] = static_cast<char>(i % 251);
        std::ofstream(p, std::ios::binary) << data;
    }

    // Whether this process maps @p (/proc/self/maps names it).
    static bool mapped(const std::string& p)
    {
        return contents("/proc/self/maps").find(p) != std::string::npos;
    }

    std::string dir_;
};

}  // namespace

TEST_F(XiwperfBacking, CreatesAndGrowsAFileAndMapsItShared)
{
    const std::string p = path("buf");
    {
        auto b = BackedBuffer::open(file(p), 65536);
        ASSERT_TRUE(b) << b.error().message();
        EXPECT_EQ(b->size(), 65536u);
        EXPECT_EQ(b->path(), p);
        ASSERT_NE(b->data(), nullptr);
        EXPECT_EQ(b->address(), reinterpret_cast<std::uintptr_t>(b->data()));
        EXPECT_EQ(b->address() % static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)), 0u);
        EXPECT_TRUE(mapped(p));
        EXPECT_TRUE(b->syncable());

        struct stat st {};
        ASSERT_EQ(::stat(p.c_str(), &st), 0);
        EXPECT_TRUE(S_ISREG(st.st_mode));
        EXPECT_EQ(st.st_size, 65536);
        EXPECT_EQ(st.st_mode & 0777, 0600u);

        // what is written through the mapping is the file's
        auto* mem = static_cast<char*>(b->data());
        std::memcpy(mem + 4096 + 3, "xiwperf", 7);
        mem[65535] = 'z';
        auto st2 = b->sync();
        ASSERT_TRUE(st2) << st2.error().message();
        std::string c = contents(p);
        ASSERT_EQ(c.size(), 65536u);
        EXPECT_EQ(c.substr(4096 + 3, 7), "xiwperf");
        EXPECT_EQ(c[65535], 'z');
        EXPECT_EQ(c[0], '\0');
    }
    // unmapped and closed with the object; the file stays
    EXPECT_FALSE(mapped(p));
    EXPECT_EQ(fs::file_size(p), 65536u);
    EXPECT_EQ(contents(p).substr(4096 + 3, 7), "xiwperf");
}

TEST_F(XiwperfBacking, SizeZeroIsTheDefaultBuffer)
{
    const std::string p = path("default");
    auto b = BackedBuffer::open(file(p), 0);
    ASSERT_TRUE(b) << b.error().message();
    EXPECT_EQ(b->size(), XIWPERF_DEFAULT_BUF);
    EXPECT_EQ(fs::file_size(p), XIWPERF_DEFAULT_BUF);
}

TEST_F(XiwperfBacking, NeverShrinksAFileAndKeepsItsData)
{
    const std::string p = path("big");
    make_file(p, 3 * 4096);
    auto b = BackedBuffer::open(file(p), 4096);
    ASSERT_TRUE(b) << b.error().message();
    EXPECT_EQ(b->size(), 4096u);
    EXPECT_EQ(fs::file_size(p), 3 * 4096u);
    const auto* mem = static_cast<const unsigned char*>(b->data());
    EXPECT_EQ(mem[0], 0);
    EXPECT_EQ(mem[300], 300 % 251);

    // a smaller file is grown, its data kept
    const std::string q = path("small");
    make_file(q, 100);
    auto g = BackedBuffer::open(file(q), 8192);
    ASSERT_TRUE(g) << g.error().message();
    EXPECT_EQ(fs::file_size(q), 8192u);
    const auto* gm = static_cast<const unsigned char*>(g->data());
    EXPECT_EQ(gm[99], 99);
    EXPECT_EQ(gm[100], 0);
    EXPECT_EQ(gm[8191], 0);
}

TEST_F(XiwperfBacking, FileRefusesWhatIsNoRegularFile)
{
    auto d = BackedBuffer::open(file(dir_), 4096);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().code, EISDIR);
    EXPECT_EQ(d.error().message(), "opening " + dir_ + ": Is a directory");

    struct stat st {};
    if (::stat("/dev/null", &st) != 0 || !S_ISCHR(st.st_mode))
        GTEST_SKIP() << "no /dev/null character device";
    auto n = BackedBuffer::open(file("/dev/null"), 4096);
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().code, EINVAL);
    EXPECT_EQ(n.error().message(), "opening /dev/null (not a regular file, which file:PATH "
                                   "needs; a DAX device is pmem:PATH): Invalid argument");
}

TEST_F(XiwperfBacking, PmemTakesPathAsItIs)
{
    // an existing file, at least the size, neither created nor resized
    const std::string p = path("dax");
    make_file(p, 2 * 4096);
    {
        auto b = BackedBuffer::open(pmem(p), 4096);
        ASSERT_TRUE(b) << b.error().message();
        EXPECT_EQ(static_cast<const unsigned char*>(b->data())[4095], 4095 % 251);
        EXPECT_TRUE(b->syncable());  // a file on a DAX filesystem: fsync works
        EXPECT_TRUE(b->sync());
    }
    EXPECT_EQ(fs::file_size(p), 2 * 4096u);

    const std::string missing = path("missing");
    auto m = BackedBuffer::open(pmem(missing), 4096);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, ENOENT);
    EXPECT_EQ(m.error().message(), "opening " + missing + ": No such file or directory");
    EXPECT_FALSE(fs::exists(missing));

    auto s = BackedBuffer::open(pmem(p), 65536);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, EINVAL);
    EXPECT_EQ(s.error().context, "mapping 65536 bytes of " + p +
                                     " (it has only 8192: pmem:PATH is not grown, file:PATH "
                                     "would be)");
    EXPECT_EQ(fs::file_size(p), 2 * 4096u);

    auto d = BackedBuffer::open(pmem(dir_), 4096);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().code, EISDIR);
    EXPECT_EQ(d.error().context, "opening " + dir_);
}

TEST_F(XiwperfBacking, MappingErrorNamesSizeAndPath)
{
    // /dev/null opens read/write but cannot be mapped (ENODEV)
    struct stat st {};
    if (::stat("/dev/null", &st) != 0 || !S_ISCHR(st.st_mode))
        GTEST_SKIP() << "no /dev/null character device";
    auto n = BackedBuffer::open(pmem("/dev/null"), 4096);
    ASSERT_FALSE(n);
    EXPECT_NE(n.error().code, 0);
    EXPECT_EQ(n.error().context, "mapping 4096 bytes of /dev/null");
}

TEST_F(XiwperfBacking, CharacterDeviceHasNoPageCacheToSync)
{
    // /dev/zero maps shared, as a DAX character device does: nothing to
    // write back (xiwperf server does not fsync it)
    struct stat st {};
    ASSERT_EQ(::stat("/dev/zero", &st), 0);
    ASSERT_TRUE(S_ISCHR(st.st_mode));
    auto z = BackedBuffer::open(pmem("/dev/zero"), 4096);
    ASSERT_TRUE(z) << z.error().message();
    EXPECT_FALSE(z->syncable());
    BackedBuffer moved = std::move(z).value();
    EXPECT_FALSE(moved.syncable());
}

TEST_F(XiwperfBacking, NoneIsNothingToOpen)
{
    auto b = BackedBuffer::open(Backing{}, 4096);
    ASSERT_FALSE(b);
    EXPECT_EQ(b.error().code, EINVAL);
}

TEST_F(XiwperfBacking, MovesOwnership)
{
    const std::string p = path("moved");
    auto r = BackedBuffer::open(file(p), 4096);
    ASSERT_TRUE(r) << r.error().message();
    void* mem = r->data();
    BackedBuffer b = std::move(r).value();
    EXPECT_EQ(b.data(), mem);
    EXPECT_EQ(b.size(), 4096u);
    EXPECT_EQ(b.path(), p);
    EXPECT_TRUE(b.syncable());
    static_cast<char*>(b.data())[0] = 'm';
    EXPECT_TRUE(b.sync());

    // assigning over another unmaps that one
    const std::string q = path("other");
    auto o = BackedBuffer::open(file(q), 4096);
    ASSERT_TRUE(o) << o.error().message();
    EXPECT_TRUE(mapped(q));
    *o = std::move(b);
    EXPECT_FALSE(mapped(q));
    EXPECT_TRUE(mapped(p));
    EXPECT_EQ(o->data(), mem);
    EXPECT_EQ(o->path(), p);
    EXPECT_EQ(contents(p)[0], 'm');
}
