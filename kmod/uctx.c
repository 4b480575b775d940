// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts: what an rdma-core provider process opens on an xiw
 * device (uapi/xiw_abi.h), and the sysfs attribute by which the provider
 * knows the device for xiw's.
 *
 * Version 1 of the user ABI posts through the RDMA core's uverbs
 * commands: the kernel copies each work request in before it looks at it,
 * and every local buffer is an lkey of a user MR of the QP's PD, checked
 * as for kernel consumers. Completions come through the poll command, or
 * (XIW_UCTX_CQ_RING) in rings the process maps from the device file: the
 * mappings are made here (xiw_umap_new(), xiw_mmap()).
 */
#include <linux/device.h>
#include <linux/mm.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "obj.h"
#include "verbs.h"
#include "../uapi/xiw_abi.h"

/*
 * Is the rest of a request, past what this kernel knows, zero? A newer
 * provider may send more; it must not mean anything by it yet.
 */
static int xiw_udata_in(struct ib_udata *udata, void *req, size_t len)
{
	size_t n = min(len, udata->inlen);
	int err;

	err = ib_copy_from_udata(req, udata, n);
	if (err)
		return err;
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EINVAL;
	return 0;
}

/**
 * xiw_alloc_ucontext() - a provider opened the device
 * @uctx: RDMA core object
 * @udata: struct xiw_uctx_req in, struct xiw_uctx_resp out
 *
 * The flags the provider asks for that this kernel knows are granted, and
 * the response says which.
 *
 * Return: 0; -EPROTO for a provider of another ABI version; -EINVAL for a
 * request longer than this kernel knows whose extra octets are not zero;
 * -EFAULT.
 */
int xiw_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	struct xiw_ucontext *ctx = container_of(uctx, struct xiw_ucontext,
						ibucontext);
	struct xiw_uctx_resp resp = {
		.uabi = XIW_UABI_VERSION,
		.max_sge = XIW_MAX_SGE,
		.max_inline = XIW_MAX_INLINE,
	};
	struct xiw_uctx_req req = {};
	int err;

	err = xiw_udata_in(udata, &req, sizeof(req));
	if (err)
		return err;
	if (req.uabi != XIW_UABI_VERSION) {
		ibdev_dbg(uctx->device, "provider speaks user ABI %u, not %u\n",
			  req.uabi, XIW_UABI_VERSION);
		return -EPROTO;
	}
	/* Unknown flags are a newer provider's wishes: not granted. */
	ctx->flags = req.flags & XIW_UCTX_FLAGS;
	resp.flags = ctx->flags;
	return ib_copy_to_udata(udata, &resp,
				min(sizeof(resp), udata->outlen));
}

/**
 * xiw_dealloc_ucontext() - the provider closed the device (or its process
 *	ended); the RDMA core destroyed the context's objects before this
 * @uctx: RDMA core object
 */
void xiw_dealloc_ucontext(struct ib_ucontext *uctx)
{
}

/**
 * xiw_disassociate_ucontext() - the device is going away while a process
 *	still has it open
 * @uctx: the process's context
 *
 * With this op the RDMA core destroys the context's objects at once (the
 * process's later calls fail with EIO) instead of waiting for every
 * process to close the device, which would hold "rdma link delete" as
 * long as an application runs. What xiw maps into a process is memory,
 * not the device: a completion ring stays mapped, nothing writes it after
 * its CQ is destroyed, and its pages go with the process's mapping.
 */
void xiw_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

/**
 * xiw_umap_new() - zeroed memory for a process to map from the device file
 * @uctx: the process's context
 * @len: octets, a multiple of PAGE_SIZE
 * @offset: out: the mmap() offset the process maps it at
 *
 * The memory is the process's, charged to its memory cgroup. It lives
 * until xiw_umap_remove() and the last mmap() under way are both done;
 * pages mapped by then stay with the mapping.
 *
 * Return: the mapping's entry, or an ERR_PTR (-ENOMEM).
 */
