// SPDX-License-Identifier: GPL-2.0
/*
 * The xiw generic netlink family (uapi/xiw_netlink.h,
 * Documentation/netlink.md): what each device can do, its connection
 * settings, its persistence policy, per device and per MR, and its
 * counters, for xiwctl and libxiw.
 *
 * Every request names one device; dumps list those the caller's network
 * namespace may see. Requests are validated whole by the attribute
 * policies before anything is looked at, so a refused one changes
 * nothing; the extended ack says why.
 */
#include <linux/module.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <xiw/verbs.h>

#include "device.h"
#include "mpa.h"
#include "netlink.h"
#include "obj.h"
#include "persist.h"
#include "policy.h"
#include "rdmap.h"
#include "../uapi/xiw_netlink.h"

static const struct nla_policy xiw_nl_policy_policy[XIW_POLICY_MAX + 1] = {
	[XIW_POLICY_PERSIST] = NLA_POLICY_MAX(NLA_U8, XIW_PERSIST_MAX),
	[XIW_POLICY_DRAM_PERSISTENT] =
		NLA_POLICY_MAX(NLA_U8, XIW_DRAM_PERSISTENT_MAX),
	[XIW_POLICY_DRAM_PERSISTENT_NOW] = {
		.type = NLA_REJECT,
		.reject_message = "read-only: set XIW_POLICY_DRAM_PERSISTENT",
	},
};

static const struct nla_policy xiw_nl_config_policy[XIW_CONFIG_MAX + 1] = {
	[XIW_CONFIG_CRC] = NLA_POLICY_MAX(NLA_U8, XIW_CRC_MAX),
	[XIW_CONFIG_MARKERS] = NLA_POLICY_MAX(NLA_U8, XIW_SWITCH_MAX),
	[XIW_CONFIG_MPA_REV] = NLA_POLICY_MAX(NLA_U8, XIW_MPA_REV_MAX),
	[XIW_CONFIG_P2P] = NLA_POLICY_MAX(NLA_U8, XIW_SWITCH_MAX),
	/*
	 * Checked as a list by xiw_nl_config_change(): 6.12's policy dump
	 * cannot describe an integer with a validation function (it WARNs).
	 */
	[XIW_CONFIG_RTR] = { .type = NLA_U32 },
	[XIW_CONFIG_HASHES] = NLA_POLICY_MASK(NLA_U32, XIW_VERIFY_HASHES),
	[XIW_CONFIG_DEBUG] = NLA_POLICY_MAX(NLA_U8, XIW_DEBUG_MAX),
};

static const struct nla_policy xiw_nl_policy[XIW_ATTR_MAX + 1] = {
	[XIW_ATTR_DEV_INDEX] = { .type = NLA_U32 },
	[XIW_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING,
				.len = IB_DEVICE_NAME_MAX - 1 },
	[XIW_ATTR_POLICY] = NLA_POLICY_NESTED(xiw_nl_policy_policy),
	[XIW_ATTR_MR_STAG] = { .type = NLA_U32 },
	[XIW_ATTR_MR_PERSIST] = NLA_POLICY_MAX(NLA_U8, XIW_PERSIST_MAX),
	[XIW_ATTR_CONFIG] = NLA_POLICY_NESTED(xiw_nl_config_policy),
	/* A reply's; XIW_CMD_DEV_SET refuses it, saying so. */
	[XIW_ATTR_CONFIG_NOW] = NLA_POLICY_NESTED(xiw_nl_config_policy),
};

static struct genl_family xiw_nl_family;

/* The family's multicast groups, by index. */
enum { XIW_NL_MCGRP_EVENTS };

