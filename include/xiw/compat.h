/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What differs between the kernels xiw builds for (Debian's 6.1 LTS and
 * 6.12; Documentation/admin.md): the one place that knows. Each
 * difference is keyed on a feature probe of the kernel's own headers
 * (include/xiw/compat.mk: XIW_HAVE_*), never on its version number.
 * Everything else in xiw is written against the newest interface; this
 * header gives older kernels that interface.
 */
#ifndef XIW_COMPAT_H
#define XIW_COMPAT_H

#ifndef XIW_HAVE_IB_WR_FLUSH
#error "build with include/xiw/compat.mk: the XIW_HAVE_* feature probes are missing"
#endif

#include <linux/net.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/bits.h>
#include <linux/buffer_head.h>
#include <linux/bvec.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <net/sock.h>
#include <net/tcp.h>

#if XIW_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* xiw_vm_flags_set() - vm_flags_set() (6.3); the flags directly before. */
#if XIW_HAVE_VM_FLAGS_SET
#define xiw_vm_flags_set(vma, flags)	vm_flags_set(vma, flags)
#else
#define xiw_vm_flags_set(vma, flags)	((vma)->vm_flags |= (flags))
#endif

/*
 * xiw_assign_str() - TP_fast_assign()'s copy of a __string() field from
 * the argument of the same name: __assign_str(dst) since 6.10,
 * __assign_str(dst, src) before.
 */
#if XIW_HAVE_ASSIGN_STR_1ARG
#define xiw_assign_str(dst, src)	do { (void)(src); __assign_str(dst); } while (0)
#else
#define xiw_assign_str(dst, src)	__assign_str(dst, src)
#endif

/*
 * struct xiw_create_cq_arg, xiw_create_cq_udata() - the type of
 * ib_device_ops.create_cq()'s last parameter: the uverbs attribute bundle
 * since 6.11 (NULL for a kernel CQ), the user's udata before; and the
 * udata from it.
 */
#if XIW_HAVE_CREATE_CQ_ATTRS
#define xiw_create_cq_arg		uverbs_attr_bundle
#define xiw_create_cq_udata(attrs) \
	({ typeof(attrs) a__ = (attrs); a__ ? &a__->driver_udata : NULL; })
#else
#define xiw_create_cq_arg		ib_udata
#define xiw_create_cq_udata(attrs)	(attrs)
#endif

/*
 * xiw_dirty_folio_is_iomap() - whether @fn is iomap's dirty_folio (6.6+;
 * before, iomap filesystems dirty folios with filemap_dirty_folio).
 */
struct address_space;
struct folio;
typedef bool (*xiw_dirty_folio_t)(struct address_space *, struct folio *);

#if XIW_HAVE_IOMAP_DIRTY_FOLIO
#include <linux/iomap.h>
static inline bool xiw_dirty_folio_is_iomap(xiw_dirty_folio_t fn)
{
	return fn == iomap_dirty_folio;
}
#else
static inline bool xiw_dirty_folio_is_iomap(xiw_dirty_folio_t fn)
{
	return false;
}
#endif

/*
 * xiw_buffer_migrate_folio() - whether @mapping's migrate_folio is one of
 * the buffer-head helpers, which buffer-head filesystems and the block
 * devices' own page cache use: buffer_migrate_folio() or
 * buffer_migrate_folio_norefs(). Where the kernel does not export the
 * latter to modules (6.1), the block devices' page cache is recognised by
 * its inode instead.
 */
static inline bool xiw_buffer_migrate_folio(const struct address_space *mapping)
{
	if (mapping->a_ops->migrate_folio == buffer_migrate_folio)
		return true;
#if XIW_HAVE_BUFFER_MIGRATE_FOLIO_NOREFS
	return mapping->a_ops->migrate_folio == buffer_migrate_folio_norefs;
#else
	return mapping->host && S_ISBLK(mapping->host->i_mode);
#endif
}

/**
 * xiw_sock_end_segment() - make TCP start a new segment with what is sent
 *	next on a TCP socket
 * @sock: the socket
 *
 * Marks the skb at the tail of the write queue as MSG_EOR does: TCP
 * appends nothing more to it, and never merges it with the next one. If
 * every skb has been transmitted, the next send starts a new one anyway.
 * The caller is the only sender on @sock.
 */
static inline void xiw_sock_end_segment(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct sk_buff *skb;

	/* TCP only takes skbs off the queue: if empty, it stays so. */
	if (skb_queue_empty_lockless(&sk->sk_write_queue))
		return;
	lock_sock(sk);
	skb = tcp_write_queue_tail(sk);
	if (skb)
		TCP_SKB_CB(skb)->eor = 1;
	release_sock(sk);
}

