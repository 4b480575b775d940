// SPDX-License-Identifier: GPL-2.0
/*
 * draft-talpey-rdma-commit-01 request headers: build and check.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "commit.h"

/**
 * xiw_flush_req_build() - encode an RDMA Flush Request header
 * @h: the header
 * @stag: Data Sink STag
 * @to: Data Sink Tagged Offset
 * @len: octets to flush
 * @flags: XIW_FLUSH_*
 */
void xiw_flush_req_build(struct xiw_flush_req *h, u32 stag, u64 to, u32 len,
			 u8 flags)
{
	h->stag = cpu_to_be32(stag);
	h->len = cpu_to_be32(len);
	h->to = cpu_to_be64(to);
	h->flags = cpu_to_be32(flags);
}

/**
 * xiw_flush_req_parse() - decode and check an RDMA Flush Request header
 * @h: the header as received
 * @req: filled in
 *
 * A request must ask for persistence, global visibility or both, for the
 * range or (XIW_FLUSH_REGION) the whole region, and for nothing else; the
 * three octets above the flags are reserved and ignored. A zero length is
 * valid: it flushes nothing but is still checked against the STag.
 *
 * Return: 0, or -EINVAL for a disposition xiw cannot give.
 */
int xiw_flush_req_parse(const struct xiw_flush_req *h,
			struct xiw_commit_req *req)
{
	u8 flags = be32_to_cpu(h->flags) & 0xff;

	if (!(flags & XIW_FLUSH_DISPOSITION) || (flags & ~XIW_FLUSH_FLAGS))
		return -EINVAL;
	req->stag = be32_to_cpu(h->stag);
	req->len = be32_to_cpu(h->len);
	req->to = be64_to_cpu(h->to);
	req->flags = flags;
	req->data = 0;
	req->hash_len = 0;
	return 0;
}

/**
 * xiw_verify_req_build() - encode an RDMA Verify Request header
 * @h: the header; the expected hash, if any, follows it
 * @stag: Data Sink STag
 * @to: Data Sink Tagged Offset
 * @len: octets to hash
 */
void xiw_verify_req_build(struct xiw_verify_req *h, u32 stag, u64 to,
			  u32 len)
{
	h->stag = cpu_to_be32(stag);
	h->len = cpu_to_be32(len);
	h->to = cpu_to_be64(to);
}

/**
 * xiw_verify_req_parse() - decode an RDMA Verify Request header
 * @h: the header as received
 * @hash_len: octets of the message after it: the expected hash, or none
 * @req: filled in
 *
 * Whether @hash_len is the length of the responder's hash is the
 * responder's to check: the algorithm is a property of its MR.
 *
 * Return: 0, or -EMSGSIZE for a hash longer than any xiw computes.
 */
int xiw_verify_req_parse(const struct xiw_verify_req *h, size_t hash_len,
			 struct xiw_commit_req *req)
{
	if (hash_len > XIW_VERIFY_HASH_MAX)
		return -EMSGSIZE;
	req->stag = be32_to_cpu(h->stag);
	req->len = be32_to_cpu(h->len);
	req->to = be64_to_cpu(h->to);
	req->flags = 0;
	req->data = 0;
	req->hash_len = hash_len;
	return 0;
}

/**
 * xiw_atomic_write_req_build() - encode an Atomic Write Request header
 * @h: the header
 * @stag: Data Sink STag
 * @to: Data Sink Tagged Offset, 64-bit aligned
 * @data: the value to place
 */
void xiw_atomic_write_req_build(struct xiw_atomic_write_req *h, u32 stag,
				u64 to, u64 data)
{
	h->stag = cpu_to_be32(stag);
	h->len = cpu_to_be32(XIW_ATOMIC_WRITE_LEN);
	h->to = cpu_to_be64(to);
	h->data = cpu_to_be64(data);
}

/**
 * xiw_atomic_write_req_parse() - decode and check an Atomic Write Request
 *	header
 * @h: the header as received
 * @req: filled in
 *
 * The draft allows 8 octets at a 64-bit aligned address only: anything
 * else cannot be placed atomically and must not be placed at all.
 *
 * Return: 0, or -EINVAL for another length or an unaligned offset.
 */
int xiw_atomic_write_req_parse(const struct xiw_atomic_write_req *h,
			       struct xiw_commit_req *req)
{
	u32 len = be32_to_cpu(h->len);
	u64 to = be64_to_cpu(h->to);

	if (len != XIW_ATOMIC_WRITE_LEN || (to & (XIW_ATOMIC_WRITE_LEN - 1)))
		return -EINVAL;
	req->stag = be32_to_cpu(h->stag);
	req->len = len;
	req->to = to;
	req->flags = 0;
	req->data = be64_to_cpu(h->data);
	req->hash_len = 0;
	return 0;
}

/**
 * xiw_atomic_write_op() - an Atomic Write as an operation on its word
 * @op: filled in
 * @stag: Data Sink STag
 * @to: Data Sink Tagged Offset
 * @value: the value to place
 *
 * Placing 8 octets at once is an unconditional swap: a Compare and Swap
 * whose compare mask is empty and whose swap mask is full. The word is
 * then updated by the compare-and-exchange that serves the RFC 7306
 * atomics, so an Atomic Write is atomic against them too.
 */
void xiw_atomic_write_op(struct xiw_atomic_op *op, u32 stag, u64 to,
			 u64 value)
{
	memset(op, 0, sizeof(*op));
	op->aop = XIW_AOP_CMP_SWAP;
	op->stag = stag;
	op->to = to;
	op->data = value;
	op->mask = U64_MAX;
	op->cmp_mask = 0;
}
