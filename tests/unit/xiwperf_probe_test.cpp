// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// xiwperf probe: its grammar, the runs it makes, and how it reads their ends.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "probe.hpp"
#include "uapi/xiwperf.h"

namespace {

using xiwperf::probe::Step;
using xiwperf::probe::Verdict;

xiw::Result<xiwperf::Command> parse(std::initializer_list<std::string_view> words)
{
    std::vector<std::string_view> v(words);
    return xiwperf::parse(v);
}

std::vector<xiwperf::probe::Attempt> all()
{
    auto a = xiwperf::parse_address("192.0.2.2");
    EXPECT_TRUE(a);
    return xiwperf::probe::attempts(*a, 18515, 5000);
}

const xiwperf::probe::Attempt& find(const std::vector<xiwperf::probe::Attempt>& v,
                                   std::string_view op)
{
    for (const auto& a : v)
        if (a.op == op)
            return a;
    ADD_FAILURE() << "no attempt " << op;
    return v.front();
}

// A run that failed for @p reason.
xiwperf::Outcome failed(std::uint32_t reason, std::uint32_t remote_reason = 0)
{
    xiwperf::Outcome out;
    out.error = EIO;
    out.has_result = true;
    out.result.reason = reason;
    out.result.remote_reason = remote_reason;
    std::strcpy(out.result.device, "xiw0");
    return out;
}

xiw::TerminateInfo term(std::uint8_t layer, std::uint8_t type, std::uint8_t code)
{
    xiw::TerminateInfo t;
    t.layer = layer;
    t.type = type;
    t.code = code;
    return t;
}

}  // namespace

TEST(XiwperfProbe, ParsesAddressPortAndTimeout)
{
    auto cmd = parse({"probe", "--addr", "192.0.2.2"});
    ASSERT_TRUE(cmd) << cmd.error().context;
    const auto& p = std::get<xiwperf::Probe>(*cmd);
    EXPECT_EQ(p.addr.text, "192.0.2.2");
    EXPECT_EQ(p.port, XIWPERF_DEFAULT_PORT);
    EXPECT_EQ(p.timeout_ms, 5000u);
    EXPECT_FALSE(p.json);

    cmd = parse({"probe", "-a", "fe80::1%1", "--port=7000", "-t", "30", "--json"});
    ASSERT_TRUE(cmd) << cmd.error().context;
    const auto& q = std::get<xiwperf::Probe>(*cmd);
    EXPECT_EQ(q.addr.text, "fe80::1%1");
    EXPECT_EQ(q.addr.family, AF_INET6);
    EXPECT_EQ(q.port, 7000);
    EXPECT_EQ(q.timeout_ms, 30000u);
    EXPECT_TRUE(q.json);

    cmd = parse({"probe", "--help"});
    ASSERT_TRUE(cmd);
    EXPECT_TRUE(std::holds_alternative<xiwperf::Help>(*cmd));
    EXPECT_NE(xiwperf::usage().find("xiwperf probe --addr IP [--port N] [--timeout SEC] [--json]"),
              std::string::npos);
}

TEST(XiwperfProbe, RefusesBadWords)
{
    const std::pair<std::vector<std::string_view>, std::string> cases[] = {
        {{"probe"}, "missing --addr"},
        {{"probe", "--addr", "peer.example"}, "peer.example"},
        {{"probe", "--addr", "192.0.2.2", "--op", "write"}, "probe: unknown option \"--op\""},
        {{"probe", "--addr", "192.0.2.2", "--port"}, "--port needs a value"},
        {{"probe", "--addr", "192.0.2.2", "--port", "0"}, "must be 1 to 65535"},
        {{"probe", "--addr", "192.0.2.2", "--port", "65536"}, "--port"},
        {{"probe", "--addr", "192.0.2.2", "--timeout", "3601"}, "--timeout"},
        {{"probe", "--addr", "192.0.2.2", "--timeout", "0"}, "--timeout"},
    };
    for (const auto& [words, says] : cases) {
        auto cmd = xiwperf::parse(words);
        ASSERT_FALSE(cmd) << says;
        EXPECT_EQ(cmd.error().code, EINVAL);
        EXPECT_NE(cmd.error().context.find(says), std::string::npos)
            << cmd.error().context << " lacks " << says;
    }
}

