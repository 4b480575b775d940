/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiwdv.h: xiw's direct verbs, for what libibverbs has no verb for (yet):
 * RDMA Flush and RDMA Verify of draft-talpey-rdma-commit, the masked
 * atomics of RFC 7306, and the hash a Verify of an MR computes.
 *
 * Atomic Write needs none of this: rdma-core's ibv_wr_atomic_write() on a
 * QP made with IBV_QP_EX_WITH_ATOMIC_WRITE. The others go the same way,
 * through the ibv_wr_*() API of a QP made with
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, between ibv_wr_start() and
 * ibv_wr_complete():
 *
 *	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
 *	struct xiwdv_qp_ex *dv = xiwdv_qp_ex_from_ibv_qp_ex(qpx);
 *
 *	if (!dv)
 *		... not an xiw QP: none of this is there ...
 *	ibv_wr_start(qpx);
 *	qpx->wr_id = 1;
 *	qpx->wr_flags = IBV_SEND_SIGNALED;
 *	ibv_wr_rdma_write(qpx, rkey, addr);
 *	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, len);
 *	qpx->wr_id = 2;
 *	xiwdv_wr_flush(dv, rkey, addr, len, XIWDV_FLUSH_PERSISTENT,
 *		       XIWDV_FLUSH_RANGE);
 *	err = ibv_wr_complete(qpx);
 *
 * xiwdv_wr_flush() takes rdma-core 45's ibv_wr_flush() arguments: code
 * moves to that verb unchanged once the distribution has it.
 *
 * Nothing to link: the functions are the provider's (libxiw-rdmav34.so,
 * which libibverbs has loaded for the device), found by name
 * (dlopen(RTLD_NOLOAD) of its soname, dlsym()); they take only xiw's
 * objects, and for any other (or with no xiw device opened) the lookups
 * return NULL.
 * `pkg-config --cflags --libs xiwdv`.
 */
#ifndef INFINIBAND_XIWDV_H
#define INFINIBAND_XIWDV_H

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ibv_reg_mr() access: rdma-core 45's IBV_ACCESS_FLUSH_GLOBAL/_PERSISTENT */
enum {
	XIWDV_ACCESS_FLUSH_GLOBAL = 1 << 8,
	XIWDV_ACCESS_FLUSH_PERSISTENT = 1 << 9,
};

/* A Flush's type (rdma-core 45's enum ibv_placement_type) */
enum xiwdv_flush_type {
	XIWDV_FLUSH_GLOBAL = 1 << 0,	/* globally visible */
	XIWDV_FLUSH_PERSISTENT = 1 << 1,	/* in the persistence domain */
};

/* A Flush's level (rdma-core 45's enum ibv_selectivity_level) */
enum xiwdv_flush_level {
	XIWDV_FLUSH_RANGE = 0,	/* remote_addr, len */
	XIWDV_FLUSH_MR = 1,	/* all of the MR rkey names */
};

/* Completion opcodes (struct ibv_wc's opcode) of what libibverbs 44 lacks */
enum {
	XIWDV_WC_FLUSH = 8,		/* rdma-core 45's IBV_WC_FLUSH */
	XIWDV_WC_VERIFY = 0x40,
	XIWDV_WC_MASKED_CMP_SWAP = 0x41,
	XIWDV_WC_MASKED_FETCH_ADD = 0x42,
};

/* The hash an RDMA Verify of an MR computes: its owner's choice */
enum xiwdv_verify_alg {
	XIWDV_VERIFY_NONE = 0,		/* not verifiable */
	XIWDV_VERIFY_CRC32C = 1,	/* 4 octets */
	XIWDV_VERIFY_SHA256 = 2,	/* 32 octets */
};

/* The longest hash a Verify carries or returns */
#define XIWDV_VERIFY_HASH_MAX	64

/**
 * struct xiwdv_qp_ex - xiw's operations of a QP's ibv_wr_*() API; call
 *	them through the functions below
 */