/* Everything the device can do, in XIW_ATTR_CAPS. */
static int xiw_nl_put_caps(struct sk_buff *skb)
{
	struct nlattr *caps = nla_nest_start(skb, XIW_ATTR_CAPS);
	u32 revs = GENMASK(XIW_MPA_REV_MAX, XIW_MPA_REV_MIN);
	u64 ops = XIW_CAP_OP_ATOMICS | XIW_CAP_OP_IMMEDIATE |
		  XIW_CAP_OP_FLUSH | XIW_CAP_OP_ATOMIC_WRITE |
		  XIW_CAP_OP_VERIFY;

	if (!caps ||
	    nla_put_u32(skb, XIW_CAPS_MPA_REVS, revs) ||
	    nla_put_u64_64bit(skb, XIW_CAPS_OPS, ops, XIW_CAPS_PAD) ||
	    nla_put_u32(skb, XIW_CAPS_PERSIST, GENMASK(XIW_PERSIST_MAX, 0)) ||
	    nla_put_u32(skb, XIW_CAPS_HASHES, XIW_VERIFY_HASHES) ||
	    nla_put_u32(skb, XIW_CAPS_MAX_ORD, XIW_MAX_ORD) ||
	    nla_put_u32(skb, XIW_CAPS_MAX_IRD, XIW_MAX_IRD) ||
	    nla_put_u32(skb, XIW_CAPS_MAX_MSG, XIW_MAX_MSG_SIZE) ||
	    nla_put_u32(skb, XIW_CAPS_MAX_QP, XIW_MAX_QP) ||
	    nla_put_u32(skb, XIW_CAPS_MAX_MR, XIW_MAX_MR))
		return -EMSGSIZE;
	nla_nest_end(skb, caps);
	return 0;
}

/* The device's persistence policy, in XIW_ATTR_POLICY. */
static int xiw_nl_put_policy(struct sk_buff *skb, struct xiw_device *xdev)
{
	struct nlattr *policy = nla_nest_start(skb, XIW_ATTR_POLICY);

	if (!policy ||
	    nla_put_u8(skb, XIW_POLICY_PERSIST, READ_ONCE(xdev->persist)) ||
	    nla_put_u8(skb, XIW_POLICY_DRAM_PERSISTENT,
		       READ_ONCE(xdev->dram_persistent)) ||
	    nla_put_u8(skb, XIW_POLICY_DRAM_PERSISTENT_NOW,
		       xiw_persist_dram_ok(xdev)))
		return -EMSGSIZE;
	nla_nest_end(skb, policy);
	return 0;
}

