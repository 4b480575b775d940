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

/*
 * The multicast group of events: XIW_CMD_DEV_NEW, XIW_CMD_DEV_DEL and
 * XIW_CMD_QP_ERROR messages, each to the listeners of every network
 * namespace that may see the device.
 */
#define XIW_GENL_MCGRP_EVENTS	"events"

/**
 * enum xiw_cmd - commands of the family
 * @XIW_CMD_UNSPEC: none
 * @XIW_CMD_DEV_GET: one device (doit) or every device (dump): its names,
 *	XIW_ATTR_CAPS, XIW_ATTR_POLICY, XIW_ATTR_CONFIG and
 *	XIW_ATTR_CONFIG_NOW
 * @XIW_CMD_DEV_SET: change the device's XIW_ATTR_POLICY, XIW_ATTR_CONFIG
 *	or both (any subset of their attributes); the reply is
 *	XIW_CMD_DEV_GET's
 * @XIW_CMD_MR_GET: one MR of a device by XIW_ATTR_MR_STAG: its
 *	persistence override
 * @XIW_CMD_MR_SET: set an MR's override (XIW_ATTR_MR_PERSIST); the reply
 *	is XIW_CMD_MR_GET's
 * @XIW_CMD_STATS_GET: one device's counters (doit) or every device's
 *	(dump): its names and XIW_ATTR_STATS
 * @XIW_CMD_DEV_NEW: event: a device was created; as XIW_CMD_DEV_GET's
 *	reply, its names and netdev only
 * @XIW_CMD_DEV_DEL: event: a device is gone; its names
 * @XIW_CMD_QP_ERROR: event: a connection of the device ended with a
 *	Terminate, sent or received: its names, XIW_ATTR_QP_NUM and
 *	XIW_ATTR_TERMINATE
 * @__XIW_CMD_MAX: count
 * @XIW_CMD_MAX: the last command
 */
