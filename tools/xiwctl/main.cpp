// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// xiwctl: inspect and manage xiw devices.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <optional>
#include <thread>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "xiw/rdma_link.hpp"
#include "xiw/xiw_events.hpp"
#include "xiw/xiw_netlink.hpp"

namespace {

constexpr int exit_failed = 1;
constexpr int exit_usage = 2;

int fail(const xiw::Error& e)
{
    std::cerr << "xiwctl: " << e.message() << "\n";
    return exit_failed;
}

nlohmann::json device_json(const xiw::RdmaDevice& d)
{
    return {{"ifindex", d.index},
            {"ifname", d.name},
            {"node_type", d.node_type},
            {"fw", d.fw_version},
            {"node_guid", xiw::format_guid(d.node_guid)},
            {"sys_image_guid", xiw::format_guid(d.sys_image_guid)}};
}

void print_device(const xiw::RdmaDevice& d)
{
    std::cout << d.index << ": " << d.name << ": node_type " << d.node_type;
    if (!d.fw_version.empty())
        std::cout << " fw " << d.fw_version;
    std::cout << " node_guid " << xiw::format_guid(d.node_guid) << " sys_image_guid "
              << xiw::format_guid(d.sys_image_guid) << "\n";
}

int dev_show(const xiwctl::Options& opt, const xiwctl::DevShow& cmd)
{
    auto rnl = xiw::RdmaNetlink::open();
    if (!rnl)
        return fail(rnl.error());
    auto devs = rnl->devices();
    if (!devs)
        return fail(devs.error());
    std::vector<xiw::RdmaDevice> shown;
    for (const auto& d : *devs)
        if (!cmd.name || d.name == *cmd.name)
            shown.push_back(d);
    if (cmd.name && shown.empty())
        return fail(xiw::make_error(ENODEV, "RDMA device " + *cmd.name));
    if (opt.json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& d : shown)
            arr.push_back(device_json(d));
        std::cout << arr.dump(opt.pretty ? 4 : -1) << "\n";
    } else {
        for (const auto& d : shown)
            print_device(d);
    }
    return 0;
}

int link_add(const xiwctl::LinkAdd& cmd)
{
    auto rnl = xiw::RdmaNetlink::open();
    if (!rnl)
        return fail(rnl.error());
    if (auto st = rnl->add_link(cmd.name, cmd.netdev); !st)
        return fail(st.error());
    return 0;
}

int link_delete(const xiwctl::LinkDelete& cmd)
{
    auto rnl = xiw::RdmaNetlink::open();
    if (!rnl)
        return fail(rnl.error());
    if (auto st = rnl->delete_link(cmd.name); !st)
        return fail(st.error());
    return 0;
}

std::string joined(const std::vector<std::string>& words)
{
    std::string out;
    for (const auto& w : words)
        out += (out.empty() ? "" : ",") + w;
    return out.empty() ? "none" : out;
}

std::string hex(uint32_t v)
{
    char buf[12];
    std::snprintf(buf, sizeof(buf), "0x%x", v);
    return buf;
}

void print_json(const xiwctl::Options& opt, const nlohmann::json& j)
{
    std::cout << j.dump(opt.pretty ? 4 : -1) << "\n";
}

nlohmann::json caps_json(const xiw::XiwDevice& d)
{
    const auto& c = d.caps;
    return {{"ifindex", d.index},
            {"ifname", d.name},
            {"netdev", d.netdev},
            {"mpa", c.mpa_rev_names()},
            {"ops", c.op_names()},
            {"domains", c.persist_names()},
            {"hashes", c.hash_names()},
            {"max_ord", c.max_ord},
            {"max_ird", c.max_ird},
            {"max_msg", c.max_msg},
            {"max_qp", c.max_qp},
            {"max_mr", c.max_mr}};
}

