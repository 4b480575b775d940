/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The xiw generic netlink family (netlink.c, uapi/xiw_netlink.h).
 */
#ifndef XIW_NETLINK_H
#define XIW_NETLINK_H

#include <linux/types.h>

struct xiw_device;
struct xiw_qp;

int xiw_netlink_init(void);
void xiw_netlink_exit(void);
void xiw_nl_event_dev(struct xiw_device *xdev, bool created);
void xiw_nl_event_qp(struct xiw_qp *qp, int cause, bool sent);

#endif /* XIW_NETLINK_H */
