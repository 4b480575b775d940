// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "xiw_netlink_msg.hpp"

#include <linux/genetlink.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <initializer_list>
#include <utility>

#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "xiw_netlink.h"

namespace xiw {

namespace {

constexpr std::array<const char*, 4> persist_names = {"auto", "dram", "pmem", "file"};
// XIW_CAP_OP_* bits, lowest first.
constexpr std::array<const char*, 5> op_bit_names = {"atomics", "immediate", "flush",
                                                    "atomic_write", "verify"};
// enum xiw_verify_alg (include/xiw/verbs.h, a kernel header): 0 is "none".
constexpr std::array<const char*, 3> hash_bit_names = {"none", "crc32c", "sha256"};
constexpr std::array<const char*, 4> crc_names = {"default", "off", "preferred", "required"};
// enum xiw_switch, and enum xiw_dram_persistent, which has its values.
constexpr std::array<const char*, 3> switch_names = {"default", "off", "on"};
constexpr const auto& dram_names = switch_names;
constexpr std::array<const char*, 4> rtr_kind_names = {"none", "send", "write", "read"};
constexpr std::array<const char*, 3> debug_names = {"quiet", "faults", "connections"};

template <size_t N>
std::string name_of(const std::array<const char*, N>& names, unsigned v)
{
    return v < N ? names[v] : "unknown(" + std::to_string(v) + ")";
}

template <class E, size_t N>
Result<E> parse_name(const std::array<const char*, N>& names, std::string_view word,
                     std::string_view what)
{
    for (size_t i = 0; i < N; i++)
        if (word == names[i])
            return static_cast<E>(i);
    std::string all;
    for (const char* n : names)
        all += (all.empty() ? "" : ", ") + std::string(n);
    return make_error(EINVAL, std::string(what) + " \"" + std::string(word) +
                                  "\" is not one of " + all);
}

// Names of the set bits of @p bits, from @p names where it has one.
template <size_t N>
std::vector<std::string> bit_names(uint64_t bits, const std::array<const char*, N>& names)
{
    std::vector<std::string> out;
    for (unsigned i = 0; i < 64; i++)
        if (bits & (uint64_t{1} << i))
            out.emplace_back(i < N ? names[i] : "bit" + std::to_string(i));
    return out;
}

Error malformed(std::string what)
{
    return make_error(EPROTO, "malformed xiw netlink reply: " + std::move(what));
}

// A genetlink request of the family: command @p cmd, @p flags.
Result<nl::Message> request(int family, int cmd, int flags)
{
    nl::Message msg(nlmsg_alloc());
    if (!msg)
        return make_error(ENOMEM, "allocating a netlink message");
    if (!genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_REQUEST | flags, cmd,
                     XIW_GENL_VERSION))
        return make_error(EMSGSIZE, "building an xiw netlink request");
    return msg;
}

Error too_big()
{
    return make_error(EMSGSIZE, "building an xiw netlink request");
}

std::string hex(uint32_t v)
{
    std::array<char, 12> buf{};
    std::snprintf(buf.data(), buf.size(), "0x%x", v);
    return buf.data();
}

Status put_name(nl_msg* msg, std::string_view name)
{
    std::string s(name);
    if (nla_put_string(msg, XIW_ATTR_DEV_NAME, s.c_str()) < 0)
        return too_big();
    return Ok{};
}

}  // namespace

std::string_view terminate_layer_name(uint8_t layer)
{
    switch (layer) {
    case 0: return "rdmap";
    case 1: return "ddp";
    case 2: return "llp";
    default: return "unknown";
    }
}

std::string terminate_code_hex(uint8_t code)
{
    std::array<char, 8> buf{};
    std::snprintf(buf.data(), buf.size(), "0x%02x", code);
    return buf.data();
}

std::string persist_name(Persist p)
{
    return name_of(persist_names, static_cast<unsigned>(p));
}

Result<Persist> parse_persist(std::string_view word)
{
    return parse_name<Persist>(persist_names, word, "domain");
}

std::string dram_persistent_name(DramPersistent d)
{
    return name_of(dram_names, static_cast<unsigned>(d));
}

Result<DramPersistent> parse_dram_persistent(std::string_view word)
{
    return parse_name<DramPersistent>(dram_names, word, "dram-persistent");
}

std::string crc_name(Crc c)
{
    return name_of(crc_names, static_cast<unsigned>(c));
}

Result<Crc> parse_crc(std::string_view word)
{
    return parse_name<Crc>(crc_names, word, "crc");
}