void print_caps(const xiw::XiwDevice& d)
{
    const auto& c = d.caps;
    std::cout << d.index << ": " << d.name << ": netdev " << d.netdev << " mpa "
              << joined(c.mpa_rev_names()) << " ops " << joined(c.op_names()) << " domains "
              << joined(c.persist_names()) << " hashes " << joined(c.hash_names())
              << " max_ord " << c.max_ord << " max_ird " << c.max_ird << " max_msg "
              << c.max_msg << " max_qp " << c.max_qp << " max_mr " << c.max_mr << "\n";
}

nlohmann::json policy_json(const xiw::XiwDevice& d)
{
    return {{"ifindex", d.index},
            {"ifname", d.name},
            {"domain", xiw::persist_name(d.policy.persist)},
            {"dram_persistent", xiw::dram_persistent_name(d.policy.dram_persistent)},
            {"dram_persistent_now", d.policy.dram_persistent_now}};
}

void print_policy(const xiw::XiwDevice& d)
{
    std::cout << d.index << ": " << d.name << ": domain " << xiw::persist_name(d.policy.persist)
              << " dram-persistent " << xiw::dram_persistent_name(d.policy.dram_persistent)
              << " (" << (d.policy.dram_persistent_now ? "on" : "off") << ")\n";
}

// What @p all reads of every device, or @p one of the device named.
template <class All, class One>
auto all_or_named(const std::optional<std::string>& name, All all, One one)
    -> decltype(all())
{
    if (!name)
        return all();
    auto got = one(*name);
    if (!got)
        return got.error();
    std::vector<std::decay_t<decltype(*got)>> just_it;
    just_it.push_back(std::move(got).value());
    return just_it;
}

// The xiw devices to show: all, or the one named.
xiw::Result<std::vector<xiw::XiwDevice>> xiw_devices(const std::optional<std::string>& name)
{
    auto xnl = xiw::XiwNetlink::open();
    if (!xnl)
        return xnl.error();
    return all_or_named(
        name, [&xnl] { return xnl->devices(); },
        [&xnl](const std::string& n) { return xnl->device(n); });
}

template <class Json, class Text>
int show_devices(const xiwctl::Options& opt, const std::optional<std::string>& name, Json to_json,
                 Text print)
{
    auto devs = xiw_devices(name);
    if (!devs)
        return fail(devs.error());
    if (opt.json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& d : *devs)
            arr.push_back(to_json(d));
        print_json(opt, arr);
    } else {
        for (const auto& d : *devs)
            print(d);
    }
    return 0;
}

// Make a change with @p set, then show the device as @p to_json or
// @p print do.
template <class Set, class Json, class Text>
int change_and_show(const xiwctl::Options& opt, Set set, Json to_json, Text print)
{
    auto xnl = xiw::XiwNetlink::open();
    if (!xnl)
        return fail(xnl.error());
    auto d = set(*xnl);
    if (!d)
        return fail(d.error());
    if (opt.json)
        print_json(opt, nlohmann::json::array({to_json(*d)}));
    else
        print(*d);
    return 0;
}

int policy_set(const xiwctl::Options& opt, const xiwctl::PolicySet& cmd)
{
    return change_and_show(
        opt, [&cmd](xiw::XiwNetlink& x) { return x.set_policy(cmd.name, cmd.change); },
        policy_json, print_policy);
}

// A setting that may say "default", and what it amounts to now.
std::string with_now(const std::string& set, const std::string& now)
{
    return set == "default" ? set + " (" + now + ")" : set;
}

std::string mpa_name(uint8_t rev)
{
    return rev ? std::to_string(rev) : "default";
}

std::string rtr_names(const xiw::Config& c)
{
    return c.rtr.empty() ? "default" : joined(c.rtr_names());
}

