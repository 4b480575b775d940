// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiw_sq_ring MODE ...: send rings (uapi/xiw_abi.h, XIW_UCTX_SQ_RING) as
 * a process uses and spoils them (test_userspace_verbs.py).
 *
 *   error DEV              a QP moved to error, then SENDS sends posted to
 *                          its ring: the provider rings the doorbell, and
 *                          each completes flushed, in order. Print
 *                          {"flushed": completions, "in_order": whether
 *                          their wr_ids are 0, 1, ...}
 *   command DEV            the post_send command on a ring QP: with a work
 *                          request, and with none (the doorbell). Print
 *                          {"with_wr": its errno, "doorbell": its errno}
 *   serve ADDR PORT        accept connections on ADDR:PORT one after the
 *                          other, each with a 4 KiB region (remote read,
 *                          write and atomics) named in the accept's
 *                          private data and RECEIVES receives posted;
 *                          until killed
 *   ops ADDR PORT          connect to the server and, through the
 *                          ibv_wr_*() API, in one batch: an inline RDMA
 *                          Write, an Atomic Write, a Fetch and Add, a
 *                          Compare and Swap, a Send with Immediate and a
 *                          fenced RDMA Read of it all back; completions
 *                          read through ibv_create_cq_ex()'s CQ. Print
 *                          {"completions", "errors", "write", "atomic_write",
 *                          "fetch_add", "cmp_swap", "final"}
 *   dv ADDR PORT           connect to the server and, through xiwdv.h, in
 *                          one batch: an RDMA Write of 16 octets, an RDMA
 *                          Flush (global) of them, an RDMA Verify of them
 *                          (CRC32c, the server's MR's hash), an Atomic Write
 *                          of a word, a masked Fetch and Add of four 16-bit
 *                          fields to it, a masked Compare and Swap that
 *                          matches and one that does not, a fenced Read of
 *                          the word; then a Verify expecting a wrong hash.
 *                          Print {"completions", "errors", "opcodes" (of the
 *                          batch, in order), "crc_ok", "fetch_add",
 *                          "cmp_swap", "missed", "final", "mismatch" (the
 *                          last Verify's status)}
 *   count ADDR PORT N      connect to a server that shares one region
 *                          among its clients (examples/xiwdv's) and post N
 *                          masked Fetch and Adds of one to each 16-bit
 *                          field of the word at offset 8192, eight at a
 *                          time, then one of nothing, whose original is
 *                          the word. Print {"done": completions, "errors",
 *                          "word": its value in hex}
 *   scribble ADDR PORT ROUNDS
 *                          ROUNDS children, each connected to the server
 *                          with SENDS sends posted to its ring, who spoil it
 *                          (by round: a head far ahead of the kernel's tail,
 *                          one behind it, one half the index space away,
 *                          every entry overwritten, entries of bad opcodes,
 *                          keys, SGE counts and lengths, the ring unmapped,
 *                          a thread writing random heads meanwhile), ring the
 *                          doorbell, wait for the first entry no verb takes
 *                          to fail (IBV_WC_LOC_QP_OP_ERR) in the rounds
 *                          that wrote such, move the QP to error and exit
 *                          without cleaning up. Print {"rounds": children
 *                          that exited 0, "unrefused": rounds in which no
 *                          work request failed as refused}
 *
 * Exit status 2 for a failure of the program's own setup.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "infiniband/xiwdv.h"
#include "util.h"
#include "xiw_abi.h"

#define SENDS		16
#define RECEIVES	64
#define CQ_SIZE		128
#define REGION		4096

/* What the server's accept tells the client. */
struct region {
	uint64_t addr;
	uint32_t rkey;
	uint32_t pad;
};

static char buf[REGION];

static volatile struct xiw_usqe *ring_entry(volatile uint8_t *ring, int i)
{
	return (volatile struct xiw_usqe *)(ring + XIW_USQ_RING_ENTRIES) + i;
}

/*
 * Completions polled until the CQ stays empty for a while; those in error
 * counted in *@errors.
 */
static int drain(struct ibv_cq *cq, uint64_t *ids, int max, int *errors)
{
	struct ibv_wc wc;
	int n = 0, idle = 0, got;

	while (idle < 200) {
		got = ibv_poll_cq(cq, 1, &wc);
		if (got < 0)
			die("ibv_poll_cq");
		if (!got) {
			idle++;
			usleep(1000);
			continue;
		}
		idle = 0;
		if (ids && n < max)
			ids[n] = wc.wr_id;
		if (errors && wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "wr %llu: %s\n",
				(unsigned long long)wc.wr_id,
				ibv_wc_status_str(wc.status));
			(*errors)++;
		}
		n++;
	}
	return n;
}

static void to_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE))
		die("ibv_modify_qp");
}

