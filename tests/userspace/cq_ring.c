// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiw_cq_ring MODE ...: a process that treats its completion rings
 * (uapi/xiw_abi.h, XIW_UCTX_CQ_RING) as its own to spoil
 * (test_userspace_verbs.py). The ring of a CQ is the one mapping of the
 * device file that the provider makes (receive rings are off,
 * XIW_RQ_RINGS=0), found in /proc/self/maps.
 *
 *   scribble DEV ROUNDS    ROUNDS children, each with a CQ of eight
 *                          entries and a QP with sixteen receives on it:
 *                          the child spoils the ring (by round: a tail
 *                          ahead of the head, one far behind it, one
 *                          half the index space away, the head and every
 *                          entry overwritten, the ring unmapped, a thread
 *                          writing random tails meanwhile), moves the QP
 *                          to error so that the kernel completes the
 *                          sixteen there, and exits without cleaning up.
 *                          Print {"rounds": children that exited 0,
 *                          "cq_errors": IBV_EVENT_CQ_ERR seen,
 *                          "outside": octets of the ring's page past its
 *                          last entry found non-zero}
 *   command DEV            poll a ring CQ through the uverbs poll command
 *                          (a write() of it on the device file); print
 *                          {"poll_command": its errno, 0 if it worked}
 *
 * Exit status 2 for a failure of the program's own setup.
 */
#include <errno.h>
#include <fcntl.h>
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

#define CQ_SIZE		8	/* a power of two: the ring has 8 slots */
#define RECEIVES	16
#define RING_USED	(XIW_UCQ_RING_ENTRIES + CQ_SIZE * sizeof(struct xiw_ucqe))

static char buf[64];

static void nonblocking(int fd)
{
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		die("fcntl");
}

static atomic_bool stop;

/* Random tails, as fast as it can, until told to stop. */
static void *tail_writer(void *ring)
{
	uint32_t x = 2463534242u;

	while (!atomic_load(&stop)) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		*ring_u32(ring, XIW_UCQ_RING_TAIL) = x;
	}
	return NULL;
}

/*
 * One child's round. Exit status 0, or 3 + the number of the ring's
 * octets past its last entry found written; its CQ_ERR count goes to the
 * pipe.
 */
static void round_child(const char *name, int round, int out)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_context *ctx = open_dev(name);
	volatile uint8_t *ring;
	struct ibv_async_event ev;
	pthread_t writer;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int i, errors = 0, outside = 0;
	uint32_t head;
	size_t len;

	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, CQ_SIZE, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	if (!mr)
		die("PD, CQ, MR");
	qp = rc_qp(pd, cq, mr, buf, sizeof(buf), RECEIVES, RECEIVES);
	nonblocking(ctx->async_fd);
	ring = find_ring(&len, "no CQ ring mapped (a kernel without "
			 "XIW_UCTX_CQ_RING?)");
	head = *ring_u32(ring, XIW_UCQ_RING_HEAD);
	switch (round % 6) {
	case 0:		/* the tail ahead of the head */
		*ring_u32(ring, XIW_UCQ_RING_TAIL) = head + 1;
		break;
	case 1:		/* far behind it */
		*ring_u32(ring, XIW_UCQ_RING_TAIL) = head - 1000;
		break;
	case 2:		/* half the index space away */
		*ring_u32(ring, XIW_UCQ_RING_TAIL) = head + 0x80000000u;
		break;
	case 3:		/* the head and every entry overwritten */
		memset((void *)ring, 0xff, RING_USED);
		*ring_u32(ring, XIW_UCQ_RING_TAIL) = 0;
		break;
	case 4:		/* nothing mapped any more */
		if (munmap((void *)ring, len))
			die("munmap");
		ring = NULL;
		break;
	case 5:		/* random tails while the kernel completes */
		if (pthread_create(&writer, NULL, tail_writer, (void *)ring))
			die("pthread_create");
		break;
	}
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE))
		die("ibv_modify_qp");
	if (round % 6 == 5) {
		atomic_store(&stop, true);
		pthread_join(writer, NULL);
	}
	while (!ibv_get_async_event(ctx, &ev)) {
		errors += ev.event_type == IBV_EVENT_CQ_ERR;
		ibv_ack_async_event(&ev);
	}
	if (ring)
		for (i = RING_USED; i < (int)len; i++)
			outside += ring[i] != 0;
	if (write(out, &errors, sizeof(errors)) != sizeof(errors))
		die("write");
	/* Exit holding everything: the kernel cleans up. */
	_exit(outside ? 3 + (outside > 100 ? 100 : outside) : 0);
}

static int scribble(const char *name, int rounds)
{
	int fds[2], r, status, ok = 0, errors = 0, outside = 0, e;
	pid_t pid;

	if (pipe(fds))
		die("pipe");
	for (r = 0; r < rounds; r++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			close(fds[0]);
			round_child(name, r, fds[1]);
		}
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			ok++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) >= 3)
			outside += WEXITSTATUS(status) - 3;
		else
			fprintf(stderr, "round %d: status 0x%x\n", r, status);
		if (read(fds[0], &e, sizeof(e)) == sizeof(e))
			errors += e;
	}
	printf("{\"rounds\": %d, \"cq_errors\": %d, \"outside\": %d}\n", ok,
	       errors, outside);
	return 0;
}

static int command(const char *name)
{
	struct ibv_context *ctx = open_dev(name);
	struct ibv_cq *cq = ibv_create_cq(ctx, CQ_SIZE, NULL, NULL, 0);
	struct ib_uverbs_poll_cq_resp resp[2];
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_poll_cq cmd;
	} req = {
		.hdr = { .command = IB_USER_VERBS_CMD_POLL_CQ,
			 .in_words = sizeof(req) / 4,
			 .out_words = sizeof(resp) / 4 },
	};
	int err = 0;

	if (!cq)
		die("ibv_create_cq");
	req.cmd.response = (uintptr_t)resp;
	req.cmd.cq_handle = cq->handle;
	req.cmd.ne = 1;
	if (write(ctx->cmd_fd, &req, sizeof(req)) < 0)
		err = errno;
	printf("{\"poll_command\": %d}\n", err);
	return 0;
}

int main(int argc, char **argv)
{
	/* Receives through the post_recv command: one mapping, the CQ's. */
	setenv("XIW_RQ_RINGS", "0", 1);
	setenv("XIW_SQ_RINGS", "0", 1);
	if (argc == 4 && !strcmp(argv[1], "scribble"))
		return scribble(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "command"))
		return command(argv[2]);
	fprintf(stderr, "usage: see the top of cq_ring.c\n");
	return 2;
}
