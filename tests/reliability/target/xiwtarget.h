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
 * read-only region, the receive buffers and the sink page, in whose
 * middle XT_SINK_LEN octets take what a request the peer asked for
 * (struct xt_ask) returns. The page after them holds the READY message.
 */
#define XT_ARENA_ORDER	4
#define XT_ARENA_PAGES	BIT(XT_ARENA_ORDER)
#define XT_RW_PAGE	1
#define XT_RW_PAGES	2
#define XT_RO_PAGE	4
#define XT_RO_PAGES	1
#define XT_RECV_PAGE	6
#define XT_RECV_PAGES	2
#define XT_SINK_PAGE	9
#define XT_BLOB_PAGES	11
#define XT_READY_PAGE	11

#define XT_SINK_OFF	1024	/* in the sink page */
#define XT_SINK_LEN	64	/* a Verify's longest hash, and a Read's */

/*
 * The requests the peer has the target post through debugfs (N/post) take
 * their local buffers from the post sink: XT_POST_PAGES pages between
 * canary pages, which debugfs shows as N/postmem (canaries included) from
 * XT_POST_BLOB.
 */
#define XT_POST_BLOB	12
#define XT_POST_PAGE	13
#define XT_POST_PAGES	2
#define XT_POST_BLOB_PAGES	4

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

/*
 * Read depth the target offers (its IRD) and asks for (its ORD; one when
 * the peer asks it for a request with struct xt_ask).
 */
#define XT_IRD		16
#define XT_ORD		8

/* Work requests the peer may have the target post on one connection. */
#define XT_NWR		256

/*
 * What a line written to N/post asks for (enum xt_post_op), as the
 * line's first number.
 */
enum xt_post_op {
	XT_POST_READ,
	XT_POST_FADD,
	XT_POST_MFADD,
	XT_POST_CSWAP,
	XT_POST_MCSWAP,
	XT_POST_ATOMIC_WRITE,
	XT_POST_FLUSH,
	XT_POST_VERIFY,
	XT_POST_OPS,
};

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
 * @sink_off: where the sink starts in the blob
 * @sink_len: its octets (XT_SINK_LEN)
 * @sink_stag: the local key of its SGE, which a Read Request names
 * @sink_to: the address of its SGE
 * @post_to: address of the post sink's first octet (its STag is
 *	@sink_stag)
 * @post_len: octets of the post sink
 * @post_off: where the post sink starts in the N/postmem blob
 * @post_blob_len: octets of the N/postmem blob
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
	__be32 sink_off;
	__be32 sink_len;
	__be32 sink_stag;
	__be64 sink_to;
	__be64 post_to;
	__be32 post_len;
	__be32 post_off;
	__be32 post_blob_len;
	__be32 big_stag;
	__be32 big_len;
	__be64 big_to;
} __packed;

#define XT_ASK_MAGIC	0x58544153	/* "XTAS" */

/**
 * enum xt_ask_kind - the request the target posts for a peer that asks
 * @XT_ASK_READ: an RDMA Read into the whole sink
 * @XT_ASK_FETCH_ADD: an Atomic Fetch and Add, original value to the sink
 * @XT_ASK_CMP_SWAP: an Atomic Compare and Swap, likewise
 * @XT_ASK_MASKED_FETCH_ADD: the masked Fetch and Add
 * @XT_ASK_MASKED_CMP_SWAP: the masked Compare and Swap
 * @XT_ASK_FLUSH: an RDMA Flush of @len octets (no SGE)
 * @XT_ASK_VERIFY: an RDMA Verify of @len octets, its hash to the sink
 * @XT_ASK_ATOMIC_WRITE: an Atomic Write (no SGE)
 */
enum xt_ask_kind {
	XT_ASK_READ = 1,
	XT_ASK_FETCH_ADD,
	XT_ASK_CMP_SWAP,
	XT_ASK_MASKED_FETCH_ADD,
	XT_ASK_MASKED_CMP_SWAP,
	XT_ASK_FLUSH,
	XT_ASK_VERIFY,
	XT_ASK_ATOMIC_WRITE,
};

/**
 * struct xt_ask - connection private data, peer to target (optional):
 *	once ready, post one request of @kind toward the peer, signaled; its
 *	completion is in debugfs N/state ("req ...")
 * @magic: XT_ASK_MAGIC
 * @kind: enum xt_ask_kind
 * @stag: the peer's STag the request names
 * @len: octets at the peer (Flush, Verify)
 * @to: the peer's tagged offset
 */
struct xt_ask {
	__be32 magic;
	__be32 kind;
	__be32 stag;
	__be32 len;
	__be64 to;
} __packed;

/* The Send the target makes once its registrations are in place. */
#define XT_READY_MSG	"XTGT ready"

#endif /* XIWTARGET_H */
