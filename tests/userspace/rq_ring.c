// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiw_rq_ring MODE ...: receive rings (uapi/xiw_abi.h, XIW_UCTX_RQ_RING)
 * as a process uses and spoils them (test_userspace_verbs.py). Completion
 * rings are off (XIW_CQ_RINGS=0): the one mapping of the device file is
 * the receive ring of the QP or SRQ, found in /proc/self/maps.
 *
 *   error DEV              a QP moved to error, then RECEIVES receives
 *                          posted to its ring: the provider rings the
 *                          doorbell, and each completes flushed, in
 *                          order. Print {"flushed": completions,
 *                          "in_order": whether their wr_ids are 0, 1, ...}
 *   command DEV            the post_recv command on a ring QP: with a work
 *                          request, and with none (the doorbell). Print
 *                          {"with_wr": its errno, "doorbell": its errno}
 *   scribble DEV ROUNDS    ROUNDS children, each with RECEIVES receives
 *                          posted to a QP's ring (odd rounds: an SRQ's,
 *                          the QP on it), who spoil it (by round: a head
 *                          far ahead of the kernel's tail, one behind it,
 *                          one half the index space away, every entry
 *                          overwritten, entries of bad SGEs, the ring
 *                          unmapped, a thread writing random heads
 *                          meanwhile), move the QP to error and exit
 *                          without cleaning up. Print {"rounds": children
 *                          that exited 0, "over": rounds in which more
 *                          receives completed than the queue holds}
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

#include "util.h"
#include "xiw_abi.h"

#define RECEIVES	16
#define CQ_SIZE		64

static char buf[64];

static volatile struct xiw_urqe *ring_entry(volatile uint8_t *ring, int i)
{
	return (volatile struct xiw_urqe *)(ring + XIW_URQ_RING_ENTRIES) + i;
}

/* Completions polled until the CQ stays empty for a while. */
static int drain(struct ibv_cq *cq, uint64_t *ids, int max)
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

struct setup {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
};

/* A CQ, an MR, a QP (on an SRQ if @srq), no receive posted. */
static void setup(struct setup *s, const char *name, bool srq)
{
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = RECEIVES, .max_sge = 1 },
	};
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = RECEIVES,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	s->ctx = open_dev(name);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = s->pd ? ibv_create_cq(s->ctx, CQ_SIZE, NULL, NULL, 0) : NULL;
	s->mr = s->cq ? ibv_reg_mr(s->pd, buf, sizeof(buf),
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!s->mr)
		die("PD, CQ, MR");
	s->srq = NULL;
	if (srq) {
		s->srq = ibv_create_srq(s->pd, &sattr);
		if (!s->srq)
			die("ibv_create_srq");
		init.srq = s->srq;
		init.cap.max_recv_wr = 0;
	}
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->pd, &init);
	if (!s->qp)
		die("ibv_create_qp");
}

static void post(struct setup *s, int n, uint64_t first)
{
	struct ibv_sge sge = { (uintptr_t)buf, sizeof(buf), s->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i;

	for (i = 0; i < n; i++) {
		wr.wr_id = first + i;
		if (s->srq ? ibv_post_srq_recv(s->srq, &wr, &bad) :
			     ibv_post_recv(s->qp, &wr, &bad))
			die("post receive");
	}
}

static int error_mode(const char *name)
{
	uint64_t ids[RECEIVES];
	struct setup s;
	bool in_order = true;
	int n, i;

	setup(&s, name, false);
	to_error(s.qp);
	post(&s, RECEIVES, 0);
	n = drain(s.cq, ids, RECEIVES);
	for (i = 0; i < n && i < RECEIVES; i++)
		in_order &= ids[i] == (uint64_t)i;
	printf("{\"flushed\": %d, \"in_order\": %s}\n", n,
	       in_order ? "true" : "false");
	return 0;
}

static int command_mode(const char *name)
{
	struct ibv_sge sge = { (uintptr_t)buf, sizeof(buf), 0 };
	struct ib_uverbs_recv_wr *wr;
	struct ib_uverbs_post_recv_resp resp;
	struct setup s;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_recv cmd;
		uint8_t wrs[sizeof(struct ib_uverbs_recv_wr) +
			    sizeof(struct ib_uverbs_sge)];
	} req = {
		.hdr = { .command = IB_USER_VERBS_CMD_POST_RECV,
			 .out_words = sizeof(resp) / 4 },
	};
	int with_wr = 0, doorbell = 0;

	setup(&s, name, false);
	sge.lkey = s.mr->lkey;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = s.qp->handle;
	req.cmd.wqe_size = sizeof(struct ib_uverbs_recv_wr);
	wr = (struct ib_uverbs_recv_wr *)req.wrs;
	wr->wr_id = 1;
	wr->num_sge = 1;
	memcpy(req.wrs + sizeof(*wr), &sge, sizeof(sge));
	req.cmd.wr_count = 1;
	req.cmd.sge_count = 1;
	req.hdr.in_words = sizeof(req) / 4;
	if (write(s.ctx->cmd_fd, &req, sizeof(req)) < 0)
		with_wr = errno;
	req.cmd.wr_count = 0;
	req.cmd.sge_count = 0;
	req.hdr.in_words = (sizeof(req.hdr) + sizeof(req.cmd)) / 4;
	if (write(s.ctx->cmd_fd, &req, sizeof(req.hdr) + sizeof(req.cmd)) < 0)
		doorbell = errno;
	printf("{\"with_wr\": %d, \"doorbell\": %d}\n", with_wr, doorbell);
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
		*ring_u32(ring, XIW_URQ_RING_HEAD) = x;
	}
	return NULL;
}

