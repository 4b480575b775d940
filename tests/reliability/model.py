"""What an RFC-conforming receiver does with a byte stream: the hostile
peer's oracle.

judge() takes the state of one connection at the target (queue MSNs,
receives consumed, STags still valid, the target's memory as the peer
believes it to be) and the octets the peer is about to send, and
predicts, FPDU by FPDU, what the receiver must do: accept and place
(the memory effects, receive completions and responses that follow), end
the stream with a Terminate (the set of causes the RFCs allow for the
first faulty FPDU: where several checks fail, or where the RFCs leave the
order of checks open, any of them), close without one (a valid Terminate
from the peer), or wait for more octets. With MPA markers (the receiver
asked for them), each marker must point at the start of its FPDU as the
receiver frames the stream, and is covered by that FPDU's CRC.

Where the RFCs leave a choice to the implementation, the model takes
xiw's documented one (Documentation/conformance.md, rfc7306.md,
commit-draft.md): a segment shorter than its opcode's header is an MPA
"invalid request" (layer 2, code 4); a whole-message opcode without L is
"unexpected opcode"; a request's fixed size exceeded is DDP "message too
long", short of it a catastrophic RDMAP error.
"""
import struct

import wire as w

RECV_OK, FLUSHED = 0, 5         # enum ib_wc_status
WITH_IMM, WITH_INVALIDATE = 2, 4


class Region:
    def __init__(self, name, stag, base, length, off, rights):
        self.name, self.stag, self.base, self.length = name, stag, base, length
        self.off, self.rights = off, rights
        self.valid = True


class State:
    """One connection as the target should see it."""

    def __init__(self, acc, blob):
        self.regions = [
            Region("rw", acc["rw_stag"], acc["rw_to"], acc["rw_len"],
                   acc["rw_off"], set("rwaf")),
            Region("ro", acc["ro_stag"], acc["ro_to"], acc["ro_len"],
                   acc["ro_off"], set("r"))]
        self.recv_off, self.nrecv = acc["recv_off"], acc["nrecv"]
        self.recv_len = acc["recv_len"]
        self.mem = bytearray(blob)
        self.msn = [1, 1, 1, 1]
        self.recv_next = 0
        self.send_open = False
        self.send_op = None
        self.send_len = 0
        self.completions = {}   # slot -> (len, flags, imm, inv)
        self.wire_pos = 0       # octets sent, markers included
        # The target's own requests (stateful response fuzzing): the
        # sink their local buffers are in, as N/sink shows it, those
        # outstanding (oldest first: what a response must answer) and the
        # work requests completed, {index: (status, length or None)}.
        self.sink = bytearray()
        self.sink_off = self.sink_stag = self.sink_to = self.sink_len = 0
        self.orq = []
        self.wrs = {}
        self.wr_next = 0
        self.executed = []      # (offset, the 8 octets before) this judge()
        # Requests of this judge() the target answers later, in its
        # transmit engine: (kind, blob offset, length, what a later
        # placement may change, STag). See judge().
        self.pending = []
        self.racy = set()       # blob offsets whose octets only the target knows
        self.inval_race = False

    def attach_sink(self, acc, blob):
        self.sink = bytearray(blob)
        # xiwtarget's post sink (N/postmem), whose STag is the sink's.
        self.sink_off, self.sink_stag = acc["post_off"], acc["sink_stag"]
        self.sink_to, self.sink_len = acc["post_to"], acc["post_len"]

    def copy(self):
        c = State.__new__(State)
        c.__dict__.update(self.__dict__)
        c.regions = []
        for r in self.regions:
            n = Region.__new__(Region)
            n.__dict__.update(r.__dict__)
            c.regions.append(n)
        c.mem = bytearray(self.mem)
        c.msn = list(self.msn)
        c.completions = dict(self.completions)
        c.sink = bytearray(self.sink)
        c.orq = list(self.orq)
        c.wrs = dict(self.wrs)
        return c

    def region(self, stag):
        for r in self.regions:
            if r.stag == stag:
                return r
        return None

    def word(self, off):
        return struct.unpack_from("<Q", self.mem, off)[0]