std::string switch_name(Switch s)
{
    return name_of(switch_names, static_cast<unsigned>(s));
}

Result<Switch> parse_switch(std::string_view word, std::string_view what)
{
    return parse_name<Switch>(switch_names, word, what);
}

std::string rtr_name(RtrKind k)
{
    return name_of(rtr_kind_names, static_cast<unsigned>(k));
}

// A name of @p names but its first (which stands for "none").
template <class E, size_t N>
Result<E> parse_some(const std::array<const char*, N>& names, std::string_view word,
                     std::string_view what)
{
    std::array<const char*, N - 1> some{};
    std::copy(names.begin() + 1, names.end(), some.begin());
    auto v = parse_name<unsigned>(some, word, what);
    if (!v)
        return v.error();
    return static_cast<E>(*v + 1);
}

Result<RtrKind> parse_rtr_kind(std::string_view word)
{
    return parse_some<RtrKind>(rtr_kind_names, word, "rtr");
}

std::string debug_name(Debug d)
{
    return name_of(debug_names, static_cast<unsigned>(d));
}

Result<Debug> parse_debug(std::string_view word)
{
    return parse_name<Debug>(debug_names, word, "debug");
}

std::string hash_name(unsigned alg)
{
    return name_of(hash_bit_names, alg);
}

Result<unsigned> parse_hash(std::string_view word)
{
    return parse_some<unsigned>(hash_bit_names, word, "hash");
}

std::vector<std::string> Config::rtr_names() const
{
    std::vector<std::string> out;
    for (RtrKind k : rtr)
        out.push_back(rtr_name(k));
    return out;
}

std::vector<std::string> Config::hash_names() const
{
    return bit_names(hashes, hash_bit_names);
}

std::vector<std::string> Capabilities::mpa_rev_names() const
{
    std::vector<std::string> out;
    for (unsigned i = 0; i < 32; i++)
        if (mpa_revs & (1U << i))
            out.push_back(std::to_string(i));
    return out;
}

std::vector<std::string> Capabilities::op_names() const
{
    return bit_names(ops, op_bit_names);
}

std::vector<std::string> Capabilities::persist_names() const
{
    return bit_names(persist, xiw::persist_names);
}

std::vector<std::string> Capabilities::hash_names() const
{
    return bit_names(hashes, hash_bit_names);
}

