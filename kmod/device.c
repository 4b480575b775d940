// SPDX-License-Identifier: GPL-2.0
/*
 * Device lifetime: creation by "rdma link add", removal by "rdma link
 * delete", by the netdev going away, or by module unload; port events that
 * follow the netdev's link state.
 */
#include <linux/ctype.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/mutex.h>
#include <xiw/compat.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>

#include "cm.h"
#include "device.h"
#include "netlink.h"
#include "obj.h"
#include "stats.h"
#include "verbs.h"

/*
 * Every registered xiw device, so that netdev events and module unload can
 * find them (the RDMA core cannot tell xiw's devices from other drivers'
 * without an rdma_driver_id of xiw's own). xiw_devices_lock is a leaf lock:
 * taken inside RTNL by the netdev notifier, never held across a call into
 * the RDMA core that may sleep on device unregistration.
 */
static LIST_HEAD(xiw_devices);
static DEFINE_MUTEX(xiw_devices_lock);

/*
 * Devices allocated and not yet through xiw_dealloc_driver(), listed or
 * not: module unload waits for none to be left (an unregistration the
 * RDMA core queued may still be running one).
 */
static atomic_t xiw_devices_alive = ATOMIC_INIT(0);

static void xiw_dealloc_driver(struct ib_device *ibdev);

/**
 * DOC: xiw_device_ops
 *
 * The RDMA core's entry points into an xiw device: queries, verbs (PD, CQ,
 * DMA, fast-registration and user MRs, RC QP, SRQ) for kernel consumers
 * and, through user contexts (uctx.c, uapi/xiw_abi.h), for processes; and
 * the iw_cm provider.
 */
static const struct ib_device_ops xiw_device_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = 1,

	.device_group = &xiw_attr_group,
	.dealloc_driver = xiw_dealloc_driver,
	.alloc_hw_port_stats = xiw_alloc_hw_port_stats,
	.get_dev_fw_str = xiw_get_dev_fw_str,
	.get_hw_stats = xiw_get_hw_stats,
	.get_port_immutable = xiw_get_port_immutable,
	.query_device = xiw_query_device,
	.query_gid = xiw_query_gid,
	.query_pkey = xiw_query_pkey,
	.query_port = xiw_query_port,

	.alloc_ucontext = xiw_alloc_ucontext,
	.dealloc_ucontext = xiw_dealloc_ucontext,
	.disassociate_ucontext = xiw_disassociate_ucontext,
	.mmap = xiw_mmap,
	.mmap_free = xiw_mmap_free,
	.alloc_pd = xiw_alloc_pd,
	.dealloc_pd = xiw_dealloc_pd,
	.create_cq = xiw_create_cq,
	.destroy_cq = xiw_destroy_cq,
	.poll_cq = xiw_poll_cq,
	.req_notify_cq = xiw_req_notify_cq,
	.get_dma_mr = xiw_get_dma_mr,
	.alloc_mr = xiw_alloc_mr,
	.map_mr_sg = xiw_map_mr_sg,
	.reg_user_mr = xiw_reg_user_mr,
	.dereg_mr = xiw_dereg_mr,
	.create_qp = xiw_create_qp,
	.modify_qp = xiw_modify_qp,
	.query_qp = xiw_query_qp,
	.destroy_qp = xiw_destroy_qp,
	.post_send = xiw_post_send,
	.post_recv = xiw_post_recv,
	.create_srq = xiw_create_srq,
	.modify_srq = xiw_modify_srq,
	.query_srq = xiw_query_srq,
	.destroy_srq = xiw_destroy_srq,
	.post_srq_recv = xiw_post_srq_recv,

	.iw_accept = xiw_accept,
	.iw_add_ref = xiw_qp_add_ref,
	.iw_connect = xiw_connect,
	.iw_create_listen = xiw_create_listen,
	.iw_destroy_listen = xiw_destroy_listen,
	.iw_get_qp = xiw_get_qp,
	.iw_reject = xiw_reject,
	.iw_rem_ref = xiw_qp_rem_ref,

	INIT_RDMA_OBJ_SIZE(ib_cq, xiw_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, xiw_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, xiw_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, xiw_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, xiw_ucontext, ibucontext),
};