class Verdict:
    def __init__(self):
        self.kind = "ok"        # ok, term, closed, stall
        self.causes = set()
        self.responses = []     # expected, in order
        # Causes of a Terminate the target may send instead of answering
        # (a request's source invalidated before its response was made).
        self.alt = set()
        self.alt_may = {}       # what may differ if it does
        self.racy = set()       # blob offsets to take from the target
        self.may = {}           # blob offset -> octets that may be there
        self.may_sink = {}      # the same, in the sink
        self.fpdus = 0
        self.stall_need = 0     # octets the receiver still waits for
        self.where = ""         # what the faulty FPDU was

    def __repr__(self):
        return (f"Verdict({self.kind} {sorted(self.causes)} "
                f"responses={len(self.responses)} fpdus={self.fpdus} "
                f"{self.where})")


RIGHT = {"r": "read", "w": "write", "a": "atomic", "f": "flush"}


def lookup(st, stag, to, length, right):
    """The remote protection causes of an access, RDMAP's codes; empty
    when it is allowed. Returns (causes, region)."""
    if st.sink and stag == st.sink_stag:
        # The PD's local DMA key, which the target's own requests name
        # (the peer learns it from them): valid, with no remote right.
        return {w.ACCESS}, None
    r = st.region(stag)
    if r is None:
        # An index that names another connection's MR (another PD).
        return {w.INV_STAG, w.NOT_ASSOC}, None
    if not r.valid:
        return {w.INV_STAG}, r
    causes = set()
    if right not in r.rights:
        causes.add(w.ACCESS)
    if to + length > 1 << 64:
        causes |= {w.TO_WRAP, w.BOUNDS}
    elif to < r.base or to + length > r.base + r.length:
        causes.add(w.BOUNDS)
    return causes, r


TAGGED_OF = {w.INV_STAG: w.DDP_T_INV_STAG, w.BOUNDS: w.DDP_T_BOUNDS,
             w.NOT_ASSOC: w.DDP_T_NOT_ASSOC, w.TO_WRAP: w.DDP_T_WRAP}


def ctrl_causes(c0, c1):
    causes = set()
    tagged = bool(c0 & w.DDP_T)
    if c0 & 0x03 != 1:
        causes.add(w.ddp_t(w.DDP_T_VERSION) if tagged
                   else w.ddp_u(w.DDP_U_VERSION))
    if c1 >> 6 != 1:
        causes.add(w.rdmap_op(w.RDMAP_VERSION))
    op = c1 & 0x1f
    if op not in w.SUPPORTED or (op in w.TAGGED_OPS) != tagged:
        causes.add(w.rdmap_op(w.UNEXP_OPCODE))
    return causes


FIXED_PAYLOAD = {w.READ_REQ: 0, w.ATOMIC_REQ: 0, w.ATOMIC_RESP: 0,
                 w.FLUSH_REQ: 0, w.FLUSH_RESP: 0, w.ATOMIC_WRITE_REQ: 0,
                 w.ATOMIC_WRITE_RESP: 0, w.IMM: 8, w.IMM_SE: 8}
WHOLE = w.REQUESTS | w.RESPONSES | w.IMMS


class Segment:
    """One FPDU's header, parsed, and what accepting it would do."""

    def __init__(self, op, hdr, plen, last):
        self.op, self.hdr, self.plen, self.last = op, hdr, plen, last
        self.place = None       # (blob offset) the payload lands at
        self.sink_place = None  # (sink blob offset) the same, in the sink
        self.opens = False      # a Send's first segment: takes a receive
        self.done = None        # callable(st, payload) -> causes
        self.causes = set()


