// SPDX-License-Identifier: GPL-2.0
/*
 * Parser fuzzing of the extensions to RDMAP and of the STag rules: RFC 7306
 * Atomic requests and responses, the commit draft's Flush, Verify and
 * Atomic Write requests, Verify hash names and digests, and STag checks,
 * registration and index permutation. How the cases work, their oracles
 * and how to replay them: fuzz_kunit.h.
 */
#include <kunit/test.h>
#include <linux/ctype.h>
#include <linux/minmax.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "atomic.h"
#include "commit.h"
#include "fuzz_kunit.h"
#include "hash.h"
#include "rdmap.h"
#include "stag.h"

/* RFC 7306 Atomic Operation Request and Response */

static bool check_atomic_req(struct kunit *test, const struct xiw_atomic_req *in)
{
	struct xiw_atomic_req *buf = (void *)exact(test, in, sizeof(*in));
	struct xiw_atomic_op op, canary;
	struct xiw_atomic_req again;
	u8 aop = be32_to_cpu(in->aopcode) & XIW_AOP_MASK;
	bool aop_ok = aop == XIW_AOP_FETCH_ADD || aop == XIW_AOP_CMP_SWAP;
	bool to_ok = !(be64_to_cpu(in->to) & 7);
	int ret;

	memset(&canary, 0xa5, sizeof(canary));
	memcpy(&op, &canary, sizeof(op));
	ret = xiw_atomic_req_parse(buf, &op);
	kunit_kfree(test, buf);
	if (!aop_ok || !to_ok) {
		KUNIT_ASSERT_TRUE_MSG(test, (!aop_ok && ret == -EOPNOTSUPP) ||
				      (!to_ok && ret == -EINVAL),
				      "ret %d for %*ph", ret,
				      (int)sizeof(*in), in);
		KUNIT_ASSERT_MEMEQ(test, &op, &canary, sizeof(op));
		return false;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* Compare Data and Mask come as sent, whatever the AOpCode. */
	KUNIT_ASSERT_EQ(test, op.cmp, be64_to_cpu(in->cmp));
	KUNIT_ASSERT_EQ(test, op.cmp_mask, be64_to_cpu(in->cmp_mask));
	/*
	 * Encoded again: the same, reserved bits clear, FetchAdd's unused
	 * compare fields as RFC 7306 has a requester send them.
	 */
	xiw_atomic_req_build(&op, &again);
	KUNIT_ASSERT_EQ(test, be32_to_cpu(again.aopcode), aop);
	KUNIT_ASSERT_MEMEQ(test, &again.req_id, &in->req_id,
			   offsetof(struct xiw_atomic_req, cmp) -
			   offsetof(struct xiw_atomic_req, req_id));
	if (aop == XIW_AOP_CMP_SWAP) {
		KUNIT_ASSERT_EQ(test, be64_to_cpu(again.cmp),
				be64_to_cpu(in->cmp));
		KUNIT_ASSERT_EQ(test, be64_to_cpu(again.cmp_mask),
				be64_to_cpu(in->cmp_mask));
	} else {
		KUNIT_ASSERT_EQ(test, be64_to_cpu(again.cmp), 0ULL);
		KUNIT_ASSERT_EQ(test, be64_to_cpu(again.cmp_mask), U64_MAX);
	}
	return true;
}

static void rnd_atomic_req(struct rnd_state *r, struct xiw_atomic_req *a)
{
	a->aopcode = cpu_to_be32(one_in(r, 4) ? rnd32(r) :
				 (one_in(r, 2) ? XIW_AOP_CMP_SWAP :
						 XIW_AOP_FETCH_ADD));
	a->req_id = cpu_to_be32(rnd_edge(r));
	a->stag = cpu_to_be32(rnd_edge(r));
	a->to = cpu_to_be64(one_in(r, 2) ? rnd_edge(r) : rnd_edge(r) & ~7ULL);
	a->data = cpu_to_be64(rnd_edge(r));
	a->mask = cpu_to_be64(rnd_edge(r));
	a->cmp = cpu_to_be64(rnd_edge(r));
	a->cmp_mask = cpu_to_be64(rnd_edge(r));
}

static void fuzz_atomic(struct kunit *test)
{
	static const u64 tos[] = {
		0, 1, 2, 4, 7, 8, 0xfff8, 0x8000000000000000ULL,
		0x8000000000000001ULL, U64_MAX - 7, U64_MAX - 1, U64_MAX,
	};
	struct xiw_atomic_resp *resp;
	struct xiw_atomic_req req;
	unsigned int aop, i, bit, yes = 0;
	struct rnd_state r;
	u64 orig;

	xiw_fuzz_start(test, &r);
	/* Every AOpCode, reserved bits clear or set, at every offset limit. */
	for (aop = 0; aop <= XIW_AOP_MASK; aop++) {
		for (i = 0; i < ARRAY_SIZE(tos); i++) {
			rnd_atomic_req(&r, &req);
			req.to = cpu_to_be64(tos[i]);
			req.aopcode = cpu_to_be32(aop);
			check_atomic_req(test, &req);
			req.aopcode = cpu_to_be32(aop | ~XIW_AOP_MASK);
			check_atomic_req(test, &req);
		}
	}
	/* Each single bit of valid requests, and all zeros and all ones. */
	for (aop = 0; aop < 2; aop++) {
		for (bit = 0; bit < 8 * sizeof(req); bit++) {
			rnd_atomic_req(&r, &req);
			req.aopcode = cpu_to_be32(aop ? XIW_AOP_CMP_SWAP :
						  XIW_AOP_FETCH_ADD);
			req.to = cpu_to_be64(be64_to_cpu(req.to) & ~7ULL);
			((u8 *)&req)[bit / 8] ^= 1 << (bit % 8);
			check_atomic_req(test, &req);
		}
	}
	memset(&req, 0, sizeof(req));
	check_atomic_req(test, &req);
	memset(&req, 0xff, sizeof(req));
	check_atomic_req(test, &req);

	for (i = 0; i < xiw_fuzz_iters; i++) {
		rnd_atomic_req(&r, &req);
		if (one_in(&r, 2))
			mutate(&r, (u8 *)&req, sizeof(req));
		yes += check_atomic_req(test, &req);
	}
	fuzz_mix(test, "Atomic Request", yes, xiw_fuzz_iters);

	/* A response matches its own Request Identifier, and only it. */
	resp = kunit_kmalloc(test, sizeof(*resp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, resp);
	for (i = 0; i < xiw_fuzz_iters; i++) {
		u32 id = rnd_edge(&r), want = one_in(&r, 2) ? id : rnd_edge(&r);
		u64 val = rnd_edge(&r);

		xiw_atomic_resp_build(id, val, resp);
		if (one_in(&r, 4))
			mutate(&r, (u8 *)resp, sizeof(*resp));
		orig = ~be64_to_cpu(resp->orig);
		if (be32_to_cpu(resp->req_id) != want) {
			KUNIT_ASSERT_EQ(test, xiw_atomic_resp_match(resp, want,
								    &orig),
					-EPROTO);
			KUNIT_ASSERT_EQ(test, orig, ~be64_to_cpu(resp->orig));
		} else {
			KUNIT_ASSERT_EQ(test, xiw_atomic_resp_match(resp, want,
								    &orig), 0);
			KUNIT_ASSERT_EQ(test, orig, be64_to_cpu(resp->orig));
		}
	}
}

/* The commit draft's Flush, Verify and Atomic Write requests */

static bool check_flush_req(struct kunit *test, const struct xiw_flush_req *in)
{
	struct xiw_flush_req *buf = (void *)exact(test, in, sizeof(*in));
	u8 flags = be32_to_cpu(in->flags);
	bool ok = (flags & XIW_FLUSH_DISPOSITION) && !(flags & ~XIW_FLUSH_FLAGS);
	struct xiw_flush_req again;
	struct xiw_commit_req req;
	int ret;

	ret = xiw_flush_req_parse(buf, &req);
	kunit_kfree(test, buf);
	KUNIT_ASSERT_EQ_MSG(test, ret, ok ? 0 : -EINVAL, "flags %08x",
			    be32_to_cpu(in->flags));
	if (!ok)
		return false;
	KUNIT_ASSERT_EQ(test, req.hash_len, 0);
	KUNIT_ASSERT_EQ(test, req.data, 0ULL);
	/* The same octets again, the reserved ones above the flags clear. */
	xiw_flush_req_build(&again, req.stag, req.to, req.len, req.flags);
	KUNIT_ASSERT_MEMEQ(test, &again, in, offsetof(struct xiw_flush_req,
						      flags));
	KUNIT_ASSERT_EQ(test, be32_to_cpu(again.flags), flags);
	return true;
}

static bool check_verify_req(struct kunit *test,
			     const struct xiw_verify_req *in, size_t hash_len)
{
	struct xiw_verify_req *buf = (void *)exact(test, in, sizeof(*in));
	struct xiw_verify_req again;
	struct xiw_commit_req req;
	int ret;

	ret = xiw_verify_req_parse(buf, hash_len, &req);
	kunit_kfree(test, buf);
	if (hash_len > XIW_VERIFY_HASH_MAX) {
		KUNIT_ASSERT_EQ(test, ret, -EMSGSIZE);
		return false;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, req.hash_len, hash_len);
	KUNIT_ASSERT_EQ(test, req.flags, 0);
	xiw_verify_req_build(&again, req.stag, req.to, req.len);
	KUNIT_ASSERT_MEMEQ(test, &again, in, sizeof(again));
	return true;
}

static bool check_atomic_write_req(struct kunit *test,
				   const struct xiw_atomic_write_req *in,
				   u64 orig)
{
	struct xiw_atomic_write_req *buf = (void *)exact(test, in, sizeof(*in));
	bool ok = be32_to_cpu(in->len) == XIW_ATOMIC_WRITE_LEN &&
		  !(be64_to_cpu(in->to) % XIW_ATOMIC_WRITE_LEN);
	struct xiw_atomic_write_req again;
	struct xiw_commit_req req;
	struct xiw_atomic_op op;
	int ret;

	ret = xiw_atomic_write_req_parse(buf, &req);
	kunit_kfree(test, buf);
	KUNIT_ASSERT_EQ_MSG(test, ret, ok ? 0 : -EINVAL, "request %*ph",
			    (int)sizeof(*in), in);
	if (!ok)
		return false;
	xiw_atomic_write_req_build(&again, req.stag, req.to, req.data);
	KUNIT_ASSERT_MEMEQ(test, &again, in, sizeof(again));
	/* Placed as an unconditional swap: whatever was there, the data. */
	xiw_atomic_write_op(&op, req.stag, req.to, req.data);
	KUNIT_ASSERT_EQ(test, xiw_atomic_apply(&op, orig), req.data);
	return true;
}

static void fuzz_commit(struct kunit *test)
{
	static const u64 hash_lens[] = {
		0, 1, 4, 31, 32, 33, 63, XIW_VERIFY_HASH_MAX,
		XIW_VERIFY_HASH_MAX + 1, 255, 256, 0xffff, 0x10000, U32_MAX,
		SIZE_MAX,
	};
	static const u32 wlens[] = { 0, 1, 4, 7, 8, 9, 16, 0x80000008,
				     U32_MAX };
	struct xiw_atomic_write_req aw;
	struct xiw_verify_req vr;
	struct xiw_flush_req fr;
	unsigned int i, bit, yes = 0;
	struct rnd_state r;

	xiw_fuzz_start(test, &r);
	/* Every flag octet, with the reserved octets above clear or not. */
	for (i = 0; i < 512; i++) {
		xiw_flush_req_build(&fr, rnd_edge(&r), rnd_edge(&r),
				    rnd_edge(&r), i & 0xff);
		if (i >= 256)
			fr.flags |= cpu_to_be32(rnd32(&r) & ~0xffU);
		check_flush_req(test, &fr);
	}
	/* Every hash length to one past the largest, and the far limits. */
	for (i = 0; i < ARRAY_SIZE(hash_lens) + XIW_VERIFY_HASH_MAX + 2; i++) {
		xiw_verify_req_build(&vr, rnd_edge(&r), rnd_edge(&r),
				     rnd_edge(&r));
		check_verify_req(test, &vr, i < ARRAY_SIZE(hash_lens) ?
				 hash_lens[i] : i - ARRAY_SIZE(hash_lens));
	}
	/* Atomic Write: every length limit, every misalignment. */
	for (i = 0; i < ARRAY_SIZE(wlens) * 16; i++) {
		xiw_atomic_write_req_build(&aw, rnd_edge(&r),
					   (rnd_edge(&r) & ~15ULL) + i % 16,
					   rnd_edge(&r));
		aw.len = cpu_to_be32(wlens[i / 16]);
		check_atomic_write_req(test, &aw, rnd_edge(&r));
	}
	/* Each single bit of valid requests, all zeros and all ones. */
	for (bit = 0; bit < 8 * sizeof(aw); bit++) {
		xiw_flush_req_build(&fr, rnd32(&r), rnd64(&r), rnd32(&r),
				    XIW_FLUSH_PERSISTENT);
		xiw_atomic_write_req_build(&aw, rnd32(&r), rnd64(&r) & ~7ULL,
					   rnd64(&r));
		if (bit < 8 * sizeof(fr)) {
			((u8 *)&fr)[bit / 8] ^= 1 << (bit % 8);
			check_flush_req(test, &fr);
		}
		((u8 *)&aw)[bit / 8] ^= 1 << (bit % 8);
		check_atomic_write_req(test, &aw, rnd64(&r));
	}
	memset(&fr, 0, sizeof(fr));
	memset(&aw, 0, sizeof(aw));
	check_flush_req(test, &fr);
	check_atomic_write_req(test, &aw, rnd64(&r));
	memset(&fr, 0xff, sizeof(fr));
	memset(&aw, 0xff, sizeof(aw));
	check_flush_req(test, &fr);
	check_atomic_write_req(test, &aw, rnd64(&r));

	for (i = 0; i < xiw_fuzz_iters; i++) {
		switch (below(&r, 3)) {
		case 0:
			xiw_flush_req_build(&fr, rnd_edge(&r), rnd_edge(&r),
					    rnd_edge(&r), rnd32(&r));
			mutate(&r, (u8 *)&fr, below(&r, 2) * sizeof(fr));
			yes += check_flush_req(test, &fr);
			break;
		case 1:
			xiw_verify_req_build(&vr, rnd_edge(&r), rnd_edge(&r),
					     rnd_edge(&r));
			mutate(&r, (u8 *)&vr, below(&r, 2) * sizeof(vr));
			yes += check_verify_req(test, &vr, one_in(&r, 2) ?
						below(&r,
						      2 * XIW_VERIFY_HASH_MAX) :
						rnd_edge(&r));
			break;
		default:
			xiw_atomic_write_req_build(&aw, rnd_edge(&r),
						   rnd_edge(&r) & ~7ULL,
						   rnd_edge(&r));
			mutate(&r, (u8 *)&aw, below(&r, 2) * sizeof(aw));
			yes += check_atomic_write_req(test, &aw, rnd_edge(&r));
			break;
		}
	}
	fuzz_mix(test, "Flush, Verify or Atomic Write Request", yes,
		 xiw_fuzz_iters);
}

/* RDMA Verify hashes */

static void hash_of(struct kunit *test, u8 alg, const u8 *data, u32 len,
		    u32 cut, u8 *out)
{
	u8 *a = exact(test, data, cut), *b = exact(test, data + cut, len - cut);
	struct xiw_hash h;

	xiw_hash_init(&h, alg);
	xiw_hash_update(&h, a, cut);
	xiw_hash_update(&h, b, len - cut);
	xiw_hash_final(&h, out);
	kunit_kfree(test, a);
	kunit_kfree(test, b);
}

static void check_hash_name(struct kunit *test, const char *name)
{
	char *s = (char *)exact(test, name, strlen(name) + 1);
	int want = -ENOENT;

	if (!strcmp(name, "crc32c"))
		want = XIW_HASH_CRC32C;
	else if (!strcmp(name, "sha256"))
		want = XIW_HASH_SHA256;
	KUNIT_ASSERT_EQ_MSG(test, xiw_hash_alg_by_name(s), want, "'%s'", name);
	kunit_kfree(test, s);
}

static void fuzz_hash(struct kunit *test)
{
	static const char *const names[] = { "crc32c", "sha256" };
	static const u32 lens[] = { 0, 1, 3, 4, 5, 55, 56, 63, 64, 65, 127,
				    128, 129, 4095, 4096 };
	static const char alphabet[] = "\ncrc32csha256CRCSHA-_ \x01\x7f\xa0\xff";
	unsigned int alg, i, j, len;
	u8 *data, *one, *two;
	struct rnd_state r;
	char name[24];

	xiw_fuzz_start(test, &r);
	/* Every algorithm value: only the two known ones have a digest. */
	for (alg = 0; alg < 256; alg++) {
		unsigned int n = xiw_hash_len(alg);

		KUNIT_ASSERT_LE(test, n, XIW_VERIFY_HASH_MAX);
		KUNIT_ASSERT_EQ(test, !!n,
				alg == XIW_HASH_CRC32C || alg == XIW_HASH_SHA256);
	}
	/* Names: exact, each prefix, one more character, another case. */
	check_hash_name(test, "");
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		for (len = 0; len <= strlen(names[i]); len++) {
			strscpy(name, names[i], len + 1);
			check_hash_name(test, name);
			for (j = 0; j < sizeof(alphabet) - 1; j++) {
				name[len] = alphabet[j];
				name[len + 1] = 0;
				check_hash_name(test, name);
			}
		}
		strscpy(name, names[i], sizeof(name));
		name[0] = toupper(name[0]);
		check_hash_name(test, name);
	}
	for (i = 0; i < xiw_fuzz_iters / 10; i++) {
		len = below(&r, sizeof(name));
		for (j = 0; j < len; j++)
			name[j] = one_in(&r, 8) ? 1 + below(&r, 255) :
				  alphabet[below(&r, sizeof(alphabet) - 1)];
		name[len] = 0;
		check_hash_name(test, name);
	}

	/* Digests of exact buffers, into exact buffers, split anywhere. */
	data = kunit_kmalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);
	for (i = 0; i < ARRAY_SIZE(lens) + xiw_fuzz_iters / 200; i++) {
		alg = one_in(&r, 2) ? XIW_HASH_CRC32C : XIW_HASH_SHA256;
		len = i < ARRAY_SIZE(lens) ? lens[i] : below(&r, 4097);
		rnd_fill(&r, data, len);
		one = kunit_kmalloc(test, xiw_hash_len(alg), GFP_KERNEL);
		two = kunit_kmalloc(test, xiw_hash_len(alg), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, one);
		KUNIT_ASSERT_NOT_NULL(test, two);
		hash_of(test, alg, data, len, len, one);
		hash_of(test, alg, data, len, below(&r, len + 1), two);
		KUNIT_ASSERT_MEMEQ(test, one, two, xiw_hash_len(alg));
		kunit_kfree(test, one);
		kunit_kfree(test, two);
	}
}

