/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RFC 5040 STag rules (section 5.3 and 8.1): the state an STag's
 * registration is in, what a tagged access must satisfy, and which
 * invalidations are allowed. Pure protocol code (no ib_verbs.h): mr.c
 * keeps one of these per MR under the MR's lock, and KUnit tests the state
 * machine under UML.
 */
#ifndef XIW_STAG_H
#define XIW_STAG_H

#include <linux/types.h>

/* An STag is an index (upper 24 bits) and a consumer-owned key. */
#define XIW_STAG_KEY_BITS	8
#define XIW_STAG_KEY_MASK	0xffU

#define XIW_STAG_INDEX_BITS	24

static inline u32 xiw_stag_index(u32 stag)
{
	return stag >> XIW_STAG_KEY_BITS;
}

/**
 * struct xiw_stag_perm - a device's secret permutation between the slots
 *	its STag table allocates densely and the STag indices peers see
 * @key: round keys, random per device
 */
struct xiw_stag_perm {
	u32 key[4];
};

u32 xiw_stag_perm_index(const struct xiw_stag_perm *p, u32 slot);
u32 xiw_stag_perm_slot(const struct xiw_stag_perm *p, u32 index);

/**
 * struct xiw_stag - one STag's registration
 * @valid: RFC 5040's Valid state; else Invalid
 * @fast: a fast-registration STag: it may be invalidated (locally, or by
 *	a peer of its protection domain) and registered again with a new
 *	key. The protection domain's all-memory STag is not.
 * @stag: the STag, key included
 * @owner: the protection domain it belongs to (compared, never used)
 * @access: the rights granted, as a bit mask (the caller's bits)
 * @base: first tagged offset
 * @length: octets from @base; 0 with @base 0 means all of memory
 */
struct xiw_stag {
	bool valid;
	bool fast;
	u32 stag;
	const void *owner;
	int access;
	u64 base;
	u64 length;
};

int xiw_stag_check(const struct xiw_stag *s, u32 stag, const void *owner,
		   int access, u64 to, u64 len);
int xiw_stag_register(struct xiw_stag *s, u32 key, const void *owner,
		      int access, u64 base, u64 length);
int xiw_stag_invalidate(struct xiw_stag *s, u32 stag, const void *owner);

#endif /* XIW_STAG_H */
