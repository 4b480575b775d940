// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <initializer_list>
#include <string_view>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "args.hpp"
#include "has_word.hpp"
#include "uapi/xiwperf.h"

namespace {

using xiwperf::Client;
using xiwperf::Inject;
using xiwperf::Mr;
using xiwperf::Op;
using xiwperf::Server;

using Words = std::vector<std::string_view>;
using WordList = std::initializer_list<std::string_view>;

class XiwperfArgs : public ::testing::Test {
protected:
    // "client --addr 10.0.0.1 --op OP --size 1 --count 1", then @extra.
    static Words one_op(std::string_view op, WordList extra = {})
    {
        Words w{"client", "--addr", "10.0.0.1", "--op", op, "--size", "1", "--count", "1"};
        w.insert(w.end(), extra);
        return w;
    }

    static xiw::Result<xiwperf::Command> parse(const Words& words)
    {
        return xiwperf::parse(words);
    }

    // The Client that @words parse to; a failure otherwise.
    static Client client(const Words& words)
    {
        auto cmd = parse(words);
        EXPECT_TRUE(cmd) << (cmd ? "" : cmd.error().context);
        if (!cmd)
            return {};
        auto* c = std::get_if<Client>(&*cmd);
        EXPECT_NE(c, nullptr);
        return c ? *c : Client{};
    }

    // The usage error @words cause, whole; a failure if they parse.
    static std::string usage_error(const Words& words)
    {
        auto cmd = parse(words);
        EXPECT_FALSE(cmd);
        if (cmd)
            return {};
        EXPECT_EQ(cmd.error().code, EINVAL);
        return cmd.error().context;
    }

    // Whether @text has @word, not as part of a longer word or option ("--mr"
    // is not in "--remote-mr"); "" stands for the empty value, quoted.
    static bool has_word(std::string_view text, std::string_view word)
    {
        return xiw::test::has_word(text, word.empty() ? "\"\"" : word);
    }

    // Whether @r is a usage error (EINVAL) whose message names each of
    // @names: the options and values it is about, or the rule's key words.
    template <class T>
    static ::testing::AssertionResult refused(const xiw::Result<T>& r, WordList names)
    {
        if (r)
            return ::testing::AssertionFailure() << "accepted, not refused";
        const xiw::Error& e = r.error();
        if (e.code != EINVAL)
            return ::testing::AssertionFailure() << "error " << e.code << ", not EINVAL";
        if (names.size() == 0)
            return ::testing::AssertionFailure() << "nothing to look for in \"" << e.context << '"';
        for (auto name : names)
            if (!has_word(e.context, name))
                return ::testing::AssertionFailure()
                       << '"' << e.context << "\" does not name " << name;
        return ::testing::AssertionSuccess() << '"' << e.context << '"';
    }

    // Whether @words are refused so (see above).
    static ::testing::AssertionResult refused(const Words& words, WordList names)
    {
        return refused(parse(words), names);
    }
};

}  // namespace

// The other tests say which words are refused and what the message names;
// these few say it whole, one of each kind, so that the wording is read too.
TEST_F(XiwperfArgs, UsageMessagesReadAsDocumented)
{
    const std::pair<Words, std::string_view> samples[] = {
        {{"serve"}, "unknown command \"serve\" (server, client, probe)"},
        {{"client", "--addr", "10.0.0.1", "--bogus"}, "client: unknown option \"--bogus\""},
        {{"client", "--addr", "10.0.0.1", "--op", "read", "--count", "1"},
         "client: missing --size BYTES"},
        {{"client", "--addr", "10.0.0.1", "--op", "write", "--sge"}, "--sge needs a value"},
        {one_op("write", {"--hold", "61"}), "--hold: \"61\" is not within 1 to 60"},
        {one_op("read", {"--count", "1x"}), "--count: \"1x\" is not a number"},
        {one_op("write", {"--mr", "fmr"}), "--mr: \"fmr\" is not one of dma, frwr"},
        {one_op("read", {"--inline"}),
         "client: --inline works with --op send, write, write_imm, flush and verify only"},
        {one_op("send", {"--srq", "--solicit", "2"}),
         "client: --srq and --solicit exclude each other"},
        {one_op("write", {"--inject", "bounds"}),
         "client: --inject bounds needs --remote-mr frwr (the server's global rkey has no "
         "bounds, rights or invalidation)"},
        {one_op("read", {"--count", "3", "--qps", "4"}),
         "client: --count must be at least --qps (4)"},
        {{"probe"}, "probe: missing --addr IP (the peer's xiwperf server)"},
    };
    for (const auto& [words, message] : samples)
        EXPECT_EQ(usage_error(words), message);
}

TEST_F(XiwperfArgs, ClientMinimalUsesDefaults)
{
    Client c = client({"client", "--addr", "10.1.0.1", "--op", "write", "--size", "4096",
                       "--count", "100"});
    EXPECT_EQ(c.addr.family, AF_INET);
    EXPECT_EQ(c.addr.text, "10.1.0.1");
    EXPECT_EQ(c.addr.bytes[0], 10);
    EXPECT_EQ(c.addr.bytes[3], 1);
    EXPECT_EQ(c.port, XIWPERF_DEFAULT_PORT);
    EXPECT_EQ(c.op, Op::write);
    EXPECT_EQ(c.size, 4096u);
    EXPECT_EQ(c.count, 100u);
    EXPECT_EQ(c.depth, 1u);
    EXPECT_EQ(c.qps, 1u);
    EXPECT_EQ(c.timeout_ms, 0u);
    EXPECT_EQ(c.sge, 1u);
    EXPECT_EQ(c.solicit, 0u);
    EXPECT_FALSE(c.inline_data);
    EXPECT_FALSE(c.check);
    EXPECT_FALSE(c.json);
}

TEST_F(XiwperfArgs, ClientEveryOption)
{
    Client c = client({"client", "--addr", "192.0.2.1", "--port", "9000", "--op", "read", "--size",
                       "1M", "--count", "8", "--depth", "16", "--qps", "4", "--check", "--json",
                       "--timeout", "3", "--sge", "3"});
    EXPECT_EQ(c.port, 9000);
    EXPECT_EQ(c.op, Op::read);
    EXPECT_EQ(c.size, 1u << 20);
    EXPECT_EQ(c.count, 8u);
    EXPECT_EQ(c.depth, 16u);
    EXPECT_EQ(c.qps, 4u);
    EXPECT_EQ(c.timeout_ms, 3000u);
    EXPECT_EQ(c.sge, 3u);
    EXPECT_TRUE(c.check);
    EXPECT_TRUE(c.json);
}

TEST_F(XiwperfArgs, HoldKeepsConnectionsOpenForWholeSeconds)
{
    EXPECT_EQ(client({"client", "--addr", "192.0.2.1", "--op", "write", "--size", "8", "--count",
                      "64", "--qps", "64", "--hold", "20"})
                  .hold_ms,
              20000u);
    EXPECT_EQ(client({"client", "--addr", "192.0.2.1", "--op", "write", "--size", "8", "--count",
                      "1"})
                  .hold_ms,
              0u);
    EXPECT_TRUE(refused(one_op("write", {"--hold", "0"}), {"--hold", "0"}));
    EXPECT_TRUE(refused(one_op("write", {"--hold", "61"}), {"--hold", "61"}));
    EXPECT_TRUE(refused(one_op("write", {"--hold", "1.5"}), {"--hold", "1.5"}));
}

TEST_F(XiwperfArgs, IdleHoldsQpsThatNeverConnect)
{
    const auto c = client({"client", "--addr", "192.0.2.1", "--op", "write", "--size", "8",
                           "--count", "64", "--qps", "64", "--hold", "20", "--idle"});
    EXPECT_TRUE(c.idle);
    EXPECT_EQ(c.hold_ms, 20000u);
    EXPECT_FALSE(client({"client", "--addr", "192.0.2.1", "--op", "write", "--size", "8",
                         "--count", "1"})
                     .idle);
    EXPECT_TRUE(refused(one_op("write", {"--idle"}), {"--idle", "--hold"}));
    EXPECT_TRUE(refused(one_op("write", {"--idle", "--hold", "1", "--check"}),
                        {"--idle", "--check", "--inject"}));
}

