/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * xiwperf: ioctl ABI between the xiwperf command and the xiwperf kernel
 * module (misc character device /dev/xiwperf).
 *
 * The module is an rdma_cm client and server using kernel verbs only, so it
 * runs over any RDMA device that provides them (siw, rxe, xiw).
 *
 * Rules of the ABI:
 *  - The module and the command are built and shipped together and share
 *    this header, so the layout may change with any commit: there is no
 *    version field and no reserved space.
 *  - Fixed-size types only, no pointers, no implicit padding (where
 *    alignment needs it, an explicit field named "pad*", which is
 *    ignored); the sizes are multiples of 8 and identical for 32- and
 *    64-bit callers.
 *  - Flag bits not defined here must be zero (EINVAL otherwise).
 *  - Addresses: IPv4 or IPv6, address bytes in network order, port in
 *    host order. rdma_cm ids are created in the network namespace of the
 *    calling process.
 *
 * Server (one per open file):
 *   XIWPERF_IOC_LISTEN binds and listens, allocates the target buffer and
 *   fills it with the read pattern, then returns at once (so the caller can
 *   report the bound port). XIWPERF_IOC_SERVE then accepts and serves
 *   connections until a signal interrupts it (EINTR) or the listener's
 *   device goes away (ENODEV); it reports the server's counters in both
 *   cases. Closing the file tears the server and all its connections down.
 *
 * Client:
 *   XIWPERF_IOC_RUN connects @qps RC connections, runs @count operations
 *   and tears everything down before returning. The ioctl returns 0 when
 *   every operation completed; the data verdict is then in result.data_ok.
 *   On any failure it returns -1 with errno set and, unless the failure was
 *   EFAULT or a malformed argument (EINVAL with result.reason == 0), has
 *   filled in result with what was done and why it stopped.
 */
#ifndef _UAPI_XIWPERF_H
#define _UAPI_XIWPERF_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define XIWPERF_DEVICE		"/dev/xiwperf"
#define XIWPERF_DEFAULT_PORT	18515

/*
 * Buffers are physically contiguous kernel memory: siw and rxe turn the
 * addresses of a DMA MR back into pages through the kernel's linear map, so
 * vmalloc memory cannot be used, and the page allocator's largest block is
 * 4 MiB. So an operation's buffer is at most one such block, and the
 * server's buffer is a series of 4 MiB chunks (an operation's region never
 * straddles two).
 */
#define XIWPERF_DEFAULT_BUF	(4U << 20)
#define XIWPERF_MAX_BUF		(1024U << 20)
/* Client limits; qps * depth * size must not exceed XIWPERF_MAX_MEMORY. */
#define XIWPERF_MAX_SIZE	(4U << 20)
#define XIWPERF_MAX_QPS		64
#define XIWPERF_MAX_DEPTH	1024
#define XIWPERF_MAX_MEMORY	(1024ULL << 20)
/* Scatter/gather elements per operation (struct xiwperf_run.sge). */
#define XIWPERF_MAX_SGE		4
/*
 * Atomic operations with XIWPERF_F_CHECK keep the original value of every
 * operation: at most this many operations.
 */
#define XIWPERF_MAX_ATOMIC_CHECK	(1024U * 1024)
/* Default no-progress timeout of a client run (milliseconds). */
#define XIWPERF_DEFAULT_TIMEOUT_MS	15000
/* Longest hold of a client's connections after its run (milliseconds). */
#define XIWPERF_MAX_HOLD_MS	60000

#define XIWPERF_NAME_MAX	64	/* = IB_DEVICE_NAME_MAX */