/* One nest of enum xiw_config_attr: @cfg, @hashes and @debug. */
static int xiw_nl_put_config_nest(struct sk_buff *skb, int type,
				  const struct xiw_conn_config *cfg,
				  u32 hashes, u8 debug)
{
	struct nlattr *nest = nla_nest_start(skb, type);

	if (!nest ||
	    nla_put_u8(skb, XIW_CONFIG_CRC, cfg->crc) ||
	    nla_put_u8(skb, XIW_CONFIG_MARKERS, cfg->markers) ||
	    nla_put_u8(skb, XIW_CONFIG_MPA_REV, cfg->mpa_rev) ||
	    nla_put_u8(skb, XIW_CONFIG_P2P, cfg->p2p) ||
	    nla_put_u32(skb, XIW_CONFIG_RTR, cfg->rtr) ||
	    nla_put_u32(skb, XIW_CONFIG_HASHES, hashes) ||
	    nla_put_u8(skb, XIW_CONFIG_DEBUG, debug))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * A device's settings in XIW_ATTR_CONFIG, then what they amount to in
 * XIW_ATTR_CONFIG_NOW: the connection ones as a connection begun now
 * takes them.
 */
static int xiw_nl_put_config(struct sk_buff *skb, struct xiw_device *xdev)
{
	u32 hashes = READ_ONCE(xdev->verify_hashes);
	u8 debug = READ_ONCE(xdev->debug);
	struct xiw_conn_config cfg, now;
	struct xiw_conn_policy pol;

	xiw_device_config(xdev, &cfg);
	xiw_policy_resolve(&cfg, &pol);
	xiw_policy_settings(&pol, &now);
	return xiw_nl_put_config_nest(skb, XIW_ATTR_CONFIG, &cfg, hashes,
				      debug) ?:
	       xiw_nl_put_config_nest(skb, XIW_ATTR_CONFIG_NOW, &now, hashes,
				      debug);
}

/* The names of a device: every reply starts with them. */
static int xiw_nl_put_names(struct sk_buff *skb, struct xiw_device *xdev)
{
	if (nla_put_u32(skb, XIW_ATTR_DEV_INDEX, xdev->ibdev.index) ||
	    nla_put_string(skb, XIW_ATTR_DEV_NAME, dev_name(&xdev->ibdev.dev)))
		return -EMSGSIZE;
	return 0;
}

/* One XIW_CMD_DEV_GET message of @xdev. */
static int xiw_nl_fill_dev(struct sk_buff *skb, struct xiw_device *xdev,
			   u32 portid, u32 seq, int flags)
{
	void *hdr = genlmsg_put(skb, portid, seq, &xiw_nl_family, flags,
				XIW_CMD_DEV_GET);

	if (!hdr)
		return -EMSGSIZE;
	if (xiw_nl_put_names(skb, xdev) ||
	    nla_put_string(skb, XIW_ATTR_NETDEV_NAME, xdev->netdev->name) ||
	    nla_put_u32(skb, XIW_ATTR_NETDEV_INDEX, xdev->netdev->ifindex) ||
	    xiw_nl_put_caps(skb) || xiw_nl_put_policy(skb, xdev) ||
	    xiw_nl_put_config(skb, xdev)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * The device a request names, by name, index or both. Caller holds
 * xiw_device_list_lock(). Return: the device, or an ERR_PTR with the
 * extack set.
 */
static struct xiw_device *xiw_nl_dev(struct genl_info *info)
{
	struct nlattr *name = info->attrs[XIW_ATTR_DEV_NAME];
	struct nlattr *index = info->attrs[XIW_ATTR_DEV_INDEX];
	struct xiw_device *xdev;
	u32 idx = 0;

	if (!name && !index) {
		GENL_SET_ERR_MSG(info, "no device: give XIW_ATTR_DEV_NAME or XIW_ATTR_DEV_INDEX");
		return ERR_PTR(-EINVAL);
	}
	if (index)
		idx = nla_get_u32(index);
	xdev = xiw_device_find(name ? nla_data(name) : NULL,
			       index ? &idx : NULL);
	if (xdev && !rdma_dev_access_netns(&xdev->ibdev, genl_info_net(info)))
		xdev = NULL;
	if (!xdev) {
		if (name && index)
			NL_SET_ERR_MSG_ATTR(info->extack, index,
					    "no xiw device has this name and index");
		else
			NL_SET_ERR_MSG_ATTR(info->extack, name ?: index,
					    "no such xiw device");
		return ERR_PTR(-ENODEV);
	}
	return xdev;
}

/*
 * Whether the sender of @skb may learn @xdev's keys or change its state:
 * CAP_NET_ADMIN in the user namespace that owns the device's network
 * namespace (init_net's, so the initial one, in the RDMA core's shared
 * mode). The socket's own namespace is not enough: an unprivileged user
 * is root of a namespace of its own (unshare -Urn), and the device is
 * visible from there. Return: 0, or -EPERM with the extack set.
 */
static int xiw_nl_admin(struct sk_buff *skb, struct genl_info *info,
			struct xiw_device *xdev)
{
	struct net *net = read_pnet(&xdev->ibdev.coredev.rdma_net);

	if (netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN))
		return 0;
	if (info->genlhdr->cmd == XIW_CMD_MR_GET)
		GENL_SET_ERR_MSG(info,
				 "reading an MR needs CAP_NET_ADMIN in the user namespace that owns the device's network namespace");
	else
		GENL_SET_ERR_MSG(info,
				 "changing xiw settings needs CAP_NET_ADMIN in the user namespace that owns the device's network namespace");
	return -EPERM;
}

static int xiw_nl_dev_reply(struct genl_info *info, struct xiw_device *xdev)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	int err;

	if (!msg)
		return -ENOMEM;
	err = xiw_nl_fill_dev(msg, xdev, info->snd_portid, info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int xiw_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xiw_device *xdev;
	int err;

	xiw_device_list_lock();
	xdev = xiw_nl_dev(info);
	err = IS_ERR(xdev) ? PTR_ERR(xdev) : xiw_nl_dev_reply(info, xdev);
	xiw_device_list_unlock();
	return err;
}

/*
 * A nest of XIW_CMD_DEV_SET, parsed into @tb. Return: 0, -ENODATA if the
 * request has none, or -ENOMSG if it holds nothing.
 */
static int xiw_nl_set_nest(struct genl_info *info, int type, int max,
			   const struct nla_policy *policy, struct nlattr **tb)
{
	int err, i;

	if (!info->attrs[type])
		return -ENODATA;
	/* Validated with the request: this cannot fail. */
	err = nla_parse_nested(tb, max, info->attrs[type], policy,
			       info->extack);
	if (err)
		return err;
	for (i = 1; i <= max; i++)
		if (tb[i])
			return 0;
	return -ENOMSG;
}

/*
 * The connection settings @tb asks for, applied to @cfg, checked as a
 * whole. Return: 0 or -EINVAL with the extack set.
 */
static int xiw_nl_config_change(struct genl_info *info, struct nlattr **tb,
				struct xiw_conn_config *cfg)
{
	if (tb[XIW_CONFIG_CRC])
		cfg->crc = nla_get_u8(tb[XIW_CONFIG_CRC]);
	if (tb[XIW_CONFIG_MARKERS])
		cfg->markers = nla_get_u8(tb[XIW_CONFIG_MARKERS]);
	if (tb[XIW_CONFIG_MPA_REV])
		cfg->mpa_rev = nla_get_u8(tb[XIW_CONFIG_MPA_REV]);
	if (tb[XIW_CONFIG_P2P])
		cfg->p2p = nla_get_u8(tb[XIW_CONFIG_P2P]);
	if (tb[XIW_CONFIG_RTR]) {
		cfg->rtr = nla_get_u32(tb[XIW_CONFIG_RTR]);
		if (cfg->rtr && !xiw_policy_rtr_list_valid(cfg->rtr)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[XIW_CONFIG_RTR],
					    "not a list of RTR kinds: one to three of send (1), write (2), read (3), each once, one per octet from the lowest");
			return -EINVAL;
		}
	}
	if (cfg->p2p == XIW_SWITCH_ON && cfg->mpa_rev == 1) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[XIW_CONFIG_P2P] ?: tb[XIW_CONFIG_MPA_REV],
				    "the peer-to-peer model needs MPA revision 2");
		return -EINVAL;
	}
	return 0;
}

