// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit engine: frames work requests, Read Responses and Terminates into
 * FPDUs and hands them to TCP in batches, without blocking. One work item
 * per QP.
 *
 * Batches. A pass frames FPDUs into one bio_vec array until it holds
 * XIW_TX_BATCH_BYTES or runs out of vectors, staging pages or work, and
 * gives the whole batch to TCP in one MSG_SPLICE_PAGES sendmsg (MSG_MORE
 * when the next FPDU is already waiting). A send that would block leaves
 * the rest of the batch where it is and resumes on write space.
 *
 * Zero copy. Payload of a message larger than XIW_TX_COPY_MAX is spliced:
 * TCP takes references on the consumer's pages (found from the DMA MR's
 * kernel virtual addresses) and reads them again for a retransmission.
 * Memory that cannot be spliced (slab objects, addresses outside the linear
 * map and vmalloc space), small messages and inline data are copied into
 * per-QP staging pages, which also hold every FPDU's header, pad and CRC.
 * A staging page is written only while TCP holds no reference on it, so a
 * retransmission never sees a header of a later FPDU; a page still
 * referenced when the ring comes round to it is given up to TCP and
 * replaced. The CRC is computed in the same pass that builds the FPDU:
 * over the source of spliced payload, over each staged chunk right after
 * it is copied.
 *
 * Completion. A Send or Write whose payload was copied completes once its
 * last FPDU is in TCP's hands. One with spliced payload completes only
 * when TCP has acknowledged its last octet: until then its buffers may be
 * read again. Its end is recorded as a TCP sequence number (write_seq
 * after the batch, less what follows it in the batch) and compared with
 * snd_una whenever the QP looks: on write space, on data ready (ACKs ride
 * on data), on every transmit pass, and once more before a flush. While
 * such a WQE waits, SOCK_NOSPACE stays set on the socket, so that
 * tcp_check_space() calls the write space callback for every ACK that
 * TCP processes (it runs after each tcp_ack(), from tcp_data_snd_check());
 * the bit is set before snd_una is read again, against tcp_check_space()'s
 * barrier before it tests the bit, so an ACK is either seen here or calls
 * back. Completions still go out in posting order (xiw_qp_sq_complete()).
 *
 * Over a local path (veth, loopback) the receiver's skbs are the sender's
 * pages, and its TCP may acknowledge before its ULP read them: a consumer
 * that rewrites a spliced buffer right after the completion can race with
 * that read. Staged headers and copies cannot: their pages are written
 * only once no skb refers to them.
 *
 * Segments. An untagged FPDU's header (the length, DDP's 18 octets and,
 * for a request or response that is all header, the rest of it) reaches
 * the peer inside one TCP segment: stock siw of 6.12.95 copies a header
 * split after its 16th octet with the wrong length, past its header
 * buffer, and fails the stream or worse (Documentation/conformance.md).
 * TCP cuts an skb into segments at multiples of the MSS from its start,
 * and starts a new skb when one is full (a multiple of the MSS) or out of
 * fragment slots, or after one sent with MSG_EOR. So the engine counts
 * octets and pieces from the last point where it made TCP start an skb (a
 * "cut": MSG_EOR on what goes before it), and cuts again before an
 * untagged FPDU whose header would cross a multiple of the MSS, or that
 * TCP might put after an skb out of slots. A batch begun with an untagged
 * FPDU is cut from what went before: TCP may or may not append it to an
 * skb it has not sent yet. Tagged FPDUs (16-octet headers, which siw
 * parses whole) never need a cut, so bulk Writes and Read Responses still
 * go in one sendmsg per batch. The segment_headers parameter turns this
 * off for the connections that start after.
 *
 * Read Responses are spliced too but need no acknowledgment: the source
 * MR is referenced until the FPDUs are in TCP's hands, TCP's page
 * references keep the pages alive after that, and the responder may not
 * change the source before the requester's Read completed, by which time
 * every octet a retransmission could carry has reached the requester.
 */
#include <linux/bvec.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "cm.h"
#include "mpa.h"
#include "obj.h"
#include "hash.h"
#include "persist.h"
#include "trace.h"

/*
 * Per-CPU (bound), high priority: a QP's pass runs on the CPU that kicked
 * it, which is the poster's for new work and the socket's receive CPU for
 * what an arriving ACK, Read Request or credit releases. An unbound worker
 * woke another, often idle, CPU for every small message: 3 to 4 times the
 * latency of a bound one (Documentation/performance.md).
 */
static struct workqueue_struct *xiw_tx_wq;

/* Batches sent per pass before yielding the worker to other QPs. */
#define XIW_TX_BUDGET		16

/* Octets per batch (one sendmsg), unless one FPDU alone is larger. */
#define XIW_TX_BATCH_BYTES	(64 * 1024)

/*
 * Messages up to this size are copied: copying a page costs about what
 * splicing it does (page lookup, reference, frag slot), and a copied
 * message completes when it is queued instead of one round trip later,
 * which is what a small message's latency is made of.
 */
#define XIW_TX_COPY_MAX		4096

/* Pad and CRC. */
#define XIW_TX_TRAILER_MAX	(3 + XIW_MPA_CRC_SIZE)

/**
 * xiw_tx_kick() - make the transmit engine look at the QP
 * @qp: the QP
 *
 * Callable from any context.
 */
void xiw_tx_kick(struct xiw_qp *qp)
{
	queue_work(xiw_tx_wq, &qp->tx_work);
}

/* What framing the next FPDU did. */
enum xiw_tx_next {
	XIW_TX_FRAMED,		/* one more FPDU in the batch */
	XIW_TX_IDLE,		/* nothing to send now */
	XIW_TX_FULL,		/* the next FPDU waits for the next batch */
	XIW_TX_LOCAL_ERR,	/* a WQE failed its checks; the QP fails */
	XIW_TX_NOMEM,		/* no staging page */
};

/* -- the batch ------------------------------------------------------------ */

static void xiw_tx_bvec(struct xiw_qp *qp, struct page *page, u32 off,
			u32 len)
{
	struct bio_vec *bv = qp->tx_nbvec ? &qp->tx_bvec[qp->tx_nbvec - 1] :
					    NULL;

	if (bv && bv->bv_page == page && bv->bv_offset + bv->bv_len == off)
		bv->bv_len += len;
	else
		bvec_set_page(&qp->tx_bvec[qp->tx_nbvec++], page, len, off);
	qp->tx_len += len;
}

/*
 * Move to the next staging page. A page TCP still references (its FPDUs
 * are unacknowledged, or still queued at a local receiver) is left to
 * TCP and replaced; the batch being built never wraps onto itself (see
 * xiw_tx_room()).
 */
static int xiw_tx_stage_next(struct xiw_qp *qp)
{
	u8 next = qp->tx_stage_cur;
	struct page *page;

	if (qp->tx_stage[next])
		next = (next + 1) % XIW_TX_STAGE_PAGES;
	page = qp->tx_stage[next];
	if (page && page_ref_count(page) != 1) {
		put_page(page);
		page = NULL;
	}
	if (!page) {
		page = alloc_page(GFP_NOIO | __GFP_NOWARN);
		qp->tx_stage[next] = page;
		if (!page)
			return -ENOMEM;
	}
	qp->tx_stage_cur = next;
	qp->tx_stage_off = 0;
	qp->tx_stage_used++;
	return 0;
}

/* @len contiguous staged octets appended to the batch, or NULL. */
static u8 *xiw_tx_stage(struct xiw_qp *qp, u32 len)
{
	struct page *page = qp->tx_stage[qp->tx_stage_cur];
	u32 off = qp->tx_stage_off;

	if (!page || PAGE_SIZE - off < len) {
		if (xiw_tx_stage_next(qp))
			return NULL;
		page = qp->tx_stage[qp->tx_stage_cur];
		off = 0;
	}
	qp->tx_stage_off = off + len;
	xiw_tx_bvec(qp, page, off, len);
	return (u8 *)page_address(page) + off;
}

