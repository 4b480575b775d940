/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verbs objects shared by the verbs glue, the connection manager and the
 * transmit/receive engines: PD, CQ, MR (STag table), QP.
 */
#ifndef XIW_OBJ_H
#define XIW_OBJ_H

#include <linux/bvec.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <xiw/verbs.h>

#include "atomic.h"
#include "commit.h"
#include "device.h"
#include "iwarp.h"
#include "mpa.h"
#include "rdmap.h"
#include "ring.h"
#include "stag.h"

struct sock;
struct xiw_cep;

/**
 * xiw_gfp() - the allocation flags of a verbs object's memory
 * @user: the object is a process's: its create verb came through uverbs
 *	(it has driver data, udata, where a kernel consumer's has none)
 *
 * The rule for the memory a create verb allocates for its object (a
 * CQ's ring, a QP's queues, an SRQ's ring, an MR and its page lists): a
 * process's object is sized by the process, so it is the process's
 * memory, charged to its memory cgroup like a pipe's or a BPF map's
 * (GFP_KERNEL_ACCOUNT). At the cgroup's limit the verb fails with -ENOMEM
 * rather than calling the OOM killer (__GFP_RETRY_MAYFAIL) or writing a
 * warning to the kernel log (__GFP_NOWARN): a process asking for more
 * than it may have is no kernel fault. A kernel consumer's object is the
 * kernel's (GFP_KERNEL): its verb runs in whatever task the ULP happens
 * to run in, a kworker or some process in a system call of the ULP's,
 * which must not be billed for it. Arrays whose size the consumer chose
 * come from xiw_kvcalloc().
 *
 * Not charged: the device's tables (xiw_device's QP and STag xarrays)
 * and what a connection allocates for its QP (the IRQ, in the connection
 * manager's work, XIW_MAX_IRD entries at most): bounded per object, and
 * the objects by the device's limits.
 *
 * Return: the flags.
 */
static inline gfp_t xiw_gfp(bool user)
{
	return user ? GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN :
		      GFP_KERNEL;
}

void *xiw_kvcalloc(size_t n, size_t size, bool user);

struct xiw_umap;
struct xiw_umap *xiw_umap_new(struct ib_ucontext *uctx, size_t len,
			      u64 *offset);
void xiw_umap_remove(struct xiw_umap *m);

/**
 * struct xiw_ucontext - a user context (uctx.c)
 * @ibucontext: RDMA core object
 * @flags: XIW_UCTX_* granted to the provider when it opened the device
 *	(uapi/xiw_abi.h); set before any object of the context exists
 */
struct xiw_ucontext {
	struct ib_ucontext ibucontext;
	u32 flags;
};

/**
 * struct xiw_umap - memory a process maps from the device file (uctx.c):
 *	a user CQ's completion ring
 * @rdma: the RDMA core's entry: offset, length, reference count
 * @mem: zeroed pages from __vmalloc(), charged to the process's memory
 *	cgroup; freed with the entry (xiw_mmap_free()), while a mapping of
 *	them keeps its own page references
 */
struct xiw_umap {
	struct rdma_user_mmap_entry rdma;
	void *mem;
};

/**
 * struct xiw_pd - protection domain
 * @ibpd: RDMA core object
 */
struct xiw_pd {
	struct ib_pd ibpd;
};

/**
 * struct xiw_cq - completion queue: a ring of work completions
 * @ibcq: RDMA core object
 * @lock: protects everything below but @size and @mask, which are fixed at
 *	creation
 * @ring: @mask + 1 slots (ring.h), @size of them used at most
 * @size: capacity (ibcq.cqe)
 * @mask: slots of @ring less one (@size rounded up to a power of two,
 *	less one); a position's slot is xiw_ring_slot(position, @mask)
 * @head: next entry written (free-running)
 * @tail: next entry polled (free-running)
 * @notify: armed IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, 0 if not armed
 * @overflowed: a completion was lost; the CQ is in error
 */
struct xiw_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* the ring, head, tail, notify */
	/* A kernel CQ, or a process's polled through the poll command. */
	struct ib_wc *ring;
	/*
	 * Or a process's completion ring (uapi/xiw_abi.h, XIW_UCTX_CQ_RING):
	 * the kernel writes entries and the head there, and reads only the
	 * process's tail, which it trusts for nothing; @tail is unused.
	 */
	struct xiw_umap *umap;
	u32 size;
	u32 mask;
	u32 head;
	u32 tail;
	u8 notify;
	bool overflowed;
};

/**
 * enum xiw_mr_kind - how an MR's addresses map to memory
 * @XIW_MR_DMA: get_dma_mr: addresses are kernel virtual addresses of any
 *	memory, no base/bounds, never invalidated
 * @XIW_MR_FAST: alloc_mr(IB_MR_TYPE_MEM_REG): a page list bound to an
 *	I/O virtual address range by IB_WR_REG_MR, invalidated by
 *	IB_WR_LOCAL_INV, Send with Invalidate or RDMA Read with Invalidate
 * @XIW_MR_USER: reg_user_mr: a process's pages, pinned (ib_umem) and
 *	bound to the address range the process gave; valid from creation to
 *	deregistration, never invalidated
 */
enum xiw_mr_kind {
	XIW_MR_DMA,
	XIW_MR_FAST,
	XIW_MR_USER,
};

