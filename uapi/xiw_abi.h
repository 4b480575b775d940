/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * xiw: the user verbs ABI between xiw.ko and its rdma-core provider
 * (libxiw-rdmav34.so), carried in the driver-specific data of the RDMA
 * core's uverbs commands.
 *
 * Rules of the ABI:
 *  - The provider finds xiw devices by their sysfs attribute
 *    /sys/class/infiniband/DEV/xiw_uabi, which holds XIW_UABI_VERSION in
 *    decimal. A provider that speaks another version leaves the device
 *    alone, with a message.
 *  - Every request starts with @uabi, which the provider sets to
 *    XIW_UABI_VERSION; the kernel refuses any other value (EPROTO) when
 *    the context is made.
 *  - Fixed-size types only, no pointers, no implicit padding; sizes are
 *    multiples of 8 and the same for 32- and 64-bit callers.
 *  - Fields named "reserved" must be zero on input (EINVAL otherwise).
 *    Flags a provider asks for in struct xiw_uctx_req that the kernel
 *    does not know are not granted, and struct xiw_uctx_resp says which
 *    were (kernels before XIW_UCTX_CQ_RING refused any flag with EINVAL:
 *    a provider asks again without). A request longer than the kernel
 *    knows is accepted if its extra octets are zero; a response is cut to
 *    the length the provider gave. That is the room to grow.
 *
 * Version 1: user contexts, PDs, MRs, CQs, RC QPs and SRQs whose work is
 * posted and polled through the RDMA core's uverbs commands (one system
 * call each). Inline data (up to max_inline octets a work request) is
 * copied from the process by the kernel when the work request is
 * posted, with the process's own access checks (copy_from_user): a
 * process gives the kernel nothing it could not read itself.
 *
 * Completion rings (flag XIW_UCTX_CQ_RING, a growth of version 1): a
 * provider that sets it in struct xiw_uctx_req, and finds it set in the
 * response, polls its CQs without a system call. Each CQ's completions
 * are then written by the kernel into a ring the process maps (struct
 * xiw_ucq_resp says where); the process moves the ring's tail. The
 * kernel reads nothing of the ring but the tail, and trusts no value it
 * finds there: a tail that does not leave room is a full CQ (the
 * completion is lost, IB_EVENT_CQ_ERR, the QP's stream ends, as for a CQ
 * overrun), and no octet outside the ring is written. Such a CQ is not
 * polled through the poll command (EOPNOTSUPP).
 *
 * Receive rings (flag XIW_UCTX_RQ_RING, a growth of version 1): a
 * provider that is granted it posts receives without a system call. Each
 * QP with a receive queue of its own (struct xiw_uqp_resp) and each SRQ
 * (struct xiw_usrq_resp) then has a ring the process maps and writes
 * struct xiw_urqe entries to, moving the ring's head. The kernel copies
 * an entry out of the ring when it needs it (a Send or Immediate Data
 * arrives; the queue is flushed), and trusts nothing in it: it never
 * takes more than the queue's size past its own tail, whatever the head
 * says; an entry naming more SGEs than XIW_URQE_SGE holds no buffer (a
 * Send with payload into it fails as too long); its keys and addresses
 * are checked when data is placed, as a posted receive's are. The
 * kernel's tail tells the process which slots are free again. When the
 * QP is in error (XIW_URQ_FLUSH in the ring's flags) entries the process
 * posts are flushed only when it calls the post_recv command with no
 * work request (a doorbell); with work requests that command fails
 * (EINVAL) on a ring queue.
 */
#ifndef _UAPI_XIW_ABI_H
#define _UAPI_XIW_ABI_H

#include <linux/types.h>

#define XIW_UABI_VERSION	1

/* struct xiw_uctx_req/resp flags */
enum xiw_uctx_flags {
	XIW_UCTX_CQ_RING = 1 << 0,	/* CQs polled from mapped rings */
	XIW_UCTX_RQ_RING = 1 << 1,	/* receives posted to mapped rings */
	XIW_UCTX_FLAGS = XIW_UCTX_CQ_RING | XIW_UCTX_RQ_RING,
};

/**
 * struct xiw_uctx_req - ibv_open_device(): the provider's side
 * @uabi: XIW_UABI_VERSION
 * @flags: XIW_UCTX_* the provider asks for
 */
struct xiw_uctx_req {
	__u32 uabi;
	__u32 flags;
};

/**
 * struct xiw_uctx_resp - ibv_open_device(): the kernel's side
 * @uabi: XIW_UABI_VERSION
 * @flags: XIW_UCTX_* granted: what was asked for and this kernel has
 * @max_sge: SGEs per work request
 * @max_inline: inline octets a user QP's work request takes (what
 *	ibv_query_qp() reports as max_inline_data)
 * @reserved: zero
 */
struct xiw_uctx_resp {
	__u32 uabi;
	__u32 flags;
	__u32 max_sge;
	__u32 max_inline;
	__aligned_u64 reserved[2];
};

/**
 * struct xiw_ucq_resp - ibv_create_cq() of a context with XIW_UCTX_CQ_RING:
 *	the kernel's side
 * @ring_offset: mmap() offset of the ring, on the device's file
 * @ring_len: octets to map: XIW_UCQ_RING_ENTRIES + @slots entries, whole
 *	pages
 * @slots: entries in the ring, a power of two, at least the CQ's size
 * @reserved: zero
 */
struct xiw_ucq_resp {
	__aligned_u64 ring_offset;
	__u32 ring_len;
	__u32 slots;
	__aligned_u64 reserved;
};

/*
 * A completion ring: the kernel's producer index (__u32 at offset
 * XIW_UCQ_RING_HEAD, written by the kernel only), the process's consumer
 * index (__u32 at XIW_UCQ_RING_TAIL), each on its own cache line, then
 * the entries. Indexes run free and wrap at 2^32; entry i is at slot
 * i & (slots - 1). Entries before head are the kernel's to publish (it
 * stores head with release semantics after writing them), from tail on
 * the process's to read, and head - tail never exceeds the CQ's size.
 */
#define XIW_UCQ_RING_HEAD	0
#define XIW_UCQ_RING_TAIL	64
#define XIW_UCQ_RING_ENTRIES	128

/* struct xiw_ucqe flags */
enum xiw_ucqe_flags {
	XIW_UCQE_WITH_IMM = 1 << 0,	/* @ex_data: immediate data */
	XIW_UCQE_WITH_INV = 1 << 1,	/* @ex_data: invalidated STag */
};

/**
 * struct xiw_ucqe - a completion in a ring
 * @wr_id: the work request's
 * @qp_num: its QP
 * @byte_len: octets received, read, or (Verify) the hash's length
 * @ex_data: immediate data as received (network order), or the STag a
 *	Send with Invalidate invalidated
 * @status: enum ib_wc_status, which libibverbs' enum ibv_wc_status
 *	numbers alike
 * @opcode: enum ib_uverbs_wc_opcode (IBV_WC_*)
 * @flags: XIW_UCQE_*
 * @reserved0: zero
 * @vendor_err: zero, or why a work request failed (Documentation)
 * @reserved1: zero
 */
struct xiw_ucqe {
	__aligned_u64 wr_id;
	__u32 qp_num;
	__u32 byte_len;
	__u32 ex_data;
	__u8 status;
	__u8 opcode;
	__u8 flags;
	__u8 reserved0;
	__u32 vendor_err;
	__u32 reserved1;
};

/**
 * struct xiw_urq_resp - a receive ring (XIW_UCTX_RQ_RING): where it is
 * @ring_offset: mmap() offset of the ring, on the device file
 * @ring_len: octets to map: XIW_URQ_RING_ENTRIES + @slots entries, whole
 *	pages
 * @slots: entries in the ring, a power of two, at least @size
 * @size: receives the queue holds at most: the head may be at most this
 *	far past the kernel's tail
 */
struct xiw_urq_resp {
	__aligned_u64 ring_offset;
	__u32 ring_len;
	__u32 slots;
	__u32 size;
	__u32 reserved;
};

/**
 * struct xiw_uqp_resp - ibv_create_qp() of a context with
 *	XIW_UCTX_RQ_RING: the kernel's side
 * @rq: the QP's receive ring; all zero for a QP that receives through
 *	an SRQ
 */
struct xiw_uqp_resp {
	struct xiw_urq_resp rq;
};

/**
 * struct xiw_usrq_resp - ibv_create_srq() of a context with
 *	XIW_UCTX_RQ_RING: the kernel's side
 * @rq: the SRQ's receive ring
 */
struct xiw_usrq_resp {
	struct xiw_urq_resp rq;
};

/*
 * A receive ring: the process's producer index (__u32 at offset
 * XIW_URQ_RING_HEAD, written by the process only), the kernel's consumer
 * index (__u32 at XIW_URQ_RING_TAIL) and flags (__u32 at
 * XIW_URQ_RING_FLAGS, XIW_URQ_*), both written by the kernel, then the
 * entries. Indexes run free and wrap at 2^32; entry i is at slot
 * i & (slots - 1). The process writes entries from the head on and then
 * stores the head with release semantics; entries before the kernel's
 * tail are consumed, and their slots free. After storing the head the
 * process reads the flags (with a full barrier between).
 */
#define XIW_URQ_RING_HEAD	0
#define XIW_URQ_RING_TAIL	64
#define XIW_URQ_RING_FLAGS	68
#define XIW_URQ_RING_ENTRIES	128

/* Ring flags */
enum xiw_urq_flags {
	XIW_URQ_FLUSH = 1 << 0,		/* in error: ring the doorbell */
};

/* SGEs a receive ring entry has room for (the device's max_sge). */
#define XIW_URQE_SGE		6

/**
 * struct xiw_usge - a buffer of a receive ring entry
 * @addr: virtual address in the MR
 * @length: octets
 * @lkey: the MR's local key
 */
struct xiw_usge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/**
 * struct xiw_urqe - a receive posted in a ring
 * @wr_id: the work request's
 * @num_sge: entries of @sge used, at most XIW_URQE_SGE
 * @reserved: zero
 * @sge: the buffers
 */
struct xiw_urqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	struct xiw_usge sge[XIW_URQE_SGE];
};

#endif /* _UAPI_XIW_ABI_H */
