/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An xiw device: one RDMA device bound to one netdev.
 */
#ifndef XIW_DEVICE_H
#define XIW_DEVICE_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/if_ether.h>
#include <linux/list.h>
#include <linux/xarray.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>
#include <xiw/verbs.h>

#include "policy.h"
#include "stag.h"
#include "stats.h"

/*
 * A software RNIC has no IEEE OUI. Zero is not an answer either (rdma-core's
 * own tests, test_device, refuse a device whose vendor_id is 0): like siw
 * ("bmt"), xiw reports its name in ASCII, an OUI unassigned in ieee-data's
 * oui.txt of 2026.
 */
#define XIW_VENDOR_ID		0x786977	/* "xiw" */
#define XIW_VENDOR_PART_ID	0x7869		/* "xi" */
#define XIW_FW_VERSION		XIW_VERSION	/* VERSION, via Kbuild */
#define XIW_PORT		1

/*
 * Limits reported by query_device, each the one xiw enforces: objects of
 * a kind per device (XIW_MAX_QP, _CQ, _PD, _MR, _SRQ: struct xiw_device's
 * counters, kernel consumers' and processes' objects together), entries
 * per queue, pages per fast registration. Message sizes are what the
 * wire allows.
 */
#define XIW_MAX_QP		(16 * 1024)
#define XIW_MAX_QP_WR		(16 * 1024)
#define XIW_MAX_SGE		6
#define XIW_MAX_SGE_RD		1
#define XIW_MAX_CQ		(16 * 1024)
#define XIW_MAX_CQE		(64 * 1024)
#define XIW_MAX_PD		(64 * 1024)
#define XIW_MAX_MR		(64 * 1024)
#define XIW_MAX_MR_SIZE		U32_MAX	/* 32-bit RDMAP message length */
#define XIW_MAX_ORD		128
#define XIW_MAX_IRD		128
#define XIW_MAX_SRQ		(16 * 1024)
#define XIW_MAX_SRQ_WR		(16 * 1024)
#define XIW_MAX_FR_PAGES	4096
#define XIW_MAX_MSG_SIZE	0x80000000U
#define XIW_MAX_INLINE		256

/**
 * struct xiw_device - one xiw RDMA device
 * @ibdev: the RDMA core's view; must stay the first member
 * @netdev: the netdev this device speaks through, held for its lifetime
 * @netdev_tracker: tracks the reference on @netdev
 * @list: entry in the module's device list, protected by xiw_devices_lock
 * @addr: the port's address (GID): the netdev's MAC, or a locally
 *	  administered stand-in for netdevs without one (loopback)
 * @mrs: STag table: slot to struct xiw_mr; lookups under RCU
 * @mr_next: allocation cursor for @mrs
 * @stag_perm: maps slots of @mrs to the STag indices peers see
 * @qps: QP number to struct xiw_qp
 * @qp_next: allocation cursor for @qps
 * @ceps_lock: protects @ceps
 * @ceps: every connection endpoint of the device, until freed: the
 *	  device's removal ends them and waits for them
 * @ceps_gone: woken when an endpoint leaves @ceps
 * @stats: the device's counters (stats.h)
 * @terms: its Terminates by code (stats.h)
 * @persist: enum xiw_persist: the persistence domain of its MRs that have
 *	none of their own (persist.c); set through netlink, read without a
 *	lock (each of the policy's fields on its own)
 * @dram_persistent: enum xiw_dram_persistent; likewise
 * @config_lock: protects @config, so that a connection takes all of it
 *	as one change left it
 * @config: the device's connection settings (policy.h), taken by each
 *	connection when it begins; set through netlink
 * @verify_hashes: bit N: Verify is served for MRs hashed with enum
 *	xiw_verify_alg N; set through netlink, read without a lock
 * @debug: enum xiw_debug: what xiw_log() reports; likewise
 * @num_pd: PDs of the device, at most XIW_MAX_PD (xiw_count_get()):
 *	atomic, no lock
 * @num_cq: CQs, at most XIW_MAX_CQ; likewise
 * @num_qp: QPs, at most XIW_MAX_QP; likewise
 * @num_srq: SRQs, at most XIW_MAX_SRQ; likewise
 * @num_mr: MRs of every kind (a kernel PD's DMA MR among them), at most
 *	XIW_MAX_MR; likewise
 */