/**
 * struct xiw_mr_pages - a page list of a fast-registration MR
 * @addr: kernel virtual address of each page
 * @n: entries used
 * @fbo: first byte offset: where in the first page the region starts
 */
struct xiw_mr_pages {
	u64 *addr;
	u32 n;
	u32 fbo;
};

/**
 * struct xiw_mr - a memory region and its STag
 * @ibmr: RDMA core object; the consumer may change its keys and, for a
 *	fast-registration MR, map_mr_sg() sets iova/length/page_size: none
 *	of that takes effect before IB_WR_REG_MR executes
 * @kind: enum xiw_mr_kind
 * @ref: held by the STag table and by every user inside a lookup
 * @released: completed when @ref drops to zero
 * @rcu: frees the structure after lookups that may still see it
 * @lock: protects the registration below (fast-registration MRs: a DMA
 *	MR's never changes); held while memory is placed through the MR, so
 *	that an invalidation stops every placement the moment it is done
 * @reg: the STag that currently names the MR (index and key), its state,
 *	owning protection domain (struct xiw_pd), IB_ACCESS_* rights and
 *	tagged range (all of memory for a DMA MR)
 * @page_shift: log2 of the registration's page size
 * @verify_alg: the hash a Verify of the MR computes (enum xiw_hash_alg;
 *	XIW_HASH_NONE: not verifiable), set by its owner
 * @persist: enum xiw_persist: the MR's own persistence domain,
 *	XIW_PERSIST_AUTO for its device's; set through netlink, read
 *	without a lock
 * @pages: the registration's page list
 * @mapped: the list map_mr_sg() fills for the next registration; swapped
 *	with @pages when IB_WR_REG_MR executes (consumer-owned until then)
 * @max_pages: capacity of both lists
 * @umem: a user MR's pinned pages (released after the last reference)
 */
struct xiw_mr {
	struct ib_mr ibmr;
	u8 kind;
	refcount_t ref;
	struct completion released;
	struct rcu_head rcu;
	spinlock_t lock;	/* the registration: reg..pages, verify_alg */
	struct xiw_stag reg;
	u8 page_shift;
	u8 verify_alg;
	u8 persist;
	struct xiw_mr_pages pages;
	struct xiw_mr_pages mapped;
	u32 max_pages;
	struct ib_umem *umem;
};

/**
 * enum xiw_qp_state - RDMAP stream states (RFC 5040 section 6 names)
 * @XIW_QPS_IDLE: no connection yet (verbs RESET/INIT/RTR)
 * @XIW_QPS_RTS: connected, data may flow
 * @XIW_QPS_CLOSING: graceful close under way
 * @XIW_QPS_TERMINATE: a Terminate is being sent or was received
 * @XIW_QPS_ERROR: dead; work requests flush
 */
enum xiw_qp_state {
	XIW_QPS_IDLE,
	XIW_QPS_RTS,
	XIW_QPS_CLOSING,
	XIW_QPS_TERMINATE,
	XIW_QPS_ERROR,
};

#define XIW_WQE_SIGNALED	0x01
#define XIW_WQE_SOLICITED	0x02
#define XIW_WQE_INLINE		0x04
#define XIW_WQE_FENCE		0x08
#define XIW_WQE_INVALIDATE	0x10	/* Send/Read with Invalidate */

/*
 * A process's send ring entry the kernel refused (usq.c): its WQE fails
 * in its turn with IB_WC_LOC_QP_OP_ERR, and the QP with it.
 */
#define XIW_WR_BAD		IB_WR_RESERVED10

/**
 * struct xiw_wqe - a send queue entry
 * @wr_id: the consumer's cookie
 * @opcode: IB_WR_*
 * @flags: XIW_WQE_*
 * @num_sge: entries used in @sge
 * @bytes: total payload length
 * @remote_addr: tagged offset at the peer (Write, Read)
 * @rkey: STag at the peer (Write, Read)
 * @sge: local buffers; inline data is copied to @inline_data and @sge[0]
 *	 points at it
 * @inv_stag: the STag to invalidate: at the peer (Send with Invalidate),
 *	locally once the Read completed (Read with Invalidate), or at once
 *	(Local Invalidate)
 * @reg: IB_WR_REG_MR: the MR, the STag it takes, the rights and the
 *	range it gets (ibmr's iova, length and page size at posting)
 * @atomic: the atomic verbs: the Atomic Request's operation (its target
 *	STag and offset are @rkey and @remote_addr; the original value lands
 *	in @sge[0]); Atomic Write: @atomic.data is the value
 * @flush: RDMA Flush: XIW_FLUSH_* for the wire (its STag, offset and
 *	length are @rkey, @remote_addr and @bytes)
 * @verify: RDMA Verify (range as a Flush's): octets of the expected hash
 *	(in @inline_data), and of the hash that came back (into @sge[0])
 * @msn: Read and Atomic Requests: the MSN they were sent with on queue 1,
 *	which names them in a Terminate
 * @imm: RDMA Write or Send with Immediate: the verbs' 32-bit immediate
 *	value, as given (network order)
 * @zcopy: payload was spliced: the WQE completes once TCP acknowledged
 *	its last octet (tx.c)
 * @ack_seq: with @zcopy, the TCP sequence number after its last octet
 *	(before its batch is pushed, where in the batch it ends)
 * @done: transmitted (Send, Write: handed to TCP if copied, acknowledged
 *	if spliced) or answered (Read); completes in order
 * @status: IB_WC_* for the completion
 * @inline_data: copy of inline payload
 */
