// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The argument of XIWPERF_IOC_RUN that device.cpp builds from the options
// (run_request(); no module needed).
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "device.hpp"

namespace {

using namespace xiwperf;

// No expected hash: length 0, every octet 0.
bool no_expect(const xiwperf_run& run)
{
    return run.expect_len == 0 &&
           std::all_of(std::begin(run.expect), std::end(run.expect),
                       [](std::uint8_t b) { return b == 0; });
}

// The Client "client --addr 10.0.0.1 --count 1000 --qps 2 @extra" parses to.
Client parsed(std::vector<std::string_view> extra)
{
    std::vector<std::string_view> w{"client", "--addr", "10.0.0.1", "--count", "1000",
                                    "--qps", "2"};
    w.insert(w.end(), extra.begin(), extra.end());
    auto cmd = parse(w);
    EXPECT_TRUE(cmd) << (cmd ? "" : cmd.error().context);
    if (!cmd || !std::holds_alternative<Client>(*cmd))
        return {};
    return std::get<Client>(*cmd);
}

}  // namespace

TEST(XiwperfDevice, AtomicWriteRun)
{
    xiwperf_run run = run_request(parsed({"--op", "atomic_write", "--remote-mr", "frwr",
                                          "--check", "--depth", "4"}));
    EXPECT_EQ(run.op, XIWPERF_OP_ATOMIC_WRITE);
    EXPECT_EQ(run.op, 10u);
    EXPECT_EQ(run.flags, XIWPERF_F_CHECK | XIWPERF_F_REMOTE_FRWR);
    EXPECT_EQ(run.size, 8u);
    EXPECT_EQ(run.sge, 1u);
    EXPECT_EQ(run.count, 1000u);
    EXPECT_EQ(run.qps, 2u);
    EXPECT_EQ(run.depth, 4u);
    EXPECT_EQ(run.inject, XIWPERF_INJECT_NONE);
    // no operands, though the options' defaults (--add 1, --compare-mask
    // all ones) are set
    EXPECT_EQ(run.compare_add, 0u);
    EXPECT_EQ(run.swap, 0u);
    EXPECT_EQ(run.compare_add_mask, 0u);
    EXPECT_EQ(run.swap_mask, 0u);
    EXPECT_EQ(run.imm, 0u);
    EXPECT_EQ(run.addr.family, AF_INET);
    EXPECT_EQ(run.addr.port, XIWPERF_DEFAULT_PORT);

    // an injected fault through the global rkey
    run = run_request(parsed({"--op", "atomic_write", "--inject", "unaligned"}));
    EXPECT_EQ(run.op, XIWPERF_OP_ATOMIC_WRITE);
    EXPECT_EQ(run.flags, 0u);
    EXPECT_EQ(run.inject, XIWPERF_INJECT_UNALIGNED);
    EXPECT_EQ(run.compare_add, 0u);
}