/**
 * enum xiwperf_op - what a client run does.
 * @XIWPERF_OP_SEND: Send into receive buffers the server posted.
 * @XIWPERF_OP_WRITE: RDMA Write into the server's buffer.
 * @XIWPERF_OP_READ: RDMA Read from the server's buffer.
 * @XIWPERF_OP_FETCH_ADD: IB_WR_ATOMIC_FETCH_AND_ADD of run.compare_add.
 * @XIWPERF_OP_CMP_SWAP: IB_WR_ATOMIC_CMP_AND_SWP: run.swap where the word
 *	equals run.compare_add.
 * @XIWPERF_OP_MASKED_FETCH_ADD: IB_WR_MASKED_ATOMIC_FETCH_AND_ADD of
 *	run.compare_add, the fields delimited by run.compare_add_mask.
 * @XIWPERF_OP_MASKED_CMP_SWAP: IB_WR_MASKED_ATOMIC_CMP_AND_SWP: the bits of
 *	run.swap_mask from run.swap where the bits of run.compare_add_mask
 *	equal run.compare_add's.
 * @XIWPERF_OP_WRITE_IMM: IB_WR_RDMA_WRITE_WITH_IMM: an RDMA Write into the
 *	operation's region of the server's buffer that also consumes one
 *	receive at the server and completes there with its 32-bit immediate
 *	value (IB_WC_RECV_RDMA_WITH_IMM, IB_WC_WITH_IMM, byte_len 0).
 * @XIWPERF_OP_IMM: IB_WR_SEND_WITH_IMM without payload (size 0): only the
 *	immediate value, completing at the server as IB_WC_RECV with
 *	IB_WC_WITH_IMM and byte_len 0.
 * @XIWPERF_OP_ATOMIC_WRITE: IB_WR_ATOMIC_WRITE (draft-talpey-rdma-commit,
 *	include/xiw/verbs.h): operation k of connection q places
 *	xiwperf_aw_value(k * qps + q) in the word, at once. It targets the
 *	word the atomic operations do, has no operand and no local buffer
 *	(size 8 is the word's), and needs IB_ACCESS_REMOTE_WRITE there:
 *	XIWPERF_F_REMOTE_FRWR, as the atomics. With XIWPERF_F_CHECK the word
 *	must end as the value of some connection's last operation (each
 *	connection's operations are placed in order; a value torn from two
 *	of them is none), and every completion must be IB_WC_ATOMIC_WRITE.
 * @XIWPERF_OP_FLUSH: an RDMA Write of size bytes into the operation's
 *	region, as XIWPERF_OP_WRITE, then an RDMA Flush (IB_WR_FLUSH,
 *	include/xiw/verbs.h) of that region, or with XIWPERF_F_FLUSH_MR of
 *	the whole chunk MR holding it: the operation completes with the
 *	Flush (IB_WC_FLUSH), after which the data has reached the state
 *	asked for. The disposition is XIWPERF_F_PERSIST, XIWPERF_F_GLOBAL
 *	or both. Needs XIWPERF_F_REMOTE_FRWR: the server then registers its
 *	chunks with IB_ACCESS_FLUSH_GLOBAL and IB_ACCESS_FLUSH_PERSISTENT
 *	(the global rkey has neither). --check reads each region back, as
 *	for XIWPERF_OP_WRITE, and checks every completion's opcode.
 * @XIWPERF_OP_VERIFY: an RDMA Write of size bytes into the operation's
 *	region, as XIWPERF_OP_WRITE, then an RDMA Verify of that region
 *	(xiw_post_verify(), include/xiw/verbs.h; xiw devices only): the
 *	server's device hashes the region with the algorithm run.hash
 *	(enum xiwperf_hash), which the server sets on its registrations
 *	(XIWPERF_F_REMOTE_FRWR needed), and returns the hash. The operation
 *	completes with the Verify. With XIWPERF_F_CHECK the returned hash
 *	must equal the client's own hash of what it wrote. With
 *	XIWPERF_F_EXPECT the request carries an expected hash, which the
 *	server compares (a mismatch terminates the stream): run.expect_len
 *	octets in run.expect, or, with run.expect_len 0, the client's own.
 *	With XIWPERF_F_NO_WRITE there is no Write: the Verify hashes the
 *	region as it stands.
 *
 * The atomic operations (4 to 7) all target one 64-bit word, at
 * offset 0 of the server's buffer, from every connection and lane: the
 * operations contend. Their size is 8 (one SGE of 8 bytes receives the
 * word's original value), and they need the server's buffer registered
 * with IB_ACCESS_REMOTE_ATOMIC: XIWPERF_F_REMOTE_FRWR (only an injected
 * fault may do without: the global rkey has no atomic right). Semantics
 * as RFC 7306 states them (see Documentation/xiwperf.md).
 *
 * The Immediate Data operations (RFC 7306 section 5.2: on iWARP the Write
 * is followed by an Immediate Data message, a Send with Immediate is that
 * message alone) each take one receive the server posted, as Sends do,
 * with the same credits, verdict and XIWPERF_F_SOLICIT; the server checks
 * every receive completion (see XIWPERF_F_IMM). An RDMA Write with
 * Immediate of operation k of connection q writes region
 * (q * r + k % r) % result.regions, r being the receives the server posts
 * per connection (its accept's credits): the server has checked
 * operation k before the client may post operation k + r. There is no
 * capability bit for Immediate Data: a device without it (an iWARP one
 * that does not implement RFC 7306) refuses the work request at posting
 * (XIWPERF_REASON_POST) or on the wire.
 */
enum xiwperf_op {
	XIWPERF_OP_SEND = 1,
	XIWPERF_OP_WRITE = 2,
	XIWPERF_OP_READ = 3,
	XIWPERF_OP_FETCH_ADD = 4,
	XIWPERF_OP_CMP_SWAP = 5,
	XIWPERF_OP_MASKED_FETCH_ADD = 6,
	XIWPERF_OP_MASKED_CMP_SWAP = 7,
	XIWPERF_OP_WRITE_IMM = 8,
	XIWPERF_OP_IMM = 9,
	XIWPERF_OP_ATOMIC_WRITE = 10,
	XIWPERF_OP_FLUSH = 11,
	XIWPERF_OP_VERIFY = 12,
};

/**
 * enum xiwperf_hash - the hash of XIWPERF_OP_VERIFY (run.hash), as
 *	include/xiw/verbs.h's enum xiw_verify_alg.
 * @XIWPERF_HASH_CRC32C: CRC32c, 4 octets as the kernel crypto API's
 *	"crc32c" gives them (little-endian, inverted).
 * @XIWPERF_HASH_SHA256: SHA-256, 32 octets.
 */
enum xiwperf_hash {
	XIWPERF_HASH_CRC32C = 1,
	XIWPERF_HASH_SHA256 = 2,
};

/* The longest hash an expected value may have (run.expect_len). */
#define XIWPERF_HASH_MAX	64

/*
 * The value an Atomic Write places for @tag (XIWPERF_OP_ATOMIC_WRITE): the
 * tag in the upper half and its complement in the lower one, so that no
 * mix of two values is a value.
 */
static inline __u64 xiwperf_aw_value(__u32 tag)
{
	return (__u64)tag << 32 | (__u32)~tag;
}

