/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Persistence domains: what an RDMA Flush does to the memory behind an MR
 * (persist.c, Documentation/commit-draft.md).
 */
#ifndef XIW_PERSIST_H
#define XIW_PERSIST_H

#include <linux/types.h>

struct xiw_device;
struct xiw_mr;

/*
 * What backs a page, as far as a Flush is concerned (a bit each: a range
 * may span several).
 */
#define XIW_DOMAIN_DRAM		0x1	/* plain memory */
#define XIW_DOMAIN_PMEM		0x2	/* a DAX device's page */
#define XIW_DOMAIN_FILE		0x4	/* page cache of a file on storage */
#define XIW_DOMAIN_NONE		0x8	/* memory the policy cannot persist */

bool xiw_persist_dram_ok(const struct xiw_device *xdev);
int xiw_persist_check(struct xiw_mr *mr, u32 stag, u64 to, u64 len,
		      u8 flags);
int xiw_persist_flush(struct xiw_mr *mr, u32 stag, u64 to, u64 len,
		      u8 flags);

#endif /* XIW_PERSIST_H */
