/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPA (RFC 5044, RFC 6581) framing: connection setup frames and FPDU
 * length, padding and CRC arithmetic. Pure protocol code: no ib_verbs.h,
 * so KUnit covers it under UML.
 */
#ifndef XIW_MPA_H
#define XIW_MPA_H

#include <linux/types.h>

#define XIW_MPA_KEY_LEN		16
#define XIW_MPA_HDR_LEN		20	/* key, flags, rev, PD_Length */
#define XIW_MPA_PD_MAX		512
#define XIW_MPA_V2_DATA_LEN	4	/* RFC 6581 IRD/ORD word pair */

#define XIW_MPA_FLAG_MARKERS	0x80
#define XIW_MPA_FLAG_CRC	0x40
#define XIW_MPA_FLAG_REJECT	0x20
#define XIW_MPA_FLAG_ENHANCED	0x10	/* RFC 6581 'S', revision 2 only */

#define XIW_MPA_REV_MIN		1
#define XIW_MPA_REV_MAX		2

#define XIW_MPA_LEN_SIZE	2	/* ULPDU_Length field */
#define XIW_MPA_CRC_SIZE	4
#define XIW_MPA_MARKER_SIZE	4
#define XIW_MPA_MARKER_PERIOD	512

/**
 * enum xiw_mpa_frame_kind - which of the two MPA setup frames
 * @XIW_MPA_REQUEST: "MPA ID Req Frame", sent by the initiator
 * @XIW_MPA_REPLY: "MPA ID Rep Frame", sent by the responder
 */
enum xiw_mpa_frame_kind {
	XIW_MPA_REQUEST,
	XIW_MPA_REPLY,
};

/**
 * struct xiw_mpa_hdr - host-order view of an MPA Request/Reply header
 * @kind: request or reply
 * @markers: M bit, sender wants markers
 * @crc: C bit, sender wants CRC
 * @reject: R bit (reply only)
 * @enhanced: S bit of revision 2: the private data begins with the
 *	RFC 6581 enhanced connection data (struct xiw_mpa_v2_data)
 * @rev: MPA revision
 * @pd_len: length of the private data that follows the header
 */
struct xiw_mpa_hdr {
	enum xiw_mpa_frame_kind kind;
	bool markers;
	bool crc;
	bool reject;
	bool enhanced;
	u8 rev;
	u16 pd_len;
};

int xiw_mpa_hdr_parse(const void *buf, size_t len,
		      enum xiw_mpa_frame_kind expect, struct xiw_mpa_hdr *hdr);
void xiw_mpa_hdr_build(const struct xiw_mpa_hdr *hdr, void *buf);

/**
 * xiw_mpa_pad() - pad octets after a ULPDU of @ulpdu_len octets
 * @ulpdu_len: length of the DDP segment carried by the FPDU
 *
 * The ULPDU_Length field, the ULPDU and the pad together are a multiple
 * of four octets.
 *
 * Return: 0 to 3.
 */
static inline unsigned int xiw_mpa_pad(unsigned int ulpdu_len)
{
	return -(ulpdu_len + XIW_MPA_LEN_SIZE) & 3;
}

/**
 * xiw_mpa_fpdu_len() - octets of an FPDU without markers
 * @ulpdu_len: length of the DDP segment carried by the FPDU
 *
 * Return: length field + ULPDU + pad + CRC field.
 */
static inline unsigned int xiw_mpa_fpdu_len(unsigned int ulpdu_len)
{
	return XIW_MPA_LEN_SIZE + ulpdu_len + xiw_mpa_pad(ulpdu_len) +
	       XIW_MPA_CRC_SIZE;
}

unsigned int xiw_mpa_mulpdu(unsigned int emss, bool markers);

/*
 * Markers (RFC 5044 section 5), when the receiving side asked for them: a
 * 4-octet marker (16 reserved bits, 16-bit FPDUPTR) at every multiple of
 * 512 octets of the stream, counted from the first octet of the first FPDU,
 * markers included. A marker belongs to the FPDU it is in; one that falls
 * between two FPDUs is the first thing of the next. FPDUPTR is the distance
 * in octets from the start of that FPDU (its first marker or its length
 * field) to the marker: 0 for a leading marker. The CRC covers the markers
 * of its FPDU, in stream order. Stream offsets below are taken modulo 512.
 */

/**
 * xiw_mpa_to_marker() - octets of FPDU data before the next marker
 * @off: stream offset (mod 512) of the next octet
 *
 * Return: 0 when a marker starts at @off, else the octets until one does.
 */
static inline unsigned int xiw_mpa_to_marker(unsigned int off)
{
	return off ? XIW_MPA_MARKER_PERIOD - off : 0;
}

void xiw_mpa_marker_build(unsigned int fpdu_off, u8 *out);
int xiw_mpa_marker_check(const u8 *in, unsigned int fpdu_off);

/**
 * struct xiw_mpa_unmark - marker stripping state of a receive stream
 * @off: stream offset (mod 512) of the next octet
 * @got: octets of the marker being received
 * @marker: the marker being received
 */
struct xiw_mpa_unmark {
	u16 off;
	u8 got;
	u8 marker[XIW_MPA_MARKER_SIZE];
};

/**
 * xiw_mpa_unmark_data() - how many of the next octets are FPDU data
 * @u: the stream's state
 * @len: octets available
 *
 * Return: up to @len data octets the caller consumes (then calls
 * xiw_mpa_unmark_advance()), or 0 when the next octet belongs to a marker
 * (feed it to xiw_mpa_unmark_take()).
 */
static inline unsigned int xiw_mpa_unmark_data(const struct xiw_mpa_unmark *u,
					       unsigned int len)
{
	if (u->off < XIW_MPA_MARKER_SIZE)
		return 0;
	return len < XIW_MPA_MARKER_PERIOD - u->off ?
	       len : XIW_MPA_MARKER_PERIOD - u->off;
}

/**
 * xiw_mpa_unmark_advance() - @n data octets were consumed
 * @u: the stream's state
 * @n: octets, at most what xiw_mpa_unmark_data() allowed
 */
static inline void xiw_mpa_unmark_advance(struct xiw_mpa_unmark *u,
					  unsigned int n)
{
	u->off = (u->off + n) % XIW_MPA_MARKER_PERIOD;
}

unsigned int xiw_mpa_unmark_take(struct xiw_mpa_unmark *u, const u8 *data,
				 unsigned int len);

/*
 * CRC32c over an FPDU: start with xiw_mpa_crc_init(), feed every octet of
 * length field, ULPDU and pad (in order, in as many pieces as convenient)
 * to xiw_mpa_crc_update(), and put xiw_mpa_crc_final() into the CRC field.
 */
static inline u32 xiw_mpa_crc_init(void)
{
	return ~0U;
}

u32 xiw_mpa_crc_update(u32 state, const void *data, size_t len);
__le32 xiw_mpa_crc_final(u32 state);

#endif /* XIW_MPA_H */