/*
 * Client flag: verify every byte. The pattern depends on the operation, its
 * sequence number on its connection, the connection index and the byte
 * offset. Read: the server pre-fills its buffer once, at LISTEN; the client
 * checks what it read. Write: the client reads each written region back and
 * checks it. Send: the server checks each message and reports its verdict
 * in a final message. Atomic operations: the client reads the word before
 * the first and after the last operation (result.atomic_init and
 * result.atomic_final); whatever order the operations took, the original
 * values they returned must be f^k(init) for k = 0 .. count - 1, each once,
 * and the final value f^count(init), f being the run's operation.
 */
#define XIWPERF_F_CHECK		0x1U
/*
 * Client flag: post Send, RDMA Write and RDMA Write with Immediate with
 * IB_SEND_INLINE, on a QP created with cap.max_inline_data = size (not for
 * Read, the atomic operations and XIWPERF_OP_IMM, which has no payload).
 * A device that refuses that QP, or grants less inline data than size,
 * fails the run with XIWPERF_REASON_UNSUPPORTED.
 */
#define XIWPERF_F_INLINE	0x2U
/*
 * Client flag, Send and the Immediate Data operations only (below, "Send"
 * stands for their messages too): post every run.solicit-th Send of a
 * connection with IB_SEND_SOLICITED, and also its last Send and any Send
 * that takes the last credit the client holds. The server then takes that
 * connection's receives on a CQ of their own armed for solicited events
 * only, polls it only when notified, and reports how often it was (see
 * result.notifications and result.first_batch).
 */
#define XIWPERF_F_SOLICIT	0x4U
/*
 * Client flag (--mr frwr), not for XIWPERF_OP_IMM (which has no local
 * buffer): register each operation's local buffer by fast
 * registration instead of using the PD's local_dma_lkey. Every lane (one
 * outstanding operation) has an MR from ib_alloc_mr(); each operation
 * posts IB_WR_REG_MR with a rotated key, then the operation through the
 * MR, then IB_WR_LOCAL_INV of it; on iWARP devices an RDMA Read is
 * posted as IB_WR_RDMA_READ_WITH_INV instead (which only iWARP has). Not
 * with XIWPERF_F_INLINE. The client's own work requests (the chunk table
 * read, the write --check read-back, control messages) keep the
 * local_dma_lkey.
 */
#define XIWPERF_F_FRWR		0x8U
/*
 * Client flag (--remote-mr frwr), not for Send and XIWPERF_OP_IMM: the
 * server registers its buffer for this connection by fast registration,
 * one MR per 4 MiB chunk,
 * each with its own rkey (for atomic operations with
 * IB_ACCESS_REMOTE_ATOMIC too), plus a read-only (remote read only)
 * registration of chunk 0. The client starts once the server has told it
 * that the registrations completed.
 */
#define XIWPERF_F_REMOTE_FRWR	0x10U
/*
 * Client flag (--srq), Send and the Immediate Data operations only (not
 * XIWPERF_OP_WRITE_IMM with XIWPERF_F_CHECK: a credit from the shared
 * queue does not say that the connection's earlier messages were
 * checked), not with XIWPERF_F_SOLICIT: the server puts all connections of
 * the run on one shared receive queue, arms its limit event and reports
 * arms and events (run.srq_*).
 */
#define XIWPERF_F_SRQ		0x20U
/*
 * Client flag (--imm V), XIWPERF_OP_WRITE_IMM and XIWPERF_OP_IMM only:
 * every operation carries run.imm as its immediate value. Without it
 * operation k of a connection carries k (modulo 2^32) and run.imm must be
 * 0. The server checks every receive completion of these operations,
 * --check or not: status, opcode (IB_WC_RECV_RDMA_WITH_IMM, or
 * IB_WC_RECV for XIWPERF_OP_IMM), IB_WC_WITH_IMM, byte_len 0 and the
 * immediate value (the connection's next sequence number, or run.imm);
 * with XIWPERF_F_CHECK and XIWPERF_OP_WRITE_IMM also that the operation's
 * region already holds the operation's pattern when its completion is
 * seen. A message failing any of this is a mismatch in the verdict;
 * result.first_bad_offset is XIWPERF_BAD_COMPLETION when its completion
 * (not the region's data) was wrong.
 */
#define XIWPERF_F_IMM		0x40U
/*
 * Client flags (--persist, --global), XIWPERF_OP_FLUSH only, at least one
 * of them: the Flush asks for persistence (IB_FLUSH_PERSISTENT), global
 * visibility (IB_FLUSH_GLOBAL), or both.
 */
#define XIWPERF_F_PERSIST	0x80U
#define XIWPERF_F_GLOBAL	0x100U
/*
 * Client flag (--whole-mr), XIWPERF_OP_FLUSH only: flush the whole MR the
 * region's chunk is registered as (IB_FLUSH_MR) instead of the region
 * just written (IB_FLUSH_RANGE, --range, the default).
 */
#define XIWPERF_F_FLUSH_MR	0x200U
/*
 * Client flag (--expect [HEX]), XIWPERF_OP_VERIFY only: send an expected
 * hash with each Verify (see XIWPERF_OP_VERIFY).
 */
#define XIWPERF_F_EXPECT	0x400U
/*
 * Client flag (--no-write), XIWPERF_OP_VERIFY only: no Write before the
 * Verify, which hashes what the region holds (e.g. what an earlier run
 * wrote and flushed). The client has no hash of its own then: not with
 * XIWPERF_F_CHECK, and XIWPERF_F_EXPECT needs a fixed run.expect.
 */