nlohmann::json config_json(const xiw::XiwDevice& d)
{
    auto settings = [](const xiw::Config& c) {
        return nlohmann::json{{"crc", xiw::crc_name(c.crc)},
                              {"markers", xiw::switch_name(c.markers)},
                              {"mpa", mpa_name(c.mpa_rev)},
                              {"p2p", xiw::switch_name(c.p2p)},
                              {"rtr", c.rtr.empty() ? nlohmann::json("default")
                                                    : nlohmann::json(c.rtr_names())},
                              {"hashes", c.hash_names()},
                              {"debug", xiw::debug_name(c.debug)}};
    };
    nlohmann::json j = {{"ifindex", d.index}, {"ifname", d.name}};
    j.update(settings(d.config));
    j["now"] = settings(d.config_now);
    return j;
}

void print_config(const xiw::XiwDevice& d)
{
    const auto &c = d.config, &n = d.config_now;
    std::cout << d.index << ": " << d.name << ": crc "
              << with_now(xiw::crc_name(c.crc), xiw::crc_name(n.crc)) << " markers "
              << with_now(xiw::switch_name(c.markers), xiw::switch_name(n.markers)) << " mpa "
              << with_now(mpa_name(c.mpa_rev), mpa_name(n.mpa_rev)) << " p2p "
              << with_now(xiw::switch_name(c.p2p), xiw::switch_name(n.p2p)) << " rtr "
              << with_now(rtr_names(c), rtr_names(n)) << " hashes " << joined(c.hash_names())
              << " debug " << xiw::debug_name(c.debug) << "\n";
}

int config_set(const xiwctl::Options& opt, const xiwctl::ConfigSet& cmd)
{
    return change_and_show(
        opt, [&cmd](xiw::XiwNetlink& x) { return x.set_config(cmd.name, cmd.change); },
        config_json, print_config);
}

// A Terminate's kind as one word: "sent_ddp_1_0x00".
std::string term_key(const xiw::TerminateInfo& t)
{
    return std::string(t.sent ? "sent_" : "received_") +
           std::string(xiw::terminate_layer_name(t.layer)) + "_" + std::to_string(t.type) + "_" +
           xiw::terminate_code_hex(t.code);
}

// The counters of every device, or of the one named.
xiw::Result<std::vector<xiw::Stats>> read_stats(xiw::XiwNetlink& xnl,
                                                const std::optional<std::string>& name)
{
    return all_or_named(
        name, [&xnl] { return xnl.stats(); },
        [&xnl](const std::string& n) { return xnl.stats(n); });
}

// A device's counters and Terminates by kind, by name, in the kernel's order.
std::vector<std::pair<std::string, uint64_t>> flat(const xiw::Stats& s)
{
    auto out = s.counters;
    for (const auto& t : s.terminates)
        out.emplace_back("terminate_" + term_key(t.term), t.count);
    return out;
}

// One device's counters as "stats -j" prints each: ifindex, ifname, port,
// the counters by name, then the Terminates by kind ("count" each).
nlohmann::json stats_json(const xiw::Stats& s)
{
    nlohmann::json j = {{"ifindex", s.index}, {"ifname", s.name}, {"port", 1}};
    for (const auto& [name, value] : s.counters)
        j[name] = value;
    j["terminates"] = nlohmann::json::array();
    for (const auto& t : s.terminates)
        j["terminates"].push_back({{"sent", t.term.sent},
                                   {"layer", xiw::terminate_layer_name(t.term.layer)},
                                   {"type", t.term.type},
                                   {"code", t.term.code},
                                   {"count", t.count}});
    return j;
}

// @p now less @p was, counter by counter and Terminate kind by kind (both
// named as flat() names them); a counter less than before is a device
// deleted and made anew (counters only grow): all of it is new. Terminate
// kinds that did not grow are left out, as "stats" leaves out kinds never
// seen.
xiw::Stats increase(const xiw::Stats& now, const xiw::Stats* was)
{
    std::map<std::string, uint64_t> before;
    if (was)
        for (const auto& [k, v] : flat(*was))
            before[k] = v;
    auto grew = [&before](const std::string& key, uint64_t v) {
        auto it = before.find(key);
        uint64_t b = it == before.end() ? 0 : it->second;
        return v >= b ? v - b : v;
    };
    xiw::Stats d = now;
    for (auto& [name, value] : d.counters)
        value = grew(name, value);
    d.terminates.clear();
    for (const auto& t : now.terminates)
        if (uint64_t c = grew("terminate_" + term_key(t.term), t.count))
            d.terminates.push_back({t.term, c});
    return d;
}