def header(st, seg):
    """The causes of a segment's header; fills in what it does."""
    op, h, plen = seg.op, seg.hdr, seg.plen
    causes = seg.causes
    if op in FIXED_PAYLOAD:
        if plen > FIXED_PAYLOAD[op]:
            causes.add(w.ddp_u(w.DDP_U_TOO_LONG))
        elif plen < FIXED_PAYLOAD[op]:
            causes.add(w.rdmap_op(w.CATASTROPHIC_STREAM))
    if op in w.TAGGED_OPS:
        stag, to = struct.unpack_from(">IQ", h, 2)
        if op == w.READ_RESP:
            read_resp_header(st, seg, stag, to)
            return
        bad, r = lookup(st, stag, to, plen, "w")
        causes |= {w.ddp_t(TAGGED_OF[c]) if c in TAGGED_OF
                   else w.rdmap_prot(c) for c in bad}
        if not bad:
            seg.place = r.off + to - r.base
        return
    inval, qn, msn, mo = struct.unpack_from(">IIII", h, 2)
    want = w.QN[op]
    if qn != want:
        causes.add(w.ddp_u(w.DDP_U_QN))
        return          # the queue's MSN means nothing then
    if msn != st.msn[qn]:
        causes.add(w.ddp_u(w.DDP_U_MSN))
    if op in WHOLE:
        if mo != 0:
            causes.add(w.ddp_u(w.DDP_U_MO))
        if not seg.last:
            causes.add(w.rdmap_op(w.UNEXP_OPCODE))
    body = h[w.UNTAGGED_HDR:]
    if op in w.SENDS:
        send_header(st, seg, mo, inval)
    elif op in w.IMMS:
        if st.send_open:
            # Same queue and MSN as the Send under way: one message to
            # DDP, whose opcode and offset do not continue it.
            causes |= {w.ddp_u(w.DDP_U_MO), w.rdmap_op(w.UNEXP_OPCODE),
                       w.rdmap_op(w.CATASTROPHIC_STREAM)}
        elif st.recv_next >= st.nrecv:
            causes.add(w.ddp_u(w.DDP_U_NO_BUF))
        seg.done = imm_done
    elif op == w.READ_REQ:
        read_header(st, seg, body)
    elif op == w.ATOMIC_REQ:
        atomic_header(st, seg, body)
    elif op == w.FLUSH_REQ:
        flush_header(st, seg, body)
    elif op == w.VERIFY_REQ:
        stag, length, to = struct.unpack_from(">IIQ", body)
        if plen > 64:
            causes.add(w.ddp_u(w.DDP_U_TOO_LONG))
        bad, r = lookup(st, stag, to, length, "r")
        causes |= {w.rdmap_prot(c) for c in bad}
        # No region of the target has a hash: never verifiable.
        causes.add(w.rdmap_prot(w.ACCESS))
    elif op == w.ATOMIC_WRITE_REQ:
        stag, length, to, data = struct.unpack_from(">IIQQ", body)
        if length != 8 or to & 7:
            causes.add(w.rdmap_op(w.CATASTROPHIC_STREAM))
        else:
            bad, r = lookup(st, stag, to, 8, "w")
            causes |= {w.rdmap_prot(c) for c in bad}
            if not bad:
                off = r.off + to - r.base
                seg.done = lambda s, p: aw_done(s, off, data, stag)
    elif op == w.TERMINATE:
        # Delivered, and acted on, with its last segment (RFC 5040 5.4).
        seg.done = terminate_done if seg.last else None
    elif op in w.RESPONSES:
        if op == w.VERIFY_RESP and plen > 64:
            causes.add(w.ddp_u(w.DDP_U_TOO_LONG))
        resp_header(st, seg, body)


# The kind of request each response answers.
ANSWERS = {w.ATOMIC_RESP: "atomic", w.FLUSH_RESP: "flush",
           w.VERIFY_RESP: "verify", w.ATOMIC_WRITE_RESP: "atomic_write"}
# A Terminate's cause for a failure of the target's own (local catastrophic).
LOCAL_CATASTROPHIC = (0, 0, 0)


