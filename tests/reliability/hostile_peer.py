#!/usr/bin/python3
"""A hostile iWARP peer: connects to xiwtarget (tests/reliability/target)
over plain TCP, completes a real MPA revision 2 handshake, then sends
crafted and mutated FPDUs and checks every answer against model.judge().

  hostile_peer.py HOST PORT --frames N --seed S [--first K] [--responses]

With --responses (stateful response fuzzing, responses.py) each case
first has the target post requests of its own while its ORD has room
(debugfs N/post), checks each request on the wire, then answers what is
outstanding with a sequence of responses, right or wrong; the oracles
add the target's work request completions (which one completes, success
or error: model.judge()) and its sink, canary pages included.

For each case (one or a few FPDUs, valid or mutated, split at random
points across TCP segments, then a probe: a valid 8-octet Read of the
read-only region) the oracles are:
  - the target's answer is the one the model predicts: the responses of
    accepted requests (Read data, Atomic original values) and the probe's,
    or a Terminate whose layer/type/code is one the RFCs allow, after
    which nothing more is answered and the stream closes, or a close
    without a Terminate after a valid one from us;
  - the target's memory (debugfs xiwtarget/N/mem, canary pages around
    each region included) is what the accepted messages made it, octet for
    octet: nothing lands outside a registered, permitted range, and a
    rejected atomic or Atomic Write changes nothing;
  - when a connection ends: its QP is in the error state, every receive
    completed exactly once (successfully, with the length, immediate
    data and invalidated STag the model expects, or flushed);
  - every FPDU the target sends has a correct CRC when CRC is on, and its
    responses carry the right MSNs and STags.
A case's randomness comes from (seed, case number) alone, and every
connection starts fresh: --first K --frames M replays cases K.. of a run
(a finding prints the first case of its connection). Exit 0 when no
finding, 1 with the findings as JSON lines.
"""
import argparse
import json
import os
import random
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model  # noqa: E402
import responses  # noqa: E402
import wire as w  # noqa: E402

DEBUGFS = "/sys/kernel/debug/xiwtarget"
QPS_ERR = 6
# A bound on waiting for the target, against a hang: never a timing check.
PATIENCE = 30.0
PROBE_SINK = 0x50524F42


class Finding(Exception):
    pass


def ensure_debugfs():
    if not os.path.isdir(DEBUGFS):
        subprocess.run(["mount", "-t", "debugfs", "none",
                        "/sys/kernel/debug"], check=False)


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


class Link:
    """One connection: the socket, the handshake, FPDU in and out."""

    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=PATIENCE)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.eof = False
        # Revision 2, enhanced (IRD 8, ORD 8), no markers toward us; CRC
        # and markers toward the target as its policy says.
        self.sock.sendall(w.mpa_request(8, 8))
        hdr = self.recv_exact(20)
        rep = w.mpa_reply_header(hdr)
        if rep is None or rep[0] & w.MPA_R:
            raise Finding(f"no accepting MPA Reply: {hdr!r}")
        self.crc = bool(rep[0] & w.MPA_C)
        self.markers = bool(rep[0] & w.MPA_M)
        pd = self.recv_exact(rep[1])
        self.acc = w.xt_accept(pd)
        if self.acc is None:
            raise Finding(f"not xiwtarget: {pd!r}")
        ready = self.fpdu()
        if ready is None or ready[1] & 0x1f != w.SEND or \
                not ready[18:].startswith(b"XTGT ready"):
            raise Finding(f"no READY: {ready!r}")
        self.tmsn = {0: 2, 1: 1, 3: 1}  # the target's next MSN per queue
        self.dir = os.path.join(DEBUGFS, str(self.acc["conn"]))

    def recv_exact(self, n):
        while len(self.buf) < n:
            try:
                data = self.sock.recv(65536)
            except ConnectionResetError:
                data = b""
            if not data:
                self.eof = True
                return None
            self.buf += data
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def fpdu(self):
        """The next ULPDU from the target (CRC checked), None at the end
        of the stream."""
        raw = self.recv_exact(2)
        if raw is None:
            return None
        ulen = struct.unpack(">H", raw)[0]
        rest = self.recv_exact(ulen + w.pad_len(ulen) + 4)
        if rest is None:
            raise Finding("the target's stream ended inside an FPDU")
        if self.crc:
            got = struct.unpack_from("<I", rest, len(rest) - 4)[0]
            if got != w.crc32c(raw + rest[:-4]):
                raise Finding("an FPDU from the target has a bad CRC")
        return rest[:ulen]

    def send(self, data, cuts):
        """Send @data in pieces ending at @cuts. The target may end the
        stream (a reset) before it has all of it: what it answered until
        then is still to be read."""
        last = 0
        try:
            for c in cuts + [len(data)]:
                if c > last:
                    self.sock.sendall(data[last:c])
                last = c
        except (ConnectionResetError, BrokenPipeError):
            pass

    def shutdown(self):
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def state_of(link):
    """The target's view of the connection (debugfs state)."""
    out = {"recv": [], "wr": {}}
    for line in read_file(os.path.join(link.dir, "state")).decode().splitlines():
        k, _, rest = line.partition(" ")
        if k == "wr":
            f = rest.split()
            out["wr"][int(f[0])] = {f[i]: int(f[i + 1])
                                    for i in range(1, len(f) - 1, 2)}
        elif k == "recv":
            f = rest.split()
            out["recv"].append({f[i]: int(f[i + 1])
                                for i in range(1, len(f) - 1, 2)})
        else:
            out[k] = rest
    return out