/* The post_send command with @wr_count work requests (0: the doorbell). */
static int post_command(struct ibv_qp *qp, uint32_t lkey, int wr_count)
{
	struct ib_uverbs_post_send_resp resp;
	struct ib_uverbs_send_wr *wr;
	struct ib_uverbs_sge sge = { (uintptr_t)buf, 8, lkey };
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
		uint8_t wrs[sizeof(struct ib_uverbs_send_wr) +
			    sizeof(struct ib_uverbs_sge)];
	} req = {
		.hdr = { .command = IB_USER_VERBS_CMD_POST_SEND,
			 .out_words = sizeof(resp) / 4 },
	};
	size_t len = sizeof(req.hdr) + sizeof(req.cmd);

	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = qp->handle;
	req.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (wr_count) {
		wr = (struct ib_uverbs_send_wr *)req.wrs;
		wr->wr_id = 1;
		wr->num_sge = 1;
		wr->opcode = IBV_WR_SEND;
		memcpy(req.wrs + sizeof(*wr), &sge, sizeof(sge));
		req.cmd.wr_count = 1;
		req.cmd.sge_count = 1;
		len = sizeof(req);
	}
	req.hdr.in_words = len / 4;
	return write(qp->context->cmd_fd, &req, len) < 0 ? errno : 0;
}

struct local {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
};

/* A CQ, an MR and an unconnected QP of SENDS sends. */
static void local_qp(struct local *l, const char *name)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SENDS, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	l->ctx = open_dev(name);
	l->pd = ibv_alloc_pd(l->ctx);
	l->cq = l->pd ? ibv_create_cq(l->ctx, CQ_SIZE, NULL, NULL, 0) : NULL;
	l->mr = l->cq ? ibv_reg_mr(l->pd, buf, sizeof(buf),
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!l->mr)
		die("PD, CQ, MR");
	init.send_cq = l->cq;
	init.recv_cq = l->cq;
	l->qp = ibv_create_qp(l->pd, &init);
	if (!l->qp)
		die("ibv_create_qp");
}

static void post_sends(struct ibv_qp *qp, struct ibv_mr *mr, int n,
		       uint64_t first)
{
	struct ibv_sge sge = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	int i;

	for (i = 0; i < n; i++) {
		wr.wr_id = first + i;
		if (ibv_post_send(qp, &wr, &bad))
			die("ibv_post_send");
	}
}

static int error_mode(const char *name)
{
	uint64_t ids[SENDS];
	bool in_order = true;
	struct local l;
	int n, i;

	local_qp(&l, name);
	to_error(l.qp);
	post_sends(l.qp, l.mr, SENDS, 0);
	n = drain(l.cq, ids, SENDS, NULL);
	for (i = 0; i < n && i < SENDS; i++)
		in_order &= ids[i] == (uint64_t)i;
	printf("{\"flushed\": %d, \"in_order\": %s}\n", n,
	       in_order ? "true" : "false");
	return 0;
}

static int command_mode(const char *name)
{
	struct local l;
	int with_wr, doorbell;

	local_qp(&l, name);
	with_wr = post_command(l.qp, l.mr->lkey, 1);
	doorbell = post_command(l.qp, l.mr->lkey, 0);
	printf("{\"with_wr\": %d, \"doorbell\": %d}\n", with_wr, doorbell);
	return 0;
}

static struct rdma_addrinfo *resolve(const char *addr, const char *port,
				     bool passive)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP,
				       .ai_flags = passive ? RAI_PASSIVE : 0 };
	struct rdma_addrinfo *res;

	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo");
	return res;
}

