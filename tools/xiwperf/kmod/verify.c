// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf RDMA Verify (XIWPERF_OP_VERIFY): each operation is an RDMA Write
 * of its region (the operation's pattern), then an RDMA Verify of it. The
 * server sets the hash on its registrations; the client hashes what it
 * wrote itself and, with --check, compares what came back, and with
 * --expect sends a hash for the server to compare.
 *
 * RDMA Verify has no verb: xiw's own functions post it and choose an MR's
 * hash. They are taken with symbol_get() when a run needs them, so that
 * this module loads, and runs everything else, without xiw.
 */
#include <crypto/sha2.h>
#include <linux/crc32c.h>
#include <linux/module.h>
#include <linux/string.h>
#include <xiw/compat.h>

#include "client.h"
#include "server.h"

/**
 * xp_hash_len() - digest length of an enum xiwperf_hash.
 * @alg: the hash.
 *
 * Return: octets, 0 for an unknown value.
 */
u32 xp_hash_len(u32 alg)
{
	switch (alg) {
	case XIWPERF_HASH_CRC32C:
		return 4;
	case XIWPERF_HASH_SHA256:
		return SHA256_DIGEST_SIZE;
	default:
		return 0;
	}
}

/* The client's own hash, as include/xiw/verbs.h defines the algorithms. */
static void xp_hash(u32 alg, const void *buf, size_t len, u8 *out)
{
	if (alg == XIWPERF_HASH_CRC32C)
		put_unaligned_le32(~crc32c(~0U, buf, len), out);
	else
		sha256(buf, len, out);
}

/**
 * xp_verify_valid() - whether a run's Verify parameters go together.
 * @run: the run's parameters.
 *
 * A Verify run names a known hash, uses the server's registrations (they
 * carry it) unless its one fault, a bad key on the Verify, is injected;
 * without its Write (XIWPERF_F_NO_WRITE) it has no hash of its own to
 * check or send; another run has none of its fields.
 *
 * Return: true if they do.
 */
bool xp_verify_valid(const struct xiwperf_run *run)
{
	if (run->op != XIWPERF_OP_VERIFY)
		return !run->hash && !run->expect_len &&
		       !(run->flags & (XIWPERF_F_EXPECT | XIWPERF_F_NO_WRITE));
	if ((run->flags & XIWPERF_F_NO_WRITE) &&
	    ((run->flags & XIWPERF_F_CHECK) ||
	     ((run->flags & XIWPERF_F_EXPECT) && !run->expect_len)))
		return false;	/* no hash of the client's own */
	return xp_hash_len(run->hash) &&
	       (run->inject == XIWPERF_INJECT_STAG ||
		(!run->inject && (run->flags & XIWPERF_F_REMOTE_FRWR))) &&
	       run->expect_len <= XIWPERF_HASH_MAX &&
	       (!run->expect_len || (run->flags & XIWPERF_F_EXPECT));
}

/**
 * xp_verify_start() - a Verify run's setup: xiw's functions, and the fixed
 *	expected hash.
 * @cl: the run (xp_verify_stop() undoes this).
 * @run: its parameters (valid).
 */
void xp_verify_start(struct xp_client *cl, const struct xiwperf_run *run)
{
	cl->hash = run->hash;
	cl->expect_len = run->expect_len;
	memcpy(cl->expect, run->expect, run->expect_len);
	cl->post_verify = symbol_get(xiw_post_verify);
	cl->is_xiw = symbol_get(xiw_device);
}

/**
 * xp_verify_stop() - release what xp_verify_start() took.
 * @cl: the run.
 */
void xp_verify_stop(struct xp_client *cl)
{
	if (cl->post_verify)
		symbol_put(xiw_post_verify);
	if (cl->is_xiw)
		symbol_put(xiw_device);
	cl->post_verify = NULL;
	cl->is_xiw = NULL;
}

/**
 * xp_verify_supported() - can the local device post a Verify?
 * @cl: the run, started.
 * @dev: the device.
 *
 * Return: true for an xiw device (xiw loaded).
 */
bool xp_verify_supported(const struct xp_client *cl,
			 const struct ib_device *dev)
{
	return cl->post_verify && cl->is_xiw && cl->is_xiw(dev);
}

/**
 * xp_verify_wr() - the Verify of a lane's operation: its region, the
 *	lane's hash buffer, and the expected hash if --expect.
 * @lane: the lane (c->lock held), its region chosen and written with the
 *	operation's pattern (unless XIWPERF_F_NO_WRITE); its own hash of
 *	that is computed here.
 * @wr: filled in, all of it.
 * @sge: filled in: the hash buffer.
 */
void xp_verify_wr(struct xp_lane *lane, struct xiw_verify_wr *wr,
		  struct ib_sge *sge)
{
	struct xp_cconn *c = lane->c;
	struct xp_client *cl = c->cl;

	if (!(cl->flags & XIWPERF_F_NO_WRITE))
		xp_hash(cl->hash, lane->buf, cl->size, lane->hash);
	memset(wr, 0, sizeof(*wr));
	sge->addr = lane->hmap.dma;
	sge->length = XIWPERF_HASH_MAX;
	sge->lkey = c->q.pd->local_dma_lkey;
	wr->wr.wr_cqe = &lane->cqe[XP_WR_OP];
	wr->wr.opcode = XIW_WR_VERIFY;
	wr->wr.send_flags = IB_SEND_SIGNALED;
	wr->wr.sg_list = sge;
	wr->wr.num_sge = 1;
	wr->remote_addr = lane->raddr;
	wr->rkey = lane->rkey;
	wr->length = cl->size;
	if (cl->flags & XIWPERF_F_EXPECT) {
		wr->expect = cl->expect_len ? cl->expect : lane->hash;
		wr->expect_len = cl->expect_len ?: xp_hash_len(cl->hash);
	}
}

/**
 * xp_verify_op_done() - a lane's Verify completed successfully: with
 *	--check, the hash that came back must be the client's own.
 * @lane: the lane.
 * @wc: its completion; another opcode or length is a mismatch.
 */
void xp_verify_op_done(struct xp_lane *lane, const struct ib_wc *wc)
{
	struct xp_cconn *c = lane->c;
	u32 len = xp_hash_len(c->cl->hash);

	if (!(c->cl->flags & XIWPERF_F_CHECK))
		return;
	xp_sync_for_cpu(&lane->hmap, 0, XIWPERF_HASH_MAX);
	if (wc->opcode != XIW_WC_VERIFY || wc->byte_len != len ||
	    memcmp(lane->hbuf, lane->hash, len))
		xp_mismatch(c, lane->seq, 0);
}

/**
 * xp_sconn_setup_verify() - XIWPERF_OP_VERIFY at the server: set the run's
 *	hash on the connection's chunk registrations.
 * @c: the connection, its registrations allocated.
 * @alg: enum xiwperf_hash, from the hello.
 *
 * Return: 0, or -EOPNOTSUPP if the device is no xiw device (or xiw is
 * not loaded), -EINVAL for an unknown hash.
 */
int xp_sconn_setup_verify(struct xp_sconn *c, u32 alg)
{
	int (*set)(struct ib_mr *mr, enum xiw_verify_alg alg);
	u32 i;
	int ret = 0;

	BUILD_BUG_ON((int)XIWPERF_HASH_CRC32C != (int)XIW_VERIFY_CRC32C ||
		     (int)XIWPERF_HASH_SHA256 != (int)XIW_VERIFY_SHA256);
	if (!xp_hash_len(alg))
		return -EINVAL;
	set = symbol_get(xiw_mr_set_verify);
	if (!set)
		return -EOPNOTSUPP;
	for (i = 0; !ret && i < c->srv->nchunks; i++)
		ret = set(c->frmr[i].mr, alg);
	symbol_put(xiw_mr_set_verify);
	return ret;
}
