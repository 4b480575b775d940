// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwdv-atomics ADDR PORT: the word at offset 4096 of the server's region
 * set with an Atomic Write (rdma-core's own ibv_wr_atomic_write()), then
 * RFC 7306's masked atomics on it: a Fetch and Add of one to each of its
 * four 16-bit fields (a field's carry stays in it), a Compare and Swap of
 * its low half where its high half matches, and one where it does not.
 * A Read brings the word back.
 */
#include "common.h"

int main(int argc, char **argv)
{
	const uint64_t start = 0xffff0000ffff0001ull;
	uint64_t out[4] = { 0 };
	struct client c;
	struct ibv_mr *mr;
	uint64_t word;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	client_connect(&c, argv[1], argv[2]);
	mr = ibv_reg_mr(c.pd, out, sizeof(out), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		fail("ibv_reg_mr");
	word = c.peer.addr + 4096;

	ibv_wr_start(c.qpx);
	c.qpx->wr_flags = IBV_SEND_SIGNALED;
	c.qpx->wr_id = 1;
	ibv_wr_atomic_write(c.qpx, c.peer.rkey, word, &start);
	c.qpx->wr_id = 2;
	xiwdv_wr_masked_fetch_add(c.dv, c.peer.rkey, word,
				  0x0001000100010001ull,
				  0x8000800080008000ull);
	ibv_wr_set_sge(c.qpx, mr->lkey, (uintptr_t)&out[0], 8);
	c.qpx->wr_id = 3;
	xiwdv_wr_masked_cmp_swap(c.dv, c.peer.rkey, word,
				 0x0000000100000000ull, 0xffffffff00000000ull,
				 0x00000000aaaaaaaaull, 0x00000000ffffffffull);
	ibv_wr_set_sge(c.qpx, mr->lkey, (uintptr_t)&out[1], 8);
	c.qpx->wr_id = 4;
	xiwdv_wr_masked_cmp_swap(c.dv, c.peer.rkey, word,
				 0x0000000200000000ull, 0xffffffff00000000ull,
				 0, ~0ull);
	ibv_wr_set_sge(c.qpx, mr->lkey, (uintptr_t)&out[2], 8);
	c.qpx->wr_id = 5;
	c.qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_rdma_read(c.qpx, c.peer.rkey, word);
	ibv_wr_set_sge(c.qpx, mr->lkey, (uintptr_t)&out[3], 8);
	if (ibv_wr_complete(c.qpx))
		fail("posting");
	client_wait(&c, 5);
	printf("fetch_add %016llx\ncmp_swap %016llx\nmissed %016llx\n"
	       "word %016llx\n", (unsigned long long)out[0],
	       (unsigned long long)out[1], (unsigned long long)out[2],
	       (unsigned long long)out[3]);
	rdma_disconnect(c.id);
	return 0;
}
