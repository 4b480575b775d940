/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xiwperf wire protocol: the rdma_cm private data of connection setup and
 * the small control messages the server sends during a Send (or Immediate
 * Data) test. All fields big-endian.
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
/*
 * Hello flag (Send only): all connections of the run (same @run_id) share
 * one SRQ at the server, which arms its limit and reports in the verdict.
 */
#define XP_HELLO_SRQ		0x40
/*
 * Hello flag (not for Send): the server registers its buffer for this
 * connection by fast registration (one MR per chunk, with the remote
 * atomic right for an atomic operation, and chunk 0 read-only in @ro_rkey
 * of the accept), appends the chunks' rkeys to the chunk table and sends
 * XP_MSG_READY once the registrations completed.
 */
#define XP_HELLO_REMOTE_FRWR	0x20
/*
 * Hello flag (not for Send): the server posts one receive, for the Send
 * with Invalidate of an injected fault.
 */
#define XP_HELLO_INV_RECV	0x10
/*
 * Hello flag (Immediate Data operations only): every message carries
 * @imm as its immediate value, not its sequence number.
 */
#define XP_HELLO_IMM		0x08
/*
 * Hello flag (with XP_HELLO_SOLICITED only): the connection's solicited
 * receive CQ has room for one completion, so that it overflows
 * (XIWPERF_INJECT_CQ_OVERFLOW).
 */
#define XP_HELLO_TINY_RCQ	0x04

/**
 * struct xp_hello - connect request private data, client to server.
 * @magic: XP_MAGIC.
 * @version: XP_VERSION.
 * @op: enum xiwperf_op of the run (a server that predates the atomic or
 *	Immediate Data operations rejects them as XIWPERF_REJECT_PROTOCOL).
 * @flags: XIWPERF_F_CHECK if the run has it (inline data concerns the
 *	client alone), and XP_HELLO_* flags.
 * @size: bytes per operation (0 for XIWPERF_OP_IMM only).
 * @depth: outstanding operations on this connection.
 * @count: operations this connection will run.
 * @qp_index: index of this connection in the run.
 * @sge: SGEs per operation, 1 to XIWPERF_MAX_SGE; 0 (from a client that
 *	predates it, where this was a zero reserved field) means 1. The
 *	server posts Send receives with as many.
 * @run_id: identifies the client run (random); with XP_HELLO_SRQ the
 *	connections with the same @run_id share one SRQ.
 * @qps: connections in the run (XP_HELLO_SRQ: how many will share it).
 * @imm: with XP_HELLO_IMM: the immediate value of every message; for
 *	XIWPERF_OP_VERIFY the hash (enum xiwperf_hash) the server sets on
 *	its registrations; else zero (and in a request from a client that
 *	predates it).
 *
 * 48 bytes: fits the 56 bytes an IB connect request leaves for rdma_cm
 * users as well as an MPA request. A server takes a request of at least
 * XP_HELLO_MIN_LEN bytes (from a client that predates @run_id), reading
 * the missing fields as zero.
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
	__be64 run_id;
	__be32 qps;
	__be32 imm;
};

#define XP_HELLO_MIN_LEN	offsetof(struct xp_hello, run_id)

/**
 * struct xp_accept - accept (or reject) private data, server to client.
 * @magic: XP_MAGIC.
 * @version: XP_VERSION.
 * @reject: 0 in an accept, enum xiwperf_reject in a reject.
 * @table: address of the chunk table, which the client reads with an RDMA
 *	Read through @rkey: one __be64 address per chunk of the server's
 *	buffer, then, with XP_HELLO_REMOTE_FRWR, one __be32 rkey per chunk.
 * @size: length of the server's buffer.
 * @chunk: length of each chunk but the last (which may be shorter).
 * @rkey: remote key of the table, and of the buffer unless the chunk table
 *	has rkeys: the device's global rkey (its DMA MR).
 * @credits: receives the server posted for Send (and Immediate Data)
 *	messages (with XP_HELLO_SRQ: this connection's share of the SRQ's
 *	receives); the
 *	client never has more Sends outstanding than credits granted (iWARP
 *	has no receiver-not-ready retry: a Send without a receive kills the
 *	QP).
 * @limit: in a reject with XIWPERF_REJECT_UNSUPPORTED, what the server's
 *	device allows (see @unsupported); otherwise zero.
 * @ro_rkey: with XP_HELLO_REMOTE_FRWR: rkey of the read-only registration
 *	of chunk 0 (same addresses as chunk 0's in the table).
 * @unsupported: in a reject with XIWPERF_REJECT_UNSUPPORTED: enum
 *	xiwperf_unsupported, what the device cannot do; 0 (from a server
 *	that predates it) means XIWPERF_UNSUPPORTED_RECV_SGE.
 * @reserved: zero.
 *
 * A client takes an accept of at least XP_ACCEPT_MIN_LEN bytes (from a
 * server that predates @ro_rkey), reading the missing fields as zero.
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
	__be32 ro_rkey;
	__be16 unsupported;
	__be16 reserved;
};

#define XP_ACCEPT_MIN_LEN	offsetof(struct xp_accept, ro_rkey)

/* Chunks of the server's buffer: the largest physically contiguous block. */
#define XP_CHUNK	(4U << 20)

/**
 * enum xp_msg_type - control messages, server to client.
 * @XP_MSG_CREDIT: @value is the number of receives the server has posted
 *	again so far; the client may send up to credits + @value messages.
 * @XP_MSG_VERDICT: all messages arrived: @value received, @mismatches of
 *	them failed the check, the first at @first_bad_seq/@first_bad_offset;
 *	on an XP_HELLO_SOLICITED connection also @notifications and
 *	@first_batch, on an XP_HELLO_SRQ connection (sent once every
 *	connection of the run has all its messages) also the SRQ's figures.
 * @XP_MSG_READY: XP_HELLO_REMOTE_FRWR: the server's fast registrations
 *	completed; the rkeys in the chunk table work from now on.
 */
enum xp_msg_type {
	XP_MSG_CREDIT = 1,
	XP_MSG_VERDICT = 2,
	XP_MSG_READY = 3,
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
 * @srq_arms: SRQ verdict: times the server armed the SRQ's limit.
 * @srq_crossed: SRQ verdict: arms during which the server counted the
 *	SRQ's posted receives fall below the limit.
 * @srq_events: SRQ verdict: IB_EVENT_SRQ_LIMIT_REACHED events.
 * @srq_stray: SRQ verdict: of those, events while no arm was pending.
 *
 * Messages on connections without XP_HELLO_SOLICITED or XP_HELLO_SRQ end
 * before @notifications (XP_MSG_BASE_LEN bytes), on solicited ones before
 * @srq_arms (XP_MSG_SOLICITED_LEN): the receive buffers of clients that
 * predate those fields are that long.
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
	__be32 srq_arms;
	__be32 srq_crossed;
	__be32 srq_events;
	__be32 srq_stray;
};

#define XP_MSG_BASE_LEN		offsetof(struct xp_msg, notifications)
#define XP_MSG_SOLICITED_LEN	offsetof(struct xp_msg, srq_arms)

/*
 * The chunk table: XP_TABLE_ADDR bytes per chunk, then, with
 * XP_HELLO_REMOTE_FRWR, XP_TABLE_RKEY bytes per chunk.
 */
#define XP_TABLE_ADDR	sizeof(__be64)
#define XP_TABLE_RKEY	sizeof(__be32)

/* Control message buffers per connection: client receives, server sends. */
#define XP_CTRL_RX	4
#define XP_CTRL_TX	8

#endif /* XIWPERF_PROTO_H */