struct xiw_wqe {
	u64 wr_id;
	u8 opcode;
	u8 flags;
	u8 num_sge;
	u32 bytes;
	u64 remote_addr;
	u32 rkey;
	struct ib_sge sge[XIW_MAX_SGE];
	u32 inv_stag;
	union {
		struct {
			struct xiw_mr *mr;
			u32 key;
			int access;
			u64 iova;
			u64 length;
			u32 page_size;
		} reg;
		struct xiw_atomic_op atomic;
		u8 flush;
		struct {
			u8 expect_len;
			u8 hash_len;
		} verify;
	};
	u32 msn;
	__be32 imm;
	bool zcopy;
	u32 ack_seq;
	bool done;
	u8 status;
	u8 inline_data[XIW_MAX_INLINE];
};

/**
 * struct xiw_rqe - a receive queue entry
 * @wr_id: the consumer's cookie
 * @num_sge: entries used in @sge
 * @sge: buffers for the incoming Send
 */
struct xiw_rqe {
	u64 wr_id;
	u8 num_sge;
	struct ib_sge sge[XIW_MAX_SGE];
};

/**
 * struct xiw_rq - a ring of receive entries: a QP's receive queue or an
 *	SRQ's
 * @lock: protects the ring and its indices (for a QP, also where the
 *	receive engine's entry in progress is taken and flushed)
 * @ring: @mask + 1 slots (ring.h), @size of them used at most; @head
 *	posted, @tail consumed (free-running)
 * @size: capacity
 * @mask: slots of @ring less one (@size rounded up to a power of two,
 *	less one); @size and @mask are fixed at creation
 * @head: next entry posted (with @umap: copied in from the process's
 *	ring)
 * @tail: next entry taken
 * @umap: a process's receive ring (XIW_UCTX_RQ_RING), or NULL: the
 *	process posts there, and entries are copied into @ring when they
 *	are needed (xiw_rq_pull()); its slots match @ring's
 */
struct xiw_rq {
	spinlock_t lock;	/* ring, head, tail, what is read of umap */
	struct xiw_rqe *ring;
	u32 size;
	u32 mask;
	u32 head;
	u32 tail;
	struct xiw_umap *umap;
};

/**
 * xiw_rq_at() - the receive entry at a position
 * @rq: the ring; the caller holds its lock
 * @i: position (free-running, as @rq->head and @rq->tail)
 *
 * Return: the entry, in the slot xiw_ring_slot() gives.
 */
static inline struct xiw_rqe *xiw_rq_at(struct xiw_rq *rq, u32 i)
{
	return &rq->ring[xiw_ring_slot(i, rq->mask)];
}

/**
 * struct xiw_srq - shared receive queue
 * @ibsrq: RDMA core object
 * @rq: the entries
 * @limit: armed limit (under @rq.lock): IB_EVENT_SRQ_LIMIT_REACHED fires
 *	when fewer entries remain; 0 when not armed
 */
struct xiw_srq {
	struct ib_srq ibsrq;
	struct xiw_rq rq;
	u32 limit;
};

/**
 * struct xiw_irq_entry - an inbound request of queue 1 (RDMA Read, Atomic,
 *	Atomic Write, Flush, Verify) being answered, in the order they arrived
 * @resp_op: the response it gets (XIW_OP_*): XIW_OP_READ_RESP for a Read;
 *	XIW_OP_FLUSH_RESP for a Flush, carried out when its turn comes;
 *	XIW_OP_VERIFY_RESP for a Verify, hashed then; for the others @op is
 *	carried out then, and answered by an Atomic Response or an Atomic
 *	Write Response. It says which member of the union is in use.
 * @flags: a Flush: XIW_FLUSH_* asked for
 * @alg: a Verify: the hash of its MR (enum xiw_hash_alg) when it arrived
 * @expect_len: a Verify: octets of @expect, the expected hash (0: none)
 * @src_stag: the source STag it was found by
 * @mr: source or target MR, referenced while the request is answered
 * @src_to: next source octet
 * @len: a Flush or Verify: octets from @src_to (a whole region may
 *	exceed 32 bits)
 * @sink_to: a Read: next sink tagged offset
 * @sink_stag: a Read: the requester's sink STag
 * @left: a Read: octets still to send
 * @op: an Atomic or Atomic Write: the operation on the target word (its
 *	STag is @src_stag, its offset @src_to); an Atomic Write is an
 *	unconditional swap
 * @seg_len: a Verify or Flush: its DDP segment length, and @req: its DDP
 *	header, for the Terminate of a fault found in its turn (a Verify's
 *	mismatch, a Flush's memory that cannot reach the disposition)
 * @req: see @seg_len
 * @expect: a Verify: the expected hash
 *
 * What only one kind of request needs shares a union: an IRQ holds up to
 * IRD entries (128 by default) from the moment the QP connects, so an
 * entry's size is most of a connection's memory.
 */