/* Called by the RDMA core when the last unregistration step is done. */
static void xiw_dealloc_driver(struct ib_device *ibdev)
{
	struct xiw_device *xdev = to_xiw_dev(ibdev);
	bool listed;

	mutex_lock(&xiw_devices_lock);
	listed = !list_empty(&xdev->list);
	if (listed)
		list_del_init(&xdev->list);
	mutex_unlock(&xiw_devices_lock);
	if (listed)		/* it was announced */
		xiw_nl_event_dev(xdev, false);

	/* Connections still closing (e.g. waiting for the peer's FIN). */
	xiw_cm_device_gone(xdev);

	/*
	 * The RDMA core destroyed every object of the device before this:
	 * its ULPs' in their removal, processes' by disassociating their
	 * contexts. A count left is a create or destroy path of xiw's that
	 * missed its xiw_count_get() or xiw_count_put().
	 */
	WARN_ONCE(atomic_read(&xdev->num_pd) || atomic_read(&xdev->num_cq) ||
		  atomic_read(&xdev->num_qp) || atomic_read(&xdev->num_srq) ||
		  atomic_read(&xdev->num_mr),
		  "xiw: objects counted at removal: %d PD, %d CQ, %d QP, %d SRQ, %d MR\n",
		  atomic_read(&xdev->num_pd), atomic_read(&xdev->num_cq),
		  atomic_read(&xdev->num_qp), atomic_read(&xdev->num_srq),
		  atomic_read(&xdev->num_mr));

	netdev_put(xdev->netdev, &xdev->netdev_tracker);
	xiw_stats_free(xdev->stats);
	if (atomic_dec_and_test(&xiw_devices_alive))
		wake_up_var(&xiw_devices_alive);
}

/*
 * The RDMA core accepts a netlink name of IB_DEVICE_NAME_MAX characters and
 * silently cuts it to IB_DEVICE_NAME_MAX - 1: a name of that length may be
 * such a cut, so the longest name xiw accepts is one shorter.
 */
#define XIW_NAME_MAX	(IB_DEVICE_NAME_MAX - 2)

static bool xiw_name_ok(const char *name)
{
	size_t len = strnlen(name, IB_DEVICE_NAME_MAX);
	size_t i;

	if (len == 0 || len > XIW_NAME_MAX)
		return false;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("_.-", name[i]))
			return false;
	return true;
}

/* Caller holds xiw_devices_lock. */
static struct xiw_device *xiw_find_by_netdev(struct net_device *netdev)
{
	struct xiw_device *xdev;

	list_for_each_entry(xdev, &xiw_devices, list)
		if (xdev->netdev == netdev)
			return xdev;
	return NULL;
}

/*
 * The port address is the GID (zero padded) and the basis of the node GUID.
 * rdma_cm finds an iWARP device through GID entry 0, which the RDMA core
 * never caches when it is zero: a netdev without a MAC (loopback) gets a
 * locally administered address made of its namespace cookie and ifindex.
 */
static void xiw_set_addr(struct xiw_device *xdev)
{
	struct net_device *netdev = xdev->netdev;

	if (netdev->addr_len == ETH_ALEN &&
	    !is_zero_ether_addr(netdev->dev_addr)) {
		ether_addr_copy(xdev->addr, netdev->dev_addr);
	} else {
		u64 cookie = dev_net(netdev)->net_cookie;

		xdev->addr[0] = 0x02;	/* locally administered, unicast */
		xdev->addr[1] = cookie;
		xdev->addr[2] = cookie >> 8;
		put_unaligned_be24(netdev->ifindex, xdev->addr + 3);
	}
	addrconf_addr_eui48((u8 *)&xdev->ibdev.node_guid, xdev->addr);
}

static struct xiw_device *xiw_device_alloc(struct net_device *netdev)
{
	struct xiw_device *xdev;
	struct ib_device *ibdev;
	int err;

	xdev = ib_alloc_device(xiw_device, ibdev);
	if (!xdev)
		return ERR_PTR(-ENOMEM);
	atomic_inc(&xiw_devices_alive);	/* until xiw_dealloc_driver() */

