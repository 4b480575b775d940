# SPDX-License-Identifier: GPL-2.0
#
# Feature probes for include/xiw/compat.h, included by each Kbuild file of
# xiw and its test modules. Each probe looks in the headers of the kernel
# being built against ($(srctree): the source tree, or Debian's
# linux-headers-*-common) for the interface itself, not at the version
# number: a distribution kernel may carry a backport. Each gives
# -DXIW_HAVE_<name>=1 or =0.

xiw_probe = $(if $(shell grep -qsE '$(2)' $(srctree)/$(1) && echo y),1,0)

# linux/unaligned.h (6.12); asm/unaligned.h before.
ccflags-y += -DXIW_HAVE_LINUX_UNALIGNED_H=$(if $(wildcard $(srctree)/include/linux/unaligned.h),1,0)
# The commit draft's verbs in the RDMA core: IB_WR_FLUSH, IB_WR_ATOMIC_WRITE,
# IB_WC_FLUSH, IB_ACCESS_FLUSH_*, IB_DEVICE_FLUSH_* ... (6.2).
ccflags-y += -DXIW_HAVE_IB_WR_FLUSH=$(call xiw_probe,include/rdma/ib_verbs.h,IB_WR_FLUSH)
# ib_device_ops.create_cq() takes the uverbs attribute bundle (6.11).
ccflags-y += -DXIW_HAVE_CREATE_CQ_ATTRS=$(if $(shell grep -sA1 'create_cq..struct ib_cq' $(srctree)/include/rdma/ib_verbs.h | grep -q uverbs_attr_bundle && echo y),1,0)
# buffer_migrate_folio_norefs() exported to modules (6.12 has it, 6.1 not):
# the kernel's own list of exports.
ccflags-y += -DXIW_HAVE_BUFFER_MIGRATE_FOLIO_NOREFS=$(if $(shell grep -qsw buffer_migrate_folio_norefs $(objtree)/Module.symvers && echo y),1,0)
# __assign_str() takes the destination only (6.10).
ccflags-y += -DXIW_HAVE_ASSIGN_STR_1ARG=$(call xiw_probe,include/trace/stages/stage6_event_callback.h,define __assign_str\(dst\))
# iomap_dirty_folio(), iomap's own dirty_folio (6.6).
ccflags-y += -DXIW_HAVE_IOMAP_DIRTY_FOLIO=$(call xiw_probe,include/linux/iomap.h,iomap_dirty_folio)
# vm_flags_set(): a VMA's flags are set through it (6.3), directly before.
ccflags-y += -DXIW_HAVE_VM_FLAGS_SET=$(call xiw_probe,include/linux/mm.h,void vm_flags_set)
# sendmsg(MSG_SPLICE_PAGES) instead of sendpage (6.5). Debian's 6.1 defines
# the flag (a stable fix masks it from userspace) but its TCP ignores it
# and copies: the probe is for the splicing itself, skb_splice_from_iter().
ccflags-y += -DXIW_HAVE_MSG_SPLICE_PAGES=$(call xiw_probe,include/linux/skbuff.h,skb_splice_from_iter)
