// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// xiwperf: RDMA test and benchmark over any kernel-verbs device, driven
// through the xiwperf kernel module; and the probe of a peer's extensions.
#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "backing.hpp"
#include "device.hpp"
#include "probe.hpp"
#include "report.hpp"
#include "xiw/xiw_events.hpp"

namespace {

using namespace xiwperf;

void on_signal(int) {}

// SIGINT and SIGTERM interrupt the blocking ioctl (EINTR) instead of
// killing the process, so that the results so far can be printed.
void catch_signals()
{
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

int fail(const std::string& what)
{
    std::cerr << "xiwperf: " << what << "\n";
    return exit_failed;
}

std::string device_name(const char* name, size_t len)
{
    return std::string(name, strnlen(name, len));
}

int run_server(const Server& args)
{
    // --backing: the mapping the server's buffer is, declared first so
    // that it outlives the server (torn down when dev closes).
    std::optional<BackedBuffer> backed;
    auto dev = Device::open();
    if (!dev)
        return fail(dev.error().message());
    if (args.backing.kind != Backing::Kind::none) {
        auto b = BackedBuffer::open(args.backing, args.size);
        if (!b)
            return fail(b.error().message());
        backed.emplace(std::move(b).value());
    }
    catch_signals();
    xiwperf_listen l{};
    if (auto st = dev->listen(args, l, backed ? backed->address() : 0); !st)
        return fail(st.error().message());
    // The disk holds the read pattern the module filled in: the start
    // state, whatever clients write later. A block device (pmem:/dev/pmemN)
    // is a page cache too: written back, its buffers are mapped, which a
    // Flush needs (Documentation/commit-draft.md). A DAX device has none.
    if (backed && backed->syncable()) {
        if (auto st = backed->sync(); !st)
            return fail(st.error().message());
    }
    std::string device = device_name(l.device, sizeof(l.device));
    std::string backing = backing_text(args.backing);
    if (args.json) {
        nlohmann::json j{{"event", "listening"},
                         {"addr", args.addr.text},
                         {"port", l.addr.port},
                         {"device", device},
                         {"size", l.size}};
        if (!backing.empty())
            j["backing"] = backing;
        if (args.hash != Hash::none)
            j["hash"] = hash_name(args.hash);
        std::cout << j.dump() << std::endl;
    } else {
        std::cout << "xiwperf server: listening on " << args.addr.text << " port " << l.addr.port
                  << ", device " << (device.empty() ? "any" : device) << ", buffer " << l.size
                  << " bytes" << (backing.empty() ? "" : ", backed by " + backing)
                  << (args.hash == Hash::none ? ""
                                              : ", verifies with " + std::string(hash_name(
                                                                         args.hash)))
                  << std::endl;
    }

    xiwperf_serve s{};
    int err = dev->serve(s);
    if (args.json) {
        std::cout << nlohmann::json{{"event", "stopped"},
                                    {"connections", s.connections},
                                    {"active", s.active},
                                    {"rejected", s.rejected},
                                    {"received", s.received},
                                    {"mismatches", s.mismatches},
                                    {"errors", s.errors},
                                    {"async_events",
                                     {{"qp_fatal", s.qp_fatal_events},
                                      {"qp_req_err", s.qp_req_err_events},
                                      {"qp_access_err", s.qp_access_err_events},
                                      {"cq_err", s.cq_err_events}}}}
                         .dump()
                  << std::endl;
    } else {
        std::cout << "xiwperf server: " << s.connections << " connections, " << s.rejected
                  << " rejected, " << s.received << " messages received, " << s.mismatches
                  << " mismatches, " << s.errors << " errors" << std::endl;
    }
    if (err == EINTR)
        return exit_ok;
    if (err == ENODEV)
        return fail("the RDMA device of " + args.addr.text + " went away");
    return fail(std::string("serving failed: ") + std::strerror(err));
}

int run_client(const Client& args)
{
    auto dev = Device::open();
    if (!dev)
        return fail(dev.error().message());
    catch_signals();
    Outcome out = dev->run(args);
    std::string err = error_message(args, out);
    std::string mismatch = mismatch_message(args, out.result);
    if (!err.empty())
        std::cerr << "xiwperf: " << err << "\n";
    if (!mismatch.empty())
        std::cerr << "xiwperf: " << mismatch << "\n";
    if (args.json)
        std::cout << to_json(args, out).dump() << std::endl;
    else if (out.has_result)
        std::cout << to_text(args, out) << std::flush;
    return exit_status(args, out);
}

// How long a failed probe run waits for the Terminate's event. It was
// sent to the events group before the run's QP was flushed, so it is
// normally there already: the bound only keeps a lost one from hanging.
constexpr std::chrono::milliseconds probe_event_wait{2000};

struct ProbeRun {
    Outcome out;
    std::optional<xiw::TerminateInfo> received;  // the local device's, if one
};

// One run of the probe, and the Terminate its local device received:
// subscribed before the run, so that none is missed.
xiw::Result<ProbeRun> probe_run(Device& dev, const Client& args)
{
    auto events = xiw::XiwEvents::open();
    if (!events)
        return events.error();
    ProbeRun r{dev.run(args), std::nullopt};
    const xiwperf_result& res = r.out.result;
    if (!r.out.error || !r.out.has_result || !res.device[0] ||
        probe::next_step(r.out) != probe::Step::judged || res.reason == XIWPERF_REASON_UNSUPPORTED)
        return r;
    std::string name = device_name(res.device, sizeof(res.device));
    auto st = events->watch_for(probe_event_wait, [&](const xiw::Event& e) {
        if (e.kind != xiw::Event::Kind::qp_error || e.term.sent || e.dev_name != name)
            return true;
        r.received = e.term;
        return false;
    });
    if (!st)
        return st.error();
    return r;
}

void print_probe(const Probe& args, const std::string& local,
                 const std::vector<probe::Finding>& found)
{
    if (args.json) {
        nlohmann::json ops = nlohmann::json::array();
        for (const auto& f : found) {
            nlohmann::json j = {{"op", f.op},
                                {"spec", f.spec},
                                {"result", probe::verdict_name(f.verdict)},
                                {"evidence", f.evidence},
                                {"fallback", f.fallback}};
            if (f.terminate)
                j["terminate"] = {{"layer", xiw::terminate_layer_name(f.terminate->layer)},
                                  {"type", f.terminate->type},
                                  {"code", f.terminate->code}};
            ops.push_back(std::move(j));
        }
        std::cout << nlohmann::json{{"addr", args.addr.text},
                                    {"port", args.port},
                                    {"device", local},
                                    {"ops", std::move(ops)}}
                         .dump()
                  << std::endl;
        return;
    }
    std::cout << "peer " << args.addr.text << " port " << args.port << " from " << local << "\n";
    for (const auto& f : found) {
        std::cout << "    " << f.spec << " " << f.op << " " << probe::verdict_name(f.verdict);
        if (f.terminate)
            std::cout << " terminate layer " << xiw::terminate_layer_name(f.terminate->layer)
                      << " type " << unsigned{f.terminate->type} << " code "
                      << xiw::terminate_code_hex(f.terminate->code);
        else
            std::cout << " (" << f.evidence << ")";
        std::cout << "\n";
    }
    std::cout << std::flush;
}

int run_probe(const Probe& args)
{
    auto dev = Device::open();
    if (!dev)
        return fail(dev.error().message());
    std::vector<probe::Finding> found;
    std::string local;
    for (const auto& a : probe::attempts(args.addr, args.port, args.timeout_ms)) {
        const Client* run = &a.run;
        auto r = probe_run(*dev, *run);
        if (!r)
            return fail(r.error().message());
        if (probe::next_step(r->out) == probe::Step::fallback && a.fallback) {
            run = &*a.fallback;
            r = probe_run(*dev, *run);
            if (!r)
                return fail(r.error().message());
        }
        if (probe::next_step(r->out) == probe::Step::stop)
            return fail("probe: " + std::string(a.op) + ": " + error_message(*run, r->out));
        const xiwperf_result& res = r->out.result;
        if (local.empty() && res.device[0])
            local = device_name(res.device, sizeof(res.device));
        found.push_back(probe::judge(a, *run, r->out, r->received));
    }
    print_probe(args, local, found);
    return exit_ok;
}

int run(int argc, char** argv)
{
    std::vector<std::string_view> words(argv + 1, argv + argc);
    auto cmd = parse(words);
    if (!cmd) {
        std::cerr << "xiwperf: " << cmd.error().context << "\n"
                  << "Try \"xiwperf --help\".\n";
        return exit_usage;
    }
    if (std::holds_alternative<Help>(*cmd)) {
        std::cout << usage();
        return exit_ok;
    }
    if (auto* s = std::get_if<Server>(&*cmd))
        return run_server(*s);
    if (auto* p = std::get_if<Probe>(&*cmd))
        return run_probe(*p);
    return run_client(std::get<Client>(*cmd));
}

}  // namespace

int main(int argc, char** argv)
{
    // What can throw is the C++ library's (std::bad_alloc; nlohmann::json
    // refusing to encode a string that is not UTF-8): said, not an abort.
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "xiwperf: " << e.what() << "\n";
    } catch (...) {
        std::cerr << "xiwperf: unexpected error\n";
    }
    return exit_failed;
}
