// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>

#include "atomic.hpp"
#include "has_word.hpp"
#include "report.hpp"

namespace {

using namespace xiwperf;
using xiw::test::has_word;

class XiwperfReport : public ::testing::Test {
protected:
    // 1000 operations of 64 KiB over 2 QPs at depth 16, to 10.1.0.1:9000.
    static Client args(Op op = Op::write, bool check = true)
    {
        Client c;
        c.addr = *parse_address("10.1.0.1");
        c.port = 9000;
        c.op = op;
        c.size = 65536;
        c.count = 1000;
        c.depth = 16;
        c.qps = 2;
        c.check = check;
        return c;
    }

    // A run of args() on siw0 that took 2 s and moved good data.
    static Outcome good()
    {
        Outcome o;
        o.has_result = true;
        std::strcpy(o.result.device, "siw0");
        o.result.completed = 1000;
        o.result.bytes = 1000 * 65536ULL;
        o.result.nsec = 2'000'000'000;  // 2 s
        o.result.lat_min_ns = 1'000;
        o.result.lat_p50_ns = 2'500;
        o.result.lat_p99_ns = 9'000;
        o.result.lat_max_ns = 12'000;
        o.result.lat_mean_ns = 3'000;
        o.result.checked = 1;
        o.result.data_ok = 1;
        o.result.depth = 16;
        return o;
    }

    // An ioctl that failed with @err and a result giving @reason.
    static Outcome failed(int err, std::uint32_t reason)
    {
        Outcome o;
        o.error = err;
        o.has_result = true;
        o.result.reason = reason;
        return o;
    }

    // The "error" member of the JSON of @o.
    static std::string json_error(const Client& a, const Outcome& o)
    {
        return to_json(a, o)["error"].get<std::string>();
    }

    // Whether @message says something, and each of @facts: the endpoint,
    // the device, the numbers, the status or errno text, the reason's key word.
    static ::testing::AssertionResult says(const std::string& message,
                                           std::initializer_list<std::string_view> facts)
    {
        if (message.empty())
            return ::testing::AssertionFailure() << "no message";
        for (auto fact : facts)
            if (fact.empty() || !has_word(message, fact))
                return ::testing::AssertionFailure()
                       << '"' << message << "\" does not say \"" << fact << '"';
        return ::testing::AssertionSuccess() << '"' << message << '"';
    }

    // Whether the run of @a with outcome @o failed (exit_failed) and its
    // error_message() says each of @facts.
    static ::testing::AssertionResult fails(const Client& a, const Outcome& o,
                                            std::initializer_list<std::string_view> facts)
    {
        if (int status = exit_status(a, o); status != exit_failed)
            return ::testing::AssertionFailure() << "exit status " << status << ", not "
                                                 << exit_failed;
        return says(error_message(a, o), facts);
    }
};

}  // namespace