def read_resp_header(st, seg, stag, to):
    """A Read Response segment answers the oldest outstanding request,
    which must be a Read: a response of another kind than that request
    is refused (unexpected opcode) and nothing of it lands. Its sink is the
    Read's own buffer, no octet outside it."""
    o = st.orq[0] if st.orq else None
    if o is None or o["kind"] != "read":
        seg.causes.add(w.rdmap_op(w.UNEXP_OPCODE))
        return
    if stag != o["sink_stag"]:
        seg.causes.add(w.ddp_t(w.DDP_T_INV_STAG))
        return
    if to < o["sink_to"] or to + seg.plen > o["sink_to"] + o["sink_len"]:
        seg.causes.add(w.ddp_t(w.DDP_T_BOUNDS))
        return
    seg.sink_place = st.sink_off + o["sink_off"] + to - o["sink_to"]
    if seg.last:
        seg.done = lambda s, p: retire(s, o, None)


def resp_header(st, seg, body):
    """An Atomic, Flush, Verify or Atomic Write Response: the oldest
    outstanding request must be of its kind, an Atomic's with the Request
    Identifier it names. What it returns lands when it is delivered."""
    o = st.orq[0] if st.orq else None
    if o is None or o["kind"] != ANSWERS[seg.op]:
        seg.causes.add(w.rdmap_op(w.UNEXP_OPCODE))
        return
    if seg.op == w.ATOMIC_RESP:
        req_id, orig = struct.unpack_from(">IQ", body)
        if req_id != o["req_id"]:
            seg.causes.add(w.rdmap_op(w.CATASTROPHIC_STREAM))
            return
        seg.done = lambda s, p: retire(s, o, struct.pack("<Q", orig))
    elif seg.op == w.VERIFY_RESP:
        seg.done = lambda s, p: retire(s, o, bytes(p))
    else:
        seg.done = lambda s, p: retire(s, o, None)


def retire(s, o, land):
    """Request @o (the oldest) completes: what its response returns,
    @land, goes to its buffer; a Verify's hash longer than that buffer is
    a local failure (the stream ends, nothing lands)."""
    assert s.orq and s.orq[0] is o
    if land is not None and len(land) > o["sink_len"]:
        return {LOCAL_CATASTROPHIC}, None
    s.orq.pop(0)
    if o["kind"] != "read":
        s.msn[3] += 1
    if land is not None:
        at = s.sink_off + o["sink_off"]
        s.sink[at:at + len(land)] = land
    s.wrs[o["idx"]] = (0, len(land) if o["kind"] == "verify" else None)
    return set(), None


def send_header(st, seg, mo, inval):
    causes = seg.causes
    if not st.send_open:
        if mo != 0:
            causes.add(w.ddp_u(w.DDP_U_MO))
        if st.recv_next >= st.nrecv:
            causes.add(w.ddp_u(w.DDP_U_NO_BUF))
        start = 0
    else:
        if mo != st.send_len:
            causes.add(w.ddp_u(w.DDP_U_MO))
        if seg.op != st.send_op:
            # Every segment of a message carries its opcode.
            causes.add(w.rdmap_op(w.UNEXP_OPCODE))
        start = st.send_len
    if start + seg.plen > st.recv_len:
        causes.add(w.ddp_u(w.DDP_U_TOO_LONG))
    slot = st.recv_next if not st.send_open else st.recv_next - 1
    seg.place = st.recv_off + slot * st.recv_len + start
    seg.opens = not st.send_open
    seg.done = (lambda s, p: send_done(s, seg.op, inval)) if seg.last \
        else None


def read_header(st, seg, body):
    sink, sink_to, size, src, src_to = struct.unpack_from(">IQIIQ", body)
    if size:
        bad, r = lookup(st, src, src_to, size, "r")
        seg.causes |= {w.rdmap_prot(c) for c in bad}
    else:
        r = None

    def done(s, payload):
        data = b""
        alts = {}
        if size:
            off = r.off + src_to - r.base
            data = bytes(s.mem[off:off + size])
            s.pending.append(("read", off, size, alts, src))
        s.msn[1] += 1
        return set(), ("read", sink, sink_to, data, alts)
    seg.done = done