	ibdev = &xdev->ibdev;
	INIT_LIST_HEAD(&xdev->list);
	xa_init_flags(&xdev->mrs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	get_random_bytes(&xdev->stag_perm, sizeof(xdev->stag_perm));
	xa_init_flags(&xdev->qps, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	spin_lock_init(&xdev->ceps_lock);
	INIT_LIST_HEAD(&xdev->ceps);
	init_waitqueue_head(&xdev->ceps_gone);
	spin_lock_init(&xdev->config_lock);	/* config: all default */
	xdev->verify_hashes = XIW_VERIFY_HASHES;
	xdev->debug = XIW_DEBUG_FAULTS;
	xdev->netdev = netdev;
	netdev_hold(netdev, &xdev->netdev_tracker, GFP_KERNEL);
	/* From here on, ib_dealloc_device() undoes it all. */
	ib_set_device_ops(ibdev, &xiw_device_ops);
	xdev->stats = xiw_stats_alloc();
	if (!xdev->stats) {
		ib_dealloc_device(ibdev);	/* calls xiw_dealloc_driver */
		return ERR_PTR(-ENOMEM);
	}

	/*
	 * User ABI version 1 posts and polls through these commands, which
	 * the RDMA core leaves off for drivers with rings of their own.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POLL_CQ) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_SRQ_RECV);
	ibdev->node_type = RDMA_NODE_RNIC;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->local_dma_lkey = 0;
	strscpy(ibdev->node_desc, "xiw software iWARP RNIC",
		sizeof(ibdev->node_desc));
	strscpy(ibdev->iw_ifname, netdev->name, sizeof(ibdev->iw_ifname));
	ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
	xiw_set_addr(xdev);

	err = ib_device_set_netdev(ibdev, netdev, XIW_PORT);
	if (err) {
		ib_dealloc_device(ibdev);	/* calls xiw_dealloc_driver */
		return ERR_PTR(err);
	}
	return xdev;
}

/*
 * With "rdma system set netns exclusive" each RDMA device belongs to one
 * network namespace, and the RDMA core of 6.1 and 6.12 registers every
 * device "rdma link add" makes in the initial one, whatever the caller's:
 * a container that made one on its own netdev could neither see nor use
 * it. xiw registers it in its netdev's namespace (the caller's: the core
 * looked the netdev up there). In shared mode (the default) every
 * namespace sees every device, and it stays in init_net.
 *
 * Return: NULL (init_net, or shared mode), the namespace with a reference
 * held for the registration (put it after), or ERR_PTR(-ENODEV) for a
 * namespace on its way out.
 */
static struct net *xiw_device_set_net(struct xiw_device *xdev)
{
	struct net *net;

	rcu_read_lock();
	net = dev_net(xdev->netdev);
	/* rdma_net is still init_net: access from elsewhere is shared mode. */
	if (net_eq(net, &init_net) ||
	    rdma_dev_access_netns(&xdev->ibdev, net)) {
		rcu_read_unlock();
		return NULL;
	}
	net = maybe_get_net(net);
	rcu_read_unlock();
	if (!net)
		return ERR_PTR(-ENODEV);
	/*
	 * Once registered, the device is the core's to move: back to
	 * init_net when the namespace goes (rdma_dev_exit_net()), or by
	 * "rdma dev set DEV netns NS" (xiw disassociates user contexts).
	 */
	write_pnet(&xdev->ibdev.coredev.rdma_net, net);
	return net;
}

/**
 * xiw_newlink() - create an xiw device on a netdev ("rdma link add")
 * @name: RDMA device name requested by the administrator
 * @netdev: the netdev, held by the caller for the duration of the call
 *
 * The RDMA core passes no extack here, so each refusal also says why in
 * the kernel log.
 *
 * Return: 0; -EINVAL for a malformed name; -EEXIST if the name is taken or
 * the netdev already has an xiw device; -EPROTONOSUPPORT for a netdev that
 * is neither Ethernet nor loopback; -ENODEV if the netdev went away
 * meanwhile; or an allocation/registration error.
 */
int xiw_newlink(const char *name, struct net_device *netdev)
{
	struct xiw_device *xdev;
	struct ib_device *other;
	struct net *net;
	bool gone;
	int err;

	if (!xiw_name_ok(name)) {
		pr_warn("xiw: device name \"%s\" is not 1-%d characters of [A-Za-z0-9_.-]\n",
			name, XIW_NAME_MAX);
		return -EINVAL;
	}
	if (netdev->type != ARPHRD_ETHER && netdev->type != ARPHRD_LOOPBACK) {
		pr_warn("xiw: %s: netdev %s is not Ethernet or loopback (link type %u)\n",
			name, netdev->name, netdev->type);
		return -EPROTONOSUPPORT;
	}

	other = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		ib_device_put(other);
		pr_warn("xiw: an RDMA device named %s already exists\n", name);
		return -EEXIST;
	}
	mutex_lock(&xiw_devices_lock);
	xdev = xiw_find_by_netdev(netdev);
	mutex_unlock(&xiw_devices_lock);
	if (xdev) {
		pr_warn("xiw: %s: netdev %s already has xiw device %s\n",
			name, netdev->name, dev_name(&xdev->ibdev.dev));
		return -EEXIST;
	}

