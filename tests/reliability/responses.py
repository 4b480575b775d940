"""Stateful response fuzzing for the hostile peer (hostile_peer.py
--responses): the peer has the target post requests of every kind (Read,
the four RFC 7306 atomics, Atomic Write, Flush, Verify) through debugfs,
checks each request as it comes on the wire, and answers with sequences
of responses: in order, out of order, of another kind than the request
they meet, with wrong MSNs or Request Identifiers, aimed at the buffers of
other requests, longer than asked, mixed with Immediate Data, Terminates
and the peer's own messages. model.judge() says which work request
completes and how, which Terminate the target sends, and what lands in
the sink (every octet of it and of its canary pages is compared).
"""
import os
import struct

import wire as w

# xiwtarget.h: enum xt_post_op, XT_ORD, XT_NWR
OPS = {"read": 0, "fadd": 1, "mfadd": 2, "cswap": 3, "mcswap": 4,
       "atomic_write": 5, "flush": 6, "verify": 7}
ATOMICS = ("fadd", "mfadd", "cswap", "mcswap")
ORD = 8
NWR = 256
KINDS = ["read"] * 3 + list(ATOMICS) + ["atomic_write"] * 2 + \
    ["flush"] * 2 + ["verify"] * 2
# RDMAP opcode of each kind's request, and of its response.
REQ_OP = {"read": w.READ_REQ, "atomic": w.ATOMIC_REQ,
          "atomic_write": w.ATOMIC_WRITE_REQ, "flush": w.FLUSH_REQ,
          "verify": w.VERIFY_REQ}
RESP_OP = {"atomic": w.ATOMIC_RESP, "atomic_write": w.ATOMIC_WRITE_RESP,
           "flush": w.FLUSH_RESP, "verify": w.VERIFY_RESP}
SIZES = [0, 1, 8, 63, 64, 255, 256, 1000, 4095, 4096, 4097, 8192]


def rand_bytes(rng, n):
    return rng.getrandbits(8 * n).to_bytes(n, "little") if n else b""


