// SPDX-License-Identifier: GPL-2.0
/*
 * MPA framing arithmetic and setup-frame encoding (RFC 5044, RFC 6581).
 */
#include <linux/crc32c.h>
#include <linux/errno.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <xiw/compat.h>

#include "mpa.h"

static const char xiw_mpa_key_req[XIW_MPA_KEY_LEN] __nonstring = "MPA ID Req Frame";
static const char xiw_mpa_key_rep[XIW_MPA_KEY_LEN] __nonstring = "MPA ID Rep Frame";

static const char *xiw_mpa_key(enum xiw_mpa_frame_kind kind)
{
	return kind == XIW_MPA_REQUEST ? xiw_mpa_key_req : xiw_mpa_key_rep;
}

/**
 * xiw_mpa_hdr_parse() - validate and decode an MPA Request/Reply header
 * @buf: received octets, starting at the key
 * @len: octets available in @buf
 * @expect: the frame kind this end is waiting for
 * @hdr: decoded header, written only on success
 *
 * Checks the key, the revision and the private data length. The R bit is
 * legal only in a reply. The reserved flag bits are not checked (RFC 5044
 * says they must not be); in revision 1 that includes the bit revision 2
 * calls S, and an S frame must have room for the enhanced data.
 *
 * Return: 0, -EAGAIN if fewer than %XIW_MPA_HDR_LEN octets are present,
 * -EBADMSG for a wrong key, -EPROTO for an unsupported revision, a request
 * carrying R or an S frame too short for the enhanced data, -EMSGSIZE if
 * PD_Length exceeds 512.
 */
int xiw_mpa_hdr_parse(const void *buf, size_t len,
		      enum xiw_mpa_frame_kind expect, struct xiw_mpa_hdr *hdr)
{
	const u8 *p = buf;
	u8 flags, rev;
	u16 pd_len;

	if (len < XIW_MPA_HDR_LEN)
		return -EAGAIN;
	if (memcmp(p, xiw_mpa_key(expect), XIW_MPA_KEY_LEN))
		return -EBADMSG;

	flags = p[XIW_MPA_KEY_LEN];
	rev = p[XIW_MPA_KEY_LEN + 1];
	pd_len = get_unaligned_be16(p + XIW_MPA_KEY_LEN + 2);

	if (rev < XIW_MPA_REV_MIN || rev > XIW_MPA_REV_MAX)
		return -EPROTO;
	if (expect == XIW_MPA_REQUEST && (flags & XIW_MPA_FLAG_REJECT))
		return -EPROTO;
	if (pd_len > XIW_MPA_PD_MAX)
		return -EMSGSIZE;
	if (rev >= 2 && (flags & XIW_MPA_FLAG_ENHANCED) &&
	    pd_len < XIW_MPA_V2_DATA_LEN)
		return -EPROTO;

	hdr->kind = expect;
	hdr->markers = flags & XIW_MPA_FLAG_MARKERS;
	hdr->crc = flags & XIW_MPA_FLAG_CRC;
	hdr->reject = flags & XIW_MPA_FLAG_REJECT;
	hdr->enhanced = rev >= 2 && (flags & XIW_MPA_FLAG_ENHANCED);
	hdr->rev = rev;
	hdr->pd_len = pd_len;
	return 0;
}

/**
 * xiw_mpa_hdr_build() - encode an MPA Request/Reply header
 * @hdr: header to encode; the caller keeps pd_len within 512 and sets
 *	@hdr->enhanced only in revision 2
 * @buf: %XIW_MPA_HDR_LEN octets of output
 */
