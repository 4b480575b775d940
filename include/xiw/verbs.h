/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiw's verbs for kernel ULPs: how to post the operations of
 * draft-talpey-rdma-commit (Atomic Write, RDMA Flush) through
 * ib_post_send(), which has no work request layout for them upstream.
 *
 * Each operation has a work request that begins with its struct
 * ib_send_wr, as struct ib_rdma_wr and struct ib_atomic_wr do: fill the
 * whole struct, set wr.opcode, and post &wr. The device says it carries
 * them in ib_device.attrs.device_cap_flags (IB_DEVICE_ATOMIC_WRITE,
 * IB_DEVICE_FLUSH_GLOBAL, IB_DEVICE_FLUSH_PERSISTENT). Any other device
 * must be given these opcodes in its own layout, if it has one.
 */
#ifndef XIW_VERBS_H
#define XIW_VERBS_H

#include <rdma/ib_verbs.h>

/**
 * struct xiw_atomic_write_wr - an Atomic Write: 8 octets placed at once
 * @wr: the work request; opcode IB_WR_ATOMIC_WRITE, no SGE (num_sge 0),
 *	not IB_SEND_INLINE. It completes as IB_WC_ATOMIC_WRITE once the
 *	responder placed the value.
 * @remote_addr: where, in the responder's MR: 64-bit aligned
 * @rkey: the responder's STag; the MR needs IB_ACCESS_REMOTE_WRITE
 * @value: the value, in host order (it travels big-endian and lands in
 *	the responder's host order, as the RFC 7306 atomics' operands do)
 *
 * The responder stores the whole word at once: no reader, local or
 * remote, sees part of it. An unaligned address, a missing right or an
 * invalid STag is refused by the responder before it touches memory; the
 * work request completes in error and the QP goes to the error state.
 */
struct xiw_atomic_write_wr {
	struct ib_send_wr wr;
	u64 remote_addr;
	u32 rkey;
	u64 value;
};

/**
 * xiw_atomic_write_wr() - the Atomic Write a posted work request is part of
 * @wr: its struct ib_send_wr, with opcode IB_WR_ATOMIC_WRITE
 *
 * Return: the whole work request.
 */
static inline const struct xiw_atomic_write_wr *
xiw_atomic_write_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct xiw_atomic_write_wr, wr);
}

/**
 * struct xiw_flush_wr - an RDMA Flush: bring a range of the responder's
 *	memory to a state, persistent or globally visible
 * @wr: the work request; opcode IB_WR_FLUSH, no SGE (num_sge 0). It
 *	completes as IB_WC_FLUSH once the responder has brought every octet
 *	asked for, and every octet of the RDMA Writes posted before it, to
 *	that state.
 * @remote_addr: first octet, with level IB_FLUSH_RANGE
 * @rkey: the responder's STag; its MR needs IB_ACCESS_FLUSH_PERSISTENT
 *	and/or IB_ACCESS_FLUSH_GLOBAL, as @type asks
 * @length: octets, with level IB_FLUSH_RANGE (0 flushes nothing but is
 *	still ordered and answered)
 * @type: IB_FLUSH_PERSISTENT, IB_FLUSH_GLOBAL or both (<rdma/ib_verbs.h>
 *	via ib_user_verbs.h)
 * @level: IB_FLUSH_RANGE: [@remote_addr, @remote_addr + @length);
 *	IB_FLUSH_MR: all of the MR @rkey names (@remote_addr and @length
 *	are ignored)
 *
 * Whether the responder can make its memory persistent is decided by the
 * memory, at the responder (Documentation/commit-draft.md): a Flush it
 * cannot carry out is refused with a Terminate, the work request
 * completes in error and the QP goes to the error state.
 */
struct xiw_flush_wr {
	struct ib_send_wr wr;
	u64 remote_addr;
	u32 rkey;
	u32 length;
	u8 type;
	u8 level;
};

/**
 * xiw_flush_wr() - the RDMA Flush a posted work request is part of
 * @wr: its struct ib_send_wr, with opcode IB_WR_FLUSH
 *
 * Return: the whole work request.
 */
static inline const struct xiw_flush_wr *xiw_flush_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct xiw_flush_wr, wr);
}

#endif /* XIW_VERBS_H */
