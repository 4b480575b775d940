// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

#include "report.hpp"

namespace {

using namespace xiwperf;

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
    EXPECT_EQ(mismatch_message(args(), o.result),
              "data mismatch: 3 of 1000 operations had wrong data; first: connection 1, "
              "operation 17, byte 5");
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
    EXPECT_EQ(error_message(a, o),
              "connection to 10.1.0.1:9000 refused: no xiwperf server listening there");
    EXPECT_EQ(exit_status(a, o), exit_failed);
    auto j = to_json(a, o);
    EXPECT_EQ(j["error"], error_message(a, o));
    EXPECT_TRUE(j["data_ok"].is_null());
    EXPECT_EQ(j["completed"], 0);
    EXPECT_DOUBLE_EQ(j["gbit_per_s"].get<double>(), 0.0);

    o.result.reason = XIWPERF_REASON_REJECTED;
    o.result.remote_reason = XIWPERF_REJECT_RESOURCES;
    EXPECT_EQ(error_message(a, o),
              "the server at 10.1.0.1:9000 rejected the connection: it could not allocate "
              "the connection's resources");

    o.error = EIO;
    o.result.reason = XIWPERF_REASON_WC;
    o.result.wc_status = 5;
    o.result.completed = 12;
    EXPECT_EQ(error_message(a, o), "an operation failed with WR_FLUSH_ERR after 12 completed");

    o.error = ETIMEDOUT;
    o.result.reason = XIWPERF_REASON_TIMEOUT;
    EXPECT_EQ(error_message(a, o), "no progress for 15 s: gave up");
    a.timeout_ms = 2500;
    EXPECT_EQ(error_message(a, o), "no progress for 2.5 s: gave up");

    o.error = EMSGSIZE;
    o.result.reason = XIWPERF_REASON_REMOTE_TOO_SMALL;
    o.result.remote_size = 1 << 20;
    o.result.regions = 16;
    EXPECT_EQ(error_message(a, o),
              "the server's buffer (1048576 bytes) holds 16 regions of 65536 bytes, write "
              "--check needs one per outstanding operation (qps * depth = 32): start the "
              "server with a larger --size");
    o.result.regions = 0;
    EXPECT_EQ(error_message(a, o),
              "the server's buffer (1048576 bytes) is smaller than --size");

    o.error = ENOENT;
    o.result.reason = XIWPERF_REASON_ADDR;
    o.result.cm_status = -ENOENT;
    EXPECT_EQ(error_message(a, o),
              "cannot resolve 10.1.0.1 to an RDMA device: No such file or directory");

    o.error = ETIMEDOUT;
    o.result.cm_status = -ETIMEDOUT;
    EXPECT_EQ(error_message(a, o), "cannot resolve 10.1.0.1: no neighbour answered");

    o.error = EINTR;
    o.result.reason = XIWPERF_REASON_INTERRUPTED;
    o.result.completed = 7;
    EXPECT_EQ(error_message(a, o), "interrupted after 7 operations completed");
}

TEST_F(XiwperfReport, IoctlWithoutResult)
{
    Outcome o;
    o.error = EINVAL;
    EXPECT_EQ(error_message(args(), o), "running the test failed: Invalid argument");
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
    EXPECT_EQ(error_message(a, o),
              "device xiw0 does not support 2 SGEs per RDMA Read: its max_sge_rd is 1");
    EXPECT_EQ(exit_status(a, o), exit_failed);
    auto j = to_json(a, o);
    EXPECT_EQ(j["error"], error_message(a, o));
    EXPECT_TRUE(j["data_ok"].is_null());

    // a buffer shorter than --sge uses one SGE per byte
    a.size = 3;
    a.sge = 4;
    EXPECT_EQ(error_message(a, o),
              "device xiw0 does not support 3 SGEs per RDMA Read: its max_sge_rd is 1");

    a = args(Op::write);
    a.sge = 4;
    o.result.limit = 3;
    EXPECT_EQ(error_message(a, o),
              "device xiw0 does not support 4 SGEs per RDMA Write: its max_send_sge is 3");
    a.op = Op::send;
    EXPECT_EQ(error_message(a, o),
              "device xiw0 does not support 4 SGEs per Send: its max_send_sge is 3");

    o.result.unsupported = XIWPERF_UNSUPPORTED_RECV_SGE;
    o.result.remote_reason = XIWPERF_REJECT_UNSUPPORTED;
    o.result.limit = 2;
    EXPECT_EQ(error_message(a, o),
              "the server at 10.1.0.1:9000 rejected the connection: its device does not "
              "support 4 SGEs per receive: its max_recv_sge is 2");

    a = args(Op::send);
    a.inline_data = true;
    a.size = 300;
    o.error = EINVAL;
    o.result.unsupported = XIWPERF_UNSUPPORTED_INLINE;
    o.result.limit = 0;
    EXPECT_EQ(error_message(a, o),
              "device xiw0 does not support 300 bytes of inline data: it refused the QP "
              "(Invalid argument)");
    o.error = EOPNOTSUPP;
    o.result.limit = 256;
    EXPECT_EQ(error_message(a, o),
              "device xiw0 does not support 300 bytes of inline data: it grants at most 256");
    a.size = 1;
    EXPECT_EQ(error_message(a, o),
              "device xiw0 does not support 1 byte of inline data: it grants at most 256");

    std::memset(o.result.device, 0, sizeof(o.result.device));
    o.result.unsupported = 99;
    EXPECT_EQ(error_message(a, o), "the device does not support what the run asks for");
}

TEST_F(XiwperfReport, RejectedAsUnsupported)
{
    Outcome o = failed(ECONNREFUSED, XIWPERF_REASON_REJECTED);
    o.result.remote_reason = XIWPERF_REJECT_UNSUPPORTED;
    EXPECT_EQ(error_message(args(), o),
              "the server at 10.1.0.1:9000 rejected the connection: its device does not "
              "support what the request asks for");
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
    EXPECT_EQ(j["error"], "an operation failed with WR_FLUSH_ERR after 1 completed");
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
    EXPECT_EQ(j["error"], "the server disconnected after 1 operations completed");
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
    EXPECT_EQ(error_message(a, o),
              "device rxe0 does not support fast registration of 4194304 bytes: its "
              "max_fast_reg_page_list_len is 512 pages");
    o.result.unsupported = XIWPERF_UNSUPPORTED_REMOTE_FRWR;
    o.result.limit = 0;
    EXPECT_EQ(error_message(a, o),
              "the server at 10.1.0.1:9000 rejected the connection: its device does not "
              "support fast registration of its buffer's chunks: its "
              "max_fast_reg_page_list_len is 0 pages");
    o.result.unsupported = XIWPERF_UNSUPPORTED_SRQ;
    EXPECT_EQ(error_message(args(Op::send), o),
              "the server at 10.1.0.1:9000 rejected the connection: its device does not "
              "support shared receive queues: its max_srq_wr is 0");
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
    EXPECT_EQ(j["error"], "no progress for 15 s: gave up");
    EXPECT_EQ(j["solicited"], 5);
    EXPECT_EQ(j["notifications"], 0);
    EXPECT_EQ(j["first_batch"], 0);
}