/* Wait on a connected id until its peer has gone. */
static void wait_disconnect(struct rdma_cm_id *id)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(id->channel, &ev)) {
		enum rdma_cm_event_type type = ev->event;

		printf("%s\n", rdma_event_str(type));
		fflush(stdout);
		rdma_ack_cm_event(ev);
		if (type == RDMA_CM_EVENT_DISCONNECTED)
			return;
	}
}

static __attribute__((noreturn)) void serve(const char *addr,
						 const char *port)
{
	struct rdma_addrinfo *res = resolve(addr, port, true);
	struct rdma_cm_id *listen_id, *id;

	if (rdma_create_ep(&listen_id, res, NULL, NULL) ||
	    rdma_listen(listen_id, 4))
		die("listen");
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		struct ibv_qp_init_attr init = {
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 4, .max_recv_wr = RECEIVES,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};
		struct rdma_conn_param param = {
			.responder_resources = 16, .initiator_depth = 16,
		};
		static char region[REGION];
		struct region r;
		struct ibv_pd *pd;
		struct ibv_cq *cq;
		struct ibv_mr *mr;

		if (rdma_get_request(listen_id, &id))
			die("rdma_get_request");
		memset(region, 0, sizeof(region));
		pd = ibv_alloc_pd(id->verbs);
		cq = pd ? ibv_create_cq(id->verbs, CQ_SIZE, NULL, NULL, 0) :
			  NULL;
		/* Verifiable (CRC32c), and flushable to global visibility. */
		mr = cq ? xiwdv_reg_mr(pd, region, sizeof(region),
				       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_REMOTE_ATOMIC |
				       XIWDV_ACCESS_FLUSH_GLOBAL,
				       XIWDV_VERIFY_CRC32C) : NULL;
		if (!mr)
			die("server PD, CQ, MR");
		init.send_cq = cq;
		init.recv_cq = cq;
		if (rdma_create_qp(id, pd, &init))
			die("rdma_create_qp");
		post_receives(id->qp, mr, region + REGION / 2, 64, RECEIVES);
		r = (struct region){ (uintptr_t)region, mr->rkey, 0 };
		param.private_data = &r;
		param.private_data_len = sizeof(r);
		/* Not rdma_disconnect(): synchronous, it awaits one more. */
		if (!rdma_accept(id, &param))
			wait_disconnect(id);
		rdma_destroy_qp(id);
		ibv_dereg_mr(mr);
		ibv_destroy_cq(cq);
		ibv_dealloc_pd(pd);
		rdma_destroy_id(id);
	}
}

/*
 * Connect to the server with a QP of SENDS sends (created with the
 * ibv_wr_*() operations if @ex), its send and receive CQ *@cq; the
 * server's region in *@r.
 */
static struct rdma_cm_id *connect_to(const char *addr, const char *port,
				     bool ex, struct ibv_pd **pd,
				     struct ibv_cq **cq, struct region *r)
{
	struct rdma_addrinfo *res = resolve(addr, port, false);
	struct ibv_qp_init_attr_ex init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SENDS, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};
	struct rdma_conn_param param = {
		.responder_resources = 16, .initiator_depth = 16,
	};
	struct rdma_cm_id *id;

	if (rdma_create_ep(&id, res, NULL, NULL))
		die("rdma_create_ep");
	*pd = ibv_alloc_pd(id->verbs);
	if (*pd && ex) {
		/* ibv_create_cq_ex(), read by ops() through ibv_start_poll() */
		struct ibv_cq_init_attr_ex cattr = {
			.cqe = CQ_SIZE,
			.wc_flags = IBV_WC_EX_WITH_BYTE_LEN |
				    IBV_WC_EX_WITH_QP_NUM,
		};
		struct ibv_cq_ex *cqx = ibv_create_cq_ex(id->verbs, &cattr);

		*cq = cqx ? ibv_cq_ex_to_cq(cqx) : NULL;
	} else {
		*cq = *pd ? ibv_create_cq(id->verbs, CQ_SIZE, NULL, NULL, 0) :
			    NULL;
	}
	if (!*cq)
		die("client PD, CQ");
	init.pd = *pd;
	init.send_cq = *cq;
	init.recv_cq = *cq;
	if (ex) {
		init.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		init.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				      IBV_QP_EX_WITH_RDMA_READ |
				      IBV_QP_EX_WITH_SEND_WITH_IMM |
				      IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				      IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				      IBV_QP_EX_WITH_ATOMIC_WRITE;
	}
	if (rdma_create_qp_ex(id, &init))
		die("rdma_create_qp_ex");
	if (rdma_connect(id, &param))
		die("rdma_connect");
	if (!id->event || id->event->param.conn.private_data_len < sizeof(*r))
		die("no region in the accept");
	memcpy(r, id->event->param.conn.private_data, sizeof(*r));
	return id;
}

