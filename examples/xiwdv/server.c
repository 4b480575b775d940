// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwdv-server ADDR PORT: offer a 1 MiB region of memory to every client
 * that connects, until killed, registered with the Flush rights and
 * hashed with CRC32c for Verify (xiwdv_reg_mr()). The clients' operations
 * are one-sided: a thread per connection only waits for its end. A Flush to persistence of it
 * succeeds where the administrator declared DRAM persistent (a
 * battery-backed machine: xiwctl policy set DEV dram-persistent on);
 * elsewhere the server's xiw refuses it. (A process cannot register a
 * file's shared mapping for writing on Linux 6.5 and later: long-term
 * writable pins of file pages are refused, EFAULT.)
 */
#include <pthread.h>
#include <sys/mman.h>

#include "common.h"

#define REGION (1u << 20)

/* A connection's thread: wait for the client to go, then let go. */
static void *serve(void *arg)
{
	struct rdma_cm_id *id = arg;
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(id->channel, &ev)) {
		int gone = ev->event == RDMA_CM_EVENT_DISCONNECTED;

		rdma_ack_cm_event(ev);
		if (gone)
			break;
	}
	rdma_destroy_ep(id);
	return NULL;
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP,
				       .ai_flags = RAI_PASSIVE }, *res;
	struct rdma_cm_id *listener, *id;
	struct ibv_pd *pd = NULL;
	struct ibv_mr *mr = NULL;
	struct region r;
	void *mem;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	mem = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		fail("mmap");
	if (rdma_getaddrinfo(argv[1], argv[2], &hints, &res) ||
	    rdma_create_ep(&listener, res, NULL, NULL) ||
	    rdma_listen(listener, 16))
		fail("listen");
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		struct ibv_qp_init_attr init = {
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};
		struct rdma_conn_param param = { .responder_resources = 16,
						 .initiator_depth = 16 };
		pthread_t thread;

		if (rdma_get_request(listener, &id))
			fail("rdma_get_request");
		/* One PD and MR for every connection: one region. */
		if (!mr) {
			pd = ibv_alloc_pd(id->verbs);
			mr = pd ? xiwdv_reg_mr(pd, mem, REGION,
					       IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_REMOTE_WRITE |
					       IBV_ACCESS_REMOTE_READ |
					       IBV_ACCESS_REMOTE_ATOMIC |
					       XIWDV_ACCESS_FLUSH_GLOBAL |
					       XIWDV_ACCESS_FLUSH_PERSISTENT,
					       XIWDV_VERIFY_CRC32C) : NULL;
			if (!mr)
				fail("registering the region (not an xiw "
				     "device?)");
			r = (struct region){ (uintptr_t)mem, mr->rkey, REGION };
		}
		if (rdma_create_qp(id, pd, &init))
			fail("rdma_create_qp");
		param.private_data = &r;
		param.private_data_len = sizeof(r);
		if (rdma_accept(id, &param) ||
		    pthread_create(&thread, NULL, serve, id)) {
			rdma_destroy_ep(id);
			continue;
		}
		pthread_detach(thread);
	}
}
