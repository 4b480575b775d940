/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verbs entry points of struct ib_device_ops.
 */
#ifndef XIW_VERBS_H
#define XIW_VERBS_H

#include <rdma/ib_verbs.h>
#include <xiw/compat.h>

int xiw_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		     struct ib_udata *udata);
int xiw_query_port(struct ib_device *ibdev, u32 port,
		   struct ib_port_attr *attr);
int xiw_query_gid(struct ib_device *ibdev, u32 port, int index,
		  union ib_gid *gid);
int xiw_get_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *immutable);
void xiw_get_dev_fw_str(struct ib_device *ibdev, char *str);
int xiw_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);

struct ib_cq_init_attr;
struct uverbs_attr_bundle;

int xiw_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int xiw_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

int xiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct xiw_create_cq_arg *attrs);
int xiw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int xiw_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int xiw_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

struct ib_mr *xiw_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *xiw_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 virt, int access, struct ib_udata *udata);
int xiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *xiw_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg);
int xiw_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);

int xiw_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		   struct ib_udata *udata);
int xiw_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int xiw_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int xiw_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int xiw_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

int xiw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata);
int xiw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int xiw_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int xiw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int xiw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int xiw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
void xiw_qp_add_ref(struct ib_qp *ibqp);
void xiw_qp_rem_ref(struct ib_qp *ibqp);
struct ib_qp *xiw_get_qp(struct ib_device *ibdev, int qpn);

int xiw_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata);
void xiw_dealloc_ucontext(struct ib_ucontext *uctx);
void xiw_disassociate_ucontext(struct ib_ucontext *uctx);
bool xiw_uctx_granted(struct ib_udata *udata, u32 flag);
int xiw_udata_none(struct ib_udata *udata);
int xiw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void xiw_mmap_free(struct rdma_user_mmap_entry *e);
extern const struct attribute_group xiw_attr_group;

#endif /* XIW_VERBS_H */
