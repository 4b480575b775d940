// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// xiwctl's command-line grammar, iproute2 style: OBJECT [COMMAND] [ARGS],
// keywords may be abbreviated to any unambiguous prefix.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "xiw/result.hpp"
#include "xiw/xiw_netlink.hpp"

namespace xiwctl {

struct Options {
    bool json = false;
    bool pretty = false;
};

struct Help {
    std::string topic;  ///< "" for the overview
};
/// -V, --version
struct Version {};
struct DevShow {
    std::optional<std::string> name;
};
struct LinkAdd {
    std::string name;
    std::string netdev;
};
struct LinkDelete {
    std::string name;
};
/// caps [DEV]
struct CapsShow {
    std::optional<std::string> name;
};
/// policy [show] [DEV]
struct PolicyShow {
    std::optional<std::string> name;
};
/// policy set DEV [domain D] [dram-persistent P]
struct PolicySet {
    std::string name;
    xiw::PolicyChange change;
};
/// mr show DEV STAG, mr set DEV STAG domain D
struct MrPolicyCmd {
    std::string name;
    uint32_t stag = 0;
    std::optional<xiw::Persist> persist;  ///< set it; show without
};

/// config [show] [DEV]
struct ConfigShow {
    std::optional<std::string> name;
};
/// config set DEV [crc C] [markers S] [mpa R] [p2p S] [rtr LIST] [hashes LIST] [debug D]
struct ConfigSet {
    std::string name;
    xiw::ConfigChange change;
};

/// stats [show] [DEV] [-w [SECONDS]]
struct StatsShow {
    std::optional<std::string> name;
    std::optional<double> watch;  ///< seconds between readings; show once without
};

/// monitor: print the events group's messages as they come
struct Monitor {};

using Command = std::variant<Help, Version, DevShow, LinkAdd, LinkDelete, CapsShow, PolicyShow, PolicySet,
                             MrPolicyCmd, ConfigShow, ConfigSet, StatsShow, Monitor>;

struct Invocation {
    Options options;
    Command command;
};

/// Parse argv[1..]: a usage error comes back as an Error with code EINVAL
/// and a message naming the offending word.
xiw::Result<Invocation> parse(std::span<const std::string_view> args);

/// The one of @p keywords that @p word names: the keyword it equals, else
/// the only one it is a prefix of; an Error (EINVAL) naming @p what ("an
/// unknown object", "... is ambiguous (mr, monitor)") when it is a
/// prefix of none or of several.
xiw::Result<std::string_view> pick(std::string_view word,
                                   std::span<const std::string_view> keywords,
                                   std::string_view what);

/// True if @p word is a non-empty prefix of @p keyword.
bool matches(std::string_view word, std::string_view keyword);

/// Usage text for @p topic ("", "dev", "link", "caps", "policy", "mr", "config", "stats",
/// "monitor").
std::string usage(std::string_view topic);

}  // namespace xiwctl
