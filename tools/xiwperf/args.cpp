// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "args.hpp"

#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <limits>
#include <optional>

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

    // True if "--opt=value" left a value the option did not take.
    [[nodiscard]] bool dangling() const { return pending_.has_value(); }

private:
    std::span<const std::string_view> w_;
    size_t i_ = 0;
    std::optional<std::string_view> pending_;
};

template <class T>
xiw::Result<T> number_option(Words& w, std::string_view opt, std::uint64_t min,
                             std::uint64_t max)
{
    auto v = w.value(opt);
    if (!v)
        return v.error();
    auto n = parse_number(*v, min, max);
    if (!n)
        return usage_error(std::string(opt) + ": " + n.error().context);
    return static_cast<T>(*n);
}

xiw::Result<Op> parse_op(std::string_view text)
{
    if (text == "send")
        return Op::send;
    if (text == "write")
        return Op::write;
    if (text == "read")
        return Op::read;
    return usage_error("--op: " + quoted(text) + " is not one of send, write, read");
}

// Options both commands accept; false if @opt is not one of them.
xiw::Result<bool> common_option(Words& w, std::string_view opt, Address& addr,
                                std::uint16_t& port, bool& json, bool& have_addr)
{
    if (opt == "--addr" || opt == "-a") {
        auto v = w.value(opt);
        if (!v)
            return v.error();
        auto a = parse_address(*v);
        if (!a)
            return usage_error("--addr: " + a.error().context);
        addr = *a;
        have_addr = true;
        return true;
    }
    if (opt == "--port" || opt == "-p") {
        auto p = number_option<std::uint16_t>(w, opt, 0, 65535);
        if (!p)
            return p.error();
        port = *p;
        return true;
    }
    if (opt == "--json" || opt == "-j") {
        json = true;
        return true;
    }
    return false;
}

xiw::Result<Command> parse_server(Words& w)
{
    Server s;
    s.port = XIWPERF_DEFAULT_PORT;
    bool have_addr = false;
    while (!w.empty()) {
        std::string_view opt = w.next();
        auto common = common_option(w, opt, s.addr, s.port, s.json, have_addr);
        if (!common)
            return common.error();
        if (*common) {
            if (w.dangling())
                return usage_error(std::string(opt) + " takes no value");
            continue;
        }
        if (opt == "--size" || opt == "-s") {
            auto v = w.value(opt);
            if (!v)
                return v.error();
            auto n = parse_size(*v);
            if (!n)
                return usage_error("--size: " + n.error().context);
            if (*n < 1 || *n > XIWPERF_MAX_BUF)
                return usage_error("--size: must be 1 to " + std::to_string(XIWPERF_MAX_BUF) +
                                   " bytes");
            s.size = *n;
        } else if (opt == "-h" || opt == "--help") {
            return Command{Help{}};
        } else {
            return usage_error("server: unknown option " + quoted(opt));
        }
        if (w.dangling())
            return usage_error(std::string(opt) + " takes no value");
    }
    if (!have_addr)
        return usage_error("server: missing --addr IP (0.0.0.0 or :: listens on all)");
    return Command{s};
}

