// SPDX-License-Identifier: GPL-2.0
/*
 * Connection manager: the listening side.
 *
 * Listening sockets are shared by all xiw devices of one namespace that
 * listen on the same address and port (a wildcard rdma_cm listen asks
 * every device), and each accepted connection goes to the device that
 * owns its local address, as a passive endpoint (cep.h) that reads the
 * MPA Request.
 */
#include <linux/inetdevice.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>

#include "cep.h"
#include "cm.h"
#include "device.h"

/**
 * struct xiw_listener - a listening socket shared within a namespace
 * @node: on xiw_listeners
 * @net: the namespace
 * @addr: bound address and port
 * @sock: the socket
 * @ids: struct xiw_listen_id of every iw_cm listen using it
 * @work: accepts connections
 * @saved_data_ready: the socket's callback before xiw took over
 */
struct xiw_listener {
	struct list_head node;
	struct net *net;
	struct sockaddr_storage addr;
	struct socket *sock;
	struct list_head ids;
	struct work_struct work;
	void (*saved_data_ready)(struct sock *sk);
};

/**
 * struct xiw_listen_id - one iw_cm listen on a shared listener
 * @node: on the listener's ids
 * @cm_id: the listening iw_cm id (referenced)
 * @lis: the listener, NULL for a listen made from another namespace than
 *	 the device's (see xiw_create_listen()): it gets no connection
 */
struct xiw_listen_id {
	struct list_head node;
	struct iw_cm_id *cm_id;
	struct xiw_listener *lis;
};

/* Listeners and their ids; taken in process context only. */
static LIST_HEAD(xiw_listeners);
static DEFINE_MUTEX(xiw_listen_lock);

static struct xiw_listen_id *xiw_pick_listener(struct xiw_listener *lis,
					       struct socket *sock)
{
	struct sockaddr_storage local;
	struct xiw_listen_id *lid;
	struct net_device *owner = NULL;

	if (kernel_getsockname(sock, (struct sockaddr *)&local) < 0)
		return NULL;
	rcu_read_lock();
	if (local.ss_family == AF_INET)
		owner = __ip_dev_find(lis->net,
				      ((struct sockaddr_in *)&local)->sin_addr.s_addr,
				      false);
	rcu_read_unlock();	/* @owner is only compared, never used */

	list_for_each_entry(lid, &lis->ids, node) {
		if (owner && to_xiw_dev(lid->cm_id->device)->netdev == owner)
			return lid;
	}
	/*
	 * Loopback traffic to an address of another netdev arrives on lo:
	 * with a single candidate there is nothing to choose.
	 */
	return list_is_singular(&lis->ids) ?
	       list_first_entry(&lis->ids, struct xiw_listen_id, node) : NULL;
}

static void xiw_listener_work(struct work_struct *w)
{
	struct xiw_listener *lis = container_of(w, struct xiw_listener, work);
	struct xiw_listen_id *lid;
	struct socket *sock;
	struct xiw_cep *cep;

	mutex_lock(&xiw_listen_lock);
	while (lis->sock && kernel_accept(lis->sock, &sock, O_NONBLOCK) == 0) {
		lid = xiw_pick_listener(lis, sock);
		cep = lid ? xiw_cep_alloc(to_xiw_dev(lid->cm_id->device), false) :
			    NULL;
		if (!cep) {
			sock_release(sock);
			continue;
		}
		/*
		 * The accepted socket is a clone of the listener's: it has
		 * the listener's data_ready (its user data was not copied).
		 * Give it the stack's own back before taking it over.
		 */
		write_lock_bh(&sock->sk->sk_callback_lock);
		sock->sk->sk_data_ready = lis->saved_data_ready;
		write_unlock_bh(&sock->sk->sk_callback_lock);
		xiw_cep_sock_setup(sock);
		cep->sock = sock;
		WRITE_ONCE(cep->listen_id, lid->cm_id);
		lid->cm_id->add_ref(lid->cm_id);
		xiw_cep_set_state(cep, XIW_CEP_AWAIT_REQUEST);
		mutex_lock(&cep->lock);
		xiw_cep_attach(cep);
		xiw_cep_arm(cep);
		mutex_unlock(&cep->lock);
		xiw_cep_event(cep, XIW_CEP_EV_DATA);
		xiw_cep_put(cep);	/* creator's: the socket holds one */
	}
	mutex_unlock(&xiw_listen_lock);
}