/*
 * Completions read through ibv_cq_ex until @n came or a while passed; each
 * checked for its QP and, for a Read, its length. Return: how many.
 */
static int drain_ex(struct ibv_cq *cq, uint32_t qp_num, int n, int *errors)
{
	struct ibv_cq_ex *cqx = (struct ibv_cq_ex *)cq;
	struct ibv_poll_cq_attr attr = {};
	int got = 0, idle = 0, err;

	while (got < n && idle < 30000) {
		err = ibv_start_poll(cqx, &attr);
		if (err == ENOENT) {
			idle++;
			usleep(1000);
			continue;
		}
		if (err)
			die("ibv_start_poll");
		do {
			got++;
			if (cqx->status != IBV_WC_SUCCESS ||
			    ibv_wc_read_qp_num(cqx) != qp_num ||
			    (ibv_wc_read_opcode(cqx) == IBV_WC_RDMA_READ &&
			     ibv_wc_read_byte_len(cqx) != 192))
				(*errors)++;
		} while (!ibv_next_poll(cqx));
		ibv_end_poll(cqx);
	}
	return got;
}

static int ops(const char *addr, const char *port)
{
	static const char text[16] = "xiw-sq-ring-ops!";
	const uint64_t value = 0x0102030405060708ull;
	struct ibv_qp_ex *qpx;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct region r;
	uint64_t *fa, *cs, got;
	int err, n, errors = 0;

	id = connect_to(addr, port, true, &pd, &cq, &r);
	qpx = ibv_qp_to_qp_ex(id->qp);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!qpx || !mr)
		die("ibv_qp_to_qp_ex, MR");
	memset(buf, 0, sizeof(buf));
	fa = (uint64_t *)(buf + 1024);
	cs = (uint64_t *)(buf + 1032);
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 1;
	ibv_wr_rdma_write(qpx, r.rkey, r.addr);
	ibv_wr_set_inline_data(qpx, (void *)text, sizeof(text));
	qpx->wr_id = 2;
	ibv_wr_atomic_write(qpx, r.rkey, r.addr + 64, &value);
	qpx->wr_id = 3;
	ibv_wr_atomic_fetch_add(qpx, r.rkey, r.addr + 128, 5);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)fa, 8);
	qpx->wr_id = 4;
	ibv_wr_atomic_cmp_swp(qpx, r.rkey, r.addr + 128, 5, 42);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)cs, 8);
	qpx->wr_id = 5;
	ibv_wr_send_imm(qpx, htobe32(0x1234));
	ibv_wr_set_sge_list(qpx, 0, NULL);
	qpx->wr_id = 6;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_rdma_read(qpx, r.rkey, r.addr);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, 192);
	err = ibv_wr_complete(qpx);
	if (err) {
		errno = err;
		die("ibv_wr_complete");
	}
	n = drain_ex(cq, id->qp->qp_num, 6, &errors);
	memcpy(&got, buf + 64, sizeof(got));
	printf("{\"completions\": %d, \"errors\": %d, \"write\": %s, "
	       "\"atomic_write\": %s, \"fetch_add\": %llu, \"cmp_swap\": %llu, "
	       "\"final\": %llu}\n", n, errors,
	       memcmp(buf, text, sizeof(text)) ? "false" : "true",
	       got == value ? "true" : "false", (unsigned long long)*fa,
	       (unsigned long long)*cs,
	       (unsigned long long)*(uint64_t *)(buf + 128));
	rdma_disconnect(id);
	return 0;
}