def atomic_header(st, seg, body):
    aop, req_id, stag, to, data, mask, cmp, cmp_mask = \
        struct.unpack_from(">IIIQQQQQ", body)
    aop &= 0xf
    if aop not in (0, 2):
        seg.causes.add(w.rdmap_op(w.UNEXP_OPCODE))
    if to & 7:
        seg.causes.add(w.rdmap_op(w.CATASTROPHIC_STREAM))
    bad, r = lookup(st, stag, to, 8, "a")
    seg.causes |= {w.rdmap_prot(c) for c in bad}
    if seg.causes:
        return

    def done(s, payload):
        off = r.off + to - r.base
        orig = s.word(off)
        s.executed.append((off, s.mem[off:off + 8]))
        new = (w.fetch_add(orig, data, mask) if aop == 0 else
               w.cmp_swap(orig, cmp, cmp_mask, data, mask))
        struct.pack_into("<Q", s.mem, off, new)
        s.msn[1] += 1
        racy = {"any": False}
        s.pending.append(("atomic", off, 8, racy, stag))
        return set(), ("atomic", req_id, orig, racy)
    seg.done = done


def flush_header(st, seg, body):
    stag, length, to, flags = struct.unpack_from(">IIQI", body)
    flags &= 0xff
    if not flags & 0x03 or flags & ~0x07:
        seg.causes.add(w.rdmap_op(w.CATASTROPHIC_STREAM))
        return
    r = st.region(stag)
    if flags & 0x04 and r is not None and r.valid:
        to, length = r.base, r.length
    bad, r = lookup(st, stag, to, length, "f")
    if flags & 0x01:                    # persistence: no region gives it
        bad.add(w.ACCESS)
    seg.causes |= {w.rdmap_prot(c) for c in bad}

    def done(s, payload):
        s.msn[1] += 1
        s.pending.append(("flush", 0, 0, None, stag))
        return set(), ("flush",)
    seg.done = done


def aw_done(s, off, data, stag):
    s.executed.append((off, s.mem[off:off + 8]))
    struct.pack_into("<Q", s.mem, off, data)
    s.msn[1] += 1
    s.pending.append(("atomic_write", off, 8, None, stag))
    return set(), ("atomic_write",)


def placed_after(s, at, payload):
    """@payload was placed at blob offset @at, after the requests in
    s.pending were delivered but maybe before they were carried out
    (RFC 5040 section 5.5: a Read Response may carry a later RDMA Write's
    data; RFC 7306 section 7: a later Write may be placed before an
    Atomic): a Read's response may hold either octet, an Atomic's or
    Atomic Write's word anything of the two (the target's memory tells)."""
    end = at + len(payload)
    for kind, off, length, mark, _ in s.pending:
        lo, hi = max(off, at), min(off + length, end)
        if lo >= hi:
            continue
        if kind == "read":
            for o in range(lo, hi):
                mark.setdefault(o - off, set()).add(payload[o - at])
        elif kind in ("atomic", "atomic_write"):
            if mark is not None:
                mark["any"] = True
            s.racy.update(range(off, off + 8))


def send_done(s, op, inval):
    slot = s.recv_next - 1
    flags, inv = 0, 0
    if op in w.INVALIDATES:
        r = s.region(inval)
        if r is None:
            return {w.rdmap_prot(w.INV_STAG),
                    w.rdmap_prot(w.CANT_INVALIDATE)}, None
        if not r.valid:
            return {w.rdmap_prot(w.INV_STAG)}, None
        r.valid = False
        # A request of this judge() on it may find it invalid when the
        # target carries it out: a local catastrophic Terminate then.
        if any(p[4] == inval for p in s.pending):
            s.inval_race = True
        flags, inv = WITH_INVALIDATE, inval
    s.completions[slot] = (s.send_len, flags, 0, inv)
    s.send_open = False
    s.send_len = 0
    s.msn[0] += 1
    return set(), None