#define XIWPERF_F_NO_WRITE	0x800U
/*
 * Client flag (--idle), with run.hold_ms: set every connection up to the
 * point of connecting (address and route resolved, QP, CQs, buffers and
 * registrations made) but never connect; hold them run.hold_ms, then tear
 * them down. No operation runs (result.completed is 0): what a QP that
 * was never connected costs is measured during the hold.
 */
#define XIWPERF_F_IDLE		0x1000U
/* result.first_bad_offset of a message whose receive completion was wrong */
#define XIWPERF_BAD_COMPLETION	(~0ULL)

/**
 * enum xiwperf_inject - a fault the client injects (run.inject), not for
 *	Send, but for XIWPERF_INJECT_LKEY, and never for the Immediate Data
 *	operations. The first operation of connection
 *	0 is the faulty one; an RDMA Write is followed at once by an RDMA
 *	Read of the same region, which cannot complete once the server has
 *	terminated the stream. The run is expected to fail
 *	(XIWPERF_REASON_WC, or XIWPERF_REASON_DISCONNECTED when the
 *	connection's end was seen first; result.wc_status holds the first
 *	failed completion either way).
 * @XIWPERF_INJECT_NONE: none.
 * @XIWPERF_INJECT_STAG: use the remote key with its key byte flipped
 *	(XIWPERF_OP_FLUSH: the Flush's, after a good Write).
 * @XIWPERF_INJECT_BOUNDS: remote address just past the end of the chunk
 *	(needs XIWPERF_F_REMOTE_FRWR: the global rkey has no bounds).
 * @XIWPERF_INJECT_RIGHTS: RDMA Write through the read-only rkey of chunk
 *	0 (needs XIWPERF_F_REMOTE_FRWR), or an atomic operation through an
 *	rkey without the atomic right: chunk 0's read-only one with
 *	XIWPERF_F_REMOTE_FRWR, else the global rkey, which has none. For
 *	XIWPERF_OP_FLUSH the Write goes through the right rkey and the Flush
 *	through chunk 0's read-only one, which has no flush right. Not for
 *	RDMA Read.
 * @XIWPERF_INJECT_INVALIDATED: first a zero-length Send with Invalidate of
 *	chunk 0's rkey (the server posts one receive for it), then the
 *	operation through that rkey (needs XIWPERF_F_REMOTE_FRWR).
 * @XIWPERF_INJECT_DMA_INVALIDATE: first a zero-length Send with
 *	Invalidate naming the server's global (DMA MR) rkey, which cannot be
 *	invalidated, then the operation (RDMA Write and Read only).
 * @XIWPERF_INJECT_WRAP: a remote address so close to 2^64 that the
 *	operation's range wraps around.
 * @XIWPERF_INJECT_FOREIGN: the rkey connection 1 was given for the same
 *	region, which belongs to another protection domain at the server (its
 *	connections each have their own); needs qps >= 2.
 * @XIWPERF_INJECT_LKEY: the operation's local key (its SGEs') with its
 *	key byte flipped, any operation but inline: the client's own device
 *	fails it with a local protection error and terminates the stream.
 * @XIWPERF_INJECT_UNALIGNED: atomic operations only: the target word's
 *	address plus 4, not 64-bit aligned.
 * @XIWPERF_INJECT_CQ_OVERFLOW: not a rule the client breaks but a CQ
 *	the server's device must let overflow harmlessly (RFC 5040 section
 *	8.1.1, item 10): Send with XIWPERF_F_SOLICIT, @solicit at least 3,
 *	@depth at least 2, @qps at least 2. The server gives connection 0 a
 *	solicited-only receive CQ with room for one completion, so that the
 *	second unsolicited Send overflows it. Connection 0 then ends alone
 *	(result.conns_failed); every other connection must carry out all its
 *	operations and deliver its verdict, or the run fails as usual. The
 *	run reports the failure of connection 0 (XIWPERF_REASON_WC or
 *	XIWPERF_REASON_DISCONNECTED) once all connections have ended.
 */
enum xiwperf_inject {
	XIWPERF_INJECT_NONE = 0,
	XIWPERF_INJECT_STAG = 1,
	XIWPERF_INJECT_BOUNDS = 2,
	XIWPERF_INJECT_RIGHTS = 3,
	XIWPERF_INJECT_INVALIDATED = 4,
	XIWPERF_INJECT_DMA_INVALIDATE = 5,
	XIWPERF_INJECT_WRAP = 6,
	XIWPERF_INJECT_FOREIGN = 7,
	XIWPERF_INJECT_LKEY = 8,
	XIWPERF_INJECT_UNALIGNED = 9,
	XIWPERF_INJECT_CQ_OVERFLOW = 10,
};

/**
 * struct xiwperf_addr - an IP address and port.
 * @family: AF_INET (2) or AF_INET6 (10).
 * @port: TCP/rdma_cm port in host byte order; 0 at LISTEN picks a free one.
 * @scope_id: IPv6 scope (interface index) for link-local addresses, else 0.
 * @addr: the address in network byte order; IPv4 uses the first 4 bytes.
 */
struct xiwperf_addr {
	__u16 family;
	__u16 port;
	__u32 scope_id;
	__u8 addr[16];
};

