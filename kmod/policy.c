// SPDX-License-Identifier: GPL-2.0
/*
 * Connection policy: the module parameters that shape new connections
 * (CRC, MPA revision, markers, peer-to-peer model and RTR kinds, handshake
 * timeouts), validated when set, and how they stand in for the settings a
 * device leaves at "default" (its own come through netlink). A connection
 * takes its policy once, when it begins; connections already set up keep
 * what they negotiated.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "mpa.h"
#include "policy.h"
#include "rdmap.h"

static const char * const xiw_crc_names[] = {
	[XIW_CRC_DEFAULT] = "default",
	[XIW_CRC_OFF] = "off",
	[XIW_CRC_PREFERRED] = "preferred",
	[XIW_CRC_REQUIRED] = "required",
};

static int crc_policy = XIW_CRC_PREFERRED;

static int xiw_crc_policy_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(xiw_crc_names, val);

	if (i <= XIW_CRC_DEFAULT)	/* the parameter is the default */
		return -EINVAL;		/* nothing changes */
	WRITE_ONCE(crc_policy, i);
	return 0;
}

static int xiw_crc_policy_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", xiw_crc_names[READ_ONCE(crc_policy)]);
}

static const struct kernel_param_ops xiw_crc_policy_ops = {
	.set = xiw_crc_policy_set,
	.get = xiw_crc_policy_get,
};

module_param_cb(crc_policy, &xiw_crc_policy_ops, NULL, 0644);
MODULE_PARM_DESC(crc_policy,
		 "MPA CRC32c of devices that do not set their own, used when either side asks: required (ask as initiator and responder), preferred (ask as initiator; default) or off (never ask)");

static uint mpa_rev = 2;

static int xiw_mpa_rev_set(const char *val, const struct kernel_param *kp)
{
	uint rev;

	if (kstrtouint(val, 0, &rev) || rev < XIW_MPA_REV_MIN ||
	    rev > XIW_MPA_REV_MAX)
		return -EINVAL;	/* nothing changes */
	WRITE_ONCE(mpa_rev, rev);
	return 0;
}

static const struct kernel_param_ops xiw_mpa_rev_ops = {
	.set = xiw_mpa_rev_set,
	.get = param_get_uint,
};

module_param_cb(mpa_rev, &xiw_mpa_rev_ops, &mpa_rev, 0644);
MODULE_PARM_DESC(mpa_rev, "MPA revision offered when connecting, by devices that do not set their own: 1 or 2 (RFC 6581)");

static bool markers;
module_param(markers, bool, 0644);
MODULE_PARM_DESC(markers, "Ask peers to send MPA markers toward xiw (the M bit of RFC 5044), for devices that do not set their own; a peer's request for markers is always honoured");

static bool p2p;
module_param(p2p, bool, 0644);
MODULE_PARM_DESC(p2p, "Connect in RFC 6581's peer-to-peer model (needs MPA revision 2), for devices that do not set their own: the first message is an RTR of a kind from rtr");

/* RTR kinds in order of preference, as XIW_CONFIG_RTR carries them. */
static u32 rtr_list = XIW_RTR_KIND_WRITE | XIW_RTR_KIND_READ << 8 |
		      XIW_RTR_KIND_SEND << 16;

/* "none" holds the place: match_string() stops at a NULL. */
static const char * const xiw_rtr_names[] = {
	[XIW_RTR_KIND_NONE] = "none",
	[XIW_RTR_KIND_SEND] = "send",
	[XIW_RTR_KIND_WRITE] = "write",
	[XIW_RTR_KIND_READ] = "read",
};

/**
 * xiw_policy_rtr_list_valid() - whether @list is an RTR preference list
 * @list: enum xiw_rtr_kind per octet, most preferred in the lowest
 *
 * Return: true if it names one to three kinds, each once, with nothing
 * after the first XIW_RTR_KIND_NONE.
 */
bool xiw_policy_rtr_list_valid(u32 list)
{
	u8 seen = 0;

	if (!list)
		return false;
	for (; list; list >>= 8) {
		u8 kind = list & 0xff;

		if (kind == XIW_RTR_KIND_NONE || kind > XIW_RTR_KIND_MAX ||
		    (seen & BIT(kind)))
			return false;
		seen |= BIT(kind);
	}
	return true;
}

/**
 * xiw_policy_rtr_parse() - an RTR preference list from its text
 * @val: a comma-separated list of send, write, read, most preferred first
 *	(surrounding white space ignored)
 * @list: set to it, as XIW_CONFIG_RTR carries it
 *
 * Return: 0, or -EINVAL (no kind, an unknown word, a kind twice).
 */
int xiw_policy_rtr_parse(const char *val, u32 *list)
{
	char buf[32], *cur, *tok;
	u32 l = 0;
	int n = 0;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	cur = strim(buf);
	while ((tok = strsep(&cur, ",")) != NULL) {
		int i = match_string(xiw_rtr_names, ARRAY_SIZE(xiw_rtr_names),
				     tok);

		if (i <= XIW_RTR_KIND_NONE || n == 3)
			return -EINVAL;
		l |= (u32)i << (8 * n++);
	}
	if (!xiw_policy_rtr_list_valid(l))
		return -EINVAL;		/* a kind named twice */
	*list = l;
	return 0;
}

