// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "args.hpp"

#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "uapi/xiwperf.h"

namespace xiwperf {

namespace {

xiw::Error usage_error(std::string what)
{
    return xiw::make_error(EINVAL, std::move(what));
}

std::string quoted(std::string_view s)
{
    return "\"" + std::string(s) + "\"";
}

bool iequals(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); i++) {
        char x = a[i] >= 'A' && a[i] <= 'Z' ? char(a[i] - 'A' + 'a') : a[i];
        if (x != b[i])
            return false;
    }
    return true;
}

// Cursor over the words; "--opt=value" is split into "--opt" and "value".
class Words {
public:
    explicit Words(std::span<const std::string_view> w) : w_(w) {}
    [[nodiscard]] bool empty() const { return i_ >= w_.size() && !pending_; }

    std::string_view next()
    {
        if (pending_) {
            auto v = *pending_;
            pending_.reset();
            return v;
        }
        std::string_view word = w_[i_++];
        if (word.starts_with("--")) {
            auto eq = word.find('=');
            if (eq != std::string_view::npos) {
                pending_ = word.substr(eq + 1);
                return word.substr(0, eq);
            }
        }
        return word;
    }

    // The value of option @opt.
    xiw::Result<std::string_view> value(std::string_view opt)
    {
        if (empty())
            return usage_error(std::string(opt) + " needs a value");
        return next();
    }

    // The value of option @opt if it has one: "--opt=value", or a next
    // word that is no option (does not start with '-'); else nullopt.
    std::optional<std::string_view> optional_value()
    {
        if (pending_)
            return next();
        if (i_ < w_.size() && !w_[i_].starts_with("-"))
            return next();
        return std::nullopt;
    }

    // True if "--opt=value" left a value the option did not take.
    [[nodiscard]] bool dangling() const { return pending_.has_value(); }

private:
    std::span<const std::string_view> w_;
    size_t i_ = 0;
    std::optional<std::string_view> pending_;
};

constexpr Op ops[] = {Op::send,            Op::write,     Op::read,
                      Op::fetch_add,       Op::cmp_swap,  Op::masked_fetch_add,
                      Op::masked_cmp_swap, Op::write_imm, Op::imm,
                      Op::atomic_write,    Op::flush,     Op::verify};

xiw::Result<Op> parse_op(std::string_view text)
{
    for (Op op : ops)
        if (text == op_name(op))
            return op;
    return usage_error("--op: " + quoted(text) +
                       " is not one of send, write, read, fetch_add, cmp_swap, masked_fetch_add, "
                       "masked_cmp_swap, write_imm, imm, atomic_write, flush, verify");
}

xiw::Result<Mr> parse_mr(std::string_view opt, std::string_view text)
{
    if (text == "dma")
        return Mr::dma;
    if (text == "frwr")
        return Mr::frwr;
    return usage_error(std::string(opt) + ": " + quoted(text) + " is not one of dma, frwr");
}

constexpr Hash hashes[] = {Hash::crc32c, Hash::sha256};

xiw::Result<Hash> parse_hash(std::string_view text)
{
    for (Hash h : hashes)
        if (text == hash_name(h))
            return h;
    return usage_error("--hash: " + quoted(text) + " is not one of crc32c, sha256");
}

// The value of a hex digit, or -1.
int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// An expected hash (--expect HEX): two hex digits per octet, most
// significant first, as sha256sum prints them; 1 to XIWPERF_HASH_MAX
// octets.
xiw::Result<std::vector<std::uint8_t>> parse_hash_bytes(std::string_view text)
{
    for (char c : text)
        if (hex_digit(c) < 0)
            return usage_error("--expect: " + quoted(text) +
                               " is not a hash in hexadecimal (digits 0-9, a-f, two per octet, "
                               "no 0x)");
    if (text.size() % 2)
        return usage_error("--expect: " + quoted(text) + " has an odd number of hex digits (" +
                           std::to_string(text.size()) + "; two per octet)");
    if (text.size() / 2 > XIWPERF_HASH_MAX)
        return usage_error("--expect: " + std::to_string(text.size() / 2) +
                           " octets is too long: a hash has at most " +
                           std::to_string(XIWPERF_HASH_MAX) + " (" +
                           std::to_string(2 * XIWPERF_HASH_MAX) + " hex digits)");
    std::vector<std::uint8_t> bytes;
    for (size_t i = 0; i < text.size(); i += 2)
        bytes.push_back(static_cast<std::uint8_t>(hex_digit(text[i]) * 16 +
                                                  hex_digit(text[i + 1])));
    return bytes;
}

constexpr Inject injects[] = {Inject::stag,        Inject::bounds,         Inject::rights,
                              Inject::invalidated, Inject::dma_invalidate, Inject::wrap,
                              Inject::foreign,     Inject::lkey,           Inject::unaligned,
                              Inject::cq_overflow};

xiw::Result<Inject> parse_inject(std::string_view text)
{
    for (Inject i : injects)
        if (text == inject_name(i))
            return i;
    return usage_error("--inject: " + quoted(text) +
                       " is not one of stag, bounds, rights, invalidated, dma-invalidate, wrap, "
                       "foreign, lkey, unaligned, cq-overflow");
}