struct xiw_irq_entry {
	u8 resp_op;
	u8 flags;
	u8 alg;
	u8 expect_len;
	u32 src_stag;
	struct xiw_mr *mr;
	u64 src_to;
	u64 len;
	union {
		struct {
			u64 sink_to;
			u32 sink_stag;
			u32 left;
		};
		struct xiw_atomic_op op;
		struct {
			u16 seg_len;
			struct xiw_untagged_hdr req;
			u8 expect[XIW_VERIFY_HASH_MAX];	/* a Verify's */
		};
	};
};

/* Largest FPDU header: MPA length, untagged header, Atomic Request. */
#define XIW_RX_HDR_MAX		(XIW_MPA_LEN_SIZE + \
				 sizeof(struct xiw_untagged_hdr) + \
				 sizeof(struct xiw_atomic_req))

/**
 * struct xiw_rx - receive engine state, touched only by the receive path
 *	(socket callback context, serialised by the socket)
 * @hdr: the FPDU header being collected: MPA length + DDP/RDMAP headers
 * @hdr_got: octets of @hdr collected
 * @hdr_need: octets of @hdr needed (known once the control octets are in)
 * @ulpdu_len: ULPDU_Length of the current FPDU
 * @payload_left: payload octets of the current FPDU still to place
 * @trailer_left: pad + CRC octets still to read
 * @trailer: pad and CRC as received
 * @crc: running CRC32c of the current FPDU
 * @state: which part of the FPDU comes next
 * @op: opcode of the current FPDU
 * @place_mr: target MR of a tagged segment (referenced)
 * @place_stag: the STag it was found by
 * @place_to: next tagged offset to write
 * @msn: next expected MSN per untagged queue (QN 0..3)
 * @send_rqe_valid: @send_rqe holds the RQ entry of a Send in progress;
 *	whoever clears it (xchg) completes that entry: the receive path when
 *	the Send is delivered, a flush when the stream died first
 * @send_rqe: receive buffer of the Send message in progress
 * @send_len: octets of that Send placed so far
 * @send_op: opcode of that Send: every segment of it carries the same
 * @msg_end: a message ended in this data-ready call: acknowledge it now
 * @markers: the peer sends markers (we asked for them)
 * @unmark: marker stripping state
 * @fpdu_off: octets of the current FPDU received, markers included
 * @rtr: the current FPDU is an RFC 6581 RTR (responder: the initiator's
 *	RTR message; initiator: the Read Response to a zero-length Read RTR)
 * @term: a received Terminate's header: its control field, then as much
 *	of the terminated segment's headers as fit (see xiw_term_info_parse())
 * @term_len: octets of @term after the control field collected so far
 * @irq_pending: a request of queue 1 being received holds the IRQ
 *	slot at irq_head (and its MR reference) until it is delivered
 * @imm: the payload of the Immediate Data message being received
 * @hash: the hash of the Verify Response being received, @hash_len
 *	octets of it so far
 * @hash_len: see @hash
 * @after_write: the last message delivered was an RDMA Write (an Immediate
 *	Data message after one completes as RDMA Write with Immediate)
 */
struct xiw_rx {
	u8 hdr[XIW_RX_HDR_MAX];
	u8 hdr_got;
	u8 hdr_need;
	u16 ulpdu_len;
	u32 payload_left;
	u8 trailer_left;
	u8 trailer[8];
	u32 crc;
	u8 state;
	u8 op;
	struct xiw_mr *place_mr;
	u32 place_stag;
	u64 place_to;
	u32 msn[4];
	u32 send_rqe_valid;
	struct xiw_rqe send_rqe;
	u32 send_len;
	u8 send_op;
	bool msg_end;
	bool markers;
	struct xiw_mpa_unmark unmark;
	u32 fpdu_off;
	bool rtr;
	u8 term[XIW_TERM_INFO_MAX];
	u8 term_len;
	bool irq_pending;
	u8 imm[XIW_IMM_LEN];
	u8 hash[XIW_VERIFY_HASH_MAX];
	u8 hash_len;
	bool after_write;
};

/**
 * struct xiw_stream_params - what connection setup negotiated for a stream
 * @crc: CRC32c in use
 * @ord: outbound read limit
 * @ird: inbound read limit
 * @markers_tx: the peer asked for markers: send them
 * @markers_rx: we asked for markers: expect and strip them
 * @rtr_send: initiator in the peer-to-peer model: the XIW_RTR_* kind of
 *	RTR to send before anything else, 0 for none
 * @rtr_expect: responder in the peer-to-peer model: the XIW_RTR_* kinds
 *	the first message may be; nothing of the send queue goes out before
 *	it arrived. 0 for the client-server model.
 */
struct xiw_stream_params {
	bool crc;
	u16 ord;
	u16 ird;
	bool markers_tx;
	bool markers_rx;
	u8 rtr_send;
	u8 rtr_expect;
};

/* Largest FPDU header sent: MPA length, untagged header, Atomic Request. */
/* Largest FPDU xiw frames all of in the header buffer: a Verify Request. */
#define XIW_TX_HDR_MAX		(XIW_MPA_LEN_SIZE + \
				 sizeof(struct xiw_untagged_hdr) + \
				 sizeof(struct xiw_verify_req) + \
				 XIW_VERIFY_HASH_MAX)

/* Transmit batch limits (tx.c): vectors, staging pages, Read Responses. */
#define XIW_TX_NBVEC		128
#define XIW_TX_STAGE_PAGES	32
#define XIW_TX_MR_MAX		16
#define XIW_TX_NCUT		32