def imm_done(s, payload):
    slot = s.recv_next
    s.recv_next += 1
    s.completions[slot] = (0, WITH_IMM, int.from_bytes(payload[4:8], "big"),
                           0)
    s.msn[0] += 1
    return set(), None


def terminate_done(s, payload):
    s.msn[2] += 1
    return "closed", None


def may_land(v, seg, payload):
    """An FPDU whose header passed but which was never accepted (cut
    short, or a bad CRC): its payload may have been placed already."""
    if seg.place is not None:
        for i, b in enumerate(payload):
            v.may.setdefault(seg.place + i, set()).add(b)
    if seg.sink_place is not None:
        for i, b in enumerate(payload):
            v.may_sink.setdefault(seg.sink_place + i, set()).add(b)


def first_bad_marker(marks, pos, end, n):
    """The data offset of the first marker of the FPDU at [@pos, @end)
    (received: at or before @n) whose FPDUPTR is not the distance from the
    FPDU's start (its leading marker or length field), or None. A marker
    at @end leads the next FPDU."""
    count = 0
    for m, ptr in marks:
        if m < pos:
            continue
        if m >= end or m > n:
            break
        if ptr != m - pos + w.MARKER_LEN * count:
            return m
        count += 1
    return None


def wire_body(data, marks, pos, stop):
    """data[@pos:@stop] as it was on the wire: with the markers that came
    before each octet (the FPDU's leading one included) and before @stop."""
    out, d = bytearray(), pos
    for m, mk in marks:
        if pos <= m <= stop:
            out += data[d:m] + mk
            d = m
    return bytes(out + data[d:stop])


def unmark(wire, wire_pos):
    """The markers out of @wire, whose first octet is octet @wire_pos of
    the marked stream (one marker before each octet at a multiple of 512).
    Returns (the octets without them, [(data offset, marker)]); a marker
    cut short by the end of @wire is left out: not yet checked."""
    data, marks, i = bytearray(), [], 0
    while i < len(wire):
        at = (wire_pos + i) % w.MARKER_PERIOD
        if at == 0:
            if len(wire) - i < w.MARKER_LEN:
                break
            marks.append((len(data), wire[i:i + w.MARKER_LEN]))
            i += w.MARKER_LEN
            continue
        take = min(len(wire) - i, w.MARKER_PERIOD - at)
        data += wire[i:i + take]
        i += take
    return bytes(data), marks


def judge(st, data, crc, eof=False, markers=False):
    """See _judge(). Requests are answered by the target's transmit
    engine, after what came behind them may have been placed: a later
    RDMA Write over a Read's source or an Atomic's word makes those
    octets the target's choice (Verdict.racy, and the Read's response
    may hold either), and a later Send with Invalidate of a request's
    STag may make the target end the stream with a local catastrophic
    Terminate instead of answering (Verdict.alt). An Atomic or Atomic Write Request delivered before
    the FPDU that ends the stream is carried out when its response is
    made: the Terminate may come first, so its word may hold the value
    before or after it (RFC 5040 leaves requests not yet answered to the
    responder once the stream ends)."""
    st.executed = []
    st.pending, st.racy, st.inval_race = [], set(), False
    v = _judge(st, data, crc, eof, markers)
    if v.kind == "ok":
        v.racy = set(st.racy)
        if st.inval_race:
            v.alt = {LOCAL_CATASTROPHIC}
            # Ended that way, the Atomics and Atomic Writes not carried
            # out yet never change their word.
            for off, before in st.executed:
                for i in range(8):
                    v.alt_may.setdefault(off + i, set()).update(
                        (before[i], st.mem[off + i]))
    st.pending, st.racy, st.inval_race = [], set(), False
    if v.kind in ("term", "closed"):
        for off, before in st.executed:
            for i in range(8):
                v.may.setdefault(off + i, set()).update(
                    (before[i], st.mem[off + i]))
    st.executed = []
    return v