// What backs the server's buffer (--backing KIND:PATH): KIND up to the
// first colon, PATH (which may hold colons too) after it.
xiw::Result<Backing> parse_backing(std::string_view text)
{
    auto colon = text.find(':');
    std::string_view kind = text.substr(0, colon);
    Backing b;
    if (colon != std::string_view::npos && kind == backing_kind_name(Backing::Kind::file))
        b.kind = Backing::Kind::file;
    else if (colon != std::string_view::npos && kind == backing_kind_name(Backing::Kind::pmem))
        b.kind = Backing::Kind::pmem;
    else
        return usage_error("--backing: " + quoted(text) + " is not file:PATH or pmem:PATH");
    b.path = text.substr(colon + 1);
    if (b.path.empty())
        return usage_error("--backing: " + quoted(text) + " has no PATH after the colon");
    return b;
}

// Operations on the word whose originals the module can check (--check).
constexpr std::uint64_t max_atomic_check = static_cast<std::uint64_t>(XIWPERF_MAX_ATOMIC_CHECK);

// The subcommands an option applies to.
constexpr unsigned in_server = 1U << 0;
constexpr unsigned in_client = 1U << 1;
constexpr unsigned in_probe = 1U << 2;

// Required options, noted when given.
constexpr unsigned seen_addr = 1U << 0;
constexpr unsigned seen_op = 1U << 1;
constexpr unsigned seen_size = 1U << 2;
constexpr unsigned seen_count = 1U << 3;
// The atomic operands, noted to tell which were given.
constexpr unsigned seen_add = 1U << 4;
constexpr unsigned seen_compare = 1U << 5;
constexpr unsigned seen_swap = 1U << 6;
constexpr unsigned seen_mask = 1U << 7;
constexpr unsigned seen_compare_mask = 1U << 8;
constexpr unsigned seen_imm = 1U << 9;
// --range (the default, so noted to refuse it with --whole-mr or another op)
// and --whole-mr.
constexpr unsigned seen_range = 1U << 10;
constexpr unsigned seen_whole_mr = 1U << 11;
// A Verify's --hash and --expect, noted to refuse them with another op.
constexpr unsigned seen_hash = 1U << 12;
constexpr unsigned seen_expect = 1U << 13;
constexpr unsigned seen_no_write = 1U << 14;

// What the options of either subcommand set.
struct Settings {
    Address addr;
    std::uint16_t port = XIWPERF_DEFAULT_PORT;
    bool json = false;
    bool help = false;
    std::uint64_t buffer = 0;  // server --size
    Backing backing;           // server --backing
    Client client;             // the client's own options
    unsigned seen = 0;
};

// Applies one option; @opt is the word as given, @value "" for a flag
// (and for an optional value not given).
using Apply = xiw::Status (*)(Settings& s, std::string_view opt, std::string_view value);

// What an option takes after it: nothing (a flag), a value, or a value
// if one follows ("--opt=value", or a next word that is no option).
enum class Takes { flag, value, optional };

struct Option {
    std::string_view name;
    std::string_view alias;  // the short form, or ""
    unsigned commands;       // in_server, in_client
    Takes takes;
    Apply apply;
};

xiw::Result<std::uint64_t> number(std::string_view opt, std::string_view value, std::uint64_t min,
                                  std::uint64_t max)
{
    auto n = parse_number(value, min, max);
    if (!n)
        return usage_error(std::string(opt) + ": " + n.error().context);
    return *n;
}

// A size of at most @max bytes ("--size" whichever form was given).
xiw::Result<std::uint64_t> size(std::string_view value, std::uint64_t max)
{
    auto n = parse_size(value);
    if (!n)
        return usage_error("--size: " + n.error().context);
    if (*n < 1 || *n > max)
        return usage_error("--size: must be 1 to " + std::to_string(max) + " bytes");
    return *n;
}

// A numeric client option stored as it is in Client::*field.
template <auto field, std::uint64_t min, std::uint64_t max>
xiw::Status client_number(Settings& s, std::string_view opt, std::string_view value)
{
    auto n = number(opt, value, min, max);
    if (!n)
        return n.error();
    auto& f = s.client.*field;
    f = static_cast<std::remove_reference_t<decltype(f)>>(*n);
    return xiw::Ok{};
}

xiw::Status set_addr(Settings& s, std::string_view, std::string_view value)
{
    auto a = parse_address(value);
    if (!a)
        return usage_error("--addr: " + a.error().context);
    s.addr = *a;
    s.seen |= seen_addr;
    return xiw::Ok{};
}

xiw::Status set_port(Settings& s, std::string_view opt, std::string_view value)
{
    auto n = number(opt, value, 0, 65535);
    if (!n)
        return n.error();
    s.port = static_cast<std::uint16_t>(*n);
    return xiw::Ok{};
}

xiw::Status set_json(Settings& s, std::string_view, std::string_view)
{
    s.json = true;
    return xiw::Ok{};
}

xiw::Status set_help(Settings& s, std::string_view, std::string_view)
{
    s.help = true;
    return xiw::Ok{};
}

xiw::Status set_buffer(Settings& s, std::string_view, std::string_view value)
{
    auto n = size(value, XIWPERF_MAX_BUF);
    if (!n)
        return n.error();
    s.buffer = *n;
    return xiw::Ok{};
}

xiw::Status set_backing(Settings& s, std::string_view, std::string_view value)
{
    auto b = parse_backing(value);
    if (!b)
        return b.error();
    s.backing = std::move(*b);
    return xiw::Ok{};
}

xiw::Status set_op(Settings& s, std::string_view, std::string_view value)
{
    auto op = parse_op(value);
    if (!op)
        return op.error();
    s.client.op = *op;
    s.seen |= seen_op;
    return xiw::Ok{};
}