static int xiw_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *ptb[XIW_POLICY_MAX + 1] = {};
	struct nlattr *ctb[XIW_CONFIG_MAX + 1] = {};
	struct xiw_conn_config cfg;
	struct xiw_device *xdev;
	int perr, cerr, err;

	if (info->attrs[XIW_ATTR_CONFIG_NOW]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[XIW_ATTR_CONFIG_NOW],
				    "read-only: set XIW_ATTR_CONFIG");
		return -EINVAL;
	}
	perr = xiw_nl_set_nest(info, XIW_ATTR_POLICY, XIW_POLICY_MAX,
			       xiw_nl_policy_policy, ptb);
	if (perr == -ENOMSG) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[XIW_ATTR_POLICY],
				    "nothing to change: give XIW_POLICY_PERSIST or XIW_POLICY_DRAM_PERSISTENT");
		return -EINVAL;
	}
	if (perr && perr != -ENODATA)
		return perr;
	cerr = xiw_nl_set_nest(info, XIW_ATTR_CONFIG, XIW_CONFIG_MAX,
			       xiw_nl_config_policy, ctb);
	if (cerr == -ENOMSG) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[XIW_ATTR_CONFIG],
				    "nothing to change: give an XIW_CONFIG_* attribute");
		return -EINVAL;
	}
	if (cerr && cerr != -ENODATA)
		return cerr;
	if (perr && cerr) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, XIW_ATTR_POLICY);
		GENL_SET_ERR_MSG(info, "no XIW_ATTR_POLICY or XIW_ATTR_CONFIG: nothing to change");
		return -EINVAL;
	}
	xiw_device_list_lock();
	xdev = xiw_nl_dev(info);
	if (IS_ERR(xdev)) {
		err = PTR_ERR(xdev);
		goto out;
	}
	err = xiw_nl_admin(skb, info, xdev);
	if (err)
		goto out;
	/* Every check before the first change: a refusal changes nothing. */
	spin_lock_bh(&xdev->config_lock);
	cfg = xdev->config;
	err = xiw_nl_config_change(info, ctb, &cfg);
	if (!err)
		xdev->config = cfg;
	spin_unlock_bh(&xdev->config_lock);
	if (err)
		goto out;
	if (ctb[XIW_CONFIG_HASHES])
		WRITE_ONCE(xdev->verify_hashes,
			   nla_get_u32(ctb[XIW_CONFIG_HASHES]));
	if (ctb[XIW_CONFIG_DEBUG])
		WRITE_ONCE(xdev->debug, nla_get_u8(ctb[XIW_CONFIG_DEBUG]));
	if (ptb[XIW_POLICY_PERSIST])
		WRITE_ONCE(xdev->persist, nla_get_u8(ptb[XIW_POLICY_PERSIST]));
	if (ptb[XIW_POLICY_DRAM_PERSISTENT])
		WRITE_ONCE(xdev->dram_persistent,
			   nla_get_u8(ptb[XIW_POLICY_DRAM_PERSISTENT]));
	err = xiw_nl_dev_reply(info, xdev);
