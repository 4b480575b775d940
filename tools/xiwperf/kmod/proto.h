/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiwperf wire protocol: the rdma_cm private data of connection setup and
 * the small control messages the server sends during a Send test. All
 * fields big-endian.
 */
#ifndef XIWPERF_PROTO_H
#define XIWPERF_PROTO_H

#include <linux/stddef.h>
#include <linux/types.h>

#define XP_MAGIC	0x58505246	/* "XPRF" */
#define XP_VERSION	1

/*
 * Hello flag: the client runs Send with --solicit. The server takes the
 * receives on a CQ armed for solicited events only and reports its
 * notifications in the verdict.
 */
#define XP_HELLO_SOLICITED	0x80

/**
 * struct xp_hello - connect request private data, client to server.
 * @magic: XP_MAGIC.
 * @version: XP_VERSION.
 * @op: enum xiwperf_op of the run.
 * @flags: XIWPERF_F_CHECK if the run has it (inline data concerns the
 *	client alone), and XP_HELLO_SOLICITED.
 * @size: bytes per operation.
 * @depth: outstanding operations on this connection.
 * @count: operations this connection will run.
 * @qp_index: index of this connection in the run.
 * @sge: SGEs per operation, 1 to XIWPERF_MAX_SGE; 0 (from a client that
 *	predates it, where this was a zero reserved field) means 1. The
 *	server posts Send receives with as many.
 *
 * 32 bytes: fits the 56 bytes an IB connect request leaves for rdma_cm
 * users as well as an MPA request.
 */
struct xp_hello {
	__be32 magic;
	__be16 version;
	u8 op;
	u8 flags;
	__be32 size;
	__be32 depth;
	__be64 count;
	__be32 qp_index;
	__be32 sge;
};

/**
 * struct xp_accept - accept (or reject) private data, server to client.
 * @magic: XP_MAGIC.
 * @version: XP_VERSION.
 * @reject: 0 in an accept, enum xiwperf_reject in a reject.
 * @table: address of the chunk table: one __be64 address per chunk of the
 *	server's buffer, which the client reads with an RDMA Read.
 * @size: length of the server's buffer.
 * @chunk: length of each chunk but the last (which may be shorter).
 * @rkey: remote key of the table and the buffer.
 * @credits: receives the server posted for Send messages; the client never
 *	has more Sends outstanding than credits granted (iWARP has no
 *	receiver-not-ready retry: a Send without a receive kills the QP).
 * @limit: in a reject with XIWPERF_REJECT_UNSUPPORTED, what the server's
 *	device allows (its max_recv_sge); otherwise zero.
 */
struct xp_accept {
	__be32 magic;
	__be16 version;
	__be16 reject;
	__be64 table;
	__be64 size;
	__be32 chunk;
	__be32 rkey;
	__be32 credits;
	__be32 limit;
};

/* Chunks of the server's buffer: the largest physically contiguous block. */
#define XP_CHUNK	(4U << 20)

/**
 * enum xp_msg_type - control messages, server to client.
 * @XP_MSG_CREDIT: @value is the number of receives the server has posted
 *	again so far; the client may send up to credits + @value messages.
 * @XP_MSG_VERDICT: all messages arrived: @value received, @mismatches of
 *	them failed the check, the first at @first_bad_seq/@first_bad_offset;
 *	on an XP_HELLO_SOLICITED connection also @notifications and
 *	@first_batch.
 */
enum xp_msg_type {
	XP_MSG_CREDIT = 1,
	XP_MSG_VERDICT = 2,
};

/**
 * struct xp_msg - a control message.
 * @magic: XP_MAGIC.
 * @type: enum xp_msg_type.
 * @value: see enum xp_msg_type.
 * @mismatches: verdict: messages whose payload was wrong.
 * @first_bad_seq: verdict: sequence number of the first wrong message.
 * @first_bad_offset: verdict: offset of its first wrong byte.
 * @notifications: solicited verdict: notifications of the receive CQ.
 * @first_batch: solicited verdict: receive completions processed in the
 *	wake-up the first notification caused.
 *
 * Messages on connections without XP_HELLO_SOLICITED end before
 * @notifications (XP_MSG_BASE_LEN bytes): the receive buffers of clients
 * that predate those fields are that long.
 */
struct xp_msg {
	__be32 magic;
	__be32 type;
	__be64 value;
	__be64 mismatches;
	__be64 first_bad_seq;
	__be64 first_bad_offset;
	__be64 notifications;
	__be64 first_batch;
};

#define XP_MSG_BASE_LEN	offsetof(struct xp_msg, notifications)

/* Control message buffers per connection: client receives, server sends. */
#define XP_CTRL_RX	4
#define XP_CTRL_TX	8

#endif /* XIWPERF_PROTO_H */
