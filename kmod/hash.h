/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hashes of RDMA Verify (draft-talpey-rdma-commit-01 section 3.1.2):
 * one dispatch over the algorithms a responder's MR may be set to. Pure
 * (no ib_verbs.h): KUnit tests it under UML.
 */
#ifndef XIW_HASH_H
#define XIW_HASH_H

#include <crypto/sha2.h>
#include <linux/types.h>

/**
 * enum xiw_hash_alg - a Verify hash (include/xiw/verbs.h's
 *	enum xiw_verify_alg has the same values)
 * @XIW_HASH_NONE: the MR is not verifiable
 * @XIW_HASH_CRC32C: CRC32c, 4 octets as the crypto API's "crc32c" gives
 *	them (the inverted CRC, little-endian)
 * @XIW_HASH_SHA256: SHA-256, 32 octets
 * @XIW_HASH_COUNT: number of values
 */
enum xiw_hash_alg {
	XIW_HASH_NONE,
	XIW_HASH_CRC32C,
	XIW_HASH_SHA256,
	XIW_HASH_COUNT,
};

/**
 * struct xiw_hash - a hash being computed
 * @alg: enum xiw_hash_alg
 * @crc: CRC32c state
 * @sha256: SHA-256 state
 */
struct xiw_hash {
	u8 alg;
	union {
		u32 crc;
		struct sha256_state sha256;
	};
};

unsigned int xiw_hash_len(u8 alg);
int xiw_hash_alg_by_name(const char *name);
void xiw_hash_init(struct xiw_hash *h, u8 alg);
void xiw_hash_update(struct xiw_hash *h, const u8 *data, u32 len);
void xiw_hash_final(struct xiw_hash *h, u8 *out);

#endif /* XIW_HASH_H */