// The client's --size: 0 too, which only --op imm takes (checked once the
// operation is known).
xiw::Status set_size(Settings& s, std::string_view, std::string_view value)
{
    auto n = parse_size(value);
    if (n && *n == 0) {
        s.client.size = 0;
        s.seen |= seen_size;
        return xiw::Ok{};
    }
    n = size(value, XIWPERF_MAX_SIZE);
    if (!n)
        return n.error();
    s.client.size = *n;
    s.seen |= seen_size;
    return xiw::Ok{};
}

xiw::Status set_count(Settings& s, std::string_view opt, std::string_view value)
{
    auto n = number(opt, value, 1, std::numeric_limits<std::uint64_t>::max());
    if (!n)
        return n.error();
    s.client.count = *n;
    s.seen |= seen_count;
    return xiw::Ok{};
}

// A client option given in whole seconds, 1 to max, kept in milliseconds
// in Client::*field_ms.
template <auto field_ms, std::uint64_t max>
xiw::Status client_seconds(Settings& s, std::string_view opt, std::string_view value)
{
    auto n = number(opt, value, 1, max);
    if (!n)
        return n.error();
    s.client.*field_ms = static_cast<std::uint32_t>(*n * 1000);
    return xiw::Ok{};
}

xiw::Status set_inline(Settings& s, std::string_view, std::string_view)
{
    s.client.inline_data = true;
    return xiw::Ok{};
}

xiw::Status set_check(Settings& s, std::string_view, std::string_view)
{
    s.client.check = true;
    return xiw::Ok{};
}

// --mr or --remote-mr into Client::*field.
template <auto field>
xiw::Status set_mr(Settings& s, std::string_view opt, std::string_view value)
{
    auto mr = parse_mr(opt, value);
    if (!mr)
        return mr.error();
    s.client.*field = *mr;
    return xiw::Ok{};
}

xiw::Status set_inject(Settings& s, std::string_view, std::string_view value)
{
    auto i = parse_inject(value);
    if (!i)
        return i.error();
    s.client.inject = *i;
    return xiw::Ok{};
}

xiw::Status set_idle(Settings& s, std::string_view, std::string_view)
{
    s.client.idle = true;
    return xiw::Ok{};
}

xiw::Status set_srq(Settings& s, std::string_view, std::string_view)
{
    s.client.srq = true;
    return xiw::Ok{};
}

xiw::Status set_persist(Settings& s, std::string_view, std::string_view)
{
    s.client.persist = true;
    return xiw::Ok{};
}

xiw::Status set_global(Settings& s, std::string_view, std::string_view)
{
    s.client.global = true;
    return xiw::Ok{};
}

xiw::Status set_range(Settings& s, std::string_view, std::string_view)
{
    s.client.whole_mr = false;
    s.seen |= seen_range;
    return xiw::Ok{};
}

xiw::Status set_whole_mr(Settings& s, std::string_view, std::string_view)
{
    s.client.whole_mr = true;
    s.seen |= seen_whole_mr;
    return xiw::Ok{};
}

xiw::Status set_hash(Settings& s, std::string_view, std::string_view value)
{
    auto h = parse_hash(value);
    if (!h)
        return h.error();
    s.client.hash = *h;
    s.seen |= seen_hash;
    return xiw::Ok{};
}

// --expect (the client's own hash) or --expect HEX (a fixed one); the
// last one given counts.
xiw::Status set_expect(Settings& s, std::string_view, std::string_view value)
{
    s.client.expect = true;
    s.client.expect_hash.clear();
    s.seen |= seen_expect;
    if (value.empty())
        return xiw::Ok{};
    auto bytes = parse_hash_bytes(value);
    if (!bytes)
        return bytes.error();
    s.client.expect_hash = std::move(*bytes);
    return xiw::Ok{};
}

xiw::Status set_no_write(Settings& s, std::string_view, std::string_view)
{
    s.client.no_write = true;
    s.seen |= seen_no_write;
    return xiw::Ok{};
}

// An atomic operand (--add, ...) into Client::*field, noted as @seen.
template <auto field, unsigned seen>
xiw::Status set_operand(Settings& s, std::string_view opt, std::string_view value)
{
    auto v = parse_value(value);
    if (!v)
        return usage_error(std::string(opt) + ": " + v.error().context);
    s.client.*field = *v;
    s.seen |= seen;
    return xiw::Ok{};
}

xiw::Status set_imm(Settings& s, std::string_view opt, std::string_view value)
{
    auto v = parse_value(value);
    if (!v)
        return usage_error(std::string(opt) + ": " + v.error().context);
    if (*v > std::numeric_limits<std::uint32_t>::max())
        return usage_error(std::string(opt) + ": " + quoted(value) +
                           " does not fit in 32 bits (an immediate value)");
    s.client.imm = static_cast<std::uint32_t>(*v);
    s.seen |= seen_imm;
    return xiw::Ok{};
}