TEST(XiwperfProbe, TriesEveryExtensionOnceInItsOwnRun)
{
    auto v = all();
    std::vector<std::string_view> ops;
    for (const auto& a : v) {
        ops.push_back(a.op);
        EXPECT_EQ(a.run.count, 1u) << a.op;
        EXPECT_EQ(a.run.qps, 1u) << a.op;
        EXPECT_EQ(a.run.timeout_ms, 5000u) << a.op;
        EXPECT_EQ(a.run.port, 18515) << a.op;
        EXPECT_EQ(a.run.addr.text, "192.0.2.2") << a.op;
        EXPECT_EQ(xiwperf::op_name(a.run.op), a.op);
    }
    EXPECT_EQ(ops, (std::vector<std::string_view>{"fetch_add", "cmp_swap", "masked_fetch_add",
                                                  "masked_cmp_swap", "write_imm", "imm",
                                                  "atomic_write", "flush", "verify"}));
    for (std::string_view op : {"fetch_add", "cmp_swap", "masked_fetch_add", "masked_cmp_swap",
                                "write_imm", "imm"})
        EXPECT_EQ(find(v, op).spec, "rfc7306") << op;
    for (std::string_view op : {"atomic_write", "flush", "verify"})
        EXPECT_EQ(find(v, op).spec, "commit") << op;
}

TEST(XiwperfProbe, AtomicsLeaveThePeersWordAsItWas)
{
    auto v = all();
    EXPECT_EQ(find(v, "fetch_add").run.add, 0u);
    EXPECT_EQ(find(v, "masked_fetch_add").run.add, 0u);
    // compare 0, swap 0: a word of 0 stays 0, any other fails the compare
    EXPECT_EQ(find(v, "cmp_swap").run.compare, 0u);
    EXPECT_EQ(find(v, "cmp_swap").run.swap, 0u);
    // no bit is swapped, whatever the compare finds
    EXPECT_EQ(find(v, "masked_cmp_swap").run.mask, 0u);
    EXPECT_EQ(find(v, "masked_cmp_swap").run.compare_mask, 0u);
}

TEST(XiwperfProbe, RegisteredOperationsFallBackToAKeyThePeerMustRefuse)
{
    using xiwperf::Inject;
    using xiwperf::Mr;
    auto v = all();
    for (std::string_view op : {"fetch_add", "cmp_swap", "masked_fetch_add", "masked_cmp_swap"}) {
        const auto& a = find(v, op);
        EXPECT_EQ(a.run.remote_mr, Mr::frwr) << op;
        EXPECT_EQ(a.run.inject, Inject::none) << op;
        ASSERT_TRUE(a.fallback) << op;
        // the global rkey: the peer's buffer with remote write, no atomic right
        EXPECT_EQ(a.fallback->remote_mr, Mr::dma) << op;
        EXPECT_EQ(a.fallback->inject, Inject::rights) << op;
    }
    for (std::string_view op : {"atomic_write", "flush", "verify"}) {
        const auto& a = find(v, op);
        EXPECT_EQ(a.run.remote_mr, Mr::frwr) << op;
        ASSERT_TRUE(a.fallback) << op;
        EXPECT_EQ(a.fallback->remote_mr, Mr::dma) << op;
        EXPECT_EQ(a.fallback->inject, Inject::stag) << op;
    }
    EXPECT_TRUE(find(v, "flush").run.global);
    EXPECT_FALSE(find(v, "flush").run.persist);
    EXPECT_EQ(find(v, "verify").run.hash, xiwperf::Hash::crc32c);
    EXPECT_FALSE(find(v, "write_imm").fallback);
    EXPECT_FALSE(find(v, "imm").fallback);
    EXPECT_EQ(find(v, "imm").run.size, 0u);
}

