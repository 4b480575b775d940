"""iWARP wire formats for the hostile-peer tools: MPA framing (RFC 5044),
DDP headers (RFC 5041), RDMAP messages (RFC 5040, RFC 7306 and the
commit draft as Documentation/commit-draft.md lays them out), and the
Terminate codes of RFC 5040 section 7. Pure functions over bytes; no I/O.
"""
import struct

# RDMAP opcodes (5 bits: RFC 7306 and the commit draft use the fifth).
WRITE, READ_REQ, READ_RESP, SEND, SEND_INV, SEND_SE, SEND_SE_INV, \
    TERMINATE, IMM, IMM_SE, ATOMIC_REQ, ATOMIC_RESP, FLUSH_REQ, FLUSH_RESP, \
    VERIFY_REQ, VERIFY_RESP, ATOMIC_WRITE_REQ, ATOMIC_WRITE_RESP = range(18)

TAGGED_HDR = 14         # control, STag, TO
UNTAGGED_HDR = 18       # control, Inval STag, QN, MSN, MO
# Octets after the untagged header that are part of each opcode's header.
EXTRA_HDR = {READ_REQ: 28, TERMINATE: 4, ATOMIC_REQ: 52, ATOMIC_RESP: 12,
             FLUSH_REQ: 20, VERIFY_REQ: 16, ATOMIC_WRITE_REQ: 24}
TAGGED_OPS = {WRITE, READ_RESP}
QN = {SEND: 0, SEND_INV: 0, SEND_SE: 0, SEND_SE_INV: 0, IMM: 0, IMM_SE: 0,
      READ_REQ: 1, ATOMIC_REQ: 1, FLUSH_REQ: 1, VERIFY_REQ: 1,
      ATOMIC_WRITE_REQ: 1, TERMINATE: 2, ATOMIC_RESP: 3, FLUSH_RESP: 3,
      VERIFY_RESP: 3, ATOMIC_WRITE_RESP: 3}
SENDS = {SEND, SEND_INV, SEND_SE, SEND_SE_INV}
INVALIDATES = {SEND_INV, SEND_SE_INV}
IMMS = {IMM, IMM_SE}
REQUESTS = {READ_REQ, ATOMIC_REQ, FLUSH_REQ, VERIFY_REQ, ATOMIC_WRITE_REQ}
RESPONSES = {ATOMIC_RESP, FLUSH_RESP, VERIFY_RESP, ATOMIC_WRITE_RESP}
SUPPORTED = TAGGED_OPS | set(QN)

DDP_T, DDP_L, DDP_DV = 0x80, 0x40, 0x01


def hdr_len(op):
    if op in TAGGED_OPS:
        return TAGGED_HDR
    return UNTAGGED_HDR + EXTRA_HDR.get(op, 0)


# Terminate causes as (layer, error type, code).
def rdmap_prot(code):
    return (0, 1, code)


def rdmap_op(code):
    return (0, 2, code)


INV_STAG, BOUNDS, ACCESS, NOT_ASSOC, TO_WRAP = range(5)
RDMAP_VERSION, UNEXP_OPCODE, CATASTROPHIC_STREAM = 5, 6, 7
CANT_INVALIDATE = 9
DDP_T_INV_STAG, DDP_T_BOUNDS, DDP_T_NOT_ASSOC, DDP_T_WRAP, \
    DDP_T_VERSION = range(5)
DDP_U_QN, DDP_U_NO_BUF, DDP_U_MSN, DDP_U_MO, DDP_U_TOO_LONG, \
    DDP_U_VERSION = range(1, 7)
MPA_CRC, MPA_MARKER, MPA_REQ = 2, 3, 4


def ddp_t(code):
    return (1, 1, code)


def ddp_u(code):
    return (1, 2, code)


def llp(code):
    return (2, 0, code)


def cause_of(ctrl):
    return (ctrl >> 28, (ctrl >> 24) & 0xf, (ctrl >> 16) & 0xff)