// Every option of both subcommands; an option's name may appear once per
// subcommand (the server's --size is its buffer, the client's an operation).
constexpr Option options[] = {
    {"--addr", "-a", in_server | in_client | in_probe, Takes::value, set_addr},
    {"--port", "-p", in_server | in_client | in_probe, Takes::value, set_port},
    {"--json", "-j", in_server | in_client | in_probe, Takes::flag, set_json},
    {"--help", "-h", in_server | in_client | in_probe, Takes::flag, set_help},
    {"--size", "-s", in_server, Takes::value, set_buffer},
    {"--backing", "", in_server, Takes::value, set_backing},
    {"--size", "-s", in_client, Takes::value, set_size},
    {"--op", "-o", in_client, Takes::value, set_op},
    {"--count", "-n", in_client, Takes::value, set_count},
    {"--depth", "-d", in_client, Takes::value,
     client_number<&Client::depth, 1, XIWPERF_MAX_DEPTH>},
    {"--qps", "-q", in_client, Takes::value, client_number<&Client::qps, 1, XIWPERF_MAX_QPS>},
    {"--timeout", "-t", in_client | in_probe, Takes::value, client_seconds<&Client::timeout_ms, 3600>},
    {"--hold", "", in_client, Takes::value,
     client_seconds<&Client::hold_ms, XIWPERF_MAX_HOLD_MS / 1000>},
    {"--sge", "", in_client, Takes::value,
     client_number<&Client::sge, 1, XIWPERF_MAX_SGE>},
    {"--solicit", "", in_client, Takes::value,
     client_number<&Client::solicit, 1, std::numeric_limits<std::uint32_t>::max()>},
    {"--inline", "", in_client, Takes::flag, set_inline},
    {"--mr", "", in_client, Takes::value, set_mr<&Client::mr>},
    {"--remote-mr", "", in_client, Takes::value, set_mr<&Client::remote_mr>},
    {"--inject", "", in_client, Takes::value, set_inject},
    {"--srq", "", in_client, Takes::flag, set_srq},
    {"--idle", "", in_client, Takes::flag, set_idle},
    {"--persist", "", in_client, Takes::flag, set_persist},
    {"--global", "", in_client, Takes::flag, set_global},
    {"--range", "", in_client, Takes::flag, set_range},
    {"--whole-mr", "", in_client, Takes::flag, set_whole_mr},
    {"--hash", "", in_server | in_client, Takes::value, set_hash},
    {"--expect", "", in_client, Takes::optional, set_expect},
    {"--no-write", "", in_client, Takes::flag, set_no_write},
    {"--add", "", in_client, Takes::value, set_operand<&Client::add, seen_add>},
    {"--compare", "", in_client, Takes::value, set_operand<&Client::compare, seen_compare>},
    {"--swap", "", in_client, Takes::value, set_operand<&Client::swap, seen_swap>},
    {"--mask", "", in_client, Takes::value, set_operand<&Client::mask, seen_mask>},
    {"--imm", "", in_client, Takes::value, set_imm},
    {"--compare-mask", "", in_client, Takes::value,
     set_operand<&Client::compare_mask, seen_compare_mask>},
    {"--check", "-c", in_client, Takes::flag, set_check},
};

const Option* find_option(std::string_view word, unsigned command)
{
    for (const Option& o : options)
        if ((o.commands & command) && (word == o.name || (!o.alias.empty() && word == o.alias)))
            return &o;
    return nullptr;
}

// The options of subcommand @name (in_server or in_client: @command).
xiw::Result<Settings> parse_options(Words& w, unsigned command, std::string_view name)
{
    Settings s;
    while (!w.empty()) {
        std::string_view opt = w.next();
        const Option* o = find_option(opt, command);
        if (!o)
            return usage_error(std::string(name) + ": unknown option " + quoted(opt));
        std::string_view value;
        if (o->takes == Takes::value) {
            auto v = w.value(opt);
            if (!v)
                return v.error();
            value = *v;
        } else if (o->takes == Takes::optional) {
            auto v = w.optional_value();
            if (v && v->empty())
                return usage_error(std::string(opt) + "= needs a value (or give " +
                                   std::string(opt) + " alone)");
            value = v.value_or("");
        }
        if (auto st = o->apply(s, opt, value); !st)
            return st.error();
        if (s.help)
            return s;
        if (w.dangling())
            return usage_error(std::string(opt) + " takes no value");
    }
    return s;
}

xiw::Result<Command> parse_server(Words& w)
{
    auto s = parse_options(w, in_server, "server");
    if (!s)
        return s.error();
    if (s->help)
        return Command{Help{}};
    if (!(s->seen & seen_addr))
        return usage_error("server: missing --addr IP (0.0.0.0 or :: listens on all)");
    // --hash is kept with the client's options; the server's is the same.
    return Command{
        Server{s->addr, s->port, s->buffer, s->json, std::move(s->backing), s->client.hash}};
}