def _judge(st, data, crc, eof=False, markers=False):
    """Predict what the receiver does with @data (see the module's text).
    @st is updated with every effect that must have happened; effects that
    may have happened go to the verdict's @may. With @markers, @data
    carries MPA markers, its first octet at @st.wire_pos of the stream.
    A marker is checked as it arrives: a wrong FPDUPTR is the fault when
    it comes before the octet that shows another one (the FPDU's first
    four for its control field and length, the end of its header, its CRC
    field). FPDUPTR has 16 bits: a marker 64 KiB or more into its FPDU
    cannot point at its start (such an FPDU is longer than any MULPDU)."""
    v = Verdict()
    marks = ()
    if markers:
        data, marks = unmark(data, st.wire_pos)
    pos, n = 0, len(data)
    ptrs = [(m, struct.unpack_from(">H", mk, 2)[0]) for m, mk in marks]

    def marker_first(bad, d):
        if bad is not None and bad < d:
            v.kind, v.causes = "term", {w.llp(w.MPA_MARKER)}
            return True
        return False

    while pos < n or eof:
        bad = first_bad_marker(ptrs, pos, pos + 4, n)
        if n - pos < 4:
            if marker_first(bad, n + 1):
                return v
            if pos == n:
                return v
            v.kind, v.stall_need = "stall", 4 - (n - pos)
            return v
        ulen = (data[pos] << 8) | data[pos + 1]
        end = pos + 2 + ulen + w.pad_len(ulen) + 4
        bad = first_bad_marker(ptrs, pos, end, n)
        c0, c1 = data[pos + 2], data[pos + 3]
        op = c1 & 0x1f
        v.where = f"fpdu {v.fpdus} at {pos}: op {op:#x} ulpdu {ulen}"
        causes = ctrl_causes(c0, c1)
        if causes:
            if ulen < 2:
                causes.add(w.llp(w.MPA_REQ))
            if not marker_first(bad, pos + 4):
                v.kind, v.causes = "term", causes
            return v
        hl = w.hdr_len(op)
        if ulen < hl:
            if not marker_first(bad, pos + 4):
                v.kind, v.causes = "term", {w.llp(w.MPA_REQ)}
            return v
        if n - pos < 2 + hl:
            if not marker_first(bad, n + 1):
                v.kind, v.stall_need = "stall", 2 + hl - (n - pos)
            return v
        seg = Segment(op, data[pos + 2:pos + 2 + hl], ulen - hl,
                      bool(c0 & w.DDP_L))
        header(st, seg)
        if seg.causes:
            if not marker_first(bad, pos + 2 + hl):
                v.kind, v.causes = "term", seg.causes
            return v
        if seg.opens:
            st.send_open = True
            st.send_op = op
            st.send_len = 0
            st.recv_next += 1
        pstart = pos + 2 + hl
        payload = data[pstart:min(pstart + seg.plen, n)]
        if n < end or bad is not None:
            may_land(v, seg, payload)
            if not marker_first(bad, n + 1):
                v.kind, v.stall_need = "stall", end - n
            return v
        if crc:
            body = wire_body(data, marks, pos, end - 4)
            got = struct.unpack_from("<I", data, end - 4)[0]
            if got != w.crc32c(body):
                may_land(v, seg, payload)
                v.kind, v.causes = "term", {w.llp(w.MPA_CRC)}
                return v
        if seg.place is not None:
            st.mem[seg.place:seg.place + len(payload)] = payload
            if st.pending:
                placed_after(st, seg.place, payload)
        if seg.sink_place is not None:
            st.sink[seg.sink_place:seg.sink_place + len(payload)] = payload
        if op in w.SENDS:
            st.send_len += seg.plen
        v.fpdus += 1
        pos = end
        if seg.done:
            bad, resp = seg.done(st, payload)
            if bad == "closed":
                v.kind = "closed"
                return v
            if bad:
                v.kind, v.causes = "term", bad
                return v
            if resp:
                v.responses.append(resp)
    return v
