// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <system_error>
#include <vector>


namespace xiwctl {

namespace {

xiw::Error usage_error(std::string what)
{
    return xiw::make_error(EINVAL, std::move(what));
}

// Cursor over the remaining words.
class Words {
public:
    explicit Words(std::span<const std::string_view> w) : w_(w) {}
    [[nodiscard]] bool empty() const { return i_ >= w_.size(); }
    [[nodiscard]] std::string_view peek() const { return w_[i_]; }
    std::string_view next() { return w_[i_++]; }

private:
    std::span<const std::string_view> w_;
    size_t i_ = 0;
};

xiw::Result<Command> parse_dev(Words& w)
{
    if (w.empty())
        return Command{DevShow{}};
    std::string_view verb = w.next();
    if (matches(verb, "help"))
        return Command{Help{"dev"}};
    if (!matches(verb, "show") && !matches(verb, "list"))
        return usage_error("dev: unknown command \"" + std::string(verb) + "\"");
    DevShow show;
    if (!w.empty())
        show.name = std::string(w.next());
    if (!w.empty())
        return usage_error("dev show: unexpected \"" + std::string(w.peek()) + "\"");
    return Command{show};
}

xiw::Result<Command> parse_link(Words& w)
{
    if (w.empty())
        return usage_error("link: missing command (add, delete)");
    std::string_view verb = w.next();
    if (matches(verb, "help"))
        return Command{Help{"link"}};
    if (matches(verb, "add")) {
        if (w.empty())
            return usage_error("link add: missing device name");
        LinkAdd add{std::string(w.next()), {}};
        while (!w.empty()) {
            std::string_view key = w.next();
            if (w.empty())
                return usage_error("link add: \"" + std::string(key) + "\" needs a value");
            std::string_view value = w.next();
            if (matches(key, "netdev"))
                add.netdev = value;
            else if (matches(key, "type") && value == "xiw")
                continue;
            else if (matches(key, "type"))
                return usage_error("link add: xiwctl only adds type xiw, not \"" +
                                   std::string(value) + "\"");
            else
                return usage_error("link add: unknown keyword \"" + std::string(key) + "\"");
        }
        if (add.netdev.empty())
            return usage_error("link add: missing \"netdev NETDEV\"");
        return Command{add};
    }
    if (verb == "del" || matches(verb, "delete")) {
        if (w.empty())
            return usage_error("link delete: missing device name");
        LinkDelete del{std::string(w.next())};
        if (!w.empty())
            return usage_error("link delete: unexpected \"" + std::string(w.peek()) + "\"");
        return Command{del};
    }
    return usage_error("link: unknown command \"" + std::string(verb) + "\"");
}

// An optional device name and nothing after it: "caps [DEV]", "policy show [DEV]".
xiw::Result<std::optional<std::string>> optional_name(Words& w, const std::string& what)
{
    std::optional<std::string> name;
    if (!w.empty())
        name = std::string(w.next());
    if (!w.empty())
        return usage_error(what + ": unexpected \"" + std::string(w.peek()) + "\"");
    return name;
}

xiw::Result<Command> parse_caps(Words& w)
{
    if (!w.empty() && matches(w.peek(), "help"))
        return Command{Help{"caps"}};
    if (!w.empty() && matches(w.peek(), "show"))
        w.next();
    auto name = optional_name(w, "caps");
    if (!name)
        return name.error();
    return Command{CapsShow{*name}};
}

// A watch interval: a positive decimal number of seconds, at most a day.
xiw::Result<double> parse_seconds(std::string_view word)
{
    double v = 0;
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (ec == std::errc() && end == word.data() + word.size() && v > 0 && v <= 86400)
        return v;
    return usage_error("stats: \"" + std::string(word) +
                       "\" is not a number of seconds (more than 0, at most 86400)");
}

xiw::Result<Command> parse_stats(Words& w)
{
    if (!w.empty() && matches(w.peek(), "help"))
        return Command{Help{"stats"}};
    if (!w.empty() && matches(w.peek(), "show"))
        w.next();
    StatsShow show;
    while (!w.empty()) {
        std::string_view word = w.next();
        if (word == "-w" || word == "--watch") {
            if (show.watch)
                return usage_error("stats: \"-w\" given twice");
            show.watch = 1.0;
            if (!w.empty() && !w.peek().empty() &&
                (std::isdigit(static_cast<unsigned char>(w.peek()[0])) || w.peek()[0] == '.')) {
                auto s = parse_seconds(w.next());
                if (!s)
                    return s.error();
                show.watch = *s;
            }
        } else if (!show.name && !word.starts_with("-")) {
            show.name = std::string(word);
        } else {
            return usage_error("stats: unexpected \"" + std::string(word) + "\"");
        }
    }
    return Command{show};
}

// "domain D": the word after it, as a domain.
xiw::Result<xiw::Persist> domain_value(Words& w, const std::string& what)
{
    if (w.empty())
        return usage_error(what + ": \"domain\" needs a value (auto, dram, pmem, file)");
    auto d = xiw::parse_persist(w.next());
    if (!d)
        return usage_error(what + ": " + d.error().context);
    return *d;
}

xiw::Result<Command> parse_policy(Words& w)
{
    if (w.empty())
        return Command{PolicyShow{}};
    if (matches(w.peek(), "help"))
        return Command{Help{"policy"}};
    // "s" is show: an abbreviation never turns a read into a change.
    if (w.peek() != "s" && matches(w.peek(), "set")) {
        w.next();
        if (w.empty())
            return usage_error("policy set: missing device name");
        PolicySet set{std::string(w.next()), {}};
        while (!w.empty()) {
            std::string_view key = w.next();
            if (matches(key, "domain")) {
                if (set.change.persist)
                    return usage_error("policy set: \"domain\" given twice");
                auto d = domain_value(w, "policy set");
                if (!d)
                    return d.error();
                set.change.persist = *d;
            } else if (matches(key, "dram-persistent")) {
                if (set.change.dram_persistent)
                    return usage_error("policy set: \"dram-persistent\" given twice");
                if (w.empty())
                    return usage_error("policy set: \"dram-persistent\" needs a value (on, "
                                       "off, default)");
                auto p = xiw::parse_dram_persistent(w.next());
                if (!p)
                    return usage_error("policy set: " + p.error().context);
                set.change.dram_persistent = *p;
            } else {
                return usage_error("policy set: unknown keyword \"" + std::string(key) + "\"");
            }
        }
        if (!set.change.persist && !set.change.dram_persistent)
            return usage_error("policy set: nothing to change (domain, dram-persistent)");
        return Command{set};
    }
    if (matches(w.peek(), "show") || matches(w.peek(), "list"))
        w.next();
    auto name = optional_name(w, "policy show");
    if (!name)
        return name.error();
    return Command{PolicyShow{*name}};
}

// An STag: decimal or 0x hexadecimal, 32 bits; digits only (no sign, no
// space), all of the word.
xiw::Result<uint32_t> parse_stag(std::string_view word)
{
    bool hex = word.starts_with("0x") || word.starts_with("0X");
    std::string_view digits = hex ? word.substr(2) : word;
    uint32_t v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v,
                                     hex ? 16 : 10);
    if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size())
        return v;
    return usage_error("\"" + std::string(word) +
                       "\" is not an STag (32 bits, decimal or 0x hex)");
}

