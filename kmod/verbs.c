// SPDX-License-Identifier: GPL-2.0
/*
 * Device and port queries, protection domains, and the memory of the
 * verbs objects.
 */
#include <linux/etherdevice.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "device.h"
#include "obj.h"
#include "verbs.h"

/**
 * xiw_query_device() - report device capabilities and limits
 * @ibdev: the device
 * @attr: filled with the attributes
 * @udata: driver data of ibv_query_device_ex(): nothing in ABI version 1
 *
 * Return: 0, or -EINVAL if @udata carries data xiw does not understand.
 */
int xiw_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		     struct ib_udata *udata)
{
	if (xiw_udata_none(udata))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = 0;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = XIW_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = XIW_VENDOR_ID;
	attr->vendor_part_id = XIW_VENDOR_PART_ID;
	attr->hw_ver = 0;
	attr->max_qp = XIW_MAX_QP;
	attr->max_qp_wr = XIW_MAX_QP_WR;
	attr->max_send_sge = XIW_MAX_SGE;
	attr->max_recv_sge = XIW_MAX_SGE;
	attr->max_sge_rd = XIW_MAX_SGE_RD;
	attr->max_cq = XIW_MAX_CQ;
	attr->max_cqe = XIW_MAX_CQE;
	attr->max_mr = XIW_MAX_MR;
	attr->max_pd = XIW_MAX_PD;
	attr->max_qp_rd_atom = XIW_MAX_IRD;
	attr->max_qp_init_rd_atom = XIW_MAX_ORD;
	attr->max_res_rd_atom = XIW_MAX_QP * XIW_MAX_IRD;
	attr->max_srq = XIW_MAX_SRQ;
	attr->max_srq_wr = XIW_MAX_SRQ_WR;
	attr->max_srq_sge = XIW_MAX_SGE;
	attr->max_fast_reg_page_list_len = XIW_MAX_FR_PAGES;
	/*
	 * The commit draft's operations. Persistence is the memory's: pmem
	 * and disk-file pages always reach it, DRAM as the policy says
	 * (persist.c), so both flush types are offered.
	 */
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS |
				  IB_DEVICE_ATOMIC_WRITE |
				  IB_DEVICE_FLUSH_GLOBAL |
				  IB_DEVICE_FLUSH_PERSISTENT;
	attr->max_pkeys = 0;
	/* "rdma link delete" is how an administrator removes the device. */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	/* RFC 7306 atomics, atomic across every QP of the device. */
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->masked_atomic_cap = IB_ATOMIC_HCA;
	return 0;
}

/**
 * xiw_query_port() - report port attributes
 * @ibdev: the device
 * @port: port number, always 1
 * @attr: the RDMA core already filled state, phys_state and active_mtu
 *	  from the netdev (iWARP ports); the rest is set here
 *
 * Return: 0.
 */
int xiw_query_port(struct ib_device *ibdev, u32 port,
		   struct ib_port_attr *attr)
{
	attr->gid_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	attr->max_msg_sz = XIW_MAX_MSG_SIZE;
	attr->pkey_tbl_len = 1;
	attr->max_mtu = IB_MTU_4096;
	return ib_get_eth_speed(ibdev, port, &attr->active_speed,
				&attr->active_width);
}

/**
 * xiw_query_gid() - the port's only GID: its address, zero padded
 * @ibdev: the device
 * @port: port number, always 1
 * @index: GID table index, always 0
 * @gid: filled with the GID
 *
 * Return: 0, or -EINVAL for an index other than 0.
 */
int xiw_query_gid(struct ib_device *ibdev, u32 port, int index,
		  union ib_gid *gid)
{
	struct xiw_device *xdev = to_xiw_dev(ibdev);

	if (index != 0)
		return -EINVAL;

	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, xdev->addr, ETH_ALEN);
	return 0;
}

/**
 * xiw_get_port_immutable() - attributes that never change for the port
 * @ibdev: the device
 * @port: port number, always 1
 * @immutable: filled with the attributes
 *
 * Return: 0.
 */
int xiw_get_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *immutable)
{
	immutable->gid_tbl_len = 1;
	immutable->pkey_tbl_len = 1;
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/**
 * xiw_get_dev_fw_str() - firmware version string shown by "rdma dev"
 * @ibdev: the device
 * @str: IB_FW_VERSION_NAME_MAX bytes of output
 */
void xiw_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	strscpy(str, XIW_FW_VERSION, IB_FW_VERSION_NAME_MAX);
}

/**
 * xiw_query_pkey() - the single default partition key
 * @ibdev: the device
 * @port: port number, always 1
 * @index: table index, always 0
 * @pkey: set to the full-membership default key
 *
 * iWARP has no partitions; the RDMA core and rdma_cm still look up index 0.
 *
 * Return: 0, or -EINVAL for an index other than 0.
 */
int xiw_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index != 0)
		return -EINVAL;
	*pkey = 0xffff;
	return 0;
}

/**
 * xiw_alloc_pd() - protection domains carry no state beyond identity
 * @ibpd: RDMA core object
 * @udata: a user PD's driver data: nothing in ABI version 1
 *
 * Return: 0, -EINVAL for driver data xiw does not know, -ENOMEM if the
 * device has XIW_MAX_PD already.
 */
int xiw_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(ibpd->device);
	int err = xiw_udata_none(udata);

	if (err)
		return err;
	return xiw_count_get(&xdev->num_pd, XIW_MAX_PD) ? 0 : -ENOMEM;
}

/**
 * xiw_dealloc_pd() - nothing to release but its place in the count
 * @ibpd: RDMA core object
 * @udata: unused
 *
 * Return: 0.
 */
int xiw_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	xiw_count_put(&to_xiw_dev(ibpd->device)->num_pd);
	return 0;
}

/**
 * xiw_kvcalloc() - a zeroed array of a verbs object, its memory as
 *	xiw_gfp() says
 * @n: elements
 * @size: octets of each
 * @user: the object is a process's
 *
 * A kernel consumer's is kvcalloc()'s. A process's is charged to its
 * memory cgroup and fails at the cgroup's limit: a contiguous block if
 * one comes without reclaim or compaction, as kvcalloc() tries first, else
 * pages mapped contiguously, with xiw_gfp()'s flags. (kvcalloc() with
 * those flags would also try hard for the contiguous block, reclaiming
 * and compacting for memory that vmalloc does not need.)
 *
 * Return: the array (kvfree() it), or NULL.
 */
void *xiw_kvcalloc(size_t n, size_t size, bool user)
{
	gfp_t gfp = xiw_gfp(user);
	size_t bytes;
	void *p = NULL;

	if (!user)
		return kvcalloc(n, size, gfp);
	if (check_mul_overflow(n, size, &bytes) || bytes > INT_MAX)
		return NULL;
	if (bytes <= PAGE_SIZE)
		return kzalloc(bytes, gfp);
	if (bytes <= KMALLOC_MAX_SIZE)
		p = kzalloc(bytes, (gfp & ~__GFP_RETRY_MAYFAIL) | __GFP_NORETRY);
	return p ?: __vmalloc(bytes, gfp | __GFP_ZERO);
}