/**
 * struct xiwperf_listen - argument of XIWPERF_IOC_LISTEN.
 * @flags: in: 0 or XIWPERF_LISTEN_BACKED.
 * @addr: in: address to listen on (may be the wildcard); out: port bound.
 * @pad1: padding.
 * @size: in: target buffer size in bytes, 0 for XIWPERF_DEFAULT_BUF, at
 *	most XIWPERF_MAX_BUF; out: the size used.
 * @device: out: the RDMA device the address belongs to, "" for a wildcard.
 * @backing: in, with XIWPERF_LISTEN_BACKED: the caller's shared mapping
 *	(MAP_SHARED, readable and writable, page-aligned) of at least @size
 *	bytes of a file or DAX device, which becomes the target buffer: the
 *	server pins its pages (the filesystem allocates blocks for them as
 *	for a write) and fills it with the read pattern, which the caller
 *	may then fsync(). Only an xiw device serves such a buffer (a
 *	connection through another is rejected, XIWPERF_UNSUPPORTED_BACKING).
 *	0 without the flag: kernel memory.
 * @hash: in: enum xiwperf_hash the server's registrations verify with
 *	(server --hash), whatever XIWPERF_OP_VERIFY run asks another is
 *	rejected (XIWPERF_UNSUPPORTED_HASH); 0: each run's own.
 * @pad2: padding.
 */
struct xiwperf_listen {
	__u32 flags;
	struct xiwperf_addr addr;
	__u32 pad1;
	__u64 size;
	char device[XIWPERF_NAME_MAX];
	__u64 backing;
	__u32 hash;
	__u32 pad2;
};

/* xiwperf_listen.flags: the buffer is the caller's mapping at @backing. */
#define XIWPERF_LISTEN_BACKED	0x1U

/**
 * struct xiwperf_serve - argument of XIWPERF_IOC_SERVE (counters are out).
 * @flags: in: 0.
 * @pad: padding.
 * @connections: connections accepted since LISTEN.
 * @active: connections established now.
 * @rejected: connection requests refused (bad request, no resources).
 * @received: Send (and Immediate Data) messages received.
 * @mismatches: of those, messages that failed the --check verification.
 * @errors: failed work completions (other than flushes at teardown).
 * @qp_fatal_events: IB_EVENT_QP_FATAL events of the server's QPs.
 * @qp_req_err_events: IB_EVENT_QP_REQ_ERR events of its QPs.
 * @qp_access_err_events: IB_EVENT_QP_ACCESS_ERR events of its QPs.
 * @cq_err_events: IB_EVENT_CQ_ERR events of its CQs.
 */
struct xiwperf_serve {
	__u32 flags;
	__u32 pad;
	__u64 connections;
	__u64 active;
	__u64 rejected;
	__u64 received;
	__u64 mismatches;
	__u64 errors;
	__u32 qp_fatal_events;
	__u32 qp_req_err_events;
	__u32 qp_access_err_events;
	__u32 cq_err_events;
};

/**
 * enum xiwperf_reason - why a client run failed (result.reason).
 * @XIWPERF_REASON_NONE: it did not.
 * @XIWPERF_REASON_ADDR: address resolution failed (no route, no RDMA device
 *	for the source address); result.cm_status holds the errno.
 * @XIWPERF_REASON_ROUTE: route resolution failed.
 * @XIWPERF_REASON_REFUSED: the peer refused the connection: nothing listens
 *	on that address and port (result.cm_status: rdma_cm reject status).
 * @XIWPERF_REASON_REJECTED: an xiwperf server rejected the connection;
 *	result.remote_reason holds its enum xiwperf_reject code.
 * @XIWPERF_REASON_UNREACHABLE: connection setup failed or timed out at the
 *	transport (result.cm_status).
 * @XIWPERF_REASON_TIMEOUT: no progress within the timeout.
 * @XIWPERF_REASON_WC: a work completion failed (result.wc_status).
 * @XIWPERF_REASON_DISCONNECTED: the peer disconnected during the run.
 * @XIWPERF_REASON_DEVICE_REMOVED: the RDMA device went away.
 * @XIWPERF_REASON_REMOTE_TOO_SMALL: the server's buffer (result.remote_size)
 *	cannot hold one operation, or, for write with check, one region per
 *	outstanding operation (qps * depth regions; see result.regions).
 * @XIWPERF_REASON_INTERRUPTED: a signal interrupted the run.
 * @XIWPERF_REASON_RESOURCES: allocating memory, a PD, CQ or QP failed, or
 *	the device's limits are below what was asked (result.status).
 * @XIWPERF_REASON_PROTOCOL: the peer is not an xiwperf server of this
 *	version, or broke the protocol.
 * @XIWPERF_REASON_POST: posting a work request failed (result.status), as
 *	it does once the QP is in the error state.
 * @XIWPERF_REASON_UNSUPPORTED: a device cannot do what the run asks for:
 *	result.unsupported says what (enum xiwperf_unsupported), result.limit
 *	what the device allows. Nothing was posted; fewer SGEs or no inline
 *	data are never used instead.
 */
enum xiwperf_reason {
	XIWPERF_REASON_NONE = 0,
	XIWPERF_REASON_ADDR = 1,
	XIWPERF_REASON_ROUTE = 2,
	XIWPERF_REASON_REFUSED = 3,
	XIWPERF_REASON_REJECTED = 4,
	XIWPERF_REASON_UNREACHABLE = 5,
	XIWPERF_REASON_TIMEOUT = 6,
	XIWPERF_REASON_WC = 7,
	XIWPERF_REASON_DISCONNECTED = 8,
	XIWPERF_REASON_DEVICE_REMOVED = 9,
	XIWPERF_REASON_REMOTE_TOO_SMALL = 10,
	XIWPERF_REASON_INTERRUPTED = 11,
	XIWPERF_REASON_RESOURCES = 12,
	XIWPERF_REASON_PROTOCOL = 13,
	XIWPERF_REASON_POST = 14,
	XIWPERF_REASON_UNSUPPORTED = 15,
};