xiw::Result<Command> parse_mr(Words& w)
{
    if (w.empty())
        return usage_error("mr: missing command (show, set)");
    std::string_view verb = w.next();
    if (matches(verb, "help"))
        return Command{Help{"mr"}};
    // "s" is show: an abbreviation never turns a read into a change.
    bool set = verb != "s" && matches(verb, "set");
    if (!set && !matches(verb, "show"))
        return usage_error("mr: unknown command \"" + std::string(verb) + "\"");
    const std::string what = set ? "mr set" : "mr show";
    if (w.empty())
        return usage_error(what + ": missing device name");
    MrPolicyCmd cmd{std::string(w.next()), 0, std::nullopt};
    if (w.empty())
        return usage_error(what + ": missing STAG");
    auto stag = parse_stag(w.next());
    if (!stag)
        return usage_error(what + ": " + stag.error().context);
    cmd.stag = *stag;
    if (!set) {
        if (!w.empty())
            return usage_error(what + ": unexpected \"" + std::string(w.peek()) + "\"");
        return Command{cmd};
    }
    while (!w.empty()) {
        std::string_view key = w.next();
        if (!matches(key, "domain"))
            return usage_error(what + ": unknown keyword \"" + std::string(key) + "\"");
        if (cmd.persist)
            return usage_error(what + ": \"domain\" given twice");
        auto d = domain_value(w, what);
        if (!d)
            return d.error();
        cmd.persist = *d;
    }
    if (!cmd.persist)
        return usage_error(what + ": nothing to change (domain)");
    return Command{cmd};
}

// A comma-separated list of @p parse's words: "write,read".
template <class T, class Parse>
xiw::Result<std::vector<T>> word_list(std::string_view value, Parse parse)
{
    std::vector<T> out;
    size_t start = 0;
    for (;;) {
        size_t comma = value.find(',', start);
        auto v = parse(value.substr(start, comma == std::string_view::npos ? comma
                                                                            : comma - start));
        if (!v)
            return v.error();
        if (std::find(out.begin(), out.end(), *v) != out.end())
            return usage_error("\"" + std::string(value) + "\" names one twice");
        out.push_back(*v);
        if (comma == std::string_view::npos)
            return out;
        start = comma + 1;
    }
}

