// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli.hpp"

#include <cerrno>

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

}  // namespace

bool matches(std::string_view word, std::string_view keyword)
{
    return !word.empty() && word.size() <= keyword.size() &&
           keyword.substr(0, word.size()) == word;
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
        else
            return usage_error("unknown option \"" + std::string(opt) + "\"");
    }
    if (w.empty())
        return usage_error("missing object (dev, link)");

    std::string_view object = w.next();
    xiw::Result<Command> cmd = usage_error("");
    if (matches(object, "help"))
        cmd = Command{Help{w.empty() ? "" : std::string(w.next())}};
    else if (matches(object, "dev"))
        cmd = parse_dev(w);
    else if (matches(object, "link"))
        cmd = parse_link(w);
    else
        return usage_error("unknown object \"" + std::string(object) + "\"");
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
    std::string head = "Usage: xiwctl [OPTIONS] OBJECT { COMMAND | help }\n";
    if (topic == "dev")
        return head + dev;
    if (topic == "link")
        return head + link;
    return head + dev + link +
           "where  OBJECT := { dev | link | help }\n"
           "       OPTIONS := { -j[son] | -p[retty] | -h[elp] }\n"
           "Exit status: 0 success, 1 the kernel or system refused, 2 usage error.\n";
}

}  // namespace xiwctl