/*
 * Does an FPDU carrying @payload octets from up to @nsge buffers fit the
 * batch? An empty batch always takes one: the limits leave room for the
 * largest FPDU.
 */
static bool xiw_tx_room(struct xiw_qp *qp, u32 payload, u32 nsge)
{
	u32 pages = payload / PAGE_SIZE;
	u32 bytes = XIW_TX_HDR_MAX + payload + XIW_TX_TRAILER_MAX;
	/* Each marker is a staged piece and may split a spliced one. */
	u32 markers = qp->tx_markers ?
		      bytes / (XIW_MPA_MARKER_PERIOD - XIW_MPA_MARKER_SIZE) + 2 :
		      0;

	if (!qp->tx_len)
		return true;
	return qp->tx_len + bytes + markers * XIW_MPA_MARKER_SIZE <=
	       XIW_TX_BATCH_BYTES &&
	       qp->tx_nbvec + 3 + pages + 2 * nsge + 2 * markers <=
	       XIW_TX_NBVEC &&
	       qp->tx_stage_used + 3 + pages < XIW_TX_STAGE_PAGES &&
	       qp->tx_nmr < XIW_TX_MR_MAX && qp->tx_ncut < XIW_TX_NCUT;
}

static void xiw_tx_reset(struct xiw_qp *qp)
{
	int i;

	for (i = 0; i < qp->tx_nmr; i++)
		xiw_mr_put(qp->tx_mr[i]);
	qp->tx_nmr = 0;
	qp->tx_nbvec = 0;
	qp->tx_len = 0;
	qp->tx_off = 0;
	qp->tx_ncut = 0;
	qp->tx_more = false;
	qp->tx_undo.open = false;
}

/* -- framing -------------------------------------------------------------- */

/* The page behind kernel address @p, if TCP may hold on to it. */
static struct page *xiw_tx_page(const void *p)
{
	struct page *page;

	if (is_vmalloc_addr(p))
		page = vmalloc_to_page(p);
	else if (virt_addr_valid(p))
		page = virt_to_page(p);
	else
		return NULL;
	return page && sendpage_ok(page) ? page : NULL;
}

/* @n octets of the current FPDU are in the batch: markers move on. */
static void xiw_tx_count(struct xiw_qp *qp, u32 n)
{
	if (qp->tx_markers) {
		qp->tx_mark_off = (qp->tx_mark_off + n) % XIW_MPA_MARKER_PERIOD;
		qp->tx_fpdu_off += n;
	}
}

/* A marker is due here: stage it, pointing at its FPDU's start. */
static int xiw_tx_marker(struct xiw_qp *qp, u32 *crc)
{
	u8 *m = xiw_tx_stage(qp, XIW_MPA_MARKER_SIZE);

	if (!m)
		return -ENOMEM;
	xiw_mpa_marker_build(qp->tx_fpdu_off, m);
	if (qp->crc)
		*crc = xiw_mpa_crc_update(*crc, m, XIW_MPA_MARKER_SIZE);
	xiw_tx_count(qp, XIW_MPA_MARKER_SIZE);
	return 0;
}

/*
 * Append @len octets at kernel address @p to the FPDU being built:
 * spliced if @zcopy and the memory allows it, else copied to staging; each
 * piece CRC'd while it is hot, markers inserted where they are due.
 * Return: 0 or -ENOMEM.
 */
static int xiw_tx_put(struct xiw_qp *qp, const u8 *p, u32 len, bool zcopy,
		      u32 *crc)
{
	while (len) {
		u32 take = min_t(u32, len, PAGE_SIZE - offset_in_page(p));
		struct page *page;
		u8 *dst;

		if (qp->tx_markers) {
			if (!qp->tx_mark_off && xiw_tx_marker(qp, crc))
				return -ENOMEM;
			take = min(take, xiw_mpa_to_marker(qp->tx_mark_off));
		}
		page = zcopy ? xiw_tx_page(p) : NULL;
		if (page) {
			xiw_tx_bvec(qp, page, offset_in_page(p), take);
			if (qp->crc)
				*crc = xiw_mpa_crc_update(*crc, p, take);
			qp->tx_spliced = true;
		} else {
			u32 room = PAGE_SIZE - qp->tx_stage_off;

			/* Fill the staging page before starting the next. */
			if (qp->tx_stage[qp->tx_stage_cur] && room)
				take = min(take, room);
			dst = xiw_tx_stage(qp, take);
			if (!dst)
				return -ENOMEM;
			memcpy(dst, p, take);
			if (qp->crc)
				*crc = xiw_mpa_crc_update(*crc, dst, take);
		}
		xiw_tx_count(qp, take);
		p += take;
		len -= take;
	}
	return 0;
}

/*
 * Start an FPDU: its header is written into qp->tx_hdr (length field
 * filled in here), then xiw_tx_hdr() puts it into the batch.
 */
static u8 *xiw_tx_begin(struct xiw_qp *qp, u32 ulpdu_len)
{
	struct xiw_tx_undo *u = &qp->tx_undo;

	*u = (struct xiw_tx_undo){
		.open = true,
		.spliced = qp->tx_spliced,
		.nbvec = qp->tx_nbvec,
		.last_len = qp->tx_nbvec ?
			    qp->tx_bvec[qp->tx_nbvec - 1].bv_len : 0,
		.len = qp->tx_len,
		.stage_cur = qp->tx_stage_cur,
		.stage_used = qp->tx_stage_used,
		.stage_off = qp->tx_stage_off,
		.mark_off = qp->tx_mark_off,
	};
	put_unaligned_be16(ulpdu_len, qp->tx_hdr);
	qp->tx_fpdu_off = 0;
	return qp->tx_hdr;
}

/*
 * Framing the FPDU begun last failed (its source was invalidated under
 * it, or no staging page): take what of it is in the batch back out, so
 * that the Terminate follows whole FPDUs only, never a torn one (a peer
 * would see a bad CRC or a stream ending inside an FPDU). Staging pages
 * moved to stay in the ring for later use.
 */
static void xiw_tx_unwind(struct xiw_qp *qp)
{
	struct xiw_tx_undo *u = &qp->tx_undo;

	if (!u->open)
		return;
	qp->tx_spliced = u->spliced;
	qp->tx_nbvec = u->nbvec;
	if (u->nbvec)
		qp->tx_bvec[u->nbvec - 1].bv_len = u->last_len;
	qp->tx_len = u->len;
	qp->tx_stage_cur = u->stage_cur;
	qp->tx_stage_used = u->stage_used;
	qp->tx_stage_off = u->stage_off;
	qp->tx_mark_off = u->mark_off;
	u->open = false;
}

/*
 * The header is written: into the batch, starting the FPDU's CRC. Without
 * markers, in one piece of one staging page: a send that stops short, or
 * an skb out of fragment slots, ends between pieces, never inside this
 * one (see "Segments" above).
 */
static int xiw_tx_hdr(struct xiw_qp *qp, u32 hdr_len, u32 *crc)
{
	u32 len = XIW_MPA_LEN_SIZE + hdr_len;
	u8 *dst;

	*crc = xiw_mpa_crc_init();
	qp->tx_hdr_len = len;
	if (qp->tx_markers)
		return xiw_tx_put(qp, qp->tx_hdr, len, false, crc);
	dst = xiw_tx_stage(qp, len);
	if (!dst)
		return -ENOMEM;
	memcpy(dst, qp->tx_hdr, len);
	if (qp->crc)
		*crc = xiw_mpa_crc_update(*crc, dst, len);
	return 0;
}