/* STags: what a tagged access names, and the index permutation */

#define STAG_ACCESS_BITS	0xf

/*
 * RFC 5040's checks, written from the ranges' last octets: a range of
 * @len octets at @to wraps if its last octet is past 2^64 - 1, and fits a
 * registration if its first and last octets (its first, when empty) lie
 * within the registration's.
 */
static int ref_stag_check(const struct xiw_stag *s, u32 stag,
			  const void *owner, int access, u64 to, u64 len)
{
	int prot = XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT, 0);

	if (!s->valid || s->stag != stag)
		return prot | XIW_RDMAP_INV_STAG;
	if (s->owner != owner)
		return prot | XIW_RDMAP_STAG_NOT_ASSOC;
	if ((s->access & access) != access)
		return prot | XIW_RDMAP_ACCESS;
	if (len && U64_MAX - to < len - 1)
		return prot | XIW_RDMAP_TO_WRAP;
	if (!s->length)
		return 0;	/* all of memory */
	if (to < s->base)
		return prot | XIW_RDMAP_BOUNDS;
	if (!len)
		return to - s->base <= s->length ? 0 :
		       prot | XIW_RDMAP_BOUNDS;
	return to + (len - 1) <= s->base + (s->length - 1) ? 0 :
	       prot | XIW_RDMAP_BOUNDS;
}