xiw::Result<Command> parse_client(Words& w)
{
    Client c;
    c.port = XIWPERF_DEFAULT_PORT;
    bool have_addr = false, have_op = false, have_size = false, have_count = false;
    while (!w.empty()) {
        std::string_view opt = w.next();
        auto common = common_option(w, opt, c.addr, c.port, c.json, have_addr);
        if (!common)
            return common.error();
        if (*common) {
            if (w.dangling())
                return usage_error(std::string(opt) + " takes no value");
            continue;
        }
        if (opt == "--op" || opt == "-o") {
            auto v = w.value(opt);
            if (!v)
                return v.error();
            auto op = parse_op(*v);
            if (!op)
                return op.error();
            c.op = *op;
            have_op = true;
        } else if (opt == "--size" || opt == "-s") {
            auto v = w.value(opt);
            if (!v)
                return v.error();
            auto n = parse_size(*v);
            if (!n)
                return usage_error("--size: " + n.error().context);
            if (*n < 1 || *n > XIWPERF_MAX_SIZE)
                return usage_error("--size: must be 1 to " + std::to_string(XIWPERF_MAX_SIZE) +
                                   " bytes");
            c.size = *n;
            have_size = true;
        } else if (opt == "--count" || opt == "-n") {
            auto n = number_option<std::uint64_t>(w, opt, 1,
                                                  std::numeric_limits<std::uint64_t>::max());
            if (!n)
                return n.error();
            c.count = *n;
            have_count = true;
        } else if (opt == "--depth" || opt == "-d") {
            auto n = number_option<std::uint32_t>(w, opt, 1, XIWPERF_MAX_DEPTH);
            if (!n)
                return n.error();
            c.depth = *n;
        } else if (opt == "--qps" || opt == "-q") {
            auto n = number_option<std::uint32_t>(w, opt, 1, XIWPERF_MAX_QPS);
            if (!n)
                return n.error();
            c.qps = *n;
        } else if (opt == "--timeout" || opt == "-t") {
            auto n = number_option<std::uint32_t>(w, opt, 1, 3600);
            if (!n)
                return n.error();
            c.timeout_ms = *n * 1000;
        } else if (opt == "--sge") {
            auto n = number_option<std::uint32_t>(w, opt, 1, XIWPERF_MAX_SGE);
            if (!n)
                return n.error();
            c.sge = *n;
        } else if (opt == "--inline") {
            c.inline_data = true;
        } else if (opt == "--check" || opt == "-c") {
            c.check = true;
        } else if (opt == "-h" || opt == "--help") {
            return Command{Help{}};
        } else {
            return usage_error("client: unknown option " + quoted(opt));
        }
        if (w.dangling())
            return usage_error(std::string(opt) + " takes no value");
    }
    if (!have_addr)
        return usage_error("client: missing --addr IP");
    if (!have_op)
        return usage_error("client: missing --op {send,write,read}");
    if (!have_size)
        return usage_error("client: missing --size BYTES");
    if (!have_count)
        return usage_error("client: missing --count N");
    if (c.port == 0)
        return usage_error("client: --port must be 1 to 65535");
    if (c.size * c.depth * c.qps > XIWPERF_MAX_MEMORY)
        return usage_error("client: --qps * --depth * --size must not exceed " +
                           std::to_string(XIWPERF_MAX_MEMORY) + " bytes");
    if (c.inline_data && c.op == Op::read)
        return usage_error("client: --inline works with --op send and write only");
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

xiw::Result<Command> parse(std::span<const std::string_view> args)
{
    Words w(args);
    if (w.empty())
        return usage_error("missing command (server, client)");
    std::string_view cmd = w.next();
    if (cmd == "server")
        return parse_server(w);
    if (cmd == "client")
        return parse_client(w);
    if (cmd == "help" || cmd == "-h" || cmd == "--help")
        return Command{Help{}};
    return usage_error("unknown command " + quoted(cmd) + " (server, client)");
}

std::string usage()
{
    return "Usage: xiwperf server --addr IP [--port N] [--size BYTES] [--json]\n"
           "       xiwperf client --addr IP [--port N] --op {send,write,read} --size BYTES\n"
           "                      --count N [--depth N] [--qps N] [--sge N] [--inline]\n"
           "                      [--check] [--timeout SEC] [--json]\n"
           "\n"
           "server  listen on IP:PORT (default port " +
           std::to_string(XIWPERF_DEFAULT_PORT) +
           ") and serve clients until SIGINT/SIGTERM;\n"
           "        --size is the buffer clients read and write (default 4M, at most 1G).\n"
           "client  run COUNT operations of SIZE bytes (at most 4M; suffixes K, M, G) over QPS\n"
           "        connections with DEPTH outstanding each (defaults 1); --check verifies\n"
           "        every byte; --timeout gives up after SEC seconds without progress\n"
           "        (default 15); --json prints one JSON object as the last line.\n"
           "        --sge N (1 to " +
           std::to_string(XIWPERF_MAX_SGE) +
           ", default 1) splits each operation's buffer into N SGEs (the\n"
           "        server's receives too); --inline posts send and write with inline\n"
           "        data. A device that cannot do either fails the run.\n"
           "\n"
           "Needs the xiwperf module (modprobe xiwperf) and an RDMA device for IP.\n"
           "Exit status: 0 success, 1 failure, 2 usage error, 3 data mismatch.\n";
}

}  // namespace xiwperf