namespace xiw_nl {

Result<nl::Message> build_dev_get(int family, std::optional<std::string_view> name)
{
    auto msg = request(family, XIW_CMD_DEV_GET, name ? 0 : NLM_F_DUMP);
    if (!msg)
        return msg;
    if (name)
        if (auto st = put_name(msg->get(), *name); !st)
            return st.error();
    return msg;
}

Result<nl::Message> build_dev_set(int family, std::string_view name, const PolicyChange& change)
{
    if (!change.persist && !change.dram_persistent)
        return make_error(EINVAL, "changing the policy of " + std::string(name) +
                                      ": nothing to change");
    auto msg = request(family, XIW_CMD_DEV_SET, 0);
    if (!msg)
        return msg;
    nl_msg* m = msg->get();
    if (auto st = put_name(m, name); !st)
        return st.error();
    nlattr* nest = nla_nest_start(m, XIW_ATTR_POLICY);
    if (!nest ||
        (change.persist &&
         nla_put_u8(m, XIW_POLICY_PERSIST, static_cast<uint8_t>(*change.persist)) < 0) ||
        (change.dram_persistent &&
         nla_put_u8(m, XIW_POLICY_DRAM_PERSISTENT,
                    static_cast<uint8_t>(*change.dram_persistent)) < 0))
        return too_big();
    nla_nest_end(m, nest);
    return msg;
}

Result<nl::Message> build_stats_get(int family, std::optional<std::string_view> name)
{
    auto msg = request(family, XIW_CMD_STATS_GET, name ? 0 : NLM_F_DUMP);
    if (!msg)
        return msg;
    if (name)
        if (auto st = put_name(msg->get(), *name); !st)
            return st.error();
    return msg;
}

Result<nl::Message> build_config_set(int family, std::string_view name,
                                     const ConfigChange& change)
{
    const std::string ctx = "changing the settings of " + std::string(name);
    if (change.empty())
        return make_error(EINVAL, ctx + ": nothing to change");
    uint32_t rtr = 0;
    if (change.rtr) {
        if (change.rtr->size() > 3)
            return make_error(EINVAL, ctx + ": more than three RTR kinds");
        for (size_t i = 0; i < change.rtr->size(); i++)
            rtr |= static_cast<uint32_t>((*change.rtr)[i]) << (8 * i);
    }
    auto msg = request(family, XIW_CMD_DEV_SET, 0);
    if (!msg)
        return msg;
    nl_msg* m = msg->get();
    if (auto st = put_name(m, name); !st)
        return st.error();
    auto u8 = [m](int a, const auto& v) {
        return !v || nla_put_u8(m, a, static_cast<uint8_t>(*v)) >= 0;
    };
    nlattr* nest = nla_nest_start(m, XIW_ATTR_CONFIG);
    if (!nest || !u8(XIW_CONFIG_CRC, change.crc) || !u8(XIW_CONFIG_MARKERS, change.markers) ||
        !u8(XIW_CONFIG_MPA_REV, change.mpa_rev) || !u8(XIW_CONFIG_P2P, change.p2p) ||
        (change.rtr && nla_put_u32(m, XIW_CONFIG_RTR, rtr) < 0) ||
        (change.hashes && nla_put_u32(m, XIW_CONFIG_HASHES, *change.hashes) < 0) ||
        !u8(XIW_CONFIG_DEBUG, change.debug))
        return too_big();
    nla_nest_end(m, nest);
    return msg;
}

namespace {

Result<nl::Message> build_mr(int family, int cmd, std::string_view name, uint32_t stag,
                             std::optional<Persist> persist)
{
    auto msg = request(family, cmd, 0);
    if (!msg)
        return msg;
    nl_msg* m = msg->get();
    if (auto st = put_name(m, name); !st)
        return st.error();
    if (nla_put_u32(m, XIW_ATTR_MR_STAG, stag) < 0 ||
        (persist && nla_put_u8(m, XIW_ATTR_MR_PERSIST, static_cast<uint8_t>(*persist)) < 0))
        return too_big();
    return msg;
}

}  // namespace

Result<nl::Message> build_mr_get(int family, std::string_view name, uint32_t stag)
{
    return build_mr(family, XIW_CMD_MR_GET, name, stag, std::nullopt);
}

Result<nl::Message> build_mr_set(int family, std::string_view name, uint32_t stag,
                                 Persist persist)
{
    return build_mr(family, XIW_CMD_MR_SET, name, stag, persist);
}

namespace {

// A policy for attributes 0..N, built once and then only read. libnl
// checks an integer's minimum size only: a maximum as large makes it
// exact, as the kernel's strict policies are. A string must end in NUL.
template <size_t N>
class AttrPolicy {
public:
    AttrPolicy& u8(int a) { return put(a, NLA_U8, sizeof(uint8_t)); }
    AttrPolicy& u32(int a) { return put(a, NLA_U32, sizeof(uint32_t)); }
    AttrPolicy& u64(int a) { return put(a, NLA_U64, sizeof(uint64_t)); }
    AttrPolicy& string(int a) { return put(a, NLA_STRING, 0); }
    AttrPolicy& nested(int a) { return put(a, NLA_NESTED, 0); }
    [[nodiscard]] const nla_policy* get() const { return p_.data(); }

private:
    AttrPolicy& put(int a, uint16_t type, uint16_t maxlen)
    {
        p_[a].type = type;
        p_[a].maxlen = maxlen;
        return *this;
    }
    std::array<nla_policy, N + 1> p_{};
};

// The family's top-level attributes as replies carry them; built once.
const nla_policy* top_policy()
{
    static const auto p = AttrPolicy<XIW_ATTR_MAX>()
                              .u32(XIW_ATTR_DEV_INDEX)
                              .string(XIW_ATTR_DEV_NAME)
                              .string(XIW_ATTR_NETDEV_NAME)
                              .u32(XIW_ATTR_NETDEV_INDEX)
                              .nested(XIW_ATTR_CAPS)
                              .nested(XIW_ATTR_POLICY)
                              .u32(XIW_ATTR_MR_STAG)
                              .u8(XIW_ATTR_MR_PERSIST)
                              .nested(XIW_ATTR_CONFIG)
                              .nested(XIW_ATTR_CONFIG_NOW)
                              .nested(XIW_ATTR_STATS)
                              .u32(XIW_ATTR_QP_NUM)
                              .nested(XIW_ATTR_TERMINATE)
                              .nested(XIW_ATTR_TERMINATES);
    return p.get();
}

struct Required {
    int type;
    const char* name;
};

// EPROTO naming the first of @p required that @p tb lacks.
Status require(nlattr* const* tb, std::initializer_list<Required> required,
               const std::string& what)
{
    for (const auto& r : required)
        if (!tb[r.type])
            return malformed(what + " without " + r.name);
    return Ok{};
}

constexpr const char* wrong_size = "an attribute of the wrong type or size";

Status parse_top(nlmsghdr* hdr, int cmd, nlattr** tb)
{
    if (!genlmsg_valid_hdr(hdr, 0))
        return malformed("no generic netlink header");
    auto* gh = static_cast<genlmsghdr*>(nlmsg_data(hdr));
    if (gh->cmd != cmd)
        return malformed("command " + std::to_string(gh->cmd) + " where " +
                         std::to_string(cmd) + " was expected");
    if (genlmsg_parse(hdr, 0, tb, XIW_ATTR_MAX, top_policy()) < 0)
        return malformed(wrong_size);
    return Ok{};
}

Status parse_caps(nlattr* nest, Capabilities& c)
{
    static const auto p = AttrPolicy<XIW_CAPS_MAX>()
                              .u32(XIW_CAPS_MPA_REVS)
                              .u64(XIW_CAPS_OPS)
                              .u32(XIW_CAPS_PERSIST)
                              .u32(XIW_CAPS_HASHES)
                              .u32(XIW_CAPS_MAX_ORD)
                              .u32(XIW_CAPS_MAX_IRD)
                              .u32(XIW_CAPS_MAX_MSG)
                              .u32(XIW_CAPS_MAX_QP)
                              .u32(XIW_CAPS_MAX_MR);
    nlattr* tb[XIW_CAPS_MAX + 1] = {};
    if (nla_parse_nested(tb, XIW_CAPS_MAX, nest, p.get()) < 0)
        return malformed(std::string("XIW_ATTR_CAPS: ") + wrong_size);
    auto u32 = [&tb](int a) { return tb[a] ? nla_get_u32(tb[a]) : 0U; };
    c.mpa_revs = u32(XIW_CAPS_MPA_REVS);
    c.ops = tb[XIW_CAPS_OPS] ? nla_get_u64(tb[XIW_CAPS_OPS]) : 0;
    c.persist = u32(XIW_CAPS_PERSIST);
    c.hashes = u32(XIW_CAPS_HASHES);
    c.max_ord = u32(XIW_CAPS_MAX_ORD);
    c.max_ird = u32(XIW_CAPS_MAX_IRD);
    c.max_msg = u32(XIW_CAPS_MAX_MSG);
    c.max_qp = u32(XIW_CAPS_MAX_QP);
    c.max_mr = u32(XIW_CAPS_MAX_MR);
    return Ok{};
}

Status parse_policy(nlattr* nest, Policy& p)
{
    static const auto pol = AttrPolicy<XIW_POLICY_MAX>()
                                .u8(XIW_POLICY_PERSIST)
                                .u8(XIW_POLICY_DRAM_PERSISTENT)
                                .u8(XIW_POLICY_DRAM_PERSISTENT_NOW);
    nlattr* tb[XIW_POLICY_MAX + 1] = {};
    if (nla_parse_nested(tb, XIW_POLICY_MAX, nest, pol.get()) < 0)
        return malformed(std::string("XIW_ATTR_POLICY: ") + wrong_size);
    if (auto st = require(tb,
                          {{XIW_POLICY_PERSIST, "XIW_POLICY_PERSIST"},
                           {XIW_POLICY_DRAM_PERSISTENT, "XIW_POLICY_DRAM_PERSISTENT"},
                           {XIW_POLICY_DRAM_PERSISTENT_NOW, "XIW_POLICY_DRAM_PERSISTENT_NOW"}},
                          "XIW_ATTR_POLICY");
        !st)
        return st;
    p.persist = static_cast<Persist>(nla_get_u8(tb[XIW_POLICY_PERSIST]));
    p.dram_persistent = static_cast<DramPersistent>(nla_get_u8(tb[XIW_POLICY_DRAM_PERSISTENT]));
    p.dram_persistent_now = nla_get_u8(tb[XIW_POLICY_DRAM_PERSISTENT_NOW]) != 0;
    return Ok{};
}

Status parse_config(nlattr* nest, Config& c, const std::string& what)
{
    static const auto pol = AttrPolicy<XIW_CONFIG_MAX>()
                                .u8(XIW_CONFIG_CRC)
                                .u8(XIW_CONFIG_MARKERS)
                                .u8(XIW_CONFIG_MPA_REV)
                                .u8(XIW_CONFIG_P2P)
                                .u32(XIW_CONFIG_RTR)
                                .u32(XIW_CONFIG_HASHES)
                                .u8(XIW_CONFIG_DEBUG);
    nlattr* tb[XIW_CONFIG_MAX + 1] = {};
    if (nla_parse_nested(tb, XIW_CONFIG_MAX, nest, pol.get()) < 0)
        return malformed(what + ": " + wrong_size);
    if (auto st = require(tb,
                          {{XIW_CONFIG_CRC, "XIW_CONFIG_CRC"},
                           {XIW_CONFIG_MARKERS, "XIW_CONFIG_MARKERS"},
                           {XIW_CONFIG_MPA_REV, "XIW_CONFIG_MPA_REV"},
                           {XIW_CONFIG_P2P, "XIW_CONFIG_P2P"},
                           {XIW_CONFIG_RTR, "XIW_CONFIG_RTR"},
                           {XIW_CONFIG_HASHES, "XIW_CONFIG_HASHES"},
                           {XIW_CONFIG_DEBUG, "XIW_CONFIG_DEBUG"}},
                          what);
        !st)
        return st;
    c.crc = static_cast<Crc>(nla_get_u8(tb[XIW_CONFIG_CRC]));
    c.markers = static_cast<Switch>(nla_get_u8(tb[XIW_CONFIG_MARKERS]));
    c.mpa_rev = nla_get_u8(tb[XIW_CONFIG_MPA_REV]);
    c.p2p = static_cast<Switch>(nla_get_u8(tb[XIW_CONFIG_P2P]));
    c.rtr.clear();
    for (uint32_t list = nla_get_u32(tb[XIW_CONFIG_RTR]); list; list >>= 8)
        c.rtr.push_back(static_cast<RtrKind>(list & 0xff));
    c.hashes = nla_get_u32(tb[XIW_CONFIG_HASHES]);
    c.debug = static_cast<Debug>(nla_get_u8(tb[XIW_CONFIG_DEBUG]));
    return Ok{};
}

// A Terminate's kind (XIW_ATTR_TERMINATE) into @p t, and with @p count
// (in XIW_ATTR_TERMINATES) how many; @p what names it in an error.
Status parse_terminate(nlattr* nest, TerminateInfo& t, uint64_t* count, const std::string& what)
{
    static const auto pol = AttrPolicy<XIW_TERMINATE_MAX>()
                                .u8(XIW_TERMINATE_SENT)
                                .u8(XIW_TERMINATE_LAYER)
                                .u8(XIW_TERMINATE_TYPE)
                                .u8(XIW_TERMINATE_CODE)
                                .u64(XIW_TERMINATE_COUNT);
    nlattr* tb[XIW_TERMINATE_MAX + 1] = {};
    if (nla_parse_nested(tb, XIW_TERMINATE_MAX, nest, pol.get()) < 0)
        return malformed(what + ": " + wrong_size);
    if (auto st = require(tb,
                          {{XIW_TERMINATE_SENT, "XIW_TERMINATE_SENT"},
                           {XIW_TERMINATE_LAYER, "XIW_TERMINATE_LAYER"},
                           {XIW_TERMINATE_TYPE, "XIW_TERMINATE_TYPE"},
                           {XIW_TERMINATE_CODE, "XIW_TERMINATE_CODE"}},
                          what);
        !st)
        return st;
    if (count) {
        if (auto st = require(tb, {{XIW_TERMINATE_COUNT, "XIW_TERMINATE_COUNT"}}, what); !st)
            return st;
        *count = nla_get_u64(tb[XIW_TERMINATE_COUNT]);
    }
    t.sent = nla_get_u8(tb[XIW_TERMINATE_SENT]) != 0;
    t.layer = nla_get_u8(tb[XIW_TERMINATE_LAYER]);
    t.type = nla_get_u8(tb[XIW_TERMINATE_TYPE]);
    t.code = nla_get_u8(tb[XIW_TERMINATE_CODE]);
    return Ok{};
}

}  // namespace

Result<XiwDevice> parse_device(nlmsghdr* hdr)
{
    nlattr* tb[XIW_ATTR_MAX + 1] = {};
    if (auto st = parse_top(hdr, XIW_CMD_DEV_GET, tb); !st)
        return st.error();
    if (auto st = require(tb,
                          {{XIW_ATTR_DEV_INDEX, "XIW_ATTR_DEV_INDEX"},
                           {XIW_ATTR_DEV_NAME, "XIW_ATTR_DEV_NAME"},
                           {XIW_ATTR_NETDEV_NAME, "XIW_ATTR_NETDEV_NAME"},
                           {XIW_ATTR_NETDEV_INDEX, "XIW_ATTR_NETDEV_INDEX"},
                           {XIW_ATTR_CAPS, "XIW_ATTR_CAPS"},
                           {XIW_ATTR_POLICY, "XIW_ATTR_POLICY"},
                           {XIW_ATTR_CONFIG, "XIW_ATTR_CONFIG"},
                           {XIW_ATTR_CONFIG_NOW, "XIW_ATTR_CONFIG_NOW"}},
                          "device");
        !st)
        return st.error();
    XiwDevice d;
    d.index = nla_get_u32(tb[XIW_ATTR_DEV_INDEX]);
    d.name = nla_get_string(tb[XIW_ATTR_DEV_NAME]);
    d.netdev = nla_get_string(tb[XIW_ATTR_NETDEV_NAME]);
    d.netdev_index = nla_get_u32(tb[XIW_ATTR_NETDEV_INDEX]);
    if (auto st = parse_caps(tb[XIW_ATTR_CAPS], d.caps); !st)
        return st.error();
    if (auto st = parse_policy(tb[XIW_ATTR_POLICY], d.policy); !st)
        return st.error();
    if (auto st = parse_config(tb[XIW_ATTR_CONFIG], d.config, "XIW_ATTR_CONFIG"); !st)
        return st.error();
    if (auto st = parse_config(tb[XIW_ATTR_CONFIG_NOW], d.config_now, "XIW_ATTR_CONFIG_NOW"); !st)
        return st.error();
    return d;
}

Result<MrPolicy> parse_mr(nlmsghdr* hdr)
{
    nlattr* tb[XIW_ATTR_MAX + 1] = {};
    if (auto st = parse_top(hdr, XIW_CMD_MR_GET, tb); !st)
        return st.error();
    if (auto st = require(tb,
                          {{XIW_ATTR_DEV_INDEX, "XIW_ATTR_DEV_INDEX"},
                           {XIW_ATTR_DEV_NAME, "XIW_ATTR_DEV_NAME"},
                           {XIW_ATTR_MR_STAG, "XIW_ATTR_MR_STAG"},
                           {XIW_ATTR_MR_PERSIST, "XIW_ATTR_MR_PERSIST"}},
                          "MR");
        !st)
        return st.error();
    MrPolicy m;
    m.dev_index = nla_get_u32(tb[XIW_ATTR_DEV_INDEX]);
    m.dev_name = nla_get_string(tb[XIW_ATTR_DEV_NAME]);
    m.stag = nla_get_u32(tb[XIW_ATTR_MR_STAG]);
    m.persist = static_cast<Persist>(nla_get_u8(tb[XIW_ATTR_MR_PERSIST]));
    return m;
}

Result<Stats> parse_stats(nlmsghdr* hdr)
{
    nlattr* tb[XIW_ATTR_MAX + 1] = {};
    if (auto st = parse_top(hdr, XIW_CMD_STATS_GET, tb); !st)
        return st.error();
    if (auto st = require(tb,
                          {{XIW_ATTR_DEV_INDEX, "XIW_ATTR_DEV_INDEX"},
                           {XIW_ATTR_DEV_NAME, "XIW_ATTR_DEV_NAME"},
                           {XIW_ATTR_STATS, "XIW_ATTR_STATS"}},
                          "counters");
        !st)
        return st.error();
    static const auto pol = AttrPolicy<XIW_COUNTER_MAX>()
                                .string(XIW_COUNTER_NAME)
                                .u64(XIW_COUNTER_VALUE);
    Stats s;
    s.index = nla_get_u32(tb[XIW_ATTR_DEV_INDEX]);
    s.name = nla_get_string(tb[XIW_ATTR_DEV_NAME]);
    nlattr* one = nullptr;
    int rem = 0;
    nla_for_each_nested(one, tb[XIW_ATTR_STATS], rem) {
        if (nla_type(one) != XIW_ATTR_COUNTER)
            continue;  // something of a newer kernel
        nlattr* ctb[XIW_COUNTER_MAX + 1] = {};
        if (nla_parse_nested(ctb, XIW_COUNTER_MAX, one, pol.get()) < 0)
            return malformed(std::string("XIW_ATTR_COUNTER: ") + wrong_size);
        if (auto st = require(ctb,
                              {{XIW_COUNTER_NAME, "XIW_COUNTER_NAME"},
                               {XIW_COUNTER_VALUE, "XIW_COUNTER_VALUE"}},
                              "XIW_ATTR_COUNTER");
            !st)
            return st.error();
        s.counters.emplace_back(nla_get_string(ctb[XIW_COUNTER_NAME]),
                                nla_get_u64(ctb[XIW_COUNTER_VALUE]));
    }
    if (!tb[XIW_ATTR_TERMINATES])
        return s;  // a kernel that does not count them by code
    nla_for_each_nested(one, tb[XIW_ATTR_TERMINATES], rem) {
        if (nla_type(one) != XIW_ATTR_TERMINATE)
            continue;
        TerminateCount c;
        if (auto st = parse_terminate(one, c.term, &c.count, "XIW_ATTR_TERMINATES"); !st)
            return st.error();
        s.terminates.push_back(c);
    }
    return s;
}

Result<Event> parse_event(nlmsghdr* hdr)
{
    if (!genlmsg_valid_hdr(hdr, 0))
        return malformed("no generic netlink header");
    int cmd = static_cast<genlmsghdr*>(nlmsg_data(hdr))->cmd;
    Event e;
    switch (cmd) {
    case XIW_CMD_DEV_NEW: e.kind = Event::Kind::dev_new; break;
    case XIW_CMD_DEV_DEL: e.kind = Event::Kind::dev_del; break;
    case XIW_CMD_QP_ERROR: e.kind = Event::Kind::qp_error; break;
    default: return malformed("event " + std::to_string(cmd) + " is none xiw sends");
    }
    nlattr* tb[XIW_ATTR_MAX + 1] = {};
    if (auto st = parse_top(hdr, cmd, tb); !st)
        return st.error();
    if (auto st = require(tb,
                          {{XIW_ATTR_DEV_INDEX, "XIW_ATTR_DEV_INDEX"},
                           {XIW_ATTR_DEV_NAME, "XIW_ATTR_DEV_NAME"}},
                          "event");
        !st)
        return st.error();
    e.dev_index = nla_get_u32(tb[XIW_ATTR_DEV_INDEX]);
    e.dev_name = nla_get_string(tb[XIW_ATTR_DEV_NAME]);
    if (e.kind == Event::Kind::dev_new) {
        if (auto st = require(tb,
                              {{XIW_ATTR_NETDEV_NAME, "XIW_ATTR_NETDEV_NAME"},
                               {XIW_ATTR_NETDEV_INDEX, "XIW_ATTR_NETDEV_INDEX"}},
                              "device event");
            !st)
            return st.error();
        e.netdev = nla_get_string(tb[XIW_ATTR_NETDEV_NAME]);
        e.netdev_index = nla_get_u32(tb[XIW_ATTR_NETDEV_INDEX]);
    }
    if (e.kind == Event::Kind::qp_error) {
        if (auto st = require(tb,
                              {{XIW_ATTR_QP_NUM, "XIW_ATTR_QP_NUM"},
                               {XIW_ATTR_TERMINATE, "XIW_ATTR_TERMINATE"}},
                              "QP event");
            !st)
            return st.error();
        if (auto st = parse_terminate(tb[XIW_ATTR_TERMINATE], e.term, nullptr,
                                      "XIW_ATTR_TERMINATE");
            !st)
            return st.error();
        e.qp_num = nla_get_u32(tb[XIW_ATTR_QP_NUM]);
    }
    return e;
}

Error exchange_error(Error e, std::string context, int cmd)
{
    // What was asked, then what libxiw found (a malformed reply, a failed
    // send); the kernel's refusals come without a context of their own.
    e.context = e.context.empty() ? std::move(context) : context + ": " + e.context;
    // The generic netlink core refuses a sender without CAP_NET_ADMIN over
    // its own namespace silently; xiw itself says the same when the
    // capability is missing in the device's (Documentation/netlink.md).
    bool restricted = cmd == XIW_CMD_MR_GET || cmd == XIW_CMD_DEV_SET || cmd == XIW_CMD_MR_SET;
    if (e.code == EPERM && e.extack.empty() && restricted)
        e.extack = std::string(cmd == XIW_CMD_MR_GET ? "reading an MR" : "changing xiw settings") +
                   " needs CAP_NET_ADMIN in the user namespace that owns the device's "
                   "network namespace";
    return e;
}

}  // namespace xiw_nl

