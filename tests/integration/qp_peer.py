#!/usr/bin/python3
"""An MPA initiator on plain TCP against xiwtarget, run inside the guest,
for the scenarios of test_qp_lifecycle.py.

  qp_peer.py hold HOST PORT [--count N] [--wait S]
      MPA revision 2 handshake (IRD = ORD = 1, no CRC or markers asked);
      print {"conn": N} from the Reply's private data, or {"error": ...,
      "first": HEX} if the first octets back are not an accepting MPA
      Reply (an FPDU sent before the Reply lands here). Then one JSON line
      per FPDU received ({"opcode": .., "ulpdu": HEX}); after N of them
      {"held": true}, and the connection stays open until the other side
      closes it or S seconds passed (before: at most 120 s a read).
      --silent: when the other side's FIN comes, print {"end": "fin"}
      and never close: wait (S seconds at most) for what comes next and
      print {"then": "reset"} or {"then": "timeout"}.
  qp_peer.py reads HOST PORT --reads K --go FILE [--wait S]
      a receive buffer of one page, the handshake (ORD K), the target's
      READY Send, then K RDMA Read
      Requests for the whole read-only region, never reading what comes
      back: the target's Read Responses fill its socket and wait there,
      their MR referenced. Print {"conn": N, "sent": K}, wait (bounded)
      until FILE exists, then close with a TCP RST.

Waits are bounded, never asserted on.
"""
import argparse
import errno
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "reliability"))
import wire as w  # noqa: E402


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        data = sock.recv(n - len(buf))
        if not data:
            return None
        buf += data
    return buf


def handshake(sock, ord_=1):
    """Request (IRD 1, ORD ord_), then the Reply: (crc, xt_accept as a
    dict) or None after printing why."""
    sock.sendall(w.mpa_request(1, ord_))
    hdr = recv_exact(sock, 20)
    rep = w.mpa_reply_header(hdr)
    if rep is None or rep[0] & w.MPA_R:
        print(json.dumps({"error": "no accepting MPA Reply first",
                          "first": (hdr or b"").hex()}), flush=True)
        return None
    if rep[0] & w.MPA_M:
        print(json.dumps({"error": "markers asked for"}), flush=True)
        return None
    acc = w.xt_accept(recv_exact(sock, rep[1]))
    if acc is None:
        print(json.dumps({"error": "not xiwtarget's private data"}),
              flush=True)
        return None
    return bool(rep[0] & w.MPA_C), acc


def read_fpdu(sock):
    raw = recv_exact(sock, 2)
    if raw is None:
        return None
    ulen = struct.unpack(">H", raw)[0]
    rest = recv_exact(sock, ulen + w.pad_len(ulen) + 4)
    if rest is None:
        return None
    return rest[:ulen]


def silent(sock, wait):
    """The other side closed: stay open, never send a FIN of our own,
    until an RST comes or @wait seconds passed. After the FIN, reads
    return at once and empty even after an RST; TCP records the RST as
    the socket's error (EPIPE in CLOSE-WAIT): poll that."""
    print(json.dumps({"end": "fin"}), flush=True)
    then = "timeout"
    end = time.monotonic() + wait
    while time.monotonic() < end:
        err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err:
            then = "reset" if err in (errno.EPIPE, errno.ECONNRESET) \
                else os.strerror(err)
            break
        time.sleep(0.05)
    print(json.dumps({"then": then}), flush=True)


def hold(sock, count, wait, quiet=False):
    got = handshake(sock)
    if got is None:
        return 1
    print(json.dumps({"conn": got[1]["conn"]}), flush=True)
    sock.settimeout(120)
    n = 0
    try:
        while True:
            if n == count:
                print(json.dumps({"held": True}), flush=True)
                sock.settimeout(wait)
                n += 1
            ulpdu = read_fpdu(sock)
            if ulpdu is None:
                if quiet:
                    silent(sock, wait)
                break
            print(json.dumps({"opcode": ulpdu[1] & 0x1f,
                              "ulpdu": ulpdu.hex()}), flush=True)
            n += 1
    except (socket.timeout, ConnectionResetError):
        pass
    return 0


def reads(sock, k, go, wait):
    got = handshake(sock, k)
    if got is None:
        return 1
    crc, acc = got
    # The READY Send: the target's registrations are in place.
    if read_fpdu(sock) is None:
        print(json.dumps({"error": "no READY"}), flush=True)
        return 1
    ro_stag, ro_to, ro_len = acc["ro_stag"], acc["ro_to"], acc["ro_len"]
    out = b""
    for i in range(k):
        req = w.read_req(0x1000 + i, 0, ro_len, ro_stag, ro_to)
        out += w.fpdu(w.untagged(w.READ_REQ, i + 1, req), crc)
    sock.sendall(out)
    print(json.dumps({"conn": acc["conn"], "sent": k}), flush=True)
    end = time.monotonic() + wait
    while not os.path.exists(go) and time.monotonic() < end:
        time.sleep(0.005)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                    struct.pack("ii", 1, 0))
    sock.close()
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["hold", "reads"])
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--reads", type=int, default=16)
    ap.add_argument("--go", default="/tmp/qp_peer.go")
    ap.add_argument("--wait", type=float, default=30.0)
    ap.add_argument("--silent", action="store_true")
    args = ap.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if args.mode == "reads":
        # Small before connect: the window TCP offers stays small.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect((args.host, args.port))
    if args.mode == "hold":
        return hold(sock, args.count, args.wait, args.silent)
    return reads(sock, args.reads, args.go, args.wait)


if __name__ == "__main__":
    sys.exit(main())
