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
 *
 * Send rings (flag XIW_UCTX_SQ_RING, a growth of version 1): a provider
 * that is granted it posts sends without a system call. Each QP then has
 * a ring (struct xiw_uqp_resp's @sq) the process maps and writes struct
 * xiw_usqe entries to, moving the ring's head; the kernel's transmit
 * engine copies entries into the QP's send queue when it looks for work,
 * each field read once, and checks them as it checks a kernel ULP's work
 * requests. It never takes more than the queue's size past the tail it
 * publishes (the slots before that tail are free again). An entry it
 * refuses (an unknown opcode or flag, a reserved field not zero, too many
 * SGEs or too much inline data, what the verbs refuse) takes its turn
 * and fails it: IBV_WC_LOC_QP_OP_ERR, a Terminate, the QP in error. The
 * ring carries operations the post_send command has no layout for:
 * Atomic Write, RDMA Flush, RDMA Verify and the masked atomics.
 * The doorbell: when the engine goes idle it sets XIW_USQ_DOORBELL in the
 * ring's flags and then looks at the head once more; a process that
 * stores its head and then (after a full barrier) finds the flag set
 * calls the post_send command with no work request, which sends what is
 * posted in the call. While the flag is clear the engine will look at
 * the ring again by itself. A QP in error sets the flag too: its entries
 * are flushed at that call. With work requests, that command fails
 * (EINVAL) on a ring QP. RESET drops what the ring holds: the kernel's
 * tail moves to the head.
 */
#ifndef _UAPI_XIW_ABI_H
#define _UAPI_XIW_ABI_H

#include <linux/types.h>

#define XIW_UABI_VERSION	1

/* struct xiw_uctx_req/resp flags */
enum xiw_uctx_flags {
	XIW_UCTX_CQ_RING = 1 << 0,	/* CQs polled from mapped rings */
	XIW_UCTX_RQ_RING = 1 << 1,	/* receives posted to mapped rings */
	XIW_UCTX_SQ_RING = 1 << 2,	/* sends posted to mapped rings */
	XIW_UCTX_FLAGS = XIW_UCTX_CQ_RING | XIW_UCTX_RQ_RING |
			 XIW_UCTX_SQ_RING,
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

/* struct xiw_ureg_mr_req's hashes: enum xiw_verify_alg's numbers */
enum xiw_ureg_verify {
	XIW_UREG_VERIFY_NONE = 0,	/* not verifiable (the default) */
	XIW_UREG_VERIFY_CRC32C = 1,	/* CRC32c, 4 octets */
	XIW_UREG_VERIFY_SHA256 = 2,	/* SHA-256, 32 octets */
};

/**
 * struct xiw_ureg_mr_req - ibv_reg_mr(): the provider's side, optional
 *	(none: all zero)
 * @verify_alg: XIW_UREG_VERIFY_*: the hash an RDMA Verify of the MR
 *	computes (its peer names no hash: the MR's owner chooses it)
 * @reserved: zero
 */
struct xiw_ureg_mr_req {
	__u32 verify_alg;
	__u32 reserved;
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

/*
 * struct xiw_ucqe opcodes beyond enum ib_uverbs_wc_opcode's (which the
 * ring uses for everything else, IBV_WC_FLUSH and IBV_WC_ATOMIC_WRITE
 * included, on every kernel)
 */
enum xiw_ucqe_opcode {
	XIW_UCQE_VERIFY = 0x40,			/* an RDMA Verify */
	XIW_UCQE_MASKED_CMP_SWAP = 0x41,	/* a masked Compare and Swap */
	XIW_UCQE_MASKED_FETCH_ADD = 0x42,	/* a masked Fetch and Add */
};

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
 * struct xiw_usq_resp - a send ring (XIW_UCTX_SQ_RING): where it is
 * @ring_offset: mmap() offset of the ring, on the device file
 * @ring_len: octets to map: XIW_USQ_RING_ENTRIES + @slots entries, whole
 *	pages
 * @slots: entries in the ring, a power of two, at least @size
 * @size: work requests the queue holds at most: the head may be at most
 *	this far past the kernel's tail
 * @reserved: zero
 */
struct xiw_usq_resp {
	__aligned_u64 ring_offset;
	__u32 ring_len;
	__u32 slots;
	__u32 size;
	__u32 reserved;
};

/**
 * struct xiw_uqp_resp - ibv_create_qp() of a context with
 *	XIW_UCTX_RQ_RING or XIW_UCTX_SQ_RING: the kernel's side
 * @rq: the QP's receive ring; all zero for a QP that receives through
 *	an SRQ, or without XIW_UCTX_RQ_RING
 * @sq: the QP's send ring; all zero without XIW_UCTX_SQ_RING. A provider
 *	granted only XIW_UCTX_RQ_RING may give room for @rq alone.
 */
struct xiw_uqp_resp {
	struct xiw_urq_resp rq;
	struct xiw_usq_resp sq;
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

/*
 * A send ring: the process's producer index (__u32 at offset
 * XIW_USQ_RING_HEAD, written by the process only), the kernel's tail
 * (__u32 at XIW_USQ_RING_TAIL: the entries before it are done with, their
 * slots free) and flags (__u32 at XIW_USQ_RING_FLAGS, XIW_USQ_*), both
 * written by the kernel, then the entries. Indexes run free and wrap at
 * 2^32; entry i is at slot i & (slots - 1). The process writes entries
 * from the head on, stores the head with release semantics, then (after a
 * full barrier) reads the flags. The tail is stored before the
 * completions of the entries it frees are added to their CQ: a process
 * that polled a send completion finds its slot free.
 */
#define XIW_USQ_RING_HEAD	0
#define XIW_USQ_RING_TAIL	64
#define XIW_USQ_RING_FLAGS	68
#define XIW_USQ_RING_ENTRIES	128

/* Send ring flags */
enum xiw_usq_flags {
	XIW_USQ_DOORBELL = 1 << 0,	/* call post_send with no work request */
};

/*
 * struct xiw_usqe opcodes: enum ib_uverbs_wr_opcode's numbers (libibverbs'
 * IBV_WR_*) for those a ring takes, and xiw's own.
 */
enum xiw_usqe_opcode {
	XIW_USQE_RDMA_WRITE = 0,
	XIW_USQE_RDMA_WRITE_WITH_IMM = 1,
	XIW_USQE_SEND = 2,
	XIW_USQE_SEND_WITH_IMM = 3,
	XIW_USQE_RDMA_READ = 4,
	XIW_USQE_ATOMIC_CMP_AND_SWP = 5,
	XIW_USQE_ATOMIC_FETCH_AND_ADD = 6,
	XIW_USQE_SEND_WITH_INV = 9,
	XIW_USQE_MASKED_ATOMIC_CMP_AND_SWP = 12,
	XIW_USQE_MASKED_ATOMIC_FETCH_AND_ADD = 13,
	XIW_USQE_FLUSH = 14,
	XIW_USQE_ATOMIC_WRITE = 15,
	XIW_USQE_VERIFY = 0x40,
};

/* struct xiw_usqe flags: libibverbs' IBV_SEND_* numbers */
enum xiw_usqe_flags {
	XIW_USQE_FENCE = 1 << 0,
	XIW_USQE_SIGNALED = 1 << 1,
	XIW_USQE_SOLICITED = 1 << 2,
	XIW_USQE_INLINE = 1 << 3,
};

/* RDMA Flush: struct xiw_usqe's @flush (libibverbs' IBV_FLUSH_* numbers) */
enum xiw_usqe_flush {
	XIW_USQE_FLUSH_GLOBAL = 1 << 0,		/* type: global visibility */
	XIW_USQE_FLUSH_PERSISTENT = 1 << 1,	/* type: persistence */
	XIW_USQE_FLUSH_RANGE = 0,		/* level: a range */
	XIW_USQE_FLUSH_MR = 1,			/* level: the whole region */
};

/* Send ring entry sizes: SGEs, inline octets, a Verify's expected hash */
#define XIW_USQE_SGE		6
#define XIW_USQE_INLINE_MAX	256
#define XIW_USQE_HASH_MAX	64

/**
 * struct xiw_usqe - a send work request posted in a ring
 * @wr_id: the work request's
 * @opcode: XIW_USQE_* (enum xiw_usqe_opcode)
 * @flags: XIW_USQE_* (enum xiw_usqe_flags)
 * @num_sge: entries of @sge used, at most XIW_USQE_SGE (atomics and
 *	Verify: 1, in @verify_data for Verify; Atomic Write and Flush: 0;
 *	with XIW_USQE_INLINE: 0)
 * @reserved0: zero
 * @ex: Send or RDMA Write with Immediate: the immediate data, in network
 *	order; Send with Invalidate: the STag to invalidate; else zero
 * @remote_addr: the peer's tagged offset (Write, Read, atomics, Atomic
 *	Write, a Flush of a range, Verify)
 * @rkey: the peer's STag
 * @length: with XIW_USQE_INLINE, octets of @inline_data; Flush of a range
 *	and Verify: octets of the range; else zero
 * @atomic: Compare and Swap and Fetch and Add, masked or not: as struct
 *	ibv_send_wr's wr.atomic (the masks only for the masked ones, zero
 *	else); the original value lands in the one SGE
 * @atomic_write: Atomic Write: the 8 octets, in host order
 * @flush: RDMA Flush: its type (XIW_USQE_FLUSH_GLOBAL and/or _PERSISTENT)
 *	and level (XIW_USQE_FLUSH_RANGE or _MR)
 * @verify: RDMA Verify: octets of @verify_data's expected hash (0: none,
 *	at most XIW_USQE_HASH_MAX)
 * @sge: the buffers
 * @inline_data: with XIW_USQE_INLINE, the payload itself
 * @verify_data: Verify: the buffer the hash lands in, and the expected
 *	hash
 */
struct xiw_usqe {
	__aligned_u64 wr_id;
	__u8 opcode;
	__u8 flags;
	__u8 num_sge;
	__u8 reserved0;
	__u32 ex;
	__aligned_u64 remote_addr;
	__u32 rkey;
	__u32 length;
	union {
		struct {
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__aligned_u64 compare_add_mask;
			__aligned_u64 swap_mask;
		} atomic;
		struct {
			__aligned_u64 value;
			__aligned_u64 reserved[3];
		} atomic_write;
		struct {
			__u8 type;
			__u8 level;
			__u8 reserved[30];
		} flush;
		struct {
			__u32 expect_len;
			__u32 reserved[7];
		} verify;
	};
	union {
		struct xiw_usge sge[XIW_USQE_SGE];
		__u8 inline_data[XIW_USQE_INLINE_MAX];
		struct {
			struct xiw_usge sge;
			__u8 expect[XIW_USQE_HASH_MAX];
		} verify_data;
	};
};

#endif /* _UAPI_XIW_ABI_H */