TEST_F(XiwperfArgs, SgeAndInline)
{
    Client c = client({"client", "--addr", "10.0.0.1", "--op", "send", "--size", "200",
                       "--count", "1", "--sge", "4", "--inline"});
    EXPECT_EQ(c.sge, 4u);
    EXPECT_TRUE(c.inline_data);
    c = client(one_op("write", {"--sge=1", "--inline"}));
    EXPECT_EQ(c.sge, 1u);
    EXPECT_TRUE(c.inline_data);
    // more SGEs than bytes is fine: one SGE per byte
    c = client({"client", "--addr", "10.0.0.1", "--op", "read", "--size", "2", "--count", "1",
                "--sge", "4"});
    EXPECT_EQ(c.sge, 4u);
    EXPECT_FALSE(c.inline_data);

    EXPECT_TRUE(refused(one_op("write", {"--sge", "0"}), {"--sge", "0"}));
    EXPECT_TRUE(refused(one_op("write", {"--sge", "5"}), {"--sge", "5"}));
    EXPECT_TRUE(refused(one_op("write", {"--sge", "2x"}), {"--sge", "2x"}));
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "write", "--sge"}, {"--sge"}));
    EXPECT_TRUE(refused(one_op("read", {"--inline"}), {"--inline", "--op"}));
    EXPECT_TRUE(refused({"client", "--inline=yes"}, {"--inline"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--sge", "2"}, {"--sge"}));
}

TEST_F(XiwperfArgs, Solicit)
{
    Client c = client(one_op("send", {"--solicit", "4"}));
    EXPECT_EQ(c.op, Op::send);
    EXPECT_EQ(c.solicit, 4u);
    EXPECT_EQ(client(one_op("send", {"--solicit=1"})).solicit, 1u);
    // larger than --count: only the last Send (and credit-limited ones)
    EXPECT_EQ(client(one_op("send", {"--solicit", "4294967295"})).solicit, 4294967295u);

    EXPECT_TRUE(refused(one_op("send", {"--solicit", "0"}), {"--solicit", "0"}));
    EXPECT_TRUE(refused(one_op("send", {"--solicit", "4294967296"}), {"--solicit", "4294967296"}));
    EXPECT_TRUE(refused(one_op("send", {"--solicit", "-1"}), {"--solicit", "-1"}));
    EXPECT_TRUE(refused(one_op("send", {"--solicit"}), {"--solicit"}));
    for (auto op : {"write", "read"})
        EXPECT_TRUE(refused(one_op(op, {"--solicit", "2"}), {"--solicit", "--op"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--solicit", "2"}, {"--solicit"}));
}

TEST_F(XiwperfArgs, MemoryRegistrationDefaultsToDma)
{
    Client c = client(one_op("write"));
    EXPECT_EQ(c.mr, Mr::dma);
    EXPECT_EQ(c.remote_mr, Mr::dma);
    EXPECT_EQ(c.inject, Inject::none);
    EXPECT_FALSE(c.srq);
}

TEST_F(XiwperfArgs, MrAndRemoteMrTakeDmaOrFrwr)
{
    for (auto op : {"send", "write", "read"})
        EXPECT_EQ(client(one_op(op, {"--mr", "frwr"})).mr, Mr::frwr) << op;
    EXPECT_EQ(client(one_op("write", {"--mr=dma"})).mr, Mr::dma);
    for (auto op : {"write", "read"}) {
        Client c = client(one_op(op, {"--remote-mr", "frwr", "--mr", "frwr"}));
        EXPECT_EQ(c.remote_mr, Mr::frwr) << op;
        EXPECT_EQ(c.mr, Mr::frwr) << op;
    }
    EXPECT_EQ(client(one_op("send", {"--remote-mr", "dma"})).remote_mr, Mr::dma);

    EXPECT_TRUE(refused(one_op("write", {"--mr", "fmr"}), {"--mr", "fmr"}));
    EXPECT_TRUE(refused(one_op("write", {"--remote-mr", "FRWR"}), {"--remote-mr", "FRWR"}));
    EXPECT_TRUE(refused(one_op("write", {"--mr"}), {"--mr"}));
    EXPECT_TRUE(refused(one_op("send", {"--remote-mr", "frwr"}), {"--remote-mr", "--op"}));
    EXPECT_TRUE(refused(one_op("send", {"--mr", "frwr", "--inline"}),
                        {"--mr", "frwr", "--inline"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--mr", "frwr"}, {"--mr"}));
}

TEST_F(XiwperfArgs, InjectNamesEveryKind)
{
    EXPECT_EQ(client(one_op("write", {"--inject", "stag"})).inject, Inject::stag);
    EXPECT_EQ(client(one_op("read", {"--inject=stag"})).inject, Inject::stag);
    EXPECT_EQ(client(one_op("read", {"--inject", "dma-invalidate"})).inject,
              Inject::dma_invalidate);
    const WordList frwr = {"--remote-mr", "frwr"};
    Words w = one_op("write", frwr);
    w.insert(w.end(), {"--inject", "bounds"});
    EXPECT_EQ(client(w).inject, Inject::bounds);
    w = one_op("read", frwr);
    w.insert(w.end(), {"--inject", "invalidated"});
    EXPECT_EQ(client(w).inject, Inject::invalidated);
    w = one_op("write", frwr);
    w.insert(w.end(), {"--inject", "rights"});
    EXPECT_EQ(client(w).inject, Inject::rights);
    EXPECT_EQ(client(one_op("read", {"--inject", "wrap"})).inject, Inject::wrap);
    EXPECT_EQ(
        client(one_op("write", {"--qps", "2", "--count", "2", "--inject", "foreign"})).inject,
        Inject::foreign);
    for (auto op : {"send", "write", "read"})
        EXPECT_EQ(client(one_op(op, {"--inject", "lkey"})).inject, Inject::lkey);
    for (auto kind : {Inject::stag, Inject::bounds, Inject::rights, Inject::invalidated,
                      Inject::dma_invalidate, Inject::wrap})
        EXPECT_EQ(client(one_op("write", {"--remote-mr", "frwr", "--inject",
                                          xiwperf::inject_name(kind)}))
                      .inject,
                  kind);
}

TEST_F(XiwperfArgs, InjectRefusesWhatCannotShowTheFault)
{
    EXPECT_TRUE(refused(one_op("write", {"--inject", "wrong"}), {"--inject", "wrong"}));
    EXPECT_TRUE(refused(one_op("write", {"--inject", "foreign"}),
                        {"--inject", "foreign", "--qps"}));
    EXPECT_TRUE(refused(one_op("send", {"--inject", "stag"}), {"--inject", "stag", "--op"}));
    EXPECT_TRUE(refused(one_op("send", {"--inline", "--inject", "lkey"}),
                        {"--inject", "lkey", "--inline"}));
    for (auto kind : {"bounds", "rights", "invalidated"})
        EXPECT_TRUE(refused(one_op("write", {"--inject", kind}),
                            {"--inject", kind, "--remote-mr", "frwr"}))
            << kind;
    EXPECT_TRUE(refused(one_op("read", {"--remote-mr", "frwr", "--inject", "rights"}),
                        {"--inject", "rights", "--op"}));
}

TEST_F(XiwperfArgs, SrqIsForSendWithoutSolicit)
{
    EXPECT_TRUE(client(one_op("send", {"--srq"})).srq);
    EXPECT_TRUE(client({"client", "--addr", "10.0.0.1", "--op", "send", "--size", "4K",
                        "--count", "800", "--qps", "8", "--srq", "--check"})
                    .srq);
    for (auto op : {"write", "read"})
        EXPECT_TRUE(refused(one_op(op, {"--srq"}), {"--srq", "--op"}));
    EXPECT_TRUE(refused(one_op("send", {"--srq", "--solicit", "2"}), {"--srq", "--solicit"}));
    EXPECT_TRUE(refused(one_op("send", {"--srq=1"}), {"--srq"}));
}

namespace {

// "client --addr 10.0.0.1 --op OP --count 8 --remote-mr frwr", then @extra:
// an atomic run as small as it gets (no --size: it is 8).
Words atomic(std::string_view op, WordList extra = {})
{
    Words w{"client", "--addr", "10.0.0.1", "--op", op, "--count", "8", "--remote-mr", "frwr"};
    w.insert(w.end(), extra);
    return w;
}

}  // namespace

TEST_F(XiwperfArgs, AtomicOpsAndTheirDefaults)
{
    Client c = client(atomic("fetch_add"));
    EXPECT_EQ(c.op, Op::fetch_add);
    EXPECT_TRUE(xiwperf::is_atomic(c.op));
    EXPECT_FALSE(xiwperf::is_masked(c.op));
    EXPECT_EQ(c.size, 8u);  // implicit: one 64-bit word
    EXPECT_EQ(c.add, 1u);
    EXPECT_EQ(c.compare_mask, ~0ULL);
    EXPECT_EQ(c.remote_mr, Mr::frwr);
    EXPECT_EQ(c.sge, 1u);
    EXPECT_FALSE(c.check);

    c = client(atomic("masked_fetch_add", {"--mask", "0x8080808080808080", "--add", "0x0101"}));
    EXPECT_EQ(c.op, Op::masked_fetch_add);
    EXPECT_TRUE(xiwperf::is_masked(c.op));
    EXPECT_EQ(c.mask, 0x8080808080808080ULL);
    EXPECT_EQ(c.add, 0x101u);

    c = client(atomic("cmp_swap", {"--compare", "0", "--swap", "18446744073709551615"}));
    EXPECT_EQ(c.op, Op::cmp_swap);
    EXPECT_EQ(c.compare, 0u);
    EXPECT_EQ(c.swap, ~0ULL);

    c = client(atomic("masked_cmp_swap", {"--compare=0x10", "--swap=0xff", "--mask=0xf0"}));
    EXPECT_EQ(c.op, Op::masked_cmp_swap);
    EXPECT_EQ((std::tuple{c.compare, c.swap, c.mask, c.compare_mask}),
              (std::tuple{0x10ULL, 0xffULL, 0xf0ULL, ~0ULL}));
    c = client(atomic("masked_cmp_swap",
                      {"--compare", "1", "--swap", "2", "--mask", "3", "--compare-mask", "0"}));
    EXPECT_EQ(c.compare_mask, 0u);

    // --size 8 and --sge 1 may be said; --mr frwr, --check, --qps, --depth go
    c = client(atomic("fetch_add", {"--size", "8", "--sge", "1", "--mr", "frwr", "--check",
                                    "--qps", "8", "--depth", "16", "--count", "80000"}));
    EXPECT_EQ(c.size, 8u);
    EXPECT_EQ(c.mr, Mr::frwr);
    EXPECT_TRUE(c.check);
    EXPECT_EQ(c.count, 80000u);
    EXPECT_EQ(xiwperf::op_name(Op::masked_cmp_swap), "masked_cmp_swap");
}

TEST_F(XiwperfArgs, AtomicValuesAreDecimalOrHex64Bit)
{
    EXPECT_EQ(*xiwperf::parse_value("0"), 0u);
    EXPECT_EQ(*xiwperf::parse_value("42"), 42u);
    EXPECT_EQ(*xiwperf::parse_value("0x2A"), 42u);
    EXPECT_EQ(*xiwperf::parse_value("0X2a"), 42u);
    EXPECT_EQ(*xiwperf::parse_value("18446744073709551615"), ~0ULL);
    EXPECT_EQ(*xiwperf::parse_value("0xffffffffffffffff"), ~0ULL);
    EXPECT_EQ(*xiwperf::parse_value("0x0000000000000000001"), 1u);  // leading zeros
    for (auto bad : {"", "0x", "-1", "+1", "1k", "0x1g", "x1", "1.0", " 1", "0b101"})
        EXPECT_TRUE(refused(xiwperf::parse_value(bad), {bad, "number"})) << bad;
    EXPECT_TRUE(refused(xiwperf::parse_value("18446744073709551616"),
                        {"18446744073709551616", "64 bits"}));
    EXPECT_TRUE(refused(xiwperf::parse_value("0x10000000000000000"),
                        {"0x10000000000000000", "64 bits"}));

    EXPECT_TRUE(refused(atomic("fetch_add", {"--add", "-1"}), {"--add", "-1"}));
    EXPECT_TRUE(refused(atomic("cmp_swap", {"--compare", "1", "--swap", "0x1ffffffffffffffff"}),
                        {"--swap", "0x1ffffffffffffffff"}));
    EXPECT_TRUE(refused(atomic("masked_fetch_add", {"--mask"}), {"--mask"}));
    EXPECT_TRUE(refused(atomic("masked_cmp_swap", {"--compare-mask", "z"}),
                        {"--compare-mask", "z"}));
}

TEST_F(XiwperfArgs, AtomicOperandsOnlyWhereTheyApply)
{
    for (auto op : {"cmp_swap", "masked_cmp_swap"})
        EXPECT_TRUE(refused(atomic(op, {"--compare", "1", "--swap", "2", "--mask", "3",
                                        "--add", "1"}),
                            {"--add", "--op"}))
            << op;
    for (auto op : {"send", "write", "read"})
        EXPECT_TRUE(refused(one_op(op, {"--add", "1"}), {"--add", "--op"})) << op;
    for (auto op : {"fetch_add", "masked_fetch_add"}) {
        EXPECT_TRUE(refused(atomic(op, {"--mask", "0", "--compare", "1"}), {"--compare", "--op"}))
            << op;
        EXPECT_TRUE(refused(atomic(op, {"--mask", "0", "--swap", "1"}), {"--swap", "--op"}))
            << op;
    }
    EXPECT_TRUE(refused(one_op("read", {"--swap", "1"}), {"--swap", "--op"}));
    EXPECT_TRUE(refused(atomic("fetch_add", {"--mask", "0"}), {"--mask", "--op"}));
    EXPECT_TRUE(refused(atomic("cmp_swap", {"--compare", "1", "--swap", "2", "--mask", "0"}),
                        {"--mask", "--op"}));
    const WordList compare_mask = {"--compare-mask", "--op"};
    EXPECT_TRUE(refused(atomic("fetch_add", {"--compare-mask", "1"}), compare_mask));
    EXPECT_TRUE(refused(atomic("cmp_swap", {"--compare", "1", "--swap", "2", "--compare-mask",
                                            "1"}),
                        compare_mask));
    EXPECT_TRUE(refused(atomic("masked_fetch_add", {"--mask", "0", "--compare-mask", "1"}),
                        compare_mask));
    EXPECT_TRUE(refused(one_op("write", {"--compare-mask", "1"}), {"--compare-mask", "--op"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--add", "1"}, {"--add"}));
}

TEST_F(XiwperfArgs, AtomicOperandsThatMustBeGiven)
{
    for (auto op : {"cmp_swap", "masked_cmp_swap"}) {
        const WordList need = {"--op", op, "--compare", "--swap"};
        Words w = atomic(op);
        if (std::string_view(op) == "masked_cmp_swap")
            w.insert(w.end(), {"--mask", "1"});
        EXPECT_TRUE(refused(w, need)) << op;
        Words c = w, s = w;
        c.insert(c.end(), {"--compare", "0"});
        s.insert(s.end(), {"--swap", "0"});
        EXPECT_TRUE(refused(c, need)) << op;
        EXPECT_TRUE(refused(s, need)) << op;
    }
    EXPECT_TRUE(refused(atomic("masked_fetch_add"), {"--op", "masked_fetch_add", "--mask"}));
    EXPECT_TRUE(refused(atomic("masked_cmp_swap", {"--compare", "0", "--swap", "1"}),
                        {"--op", "masked_cmp_swap", "--mask"}));
    // a mask of 0, said: a plain add, or a CmpSwap that changes nothing
    EXPECT_EQ(client(atomic("masked_fetch_add", {"--mask", "0"})).mask, 0u);
}

TEST_F(XiwperfArgs, AtomicRefusesWhatDoesNotFit)
{
    // each operation with the operands it needs, so that the checks are reached
    const std::vector<std::pair<std::string, Words>> runs = {
        {"fetch_add", {}},
        {"cmp_swap", {"--compare", "1", "--swap", "2"}},
        {"masked_fetch_add", {"--mask", "3"}},
        {"masked_cmp_swap", {"--compare", "1", "--swap", "2", "--mask", "3"}},
    };
    for (const auto& [op, needs] : runs) {
        auto with = [&](WordList extra) {
            Words w = atomic(op);
            w.insert(w.end(), needs.begin(), needs.end());
            w.insert(w.end(), extra);
            return w;
        };
        EXPECT_TRUE(parse(with({}))) << op;
        for (auto size : {"1", "4", "16", "4K"})
            EXPECT_TRUE(refused(with({"--size", size}), {"--size"})) << op;
        EXPECT_TRUE(refused(with({"--sge", "2"}), {"--sge"})) << op;
        EXPECT_TRUE(refused(with({"--inline"}), {"--inline", "--op"})) << op;
        EXPECT_TRUE(refused(with({"--solicit", "1"}), {"--solicit", "--op"})) << op;
        EXPECT_TRUE(refused(with({"--srq"}), {"--srq", "--op"})) << op;
        EXPECT_TRUE(refused(with({"--remote-mr", "dma"}),
                            {"--op", op, "--remote-mr", "frwr", "--inject"}))
            << op;
        // --inject goes without: so that a test can show the missing right
        EXPECT_EQ(client(with({"--remote-mr", "dma", "--inject", "stag"})).remote_mr, Mr::dma)
            << op;
        EXPECT_TRUE(client(with({"--check", "--count", "1048576"})).check) << op;
        EXPECT_TRUE(refused(with({"--check", "--count", "1048577"}), {"--check", "--count"})) << op;
        // without --check there is no such limit
        EXPECT_EQ(client(with({"--count", "1000000000000"})).count, 1000000000000u) << op;
    }
    // --size is still required for the other operations
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "write", "--count", "1"},
                        {"--size"}));
}

TEST_F(XiwperfArgs, AtomicInjectedFaults)
{
    for (auto kind : {Inject::stag, Inject::lkey, Inject::unaligned, Inject::rights,
                      Inject::bounds, Inject::invalidated}) {
        Client c = client(atomic("fetch_add", {"--inject", xiwperf::inject_name(kind)}));
        EXPECT_EQ(c.inject, kind) << xiwperf::inject_name(kind);
    }
    EXPECT_EQ(client(atomic("cmp_swap", {"--compare", "0", "--swap", "1", "--qps", "2",
                                         "--inject", "foreign"}))
                  .inject,
              Inject::foreign);
    // without the server's registrations (the global rkey: no atomic right)
    Words dma{"client", "--addr", "10.0.0.1", "--op", "fetch_add", "--count", "8", "--inject"};
    for (auto kind : {"stag", "lkey", "unaligned", "rights"}) {
        Words w = dma;
        w.push_back(kind);
        EXPECT_EQ(client(w).remote_mr, Mr::dma) << kind;
    }
    for (auto kind : {"bounds", "invalidated"}) {
        Words w = dma;
        w.push_back(kind);
        EXPECT_TRUE(refused(w, {"--inject", kind, "--remote-mr", "frwr"})) << kind;
    }
    EXPECT_TRUE(refused(atomic("fetch_add", {"--inject", "dma-invalidate"}),
                        {"--inject", "dma-invalidate", "--op"}));
    // an aligned word never straddles 2^64
    EXPECT_TRUE(refused(atomic("fetch_add", {"--inject", "wrap"}), {"--inject", "wrap", "--op"}));
    EXPECT_TRUE(refused(atomic("fetch_add", {"--inject", "foreign"}),
                        {"--inject", "foreign", "--qps"}));
    for (auto op : {"send", "write", "read"})
        EXPECT_TRUE(refused(one_op(op, {"--remote-mr", "dma", "--inject", "unaligned"}),
                            {"--inject", "unaligned"}))
            << op;
    EXPECT_TRUE(refused(one_op("send", {"--inject", "dma-invalidate"}),
                        {"--inject", "dma-invalidate", "--op"}));
}

TEST_F(XiwperfArgs, AtomicWriteAndItsDefaults)
{
    Client c = client(atomic("atomic_write"));
    EXPECT_EQ(c.op, Op::atomic_write);
    EXPECT_EQ(xiwperf::op_name(c.op), "atomic_write");
    EXPECT_EQ(static_cast<int>(c.op), XIWPERF_OP_ATOMIC_WRITE);
    // the atomic operations' word, but no RFC 7306 AtomicOp
    EXPECT_TRUE(xiwperf::targets_word(c.op));
    EXPECT_FALSE(xiwperf::is_atomic(c.op));
    EXPECT_FALSE(xiwperf::is_masked(c.op));
    EXPECT_FALSE(xiwperf::is_cmp_swap(c.op));
    EXPECT_EQ(c.size, 8u);  // implicit: one 64-bit word
    EXPECT_EQ(c.sge, 1u);
    EXPECT_EQ(c.remote_mr, Mr::frwr);
    EXPECT_EQ(c.mr, Mr::dma);
    EXPECT_FALSE(c.check);
    for (Op op : {Op::fetch_add, Op::cmp_swap, Op::masked_fetch_add, Op::masked_cmp_swap})
        EXPECT_TRUE(xiwperf::targets_word(op)) << xiwperf::op_name(op);
    for (Op op : {Op::send, Op::write, Op::read, Op::write_imm, Op::imm})
        EXPECT_FALSE(xiwperf::targets_word(op)) << xiwperf::op_name(op);

    // --size 8 and --sge 1 may be said; --check, --qps, --depth go
    c = client(atomic("atomic_write", {"--size", "8", "--sge", "1", "--check", "--qps", "8",
                                       "--depth", "16", "--count", "80000"}));
    EXPECT_EQ(c.size, 8u);
    EXPECT_TRUE(c.check);
    EXPECT_EQ(c.qps, 8u);
    EXPECT_EQ(c.count, 80000u);
    EXPECT_TRUE(client(atomic("atomic_write", {"--check", "--count", "1048576"})).check);
    // without --check there is no limit on --count
    EXPECT_EQ(client(atomic("atomic_write", {"--count", "1000000000000"})).count,
              1000000000000u);
}

TEST_F(XiwperfArgs, AtomicWriteTakesNoOperands)
{
    EXPECT_TRUE(refused(atomic("atomic_write", {"--add", "1"}), {"--add", "--op"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--compare", "1"}), {"--compare", "--op"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--swap", "1"}), {"--swap", "--op"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--mask", "1"}), {"--mask", "--op"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--compare-mask", "1"}),
                        {"--compare-mask", "--op"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--imm", "1"}), {"--imm", "--op"}));
}

TEST_F(XiwperfArgs, AtomicWriteRefusesWhatDoesNotFit)
{
    for (auto size : {"1", "4", "16", "4K"})
        EXPECT_TRUE(refused(atomic("atomic_write", {"--size", size}), {"--size", "--op"})) << size;
    // the server's registrations, as for the atomic operations
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "atomic_write", "--count",
                         "8"},
                        {"--op", "atomic_write", "--remote-mr", "frwr", "--inject"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--remote-mr", "dma"}),
                        {"--op", "atomic_write", "--remote-mr", "frwr", "--inject"}));
    // no local buffer: the value is in the work request
    EXPECT_TRUE(refused(atomic("atomic_write", {"--sge", "2"}), {"--op", "atomic_write", "--sge"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--mr", "frwr"}),
                        {"--op", "atomic_write", "--mr", "frwr"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--inline"}), {"--inline", "--op"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--solicit", "1"}), {"--solicit", "--op"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--srq"}), {"--srq", "--op"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--check", "--count", "1048577"}),
                        {"--op", "atomic_write", "--check", "--count"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--qps", "9"}), {"--count", "--qps", "9"}));
}

TEST_F(XiwperfArgs, AtomicWriteInjectedFaults)
{
    for (auto kind : {Inject::stag, Inject::unaligned, Inject::rights, Inject::bounds,
                      Inject::invalidated}) {
        Client c = client(atomic("atomic_write", {"--inject", xiwperf::inject_name(kind)}));
        EXPECT_EQ(c.inject, kind) << xiwperf::inject_name(kind);
    }
    EXPECT_EQ(client(atomic("atomic_write", {"--qps", "2", "--inject", "foreign"})).inject,
              Inject::foreign);
    // without the server's registrations: the global rkey
    Words dma{"client", "--addr", "10.0.0.1", "--op", "atomic_write", "--count", "8",
              "--inject"};
    for (auto kind : {"stag", "unaligned"}) {
        Words w = dma;
        w.push_back(kind);
        EXPECT_EQ(client(w).remote_mr, Mr::dma) << kind;
    }
    // the global rkey has the remote write right an Atomic Write needs, so
    // rights (like bounds and invalidated) needs the registrations
    for (auto kind : {"rights", "bounds", "invalidated"}) {
        Words w = dma;
        w.push_back(kind);
        EXPECT_TRUE(refused(w, {"--inject", kind, "--remote-mr", "frwr"})) << kind;
    }
    EXPECT_TRUE(refused(atomic("atomic_write", {"--inject", "lkey"}),
                        {"--inject", "lkey", "--op"}));
    for (auto kind : {"wrap", "dma-invalidate"})
        EXPECT_TRUE(refused(atomic("atomic_write", {"--inject", kind}), {"--inject", kind, "--op"}))
            << kind;
    EXPECT_TRUE(refused(atomic("atomic_write", {"--inject", "cq-overflow"}),
                        {"--inject", "cq-overflow", "--op", "--solicit", "--depth", "--qps",
                         "--srq"}));
}

namespace {

// "client --addr 10.0.0.1 --op flush --size 4K --count 8 --remote-mr frwr",
// then @extra (no disposition: the tests say which).
Words flush(WordList extra = {})
{
    Words w{"client", "--addr",      "10.0.0.1", "--op", "flush", "--size",
            "4K",     "--count", "8",        "--remote-mr", "frwr"};
    w.insert(w.end(), extra);
    return w;
}

}  // namespace

TEST_F(XiwperfArgs, FlushAndItsDefaults)
{
    Client c = client(flush({"--persist"}));
    EXPECT_EQ(c.op, Op::flush);
    EXPECT_EQ(xiwperf::op_name(c.op), "flush");
    EXPECT_EQ(static_cast<int>(c.op), XIWPERF_OP_FLUSH);
    EXPECT_EQ(static_cast<int>(c.op), 11);
    EXPECT_FALSE(xiwperf::targets_word(c.op));
    EXPECT_FALSE(xiwperf::is_atomic(c.op));
    EXPECT_FALSE(xiwperf::is_imm(c.op));
    EXPECT_FALSE(xiwperf::takes_receives(c.op));
    EXPECT_TRUE(c.persist);
    EXPECT_FALSE(c.global);
    EXPECT_FALSE(c.whole_mr);  // --range, the region just written
    EXPECT_EQ(c.size, 4096u);
    EXPECT_EQ(c.sge, 1u);
    EXPECT_EQ(c.remote_mr, Mr::frwr);
    EXPECT_EQ(c.mr, Mr::dma);
    EXPECT_FALSE(c.check);

    c = client(flush({"--global"}));
    EXPECT_FALSE(c.persist);
    EXPECT_TRUE(c.global);
    c = client(flush({"--persist", "--global"}));
    EXPECT_TRUE(c.persist);
    EXPECT_TRUE(c.global);
    // each may be said twice, as flags are
    c = client(flush({"--global", "--global"}));
    EXPECT_TRUE(c.global);

    // what a write takes, the Write before the Flush takes
    c = client(flush({"--global", "--sge", "4", "--inline", "--check", "--qps", "4", "--depth",
                      "8", "--size", "256"}));
    EXPECT_EQ(c.sge, 4u);
    EXPECT_TRUE(c.inline_data);
    EXPECT_TRUE(c.check);
    EXPECT_EQ(c.size, 256u);
    EXPECT_EQ(client(flush({"--persist", "--mr", "frwr"})).mr, Mr::frwr);
    EXPECT_EQ(client(flush({"--persist", "--size", "1"})).size, 1u);
    EXPECT_EQ(client(flush({"--persist", "--size", "4M"})).size, 4u << 20);
}

TEST_F(XiwperfArgs, FlushNeedsADisposition)
{
    const WordList none = {"--op", "flush", "--persist", "--global"};
    EXPECT_TRUE(refused(flush(), none));
    EXPECT_TRUE(refused(flush({"--range"}), none));
    EXPECT_TRUE(refused(flush({"--whole-mr", "--check"}), none));
    // with an injected fault too
    EXPECT_TRUE(refused(flush({"--inject", "stag"}), none));
    EXPECT_TRUE(refused({"client", "--persist=yes"}, {"--persist"}));
    EXPECT_TRUE(refused({"client", "--global=1"}, {"--global"}));
}

TEST_F(XiwperfArgs, FlushRangeOrWholeMr)
{
    EXPECT_FALSE(client(flush({"--persist", "--range"})).whole_mr);
    EXPECT_TRUE(client(flush({"--persist", "--whole-mr"})).whole_mr);
    EXPECT_TRUE(client(flush({"--whole-mr", "--global", "--persist"})).whole_mr);
    EXPECT_TRUE(client(flush({"--global", "--whole-mr", "--whole-mr"})).whole_mr);
    // one or the other, in either order
    for (auto words : {WordList{"--range", "--whole-mr"}, WordList{"--whole-mr", "--range"}}) {
        Words w = flush({"--persist"});
        w.insert(w.end(), words);
        EXPECT_TRUE(refused(w, {"--range", "--whole-mr"}));
    }
    EXPECT_TRUE(refused({"client", "--whole-mr=1"}, {"--whole-mr"}));
    // --mr is the client's own registration, not the Flush's level
    EXPECT_TRUE(refused(flush({"--persist", "--mr"}), {"--mr"}));
    EXPECT_TRUE(refused(flush({"--persist", "--mr", "whole"}), {"--mr", "whole"}));
}

TEST_F(XiwperfArgs, FlushOptionsWorkWithFlushOnly)
{
    for (auto op : {"send", "write", "read", "write_imm"})
        for (auto opt : {"--persist", "--global", "--range", "--whole-mr"})
            EXPECT_TRUE(refused(one_op(op, {opt}), {opt, "--op", "flush"})) << op << " " << opt;
    for (auto op : {"fetch_add", "atomic_write"})
        EXPECT_TRUE(refused(atomic(op, {"--persist"}), {"--persist", "--op"})) << op;
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "imm", "--count", "1",
                         "--global"},
                        {"--global", "--op"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--persist"}, {"--persist"}));
}

TEST_F(XiwperfArgs, FlushRefusesWhatDoesNotFit)
{
    // the flush rights are the server's registrations'
    const WordList frwr = {"--op", "flush", "--remote-mr", "frwr", "--inject"};
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "flush", "--size", "4K",
                         "--count", "8", "--persist"},
                        frwr));
    EXPECT_TRUE(refused(flush({"--persist", "--remote-mr", "dma"}), frwr));
    // a Write's --size
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "flush", "--count", "8",
                         "--remote-mr", "frwr", "--persist"},
                        {"--size"}));
    EXPECT_TRUE(refused(flush({"--persist", "--size", "0"}), {"--size"}));
    EXPECT_TRUE(refused(flush({"--persist", "--size", "5M"}), {"--size"}));
    // no receive at the server, no operand, no immediate value
    EXPECT_TRUE(refused(flush({"--persist", "--solicit", "1"}), {"--solicit", "--op"}));
    EXPECT_TRUE(refused(flush({"--persist", "--srq"}), {"--srq", "--op"}));
    EXPECT_TRUE(refused(flush({"--persist", "--imm", "1"}), {"--imm", "--op"}));
    EXPECT_TRUE(refused(flush({"--persist", "--add", "1"}), {"--add", "--op"}));
    EXPECT_TRUE(refused(flush({"--persist", "--mr", "frwr", "--inline"}),
                        {"--mr", "frwr", "--inline"}));
    EXPECT_TRUE(refused(flush({"--persist", "--qps", "9"}), {"--count", "--qps", "9"}));
}

TEST_F(XiwperfArgs, FlushInjectedFaults)
{
    // the Flush's key, or its right through chunk 0's read-only rkey
    for (auto kind : {Inject::stag, Inject::rights}) {
        Client c = client(flush({"--persist", "--inject", xiwperf::inject_name(kind)}));
        EXPECT_EQ(c.inject, kind) << xiwperf::inject_name(kind);
    }
    // stag goes without the server's registrations, rights does not
    Words dma{"client", "--addr", "10.0.0.1", "--op",     "flush",    "--size",
              "4K",     "--count", "8",       "--global", "--inject", "stag"};
    EXPECT_EQ(client(dma).remote_mr, Mr::dma);
    dma.back() = "rights";
    EXPECT_TRUE(refused(dma, {"--inject", "rights", "--remote-mr", "frwr"}));
    // every other fault is the Write's or no Flush's
    for (auto kind : {"bounds", "invalidated", "dma-invalidate", "wrap", "foreign", "lkey",
                      "unaligned", "cq-overflow"})
        EXPECT_TRUE(refused(flush({"--persist", "--qps", "2", "--inject", kind}),
                            {"--inject", kind, "--op", "flush"}))
            << kind;
}

namespace {

// "client --addr 10.0.0.1 --op verify --size 4K --count 8 --remote-mr
// frwr", then @extra (no --hash: the tests say which).
Words verify(WordList extra = {})
{
    Words w{"client", "--addr",  "10.0.0.1", "--op",        "verify", "--size",
            "4K",     "--count", "8",        "--remote-mr", "frwr"};
    w.insert(w.end(), extra);
    return w;
}

using Bytes = std::vector<std::uint8_t>;

}  // namespace

TEST_F(XiwperfArgs, VerifyAndItsDefaults)
{
    Client c = client(verify({"--hash", "crc32c"}));
    EXPECT_EQ(c.op, Op::verify);
    EXPECT_EQ(xiwperf::op_name(c.op), "verify");
    EXPECT_EQ(static_cast<int>(c.op), XIWPERF_OP_VERIFY);
    EXPECT_EQ(static_cast<int>(c.op), 12);
    EXPECT_TRUE(xiwperf::writes_first(c.op));
    EXPECT_TRUE(xiwperf::writes_first(Op::flush));
    EXPECT_FALSE(xiwperf::writes_first(Op::write));
    EXPECT_FALSE(xiwperf::targets_word(c.op));
    EXPECT_FALSE(xiwperf::is_atomic(c.op));
    EXPECT_FALSE(xiwperf::is_imm(c.op));
    EXPECT_FALSE(xiwperf::takes_receives(c.op));
    EXPECT_EQ(c.hash, xiwperf::Hash::crc32c);
    EXPECT_EQ(static_cast<int>(c.hash), XIWPERF_HASH_CRC32C);
    EXPECT_FALSE(c.expect);
    EXPECT_TRUE(c.expect_hash.empty());
    EXPECT_EQ(c.size, 4096u);
    EXPECT_EQ(c.sge, 1u);
    EXPECT_EQ(c.remote_mr, Mr::frwr);
    EXPECT_EQ(c.mr, Mr::dma);
    EXPECT_EQ(c.inject, Inject::none);
    EXPECT_FALSE(c.check);
    // the Flush's options stay off
    EXPECT_FALSE(c.persist);
    EXPECT_FALSE(c.global);

    c = client(verify({"--hash", "sha256"}));
    EXPECT_EQ(c.hash, xiwperf::Hash::sha256);
    EXPECT_EQ(static_cast<int>(c.hash), XIWPERF_HASH_SHA256);
    EXPECT_EQ(client(verify({"--hash=sha256"})).hash, xiwperf::Hash::sha256);
    // the last one counts
    EXPECT_EQ(client(verify({"--hash", "sha256", "--hash", "crc32c"})).hash,
              xiwperf::Hash::crc32c);
    EXPECT_EQ(xiwperf::hash_name(xiwperf::Hash::crc32c), "crc32c");
    EXPECT_EQ(xiwperf::hash_name(xiwperf::Hash::sha256), "sha256");
    EXPECT_EQ(xiwperf::hash_name(xiwperf::Hash::none), "");

    // what a write takes, the Write before the Verify takes; --check too
    c = client(verify({"--hash", "crc32c", "--sge", "4", "--inline", "--check", "--qps", "4",
                       "--depth", "8", "--size", "256"}));
    EXPECT_EQ(c.sge, 4u);
    EXPECT_TRUE(c.inline_data);
    EXPECT_TRUE(c.check);
    EXPECT_EQ(c.size, 256u);
    EXPECT_EQ(client(verify({"--hash", "crc32c", "--mr", "frwr"})).mr, Mr::frwr);
    EXPECT_EQ(client(verify({"--hash", "crc32c", "--size", "1"})).size, 1u);
    EXPECT_EQ(client(verify({"--hash", "crc32c", "--size", "4M"})).size, 4u << 20);
}

TEST_F(XiwperfArgs, VerifyNeedsAHash)
{
    const WordList none = {"--op", "verify", "--hash"};
    EXPECT_TRUE(refused(verify(), none));
    EXPECT_TRUE(refused(verify({"--check"}), none));
    EXPECT_TRUE(refused(verify({"--expect"}), none));
    EXPECT_TRUE(refused(verify({"--expect", "00112233"}), none));
    for (auto bad : {"crc32", "CRC32C", "sha-256", "md5", ""})
        EXPECT_TRUE(refused(verify({"--hash", bad}), {"--hash", bad})) << bad;
    EXPECT_TRUE(refused(verify({"--hash"}), {"--hash"}));
}

TEST_F(XiwperfArgs, VerifyExpectOwnOrFixed)
{
    // alone: the client's own hash, whatever follows
    for (auto words : {WordList{"--expect"}, WordList{"--expect", "--check"},
                       WordList{"--expect", "-c"}, WordList{"--check", "--expect"}}) {
        Words w = verify({"--hash", "crc32c"});
        w.insert(w.end(), words);
        Client c = client(w);
        EXPECT_TRUE(c.expect);
        EXPECT_TRUE(c.expect_hash.empty());
    }
    EXPECT_TRUE(client(verify({"--expect", "--check", "--hash", "crc32c"})).check);

    // with a value: its octets, most significant digit first, any case
    Client c = client(verify({"--hash", "crc32c", "--expect", "00fFa5C3"}));
    EXPECT_TRUE(c.expect);
    EXPECT_EQ(c.expect_hash, (Bytes{0x00, 0xff, 0xa5, 0xc3}));
    EXPECT_EQ(client(verify({"--hash", "crc32c", "--expect=0102"})).expect_hash,
              (Bytes{0x01, 0x02}));
    EXPECT_EQ(client(verify({"--expect", "7f", "--hash", "crc32c"})).expect_hash, (Bytes{0x7f}));
    // SHA-256 of "abc", as sha256sum prints it
    c = client(verify({"--hash", "sha256", "--expect",
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}));
    ASSERT_EQ(c.expect_hash.size(), 32u);
    EXPECT_EQ(c.expect_hash.front(), 0xba);
    EXPECT_EQ(c.expect_hash.back(), 0xad);
    // the longest, XIWPERF_HASH_MAX octets; the length is not the
    // algorithm's business here (the server compares what it is given)
    std::string longest(2 * XIWPERF_HASH_MAX, 'e');
    c = client(verify({"--hash", "crc32c", "--expect", longest}));
    EXPECT_EQ(c.expect_hash, Bytes(XIWPERF_HASH_MAX, 0xee));

    // the last --expect counts, own or fixed
    c = client(verify({"--hash", "crc32c", "--expect", "0102", "--expect"}));
    EXPECT_TRUE(c.expect);
    EXPECT_TRUE(c.expect_hash.empty());
    c = client(verify({"--hash", "crc32c", "--expect", "--expect", "abcd"}));
    EXPECT_EQ(c.expect_hash, (Bytes{0xab, 0xcd}));
}

TEST_F(XiwperfArgs, VerifyExpectRefusesBadHex)
{
    auto expect = [](std::string_view hex) {
        return verify({"--hash", "sha256", "--expect", hex});
    };
    for (auto bad : {"0x1234", "12 34", "zz", "12g4", "+1", "12:34"})
        EXPECT_TRUE(refused(expect(bad), {"--expect", bad})) << bad;
    EXPECT_TRUE(refused(expect("abc"), {"--expect", "abc"}));
    EXPECT_TRUE(refused(expect("1"), {"--expect", "1"}));
    std::string too_long(2 * XIWPERF_HASH_MAX + 2, '0');
    EXPECT_TRUE(refused(expect(too_long), {"--expect", "65"}));
    // "--expect=" says it has a value, and it is empty
    EXPECT_TRUE(refused(verify({"--hash", "sha256", "--expect="}), {"--expect"}));
    // a word that is no option is its value, not another word
    EXPECT_TRUE(refused(verify({"--hash", "sha256", "--expect", "extra"}), {"--expect", "extra"}));
}

TEST_F(XiwperfArgs, VerifyWithoutWriteNeedsAFixedExpectOrNone)
{
    Client c = client(verify({"--hash", "sha256", "--no-write"}));
    EXPECT_TRUE(c.no_write);
    EXPECT_FALSE(c.expect);
    EXPECT_FALSE(client(verify({"--hash", "sha256"})).no_write);
    c = client(verify({"--no-write", "--hash", "crc32c", "--expect", "0a0b0c0d"}));
    EXPECT_TRUE(c.no_write);
    EXPECT_EQ(c.expect_hash, (Bytes{0x0a, 0x0b, 0x0c, 0x0d}));
    // an option after --expect is not its value
    EXPECT_TRUE(client(verify({"--hash", "crc32c", "--expect", "01", "--no-write"})).no_write);

    const WordList check = {"--op", "verify", "--no-write", "--check", "--expect"};
    EXPECT_TRUE(refused(verify({"--hash", "sha256", "--no-write", "--check"}), check));
    EXPECT_TRUE(refused(verify({"--check", "--hash", "sha256", "--expect", "01", "--no-write"}),
                        check));
    const WordList own = {"--op", "verify", "--no-write", "--expect"};
    EXPECT_TRUE(refused(verify({"--hash", "sha256", "--no-write", "--expect"}), own));
    // the last --expect counts
    EXPECT_TRUE(refused(verify({"--hash", "sha256", "--no-write", "--expect", "01", "--expect"}),
                        own));
}

TEST_F(XiwperfArgs, VerifyOptionsWorkWithVerifyOnly)
{
    for (auto op : {"send", "write", "read", "write_imm"}) {
        for (auto words : {WordList{"--hash", "crc32c"}, WordList{"--hash", "sha256"}})
            EXPECT_TRUE(refused(one_op(op, words), {"--hash", "--op"})) << op;
        for (auto words : {WordList{"--expect"}, WordList{"--expect", "0011"},
                           WordList{"--expect=0011"}})
            EXPECT_TRUE(refused(one_op(op, words), {"--expect", "--op"})) << op;
    }
    for (auto op : {"fetch_add", "atomic_write"})
        EXPECT_TRUE(refused(atomic(op, {"--hash", "crc32c"}), {"--hash", "--op"})) << op;
    EXPECT_TRUE(refused(flush({"--persist", "--expect"}), {"--expect", "--op"}));
    for (auto op : {"send", "write", "read", "write_imm"})
        EXPECT_TRUE(refused(one_op(op, {"--no-write"}), {"--no-write", "--op"})) << op;
    EXPECT_TRUE(refused(flush({"--persist", "--no-write"}), {"--no-write", "--op"}));
    EXPECT_TRUE(refused(atomic("atomic_write", {"--no-write"}), {"--no-write", "--op"}));
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "imm", "--count", "1",
                         "--hash", "sha256"},
                        {"--hash", "--op"}));
    // the Flush's options are not a Verify's
    EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--persist"}), {"--persist", "--op"}));
    EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--whole-mr"}), {"--whole-mr", "--op"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--expect"}, {"--expect"}));
}

