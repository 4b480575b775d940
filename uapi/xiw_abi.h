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
 *  - Fields named "reserved" and flag bits not defined here must be zero
 *    on input (EINVAL otherwise). A request longer than the kernel knows
 *    is accepted if its extra octets are zero; a response is cut to the
 *    length the provider gave. That is the room to grow.
 *
 * Version 1: user contexts, PDs, MRs, CQs, RC QPs and SRQs whose work is
 * posted and polled through the RDMA core's uverbs commands (one system
 * call each). Inline data (up to max_inline octets a work request) is
 * copied from the process by the kernel when the work request is
 * posted, with the process's own access checks (copy_from_user): a
 * process gives the kernel nothing it could not read itself.
 */
#ifndef _UAPI_XIW_ABI_H
#define _UAPI_XIW_ABI_H

#include <linux/types.h>

#define XIW_UABI_VERSION	1

/**
 * struct xiw_uctx_req - ibv_open_device(): the provider's side
 * @uabi: XIW_UABI_VERSION
 * @flags: none defined yet: 0
 */
struct xiw_uctx_req {
	__u32 uabi;
	__u32 flags;
};

/**
 * struct xiw_uctx_resp - ibv_open_device(): the kernel's side
 * @uabi: XIW_UABI_VERSION
 * @flags: none defined yet
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

#endif /* _UAPI_XIW_ABI_H */