/**
 * struct xiw_tx_undo - the transmit batch before an FPDU was begun
 * @open: an FPDU is being framed (begun, not sealed)
 * @spliced: tx_spliced then
 * @nbvec: tx_nbvec then
 * @last_len: the length of the bvec then last (a later piece may have
 *	been merged into it)
 * @len: tx_len then
 * @stage_cur: tx_stage_cur then
 * @stage_used: tx_stage_used then
 * @stage_off: tx_stage_off then
 * @mark_off: tx_mark_off then
 */
struct xiw_tx_undo {
	bool open;
	bool spliced;
	u16 nbvec;
	u32 last_len;
	u32 len;
	u8 stage_cur;
	u8 stage_used;
	u32 stage_off;
	u16 mark_off;
};

/**
 * struct xiw_qp - queue pair: one RDMAP stream
 * @ibqp: RDMA core object
 * @xdev: the device
 * @ref: references: creation, iw_cm (iw_add_ref), the connection
 * @freed: completed when @ref drops to zero, so destroy can return
 * @lock: protects @state, @cep, @sock, @term_cause, @term_sent,
 *	@term_info
 * @state: stream state
 * @sq_lock: protects the send queue, the outbound read queue and @irq
 * @sq: send queue, @sq_mask + 1 slots (ring.h), @sq_size of them used at
 *	most; @sq_head posted, @sq_tx next to frame, @sq_pushed first not yet
 *	wholly in TCP's hands, @sq_ack first that may wait for TCP's
 *	acknowledgment, @sq_tail next to complete (free-running counters;
 *	tail <= ack <= pushed <= tx <= head)
 * @usq: a process's send ring, or NULL (see below)
 * @sq_size: capacity of @sq (max_send_wr); fixed at creation
 * @sq_mask: slots of @sq less one (@sq_size rounded up to a power of two,
 *	less one); fixed at creation
 * @sq_completing: a caller of xiw_qp_sq_complete() is adding completions
 *	to the CQ; others leave theirs to it, to keep posting order
 * @orq: SQ positions of Reads sent and not yet answered,
 *	@orq_head/@orq_tail; XIW_MAX_ORD slots, a power of two
 * @irq: inbound requests of queue 1 (Reads, atomics, the commit draft's)
 *	awaiting their answer, @irq_head/@irq_tail; @irq_mask + 1 slots
 *	(ring.h), the IRD the connection negotiated rounded up to a power of
 *	two (allocated when it starts: an idle QP has none). The IRD, @ird,
 *	bounds how many are used.
 * @irq_mask: slots of @irq less one; set with @irq when the QP starts,
 *	while it is idle
 * @rq: receive queue (empty with an SRQ)
 * @srq: the shared receive queue Sends go to, or NULL
 * @srq_last_wqe: IB_EVENT_QP_LAST_WQE_REACHED was delivered (xchg)
 * @scq: send CQ
 * @rcq: receive CQ
 * @sig_all: every send WR completes signaled
 * @ord: outbound read limit (negotiated)
 * @ird: inbound read limit (negotiated)
 * @crc: CRC32c in use on this stream
 * @mulpdu: largest ULPDU per FPDU
 * @rtr_send: the RTR to send first (struct xiw_stream_params); the
 *	transmit engine's, cleared once framed
 * @rtr_expect: the RTR kinds awaited (struct xiw_stream_params); cleared
 *	by the receive path when the RTR arrived, which opens the send queue
 * @rtr_read_pending: a zero-length Read sent as RTR awaits its response;
 *	requests that take a peer's inbound read slot wait with it (the
 *	peer's IRD need not cover both), Sends and Writes do not
 * @rtr_initiator: this end sends an RTR (@rtr_send as the stream began),
 *	so the peer may answer it with an MPA error (reading a Terminate)
 * @msn: next MSN to send per untagged queue
 * @sock: the TCP socket once connected
 * @cep: the connection endpoint
 * @tx_work: transmit engine (tx.c); the fields below up to @term_sent
 *	belong to it
 * @tx_bvec: the batch of FPDUs being sent: staged headers, trailers and
 *	copied payload, spliced payload pages
 * @tx_nbvec: entries used in @tx_bvec
 * @tx_len: octets in the batch
 * @tx_off: octets of the batch already handed to TCP
 * @tx_sq_end: WQEs before this SQ index are finished by the batch
 * @tx_more: the next FPDU is waiting: send with MSG_MORE
 * @tx_ncut: entries used in @tx_cut
 * @tx_cut: batch offsets where a TCP segment must start (MSG_EOR before)
 * @tx_seg_align: keep untagged headers inside one TCP segment (tx.c,
 *	"Segments")
 * @tx_seg_known: TCP started an skb at the last cut, and @tx_seg_pos
 *	and @tx_seg_pieces count from there
 * @tx_seg_pos: octets framed since the last cut
 * @tx_seg_pieces: batch entries (skb fragments at most) since the last cut
 * @tx_seg_mss: TCP's MSS as the pass began
 * @tx_hdr_len: octets of the header of the FPDU being framed, with its
 *	length field
 * @tx_blocked: a send is under way or found the socket full
 * @tx_spliced: the WQE being framed has spliced payload
 * @tx_nmr: entries used in @tx_mr
 * @tx_mr: MRs of Read Responses finished by the batch, released once the
 *	batch is in TCP's hands
 * @tx_stage: staging pages (allocated on first use), a ring
 * @tx_stage_cur: the staging page being filled
 * @tx_stage_used: staging pages the batch has moved to
 * @tx_stage_off: first free octet of that page
 * @tx_wqe_off: octets of the current WQE's message already framed
 * @tx_imm_next: the current WQE's RDMA Write is framed; its Immediate
 *	Data message comes next
 * @tx_markers: the peer asked for markers: the engine inserts them
 * @tx_mark_off: with markers, stream offset (mod 512) of the next octet
 * @tx_fpdu_off: with markers, octets of the FPDU being framed so far
 * @tx_undo: the batch as it was before the FPDU being framed, to take
 *	that FPDU back out when framing it fails
 * @tx_hdr: the header of the FPDU being framed, before it is staged
 * @term_cause: Terminate to send (0: none)
 * @term_sent: the Terminate is framed; the stream closes once it is sent
 * @term_info_len: octets of @term_info
 * @term_info: the Terminate header to send (control field and what it
 *	includes), built with @term_cause
 * @rx: receive engine state
 */