// What --inject KIND needs: an RDMA or atomic operation (or an Atomic
// Write, or a Flush), and for faults the global rkey cannot show, the
// server's fast registrations.
xiw::Status check_inject(const Client& c)
{
    if (c.inject == Inject::none)
        return xiw::Ok{};
    std::string kind(inject_name(c.inject));
    // A Flush's faults are the Flush's own, after a good Write: its key
    // (stag) and its right (rights, through the read-only rkey).
    if (c.op == Op::flush && c.inject != Inject::stag && c.inject != Inject::rights)
        return usage_error("client: --inject " + kind +
                           " does not work with --op flush (it takes stag and rights only: the "
                           "Flush's key and its flush right)");
    if (c.inject == Inject::lkey) {
        if (c.inline_data)
            return usage_error("client: --inject lkey and --inline exclude each other (inline "
                               "data has no local key)");
        // Its work request has no SGE: there is no local key to break.
        if (c.op == Op::atomic_write)
            return usage_error("client: --inject lkey does not work with --op atomic_write "
                               "(it has no local buffer, so no local key)");
        return xiw::Ok{};
    }
    if (c.inject == Inject::cq_overflow) {
        // Two unsolicited Sends in a row overflow the server's CQ of one.
        if (c.op != Op::send || c.solicit < 3 || c.depth < 2 || c.qps < 2 || c.srq)
            return usage_error("client: --inject cq-overflow needs --op send, --solicit 3 or "
                               "more, --depth 2 or more and --qps 2 or more, without --srq");
        return xiw::Ok{};
    }
    if (c.inject == Inject::unaligned) {
        if (!targets_word(c.op))
            return usage_error("client: --inject unaligned works with the atomic operations "
                               "and atomic_write only");
        return xiw::Ok{};
    }
    if ((c.inject == Inject::dma_invalidate || c.inject == Inject::wrap) && c.op != Op::write &&
        c.op != Op::read)
        return usage_error("client: --inject " + kind + " works with --op write and read only");
    if (c.op == Op::send)
        return usage_error("client: --inject " + kind +
                           " works with --op write, read, atomic_write, flush and the atomic "
                           "operations only");
    if (c.inject == Inject::rights && c.op == Op::read)
        return usage_error("client: --inject rights works with --op write, atomic_write, flush "
                           "and the atomic operations only (through an rkey without the right)");
    // An atomic operation has no right through the global rkey either; a
    // Write and an Atomic Write (remote write) have it there, and need the
    // read-only registration of chunk 0, as a Flush does (the global rkey
    // has no flush right, but the Write before it needs a good rkey).
    bool needs_frwr = c.inject == Inject::bounds || c.inject == Inject::invalidated ||
                      (c.inject == Inject::rights &&
                       (c.op == Op::write || c.op == Op::atomic_write || c.op == Op::flush));
    if (c.inject == Inject::foreign && c.qps < 2)
        return usage_error("client: --inject foreign needs --qps 2 or more (it uses connection "
                           "1's key on connection 0)");
    if (needs_frwr && c.remote_mr != Mr::frwr)
        return usage_error("client: --inject " + kind +
                           " needs --remote-mr frwr (the server's global rkey has no bounds, "
                           "rights or invalidation)");
    return xiw::Ok{};
}

// What an Atomic Write (--op atomic_write, @op the message's start) takes
// beyond having no operand: the word as the atomic operations do, but no
// local buffer, since the value travels in the work request itself (no
// SGE, nothing to register; --inline is refused with the other ops).
xiw::Status check_atomic_write(const Client& c, const std::string& op)
{
    if (c.size != atomic_size)
        return usage_error("client: --size is 8 for --op atomic_write (one 64-bit word)");
    if (c.sge != 1)
        return usage_error(op + " has no local buffer: no --sge");
    if (c.mr == Mr::frwr)
        return usage_error(op + " has no local buffer to register (--mr frwr)");
    if (c.remote_mr != Mr::frwr && c.inject == Inject::none)
        return usage_error(op + " needs --remote-mr frwr, as the atomic operations do (only an "
                                "--inject run goes without)");
    // The module keeps the word's check within the atomic operations' bound.
    if (c.check && c.count > max_atomic_check)
        return usage_error(op + " --check: --count must not exceed " +
                           std::to_string(max_atomic_check) +
                           " (as for the atomic operations)");
    return xiw::Ok{};
}

// What an atomic operation (--op fetch_add, ...) takes: its own operands,
// one 8-byte word, and the server's registrations (or an injected fault).
// An Atomic Write (--op atomic_write) takes the word and the registrations
// alike, but no operand (its values are its tags) and no local buffer.
xiw::Status check_atomic(const Client& c, unsigned seen)
{
    struct Operand {
        unsigned seen;
        std::string_view name;
        bool applies;
        std::string_view ops;
    };
    bool add = c.op == Op::fetch_add || c.op == Op::masked_fetch_add;
    const Operand operands[] = {
        {seen_add, "--add", add, "--op fetch_add and masked_fetch_add"},
        {seen_compare, "--compare", is_cmp_swap(c.op), "--op cmp_swap and masked_cmp_swap"},
        {seen_swap, "--swap", is_cmp_swap(c.op), "--op cmp_swap and masked_cmp_swap"},
        {seen_mask, "--mask", is_masked(c.op), "--op masked_fetch_add and masked_cmp_swap"},
        {seen_compare_mask, "--compare-mask", c.op == Op::masked_cmp_swap,
         "--op masked_cmp_swap"},
    };
    for (const Operand& o : operands)
        if ((seen & o.seen) && !o.applies)
            return usage_error("client: " + std::string(o.name) + " works with " +
                               std::string(o.ops) + " only");
    if (!targets_word(c.op))
        return xiw::Ok{};
    std::string op = "client: --op " + std::string(op_name(c.op));
    if (c.op == Op::atomic_write)
        return check_atomic_write(c, op);
    if (is_cmp_swap(c.op) && (!(seen & seen_compare) || !(seen & seen_swap)))
        return usage_error(op + " needs --compare V and --swap V");
    if (is_masked(c.op) && !(seen & seen_mask))
        return usage_error(op + (add ? " needs --mask M (a set bit ends a field)"
                                     : " needs --mask M (the bits to swap)"));
    if (c.size != atomic_size)
        return usage_error("client: --size is 8 for the atomic operations (one 64-bit word)");
    if (c.sge != 1)
        return usage_error("client: the atomic operations have one SGE (--sge 1)");
    if (c.remote_mr != Mr::frwr && c.inject == Inject::none)
        return usage_error(op +
                           " needs --remote-mr frwr (the server's global rkey has no atomic "
                           "right; only an --inject run goes without)");
    if (c.check && c.count > max_atomic_check)
        return usage_error("client: atomic --check keeps every original value: --count must "
                           "not exceed " +
                           std::to_string(max_atomic_check));
    return xiw::Ok{};
}