// Every @p seconds, what changed since the last reading, until killed: for
// each device whose counters changed, a line of the counters that grew and
// by how much, or with -j the object "stats -j" prints for the device with
// the increases as its values (every counter, Terminates that grew).
int stats_watch(const xiwctl::Options& opt, xiw::XiwNetlink& xnl, const xiwctl::StatsShow& cmd)
{
    auto last = read_stats(xnl, cmd.name);
    if (!last)
        return fail(last.error());
    std::map<std::string, xiw::Stats> before;
    for (auto& s : *last)
        before[s.name] = std::move(s);
    for (;;) {
        std::this_thread::sleep_for(std::chrono::duration<double>(*cmd.watch));
        auto now = read_stats(xnl, cmd.name);
        if (!now)
            return fail(now.error());
        for (auto& s : *now) {
            auto was = before.find(s.name);
            xiw::Stats d = increase(s, was == before.end() ? nullptr : &was->second);
            before[s.name] = std::move(s);
            std::string line;
            for (const auto& [k, v] : flat(d))
                if (v)
                    line += " " + k + " +" + std::to_string(v);
            if (line.empty())
                continue;
            if (opt.json)
                std::cout << stats_json(d).dump() << std::endl;
            else
                std::cout << d.name << ":" << line << std::endl;
        }
    }
}

// As "rdma statistic show": the device, its port, then each counter, then
// the Terminates by code ("terminate_sent_ddp_1_0x00 1").
int stats_show(const xiwctl::Options& opt, const xiwctl::StatsShow& cmd)
{
    auto xnl = xiw::XiwNetlink::open();
    if (!xnl)
        return fail(xnl.error());
    if (cmd.watch)
        return stats_watch(opt, *xnl, cmd);
    auto got = read_stats(*xnl, cmd.name);
    if (!got)
        return fail(got.error());
    const auto& all = *got;
    if (opt.json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& s : all)
            arr.push_back(stats_json(s));
        print_json(opt, arr);
        return 0;
    }
    for (const auto& s : all) {
        std::cout << "link " << s.name << "/1";
        for (const auto& [name, value] : flat(s))
            std::cout << " " << name << " " << value;
        std::cout << "\n";
    }
    return 0;
}

// Each event on a line of its own, flushed: a reader of a pipe sees it at once.
int monitor(const xiwctl::Options& opt)
{
    auto ev = xiw::XiwEvents::open();
    if (!ev)
        return fail(ev.error());
    auto st = ev->watch([&opt](const xiw::Event& e) {
        using K = xiw::Event::Kind;
        if (e.kind == K::lost) {
            if (opt.json)
                std::cout << nlohmann::json{{"event", "lost"}}.dump() << std::endl;
            else
                std::cout << "events lost: the socket overflowed" << std::endl;
            return true;
        }
        if (opt.json) {
            nlohmann::json j = {{"event", e.kind == K::dev_new   ? "dev_new"
                                          : e.kind == K::dev_del ? "dev_del"
                                                                 : "qp_error"},
                                {"ifindex", e.dev_index},
                                {"ifname", e.dev_name}};
            if (e.kind == K::dev_new)
                j["netdev"] = e.netdev;
            if (e.kind == K::qp_error)
                j.update({{"qpn", e.qp_num},
                          {"terminate",
                           {{"sent", e.term.sent},
                            {"layer", xiw::terminate_layer_name(e.term.layer)},
                            {"type", e.term.type},
                            {"code", e.term.code}}}});
            std::cout << j.dump() << std::endl;
            return true;
        }
        if (e.kind == K::dev_new)
            std::cout << "dev new " << e.dev_index << ": " << e.dev_name << " netdev "
                      << e.netdev;
        else if (e.kind == K::dev_del)
            std::cout << "dev del " << e.dev_index << ": " << e.dev_name;
        else
            std::cout << "qp error " << e.dev_index << ": " << e.dev_name << " qp " << e.qp_num
                      << " terminate " << (e.term.sent ? "sent" : "received") << " layer "
                      << xiw::terminate_layer_name(e.term.layer) << " type "
                      << unsigned{e.term.type} << " code " << xiw::terminate_code_hex(e.term.code);
        std::cout << std::endl;
        return true;
    });
    if (!st)
        return fail(st.error());
    return 0;
}

