/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiw's verbs for kernel ULPs: how to post the operations of
 * draft-talpey-rdma-commit (Atomic Write, RDMA Flush) through
 * ib_post_send(), which has no work request layout for them upstream, and
 * RDMA Verify, which has no verb at all (xiw_post_verify()).
 *
 * Each operation has a work request that begins with its struct
 * ib_send_wr, as struct ib_rdma_wr and struct ib_atomic_wr do: fill the
 * whole struct, set wr.opcode (and, for Atomic Write and Flush,
 * XIW_SEND_EXT_WR in wr.send_flags), and post &wr. The device says it
 * carries them in ib_device.attrs.device_cap_flags
 * (IB_DEVICE_ATOMIC_WRITE, IB_DEVICE_FLUSH_GLOBAL,
 * IB_DEVICE_FLUSH_PERSISTENT). Any other device must be given these
 * opcodes in its own layout, if it has one.
 */
#ifndef XIW_ULP_VERBS_H
#define XIW_ULP_VERBS_H

#include <rdma/ib_verbs.h>
#include <xiw/compat.h>

/*
 * XIW_SEND_EXT_WR - in wr.send_flags: this work request is one of the
 * structs below, not a bare struct ib_send_wr or a struct ib_rdma_wr.
 *
 * Upstream defines IB_WR_FLUSH and IB_WR_ATOMIC_WRITE but no kernel work
 * request layout for them, so a generic ULP may post either opcode in a
 * struct of its own choosing (rxe reads nothing beyond struct ib_send_wr
 * for them). The pointer alone cannot tell which struct it is: xiw reads
 * the fields past @wr only when this flag says they are there, and
 * refuses IB_WR_FLUSH and IB_WR_ATOMIC_WRITE without it (-EINVAL, nothing
 * beyond struct ib_send_wr read). The flag is a bit of the range upstream
 * leaves to drivers (IB_SEND_RESERVED_START to IB_SEND_RESERVED_END): set
 * it only on work requests posted to an xiw device.
 */
#define XIW_SEND_EXT_WR		IB_SEND_RESERVED_START

/**
 * struct xiw_atomic_write_wr - an Atomic Write: 8 octets placed at once
 * @wr: the work request; opcode IB_WR_ATOMIC_WRITE, XIW_SEND_EXT_WR in
 *	send_flags, no SGE (num_sge 0), not IB_SEND_INLINE. It completes
 *	as IB_WC_ATOMIC_WRITE once the responder placed the value.
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
 * @wr: the work request; opcode IB_WR_FLUSH, XIW_SEND_EXT_WR in
 *	send_flags, no SGE (num_sge 0). It completes as IB_WC_FLUSH once
 *	the responder has brought every octet asked for, and every octet of
 *	the RDMA Writes posted before it, to that state.
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

/*
 * RDMA Verify has no verb upstream: xiw_post_verify() posts one, as this
 * private opcode, which no other device is given; it completes with
 * XIW_WC_VERIFY in ib_wc.opcode.
 */
#define XIW_WR_VERIFY		IB_WR_RESERVED1
#define XIW_WC_VERIFY		0x40

/* The longest hash a Verify carries: SHA-512's */
#define XIW_VERIFY_HASH_MAX	64

/**
 * enum xiw_verify_alg - the hash a responder computes over a Verify's
 *	range: a property of its MR (xiw_mr_set_verify()), never on the wire
 * @XIW_VERIFY_NONE: not verifiable (the default)
 * @XIW_VERIFY_CRC32C: CRC32c: 4 octets, as the crypto API's "crc32c"
 *	gives them
 * @XIW_VERIFY_SHA256: SHA-256: 32 octets
 */
enum xiw_verify_alg {
	XIW_VERIFY_NONE,
	XIW_VERIFY_CRC32C,
	XIW_VERIFY_SHA256,
};

/**
 * struct xiw_verify_wr - an RDMA Verify: the responder hashes a range of
 *	its memory, compares an expected hash if one is given, and returns
 *	the hash
 * @wr: the work request: wr_id or wr_cqe, send_flags (IB_SEND_SIGNALED,
 *	IB_SEND_FENCE), one SGE (num_sge 1, not inline): a buffer with
 *	local write access where the hash lands; it should hold
 *	XIW_VERIFY_HASH_MAX octets (a longer hash than it holds fails the
 *	work request). The completion's byte_len is the hash's length.
 * @remote_addr: first octet of the range
 * @rkey: the responder's STag; its MR needs IB_ACCESS_REMOTE_READ and a
 *	hash algorithm (xiw_mr_set_verify())
 * @length: octets
 * @expect: the expected hash, or NULL; copied when posted
 * @expect_len: its octets, at most XIW_VERIFY_HASH_MAX
 *
 * With an expected hash, a mismatch (a hash of another length included)
 * makes the responder terminate the stream: the work request completes in
 * error (IB_WC_REM_INV_REQ_ERR) and the QP goes to the error state.
 */
struct xiw_verify_wr {
	struct ib_send_wr wr;
	u64 remote_addr;
	u32 rkey;
	u32 length;
	const u8 *expect;
	u8 expect_len;
};

bool xiw_device(const struct ib_device *dev);
int xiw_post_verify(struct ib_qp *qp, const struct xiw_verify_wr *wr,
		    const struct ib_send_wr **bad_wr);
int xiw_mr_set_verify(struct ib_mr *mr, enum xiw_verify_alg alg);

#endif /* XIW_ULP_VERBS_H */