/* CRC32c (Castagnoli, reflected), as an RDMA Verify of CRC32c returns it:
 * the final value's four octets, least significant first. */
static uint32_t crc32c(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t c = ~0u;
	int k;

	while (n--) {
		c ^= *b++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
	}
	return ~c;
}

/* Post one batch of xiwdv.h's operations; wait for its completions. */
static int dv(const char *addr, const char *port)
{
	static const char text[16] = "flushed, hashed";
	const uint64_t start = 0xffff0000ffff0001ull;
	struct ibv_wc wc[16];
	struct xiwdv_qp_ex *x;
	struct ibv_qp_ex *qpx;
	struct rdma_cm_id *id;
	uint64_t *fa, *cs, *miss, *word;
	uint8_t *hash, want[4];
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct region r;
	int err, n = 0, errors = 0, i, idle = 0, mismatch = -1;
	uint32_t crc;

	id = connect_to(addr, port, true, &pd, &cq, &r);
	qpx = ibv_qp_to_qp_ex(id->qp);
	x = qpx ? xiwdv_qp_ex_from_ibv_qp_ex(qpx) : NULL;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!x || !mr)
		die("xiwdv_qp_ex_from_ibv_qp_ex, MR");
	memset(buf, 0, sizeof(buf));
	memcpy(buf, text, sizeof(text));
	hash = (uint8_t *)buf + 512;
	fa = (uint64_t *)(buf + 1024);
	cs = (uint64_t *)(buf + 1032);
	miss = (uint64_t *)(buf + 1040);
	word = (uint64_t *)(buf + 1048);
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 1;
	ibv_wr_rdma_write(qpx, r.rkey, r.addr + 256);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, sizeof(text));
	qpx->wr_id = 2;
	xiwdv_wr_flush(x, r.rkey, r.addr + 256, sizeof(text),
		       XIWDV_FLUSH_GLOBAL, XIWDV_FLUSH_RANGE);
	qpx->wr_id = 3;
	xiwdv_wr_verify(x, r.rkey, r.addr + 256, sizeof(text), NULL, 0);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)hash, XIWDV_VERIFY_HASH_MAX);
	qpx->wr_id = 4;
	ibv_wr_atomic_write(qpx, r.rkey, r.addr + 512, &start);
	/* Four 16-bit fields, each + 1: 0xffff + 1 wraps to 0 on its own. */
	qpx->wr_id = 5;
	xiwdv_wr_masked_fetch_add(x, r.rkey, r.addr + 512,
				  0x0001000100010001ull,
				  0x8000800080008000ull);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)fa, 8);
	/* The high half matches: the low half is swapped. */
	qpx->wr_id = 6;
	xiwdv_wr_masked_cmp_swap(x, r.rkey, r.addr + 512,
				 0x0000000100000000ull, 0xffffffff00000000ull,
				 0x12345678aaaaaaaaull, 0x00000000ffffffffull);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)cs, 8);
	/* The high half does not match: nothing changes. */
	qpx->wr_id = 7;
	xiwdv_wr_masked_cmp_swap(x, r.rkey, r.addr + 512,
				 0x0000000200000000ull, 0xffffffff00000000ull,
				 0, ~0ull);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)miss, 8);
	qpx->wr_id = 8;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_rdma_read(qpx, r.rkey, r.addr + 512);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)word, 8);
	err = ibv_wr_complete(qpx);
	if (err) {
		errno = err;
		die("ibv_wr_complete");
	}
	printf("{\"opcodes\": [");
	while (n < 8 && idle < 30000) {
		int got = ibv_poll_cq(cq, 1, &wc[n]);

		if (got < 0)
			die("ibv_poll_cq");
		if (!got) {
			idle++;
			usleep(1000);
			continue;
		}
		errors += wc[n].status != IBV_WC_SUCCESS;
		printf("%s%d", n ? ", " : "", wc[n].opcode);
		n++;
	}
	/* A Verify expecting a hash the range does not have. */
	memset(want, 0x5a, sizeof(want));
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 9;
	xiwdv_wr_verify(x, r.rkey, r.addr + 256, sizeof(text), want,
			sizeof(want));
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)hash + 64, XIWDV_VERIFY_HASH_MAX);
	if (!ibv_wr_complete(qpx)) {
		struct ibv_wc last;

		for (i = 0; i < 30000; i++) {
			int got = ibv_poll_cq(cq, 1, &last);

			if (got > 0) {
				mismatch = last.status;
				break;
			}
			usleep(1000);
		}
	}
	crc = crc32c(text, sizeof(text));
	for (i = 0; i < 4; i++)
		want[i] = crc >> (8 * i);
	printf("], \"completions\": %d, \"errors\": %d, \"crc_ok\": %s, "
	       "\"hash_len\": %u, \"fetch_add\": \"%016llx\", "
	       "\"cmp_swap\": \"%016llx\", \"missed\": \"%016llx\", "
	       "\"final\": \"%016llx\", \"mismatch\": %d}\n", n, errors,
	       memcmp(hash, want, 4) ? "false" : "true",
	       n > 2 ? wc[2].byte_len : 0, (unsigned long long)*fa,
	       (unsigned long long)*cs, (unsigned long long)*miss,
	       (unsigned long long)*word, mismatch);
	return 0;
}