TEST(XiwperfProbe, NextStepByHowTheRunEnded)
{
    EXPECT_EQ(xiwperf::probe::next_step(xiwperf::Outcome{}), Step::judged);
    EXPECT_EQ(xiwperf::probe::next_step(failed(XIWPERF_REASON_WC)), Step::judged);
    EXPECT_EQ(xiwperf::probe::next_step(failed(XIWPERF_REASON_DISCONNECTED)), Step::judged);
    EXPECT_EQ(xiwperf::probe::next_step(failed(XIWPERF_REASON_TIMEOUT)), Step::judged);
    EXPECT_EQ(xiwperf::probe::next_step(failed(XIWPERF_REASON_UNSUPPORTED)), Step::judged);
    EXPECT_EQ(xiwperf::probe::next_step(
                  failed(XIWPERF_REASON_UNSUPPORTED, XIWPERF_REJECT_UNSUPPORTED)),
              Step::fallback);
    for (std::uint32_t stop : {XIWPERF_REASON_ADDR, XIWPERF_REASON_ROUTE, XIWPERF_REASON_REFUSED,
                               XIWPERF_REASON_REJECTED, XIWPERF_REASON_UNREACHABLE,
                               XIWPERF_REASON_RESOURCES, XIWPERF_REASON_PROTOCOL})
        EXPECT_EQ(xiwperf::probe::next_step(failed(stop)), Step::stop) << stop;
    xiwperf::Outcome no_result;
    no_result.error = EFAULT;
    EXPECT_EQ(xiwperf::probe::next_step(no_result), Step::stop);
}

TEST(XiwperfProbe, JudgesByCompletionAndTheTerminateReceived)
{
    auto v = all();
    const auto& a = find(v, "flush");
    auto judge = [&a](const xiwperf::Outcome& out, std::optional<xiw::TerminateInfo> t,
                      bool fallback = false) {
        return xiwperf::probe::judge(a, fallback ? *a.fallback : a.run, out, t);
    };

    auto f = judge(xiwperf::Outcome{}, std::nullopt);
    EXPECT_EQ(f.verdict, Verdict::supported);
    EXPECT_EQ(f.evidence, "completed");
    EXPECT_FALSE(f.fallback);
    EXPECT_EQ(f.op, "flush");
    EXPECT_EQ(f.spec, "commit");

    // RDMAP Remote Operation Error (unexpected opcode, or any other)
    f = judge(failed(XIWPERF_REASON_WC), term(0, 2, 0x06), true);
    EXPECT_EQ(f.verdict, Verdict::not_supported);
    EXPECT_EQ(f.evidence, "terminate");
    EXPECT_TRUE(f.fallback);
    ASSERT_TRUE(f.terminate);
    EXPECT_EQ(f.terminate->code, 0x06);
    EXPECT_EQ(judge(failed(XIWPERF_REASON_WC), term(0, 2, 0xff)).verdict, Verdict::not_supported);
    // DDP buffer errors: the peer took the message for another
    EXPECT_EQ(judge(failed(XIWPERF_REASON_WC), term(1, 1, 0x00)).verdict, Verdict::not_supported);
    EXPECT_EQ(judge(failed(XIWPERF_REASON_DISCONNECTED), term(1, 2, 0x01)).verdict,
              Verdict::not_supported);
    // a protection error: it knew the operation and checked the key
    f = judge(failed(XIWPERF_REASON_WC), term(0, 1, 0x00), true);
    EXPECT_EQ(f.verdict, Verdict::supported);
    EXPECT_EQ(f.evidence, "terminate");

    // neither: no Terminate, a catastrophic one, an MPA one
    for (auto t : {std::optional<xiw::TerminateInfo>{}, std::optional{term(0, 0, 0)},
                   std::optional{term(1, 0, 0)}, std::optional{term(2, 0, 2)}}) {
        f = judge(failed(XIWPERF_REASON_WC), t);
        EXPECT_EQ(f.verdict, Verdict::unknown);
        EXPECT_NE(f.evidence.find("failed with"), std::string::npos) << f.evidence;
    }

    // the local device cannot send it
    f = judge(failed(XIWPERF_REASON_UNSUPPORTED), std::nullopt);
    EXPECT_EQ(f.verdict, Verdict::local);
    EXPECT_EQ(f.evidence, "local device");
}

TEST(XiwperfProbe, VerdictNames)
{
    EXPECT_EQ(xiwperf::probe::verdict_name(Verdict::supported), "supported");
    EXPECT_EQ(xiwperf::probe::verdict_name(Verdict::not_supported), "not_supported");
    EXPECT_EQ(xiwperf::probe::verdict_name(Verdict::local), "local");
    EXPECT_EQ(xiwperf::probe::verdict_name(Verdict::unknown), "unknown");
}