def reap(link):
    with open(os.path.join(DEBUGFS, "reap"), "w") as f:
        f.write(str(link.acc["conn"]))


# ---- generation -------------------------------------------------------

SIZES = [0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 63, 64, 100, 255, 256, 257, 511,
         1000, 1024, 4095, 4096, 4097, 8191, 8192]


def pick_len(rng, room):
    if rng.random() < 0.5:
        return rng.randrange(0, min(room, 300) + 1)
    return min(rng.choice(SIZES), room)


def pick_region(rng, st, rights="w"):
    ok = [r for r in st.regions if r.valid and set(rights) <= r.rights]
    if ok and rng.random() < 0.9:
        return rng.choice(ok)
    return rng.choice(st.regions)


def rand_bytes(rng, n):
    return rng.getrandbits(8 * n).to_bytes(n, "little") if n else b""


# Fields of each header that mutations aim at: (offset in the ULPDU,
# width, kind).
UNTAGGED_FIELDS = [(2, 4, "stag"), (6, 4, "qn"), (10, 4, "msn"),
                   (14, 4, "mo")]
TAGGED_FIELDS = [(2, 4, "stag"), (6, 8, "to")]
EXTRA_FIELDS = {
    w.READ_REQ: [(18, 4, "stag"), (22, 8, "to"), (30, 4, "len"),
                 (34, 4, "stag"), (38, 8, "to")],
    w.ATOMIC_REQ: [(18, 4, "int"), (22, 4, "int"), (26, 4, "stag"),
                   (30, 8, "to"), (38, 8, "int"), (46, 8, "int"),
                   (54, 8, "int"), (62, 8, "int")],
    w.FLUSH_REQ: [(18, 4, "stag"), (22, 4, "len"), (26, 8, "to"),
                  (34, 4, "int")],
    w.VERIFY_REQ: [(18, 4, "stag"), (22, 4, "len"), (26, 8, "to")],
    w.ATOMIC_WRITE_REQ: [(18, 4, "stag"), (22, 4, "len"), (26, 8, "to"),
                         (34, 8, "int")],
    w.TERMINATE: [(18, 4, "int")],
    w.ATOMIC_RESP: [(18, 4, "int"), (22, 8, "int")],
}


def fields_of(ulpdu):
    op = ulpdu[1] & 0x1f
    if ulpdu[0] & w.DDP_T:
        return TAGGED_FIELDS
    return UNTAGGED_FIELDS + EXTRA_FIELDS.get(op, [])


def boundary(rng, st, width, kind, cur):
    top = (1 << (8 * width)) - 1
    vals = [0, 1, top, top - 1, 1 << (8 * width - 1), cur + 1, cur - 1,
            cur ^ (1 << rng.randrange(8 * width)), rng.getrandbits(8 * width)]
    if kind == "stag":
        vals += [r.stag for r in st.regions] + [st.regions[0].stag ^ 0xff,
                                                 st.regions[0].stag + 0x100]
    if kind == "to":
        r = rng.choice(st.regions)
        vals += [r.base - 1, r.base + r.length, r.base + r.length - 1,
                 r.base + r.length - 8, top - 7, r.base + 4]
    if kind == "msn":
        vals += [st.msn[q] + d for q in range(4) for d in (-1, 0, 1)]
    if kind == "qn":
        vals += [0, 1, 2, 3, 4]
    if kind == "len":
        vals += [8, 4096, 4097, 8192, 8193, 65536]
    return rng.choice(vals) & top