/* N masked Fetch and Adds on one word, then the word. */
static int count(const char *addr, const char *port, long total)
{
	const uint64_t fields = 0x8000800080008000ull;
	struct ibv_qp_ex *qpx;
	struct xiwdv_qp_ex *x;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct region r;
	long done = 0, posted = 0;
	int errors = 0, i, n, err;
	uint64_t *orig = (uint64_t *)buf;

	id = connect_to(addr, port, true, &pd, &cq, &r);
	qpx = ibv_qp_to_qp_ex(id->qp);
	x = qpx ? xiwdv_qp_ex_from_ibv_qp_ex(qpx) : NULL;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!x || !mr)
		die("xiwdv_qp_ex_from_ibv_qp_ex, MR");
	for (;;) {
		bool last = posted == total;

		n = last ? 1 : (int)(total - posted < 8 ? total - posted : 8);
		ibv_wr_start(qpx);
		qpx->wr_flags = IBV_SEND_SIGNALED;
		for (i = 0; i < n; i++) {
			qpx->wr_id = posted + i;
			xiwdv_wr_masked_fetch_add(x, r.rkey, r.addr + 8192,
						  last ? 0 :
						  0x0001000100010001ull,
						  fields);
			ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)&orig[i], 8);
		}
		err = ibv_wr_complete(qpx);
		if (err) {
			errno = err;
			die("ibv_wr_complete");
		}
		for (i = 0; i < n;) {
			struct ibv_wc wc;
			int got = ibv_poll_cq(cq, 1, &wc);

			if (got < 0)
				die("ibv_poll_cq");
			if (!got)
				continue;
			errors += wc.status != IBV_WC_SUCCESS;
			i++;
		}
		if (last)
			break;
		posted += n;
		done += n;
	}
	printf("{\"done\": %ld, \"errors\": %d, \"word\": \"%016llx\"}\n",
	       done, errors, (unsigned long long)orig[0]);
	rdma_disconnect(id);
	return 0;
}

static atomic_bool stop;

/* Random heads, as fast as it can, until told to stop. */
static void *head_writer(void *ring)
{
	uint32_t x = 2463534242u;

	while (!atomic_load(&stop)) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		*ring_u32(ring, XIW_USQ_RING_HEAD) = x;
	}
	return NULL;
}

/* Entries of bad opcodes, flags, keys, SGE counts and lengths. */
static void bad_entries(volatile uint8_t *ring, uint32_t head)
{
	int i;

	for (i = 0; i < SENDS; i++) {
		volatile struct xiw_usqe *e = ring_entry(ring,
							 (head + i) % SENDS);

		e->wr_id = 100 + i;
		e->opcode = (uint8_t[]){ 0x7f, XIW_USQE_SEND, XIW_USQE_RDMA_READ,
					 XIW_USQE_FLUSH, XIW_USQE_VERIFY,
					 XIW_USQE_ATOMIC_FETCH_AND_ADD }[i % 6];
		e->flags = i & 1 ? 0xff : XIW_USQE_INLINE;
		e->num_sge = i % 3 ? 1 : XIW_USQE_SGE + 1 + i;
		e->length = ~0u - i;
		e->sge[0].lkey = 0x12345678u + i;
		e->sge[0].addr = i & 1 ? 0 : ~0ull;
		e->sge[0].length = ~0u;
		e->verify.expect_len = 200;
		e->flush.type = 0xff;
	}
	*ring_u32(ring, XIW_USQ_RING_HEAD) = head + SENDS;
}