TEST(XiwperfDevice, FlushRun)
{
    xiwperf_run run = run_request(parsed({"--op", "flush", "--size", "4K", "--remote-mr", "frwr",
                                          "--persist", "--check", "--depth", "4"}));
    EXPECT_EQ(run.op, XIWPERF_OP_FLUSH);
    EXPECT_EQ(run.op, 11u);
    // --range is the default: no XIWPERF_F_FLUSH_MR
    EXPECT_EQ(run.flags, XIWPERF_F_CHECK | XIWPERF_F_REMOTE_FRWR | XIWPERF_F_PERSIST);
    EXPECT_EQ(run.size, 4096u);
    EXPECT_EQ(run.sge, 1u);
    EXPECT_EQ(run.count, 1000u);
    EXPECT_EQ(run.qps, 2u);
    EXPECT_EQ(run.depth, 4u);
    EXPECT_EQ(run.inject, XIWPERF_INJECT_NONE);
    EXPECT_EQ(run.compare_add, 0u);
    EXPECT_EQ(run.swap, 0u);
    EXPECT_EQ(run.compare_add_mask, 0u);
    EXPECT_EQ(run.swap_mask, 0u);
    EXPECT_EQ(run.imm, 0u);

    run = run_request(parsed({"--op", "flush", "--size", "4K", "--remote-mr", "frwr",
                              "--global", "--range"}));
    EXPECT_EQ(run.flags, XIWPERF_F_REMOTE_FRWR | XIWPERF_F_GLOBAL);
    run = run_request(parsed({"--op", "flush", "--size", "4K", "--remote-mr", "frwr",
                              "--persist", "--global", "--whole-mr"}));
    EXPECT_EQ(run.flags, XIWPERF_F_REMOTE_FRWR | XIWPERF_F_PERSIST | XIWPERF_F_GLOBAL |
                             XIWPERF_F_FLUSH_MR);
    EXPECT_EQ(run.flags, 0x390u);
    // the Write's options as for write
    run = run_request(parsed({"--op", "flush", "--size", "100", "--remote-mr", "frwr",
                              "--global", "--sge", "3", "--inline"}));
    EXPECT_EQ(run.flags, XIWPERF_F_REMOTE_FRWR | XIWPERF_F_GLOBAL | XIWPERF_F_INLINE);
    EXPECT_EQ(run.sge, 3u);
    run = run_request(parsed({"--op", "flush", "--size", "4K", "--remote-mr", "frwr",
                              "--persist", "--mr", "frwr"}));
    EXPECT_EQ(run.flags, XIWPERF_F_REMOTE_FRWR | XIWPERF_F_PERSIST | XIWPERF_F_FRWR);

    // an injected fault through the global rkey
    run = run_request(parsed({"--op", "flush", "--size", "4K", "--persist", "--inject",
                              "stag"}));
    EXPECT_EQ(run.op, XIWPERF_OP_FLUSH);
    EXPECT_EQ(run.flags, XIWPERF_F_PERSIST);
    EXPECT_EQ(run.inject, XIWPERF_INJECT_STAG);
    run = run_request(parsed({"--op", "flush", "--size", "4K", "--remote-mr", "frwr",
                              "--global", "--whole-mr", "--inject", "rights"}));
    EXPECT_EQ(run.flags, XIWPERF_F_REMOTE_FRWR | XIWPERF_F_GLOBAL | XIWPERF_F_FLUSH_MR);
    EXPECT_EQ(run.inject, XIWPERF_INJECT_RIGHTS);
}