/*
 * The FPDU sealed last spans batch octets @start to tx_len: cut before it
 * if TCP might split its header over two segments (see "Segments" above).
 */
static void xiw_tx_segment(struct xiw_qp *qp, u32 start, bool tagged)
{
	/* Pieces it added, one more if it shares its first with the last. */
	u32 pieces = qp->tx_nbvec - qp->tx_undo.nbvec + 1;

	if (!qp->tx_seg_align)
		return;
	if (!start)
		qp->tx_seg_known = false;	/* a new skb, or not */
	if (!tagged &&
	    (!qp->tx_seg_known ||
	     qp->tx_seg_pos % qp->tx_seg_mss + qp->tx_hdr_len >
	     qp->tx_seg_mss || qp->tx_seg_pieces + 1 > MAX_SKB_FRAGS)) {
		if (start)
			qp->tx_cut[qp->tx_ncut++] = start;
		else
			/* What is before it is already in the socket. */
			xiw_sock_end_segment(READ_ONCE(qp->sock));
		qp->tx_seg_known = true;
		qp->tx_seg_pos = 0;
		qp->tx_seg_pieces = 0;
	}
	qp->tx_seg_pos += qp->tx_len - start;
	qp->tx_seg_pieces += pieces;
}

/* Close the FPDU: pad, a marker due before the CRC field, the CRC. */
static int xiw_tx_seal(struct xiw_qp *qp, u32 ulpdu_len, u32 crc)
{
	static const u8 zero[3];
	const struct xiw_ddp_ctrl *ctrl;
	u32 pad = xiw_mpa_pad(ulpdu_len);
	u8 op;
	__le32 c = 0;
	u32 unused;

	if (pad && xiw_tx_put(qp, zero, pad, false, &crc))
		return -ENOMEM;
	if (qp->tx_markers && !qp->tx_mark_off && xiw_tx_marker(qp, &crc))
		return -ENOMEM;
	if (qp->crc)
		c = xiw_mpa_crc_final(crc);
	if (xiw_tx_put(qp, (const u8 *)&c, sizeof(c), false, &unused))
		return -ENOMEM;
	qp->tx_undo.open = false;
	xiw_stat_add(qp->xdev->stats, XIW_STAT_TX_FPDUS, 1);
	xiw_stat_add(qp->xdev->stats, XIW_STAT_TX_BYTES, ulpdu_len);
	/* Every FPDU's header is framed in tx_hdr (xiw_tx_begin()). */
	ctrl = (const struct xiw_ddp_ctrl *)(qp->tx_hdr + XIW_MPA_LEN_SIZE);
	xiw_tx_segment(qp, qp->tx_undo.len, ctrl->ddp & XIW_DDP_TAGGED);
	op = ctrl->rdmap & XIW_RDMAP_OPCODE_MASK;
	if ((ctrl->ddp & XIW_DDP_LAST) && !WARN_ON_ONCE(op >= XIW_STAT_MSG_OPS))
		xiw_stat_add(qp->xdev->stats, XIW_STAT_TX_MSGS + op, 1);
	return 0;
}

static void xiw_tx_ctrl(struct xiw_ddp_ctrl *c, bool tagged, bool last, u8 op)
{
	c->ddp = (tagged ? XIW_DDP_TAGGED : 0) | (last ? XIW_DDP_LAST : 0) |
		 XIW_DDP_VERSION;
	c->rdmap = XIW_RDMAP_VERSION << XIW_RDMAP_VERSION_SHIFT | op;
}

/*
 * Append @len octets at tagged offset @to of @mr, found by @stag.
 * Return: 0, -ENOMEM, or -EACCES if the STag is no longer valid.
 */
static int xiw_tx_put_mr(struct xiw_qp *qp, struct xiw_mr *mr, u32 stag,
			 u64 to, u32 len, bool zcopy, u32 *crc)
{
	while (len) {
		u32 take;
		const u8 *p = xiw_mr_source(mr, stag, to, len, &take);
		int err;

		if (!p)
			return -EACCES;
		err = xiw_tx_put(qp, p, take, zcopy, crc);
		if (err)
			return err;
		to += take;
		len -= take;
	}
	return 0;
}

/*
 * Payload for @len octets of the WQE's buffers from message offset @off.
 * Local buffers were validated when the WQE started; each is looked up
 * again, as the consumer may have invalidated it since.
 */
static int xiw_tx_payload(struct xiw_qp *qp, struct xiw_wqe *wqe, u32 off,
			  u32 len, bool zcopy, u32 *crc)
{
	struct xiw_pd *pd = to_xiw_pd(qp->ibqp.pd);
	int i, err;

	if (wqe->flags & XIW_WQE_INLINE)
		return xiw_tx_put(qp, wqe->inline_data + off, len, false, crc);
	for (i = 0; i < wqe->num_sge && len; i++) {
		struct ib_sge *sge = &wqe->sge[i];
		struct xiw_mr *mr;
		u32 take;
		int bad;

		if (off >= sge->length) {
			off -= sge->length;
			continue;
		}
		take = min(sge->length - off, len);
		mr = xiw_mr_lookup(qp->xdev, sge->lkey, pd, 0, sge->addr + off,
				   take, &bad);
		if (!mr)
			return -EACCES;
		err = xiw_tx_put_mr(qp, mr, sge->lkey, sge->addr + off, take,
				    zcopy, crc);
		xiw_mr_put(mr);
		if (err)
			return err;
		len -= take;
		off = 0;
	}
	return 0;
}

/* Check every local buffer of a WQE against its lkey; 0 or IB_WC_*. */
static int xiw_tx_check_local(struct xiw_qp *qp, struct xiw_wqe *wqe,
			      int access)
{
	struct xiw_pd *pd = to_xiw_pd(qp->ibqp.pd);
	int i;

	if (wqe->flags & XIW_WQE_INLINE)
		return 0;
	for (i = 0; i < wqe->num_sge; i++) {
		struct xiw_mr *mr;
		int bad;

		if (!wqe->sge[i].length)
			continue;
		mr = xiw_mr_lookup(qp->xdev, wqe->sge[i].lkey, pd, access,
				   wqe->sge[i].addr, wqe->sge[i].length, &bad);
		if (!mr)
			return IB_WC_LOC_PROT_ERR;
		xiw_mr_put(mr);
	}
	return 0;
}

/* An FPDU that is all header, untagged, one segment: requests, responses. */
static int xiw_tx_untagged_only(struct xiw_qp *qp, u8 op, u8 qn, u32 msn,
				u32 hdr_len)
{
	struct xiw_untagged_hdr *h =
		(struct xiw_untagged_hdr *)(qp->tx_hdr + XIW_MPA_LEN_SIZE);
	u32 crc;

	xiw_tx_begin(qp, hdr_len);
	xiw_tx_ctrl(&h->ctrl, false, true, op);
	h->inval_stag = 0;
	h->qn = cpu_to_be32(qn);
	h->msn = cpu_to_be32(msn);
	h->mo = 0;
	if (xiw_tx_hdr(qp, hdr_len, &crc))
		return -ENOMEM;
	return xiw_tx_seal(qp, hdr_len, crc);
}

/*
 * An Immediate Data message (RFC 7306 section 6) on queue 0, in the MSN
 * order of Sends: the 8 octets carry the verbs' 32-bit immediate value as
 * a 64-bit number (the upper 4 octets zero).
 */
static int xiw_tx_imm(struct xiw_qp *qp, struct xiw_wqe *wqe)
{
	__be32 *data = (__be32 *)(qp->tx_hdr + XIW_MPA_LEN_SIZE +
				  sizeof(struct xiw_untagged_hdr));
	u8 op = wqe->flags & XIW_WQE_SOLICITED ? XIW_OP_IMM_SE : XIW_OP_IMM;

	data[0] = 0;
	data[1] = wqe->imm;
	return xiw_tx_untagged_only(qp, op, XIW_QN_SEND,
				    qp->msn[XIW_QN_SEND]++,
				    sizeof(struct xiw_untagged_hdr) +
				    XIW_IMM_LEN);
}

