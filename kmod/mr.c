// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions and the STag table.
 *
 * An STag is (index << 8) | key. The index, through the device's secret
 * permutation (stag.c), names a slot of the device's xarray, which holds
 * the MR; lookups run under RCU and take a reference, so a deregistration
 * waits for every placement in progress before it returns.
 *
 * Deregistration in bounded time. Some references last as long as the
 * peer wants: a placement holds its MR from the header of a tagged FPDU
 * to its last octet (a peer may send half an FPDU and stall), a Read
 * being answered and a batch not yet in TCP's hands hold theirs until
 * TCP takes the data (a peer may close its receive window). So
 * deregistration first takes the STag out of the table and invalidates
 * it (no new reference, and every holder's next access through it fails),
 * then waits XIW_DEREG_PATIENCE for the references; after that, every QP
 * still holding one is stalled by its peer, or as good as: each is ended
 * with a local catastrophic error (Terminate, QP to error), which lets go
 * of its references at once (xiw_qp_to_error()), and the wait resumes,
 * until none is left. The pages are never freed under anyone: the wait
 * still ends only when the last reference is gone, and what TCP took of
 * spliced pages it holds by page references of its own.
 *
 * Fast registration (RFC 5040's STag states): an MR from alloc_mr() starts
 * invalid. IB_WR_REG_MR, executed in send queue order, makes it valid with
 * the page list map_mr_sg() prepared, the consumer's new key, rights and
 * address range; an invalidation (local, or remote through Send with
 * Invalidate, or by RDMA Read with Invalidate at its completion) makes it
 * invalid again. Placement through the MR checks, under the MR's lock,
 * that the STag it was looked up by is still the valid one, so nothing is
 * written through an STag after its invalidation completed.
 */
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "hash.h"
#include "obj.h"
#include "verbs.h"
#include "../uapi/xiw_abi.h"

/* A process names a Verify's hash by the ABI's numbers: the kernel's. */
static_assert((int)XIW_UREG_VERIFY_CRC32C == (int)XIW_HASH_CRC32C &&
	      (int)XIW_UREG_VERIFY_SHA256 == (int)XIW_HASH_SHA256);

/* How long deregistration waits for a holder before it ends its QP. */
#define XIW_DEREG_PATIENCE	(5 * HZ)

/*
 * Is @p memory the kernel maps? A DMA MR's addresses come from the peer
 * (the PD's global rkey spans all memory): an unmapped one must not fault.
 */
static bool xiw_kaddr_ok(const void *p)
{
	if (is_vmalloc_addr(p))
		return vmalloc_to_page(p);
	return virt_addr_valid(p);
}

/*
 * May [to, to + len) of the MR be accessed through @stag with @access?
 * Lock held (fast MRs). A DMA MR's range is all memory: its ends must at
 * least be mapped (each page is checked again when it is used).
 */
static int xiw_mr_check(const struct xiw_mr *mr, u32 stag,
			const struct xiw_pd *pd, int access, u64 to, u64 len)
{
	int bad = xiw_stag_check(&mr->reg, stag, pd, access, to, len);

	if (!bad && mr->kind == XIW_MR_DMA && len &&
	    (!xiw_kaddr_ok((void *)(uintptr_t)to) ||
	     !xiw_kaddr_ok((void *)(uintptr_t)(to + len - 1))))
		bad = XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
			       XIW_RDMAP_BOUNDS);
	return bad;
}

/*
 * The MR in the STag's index slot, referenced; its key and state are the
 * caller's to check under the MR's lock.
 */
static struct xiw_mr *xiw_mr_get(struct xiw_device *xdev, u32 stag)
{
	struct xiw_mr *mr;

	rcu_read_lock();
	mr = xa_load(&xdev->mrs, xiw_stag_perm_slot(&xdev->stag_perm,
						    xiw_stag_index(stag)));
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/**
 * xiw_mr_lookup() - find the MR an STag names, check an access, and take
 *	a reference
 * @xdev: the device
 * @stag: the STag, key included
 * @pd: the protection domain of the accessing QP
 * @access: IB_ACCESS_* rights needed; 0 for a local read
 * @to: first octet (tagged offset)
 * @len: octets
 * @cause: on failure, the RDMAP Terminate cause (RFC 5040 remote
 *	protection errors; callers map them to DDP or local errors)
 *
 * Return: the referenced MR, or NULL.
 */
struct xiw_mr *xiw_mr_lookup(struct xiw_device *xdev, u32 stag,
			     struct xiw_pd *pd, int access, u64 to, u64 len,
			     int *cause)
{
	struct xiw_mr *mr = xiw_mr_get(xdev, stag);
	unsigned long flags;
	int bad = 0;

	if (!mr) {
		*cause = XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
				  XIW_RDMAP_INV_STAG);
		return NULL;
	}

	spin_lock_irqsave(&mr->lock, flags);
	bad = xiw_mr_check(mr, stag, pd, access, to, len);
	spin_unlock_irqrestore(&mr->lock, flags);
	if (bad) {
		xiw_mr_put(mr);
		*cause = bad;
		return NULL;
	}
	return mr;
}

/**
 * xiw_mr_lookup_region() - xiw_mr_lookup() for the whole range an STag
 *	registers
 * @xdev: the device
 * @stag: the STag, key included
 * @pd: the protection domain of the accessing QP
 * @access: IB_ACCESS_* rights needed
 * @to: set to the first octet of the registration
 * @len: set to its length
 * @cause: on failure, the RDMAP Terminate cause
 *
 * A DMA MR registers all of memory, which is no range to act on: its
 * STag fails as a bounds violation, once its rights passed.
 *
 * Return: the referenced MR, or NULL.
 */
struct xiw_mr *xiw_mr_lookup_region(struct xiw_device *xdev, u32 stag,
				    struct xiw_pd *pd, int access, u64 *to,
				    u64 *len, int *cause)
{
	struct xiw_mr *mr = xiw_mr_get(xdev, stag);
	unsigned long flags;
	int bad;

	if (!mr) {
		*cause = XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
				  XIW_RDMAP_INV_STAG);
		return NULL;
	}
	spin_lock_irqsave(&mr->lock, flags);
	*to = mr->reg.base;
	*len = mr->reg.length;
	bad = xiw_mr_check(mr, stag, pd, access, *to, *len);
	spin_unlock_irqrestore(&mr->lock, flags);
	if (!bad && mr->kind == XIW_MR_DMA)
		bad = XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
			       XIW_RDMAP_BOUNDS);
	if (bad) {
		xiw_mr_put(mr);
		*cause = bad;
		return NULL;
	}
	return mr;
}