struct xiw_umap *xiw_umap_new(struct ib_ucontext *uctx, size_t len,
			      u64 *offset)
{
	struct xiw_umap *m = kzalloc(sizeof(*m), xiw_gfp(true));
	int err;

	if (!m)
		return ERR_PTR(-ENOMEM);
	m->mem = __vmalloc(len, xiw_gfp(true) | __GFP_ZERO);
	if (!m->mem) {
		kfree(m);
		return ERR_PTR(-ENOMEM);
	}
	err = rdma_user_mmap_entry_insert(uctx, &m->rdma, len);
	if (err) {
		vfree(m->mem);
		kfree(m);
		return ERR_PTR(err);
	}
	*offset = rdma_user_mmap_get_offset(&m->rdma);
	return m;
}

/**
 * xiw_umap_remove() - no new mapping of @m; free it once none is under way
 * @m: from xiw_umap_new()
 */
void xiw_umap_remove(struct xiw_umap *m)
{
	rdma_user_mmap_entry_remove(&m->rdma);
}

/**
 * xiw_mmap() - map an entry of xiw_umap_new() into a process
 * @uctx: the process's context
 * @vma: a shared mapping of exactly the entry's length at its offset
 *
 * The pages are inserted with references of their own, so a mapping
 * outlives the entry (a CQ destroyed, a device gone) without pointing at
 * freed memory.
 *
 * Return: 0, -EINVAL (no such entry, another length, a private mapping),
 * or vm_insert_page()'s error.
 */
int xiw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *e = rdma_user_mmap_entry_get(uctx, vma);
	struct xiw_umap *m;
	unsigned long off;
	int err = 0;

	if (!e)
		return -EINVAL;
	m = container_of(e, struct xiw_umap, rdma);
	/* Neither grown by mremap() nor in a core dump: the kernel's ring. */
	xiw_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (off = 0; off < vma->vm_end - vma->vm_start && !err;
	     off += PAGE_SIZE)
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(m->mem + off));
	rdma_user_mmap_entry_put(e);
	return err;
}

/**
 * xiw_mmap_free() - the last reference to an entry is gone
 * @e: the entry of a struct xiw_umap
 */
void xiw_mmap_free(struct rdma_user_mmap_entry *e)
{
	struct xiw_umap *m = container_of(e, struct xiw_umap, rdma);

	vfree(m->mem);
	kfree(m);
}

/**
 * xiw_uctx_granted() - was a process's context granted a flag?
 * @udata: a create command's driver data, or NULL for kernel consumers
 * @flag: XIW_UCTX_*
 *
 * Return: true for a context of a process that asked for @flag and got it.
 */
bool xiw_uctx_granted(struct ib_udata *udata, u32 flag)
{
	const struct xiw_ucontext *ctx;

	if (!udata)
		return false;
	ctx = rdma_udata_to_drv_context(udata, struct xiw_ucontext,
					ibucontext);
	return ctx && (ctx->flags & flag);
}

/**
 * xiw_udata_none() - is a command's driver data empty or all zero?
 * @udata: the command's driver data, or NULL for kernel consumers
 *
 * Version 1 carries nothing in the commands other than the context's:
 * what a newer provider may send must be zero.
 *
 * Return: 0 or -EINVAL.
 */
int xiw_udata_none(struct ib_udata *udata)
{
	if (!udata || !udata->inlen)
		return 0;
	return ib_is_udata_cleared(udata, 0, udata->inlen) ? 0 : -EINVAL;
}

static ssize_t xiw_uabi_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", XIW_UABI_VERSION);
}
static DEVICE_ATTR_RO(xiw_uabi);

static struct attribute *xiw_attrs[] = {
	&dev_attr_xiw_uabi.attr,
	NULL,
};

/* The device's own sysfs attributes, beside the RDMA core's. */
const struct attribute_group xiw_attr_group = {
	.attrs = xiw_attrs,
};
