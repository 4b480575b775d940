/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * The xiw generic netlink family: what an xiw device can do and how it is
 * configured, for xiwctl and libxiw (Documentation/netlink.md).
 *
 * Devices are named by XIW_ATTR_DEV_NAME or XIW_ATTR_DEV_INDEX (the RDMA
 * device index, as "rdma dev" shows it); a request naming none of them is
 * refused, one naming both must name the same device. Every write command
 * needs CAP_NET_ADMIN; a refused request changes nothing and says why in
 * its extended ack.
 */
#ifndef _UAPI_XIW_NETLINK_H
#define _UAPI_XIW_NETLINK_H

#define XIW_GENL_NAME		"xiw"
#define XIW_GENL_VERSION	1

/**
 * enum xiw_cmd - commands of the family
 * @XIW_CMD_UNSPEC: none
 * @XIW_CMD_DEV_GET: one device (doit) or every device (dump): its names,
 *	XIW_ATTR_CAPS and XIW_ATTR_POLICY
 * @XIW_CMD_DEV_SET: change the device's XIW_ATTR_POLICY (any subset of
 *	its attributes); the reply is XIW_CMD_DEV_GET's
 * @XIW_CMD_MR_GET: one MR of a device by XIW_ATTR_MR_STAG: its
 *	persistence override
 * @XIW_CMD_MR_SET: set an MR's override (XIW_ATTR_MR_PERSIST); the reply
 *	is XIW_CMD_MR_GET's
 * @__XIW_CMD_MAX: count
 * @XIW_CMD_MAX: the last command
 */
enum xiw_cmd {
	XIW_CMD_UNSPEC,
	XIW_CMD_DEV_GET,
	XIW_CMD_DEV_SET,
	XIW_CMD_MR_GET,
	XIW_CMD_MR_SET,
	__XIW_CMD_MAX,
	XIW_CMD_MAX = __XIW_CMD_MAX - 1
};

/**
 * enum xiw_attr - top-level attributes
 * @XIW_ATTR_UNSPEC: none
 * @XIW_ATTR_PAD: 64-bit alignment padding
 * @XIW_ATTR_DEV_INDEX: u32, the RDMA device index
 * @XIW_ATTR_DEV_NAME: string, the RDMA device name
 * @XIW_ATTR_NETDEV_NAME: string, the netdev the device is bound to (reply)
 * @XIW_ATTR_NETDEV_INDEX: u32, its ifindex in its namespace (reply)
 * @XIW_ATTR_CAPS: nest of enum xiw_caps_attr (reply)
 * @XIW_ATTR_POLICY: nest of enum xiw_policy_attr
 * @XIW_ATTR_MR_STAG: u32, an STag of the device, as the MR's key names it
 *	now (a fast-registration MR's key changes with each registration)
 * @XIW_ATTR_MR_PERSIST: u8, enum xiw_persist: the MR's own persistence
 *	domain, XIW_PERSIST_AUTO for none (the device's applies)
 * @__XIW_ATTR_MAX: count
 * @XIW_ATTR_MAX: the last attribute
 */
enum xiw_attr {
	XIW_ATTR_UNSPEC,
	XIW_ATTR_PAD,
	XIW_ATTR_DEV_INDEX,
	XIW_ATTR_DEV_NAME,
	XIW_ATTR_NETDEV_NAME,
	XIW_ATTR_NETDEV_INDEX,
	XIW_ATTR_CAPS,
	XIW_ATTR_POLICY,
	XIW_ATTR_MR_STAG,
	XIW_ATTR_MR_PERSIST,
	__XIW_ATTR_MAX,
	XIW_ATTR_MAX = __XIW_ATTR_MAX - 1
};

/**
 * enum xiw_caps_attr - what a device can do (XIW_ATTR_CAPS)
 * @XIW_CAPS_UNSPEC: none
 * @XIW_CAPS_PAD: 64-bit alignment padding
 * @XIW_CAPS_MPA_REVS: u32, bit N set: MPA revision N is spoken
 * @XIW_CAPS_OPS: u64, XIW_CAP_OP_* the device serves and issues
 * @XIW_CAPS_PERSIST: u32, bit N set: persistence domain N (enum
 *	xiw_persist) can be given
 * @XIW_CAPS_HASHES: u32, bit N set: Verify hash N (enum xiw_verify_alg
 *	of include/xiw/verbs.h) is available
 * @XIW_CAPS_MAX_ORD: u32, outbound RDMA Read/atomic requests per QP
 * @XIW_CAPS_MAX_IRD: u32, inbound ones
 * @XIW_CAPS_MAX_MSG: u32, longest message, octets
 * @XIW_CAPS_MAX_QP: u32, QPs
 * @XIW_CAPS_MAX_MR: u32, MRs
 * @__XIW_CAPS_MAX: count
 * @XIW_CAPS_MAX: the last attribute
 */