/*
 * A request on queue 1 (RDMA Read, Atomic, Atomic Write, Flush, Verify):
 * they share its
 * MSNs (the WQE keeps its own: a Terminate names it by it) and the ORD.
 */
static int xiw_tx_request(struct xiw_qp *qp, struct xiw_wqe *wqe)
{
	void *body = qp->tx_hdr + XIW_MPA_LEN_SIZE +
		     sizeof(struct xiw_untagged_hdr);
	u32 len = sizeof(struct xiw_untagged_hdr);
	u8 op;

	if (xiw_wqe_is_atomic(wqe->opcode)) {
		/* Any value works; the SQ position is unique while queued. */
		wqe->atomic.req_id = qp->sq_tx;
		xiw_atomic_req_build(&wqe->atomic, body);
		len += sizeof(struct xiw_atomic_req);
		op = XIW_OP_ATOMIC_REQ;
	} else if (wqe->opcode == XIW_WR_VERIFY) {
		xiw_verify_req_build(body, wqe->rkey, wqe->remote_addr,
				     wqe->bytes);
		memcpy(body + sizeof(struct xiw_verify_req), wqe->inline_data,
		       wqe->verify.expect_len);
		len += sizeof(struct xiw_verify_req) + wqe->verify.expect_len;
		op = XIW_OP_VERIFY_REQ;
	} else if (wqe->opcode == IB_WR_FLUSH) {
		xiw_flush_req_build(body, wqe->rkey, wqe->remote_addr,
				    wqe->bytes, wqe->flush);
		len += sizeof(struct xiw_flush_req);
		op = XIW_OP_FLUSH_REQ;
	} else if (wqe->opcode == IB_WR_ATOMIC_WRITE) {
		xiw_atomic_write_req_build(body, wqe->rkey, wqe->remote_addr,
					   wqe->atomic.data);
		len += sizeof(struct xiw_atomic_write_req);
		op = XIW_OP_ATOMIC_WRITE_REQ;
	} else {
		struct xiw_read_req *rr = body;

		rr->sink_stag = cpu_to_be32(wqe->num_sge ?
					    wqe->sge[0].lkey : 0);
		rr->sink_to = cpu_to_be64(wqe->num_sge ? wqe->sge[0].addr : 0);
		rr->size = cpu_to_be32(wqe->bytes);
		rr->src_stag = cpu_to_be32(wqe->rkey);
		rr->src_to = cpu_to_be64(wqe->remote_addr);
		len += sizeof(*rr);
		op = XIW_OP_READ_REQ;
	}
	wqe->msn = qp->msn[XIW_QN_READ_REQ]++;
	trace_xiw_request(dev_name(&qp->xdev->ibdev.dev), qp->ibqp.qp_num, false,
			  xiw_op_table[op].name, wqe->rkey, wqe->remote_addr,
			  wqe->bytes);
	return xiw_tx_untagged_only(qp, op, XIW_QN_READ_REQ, wqe->msn, len);
}

/*
 * Frame the next FPDU of a Send or Write of @len payload octets; @last
 * when it ends the message.
 */
static int xiw_tx_data(struct xiw_qp *qp, struct xiw_wqe *wqe, u32 len,
		       bool last)
{
	bool send = wqe->opcode == IB_WR_SEND;
	u32 hdr_len = send ? sizeof(struct xiw_untagged_hdr) :
			     sizeof(struct xiw_tagged_hdr);
	u32 off = qp->tx_wqe_off;
	u8 *p = xiw_tx_begin(qp, hdr_len + len);
	bool zcopy;
	u32 crc;
	int err;

	if (send) {
		struct xiw_untagged_hdr *h =
			(struct xiw_untagged_hdr *)(p + XIW_MPA_LEN_SIZE);
		bool se = wqe->flags & XIW_WQE_SOLICITED;
		bool inv = wqe->flags & XIW_WQE_INVALIDATE;
		u8 op = inv ? (se ? XIW_OP_SEND_SE_INV : XIW_OP_SEND_INV) :
			      (se ? XIW_OP_SEND_SE : XIW_OP_SEND);

		xiw_tx_ctrl(&h->ctrl, false, last, op);
		h->inval_stag = inv ? cpu_to_be32(wqe->inv_stag) : 0;
		h->qn = cpu_to_be32(XIW_QN_SEND);
		h->msn = cpu_to_be32(qp->msn[XIW_QN_SEND]);
		h->mo = cpu_to_be32(off);
		if (last)
			qp->msn[XIW_QN_SEND]++;
	} else {
		struct xiw_tagged_hdr *h =
			(struct xiw_tagged_hdr *)(p + XIW_MPA_LEN_SIZE);

		xiw_tx_ctrl(&h->ctrl, true, last, XIW_OP_WRITE);
		h->stag = cpu_to_be32(wqe->rkey);
		h->to = cpu_to_be64(wqe->remote_addr + off);
	}
	err = xiw_tx_hdr(qp, hdr_len, &crc);
	if (err)
		return err;
	zcopy = !(wqe->flags & XIW_WQE_INLINE) && wqe->bytes > XIW_TX_COPY_MAX;
	err = xiw_tx_payload(qp, wqe, off, len, zcopy, &crc);
	if (err)
		return err;
	err = xiw_tx_seal(qp, hdr_len + len, crc);
	qp->tx_wqe_off = last ? 0 : off + len;
	return err;
}

/* Frame the next Read Response FPDU of inbound Read Request @e. */
static int xiw_tx_read_resp(struct xiw_qp *qp, struct xiw_irq_entry *e,
			    u32 len, bool last)
{
	u32 hdr_len = sizeof(struct xiw_tagged_hdr);
	u8 *p = xiw_tx_begin(qp, hdr_len + len);
	struct xiw_tagged_hdr *h;
	u32 crc;
	int err;

	h = (struct xiw_tagged_hdr *)(p + XIW_MPA_LEN_SIZE);
	xiw_tx_ctrl(&h->ctrl, true, last, XIW_OP_READ_RESP);
	h->stag = cpu_to_be32(e->sink_stag);
	h->to = cpu_to_be64(e->sink_to);
	err = xiw_tx_hdr(qp, hdr_len, &crc);
	if (err)
		return err;
	if (len) {
		err = xiw_tx_put_mr(qp, e->mr, e->src_stag, e->src_to, len,
				    e->left > XIW_TX_COPY_MAX, &crc);
		if (err)
			return err;
	}
	return xiw_tx_seal(qp, hdr_len + len, crc);
}

/*
 * The Terminate: its control field and included headers, built by
 * xiw_qp_terminate(), are its RDMAP header.
 */
static int xiw_tx_terminate(struct xiw_qp *qp)
{
	u32 hdr_len = sizeof(struct xiw_untagged_hdr);
	int err;

	BUILD_BUG_ON(XIW_MPA_LEN_SIZE + sizeof(struct xiw_untagged_hdr) +
		     XIW_TERM_INFO_MAX > XIW_TX_HDR_MAX);
	memcpy(qp->tx_hdr + XIW_MPA_LEN_SIZE + hdr_len, qp->term_info,
	       qp->term_info_len);
	err = xiw_tx_untagged_only(qp, XIW_OP_TERMINATE, XIW_QN_TERMINATE,
				   qp->msn[XIW_QN_TERMINATE]++,
				   hdr_len + qp->term_info_len);
	if (!err)
		xiw_stat_add(qp->xdev->stats, XIW_STAT_TERM_SENT, 1);
	return err;
}