enum xiw_cmd {
	XIW_CMD_UNSPEC,
	XIW_CMD_DEV_GET,
	XIW_CMD_DEV_SET,
	XIW_CMD_MR_GET,
	XIW_CMD_MR_SET,
	XIW_CMD_STATS_GET,
	XIW_CMD_DEV_NEW,
	XIW_CMD_DEV_DEL,
	XIW_CMD_QP_ERROR,
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
 * @XIW_ATTR_CONFIG: nest of enum xiw_config_attr: the device's settings,
 *	some of which may say "as the module parameter"
 * @XIW_ATTR_CONFIG_NOW: nest of enum xiw_config_attr, reply only: what
 *	the settings amount to now, the module parameters applied (no value
 *	says "default"); what a connection set up now would use
 * @XIW_ATTR_STATS: nest of XIW_ATTR_COUNTER, reply only: every counter
 *	of the device, as "rdma statistic" names them
 * @XIW_ATTR_COUNTER: nest of enum xiw_counter_attr: one counter
 * @XIW_ATTR_QP_NUM: u32, a QP number (event)
 * @XIW_ATTR_TERMINATE: nest of enum xiw_terminate_attr (event; in
 *	XIW_ATTR_TERMINATES, one count)
 * @XIW_ATTR_TERMINATES: nest of XIW_ATTR_TERMINATE, reply of
 *	XIW_CMD_STATS_GET: the Terminates that ended the device's
 *	connections, counted by direction, layer, type and code (those
 *	counted at least once)
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
	XIW_ATTR_CONFIG,
	XIW_ATTR_CONFIG_NOW,
	XIW_ATTR_STATS,
	XIW_ATTR_COUNTER,
	XIW_ATTR_QP_NUM,
	XIW_ATTR_TERMINATE,
	XIW_ATTR_TERMINATES,
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

/**
 * enum xiw_crc - when a device asks for MPA CRC32c (RFC 5044's C bit); CRC
 *	is used when either side asks
 * @XIW_CRC_DEFAULT: as the module parameter crc_policy says
 * @XIW_CRC_OFF: never; CRC only when the peer asks
 * @XIW_CRC_PREFERRED: when connecting; a responder follows the initiator
 * @XIW_CRC_REQUIRED: when connecting and when accepting
 * @__XIW_CRC_MAX: count
 * @XIW_CRC_MAX: the last value
 */
enum xiw_crc {
	XIW_CRC_DEFAULT,
	XIW_CRC_OFF,
	XIW_CRC_PREFERRED,
	XIW_CRC_REQUIRED,
	__XIW_CRC_MAX,
	XIW_CRC_MAX = __XIW_CRC_MAX - 1
};

/**
 * enum xiw_switch - a setting that is on, off, or the module parameter's
 * @XIW_SWITCH_DEFAULT: as the module parameter of that name says
 * @XIW_SWITCH_OFF: off
 * @XIW_SWITCH_ON: on
 * @__XIW_SWITCH_MAX: count
 * @XIW_SWITCH_MAX: the last value
 */
enum xiw_switch {
	XIW_SWITCH_DEFAULT,
	XIW_SWITCH_OFF,
	XIW_SWITCH_ON,
	__XIW_SWITCH_MAX,
	XIW_SWITCH_MAX = __XIW_SWITCH_MAX - 1
};

/**
 * enum xiw_rtr_kind - an RFC 6581 Ready-to-Receive message kind, one per
 *	octet of XIW_CONFIG_RTR
 * @XIW_RTR_KIND_NONE: ends the list
 * @XIW_RTR_KIND_SEND: a zero-length Send
 * @XIW_RTR_KIND_WRITE: a zero-length RDMA Write
 * @XIW_RTR_KIND_READ: a zero-length RDMA Read
 * @XIW_RTR_KIND_MAX: the last value
 */
enum xiw_rtr_kind {
	XIW_RTR_KIND_NONE,
	XIW_RTR_KIND_SEND,
	XIW_RTR_KIND_WRITE,
	XIW_RTR_KIND_READ,
	XIW_RTR_KIND_MAX = XIW_RTR_KIND_READ
};

/**
 * enum xiw_debug - what a device logs (rate-limited) about its connections
 * @XIW_DEBUG_QUIET: nothing
 * @XIW_DEBUG_FAULTS: faults: bad MPA frames, timeouts, Terminates sent
 *	and received (the default)
 * @XIW_DEBUG_CONNECTIONS: faults, and each connection set up and ended
 * @__XIW_DEBUG_MAX: count
 * @XIW_DEBUG_MAX: the last value
 */
enum xiw_debug {
	XIW_DEBUG_QUIET,
	XIW_DEBUG_FAULTS,
	XIW_DEBUG_CONNECTIONS,
	__XIW_DEBUG_MAX,
	XIW_DEBUG_MAX = __XIW_DEBUG_MAX - 1
};

/**
 * enum xiw_config_attr - a device's settings (XIW_ATTR_CONFIG) and what
 *	they amount to (XIW_ATTR_CONFIG_NOW). The connection settings apply
 *	to connections set up after the change; those already set up keep
 *	what they negotiated.
 * @XIW_CONFIG_UNSPEC: none
 * @XIW_CONFIG_CRC: u8, enum xiw_crc
 * @XIW_CONFIG_MARKERS: u8, enum xiw_switch: whether to ask peers to send
 *	MPA markers (a peer's request for them is always honoured)
 * @XIW_CONFIG_MPA_REV: u8, the MPA revision offered when connecting: 1 or
 *	2, or 0 for the module parameter mpa_rev's
 * @XIW_CONFIG_P2P: u8, enum xiw_switch: whether to connect in RFC 6581's
 *	peer-to-peer model; needs MPA revision 2 (off in effect with 1)
 * @XIW_CONFIG_RTR: u32, the RTR kinds supported in the peer-to-peer
 *	model, most preferred first: an enum xiw_rtr_kind per octet from the
 *	least significant, each once, XIW_RTR_KIND_NONE after the last; 0 for
 *	the module parameter rtr's
 * @XIW_CONFIG_HASHES: u32, bit N set: RDMA Verify requests are served for
 *	MRs hashed with enum xiw_verify_alg N (a subset of XIW_CAPS_HASHES;
 *	all of them by default); a Verify of an MR whose hash is not allowed
 *	is refused as one of an MR without a hash
 * @XIW_CONFIG_DEBUG: u8, enum xiw_debug
 * @__XIW_CONFIG_MAX: count
 * @XIW_CONFIG_MAX: the last attribute
 */
enum xiw_config_attr {
	XIW_CONFIG_UNSPEC,
	XIW_CONFIG_CRC,
	XIW_CONFIG_MARKERS,
	XIW_CONFIG_MPA_REV,
	XIW_CONFIG_P2P,
	XIW_CONFIG_RTR,
	XIW_CONFIG_HASHES,
	XIW_CONFIG_DEBUG,
	__XIW_CONFIG_MAX,
	XIW_CONFIG_MAX = __XIW_CONFIG_MAX - 1
};

/**
 * enum xiw_counter_attr - one counter (XIW_ATTR_COUNTER): counters are
 *	named, so a newer kernel's come without a change here
 * @XIW_COUNTER_UNSPEC: none
 * @XIW_COUNTER_PAD: 64-bit alignment padding
 * @XIW_COUNTER_NAME: string, the counter's name
 * @XIW_COUNTER_VALUE: u64, its value: it only grows, from 0 when the
 *	device was created
 * @__XIW_COUNTER_MAX: count
 * @XIW_COUNTER_MAX: the last attribute
 */
enum xiw_counter_attr {
	XIW_COUNTER_UNSPEC,
	XIW_COUNTER_PAD,
	XIW_COUNTER_NAME,
	XIW_COUNTER_VALUE,
	__XIW_COUNTER_MAX,
	XIW_COUNTER_MAX = __XIW_COUNTER_MAX - 1
};

/**
 * enum xiw_terminate_attr - a Terminate that ended a connection
 *	(XIW_ATTR_TERMINATE): its RFC 5040 section 7 error fields
 * @XIW_TERMINATE_UNSPEC: none
 * @XIW_TERMINATE_SENT: u8, 1 if the device sent it (it found the fault,
 *	or failed itself), 0 if the peer did
 * @XIW_TERMINATE_LAYER: u8, the layer: 0 RDMAP, 1 DDP, 2 LLP (MPA)
 * @XIW_TERMINATE_TYPE: u8, the error type within the layer
 * @XIW_TERMINATE_CODE: u8, the error code; in XIW_ATTR_TERMINATES, codes
 *	above 0x0e are counted together as 0xff (RFC 5040's only such code)
 * @XIW_TERMINATE_COUNT: u64, how many (XIW_ATTR_TERMINATES only)
 * @XIW_TERMINATE_PAD: 64-bit alignment padding
 * @__XIW_TERMINATE_MAX: count
 * @XIW_TERMINATE_MAX: the last attribute
 */
enum xiw_terminate_attr {
	XIW_TERMINATE_UNSPEC,
	XIW_TERMINATE_SENT,
	XIW_TERMINATE_LAYER,
	XIW_TERMINATE_TYPE,
	XIW_TERMINATE_CODE,
	XIW_TERMINATE_COUNT,
	XIW_TERMINATE_PAD,
	__XIW_TERMINATE_MAX,
	XIW_TERMINATE_MAX = __XIW_TERMINATE_MAX - 1
};

#endif /* _UAPI_XIW_NETLINK_H */