struct xiwdv_qp_ex {
	uint64_t comp_mask;
	void (*wr_flush)(struct xiwdv_qp_ex *dv, uint32_t rkey,
			 uint64_t remote_addr, size_t len, uint8_t type,
			 uint8_t level);
	void (*wr_verify)(struct xiwdv_qp_ex *dv, uint32_t rkey,
			  uint64_t remote_addr, uint32_t len,
			  const void *expect, uint8_t expect_len);
	void (*wr_masked_cmp_swap)(struct xiwdv_qp_ex *dv, uint32_t rkey,
				   uint64_t remote_addr, uint64_t compare,
				   uint64_t compare_mask, uint64_t swap,
				   uint64_t swap_mask);
	void (*wr_masked_fetch_add)(struct xiwdv_qp_ex *dv, uint32_t rkey,
				    uint64_t remote_addr, uint64_t add,
				    uint64_t field_mask);
};

/* The provider's function @name, if libibverbs loaded it, or NULL. */
static inline void *xiwdv_sym(const char *name)
{
	void *lib = dlopen("libxiw-rdmav34.so", RTLD_NOW | RTLD_NOLOAD);
	void *fn;

	if (!lib)
		return NULL;
	fn = dlsym(lib, name);
	dlclose(lib);	/* libibverbs keeps it loaded */
	return fn;
}

/**
 * xiwdv_qp_ex_from_ibv_qp_ex() - xiw's operations of a QP
 * @qpx: ibv_qp_to_qp_ex() of a QP made with
 *	IBV_QP_INIT_ATTR_SEND_OPS_FLAGS
 *
 * Return: them, or NULL (errno EOPNOTSUPP) for a QP of another device or
 * one posting without a send ring (XIW_SQ_RINGS=0).
 */
static inline struct xiwdv_qp_ex *
xiwdv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qpx)
{
	struct xiwdv_qp_ex *(*fn)(struct ibv_qp_ex *) = NULL;
	void *sym = xiwdv_sym("xiwdv_provider_qp_ex");

	if (!sym) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	*(void **)&fn = sym;
	return fn(qpx);
}

/**
 * xiwdv_reg_mr() - ibv_reg_mr() with xiw's attributes
 * @pd: a PD of an xiw device
 * @addr: @length octets to register
 * @length: octets
 * @access: IBV_ACCESS_* and XIWDV_ACCESS_FLUSH_*
 * @verify_alg: enum xiwdv_verify_alg: what an RDMA Verify of it computes
 *
 * Return: the MR, or NULL with errno (EOPNOTSUPP: not an xiw device).
 */
static inline struct ibv_mr *xiwdv_reg_mr(struct ibv_pd *pd, void *addr,
					  size_t length, int access,
					  enum xiwdv_verify_alg verify_alg)
{
	struct ibv_mr *(*fn)(struct ibv_pd *, void *, size_t, int,
			     uint32_t) = NULL;
	void *sym = xiwdv_sym("xiwdv_provider_reg_mr");

	if (!sym) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	*(void **)&fn = sym;
	return fn(pd, addr, length, access, verify_alg);
}

/**
 * xiwdv_wr_flush() - an RDMA Flush: the responder brings a range of its
 *	memory, and every octet the RDMA Writes before the Flush placed,
 *	to a state; completes (XIWDV_WC_FLUSH) once it has
 * @dv: the QP's operations
 * @rkey: the responder's MR; it needs XIWDV_ACCESS_FLUSH_PERSISTENT and/or
 *	XIWDV_ACCESS_FLUSH_GLOBAL, as @type asks
 * @remote_addr: the first octet (XIWDV_FLUSH_RANGE)
 * @len: octets (XIWDV_FLUSH_RANGE; at most 2^32 - 1)
 * @type: XIWDV_FLUSH_GLOBAL and/or XIWDV_FLUSH_PERSISTENT
 * @level: XIWDV_FLUSH_RANGE or XIWDV_FLUSH_MR
 *
 * No SGE. A responder that cannot make its memory persistent refuses the
 * Flush: the work request completes in error and the QP goes to error.
 */
