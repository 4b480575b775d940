// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions and the STag table.
 *
 * An STag is (index << 8) | key. The index finds the MR in the device's
 * xarray; lookups run under RCU and take a reference, so a deregistration
 * waits for every placement in progress before it returns.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "obj.h"
#include "verbs.h"

/**
 * xiw_mr_get() - find the MR of an STag and take a reference
 * @xdev: the device
 * @stag: the STag, key included
 *
 * Return: the MR, or NULL if the STag is unknown or its key differs.
 */
struct xiw_mr *xiw_mr_get(struct xiw_device *xdev, u32 stag)
{
	struct xiw_mr *mr;

	rcu_read_lock();
	mr = xa_load(&xdev->mrs, stag >> 8);
	if (mr && (mr->ibmr.rkey != stag || !refcount_inc_not_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/**
 * xiw_mr_put() - drop a reference taken by xiw_mr_get()
 * @mr: the MR
 */
void xiw_mr_put(struct xiw_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

/**
 * xiw_mr_check() - may @len octets at @addr be accessed through @mr?
 * @mr: the MR
 * @pd: the protection domain of the accessing QP
 * @access: IB_ACCESS_* rights needed; 0 for a local read
 * @addr: first octet
 * @len: octets
 *
 * Return: 0, or an RDMAP Terminate cause (RFC 5040 remote protection
 * errors; callers map them to local errors for local accesses).
 */
int xiw_mr_check(struct xiw_mr *mr, struct xiw_pd *pd, int access,
		 u64 addr, u32 len)
{
	if (mr->pd != pd)
		return XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
				XIW_RDMAP_STAG_NOT_ASSOC);
	if ((mr->access & access) != access)
		return XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
				XIW_RDMAP_ACCESS);
	if (addr + len < addr)
		return XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
				XIW_RDMAP_TO_WRAP);
	if (!mr->all_memory &&
	    (addr < mr->ibmr.iova || addr + len > mr->ibmr.iova + mr->ibmr.length))
		return XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
				XIW_RDMAP_BOUNDS);
	return 0;
}

static int xiw_mr_insert(struct xiw_device *xdev, struct xiw_mr *mr)
{
	u32 index;
	int err;

	err = xa_alloc_cyclic_irq(&xdev->mrs, &index, mr,
				  XA_LIMIT(1, XIW_MAX_MR), &xdev->mr_next,
				  GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	mr->ibmr.lkey = index << 8 | (get_random_u32() & 0xff);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return 0;
}

/**
 * xiw_get_dma_mr() - an MR covering all memory, addressed by kernel
 *	virtual (= DMA, for this software device) address
 * @ibpd: protection domain
 * @access: IB_ACCESS_* rights
 *
 * Return: the MR or an ERR_PTR.
 */
struct ib_mr *xiw_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct xiw_device *xdev = to_xiw_dev(ibpd->device);
	struct xiw_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->pd = to_xiw_pd(ibpd);
	mr->access = access;
	mr->all_memory = true;
	mr->ibmr.length = U64_MAX;
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);

	/* Visible to lookups only once fully set up. */
	err = xiw_mr_insert(xdev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/**
 * xiw_reg_user_mr() - userspace memory registration: not yet supported
 * @ibpd: protection domain
 * @start: user address
 * @length: octets
 * @virt: I/O virtual address
 * @access: rights
 * @udata: user data
 *
 * Return: ERR_PTR(-EOPNOTSUPP) until the userspace provider exists.
 */
struct ib_mr *xiw_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 virt, int access, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

/**
 * xiw_dereg_mr() - deregister: the STag stops working at once and no
 *	placement touches the memory after this returns
 * @ibmr: the MR
 * @udata: unused
 *
 * Return: 0.
 */
int xiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(ibmr->device);
	struct xiw_mr *mr = to_xiw_mr(ibmr);

	xa_erase_irq(&xdev->mrs, ibmr->lkey >> 8);
	xiw_mr_put(mr);
	wait_for_completion(&mr->released);
	kfree_rcu(mr, rcu);
	return 0;
}
