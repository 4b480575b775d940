// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwdv-flush ADDR PORT TEXT: write TEXT to the start of the server's
 * region and make it persistent there: an RDMA Write and an RDMA Flush
 * in one batch. The Flush completes once the server has put every octet
 * the Write placed into its persistence domain; a server that cannot make
 * its memory persistent refuses it, and the completion is an error.
 */
#include "common.h"

int main(int argc, char **argv)
{
	struct client c;
	struct ibv_mr *mr;
	size_t len;

	if (argc != 4) {
		fprintf(stderr, "usage: %s ADDR PORT TEXT\n", argv[0]);
		return 2;
	}
	len = strlen(argv[3]);
	client_connect(&c, argv[1], argv[2]);
	mr = ibv_reg_mr(c.pd, argv[3], len, IBV_ACCESS_LOCAL_WRITE);
	if (!mr || len > c.peer.len)
		fail("the text");

	ibv_wr_start(c.qpx);
	c.qpx->wr_id = 1;
	c.qpx->wr_flags = 0;	/* the Flush's completion covers the Write */
	ibv_wr_rdma_write(c.qpx, c.peer.rkey, c.peer.addr);
	ibv_wr_set_sge(c.qpx, mr->lkey, (uintptr_t)argv[3], len);
	c.qpx->wr_id = 2;
	c.qpx->wr_flags = IBV_SEND_SIGNALED;
	xiwdv_wr_flush(c.dv, c.peer.rkey, c.peer.addr, len,
		       XIWDV_FLUSH_PERSISTENT, XIWDV_FLUSH_RANGE);
	if (ibv_wr_complete(c.qpx))
		fail("posting");
	client_wait(&c, 1);
	printf("%zu octets written and persistent\n", len);
	rdma_disconnect(c.id);
	return 0;
}