TEST_F(XiwperfReport, JsonHasEveryField)
{
    auto j = to_json(args(), good());
    EXPECT_EQ(j["device"], "siw0");
    EXPECT_EQ(j["op"], "write");
    EXPECT_EQ(j["size"], 65536);
    EXPECT_EQ(j["count"], 1000);
    EXPECT_EQ(j["qps"], 2);
    EXPECT_EQ(j["depth"], 16);
    EXPECT_EQ(j["sge"], 1);
    EXPECT_EQ(j["inline"], false);
    EXPECT_EQ(j["completed"], 1000);
    EXPECT_EQ(j["errors"], 0);
    EXPECT_EQ(j["mismatches"], 0);
    EXPECT_EQ(j["flushed"], 0);
    EXPECT_EQ(j["wc_unexpected"], 0);
    EXPECT_EQ(j["wc_missing"], 0);
    EXPECT_EQ(j["data_ok"], true);
    EXPECT_DOUBLE_EQ(j["seconds"].get<double>(), 2.0);
    EXPECT_EQ(j["bytes"], 65536000);
    // 65.536 MB in 2 s = 262.144 Mbit/s; 1000 ops in 2 s = 0.0005 Mop/s
    EXPECT_DOUBLE_EQ(j["gbit_per_s"].get<double>(), 0.262144);
    EXPECT_DOUBLE_EQ(j["mops"].get<double>(), 0.0005);
    EXPECT_DOUBLE_EQ(j["lat_us"]["p50"].get<double>(), 2.5);
    EXPECT_DOUBLE_EQ(j["lat_us"]["p99"].get<double>(), 9.0);
    EXPECT_DOUBLE_EQ(j["lat_us"]["max"].get<double>(), 12.0);
    EXPECT_DOUBLE_EQ(j["lat_us"]["min"].get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(j["lat_us"]["mean"].get<double>(), 3.0);
    EXPECT_FALSE(j.contains("error"));
    EXPECT_EQ(exit_status(args(), good()), exit_ok);
}

TEST_F(XiwperfReport, DataOkIsNullWithoutCheck)
{
    Outcome o = good();
    o.result.checked = 0;
    o.result.data_ok = 0;
    auto j = to_json(args(Op::read, false), o);
    EXPECT_TRUE(j["data_ok"].is_null());
    EXPECT_EQ(exit_status(args(Op::read, false), o), exit_ok);
}

TEST_F(XiwperfReport, MismatchIsExitThreeWithMessage)
{
    Outcome o = good();
    o.result.data_ok = 0;
    o.result.mismatches = 3;
    o.result.first_bad_qp = 1;
    o.result.first_bad_seq = 17;
    o.result.first_bad_offset = 5;
    EXPECT_EQ(exit_status(args(), o), exit_mismatch);
    EXPECT_TRUE(says(mismatch_message(args(), o.result),
                     {"mismatch", "3", "1000", "1", "17", "5"}));
    EXPECT_NE(mismatch_message(args(Op::read), o.result).find("read pattern"),
              std::string::npos);
    auto j = to_json(args(), o);
    EXPECT_EQ(j["data_ok"], false);
    EXPECT_EQ(j["error"], mismatch_message(args(), o.result));
}

TEST_F(XiwperfReport, ErrorsOrShortRunFail)
{
    Outcome o = good();
    o.result.errors = 1;
    EXPECT_EQ(exit_status(args(), o), exit_failed);
    o = good();
    o.result.completed = 999;
    EXPECT_EQ(exit_status(args(), o), exit_failed);
}

TEST_F(XiwperfReport, BrokenCompletionSemanticsFail)
{
    Outcome o = good();
    o.result.wc_unexpected = 2;
    EXPECT_EQ(exit_status(args(), o), exit_failed);
    auto j = to_json(args(), o);
    EXPECT_EQ(j["wc_unexpected"], 2);
    EXPECT_NE(json_error(args(), o).find("2 completions for work requests not outstanding"),
              std::string::npos);
    o = good();
    o.result.wc_missing = 1;
    EXPECT_EQ(exit_status(args(), o), exit_failed);
    EXPECT_NE(json_error(args(), o).find("1 work requests never completed"), std::string::npos);
}

TEST_F(XiwperfReport, FailedIoctlMessages)
{
    Client a = args();
    Outcome o = failed(ECONNREFUSED, XIWPERF_REASON_REFUSED);
    EXPECT_TRUE(fails(a, o, {"10.1.0.1:9000", "refused"}));
    EXPECT_EQ(exit_status(a, o), exit_failed);
    auto j = to_json(a, o);
    EXPECT_EQ(j["error"], error_message(a, o));
    EXPECT_TRUE(j["data_ok"].is_null());
    EXPECT_EQ(j["completed"], 0);
    EXPECT_DOUBLE_EQ(j["gbit_per_s"].get<double>(), 0.0);

    o.result.reason = XIWPERF_REASON_REJECTED;
    o.result.remote_reason = XIWPERF_REJECT_RESOURCES;
    EXPECT_TRUE(fails(a, o, {"10.1.0.1:9000", "rejected", "resources"}));

    o.error = EIO;
    o.result.reason = XIWPERF_REASON_WC;
    o.result.wc_status = 5;
    o.result.completed = 12;
    EXPECT_TRUE(fails(a, o, {"WR_FLUSH_ERR", "12"}));

    o.error = ETIMEDOUT;
    o.result.reason = XIWPERF_REASON_TIMEOUT;
    EXPECT_TRUE(fails(a, o, {"no progress", "15"}));
    a.timeout_ms = 2500;
    EXPECT_TRUE(fails(a, o, {"no progress", "2.5"}));

    o.error = EMSGSIZE;
    o.result.reason = XIWPERF_REASON_REMOTE_TOO_SMALL;
    o.result.remote_size = 1 << 20;
    o.result.regions = 16;
    EXPECT_TRUE(fails(a, o, {"1048576", "16", "65536", "write", "--check", "32", "--size"}));
    o.result.regions = 0;
    EXPECT_TRUE(fails(a, o, {"1048576", "smaller", "--size"}));

    o.error = ENOENT;
    o.result.reason = XIWPERF_REASON_ADDR;
    o.result.cm_status = -ENOENT;
    EXPECT_TRUE(fails(a, o, {"10.1.0.1", "resolve", std::strerror(ENOENT)}));

    o.error = ETIMEDOUT;
    o.result.cm_status = -ETIMEDOUT;
    EXPECT_TRUE(fails(a, o, {"10.1.0.1", "resolve", "neighbour"}));

    o.error = EINTR;
    o.result.reason = XIWPERF_REASON_INTERRUPTED;
    o.result.completed = 7;
    EXPECT_TRUE(fails(a, o, {"interrupted", "7"}));
}

TEST_F(XiwperfReport, IoctlWithoutResult)
{
    Outcome o;
    o.error = EINVAL;
    EXPECT_TRUE(fails(args(), o, {"failed", std::strerror(EINVAL)}));
    EXPECT_EQ(exit_status(args(), o), exit_failed);
}

TEST_F(XiwperfReport, WcStatusNames)
{
    EXPECT_EQ(wc_status_name(0), "SUCCESS");
    EXPECT_EQ(wc_status_name(12), "RETRY_EXC_ERR");
    EXPECT_EQ(wc_status_name(21), "GENERAL_ERR");
    EXPECT_EQ(wc_status_name(99), "status 99");
}

TEST_F(XiwperfReport, Text)
{
    std::string t = to_text(args(), good());
    EXPECT_EQ(t,
              "write 65536 B x 1000 on siw0, 2 QPs, depth 16: 1000 completed, 0 errors, data ok\n"
              "2.000 s, 0.262 Gbit/s, 0.0005 Mop/s, latency us p50 2.5 p99 9.0 max 12.0\n");
}

TEST_F(XiwperfReport, SgeAndInlineInJsonAndText)
{
    Client a = args(Op::send);
    a.sge = 4;
    a.inline_data = true;
    auto j = to_json(a, good());
    EXPECT_EQ(j["sge"], 4);
    EXPECT_EQ(j["inline"], true);
    EXPECT_EQ(to_text(a, good()),
              "send 65536 B x 1000 on siw0, 2 QPs, depth 16, 4 SGEs, inline: 1000 completed, "
              "0 errors, data ok\n"
              "2.000 s, 0.262 Gbit/s, 0.0005 Mop/s, latency us p50 2.5 p99 9.0 max 12.0\n");
    a.sge = 1;
    a.inline_data = false;
    EXPECT_EQ(to_text(a, good()).substr(0, 47),
              "send 65536 B x 1000 on siw0, 2 QPs, depth 16: 1");
}

TEST_F(XiwperfReport, UnsupportedMessages)
{
    Outcome o = failed(EOPNOTSUPP, XIWPERF_REASON_UNSUPPORTED);
    std::strcpy(o.result.device, "xiw0");
    o.result.unsupported = XIWPERF_UNSUPPORTED_SGE;
    o.result.limit = 1;

    Client a = args(Op::read);
    a.sge = 2;
    EXPECT_TRUE(fails(a, o, {"xiw0", "2", "SGEs", "Read", "max_sge_rd", "1"}));
    EXPECT_EQ(exit_status(a, o), exit_failed);
    auto j = to_json(a, o);
    EXPECT_EQ(j["error"], error_message(a, o));
    EXPECT_TRUE(j["data_ok"].is_null());

    // a buffer shorter than --sge uses one SGE per byte
    a.size = 3;
    a.sge = 4;
    EXPECT_TRUE(fails(a, o, {"xiw0", "3", "SGEs", "Read", "max_sge_rd", "1"}));

    a = args(Op::write);
    a.sge = 4;
    o.result.limit = 3;
    EXPECT_TRUE(fails(a, o, {"xiw0", "4", "SGEs", "Write", "max_send_sge", "3"}));
    a.op = Op::send;
    EXPECT_TRUE(fails(a, o, {"xiw0", "4", "SGEs", "Send", "max_send_sge", "3"}));

    o.result.unsupported = XIWPERF_UNSUPPORTED_RECV_SGE;
    o.result.remote_reason = XIWPERF_REJECT_UNSUPPORTED;
    o.result.limit = 2;
    EXPECT_TRUE(fails(a, o,
                      {"10.1.0.1:9000", "rejected", "4", "SGEs", "receive", "max_recv_sge", "2"}));

    a = args(Op::send);
    a.inline_data = true;
    a.size = 300;
    o.error = EINVAL;
    o.result.unsupported = XIWPERF_UNSUPPORTED_INLINE;
    o.result.limit = 0;
    EXPECT_TRUE(fails(a, o, {"xiw0", "300", "inline", std::strerror(EINVAL)}));
    o.error = EOPNOTSUPP;
    o.result.limit = 256;
    EXPECT_TRUE(fails(a, o, {"xiw0", "300", "inline", "256"}));
    a.size = 1;
    EXPECT_TRUE(fails(a, o, {"xiw0", "1 byte", "inline", "256"}));

    std::memset(o.result.device, 0, sizeof(o.result.device));
    o.result.unsupported = 99;
    EXPECT_TRUE(fails(a, o, {"device", "not support"}));
}

TEST_F(XiwperfReport, RejectedAsUnsupported)
{
    Outcome o = failed(ECONNREFUSED, XIWPERF_REASON_REJECTED);
    o.result.remote_reason = XIWPERF_REJECT_UNSUPPORTED;
    EXPECT_TRUE(fails(args(), o, {"10.1.0.1:9000", "rejected", "not support"}));
}

TEST_F(XiwperfReport, MrInjectAndWcStatusAlwaysInJson)
{
    auto j = to_json(args(), good());
    EXPECT_EQ(j["mr"], "dma");
    EXPECT_EQ(j["remote_mr"], "dma");
    EXPECT_EQ(j["registrations"], 0);
    EXPECT_TRUE(j["inject"].is_null());
    EXPECT_TRUE(j["wc_status"].is_null());
    EXPECT_FALSE(j.contains("srq"));
}

TEST_F(XiwperfReport, FrwrReportsRegistrations)
{
    Client a = args(Op::read);
    a.mr = Mr::frwr;
    a.remote_mr = Mr::frwr;
    Outcome o = good();
    o.registrations = 1000;
    auto j = to_json(a, o);
    EXPECT_EQ(j["mr"], "frwr");
    EXPECT_EQ(j["remote_mr"], "frwr");
    EXPECT_EQ(j["registrations"], 1000);
    EXPECT_FALSE(j.contains("error"));
    EXPECT_EQ(exit_status(a, o), exit_ok);
    EXPECT_EQ(to_text(a, o),
              "read 65536 B x 1000 on siw0, 2 QPs, depth 16, mr frwr, remote mr frwr: 1000 "
              "completed, 0 errors, data ok\n"
              "2.000 s, 0.262 Gbit/s, 0.0005 Mop/s, latency us p50 2.5 p99 9.0 max 12.0\n"
              "1000 fast registrations\n");
    o.registrations = 1;
    EXPECT_NE(to_text(a, o).find("\n1 fast registration\n"), std::string::npos);
}

TEST_F(XiwperfReport, InjectedFaultReportsTheFailedCompletion)
{
    Client a = args(Op::write);
    a.remote_mr = Mr::frwr;
    a.inject = Inject::bounds;
    Outcome o = failed(EIO, XIWPERF_REASON_WC);
    o.result.wc_status = 5;
    o.result.completed = 1;
    o.result.errors = 1;
    o.result.flushed = 1;
    auto j = to_json(a, o);
    EXPECT_EQ(j["inject"], "bounds");
    EXPECT_EQ(j["wc_status"], "WR_FLUSH_ERR");
    EXPECT_TRUE(says(json_error(a, o), {"WR_FLUSH_ERR", "1"}));
    EXPECT_EQ(exit_status(a, o), exit_failed);
    EXPECT_NE(to_text(a, o).find(", remote mr frwr, inject bounds: 1 completed, 1 errors"),
              std::string::npos);

    // Seen disconnected first: the failed completion is still there.
    a.inject = Inject::dma_invalidate;
    o.result.reason = XIWPERF_REASON_DISCONNECTED;
    o.error = ECONNRESET;
    j = to_json(a, o);
    EXPECT_EQ(j["inject"], "dma-invalidate");
    EXPECT_EQ(j["wc_status"], "WR_FLUSH_ERR");
    EXPECT_TRUE(says(json_error(a, o), {"disconnected", "1"}));
    EXPECT_EQ(exit_status(a, o), exit_failed);
}

TEST_F(XiwperfReport, SrqFiguresOnlyWithSrq)
{
    Client a = args(Op::send);
    Outcome o = good();
    o.srq_arms = 9;
    o.srq_crossed = 8;
    o.srq_limit_events = 8;
    o.result.srq_stray_events = 0;
    EXPECT_FALSE(to_json(a, o).contains("srq_arms"));
    EXPECT_EQ(to_text(a, o), to_text(a, good()));

    a.srq = true;
    auto j = to_json(a, o);
    EXPECT_EQ(j["srq"], true);
    EXPECT_EQ(j["srq_arms"], 9);
    EXPECT_EQ(j["srq_crossed"], 8);
    EXPECT_EQ(j["srq_limit_events"], 8);
    EXPECT_EQ(j["srq_stray_events"], 0);
    EXPECT_EQ(to_text(a, o),
              "send 65536 B x 1000 on siw0, 2 QPs, depth 16, srq: 1000 completed, 0 errors, "
              "data ok\n"
              "2.000 s, 0.262 Gbit/s, 0.0005 Mop/s, latency us p50 2.5 p99 9.0 max 12.0\n"
              "SRQ limit: 9 arms, 8 crossed, 8 limit events, 0 stray\n");
}

TEST_F(XiwperfReport, FrwrAndSrqUnsupportedMessages)
{
    Outcome o = failed(EOPNOTSUPP, XIWPERF_REASON_UNSUPPORTED);
    std::strcpy(o.result.device, "rxe0");
    o.result.unsupported = XIWPERF_UNSUPPORTED_FRWR;
    o.result.limit = 512;
    Client a = args(Op::write);
    a.mr = Mr::frwr;
    a.size = 4 << 20;
    EXPECT_TRUE(fails(a, o,
                      {"rxe0", "4194304", "fast registration", "max_fast_reg_page_list_len",
                       "512"}));
    o.result.unsupported = XIWPERF_UNSUPPORTED_REMOTE_FRWR;
    o.result.limit = 0;
    EXPECT_TRUE(fails(a, o,
                      {"10.1.0.1:9000", "rejected", "fast registration",
                       "max_fast_reg_page_list_len", "0"}));
    o.result.unsupported = XIWPERF_UNSUPPORTED_SRQ;
    EXPECT_TRUE(fails(args(Op::send), o, {"10.1.0.1:9000", "rejected", "max_srq_wr", "0"}));
}

TEST_F(XiwperfReport, SolicitOnlyWhenAsked)
{
    Client a = args(Op::send);
    Outcome o = good();
    o.result.solicited = 250;
    o.result.notifications = 40;
    o.result.first_batch = 3;
    auto j = to_json(a, o);
    for (auto key : {"solicit", "solicited", "notifications", "first_batch"})
        EXPECT_FALSE(j.contains(key)) << key;
    EXPECT_EQ(to_text(a, o), to_text(a, good()));

    a.solicit = 4;
    j = to_json(a, o);
    EXPECT_EQ(j["solicit"], 4);
    EXPECT_EQ(j["solicited"], 250);
    EXPECT_EQ(j["notifications"], 40);
    EXPECT_EQ(j["first_batch"], 3);
    EXPECT_EQ(j["completed"], 1000);  // the rest unchanged
    EXPECT_FALSE(j.contains("error"));
    EXPECT_EQ(to_text(a, o),
              "send 65536 B x 1000 on siw0, 2 QPs, depth 16, solicit every 4: 1000 completed, "
              "0 errors, data ok\n"
              "2.000 s, 0.262 Gbit/s, 0.0005 Mop/s, latency us p50 2.5 p99 9.0 max 12.0\n"
              "250 solicited Sends, 40 server notifications, first wake-up processed 3 "
              "messages\n");
    o.result.solicited = 1;
    o.result.notifications = 1;
    o.result.first_batch = 1;
    EXPECT_NE(to_text(a, o).find("\n1 solicited Send, 1 server notification, first wake-up "
                                 "processed 1 message\n"),
              std::string::npos);
    EXPECT_EQ(exit_status(a, o), exit_ok);
}

TEST_F(XiwperfReport, SolicitFieldsOnFailure)
{
    Client a = args(Op::send);
    a.solicit = 1;
    Outcome o = failed(ETIMEDOUT, XIWPERF_REASON_TIMEOUT);
    o.result.solicited = 5;
    auto j = to_json(a, o);
    EXPECT_TRUE(says(json_error(a, o), {"no progress", "15"}));
    EXPECT_EQ(j["solicited"], 5);
    EXPECT_EQ(j["notifications"], 0);
    EXPECT_EQ(j["first_batch"], 0);
}

namespace {

// An atomic run of 1000 operations over 2 QPs at depth 16, with --check.
Client atomic_args(Op op = Op::fetch_add)
{
    Client c;
    c.addr = *parse_address("10.1.0.1");
    c.port = 9000;
    c.op = op;
    c.size = 8;
    c.count = 1000;
    c.depth = 16;
    c.qps = 2;
    c.remote_mr = Mr::frwr;
    c.check = true;
    return c;
}

// Its outcome on rxe0: the word went from @init to what 1000 adds of 1 give.
Outcome atomic_good(std::uint64_t init = 5)
{
    Outcome o;
    o.has_result = true;
    std::strcpy(o.result.device, "rxe0");
    o.result.completed = 1000;
    o.result.bytes = 8000;
    o.result.nsec = 1'000'000'000;
    o.result.lat_p50_ns = 2'000;
    o.result.lat_p99_ns = 4'000;
    o.result.lat_max_ns = 5'000;
    o.result.checked = 1;
    o.result.data_ok = 1;
    o.result.depth = 16;
    o.result.atomic_init = init;
    o.result.atomic_final = init + 1000;
    return o;
}

// RFC 7306 section 5.1.1's FetchAdd, one bit at a time: the carry out of a
// bit the mask sets (the most significant bit of a field) is discarded.
std::uint64_t fetch_add_bitwise(std::uint64_t orig, std::uint64_t add, std::uint64_t mask)
{
    std::uint64_t sum = 0;
    unsigned carry = 0;
    for (unsigned bit = 0; bit < 64; bit++) {
        unsigned s = unsigned((orig >> bit) & 1) + unsigned((add >> bit) & 1) + carry;
        sum |= std::uint64_t(s & 1) << bit;
        carry = (mask >> bit) & 1 ? 0 : s >> 1;
    }
    return sum;
}

AtomicOp fetch_add(std::uint64_t add, std::uint64_t mask = 0)
{
    return {false, add, mask, 0, 0};
}

AtomicOp cmp_swap(std::uint64_t compare, std::uint64_t swap, std::uint64_t compare_mask = ~0ULL,
                  std::uint64_t swap_mask = ~0ULL)
{
    return {true, swap, swap_mask, compare, compare_mask};
}

}  // namespace

TEST(XiwperfAtomic, FetchAddWithoutMaskIsA64BitAdd)
{
    EXPECT_EQ(atomic_apply(fetch_add(5), 10), 15u);
    EXPECT_EQ(atomic_apply(fetch_add(1), ~0ULL), 0u);  // wraps
    EXPECT_EQ(atomic_apply(fetch_add(~0ULL), 7), 6u);  // adding -1
    EXPECT_EQ(atomic_apply(fetch_add(0), 0x1234), 0x1234u);
    // a mask with only bit 63: the carry out of bit 63 goes anyway
    EXPECT_EQ(atomic_apply(fetch_add(0x8000000000000001, 1ULL << 63), 0x8000000000000001),
              atomic_apply(fetch_add(0x8000000000000001), 0x8000000000000001));
}

TEST(XiwperfAtomic, MaskedFetchAddAddsEachFieldOnItsOwn)
{
    const std::uint64_t bytes = 0x8080808080808080;
    EXPECT_EQ(atomic_apply(fetch_add(0x01, bytes), 0xff), 0x00u);  // no carry into byte 1
    EXPECT_EQ(atomic_apply(fetch_add(0x01, bytes), 0x7f), 0x80u);  // into the top bit
    EXPECT_EQ(atomic_apply(fetch_add(0x0101010101010101, bytes), 0xff7f00fe01807fff),
              0x008001ff02818000u);
    const std::uint64_t halves = 0x8000000080000000;
    EXPECT_EQ(atomic_apply(fetch_add(0x0000000100000001, halves), ~0ULL), 0u);
    EXPECT_EQ(atomic_apply(fetch_add(0x0000000100000001, halves), 0x00000001ffffffff),
              0x0000000200000000u);
    // fields of unequal width: bits 0-3, 4-15, 16-63 (the top field runs to bit 63)
    const std::uint64_t mixed = 0x8008;
    EXPECT_EQ(atomic_apply(fetch_add(0x0000000000010011, mixed), 0x000000000000ffff),
              0x0000000000010000u);
}

TEST(XiwperfAtomic, MaskedFetchAddMatchesTheBitwiseDefinition)
{
    std::mt19937_64 rng(7306);
    for (int i = 0; i < 20000; i++) {
        std::uint64_t orig = rng(), add = rng(), mask = rng();
        if (i % 4 == 1)
            mask &= rng() & rng();  // sparse masks: wider fields
        if (i % 4 == 2)
            mask = 0;
        if (i % 8 == 3)
            orig = ~0ULL;  // carries everywhere
        ASSERT_EQ(atomic_apply(fetch_add(add, mask), orig), fetch_add_bitwise(orig, add, mask))
            << std::hex << orig << " " << add << " " << mask;
    }
}

TEST(XiwperfAtomic, CmpSwapSwapsTheMaskedBitsOnAMaskedMatch)
{
    EXPECT_EQ(atomic_apply(cmp_swap(7, 9), 7), 9u);
    EXPECT_EQ(atomic_apply(cmp_swap(7, 9), 8), 8u);  // no match: unchanged
    // only the bits of the compare mask are compared
    EXPECT_EQ(atomic_apply(cmp_swap(0x00ff, 0x1111, 0x00ff), 0xabff), 0x1111u);
    EXPECT_EQ(atomic_apply(cmp_swap(0x00ff, 0x1111, 0x00ff), 0xabfe), 0xabfeu);
    // only the bits of the swap mask are swapped
    EXPECT_EQ(atomic_apply(cmp_swap(0, 0xffff, ~0ULL, 0x0ff0), 0), 0x0ff0u);
    EXPECT_EQ(atomic_apply(cmp_swap(0, 0xffff, 0, 0xf000), 0x0123), 0xf123u);  // mask 0: always
    EXPECT_EQ(atomic_apply(cmp_swap(0, 0xffff, ~0ULL, 0), 0), 0u);  // swap mask 0: never a change
}

TEST(XiwperfAtomic, IteratedFunction)
{
    EXPECT_EQ(atomic_apply_n(fetch_add(3), 10, 0), 10u);
    EXPECT_EQ(atomic_apply_n(fetch_add(3), 10, 1000), 3010u);
    EXPECT_EQ(atomic_apply_n(fetch_add(1), ~0ULL - 1, 3), 1u);
    // four byte-wide counters, each wrapping on its own: 300 = 256 + 44
    EXPECT_EQ(atomic_apply_n(fetch_add(0x01010101, 0x80808080), 0, 300), 0x2c2c2c2cu);
    // CmpSwap of 0 to 1: the first one swaps, every later one sees 1
    EXPECT_EQ(atomic_apply_n(cmp_swap(0, 1), 0, 1), 1u);
    EXPECT_EQ(atomic_apply_n(cmp_swap(0, 1), 0, 1'000'000'000'000), 1u);
    EXPECT_EQ(atomic_apply_n(cmp_swap(5, 1), 0, 10), 0u);
    // a 4-bit counter in steps of 7: step by step, and at once
    std::uint64_t x = 0;
    for (int k = 0; k < 10; k++)
        x = atomic_apply(fetch_add(7, 0x8), x);  // a 4-bit counter in steps of 7
    EXPECT_EQ(atomic_apply_n(fetch_add(7, 0x8), 0, 10), x);
    EXPECT_EQ(x, 70u % 16);
}

TEST(XiwperfAtomic, OperationAndOperandsFromTheOptions)
{
    Client c;
    c.add = 3;
    c.compare = 4;
    c.swap = 5;
    c.mask = 0x80;
    c.compare_mask = 0xf0;
    c.op = Op::fetch_add;
    EXPECT_EQ(atomic_op(c), fetch_add(3));
    EXPECT_EQ(atomic_operands(c), (AtomicOperands{3, 0, 0, 0}));
    c.op = Op::masked_fetch_add;
    EXPECT_EQ(atomic_op(c), fetch_add(3, 0x80));
    EXPECT_EQ(atomic_operands(c), (AtomicOperands{3, 0, 0x80, 0}));
    c.op = Op::cmp_swap;
    EXPECT_EQ(atomic_op(c), cmp_swap(4, 5));
    EXPECT_EQ(atomic_operands(c), (AtomicOperands{4, 5, 0, 0}));
    c.op = Op::masked_cmp_swap;
    EXPECT_EQ(atomic_op(c), cmp_swap(4, 5, 0xf0, 0x80));
    EXPECT_EQ(atomic_operands(c), (AtomicOperands{4, 5, 0xf0, 0x80}));
    for (Op op : {Op::send, Op::write, Op::read}) {
        c.op = op;
        EXPECT_EQ(atomic_operands(c), AtomicOperands{});
    }
}

TEST_F(XiwperfReport, AtomicJsonHasTheWordExactly)
{
    // beyond 2^53: a double would round it
    const std::uint64_t init = 0x8000000000000001;
    auto j = to_json(atomic_args(), atomic_good(init));
    EXPECT_EQ(j["op"], "fetch_add");
    EXPECT_EQ(j["size"], 8);
    EXPECT_EQ(j["add"], 1);
    EXPECT_FALSE(j.contains("compare"));
    EXPECT_FALSE(j.contains("mask"));
    EXPECT_EQ(j["atomic_init"].get<std::uint64_t>(), init);
    EXPECT_EQ(j["atomic_final"].get<std::uint64_t>(), init + 1000);
    EXPECT_EQ(j["atomic_expected"].get<std::uint64_t>(), init + 1000);
    EXPECT_EQ(j["data_ok"], true);
    EXPECT_EQ(j["remote_mr"], "frwr");
    EXPECT_FALSE(j.contains("error"));
    EXPECT_NE(j.dump().find("\"atomic_init\":9223372036854775809"), std::string::npos);
    EXPECT_EQ(exit_status(atomic_args(), atomic_good(init)), exit_ok);
}

TEST_F(XiwperfReport, AtomicWordOnlyWithCheck)
{
    Client a = atomic_args(Op::cmp_swap);
    a.check = false;
    a.compare = 0;
    a.swap = 1;
    Outcome o = atomic_good();
    o.result.checked = 0;
    o.result.data_ok = 0;
    auto j = to_json(a, o);
    EXPECT_EQ(j["op"], "cmp_swap");
    EXPECT_EQ(j["compare"], 0);
    EXPECT_EQ(j["swap"], 1);
    EXPECT_FALSE(j.contains("add"));
    EXPECT_TRUE(j["atomic_init"].is_null());
    EXPECT_TRUE(j["atomic_final"].is_null());
    EXPECT_TRUE(j["atomic_expected"].is_null());
    EXPECT_TRUE(j["data_ok"].is_null());
    EXPECT_EQ(exit_status(a, o), exit_ok);
    // and never for the other operations
    for (auto key : {"atomic_init", "atomic_final", "atomic_expected", "add", "swap"})
        EXPECT_FALSE(to_json(args(), good()).contains(key)) << key;
}

TEST_F(XiwperfReport, AtomicOperandsInJsonAndText)
{
    Client a = atomic_args(Op::masked_cmp_swap);
    a.compare = 0x10;
    a.swap = 0xff;
    a.mask = 0xf0;
    a.compare_mask = 0xf0;
    Outcome o = atomic_good(0x10);
    o.result.atomic_final = 0xf0;
    auto j = to_json(a, o);
    EXPECT_EQ(j["op"], "masked_cmp_swap");
    EXPECT_EQ(j["compare"], 0x10);
    EXPECT_EQ(j["swap"], 0xff);
    EXPECT_EQ(j["mask"], 0xf0);
    EXPECT_EQ(j["compare_mask"], 0xf0);
    EXPECT_EQ(j["atomic_expected"], 0xf0);
    EXPECT_FALSE(j.contains("error"));
    EXPECT_EQ(to_text(a, o),
              "masked_cmp_swap 8 B x 1000 on rxe0, 2 QPs, depth 16, remote mr frwr, compare "
              "0x10, swap 0xff, mask 0xf0, compare mask 0xf0: 1000 completed, 0 errors, data ok\n"
              "1.000 s, 0.000 Gbit/s, 0.0010 Mop/s, latency us p50 2.0 p99 4.0 max 5.0\n"
              "word 0x10 before, 0xf0 after (expected 0xf0)\n");
    a = atomic_args(Op::masked_fetch_add);
    a.mask = 0x8080;
    j = to_json(a, atomic_good());
    EXPECT_EQ(j["add"], 1);
    EXPECT_EQ(j["mask"], 0x8080);
    EXPECT_FALSE(j.contains("compare_mask"));
    a.check = false;
    Outcome unchecked = atomic_good();
    unchecked.result.checked = 0;
    EXPECT_EQ(to_text(a, unchecked).find("word "), std::string::npos);
}

TEST_F(XiwperfReport, AtomicMismatches)
{
    Client a = atomic_args();
    Outcome o = atomic_good(5);
    o.result.data_ok = 0;
    o.result.mismatches = 2;
    o.result.first_bad_qp = 1;
    o.result.first_bad_seq = 41;
    EXPECT_TRUE(says(mismatch_message(a, o.result),
                     {"atomic mismatch", "2", "1000", "original value", "1", "41"}));
    EXPECT_EQ(exit_status(a, o), exit_mismatch);
    auto j = to_json(a, o);
    EXPECT_EQ(j["data_ok"], false);
    EXPECT_EQ(j["error"], mismatch_message(a, o.result));

    // a lost update: every original right, the word is not
    o = atomic_good(5);
    o.result.data_ok = 0;
    o.result.atomic_final = 1004;
    EXPECT_TRUE(says(mismatch_message(a, o.result), {"atomic mismatch", "0x5", "0x3ec", "0x3ed"}));
    EXPECT_EQ(exit_status(a, o), exit_mismatch);
    EXPECT_EQ(to_json(a, o)["atomic_expected"], 1005);

    o.result.mismatches = 2;
    o.result.first_bad_qp = 1;
    o.result.first_bad_seq = 41;
    EXPECT_TRUE(says(mismatch_message(a, o.result), {"atomic mismatch", "2", "1000",
                                                     "original value", "41", "0x5", "0x3ec",
                                                     "0x3ed"}));

    // the module's verdict stands even where this one sees nothing wrong
    o = atomic_good(5);
    o.result.data_ok = 0;
    EXPECT_TRUE(says(mismatch_message(a, o.result), {"atomic mismatch", "module"}));
    EXPECT_EQ(exit_status(a, o), exit_mismatch);
    EXPECT_EQ(mismatch_message(a, atomic_good().result), "");
}

TEST_F(XiwperfReport, AtomicUnsupported)
{
    Outcome o = failed(EOPNOTSUPP, XIWPERF_REASON_UNSUPPORTED);
    std::strcpy(o.result.device, "siw0");
    o.result.unsupported = XIWPERF_UNSUPPORTED_ATOMIC;
    EXPECT_TRUE(fails(atomic_args(), o, {"siw0", "atomic_cap", "IB_ATOMIC_NONE"}));
    EXPECT_EQ(exit_status(atomic_args(), o), exit_failed);
    std::strcpy(o.result.device, "rxe0");
    Client a = atomic_args(Op::masked_fetch_add);
    EXPECT_TRUE(fails(a, o, {"rxe0", "masked_atomic_cap", "IB_ATOMIC_NONE"}));
    o.result.remote_reason = XIWPERF_REJECT_UNSUPPORTED;
    EXPECT_TRUE(fails(a, o, {"10.1.0.1:9000", "rejected", "masked_atomic_cap", "IB_ATOMIC_NONE"}));
    auto j = to_json(a, o);
    EXPECT_EQ(j["error"], error_message(a, o));
    EXPECT_TRUE(j["atomic_init"].is_null());
}

TEST_F(XiwperfReport, InjectUnalignedInJsonAndText)
{
    Client a = atomic_args();
    a.inject = Inject::unaligned;
    Outcome o = failed(EIO, XIWPERF_REASON_WC);
    o.result.wc_status = 9;  // REM_INV_REQ_ERR
    o.result.errors = 1;
    auto j = to_json(a, o);
    EXPECT_EQ(j["inject"], "unaligned");
    EXPECT_EQ(j["wc_status"], "REM_INV_REQ_ERR");
    EXPECT_TRUE(j["atomic_final"].is_null());
    EXPECT_NE(to_text(a, o).find(", add 0x1, inject unaligned: 0 completed, 1 errors"),
              std::string::npos);
}

TEST(XiwperfHex, LowerCaseWithPrefix)
{
    EXPECT_EQ(hex(0), "0x0");
    EXPECT_EQ(hex(0xABCDEF), "0xabcdef");
    EXPECT_EQ(hex(~0ULL), "0xffffffffffffffff");
}

TEST_F(XiwperfReport, ImmediateValueInJsonAndText)
{
    Client a = args(Op::write_imm);
    auto j = to_json(a, good());
    EXPECT_EQ(j["op"], "write_imm");
    EXPECT_TRUE(j.contains("imm"));
    EXPECT_TRUE(j["imm"].is_null());  // each operation's sequence number
    EXPECT_NE(to_text(a, good()).find("write_imm 65536 B x 1000 on siw0, 2 QPs, depth 16, imm seq:"),
              std::string::npos)
        << to_text(a, good());

    a.op = Op::imm;
    a.size = 0;
    a.imm = 0xdeadbeef;
    Outcome o = good();
    o.result.bytes = 0;
    j = to_json(a, o);
    EXPECT_EQ(j["op"], "imm");
    EXPECT_EQ(j["size"], 0);
    EXPECT_EQ(j["imm"], 0xdeadbeefu);
    EXPECT_EQ(j["gbit_per_s"], 0.0);
    EXPECT_FALSE(j.contains("error"));
    EXPECT_NE(to_text(a, o).find("imm 0 B x 1000 on siw0, 2 QPs, depth 16, imm 0xdeadbeef:"),
              std::string::npos)
        << to_text(a, o);
    EXPECT_EQ(exit_status(a, o), exit_ok);

    // not for the other operations
    EXPECT_FALSE(to_json(args(Op::send), good()).contains("imm"));
    EXPECT_EQ(to_text(args(Op::send), good()).find("imm"), std::string::npos);
}

TEST_F(XiwperfReport, ImmediateDataMismatches)
{
    Client a = args(Op::imm);
    a.size = 0;
    Outcome o = good();
    o.result.mismatches = 2;
    o.result.data_ok = 0;
    o.result.first_bad_qp = 1;
    o.result.first_bad_seq = 41;
    o.result.first_bad_offset = XIWPERF_BAD_COMPLETION;
    EXPECT_TRUE(says(mismatch_message(a, o.result), {"mismatch", "2", "1000", "1", "41",
                                                     "IB_WC_WITH_IMM", "sequence number"}));
    a.imm = 7;
    EXPECT_TRUE(says(mismatch_message(a, o.result),
                     {"mismatch", "2", "1000", "1", "41", "IB_WC_WITH_IMM", "0x7"}));
    EXPECT_EQ(json_error(a, o), mismatch_message(a, o.result));
    EXPECT_EQ(exit_status(a, o), exit_mismatch);

    // write_imm --check: the region was not written yet
    a = args(Op::write_imm);
    o.result.first_bad_offset = 100;
    EXPECT_TRUE(says(mismatch_message(a, o.result),
                     {"mismatch", "2", "1000", "1", "41", "100", "not written"}));
    // without --check too (the server checks every completion)
    a.check = false;
    o.result.checked = 0;
    EXPECT_EQ(exit_status(a, o), exit_mismatch);

    Outcome f = failed(EMSGSIZE, XIWPERF_REASON_REMOTE_TOO_SMALL);
    f.result.remote_size = 1 << 20;
    f.result.regions = 16;
    EXPECT_TRUE(fails(args(Op::write_imm), f,
                      {"1048576", "16", "65536", "write_imm", "--check", "64", "--size"}));
    Outcome p = failed(EINVAL, XIWPERF_REASON_POST);
    EXPECT_TRUE(fails(args(Op::imm), p,
                      {"posting", std::strerror(EINVAL), "Immediate Data", "RFC 7306"}));
    EXPECT_TRUE(fails(args(Op::write), p, {"posting", std::strerror(EINVAL)}));
    EXPECT_FALSE(has_word(error_message(args(Op::write), p), "RFC 7306"));
}

namespace {

// An Atomic Write run as atomic_args() has it: 1000 over 2 QPs, checked.
Client atomic_write_args()
{
    Client c = atomic_args(Op::atomic_write);
    c.add = 1;  // the default, which atomic_write does not take
    return c;
}

// The value of tag @t, independent of the ABI's xiwperf_aw_value().
constexpr std::uint64_t aw(std::uint64_t t)
{
    return t << 32 | (~t & 0xffffffffULL);
}

// Its outcome: from @init the word ended as connection 1's last value
// (operation 499, tag 499 * 2 + 1).
Outcome atomic_write_good(std::uint64_t init = 5)
{
    Outcome o = atomic_good(init);
    o.result.atomic_final = aw(999);
    return o;
}

}  // namespace

TEST(XiwperfAtomicWrite, ValuesAndTheLastOfEachConnection)
{
    Client c;
    c.op = Op::atomic_write;
    c.qps = 2;
    c.count = 1000;
    EXPECT_EQ(atomic_write_value(c, 0, 0), 0x00000000ffffffffULL);
    EXPECT_EQ(atomic_write_value(c, 0, 1), 0x00000001fffffffeULL);
    EXPECT_EQ(atomic_write_value(c, 499, 1), aw(999));
    EXPECT_EQ(atomic_write_value(c, 499, 1), 0x000003e7fffffc18ULL);
    // each connection's last: 500 each
    EXPECT_EQ(atomic_write_last(c, aw(998)), (AtomicWriteOp{0, 499}));
    EXPECT_EQ(atomic_write_last(c, aw(999)), (AtomicWriteOp{1, 499}));
    // an earlier operation's value, one beyond the run's, a torn one
    EXPECT_FALSE(atomic_write_last(c, aw(996)));
    EXPECT_FALSE(atomic_write_last(c, aw(1000)));
    EXPECT_FALSE(atomic_write_last(c, (aw(998) & ~0xffffffffULL) | (aw(999) & 0xffffffffULL)));
    EXPECT_FALSE(atomic_write_last(c, 5));
    // uneven: the first count % qps connections carry one more
    c.count = 1001;
    EXPECT_EQ(connection_ops(c, 0), 501u);
    EXPECT_EQ(connection_ops(c, 1), 500u);
    EXPECT_EQ(atomic_write_last(c, aw(1000)), (AtomicWriteOp{0, 500}));
    EXPECT_EQ(atomic_write_last(c, aw(999)), (AtomicWriteOp{1, 499}));
    EXPECT_FALSE(atomic_write_last(c, aw(998)));
    // no operands: all zero in the run, whatever the options hold
    c.add = 3;
    c.compare_mask = ~0ULL;
    EXPECT_EQ(atomic_operands(c), AtomicOperands{});
}

TEST_F(XiwperfReport, AtomicWriteJsonAndText)
{
    Client a = atomic_write_args();
    Outcome o = atomic_write_good();
    auto j = to_json(a, o);
    EXPECT_EQ(j["op"], "atomic_write");
    EXPECT_EQ(j["size"], 8);
    EXPECT_EQ(j["data_ok"], true);
    EXPECT_EQ(j["atomic_init"].get<std::uint64_t>(), 5u);
    EXPECT_EQ(j["atomic_final"].get<std::uint64_t>(), aw(999));
    // no one expected value: the kernel module decides (data_ok)
    EXPECT_TRUE(j.contains("atomic_expected"));
    EXPECT_TRUE(j["atomic_expected"].is_null());
    for (auto key : {"add", "compare", "swap", "mask", "compare_mask", "imm"})
        EXPECT_FALSE(j.contains(key)) << key;
    EXPECT_FALSE(j.contains("error"));
    EXPECT_EQ(exit_status(a, o), exit_ok);
    EXPECT_EQ(to_text(a, o),
              "atomic_write 8 B x 1000 on rxe0, 2 QPs, depth 16, remote mr frwr: 1000 "
              "completed, 0 errors, data ok\n"
              "1.000 s, 0.000 Gbit/s, 0.0010 Mop/s, latency us p50 2.0 p99 4.0 max 5.0\n"
              "word 0x5 before, 0x3e7fffffc18 after (the last Atomic Write of connection 1, "
              "operation 499)\n");

    // without --check: no word
    a.check = false;
    Outcome unchecked = atomic_write_good();
    unchecked.result.checked = 0;
    unchecked.result.data_ok = 0;
    j = to_json(a, unchecked);
    EXPECT_TRUE(j["atomic_init"].is_null());
    EXPECT_TRUE(j["atomic_final"].is_null());
    EXPECT_TRUE(j["data_ok"].is_null());
    EXPECT_EQ(to_text(a, unchecked).find("word "), std::string::npos);
    EXPECT_EQ(mismatch_message(a, unchecked.result), "");
    EXPECT_EQ(exit_status(a, unchecked), exit_ok);
}

TEST_F(XiwperfReport, AtomicWriteMismatches)
{
    Client a = atomic_write_args();
    // torn: connection 0's last upper half, connection 1's lower half
    const std::uint64_t torn = 0x000003e6fffffc18ULL;
    Outcome o = atomic_write_good();
    o.result.data_ok = 0;
    o.result.atomic_final = torn;
    EXPECT_TRUE(says(mismatch_message(a, o.result),
                     {"atomic write mismatch", "0x3e6fffffc18", "torn"}));
    EXPECT_EQ(exit_status(a, o), exit_mismatch);
    auto j = to_json(a, o);
    EXPECT_EQ(j["data_ok"], false);
    EXPECT_EQ(j["atomic_final"].get<std::uint64_t>(), torn);
    EXPECT_TRUE(j["atomic_expected"].is_null());
    EXPECT_EQ(j["error"], mismatch_message(a, o.result));
    EXPECT_NE(to_text(a, o).find("word 0x5 before, 0x3e6fffffc18 after (no connection's last "
                                 "Atomic Write)\n"),
              std::string::npos)
        << to_text(a, o);

    // an earlier operation's value: placed out of order
    o.result.atomic_final = aw(997);
    EXPECT_NE(mismatch_message(a, o.result).find("the word ended as 0x3e5fffffc1a, which is no"),
              std::string::npos);

    // completions with the wrong opcode, the word right
    o = atomic_write_good();
    o.result.data_ok = 0;
    o.result.mismatches = 2;
    o.result.first_bad_qp = 1;
    o.result.first_bad_seq = 41;
    EXPECT_TRUE(says(mismatch_message(a, o.result),
                     {"atomic write mismatch", "2", "1000", "opcode", "1", "41"}));
    EXPECT_TRUE(
        says(json_error(a, o), {"atomic write mismatch", "2", "1000", "opcode", "1", "41"}));
    EXPECT_EQ(exit_status(a, o), exit_mismatch);

    // both
    o.result.atomic_final = torn;
    EXPECT_TRUE(says(mismatch_message(a, o.result), {"atomic write mismatch", "0x3e6fffffc18",
                                                     "torn", "2", "1000", "opcode", "41"}));

    // the module's verdict stands even where this one sees nothing wrong
    o = atomic_write_good();
    o.result.data_ok = 0;
    EXPECT_TRUE(says(mismatch_message(a, o.result), {"atomic write mismatch", "module"}));
    EXPECT_EQ(exit_status(a, o), exit_mismatch);
    EXPECT_EQ(mismatch_message(a, atomic_write_good().result), "");
    // and where it finds nothing wrong, nothing is reported
    o = atomic_write_good();
    o.result.atomic_final = torn;
    EXPECT_EQ(mismatch_message(a, o.result), "");
    EXPECT_EQ(exit_status(a, o), exit_ok);
}

TEST_F(XiwperfReport, AtomicWriteUnsupported)
{
    Client a = atomic_write_args();
    Outcome o = failed(EOPNOTSUPP, XIWPERF_REASON_UNSUPPORTED);
    std::strcpy(o.result.device, "rxe0");
    o.result.unsupported = XIWPERF_UNSUPPORTED_ATOMIC;
    EXPECT_TRUE(fails(a, o, {"rxe0", "IB_DEVICE_ATOMIC_WRITE", "device_cap_flags"}));
    EXPECT_EQ(exit_status(a, o), exit_failed);
    o.result.remote_reason = XIWPERF_REJECT_UNSUPPORTED;
    EXPECT_TRUE(fails(a, o,
                      {"10.1.0.1:9000", "rejected", "IB_DEVICE_ATOMIC_WRITE", "device_cap_flags"}));
    auto j = to_json(a, o);
    EXPECT_EQ(j["error"], error_message(a, o));
    EXPECT_TRUE(j["atomic_init"].is_null());
    EXPECT_TRUE(j["atomic_expected"].is_null());
}

namespace {

// A Flush run as args() has it (1000 of 64 KiB over 2 QPs, checked), to
// persistence of the range, through the server's registrations.
Client flush_args()
{
    Client c;
    c.addr = *parse_address("10.1.0.1");
    c.port = 9000;
    c.op = Op::flush;
    c.size = 65536;
    c.count = 1000;
    c.depth = 16;
    c.qps = 2;
    c.check = true;
    c.remote_mr = Mr::frwr;
    c.persist = true;
    return c;
}

}  // namespace

TEST_F(XiwperfReport, FlushJsonAndText)
{
    Client a = flush_args();
    Outcome o = good();
    auto j = to_json(a, o);
    EXPECT_EQ(j["op"], "flush");
    EXPECT_EQ(j["size"], 65536);
    EXPECT_EQ(j["data_ok"], true);
    EXPECT_EQ(j["remote_mr"], "frwr");
    ASSERT_TRUE(j.contains("flush"));
    EXPECT_EQ(j["flush"], (nlohmann::json{{"persist", true}, {"global", false},
                                          {"level", "range"}}));
    for (auto key : {"imm", "atomic_init", "atomic_final", "atomic_expected", "add", "solicit",
                     "srq"})
        EXPECT_FALSE(j.contains(key)) << key;
    EXPECT_FALSE(j.contains("error"));
    EXPECT_EQ(exit_status(a, o), exit_ok);
    EXPECT_EQ(to_text(a, o),
              "flush 65536 B x 1000 on siw0, 2 QPs, depth 16, remote mr frwr, flush to "
              "persistence (range): 1000 completed, 0 errors, data ok\n"
              "2.000 s, 0.262 Gbit/s, 0.0005 Mop/s, latency us p50 2.5 p99 9.0 max 12.0\n");

    a.persist = false;
    a.global = true;
    a.whole_mr = true;
    j = to_json(a, o);
    EXPECT_EQ(j["flush"]["persist"], false);
    EXPECT_EQ(j["flush"]["global"], true);
    EXPECT_EQ(j["flush"]["level"], "mr");
    EXPECT_NE(to_text(a, o).find(", remote mr frwr, flush to global visibility (whole MR): "),
              std::string::npos)
        << to_text(a, o);

    a.persist = true;
    j = to_json(a, o);
    EXPECT_EQ(j["flush"], (nlohmann::json{{"persist", true}, {"global", true},
                                          {"level", "mr"}}));
    EXPECT_NE(to_text(a, o).find(", flush to persistence and global visibility (whole MR): "),
              std::string::npos)
        << to_text(a, o);

    // failed or not, the disposition is there
    Outcome f = failed(EIO, XIWPERF_REASON_WC);
    f.result.wc_status = 5;
    EXPECT_EQ(to_json(a, f)["flush"]["level"], "mr");

    // not for the other operations
    for (Op op : {Op::write, Op::send, Op::read, Op::write_imm}) {
        EXPECT_FALSE(to_json(args(op), good()).contains("flush")) << op_name(op);
        EXPECT_EQ(to_text(args(op), good()).find("flush"), std::string::npos) << op_name(op);
    }
}

TEST_F(XiwperfReport, FlushUnsupported)
{
    Client a = flush_args();
    Outcome o = failed(EOPNOTSUPP, XIWPERF_REASON_UNSUPPORTED);
    std::strcpy(o.result.device, "siw0");
    o.result.unsupported = XIWPERF_UNSUPPORTED_FLUSH;
    EXPECT_TRUE(fails(a, o,
                      {"siw0", "Flush", "persistence", "IB_DEVICE_FLUSH_PERSISTENT",
                       "device_cap_flags"}));
    EXPECT_EQ(exit_status(a, o), exit_failed);
    auto j = to_json(a, o);
    EXPECT_EQ(j["error"], error_message(a, o));
    EXPECT_EQ(j["flush"]["persist"], true);

    a.persist = false;
    a.global = true;
    EXPECT_TRUE(fails(a, o,
                      {"siw0", "Flush", "global visibility", "IB_DEVICE_FLUSH_GLOBAL",
                       "device_cap_flags"}));
    a.persist = true;
    EXPECT_TRUE(fails(a, o,
                      {"siw0", "Flush", "persistence", "global visibility",
                       "IB_DEVICE_FLUSH_PERSISTENT", "IB_DEVICE_FLUSH_GLOBAL",
                       "device_cap_flags"}));
    o.result.device[0] = '\0';
    EXPECT_EQ(error_message(a, o).rfind("the device does not support RDMA Flush to ", 0), 0u)
        << error_message(a, o);
}

TEST_F(XiwperfReport, FlushFailures)
{
    // a Flush to persistence of the server's DRAM, refused
    Client a = flush_args();
    Outcome o = failed(EIO, XIWPERF_REASON_WC);
    o.result.wc_status = 10;
    o.result.completed = 0;
    EXPECT_TRUE(fails(a, o, {"REM_ACCESS_ERR", "0", "DRAM", "dram_persistent=1"}));
    EXPECT_TRUE(says(json_error(a, o), {"REM_ACCESS_ERR", "0", "DRAM", "dram_persistent=1"}));
    EXPECT_EQ(to_json(a, o)["wc_status"], "REM_ACCESS_ERR");
    EXPECT_EQ(exit_status(a, o), exit_failed);
    // not for global visibility alone, an injected fault or another status
    a.persist = false;
    a.global = true;
    EXPECT_TRUE(fails(a, o, {"REM_ACCESS_ERR", "0"}));
    EXPECT_FALSE(has_word(error_message(a, o), "dram_persistent=1"));
    a.persist = true;
    a.inject = Inject::rights;
    EXPECT_TRUE(fails(a, o, {"REM_ACCESS_ERR", "0"}));
    EXPECT_FALSE(has_word(error_message(a, o), "dram_persistent=1"));
    a.inject = Inject::none;
    o.result.wc_status = 5;
    EXPECT_TRUE(fails(a, o, {"WR_FLUSH_ERR", "0"}));
    EXPECT_FALSE(has_word(error_message(a, o), "dram_persistent=1"));
    Client w = args(Op::write);
    o.result.wc_status = 10;
    EXPECT_TRUE(fails(w, o, {"REM_ACCESS_ERR", "0"}));
    EXPECT_FALSE(has_word(error_message(w, o), "dram_persistent=1"));

    // --check wants a region per outstanding operation, as write's
    o = failed(EMSGSIZE, XIWPERF_REASON_REMOTE_TOO_SMALL);
    o.result.remote_size = 1 << 20;
    o.result.regions = 16;
    EXPECT_TRUE(fails(a, o, {"1048576", "16", "65536", "flush", "--check", "32", "--size"}));

    // a mismatch: wrong data read back, or a completion not a Flush's
    o = good();
    o.result.data_ok = 0;
    o.result.mismatches = 3;
    o.result.first_bad_qp = 1;
    o.result.first_bad_seq = 17;
    o.result.first_bad_offset = 5;
    EXPECT_TRUE(says(mismatch_message(a, o.result),
                     {"mismatch", "3", "1000", "opcode", "1", "17", "5"}));
    EXPECT_EQ(json_error(a, o), mismatch_message(a, o.result));
    EXPECT_EQ(exit_status(a, o), exit_mismatch);
}

namespace {

// A Verify run as args() has it (1000 of 64 KiB over 2 QPs, checked),
// CRC32c, through the server's registrations, without --expect.
Client verify_args()
{
    Client c;
    c.addr = *parse_address("10.1.0.1");
    c.port = 9000;
    c.op = Op::verify;
    c.size = 65536;
    c.count = 1000;
    c.depth = 16;
    c.qps = 2;
    c.check = true;
    c.remote_mr = Mr::frwr;
    c.hash = Hash::crc32c;
    return c;
}

}  // namespace

TEST_F(XiwperfReport, VerifyJsonAndText)
{
    Client a = verify_args();
    Outcome o = good();
    auto j = to_json(a, o);
    EXPECT_EQ(j["op"], "verify");
    EXPECT_EQ(j["size"], 65536);
    EXPECT_EQ(j["data_ok"], true);
    EXPECT_EQ(j["remote_mr"], "frwr");
    ASSERT_TRUE(j.contains("verify"));
    EXPECT_EQ(j["verify"],
              (nlohmann::json{{"hash", "crc32c"}, {"expect", nullptr}, {"write", true}}));
    EXPECT_TRUE(j["verify"]["expect"].is_null());
    for (auto key : {"flush", "imm", "atomic_init", "atomic_final", "atomic_expected", "add",
                     "solicit", "srq", "error"})
        EXPECT_FALSE(j.contains(key)) << key;
    EXPECT_EQ(exit_status(a, o), exit_ok);
    EXPECT_EQ(to_text(a, o),
              "verify 65536 B x 1000 on siw0, 2 QPs, depth 16, remote mr frwr, verify crc32c: "
              "1000 completed, 0 errors, data ok\n"
              "2.000 s, 0.262 Gbit/s, 0.0005 Mop/s, latency us p50 2.5 p99 9.0 max 12.0\n");

    // --expect alone: the client's own hash
    a.hash = Hash::sha256;
    a.expect = true;
    j = to_json(a, o);
    EXPECT_EQ(j["verify"],
              (nlohmann::json{{"hash", "sha256"}, {"expect", "own"}, {"write", true}}));
    EXPECT_NE(to_text(a, o).find(", remote mr frwr, verify sha256, expect own: "),
              std::string::npos)
        << to_text(a, o);

    // --expect HEX: lower-case digits, two per octet, no prefix
    a.expect_hash = {0x00, 0xDE, 0xad, 0x0f};
    j = to_json(a, o);
    EXPECT_EQ(j["verify"],
              (nlohmann::json{{"hash", "sha256"}, {"expect", "00dead0f"}, {"write", true}}));
    EXPECT_NE(to_text(a, o).find(", verify sha256, expect 00dead0f: "), std::string::npos)
        << to_text(a, o);
    EXPECT_EQ(j.dump().find("\"verify\":{\"expect\":\"00dead0f\",\"hash\":\"sha256\","
                            "\"write\":true}") !=
                  std::string::npos,
              true)
        << j.dump();

    // --no-write: the Verify alone
    a.no_write = true;
    j = to_json(a, o);
    EXPECT_EQ(j["verify"],
              (nlohmann::json{{"hash", "sha256"}, {"expect", "00dead0f"}, {"write", false}}));
    EXPECT_NE(to_text(a, o).find(", verify sha256 (no write), expect 00dead0f: "),
              std::string::npos)
        << to_text(a, o);
    a.no_write = false;

    // failed or not, the hash is there
    Outcome f = failed(EIO, XIWPERF_REASON_WC);
    f.result.wc_status = 11;
    EXPECT_EQ(to_json(a, f)["verify"]["hash"], "sha256");
    EXPECT_EQ(to_json(a, f)["verify"]["expect"], "00dead0f");

    // not for the other operations
    for (Op op : {Op::write, Op::send, Op::read, Op::write_imm, Op::flush}) {
        Client other = op == Op::flush ? flush_args() : args(op);
        EXPECT_FALSE(to_json(other, good()).contains("verify")) << op_name(op);
        EXPECT_EQ(to_text(other, good()).find("verify"), std::string::npos) << op_name(op);
    }
}

TEST_F(XiwperfReport, VerifyMismatch)
{
    Client a = verify_args();
    Outcome o = good();
    o.result.data_ok = 0;
    o.result.mismatches = 3;
    o.result.first_bad_qp = 1;
    o.result.first_bad_seq = 17;
    o.result.first_bad_offset = 5;  // no byte to name: hashes are compared
    EXPECT_TRUE(says(mismatch_message(a, o.result),
                     {"verify mismatch", "3", "1000", "hash", "opcode", "1", "17"}));
    EXPECT_FALSE(has_word(mismatch_message(a, o.result), "5"));
    EXPECT_EQ(json_error(a, o), mismatch_message(a, o.result));
    EXPECT_EQ(exit_status(a, o), exit_mismatch);
    // none, none said
    EXPECT_EQ(mismatch_message(a, good().result), "");
    // the flush wording stays the flush's
    EXPECT_EQ(mismatch_message(flush_args(), o.result).rfind("data mismatch: 3 of 1000 ", 0), 0u);
}

TEST_F(XiwperfReport, VerifyFailures)
{
    // without --expect a failed completion is just that
    Client a = verify_args();
    Outcome o = failed(EIO, XIWPERF_REASON_WC);
    o.result.wc_status = 9;  // what xiw's Verify completes with on a mismatch
    o.result.completed = 7;
    EXPECT_TRUE(fails(a, o, {"REM_INV_REQ_ERR", "7"}));
    EXPECT_FALSE(has_word(error_message(a, o), "--expect"));

    // with --expect the server's device ends the stream on a hash other
    // than the expected one: the run fails with the remote error
    a.expect = true;
    EXPECT_TRUE(fails(a, o, {"REM_INV_REQ_ERR", "7", "--expect", "terminates"}));
    EXPECT_FALSE(has_word(error_message(a, o), "right"));
    EXPECT_TRUE(says(json_error(a, o), {"REM_INV_REQ_ERR", "7", "--expect", "terminates"}));
    EXPECT_EQ(exit_status(a, o), exit_failed);
    a.expect_hash = {0x01, 0x02};
    EXPECT_TRUE(fails(a, o, {"REM_INV_REQ_ERR", "7", "--expect", "terminates", "right"}));
    // or the connection's end, seen first
    Outcome d = failed(ECONNRESET, XIWPERF_REASON_DISCONNECTED);
    d.result.completed = 7;
    EXPECT_TRUE(fails(a, d, {"disconnected", "7", "--expect", "terminates", "right"}));
    a.expect = false;
    a.expect_hash.clear();
    EXPECT_TRUE(fails(a, d, {"disconnected", "7"}));
    EXPECT_FALSE(has_word(error_message(a, d), "--expect"));
    // not for the other operations
    EXPECT_TRUE(fails(args(Op::write), o, {"REM_INV_REQ_ERR", "7"}));
    EXPECT_FALSE(has_word(error_message(args(Op::write), o), "--expect"));

    // --check wants a region per outstanding operation, as write's
    o = failed(EMSGSIZE, XIWPERF_REASON_REMOTE_TOO_SMALL);
    o.result.remote_size = 1 << 20;
    o.result.regions = 16;
    EXPECT_TRUE(fails(a, o, {"1048576", "16", "65536", "verify", "--check", "32", "--size"}));
}

TEST_F(XiwperfReport, VerifyUnsupported)
{
    Client a = verify_args();
    Outcome o = failed(EOPNOTSUPP, XIWPERF_REASON_UNSUPPORTED);
    std::strcpy(o.result.device, "siw0");
    o.result.unsupported = XIWPERF_UNSUPPORTED_VERIFY;
    EXPECT_TRUE(fails(a, o, {"siw0", "Verify", "xiw"}));
    EXPECT_EQ(exit_status(a, o), exit_failed);
    o.result.remote_reason = XIWPERF_REJECT_UNSUPPORTED;
    EXPECT_TRUE(fails(a, o, {"10.1.0.1:9000", "rejected", "Verify", "xiw"}));
}

TEST_F(XiwperfReport, ServerWithItsOwnHashRejectsAnother)
{
    Client a = verify_args();  // crc32c
    Outcome o = failed(EOPNOTSUPP, XIWPERF_REASON_UNSUPPORTED);
    o.result.unsupported = XIWPERF_UNSUPPORTED_HASH;
    o.result.remote_reason = XIWPERF_REJECT_UNSUPPORTED;
    o.result.limit = XIWPERF_HASH_SHA256;
    EXPECT_TRUE(fails(a, o, {"10.1.0.1:9000", "rejected", "sha256", "crc32c"}));
    EXPECT_EQ(json_error(a, o), error_message(a, o));
    EXPECT_EQ(exit_status(a, o), exit_failed);
    EXPECT_EQ(XIWPERF_UNSUPPORTED_HASH, 11);
}

TEST_F(XiwperfReport, BackedServerRejectsOtherDevices)
{
    Client a = args();
    Outcome o = failed(EOPNOTSUPP, XIWPERF_REASON_UNSUPPORTED);
    std::strcpy(o.result.device, "siw0");
    o.result.unsupported = XIWPERF_UNSUPPORTED_BACKING;
    o.result.remote_reason = XIWPERF_REJECT_UNSUPPORTED;
    EXPECT_TRUE(fails(a, o, {"10.1.0.1:9000", "rejected", "backed", "xiw"}));
    EXPECT_EQ(json_error(a, o), error_message(a, o));
    EXPECT_EQ(exit_status(a, o), exit_failed);
    // whatever the operation, and an IPv6 server in brackets
    a = verify_args();
    a.addr = *parse_address("fd00::1");
    EXPECT_TRUE(fails(a, o, {"[fd00::1]:9000", "rejected", "backed", "xiw"}));
}

// The other tests say which facts a failed run's message holds; these few
// say it whole, one of each kind of reason, so that the wording is read too.
TEST_F(XiwperfReport, ErrorMessagesReadAsDocumented)
{
    const Client a = args();
    Outcome o = failed(ECONNREFUSED, XIWPERF_REASON_REFUSED);
    EXPECT_EQ(error_message(a, o),
              "connection to 10.1.0.1:9000 refused: no xiwperf server listening there");

    o = failed(ECONNREFUSED, XIWPERF_REASON_REJECTED);
    o.result.remote_reason = XIWPERF_REJECT_RESOURCES;
    EXPECT_EQ(error_message(a, o),
              "the server at 10.1.0.1:9000 rejected the connection: it could not allocate "
              "the connection's resources");

    o = failed(EIO, XIWPERF_REASON_WC);
    o.result.wc_status = 5;
    o.result.completed = 12;
    EXPECT_EQ(error_message(a, o), "an operation failed with WR_FLUSH_ERR after 12 completed");

    Client slow = args();
    slow.timeout_ms = 2500;
    EXPECT_EQ(error_message(slow, failed(ETIMEDOUT, XIWPERF_REASON_TIMEOUT)),
              "no progress for 2.5 s: gave up");

    o = failed(EMSGSIZE, XIWPERF_REASON_REMOTE_TOO_SMALL);
    o.result.remote_size = 1 << 20;
    o.result.regions = 16;
    EXPECT_EQ(error_message(a, o),
              "the server's buffer (1048576 bytes) holds 16 regions of 65536 bytes, write "
              "--check needs one per outstanding operation (qps * depth = 32): start the "
              "server with a larger --size");

    o = failed(ENOENT, XIWPERF_REASON_ADDR);
    o.result.cm_status = -ENOENT;
    EXPECT_EQ(error_message(a, o),
              "cannot resolve 10.1.0.1 to an RDMA device: No such file or directory");

    Outcome no_result;
    no_result.error = EINVAL;
    EXPECT_EQ(error_message(a, no_result), "running the test failed: Invalid argument");

    Client read = args(Op::read);
    read.sge = 2;
    o = failed(EOPNOTSUPP, XIWPERF_REASON_UNSUPPORTED);
    std::strcpy(o.result.device, "xiw0");
    o.result.unsupported = XIWPERF_UNSUPPORTED_SGE;
    o.result.limit = 1;
    EXPECT_EQ(error_message(read, o),
              "device xiw0 does not support 2 SGEs per RDMA Read: its max_sge_rd is 1");

    o = failed(EOPNOTSUPP, XIWPERF_REASON_UNSUPPORTED);
    o.result.unsupported = XIWPERF_UNSUPPORTED_BACKING;
    o.result.remote_reason = XIWPERF_REJECT_UNSUPPORTED;
    Client v6 = verify_args();
    v6.addr = *parse_address("fd00::1");
    EXPECT_EQ(error_message(v6, o),
              "the server at [fd00::1]:9000 rejected the connection: its buffer is backed by a "
              "file or DAX device, which only an xiw device serves");

    o = failed(EIO, XIWPERF_REASON_WC);
    o.result.wc_status = 10;
    EXPECT_EQ(error_message(flush_args(), o),
              "an operation failed with REM_ACCESS_ERR after 0 completed (a server refuses a "
              "Flush to persistence of memory that is not persistent: xiw counts plain memory "
              "(DRAM) as persistent only with its module parameter dram_persistent=1)");

    o = good();
    o.result.data_ok = 0;
    o.result.mismatches = 3;
    o.result.first_bad_qp = 1;
    o.result.first_bad_seq = 17;
    o.result.first_bad_offset = 5;
    EXPECT_EQ(mismatch_message(a, o.result),
              "data mismatch: 3 of 1000 operations had wrong data; first: connection 1, "
              "operation 17, byte 5");

    o = atomic_good(5);
    o.result.data_ok = 0;
    o.result.atomic_final = 1004;
    EXPECT_EQ(mismatch_message(atomic_args(), o.result),
              "atomic mismatch: the word went from 0x5 to 0x3ec, expected 0x3ed");
}