/* Whether a work request fails as refused (IBV_WC_LOC_QP_OP_ERR). */
static bool refused(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	int i, got;

	for (i = 0; i < 30000; i++) {
		got = ibv_poll_cq(cq, 1, &wc);
		if (got < 0)
			die("ibv_poll_cq");
		if (got && wc.status == IBV_WC_LOC_QP_OP_ERR)
			return true;
		if (!got)
			usleep(1000);
	}
	return false;
}

/*
 * One child's round: exit status 0, or 3 if entries no verb takes did
 * not fail as refused.
 */
static void round_child(const char *addr, const char *port, int round)
{
	volatile uint8_t *ring;
	struct rdma_cm_id *id;
	pthread_t writer;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct region r;
	bool bad = false;
	uint32_t head;
	size_t len;

	id = connect_to(addr, port, false, &pd, &cq, &r);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	post_sends(id->qp, mr, SENDS / 2, 0);
	ring = find_ring(&len, "no send ring mapped (a kernel without "
			 "XIW_UCTX_SQ_RING?)");
	head = *ring_u32(ring, XIW_USQ_RING_HEAD);
	switch (round % 7) {
	case 0:		/* far ahead of the kernel's tail */
		*ring_u32(ring, XIW_USQ_RING_HEAD) = head + 1000;
		break;
	case 1:		/* behind it */
		*ring_u32(ring, XIW_USQ_RING_HEAD) = head - 1000;
		break;
	case 2:		/* half the index space away */
		*ring_u32(ring, XIW_USQ_RING_HEAD) = head + 0x80000000u;
		break;
	case 3:		/* every entry overwritten */
		memset((void *)ring_entry(ring, 0), 0xff,
		       len - XIW_USQ_RING_ENTRIES);
		*ring_u32(ring, XIW_USQ_RING_HEAD) = head + SENDS;
		bad = true;
		break;
	case 4:		/* entries no verb takes */
		bad_entries(ring, head);
		bad = true;
		break;
	case 5:		/* nothing mapped any more */
		if (munmap((void *)ring, len))
			die("munmap");
		break;
	case 6:		/* random heads while the kernel sends and flushes */
		if (pthread_create(&writer, NULL, head_writer, (void *)ring))
			die("pthread_create");
		break;
	}
	post_command(id->qp, mr->lkey, 0);	/* the doorbell */
	/* The first refused entry fails in its turn, the QP with it. */
	if (bad && !refused(cq))
		_exit(3);
	usleep(20000);
	to_error(id->qp);
	if (round % 7 == 6) {
		atomic_store(&stop, true);
		pthread_join(writer, NULL);
	}
	drain(cq, NULL, 0, NULL);
	/* Exit holding everything: the kernel cleans up. */
	_exit(0);
}

static int scribble(const char *addr, const char *port, int rounds)
{
	int r, status, ok = 0, unrefused = 0;
	pid_t pid;

	for (r = 0; r < rounds; r++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			round_child(addr, port, r);
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			ok++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
			unrefused++;
		else
			fprintf(stderr, "round %d: status 0x%x\n", r, status);
	}
	printf("{\"rounds\": %d, \"unrefused\": %d}\n", ok, unrefused);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "serve"))
		serve(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "ops"))
		return ops(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "dv"))
		return dv(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "count"))
		return count(argv[2], argv[3], atol(argv[4]));
	/* Completions and receives through the commands: one mapping. */
	setenv("XIW_CQ_RINGS", "0", 1);
	setenv("XIW_RQ_RINGS", "0", 1);
	if (argc == 3 && !strcmp(argv[1], "error"))
		return error_mode(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "command"))
		return command_mode(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "scribble"))
		return scribble(argv[2], argv[3], atoi(argv[4]));
	fprintf(stderr, "usage: see the top of sq_ring.c\n");
	return 2;
}