struct xiw_qp {
	struct ib_qp ibqp;
	struct xiw_device *xdev;
	struct kref ref;
	struct completion freed;

	spinlock_t lock;	/* state, cep, sock, term_* */
	enum xiw_qp_state state;
	/* Idle: the verbs state asked for last, RESET, INIT or RTR. */
	u8 idle_state;

	/*
	 * Serialises the teardown, xiw_qp_to_error(): modify_qp(ERR),
	 * destroy_qp, the connection's end and the netdev notifier's abort
	 * may all run it at once. Once the state is XIW_QPS_ERROR and
	 * @tx_work has been waited out, what the transmit engine owned (the
	 * batch and its MR references, @tx_mr[]) and the partly received
	 * FPDU's references belong to the holder of this mutex, and are let
	 * go of by exactly one caller. Taken in process context, after a
	 * cep's lock, never under @lock or @sq_lock.
	 */
	struct mutex teardown;

	spinlock_t sq_lock;	/* sq, orq, irq and their indices */
	struct xiw_wqe *sq;
	/*
	 * A process's send ring (XIW_UCTX_SQ_RING), or NULL: entry i becomes
	 * WQE i when the engine pulls it (usq.c); what is read of it, under
	 * @sq_lock. Fixed from creation to destruction.
	 */
	struct xiw_umap *usq;
	u32 sq_size;
	u32 sq_mask;
	u32 sq_head;
	u32 sq_tx;
	u32 sq_pushed;
	u32 sq_ack;
	u32 sq_tail;
	bool sq_completing;
	u32 *orq;
	u32 orq_head;
	u32 orq_tail;
	struct xiw_irq_entry *irq;
	u32 irq_mask;
	u32 irq_head;
	u32 irq_tail;

	struct xiw_rq rq;
	struct xiw_srq *srq;
	u32 srq_last_wqe;

	struct xiw_cq *scq;
	struct xiw_cq *rcq;
	/*
	 * Set once by destroy_qp before its teardown, read without a lock:
	 * work requests end without a completion from then on (the consumer
	 * gave them up), so that a destroy adds none to a CQ it may share.
	 */
	bool destroying;
	bool sig_all;
	u16 ord;
	u16 ird;
	bool crc;
	u32 mulpdu;
	u8 rtr_send;
	u8 rtr_expect;
	bool rtr_read_pending;
	bool rtr_initiator;
	u32 msn[4];

	struct socket *sock;
	struct xiw_cep *cep;
	/*
	 * Under @lock: a connection endpoint refers to the QP (cep->qp) from
	 * connect or accept until it let go in xiw_cep_finish(), even after
	 * xiw_qp_to_error() took @cep away. RESET waits for it to be false:
	 * an old endpoint's end must not stop the QP's next connection.
	 */
	bool cep_held;

	/*
	 * Set (release) once the MPA exchange is complete on the wire, so
	 * that no FPDU can go out before the MPA Reply (RFC 5044 section
	 * 7: FPDUs follow the exchange); cleared while the QP is idle. The
	 * engine acquires it.
	 */
	bool tx_open;

	/*
	 * The transmit engine's: written only by @tx_work, or by the holder
	 * of @teardown once the QP is in error and @tx_work is idle.
	 */
	struct work_struct tx_work;
	/* Held by each pass of the engine: @tx_work's or a poster's. */
	struct mutex tx_mutex;
	struct bio_vec tx_bvec[XIW_TX_NBVEC];
	u16 tx_nbvec;
	u32 tx_len;
	u32 tx_off;
	u32 tx_sq_end;
	bool tx_more;
	bool tx_seg_align;
	bool tx_seg_known;
	u8 tx_ncut;
	u32 tx_seg_pieces;
	u32 tx_cut[XIW_TX_NCUT];
	u32 tx_seg_pos;
	u32 tx_seg_mss;
	u32 tx_hdr_len;
	bool tx_blocked;
	bool tx_spliced;
	u8 tx_nmr;
	struct xiw_mr *tx_mr[XIW_TX_MR_MAX];
	struct page *tx_stage[XIW_TX_STAGE_PAGES];
	u8 tx_stage_cur;
	u8 tx_stage_used;
	u32 tx_stage_off;
	u32 tx_wqe_off;
	bool tx_imm_next;
	bool tx_markers;
	u16 tx_mark_off;
	u32 tx_fpdu_off;
	struct xiw_tx_undo tx_undo;
	u8 tx_hdr[XIW_TX_HDR_MAX];
	int term_cause;
	bool term_sent;
	u8 term_info_len;
	u8 term_info[XIW_TERM_INFO_MAX];