/**
 * enum xiwperf_unsupported - what a device cannot do (result.unsupported).
 * @XIWPERF_UNSUPPORTED_SGE: the local device takes fewer SGEs per work
 *	request of the operation than asked for: result.limit is its
 *	max_send_sge (Send, RDMA Write) or, for RDMA Read, the smaller of
 *	max_sge_rd and max_send_sge.
 * @XIWPERF_UNSUPPORTED_RECV_SGE: the server's device takes fewer SGEs per
 *	receive than asked for (Send): result.limit is its max_recv_sge. The
 *	server rejected the connection with XIWPERF_REJECT_UNSUPPORTED.
 * @XIWPERF_UNSUPPORTED_INLINE: the local device refused a QP with
 *	run.size bytes of inline data (result.status is the error of
 *	rdma_create_qp(), result.limit 0), or granted only result.limit bytes.
 * @XIWPERF_UNSUPPORTED_FRWR: the local device has no fast registration
 *	(IB_DEVICE_MEM_MGT_EXTENSIONS), or fewer pages per registration than
 *	an operation spans: result.limit is its max_fast_reg_page_list_len.
 * @XIWPERF_UNSUPPORTED_REMOTE_FRWR: likewise for the server's device and
 *	a chunk of its buffer (the server rejected the connection).
 * @XIWPERF_UNSUPPORTED_SRQ: the server's device has no shared receive
 *	queues, or smaller ones than needed: result.limit is its max_srq_wr
 *	(the server rejected the connection).
 * @XIWPERF_UNSUPPORTED_ATOMIC: a device has no atomic operations: its
 *	atomic_cap (for the masked ones its masked_atomic_cap) is
 *	IB_ATOMIC_NONE, or, for XIWPERF_OP_ATOMIC_WRITE, its device_cap_flags
 *	lack IB_DEVICE_ATOMIC_WRITE; result.limit is 0. Only the local
 *	device is checked: a server's device without atomics refuses them
 *	on the wire (a Terminate), which a run should be able to show.
 * @XIWPERF_UNSUPPORTED_FLUSH: XIWPERF_OP_FLUSH: the local device's
 *	device_cap_flags lack IB_DEVICE_FLUSH_PERSISTENT (XIWPERF_F_PERSIST)
 *	or IB_DEVICE_FLUSH_GLOBAL (XIWPERF_F_GLOBAL); result.limit is 0.
 *	Only the local device is checked, as for the atomics.
 * @XIWPERF_UNSUPPORTED_VERIFY: XIWPERF_OP_VERIFY: the local device is no
 *	xiw device (RDMA Verify has no verb: only xiw's own function posts
 *	one), or the server's is not (the server rejected the connection);
 *	result.limit is 0.
 * @XIWPERF_UNSUPPORTED_BACKING: the server's buffer is a file or DAX
 *	mapping (XIWPERF_LISTEN_BACKED) and its device is no xiw device,
 *	which alone places into such memory (the server rejected the
 *	connection); result.limit is 0.
 * @XIWPERF_UNSUPPORTED_HASH: XIWPERF_OP_VERIFY: the server verifies with
 *	one hash (xiwperf_listen.hash) and the run asked another (the
 *	server rejected the connection); result.limit is the server's hash.
 */
enum xiwperf_unsupported {
	XIWPERF_UNSUPPORTED_SGE = 1,
	XIWPERF_UNSUPPORTED_RECV_SGE = 2,
	XIWPERF_UNSUPPORTED_INLINE = 3,
	XIWPERF_UNSUPPORTED_FRWR = 4,
	XIWPERF_UNSUPPORTED_REMOTE_FRWR = 5,
	XIWPERF_UNSUPPORTED_SRQ = 6,
	XIWPERF_UNSUPPORTED_ATOMIC = 7,
	XIWPERF_UNSUPPORTED_FLUSH = 8,
	XIWPERF_UNSUPPORTED_VERIFY = 9,
	XIWPERF_UNSUPPORTED_BACKING = 10,
	XIWPERF_UNSUPPORTED_HASH = 11,
};

/**
 * enum xiwperf_reject - why a server rejected a connection.
 * @XIWPERF_REJECT_PROTOCOL: malformed or other-version request.
 * @XIWPERF_REJECT_RESOURCES: the server could not allocate what the
 *	connection needs.
 * @XIWPERF_REJECT_UNSUPPORTED: the server's device cannot do what the
 *	request asks for (more SGEs per receive than its max_recv_sge, fast
 *	registration, a shared receive queue, atomic operations).
 */
enum xiwperf_reject {
	XIWPERF_REJECT_PROTOCOL = 1,
	XIWPERF_REJECT_RESOURCES = 2,
	XIWPERF_REJECT_UNSUPPORTED = 3,
};

