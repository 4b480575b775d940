// SPDX-License-Identifier: GPL-2.0
/*
 * Persistence domains: what an RDMA Flush does to the memory behind an MR.
 * The domain is the memory's, found page by page from what backs it, so a
 * ULP needs to say nothing at registration:
 *
 * - pmem: a page of a DAX device (fsdax or device-dax, with struct pages:
 *   raw-mode pmem has none, and counts as dram). Persistence is writing
 *   its lines back from the CPU caches, then a store fence.
 * - file: a page-cache page of a file whose mapping writes back (a disk
 *   file, not tmpfs) and that xiw can mark dirty safely (see
 *   xiw_folio_dirtiable()). Persistence is marking the range's folios
 *   dirty (placement stored through the kernel's mapping, which tells the
 *   page cache nothing), writing that range of the file back and waiting
 *   for it, syncing the inode, then flushing the device's volatile cache.
 * - dram: anything else. Nothing makes it persistent; it counts as
 *   persistent only when the administrator says so (dram_persistent, for
 *   battery-backed systems), else a Flush to persistence is refused.
 *
 * The administrator may instead name the domain, for a device's MRs or
 * for one MR (netlink.c): every page is then taken to be of it. DRAM and
 * pmem can be said of any memory; file needs page-cache pages of a file,
 * other memory cannot be made persistent that way. The policy is read
 * when a Flush arrives and again at its turn: one it no longer allows
 * then fails.
 *
 * Global visibility is a full fence in every domain: the receive path
 * placed the data with CPU stores.
 *
 * A request is checked (xiw_persist_check()) and carried out
 * (xiw_persist_flush(): writeback sleeps) in its turn, by the transmit
 * engine, in process context: the check walks the whole range, which may
 * be all of a large region, so it never runs on the receive path (under
 * the socket's callback lock, for each 40-octet request), nor before the
 * request passed the IRD check.
 */
#include <linux/backing-dev.h>
#include <linux/blkdev.h>
#include <linux/buffer_head.h>
#include <linux/fs.h>
#include <linux/libnvdimm.h>
#include <linux/memremap.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <xiw/compat.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>
#include <linux/writeback.h>

#include "commit.h"
#include "device.h"
#include "obj.h"
#include "persist.h"
#include "stats.h"
#include "../uapi/xiw_netlink.h"

static bool dram_persistent;
module_param(dram_persistent, bool, 0644);
MODULE_PARM_DESC(dram_persistent,
		 "Treat plain memory as persistent (battery-backed systems): an RDMA Flush to persistence of DRAM succeeds instead of being refused (default off)");

/* Files whose ranges one pass of a walk collects before writing back. */
#define XIW_PERSIST_FILES	4
/*
 * Octets one call of xiw_mr_place() covers: a fast MR's lock is held, with
 * interrupts off, for that long (cache writeback included).
 */
#define XIW_PERSIST_STEP	SZ_2M

/**
 * struct xiw_persist_file - a file range a Flush must write back
 * @inode: the file (referenced)
 * @start: first octet
 * @end: last octet
 */
struct xiw_persist_file {
	struct inode *inode;
	loff_t start;
	loff_t end;
};

/**
 * struct xiw_persist_walk - one walk of a range, page by page
 * @domains: XIW_DOMAIN_* met
 * @flush: write back as we go (pmem) and collect @files; else classify
 * @files: file ranges collected, @nfiles of them
 * @nfiles: entries of @files used
 * @done: octets walked; when @files is full the walk stops there, to be
 *	resumed after they are written back
 * @pmem_bytes: octets of pmem written back from the CPU caches
 * @file_bytes: octets of file ranges written back
 * @force: enum xiw_persist the policy names (XIW_PERSIST_AUTO: each page
 *	its own domain)
 * @pending: a page cache page of a file not in @files yet, referenced,
 *	where the walk stopped: its inode is taken once the MR's lock is
 *	dropped (xiw_persist_grab())
 */
struct xiw_persist_walk {
	u8 domains;
	u8 force;
	bool flush;
	struct xiw_persist_file files[XIW_PERSIST_FILES];
	int nfiles;
	struct page *pending;
	u64 done;
	u64 pmem_bytes;
	u64 file_bytes;
};

