/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The xiw generic netlink family (netlink.c, uapi/xiw_netlink.h).
 */
#ifndef XIW_NETLINK_H
#define XIW_NETLINK_H

int xiw_netlink_init(void);
void xiw_netlink_exit(void);

#endif /* XIW_NETLINK_H */