/* Offsets and lengths around a registration's edges. */
static u64 rnd_near(struct rnd_state *r, u64 base, u64 length)
{
	switch (below(r, 4)) {
	case 0:
		return base + below(r, 5) - 2;
	case 1:
		return base + length + below(r, 5) - 2;
	case 2:
		return base + below(r, length ? min_t(u64, length, U32_MAX) :
						U32_MAX);
	default:
		return rnd_edge(r);
	}
}

/* A registration that can exist: its last octet is in the 64-bit space. */
static void rnd_stag(struct rnd_state *r, struct xiw_stag *s,
		     const int *owners)
{
	s->valid = !one_in(r, 8);
	s->fast = one_in(r, 2);
	s->stag = rnd_edge(r);
	s->owner = &owners[below(r, 2)];
	s->access = rnd32(r) & STAG_ACCESS_BITS;
	s->base = 0;
	s->length = 0;	/* all of memory */
	if (one_in(r, 8))
		return;
	s->base = rnd_edge(r);
	s->length = max_t(u64, rnd_edge(r), 1);
	if (s->length - 1 > U64_MAX - s->base)
		s->length = U64_MAX - s->base + 1;
}

#define STAG_INDEX_MAX	(BIT(XIW_STAG_INDEX_BITS) - 1)