void xiw_mpa_hdr_build(const struct xiw_mpa_hdr *hdr, void *buf)
{
	u8 *p = buf;
	u8 flags = 0;

	if (hdr->markers)
		flags |= XIW_MPA_FLAG_MARKERS;
	if (hdr->crc)
		flags |= XIW_MPA_FLAG_CRC;
	if (hdr->reject && hdr->kind == XIW_MPA_REPLY)
		flags |= XIW_MPA_FLAG_REJECT;
	if (hdr->enhanced)
		flags |= XIW_MPA_FLAG_ENHANCED;

	memcpy(p, xiw_mpa_key(hdr->kind), XIW_MPA_KEY_LEN);
	p[XIW_MPA_KEY_LEN] = flags;
	p[XIW_MPA_KEY_LEN + 1] = hdr->rev;
	put_unaligned_be16(hdr->pd_len, p + XIW_MPA_KEY_LEN + 2);
}

/**
 * xiw_mpa_mulpdu() - largest ULPDU whose FPDU fits one segment
 * @emss: effective maximum segment size of the TCP connection
 * @markers: whether markers were negotiated for this direction
 *
 * RFC 5044: EMSS - (6 + EMSS mod 4) without markers, and
 * additionally 4 * ceil(EMSS / 512) octets of markers with them.
 *
 * Return: MULPDU in octets, 0 if @emss is too small to carry any ULPDU.
 */
unsigned int xiw_mpa_mulpdu(unsigned int emss, bool markers)
{
	unsigned int overhead = XIW_MPA_LEN_SIZE + XIW_MPA_CRC_SIZE + emss % 4;

	if (markers)
		overhead += XIW_MPA_MARKER_SIZE *
			    DIV_ROUND_UP(emss, XIW_MPA_MARKER_PERIOD);
	return emss > overhead ? emss - overhead : 0;
}

/**
 * xiw_mpa_marker_build() - a marker for the wire
 * @fpdu_off: octets of its FPDU before it (0 for a leading marker)
 * @out: 4 octets
 */
void xiw_mpa_marker_build(unsigned int fpdu_off, u8 *out)
{
	out[0] = 0;
	out[1] = 0;
	put_unaligned_be16(fpdu_off, out + 2);
}

/**
 * xiw_mpa_marker_check() - does a received marker point where it must?
 * @in: the 4 octets
 * @fpdu_off: octets of the FPDU before it, as the receiver counted them
 *
 * The reserved half is not checked (RFC 5044: ignored on receipt).
 *
 * Return: 0, or -EPROTO if FPDUPTR is not @fpdu_off.
 */
int xiw_mpa_marker_check(const u8 *in, unsigned int fpdu_off)
{
	return get_unaligned_be16(in + 2) == fpdu_off ? 0 : -EPROTO;
}

/**
 * xiw_mpa_unmark_take() - collect octets of a marker
 * @u: the stream's state; the next octet belongs to a marker
 * @data: the octets
 * @len: how many are available
 *
 * Return: octets taken; once u->got reaches XIW_MPA_MARKER_SIZE the whole
 * marker is in u->marker (the caller checks it and resets u->got).
 */
unsigned int xiw_mpa_unmark_take(struct xiw_mpa_unmark *u, const u8 *data,
				 unsigned int len)
{
	unsigned int n = min_t(unsigned int, len, XIW_MPA_MARKER_SIZE - u->got);

	memcpy(u->marker + u->got, data, n);
	u->got += n;
	u->off += n;
	return n;
}

/**
 * xiw_mpa_crc_update() - feed FPDU octets to a running CRC32c
 * @state: value from xiw_mpa_crc_init() or a previous update
 * @data: next octets of the FPDU
 * @len: number of octets
 *
 * Return: the new running state.
 */
u32 xiw_mpa_crc_update(u32 state, const void *data, size_t len)
{
	return crc32c(state, data, len);
}

/**
 * xiw_mpa_crc_final() - the CRC field value for a running CRC32c
 * @state: running state after the last octet of pad
 *
 * MPA reuses the iSCSI CRC32c: the complemented remainder, least
 * significant octet first on the wire.
 *
 * Return: the four CRC octets as they go on the wire.
 */
__le32 xiw_mpa_crc_final(u32 state)
{
	return cpu_to_le32(~state);
}