/* Complete the WQE at sq_tx with a local error; caller holds sq_lock. */
static int xiw_tx_fail_wqe(struct xiw_qp *qp, struct xiw_wqe *wqe, u8 status)
{
	wqe->status = status;
	wqe->done = true;
	qp->sq_tx++;
	return XIW_TX_LOCAL_ERR;
}

/*
 * The peer-to-peer model's RTR (RFC 6581): a zero-length Send, RDMA Write
 * or RDMA Read, the stream's first FPDU. A Read RTR holds the send queue
 * until its response arrived.
 */
static int xiw_tx_rtr(struct xiw_qp *qp)
{
	u32 hdr_len = sizeof(struct xiw_untagged_hdr);
	u8 kind = qp->rtr_send;
	int err;

	if (!xiw_tx_room(qp, 0, 0))
		return XIW_TX_FULL;
	if (kind == XIW_RTR_WRITE) {
		struct xiw_tagged_hdr *t = (struct xiw_tagged_hdr *)
			(xiw_tx_begin(qp, sizeof(*t)) + XIW_MPA_LEN_SIZE);
		u32 crc;

		xiw_tx_ctrl(&t->ctrl, true, true, XIW_OP_WRITE);
		t->stag = 0;
		t->to = 0;
		err = xiw_tx_hdr(qp, sizeof(*t), &crc) ?:
		      xiw_tx_seal(qp, sizeof(*t), crc);
	} else if (kind == XIW_RTR_READ) {
		memset(qp->tx_hdr + XIW_MPA_LEN_SIZE + hdr_len, 0,
		       sizeof(struct xiw_read_req));
		WRITE_ONCE(qp->rtr_read_pending, true);
		err = xiw_tx_untagged_only(qp, XIW_OP_READ_REQ,
					   XIW_QN_READ_REQ,
					   qp->msn[XIW_QN_READ_REQ]++,
					   hdr_len +
					   sizeof(struct xiw_read_req));
	} else {
		err = xiw_tx_untagged_only(qp, XIW_OP_SEND, XIW_QN_SEND,
					   qp->msn[XIW_QN_SEND]++, hdr_len);
	}
	if (err)
		return XIW_TX_NOMEM;
	qp->rtr_send = 0;
	return XIW_TX_FRAMED;
}

/*
 * Execute a fast registration or local invalidation at its place in the
 * send queue: later work requests see its effect.
 */
static int xiw_tx_local_op(struct xiw_qp *qp, struct xiw_wqe *wqe)
{
	struct xiw_pd *pd = to_xiw_pd(qp->ibqp.pd);
	unsigned long flags;
	int status;

	if (wqe->opcode == IB_WR_REG_MR)
		status = xiw_mr_register(wqe->reg.mr, pd, wqe->reg.key,
					 wqe->reg.access, wqe->reg.iova,
					 wqe->reg.length, wqe->reg.page_size);
	else
		status = xiw_mr_invalidate(qp->xdev, wqe->inv_stag, pd) ?
			 IB_WC_MW_BIND_ERR : 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (status) {
		status = xiw_tx_fail_wqe(qp, wqe, status);
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return status;
	}
	wqe->done = true;
	/* Nothing before it is in flight: it needs no push and no ACK. */
	if (!qp->tx_len && qp->sq_pushed == qp->sq_tx) {
		if (qp->sq_ack == qp->sq_pushed)
			WRITE_ONCE(qp->sq_ack, qp->sq_tx + 1);
		WRITE_ONCE(qp->sq_pushed, qp->sq_tx + 1);
	}
	qp->sq_tx++;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	xiw_qp_sq_complete(qp);
	return XIW_TX_FRAMED;
}

/*
 * An Atomic Request's or Atomic Write Request's turn: every response
 * before it is framed (RFC 7306 section 7; the commit draft's section 4),
 * so carry it out now and frame its response on queue 3: the original
 * value for an Atomic Request, nothing for an Atomic Write. Return: 0 or
 * an XIW_TX_* failure.
 */
static int xiw_tx_atomic_resp(struct xiw_qp *qp, struct xiw_irq_entry *e)
{
	struct xiw_atomic_resp *r = (struct xiw_atomic_resp *)
		(qp->tx_hdr + XIW_MPA_LEN_SIZE +
		 sizeof(struct xiw_untagged_hdr));
	u32 len = sizeof(struct xiw_untagged_hdr);
	u64 orig;

	if (!xiw_tx_room(qp, 0, 0))
		return XIW_TX_FULL;
	/* The consumer invalidated the target since it was checked. */
	if (xiw_mr_atomic(e->mr, &e->op, &orig))
		return XIW_TX_LOCAL_ERR;
	if (e->resp_op == XIW_OP_ATOMIC_RESP) {
		xiw_atomic_resp_build(e->op.req_id, orig, r);
		len += sizeof(*r);
	}
	if (xiw_tx_untagged_only(qp, e->resp_op, XIW_QN_ATOMIC_RESP,
				 qp->msn[XIW_QN_ATOMIC_RESP]++, len))
		return XIW_TX_NOMEM;
	return 0;
}

/*
 * A Flush's turn: every Write before it was placed when it arrived, every
 * response before it is framed. It may sleep (the range's pages are
 * classified, file writeback), so what is framed goes out first: it runs
 * with an empty batch. Memory that cannot reach the disposition asked for
 * is the requester's fault, found after the request was delivered: its
 * Terminate names the request by the DDP header kept for it, as a
 * refusal on arrival would have. Its response, on queue 3, carries
 * nothing. Return: 0 or an XIW_TX_* failure.
 */
static int xiw_tx_flush_resp(struct xiw_qp *qp, struct xiw_irq_entry *e)
{
	int bad;

	if (qp->tx_len)
		return XIW_TX_FULL;
	bad = xiw_persist_check(e->mr, e->src_stag, e->src_to, e->len,
				e->flags);
	if (bad) {
		struct xiw_term_src src = {
			.seg_len = e->seg_len, .ddp_hdr = &e->req,
			.ddp_len = sizeof(e->req),
		};

		xiw_qp_terminate(qp, bad, &src);
		return XIW_TX_IDLE;	/* the Terminate goes out next */
	}
	/* Invalidated meanwhile, or the writeback failed: a local error. */
	if (xiw_persist_flush(e->mr, e->src_stag, e->src_to, e->len, e->flags))
		return XIW_TX_LOCAL_ERR;
	if (xiw_tx_untagged_only(qp, XIW_OP_FLUSH_RESP, XIW_QN_ATOMIC_RESP,
				 qp->msn[XIW_QN_ATOMIC_RESP]++,
				 sizeof(struct xiw_untagged_hdr)))
		return XIW_TX_NOMEM;
	return 0;
}

/*
 * A Verify's turn: every Write before it was placed when it arrived, every
 * Flush before it is done. Hash the range (it may take a while: the batch
 * goes out first), compare the expected hash if one came, and answer with
 * the hash on queue 3. A mismatch is the requester's fault, found after
 * the request was delivered: its Terminate names the request by the DDP
 * header kept for it (Documentation/commit-draft.md). Return: 0 or an
 * XIW_TX_* failure.
 */