	struct xiw_rx rx;
};

/**
 * xiw_wqe_is_atomic() - does a send WQE opcode go out as an Atomic Request?
 * @opcode: IB_WR_* as stored in the WQE
 */
static inline bool xiw_wqe_is_atomic(u8 opcode)
{
	return opcode == IB_WR_ATOMIC_FETCH_AND_ADD ||
	       opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_MASKED_ATOMIC_FETCH_AND_ADD ||
	       opcode == IB_WR_MASKED_ATOMIC_CMP_AND_SWP;
}

/**
 * xiw_wqe_has_imm() - does a send WQE end with an Immediate Data message?
 * @opcode: IB_WR_* as stored in the WQE
 */
static inline bool xiw_wqe_has_imm(u8 opcode)
{
	return opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
	       opcode == IB_WR_SEND_WITH_IMM;
}

/**
 * xiw_wqe_uses_orq() - is a send WQE answered by the peer (a Read, an
 *	atomic, an Atomic Write, a Flush or a Verify), so that it counts
 *	against ORD?
 * @opcode: IB_WR_* as stored in the WQE
 */
static inline bool xiw_wqe_uses_orq(u8 opcode)
{
	return opcode == IB_WR_RDMA_READ || xiw_wqe_is_atomic(opcode) ||
	       opcode == IB_WR_ATOMIC_WRITE || opcode == IB_WR_FLUSH ||
	       opcode == XIW_WR_VERIFY;
}

/**
 * xiw_qp_sq_at() - the send WQE at a position
 * @qp: the QP; the caller holds its sq_lock
 * @i: position (free-running, as @qp->sq_head and @qp->sq_tail)
 *
 * Return: the WQE, in the slot xiw_ring_slot() gives.
 */
static inline struct xiw_wqe *xiw_qp_sq_at(struct xiw_qp *qp, u32 i)
{
	return &qp->sq[xiw_ring_slot(i, qp->sq_mask)];
}

/* The ORQ's slots are XIW_MAX_ORD, a power of two: its mask (ring.h). */
#define XIW_ORQ_MASK	(XIW_MAX_ORD - 1)
static_assert((XIW_MAX_ORD & XIW_ORQ_MASK) == 0);

/**
 * xiw_qp_orq_wqe() - the send WQE of an outbound request of queue 1
 * @qp: the QP; the caller holds its sq_lock
 * @i: ORQ position, from orq_tail (the oldest) to orq_head
 */
static inline struct xiw_wqe *xiw_qp_orq_wqe(struct xiw_qp *qp, u32 i)
{
	lockdep_assert_held(&qp->sq_lock);
	return xiw_qp_sq_at(qp, qp->orq[xiw_ring_slot(i, XIW_ORQ_MASK)]);
}

/**
 * xiw_qp_orq_oldest() - the oldest request of queue 1 not yet answered
 * @qp: the QP; the caller holds its sq_lock
 *
 * Return: its send WQE, or NULL if none is outstanding.
 */
static inline struct xiw_wqe *xiw_qp_orq_oldest(struct xiw_qp *qp)
{
	lockdep_assert_held(&qp->sq_lock);
	if (qp->orq_tail == qp->orq_head)
		return NULL;
	return xiw_qp_orq_wqe(qp, qp->orq_tail);
}

/**
 * xiw_qp_irq_at() - the IRQ entry at a position
 * @qp: a started QP
 * @i: position (free-running, as @qp->irq_head and @qp->irq_tail)
 */
static inline struct xiw_irq_entry *xiw_qp_irq_at(struct xiw_qp *qp, u32 i)
{
	return &qp->irq[xiw_ring_slot(i, qp->irq_mask)];
}

/**
 * xiw_qp_irq_oldest() - the oldest inbound request of queue 1 not yet
 *	answered
 * @qp: the QP; the caller holds its sq_lock
 *
 * Return: its entry, or NULL if none is queued.
 */
static inline struct xiw_irq_entry *xiw_qp_irq_oldest(struct xiw_qp *qp)
{
	lockdep_assert_held(&qp->sq_lock);
	if (qp->irq_tail == qp->irq_head)
		return NULL;
	return xiw_qp_irq_at(qp, qp->irq_tail);
}

static inline struct xiw_pd *to_xiw_pd(struct ib_pd *pd)
{
	return container_of(pd, struct xiw_pd, ibpd);
}

static inline struct xiw_cq *to_xiw_cq(struct ib_cq *cq)
{
	return container_of(cq, struct xiw_cq, ibcq);
}

static inline struct xiw_mr *to_xiw_mr(struct ib_mr *mr)
{
	return container_of(mr, struct xiw_mr, ibmr);
}

static inline struct xiw_srq *to_xiw_srq(struct ib_srq *srq)
{
	return container_of(srq, struct xiw_srq, ibsrq);
}

static inline struct xiw_qp *to_xiw_qp(struct ib_qp *qp)
{
	return container_of(qp, struct xiw_qp, ibqp);
}

