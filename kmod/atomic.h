/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RFC 7306 Atomic Operations: wire headers and the arithmetic of masked
 * FetchAdd and CmpSwap. Pure protocol code (no ib_verbs.h): KUnit tests it
 * under UML.
 */
#ifndef XIW_ATOMIC_H
#define XIW_ATOMIC_H

#include <linux/types.h>

/* Atomic Operation Codes (RFC 7306 figure 5); Swap (1) was dropped. */
#define XIW_AOP_FETCH_ADD	0x0
#define XIW_AOP_CMP_SWAP	0x2
#define XIW_AOP_MASK		0xf

/**
 * struct xiw_atomic_req - Atomic Operation Request header, after the
 *	untagged DDP header (RFC 7306 figure 4): 52 octets
 * @aopcode: 28 reserved bits, then the AOpCode in the low four
 * @req_id: chosen by the requester, echoed in the response
 * @stag: the responder's Tagged Buffer
 * @to: offset in it; must be a 64-bit aligned address
 * @data: Add Data (FetchAdd) or Swap Data (CmpSwap)
 * @mask: Add Mask or Swap Mask
 * @cmp: Compare Data (CmpSwap; zero otherwise)
 * @cmp_mask: Compare Mask (CmpSwap; all ones otherwise)
 */
struct xiw_atomic_req {
	__be32 aopcode;
	__be32 req_id;
	__be32 stag;
	__be64 to;
	__be64 data;
	__be64 mask;
	__be64 cmp;
	__be64 cmp_mask;
} __packed;

/**
 * struct xiw_atomic_resp - Atomic Operation Response header, after the
 *	untagged DDP header (RFC 7306 figure 6): 12 octets
 * @req_id: the request's Request Identifier
 * @orig: the target's value before the operation
 */
struct xiw_atomic_resp {
	__be32 req_id;
	__be64 orig;
} __packed;

/**
 * xiw_atomic_fetch_add() - masked FetchAdd (RFC 7306 section 5.1.1)
 * @orig: the target's value
 * @add: Add Data
 * @mask: Add Mask: a set bit is the most significant bit of a field, and
 *	the carry out of it is discarded; 0 adds all 64 bits
 *
 * Each field is added on its own. Leaving every field's top bit out of a
 * plain addition makes a carry into it stop there; adding the top bits
 * without carry (xor) then gives each field's sum modulo its width — the
 * bit-serial pseudocode of the RFC, in three operations.
 *
 * Return: the value to store.
 */
static inline u64 xiw_atomic_fetch_add(u64 orig, u64 add, u64 mask)
{
	return ((orig & ~mask) + (add & ~mask)) ^ ((orig ^ add) & mask);
}

/**
 * xiw_atomic_cmp_swap() - masked CmpSwap (RFC 7306 section 5.1.2)
 * @orig: the target's value
 * @cmp: Compare Data
 * @cmp_mask: Compare Mask
 * @swap: Swap Data
 * @swap_mask: Swap Mask
 *
 * The swap happens when the masked values are equal, as the RFC's prose
 * and the draft's pseudocode say; the RFC's pseudocode lost the negation
 * (see Documentation/rfc7306.md).
 *
 * Return: the value to store (@orig unchanged when the compare fails).
 */
static inline u64 xiw_atomic_cmp_swap(u64 orig, u64 cmp, u64 cmp_mask,
				      u64 swap, u64 swap_mask)
{
	if ((cmp ^ orig) & cmp_mask)
		return orig;
	return (orig & ~swap_mask) | (swap & swap_mask);
}

/**
 * struct xiw_atomic_op - a decoded Atomic Operation Request
 * @aop: XIW_AOP_*
 * @req_id: Request Identifier
 * @stag: target STag
 * @to: target offset
 * @data: Add or Swap Data
 * @mask: Add or Swap Mask
 * @cmp: Compare Data
 * @cmp_mask: Compare Mask
 */
struct xiw_atomic_op {
	u8 aop;
	u32 req_id;
	u32 stag;
	u64 to;
	u64 data;
	u64 mask;
	u64 cmp;
	u64 cmp_mask;
};

void xiw_atomic_req_build(const struct xiw_atomic_op *op,
			  struct xiw_atomic_req *r);
int xiw_atomic_req_parse(const struct xiw_atomic_req *r,
			 struct xiw_atomic_op *op);
u64 xiw_atomic_apply(const struct xiw_atomic_op *op, u64 orig);
void xiw_atomic_resp_build(u32 req_id, u64 orig, struct xiw_atomic_resp *r);
int xiw_atomic_resp_match(const struct xiw_atomic_resp *r, u32 req_id,
			  u64 *orig);

#endif /* XIW_ATOMIC_H */
