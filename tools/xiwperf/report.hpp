// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Turning a client run's result into text, JSON, messages and exit status.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "uapi/xiwperf.h"

namespace xiwperf {

constexpr int exit_ok = 0;
constexpr int exit_failed = 1;
constexpr int exit_usage = 2;
constexpr int exit_mismatch = 3;

/// What XIWPERF_IOC_RUN returned.
struct Outcome {
    int error = 0;  ///< errno of the failed ioctl, 0 on success
    bool has_result = false;  ///< result was filled in by the module
    xiwperf_result result{};
    // The results struct xiwperf_run holds itself (no room in result).
    std::uint64_t registrations = 0;  ///< --mr frwr: successful fast registrations
    std::uint32_t srq_arms = 0;       ///< --srq: the server's figures
    std::uint32_t srq_crossed = 0;
    std::uint32_t srq_limit_events = 0;
};

/// A 64-bit value as "0x" and lower-case hex digits.
std::string hex(std::uint64_t v);

/// Name of an ib_wc_status value, e.g. "WR_FLUSH_ERR".
std::string wc_status_name(std::uint32_t status);

/// Why the run failed, in words; "" if it did not.
std::string error_message(const Client& args, const Outcome& out);

/// Completions the device delivered twice or never; "" if none.
std::string completion_message(const xiwperf_result& r);

/// "N of M operations had wrong data; first: ..."; for an atomic run what
/// its --check found wrong ("atomic mismatch: ..."), for an Atomic Write
/// run likewise ("atomic write mismatch: ..."), for a Verify run the
/// hashes ("verify mismatch: N of M Verify operations returned a hash
/// other than the client's ..."); "" if nothing.
std::string mismatch_message(const Client& args, const xiwperf_result& r);

/// The JSON object --json prints (an "error" member only on failure).
nlohmann::json to_json(const Client& args, const Outcome& out);

/// The human-readable summary (two lines; one more each with --solicit,
/// --mr frwr, --srq and --check of an atomic or Atomic Write run).
std::string to_text(const Client& args, const Outcome& out);

/// exit_ok, exit_failed, or exit_mismatch.
int exit_status(const Client& args, const Outcome& out);

}  // namespace xiwperf
