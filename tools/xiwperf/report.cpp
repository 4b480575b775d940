// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "report.hpp"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include <sys/socket.h>

#include "atomic.hpp"

namespace xiwperf {

namespace {

std::string endpoint(const Client& args)
{
    if (args.addr.family == AF_INET6)
        return "[" + args.addr.text + "]:" + std::to_string(args.port);
    return args.addr.text + ":" + std::to_string(args.port);
}

std::string errno_text(int err)
{
    return std::strerror(err < 0 ? -err : err);
}

std::string reject_text(std::uint32_t why)
{
    switch (why) {
    case XIWPERF_REJECT_PROTOCOL:
        return "it did not understand the request (another xiwperf version?)";
    case XIWPERF_REJECT_RESOURCES:
        return "it could not allocate the connection's resources";
    case XIWPERF_REJECT_UNSUPPORTED:
        return "its device does not support what the request asks for";
    default:
        return "reason " + std::to_string(why);
    }
}

std::string plural(std::uint64_t n, const std::string& one, const std::string& many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// SGEs each operation uses: one per byte of a buffer shorter than --sge.
std::uint64_t sges_used(const Client& args)
{
    return std::min<std::uint64_t>(args.sge, args.size);
}

std::string device_or(const xiwperf_result& r, const std::string& fallback)
{
    std::string dev(r.device, strnlen(r.device, sizeof(r.device)));
    return dev.empty() ? fallback : "device " + dev;
}

// What a Flush run (--persist, --global) brings the data to: "persistence",
// "global visibility" or both.
std::string flush_disposition(const Client& args)
{
    if (args.persist && args.global)
        return "persistence and global visibility";
    return args.persist ? "persistence" : "global visibility";
}

// Octets as lower-case hex digits, two each, without prefix (--expect HEX
// as given, whatever its case).
std::string hex_bytes(const std::vector<std::uint8_t>& bytes)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    for (std::uint8_t b : bytes) {
        s += digits[b >> 4];
        s += digits[b & 0xf];
    }
    return s;
}

// What a Verify run sends as the expected hash: "own" (the client's own
// hash), its hex digits, or "" without --expect.
std::string verify_expect(const Client& args)
{
    if (!args.expect)
        return {};
    return args.expect_hash.empty() ? "own" : hex_bytes(args.expect_hash);
}

// Why a Verify run with --expect may fail (a failed completion, or the
// connection's end seen first): the server's device terminates the stream
// when the hash is not the expected one. "" for other runs.
std::string expect_hint(const Client& args)
{
    if (args.op != Op::verify || !args.expect)
        return {};
    return std::string(" (with --expect the server's device terminates the stream when the "
                       "region's hash is not the expected one") +
           (args.expect_hash.empty() ? ")" : ": is the --expect value right?)");
}

std::string unsupported_text(const Client& args, const Outcome& out)
{
    const xiwperf_result& r = out.result;
    std::string sges = plural(sges_used(args), "SGE", "SGEs");
    switch (r.unsupported) {
    case XIWPERF_UNSUPPORTED_SGE:
        if (args.op == Op::read)
            return device_or(r, "the device") + " does not support " + sges +
                   " per RDMA Read: its max_sge_rd is " + std::to_string(r.limit);
        return device_or(r, "the device") + " does not support " + sges + " per " +
               (args.op == Op::send        ? "Send"
                : args.op == Op::write_imm ? "RDMA Write with Immediate"
                                           : "RDMA Write") +
               ": its max_send_sge is " +
               std::to_string(r.limit);
    case XIWPERF_UNSUPPORTED_RECV_SGE:
        return "the server at " + endpoint(args) + " rejected the connection: its device " +
               "does not support " + sges + " per receive: its max_recv_sge is " +
               std::to_string(r.limit);
    case XIWPERF_UNSUPPORTED_FRWR:
        return device_or(r, "the device") + " does not support fast registration of " +
               plural(args.size, "byte", "bytes") + ": its max_fast_reg_page_list_len is " +
               std::to_string(r.limit) + " pages";
    case XIWPERF_UNSUPPORTED_REMOTE_FRWR:
        return "the server at " + endpoint(args) + " rejected the connection: its device " +
               "does not support fast registration of its buffer's chunks: its " +
               "max_fast_reg_page_list_len is " + std::to_string(r.limit) + " pages";
    case XIWPERF_UNSUPPORTED_SRQ:
        return "the server at " + endpoint(args) + " rejected the connection: its device " +
               "does not support shared receive queues: its max_srq_wr is " +
               std::to_string(r.limit);
    case XIWPERF_UNSUPPORTED_ATOMIC: {
        // Atomic Write has a capability flag of its own, no atomic_cap.
        if (args.op == Op::atomic_write) {
            std::string why = "does not support Atomic Write: IB_DEVICE_ATOMIC_WRITE is not in "
                              "its device_cap_flags";
            if (r.remote_reason == XIWPERF_REJECT_UNSUPPORTED)
                return "the server at " + endpoint(args) +
                       " rejected the connection: its device " + why;
            return device_or(r, "the device") + " " + why;
        }
        std::string what = is_masked(args.op) ? "masked atomic operations" : "atomic operations";
        std::string cap = is_masked(args.op) ? "masked_atomic_cap" : "atomic_cap";
        if (r.remote_reason == XIWPERF_REJECT_UNSUPPORTED)
            return "the server at " + endpoint(args) + " rejected the connection: its device " +
                   "does not support " + what + ": its " + cap + " is IB_ATOMIC_NONE";
        return device_or(r, "the device") + " does not support " + what + ": its " + cap +
               " is IB_ATOMIC_NONE";
    }
    case XIWPERF_UNSUPPORTED_FLUSH: {
        // Only the local device is checked; each disposition has its flag.
        std::string flags = args.persist && args.global
                                ? "IB_DEVICE_FLUSH_PERSISTENT and IB_DEVICE_FLUSH_GLOBAL are not "
                                  "both"
                            : args.persist ? "IB_DEVICE_FLUSH_PERSISTENT is not"
                                           : "IB_DEVICE_FLUSH_GLOBAL is not";
        return device_or(r, "the device") + " does not support RDMA Flush to " +
               flush_disposition(args) + ": " + flags + " in its device_cap_flags";
    }
    case XIWPERF_UNSUPPORTED_VERIFY: {
        // Verify has no verb: only an xiw device posts or serves one.
        std::string why = "does not support RDMA Verify: it is not an xiw device (or the xiw "
                          "module is not loaded)";
        if (r.remote_reason == XIWPERF_REJECT_UNSUPPORTED)
            return "the server at " + endpoint(args) + " rejected the connection: its device " +
                   why;
        return device_or(r, "the device") + " " + why;
    }
    case XIWPERF_UNSUPPORTED_HASH:
        // The server's --hash; result.limit names it.
        return "the server at " + endpoint(args) + " rejected the connection: it verifies with " +
               std::string(hash_name(static_cast<Hash>(r.limit))) + " only (its --hash), not " +
               std::string(hash_name(args.hash));
    case XIWPERF_UNSUPPORTED_BACKING:
        // Only xiw places into a file's or DAX device's pages: the server's
        // check alone.
        return "the server at " + endpoint(args) + " rejected the connection: its buffer is " +
               "backed by a file or DAX device, which only an xiw device serves";
    case XIWPERF_UNSUPPORTED_INLINE: {
        std::string what = device_or(r, "the device") + " does not support " +
                           plural(args.size, "byte", "bytes") + " of inline data: ";
        if (r.limit)
            return what + "it grants at most " + std::to_string(r.limit);
        return what + "it refused the QP (" + errno_text(out.error) + ")";
    }
    default:
        return device_or(r, "the device") + " does not support what the run asks for";
    }
}

double seconds(const xiwperf_result& r)
{
    return static_cast<double>(r.nsec) / 1e9;
}

double gbit_per_s(const xiwperf_result& r)
{
    return r.nsec ? static_cast<double>(r.bytes) * 8.0 / static_cast<double>(r.nsec) : 0.0;
}

double mops(const xiwperf_result& r)
{
    return r.nsec ? static_cast<double>(r.completed) * 1e3 / static_cast<double>(r.nsec) : 0.0;
}

double us(std::uint64_t ns)
{
    return static_cast<double>(ns) / 1e3;
}

std::string fmt(const char* f, double v)
{
    std::array<char, 64> buf{};
    std::snprintf(buf.data(), buf.size(), f, v);
    return buf.data();
}

// An operand of an atomic run: its JSON member, its name in text, value.
struct Operand {
    const char* key;
    const char* text;
    std::uint64_t value;
};

// The operands of an atomic run's operation (none for another one).
std::vector<Operand> operands(const Client& args)
{
    switch (args.op) {
    case Op::fetch_add:
        return {{"add", "add", args.add}};
    case Op::masked_fetch_add:
        return {{"add", "add", args.add}, {"mask", "mask", args.mask}};
    case Op::cmp_swap:
        return {{"compare", "compare", args.compare}, {"swap", "swap", args.swap}};
    case Op::masked_cmp_swap:
        return {{"compare", "compare", args.compare},
                {"swap", "swap", args.swap},
                {"mask", "mask", args.mask},
                {"compare_mask", "compare mask", args.compare_mask}};
    default:
        return {};
    }
}

// f^count(init): the word an atomic run must leave.
std::uint64_t atomic_expected(const Client& args, const xiwperf_result& r)
{
    return atomic_apply_n(atomic_op(args), r.atomic_init, args.count);
}

// The last Atomic Write of some connection (atomic_write_last()), in
// words: "the last Atomic Write of connection 1, operation 499".
std::string atomic_write_text(const AtomicWriteOp& op)
{
    return "the last Atomic Write of connection " + std::to_string(op.qp) + ", operation " +
           std::to_string(op.seq);
}

// What an Atomic Write run's --check found wrong. There is no one expected
// value: the word must end as the last value of some connection, which
// the module decides (data_ok); this recomputes it only to say why.
std::string atomic_write_mismatch_message(const Client& args, const xiwperf_result& r)
{
    std::vector<std::string> what;
    if (r.checked && !r.data_ok && !atomic_write_last(args, r.atomic_final))
        what.push_back("the word ended as " + hex(r.atomic_final) +
                       ", which is no connection's last Atomic Write (torn or out of order)");
    // Nothing comes back to compare: a mismatch is a wrong completion.
    if (r.mismatches)
        what.push_back(std::to_string(r.mismatches) + " of " + std::to_string(r.completed) +
                       " operations completed with the wrong opcode; first: connection " +
                       std::to_string(r.first_bad_qp) + ", operation " +
                       std::to_string(r.first_bad_seq));
    if (what.empty() && r.checked && !r.data_ok)
        what.push_back("the module found the word's final value wrong");
    if (what.empty())
        return {};
    std::string msg = "atomic write mismatch: " + what[0];
    for (size_t i = 1; i < what.size(); i++)
        msg += "; " + what[i];
    return msg;
}

std::string atomic_mismatch_message(const Client& args, const xiwperf_result& r)
{
    std::vector<std::string> what;
    if (r.mismatches)
        what.push_back(std::to_string(r.mismatches) + " of " + std::to_string(r.completed) +
                       " operations returned an original value no order of the operations "
                       "gives (or completed with the wrong opcode); first: connection " +
                       std::to_string(r.first_bad_qp) + ", operation " +
                       std::to_string(r.first_bad_seq));
    if (r.checked && r.atomic_final != atomic_expected(args, r))
        what.push_back("the word went from " + hex(r.atomic_init) + " to " +
                       hex(r.atomic_final) + ", expected " + hex(atomic_expected(args, r)));
    if (what.empty() && r.checked && !r.data_ok)
        what.push_back("the module found the word's final value wrong");
    if (what.empty())
        return {};
    std::string msg = "atomic mismatch: " + what[0];
    for (size_t i = 1; i < what.size(); i++)
        msg += "; " + what[i];
    return msg;
}

}  // namespace

std::string wc_status_name(std::uint32_t status)
{
    // enum ib_wc_status (include/rdma/ib_verbs.h), same as ibv_wc_status.
    static constexpr std::array<const char*, 22> names = {
        "SUCCESS",          "LOC_LEN_ERR",        "LOC_QP_OP_ERR",     "LOC_EEC_OP_ERR",
        "LOC_PROT_ERR",     "WR_FLUSH_ERR",       "MW_BIND_ERR",       "BAD_RESP_ERR",
        "LOC_ACCESS_ERR",   "REM_INV_REQ_ERR",    "REM_ACCESS_ERR",    "REM_OP_ERR",
        "RETRY_EXC_ERR",    "RNR_RETRY_EXC_ERR",  "LOC_RDD_VIOL_ERR",  "REM_INV_RD_REQ_ERR",
        "REM_ABORT_ERR",    "INV_EECN_ERR",       "INV_EEC_STATE_ERR", "FATAL_ERR",
        "RESP_TIMEOUT_ERR", "GENERAL_ERR",
    };
    if (status < names.size())
        return names[status];
    return "status " + std::to_string(status);
}

std::string error_message(const Client& args, const Outcome& out)
{
    if (!out.error)
        return {};
    const xiwperf_result& r = out.result;
    if (!out.has_result)
        return "running the test failed: " + errno_text(out.error);
    switch (r.reason) {
    case XIWPERF_REASON_ADDR:
        if (r.cm_status == -ETIMEDOUT)
            return "cannot resolve " + args.addr.text + ": no neighbour answered";
        return "cannot resolve " + args.addr.text + " to an RDMA device: " +
               errno_text(r.cm_status ? r.cm_status : out.error);
    case XIWPERF_REASON_ROUTE:
        return "no route to " + args.addr.text + ": " +
               errno_text(r.cm_status ? r.cm_status : out.error);
    case XIWPERF_REASON_REFUSED:
        return "connection to " + endpoint(args) + " refused: no xiwperf server listening there";
    case XIWPERF_REASON_REJECTED:
        return "the server at " + endpoint(args) + " rejected the connection: " +
               reject_text(r.remote_reason);
    case XIWPERF_REASON_UNREACHABLE:
        return "cannot connect to " + endpoint(args) + ": " +
               errno_text(r.cm_status < 0 ? r.cm_status : out.error);
    case XIWPERF_REASON_TIMEOUT: {
        auto ms = args.timeout_ms ? args.timeout_ms : XIWPERF_DEFAULT_TIMEOUT_MS;
        return "no progress for " + fmt("%g", ms / 1000.0) + " s: gave up";
    }
    case XIWPERF_REASON_WC: {
        std::string msg = "an operation failed with " + wc_status_name(r.wc_status) + " after " +
                          std::to_string(r.completed) + " completed";
        // What refuses a good Flush to persistence: the server's memory.
        if (args.op == Op::flush && args.persist && args.inject == Inject::none &&
            wc_status_name(r.wc_status) == "REM_ACCESS_ERR")
            msg += " (a server refuses a Flush to persistence of memory that is not persistent: "
                   "xiw counts plain memory (DRAM) as persistent only with its module parameter "
                   "dram_persistent=1)";
        return msg + expect_hint(args);
    }
    case XIWPERF_REASON_DISCONNECTED:
        return "the server disconnected after " + std::to_string(r.completed) +
               " operations completed" + expect_hint(args);
    case XIWPERF_REASON_DEVICE_REMOVED:
        return "the RDMA device went away";
    case XIWPERF_REASON_REMOTE_TOO_SMALL:
        if ((args.op == Op::write || writes_first(args.op)) && args.check && r.regions)
            return "the server's buffer (" + std::to_string(r.remote_size) + " bytes) holds " +
                   std::to_string(r.regions) + " regions of " + std::to_string(args.size) +
                   " bytes, " + std::string(op_name(args.op)) +
                   " --check needs one per outstanding operation (qps * depth = " +
                   std::to_string(std::uint64_t{args.qps} * args.depth) +
                   "): start the server with a larger --size";
        if (args.op == Op::write_imm && args.check && r.regions)
            return "the server's buffer (" + std::to_string(r.remote_size) + " bytes) holds " +
                   std::to_string(r.regions) + " regions of " + std::to_string(args.size) +
                   " bytes, write_imm --check needs one per receive the server posts for each "
                   "connection (qps * 2 * depth, normally = " +
                   std::to_string(2 * std::uint64_t{args.qps} * args.depth) +
                   "): start the server with a larger --size";
        return "the server's buffer (" + std::to_string(r.remote_size) +
               " bytes) is smaller than --size";
    case XIWPERF_REASON_INTERRUPTED:
        return "interrupted after " + std::to_string(r.completed) + " operations completed";
    case XIWPERF_REASON_RESOURCES:
        return "setting up the connection failed: " + errno_text(out.error) +
               (out.error == EINVAL ? " (beyond the device's limits?)" : "");
    case XIWPERF_REASON_PROTOCOL:
        return "the peer at " + endpoint(args) + " is not a compatible xiwperf server";
    case XIWPERF_REASON_POST:
        if (is_imm(args.op))
            return "posting a work request failed: " + errno_text(out.error) +
                   " (there is no capability bit for Immediate Data: an iWARP device that "
                   "does not implement RFC 7306, siw for one, refuses it)";
        return "posting a work request failed: " + errno_text(out.error);
    case XIWPERF_REASON_UNSUPPORTED:
        return unsupported_text(args, out);
    default:
        return "the test failed: " + errno_text(out.error);
    }
}

std::string completion_message(const xiwperf_result& r)
{
    if (!r.wc_unexpected && !r.wc_missing)
        return {};
    return "the device broke completion semantics: " + std::to_string(r.wc_unexpected) +
           " completions for work requests not outstanding, " + std::to_string(r.wc_missing) +
           " work requests never completed (not even flushed)";
}

std::string hex(std::uint64_t v)
{
    std::array<char, 24> buf{};
    std::snprintf(buf.data(), buf.size(), "0x%" PRIx64, v);
    return buf.data();
}

std::string mismatch_message(const Client& args, const xiwperf_result& r)
{
    if (is_atomic(args.op))
        return atomic_mismatch_message(args, r);
    if (args.op == Op::atomic_write)
        return atomic_write_mismatch_message(args, r);
    if (!r.mismatches)
        return {};
    // A Verify's check compares hashes (and opcodes): no byte to name.
    if (args.op == Op::verify)
        return "verify mismatch: " + std::to_string(r.mismatches) + " of " +
               std::to_string(r.completed) +
               " Verify operations returned a hash other than the client's (or completed with "
               "the wrong opcode); first: connection " +
               std::to_string(r.first_bad_qp) + ", operation " + std::to_string(r.first_bad_seq);
    if (is_imm(args.op)) {
        std::string first = "connection " + std::to_string(r.first_bad_qp) + ", operation " +
                            std::to_string(r.first_bad_seq);
        if (r.first_bad_offset == XIWPERF_BAD_COMPLETION)
            first += ": its receive completion was wrong (opcode, IB_WC_WITH_IMM, length, or "
                     "an immediate value other than " +
                     (args.imm ? hex(*args.imm) : std::string("its sequence number")) + ")";
        else
            first += ": byte " + std::to_string(r.first_bad_offset) +
                     " of its region was not written when its completion came";
        return "immediate data mismatch: " + std::to_string(r.mismatches) + " of " +
               std::to_string(r.completed) + " messages failed the server's check; first: " +
               first;
    }
    // A Flush run's check counts completions that are not a Flush's too.
    std::string msg = "data mismatch: " + std::to_string(r.mismatches) + " of " +
                      std::to_string(r.completed) + " operations had wrong data" +
                      (args.op == Op::flush ? " or completed with the wrong opcode" : "") +
                      "; first: connection " +
                      std::to_string(r.first_bad_qp) + ", operation " +
                      std::to_string(r.first_bad_seq) + ", byte " +
                      std::to_string(r.first_bad_offset);
    if (args.op == Op::read)
        msg += " (the server writes the read pattern once, at start: has a write client "
               "overwritten it since?)";
    return msg;
}

nlohmann::json to_json(const Client& args, const Outcome& out)
{
    const xiwperf_result& r = out.result;
    nlohmann::json j = {
        {"device", std::string(r.device, strnlen(r.device, sizeof(r.device)))},
        {"op", op_name(args.op)},
        {"size", args.size},
        {"count", args.count},
        {"qps", args.qps},
        {"depth", args.depth},
        {"sge", args.sge},
        {"inline", args.inline_data},
        {"completed", r.completed},
        {"errors", r.errors},
        {"mismatches", r.mismatches},
        {"flushed", r.flushed},
        {"wc_unexpected", r.wc_unexpected},
        {"wc_missing", r.wc_missing},
        {"data_ok", nullptr},
        {"seconds", seconds(r)},
        {"bytes", r.bytes},
        {"gbit_per_s", gbit_per_s(r)},
        {"mops", mops(r)},
        {"lat_us",
         {{"min", us(r.lat_min_ns)},
          {"p50", us(r.lat_p50_ns)},
          {"p99", us(r.lat_p99_ns)},
          {"max", us(r.lat_max_ns)},
          {"mean", us(r.lat_mean_ns)}}},
    };
    if (r.checked)
        j["data_ok"] = r.data_ok != 0;
    j["mr"] = mr_name(args.mr);
    j["remote_mr"] = mr_name(args.remote_mr);
    j["registrations"] = out.registrations;
    j["inject"] = nullptr;
    if (args.inject != Inject::none)
        j["inject"] = inject_name(args.inject);
    if (args.inject == Inject::cq_overflow)
        j["conns_failed"] = r.conns_failed;
    j["async_events"] = {{"qp_fatal", r.qp_fatal_events},
                         {"qp_req_err", r.qp_req_err_events},
                         {"qp_access_err", r.qp_access_err_events},
                         {"cq_err", r.cq_err_events}};
    // The first failed completion, whatever ended the run.
    j["wc_status"] = nullptr;
    if (r.wc_status)
        j["wc_status"] = wc_status_name(r.wc_status);
    if (args.srq) {
        j["srq"] = true;
        j["srq_arms"] = out.srq_arms;
        j["srq_crossed"] = out.srq_crossed;
        j["srq_limit_events"] = out.srq_limit_events;
        j["srq_stray_events"] = r.srq_stray_events;
    }
    if (args.solicit) {
        j["solicit"] = args.solicit;
        j["solicited"] = r.solicited;
        j["notifications"] = r.notifications;
        j["first_batch"] = r.first_batch;
    }
    // The immediate value: null for each operation's sequence number.
    if (is_imm(args.op)) {
        j["imm"] = nullptr;
        if (args.imm)
            j["imm"] = *args.imm;
    }
    // What a Flush brought the data to, and of what: flush runs only.
    if (args.op == Op::flush)
        j["flush"] = {{"persist", args.persist},
                      {"global", args.global},
                      {"level", args.whole_mr ? "mr" : "range"}};
    // The hash and the expected one sent (null, "own" or hex): verify runs
    // only.
    if (args.op == Op::verify) {
        std::string expect = verify_expect(args);
        j["verify"] = {{"hash", hash_name(args.hash)},
                       {"expect", nullptr},
                       {"write", !args.no_write}};
        if (!expect.empty())
            j["verify"]["expect"] = expect;
    }
    if (targets_word(args.op)) {
        for (const Operand& o : operands(args))
            j[o.key] = o.value;
        // The word before and after, and what it should be: --check only.
        // An Atomic Write run has no one expected value (any connection's
        // last will do), so its atomic_expected stays null.
        j["atomic_init"] = nullptr;
        j["atomic_final"] = nullptr;
        j["atomic_expected"] = nullptr;
        if (r.checked) {
            j["atomic_init"] = r.atomic_init;
            j["atomic_final"] = r.atomic_final;
            if (is_atomic(args.op))
                j["atomic_expected"] = atomic_expected(args, r);
        }
    }
    if (auto e = error_message(args, out); !e.empty())
        j["error"] = e;
    else if (auto c = completion_message(r); !c.empty())
        j["error"] = c;
    else if (auto m = mismatch_message(args, r); !m.empty())
        j["error"] = m;
    return j;
}

std::string to_text(const Client& args, const Outcome& out)
{
    const xiwperf_result& r = out.result;
    std::string dev(r.device, strnlen(r.device, sizeof(r.device)));
    std::string data = r.checked ? (r.data_ok ? "data ok" : "DATA MISMATCH") : "data not checked";
    std::string how = std::to_string(args.qps) + (args.qps == 1 ? " QP" : " QPs") + ", depth " +
                      std::to_string(args.depth);
    if (args.sge > 1)
        how += ", " + plural(args.sge, "SGE", "SGEs");
    if (args.inline_data)
        how += ", inline";
    if (args.solicit)
        how += ", solicit every " + std::to_string(args.solicit);
    if (args.mr == Mr::frwr)
        how += ", mr frwr";
    if (args.remote_mr == Mr::frwr)
        how += ", remote mr frwr";
    if (args.srq)
        how += ", srq";
    for (const Operand& o : operands(args))
        how += ", " + std::string(o.text) + " " + hex(o.value);
    if (is_imm(args.op))
        how += ", imm " + (args.imm ? hex(*args.imm) : std::string("seq"));
    if (args.op == Op::flush)
        how += ", flush to " + flush_disposition(args) +
               (args.whole_mr ? " (whole MR)" : " (range)");
    if (args.op == Op::verify) {
        how += ", verify " + std::string(hash_name(args.hash));
        if (args.no_write)
            how += " (no write)";
        if (args.expect)
            how += args.expect_hash.empty() ? ", expect own"
                                            : ", expect " + verify_expect(args);
    }
    if (args.inject != Inject::none)
        how += ", inject " + std::string(inject_name(args.inject));
    std::string text =
        std::string(op_name(args.op)) + " " + std::to_string(args.size) + " B x " +
        std::to_string(args.count) + " on " + (dev.empty() ? "-" : dev) + ", " + how + ": " +
        std::to_string(r.completed) + " completed, " + std::to_string(r.errors) + " errors, " +
        data + "\n" + fmt("%.3f s, ", seconds(r)) + fmt("%.3f Gbit/s, ", gbit_per_s(r)) +
        fmt("%.4f Mop/s, ", mops(r)) + fmt("latency us p50 %.1f", us(r.lat_p50_ns)) +
        fmt(" p99 %.1f", us(r.lat_p99_ns)) + fmt(" max %.1f\n", us(r.lat_max_ns));
    if (args.solicit)
        text += plural(r.solicited, "solicited Send", "solicited Sends") + ", " +
                plural(r.notifications, "server notification", "server notifications") +
                ", first wake-up processed " + plural(r.first_batch, "message", "messages") +
                "\n";
    if (args.mr == Mr::frwr)
        text += plural(out.registrations, "fast registration", "fast registrations") + "\n";
    if (is_atomic(args.op) && r.checked)
        text += "word " + hex(r.atomic_init) + " before, " + hex(r.atomic_final) +
                " after (expected " + hex(atomic_expected(args, r)) + ")\n";
    if (args.op == Op::atomic_write && r.checked) {
        auto last = atomic_write_last(args, r.atomic_final);
        text += "word " + hex(r.atomic_init) + " before, " + hex(r.atomic_final) + " after (" +
                (last ? atomic_write_text(*last) : "no connection's last Atomic Write") + ")\n";
    }
    if (args.srq)
        text += "SRQ limit: " + plural(out.srq_arms, "arm", "arms") + ", " +
                std::to_string(out.srq_crossed) + " crossed, " +
                plural(out.srq_limit_events, "limit event", "limit events") + ", " +
                std::to_string(r.srq_stray_events) + " stray\n";
    return text;
}

int exit_status(const Client& args, const Outcome& out)
{
    if (out.error)
        return exit_failed;
    if (out.result.mismatches || (args.check && !out.result.data_ok))
        return exit_mismatch;
    if (out.result.errors || out.result.completed != args.count || out.result.wc_unexpected ||
        out.result.wc_missing)
        return exit_failed;
    return exit_ok;
}

}  // namespace xiwperf