def gen_posts(rng, st):
    """The requests the target posts before this case's responses: none,
    or a few more while its ORD has room."""
    room = min(ORD - len(st.orq), NWR - st.wr_next)
    if room <= 0 or (st.orq and rng.random() < 0.4):
        return []
    posts = []
    for _ in range(rng.randint(1, min(3, room))):
        kind = rng.choice(KINDS)
        p = {"kind": "atomic" if kind in ATOMICS else kind, "post": kind,
             "idx": st.wr_next, "sink_off": 0, "sink_len": 0,
             "stag": rng.getrandbits(32),
             "to": rng.getrandbits(64) & ~7, "len": 0, "v": [0] * 4,
             "sink_stag": st.sink_stag}
        st.wr_next += 1
        if kind == "read":
            n = rng.choice(SIZES) if rng.random() < 0.5 else \
                rng.randrange(0, 300)
            p["sink_len"] = p["len"] = n
            p["sink_off"] = rng.randrange(0, st.sink_len - n + 1)
        elif kind in ATOMICS:
            p["sink_len"] = 8
            p["sink_off"] = 8 * rng.randrange(st.sink_len // 8)
            p["v"] = [rng.choice((0, 1, w.M64, rng.getrandbits(64)))
                      for _ in range(4)]
        elif kind == "verify":
            p["sink_len"] = rng.choice((64, 64, 32, 16))
            p["sink_off"] = rng.randrange(0, st.sink_len - p["sink_len"] + 1)
            p["len"] = rng.choice((64, 4096, 8192, rng.getrandbits(20)))
        elif kind == "atomic_write":
            p["v"][0] = rng.getrandbits(64)
        else:
            p["len"] = rng.choice((0, 8, 4096, rng.getrandbits(32)))
            p["v"][0] = rng.choice((1, 2, 3))     # global, persistent
            p["v"][1] = rng.choice((0, 0, 1))     # range, whole MR
        p["sink_to"] = st.sink_to + p["sink_off"]
        posts.append(p)
    return posts


def post_line(p):
    return " ".join(str(x) for x in (
        OPS[p["post"]], p["idx"], p["sink_off"], p["sink_len"], p["stag"],
        p["to"], p["len"], *p["v"])) + "\n"


def want_request(p):
    """The request FPDU's body (after the untagged header) as xiw must
    send it for @p; for an atomic, without its Request Identifier."""
    k, v = p["post"], p["v"]
    if k == "read":
        return w.read_req(p["sink_stag"], p["sink_to"], p["len"], p["stag"],
                          p["to"])
    if k in ATOMICS:
        if k == "fadd":
            ops = (0, v[0], 0, 0, w.M64)
        elif k == "mfadd":
            ops = (0, v[0], v[2], 0, w.M64)
        elif k == "cswap":
            ops = (2, v[1], w.M64, v[0], w.M64)
        else:
            ops = (2, v[1], v[3], v[0], v[2])
        aop, data, mask, cmp, cmp_mask = ops
        return w.atomic_req(aop, 0, p["stag"], p["to"], data, mask, cmp,
                            cmp_mask)
    if k == "atomic_write":
        return w.atomic_write_req(p["stag"], p["to"], v[0])
    if k == "verify":
        return w.verify_req(p["stag"], p["len"], p["to"])
    flags = (0x02 if v[0] & 1 else 0) | (0x01 if v[0] & 2 else 0)
    if v[1]:
        return w.flush_req(p["stag"], 0, 0, flags | 0x04)
    return w.flush_req(p["stag"], p["len"], p["to"], flags)


def post(link, st, posts, finding):
    """Have the target post @posts, then take each request off the wire
    and check it: opcode, queue, MSN, every field. Each becomes
    outstanding in @st (an atomic with the Request Identifier it got)."""
    if not posts:
        return
    fd = os.open(os.path.join(link.dir, "post"), os.O_WRONLY)
    try:
        for p in posts:
            os.write(fd, post_line(p).encode())
    finally:
        os.close(fd)
    for p in posts:
        u = link.fpdu()
        if u is None:
            raise finding(f"the stream ended before request {p['idx']}")
        op = u[1] & 0x1f
        qn, msn = struct.unpack_from(">II", u, 6)
        if u[0] & w.DDP_T or op != REQ_OP[p["kind"]] or qn != 1 or \
                msn != link.tmsn[1] or not u[0] & w.DDP_L:
            raise finding(f"request {p['idx']} ({p['post']}, MSN "
                          f"{link.tmsn[1]}) sent as {u.hex()[:120]}")
        link.tmsn[1] += 1
        body = bytearray(u[w.UNTAGGED_HDR:])
        if p["kind"] == "atomic" and len(body) >= 8:
            p["req_id"] = struct.unpack_from(">I", body, 4)[0]
            body[4:8] = bytes(4)
        if bytes(body) != want_request(p):
            raise finding(f"request {p['idx']} ({p['post']}) body "
                          f"{bytes(body).hex()} != {want_request(p).hex()}")
        st.orq.append(p)


def read_response(rng, o, sink_stag, sink_to, size):
    """A Read Response of @size octets to [@sink_stag, @sink_to] in one to
    three segments, in order or not."""
    data = rand_bytes(rng, size)
    cuts = sorted(rng.randrange(size + 1)
                  for _ in range(rng.choice((0, 0, 1, 2))))
    segs, last = [], 0
    for c in cuts + [size]:
        segs.append((last, data[last:c]))
        last = c
    if len(segs) > 1 and rng.random() < 0.2:
        rng.shuffle(segs)
    return [w.tagged(w.READ_RESP, sink_stag, sink_to + off, d,
                     last=i == len(segs) - 1)
            for i, (off, d) in enumerate(segs)]


def answer(rng, o, msn):
    """A response of the kind @o asks for, with MSN @msn."""
    k = o["kind"]
    if k == "read":
        size = o["sink_len"] if rng.random() < 0.8 else \
            rng.randrange(0, o["sink_len"] + 1)
        return read_response(rng, o, o["sink_stag"], o["sink_to"], size)
    if k == "atomic":
        req_id = o["req_id"] if rng.random() < 0.95 else rng.getrandbits(32)
        return [w.untagged(w.ATOMIC_RESP, msn,
                           struct.pack(">IQ", req_id, rng.getrandbits(64)))]
    if k == "verify":
        if rng.random() < 0.85:
            n = min(rng.choice((4, 32, 64)), o["sink_len"])
        else:       # longer than the buffer, or than any hash
            n = rng.choice((o["sink_len"] + 1, 65))
        return [w.untagged(w.VERIFY_RESP, msn, rand_bytes(rng, n))]
    return [w.untagged(RESP_OP[k], msn)]


def impostor(rng, st, o, msn):
    """A response of another kind than @o (the oldest outstanding request,
    or None), aimed at @o's buffer: a Read Response into an atomic's or a
    Verify's buffer, as long as the Verify's remote range; an empty one to
    STag 0, TO 0 when @o has no buffer; an Atomic Response naming @o's
    Request Identifier; a bare response of the wrong kind."""
    kind = rng.choice(("read", "read", "atomic", "flush", "verify",
                       "atomic_write"))
    if o is not None and kind == o["kind"]:
        kind = "read" if kind != "read" else "flush"
    if kind == "read":
        if o is None or not o["sink_len"]:
            if rng.random() < 0.7:
                return [w.tagged(w.READ_RESP, 0, 0)]
            return read_response(rng, o, st.sink_stag, st.sink_to,
                                 rng.choice((8, 64)))
        size = rng.choice((o["sink_len"], o["sink_len"] + 8,
                           min(o["len"] or 64, 4096), 64))
        return read_response(rng, o, o["sink_stag"], o["sink_to"], size)
    if kind == "atomic":
        req_id = o.get("req_id", rng.getrandbits(32)) if o else 0
        return [w.untagged(w.ATOMIC_RESP, msn,
                           struct.pack(">IQ", req_id, rng.getrandbits(64)))]
    if kind == "verify":
        return [w.untagged(w.VERIFY_RESP, msn, rand_bytes(rng, 32))]
    return [w.untagged(RESP_OP[kind], msn)]


def terminate(rng, st):
    ctrl = (rng.randrange(3) << 28 | rng.randrange(3) << 24
            | rng.randrange(10) << 16)
    return [w.untagged(w.TERMINATE, st.msn[2], struct.pack(">I", ctrl))]


def gen_responses(rng, st, other):
    """This case's messages: a sequence of responses to what is
    outstanding (as if each before it was taken), now and then something
    else: Immediate Data, a Terminate, @other(rng, st) (any of the
    peer's own messages)."""
    if st.wr_next >= NWR - 3 and not st.orq:
        return terminate(rng, st)       # a fresh connection for more
    out, at, msn, imm = [], 0, st.msn[3], st.msn[0]
    for _ in range(rng.choice((1, 2, 2, 3, 4, 6))):
        o = st.orq[at] if at < len(st.orq) else None
        m = rng.random()
        if o is None and m < 0.8:
            # All answered: now and then something more.
            if m < 0.5:
                break
            m = rng.choice((0.84, 0.9, 0.9, 0.95))
        if m < 0.7 and o is not None:
            out += answer(rng, o, msn)
            at += 1
            msn += o["kind"] != "read"
        elif m < 0.75 and len(st.orq) > at + 1:
            # Out of order: the answer to a younger request.
            y = st.orq[rng.randrange(at + 1, len(st.orq))]
            out += answer(rng, y, msn)
        elif m < 0.82:
            out += impostor(rng, st, o, msn)
        elif m < 0.86 and o is not None:
            bad = rng.choice((msn - 1, msn + 1, msn + 2, 0,
                              rng.getrandbits(32))) & 0xffffffff
            out += answer(rng, o, bad)
        elif m < 0.92:
            out.append(w.untagged(rng.choice((w.IMM, w.IMM_SE)), imm,
                                  rand_bytes(rng, 8)))
            imm += 1
        elif m < 0.93:
            out += terminate(rng, st)
        else:
            out += other(rng, st)
    return out