// What the Immediate Data operations (--op write_imm, imm) take: --imm,
// and for imm no payload (no buffer, SGEs, inline data, registrations).
xiw::Status check_imm(const Client& c, unsigned seen)
{
    if (!is_imm(c.op)) {
        if (seen & seen_imm)
            return usage_error("client: --imm works with --op write_imm and imm only");
        return xiw::Ok{};
    }
    std::string op = "client: --op " + std::string(op_name(c.op));
    if (c.inject != Inject::none)
        return usage_error(op + " takes no --inject");
    if (c.op == Op::write_imm) {
        if (c.srq && c.check)
            return usage_error("client: --op write_imm --check does not work with --srq (a "
                               "credit from the shared queue does not say that the "
                               "connection's earlier writes were checked)");
        return xiw::Ok{};
    }
    if (c.size != 0)
        return usage_error(op + " has no payload: --size must be 0 or omitted");
    if (c.sge != 1)
        return usage_error(op + " has no payload: no --sge");
    if (c.inline_data)
        return usage_error(op + " has no payload: nothing to inline (--inline)");
    if (c.mr == Mr::frwr)
        return usage_error(op + " has no local buffer to register (--mr frwr)");
    if (c.remote_mr == Mr::frwr)
        return usage_error(op + " does not access the server's buffer (--remote-mr frwr)");
    return xiw::Ok{};
}

// What a Flush (--op flush) takes: a disposition (--persist, --global or
// both), the region (--range) or the whole chunk MR (--whole-mr), and the
// server's registrations, which alone carry the flush rights. The Write
// before it takes what a write does (--size, --sge, --inline, --mr,
// --check). The Flush's options are refused with any other operation.
xiw::Status check_flush(const Client& c, unsigned seen)
{
    if (c.op != Op::flush) {
        const std::pair<bool, std::string_view> given[] = {
            {c.persist, "--persist"},
            {c.global, "--global"},
            {(seen & seen_range) != 0, "--range"},
            {(seen & seen_whole_mr) != 0, "--whole-mr"},
        };
        for (const auto& [set, name] : given)
            if (set)
                return usage_error("client: " + std::string(name) + " works with --op flush only");
        return xiw::Ok{};
    }
    std::string op = "client: --op flush";
    if (!c.persist && !c.global)
        return usage_error(op + " needs --persist, --global or both (what the Flush brings the "
                                "data to)");
    if ((seen & seen_range) && (seen & seen_whole_mr))
        return usage_error("client: --range and --whole-mr exclude each other");
    if (c.remote_mr != Mr::frwr && c.inject == Inject::none)
        return usage_error(op + " needs --remote-mr frwr (the server's global rkey has no flush "
                                "right; only an --inject run goes without)");
    return xiw::Ok{};
}

// What a Verify (--op verify) takes: the hash algorithm (--hash), which
// the server sets on its fast registrations (so --remote-mr frwr), and
// optionally an expected hash (--expect [HEX]). The Write before it takes
// what a write does (--size, --sge, --inline, --mr, --check). Its one
// fault is a bad key on the Verify (--inject stag, which needs no fast
// registrations: it shows a peer without Verify refusing it). Without
// the Write (--no-write) the Verify hashes what the region holds: the
// client has no hash of its own to check (--check) or send (--expect
// alone). --hash, --expect and --no-write are refused with any other
// operation.
xiw::Status check_verify(const Client& c, unsigned seen)
{
    if (c.op != Op::verify) {
        if (seen & seen_hash)
            return usage_error("client: --hash works with --op verify only");
        if (seen & seen_expect)
            return usage_error("client: --expect works with --op verify only");
        if (seen & seen_no_write)
            return usage_error("client: --no-write works with --op verify only");
        return xiw::Ok{};
    }
    std::string op = "client: --op verify";
    if (c.no_write && c.check)
        return usage_error(op + " --no-write takes no --check (nothing was written: the client "
                                "has no hash of its own to compare; give --expect HEX for the "
                                "server to compare)");
    if (c.no_write && c.expect && c.expect_hash.empty())
        return usage_error(op + " --no-write needs --expect HEX, not --expect alone (nothing was "
                                "written: the client has no hash of its own to send)");
    if (c.hash == Hash::none)
        return usage_error(op + " needs --hash {crc32c,sha256} (what the server's device hashes "
                                "the region with)");
    if (c.inject != Inject::none && c.inject != Inject::stag)
        return usage_error(op + " takes --inject stag only (the Verify's key)");
    if (c.remote_mr != Mr::frwr && c.inject == Inject::none)
        return usage_error(op + " needs --remote-mr frwr (the server sets the hash algorithm on "
                                "its fast registrations; its global rkey has none; only an "
                                "--inject run goes without)");
    return xiw::Ok{};
}