/*
 * The page behind kernel address @p, if it has a struct page: memory
 * mapped without one (pmem in raw mode, ioremapped) is none xiw can tell
 * anything of.
 */
static struct page *xiw_persist_page(const void *p)
{
	unsigned long pfn = is_vmalloc_addr(p) ? vmalloc_to_pfn(p) :
						 PHYS_PFN(__pa(p));

	return pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;
}

/*
 * May xiw mark this page-cache folio dirty, as a write(2) into it would
 * have, and trust writeback to store it? Filesystems whose folios carry
 * no state of their own for dirtying (the generic and iomap helpers) take
 * any uptodate folio. Buffer-head filesystems write back a folio's dirty
 * buffers only, and some (ext4) want them attached: their folio must have
 * buffers, every one backed by a block or a delayed allocation. Any
 * other filesystem keeps per-folio state xiw cannot judge: not dirtiable,
 * so its pages are no persistence domain.
 *
 * Unlocked (when a request arrives) only the buffers' presence is looked
 * at, as a hint; @locked (the folio lock held, which keeps its buffers)
 * the buffers themselves are.
 */
static bool xiw_folio_dirtiable(struct address_space *mapping,
				struct folio *folio, bool locked)
{
	const struct address_space_operations *ops = mapping->a_ops;
	struct buffer_head *head, *bh;

	if (ops->dirty_folio == filemap_dirty_folio ||
	    xiw_dirty_folio_is_iomap(ops->dirty_folio))
		return true;
	if (!xiw_buffer_migrate_folio(mapping))
		return false;
	if (!locked)
		return folio_test_private(folio);
	head = folio_buffers(folio);
	if (!head)
		return false;
	bh = head;
	do {
		if (!buffer_mapped(bh) && !buffer_delay(bh))
			return false;
		bh = bh->b_this_page;
	} while (bh != head);
	return true;
}

/* The domain of one page (NULL: memory without a struct page). */
static u8 xiw_page_domain(struct page *page)
{
	struct address_space *mapping;
	struct folio *folio;

	if (!page)
		return XIW_DOMAIN_DRAM;
	folio = page_folio(page);
	if (is_zone_device_page(page)) {
		/*
		 * Device-dax maps in compound pages (its alignment): only the
		 * head has the pgmap, a tail's field holds its head.
		 */
		enum memory_type type = folio_page(folio, 0)->pgmap->type;

		return type == MEMORY_DEVICE_FS_DAX ||
		       type == MEMORY_DEVICE_GENERIC ?
		       XIW_DOMAIN_PMEM : XIW_DOMAIN_DRAM;
	}
	if (folio_test_anon(folio))
		return XIW_DOMAIN_DRAM;
	mapping = folio_mapping(folio);
	if (!mapping || !mapping->host || shmem_mapping(mapping) ||
	    !mapping_can_writeback(mapping) ||
	    !xiw_folio_dirtiable(mapping, folio, false))
		return XIW_DOMAIN_DRAM;
	return XIW_DOMAIN_FILE;
}

/* The domain of one page under the policy's @force (enum xiw_persist). */
static u8 xiw_page_domain_as(struct page *page, u8 force)
{
	switch (force) {
	case XIW_PERSIST_DRAM:
		return XIW_DOMAIN_DRAM;
	case XIW_PERSIST_PMEM:
		return XIW_DOMAIN_PMEM;
	case XIW_PERSIST_FILE:
		return xiw_page_domain(page) == XIW_DOMAIN_FILE ?
		       XIW_DOMAIN_FILE : XIW_DOMAIN_NONE;
	default:
		return xiw_page_domain(page);
	}
}

/*
 * Note the file range behind a page cache page, under the MR's lock.
 * Return: false when the walk must stop here: every slot is taken by
 * another file, the page left its file (which the page's owner should
 * have prevented), or the file is new. A new file's inode is not taken
 * here: igrab() takes the inode's i_lock, which process context holds
 * with softirqs on, while the MR's lock is also taken in softirq
 * (receive): one under the other could deadlock. The page is kept
 * (@w->pending) for xiw_persist_grab() instead.
 */