int mr_policy(const xiwctl::Options& opt, const xiwctl::MrPolicyCmd& cmd)
{
    auto xnl = xiw::XiwNetlink::open();
    if (!xnl)
        return fail(xnl.error());
    auto m = cmd.persist ? xnl->set_mr_persist(cmd.name, cmd.stag, *cmd.persist)
                         : xnl->mr(cmd.name, cmd.stag);
    if (!m)
        return fail(m.error());
    if (opt.json) {
        print_json(opt, nlohmann::json::array({{{"ifindex", m->dev_index},
                                                {"ifname", m->dev_name},
                                                {"stag", hex(m->stag)},
                                                {"domain", xiw::persist_name(m->persist)}}}));
    } else {
        std::cout << m->dev_index << ": " << m->dev_name << ": stag " << hex(m->stag)
                  << " domain " << xiw::persist_name(m->persist) << "\n";
    }
    return 0;
}

// A visitor made of one lambda per alternative.
template <class... Fs>
struct Overloaded : Fs... {
    using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

int run(int argc, char** argv)
{
    std::vector<std::string_view> args(argv + 1, argv + argc);
    auto inv = xiwctl::parse(args);
    if (!inv) {
        std::cerr << "xiwctl: " << inv.error().context << "\n"
                  << "Try \"xiwctl help\".\n";
        return exit_usage;
    }
    const auto& opt = inv->options;
    // One handler per command: a command added without one does not
    // compile (std::visit needs every alternative handled).
    return std::visit(
        Overloaded{
            [](const xiwctl::Help& cmd) {
                std::cout << xiwctl::usage(cmd.topic);
                return 0;
            },
            [](const xiwctl::Version&) {
                std::cout << "xiwctl " << XIW_VERSION << "\n";
                return 0;
            },
            [&opt](const xiwctl::DevShow& cmd) { return dev_show(opt, cmd); },
            [](const xiwctl::LinkAdd& cmd) { return link_add(cmd); },
            [](const xiwctl::LinkDelete& cmd) { return link_delete(cmd); },
            [&opt](const xiwctl::CapsShow& cmd) {
                return show_devices(opt, cmd.name, caps_json, print_caps);
            },
            [&opt](const xiwctl::PolicyShow& cmd) {
                return show_devices(opt, cmd.name, policy_json, print_policy);
            },
            [&opt](const xiwctl::PolicySet& cmd) { return policy_set(opt, cmd); },
            [&opt](const xiwctl::MrPolicyCmd& cmd) { return mr_policy(opt, cmd); },
            [&opt](const xiwctl::ConfigShow& cmd) {
                return show_devices(opt, cmd.name, config_json, print_config);
            },
            [&opt](const xiwctl::ConfigSet& cmd) { return config_set(opt, cmd); },
            [&opt](const xiwctl::StatsShow& cmd) { return stats_show(opt, cmd); },
            [&opt](const xiwctl::Monitor&) { return monitor(opt); },
        },
        inv->command);
}

}  // namespace

int main(int argc, char** argv)
{
    // What can throw is the C++ library's (std::bad_alloc; nlohmann::json
    // refusing to encode a string that is not UTF-8): said, not an abort.
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "xiwctl: " << e.what() << "\n";
    } catch (...) {
        std::cerr << "xiwctl: unexpected error\n";
    }
    return exit_failed;
}
