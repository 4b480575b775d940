// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "probe.hpp"

#include "uapi/xiwperf.h"

namespace xiwperf::probe {

namespace {

// RDMAP and DDP Terminate layers and types (RFC 5040 section 7.2 and
// RFC 5041 section 7.2, as xiw's events carry them).
constexpr std::uint8_t layer_rdmap = 0;
constexpr std::uint8_t layer_ddp = 1;
constexpr std::uint8_t rdmap_remote_protection = 1;
constexpr std::uint8_t rdmap_remote_operation = 2;
constexpr std::uint8_t ddp_tagged_buffer = 1;
constexpr std::uint8_t ddp_untagged_buffer = 2;

Client base(const Address& addr, std::uint16_t port, std::uint32_t timeout_ms,
                     Op op, std::uint64_t size)
{
    Client c;
    c.addr = addr;
    c.port = port;
    c.op = op;
    c.size = size;
    c.count = 1;
    c.timeout_ms = timeout_ms;
    return c;
}

// @c through the server's fast registrations, which alone carry the
// rights the operation needs; the fallback through @fault instead.
Attempt registered(std::string_view spec, Client c, Inject fault)
{
    Client fb = c;
    c.remote_mr = Mr::frwr;
    fb.inject = fault;
    return {op_name(c.op), spec, c, fb};
}

}  // namespace

std::vector<Attempt> attempts(const Address& addr, std::uint16_t port,
                              std::uint32_t timeout_ms)
{
    auto make = [&](Op op, std::uint64_t size) { return base(addr, port, timeout_ms, op, size); };

    // The atomics leave the word as it was: add 0; compare and swap in
    // 0 (a word that is not 0 stays, one that is stays 0); the masked
    // swap swaps no bit. Their fallback goes through the global rkey,
    // which has remote write but no atomic right (the draft's "buffer
    // with remote write permission").
    Client fetch_add = make(Op::fetch_add, atomic_size);
    fetch_add.add = 0;
    Client cmp_swap = make(Op::cmp_swap, atomic_size);
    Client masked_fetch_add = make(Op::masked_fetch_add, atomic_size);
    masked_fetch_add.add = 0;
    Client masked_cmp_swap = make(Op::masked_cmp_swap, atomic_size);
    masked_cmp_swap.compare_mask = 0;

    Client flush = make(Op::flush, 64);
    flush.global = true;  // to persistence depends on the server's memory
    Client verify = make(Op::verify, 64);
    verify.hash = Hash::crc32c;
    Client write_imm = make(Op::write_imm, 64);
    write_imm.imm = 0;
    Client imm = make(Op::imm, 0);
    imm.imm = 0;

    return {
        registered("rfc7306", fetch_add, Inject::rights),
        registered("rfc7306", cmp_swap, Inject::rights),
        registered("rfc7306", masked_fetch_add, Inject::rights),
        registered("rfc7306", masked_cmp_swap, Inject::rights),
        {op_name(Op::write_imm), "rfc7306", write_imm, std::nullopt},
        {op_name(Op::imm), "rfc7306", imm, std::nullopt},
        // The global rkey has no right for these three (and a Verify
        // needs the server's hash on the registration): a key the peer
        // has never seen, which a peer that knows them refuses with a
        // protection error.
        registered("commit", make(Op::atomic_write, atomic_size), Inject::stag),
        registered("commit", flush, Inject::stag),
        registered("commit", verify, Inject::stag),
    };
}

std::string_view verdict_name(Verdict v)
{
    switch (v) {
    case Verdict::supported: return "supported";
    case Verdict::not_supported: return "not_supported";
    case Verdict::local: return "local";
    case Verdict::unknown: break;
    }
    return "unknown";
}

Step next_step(const Outcome& out)
{
    if (!out.error || !out.has_result)
        return out.error ? Step::stop : Step::judged;
    const xiwperf_result& r = out.result;
    switch (r.reason) {
    case XIWPERF_REASON_UNSUPPORTED:
        // The server's device cannot register its buffer as the run
        // asks (its rejection), or the local device cannot send it.
        return r.remote_reason == XIWPERF_REJECT_UNSUPPORTED ? Step::fallback : Step::judged;
    case XIWPERF_REASON_WC:
    case XIWPERF_REASON_DISCONNECTED:
    case XIWPERF_REASON_TIMEOUT:
    case XIWPERF_REASON_POST:
        return Step::judged;
    default:
        // Nothing reached the peer: no route, no server, no resources.
        return Step::stop;
    }
}

Finding judge(const Attempt& attempt, const Client& args, const Outcome& out,
              const std::optional<xiw::TerminateInfo>& received)
{
    Finding f{attempt.op, attempt.spec, Verdict::unknown, {}, received,
              args.inject != Inject::none};
    if (!out.error) {
        f.verdict = Verdict::supported;
        f.evidence = "completed";
        return f;
    }
    if (out.has_result && out.result.reason == XIWPERF_REASON_UNSUPPORTED &&
        out.result.remote_reason != XIWPERF_REJECT_UNSUPPORTED) {
        f.verdict = Verdict::local;
        f.evidence = "local device";
        return f;
    }
    f.evidence = error_message(args, out);
    if (!received)
        return f;
    const xiw::TerminateInfo& t = *received;
    bool knew = t.layer == layer_rdmap && t.type == rdmap_remote_protection;
    bool unknown_op =
        (t.layer == layer_rdmap && t.type == rdmap_remote_operation) ||
        (t.layer == layer_ddp && (t.type == ddp_tagged_buffer || t.type == ddp_untagged_buffer));
    if (knew)
        f.verdict = Verdict::supported;
    else if (unknown_op)
        f.verdict = Verdict::not_supported;
    else
        return f;
    f.evidence = "terminate";
    return f;
}

}  // namespace xiwperf::probe