Result<XiwNetlink> XiwNetlink::open()
{
    auto sock = nl::Socket::connect(NETLINK_GENERIC);
    if (!sock)
        return sock.error();
    int family = genl_ctrl_resolve(sock->get(), XIW_GENL_NAME);
    if (family == -NLE_OBJ_NOTFOUND)
        return make_error(ENOENT, "the xiw generic netlink family is not registered: is the "
                                  "xiw module loaded? (modprobe xiw)");
    if (family < 0)
        return make_error(nl::errno_of_nle(family), "resolving the xiw generic netlink family");
    return XiwNetlink(std::make_unique<nl::Socket>(std::move(sock).value()), family);
}

XiwNetlink::XiwNetlink(std::unique_ptr<nl::Socket> sock, int family)
    : sock_(std::move(sock)), family_(family)
{
}
XiwNetlink::XiwNetlink(XiwNetlink&&) noexcept = default;
XiwNetlink& XiwNetlink::operator=(XiwNetlink&&) noexcept = default;
XiwNetlink::~XiwNetlink() = default;

namespace {

// One request, its replies parsed by @p parse.
template <class T, class Parse>
Result<std::vector<T>> exchange(nl::Socket& sock, Result<nl::Message> msg, Parse parse,
                                std::string context)
{
    if (!msg)
        return msg.error();
    auto* gh = static_cast<genlmsghdr*>(nlmsg_data(nlmsg_hdr(msg->get())));
    int cmd = gh->cmd;
    std::vector<T> out;
    Status st = sock.transact(std::move(msg).value(), [&out, &parse](nlmsghdr* hdr) -> Status {
        auto v = parse(hdr);
        if (!v)
            return v.error();
        out.push_back(std::move(v).value());
        return Ok{};
    });
    if (!st)
        return xiw_nl::exchange_error(st.error(), std::move(context), cmd);
    return out;
}

}  // namespace

