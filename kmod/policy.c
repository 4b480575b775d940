// SPDX-License-Identifier: GPL-2.0
/*
 * Connection policy: the module parameters that shape new connections
 * (CRC, MPA revision, markers, peer-to-peer model and RTR kinds, handshake
 * timeouts), validated when set and read by the connection manager.
 * Connections already set up keep what they negotiated.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "mpa.h"
#include "policy.h"
#include "rdmap.h"

static const char * const xiw_crc_policy_names[] = {
	[XIW_CRC_OFF] = "off",
	[XIW_CRC_PREFERRED] = "preferred",
	[XIW_CRC_REQUIRED] = "required",
};

static int crc_policy = XIW_CRC_PREFERRED;

static int xiw_crc_policy_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(xiw_crc_policy_names, val);

	if (i < 0)
		return -EINVAL;	/* nothing changes */
	WRITE_ONCE(crc_policy, i);
	return 0;
}

static int xiw_crc_policy_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", xiw_crc_policy_names[READ_ONCE(crc_policy)]);
}

static const struct kernel_param_ops xiw_crc_policy_ops = {
	.set = xiw_crc_policy_set,
	.get = xiw_crc_policy_get,
};

module_param_cb(crc_policy, &xiw_crc_policy_ops, NULL, 0644);
MODULE_PARM_DESC(crc_policy,
		 "MPA CRC32c, used when either side asks: required (ask as initiator and responder), preferred (ask as initiator; default) or off (never ask)");

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
MODULE_PARM_DESC(mpa_rev, "MPA revision offered when connecting: 1 or 2 (RFC 6581)");

static bool markers;
module_param(markers, bool, 0644);
MODULE_PARM_DESC(markers, "Ask peers to send MPA markers toward xiw (the M bit of RFC 5044); a peer's request for markers is always honoured");

static bool p2p;
module_param(p2p, bool, 0644);
MODULE_PARM_DESC(p2p, "Connect in RFC 6581's peer-to-peer model (needs mpa_rev 2): the first message is an RTR of a kind from rtr");

/* RTR kinds in order of preference: one XIW_RTR_* per octet, 0 ends. */
static u32 rtr_pref = XIW_RTR_WRITE | XIW_RTR_READ << 8 | XIW_RTR_SEND << 16;

static const char * const xiw_rtr_names[] = { "send", "write", "read" };

static int xiw_rtr_set(const char *val, const struct kernel_param *kp)
{
	char buf[32], *cur = buf, *tok;
	u8 seen = 0;
	u32 pref = 0;
	int n = 0;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	strim(buf);
	while ((tok = strsep(&cur, ",")) != NULL) {
		int i = match_string(xiw_rtr_names, ARRAY_SIZE(xiw_rtr_names),
				     tok);

		if (i < 0 || (seen & BIT(i)))
			return -EINVAL;	/* nothing changes */
		seen |= BIT(i);
		pref |= (u32)BIT(i) << (8 * n++);
	}
	WRITE_ONCE(rtr_pref, pref);
	return 0;
}

static int xiw_rtr_get(char *buf, const struct kernel_param *kp)
{
	u32 pref = READ_ONCE(rtr_pref);
	int len = 0;

	for (; pref; pref >>= 8)
		len += sysfs_emit_at(buf, len, "%s%s", len ? "," : "",
				     xiw_rtr_names[ffs(pref & 0xff) - 1]);
	return len + sysfs_emit_at(buf, len, "\n");
}

static const struct kernel_param_ops xiw_rtr_ops = {
	.set = xiw_rtr_set,
	.get = xiw_rtr_get,
};

module_param_cb(rtr, &xiw_rtr_ops, NULL, 0644);
MODULE_PARM_DESC(rtr,
		 "RFC 6581 RTR kinds xiw supports, most preferred first: a comma-separated list of send, write, read (default write,read,send)");

/**
 * xiw_policy_rtr() - the RTR kinds xiw supports, most preferred first
 * @pref: filled with XIW_RTR_* kinds
 *
 * Return: how many there are (1 to 3).
 */
unsigned int xiw_policy_rtr(u8 pref[3])
{
	u32 p = READ_ONCE(rtr_pref);
	unsigned int n = 0;

	for (; p && n < 3; p >>= 8)
		pref[n++] = p & 0xff;
	return n;
}

/**
 * xiw_policy_rtr_supported() - the RTR kinds xiw supports
 *
 * Return: XIW_RTR_* bits.
 */
u8 xiw_policy_rtr_supported(void)
{
	u8 pref[3];
	unsigned int i, n = xiw_policy_rtr(pref);
	u8 all = 0;

	for (i = 0; i < n; i++)
		all |= pref[i];
	return all;
}

static uint mpa_timeout_ms = 10000;
module_param(mpa_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_timeout_ms, "Limit for each step of connection setup and teardown, in ms");

/**
 * xiw_policy_crc() - the CRC32c policy for new connections
 *
 * Return: enum xiw_crc_policy.
 */
enum xiw_crc_policy xiw_policy_crc(void)
{
	return READ_ONCE(crc_policy);
}

/**
 * xiw_policy_mpa_rev() - the MPA revision offered when connecting
 *
 * Return: 1 or 2.
 */
u8 xiw_policy_mpa_rev(void)
{
	return READ_ONCE(mpa_rev);
}

/**
 * xiw_policy_markers() - whether to ask peers for markers
 *
 * Return: the markers parameter.
 */
bool xiw_policy_markers(void)
{
	return READ_ONCE(markers);
}

/**
 * xiw_policy_p2p() - whether to connect in the peer-to-peer model
 *
 * Return: the p2p parameter.
 */
bool xiw_policy_p2p(void)
{
	return READ_ONCE(p2p);
}

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