// One "KEY VALUE" of config set into @p c; false if KEY is no setting.
xiw::Result<bool> config_setting(std::string_view key, std::string_view value,
                                 xiw::ConfigChange& c)
{
    auto twice = [key](bool given) -> xiw::Status {
        if (given)
            return usage_error("\"" + std::string(key) + "\" given twice");
        return xiw::Ok{};
    };
    auto take = [&twice](auto& field, auto parsed) -> xiw::Result<bool> {
        if (auto st = twice(field.has_value()); !st)
            return st.error();
        if (!parsed)
            return parsed.error();
        field = *parsed;
        return true;
    };
    if (matches(key, "crc"))
        return take(c.crc, xiw::parse_crc(value));
    if (matches(key, "markers"))
        return take(c.markers, xiw::parse_switch(value, "markers"));
    if (matches(key, "mpa")) {
        xiw::Result<uint8_t> rev = usage_error("mpa \"" + std::string(value) +
                                               "\" is not one of default, 1, 2");
        if (value == "default")
            rev = uint8_t{0};
        else if (value == "1" || value == "2")
            rev = static_cast<uint8_t>(value[0] - '0');
        return take(c.mpa_rev, rev);
    }
    if (matches(key, "p2p"))
        return take(c.p2p, xiw::parse_switch(value, "p2p"));
    if (matches(key, "rtr")) {
        if (value == "default")
            return take(c.rtr, xiw::Result<std::vector<xiw::RtrKind>>(
                                   std::vector<xiw::RtrKind>{}));
        return take(c.rtr, word_list<xiw::RtrKind>(value, xiw::parse_rtr_kind));
    }
    if (matches(key, "hashes")) {
        if (value == "none")
            return take(c.hashes, xiw::Result<uint32_t>(0U));
        auto algs = word_list<unsigned>(value, xiw::parse_hash);
        if (!algs)
            return algs.error();
        uint32_t mask = 0;
        for (unsigned a : *algs)
            mask |= 1U << a;
        return take(c.hashes, xiw::Result<uint32_t>(mask));
    }
    if (matches(key, "debug"))
        return take(c.debug, xiw::parse_debug(value));
    return false;
}

xiw::Result<Command> parse_config(Words& w)
{
    if (w.empty())
        return Command{ConfigShow{}};
    if (matches(w.peek(), "help"))
        return Command{Help{"config"}};
    // "s" is show: an abbreviation never turns a read into a change.
    if (w.peek() != "s" && matches(w.peek(), "set")) {
        w.next();
        if (w.empty())
            return usage_error("config set: missing device name");
        ConfigSet set{std::string(w.next()), {}};
        while (!w.empty()) {
            std::string_view key = w.next();
            if (w.empty())
                return usage_error("config set: \"" + std::string(key) + "\" needs a value");
            auto known = config_setting(key, w.next(), set.change);
            if (!known)
                return usage_error("config set: " + known.error().context);
            if (!*known)
                return usage_error("config set: unknown keyword \"" + std::string(key) + "\"");
        }
        if (set.change.empty())
            return usage_error(
                "config set: nothing to change (crc, markers, mpa, p2p, rtr, hashes, debug)");
        return Command{set};
    }
    if (matches(w.peek(), "show") || matches(w.peek(), "list"))
        w.next();
    auto name = optional_name(w, "config show");
    if (!name)
        return name.error();
    return Command{ConfigShow{*name}};
}

}  // namespace

bool matches(std::string_view word, std::string_view keyword)
{
    return !word.empty() && word.size() <= keyword.size() &&
           keyword.substr(0, word.size()) == word;
}

xiw::Result<std::string_view> pick(std::string_view word,
                                   std::span<const std::string_view> keywords,
                                   std::string_view what)
{
    std::vector<std::string_view> hits;
    for (std::string_view k : keywords) {
        if (word == k)
            return k;
        if (matches(word, k))
            hits.push_back(k);
    }
    if (hits.size() == 1)
        return hits.front();
    std::string quoted = std::string(what) + " \"" + std::string(word) + "\"";
    if (hits.empty())
        return usage_error("unknown " + quoted);
    std::string all;
    for (std::string_view k : hits)
        all += (all.empty() ? "" : ", ") + std::string(k);
    return usage_error(quoted + " is ambiguous (" + all + ")");
}

