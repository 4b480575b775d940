// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts: what an rdma-core provider process opens on an xiw
 * device (uapi/xiw_abi.h), and the sysfs attribute by which the provider
 * knows the device for xiw's.
 *
 * Version 1 of the user ABI posts and polls through the RDMA core's
 * uverbs commands: the kernel copies each work request in before it looks
 * at it, and every local buffer is an lkey of a user MR of the QP's PD,
 * checked as for kernel consumers. The context itself holds no state.
 */
#include <linux/device.h>
#include <linux/sysfs.h>
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
 * Return: 0; -EPROTO for a provider of another ABI version; -EINVAL for
 * flags or reserved fields set; -EFAULT.
 */
int xiw_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
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
	if (req.flags)
		return -EINVAL;
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
 * long as an application runs. xiw maps nothing into the process, so
 * there is nothing to take back here.
 */
void xiw_disassociate_ucontext(struct ib_ucontext *uctx)
{
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