xiw::Result<Command> parse_client(Words& w)
{
    auto s = parse_options(w, in_client, "client");
    if (!s)
        return s.error();
    if (s->help)
        return Command{Help{}};
    Client c = s->client;
    c.addr = s->addr;
    c.port = s->port;
    c.json = s->json;
    if (!(s->seen & seen_addr))
        return usage_error("client: missing --addr IP");
    if (!(s->seen & seen_op))
        return usage_error(
            "client: missing --op {send,write,read,fetch_add,cmp_swap,masked_fetch_add,"
            "masked_cmp_swap,write_imm,imm,atomic_write,flush,verify}");
    if (!(s->seen & seen_size) && targets_word(c.op))
        c.size = atomic_size;
    else if (!(s->seen & seen_size) && c.op == Op::imm)
        c.size = 0;
    else if (!(s->seen & seen_size))
        return usage_error("client: missing --size BYTES");
    if (!(s->seen & seen_count))
        return usage_error("client: missing --count N");
    if (c.port == 0)
        return usage_error("client: --port must be 1 to 65535");
    if (auto st = check_atomic(c, s->seen); !st)
        return st.error();
    if (auto st = check_imm(c, s->seen); !st)
        return st.error();
    if (auto st = check_flush(c, s->seen); !st)
        return st.error();
    if (auto st = check_verify(c, s->seen); !st)
        return st.error();
    if (c.size == 0 && c.op != Op::imm)
        return usage_error("--size: must be 1 to " + std::to_string(XIWPERF_MAX_SIZE) +
                           " bytes");
    if (c.size * c.depth * c.qps > XIWPERF_MAX_MEMORY)
        return usage_error("client: --qps * --depth * --size must not exceed " +
                           std::to_string(XIWPERF_MAX_MEMORY) + " bytes");
    if (c.inline_data && c.op != Op::send && c.op != Op::write && c.op != Op::write_imm &&
        !writes_first(c.op))
        return usage_error("client: --inline works with --op send, write, write_imm, flush and "
                           "verify only");
    if (c.solicit && !takes_receives(c.op))
        return usage_error("client: --solicit works with --op send, write_imm and imm only");
    if (c.mr == Mr::frwr && c.inline_data)
        return usage_error("client: --mr frwr and --inline exclude each other (inline data is "
                           "not registered)");
    if (c.remote_mr == Mr::frwr && c.op == Op::send)
        return usage_error("client: --remote-mr works with --op write, write_imm, read, "
                           "atomic_write, flush, verify and the atomic operations only");
    if (c.srq && !takes_receives(c.op))
        return usage_error("client: --srq works with --op send, write_imm and imm only");
    if (c.srq && c.solicit)
        return usage_error("client: --srq and --solicit exclude each other");
    if (c.idle && !c.hold_ms)
        return usage_error("client: --idle needs --hold SEC (how long to keep the QPs)");
    if (c.idle && (c.check || c.inject != Inject::none))
        return usage_error("client: --idle runs no operation: no --check or --inject");
    if (auto st = check_inject(c); !st)
        return st.error();
    if (c.count < c.qps)
        return usage_error("client: --count must be at least --qps (" + std::to_string(c.qps) +
                           ")");
    return Command{c};
}

}  // namespace

std::string_view op_name(Op op)
{
    switch (op) {
    case Op::send:
        return "send";
    case Op::write:
        return "write";
    case Op::read:
        return "read";
    case Op::fetch_add:
        return "fetch_add";
    case Op::cmp_swap:
        return "cmp_swap";
    case Op::masked_fetch_add:
        return "masked_fetch_add";
    case Op::masked_cmp_swap:
        return "masked_cmp_swap";
    case Op::write_imm:
        return "write_imm";
    case Op::imm:
        return "imm";
    case Op::atomic_write:
        return "atomic_write";
    case Op::flush:
        return "flush";
    case Op::verify:
        return "verify";
    }
    return "?";
}

std::string_view hash_name(Hash hash)
{
    switch (hash) {
    case Hash::none:
        return "";
    case Hash::crc32c:
        return "crc32c";
    case Hash::sha256:
        return "sha256";
    }
    return "?";
}

std::string_view backing_kind_name(Backing::Kind kind)
{
    switch (kind) {
    case Backing::Kind::none:
        return "";
    case Backing::Kind::file:
        return "file";
    case Backing::Kind::pmem:
        return "pmem";
    }
    return "?";
}

std::string backing_text(const Backing& backing)
{
    if (backing.kind == Backing::Kind::none)
        return {};
    return std::string(backing_kind_name(backing.kind)) + ":" + backing.path;
}

std::string_view mr_name(Mr mr)
{
    return mr == Mr::frwr ? "frwr" : "dma";
}

std::string_view inject_name(Inject inject)
{
    switch (inject) {
    case Inject::none:
        return "";
    case Inject::stag:
        return "stag";
    case Inject::bounds:
        return "bounds";
    case Inject::rights:
        return "rights";
    case Inject::invalidated:
        return "invalidated";
    case Inject::dma_invalidate:
        return "dma-invalidate";
    case Inject::wrap:
        return "wrap";
    case Inject::foreign:
        return "foreign";
    case Inject::lkey:
        return "lkey";
    case Inject::unaligned:
        return "unaligned";
    case Inject::cq_overflow:
        return "cq-overflow";
    }
    return "?";
}

xiw::Result<std::uint64_t> parse_number(std::string_view text, std::uint64_t min,
                                        std::uint64_t max)
{
    std::uint64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || ec == std::errc::invalid_argument || end != text.data() + text.size())
        return usage_error(quoted(text) + " is not a number");
    if (ec == std::errc::result_out_of_range || n < min || n > max)
        return usage_error(quoted(text) + " is not within " + std::to_string(min) + " to " +
                           std::to_string(max));
    return n;
}