TEST_F(XiwperfArgs, VerifyRefusesWhatDoesNotFit)
{
    // the hash algorithm is set on the server's registrations
    const WordList frwr = {"--op", "verify", "--remote-mr", "frwr", "--inject"};
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "verify", "--size", "4K",
                         "--count", "8", "--hash", "crc32c"},
                        frwr));
    EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--remote-mr", "dma"}), frwr));
    // a Write's --size, said
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "verify", "--count", "8",
                         "--remote-mr", "frwr", "--hash", "crc32c"},
                        {"--size"}));
    EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--size", "0"}), {"--size"}));
    EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--size", "5M"}), {"--size"}));
    // no receive at the server, no operand, no immediate value
    EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--solicit", "1"}), {"--solicit", "--op"}));
    EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--srq"}), {"--srq", "--op"}));
    EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--imm", "1"}), {"--imm", "--op"}));
    EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--add", "1"}), {"--add", "--op"}));
    EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--mr", "frwr", "--inline"}),
                        {"--mr", "frwr", "--inline"}));
    EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--qps", "9"}), {"--count", "--qps", "9"}));
}

TEST_F(XiwperfArgs, VerifyTakesOnlyABadKeyAsInjectedFault)
{
    const WordList only = {"--op", "verify", "--inject"};
    for (auto kind : {"bounds", "rights", "invalidated", "dma-invalidate", "wrap", "foreign",
                      "lkey", "unaligned", "cq-overflow"}) {
        EXPECT_TRUE(refused(verify({"--hash", "crc32c", "--qps", "2", "--inject", kind}), only))
            << kind;
        EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "verify", "--size", "4K",
                             "--count", "8", "--hash", "sha256", "--expect", "--inject", kind},
                            only))
            << kind;
    }
    // A bad key needs no fast registrations: it also shows a peer
    // without Verify (siw) refusing the request.
    auto c = client(verify({"--hash", "crc32c", "--inject", "stag"}));
    EXPECT_EQ(c.inject, Inject::stag);
    auto g = client({"client", "--addr", "10.0.0.1", "--op", "verify", "--size", "4K", "--count",
                     "8", "--hash", "sha256", "--inject", "stag"});
    EXPECT_EQ(g.inject, Inject::stag);
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "verify", "--size", "4K",
                         "--count", "8", "--hash", "sha256"},
                        {"--op", "verify", "--remote-mr", "frwr", "--inject"}));
}