static void xiw_listen_data_ready(struct sock *sk)
{
	struct xiw_listener *lis;

	read_lock_bh(&sk->sk_callback_lock);
	lis = __locked_read_sk_user_data_with_flags(sk, 0);
	if (lis)
		queue_work(xiw_cm_wq, &lis->work);
	read_unlock_bh(&sk->sk_callback_lock);
}

static bool xiw_same_addr(const struct sockaddr_storage *a,
			  const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       ipv6_addr_equal(&x->sin6_addr, &y->sin6_addr);
	}
	return false;
}

static struct xiw_listener *xiw_listener_new(struct net *net,
					     struct sockaddr_storage *addr,
					     int backlog)
{
	struct xiw_listener *lis;
	struct socket *sock;
	int err;

	lis = kzalloc(sizeof(*lis), GFP_KERNEL);
	if (!lis)
		return ERR_PTR(-ENOMEM);
	err = sock_create_kern(net, addr->ss_family, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (err)
		goto fail;
	sock_set_reuseaddr(sock->sk);
	/*
	 * rdma_cm listens on IPv4 and IPv6 separately (svcrdma opens both on
	 * one port): an IPv6 listener must not also take IPv4 connections,
	 * or the two collide.
	 */
	err = addr->ss_family == AF_INET6 ? ip6_sock_set_v6only(sock->sk) : 0;
	if (err) {
		sock_release(sock);
		goto fail;
	}
	err = kernel_bind(sock, (struct sockaddr *)addr,
			  addr->ss_family == AF_INET ?
			  sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	if (!err)
		err = kernel_listen(sock, backlog);
	if (err) {
		sock_release(sock);
		goto fail;
	}
	lis->net = net;
	lis->addr = *addr;
	lis->sock = sock;
	INIT_LIST_HEAD(&lis->ids);
	INIT_WORK(&lis->work, xiw_listener_work);
	write_lock_bh(&sock->sk->sk_callback_lock);
	lis->saved_data_ready = sock->sk->sk_data_ready;
	/* NOCOPY: accepted sockets are cloned without it (see accept). */
	__rcu_assign_sk_user_data_with_flags(sock->sk, lis,
					     SK_USER_DATA_NOCOPY);
	sock->sk->sk_data_ready = xiw_listen_data_ready;
	write_unlock_bh(&sock->sk->sk_callback_lock);
	list_add(&lis->node, &xiw_listeners);
	return lis;
fail:
	kfree(lis);
	return ERR_PTR(err);
}

/*
 * The namespace a listen was made in. iw_cm passes none: its one user,
 * rdma_cm, makes each iw_cm id with its own id as the context (struct
 * rdma_id_private begins with the struct rdma_cm_id), whose address
 * carries it, as rdma_cm matches IB and RoCE requests to listens by it.
 * The maker's task is no stand-in: ib_isert listens in the initial
 * namespace from whatever namespace configfs was written in. An id that
 * does not look like rdma_cm's (another device) gets the task's.
 */
static struct net *xiw_listen_net(struct iw_cm_id *id)
{
	const struct rdma_cm_id *rid = id->context;

	if (rid && rid->device == id->device && rid->route.addr.dev_addr.net)
		return rid->route.addr.dev_addr.net;
	return current->nsproxy ? current->nsproxy->net_ns : &init_net;
}

/**
 * xiw_create_listen() - listen for MPA connections on the id's address
 * @id: the listening iw_cm id
 * @backlog: TCP backlog
 *
 * A listen made from another network namespace than the device's netdev
 * is in opens nothing and gets no connection.
 *
 * Return: 0 or a socket error (e.g. -EADDRINUSE from a non-xiw listener).
 */
int xiw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct xiw_device *xdev = to_xiw_dev(id->device);
	struct net *net = dev_net(xdev->netdev);
	struct xiw_listener *lis = NULL, *l;
	struct xiw_listen_id *lid;

	lid = kzalloc(sizeof(*lid), GFP_KERNEL);
	if (!lid)
		return -ENOMEM;
	lid->cm_id = id;
	id->provider_data = lid;
	id->add_ref(id);
	/*
	 * A listen serves the namespace of its rdma_cm id, and a device the
	 * namespace of its netdev. rdma_cm turns a wildcard listen into a
	 * listen on every device, whatever its namespace. A listen from
	 * elsewhere succeeds, opens no socket and gets no connection: it
	 * must neither take the device's namespace's connections nor open
	 * a port there (Documentation/admin.md, "Namespaces").
	 */
	if (!net_eq(xiw_listen_net(id), net))
		return 0;

	mutex_lock(&xiw_listen_lock);
	list_for_each_entry(l, &xiw_listeners, node)
		if (net_eq(l->net, net) && xiw_same_addr(&l->addr, &id->local_addr))
			lis = l;
	if (!lis) {
		lis = xiw_listener_new(net, &id->local_addr, backlog);
		if (IS_ERR(lis)) {
			mutex_unlock(&xiw_listen_lock);
			id->provider_data = NULL;
			id->rem_ref(id);
			kfree(lid);
			return PTR_ERR(lis);
		}
	}
	lid->lis = lis;
	list_add_tail(&lid->node, &lis->ids);
	mutex_unlock(&xiw_listen_lock);
	return 0;
}

/*
 * Close the connections accepted for @id whose MPA Request has not arrived:
 * nobody would take their CONNECT_REQUEST, and each holds a reference on
 * @id. The listener accepts no new ones for @id, which is off its list.
 */
static void xiw_abort_unrequested(struct iw_cm_id *id)
{
	struct xiw_device *xdev = to_xiw_dev(id->device);
	struct xiw_cep *cep, *found;

	do {
		found = NULL;
		spin_lock_bh(&xdev->ceps_lock);
		list_for_each_entry(cep, &xdev->ceps, node) {
			/* A hint only: checked again under cep->lock. */
			if (READ_ONCE(cep->listen_id) == id &&
			    kref_get_unless_zero(&cep->ref)) {
				found = cep;
				break;
			}
		}
		spin_unlock_bh(&xdev->ceps_lock);
		if (!found)
			break;
		mutex_lock(&found->lock);
		if (found->listen_id == id) {
			xiw_cep_finish(found, -ECONNABORTED, true);
			xiw_cep_drop_id(found);
		}
		mutex_unlock(&found->lock);
		xiw_cep_put(found);
	} while (found);
}

/**
 * xiw_destroy_listen() - stop listening; the socket closes with its last id
 * @id: the listening iw_cm id
 *
 * Connections accepted for @id that are still reading their MPA Request
 * are closed abortively.
 *
 * Return: 0.
 */
int xiw_destroy_listen(struct iw_cm_id *id)
{
	struct xiw_listen_id *lid = id->provider_data;
	struct xiw_listener *lis;
	struct socket *sock = NULL;

	if (!lid)
		return 0;
	lis = lid->lis;
	if (!lis)
		goto out;	/* from another namespace: nothing opened */
	mutex_lock(&xiw_listen_lock);
	list_del(&lid->node);
	if (list_empty(&lis->ids)) {
		list_del(&lis->node);
		sock = lis->sock;
		write_lock_bh(&sock->sk->sk_callback_lock);
		rcu_assign_sk_user_data(sock->sk, NULL);
		sock->sk->sk_data_ready = lis->saved_data_ready;
		write_unlock_bh(&sock->sk->sk_callback_lock);
		lis->sock = NULL;
	}
	mutex_unlock(&xiw_listen_lock);

	xiw_abort_unrequested(id);
	if (sock) {
		/* Connections not accepted yet go with the socket. */
		sock_release(sock);
		cancel_work_sync(&lis->work);
		kfree(lis);
	}
out:
	id->provider_data = NULL;
	id->rem_ref(id);
	kfree(lid);
	return 0;
}