struct xiw_device {
	struct ib_device ibdev;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	struct list_head list;
	u8 addr[ETH_ALEN];
	struct xarray mrs;
	u32 mr_next;
	struct xiw_stag_perm stag_perm;
	struct xarray qps;
	u32 qp_next;
	spinlock_t ceps_lock;	/* ceps */
	struct list_head ceps;
	wait_queue_head_t ceps_gone;
	struct xiw_stats __percpu *stats;
	struct xiw_term_counts terms;
	u8 persist;
	u8 dram_persistent;
	spinlock_t config_lock;	/* config */
	struct xiw_conn_config config;
	u32 verify_hashes;
	u8 debug;
	atomic_t num_pd;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_srq;
	atomic_t num_mr;
};

/**
 * xiw_count_get() - count an object a create verb is making against its
 *	device's limit for the kind
 * @count: the device's counter of the kind (struct xiw_device's num_*)
 * @max: the kind's limit, the XIW_MAX_* xiw_query_device() reports
 *
 * Every create verb counts its object before it allocates anything, and
 * its destroy verb, or its own failure, uncounts it (xiw_count_put()).
 * Processes and kernel ULPs share the count; how many objects a process
 * may make is the rdma cgroup's to say (rdma.max, hca_object).
 *
 * Return: true if counted; false, the counter unchanged, when the device
 * holds @max of the kind already: the verb then fails with -ENOMEM, as
 * siw's and rxe's do.
 */
static inline bool xiw_count_get(atomic_t *count, int max)
{
	return atomic_add_unless(count, 1, max);
}

/**
 * xiw_count_put() - uncount an object destroyed, or never made
 * @count: the counter xiw_count_get() counted it on
 */
static inline void xiw_count_put(atomic_t *count)
{
	WARN_ON_ONCE(atomic_dec_return(count) < 0);
}

/* The Verify hashes xiw has (enum xiw_verify_alg bits). */
#define XIW_VERIFY_HASHES	(BIT(XIW_VERIFY_CRC32C) | BIT(XIW_VERIFY_SHA256))

/**
 * xiw_log() - log a rate-limited line about a device's connections, if
 *	its debug setting asks for @level
 * @xdev: the device
 * @level: enum xiw_debug: XIW_DEBUG_FAULTS or XIW_DEBUG_CONNECTIONS
 * @fmt: printk format, after "xiw: DEVICE: "
 */
#define xiw_log(xdev, level, fmt, ...)					\
	do {								\
		const struct xiw_device *__xd = (xdev);			\
									\
		if (READ_ONCE(__xd->debug) >= (level))			\
			pr_info_ratelimited("xiw: %s: " fmt,		\
					    dev_name(&__xd->ibdev.dev),	\
					    ##__VA_ARGS__);		\
	} while (0)

static inline struct xiw_device *to_xiw_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct xiw_device, ibdev);
}

int xiw_newlink(const char *name, struct net_device *netdev);
int xiw_netdev_event(struct notifier_block *nb, unsigned long event,
		     void *arg);
void xiw_remove_all(void);
void xiw_device_list_lock(void);
void xiw_device_list_unlock(void);
struct xiw_device *xiw_device_find(const char *name, const u32 *index);
struct xiw_device *xiw_device_nth(unsigned long n);
void xiw_device_config(struct xiw_device *xdev, struct xiw_conn_config *cfg);
void xiw_device_conn_policy(struct xiw_device *xdev,
			    struct xiw_conn_policy *pol);

#endif /* XIW_DEVICE_H */