static void fuzz_stag(struct kunit *test)
{
	static const u32 ends[] = { 1, 2, STAG_INDEX_MAX - 1, STAG_INDEX_MAX };
	static const int owners[2];
	struct xiw_stag_perm perm;
	struct xiw_stag s, model;
	unsigned int i, k, yes = 0;
	struct rnd_state r;

	xiw_fuzz_start(test, &r);
	/* Tagged accesses around the edges of any registration. */
	for (i = 0; i < xiw_fuzz_iters; i++) {
		const void *owner;
		int access, ret;
		u64 to, len;
		u32 stag;

		rnd_stag(&r, &s, owners);
		stag = one_in(&r, 4) ? rnd_edge(&r) :
		       s.stag ^ (one_in(&r, 4) ? BIT(below(&r, 32)) : 0);
		owner = one_in(&r, 8) ? &owners[s.owner == &owners[0]] :
					s.owner;
		access = one_in(&r, 4) ? rnd32(&r) & STAG_ACCESS_BITS :
					 s.access & rnd32(&r);
		to = rnd_near(&r, s.base, s.length);
		len = one_in(&r, 2) ? rnd_edge(&r) :
		      rnd_near(&r, s.base, s.length) - to;
		ret = xiw_stag_check(&s, stag, owner, access, to, len);
		KUNIT_ASSERT_EQ_MSG(test, ret,
				    ref_stag_check(&s, stag, owner, access, to,
						   len),
				    "base %llx length %llx to %llx len %llx",
				    s.base, s.length, to, len);
		yes += !ret;
	}
	fuzz_mix(test, "tagged access", yes, xiw_fuzz_iters);

	/*
	 * Registration and invalidation in random order against a model of
	 * their kernel-doc: what is registered is exactly what checks pass.
	 */
	for (i = 0; i < xiw_fuzz_iters / 10; i++) {
		const void *owner = &owners[below(&r, 2)];
		u64 base = rnd_edge(&r), length = rnd_edge(&r);
		u32 key;
		int ret, want;

		if (!(i % 64)) {
			rnd_stag(&r, &model, owners);
			s = model;
		}
		key = one_in(&r, 4) ? rnd_edge(&r) :
		      (model.stag & ~XIW_STAG_KEY_MASK) | below(&r, 256);
		if (one_in(&r, 2)) {
			ret = xiw_stag_register(&s, key, owner, model.access,
						base, length);
			if (!model.fast || model.owner != owner)
				want = -EPERM;
			else if (model.valid)
				want = -EBUSY;
			else if (xiw_stag_index(key) !=
				 xiw_stag_index(model.stag) || !length ||
				 length - 1 >= U64_MAX - base)
				want = -EINVAL;	/* its end must be a u64 */
			else
				want = 0;
			KUNIT_ASSERT_EQ_MSG(test, ret, want,
					    "base %llx length %llx", base,
					    length);
			if (!ret) {
				model.valid = true;
				model.stag = key;
				model.base = base;
				model.length = length;
			}
		} else {
			key = one_in(&r, 2) ? model.stag : key;
			ret = xiw_stag_invalidate(&s, key, owner);
			if (!model.valid || model.stag != key)
				want = XIW_TERM(XIW_TERM_LAYER_RDMAP,
						XIW_RDMAP_ETYPE_PROT,
						XIW_RDMAP_INV_STAG);
			else if (!model.fast || model.owner != owner)
				want = XIW_TERM(XIW_TERM_LAYER_RDMAP,
						XIW_RDMAP_ETYPE_PROT,
						XIW_RDMAP_CANT_INVALIDATE);
			else
				want = 0;
			KUNIT_ASSERT_EQ(test, ret, want);
			if (!ret)
				model.valid = false;
		}
		KUNIT_ASSERT_EQ(test, s.valid, model.valid);
		KUNIT_ASSERT_EQ(test, s.stag, model.stag);
		KUNIT_ASSERT_EQ(test, s.base, model.base);
		KUNIT_ASSERT_EQ(test, s.length, model.length);
	}

	/*
	 * Permutations under random keys: every slot and every STag index
	 * a peer can name maps and maps back.
	 */
	for (k = 0; k < 16; k++) {
		rnd_fill(&r, perm.key, sizeof(perm.key));
		KUNIT_ASSERT_EQ(test, xiw_stag_perm_slot(&perm, 0), 0U);
		for (i = 0; i < xiw_fuzz_iters / 16; i++) {
			u32 x = i < ARRAY_SIZE(ends) ? ends[i] :
				xiw_stag_index(rnd32(&r)) ?: 1;
			u32 index = xiw_stag_perm_index(&perm, x);
			u32 slot = xiw_stag_perm_slot(&perm, x);

			KUNIT_ASSERT_GE(test, index, 1U);
			KUNIT_ASSERT_LE(test, index, STAG_INDEX_MAX);
			KUNIT_ASSERT_EQ(test, xiw_stag_perm_slot(&perm, index),
					x);
			KUNIT_ASSERT_GE(test, slot, 1U);
			KUNIT_ASSERT_LE(test, slot, STAG_INDEX_MAX);
			KUNIT_ASSERT_EQ(test, xiw_stag_perm_index(&perm, slot),
					x);
		}
	}
}

static struct kunit_case xiw_ext_fuzz_cases[] = {
	KUNIT_CASE(fuzz_atomic),
	KUNIT_CASE(fuzz_commit),
	KUNIT_CASE(fuzz_hash),
	KUNIT_CASE(fuzz_stag),
	{}
};

static struct kunit_suite xiw_ext_fuzz_suite = {
	.name = "xiw_ext_fuzz",
	.suite_init = xiw_fuzz_suite_init,
	.test_cases = xiw_ext_fuzz_cases,
};

kunit_test_suite(xiw_ext_fuzz_suite);
