/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the userspace test programs share: failing their own setup (exit
 * status 2), opening a device by name, and RC QPs with receives posted.
 */
#ifndef XIW_TESTS_USERSPACE_UTIL_H
#define XIW_TESTS_USERSPACE_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

/* The program's own setup failed: exit status 2. */
static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	exit(2);
}

static inline struct ibv_context *open_dev(const char *name)
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

/*
 * The provider's one mapping of the device file (the caller keeps it the
 * only one): a ring. Its length in *@len; @what says which, in the
 * failure.
 */
static inline volatile uint8_t *find_ring(size_t *len, const char *what)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char line[512];

	if (!f)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			fclose(f);
			*len = hi - lo;
			return (volatile uint8_t *)lo;
		}
	fclose(f);
	errno = ENOENT;
	die(what);
	return NULL;
}

static inline volatile uint32_t *ring_u32(volatile uint8_t *ring, size_t off)
{
	return (volatile uint32_t *)(ring + off);
}

/* @n receives into @buf (@len octets, registered as @mr) on @qp. */
static inline void post_receives(struct ibv_qp *qp, struct ibv_mr *mr,
				 void *buf, uint32_t len, int n)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	while (n-- > 0)
		if (ibv_post_recv(qp, &wr, &bad))
			die("ibv_post_recv");
}

/*
 * An RC QP whose send and receive CQ is @cq, room for @max_recv receives,
 * with @receives of them posted (post_receives()).
 */
static inline struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
				   struct ibv_mr *mr, void *buf, uint32_t len,
				   uint32_t max_recv, int receives)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = max_recv,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!qp)
		die("ibv_create_qp");
	post_receives(qp, mr, buf, len, receives);
	return qp;
}

#endif