/* cq.c */
void xiw_cq_add(struct xiw_cq *cq, const struct ib_wc *wc, bool solicited);
void xiw_cq_purge(struct xiw_cq *cq, const struct ib_qp *qp);

/* mr.c */
struct xiw_mr *xiw_mr_lookup(struct xiw_device *xdev, u32 stag,
			     struct xiw_pd *pd, int access, u64 to, u64 len,
			     int *cause);
struct xiw_mr *xiw_mr_lookup_region(struct xiw_device *xdev, u32 stag,
				    struct xiw_pd *pd, int access, u64 *to,
				    u64 *len, int *cause);
struct xiw_mr *xiw_mr_find(struct xiw_device *xdev, u32 stag);
void xiw_mr_put(struct xiw_mr *mr);
int xiw_mr_place(struct xiw_mr *mr, u32 stag, u64 to, u32 len,
		 int (*fn)(void *ctx, u8 *p, u32 len), void *ctx);
const u8 *xiw_mr_source(struct xiw_mr *mr, u32 stag, u64 to, u32 len,
			u32 *contig);
int xiw_mr_atomic(struct xiw_mr *mr, const struct xiw_atomic_op *op,
		  u64 *orig);
int xiw_mr_register(struct xiw_mr *mr, struct xiw_pd *pd, u32 key,
		    int access, u64 iova, u64 length, u32 page_size);
int xiw_mr_invalidate(struct xiw_device *xdev, u32 stag, struct xiw_pd *pd);

/* rq.c */
struct xiw_urq_resp;
int xiw_rq_init(struct xiw_rq *rq, u32 size, bool user);
int xiw_rq_init_ring(struct xiw_rq *rq, struct ib_udata *udata,
		     struct xiw_urq_resp *resp);
void xiw_rq_free(struct xiw_rq *rq);
void xiw_rq_pull(struct xiw_rq *rq);
void xiw_rq_consumed(struct xiw_rq *rq);
void xiw_rq_set_flush(struct xiw_rq *rq, bool flush);
int xiw_rq_post(struct xiw_rq *rq, const struct ib_recv_wr *wr,
		const struct ib_recv_wr **bad_wr);
int xiw_qp_take_recv(struct xiw_qp *qp);

/* wqe.c */
int xiw_qp_fill_wqe(struct xiw_qp *qp, struct xiw_wqe *wqe,
		    const struct ib_send_wr *wr, const u8 *user_data);

/* usq.c */
struct xiw_usq_resp;
int xiw_usq_init(struct xiw_qp *qp, struct ib_udata *udata,
		 struct xiw_usq_resp *resp);
void xiw_usq_free(struct xiw_qp *qp);
u32 xiw_usq_pull(struct xiw_qp *qp);
void xiw_usq_consumed(struct xiw_qp *qp);
void xiw_usq_doorbell(struct xiw_qp *qp, bool on);
void xiw_usq_reset(struct xiw_qp *qp);

/* qp.c */
void xiw_qp_get(struct xiw_qp *qp);
void xiw_qp_put(struct xiw_qp *qp);
struct xiw_qp *xiw_qp_lookup(struct xiw_device *xdev, u32 qpn);
void xiw_qp_sq_complete(struct xiw_qp *qp);
void xiw_qp_to_error(struct xiw_qp *qp);
bool xiw_qp_holds_mr(struct xiw_qp *qp, struct xiw_mr *mr);
void xiw_qp_flush(struct xiw_qp *qp);
void xiw_qp_open_tx(struct xiw_qp *qp);
int xiw_qp_claim(struct xiw_qp *qp, struct xiw_cep *cep);
void xiw_qp_cep_release(struct xiw_qp *qp);
int xiw_qp_start(struct xiw_qp *qp, struct socket *sock,
		 const struct xiw_stream_params *p);
bool xiw_qp_terminate(struct xiw_qp *qp, int cause,
		      const struct xiw_term_src *src);
void xiw_qp_report_terminate(struct xiw_qp *qp, int cause, bool sent);
void xiw_qp_fatal(struct xiw_qp *qp);
void xiw_qp_event(struct xiw_qp *qp, enum ib_event_type type);
struct xiw_cep *xiw_qp_cep_get(struct xiw_qp *qp);

/* tx.c */
void xiw_tx_kick(struct xiw_qp *qp);
void xiw_tx_work(struct work_struct *work);
void xiw_tx_now(struct xiw_qp *qp);
void xiw_tx_wait_idle(struct xiw_qp *qp);
void xiw_tx_acked(struct xiw_qp *qp, u32 snd_una);
void xiw_tx_write_space(struct xiw_qp *qp, struct sock *sk);
void xiw_tx_drop(struct xiw_qp *qp);
void xiw_tx_release(struct xiw_qp *qp);
int xiw_tx_init(void);
void xiw_tx_exit(void);

/* verify.c */
u8 xiw_mr_verify_alg(struct xiw_mr *mr);
int xiw_verify_range(struct xiw_mr *mr, u32 stag, u64 to, u64 len, u8 alg,
		     u8 *out);

/* rx.c */
void xiw_rx_data_ready(struct xiw_qp *qp);
void xiw_rx_reset(struct xiw_qp *qp);

#endif /* XIW_OBJ_H */