/* One child's round: exit status 0, or 3 if more than RECEIVES came. */
static void round_child(const char *name, int round)
{
	volatile uint8_t *ring;
	pthread_t writer;
	struct setup s;
	uint32_t head;
	size_t len;
	int i, n;

	setup(&s, name, round & 1);
	post(&s, RECEIVES, 0);
	ring = find_ring(&len, "no receive ring mapped (a kernel without "
			 "XIW_UCTX_RQ_RING?)");
	head = *ring_u32(ring, XIW_URQ_RING_HEAD);
	switch (round / 2 % 7) {
	case 0:		/* far ahead of the kernel's tail */
		*ring_u32(ring, XIW_URQ_RING_HEAD) = head + 1000;
		break;
	case 1:		/* behind it */
		*ring_u32(ring, XIW_URQ_RING_HEAD) = head - 1000;
		break;
	case 2:		/* half the index space away */
		*ring_u32(ring, XIW_URQ_RING_HEAD) = head + 0x80000000u;
		break;
	case 3:		/* every entry overwritten */
		memset((void *)ring_entry(ring, 0), 0xff,
		       len - XIW_URQ_RING_ENTRIES);
		break;
	case 4:		/* buffers of no MR, nowhere, too many */
		for (i = 0; i < RECEIVES; i++) {
			volatile struct xiw_urqe *e = ring_entry(ring, i);

			e->num_sge = i % 3 ? 1 : XIW_URQE_SGE + 1 + i;
			e->sge[0].lkey = 0x12345678u + i;
			e->sge[0].addr = i & 1 ? 0 : ~0ull;
			e->sge[0].length = ~0u;
		}
		break;
	case 5:		/* nothing mapped any more */
		if (munmap((void *)ring, len))
			die("munmap");
		break;
	case 6:		/* random heads while the kernel flushes */
		if (pthread_create(&writer, NULL, head_writer, (void *)ring))
			die("pthread_create");
		break;
	}
	to_error(s.qp);
	if (round / 2 % 7 == 6) {
		atomic_store(&stop, true);
		pthread_join(writer, NULL);
	}
	/* An SRQ's receives are not flushed with its QP. */
	n = drain(s.cq, NULL, 0);
	/* Exit holding everything: the kernel cleans up. */
	_exit(n > RECEIVES ? 3 : 0);
}

static int scribble(const char *name, int rounds)
{
	int r, status, ok = 0, over = 0;
	pid_t pid;

	for (r = 0; r < rounds; r++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			round_child(name, r);
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			ok++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
			over++;
		else
			fprintf(stderr, "round %d: status 0x%x\n", r, status);
	}
	printf("{\"rounds\": %d, \"over\": %d}\n", ok, over);
	return 0;
}

int main(int argc, char **argv)
{
	/* Completions through the poll command: one mapping, the RQ's. */
	setenv("XIW_CQ_RINGS", "0", 1);
	setenv("XIW_SQ_RINGS", "0", 1);
	if (argc == 3 && !strcmp(argv[1], "error"))
		return error_mode(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "command"))
		return command_mode(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "scribble"))
		return scribble(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: see the top of rq_ring.c\n");
	return 2;
}