/**
 * struct xiwperf_result - what a client run did (all out).
 * @device: RDMA device of the first connection, "" if none was reached.
 * @completed: operations that completed successfully.
 * @errors: work completions that failed (flushed ones included): with
 *	XIWPERF_F_FRWR or run.inject an operation has several work requests.
 * @mismatches: operations whose data failed the check (for send and the
 *	Immediate Data operations: as reported by the server, which for the
 *	latter also counts wrong receive completions: see XIWPERF_F_IMM).
 * @bytes: payload bytes moved: @completed * size.
 * @nsec: from the first post to the last completion.
 * @lat_min_ns: fastest operation, post to completion.
 * @lat_p50_ns: median latency (from a log-linear histogram, within 1.6%).
 * @lat_p99_ns: 99th percentile latency.
 * @lat_max_ns: slowest operation.
 * @lat_mean_ns: mean latency.
 * @remote_size: size of the server's buffer.
 * @first_bad_seq: the first mismatching operation: its sequence number on
 *	its connection...
 * @first_bad_offset: ...the offset of its first wrong byte (or
 *	XIWPERF_BAD_COMPLETION)...
 * @first_bad_qp: ...and the connection's index.
 * @checked: 1 if every operation's data was verified (XIWPERF_F_CHECK and
 *	the run completed), so that @data_ok is meaningful.
 * @data_ok: 1 if @checked and no byte was wrong.
 * @status: 0 or the negative errno the ioctl failed with.
 * @reason: enum xiwperf_reason.
 * @wc_status: ib_wc_status of the first failed completion (also when
 *	@reason is another failure that came first, such as
 *	XIWPERF_REASON_DISCONNECTED).
 * @cm_status: status of the failing rdma_cm event.
 * @remote_reason: enum xiwperf_reject from the server.
 * @depth: outstanding operations per connection actually used.
 * @regions: operation-sized regions in the server's buffer (a region never
 *	straddles two of its 4 MiB chunks); the operations of lane k (of
 *	depth) of connection q use region (q * depth + k) % @regions.
 * @flushed: work completions with IB_WC_WR_FLUSH_ERR (counted in @errors
 *	too).
 * @wc_unexpected: completions for a work request that was not outstanding
 *	(a provider completing a work request twice).
 * @wc_missing: work requests still outstanding after the QP was drained
 *	at teardown (a provider losing a completion).
 * @unsupported: with XIWPERF_REASON_UNSUPPORTED: enum xiwperf_unsupported.
 * @limit: with XIWPERF_REASON_UNSUPPORTED: what the device allows (SGEs,
 *	bytes of inline data, pages per fast registration, SRQ receives), 0
 *	if it did not say.
 * @solicited: with XIWPERF_F_SOLICIT: Sends posted with IB_SEND_SOLICITED.
 * @notifications: with XIWPERF_F_SOLICIT: completion notifications the
 *	server's solicited-only receive CQs raised, summed over the
 *	connections that sent their verdict.
 * @first_batch: with XIWPERF_F_SOLICIT: the fewest receive completions
 *	any connection's server processed in the wake-up its first
 *	notification caused (0 if no connection reported).
 * @srq_stray_events: with XIWPERF_F_SRQ: limit events the server received
 *	while it had no arm pending (an arm that fired twice, or an event
 *	without an arm).
 * @atomic_init: atomic operations with XIWPERF_F_CHECK: the word before
 *	the first operation (valid when @checked).
 * @atomic_final: ...and after the last one. For atomic operations
 *	@mismatches counts the operations whose original value is not one
 *	that some order of the operations gives (or whose completion had
 *	the wrong opcode); @data_ok also needs @atomic_final to be right.
 *	XIWPERF_OP_ATOMIC_WRITE likewise (the word, the completions'
 *	opcodes).
 * @qp_fatal_events: IB_EVENT_QP_FATAL events of the client's QPs.
 * @qp_req_err_events: IB_EVENT_QP_REQ_ERR events of its QPs.
 * @qp_access_err_events: IB_EVENT_QP_ACCESS_ERR events of its QPs.
 * @cq_err_events: IB_EVENT_CQ_ERR events of its CQs.
 * @conns_failed: with XIWPERF_INJECT_CQ_OVERFLOW: connections that ended
 *	in failure while the others went on (0 or 1).
 * @pad: padding.
 */
struct xiwperf_result {
	char device[XIWPERF_NAME_MAX];
	__u64 completed;
	__u64 errors;
	__u64 mismatches;
	__u64 bytes;
	__u64 nsec;
	__u64 lat_min_ns;
	__u64 lat_p50_ns;
	__u64 lat_p99_ns;
	__u64 lat_max_ns;
	__u64 lat_mean_ns;
	__u64 remote_size;
	__u64 first_bad_seq;
	__u64 first_bad_offset;
	__u32 first_bad_qp;
	__u32 checked;
	__u32 data_ok;
	__s32 status;
	__u32 reason;
	__u32 wc_status;
	__s32 cm_status;
	__u32 remote_reason;
	__u32 depth;
	__u32 regions;
	__u64 flushed;
	__u32 wc_unexpected;
	__u32 wc_missing;
	__u32 unsupported;
	__u32 limit;
	__u64 solicited;
	__u64 notifications;
	__u32 first_batch;
	__u32 srq_stray_events;
	__u64 atomic_init;
	__u64 atomic_final;
	__u32 qp_fatal_events;
	__u32 qp_req_err_events;
	__u32 qp_access_err_events;
	__u32 cq_err_events;
	__u32 conns_failed;
	__u32 pad;
};

