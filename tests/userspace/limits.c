// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiw_limits MODE DEV ...: how much of an xiw device, and of the memory
 * behind it, a process gets (test_userspace_verbs.py), through
 * libibverbs and xiw's provider.
 *
 *   charge DEV CQE MAX     create CQs of CQE entries until one fails,
 *                          MAX at most; destroy them; print {"created":
 *                          CQs made, "errno": the failure's errno, 0 if
 *                          all MAX were made}. Run in a memory cgroup: a
 *                          process's CQs are its memory. The program
 *                          allocates and prints nothing of its own
 *                          between the first CQ and the last destroy:
 *                          its own pages do not grow while the cgroup is
 *                          full.
 *
 * Exit status 2 for a failure of the program's own setup.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define CHARGE_MAX 256

static void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	exit(2);
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("ibv_open_device");
	ibv_free_device_list(list);
	return ctx;
}

static int charge(const char *name, int cqe, int max)
{
	static struct ibv_cq *cq[CHARGE_MAX];
	struct ibv_context *ctx = open_dev(name);
	int n, created, err = 0;

	if (max < 1 || max > CHARGE_MAX) {
		fprintf(stderr, "MAX: 1 to %d\n", CHARGE_MAX);
		return 2;
	}
	for (n = 0; n < max; n++) {
		cq[n] = ibv_create_cq(ctx, cqe, NULL, NULL, 0);
		if (!cq[n]) {
			err = errno;
			break;
		}
	}
	created = n;
	while (n-- > 0)
		if (ibv_destroy_cq(cq[n]))
			die("ibv_destroy_cq");
	printf("{\"created\": %d, \"errno\": %d}\n", created, err);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "charge"))
		return charge(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: see the top of limits.c\n");
	return 2;
}
