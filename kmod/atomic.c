// SPDX-License-Identifier: GPL-2.0
/*
 * RFC 7306 Atomic Operation Request/Response encoding and the operations'
 * arithmetic. The responder's memory access, locking and ordering live in
 * the receive engine; this file only knows the protocol.
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "atomic.h"

/**
 * xiw_atomic_req_build() - encode an Atomic Operation Request header
 * @op: the operation; fields the AOpCode does not use are sent as the RFC
 *	says (Compare Data zero, Compare Mask all ones for FetchAdd)
 * @r: output
 */
void xiw_atomic_req_build(const struct xiw_atomic_op *op,
			  struct xiw_atomic_req *r)
{
	bool cs = op->aop == XIW_AOP_CMP_SWAP;

	r->aopcode = cpu_to_be32(op->aop & XIW_AOP_MASK);
	r->req_id = cpu_to_be32(op->req_id);
	r->stag = cpu_to_be32(op->stag);
	r->to = cpu_to_be64(op->to);
	r->data = cpu_to_be64(op->data);
	r->mask = cpu_to_be64(op->mask);
	r->cmp = cpu_to_be64(cs ? op->cmp : 0);
	r->cmp_mask = cpu_to_be64(cs ? op->cmp_mask : U64_MAX);
}

/**
 * xiw_atomic_req_parse() - decode and check an Atomic Operation Request
 * @r: the header as received
 * @op: decoded operation, written only on success
 *
 * The reserved bits are ignored. Only what the header alone decides is
 * checked here; the target's STag, bounds and rights are the receiver's.
 *
 * Return: 0, -EOPNOTSUPP for an AOpCode RFC 7306 does not define (Swap,
 * 1, included: the RFC dropped it), -EINVAL for a target offset that is
 * not 64-bit aligned.
 */
int xiw_atomic_req_parse(const struct xiw_atomic_req *r,
			 struct xiw_atomic_op *op)
{
	u8 aop = be32_to_cpu(r->aopcode) & XIW_AOP_MASK;
	u64 to = be64_to_cpu(r->to);

	if (aop != XIW_AOP_FETCH_ADD && aop != XIW_AOP_CMP_SWAP)
		return -EOPNOTSUPP;
	if (to & 7)
		return -EINVAL;
	op->aop = aop;
	op->req_id = be32_to_cpu(r->req_id);
	op->stag = be32_to_cpu(r->stag);
	op->to = to;
	op->data = be64_to_cpu(r->data);
	op->mask = be64_to_cpu(r->mask);
	op->cmp = be64_to_cpu(r->cmp);
	op->cmp_mask = be64_to_cpu(r->cmp_mask);
	return 0;
}

/**
 * xiw_atomic_apply() - the value an operation stores over @orig
 * @op: a parsed operation
 * @orig: the target's value, in host order
 *
 * Return: the new value (equal to @orig when a CmpSwap does not match).
 */
u64 xiw_atomic_apply(const struct xiw_atomic_op *op, u64 orig)
{
	if (op->aop == XIW_AOP_FETCH_ADD)
		return xiw_atomic_fetch_add(orig, op->data, op->mask);
	return xiw_atomic_cmp_swap(orig, op->cmp, op->cmp_mask, op->data,
				   op->mask);
}

/**
 * xiw_atomic_resp_build() - encode an Atomic Operation Response header
 * @req_id: the request's Request Identifier
 * @orig: the target's value before the operation, host order
 * @r: output
 */
void xiw_atomic_resp_build(u32 req_id, u64 orig, struct xiw_atomic_resp *r)
{
	r->req_id = cpu_to_be32(req_id);
	r->orig = cpu_to_be64(orig);
}

/**
 * xiw_atomic_resp_match() - is a received response the answer to the
 *	request the requester expects next?
 * @r: the header as received
 * @req_id: the Request Identifier of the oldest outstanding request
 * @orig: the original value, host order, written only on a match
 *
 * Return: 0, or -EPROTO for another Request Identifier.
 */
int xiw_atomic_resp_match(const struct xiw_atomic_resp *r, u32 req_id,
			  u64 *orig)
{
	if (be32_to_cpu(r->req_id) != req_id)
		return -EPROTO;
	*orig = be64_to_cpu(r->orig);
	return 0;
}
