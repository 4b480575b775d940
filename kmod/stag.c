// SPDX-License-Identifier: GPL-2.0
/*
 * The STag state machine of RFC 5040: Invalid <-> Valid for
 * fast-registration STags, always Valid for the all-memory one, and the
 * checks of every tagged access, in the order that decides which error a
 * peer is told about when several apply; and the mapping that keeps STag
 * indices hard to predict.
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "iwarp.h"
#include "rdmap.h"
#include "stag.h"

#define XIW_STAG_PROT(code) \
	XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT, code)

/**
 * xiw_stag_check() - may an access go through this STag?
 * @s: the registration the STag's index names
 * @stag: the STag the access carries, key included
 * @owner: protection domain of the stream making the access
 * @access: rights needed (bits of @s->access); 0 for none
 * @to: first octet (tagged offset)
 * @len: octets
 *
 * An STag that is invalid or has another key is invalid (a stale key is
 * not a "wrong PD"); then come the protection domain, the rights, the
 * wrap of the range and its bounds.
 *
 * Return: 0, or the RDMAP remote protection Terminate cause (callers of
 * the DDP tagged path map it to the DDP code).
 */
int xiw_stag_check(const struct xiw_stag *s, u32 stag, const void *owner,
		   int access, u64 to, u64 len)
{
	if (!s->valid || s->stag != stag)
		return XIW_STAG_PROT(XIW_RDMAP_INV_STAG);
	if (s->owner != owner)
		return XIW_STAG_PROT(XIW_RDMAP_STAG_NOT_ASSOC);
	if ((s->access & access) != access)
		return XIW_STAG_PROT(XIW_RDMAP_ACCESS);
	/* The range wraps if its last octet is past 2^64 - 1. */
	if (len && to + (len - 1) < to)
		return XIW_STAG_PROT(XIW_RDMAP_TO_WRAP);
	if (s->length &&
	    (to < s->base || to - s->base > s->length ||
	     len > s->length - (to - s->base)))
		return XIW_STAG_PROT(XIW_RDMAP_BOUNDS);
	return 0;
}

/**
 * xiw_stag_register() - make an invalid fast-registration STag valid
 * @s: the registration
 * @key: the new STag: same index, the consumer's new key
 * @owner: protection domain of the QP executing the registration
 * @access: rights granted
 * @base: first tagged offset
 * @length: octets, at least 1; @base + @length must not wrap
 *
 * Return: 0; -EPERM for the all-memory STag or another protection domain;
 * -EBUSY if the STag is valid (it must be invalidated first); -EINVAL for
 * another index or an empty or wrapping range.
 */
int xiw_stag_register(struct xiw_stag *s, u32 key, const void *owner,
		      int access, u64 base, u64 length)
{
	if (!s->fast || s->owner != owner)
		return -EPERM;
	if (s->valid)
		return -EBUSY;
	if (xiw_stag_index(key) != xiw_stag_index(s->stag) || !length ||
	    base + length < base)
		return -EINVAL;
	s->stag = key;
	s->access = access;
	s->base = base;
	s->length = length;
	s->valid = true;
	return 0;
}

/**
 * xiw_stag_invalidate() - move an STag to the Invalid state
 * @s: the registration the STag's index names
 * @stag: the STag named, key included
 * @owner: protection domain of the stream (or QP) invalidating it
 *
 * Only a valid fast-registration STag of the invalidator's protection
 * domain can be invalidated (RFC 5040 section 5.3 for remote ones).
 *
 * Return: 0, or the RDMAP remote protection Terminate cause: invalid STag
 * (wrong key, already invalid), or STag cannot be invalidated (another
 * protection domain, the all-memory STag).
 */
int xiw_stag_invalidate(struct xiw_stag *s, u32 stag, const void *owner)
{
	if (!s->valid || s->stag != stag)
		return XIW_STAG_PROT(XIW_RDMAP_INV_STAG);
	if (!s->fast || s->owner != owner)
		return XIW_STAG_PROT(XIW_RDMAP_CANT_INVALIDATE);
	s->valid = false;
	return 0;
}

/*
 * STag indices must be hard to predict (RFC 5040 section 8.1.1, item 8),
 * yet the table is best kept dense. A four-round Feistel network on the 24
 * index bits, keyed per device, maps slot numbers to indices and back;
 * cycle-walking keeps 0 out of both ranges (index 0 names nothing).
 */
#define XIW_STAG_HALF_BITS	(XIW_STAG_INDEX_BITS / 2)
#define XIW_STAG_HALF_MASK	((1U << XIW_STAG_HALF_BITS) - 1)

static u32 xiw_stag_round(u32 half, u32 key)
{
	return ((half ^ key) * 0x9e3779b1U) >> (32 - XIW_STAG_HALF_BITS);
}

static u32 xiw_stag_feistel(const struct xiw_stag_perm *p, u32 x)
{
	u32 l = x >> XIW_STAG_HALF_BITS & XIW_STAG_HALF_MASK;
	u32 r = x & XIW_STAG_HALF_MASK;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(p->key); i++) {
		u32 t = r;

		r = l ^ xiw_stag_round(r, p->key[i]);
		l = t;
	}
	return l << XIW_STAG_HALF_BITS | r;
}

static u32 xiw_stag_feistel_inverse(const struct xiw_stag_perm *p, u32 x)
{
	u32 l = x >> XIW_STAG_HALF_BITS & XIW_STAG_HALF_MASK;
	u32 r = x & XIW_STAG_HALF_MASK;
	unsigned int i;

	for (i = ARRAY_SIZE(p->key); i--; ) {
		u32 t = l;

		l = r ^ xiw_stag_round(l, p->key[i]);
		r = t;
	}
	return l << XIW_STAG_HALF_BITS | r;
}

/**
 * xiw_stag_perm_index() - the STag index of a table slot
 * @p: the device's permutation
 * @slot: 1 .. 2^24 - 1
 *
 * Return: the index, 1 .. 2^24 - 1; distinct slots give distinct indices.
 */
u32 xiw_stag_perm_index(const struct xiw_stag_perm *p, u32 slot)
{
	u32 index = xiw_stag_feistel(p, slot);

	return index ? index : xiw_stag_feistel(p, 0);
}

/**
 * xiw_stag_perm_slot() - the table slot of an STag index
 * @p: the device's permutation
 * @index: an STag index, 0 .. 2^24 - 1
 *
 * Return: the slot xiw_stag_perm_index() maps to @index, or 0 for index 0.
 */
u32 xiw_stag_perm_slot(const struct xiw_stag_perm *p, u32 index)
{
	u32 slot;

	if (!index)
		return 0;
	slot = xiw_stag_feistel_inverse(p, index);
	return slot ? slot : xiw_stag_feistel_inverse(p, 0);
}
