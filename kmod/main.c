// SPDX-License-Identifier: GPL-2.0
/*
 * xiw: a software iWARP RNIC. Module entry points.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <rdma/rdma_netlink.h>

#include "cm.h"
#include "device.h"
#include "netlink.h"
#include "obj.h"

static struct rdma_link_ops xiw_link_ops = {
	.type = "xiw",
	.newlink = xiw_newlink,
};

static struct notifier_block xiw_netdev_nb = {
	.notifier_call = xiw_netdev_event,
};

static int __init xiw_init(void)
{
	int err;

	err = xiw_tx_init();
	if (err)
		return err;
	err = xiw_cm_init();
	if (err)
		goto out_tx;
	err = register_netdevice_notifier(&xiw_netdev_nb);
	if (err)
		goto out_cm;
	err = xiw_netlink_init();
	if (err)
		goto out_notifier;
	rdma_link_register(&xiw_link_ops);
	pr_info("xiw: software iWARP RNIC loaded\n");
	return 0;
out_notifier:
	unregister_netdevice_notifier(&xiw_netdev_nb);
out_cm:
	xiw_cm_exit();
out_tx:
	xiw_tx_exit();
	return err;
}

static void __exit xiw_exit(void)
{
	rdma_link_unregister(&xiw_link_ops);
	/* Devices announce their end on the family's events group. */
	xiw_remove_all();
	xiw_netlink_exit();
	unregister_netdevice_notifier(&xiw_netdev_nb);
	xiw_cm_exit();
	xiw_tx_exit();
	pr_info("xiw: unloaded\n");
}

module_init(xiw_init);
module_exit(xiw_exit);

MODULE_DESCRIPTION("xiw: software iWARP RNIC with RDMAP extensions");
MODULE_LICENSE("GPL");
MODULE_VERSION(XIW_FW_VERSION);
MODULE_ALIAS_RDMA_LINK("xiw");