TEST_F(XiwperfArgs, CqOverflowNeedsTwoUnsolicitedSendsAndABystander)
{
    WordList ok = {"--solicit", "3", "--depth", "2", "--qps", "2", "--count", "8",
                   "--inject", "cq-overflow"};
    EXPECT_EQ(client(one_op("send", ok)).inject, Inject::cq_overflow);
    const WordList why = {"--inject", "cq-overflow", "--op", "--solicit", "--depth", "--qps",
                          "--srq"};
    EXPECT_TRUE(refused(one_op("send", {"--solicit", "2", "--depth", "2", "--qps", "2",
                                        "--count", "8", "--inject", "cq-overflow"}),
                        why));
    EXPECT_TRUE(refused(one_op("send", {"--solicit", "3", "--depth", "1", "--qps", "2",
                                        "--count", "8", "--inject", "cq-overflow"}),
                        why));
    EXPECT_TRUE(refused(one_op("send", {"--solicit", "3", "--depth", "2", "--qps", "1",
                                        "--count", "8", "--inject", "cq-overflow"}),
                        why));
    EXPECT_TRUE(refused(one_op("send", {"--depth", "2", "--qps", "2", "--inject",
                                        "cq-overflow"}),
                        why));
    EXPECT_TRUE(refused(one_op("write", {"--depth", "2", "--qps", "2", "--inject",
                                         "cq-overflow"}),
                        why));
}

