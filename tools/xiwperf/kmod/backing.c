// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf server buffers backed by a file or a DAX device
 * (XIWPERF_LISTEN_BACKED): the caller maps it shared and hands over the
 * mapping; the server pins its pages for writing (the filesystem then
 * allocates blocks and attaches what it tracks them with, as for a write
 * through the mapping) and maps each chunk into the kernel with vmap(),
 * so that the chunk table and the registrations work as for kernel
 * memory. Clients' RDMA Writes land in the file's page cache (or on the
 * DAX pages); an RDMA Flush to persistence is what stores them (xiw finds
 * the persistence domain from these pages).
 *
 * Only xiw places into vmalloc addresses: other devices translate a
 * kernel address with virt_to_page(), so a backed server rejects their
 * connections (xp_backing_device_ok()).
 *
 * The pins are released dirty when the server goes, as an RDMA MR of user
 * memory is: what was placed and not flushed still reaches the file.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <xiw/verbs.h>

#include "server.h"

/**
 * xp_backing_pin() - take the caller's mapping as the server's buffer.
 * @srv: the server, its size and chunk length set, no chunk yet.
 * @uaddr: the mapping's start in the caller's address space.
 *
 * Pins every page of [@uaddr, @uaddr + srv->size) for writing and maps
 * each chunk's pages contiguously into the kernel (srv->chunks[]).
 * xp_backing_release() undoes what was done, even on failure.
 *
 * Return: 0, -EINVAL for an unaligned address, -EFAULT if the range is
 * not all mapped writable, or -ENOMEM.
 */
int xp_backing_pin(struct xp_server *srv, u64 uaddr)
{
	unsigned long npages = DIV_ROUND_UP(srv->size, PAGE_SIZE);
	u32 per_chunk = srv->chunk >> PAGE_SHIFT;
	u32 i;

	if (!PAGE_ALIGNED(uaddr) || !PAGE_ALIGNED(srv->chunk))
		return -EINVAL;
	srv->pages = kvcalloc(npages, sizeof(*srv->pages), GFP_KERNEL);
	if (!srv->pages)
		return -ENOMEM;
	while (srv->npages < npages) {
		long n = pin_user_pages_fast(uaddr + srv->npages * PAGE_SIZE,
					     npages - srv->npages, FOLL_WRITE,
					     srv->pages + srv->npages);

		if (n <= 0)
			return n ?: -EFAULT;
		srv->npages += n;
	}
	for (i = 0; i < srv->nchunks; i++) {
		size_t len = xp_server_chunk_len(srv, i);

		srv->chunks[i] = vmap(srv->pages + (unsigned long)i * per_chunk,
				      DIV_ROUND_UP(len, PAGE_SIZE), VM_MAP,
				      PAGE_KERNEL);
		if (!srv->chunks[i])
			return -ENOMEM;
	}
	return 0;
}

/**
 * xp_backing_dirty() - mark the pinned pages dirty after the server wrote
 *	them through its kernel mapping.
 * @srv: the server, its buffer pinned.
 *
 * Pinning for writing dirtied each page (the write fault), but writeback
 * may have cleaned it before the read pattern was stored, and a store
 * through vmap() tells the page cache nothing: the caller's fsync() would
 * then leave the pattern off the disk (test_flush_power_cut.py saw a file
 * of holes after it, one run in a few). DAX pages have no page cache.
 */
void xp_backing_dirty(struct xp_server *srv)
{
	unsigned long i;

	for (i = 0; i < srv->npages; i++)
		if (!is_zone_device_page(srv->pages[i]))
			set_page_dirty_lock(srv->pages[i]);
}

/**
 * xp_backing_release() - unmap the chunks and release the pins, dirty.
 * @srv: the server, its connections gone.
 */
void xp_backing_release(struct xp_server *srv)
{
	u32 i;

	for (i = 0; srv->chunks && i < srv->nchunks; i++) {
		if (srv->chunks[i])
			vunmap(srv->chunks[i]);
		srv->chunks[i] = NULL;
	}
	if (srv->npages)
		unpin_user_pages_dirty_lock(srv->pages, srv->npages, true);
	kvfree(srv->pages);
	srv->pages = NULL;
	srv->npages = 0;
}

/**
 * xp_backing_device_ok() - whether a device may serve the server's buffer.
 * @srv: the server.
 * @dev: a connection's device.
 *
 * Return: true for kernel memory, or for a backed buffer if @dev is an
 * xiw device (xiw loaded, asked through its xiw_device()).
 */
bool xp_backing_device_ok(const struct xp_server *srv,
			  const struct ib_device *dev)
{
	bool (*is_xiw)(const struct ib_device *dev);
	bool ok;

	if (!srv->pages)
		return true;
	is_xiw = symbol_get(xiw_device);
	if (!is_xiw)
		return false;
	ok = is_xiw(dev);
	symbol_put(xiw_device);
	return ok;
}