xiw::Result<std::uint64_t> parse_value(std::string_view text)
{
    std::string_view digits = text;
    int base = 10;
    if (digits.starts_with("0x") || digits.starts_with("0X")) {
        digits.remove_prefix(2);
        base = 16;
    }
    std::uint64_t n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n, base);
    if (digits.empty() || ec == std::errc::invalid_argument ||
        end != digits.data() + digits.size())
        return usage_error(quoted(text) + " is not a number (decimal, or hexadecimal after 0x)");
    if (ec == std::errc::result_out_of_range)
        return usage_error(quoted(text) + " does not fit in 64 bits");
    return n;
}

xiw::Result<std::uint64_t> parse_size(std::string_view text)
{
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
        digits++;
    std::string_view suffix = text.substr(digits);
    unsigned shift = 0;
    if (suffix.empty())
        shift = 0;
    else if (iequals(suffix, "k") || iequals(suffix, "kib"))
        shift = 10;
    else if (iequals(suffix, "m") || iequals(suffix, "mib"))
        shift = 20;
    else if (iequals(suffix, "g") || iequals(suffix, "gib"))
        shift = 30;
    else
        return usage_error(quoted(text) + " is not a size (N, NK, NM, NG)");
    auto n = parse_number(text.substr(0, digits), 0, std::numeric_limits<std::uint64_t>::max() >> shift);
    if (!n)
        return usage_error(quoted(text) + " is not a size (N, NK, NM, NG)");
    return *n << shift;
}

xiw::Result<Address> parse_address(std::string_view text)
{
    Address a;
    a.text = std::string(text);
    std::string host(text);
    std::string scope;
    if (auto pct = host.find('%'); pct != std::string::npos) {
        scope = host.substr(pct + 1);
        host.resize(pct);
    }
    if (scope.empty() && inet_pton(AF_INET, host.c_str(), a.bytes.data()) == 1) {
        a.family = AF_INET;
        return a;
    }
    if (inet_pton(AF_INET6, host.c_str(), a.bytes.data()) == 1) {
        a.family = AF_INET6;
        if (!scope.empty()) {
            auto n = parse_number(scope, 1, std::numeric_limits<std::uint32_t>::max());
            a.scope_id = n ? static_cast<std::uint32_t>(*n) : if_nametoindex(scope.c_str());
            if (a.scope_id == 0)
                return usage_error(quoted(text) + ": no interface " + quoted(scope));
        }
        return a;
    }
    return usage_error(quoted(text) + " is not a numeric IPv4 or IPv6 address");
}

namespace {

// probe --addr IP [--port N] [--timeout SEC] [--json]
xiw::Result<Command> parse_probe(Words& w)
{
    auto s = parse_options(w, in_probe, "probe");
    if (!s)
        return s.error();
    if (s->help)
        return Command{Help{}};
    if (!(s->seen & seen_addr))
        return usage_error("probe: missing --addr IP (the peer's xiwperf server)");
    if (s->port == 0)
        return usage_error("probe: --port: must be 1 to 65535 (the server's port)");
    return Command{Probe{s->addr, s->port,
                         s->client.timeout_ms ? s->client.timeout_ms : probe_default_timeout_ms,
                         s->json}};
}

}  // namespace

xiw::Result<Command> parse(std::span<const std::string_view> args)
{
    Words w(args);
    if (w.empty())
        return usage_error("missing command (server, client, probe)");
    std::string_view cmd = w.next();
    if (cmd == "server")
        return parse_server(w);
    if (cmd == "client")
        return parse_client(w);
    if (cmd == "probe")
        return parse_probe(w);
    if (cmd == "help" || cmd == "-h" || cmd == "--help")
        return Command{Help{}};
    return usage_error("unknown command " + quoted(cmd) + " (server, client, probe)");
}

std::string usage()
{
    return "Usage: xiwperf server --addr IP [--port N] [--size BYTES]\n"
           "                      [--backing {file,pmem}:PATH] [--hash {crc32c,sha256}] [--json]\n"
           "       xiwperf client --addr IP [--port N] --op OP [--size BYTES] --count N\n"
           "                      [--depth N] [--qps N] [--sge N] [--inline] [--solicit N]\n"
           "                      [--mr {dma,frwr}] [--remote-mr {dma,frwr}] [--inject KIND]\n"
           "                      [--srq] [--imm V] [--add V] [--compare V --swap V]\n"
           "                      [--mask M] [--compare-mask M] [--persist] [--global]\n"
           "                      [--range|--whole-mr] [--hash {crc32c,sha256}]\n"
           "                      [--expect [HEX]] [--no-write] [--check] [--timeout SEC]\n"
           "                      [--hold SEC [--idle]] [--json]\n"
           "       xiwperf probe --addr IP [--port N] [--timeout SEC] [--json]\n"
           "       xiwperf { help | --help | -h }\n"
           "OP := { send | write | read | write_imm | imm | fetch_add | cmp_swap |\n"
           "        masked_fetch_add | masked_cmp_swap | atomic_write | flush | verify }\n"
           "KIND := { stag | bounds | rights | invalidated | dma-invalidate | wrap |\n"
           "          foreign | lkey | unaligned | cq-overflow }\n"
           "The default port is " +
           std::to_string(XIWPERF_DEFAULT_PORT) +
           "; sizes take K, M, G. Needs the xiwperf module (modprobe xiwperf).\n"
           "Exit status: 0 success, 1 failure, 2 usage error, 3 data mismatch.\n"
           "What each option does, and which go together: xiwperf(1).\n";
}

}  // namespace xiwperf