TEST_F(XiwperfArgs, EqualsFormAndShortOptions)
{
    Client c = client({"client", "--addr=10.0.0.1", "--op=send", "-s", "4K", "-n", "10", "-d",
                       "2", "-q", "3", "-c", "-j", "-p", "7"});
    EXPECT_EQ(c.addr.text, "10.0.0.1");
    EXPECT_EQ(c.op, Op::send);
    EXPECT_EQ(c.size, 4096u);
    EXPECT_EQ(c.count, 10u);
    EXPECT_EQ(c.depth, 2u);
    EXPECT_EQ(c.qps, 3u);
    EXPECT_EQ(c.port, 7);
    EXPECT_TRUE(c.check);
    EXPECT_TRUE(c.json);
}

TEST_F(XiwperfArgs, ShortOptionsNameThemselvesInErrors)
{
    EXPECT_TRUE(refused(one_op("read", {"-d", "0"}), {"-d", "0"}));
    EXPECT_TRUE(refused(one_op("read", {"-t", "0"}), {"-t", "0"}));
    // --size, --addr and --op say their long name whichever form was used
    EXPECT_TRUE(refused(one_op("read", {"-s", "0"}), {"--size"}));
    EXPECT_TRUE(refused(one_op("read", {"-o", "x"}), {"--op", "x"}));
    EXPECT_TRUE(refused({"client", "-a", "x"}, {"--addr", "x"}));
}

