#!/usr/bin/python3
"""A hand-framed peer of xiwtarget (tests/reliability/target) that puts
the target's QP in states a well-behaved peer never does, run inside the
guest. Every wait is bounded (hostile_peer.PATIENCE); none is asserted on.

  stall_peer.py HOST PORT ird-flush
      a Read Request for the whole large region, its response never read
      (the receive window closes), then Flush Requests to persistence of
      that region, more than the target's IRD; then read everything.
      Prints {"terminate": [layer, type, code], "read_octets": N}.
  stall_peer.py HOST PORT flush-order
      a Read Request for one page of the large region, then a Flush to
      persistence of the region (plain memory: refused in its turn).
      Prints {"order": [opcodes received], "terminate": [...],
      "ddp_hdr": hex of the header the Terminate names, "sent_hdr": hex
      of the Flush's header as sent}.
  stall_peer.py HOST PORT half-write
      half of a Write FPDU into the large region, then nothing.
  stall_peer.py HOST PORT zero-window-read
      a Read Request for the whole large region; nothing is ever read.
      The stalling modes print {"conn": N} once the stall is in place and
      hold the connection until stdin ends.
"""
import json
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "reliability"))
import hostile_peer as hp  # noqa: E402
import wire as w  # noqa: E402

FLUSH_PERSISTENT, FLUSH_GLOBAL, FLUSH_REGION = 0x1, 0x2, 0x4
SINK = 0x51515100           # the peer's own sink STag: nothing checks it
MANY = 40                   # Flush Requests: more than any IRD xiwtarget has


def connect(host, port):
    link = hp.Link(host, port)
    return link, link.acc


def send_all(link, data):
    link.sock.sendall(data)


def frames(link, ulpdus):
    return b"".join(w.fpdu(u, link.crc) for u in ulpdus)


def drain(link):
    """Every FPDU until the stream ends: (opcodes, the Terminate or None,
    octets of Read Response payload)."""
    ops, term, octets = [], None, 0
    link.sock.settimeout(hp.PATIENCE)
    while True:
        try:
            u = link.fpdu()
        except (socket.timeout, hp.Finding):
            break
        if u is None:
            break
        op = u[1] & 0x1f
        ops.append(op)
        if op == w.READ_RESP:
            octets += len(u) - w.TAGGED_HDR
        if op == w.TERMINATE:
            term = u
            break
    return ops, term, octets


def term_fields(term):
    ctrl = struct.unpack_from(">I", term, w.UNTAGGED_HDR)[0]
    return list(w.cause_of(ctrl)), term[w.UNTAGGED_HDR + 4:]


def ird_flush(host, port):
    link, acc = connect(host, port)
    link.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    reqs = [w.untagged(w.READ_REQ, 1, w.read_req(
        SINK, 0, acc["big_len"], acc["big_stag"], acc["big_to"]))]
    reqs += [w.untagged(w.FLUSH_REQ, 2 + i, w.flush_req(
        acc["big_stag"], 0, 0, FLUSH_PERSISTENT | FLUSH_REGION))
        for i in range(MANY)]
    send_all(link, frames(link, reqs))
    ops, term, octets = drain(link)
    out = {"read_octets": octets, "terminate": None}
    if term is not None:
        out["terminate"] = term_fields(term)[0]
    print(json.dumps(out), flush=True)


def flush_order(host, port):
    link, acc = connect(host, port)
    flush = w.untagged(w.FLUSH_REQ, 2, w.flush_req(
        acc["big_stag"], 0, 0, FLUSH_PERSISTENT | FLUSH_REGION))
    reqs = [w.untagged(w.READ_REQ, 1, w.read_req(
        SINK, 0, 4096, acc["big_stag"], acc["big_to"])), flush]
    send_all(link, frames(link, reqs))
    ops, term, octets = drain(link)
    out = {"order": ops, "read_octets": octets, "terminate": None,
           "sent_hdr": flush[:w.UNTAGGED_HDR].hex()}
    if term is not None:
        cause, rest = term_fields(term)
        out["terminate"] = cause
        # DDP segment length, then the DDP header of the request.
        out["ddp_hdr"] = rest[2:2 + w.UNTAGGED_HDR].hex()
    print(json.dumps(out), flush=True)


def hold(link):
    print(json.dumps({"conn": link.acc["conn"]}), flush=True)
    sys.stdin.read()
    link.close()


def half_write(host, port):
    link, acc = connect(host, port)
    payload = bytes(range(256)) * 16
    fpdu = w.fpdu(w.tagged(w.WRITE, acc["big_stag"], acc["big_to"],
                           payload), link.crc)
    send_all(link, fpdu[:len(fpdu) // 2])
    hold(link)


def zero_window_read(host, port):
    link, acc = connect(host, port)
    link.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    send_all(link, frames(link, [w.untagged(w.READ_REQ, 1, w.read_req(
        SINK, 0, acc["big_len"], acc["big_stag"], acc["big_to"]))]))
    hold(link)


MODES = {"ird-flush": ird_flush, "flush-order": flush_order,
         "half-write": half_write, "zero-window-read": zero_window_read}

if __name__ == "__main__":
    hp.ensure_debugfs()
    MODES[sys.argv[3]](sys.argv[1], int(sys.argv[2]))