static int xiw_rtr_set(const char *val, const struct kernel_param *kp)
{
	u32 list;

	if (xiw_policy_rtr_parse(val, &list))
		return -EINVAL;	/* nothing changes */
	WRITE_ONCE(rtr_list, list);
	return 0;
}

static int xiw_rtr_get(char *buf, const struct kernel_param *kp)
{
	u32 list = READ_ONCE(rtr_list);
	int len = 0;

	for (; list; list >>= 8)
		len += sysfs_emit_at(buf, len, "%s%s", len ? "," : "",
				     xiw_rtr_names[list & 0xff]);
	return len + sysfs_emit_at(buf, len, "\n");
}

static const struct kernel_param_ops xiw_rtr_ops = {
	.set = xiw_rtr_set,
	.get = xiw_rtr_get,
};

module_param_cb(rtr, &xiw_rtr_ops, NULL, 0644);
MODULE_PARM_DESC(rtr,
		 "RFC 6581 RTR kinds supported by devices that do not set their own, most preferred first: a comma-separated list of send, write, read (default write,read,send)");

/* enum xiw_rtr_kind to its XIW_RTR_* bit, and back. */
static u8 xiw_rtr_bit(u8 kind)
{
	return BIT(kind - 1);
}

static u8 xiw_rtr_kind(u8 bit)
{
	return ffs(bit);
}

/**
 * xiw_policy_resolve() - what a connection begun now is set up with
 * @cfg: its device's settings
 * @pol: filled from them, the module parameters standing in for those
 *	left at default
 */
void xiw_policy_resolve(const struct xiw_conn_config *cfg,
			struct xiw_conn_policy *pol)
{
	u32 list = cfg->rtr ?: READ_ONCE(rtr_list);

	pol->crc = cfg->crc ?: READ_ONCE(crc_policy);
	pol->mpa_rev = cfg->mpa_rev ?: READ_ONCE(mpa_rev);
	pol->markers = cfg->markers ? cfg->markers == XIW_SWITCH_ON :
				      READ_ONCE(markers);
	pol->p2p = (cfg->p2p ? cfg->p2p == XIW_SWITCH_ON : READ_ONCE(p2p)) &&
		   pol->mpa_rev == 2;
	for (pol->n_rtr = 0; list && pol->n_rtr < ARRAY_SIZE(pol->rtr);
	     list >>= 8)
		pol->rtr[pol->n_rtr++] = xiw_rtr_bit(list & 0xff);
}

/**
 * xiw_policy_rtr_supported() - the RTR kinds a connection supports
 * @pol: its policy
 *
 * Return: XIW_RTR_* bits.
 */
u8 xiw_policy_rtr_supported(const struct xiw_conn_policy *pol)
{
	u8 all = 0;
	unsigned int i;

	for (i = 0; i < pol->n_rtr; i++)
		all |= pol->rtr[i];
	return all;
}

/**
 * xiw_policy_settings() - a policy as the settings that would give it,
 *	none at default (what XIW_ATTR_CONFIG_NOW reports)
 * @pol: the policy
 * @now: filled: CRC 1-3, markers and peer-to-peer off or on, the MPA
 *	revision, the RTR kinds as XIW_CONFIG_RTR has them
 */
void xiw_policy_settings(const struct xiw_conn_policy *pol,
			 struct xiw_conn_config *now)
{
	unsigned int i;

	now->crc = pol->crc;
	now->markers = pol->markers ? XIW_SWITCH_ON : XIW_SWITCH_OFF;
	now->mpa_rev = pol->mpa_rev;
	now->p2p = pol->p2p ? XIW_SWITCH_ON : XIW_SWITCH_OFF;
	now->rtr = 0;
	for (i = 0; i < pol->n_rtr; i++)
		now->rtr |= (u32)xiw_rtr_kind(pol->rtr[i]) << (8 * i);
}

static uint mpa_timeout_ms = 10000;
module_param(mpa_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_timeout_ms, "Limit for each step of connection setup and teardown, in ms");

/**
 * xiw_policy_timeout_ms() - the limit of each connection setup and
 *	teardown step
 *
 * Return: milliseconds, at least 100.
 */
unsigned int xiw_policy_timeout_ms(void)
{
	return max(READ_ONCE(mpa_timeout_ms), 100U);
}

static bool segment_headers = true;
module_param(segment_headers, bool, 0644);
MODULE_PARM_DESC(segment_headers, "Keep each untagged FPDU's header inside one TCP segment, for peers that cannot parse one split (stock siw of 6.12.95); costs small Sends up to a quarter of their rate");

/**
 * xiw_policy_segment_headers() - does a new connection keep untagged
 *	headers inside one TCP segment (kmod/tx.c, "Segments")?
 */
bool xiw_policy_segment_headers(void)
{
	return READ_ONCE(segment_headers);
}