static int xiw_tx_verify_resp(struct xiw_qp *qp, struct xiw_irq_entry *e)
{
	u8 *hash = qp->tx_hdr + XIW_MPA_LEN_SIZE +
		   sizeof(struct xiw_untagged_hdr);
	u32 len = xiw_hash_len(e->alg);

	if (qp->tx_len)
		return XIW_TX_FULL;
	/* Invalidated meanwhile, or not memory: a local error. */
	if (xiw_verify_range(e->mr, e->src_stag, e->src_to, e->len, e->alg,
			     hash))
		return XIW_TX_LOCAL_ERR;
	if (e->expect_len &&
	    (e->expect_len != len || memcmp(e->expect, hash, len))) {
		struct xiw_term_src src = {
			.seg_len = e->seg_len, .ddp_hdr = &e->req,
			.ddp_len = sizeof(e->req),
		};

		xiw_stat_add(qp->xdev->stats, XIW_STAT_VERIFY_MISMATCHES, 1);
		xiw_qp_terminate(qp, XIW_TERM(XIW_TERM_LAYER_RDMAP,
					      XIW_RDMAP_ETYPE_OP,
					      XIW_RDMAP_UNSPECIFIED), &src);
		return XIW_TX_IDLE;	/* the Terminate goes out next */
	}
	if (xiw_tx_untagged_only(qp, XIW_OP_VERIFY_RESP, XIW_QN_ATOMIC_RESP,
				 qp->msn[XIW_QN_ATOMIC_RESP]++,
				 sizeof(struct xiw_untagged_hdr) + len))
		return XIW_TX_NOMEM;
	return 0;
}

/*
 * The next Read Response FPDU, if a Read Request waits. The entry at
 * irq_tail changes only here (and in a flush, when this engine is idle),
 * so it is framed outside the lock; irq_tail moves under it, for the
 * receive path's IRD check.
 */
static int xiw_tx_next_resp(struct xiw_qp *qp)
{
	struct xiw_irq_entry *e;
	unsigned long flags;
	bool last;
	u32 len;
	int err;

	spin_lock_irqsave(&qp->sq_lock, flags);
	e = xiw_qp_irq_oldest(qp);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (!e)
		return XIW_TX_IDLE;
	if (e->resp_op == XIW_OP_VERIFY_RESP) {
		err = xiw_tx_verify_resp(qp, e);
		if (err)
			return err;
		goto answered;
	}
	if (e->resp_op == XIW_OP_FLUSH_RESP) {
		err = xiw_tx_flush_resp(qp, e);
		if (err)
			return err;
		goto answered;
	}
	if (e->resp_op != XIW_OP_READ_RESP) {
		err = xiw_tx_atomic_resp(qp, e);
		if (err)
			return err;
		goto answered;
	}

	len = min_t(u32, e->left, qp->mulpdu - sizeof(struct xiw_tagged_hdr));
	last = len == e->left;
	if (!xiw_tx_room(qp, len, 1))
		return XIW_TX_FULL;
	err = xiw_tx_read_resp(qp, e, len, last);
	if (err)	/* the consumer invalidated the source meanwhile */
		return err == -EACCES ? XIW_TX_LOCAL_ERR : XIW_TX_NOMEM;
	e->src_to += len;
	e->sink_to += len;
	e->left -= len;
	if (!last)
		return XIW_TX_FRAMED;
answered:
	/* The MR stays referenced until the batch is in TCP's hands. */
	if (e->mr)
		qp->tx_mr[qp->tx_nmr++] = e->mr;
	e->mr = NULL;
	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->irq_tail++;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return XIW_TX_FRAMED;
}

/* Frame the next FPDU into the batch. */
static int xiw_tx_next(struct xiw_qp *qp)
{
	struct xiw_wqe *wqe;
	unsigned long flags;
	bool last;
	u32 len;
	int bad;

	/* Read Responses first: the peer's Reads wait on them. */
	bad = xiw_tx_next_resp(qp);
	if (bad != XIW_TX_IDLE)
		return bad;
	/* Peer-to-peer model: the RTR first; the send queue after it. */
	if (qp->rtr_send)
		return xiw_tx_rtr(qp);
	if (READ_ONCE(qp->rtr_expect))
		return XIW_TX_IDLE;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->sq_tx == qp->sq_head) {
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return XIW_TX_IDLE;
	}
	wqe = xiw_qp_sq_at(qp, qp->sq_tx);
	/*
	 * Behind our Read RTR only what takes one of the peer's inbound
	 * read slots waits (its IRD need not cover the RTR too; the RTR's
	 * response is the first Read Response, rx.c). Sends and Writes go:
	 * RFC 6581 asks only that nothing precede the RTR, and a responder
	 * that missed its wake-up for the RTR (stock siw can, when the RTR
	 * comes right behind its Reply) gets another with them.
	 */
	if (READ_ONCE(qp->rtr_read_pending) &&
	    xiw_wqe_uses_orq(wqe->opcode)) {
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return XIW_TX_IDLE;
	}
	if (xiw_wqe_uses_orq(wqe->opcode) && !qp->ord) {
		/* The connection allows no Reads: fail it, never wait. */
		bad = xiw_tx_fail_wqe(qp, wqe, IB_WC_LOC_QP_OP_ERR);
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return bad;
	}
	if (xiw_wqe_uses_orq(wqe->opcode) &&
	    (qp->orq_head - qp->orq_tail >= qp->ord ||
	     qp->orq_head - qp->orq_tail >= XIW_MAX_ORD)) {
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return XIW_TX_IDLE;	/* ORD reached: a response frees a slot */
	}
	if ((wqe->flags & XIW_WQE_FENCE) && qp->orq_head != qp->orq_tail) {
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return XIW_TX_IDLE;	/* fenced behind outstanding Reads */
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	if (wqe->opcode == XIW_WR_BAD) {
		bad = IB_WC_LOC_QP_OP_ERR;	/* a ring entry refused */
		goto fail;
	}
	if (wqe->opcode == IB_WR_REG_MR || wqe->opcode == IB_WR_LOCAL_INV)
		return xiw_tx_local_op(qp, wqe);

	if (xiw_wqe_uses_orq(wqe->opcode)) {
		if (!xiw_tx_room(qp, 0, 0))
			return XIW_TX_FULL;
		bad = xiw_tx_check_local(qp, wqe, IB_ACCESS_LOCAL_WRITE);
		if (bad)
			goto fail;
		if (xiw_tx_request(qp, wqe))
			return XIW_TX_NOMEM;
		spin_lock_irqsave(&qp->sq_lock, flags);
		qp->orq[xiw_ring_slot(qp->orq_head, XIW_ORQ_MASK)] = qp->sq_tx;
		qp->orq_head++;
		qp->sq_tx++;
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		return XIW_TX_FRAMED;
	}

	/* Immediate Data: after the Write, or alone (no payload). */
	if (xiw_wqe_has_imm(wqe->opcode) &&
	    (qp->tx_imm_next || wqe->opcode == IB_WR_SEND_WITH_IMM ||
	     !wqe->bytes)) {
		if (!xiw_tx_room(qp, XIW_IMM_LEN, 0))
			return XIW_TX_FULL;
		if (!qp->tx_imm_next)
			qp->tx_spliced = false;
		if (xiw_tx_imm(qp, wqe))
			return XIW_TX_NOMEM;
		qp->tx_imm_next = false;
		goto framed;
	}

	len = min(wqe->bytes - qp->tx_wqe_off,
		  qp->mulpdu - (wqe->opcode == IB_WR_SEND ?
				sizeof(struct xiw_untagged_hdr) :
				sizeof(struct xiw_tagged_hdr)));
	last = qp->tx_wqe_off + len == wqe->bytes;
	if (!xiw_tx_room(qp, len, wqe->num_sge))
		return XIW_TX_FULL;
	if (qp->tx_wqe_off == 0) {
		bad = xiw_tx_check_local(qp, wqe, 0);
		if (bad)
			goto fail;
		qp->tx_spliced = false;
	}
	bad = xiw_tx_data(qp, wqe, len, last);
	if (bad == -EACCES) {
		bad = IB_WC_LOC_PROT_ERR;	/* invalidated meanwhile */
		goto fail;
	}
	if (bad)
		return XIW_TX_NOMEM;
	if (!last)
		return XIW_TX_FRAMED;
	if (xiw_wqe_has_imm(wqe->opcode)) {
		qp->tx_imm_next = true;
		return XIW_TX_FRAMED;
	}
framed:
	/*
	 * The WQE is framed: until the batch is pushed, ack_seq holds where
	 * in the batch it ends (see xiw_tx_pushed()).
	 */
	wqe->zcopy = qp->tx_spliced;
	wqe->ack_seq = qp->tx_len;
	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->sq_tx++;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return XIW_TX_FRAMED;

fail:
	spin_lock_irqsave(&qp->sq_lock, flags);
	bad = xiw_tx_fail_wqe(qp, wqe, bad);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return bad;
}