/**
 * struct xiwperf_run - argument of XIWPERF_IOC_RUN.
 * @flags: in: XIWPERF_F_*.
 * @addr: in: server address and port.
 * @op: in: enum xiwperf_op.
 * @qps: in: connections (RC QPs), 1..XIWPERF_MAX_QPS.
 * @depth: in: outstanding operations per connection, 1..XIWPERF_MAX_DEPTH.
 * @timeout_ms: in: give up after this long without progress (connection
 *	setup or completions); 0 for XIWPERF_DEFAULT_TIMEOUT_MS.
 * @pad: padding.
 * @size: in: bytes per operation, 1..XIWPERF_MAX_SIZE (0 for, and only
 *	for, XIWPERF_OP_IMM); @qps * @depth * @size at most
 *	XIWPERF_MAX_MEMORY.
 * @count: in: operations in total, spread evenly over the connections.
 * @sge: in: SGEs describing each operation's local buffer, 1 to
 *	XIWPERF_MAX_SGE, 0 meaning 1 (XIWPERF_OP_IMM: 0 or 1, and it has
 *	none; the server's receives of the Immediate Data operations have
 *	none either): the buffer is split into that many
 *	consecutive pieces of equal length (the first size % @sge one byte
 *	longer; @size pieces of one byte if @size is smaller). Send receives
 *	at the server are posted the same way. The device must take that many
 *	(see XIWPERF_REASON_UNSUPPORTED). The client's own work requests
 *	(reading the chunk table, reading back for write --check, control
 *	messages) use one SGE.
 * @solicit: in: with XIWPERF_F_SOLICIT (op XIWPERF_OP_SEND and the
 *	Immediate Data operations only), solicit every @solicit-th message of
 *	a connection, at least 1; else zero.
 * @inject: in: enum xiwperf_inject; XIWPERF_INJECT_NONE (0) for none.
 * @srq_arms: out, XIWPERF_F_SRQ: times the server armed the SRQ limit.
 * @registrations: out: fast registrations (IB_WR_REG_MR) of the client
 *	that completed successfully (XIWPERF_F_FRWR).
 * @srq_crossed: out, XIWPERF_F_SRQ: arms during which the server counted
 *	the SRQ's posted receives fall below the limit (see xiwperf.md).
 * @srq_limit_events: out, XIWPERF_F_SRQ: IB_EVENT_SRQ_LIMIT_REACHED
 *	events the server received.
 * @compare_add: in: atomic operations: the Add Data (FetchAdd) or the
 *	Compare Data (CmpSwap), as struct ib_atomic_wr's; else zero.
 * @swap: in: CmpSwap: the Swap Data; else zero.
 * @compare_add_mask: in: XIWPERF_OP_MASKED_FETCH_ADD: the Add Mask (a set
 *	bit is the most significant bit of a field, whose carry out is
 *	discarded; 0 is a plain 64-bit add); XIWPERF_OP_MASKED_CMP_SWAP: the
 *	Compare Mask; else zero.
 * @swap_mask: in: XIWPERF_OP_MASKED_CMP_SWAP: the Swap Mask; else zero.
 * @imm: in: with XIWPERF_F_IMM the immediate value every operation
 *	carries (host order; it is sent as the verbs' __be32 imm_data);
 *	else zero.
 * @hash: in: XIWPERF_OP_VERIFY: enum xiwperf_hash; else zero.
 * @expect_len: in: XIWPERF_OP_VERIFY with XIWPERF_F_EXPECT: octets of the
 *	fixed expected hash in @expect (at most XIWPERF_HASH_MAX), 0 for
 *	the client's own hash of what it wrote; else zero.
 * @expect: in: the fixed expected hash, its first @expect_len octets (the
 *	others are ignored).
 * @hold_ms: in: keep every connection open, idle, this long after the
 *	last operation completed and before the teardown, at most
 *	XIWPERF_MAX_HOLD_MS; 0 for none (not with XIWPERF_F_IDLE). What
 *	connected QPs cost in memory is measured during the hold.
 * @result: out (with XIWPERF_F_SRQ also result.srq_stray_events).
 *
 * Whatever the "out" fields hold on input is ignored. The SRQ figures are
 * the server's, for the one SRQ of the whole run, from its verdict.
 */
struct xiwperf_run {
	__u32 flags;
	struct xiwperf_addr addr;
	__u32 op;
	__u32 qps;
	__u32 depth;
	__u32 timeout_ms;
	__u32 pad;
	__u64 size;
	__u64 count;
	__u32 sge;
	__u32 solicit;
	__u32 inject;
	__u32 srq_arms;
	__u64 registrations;
	__u32 srq_crossed;
	__u32 srq_limit_events;
	__u64 compare_add;
	__u64 swap;
	__u64 compare_add_mask;
	__u64 swap_mask;
	__u32 imm;
	__u32 hash;
	__u32 expect_len;
	__u8 expect[XIWPERF_HASH_MAX];
	__u32 hold_ms;
	struct xiwperf_result result;
};

#define XIWPERF_IOC_MAGIC	0xE7
#define XIWPERF_IOC_LISTEN	_IOWR(XIWPERF_IOC_MAGIC, 1, struct xiwperf_listen)
#define XIWPERF_IOC_SERVE	_IOWR(XIWPERF_IOC_MAGIC, 2, struct xiwperf_serve)
#define XIWPERF_IOC_RUN		_IOWR(XIWPERF_IOC_MAGIC, 3, struct xiwperf_run)

#endif /* _UAPI_XIWPERF_H */
