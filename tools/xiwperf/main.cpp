// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// xiwperf: RDMA test and benchmark over any kernel-verbs device, driven
// through the xiwperf kernel module.
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "backing.hpp"
#include "device.hpp"
#include "report.hpp"

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

}  // namespace

int main(int argc, char** argv)
{
    std::vector<std::string_view> words(argv + 1, argv + argc);
    auto cmd = parse(words);
    if (!cmd) {
        std::cerr << "xiwperf: " << cmd.error().context << "\n" << usage();
        return exit_usage;
    }
    if (std::holds_alternative<Help>(*cmd)) {
        std::cout << usage();
        return exit_ok;
    }
    if (auto* s = std::get_if<Server>(&*cmd))
        return run_server(*s);
    return run_client(std::get<Client>(*cmd));
}