static inline void xiwdv_wr_flush(struct xiwdv_qp_ex *dv, uint32_t rkey,
				  uint64_t remote_addr, size_t len,
				  uint8_t type, uint8_t level)
{
	dv->wr_flush(dv, rkey, remote_addr, len, type, level);
}

/**
 * xiwdv_wr_verify() - an RDMA Verify: the responder hashes a range of its
 *	memory (with the hash its MR was registered with), compares it with
 *	@expect if given, and returns the hash
 * @dv: the QP's operations
 * @rkey: the responder's MR; it needs IBV_ACCESS_REMOTE_READ and a hash
 * @remote_addr: the first octet
 * @len: octets
 * @expect: the expected hash, or NULL; copied
 * @expect_len: its octets, at most XIWDV_VERIFY_HASH_MAX
 *
 * Then one SGE (ibv_wr_set_sge()), where the hash lands: it should hold
 * XIWDV_VERIFY_HASH_MAX octets. The completion (XIWDV_WC_VERIFY) has the
 * hash's length in byte_len. A mismatch makes the responder terminate
 * the stream: the work request completes in error.
 */
static inline void xiwdv_wr_verify(struct xiwdv_qp_ex *dv, uint32_t rkey,
				   uint64_t remote_addr, uint32_t len,
				   const void *expect, uint8_t expect_len)
{
	dv->wr_verify(dv, rkey, remote_addr, len, expect, expect_len);
}

/**
 * xiwdv_wr_masked_cmp_swap() - RFC 7306's masked Compare and Swap: where
 *	the original word and @compare agree in the bits of @compare_mask,
 *	the bits of @swap_mask are replaced by @swap's
 * @dv: the QP's operations
 * @rkey: the responder's MR (IBV_ACCESS_REMOTE_ATOMIC)
 * @remote_addr: an 8-octet aligned word
 * @compare: the value compared
 * @compare_mask: the bits compared
 * @swap: the value swapped in
 * @swap_mask: the bits swapped
 *
 * Then one SGE of 8 octets (ibv_wr_set_sge()) for the original word;
 * completes as XIWDV_WC_MASKED_CMP_SWAP.
 */
static inline void xiwdv_wr_masked_cmp_swap(struct xiwdv_qp_ex *dv,
					    uint32_t rkey,
					    uint64_t remote_addr,
					    uint64_t compare,
					    uint64_t compare_mask,
					    uint64_t swap, uint64_t swap_mask)
{
	dv->wr_masked_cmp_swap(dv, rkey, remote_addr, compare, compare_mask,
			       swap, swap_mask);
}

/**
 * xiwdv_wr_masked_fetch_add() - RFC 7306's masked Fetch and Add: @add is
 *	added to the word field by field
 * @dv: the QP's operations
 * @rkey: the responder's MR (IBV_ACCESS_REMOTE_ATOMIC)
 * @remote_addr: an 8-octet aligned word
 * @add: the value added
 * @field_mask: the Add Mask: a set bit is the most significant bit of a
 *	field, whose carry out is discarded (0: one 64-bit field, a plain
 *	Fetch and Add)
 *
 * Then one SGE of 8 octets for the original word; completes as
 * XIWDV_WC_MASKED_FETCH_ADD.
 */
static inline void xiwdv_wr_masked_fetch_add(struct xiwdv_qp_ex *dv,
					     uint32_t rkey,
					     uint64_t remote_addr,
					     uint64_t add,
					     uint64_t field_mask)
{
	dv->wr_masked_fetch_add(dv, rkey, remote_addr, add, field_mask);
}

#ifdef __cplusplus
}
#endif

#endif /* INFINIBAND_XIWDV_H */