Result<std::vector<XiwDevice>> XiwNetlink::devices()
{
    return exchange<XiwDevice>(*sock_, xiw_nl::build_dev_get(family_, std::nullopt),
                               xiw_nl::parse_device, "listing xiw devices");
}

namespace {

template <class T>
Result<T> only(Result<std::vector<T>> all, const std::string& context)
{
    if (!all)
        return all.error();
    if (all->size() != 1)
        return make_error(EPROTO, context + ": " + std::to_string(all->size()) + " replies");
    return std::move(all->front());
}

}  // namespace

Result<XiwDevice> XiwNetlink::device(std::string_view name)
{
    std::string ctx = "xiw device " + std::string(name);
    return only(exchange<XiwDevice>(*sock_, xiw_nl::build_dev_get(family_, name), xiw_nl::parse_device,
                                    ctx),
                ctx);
}

Result<XiwDevice> XiwNetlink::set_policy(std::string_view name, const PolicyChange& change)
{
    std::string ctx = "changing the policy of " + std::string(name);
    return only(exchange<XiwDevice>(*sock_, xiw_nl::build_dev_set(family_, name, change),
                                    xiw_nl::parse_device, ctx),
                ctx);
}

Result<std::vector<Stats>> XiwNetlink::stats()
{
    return exchange<Stats>(*sock_, xiw_nl::build_stats_get(family_, std::nullopt), xiw_nl::parse_stats,
                           "reading the counters of xiw devices");
}

