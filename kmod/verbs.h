/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verbs entry points of struct ib_device_ops.
 */
#ifndef XIW_VERBS_H
#define XIW_VERBS_H

#include <rdma/ib_verbs.h>

int xiw_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		     struct ib_udata *udata);
int xiw_query_port(struct ib_device *ibdev, u32 port,
		   struct ib_port_attr *attr);
int xiw_query_gid(struct ib_device *ibdev, u32 port, int index,
		  union ib_gid *gid);
int xiw_get_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *immutable);
void xiw_get_dev_fw_str(struct ib_device *ibdev, char *str);
int xiw_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);

#endif /* XIW_VERBS_H */