static bool xiw_persist_note_file(struct xiw_persist_walk *w,
				  struct page *page, u32 off, u32 len)
{
	struct folio *folio = page_folio(page);
	struct address_space *mapping = folio_mapping(folio);
	loff_t pos = folio_pos(folio) + folio_page_idx(folio, page) *
		     PAGE_SIZE + off;
	struct xiw_persist_file *f;
	int i;

	if (!mapping || !mapping->host)	/* truncated meanwhile */
		return false;
	for (i = 0; i < w->nfiles; i++) {
		f = &w->files[i];
		if (f->inode == mapping->host) {
			f->start = min(f->start, pos);
			f->end = max(f->end, pos + len - 1);
			return true;
		}
	}
	if (w->nfiles < XIW_PERSIST_FILES) {
		get_page(page);
		w->pending = page;
	}
	return false;
}

/*
 * Take the inode of the walk's pending page into @w->files, with no range
 * yet (the walk, resumed at that page, gives it one). Process context:
 * the folio lock keeps the folio in its file, and so the inode from being
 * evicted, while igrab() takes it. Return: false if the page left its file
 * meanwhile or the inode is going away.
 */
static bool xiw_persist_grab(struct xiw_persist_walk *w)
{
	struct folio *folio = page_folio(w->pending);
	struct address_space *mapping;
	struct inode *inode = NULL;
	struct xiw_persist_file *f;

	folio_lock(folio);
	mapping = folio_mapping(folio);
	if (mapping && mapping->host)
		inode = igrab(mapping->host);
	folio_unlock(folio);
	put_page(w->pending);
	w->pending = NULL;
	if (!inode)
		return false;
	f = &w->files[w->nfiles++];
	f->inode = inode;
	f->start = LLONG_MAX;
	f->end = -1;
	return true;
}