# CRC32c (Castagnoli), reflected, as MPA uses it.
def _table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        t.append(c)
    return t


_T = _table()


def crc32c(data):
    c = 0xFFFFFFFF
    t = _T
    for b in data:
        c = t[(c ^ b) & 0xff] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


# MPA connection setup (RFC 5044 section 7, RFC 6581): the frames' keys
# and the flag bits of their 17th octet.
MPA_REQ_KEY = b"MPA ID Req Frame"
MPA_REP_KEY = b"MPA ID Rep Frame"
MPA_M, MPA_C, MPA_R, MPA_S = 0x80, 0x40, 0x20, 0x10


def mpa_frame(key, body, flags=MPA_S, rev=2, pd_len=None):
    """An MPA Request or Reply carrying @body (RFC 6581's IRD/ORD first
    when @flags has S); the length field says len(body) unless @pd_len
    says otherwise (a lie, for the abuse tools)."""
    n = len(body) if pd_len is None else pd_len
    return key + bytes([flags, rev]) + struct.pack(">H", n) + body


def mpa_request(ird=1, ord_=1, pd=b"", flags=MPA_S):
    """A revision 2 MPA Request with RFC 6581's IRD and ORD, then @pd."""
    return mpa_frame(MPA_REQ_KEY, struct.pack(">HH", ird, ord_) + pd, flags)


def mpa_reply_header(hdr):
    """(flags, private data length) of the 20 octets an MPA Reply begins
    with, or None if they are not one (short, or another key)."""
    if hdr is None or len(hdr) < 20 or hdr[:16] != MPA_REP_KEY:
        return None
    return hdr[16], struct.unpack(">H", hdr[18:20])[0]


# xiwtarget's accept private data, after RFC 6581's IRD and ORD: struct
# xt_accept of tests/reliability/target/xiwtarget.h, big-endian.
XT_MAGIC = 0x58544754
XT_ACCEPT = (("magic", "I"), ("conn", "I"), ("rw_stag", "I"),
             ("ro_stag", "I"), ("rw_to", "Q"), ("ro_to", "Q"),
             ("rw_len", "I"), ("ro_len", "I"), ("rw_off", "I"),
             ("ro_off", "I"), ("recv_off", "I"), ("nrecv", "I"),
             ("recv_len", "I"), ("blob_len", "I"), ("sink_off", "I"),
             ("sink_len", "I"), ("sink_stag", "I"), ("sink_to", "Q"),
             ("post_to", "Q"), ("post_len", "I"), ("post_off", "I"),
             ("post_blob_len", "I"), ("big_stag", "I"), ("big_len", "I"),
             ("big_to", "Q"))
_XT_ACCEPT = struct.Struct(">" + "".join(f for _, f in XT_ACCEPT))


def xt_accept(pd):
    """xiwtarget's struct xt_accept from a Reply's private data, as a
    dict, or None if @pd is too short for it or not xiwtarget's."""
    if pd is None or len(pd) < 4 + _XT_ACCEPT.size:
        return None
    acc = dict(zip((k for k, _ in XT_ACCEPT), _XT_ACCEPT.unpack_from(pd, 4)))
    return acc if acc["magic"] == XT_MAGIC else None


def pad_len(ulen):
    return -(ulen + 2) % 4


def fpdu(ulpdu, crc):
    """Length, ULPDU, pad and CRC field (zero without CRC)."""
    body = struct.pack(">H", len(ulpdu)) + ulpdu + b"\0" * pad_len(len(ulpdu))
    return body + (struct.pack("<I", crc32c(body)) if crc else b"\0" * 4)


MARKER_PERIOD, MARKER_LEN = 512, 4


def fpdu_starts(data):
    """Where a receiver that goes by the length fields sees the FPDUs of
    @data begin (the last one may run past its end)."""
    starts, pos = [], 0
    while pos < len(data):
        starts.append(pos)
        if len(data) - pos < 2:
            break
        ulen = struct.unpack_from(">H", data, pos)[0]
        pos += 2 + ulen + pad_len(ulen) + 4
    return starts