out:
	xiw_device_list_unlock();
	return err;
}

/*
 * The MR a request names by XIW_ATTR_MR_STAG on its device; referenced.
 * The permission is checked before the STag is looked at. Caller holds
 * xiw_device_list_lock().
 */
static struct xiw_mr *xiw_nl_mr(struct sk_buff *skb, struct genl_info *info,
				struct xiw_device **xdevp)
{
	struct xiw_device *xdev = xiw_nl_dev(info);
	struct xiw_mr *mr;
	int err;

	if (IS_ERR(xdev))
		return ERR_CAST(xdev);
	err = xiw_nl_admin(skb, info, xdev);
	if (err)
		return ERR_PTR(err);
	mr = xiw_mr_find(xdev, nla_get_u32(info->attrs[XIW_ATTR_MR_STAG]));
	if (!mr) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[XIW_ATTR_MR_STAG],
				    "no MR of this device has this STag");
		return ERR_PTR(-ENOENT);
	}
	*xdevp = xdev;
	return mr;
}

static int xiw_nl_mr_reply(struct genl_info *info, struct xiw_device *xdev,
			   struct xiw_mr *mr, u32 stag)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	void *hdr;

	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &xiw_nl_family, 0, XIW_CMD_MR_GET);
	if (!hdr || xiw_nl_put_names(msg, xdev) ||
	    nla_put_u32(msg, XIW_ATTR_MR_STAG, stag) ||
	    nla_put_u8(msg, XIW_ATTR_MR_PERSIST, READ_ONCE(mr->persist))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int xiw_nl_mr_doit(struct sk_buff *skb, struct genl_info *info)
{
	bool set = info->genlhdr->cmd == XIW_CMD_MR_SET;
	struct xiw_device *xdev;
	struct xiw_mr *mr;
	int err;

	if (!info->attrs[XIW_ATTR_MR_STAG]) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, XIW_ATTR_MR_STAG);
		GENL_SET_ERR_MSG(info, "no XIW_ATTR_MR_STAG: which MR?");
		return -EINVAL;
	}
	if (set && !info->attrs[XIW_ATTR_MR_PERSIST]) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, XIW_ATTR_MR_PERSIST);
		GENL_SET_ERR_MSG(info, "no XIW_ATTR_MR_PERSIST: nothing to change");
		return -EINVAL;
	}
	xiw_device_list_lock();
	mr = xiw_nl_mr(skb, info, &xdev);
	if (IS_ERR(mr)) {
		err = PTR_ERR(mr);
	} else {
		if (set)
			WRITE_ONCE(mr->persist,
				   nla_get_u8(info->attrs[XIW_ATTR_MR_PERSIST]));
		err = xiw_nl_mr_reply(info, xdev, mr,
				      nla_get_u32(info->attrs[XIW_ATTR_MR_STAG]));
		xiw_mr_put(mr);
	}
	xiw_device_list_unlock();
	return err;
}