enum xiw_caps_attr {
	XIW_CAPS_UNSPEC,
	XIW_CAPS_PAD,
	XIW_CAPS_MPA_REVS,
	XIW_CAPS_OPS,
	XIW_CAPS_PERSIST,
	XIW_CAPS_HASHES,
	XIW_CAPS_MAX_ORD,
	XIW_CAPS_MAX_IRD,
	XIW_CAPS_MAX_MSG,
	XIW_CAPS_MAX_QP,
	XIW_CAPS_MAX_MR,
	__XIW_CAPS_MAX,
	XIW_CAPS_MAX = __XIW_CAPS_MAX - 1
};

/* XIW_CAPS_OPS bits: the RDMAP operations beyond RFC 5040's. */
#define XIW_CAP_OP_ATOMICS	0x1ULL	/* RFC 7306 atomic operations */
#define XIW_CAP_OP_IMMEDIATE	0x2ULL	/* RFC 7306 Immediate Data */
#define XIW_CAP_OP_FLUSH	0x4ULL	/* commit draft: RDMA Flush */
#define XIW_CAP_OP_ATOMIC_WRITE	0x8ULL	/* commit draft: Atomic Write */
#define XIW_CAP_OP_VERIFY	0x10ULL	/* commit draft: RDMA Verify */

/**
 * enum xiw_persist - what a Flush to persistence does with memory
 *	(Documentation/commit-draft.md, "Persistence domains")
 * @XIW_PERSIST_AUTO: found page by page from what backs the memory;
 *	as a device's domain the default, as an MR's "none: the device's"
 * @XIW_PERSIST_DRAM: plain memory: refused unless DRAM is declared
 *	persistent
 * @XIW_PERSIST_PMEM: persistent once out of the CPU caches: its lines are
 *	written back and fenced
 * @XIW_PERSIST_FILE: page cache of a disk file: written back; memory that
 *	is no such page is refused
 * @__XIW_PERSIST_MAX: count
 * @XIW_PERSIST_MAX: the last value
 */
enum xiw_persist {
	XIW_PERSIST_AUTO,
	XIW_PERSIST_DRAM,
	XIW_PERSIST_PMEM,
	XIW_PERSIST_FILE,
	__XIW_PERSIST_MAX,
	XIW_PERSIST_MAX = __XIW_PERSIST_MAX - 1
};

/**
 * enum xiw_dram_persistent - whether a device takes DRAM as persistent
 * @XIW_DRAM_PERSISTENT_DEFAULT: as the module parameter dram_persistent
 *	says, read at each Flush
 * @XIW_DRAM_PERSISTENT_OFF: no, whatever the parameter says
 * @XIW_DRAM_PERSISTENT_ON: yes (battery-backed systems)
 * @__XIW_DRAM_PERSISTENT_MAX: count
 * @XIW_DRAM_PERSISTENT_MAX: the last value
 */
enum xiw_dram_persistent {
	XIW_DRAM_PERSISTENT_DEFAULT,
	XIW_DRAM_PERSISTENT_OFF,
	XIW_DRAM_PERSISTENT_ON,
	__XIW_DRAM_PERSISTENT_MAX,
	XIW_DRAM_PERSISTENT_MAX = __XIW_DRAM_PERSISTENT_MAX - 1
};

/**
 * enum xiw_policy_attr - a device's persistence policy (XIW_ATTR_POLICY)
 * @XIW_POLICY_UNSPEC: none
 * @XIW_POLICY_PERSIST: u8, enum xiw_persist: the domain of the device's
 *	MRs that have none of their own
 * @XIW_POLICY_DRAM_PERSISTENT: u8, enum xiw_dram_persistent
 * @XIW_POLICY_DRAM_PERSISTENT_NOW: u8, 0 or 1: whether DRAM counts as
 *	persistent now, the module parameter applied (reply only)
 * @__XIW_POLICY_MAX: count
 * @XIW_POLICY_MAX: the last attribute
 */
enum xiw_policy_attr {
	XIW_POLICY_UNSPEC,
	XIW_POLICY_PERSIST,
	XIW_POLICY_DRAM_PERSISTENT,
	XIW_POLICY_DRAM_PERSISTENT_NOW,
	__XIW_POLICY_MAX,
	XIW_POLICY_MAX = __XIW_POLICY_MAX - 1
};

#endif /* _UAPI_XIW_NETLINK_H */
