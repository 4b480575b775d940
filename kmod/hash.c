// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA Verify hashes, through the kernel's crypto library (its CRC32c and
 * SHA-256): a table by algorithm, so that one more is one more row.
 */
#include <crypto/sha2.h>
#include <linux/crc32c.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <xiw/compat.h>

#include "hash.h"

static void xiw_crc32c_init(struct xiw_hash *h)
{
	h->crc = ~0U;
}

static void xiw_crc32c_update(struct xiw_hash *h, const u8 *data, u32 len)
{
	h->crc = crc32c(h->crc, data, len);
}

static void xiw_crc32c_final(struct xiw_hash *h, u8 *out)
{
	put_unaligned_le32(~h->crc, out);
}

static void xiw_sha256_init(struct xiw_hash *h)
{
	sha256_init(&h->sha256);
}

static void xiw_sha256_update(struct xiw_hash *h, const u8 *data, u32 len)
{
	sha256_update(&h->sha256, data, len);
}

static void xiw_sha256_final(struct xiw_hash *h, u8 *out)
{
	sha256_final(&h->sha256, out);
}

/**
 * struct xiw_hash_info - one algorithm
 * @name: its crypto API name
 * @len: digest octets
 * @init: start a hash
 * @update: hash more octets
 * @final: write the digest
 */
struct xiw_hash_info {
	const char *name;
	unsigned int len;
	void (*init)(struct xiw_hash *h);
	void (*update)(struct xiw_hash *h, const u8 *data, u32 len);
	void (*final)(struct xiw_hash *h, u8 *out);
};

static const struct xiw_hash_info xiw_hashes[XIW_HASH_COUNT] = {
	[XIW_HASH_CRC32C] = {
		.name = "crc32c", .len = 4, .init = xiw_crc32c_init,
		.update = xiw_crc32c_update, .final = xiw_crc32c_final,
	},
	[XIW_HASH_SHA256] = {
		.name = "sha256", .len = SHA256_DIGEST_SIZE,
		.init = xiw_sha256_init, .update = xiw_sha256_update,
		.final = xiw_sha256_final,
	},
};

/**
 * xiw_hash_len() - digest length of an algorithm
 * @alg: enum xiw_hash_alg
 *
 * Return: octets, 0 for XIW_HASH_NONE or an unknown value.
 */
unsigned int xiw_hash_len(u8 alg)
{
	return alg < XIW_HASH_COUNT ? xiw_hashes[alg].len : 0;
}

/**
 * xiw_hash_alg_by_name() - an algorithm by its crypto API name
 * @name: "crc32c" or "sha256"
 *
 * Return: enum xiw_hash_alg, or -ENOENT.
 */
int xiw_hash_alg_by_name(const char *name)
{
	int i;

	for (i = XIW_HASH_NONE + 1; i < XIW_HASH_COUNT; i++)
		if (!strcmp(xiw_hashes[i].name, name))
			return i;
	return -ENOENT;
}

/**
 * xiw_hash_init() - start a hash
 * @h: the state
 * @alg: a known algorithm other than XIW_HASH_NONE
 */
void xiw_hash_init(struct xiw_hash *h, u8 alg)
{
	h->alg = alg;
	xiw_hashes[alg].init(h);
}

/**
 * xiw_hash_update() - hash more octets
 * @h: the state
 * @data: the octets
 * @len: how many
 */
void xiw_hash_update(struct xiw_hash *h, const u8 *data, u32 len)
{
	xiw_hashes[h->alg].update(h, data, len);
}

/**
 * xiw_hash_final() - the digest
 * @h: the state
 * @out: xiw_hash_len() octets
 */
void xiw_hash_final(struct xiw_hash *h, u8 *out)
{
	xiw_hashes[h->alg].final(h, out);
}