/* XIW_ATTR_TERMINATES: every code counted at least once, with its count. */
static int xiw_nl_put_terms(struct sk_buff *skb, struct xiw_term_counts *tc)
{
	struct nlattr *all = nla_nest_start(skb, XIW_ATTR_TERMINATES);
	struct xiw_term_iter it = {};
	struct nlattr *one;

	if (!all)
		return -EMSGSIZE;
	while (xiw_stats_next_term(tc, &it)) {
		one = nla_nest_start(skb, XIW_ATTR_TERMINATE);
		if (!one ||
		    nla_put_u8(skb, XIW_TERMINATE_SENT, it.sent) ||
		    nla_put_u8(skb, XIW_TERMINATE_LAYER, it.layer) ||
		    nla_put_u8(skb, XIW_TERMINATE_TYPE, it.type) ||
		    nla_put_u8(skb, XIW_TERMINATE_CODE, it.code) ||
		    nla_put_u64_64bit(skb, XIW_TERMINATE_COUNT, it.n,
				      XIW_TERMINATE_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, one);
	}
	nla_nest_end(skb, all);
	return 0;
}

/* One XIW_CMD_STATS_GET message of @xdev: its names and every counter. */
static int xiw_nl_fill_stats(struct sk_buff *skb, struct xiw_device *xdev,
			     u32 portid, u32 seq, int flags)
{
	void *hdr = genlmsg_put(skb, portid, seq, &xiw_nl_family, flags,
				XIW_CMD_STATS_GET);
	struct nlattr *stats, *one;
	int i;

	if (!hdr)
		return -EMSGSIZE;
	if (xiw_nl_put_names(skb, xdev))
		goto cancel;
	stats = nla_nest_start(skb, XIW_ATTR_STATS);
	if (!stats)
		goto cancel;
	for (i = 0; i < XIW_NUM_STATS; i++) {
		one = nla_nest_start(skb, XIW_ATTR_COUNTER);
		if (!one ||
		    nla_put_string(skb, XIW_COUNTER_NAME, xiw_stats_name(i)) ||
		    nla_put_u64_64bit(skb, XIW_COUNTER_VALUE,
				      xiw_stats_read(xdev->stats, i),
				      XIW_COUNTER_PAD))
			goto cancel;
		nla_nest_end(skb, one);
	}
	nla_nest_end(skb, stats);
	if (xiw_nl_put_terms(skb, &xdev->terms))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * Room for a XIW_CMD_STATS_GET message with @kinds Terminate kinds: the
 * names, every counter (a name of up to 31 octets), and the kinds.
 */
static size_t xiw_nl_stats_size(unsigned int kinds)
{
	size_t counter = nla_total_size(0) + nla_total_size(32) +
			 nla_total_size_64bit(sizeof(u64));
	size_t kind = nla_total_size(0) + 4 * nla_total_size(sizeof(u8)) +
		      nla_total_size_64bit(sizeof(u64));

	return NLMSG_GOODSIZE + XIW_NUM_STATS * counter + kinds * kind;
}

static int xiw_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xiw_term_iter it = {};
	struct xiw_device *xdev;
	struct sk_buff *msg = NULL;
	unsigned int kinds = 0;
	int err;

	xiw_device_list_lock();
	xdev = xiw_nl_dev(info);
	if (IS_ERR(xdev)) {
		err = PTR_ERR(xdev);
		goto out;
	}
	while (xiw_stats_next_term(&xdev->terms, &it))
		kinds++;
	/* Kinds that appear meanwhile: a few more, and at worst -EMSGSIZE. */
	msg = genlmsg_new(xiw_nl_stats_size(kinds + 8), GFP_KERNEL);
	err = msg ? xiw_nl_fill_stats(msg, xdev, info->snd_portid,
				      info->snd_seq, 0) : -ENOMEM;
out:
	xiw_device_list_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* A dump's messages are as large as the largest a device may need. */
static int xiw_nl_stats_get_start(struct netlink_callback *cb)
{
	cb->min_dump_alloc = xiw_nl_stats_size(2 * XIW_TERM_COUNT_LAYERS *
					       XIW_TERM_COUNT_TYPES *
					       XIW_TERM_COUNT_CODES);
	return 0;
}

/* cb->args[0]: how many devices of the list earlier parts went past. */
static int xiw_nl_dump(struct sk_buff *skb, struct netlink_callback *cb,
		       int (*fill)(struct sk_buff *skb,
				   struct xiw_device *xdev, u32 portid,
				   u32 seq, int flags))
{
	struct net *net = sock_net(cb->skb->sk);
	struct xiw_device *xdev;
	int err = 0;

	xiw_device_list_lock();
	for (; (xdev = xiw_device_nth(cb->args[0])); cb->args[0]++) {
		if (!rdma_dev_access_netns(&xdev->ibdev, net))
			continue;
		err = fill(skb, xdev, NETLINK_CB(cb->skb).portid,
			   cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
	}
	xiw_device_list_unlock();
	/* A full message ends this part; the next resumes at this device. */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

static int xiw_nl_stats_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	return xiw_nl_dump(skb, cb, xiw_nl_fill_stats);
}

static int xiw_nl_dev_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return xiw_nl_dump(skb, cb, xiw_nl_fill_dev);
}

/*
 * Multicast @skb to the events group of every namespace that may see
 * @xdev (all of them in the RDMA core's shared mode); consumes @skb.
 * Callable in atomic context.
 */
static void xiw_nl_notify(struct xiw_device *xdev, struct sk_buff *skb)
{
	struct sk_buff *copy;
	struct net *net;

	rcu_read_lock();
	for_each_net_rcu(net) {
		if (!rdma_dev_access_netns(&xdev->ibdev, net) ||
		    !genl_has_listeners(&xiw_nl_family, net,
					XIW_NL_MCGRP_EVENTS))
			continue;
		copy = skb_clone(skb, GFP_ATOMIC);
		if (copy)
			genlmsg_multicast_netns(&xiw_nl_family, net, copy, 0,
						XIW_NL_MCGRP_EVENTS,
						GFP_ATOMIC);
	}
	rcu_read_unlock();
	nlmsg_free(skb);
}

/*
 * An event message of @cmd about @xdev, its names in it; NULL without
 * memory (the event is lost, as a full listener's would be).
 */
static struct sk_buff *xiw_nl_event_new(struct xiw_device *xdev, u8 cmd,
					void **hdr)
{
	/* Two names, three u32s, a Terminate's four u8s, with room to spare. */
	struct sk_buff *skb = genlmsg_new(256, GFP_ATOMIC);

	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, &xiw_nl_family, 0, cmd);
	if (!*hdr || xiw_nl_put_names(skb, xdev)) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/**
 * xiw_nl_event_dev() - announce a device created or gone to the events
 *	group
 * @xdev: the device, registered (or still so)
 * @created: true for XIW_CMD_DEV_NEW, false for XIW_CMD_DEV_DEL
 */
void xiw_nl_event_dev(struct xiw_device *xdev, bool created)
{
	void *hdr;
	struct sk_buff *skb = xiw_nl_event_new(xdev, created ?
					       XIW_CMD_DEV_NEW :
					       XIW_CMD_DEV_DEL, &hdr);

	if (!skb)
		return;
	if (created &&
	    (nla_put_string(skb, XIW_ATTR_NETDEV_NAME, xdev->netdev->name) ||
	     nla_put_u32(skb, XIW_ATTR_NETDEV_INDEX, xdev->netdev->ifindex))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	xiw_nl_notify(xdev, skb);
}

/**
 * xiw_nl_event_qp() - announce to the events group that a connection
 *	ended with a Terminate
 * @qp: its QP
 * @cause: the Terminate's error, XIW_TERM()
 * @sent: the device sent it (else the peer did)
 *
 * Callable in any context.
 */
void xiw_nl_event_qp(struct xiw_qp *qp, int cause, bool sent)
{
	struct nlattr *term;
	void *hdr;
	struct sk_buff *skb = xiw_nl_event_new(qp->xdev, XIW_CMD_QP_ERROR,
					       &hdr);

	if (!skb)
		return;
	if (nla_put_u32(skb, XIW_ATTR_QP_NUM, qp->ibqp.qp_num))
		goto cancel;
	term = nla_nest_start(skb, XIW_ATTR_TERMINATE);
	if (!term ||
	    nla_put_u8(skb, XIW_TERMINATE_SENT, sent) ||
	    nla_put_u8(skb, XIW_TERMINATE_LAYER, XIW_TERM_LAYER(cause)) ||
	    nla_put_u8(skb, XIW_TERMINATE_TYPE, XIW_TERM_ETYPE(cause)) ||
	    nla_put_u8(skb, XIW_TERMINATE_CODE, XIW_TERM_CODE(cause)))
		goto cancel;
	nla_nest_end(skb, term);
	genlmsg_end(skb, hdr);
	xiw_nl_notify(qp->xdev, skb);
	return;
cancel:
	nlmsg_free(skb);
}

/**
 * DOC: xiw_nl_ops
 *
 * The family's commands (uapi/xiw_netlink.h). What a device can do, its
 * settings and counters are for anyone to read. Whatever reveals a key
 * (MR_GET: is this STag live?) or changes state needs CAP_NET_ADMIN in
 * the user namespace that owns the device's network namespace: the
 * generic netlink core first refuses a sender without CAP_NET_ADMIN over
 * its own namespace (GENL_UNS_ADMIN_PERM), then xiw_nl_admin() checks the
 * device's, which is what counts (a user's own namespace would otherwise
 * do). Every command takes the family's whole policy, strictly: an
 * attribute it does not know is refused.
 */
static const struct genl_ops xiw_nl_ops[] = {
	{
		.cmd = XIW_CMD_DEV_GET,
		.doit = xiw_nl_dev_get_doit,
		.dumpit = xiw_nl_dev_get_dumpit,
	},
	{
		.cmd = XIW_CMD_DEV_SET,
		.doit = xiw_nl_dev_set_doit,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = XIW_CMD_MR_GET,
		.doit = xiw_nl_mr_doit,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = XIW_CMD_MR_SET,
		.doit = xiw_nl_mr_doit,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = XIW_CMD_STATS_GET,
		.doit = xiw_nl_stats_get_doit,
		.start = xiw_nl_stats_get_start,
		.dumpit = xiw_nl_stats_get_dumpit,
	},
};

static const struct genl_multicast_group xiw_nl_mcgrps[] = {
	[XIW_NL_MCGRP_EVENTS] = { .name = XIW_GENL_MCGRP_EVENTS },
};

static struct genl_family xiw_nl_family __ro_after_init = {
	.name = XIW_GENL_NAME,
	.version = XIW_GENL_VERSION,
	.maxattr = XIW_ATTR_MAX,
	.policy = xiw_nl_policy,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = xiw_nl_ops,
	.n_ops = ARRAY_SIZE(xiw_nl_ops),
	.mcgrps = xiw_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(xiw_nl_mcgrps),
	.resv_start_op = XIW_CMD_MAX + 1,
};

/* Resolving the family loads xiw: "xiwctl caps" works before modprobe. */
MODULE_ALIAS_GENL_FAMILY(XIW_GENL_NAME);

/**
 * xiw_netlink_init() - register the family
 *
 * Return: 0 or genl_register_family()'s error.
 */
int xiw_netlink_init(void)
{
	return genl_register_family(&xiw_nl_family);
}

/**
 * xiw_netlink_exit() - unregister the family; no request runs after
 */
void xiw_netlink_exit(void)
{
	genl_unregister_family(&xiw_nl_family);
}