/**
 * xiw_sock_send_pages() - hand TCP the pages of a bio_vec array, without
 *	copying them, and without waiting for room
 * @sock: a TCP socket
 * @bvec: the array; every page must be sendpage_ok()
 * @nbvec: its entries
 * @len: octets in all of them
 * @off: octets of them already sent: start after these
 * @more: more follows at once (MSG_MORE)
 * @eor: what follows goes in a new segment (MSG_EOR)
 *
 * sendmsg(MSG_SPLICE_PAGES) where the kernel has it (6.5+), sendpage for
 * each entry before (and xiw_sock_end_segment() for @eor).
 *
 * Return: octets TCP took, maybe fewer than asked for, or a negative
 * errno (-EAGAIN when it took none for want of room).
 */
static inline int xiw_sock_send_pages(struct socket *sock,
				      struct bio_vec *bvec,
				      unsigned int nbvec, size_t len,
				      size_t off, bool more, bool eor)
{
#if XIW_HAVE_MSG_SPLICE_PAGES
	struct msghdr msg = {
		.msg_flags = MSG_SPLICE_PAGES | MSG_DONTWAIT | MSG_NOSIGNAL |
			     (more ? MSG_MORE : 0) | (eor ? MSG_EOR : 0),
	};

	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, bvec, nbvec, len);
	iov_iter_advance(&msg.msg_iter, off);
	return sock_sendmsg(sock, &msg);
#else
	size_t want = len - off, sent = 0;
	unsigned int i = 0;

	/* @off: octets of bvec[i] already sent */
	while (i < nbvec && sent < want) {
		int flags = MSG_DONTWAIT | MSG_NOSIGNAL, r;
		size_t at = bvec[i].bv_offset + off, n;
		struct page *page;

		if (off >= bvec[i].bv_len) {
			off -= bvec[i].bv_len;
			i++;
			continue;
		}
		page = nth_page(bvec[i].bv_page, at >> PAGE_SHIFT);
		at &= ~PAGE_MASK;
		n = min3(bvec[i].bv_len - off, PAGE_SIZE - at, want - sent);
		if (sent + n < want)
			flags |= MSG_MORE | MSG_SENDPAGE_NOTLAST;
		else if (more)
			flags |= MSG_MORE;
		r = kernel_sendpage(sock, page, at, n, flags);
		if (r <= 0)
			return sent ? sent : r;
		sent += r;
		off += r;
		if (r < n)
			break;
	}
	if (eor && sent == want)
		xiw_sock_end_segment(sock);
	return sent;
#endif
}

#if !XIW_HAVE_IB_WR_FLUSH
/*
 * The RDMA core before 6.2 has no names for the commit draft's verbs. xiw
 * and its ULPs use upstream's names throughout; here they get values of
 * their own where upstream's would collide with 6.1's (work request and
 * completion opcodes: driver-private values, like XIW_WR_VERIFY's) and
 * upstream's values where they are free (flags, flush type and level).
 * They reach xiw through xiw's ULP verbs (include/xiw/verbs.h) only: the
 * 6.1 core rejects IB_ACCESS_FLUSH_* in a userspace ibv_reg_mr().
 */
#include <rdma/ib_verbs.h>

#define IB_WR_FLUSH			IB_WR_RESERVED2
#define IB_WR_ATOMIC_WRITE		IB_WR_RESERVED3
#define IB_WC_FLUSH			((enum ib_wc_opcode)0x41)
#define IB_WC_ATOMIC_WRITE		((enum ib_wc_opcode)0x42)
/* libibverbs' numbers for them, which a process's completion ring uses */
#define IB_UVERBS_WC_FLUSH		8
#define IB_UVERBS_WC_ATOMIC_WRITE	9
#define IB_ACCESS_FLUSH_GLOBAL		BIT(8)
#define IB_ACCESS_FLUSH_PERSISTENT	BIT(9)
#define IB_DEVICE_FLUSH_GLOBAL		BIT_ULL(38)
#define IB_DEVICE_FLUSH_PERSISTENT	BIT_ULL(39)
#define IB_DEVICE_ATOMIC_WRITE		BIT_ULL(40)
#define IB_FLUSH_GLOBAL			BIT(0)
#define IB_FLUSH_PERSISTENT		BIT(1)
#define IB_FLUSH_RANGE			0
#define IB_FLUSH_MR			1
#endif

#endif /* XIW_COMPAT_H */