	xdev = xiw_device_alloc(netdev);
	if (IS_ERR(xdev))
		return PTR_ERR(xdev);
	net = xiw_device_set_net(xdev);
	if (IS_ERR(net)) {
		ib_dealloc_device(&xdev->ibdev);
		return PTR_ERR(net);
	}

	err = ib_register_device(&xdev->ibdev, name, NULL);
	if (net)
		put_net(net);
	if (err) {
		pr_warn("xiw: %s: registration failed: %d\n", name, err);
		ib_dealloc_device(&xdev->ibdev);
		return err;
	}

	/*
	 * A NETDEV_UNREGISTER that ran before the device joined the list
	 * missed it; the netdev is already marked unregistering by then, so
	 * checking under the lock the notifier takes closes that window.
	 */
	mutex_lock(&xiw_devices_lock);
	gone = READ_ONCE(netdev->reg_state) != NETREG_REGISTERED;
	if (!gone) {
		list_add_tail(&xdev->list, &xiw_devices);
		/*
		 * Under the lock: once it is dropped, a deletion may free the
		 * device, and its DEV_DEL must follow this.
		 */
		ibdev_info(&xdev->ibdev, "created on netdev %s\n",
			   netdev->name);
		xiw_nl_event_dev(xdev, true);
	}
	mutex_unlock(&xiw_devices_lock);
	if (gone) {
		ib_unregister_device(&xdev->ibdev);
		return -ENODEV;
	}
	return 0;
}

static void xiw_port_event(struct xiw_device *xdev, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &xdev->ibdev,
		.element.port_num = XIW_PORT,
		.event = type,
	};

	ib_dispatch_event(&event);
}

/*
 * The netdev was taken down: end every connection of the device now, as
 * an RNIC losing its port would, rather than leave TCP retransmitting
 * into a dead interface for minutes. Each QP goes to error (flushing its
 * work requests) and its connection is aborted; QPs not connected yet are
 * left alone. Loss of carrier alone only changes the port state: TCP
 * rides out a flapping link.
 */
static void xiw_abort_connections(struct xiw_device *xdev)
{
	unsigned long qpn;
	struct xiw_qp *qp;
	void *entry;
	bool connected;

	xa_for_each(&xdev->qps, qpn, entry) {
		qp = xiw_qp_lookup(xdev, qpn);
		if (!qp)
			continue;
		spin_lock_irq(&qp->lock);
		connected = qp->cep;
		spin_unlock_irq(&qp->lock);
		if (connected)
			xiw_qp_to_error(qp);
		xiw_qp_put(qp);
	}
}

/**
 * xiw_netdev_event() - follow the netdevs xiw devices are bound to
 * @nb: the module's notifier block
 * @event: NETDEV_* event
 * @arg: notifier info carrying the netdev
 *
 * Runs under RTNL.
 *
 * Return: NOTIFY_OK.
 */
int xiw_netdev_event(struct notifier_block *nb, unsigned long event,
		     void *arg)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(arg);
	struct xiw_device *xdev;
	bool up;

	mutex_lock(&xiw_devices_lock);
	xdev = xiw_find_by_netdev(netdev);
	if (!xdev || !ib_device_try_get(&xdev->ibdev)) {
		mutex_unlock(&xiw_devices_lock);
		return NOTIFY_DONE;
	}

	switch (event) {
	case NETDEV_DOWN:
		xiw_abort_connections(xdev);
		fallthrough;
	case NETDEV_UP:
	case NETDEV_CHANGE:
		up = netif_running(netdev) && netif_carrier_ok(netdev);
		xiw_port_event(xdev, up ? IB_EVENT_PORT_ACTIVE :
					  IB_EVENT_PORT_ERR);
		break;
	case NETDEV_CHANGEADDR:
		xiw_set_addr(xdev);
		xiw_port_event(xdev, IB_EVENT_GID_CHANGE);
		break;
	case NETDEV_CHANGENAME:
		strscpy(xdev->ibdev.iw_ifname, netdev->name,
			sizeof(xdev->ibdev.iw_ifname));
		break;
	case NETDEV_UNREGISTER:
		ibdev_info(&xdev->ibdev, "netdev %s going away, removing\n",
			   netdev->name);
		ib_unregister_device_queued(&xdev->ibdev);
		break;
	}

	ib_device_put(&xdev->ibdev);
	mutex_unlock(&xiw_devices_lock);
	return NOTIFY_OK;
}