TEST_F(XiwperfArgs, ClientRequiresAddrOpSizeCount)
{
    EXPECT_TRUE(refused({"client", "--op", "read", "--size", "1", "--count", "1"}, {"--addr"}));
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--size", "1", "--count", "1"}, {"--op"}));
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "read", "--count", "1"},
                        {"--size"}));
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "read", "--size", "1"},
                        {"--count"}));
}

TEST_F(XiwperfArgs, ClientRejectsBadValues)
{
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "atomic", "--size", "1",
                         "--count", "1"},
                        {"--op", "atomic"}));
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "read", "--size", "0",
                         "--count", "1"},
                        {"--size"}));
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "read", "--size", "5M",
                         "--count", "1"},
                        {"--size"}));
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "read", "--size", "1",
                         "--count", "0"},
                        {"--count", "0"}));
    EXPECT_TRUE(refused(one_op("read", {"--depth", "1025"}), {"--depth", "1025"}));
    EXPECT_TRUE(refused(one_op("read", {"--qps", "65"}), {"--qps", "65"}));
    EXPECT_TRUE(refused(one_op("read", {"--port", "65536"}), {"--port", "65536"}));
    EXPECT_TRUE(refused(one_op("read", {"--port", "0"}), {"--port"}));
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "read", "--size", "1",
                         "--count", "1x"},
                        {"--count", "1x"}));
}

