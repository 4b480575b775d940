/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connection policy (policy.c): a device's connection settings, the module
 * parameters that stand in for the ones it leaves at "default", and what
 * one connection is set up with.
 */
#ifndef XIW_POLICY_H
#define XIW_POLICY_H

#include <linux/types.h>

#include "../uapi/xiw_netlink.h"

/**
 * struct xiw_conn_config - a device's connection settings, as netlink
 *	carries them (enum xiw_config_attr); each may defer to its module
 *	parameter. Protected by the device's config_lock.
 * @crc: enum xiw_crc
 * @markers: enum xiw_switch
 * @mpa_rev: 1 or 2; 0: the module parameter's
 * @p2p: enum xiw_switch
 * @rtr: enum xiw_rtr_kind per octet, most preferred in the lowest;
 *	0: the module parameter's
 */
struct xiw_conn_config {
	u8 crc;
	u8 markers;
	u8 mpa_rev;
	u8 p2p;
	u32 rtr;
};

/**
 * struct xiw_conn_policy - what one connection is set up with: its
 *	device's settings when it began, the module parameters applied
 * @crc: enum xiw_crc, never XIW_CRC_DEFAULT
 * @mpa_rev: the MPA revision offered when connecting
 * @markers: ask the peer to send markers
 * @p2p: offer the peer-to-peer model when connecting (revision 2 only)
 * @rtr: XIW_RTR_* kinds (rdmap.h) supported, most preferred first
 * @n_rtr: how many of @rtr there are (1 to 3)
 */
struct xiw_conn_policy {
	u8 crc;
	u8 mpa_rev;
	bool markers;
	bool p2p;
	u8 rtr[3];
	u8 n_rtr;
};

void xiw_policy_resolve(const struct xiw_conn_config *cfg,
			struct xiw_conn_policy *pol);
u8 xiw_policy_rtr_supported(const struct xiw_conn_policy *pol);
void xiw_policy_settings(const struct xiw_conn_policy *pol,
			 struct xiw_conn_config *now);
bool xiw_policy_rtr_list_valid(u32 list);
int xiw_policy_rtr_parse(const char *val, u32 *list);
unsigned int xiw_policy_timeout_ms(void);
bool xiw_policy_segment_headers(void);

#endif /* XIW_POLICY_H */
