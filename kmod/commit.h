/* SPDX-License-Identifier: GPL-2.0 */
/*
 * draft-talpey-rdma-commit-01: the wire headers of RDMA Flush, RDMA Verify
 * and Atomic Write, and the checks a responder makes of a request before
 * it touches memory. Pure protocol code (no ib_verbs.h): KUnit tests it
 * under UML. The draft's figures were lost; the layout chosen from its
 * prose is in Documentation/commit-draft.md.
 */
#ifndef XIW_COMMIT_H
#define XIW_COMMIT_H

#include <linux/types.h>

#include "atomic.h"

/* Flush Request flags: the disposition asked for (draft section 3.1.1.1) */
#define XIW_FLUSH_PERSISTENT	0x01
#define XIW_FLUSH_GLOBAL	0x02
#define XIW_FLUSH_DISPOSITION	(XIW_FLUSH_PERSISTENT | XIW_FLUSH_GLOBAL)
/*
 * xiw's flag, after the "selectivity" the draft leaves to a later version:
 * the whole region the STag names, its offset and length ignored (sent as
 * zero). A peer without it refuses the unknown flag.
 */
#define XIW_FLUSH_REGION	0x04
#define XIW_FLUSH_FLAGS		(XIW_FLUSH_DISPOSITION | XIW_FLUSH_REGION)

/* Atomic Write carries exactly this much data (draft section 3.1.3.1). */
#define XIW_ATOMIC_WRITE_LEN	8

/*
 * The longest hash a Verify Request or Response carries: SHA-512's. The
 * algorithm, and so the length, is the responder's per-MR choice.
 */
#define XIW_VERIFY_HASH_MAX	64

/**
 * struct xiw_flush_req - RDMA Flush Request header, after the untagged DDP
 *	header: 20 octets
 * @stag: Data Sink STag
 * @len: Data Sink Length, octets to flush
 * @to: Data Sink Tagged Offset
 * @flags: XIW_FLUSH_* in the low octet; the rest reserved, zero
 */
struct xiw_flush_req {
	__be32 stag;
	__be32 len;
	__be64 to;
	__be32 flags;
} __packed;

/**
 * struct xiw_verify_req - RDMA Verify Request header, after the untagged
 *	DDP header: 16 octets, then the expected hash (optional: the rest of
 *	the message, up to %XIW_VERIFY_HASH_MAX octets)
 * @stag: Data Sink STag
 * @len: Data Sink Length, octets to hash
 * @to: Data Sink Tagged Offset
 */
struct xiw_verify_req {
	__be32 stag;
	__be32 len;
	__be64 to;
} __packed;

/**
 * struct xiw_atomic_write_req - Atomic Write Request header, after the
 *	untagged DDP header: 24 octets
 * @stag: Data Sink STag
 * @len: Data Sink Length, always %XIW_ATOMIC_WRITE_LEN
 * @to: Data Sink Tagged Offset, 64-bit aligned
 * @data: the value to place, big-endian
 */
struct xiw_atomic_write_req {
	__be32 stag;
	__be32 len;
	__be64 to;
	__be64 data;
} __packed;

/**
 * struct xiw_commit_req - a Flush, Verify or Atomic Write Request, decoded
 * @stag: Data Sink STag
 * @len: octets it targets
 * @to: Tagged Offset of the first
 * @flags: Flush: XIW_FLUSH_*
 * @data: Atomic Write: the value to place
 * @hash_len: Verify: octets of expected hash, 0 for none
 */
struct xiw_commit_req {
	u32 stag;
	u32 len;
	u64 to;
	u8 flags;
	u64 data;
	u8 hash_len;
};

void xiw_flush_req_build(struct xiw_flush_req *h, u32 stag, u64 to, u32 len,
			 u8 flags);
int xiw_flush_req_parse(const struct xiw_flush_req *h,
			struct xiw_commit_req *req);
void xiw_verify_req_build(struct xiw_verify_req *h, u32 stag, u64 to,
			  u32 len);
int xiw_verify_req_parse(const struct xiw_verify_req *h, size_t hash_len,
			 struct xiw_commit_req *req);
void xiw_atomic_write_req_build(struct xiw_atomic_write_req *h, u32 stag,
				u64 to, u64 data);
int xiw_atomic_write_req_parse(const struct xiw_atomic_write_req *h,
			       struct xiw_commit_req *req);
void xiw_atomic_write_op(struct xiw_atomic_op *op, u32 stag, u64 to,
			 u64 value);

#endif /* XIW_COMMIT_H */
