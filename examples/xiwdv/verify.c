// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwdv-verify ADDR PORT TEXT: write TEXT to the start of the server's
 * region, then have the server hash it (RDMA Verify; the server's region
 * is hashed with CRC32c) and compare with the hash computed here. A
 * mismatch would end the connection with the Verify in error; a match
 * completes it, the hash returned.
 */
#include "common.h"

/* CRC32c as a Verify returns it: four octets, least significant first. */
static void crc32c(const void *p, size_t n, uint8_t out[4])
{
	const uint8_t *b = p;
	uint32_t c = ~0u;
	int k;

	while (n--) {
		c ^= *b++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
	}
	c = ~c;
	for (k = 0; k < 4; k++)
		out[k] = c >> (8 * k);
}

int main(int argc, char **argv)
{
	uint8_t want[4], got[XIWDV_VERIFY_HASH_MAX] = { 0 };
	struct ibv_mr *text, *hash;
	struct client c;
	size_t len;

	if (argc != 4) {
		fprintf(stderr, "usage: %s ADDR PORT TEXT\n", argv[0]);
		return 2;
	}
	len = strlen(argv[3]);
	crc32c(argv[3], len, want);
	client_connect(&c, argv[1], argv[2]);
	text = ibv_reg_mr(c.pd, argv[3], len, IBV_ACCESS_LOCAL_WRITE);
	hash = ibv_reg_mr(c.pd, got, sizeof(got), IBV_ACCESS_LOCAL_WRITE);
	if (!text || !hash || len > c.peer.len)
		fail("the text");

	ibv_wr_start(c.qpx);
	c.qpx->wr_id = 1;
	c.qpx->wr_flags = 0;
	ibv_wr_rdma_write(c.qpx, c.peer.rkey, c.peer.addr);
	ibv_wr_set_sge(c.qpx, text->lkey, (uintptr_t)argv[3], len);
	c.qpx->wr_id = 2;
	c.qpx->wr_flags = IBV_SEND_SIGNALED;
	xiwdv_wr_verify(c.dv, c.peer.rkey, c.peer.addr, len, want,
			sizeof(want));
	ibv_wr_set_sge(c.qpx, hash->lkey, (uintptr_t)got, sizeof(got));
	if (ibv_wr_complete(c.qpx))
		fail("posting");
	client_wait(&c, 1);
	printf("verified: crc32c %02x%02x%02x%02x\n", got[3], got[2], got[1],
	       got[0]);
	rdma_disconnect(c.id);
	return 0;
}