/* xiw_mr_place() callback: a physically contiguous piece of the range. */
static int xiw_persist_piece(void *ctx, u8 *p, u32 len)
{
	struct xiw_persist_walk *w = ctx;

	while (len) {
		u32 off = offset_in_page(p);
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		struct page *page = xiw_persist_page(p);
		u8 dom = xiw_page_domain_as(page, w->force);

		w->domains |= dom;
		if (w->flush && dom == XIW_DOMAIN_NONE)
			return -EIO;	/* the policy changed since arrival */
		if (w->flush && dom == XIW_DOMAIN_PMEM) {
			arch_wb_cache_pmem(p, n);
			w->pmem_bytes += n;
		}
		if (w->flush && dom == XIW_DOMAIN_FILE &&
		    !xiw_persist_note_file(w, page, off, n))
			return 1;	/* resume here */
		w->done += n;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * Walk [to, to + len) of the MR with @w until the end or until @w stops.
 * Return: 0 (see w->done for how far), or -EACCES/-EFAULT from
 * xiw_mr_place().
 */
static int xiw_persist_walk(struct xiw_mr *mr, u32 stag, u64 to, u64 len,
			    struct xiw_persist_walk *w)
{
	while (w->done < len) {
		u64 at = to + w->done;
		u32 step = min_t(u64, len - w->done, XIW_PERSIST_STEP);
		u64 before = w->done;
		int err;

		err = xiw_mr_place(mr, stag, at, step, xiw_persist_piece, w);
		if (w->pending) {
			/* A new file: on from the same page once it is in. */
			if (!xiw_persist_grab(w))
				return 0;
			continue;
		}
		if (err < 0)
			return err;
		if (err > 0 || w->done == before)
			return 0;	/* @w is full */
		cond_resched();
	}
	return 0;
}

/*
 * Mark the cached folios of [start, end] of a file dirty, so that writeback
 * stores what placement put in them. Return: 0, or -EIO if one cannot be
 * dirtied safely (it lost its buffers, or is not uptodate) and the range
 * cannot be made persistent.
 */
static int xiw_persist_dirty(struct address_space *mapping, loff_t start,
			     loff_t end)
{
	pgoff_t index = start >> PAGE_SHIFT;
	pgoff_t last = end >> PAGE_SHIFT;
	int err = 0;

	while (!err && index <= last) {
		struct folio *folio = filemap_get_folio(mapping, index);

		if (IS_ERR(folio)) {
			index++;	/* not cached: nothing was placed there */
			continue;
		}
		folio_lock(folio);
		if (folio->mapping != mapping) {
			index++;	/* truncated meanwhile: not the file's */
		} else {
			if (!folio_test_uptodate(folio) ||
			    !xiw_folio_dirtiable(mapping, folio, true))
				err = -EIO;
			else
				folio_mark_dirty(folio);
			index = folio_next_index(folio);
		}
		folio_unlock(folio);
		folio_put(folio);
		cond_resched();
	}
	return err;
}

/* Write back the files a walk collected, and forget them. */
static int xiw_persist_files(struct xiw_persist_walk *w)
{
	struct block_device *flushed[XIW_PERSIST_FILES];
	int i, j, nflushed = 0, err = 0;

	for (i = 0; i < w->nfiles; i++) {
		struct xiw_persist_file *f = &w->files[i];
		struct inode *inode = f->inode;
		/* A block device's own page cache, or a filesystem's file. */
		struct block_device *bdev = S_ISBLK(inode->i_mode) ?
					    I_BDEV(inode) : inode->i_sb->s_bdev;

		if (f->start > f->end) {	/* taken, never reached */
			iput(inode);
			continue;
		}
		if (!err)
			err = xiw_persist_dirty(f->inode->i_mapping, f->start,
						f->end);
		if (!err)
			err = filemap_write_and_wait_range(f->inode->i_mapping,
							   f->start, f->end);
		if (!err)
			w->file_bytes += f->end - f->start + 1;
		if (!err)
			err = sync_inode_metadata(f->inode, 1);
		for (j = 0; j < nflushed && flushed[j] != bdev; j++)
			;
		if (!err && bdev && j == nflushed) {
			err = blkdev_issue_flush(bdev);
			flushed[nflushed++] = bdev;
		}
		iput(f->inode);
	}
	w->nfiles = 0;
	return err;
}

/* Count a Flush to persistence carried out (or not: @err). */
static void xiw_persist_count(struct xiw_stats __percpu *stats,
			      const struct xiw_persist_walk *w, int err)
{
	if (err) {
		xiw_stat_add(stats, XIW_STAT_FLUSH_FAILED, 1);
		return;
	}
	xiw_stat_add(stats, XIW_STAT_FLUSH_PERSISTENT, 1);
	if (w->domains & XIW_DOMAIN_PMEM)
		xiw_stat_add(stats, XIW_STAT_FLUSH_PMEM, 1);
	if (w->domains & XIW_DOMAIN_FILE)
		xiw_stat_add(stats, XIW_STAT_FLUSH_FILE, 1);
	if (w->domains & XIW_DOMAIN_DRAM)
		xiw_stat_add(stats, XIW_STAT_FLUSH_DRAM, 1);
	xiw_stat_add(stats, XIW_STAT_PMEM_WB_BYTES, w->pmem_bytes);
	xiw_stat_add(stats, XIW_STAT_FILE_WB_BYTES, w->file_bytes);
}

/**
 * xiw_persist_dram_ok() - does a device take DRAM as persistent now?
 * @xdev: the device
 *
 * Return: its own setting, or the module parameter's if it has none.
 */
bool xiw_persist_dram_ok(const struct xiw_device *xdev)
{
	switch (READ_ONCE(xdev->dram_persistent)) {
	case XIW_DRAM_PERSISTENT_ON:
		return true;
	case XIW_DRAM_PERSISTENT_OFF:
		return false;
	default:
		return READ_ONCE(dram_persistent);
	}
}

/* The domain the policy names for @mr: its own, else its device's. */
static u8 xiw_persist_force(const struct xiw_mr *mr)
{
	u8 force = READ_ONCE(mr->persist);

	if (force == XIW_PERSIST_AUTO)
		force = READ_ONCE(to_xiw_dev(mr->ibmr.device)->persist);
	return force;
}

/**
 * xiw_persist_check() - may a Flush be carried out on this range? Checked
 *	in its turn, before xiw_persist_flush().
 * @mr: the MR, referenced, looked up by @stag for the range and the rights
 *	the disposition needs
 * @stag: its STag
 * @to: first octet
 * @len: octets
 * @flags: XIW_FLUSH_* asked for
 *
 * Global visibility can always be given. Persistence cannot be given to
 * plain memory unless the administrator declared it persistent, nor by
 * the file domain to memory that is no file's page cache: the memory
 * lacks what the right promises, so it is refused as an access rights
 * violation (Documentation/commit-draft.md). The walk classifies each
 * page of the range: its cost is a few loads per page, O(range), and it
 * reschedules between steps: process context only.
 *
 * Return: 0, or the RDMAP Terminate cause.
 */
int xiw_persist_check(struct xiw_mr *mr, u32 stag, u64 to, u64 len,
		      u8 flags)
{
	struct xiw_device *xdev = to_xiw_dev(mr->ibmr.device);
	struct xiw_persist_walk w = { .force = xiw_persist_force(mr) };
	bool dram_ok = xiw_persist_dram_ok(xdev);
	int err;

	if (!(flags & XIW_FLUSH_PERSISTENT) || w.force == XIW_PERSIST_PMEM ||
	    (dram_ok && w.force != XIW_PERSIST_FILE))
		return 0;
	err = xiw_persist_walk(mr, stag, to, len, &w);
	if (err)	/* invalidated since the lookup, or not memory */
		return XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
				err == -EACCES ? XIW_RDMAP_INV_STAG :
						 XIW_RDMAP_BOUNDS);
	if ((w.domains & XIW_DOMAIN_NONE) ||
	    (!dram_ok && (w.domains & XIW_DOMAIN_DRAM))) {
		xiw_stat_add(to_xiw_dev(mr->ibmr.device)->stats,
			     XIW_STAT_FLUSH_REFUSED, 1);
		return XIW_TERM(XIW_TERM_LAYER_RDMAP, XIW_RDMAP_ETYPE_PROT,
				XIW_RDMAP_ACCESS);
	}
	return 0;
}

/**
 * xiw_persist_flush() - carry out a Flush, in its turn: every Write before
 *	it has been placed
 * @mr: the MR, referenced
 * @stag: its STag
 * @to: first octet
 * @len: octets
 * @flags: XIW_FLUSH_* asked for (checked by xiw_persist_check())
 *
 * Sleeps: file ranges are written back and waited on. DRAM needs nothing
 * but the fence (xiw_persist_check() refused it, unless declared
 * persistent).
 *
 * Return: 0, -EACCES if the STag was invalidated meanwhile or the policy
 * no longer lets the range be persistent, or the error of the writeback
 * (the data did not reach the state asked for).
 */
int xiw_persist_flush(struct xiw_mr *mr, u32 stag, u64 to, u64 len,
		      u8 flags)
{
	struct xiw_device *xdev = to_xiw_dev(mr->ibmr.device);
	struct xiw_stats __percpu *stats = xdev->stats;
	struct xiw_persist_walk w = { .flush = true };
	int err = 0;

	smp_mb();	/* every placement before the Flush is visible */
	if (!(flags & XIW_FLUSH_PERSISTENT)) {
		xiw_stat_add(stats, XIW_STAT_FLUSH_GLOBAL, 1);
		return 0;
	}
	w.force = xiw_persist_force(mr);
	while (!err && w.done < len) {
		u64 before = w.done;

		err = xiw_persist_walk(mr, stag, to, len, &w);
		if (w.nfiles) {
			int ferr = xiw_persist_files(&w);

			err = err ?: ferr;
		} else if (!err && w.done == before) {
			err = -EIO;	/* an inode going away */
		}
	}
	if (w.domains & XIW_DOMAIN_PMEM)
		pmem_wmb();
	if (!err && (w.domains & XIW_DOMAIN_DRAM) && !xiw_persist_dram_ok(xdev))
		err = -EACCES;	/* the policy changed since arrival */
	xiw_persist_count(stats, &w, err);
	return err;
}
