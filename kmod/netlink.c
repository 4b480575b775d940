// SPDX-License-Identifier: GPL-2.0
/*
 * The xiw generic netlink family (uapi/xiw_netlink.h,
 * Documentation/netlink.md): what each device can do and its persistence
 * policy, per device and per MR, for xiwctl and libxiw.
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

static const struct nla_policy xiw_nl_policy[XIW_ATTR_MAX + 1] = {
	[XIW_ATTR_DEV_INDEX] = { .type = NLA_U32 },
	[XIW_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING,
				.len = IB_DEVICE_NAME_MAX - 1 },
	[XIW_ATTR_POLICY] = NLA_POLICY_NESTED(xiw_nl_policy_policy),
	[XIW_ATTR_MR_STAG] = { .type = NLA_U32 },
	[XIW_ATTR_MR_PERSIST] = NLA_POLICY_MAX(NLA_U8, XIW_PERSIST_MAX),
};

static struct genl_family xiw_nl_family;

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
	    nla_put_u32(skb, XIW_CAPS_HASHES, BIT(XIW_VERIFY_CRC32C) |
					      BIT(XIW_VERIFY_SHA256)) ||
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
	    xiw_nl_put_caps(skb) || xiw_nl_put_policy(skb, xdev)) {
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

/* cb->args[0]: how many devices of the list earlier parts went past. */
static int xiw_nl_dev_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct net *net = sock_net(cb->skb->sk);
	struct xiw_device *xdev;
	int err = 0;

	xiw_device_list_lock();
	for (; (xdev = xiw_device_nth(cb->args[0])); cb->args[0]++) {
		if (!rdma_dev_access_netns(&xdev->ibdev, net))
			continue;
		err = xiw_nl_fill_dev(skb, xdev, NETLINK_CB(cb->skb).portid,
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

static int xiw_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[XIW_POLICY_MAX + 1];
	struct xiw_device *xdev;
	int err;

	if (!info->attrs[XIW_ATTR_POLICY]) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, XIW_ATTR_POLICY);
		GENL_SET_ERR_MSG(info, "no XIW_ATTR_POLICY: nothing to change");
		return -EINVAL;
	}
	/* Validated with the request: this cannot fail. */
	err = nla_parse_nested(tb, XIW_POLICY_MAX, info->attrs[XIW_ATTR_POLICY],
			       xiw_nl_policy_policy, info->extack);
	if (err)
		return err;
	if (!tb[XIW_POLICY_PERSIST] && !tb[XIW_POLICY_DRAM_PERSISTENT]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[XIW_ATTR_POLICY],
				    "nothing to change: give XIW_POLICY_PERSIST or XIW_POLICY_DRAM_PERSISTENT");
		return -EINVAL;
	}
	xiw_device_list_lock();
	xdev = xiw_nl_dev(info);
	if (IS_ERR(xdev)) {
		err = PTR_ERR(xdev);
	} else {
		if (tb[XIW_POLICY_PERSIST])
			WRITE_ONCE(xdev->persist,
				   nla_get_u8(tb[XIW_POLICY_PERSIST]));
		if (tb[XIW_POLICY_DRAM_PERSISTENT])
			WRITE_ONCE(xdev->dram_persistent,
				   nla_get_u8(tb[XIW_POLICY_DRAM_PERSISTENT]));
		err = xiw_nl_dev_reply(info, xdev);
	}
	xiw_device_list_unlock();
	return err;
}

/*
 * The MR a request names by XIW_ATTR_MR_STAG on its device; referenced.
 * Caller holds xiw_device_list_lock().
 */
static struct xiw_mr *xiw_nl_mr(struct genl_info *info,
				struct xiw_device **xdevp)
{
	struct xiw_device *xdev = xiw_nl_dev(info);
	struct xiw_mr *mr;

	if (IS_ERR(xdev))
		return ERR_CAST(xdev);
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
	mr = xiw_nl_mr(info, &xdev);
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

/**
 * DOC: xiw_nl_ops
 *
 * The family's commands (uapi/xiw_netlink.h): reads for anyone, writes
 * for CAP_NET_ADMIN only. Every command takes the family's whole policy,
 * strictly: an attribute it does not know is refused.
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
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = XIW_CMD_MR_GET,
		.doit = xiw_nl_mr_doit,
	},
	{
		.cmd = XIW_CMD_MR_SET,
		.doit = xiw_nl_mr_doit,
		.flags = GENL_ADMIN_PERM,
	},
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
