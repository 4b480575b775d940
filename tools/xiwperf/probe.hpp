// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// xiwperf probe: which RFC 7306 and commit-draft operations a peer takes.
//
// There is no negotiation of these extensions on the wire, so the probe
// does what the commit draft (section 3.1.4) recommends: it tries each
// operation once, on a connection of its own to an xiwperf server at the
// peer, and reads the answer. A completed operation is supported; a
// Terminate that says the peer does not know the message (an RDMAP Remote
// Operation Error, or a DDP error from a peer that took it for another
// message) is not; a protection error means the peer knew the operation
// and checked its key. The local xiw device reports the Terminate it
// received through the events group. Documentation/xiwperf.md ("Probing
// a peer's extensions") has the rules and why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "report.hpp"
#include "xiw/xiw_netlink.hpp"

namespace xiwperf::probe {

/// One operation the probe tries.
struct Attempt {
    std::string_view op;    ///< xiwperf's name of it ("fetch_add", ...)
    std::string_view spec;  ///< "rfc7306" or "commit"
    /// The run through the registration the operation needs.
    Client run;
    /// For a server whose device cannot register its buffer so (no fast
    /// registration, or no xiw device for a Verify): the same message
    /// through a key that device has, which it can only refuse: the kind
    /// of refusal tells whether it knew the operation. None where the
    /// operation needs no registration.
    std::optional<Client> fallback;
};

/// Every operation the probe tries, in the order it tries them, against
/// the xiwperf server at @p addr, @p port; each run gives up after
/// @p timeout_ms without progress.
std::vector<Attempt> attempts(const Address& addr, std::uint16_t port,
                              std::uint32_t timeout_ms);

enum class Verdict {
    supported,      ///< the peer carried it out, or knew it and refused the key
    not_supported,  ///< the peer's Terminate says it does not know it
    local,          ///< the local device cannot send it: nothing was tried
    unknown,        ///< the run ended in a way that says neither
};

/// "supported", "not_supported", "local", "unknown".
std::string_view verdict_name(Verdict v);

/// What one operation's run(s) showed.
struct Finding {
    std::string_view op;
    std::string_view spec;
    Verdict verdict = Verdict::unknown;
    /// What the verdict rests on: "completed", "terminate", "local device",
    /// or the failed run's error.
    std::string evidence;
    /// The Terminate the local device received, if one.
    std::optional<xiw::TerminateInfo> terminate;
    bool fallback = false;  ///< the verdict is the fallback run's
};

/// What becomes of a run.
enum class Step {
    judged,    ///< judge() tells the verdict
    fallback,  ///< the server could not offer the registration: try the fallback
    stop,      ///< no operation could reach the peer (no server there...): stop probing
};

/// What to do after a run that ended as @p out.
Step next_step(const Outcome& out);

/// The verdict of @p out, run as @p args, given the Terminate (if one)
/// that the local device received on its connection.
Finding judge(const Attempt& attempt, const Client& args, const Outcome& out,
              const std::optional<xiw::TerminateInfo>& received);

}  // namespace xiwperf::probe