/* Frame a batch; XIW_TX_IDLE with an empty batch when there is no work. */
static int xiw_tx_fill(struct xiw_qp *qp)
{
	unsigned long flags;
	int r;

	qp->tx_stage_used = 0;
	if (qp->usq) {
		spin_lock_irqsave(&qp->sq_lock, flags);
		xiw_usq_pull(qp);
		spin_unlock_irqrestore(&qp->sq_lock, flags);
	}
	do {
		r = xiw_tx_next(qp);
	} while (r == XIW_TX_FRAMED);
	/* What a failed FPDU left in the batch never goes out. */
	if (r == XIW_TX_LOCAL_ERR || r == XIW_TX_NOMEM)
		xiw_tx_unwind(qp);
	if (r == XIW_TX_FULL) {
		/* The next FPDU is there already: let TCP expect it. */
		qp->tx_more = true;
		r = XIW_TX_IDLE;
	}
	qp->tx_sq_end = qp->sq_tx;
	return r;
}

/* -- completion on acknowledgment -------------------------------------- */

/*
 * Complete the WQEs with spliced payload that TCP acknowledged up to
 * @una. Return: whether one still waits.
 */
static bool xiw_tx_reap(struct xiw_qp *qp, u32 una)
{
	unsigned long flags;
	bool waiting;
	int n = 0;
	u32 i;

	if (READ_ONCE(qp->sq_ack) == READ_ONCE(qp->sq_pushed))
		return false;
	spin_lock_irqsave(&qp->sq_lock, flags);
	for (i = qp->sq_ack; i != qp->sq_pushed; i++) {
		struct xiw_wqe *wqe = xiw_qp_sq_at(qp, i);

		/* Reads complete on their response, copies when pushed. */
		if (wqe->done || !wqe->zcopy)
			continue;
		if (before(una, wqe->ack_seq))
			break;
		wqe->done = true;
		n++;
	}
	WRITE_ONCE(qp->sq_ack, i);
	waiting = i != qp->sq_pushed;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (n) {
		xiw_qp_sq_complete(qp);
		/* A graceful close waits for the last acknowledgment. */
		if (!waiting && READ_ONCE(qp->state) == XIW_QPS_CLOSING)
			xiw_tx_kick(qp);
	}
	return waiting;
}

/*
 * Reap, and if a WQE still waits make sure the next ACK calls back: set
 * SOCK_NOSPACE, then look at snd_una again. tcp_check_space() runs after
 * snd_una moved and tests the bit after a full barrier, so either it
 * calls the write space callback or the second look sees the ACK.
 */
static void xiw_tx_ack_arm(struct xiw_qp *qp, struct socket *sock)
{
	struct tcp_sock *tp = tcp_sk(sock->sk);

	if (!xiw_tx_reap(qp, READ_ONCE(tp->snd_una)))
		return;
	set_bit(SOCK_NOSPACE, &sock->flags);
	/* Pairs with the smp_mb() in tcp_check_space(). */
	smp_mb__after_atomic();
	xiw_tx_reap(qp, READ_ONCE(tp->snd_una));
}

/**
 * xiw_tx_acked() - TCP acknowledged up to @snd_una: complete what waited
 *	for it
 * @qp: the QP
 * @snd_una: the socket's snd_una
 *
 * Called from the receive path (an ACK may ride on data) and before a
 * flush (what TCP acknowledged completes successfully, the rest flushes).
 * Callable from any context.
 */
void xiw_tx_acked(struct xiw_qp *qp, u32 snd_una)
{
	xiw_tx_reap(qp, snd_una);
}

/**
 * xiw_tx_write_space() - the socket's write space callback, for a QP
 * @qp: the QP
 * @sk: its socket, locked by TCP (ACK processing) or by its owner
 *
 * Called after the socket's own write space callback, which clears
 * SOCK_NOSPACE once there is room: completes WQEs acknowledged by now,
 * sets the bit again if any still waits, and restarts a transmit engine
 * that found the socket full.
 */
void xiw_tx_write_space(struct xiw_qp *qp, struct sock *sk)
{
	struct socket *sock = sk->sk_socket;

	if (sock)
		xiw_tx_ack_arm(qp, sock);
	if (READ_ONCE(qp->tx_blocked) && sk_stream_is_writeable(sk))
		xiw_tx_kick(qp);
}

/*
 * The whole batch is in TCP's hands, its last octet at sequence @end:
 * WQEs it finished with copied payload complete, those with spliced
 * payload now know the sequence number their acknowledgment needs;
 * Read Responses let go of their MRs.
 */
static void xiw_tx_pushed(struct xiw_qp *qp, struct socket *sock, u32 end)
{
	unsigned long flags;
	bool wait = false;
	int n = 0;
	u32 i;

	spin_lock_irqsave(&qp->sq_lock, flags);
	for (i = qp->sq_pushed; (s32)(qp->tx_sq_end - i) > 0; i++) {
		struct xiw_wqe *wqe = xiw_qp_sq_at(qp, i);

		if (wqe->done || xiw_wqe_uses_orq(wqe->opcode))
			continue;	/* answered: completes with the answer */
		if (wqe->zcopy) {
			wqe->ack_seq = end - (qp->tx_len - wqe->ack_seq);
			wait = true;
		} else {
			wqe->done = true;
			n++;
		}
	}
	if ((s32)(qp->tx_sq_end - qp->sq_pushed) > 0)
		WRITE_ONCE(qp->sq_pushed, qp->tx_sq_end);
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	xiw_tx_reset(qp);
	if (n)
		xiw_qp_sq_complete(qp);
	if (wait)
		xiw_tx_ack_arm(qp, sock);
}

/* Push the batch; 0 when all of it is in TCP's hands, -EAGAIN, or error. */
static int xiw_tx_push(struct xiw_qp *qp, struct socket *sock)
{
	u8 cut = 0;
	int n;

	/* Set before the send: write space during or after it kicks. */
	WRITE_ONCE(qp->tx_blocked, true);
	while (qp->tx_off < qp->tx_len) {
		u32 end = qp->tx_len;

		/* One sendmsg up to each cut, the segment ending there. */
		while (cut < qp->tx_ncut && qp->tx_cut[cut] <= qp->tx_off)
			cut++;
		if (cut < qp->tx_ncut)
			end = qp->tx_cut[cut];
		n = xiw_sock_send_pages(sock, qp->tx_bvec, qp->tx_nbvec, end,
					qp->tx_off,
					end < qp->tx_len || qp->tx_more,
					end < qp->tx_len);
		if (n < 0)
			return n;
		qp->tx_off += n;
		if (qp->tx_off < end)
			return -EAGAIN;
	}
	WRITE_ONCE(qp->tx_blocked, false);
	/* Only this engine writes to the socket now. */
	xiw_tx_pushed(qp, sock, READ_ONCE(tcp_sk(sock->sk)->write_seq));
	return 0;
}

/*
 * The stream ends: abortively after a failed send or a local error, with
 * a FIN after a Terminate (an RST could make the peer drop the Terminate
 * unread).
 */