Result<Stats> XiwNetlink::stats(std::string_view name)
{
    std::string ctx = "counters of " + std::string(name);
    return only(
        exchange<Stats>(*sock_, xiw_nl::build_stats_get(family_, name), xiw_nl::parse_stats, ctx), ctx);
}

Result<XiwDevice> XiwNetlink::set_config(std::string_view name, const ConfigChange& change)
{
    std::string ctx = "changing the settings of " + std::string(name);
    return only(exchange<XiwDevice>(*sock_, xiw_nl::build_config_set(family_, name, change),
                                    xiw_nl::parse_device, ctx),
                ctx);
}

Result<MrPolicy> XiwNetlink::mr(std::string_view name, uint32_t stag)
{
    std::string ctx = "MR " + hex(stag) + " of " + std::string(name);
    return only(
        exchange<MrPolicy>(*sock_, xiw_nl::build_mr_get(family_, name, stag), xiw_nl::parse_mr, ctx),
        ctx);
}

Result<MrPolicy> XiwNetlink::set_mr_persist(std::string_view name, uint32_t stag, Persist persist)
{
    std::string ctx = "naming the domain of MR " + hex(stag) + " of " + std::string(name);
    return only(exchange<MrPolicy>(*sock_, xiw_nl::build_mr_set(family_, name, stag, persist),
                                   xiw_nl::parse_mr, ctx),
                ctx);
}

}  // namespace xiw