/**
 * xiw_mr_find() - the MR an STag names now, for the control plane: no
 *	access is checked
 * @xdev: the device
 * @stag: the STag, key included: the MR's current one (a fast MR's key
 *	changes with each registration; valid or invalidated alike)
 *
 * Return: the referenced MR (xiw_mr_put() it), or NULL.
 */
struct xiw_mr *xiw_mr_find(struct xiw_device *xdev, u32 stag)
{
	struct xiw_mr *mr = xiw_mr_get(xdev, stag);
	unsigned long flags;
	bool same;

	if (!mr)
		return NULL;
	spin_lock_irqsave(&mr->lock, flags);
	same = mr->reg.stag == stag;
	spin_unlock_irqrestore(&mr->lock, flags);
	if (!same) {
		xiw_mr_put(mr);
		return NULL;
	}
	return mr;
}

/**
 * xiw_mr_put() - drop a reference taken by xiw_mr_lookup()
 * @mr: the MR
 */
void xiw_mr_put(struct xiw_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

/*
 * Kernel address of tagged offset @to of a checked range, and how many
 * octets from there are contiguous (at most @len). Lock held (fast MRs).
 */
static u8 *xiw_mr_kaddr(const struct xiw_mr *mr, u64 to, u32 len, u32 *contig)
{
	u64 off, in_page;

	if (mr->kind == XIW_MR_DMA) {
		/* A page at a time: each is checked to be memory at all. */
		*contig = min_t(u64, len, PAGE_SIZE - offset_in_page(to));
		return (u8 *)(uintptr_t)to;
	}
	off = to - mr->reg.base + mr->pages.fbo;
	in_page = off & ((1ULL << mr->page_shift) - 1);
	*contig = min_t(u64, len, (1ULL << mr->page_shift) - in_page);
	return (u8 *)(uintptr_t)(mr->pages.addr[off >> mr->page_shift] +
				 in_page);
}

/**
 * xiw_mr_place() - run @fn over the memory behind a range of an MR
 * @mr: the MR, referenced
 * @stag: the STag it was looked up by
 * @to: first octet (tagged offset)
 * @len: octets
 * @fn: called for each physically contiguous piece, in order; a non-zero
 *	return stops the walk
 * @ctx: passed to @fn
 *
 * For a fast-registration MR, @fn runs under the MR's lock (it must not
 * sleep) and only while @stag is still valid: an invalidation that
 * completed stops the placement.
 *
 * Return: 0, -EACCES if the STag was invalidated or the range is outside
 * the registration, -EFAULT if a DMA MR's address is not mapped memory,
 * or what @fn returned.
 */
int xiw_mr_place(struct xiw_mr *mr, u32 stag, u64 to, u32 len,
		 int (*fn)(void *ctx, u8 *p, u32 len), void *ctx)
{
	unsigned long flags;
	int err = 0;

	if (mr->kind == XIW_MR_DMA) {
		if (!READ_ONCE(mr->reg.valid))
			return -EACCES;		/* being deregistered */
		while (!err && len) {
			u32 take;
			u8 *p = xiw_mr_kaddr(mr, to, len, &take);

			err = xiw_kaddr_ok(p) ? fn(ctx, p, take) : -EFAULT;
			to += take;
			len -= take;
		}
		return err;
	}

	spin_lock_irqsave(&mr->lock, flags);
	if (xiw_mr_check(mr, stag, mr->reg.owner, 0, to, len))
		err = -EACCES;
	while (!err && len) {
		u32 take;
		u8 *p = xiw_mr_kaddr(mr, to, len, &take);

		err = fn(ctx, p, take);
		to += take;
		len -= take;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

/**
 * xiw_mr_source() - kernel address of memory to read through an MR
 * @mr: the MR, referenced
 * @stag: the STag it was looked up by
 * @to: tagged offset
 * @len: octets wanted
 * @contig: set to the octets contiguous at the result (at most @len)
 *
 * For sending: the caller reads (or splices) the memory after the MR's
 * lock is dropped, so an invalidation racing with it may let one piece
 * already translated go out; nothing is ever written.
 *
 * Return: the address, or NULL if the STag is no longer valid.
 */
const u8 *xiw_mr_source(struct xiw_mr *mr, u32 stag, u64 to, u32 len,
			u32 *contig)
{
	unsigned long flags;
	const u8 *p = NULL;

	if (mr->kind == XIW_MR_DMA) {
		if (!READ_ONCE(mr->reg.valid))
			return NULL;		/* being deregistered */
		p = xiw_mr_kaddr(mr, to, len, contig);
		return xiw_kaddr_ok(p) ? p : NULL;
	}
	spin_lock_irqsave(&mr->lock, flags);
	if (!xiw_mr_check(mr, stag, mr->reg.owner, 0, to, len))
		p = xiw_mr_kaddr(mr, to, len, contig);
	spin_unlock_irqrestore(&mr->lock, flags);
	return p;
}

/*
 * Slots are allocated cyclically, so a freed one is reused late, and
 * peers see them through the device's secret permutation; the key is
 * random too.
 */
/*
 * One read-modify-write of an aligned word: a compare-and-exchange loop,
 * so the operation is atomic against every other atomic on the word,
 * from any QP or CPU (RFC 7306 section 5.3 asks it of one RNIC).
 */
struct xiw_mr_rmw {
	const struct xiw_atomic_op *op;
	u64 orig;
};

static int xiw_mr_rmw(void *ctx, u8 *p, u32 len)
{
	struct xiw_mr_rmw *rmw = ctx;
	u64 *word = (u64 *)p;
	u64 old = READ_ONCE(*word);

	while (!try_cmpxchg64(word, &old, xiw_atomic_apply(rmw->op, old)))
		;
	rmw->orig = old;
	return 0;
}

/**
 * xiw_mr_atomic() - carry out an Atomic Request on the word it targets
 * @mr: the MR, referenced, looked up by @op->stag for @op->to and 8 octets
 *	with IB_ACCESS_REMOTE_ATOMIC
 * @op: the operation; @op->to is 64-bit aligned, so the word is in one
 *	page and naturally aligned in memory too
 * @orig: the word's value before the operation
 *
 * Return: 0, -EACCES if the STag was invalidated meanwhile, -EFAULT if a
 * DMA MR's address is not mapped memory.
 */
int xiw_mr_atomic(struct xiw_mr *mr, const struct xiw_atomic_op *op,
		  u64 *orig)
{
	struct xiw_mr_rmw rmw = { .op = op };
	int err;

	err = xiw_mr_place(mr, op->stag, op->to, sizeof(u64), xiw_mr_rmw,
			   &rmw);
	if (!err)
		*orig = rmw.orig;
	return err;
}

static int xiw_mr_insert(struct xiw_device *xdev, struct xiw_mr *mr)
{
	u32 slot;
	int err;

	err = xa_alloc_cyclic_irq(&xdev->mrs, &slot, mr,
				  XA_LIMIT(1, XIW_MAX_MR), &xdev->mr_next,
				  GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	mr->reg.stag = xiw_stag_perm_index(&xdev->stag_perm, slot) <<
		       XIW_STAG_KEY_BITS | (get_random_u32() & XIW_STAG_KEY_MASK);
	mr->ibmr.lkey = mr->reg.stag;
	mr->ibmr.rkey = mr->reg.stag;
	return 0;
}

/*
 * A new MR, counted on its device (xiw_count_get()); @user: a process's
 * (xiw_gfp()). NULL if the device has XIW_MAX_MR already, or for want of
 * memory: -ENOMEM either way.
 */
static struct xiw_mr *xiw_mr_new(struct ib_pd *ibpd, enum xiw_mr_kind kind,
				 bool user)
{
	struct xiw_device *xdev = to_xiw_dev(ibpd->device);
	struct xiw_mr *mr;

	if (!xiw_count_get(&xdev->num_mr, XIW_MAX_MR))
		return NULL;
	mr = kzalloc(sizeof(*mr), xiw_gfp(user));
	if (!mr) {
		xiw_count_put(&xdev->num_mr);
		return NULL;
	}
	mr->reg.owner = to_xiw_pd(ibpd);
	mr->reg.fast = kind == XIW_MR_FAST;
	mr->kind = kind;
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	spin_lock_init(&mr->lock);
	return mr;
}

/*
 * Free an MR of xiw_mr_new() and uncount it: one whose creation failed, or
 * one deregistered, whose last reference is gone (the structure itself
 * after a grace period: a lookup may still see it).
 */
static void xiw_mr_free(struct xiw_device *xdev, struct xiw_mr *mr)
{
	ib_umem_release(mr->umem);	/* NULL for kernel MRs */
	kvfree(mr->pages.addr);
	kvfree(mr->mapped.addr);
	kfree_rcu(mr, rcu);
	xiw_count_put(&xdev->num_mr);
}

/**
 * xiw_get_dma_mr() - an MR covering all memory, addressed by kernel
 *	virtual (= DMA, for this software device) address
 * @ibpd: protection domain
 * @access: IB_ACCESS_* rights
 *
 * Return: the MR or ERR_PTR(-ENOMEM) (also when the device has XIW_MAX_MR
 * already).
 */
struct ib_mr *xiw_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct xiw_device *xdev = to_xiw_dev(ibpd->device);
	/* No uverbs command reaches get_dma_mr: a kernel consumer's. */
	struct xiw_mr *mr = xiw_mr_new(ibpd, XIW_MR_DMA, false);
	int err;

	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->reg.access = access;
	mr->reg.valid = true;	/* base 0, length 0: all of memory */
	mr->ibmr.length = U64_MAX;

	/* Visible to lookups only once fully set up. */
	err = xiw_mr_insert(xdev, mr);
	if (err) {
		xiw_mr_free(xdev, mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/**
 * xiw_alloc_mr() - an MR for fast registration, its STag invalid
 * @ibpd: protection domain
 * @type: only IB_MR_TYPE_MEM_REG
 * @max_num_sg: pages the MR's registrations may span
 *
 * Return: the MR or an ERR_PTR (-EINVAL for another type or too many
 * pages, -ENOMEM, also when the device has XIW_MAX_MR already).
 */
struct ib_mr *xiw_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct xiw_device *xdev = to_xiw_dev(ibpd->device);
	struct xiw_mr *mr;
	int err = -ENOMEM;

	if (type != IB_MR_TYPE_MEM_REG || !max_num_sg ||
	    max_num_sg > XIW_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);
	/* No uverbs command reaches alloc_mr: a kernel consumer's. */
	mr = xiw_mr_new(ibpd, XIW_MR_FAST, false);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->max_pages = max_num_sg;
	mr->pages.addr = xiw_kvcalloc(max_num_sg, sizeof(u64), false);
	mr->mapped.addr = xiw_kvcalloc(max_num_sg, sizeof(u64), false);
	if (mr->pages.addr && mr->mapped.addr)
		err = xiw_mr_insert(xdev, mr);
	if (err) {
		xiw_mr_free(xdev, mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

static int xiw_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct xiw_mr *mr = to_xiw_mr(ibmr);

	if (mr->mapped.n >= mr->max_pages)
		return -ENOMEM;
	mr->mapped.addr[mr->mapped.n++] = addr;
	return 0;
}

/**
 * xiw_map_mr_sg() - prepare the page list of the MR's next registration
 * @ibmr: a fast-registration MR
 * @sg: DMA-mapped scatterlist (kernel virtual addresses: xiw does no DMA)
 * @sg_nents: its entries
 * @sg_offset: offset into the first entry, or NULL
 *
 * The MR's current registration, if valid, is untouched: the list takes
 * effect when IB_WR_REG_MR executes.
 *
 * Return: the number of entries mapped (see ib_sg_to_pages()).
 */
int xiw_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct xiw_mr *mr = to_xiw_mr(ibmr);
	int n;

	if (mr->kind != XIW_MR_FAST)
		return -EINVAL;
	mr->mapped.n = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, xiw_mr_set_page);
	mr->mapped.fbo = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/**
 * xiw_mr_register() - execute IB_WR_REG_MR
 * @mr: the MR of the work request
 * @pd: protection domain of the QP that executes it
 * @key: the work request's key: the STag the MR takes
 * @access: rights of the registration
 * @iova: first tagged offset (ibmr.iova when the work request was posted)
 * @length: octets (likewise)
 * @page_size: page size of the mapped list (likewise)
 *
 * Return: 0 or the IB_WC_* status of the work request's completion.
 */
int xiw_mr_register(struct xiw_mr *mr, struct xiw_pd *pd, u32 key,
		    int access, u64 iova, u64 length, u32 page_size)
{
	struct xiw_mr_pages old;
	unsigned long flags;
	u64 room;
	int err;

	if (mr->kind != XIW_MR_FAST || mr->reg.owner != pd)
		return IB_WC_LOC_PROT_ERR;
	/* Remote write or atomic access needs local write (IB 10.6.3.3). */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return IB_WC_MW_BIND_ERR;
	if (!is_power_of_2(page_size) || page_size < SZ_4K)
		return IB_WC_MW_BIND_ERR;
	room = (u64)mr->mapped.n * page_size;
	if (!length || mr->mapped.fbo + length > room || iova + length < iova)
		return IB_WC_MW_BIND_ERR;

	spin_lock_irqsave(&mr->lock, flags);
	err = xiw_stag_register(&mr->reg, key, pd, access, iova, length);
	if (!err) {
		old = mr->pages;
		mr->pages = mr->mapped;
		mr->mapped = old;
		mr->mapped.n = 0;
		mr->page_shift = ilog2(page_size);
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	return err ? IB_WC_MW_BIND_ERR : 0;
}

/**
 * xiw_mr_invalidate() - move an STag to the invalid state
 * @xdev: the device
 * @stag: the STag
 * @pd: protection domain of the QP that invalidates it
 *
 * Only fast-registration STags can be invalidated, and only through a QP
 * of their protection domain. Invalidating an invalid STag fails: for a
 * peer it is an invalid STag; locally the consumer lost track of it.
 *
 * Return: 0, or the RDMAP Terminate cause: invalid STag (unknown, wrong
 * key, already invalid), or STag cannot be invalidated (another PD, a DMA
 * MR).
 */
int xiw_mr_invalidate(struct xiw_device *xdev, u32 stag, struct xiw_pd *pd)
{
	struct xiw_mr *mr = xiw_mr_get(xdev, stag);
	unsigned long flags;
	int bad = 0;

	if (!mr)
		return XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
				XIW_RDMAP_INV_STAG);

	spin_lock_irqsave(&mr->lock, flags);
	bad = xiw_stag_invalidate(&mr->reg, stag, pd);
	spin_unlock_irqrestore(&mr->lock, flags);
	xiw_mr_put(mr);
	return bad;
}

/*
 * The kernel address of each page of a pinned user range, in order. The
 * umem's entries are runs of whole pages; xiw does no DMA, so their "DMA
 * address" is the kernel virtual address of the run. @user: the list is
 * a process's (xiw_gfp()).
 */
static int xiw_mr_umem_pages(struct xiw_mr *mr, u64 start, bool user)
{
	size_t n = ib_umem_num_pages(mr->umem);
	struct scatterlist *sg;
	unsigned int i;
	u64 off;

	if (n > U32_MAX)
		return -EINVAL;
	mr->pages.addr = xiw_kvcalloc(n, sizeof(u64), user);
	if (!mr->pages.addr)
		return -ENOMEM;
	for_each_sgtable_dma_sg(&mr->umem->sgt_append.sgt, sg, i) {
		for (off = 0; off < sg_dma_len(sg) && mr->pages.n < n;
		     off += PAGE_SIZE)
			mr->pages.addr[mr->pages.n++] = sg_dma_address(sg) + off;
	}
	if (mr->pages.n != n)
		return -EFAULT;
	mr->pages.fbo = offset_in_page(start);
	mr->page_shift = PAGE_SHIFT;
	mr->max_pages = mr->pages.n;
	return 0;
}

/**
 * xiw_reg_user_mr() - register a process's memory
 * @ibpd: protection domain (a user one)
 * @start: user address of the first octet
 * @length: octets, at least 1
 * @virt: tagged offset of the first octet (what peers and SGEs name)
 * @access: IB_ACCESS_* rights; the RDMA core has checked them against the
 *	device's capabilities
 * @udata: nothing, or struct xiw_ureg_mr_req (uapi/xiw_abi.h): the
 *	hash an RDMA Verify of the MR computes
 *
 * The pages are pinned and counted against RLIMIT_MEMLOCK by ib_umem_get()
 * (writable when any right lets the memory be written); they stay pinned
 * until the last reference to the MR is gone (xiw_dereg_mr()). The MR and
 * its page list are charged to the process's memory cgroup (xiw_gfp()).
 *
 * Return: the MR, or ERR_PTR(-EINVAL) for an empty or wrapping range,
 * remote write or atomic rights without local write, or a request with an
 * unknown hash or reserved octets set, -ENOMEM (also when
 * the device has XIW_MAX_MR already), or what ib_umem_get() returned
 * (-ENOMEM over the limit, -EFAULT).
 */
struct ib_mr *xiw_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 virt, int access, struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(ibpd->device);
	struct xiw_ureg_mr_req req = {};
	struct ib_umem *umem;
	struct xiw_mr *mr;
	int err;

	/* A request longer than ours is taken if the rest is zero. */
	if (udata && udata->inlen &&
	    (udata->inlen < sizeof(req) ||
	     ib_copy_from_udata(&req, udata, sizeof(req)) ||
	     !ib_is_udata_cleared(udata, sizeof(req),
				  udata->inlen - sizeof(req))))
		return ERR_PTR(-EINVAL);
	if (req.reserved ||
	    (req.verify_alg != XIW_UREG_VERIFY_NONE &&
	     !xiw_hash_len(req.verify_alg)))
		return ERR_PTR(-EINVAL);
	if (!length || virt + length < virt || start + length < start ||
	    length > XIW_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);
	/* Remote write or atomic access needs local write (IB 10.6.3.3). */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return ERR_PTR(-EINVAL);
	mr = xiw_mr_new(ibpd, XIW_MR_USER, udata);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto fail;
	}
	mr->umem = umem;
	err = xiw_mr_umem_pages(mr, start, udata);
	if (err)
		goto fail;
	mr->reg.access = access;
	mr->reg.base = virt;
	mr->reg.length = length;
	mr->reg.valid = true;
	mr->verify_alg = req.verify_alg;
	mr->ibmr.iova = virt;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;

	/* Visible to lookups only once fully set up. */
	err = xiw_mr_insert(xdev, mr);
	if (err)
		goto fail;
	return &mr->ibmr;
fail:
	xiw_mr_free(xdev, mr);
	return ERR_PTR(err);
}

/*
 * End every QP of @mr's protection domain that still holds a reference on
 * it (deregistration's patience ran out): a local catastrophic error, then
 * an abortive end of its stream, which drops what it holds before it
 * returns.
 */
static void xiw_mr_abort_holders(struct xiw_device *xdev, struct xiw_mr *mr)
{
	unsigned long qpn;
	struct xiw_qp *qp;
	void *entry;

	xa_for_each(&xdev->qps, qpn, entry) {
		qp = xiw_qp_lookup(xdev, qpn);
		if (!qp)
			continue;
		if (to_xiw_pd(qp->ibqp.pd) == mr->reg.owner &&
		    xiw_qp_holds_mr(qp, mr)) {
			xiw_qp_fatal(qp);
			xiw_qp_to_error(qp);
		}
		xiw_qp_put(qp);
	}
}

/**
 * xiw_dereg_mr() - deregister: the STag stops working at once and no
 *	placement touches the memory after this returns
 * @ibmr: the MR
 * @udata: unused
 *
 * Returns in bounded time whatever the peers do: a QP that holds the MR
 * past XIW_DEREG_PATIENCE is ended (see the top of this file). Sleeps.
 *
 * Return: 0.
 */
int xiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(ibmr->device);
	struct xiw_mr *mr = to_xiw_mr(ibmr);
	u32 slot = xiw_stag_perm_slot(&xdev->stag_perm,
				      xiw_stag_index(mr->reg.stag));
	unsigned long flags;

	xa_erase_irq(&xdev->mrs, slot);
	/* Every holder's next access through the MR fails. */
	spin_lock_irqsave(&mr->lock, flags);
	WRITE_ONCE(mr->reg.valid, false);
	spin_unlock_irqrestore(&mr->lock, flags);
	xiw_mr_put(mr);
	while (!wait_for_completion_timeout(&mr->released,
					    XIW_DEREG_PATIENCE))
		xiw_mr_abort_holders(xdev, mr);
	xiw_mr_free(xdev, mr);
	return 0;
}