def mutate(rng, st, ulpdu):
    u = bytearray(ulpdu)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        m = rng.random()
        if m < 0.55 and len(u) >= 2:
            fields = [f for f in fields_of(u) if f[0] + f[1] <= len(u)]
            if not fields:
                continue
            off, width, kind = rng.choice(fields)
            cur = int.from_bytes(u[off:off + width], "big")
            val = boundary(rng, st, width, kind, cur)
            u[off:off + width] = val.to_bytes(width, "big")
        elif m < 0.75 and len(u) >= 2:
            i = rng.randrange(2)
            u[i] ^= 1 << rng.randrange(8)
        elif m < 0.85 and u:
            u[rng.randrange(len(u))] = rng.getrandbits(8)
        elif m < 0.95:
            cut = rng.randrange(len(u) + 1)
            u = u[:cut]
        else:
            u += rand_bytes(rng, rng.choice((1, 4, 8, 64, 300)))
    return bytes(u)


def gen_ulpdus(rng, st):
    """One message, valid for @st (before any mutation): a list of
    ULPDUs (several segments for some)."""
    kinds = ["write"] * 6 + ["read"] * 4 + ["send"] * 5 + ["imm"] * 2 + \
        ["atomic"] * 4 + ["atomic_write"] * 3 + ["flush"] * 2 + \
        ["verify", "terminate", "response", "reserved", "send_inv"]
    kind = rng.choice(kinds)
    if st.send_open and rng.random() < 0.7:
        kind = "send"
    if kind == "write":
        r = pick_region(rng, st, "w")
        n = pick_len(rng, r.length)
        to = r.base + rng.randrange(0, r.length - n + 1)
        data = rand_bytes(rng, n)
        segs = rng.choice((1, 1, 1, 2, 3))
        cuts = sorted(rng.randrange(n + 1) for _ in range(segs - 1))
        out, last = [], 0
        for i, c in enumerate(cuts + [n]):
            out.append(w.tagged(w.WRITE, r.stag, to + last, data[last:c],
                                last=i == len(cuts)))
            last = c
        return out
    if kind == "read":
        r = pick_region(rng, st, "r")
        n = pick_len(rng, r.length)
        to = r.base + rng.randrange(0, r.length - n + 1)
        return [w.untagged(w.READ_REQ, st.msn[1], w.read_req(
            rng.getrandbits(32), rng.getrandbits(64), n, r.stag, to))]
    if kind in ("send", "send_inv"):
        op = rng.choice((w.SEND, w.SEND_SE)) if kind == "send" else \
            rng.choice((w.SEND_INV, w.SEND_SE_INV))
        if st.send_open and rng.random() < 0.9:
            op = st.send_op         # the rest of the Send under way
        start = st.send_len if st.send_open else 0
        n = pick_len(rng, st.recv_len - start)
        data = rand_bytes(rng, n)
        inval = rng.choice([r.stag for r in st.regions]
                           + [rng.getrandbits(32)])
        segs = rng.choice((1, 1, 2, 3))
        cuts = sorted(rng.randrange(n + 1) for _ in range(segs - 1))
        out, last = [], 0
        end_open = rng.random() < 0.1
        for i, c in enumerate(cuts + [n]):
            final = i == len(cuts) and not end_open
            out.append(w.untagged(op, st.msn[0], data[last:c],
                                  mo=start + last, last=final, inval=inval))
            last = c
        return out
    if kind == "imm":
        return [w.untagged(rng.choice((w.IMM, w.IMM_SE)), st.msn[0],
                           rand_bytes(rng, 8))]
    if kind == "atomic":
        r = pick_region(rng, st, "a")
        to = r.base + 8 * rng.randrange(r.length // 8)
        aop = rng.choice((0, 2))
        cur = st.word(r.off + to - r.base) if r.base <= to < r.base + \
            r.length else 0
        cmp = cur if rng.random() < 0.5 else rng.getrandbits(64)
        mask = rng.choice((0, w.M64, rng.getrandbits(64), 1 << 63,
                           0x8000000080000000))
        return [w.untagged(w.ATOMIC_REQ, st.msn[1], w.atomic_req(
            aop, rng.getrandbits(32), r.stag, to, rng.getrandbits(64), mask,
            cmp, rng.choice((w.M64, rng.getrandbits(64)))))]
    if kind == "atomic_write":
        r = pick_region(rng, st, "w")
        to = r.base + 8 * rng.randrange(r.length // 8)
        return [w.untagged(w.ATOMIC_WRITE_REQ, st.msn[1], w.atomic_write_req(
            r.stag, to, rng.getrandbits(64)))]
    if kind == "flush":
        r = pick_region(rng, st, "f")
        n = pick_len(rng, r.length)
        to = r.base + rng.randrange(0, r.length - n + 1)
        flags = rng.choice((0x02, 0x02, 0x06, 0x01, 0x03))
        return [w.untagged(w.FLUSH_REQ, st.msn[1],
                           w.flush_req(r.stag, n, to, flags))]
    if kind == "verify":
        r = pick_region(rng, st, "r")
        return [w.untagged(w.VERIFY_REQ, st.msn[1],
                           w.verify_req(r.stag, 64, r.base)
                           + rand_bytes(rng, rng.choice((0, 4, 32))))]
    if kind == "terminate":
        ctrl = (rng.randrange(3) << 28 | rng.randrange(3) << 24
                | rng.randrange(10) << 16)
        return [w.untagged(w.TERMINATE, st.msn[2], struct.pack(">I", ctrl))]
    if kind == "response":
        op = rng.choice((w.ATOMIC_RESP, w.FLUSH_RESP, w.VERIFY_RESP,
                         w.ATOMIC_WRITE_RESP, w.READ_RESP))
        if op == w.READ_RESP:
            return [w.tagged(op, st.regions[0].stag, st.regions[0].base,
                             b"x" * 8)]
        body = struct.pack(">IQ", 1, 2) if op == w.ATOMIC_RESP else b""
        return [w.untagged(op, 1, body)]
    op = rng.randrange(0x12, 0x20)
    return [w.ctrl(op, tagged=False) + struct.pack(">IIII", 0, 0, 1, 0)]


# Findings of the fuzzing, replayed as fixed cases (--regression NAME):
# each a list of cases, each case the ULPDUs it sends for a state.
def _open_send(st):
    return [w.untagged(w.SEND, st.msn[0], b"s" * 200, last=False)]


REGRESSIONS = {
    # An Immediate Data message with the MSN of a Send whose last segment
    # had not come took a second receive: the first one's completion was
    # lost (it never completed, not even flushed).
    "immediate_data_inside_a_send": [
        _open_send,
        lambda st: [w.untagged(w.IMM, st.msn[0], b"i" * 8)]],
    # The rest of a Send under way, with another opcode.
    "send_continued_with_another_opcode": [
        _open_send,
        lambda st: [w.untagged(w.SEND_SE, st.msn[0], b"t" * 20, mo=200)]],
    # Reads of the read-only region (their responses keep the transmit
    # engine busy), a Read of the read-write region, then a Send with
    # Invalidate of its STag: that Read's response was being framed when
    # its source was found invalid, and what of it was in the batch went
    # out before the Terminate: a bad CRC, or the stream ending inside
    # an FPDU.
    "read_then_its_source_invalidated": [
        lambda st: [
            w.untagged(w.READ_REQ, st.msn[1] + i, w.read_req(
                0x5EAD, i << 12, st.regions[1].length, st.regions[1].stag,
                st.regions[1].base)) for i in range(6)] + [
            w.untagged(w.READ_REQ, st.msn[1] + 6, w.read_req(
                0x5EAD, 0x10000, 16, st.regions[0].stag,
                st.regions[0].base)),
            w.untagged(w.SEND_INV, st.msn[0], b"x" * 16,
                       inval=st.regions[0].stag)]],
    # An Atomic on a word of the read-write region, then a Write over it:
    # the Write may be placed first (RFC 7306 section 7), and the Atomic
    # then works on its data: the model takes either order.
    "atomic_then_a_write_over_its_word": [
        lambda st: [
            w.untagged(w.ATOMIC_REQ, st.msn[1], w.atomic_req(
                0, 0x1D, st.regions[0].stag, st.regions[0].base + 64, 5,
                w.M64)),
            w.tagged(w.WRITE, st.regions[0].stag, st.regions[0].base + 60,
                     b"W" * 16)]],
}


def serialize(rng, ulpdus, crc):
    """FPDUs, with now and then a corruption only MPA sees."""
    out = b""
    for u in ulpdus:
        f = bytearray(w.fpdu(u, crc))
        m = rng.random()
        if m < 0.04:
            ln = struct.unpack_from(">H", f)[0]
            ln = rng.choice((0, 1, ln - 1, ln + 1, ln + 4, 0xffff,
                             rng.getrandbits(16)))
            struct.pack_into(">H", f, 0, ln & 0xffff)
        elif m < 0.06 and crc:
            f[-1 - rng.randrange(4)] ^= 1 << rng.randrange(8)
        elif m < 0.07 and w.pad_len(len(u)):
            f[2 + len(u)] = 0xff
            if crc:
                body = bytes(f[:-4])
                f[-4:] = struct.pack("<I", w.crc32c(body))
        out += bytes(f)
    return out


def complete(rng, st, data, crc):
    """Filler after a stream the receiver would wait on, so that every
    case ends (zeros; with CRC on, half the time a correct CRC)."""
    for _ in range(8):
        v = model.judge(st.copy(), data, crc)
        if v.kind != "stall":
            return data
        fill = bytearray(v.stall_need)
        data += bytes(fill)
        if crc and rng.random() < 0.5:
            # Sign the FPDU the filler completed.
            start = len(data) - 4
            data = data[:start] + struct.pack(
                "<I", w.crc32c(data[last_fpdu_start(data):start]))
    return data


def last_fpdu_start(data):
    pos = 0
    while True:
        ulen = struct.unpack_from(">H", data, pos)[0]
        end = pos + 2 + ulen + w.pad_len(ulen) + 4
        if end >= len(data):
            return pos
        pos = end


def probe(st, case, crc):
    """A valid Read after the case: its response says that everything
    before it was taken. 8 octets of a region whose STag is still valid,
    else none. Returns the FPDU and the response it must get."""
    for r in reversed(st.regions):
        if r.valid:
            to = r.base + 8 * (case % (r.length // 8))
            off = r.off + to - r.base
            data, size, stag = bytes(st.mem[off:off + 8]), 8, r.stag
            break
    else:
        to, data, size, stag = 0, b"", 0, 0
    u = w.untagged(w.READ_REQ, st.msn[1], w.read_req(
        PROBE_SINK, case, size, stag, to))
    return w.fpdu(u, crc), ("read", PROBE_SINK, case, data)


def tampered_marker(rng, mk):
    """A marker changed: its FPDUPTR (a fault, unless it happens to be
    the right value), its reserved half (ignored on receipt), or both."""
    res, ptr = struct.unpack(">HH", mk)
    m = rng.random()
    if m < 0.7:
        ptr = rng.choice((ptr + 4, ptr - 4, ptr + 1, ptr ^ 0x8000, 0, 0xffff,
                          rng.getrandbits(16))) & 0xffff
    if m >= 0.5:
        res = rng.choice((1, 0x8000, 0xffff, rng.getrandbits(16)))
    return struct.pack(">HH", res, ptr)


def on_wire(rng, st, data, crc, markers, tamper_below):
    """@data as it goes to the target: with the markers it asked for, one
    of those among the first @tamper_below octets now and then tampered
    with. Returns (octets, markers as (data offset, wire offset, octets))."""
    if not markers:
        return data, []
    marked = w.mark(data, st.wire_pos, crc)
    which = [i for i, mk in enumerate(marked[1]) if mk[0] < tamper_below]
    if which and rng.random() < 0.15:
        # Marked again, this time with the tamper: the CRCs cover it.
        tamper = {rng.choice(which): lambda mk: tampered_marker(rng, mk)}
        return w.mark(data, st.wire_pos, crc, tamper)
    return marked


def cut_points(rng, n):
    m = rng.random()
    if m < 0.6 or n < 2:
        return []
    if m < 0.9:
        return sorted(rng.sample(range(1, n), min(n - 1, rng.randrange(1, 4))))
    if n <= 256:
        return list(range(1, n))        # one octet per segment
    return sorted(rng.sample(range(1, n), 8))


# ---- the checks -------------------------------------------------------

def collect(link, verdict, probe_resp, truncated=False):
    """Read what the target answers to one case. Returns ("ok", [])
    once the probe's response is complete, ("term", causes) after a
    Terminate and the close that follows it, ("closed", None) at the end
    of the stream without one."""
    expect = list(verdict.responses)
    if probe_resp:
        expect.append(probe_resp)
    got_term = None
    read_acc = None
    while True:
        u = link.fpdu()
        if u is None:
            if got_term is not None:
                return "term", got_term
            if verdict.kind == "ok" and not truncated:
                raise Finding("the target closed without a Terminate")
            return "closed", None
        if got_term is not None:
            raise Finding(f"an FPDU after the Terminate: {u.hex()}")
        op = u[1] & 0x1f
        if u[0] & w.DDP_T:
            if op != w.READ_RESP or not expect or expect[0][0] != "read":
                raise Finding(f"unexpected tagged FPDU {u.hex()[:80]}")
            sink, sink_to, data = expect[0][1:4]
            # Octets a later Write may have changed first (model.judge()).
            alts = expect[0][4] if len(expect[0]) > 4 else {}
            stag, to = struct.unpack_from(">IQ", u, 2)
            if read_acc is None:
                read_acc = b""
            # The Data Sink's offsets are 64-bit: a range that wraps is
            # the requester's to refuse (DDP's TO wrap), not the target's.
            want_to = (sink_to + len(read_acc)) & w.M64
            if stag != sink or to != want_to:
                raise Finding(f"Read Response to {stag:#x}/{to:#x}, "
                              f"wanted {sink:#x}/{want_to:#x}")
            read_acc += u[14:]
            if u[0] & w.DDP_L:
                bad = [i for i, (a, b) in enumerate(zip(read_acc, data))
                       if a != b and a not in alts.get(i, ())]
                if bad or len(read_acc) != len(data):
                    at = bad[0] if bad else min(len(read_acc), len(data))
                    raise Finding(f"Read Response data differs from memory "
                                  f"at octet {at} of {len(data)}: "
                                  f"{read_acc[at:at + 16].hex()} != "
                                  f"{data[at:at + 16].hex()}")
                expect.pop(0)
                read_acc = None
                if not expect and probe_resp:
                    return "ok", None
            continue
        qn, msn = struct.unpack_from(">II", u, 6)
        if op == w.TERMINATE:
            ctrl = struct.unpack_from(">I", u, 18)[0]
            got_term = w.cause_of(ctrl)
            # As a peer's RNIC would: the stream is over, close our half
            # (the target waits for it before it closes its own).
            link.shutdown()
            continue
        if qn != 3 or msn != link.tmsn[3]:
            raise Finding(f"untagged FPDU on queue {qn} MSN {msn}: {u.hex()}")
        link.tmsn[3] += 1
        if not expect:
            raise Finding(f"a response nothing asked for: {u.hex()}")
        kind = expect[0][0]
        want_op = {"atomic": w.ATOMIC_RESP, "flush": w.FLUSH_RESP,
                   "atomic_write": w.ATOMIC_WRITE_RESP}.get(kind)
        if op != want_op:
            raise Finding(f"response {op:#x}, wanted {kind}: {u.hex()}")
        if kind == "atomic":
            req_id, orig = struct.unpack_from(">IQ", u, 18)
            # A later Write over its word: any original (model.judge()).
            racy = expect[0][3]["any"] if len(expect[0]) > 3 else False
            if req_id != expect[0][1] or (orig != expect[0][2] and
                                          not racy):
                raise Finding(f"Atomic Response {req_id:#x}/{orig:#x}, "
                              f"wanted {expect[0][1]:#x}/{expect[0][2]:#x}")
        expect.pop(0)


def check_sink(link, st, may):
    """The sink of the target's own requests, canary pages included, is
    what the responses the model took made it."""
    blob = read_file(os.path.join(link.dir, "postmem"))
    if blob == st.sink:
        return
    bad = [i for i, (a, b) in enumerate(zip(blob, st.sink))
           if a != b and a not in may.get(i, ())]
    if bad or len(blob) != len(st.sink):
        off = bad[0] if bad else 0
        where = "the sink" if st.sink_off <= off < st.sink_off + \
            st.sink_len else "a canary page of the sink"
        raise Finding(f"{len(bad)} octets of the sink differ from the "
                      f"model, first at {off} ({where}): {blob[off]:#x} != "
                      f"{st.sink[off]:#x}")


def check_wrs(link, st, ended):
    """The target's work requests: each one the model completed did so
    once, successfully (a Verify with the hash's length); while the
    connection lives, none other has completed; once it ended, every
    other one completed once, in error."""
    posted = set(range(st.wr_next))
    for _ in range(400):
        s = state_of(link)
        done = {i: r for i, r in s["wr"].items() if r["status"] >= 0}
        if set(s["wr"]) == posted and (
                set(done) == posted if ended else set(done) >= set(st.wrs)):
            break
        time.sleep(0.05)
    else:
        raise Finding(f"work requests: posted {sorted(posted)}, target "
                      f"{s['wr']}, model completed {st.wrs}")
    for i in sorted(posted):
        r = s["wr"][i]
        if r["completions"] > 1:
            raise Finding(f"work request {i} completed {r['completions']} "
                          f"times")
        want = st.wrs.get(i)
        if want is not None:
            if r["status"] != 0 or want[1] not in (None, r["len"]):
                raise Finding(f"work request {i}: status {r['status']} "
                              f"len {r['len']}, wanted success {want}")
        elif r["status"] == 0:
            raise Finding(f"work request {i} completed successfully; the "
                          f"model has it {'failed' if ended else 'pending'}")
        elif r["status"] > 0 and not ended:
            raise Finding(f"work request {i} failed ({r['status']}) while "
                          f"the connection is up")


def check_memory(link, st, may):
    blob = read_file(os.path.join(link.dir, "mem"))
    if blob == st.mem:
        return
    bad = []
    for i, (a, b) in enumerate(zip(blob, st.mem)):
        if a != b and a not in may.get(i, ()):
            bad.append(i)
    if bad:
        where = region_of(st, bad[0])
        raise Finding(f"{len(bad)} octets differ from the model, first at "
                      f"blob offset {bad[0]} ({where}): "
                      f"{blob[bad[0]]:#x} != {st.mem[bad[0]]:#x}")


def region_of(st, off):
    for r in st.regions:
        if r.off <= off < r.off + r.length:
            return f"{r.name} region"
    if st.recv_off <= off < st.recv_off + st.nrecv * st.recv_len:
        return f"receive {(off - st.recv_off) // st.recv_len}"
    return "a canary page"


def check_ended(link, st, may, may_sink=None):
    """The connection is over: the QP in error, each receive completed
    once as the model says, memory as the model says."""
    for _ in range(400):
        s = state_of(link)
        if int(s["qp_state"]) == QPS_ERR and \
                all(r["status"] >= 0 for r in s["recv"]):
            break
        time.sleep(0.05)
    else:
        raise Finding(f"connection over but QP/receives not done: {s}")
    for i, r in enumerate(s["recv"]):
        if r["completions"] != 1:
            raise Finding(f"receive {i} completed {r['completions']} times")
        want = st.completions.get(i)
        if want is None:
            if r["status"] != model.FLUSHED:
                raise Finding(f"receive {i}: status {r['status']}, wanted "
                              f"flushed ({s['recv']})")
            continue
        got = (r["len"], r["flags"], r["imm"], r["inv"])
        if r["status"] != model.RECV_OK or got != want:
            raise Finding(f"receive {i}: status {r['status']} "
                          f"{got}, wanted {want}")
    check_memory(link, st, may)
    if st.wr_next:
        check_sink(link, st, may_sink or {})
        check_wrs(link, st, ended=True)


def run(args):
    ensure_debugfs()
    if args.regression:
        args.first, args.frames = 0, len(REGRESSIONS[args.regression])
    findings = []
    case = args.first
    end = args.first + args.frames
    stats = {"cases": 0, "accepted": 0, "terminated": 0, "closed": 0,
             "connections": 0, "fpdus": 0, "truncated": 0, "markers": 0,
             "marker_faults": 0}
    if args.responses:
        stats.update(posted=0, wr_ok=0)
    link = st = None
    conn_first = case
    wr_ok = 0
    while case < end:
        if link is None:
            link = Link(args.host, args.port)
            st = model.State(link.acc, read_file(os.path.join(link.dir, "mem")))
            if args.responses:
                st.attach_sink(link.acc, read_file(os.path.join(link.dir,
                                                                "postmem")))
            stats["connections"] += 1
            conn_first = case
        rng = random.Random(f"{args.seed}:{case}")
        raise_later = None
        alt = False
        if args.regression:
            steps = REGRESSIONS[args.regression]
            data = b"".join(w.fpdu(u, link.crc) for u in steps[case](st))
            truncated = False
        elif args.responses:
            posts = responses.gen_posts(rng, st)
            try:
                responses.post(link, st, posts, Finding)
            except (Finding, OSError) as e:
                data = b""
                raise_later = e
            else:
                raise_later = None
                stats["posted"] += len(posts)
            ulpdus = responses.gen_responses(rng, st, gen_ulpdus)
            if rng.random() < 0.15:
                i = rng.randrange(len(ulpdus))
                ulpdus[i] = mutate(rng, st, ulpdus[i])
            data = serialize(rng, ulpdus, link.crc)
            truncated = rng.random() < 0.02 and len(data) > 1
        else:
            ulpdus = gen_ulpdus(rng, st)
            if rng.random() < 0.5:
                i = rng.randrange(len(ulpdus))
                ulpdus[i] = mutate(rng, st, ulpdus[i])
            data = serialize(rng, ulpdus, link.crc)
            truncated = rng.random() < 0.02 and len(data) > 1
        try:
            if args.responses and raise_later is not None:
                raise raise_later
            if truncated:
                wire, marks = on_wire(rng, st, data, link.crc, link.markers,
                                      len(data))
                wire = wire[:rng.randrange(1, len(wire))]
                nxt = st.copy()
                v = model.judge(nxt, wire, link.crc, eof=True,
                                markers=link.markers)
                stats["markers"] += len(marks)
                link.send(wire, cut_points(rng, len(wire)))
                link.shutdown()
                stats["truncated"] += 1
                how, causes = collect(link, v, None, truncated=True)
                # Our close may reach the target before the octets do
                # their work: a Terminate is then optional (RFC 5040
                # 6.2.1), but if one comes it names the fault or the close.
                ok_causes = v.causes | {w.llp(1)}
                if how == "term" and causes not in ok_causes:
                    raise Finding(f"Terminate {causes} after a truncated "
                                  f"frame, allowed {sorted(ok_causes)}")
            else:
                data = complete(rng, st, data, link.crc)
                nxt = st.copy()
                v = model.judge(nxt, data, link.crc)
                pr = None
                if v.kind == "ok":
                    pr_bytes, pr = probe(nxt, case, link.crc)
                    nxt.msn[1] += 1
                else:
                    pr_bytes, _ = probe(st, case, link.crc)
                wire, marks = on_wire(rng, st, data + pr_bytes, link.crc,
                                      link.markers, len(data))
                if marks:
                    # The verdict again, on the case's octets as sent.
                    case_len = len(data) + w.MARKER_LEN * sum(
                        m < len(data) for m, _, _ in marks)
                    nxt = st.copy()
                    v = model.judge(nxt, wire[:case_len], link.crc,
                                    markers=True)
                    if v.kind != "ok":
                        pr = None
                    else:
                        nxt.msn[1] += 1
                    stats["markers"] += len(marks)
                nxt.wire_pos = st.wire_pos + len(wire)
                link.send(wire, cut_points(rng, len(wire)))
                if v.kind == "closed":
                    link.shutdown()     # we sent a Terminate: we close
                how, causes = collect(link, v, pr)
                # Instead of answering, the target may end the stream when
                # a request's source was invalidated under it (v.alt).
                alt = how == "term" and v.kind == "ok" and causes in v.alt
                if how != v.kind and not alt:
                    raise Finding(f"target: {how} {causes}, model: {v}")
                if how == "term" and causes not in v.causes and not alt:
                    raise Finding(f"Terminate {causes}, allowed "
                                  f"{sorted(v.causes)}: {v.where}")
            stats["fpdus"] += v.fpdus + 1
            if args.verbose:
                print(json.dumps({"case": case, "verdict": repr(v),
                                  "target": how, "bytes": data.hex()[:400]}),
                      flush=True)
            if how == "ok":
                stats["accepted"] += 1
                st = nxt
                if v.racy:
                    # Octets the target chose (model.judge()): taken from it.
                    blob = read_file(os.path.join(link.dir, "mem"))
                    for o in v.racy:
                        st.mem[o] = blob[o]
                    stats["racy_octets"] = stats.get("racy_octets", 0) + \
                        len(v.racy)
                if args.check_every and case % args.check_every == 0:
                    check_memory(link, st, {})
                    if args.responses:
                        check_sink(link, st, {})
                        check_wrs(link, st, ended=False)
            else:
                stats["terminated" if how == "term" else "closed"] += 1
                stats["marker_faults"] += causes == w.llp(w.MPA_MARKER)
                may = v.may
                if alt:
                    stats["invalidated_under_a_response"] = stats.get(
                        "invalidated_under_a_response", 0) + 1
                    may = dict(may)
                    for o, vals in v.alt_may.items():
                        may[o] = may.get(o, set()) | vals
                if v.racy:
                    may = dict(may)
                    for o in v.racy:
                        may[o] = set(range(256))
                check_ended(link, nxt, may, v.may_sink)
                wr_ok += len(nxt.wrs)
                reap(link)
                link.close()
                link = None
        except (Finding, socket.timeout, OSError) as e:
            findings.append({"case": case, "connection_first_case": conn_first,
                             "seed": args.seed, "finding": str(e)
                             or type(e).__name__,
                             "bytes": data.hex()[:2000]})
            print(json.dumps(findings[-1]), flush=True)
            if link is not None:
                link.close()
                link = None
            if args.stop:
                break
        stats["cases"] += 1
        case += 1
    if link is not None:
        check_memory(link, st, {})
        wr_ok += len(st.wrs)
        link.close()
    if args.responses:
        stats["wr_ok"] = wr_ok
    stats["findings"] = len(findings)
    print(json.dumps(stats), flush=True)
    return 1 if findings else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("--frames", type=int, default=1000,
                    help="cases to run (each one or more FPDUs + a probe)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0,
                    help="first case number (replay)")
    ap.add_argument("--check-every", type=int, default=1,
                    help="compare the target's memory every N accepted cases")
    ap.add_argument("--responses", action="store_true",
                    help="stateful response fuzzing: the target posts "
                    "requests of every kind and the peer answers them "
                    "(tests/reliability/responses.py)")
    ap.add_argument("--regression", choices=sorted(REGRESSIONS),
                    help="run one of the fixed cases of past findings")
    ap.add_argument("--verbose", action="store_true",
                    help="print each case, the model's verdict and the "
                    "target's answer")
    ap.add_argument("--stop", action="store_true",
                    help="stop at the first finding")
    return run(ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