static void xiw_tx_fail(struct xiw_qp *qp, bool graceful)
{
	struct xiw_cep *cep;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	qp->state = XIW_QPS_ERROR;
	cep = qp->cep;
	if (cep)
		xiw_cep_get(cep);
	spin_unlock_irqrestore(&qp->lock, flags);
	if (cep) {
		if (graceful)
			xiw_cep_shutdown(cep);
		else
			xiw_cep_abort(cep);
		xiw_cep_put(cep);
	}
}

/* After SQD: send the FIN once everything went out and was acknowledged. */
static void xiw_tx_closing(struct xiw_qp *qp)
{
	struct xiw_cep *cep = xiw_qp_cep_get(qp);
	unsigned long flags;
	bool drained;

	spin_lock_irqsave(&qp->sq_lock, flags);
	drained = qp->sq_tx == qp->sq_head && qp->irq_tail == qp->irq_head &&
		  qp->sq_pushed == qp->sq_tx && qp->sq_ack == qp->sq_pushed &&
		  !qp->tx_len;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (cep) {
		if (drained)
			xiw_cep_shutdown(cep);
		xiw_cep_put(cep);
	}
}

/*
 * Nothing to send: a process's send ring gets its doorbell flag, and then
 * one more look. Return: whether that found work (the flag is cleared).
 */
static bool xiw_tx_idle(struct xiw_qp *qp)
{
	unsigned long flags;
	u32 n;

	if (!qp->usq)
		return false;
	xiw_usq_doorbell(qp, true);
	spin_lock_irqsave(&qp->sq_lock, flags);
	n = xiw_usq_pull(qp);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (n)
		xiw_usq_doorbell(qp, false);
	return n;
}

/* The transmit engine's pass over one QP; the caller holds @qp->tx_mutex. */
static void xiw_tx_pass(struct xiw_qp *qp)
{
	struct socket *sock = READ_ONCE(qp->sock);
	int budget = XIW_TX_BUDGET;
	int err;

	/* Acquire: pairs with xiw_qp_open_tx(); no FPDU before the Reply. */
	if (!sock || !smp_load_acquire(&qp->tx_open))
		return;
	qp->tx_seg_mss = max_t(u32, READ_ONCE(tcp_sk(sock->sk)->mss_cache),
			       XIW_TX_HDR_MAX);
	/* A process's send ring: this pass will look at it (usq.c). */
	xiw_usq_doorbell(qp, false);
	for (;;) {
		/* Acquire: pairs with xiw_qp_terminate() (qp->term_info). */
		enum xiw_qp_state state = smp_load_acquire(&qp->state);

		if (state != XIW_QPS_RTS && state != XIW_QPS_CLOSING &&
		    state != XIW_QPS_TERMINATE)
			return;

		if (qp->tx_len) {
			err = xiw_tx_push(qp, sock);
			if (err == -EAGAIN) {
				xiw_stat_add(qp->xdev->stats,
					     XIW_STAT_TX_STALLS, 1);
				return;	/* the write space callback kicks us */
			}
			if (err) {
				xiw_tx_fail(qp, false);
				return;
			}
			if (qp->term_sent) {
				/* A local error's WQE completes only now. */
				xiw_qp_sq_complete(qp);
				xiw_tx_fail(qp, true);
				return;
			}
		}
		xiw_tx_reap(qp, READ_ONCE(tcp_sk(sock->sk)->snd_una));

		if (state == XIW_QPS_TERMINATE) {
			if (qp->term_sent)
				return;
			qp->tx_stage_used = 0;
			if (xiw_tx_terminate(qp)) {
				xiw_tx_fail(qp, false);
				return;
			}
			qp->term_sent = true;
			continue;
		}
		if (!budget--) {
			xiw_tx_kick(qp);	/* let other QPs have the worker */
			return;
		}
		err = xiw_tx_fill(qp);
		if (err == XIW_TX_LOCAL_ERR) {
			/*
			 * A Terminate goes out instead of the request (RFC
			 * 5040 section 7.1, rule 1): control field only. The
			 * failed WQE completes with its local error once the
			 * Terminate is in the socket: a consumer that tears
			 * the QP down on that completion must not lose it.
			 */
			if (!xiw_qp_terminate(qp, XIW_TERM_LOCAL_CATASTROPHIC,
					      NULL))
				xiw_qp_sq_complete(qp);
			continue;
		}
		if (err == XIW_TX_NOMEM) {
			pr_warn_ratelimited("xiw: %s qp %u: no memory for FPDU headers\n",
					    dev_name(&qp->xdev->ibdev.dev),
					    qp->ibqp.qp_num);
			xiw_tx_fail(qp, false);
			return;
		}
		if (!qp->tx_len && !xiw_tx_idle(qp))
			break;
	}
	if (READ_ONCE(qp->state) == XIW_QPS_CLOSING)
		xiw_tx_closing(qp);
}

/**
 * xiw_tx_work() - the transmit engine's pass over one QP
 * @work: the QP's tx_work
 */
void xiw_tx_work(struct work_struct *work)
{
	struct xiw_qp *qp = container_of(work, struct xiw_qp, tx_work);

	mutex_lock(&qp->tx_mutex);
	xiw_tx_pass(qp);
	mutex_unlock(&qp->tx_mutex);
}

/**
 * xiw_tx_now() - run the transmit engine in the caller's context
 * @qp: the QP
 *
 * For a process's post_send (a system call: process context, no lock
 * held): its requests go out before it returns, without waking the
 * engine's worker, as siw sends a user QP's. If a pass runs elsewhere,
 * the worker is kicked instead (queue_work() queues a running work again,
 * so nothing posted is missed).
 */
void xiw_tx_now(struct xiw_qp *qp)
{
	if (!mutex_trylock(&qp->tx_mutex)) {
		xiw_tx_kick(qp);
		return;
	}
	xiw_tx_pass(qp);
	mutex_unlock(&qp->tx_mutex);
}

/**
 * xiw_tx_wait_idle() - wait out the transmit engine's passes
 * @qp: the QP, in a state in which no new pass does anything
 */
void xiw_tx_wait_idle(struct xiw_qp *qp)
{
	cancel_work_sync(&qp->tx_work);
	mutex_lock(&qp->tx_mutex);
	mutex_unlock(&qp->tx_mutex);
}

/**
 * xiw_tx_drop() - forget the batch being sent (the stream is over)
 * @qp: the QP, in the error state, its transmit work idle
 *
 * The caller holds @qp->teardown: the batch's MR references are put by
 * one caller only.
 */
void xiw_tx_drop(struct xiw_qp *qp)
{
	lockdep_assert_held(&qp->teardown);
	xiw_tx_reset(qp);
	qp->tx_wqe_off = 0;
	qp->tx_imm_next = false;
	WRITE_ONCE(qp->tx_blocked, false);
}

/**
 * xiw_tx_release() - free the transmit engine's staging pages
 * @qp: the QP being destroyed
 *
 * TCP keeps its own references on pages it still holds.
 */
void xiw_tx_release(struct xiw_qp *qp)
{
	int i;

	mutex_lock(&qp->teardown);
	xiw_tx_drop(qp);
	mutex_unlock(&qp->teardown);
	for (i = 0; i < XIW_TX_STAGE_PAGES; i++) {
		if (qp->tx_stage[i])
			put_page(qp->tx_stage[i]);
		qp->tx_stage[i] = NULL;
	}
}

/**
 * xiw_tx_init() - create the transmit workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int xiw_tx_init(void)
{
	xiw_tx_wq = alloc_workqueue("xiw_tx", WQ_MEM_RECLAIM | WQ_HIGHPRI, 0);
	return xiw_tx_wq ? 0 : -ENOMEM;
}

/**
 * xiw_tx_exit() - destroy the transmit workqueue
 */
void xiw_tx_exit(void)
{
	destroy_workqueue(xiw_tx_wq);
}
