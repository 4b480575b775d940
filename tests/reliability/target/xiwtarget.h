/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiwtarget: the passive end of the hostile-peer tests. What it tells a
 * peer in its accept private data (all fields big-endian) and the layout
 * of the memory it exposes in debugfs.
 */
#ifndef XIWTARGET_H
#define XIWTARGET_H

#include <linux/bits.h>
#include <linux/types.h>

#define XT_MAGIC	0x58544754	/* "XTGT" */

/*
 * The arena: XT_ARENA_PAGES pages, of which the first XT_BLOB_PAGES are
 * what debugfs shows: canary pages around a read-write region, a
 * read-only region and the receive buffers. The page after them holds
 * the READY message.
 */
#define XT_ARENA_ORDER	4
#define XT_ARENA_PAGES	BIT(XT_ARENA_ORDER)
#define XT_RW_PAGE	1
#define XT_RW_PAGES	2
#define XT_RO_PAGE	4
#define XT_RO_PAGES	1
#define XT_RECV_PAGE	6
#define XT_RECV_PAGES	2
#define XT_BLOB_PAGES	9
#define XT_READY_PAGE	9

/*
 * The large region: XT_BIG_PAGES pages of their own, not in the blob,
 * that the peer may read, write and flush to global visibility and to
 * persistence (plain memory: a Flush to persistence of it is refused
 * unless DRAM is declared persistent). Its registration can be dropped
 * on demand (debugfs N/dereg) while the peer holds the connection in any
 * state: the deregistration tests.
 */
#define XT_BIG_ORDER	8
#define XT_BIG_PAGES	BIT(XT_BIG_ORDER)

#define XT_RECV_LEN	256
#define XT_NRECV	(XT_RECV_PAGES * PAGE_SIZE / XT_RECV_LEN)

/* Read depth the target offers (its IRD) and asks for (its ORD). */
#define XT_IRD		16
#define XT_ORD		0

/**
 * struct xt_accept - accept private data, target to peer
 * @magic: XT_MAGIC
 * @conn: the connection's number: its debugfs directory
 * @rw_stag: STag of the read-write region (remote read, write, atomic,
 *	flush to global visibility)
 * @ro_stag: STag of the read-only region (remote read)
 * @rw_to: tagged offset of the read-write region's first octet
 * @ro_to: tagged offset of the read-only region's first octet
 * @rw_len: octets of the read-write region
 * @ro_len: octets of the read-only region
 * @rw_off: where the read-write region starts in the debugfs blob
 * @ro_off: where the read-only region starts in the blob
 * @recv_off: where the first receive buffer starts in the blob
 * @nrecv: receives posted, in order, one after the other in the blob
 * @recv_len: octets of each
 * @blob_len: octets of the blob
 * @big_stag: STag of the large region (remote read, write, flush to
 *	global visibility and to persistence)
 * @big_len: its octets
 * @big_to: tagged offset of its first octet
 */
struct xt_accept {
	__be32 magic;
	__be32 conn;
	__be32 rw_stag;
	__be32 ro_stag;
	__be64 rw_to;
	__be64 ro_to;
	__be32 rw_len;
	__be32 ro_len;
	__be32 rw_off;
	__be32 ro_off;
	__be32 recv_off;
	__be32 nrecv;
	__be32 recv_len;
	__be32 blob_len;
	__be32 big_stag;
	__be32 big_len;
	__be64 big_to;
};

/* The Send the target makes once its registrations are in place. */
#define XT_READY_MSG	"XTGT ready"

#endif /* XIWTARGET_H */