/**
 * xiw_device_list_lock() - keep the registered devices from being freed
 *
 * Held by the control plane (netlink.c) while it reads or sets a device:
 * a device stays on the list until its last unregistration step. A leaf
 * lock: nothing that may wait for a device's unregistration runs under it.
 */
void xiw_device_list_lock(void)
{
	mutex_lock(&xiw_devices_lock);
}

/**
 * xiw_device_list_unlock() - undo xiw_device_list_lock()
 */
void xiw_device_list_unlock(void)
{
	mutex_unlock(&xiw_devices_lock);
}

/**
 * xiw_device_find() - an xiw device by name or by RDMA device index
 * @name: its name, or NULL
 * @index: its index, or NULL; with @name too, both must match
 *
 * Caller holds xiw_device_list_lock().
 *
 * Return: the device, or NULL.
 */
struct xiw_device *xiw_device_find(const char *name, const u32 *index)
{
	struct xiw_device *xdev;

	lockdep_assert_held(&xiw_devices_lock);
	list_for_each_entry(xdev, &xiw_devices, list) {
		if (name && strcmp(dev_name(&xdev->ibdev.dev), name))
			continue;
		if (index && xdev->ibdev.index != *index)
			continue;
		return xdev;
	}
	return NULL;
}

/**
 * xiw_device_nth() - the device at position @n of the list, for dumps
 * @n: from 0
 *
 * Caller holds xiw_device_list_lock().
 *
 * Return: the device, or NULL past the end.
 */
struct xiw_device *xiw_device_nth(unsigned long n)
{
	struct xiw_device *xdev;

	lockdep_assert_held(&xiw_devices_lock);
	list_for_each_entry(xdev, &xiw_devices, list)
		if (!n--)
			return xdev;
	return NULL;
}

/**
 * xiw_device_config() - a device's connection settings, as one change
 *	left them
 * @xdev: the device
 * @cfg: filled with them
 */
void xiw_device_config(struct xiw_device *xdev, struct xiw_conn_config *cfg)
{
	spin_lock_bh(&xdev->config_lock);
	*cfg = xdev->config;
	spin_unlock_bh(&xdev->config_lock);
}

/**
 * xiw_device_conn_policy() - what a connection of a device begun now is
 *	set up with
 * @xdev: the device
 * @pol: filled from the device's settings and the module parameters
 */
void xiw_device_conn_policy(struct xiw_device *xdev,
			    struct xiw_conn_policy *pol)
{
	struct xiw_conn_config cfg;

	xiw_device_config(xdev, &cfg);
	xiw_policy_resolve(&cfg, pol);
}

/**
 * xiw_remove_all() - unregister every xiw device, waiting for each
 *
 * Called at module unload after "rdma link add" can no longer create
 * devices. Also fences unregistrations queued by netdev removal.
 */
void xiw_remove_all(void)
{
	struct xiw_device *xdev;

	for (;;) {
		mutex_lock(&xiw_devices_lock);
		xdev = list_first_entry_or_null(&xiw_devices,
						struct xiw_device, list);
		if (xdev) {
			/* Removed here so that it is visited once. */
			list_del_init(&xdev->list);
			get_device(&xdev->ibdev.dev);
		}
		mutex_unlock(&xiw_devices_lock);
		if (!xdev)
			break;

		/* Off the list, xiw_dealloc_driver() will not announce it. */
		xiw_nl_event_dev(xdev, false);
		/* Waits for a queued unregistration already under way. */
		ib_unregister_device(&xdev->ibdev);
		put_device(&xdev->ibdev.dev);
	}
	/* And for those already off the list, still being unregistered. */
	wait_var_event(&xiw_devices_alive, !atomic_read(&xiw_devices_alive));
}