def mark(data, wire_pos, crc, tamper=None):
    """@data, a stream of FPDUs, with MPA markers (RFC 5044 section 5) as
    xiw expects them (Documentation/architecture.md): one before each
    octet at a multiple of 512 of the marked stream, whose first octet
    @data[0] is at @wire_pos; FPDUPTR the distance from the start of the
    marker's FPDU (its leading marker, or its length field), the FPDUs as a
    receiver frames them. With @crc each CRC field is changed so that it
    is right for the FPDU with its markers exactly when it was right for
    the FPDU without. @tamper, {marker index: callable(marker) -> marker},
    changes markers before the CRCs are made.
    Returns (marked stream, markers as (data offset, wire offset, octets))."""
    out, marks = bytearray(), []
    tamper = tamper or {}
    starts = fpdu_starts(data) + [len(data)]
    for s, e in zip(starts, starts[1:]):
        fw = len(out)
        d = s
        while d < e:
            at = (wire_pos + len(out)) % MARKER_PERIOD
            if at == 0:
                m = struct.pack(">HH", 0, (len(out) - fw) & 0xffff)
                if len(marks) in tamper:
                    m = tamper[len(marks)](m)
                marks.append((d, len(out), m))
                out += m
            take = min(e - d, MARKER_PERIOD - (wire_pos + len(out))
                       % MARKER_PERIOD)
            out += data[d:d + take]
            d += take
        ulen = struct.unpack_from(">H", data, s)[0] if e - s >= 2 else 0
        whole = e - s == 2 + ulen + pad_len(ulen) + 4
        if crc and whole and out[-4:] == data[e - 4:e]:
            old = struct.unpack_from("<I", out, len(out) - 4)[0]
            fixed = old ^ crc32c(data[s:e - 4]) ^ crc32c(out[fw:len(out) - 4])
            struct.pack_into("<I", out, len(out) - 4, fixed)
    return bytes(out), marks


def ctrl(op, last=True, tagged=None):
    tagged = op in TAGGED_OPS if tagged is None else tagged
    return bytes([(DDP_T if tagged else 0) | (DDP_L if last else 0) | DDP_DV,
                  0x40 | op])


def tagged(op, stag, to, payload=b"", last=True):
    return ctrl(op, last) + struct.pack(">IQ", stag, to) + payload


def untagged(op, msn, body=b"", mo=0, last=True, inval=0, qn=None):
    qn = QN[op] if qn is None else qn
    return ctrl(op, last) + struct.pack(">IIII", inval, qn, msn, mo) + body


def read_req(sink_stag, sink_to, size, src_stag, src_to):
    return struct.pack(">IQIIQ", sink_stag, sink_to, size, src_stag, src_to)


def atomic_req(aop, req_id, stag, to, data, mask, cmp=0, cmp_mask=0):
    return struct.pack(">IIIQQQQQ", aop, req_id, stag, to, data, mask, cmp,
                       cmp_mask)


def flush_req(stag, length, to, flags):
    return struct.pack(">IIQI", stag, length, to, flags)


def verify_req(stag, length, to):
    return struct.pack(">IIQ", stag, length, to)


def atomic_write_req(stag, to, data, length=8):
    return struct.pack(">IIQQ", stag, length, to, data)


M64 = (1 << 64) - 1


def fetch_add(orig, add, mask):
    """RFC 7306 section 5.1.1, bit by bit: a set mask bit ends a field
    (its carry out is dropped)."""
    out, carry = 0, 0
    for i in range(64):
        s = ((orig >> i) & 1) + ((add >> i) & 1) + carry
        out |= (s & 1) << i
        carry = 0 if (mask >> i) & 1 else s >> 1
    return out


def cmp_swap(orig, cmp, cmp_mask, swap, swap_mask):
    if (cmp ^ orig) & cmp_mask:
        return orig
    return (orig & ~swap_mask & M64) | (swap & swap_mask)
