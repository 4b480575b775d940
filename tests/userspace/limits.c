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
 *   exhaust DEV            create CQs of one entry until one fails, no more
 *                          than the max_cq ibv_query_device() reports and
 *                          one; destroy the last and create two more; close
 *                          the device, which destroys the rest, open it
 *                          again and create one; print {"max_cq": what the
 *                          device reports, "created": the CQs made before
 *                          the first failure, "errno": its errno (0 if
 *                          none failed), "again" and "beyond": the errno of
 *                          each of the two (0 if made), "reopened": of the
 *                          one after the close, "seconds": how long the
 *                          creations up to the failure took}
 *
 * Exit status 2 for a failure of the program's own setup.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "util.h"

#define CHARGE_MAX 256

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

/* errno of the creation of a CQ of one entry, 0 if made (and kept). */
static int one_cq(struct ibv_context *ctx, struct ibv_cq **cq)
{
	*cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	return *cq ? 0 : errno;
}

static int exhaust(const char *name)
{
	struct ibv_context *ctx = open_dev(name);
	int n, err = 0, again = -1, beyond = -1, reopened;
	struct ibv_device_attr attr;
	struct timespec t0, t1;
	struct ibv_cq **cq, *more;

	if (ibv_query_device(ctx, &attr))
		die("ibv_query_device");
	cq = calloc(attr.max_cq + 1, sizeof(*cq));
	if (!cq)
		die("calloc");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (n = 0; n <= attr.max_cq && !err; n++)
		err = one_cq(ctx, &cq[n]);
	if (err)
		n--;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (n > 0) {
		if (ibv_destroy_cq(cq[n - 1]))
			die("ibv_destroy_cq");
		again = one_cq(ctx, &cq[n - 1]);
		beyond = one_cq(ctx, &more);
	}
	/* The kernel destroys what the context still holds. */
	if (ibv_close_device(ctx))
		die("ibv_close_device");
	reopened = one_cq(open_dev(name), &more);
	printf("{\"max_cq\": %d, \"created\": %d, \"errno\": %d, ",
	       attr.max_cq, n, err);
	printf("\"again\": %d, \"beyond\": %d, \"reopened\": %d, ",
	       again, beyond, reopened);
	printf("\"seconds\": %.1f}\n",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "charge"))
		return charge(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "exhaust"))
		return exhaust(argv[2]);
	fprintf(stderr, "usage: see the top of limits.c\n");
	return 2;
}