TEST(XiwperfDevice, VerifyRun)
{
    Client c = parsed({"--op", "verify", "--size", "4K", "--remote-mr", "frwr", "--hash",
                       "crc32c", "--check", "--depth", "4"});
    xiwperf_run run = run_request(c);
    EXPECT_EQ(run.op, XIWPERF_OP_VERIFY);
    EXPECT_EQ(run.op, 12u);
    EXPECT_EQ(run.hash, XIWPERF_HASH_CRC32C);
    EXPECT_EQ(run.hash, 1u);
    // no --expect: no flag, no expected hash
    EXPECT_EQ(run.flags, XIWPERF_F_CHECK | XIWPERF_F_REMOTE_FRWR);
    EXPECT_TRUE(no_expect(run));
    EXPECT_EQ(run.size, 4096u);
    EXPECT_EQ(run.sge, 1u);
    EXPECT_EQ(run.count, 1000u);
    EXPECT_EQ(run.qps, 2u);
    EXPECT_EQ(run.depth, 4u);
    EXPECT_EQ(run.inject, XIWPERF_INJECT_NONE);
    EXPECT_EQ(run.compare_add, 0u);
    EXPECT_EQ(run.swap, 0u);
    EXPECT_EQ(run.compare_add_mask, 0u);
    EXPECT_EQ(run.swap_mask, 0u);
    EXPECT_EQ(run.imm, 0u);

    // --expect alone: the client's own hash (length 0, no octets)
    c = parsed({"--op", "verify", "--size", "4K", "--remote-mr", "frwr", "--hash", "sha256",
                "--expect"});
    run = run_request(c);
    EXPECT_EQ(run.hash, XIWPERF_HASH_SHA256);
    EXPECT_EQ(run.hash, 2u);
    EXPECT_EQ(run.flags, XIWPERF_F_REMOTE_FRWR | XIWPERF_F_EXPECT);
    EXPECT_EQ(run.flags, 0x410u);
    EXPECT_TRUE(no_expect(run));

    // --expect HEX: its octets, in the request itself, the rest zero
    c = parsed({"--op", "verify", "--size", "4K", "--remote-mr", "frwr", "--hash", "crc32c",
                "--expect", "deadbeef", "--check"});
    run = run_request(c);
    EXPECT_EQ(run.flags, XIWPERF_F_CHECK | XIWPERF_F_REMOTE_FRWR | XIWPERF_F_EXPECT);
    EXPECT_EQ(run.expect_len, 4u);
    std::vector<std::uint8_t> want(XIWPERF_HASH_MAX, 0);
    want[0] = 0xde;
    want[1] = 0xad;
    want[2] = 0xbe;
    want[3] = 0xef;
    EXPECT_EQ(std::vector<std::uint8_t>(std::begin(run.expect), std::end(run.expect)), want);
    // the request does not depend on the Client once made
    c = Client{};
    EXPECT_EQ(std::vector<std::uint8_t>(std::begin(run.expect), std::end(run.expect)), want);

    // the longest
    std::string longest(2 * XIWPERF_HASH_MAX, '5');
    c = parsed({"--op", "verify", "--size", "4K", "--remote-mr", "frwr", "--hash", "sha256",
                "--expect=" + longest});
    run = run_request(c);
    EXPECT_EQ(run.expect_len, XIWPERF_HASH_MAX);
    EXPECT_EQ(std::vector<std::uint8_t>(std::begin(run.expect), std::end(run.expect)),
              std::vector<std::uint8_t>(XIWPERF_HASH_MAX, 0x55));
    // one octet more (which the options refuse) is not copied, and its
    // length is the module's to refuse
    c.expect_hash.push_back(0x55);
    run = run_request(c);
    EXPECT_EQ(run.expect_len, XIWPERF_HASH_MAX + 1);

    // --no-write: the flag, with a fixed expected hash
    c = parsed({"--op", "verify", "--size", "4K", "--remote-mr", "frwr", "--hash", "sha256",
                "--no-write", "--expect", "ab"});
    run = run_request(c);
    EXPECT_EQ(run.flags, XIWPERF_F_REMOTE_FRWR | XIWPERF_F_EXPECT | XIWPERF_F_NO_WRITE);
    EXPECT_EQ(XIWPERF_F_NO_WRITE, 0x800u);
    EXPECT_EQ(run.expect_len, 1u);
    EXPECT_EQ(run.expect[0], 0xab);

    // the Write's options as for write
    run = run_request(parsed({"--op", "verify", "--size", "100", "--remote-mr", "frwr",
                              "--hash", "crc32c", "--sge", "3", "--inline"}));
    EXPECT_EQ(run.flags, XIWPERF_F_REMOTE_FRWR | XIWPERF_F_INLINE);
    EXPECT_EQ(run.sge, 3u);
    run = run_request(parsed({"--op", "verify", "--size", "4K", "--remote-mr", "frwr",
                              "--hash", "crc32c", "--mr", "frwr"}));
    EXPECT_EQ(run.flags, XIWPERF_F_REMOTE_FRWR | XIWPERF_F_FRWR);
}

TEST(XiwperfDevice, OtherOpsKeepTheirValuesAndOperands)
{
    xiwperf_run run = run_request(parsed({"--op", "fetch_add", "--remote-mr", "frwr", "--add",
                                          "7"}));
    EXPECT_EQ(run.op, XIWPERF_OP_FETCH_ADD);
    EXPECT_EQ(run.compare_add, 7u);
    run = run_request(parsed({"--op", "masked_cmp_swap", "--remote-mr", "frwr", "--compare",
                              "1", "--swap", "2", "--mask", "3", "--compare-mask", "4"}));
    EXPECT_EQ(run.op, XIWPERF_OP_MASKED_CMP_SWAP);
    EXPECT_EQ((std::vector<__u64>{run.compare_add, run.swap, run.compare_add_mask,
                                  run.swap_mask}),
              (std::vector<__u64>{1, 2, 4, 3}));
    run = run_request(parsed({"--op", "imm", "--imm", "9"}));
    EXPECT_EQ(run.op, XIWPERF_OP_IMM);
    EXPECT_EQ(run.size, 0u);
    EXPECT_EQ(run.flags, XIWPERF_F_IMM);
    EXPECT_EQ(run.imm, 9u);
    run = run_request(parsed({"--op", "write", "--size", "4K", "--mr", "frwr"}));
    EXPECT_EQ(run.op, XIWPERF_OP_WRITE);
    EXPECT_EQ(run.flags, XIWPERF_F_FRWR);  // no flush flag
    EXPECT_EQ(run.size, 4096u);
    EXPECT_EQ(run.compare_add, 0u);
    // no hash, no expected one
    EXPECT_EQ(run.hash, 0u);
    EXPECT_TRUE(no_expect(run));
}