xiw::Result<Invocation> parse(std::span<const std::string_view> args)
{
    Invocation inv{{}, Help{}};
    Words w(args);
    while (!w.empty() && w.peek().starts_with("-")) {
        std::string_view opt = w.next();
        if (opt == "-j" || opt == "--json")
            inv.options.json = true;
        else if (opt == "-p" || opt == "--pretty")
            inv.options.pretty = true;
        else if (opt == "-h" || opt == "--help")
            return Invocation{inv.options, Help{}};
        else if (opt == "-V" || opt == "--version")
            return Invocation{inv.options, Version{}};
        else
            return usage_error("unknown option \"" + std::string(opt) + "\"");
    }
    if (w.empty())
        return usage_error(
            "missing object (dev, link, caps, config, policy, mr, stats, monitor)");

    static constexpr std::string_view objects[] = {"help",   "dev", "link",  "caps",   "config",
                                                   "policy", "mr",  "stats", "monitor"};
    std::string_view word = w.next();
    auto object = pick(word, objects, "object");
    if (!object && word == "probe")
        return usage_error("unknown object \"probe\": a peer's extensions are probed by "
                           "xiwperf (xiwperf probe --addr ADDR)");
    if (!object)
        return object.error();
    xiw::Result<Command> cmd = usage_error("");
    if (*object == "help")
        cmd = Command{Help{w.empty() ? "" : std::string(w.next())}};
    else if (*object == "dev")
        cmd = parse_dev(w);
    else if (*object == "link")
        cmd = parse_link(w);
    else if (*object == "caps")
        cmd = parse_caps(w);
    else if (*object == "config")
        cmd = parse_config(w);
    else if (*object == "policy")
        cmd = parse_policy(w);
    else if (*object == "mr")
        cmd = parse_mr(w);
    else if (*object == "stats")
        cmd = parse_stats(w);
    else if (!w.empty() && matches(w.peek(), "help"))
        cmd = Command{Help{"monitor"}};
    else if (!w.empty())
        return usage_error("monitor: unexpected \"" + std::string(w.peek()) + "\"");
    else
        cmd = Command{Monitor{}};
    if (!cmd)
        return cmd.error();
    inv.command = std::move(cmd).value();
    return inv;
}

std::string usage(std::string_view topic)
{
    const std::string dev =
        "       xiwctl [-j] [-p] dev [show [NAME]]\n";
    const std::string link =
        "       xiwctl link add NAME netdev NETDEV\n"
        "       xiwctl link delete NAME\n";
    const std::string caps = "       xiwctl [-j] [-p] caps [show] [NAME]\n";
    const std::string policy =
        "       xiwctl [-j] [-p] policy [show] [NAME]\n"
        "       xiwctl [-j] [-p] policy set NAME [domain DOMAIN] [dram-persistent DRAM]\n";
    const std::string mr = "       xiwctl [-j] [-p] mr show NAME STAG\n"
                           "       xiwctl [-j] [-p] mr set NAME STAG domain DOMAIN\n";
    const std::string config =
        "       xiwctl [-j] [-p] config [show] [NAME]\n"
        "       xiwctl [-j] [-p] config set NAME [crc CRC] [markers SWITCH] [mpa MPA]\n"
        "                                 [p2p SWITCH] [rtr RTR] [hashes HASHES] [debug DEBUG]\n";
    const std::string config_values =
        "where  CRC := { default | off | preferred | required }\n"
        "       SWITCH := { default | off | on }\n"
        "       MPA := { default | 1 | 2 }\n"
        "       RTR := { default | KIND[,KIND...] }, KIND := { send | write | read }\n"
        "       HASHES := { none | HASH[,HASH...] }, HASH := { crc32c | sha256 }\n"
        "       DEBUG := { quiet | faults | connections }\n";
    const std::string values = "where  DOMAIN := { auto | dram | pmem | file }\n"
                               "       DRAM := { on | off | default }\n"
                               "       STAG := 32 bits, decimal or 0x hexadecimal\n";
    std::string head = "Usage: xiwctl [OPTIONS] OBJECT { COMMAND | help }\n";
    if (topic == "dev")
        return head + dev;
    if (topic == "link")
        return head + link;
    if (topic == "caps")
        return head + caps;
    if (topic == "policy")
        return head + policy + values;
    if (topic == "mr")
        return head + mr + values;
    const std::string stats = "       xiwctl [-j] [-p] stats [show] [NAME] [-w [SECONDS]]\n";
    const std::string monitor = "       xiwctl [-j] monitor\n";
    if (topic == "config")
        return head + config + config_values;
    if (topic == "stats")
        return head + stats;
    if (topic == "monitor")
        return head + monitor;
    return head + dev + link + caps + config + policy + mr + stats + monitor +
           config_values +
           values +
           "       OBJECT := { dev | link | caps | config | policy | mr | stats | monitor | help }\n"
           "       OPTIONS := { -j[son] | -p[retty] | -h[elp] | -V[ersion] }\n"
           "Keywords may be abbreviated to a prefix; one two OBJECTs share is refused.\n"
           "Exit status: 0 success, 1 the kernel or system refused, 2 usage error.\n";
}

}  // namespace xiwctl