TEST_F(XiwperfArgs, ClientCrossChecks)
{
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "read", "--size", "1",
                         "--count", "3", "--qps", "4"},
                        {"--count", "--qps", "4"}));
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "read", "--size", "4M",
                         "--count", "2", "--depth", "256", "--qps", "2"},
                        {"--qps", "--depth", "--size"}));
    EXPECT_TRUE(parse({"client", "--addr", "10.0.0.1", "--op", "read", "--size", "4M",
                       "--count", "1", "--depth", "256"}));
}

TEST_F(XiwperfArgs, OptionWithoutValue)
{
    EXPECT_TRUE(refused({"client", "--addr"}, {"--addr"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--size"}, {"--size"}));
}

TEST_F(XiwperfArgs, UnknownWords)
{
    EXPECT_TRUE(refused({}, {"missing", "command"}));
    EXPECT_TRUE(refused({"serve"}, {"command", "serve"}));
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--bogus"}, {"--bogus"}));
    EXPECT_TRUE(refused({"client", "--bogus=1"}, {"--bogus"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "extra"}, {"extra"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--json=yes"}, {"--json"}));
    EXPECT_TRUE(refused({"client", "--check=1"}, {"--check"}));
}

TEST_F(XiwperfArgs, Server)
{
    auto cmd = parse({"server", "--addr", "0.0.0.0", "--port", "0", "--size", "64M", "--json"});
    ASSERT_TRUE(cmd);
    auto s = std::get<Server>(*cmd);
    EXPECT_EQ(s.addr.family, AF_INET);
    EXPECT_EQ(s.port, 0);
    EXPECT_EQ(s.size, 64u << 20);
    EXPECT_TRUE(s.json);

    cmd = parse({"server", "-a", "10.0.0.1", "-s", "5M", "-p", "9"});
    ASSERT_TRUE(cmd);
    s = std::get<Server>(*cmd);
    EXPECT_EQ(s.port, 9);
    EXPECT_EQ(s.size, 5u << 20);  // beyond a client's --size limit
    EXPECT_FALSE(s.json);

    cmd = parse({"server", "--addr", "10.0.0.1"});
    ASSERT_TRUE(cmd);
    s = std::get<Server>(*cmd);
    EXPECT_EQ(s.port, XIWPERF_DEFAULT_PORT);
    EXPECT_EQ(s.size, 0u);  // the module's default

    EXPECT_TRUE(refused({"server"}, {"--addr"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--size", "2G"}, {"--size"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--size", "0"}, {"--size"}));
    for (auto opt : {"--op", "--count", "--depth", "--qps", "--timeout", "--check", "--inline"})
        EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", opt, "1"}, {opt})) << opt;
}

TEST_F(XiwperfArgs, ServerHash)
{
    auto cmd = parse({"server", "--addr", "10.0.0.1"});
    ASSERT_TRUE(cmd);
    EXPECT_EQ(std::get<Server>(*cmd).hash, xiwperf::Hash::none);  // each run's own
    cmd = parse({"server", "--addr", "10.0.0.1", "--hash", "sha256", "--json"});
    ASSERT_TRUE(cmd);
    EXPECT_EQ(std::get<Server>(*cmd).hash, xiwperf::Hash::sha256);
    cmd = parse({"server", "--hash", "crc32c", "--addr", "10.0.0.1"});
    ASSERT_TRUE(cmd);
    EXPECT_EQ(std::get<Server>(*cmd).hash, xiwperf::Hash::crc32c);
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--hash", "md5"}, {"--hash", "md5"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--hash"}, {"--hash"}));
    EXPECT_NE(xiwperf::usage().find("[--hash {crc32c,sha256}]"), std::string::npos);
}

TEST_F(XiwperfArgs, ServerBacking)
{
    using xiwperf::Backing;
    auto cmd = parse({"server", "--addr", "10.0.0.1", "--backing", "file:/var/tmp/xiwperf.buf"});
    ASSERT_TRUE(cmd) << cmd.error().context;
    auto s = std::get<Server>(*cmd);
    EXPECT_EQ(s.backing.kind, Backing::Kind::file);
    EXPECT_EQ(s.backing.path, "/var/tmp/xiwperf.buf");
    EXPECT_EQ(xiwperf::backing_text(s.backing), "file:/var/tmp/xiwperf.buf");
    EXPECT_EQ(s.size, 0u);

    cmd = parse({"server", "--addr", "10.0.0.1", "--size", "8M", "--backing=pmem:/dev/dax0.0"});
    ASSERT_TRUE(cmd) << cmd.error().context;
    s = std::get<Server>(*cmd);
    EXPECT_EQ(s.backing.kind, Backing::Kind::pmem);
    EXPECT_EQ(s.backing.path, "/dev/dax0.0");
    EXPECT_EQ(xiwperf::backing_text(s.backing), "pmem:/dev/dax0.0");
    EXPECT_EQ(s.size, 8u << 20);

    // PATH is all after the first colon, relative or holding colons; the
    // last --backing counts.
    cmd = parse({"server", "--addr", "10.0.0.1", "--backing", "pmem:/dev/dax0.0", "--backing",
                 "file:buf:1"});
    ASSERT_TRUE(cmd) << cmd.error().context;
    s = std::get<Server>(*cmd);
    EXPECT_EQ(s.backing, (Backing{Backing::Kind::file, "buf:1"}));

    // without it: kernel memory
    cmd = parse({"server", "--addr", "10.0.0.1"});
    ASSERT_TRUE(cmd);
    s = std::get<Server>(*cmd);
    EXPECT_EQ(s.backing.kind, Backing::Kind::none);
    EXPECT_EQ(s.backing.path, "");
    EXPECT_EQ(xiwperf::backing_text(s.backing), "");
}

TEST_F(XiwperfArgs, ServerBackingRefusesWhatIsNoKindAndPath)
{
    for (auto bad : {"x:y", "/tmp/buf", "file", "pmem", "FILE:/tmp/buf", "dax:/dev/dax0.0",
                     ":/tmp/buf", ""})
        EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--backing", bad}, {"--backing", bad}))
            << bad;
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--backing", "file:"},
                        {"--backing", "file:"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--backing=pmem:"},
                        {"--backing", "pmem:"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--backing"}, {"--backing"}));
    // a server option only
    EXPECT_TRUE(refused(one_op("write", {"--backing", "file:/tmp/buf"}), {"--backing"}));
    EXPECT_TRUE(refused(one_op("flush", {"--persist", "--backing=pmem:/dev/dax0.0"}),
                        {"--backing"}));
}

TEST_F(XiwperfArgs, Help)
{
    for (auto words : {WordList{"help"}, WordList{"--help"}, WordList{"-h"},
                       WordList{"client", "--help"}, WordList{"server", "-h"},
                       WordList{"client", "--addr", "10.0.0.1", "--help", "--bogus"}}) {
        auto cmd = parse(words);
        ASSERT_TRUE(cmd);
        EXPECT_TRUE(std::holds_alternative<xiwperf::Help>(*cmd));
    }
    EXPECT_TRUE(refused({"client", "--bogus", "--help"}, {"--bogus"}));
    EXPECT_NE(xiwperf::usage().find("xiwperf client --addr IP"), std::string::npos);
    EXPECT_NE(xiwperf::usage().find("xiwperf(1)"), std::string::npos);
}

// The usage is a synopsis; the man page says what each option does. Both
// name every operation, every fault and every option the parser takes.
TEST_F(XiwperfArgs, UsageAndManPageNameEveryOptionOperationAndFault)
{
    std::ifstream f(XIWPERF_MAN_PAGE);
    ASSERT_TRUE(f) << XIWPERF_MAN_PAGE;
    std::string man((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    // roff escapes the hyphens of option names: \-\-name, dma\-invalidate.
    auto in_man = [&man](std::string_view word) {
        std::string roff;
        for (char c : word)
            roff += c == '-' ? std::string("\\-") : std::string(1, c);
        return man.find(roff) != std::string::npos;
    };
    std::string usage = xiwperf::usage();
    std::vector<std::string> words;
    for (auto op : {Op::send, Op::write, Op::read, Op::fetch_add, Op::cmp_swap,
                    Op::masked_fetch_add, Op::masked_cmp_swap, Op::write_imm, Op::imm,
                    Op::atomic_write, Op::flush, Op::verify})
        words.emplace_back(xiwperf::op_name(op));
    for (auto k : {Inject::stag, Inject::bounds, Inject::rights, Inject::invalidated,
                   Inject::dma_invalidate, Inject::wrap, Inject::foreign, Inject::lkey,
                   Inject::unaligned, Inject::cq_overflow})
        words.emplace_back(xiwperf::inject_name(k));
    // Every option, each one known to some command (an unknown one is
    // "unknown option"), so the list is checked against the parser too.
    for (std::string_view opt :
         {"--addr", "--port", "--json", "--help", "--size", "--backing", "--hash", "--op",
          "--count", "--depth", "--qps", "--timeout", "--hold", "--sge", "--solicit", "--inline",
          "--mr", "--remote-mr", "--inject", "--srq", "--idle", "--persist", "--global",
          "--range", "--whole-mr", "--expect", "--no-write", "--add", "--compare", "--swap",
          "--mask", "--imm", "--compare-mask", "--check"}) {
        bool known = false;
        for (std::string_view cmd : {"server", "client", "probe"}) {
            auto r = parse(Words{cmd, opt});
            known |= r || r.error().context.find("unknown option") == std::string::npos;
        }
        EXPECT_TRUE(known) << opt << ": no command takes it";
        words.emplace_back(opt);
    }
    for (const auto& w : words) {
        EXPECT_NE(usage.find(w), std::string::npos) << w << " not in the usage";
        EXPECT_TRUE(in_man(w)) << w << " not in xiwperf.1";
    }
}

TEST_F(XiwperfArgs, Sizes)
{
    EXPECT_EQ(*xiwperf::parse_size("1"), 1u);
    EXPECT_EQ(*xiwperf::parse_size("4096"), 4096u);
    EXPECT_EQ(*xiwperf::parse_size("4k"), 4096u);
    EXPECT_EQ(*xiwperf::parse_size("4KiB"), 4096u);
    EXPECT_EQ(*xiwperf::parse_size("64K"), 65536u);
    EXPECT_EQ(*xiwperf::parse_size("1M"), 1u << 20);
    EXPECT_EQ(*xiwperf::parse_size("1mib"), 1u << 20);
    EXPECT_EQ(*xiwperf::parse_size("1G"), 1u << 30);
    EXPECT_FALSE(xiwperf::parse_size(""));
    EXPECT_FALSE(xiwperf::parse_size("K"));
    EXPECT_FALSE(xiwperf::parse_size("4KB"));
    EXPECT_FALSE(xiwperf::parse_size("-1"));
    EXPECT_FALSE(xiwperf::parse_size("1.5M"));
    EXPECT_FALSE(xiwperf::parse_size("99999999999999999999"));
    EXPECT_FALSE(xiwperf::parse_size("17179869184G"));  // overflows 64 bits
}

TEST_F(XiwperfArgs, Addresses)
{
    auto v4 = xiwperf::parse_address("192.0.2.1");
    ASSERT_TRUE(v4);
    EXPECT_EQ(v4->family, AF_INET);
    in_addr a4{};
    inet_pton(AF_INET, "192.0.2.1", &a4);
    EXPECT_EQ(0, std::memcmp(v4->bytes.data(), &a4, 4));

    auto v6 = xiwperf::parse_address("fe80::1%7");
    ASSERT_TRUE(v6);
    EXPECT_EQ(v6->family, AF_INET6);
    EXPECT_EQ(v6->scope_id, 7u);
    EXPECT_EQ(v6->bytes[0], 0xfe);
    EXPECT_EQ(v6->bytes[15], 1);

    auto lo6 = xiwperf::parse_address("::1");
    ASSERT_TRUE(lo6);
    EXPECT_EQ(lo6->scope_id, 0u);

    EXPECT_FALSE(xiwperf::parse_address("host.example"));
    EXPECT_FALSE(xiwperf::parse_address("10.0.0.1%3"));
    EXPECT_FALSE(xiwperf::parse_address("fe80::1%no-such-interface0"));
    EXPECT_FALSE(xiwperf::parse_address("10.0.0.256"));
}

namespace {

// "client --addr 10.0.0.1 --op imm --count 8", then @extra.
Words imm_op(WordList extra = {})
{
    Words w{"client", "--addr", "10.0.0.1", "--op", "imm", "--count", "8"};
    w.insert(w.end(), extra);
    return w;
}

}  // namespace

TEST_F(XiwperfArgs, ImmediateDataOperations)
{
    Client w = client(one_op("write_imm", {"--size", "4K"}));
    EXPECT_EQ(w.op, Op::write_imm);
    EXPECT_EQ(w.size, 4096u);
    EXPECT_FALSE(w.imm);  // default: each operation's sequence number
    EXPECT_EQ(xiwperf::op_name(Op::write_imm), "write_imm");
    EXPECT_EQ(xiwperf::op_name(Op::imm), "imm");
    EXPECT_EQ(static_cast<int>(Op::write_imm), XIWPERF_OP_WRITE_IMM);
    EXPECT_EQ(static_cast<int>(Op::imm), XIWPERF_OP_IMM);

    // imm: no payload, --size 0 or omitted
    Client i = client(imm_op());
    EXPECT_EQ(i.op, Op::imm);
    EXPECT_EQ(i.size, 0u);
    EXPECT_FALSE(i.imm);
    EXPECT_EQ(client(imm_op({"--size", "0"})).size, 0u);
    for (auto size : {"1", "4K"})
        EXPECT_TRUE(refused(imm_op({"--size", size}), {"--op", "imm", "--size"})) << size;
    // --size 0 is for imm only; write_imm needs a size
    for (auto op : {"write_imm", "write", "send", "read"})
        EXPECT_TRUE(refused(one_op(op, {"--size", "0"}), {"--size"})) << op;
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "write_imm", "--count", "1"},
                        {"--size"}));
}

TEST_F(XiwperfArgs, ImmValue)
{
    EXPECT_EQ(client(imm_op({"--imm", "0"})).imm, 0u);
    EXPECT_EQ(client(imm_op({"--imm", "42"})).imm, 42u);
    EXPECT_EQ(client(imm_op({"--imm=0xdeadbeef"})).imm, 0xdeadbeefu);
    EXPECT_EQ(client(one_op("write_imm", {"--imm", "4294967295"})).imm, 4294967295u);
    EXPECT_TRUE(refused(imm_op({"--imm", "4294967296"}), {"--imm", "4294967296"}));
    EXPECT_TRUE(refused(imm_op({"--imm", "0x100000000"}), {"--imm", "0x100000000"}));
    EXPECT_TRUE(refused(imm_op({"--imm", "x"}), {"--imm", "x"}));
    EXPECT_TRUE(refused(imm_op({"--imm", "-1"}), {"--imm", "-1"}));
    EXPECT_TRUE(refused(imm_op({"--imm"}), {"--imm"}));
    for (auto op : {"send", "write", "read"})
        EXPECT_TRUE(refused(one_op(op, {"--imm", "1"}), {"--imm", "--op"})) << op;
    EXPECT_TRUE(refused({"client", "--addr", "10.0.0.1", "--op", "fetch_add", "--count", "1",
                         "--remote-mr", "frwr", "--imm", "1"},
                        {"--imm", "--op"}));
    EXPECT_TRUE(refused({"server", "--addr", "10.0.0.1", "--imm", "1"}, {"--imm"}));
}

TEST_F(XiwperfArgs, ImmediateDataOptions)
{
    // what write_imm shares with write and send
    Client w = client(one_op("write_imm", {"--count", "64", "--check", "--qps", "2", "--depth",
                                           "8", "--solicit", "3", "--inline", "--sge", "2"}));
    EXPECT_TRUE(w.check);
    EXPECT_EQ(w.solicit, 3u);
    EXPECT_TRUE(w.inline_data);
    EXPECT_EQ(w.sge, 2u);
    Client f = client(one_op("write_imm", {"--mr", "frwr", "--remote-mr", "frwr"}));
    EXPECT_EQ(f.mr, Mr::frwr);
    EXPECT_EQ(f.remote_mr, Mr::frwr);
    EXPECT_TRUE(client(one_op("write_imm", {"--srq"})).srq);
    EXPECT_TRUE(refused(one_op("write_imm", {"--srq", "--check"}),
                        {"--op", "write_imm", "--check", "--srq"}));
    EXPECT_TRUE(refused(one_op("write_imm", {"--srq", "--solicit", "2"}), {"--srq", "--solicit"}));

    // imm
    Client i = client(imm_op({"--check", "--solicit", "1", "--imm", "7"}));
    EXPECT_TRUE(i.check);
    EXPECT_EQ(i.solicit, 1u);
    Client s = client(imm_op({"--srq", "--qps", "4", "--check"}));
    EXPECT_TRUE(s.srq);
    EXPECT_EQ(s.qps, 4u);
    EXPECT_TRUE(refused(imm_op({"--inline"}), {"--op", "imm", "--inline"}));
    EXPECT_TRUE(refused(imm_op({"--sge", "2"}), {"--op", "imm", "--sge"}));
    EXPECT_TRUE(refused(imm_op({"--mr", "frwr"}), {"--op", "imm", "--mr", "frwr"}));
    EXPECT_TRUE(refused(imm_op({"--remote-mr", "frwr"}), {"--op", "imm", "--remote-mr", "frwr"}));

    // no injected faults
    EXPECT_TRUE(refused(one_op("write_imm", {"--inject", "stag"}),
                        {"--op", "write_imm", "--inject"}));
    EXPECT_TRUE(refused(imm_op({"--inject", "lkey"}), {"--op", "imm", "--inject"}));
    EXPECT_TRUE(refused(imm_op({"--qps", "9"}), {"--count", "--qps", "9"}));
}
