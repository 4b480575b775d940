// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiw_uverbs_abuse DEV ROUNDS: a process that asks an xiw device for what
 * it must refuse, through libibverbs and xiw's provider, and then leaves
 * without cleaning up, ROUNDS times (test_userspace_verbs.py).
 *
 * Each round, in a child process: bad registrations (unmapped memory, an
 * empty range, remote write without local write) and bad work requests on
 * a QP of its own (inline data at an unmapped address, inline data longer
 * than the QP takes, opcodes and send flags outside the user ABI, more
 * SGEs than the device has), each of which must fail with the expected
 * errno and queue nothing; then the child exits holding its PD, MR, CQ
 * and QP. The parent prints one JSON line: the checks done and those that
 * went wrong (each with what was expected and got). Exit status 1 if any
 * went wrong. Sends go through the post_send command (XIW_SQ_RINGS=0):
 * it is the kernel's copy of a work request that is abused here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static int checks, wrong;

static void expect(const char *what, int want, int got)
{
	checks++;
	if (want == got)
		return;
	wrong++;
	fprintf(stderr, "%s: expected %s, got %s\n", what, strerror(want),
		got ? strerror(got) : "success");
}

/* errno of a registration, 0 if it succeeded (and is kept: leaked). */
static int reg(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, access);

	return mr ? 0 : errno;
}

static int post(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;

	return ibv_post_send(qp, wr, &bad);
}

static void one_round(struct ibv_context *ctx)
{
	static char buf[8192];
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};
	struct ibv_sge sge[8];
	struct ibv_send_wr wr;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	void *hole;
	int i;

	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 32, NULL, NULL, 0) : NULL;
	if (!cq) {
		expect("PD and CQ", 0, errno ? errno : EIO);
		return;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ibv_create_qp(pd, &init);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!qp || !mr) {
		expect("QP and MR", 0, errno ? errno : EIO);
		return;
	}
	/* An address range nothing is mapped at. */
	hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(hole, 4096);

	expect("reg_mr of unmapped memory", EFAULT,
	       reg(pd, hole, 4096, IBV_ACCESS_LOCAL_WRITE));
	expect("reg_mr of nothing", EINVAL,
	       reg(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE));
	expect("reg_mr remote write without local write", EINVAL,
	       reg(pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE));

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_INLINE;
	sge[0] = (struct ibv_sge){ .addr = (uintptr_t)hole, .length = 16 };
	expect("inline data at an unmapped address", EFAULT, post(qp, &wr));
	sge[0] = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = 4096 };
	expect("inline data longer than 256 octets", EINVAL, post(qp, &wr));
	sge[0] = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = 0xffffffff };
	sge[1] = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = 2 };
	wr.num_sge = 2;
	expect("inline lengths that wrap", EINVAL, post(qp, &wr));

	wr.send_flags = 1u << 20;
	wr.num_sge = 1;
	sge[0] = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = 8,
				   .lkey = mr->lkey };
	expect("a send flag outside the ABI", EINVAL, post(qp, &wr));
	wr.send_flags = 0;
	wr.opcode = IBV_WR_LOCAL_INV;
	expect("local invalidate from userspace", EINVAL, post(qp, &wr));
	wr.opcode = IBV_WR_BIND_MW;
	expect("a memory window bind", EINVAL, post(qp, &wr));
	wr.opcode = IBV_WR_SEND;
	for (i = 0; i < 8; i++)
		sge[i] = sge[0];
	wr.num_sge = 8;
	expect("more SGEs than the device has", EINVAL, post(qp, &wr));

	/* Exit holding everything: the kernel must clean up. */
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int rounds, n, i, status;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV ROUNDS\n", argv[0]);
		return 2;
	}
	/*
	 * The kernel's copy of a posted work request is what is tested: with
	 * a send ring the provider itself would read the unmapped inline
	 * data (and fault), so sends go through the post_send command.
	 */
	setenv("XIW_SQ_RINGS", "0", 1);
	rounds = atoi(argv[2]);
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[1]);
		return 2;
	}
	ibv_close_device(ctx);
	for (i = 0; i < rounds; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			ctx = NULL;
			for (n = 0; list[n] && !ctx; n++)
				if (!strcmp(ibv_get_device_name(list[n]),
					    argv[1]))
					ctx = ibv_open_device(list[n]);
			if (!ctx)
				_exit(3);
			one_round(ctx);
			_exit(wrong ? 1 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			wrong++;
			if (wrong < 5)
				fprintf(stderr, "round %d: child status %#x\n",
					i, status);
		}
	}
	printf("{\"rounds\": %d, \"wrong_rounds\": %d}\n", rounds, wrong);
	return wrong ? 1 : 0;
}
