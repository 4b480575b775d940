#!/usr/bin/python3
"""A misbehaving MPA peer on plain TCP, run inside the guest.

  mpa_peer.py send HOST PORT HEX [--close]
      connect, send the bytes, then wait until the other side closes the
      connection; print "closed" (FIN) or "reset" (RST) and exit 0, or
      exit 1 if it is still open after --wait seconds.
  mpa_peer.py rdma HOST PORT PDHEX FPDUHEX [--corrupt crc|marker:N]
                   [--p2p KIND,...] [--close | --close-after-answer]
      complete an MPA revision 2 handshake as initiator (IRD = ORD = 1,
      asking for neither CRC nor markers, PDHEX as the ULP's private
      data; with --p2p in RFC 6581's peer-to-peer model, offering the
      RTR kinds named: send, write, read), send the FPDUs FPDUHEX (framed
      by the caller, CRC field zero; with --p2p they begin with what
      stands for the RTR), then print one JSON line per FPDU received
      until the connection closes (with --close, closing our half with
      the FPDUs, its FIN in their last segment; with --close-after-answer,
      closing our half once the first has come):
      opcode, DDP header and, for a Terminate, its control field and
      included octets. When the other side's Reply
      turns CRC on, each FPDU gets its CRC32c; when it asks for markers,
      they go in every 512 octets (with CRC, each CRC covers its FPDU's
      markers). --corrupt makes the first FPDU's CRC, or the Nth marker's
      FPDUPTR (from 0), wrong.
  mpa_peer.py listen HOST PORT {silent,garbage,reset,HEX,slow:HEX}
      accept one connection, read the MPA Request, then answer nothing
      (silent), junk (garbage), a TCP reset (reset: SO_LINGER 0, then
      "reset" is printed), the given bytes, or the given bytes one octet
      every --tick seconds (slow: until they are sent or the other side
      closes); wait until the other side closes and print
      "closed"/"reset" as above (with --dump, first "data HEX": what the
      other side sent after the Request). With --close, the given bytes
      go with our FIN (in their last segment).
  mpa_peer.py respond HOST PORT REPLYHEX FPDUHEX
      accept one connection, read the MPA Request (print "request HEX"),
      send the Reply REPLYHEX, read the initiator's first FPDU (its RTR
      in the peer-to-peer model; print "rtr HEX", the ULPDU), then send
      the FPDUs FPDUHEX (framed by the caller, CRC field zero; CRC32c
      filled in when the Request or the Reply turned CRC on), and print
      one JSON line per FPDU received as rdma does, until the connection
      closes or --wait passes with nothing received (then "still open"
      and exit 1). With --close, close our half with the FPDUs (the FIN
      in their last segment).
  mpa_peer.py flood HOST PORT N [--walk-away]
      open N connections and send each a valid MPA revision 2 Request
      (enhanced: IRD = ORD = 1). With --walk-away, close them all at once
      and print "gone"; else wait up to --wait seconds in all for their
      answers and print one JSON line counting them: "rejected" (a Reply
      with R set), "accepted", "other" (not an MPA Reply), "closed" or
      "reset" (without a Reply), "silent" (nothing by the end of the
      wait).

Used by the scenarios that check xiw's connection setup against garbage
and silence; the waits are bounded, never asserted on.
"""
import argparse
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "reliability"))
from wire import (MPA_C, MPA_M, MPA_R, MPA_REP_KEY,  # noqa: E402
                  MPA_REQ_KEY, crc32c, mark, mpa_reply_header,
                  mpa_request)



def wait_closed(sock, wait, dump=False):
    """How the other side closed; with dump, first print what it sent
    meanwhile ("data HEX")."""
    sock.settimeout(wait)
    got = b""
    how = None
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                how = "closed"
                break
            got += data
    except ConnectionResetError:
        how = "reset"
    except socket.timeout:
        pass
    if dump:
        print("data " + got.hex(), flush=True)
    return how


def read_request(sock, wait):
    """The 20-byte header and its private data, or None on timeout."""
    sock.settimeout(wait)
    buf = b""
    try:
        while len(buf) < 20 or len(buf) < 20 + int.from_bytes(buf[18:20], "big"):
            data = sock.recv(4096)
            if not data:
                return None
            buf += data
    except (socket.timeout, ConnectionResetError):
        return None
    return buf


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        data = sock.recv(n - len(buf))
        if not data:
            return None
        buf += data
    return buf


def split_fpdus(stream):
    """The caller's FPDUs, by their ULPDU_Length fields."""
    out = []
    while stream:
        ulen = struct.unpack(">H", stream[:2])[0]
        n = 2 + ulen + (-(ulen + 2) % 4) + 4
        out.append(stream[:n])
        stream = stream[n:]
    return out


def with_crcs(fpdus, corrupt):
    out = b""
    for i, f in enumerate(fpdus):
        # RFC 5044: CRC32c over the FPDU, sent in little-endian order
        # (the octets as the reflected algorithm leaves them).
        crc = crc32c(f[:-4])
        if corrupt == "crc" and i == 0:
            crc ^= 1
        out += f[:-4] + struct.pack("<I", crc)
    return out


def marker_fault(corrupt):
    """--corrupt marker:N as wire.mark()'s tamper: the Nth marker's FPDUPTR
    (from 0) 4 too far back."""
    if not corrupt or not corrupt.startswith("marker:"):
        return None

    def further(m):
        return struct.pack(">HH", 0, struct.unpack(">HH", m)[1] + 4)
    return {int(corrupt.split(":")[1]): further}


# RFC 6581's enhanced connection data: A (peer-to-peer) and B (Send RTR)
# in the IRD half, C (Write RTR) and D (Read RTR) in the ORD half.
P2P_IRD = {"send": 0x4000}
P2P_ORD = {"write": 0x8000, "read": 0x4000}


def send_and_close(sock, data):
    """Send @data and our FIN in one go: corked, the FIN rides in the last
    segment of @data (TCP then calls the other side's state callback
    before its data callback for those octets)."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
    sock.sendall(data)
    sock.shutdown(socket.SHUT_WR)


def rdma_session(sock, pd, fpdus, wait, corrupt=None, p2p=None,
                 close_after_answer=False, close=False):
    """Handshake as initiator, send the FPDUs, report what comes back."""
    sock.settimeout(wait)
    ird = ord_ = 1
    if p2p:
        ird |= 0x8000
        for kind in p2p.split(","):
            ird |= P2P_IRD.get(kind, 0)
            ord_ |= P2P_ORD.get(kind, 0)
    sock.sendall(mpa_request(ird, ord_, pd))
    rep = mpa_reply_header(recv_exact(sock, 20))
    if rep is None or rep[0] & MPA_R:
        print(json.dumps({"error": "no accepting MPA Reply"}))
        return 1
    crc = bool(rep[0] & MPA_C)
    markers = bool(rep[0] & MPA_M)
    recv_exact(sock, rep[1])
    frames = split_fpdus(fpdus)
    if crc:
        fpdus = with_crcs(frames, corrupt)
    if markers:
        fpdus, _ = mark(fpdus, 0, crc, tamper=marker_fault(corrupt))
    if close:
        send_and_close(sock, fpdus)
    else:
        sock.sendall(fpdus)
    return print_fpdus(sock, crc, close_after_answer)


def print_fpdus(sock, crc, close_after_first=False):
    """One JSON line per FPDU received, until the stream ends (0) or the
    socket's timeout passes with nothing (1, "still open"); with
    @close_after_first, our half is closed once the first has come."""
    while True:
        try:
            raw = recv_exact(sock, 2)
        except ConnectionResetError:
            raw = None
        except socket.timeout:
            print("still open", flush=True)
            return 1
        if raw is None:
            return 0
        ulen = struct.unpack(">H", raw)[0]
        pad = -(ulen + 2) % 4
        try:
            rest = recv_exact(sock, ulen + pad + 4)
        except (ConnectionResetError, socket.timeout):
            rest = None
        if rest is None:
            return 0
        ulpdu = rest[:ulen]
        ddp, rdmap = ulpdu[0], ulpdu[1]
        out = {"opcode": rdmap & 0xf, "tagged": bool(ddp & 0x80),
               "crc": crc, "ulpdu": ulpdu.hex()}
        if not ddp & 0x80 and (rdmap & 0xf) == 7 and ulen >= 22:
            out["term_ctrl"] = struct.unpack(">I", ulpdu[18:22])[0]
            out["term_rest"] = ulpdu[22:].hex()
        print(json.dumps(out), flush=True)
        if close_after_first:
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            close_after_first = False


def respond(sock, reply, fpdus, wait, close):
    """Handshake as responder with @reply, take the initiator's first
    FPDU, send @fpdus, report what comes back."""
    req = read_request(sock, wait)
    if req is None or not req.startswith(MPA_REQ_KEY):
        print("no MPA Request", flush=True)
        return 1
    print("request " + req.hex(), flush=True)
    sock.sendall(reply)
    crc = bool((req[16] | reply[16]) & MPA_C)
    sock.settimeout(wait)
    raw = recv_exact(sock, 2)
    if raw is None:
        print("closed before the first FPDU", flush=True)
        return 1
    ulen = struct.unpack(">H", raw)[0]
    rest = recv_exact(sock, ulen + (-(ulen + 2) % 4) + 4)
    if rest is None:
        print("closed inside the first FPDU", flush=True)
        return 1
    print("rtr " + rest[:ulen].hex(), flush=True)
    frames = split_fpdus(fpdus)
    try:
        data = with_crcs(frames, None) if crc else fpdus
        if close:
            send_and_close(sock, data)
        else:
            sock.sendall(data)
    except OSError:
        pass    # the other side ended it: what it sent first is still read
    return print_fpdus(sock, crc)


def send_slowly(sock, data, tick):
    """@data one octet every @tick seconds, until all is sent or the
    other side ends the connection."""
    for i in range(len(data)):
        try:
            sock.sendall(data[i:i + 1])
        except (BrokenPipeError, ConnectionResetError):
            return
        time.sleep(tick)


def flood(host, port, n, walk_away, wait):
    """Many MPA Requests at once; how each was answered."""
    import select
    import time
    req = mpa_request(1, 1)
    socks = []
    for _ in range(n):
        # Long enough for SYN retransmissions: the listen's backlog may
        # be small.
        s = socket.create_connection((host, port), timeout=30)
        s.sendall(req)
        socks.append(s)
    if walk_away:
        for s in socks:
            s.close()
        print("gone")
        return 0
    counts = {"rejected": 0, "accepted": 0, "other": 0, "closed": 0,
              "reset": 0, "silent": 0}
    got = {s: b"" for s in socks}
    end = time.monotonic() + wait
    while got and time.monotonic() < end:
        ready, _, _ = select.select(list(got), [], [],
                                    max(0, end - time.monotonic()))
        for s in ready:
            try:
                data = s.recv(4096)
            except ConnectionResetError:
                data = None
            if not data:
                counts["reset" if data is None else "closed"] += 1
            else:
                got[s] += data
                if len(got[s]) < 20:
                    continue
                rep = got[s]
                key = "other"
                if rep.startswith(MPA_REP_KEY):
                    key = "rejected" if rep[16] & MPA_R else "accepted"
                counts[key] += 1
            del got[s]
            s.close()
    counts["silent"] = len(got)
    print(json.dumps(counts))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["send", "listen", "rdma", "flood",
                                     "respond"])
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("what")
    ap.add_argument("fpdus", nargs="?", default="",
                    help="rdma, respond: the FPDUs to send, in hex")
    ap.add_argument("--close", action="store_true",
                    help="send: close right after sending; listen, rdma, "
                    "respond: close our half with what is sent")
    ap.add_argument("--close-after-answer", action="store_true",
                    help="rdma: close our half once an FPDU came back")
    ap.add_argument("--tick", type=float, default=0.5,
                    help="listen slow:HEX: seconds between octets")
    ap.add_argument("--wait", type=float, default=30.0)
    ap.add_argument("--dump", action="store_true",
                    help="listen: print what arrives after the Request")
    ap.add_argument("--corrupt", help="rdma: 'crc' or 'marker:N'")
    ap.add_argument("--p2p", help="rdma: the RTR kinds to offer "
                    "(send,write,read) in the peer-to-peer model")
    ap.add_argument("--walk-away", action="store_true",
                    help="flood: close every connection right away")
    args = ap.parse_args()

    if args.mode == "flood":
        return flood(args.host, args.port, int(args.what), args.walk_away,
                     args.wait)

    if args.mode == "rdma":
        sock = socket.create_connection((args.host, args.port), timeout=10)
        return rdma_session(sock, bytes.fromhex(args.what),
                            bytes.fromhex(args.fpdus), args.wait,
                            args.corrupt, args.p2p, args.close_after_answer,
                            args.close)
    if args.mode == "send":
        sock = socket.create_connection((args.host, args.port), timeout=10)
        sock.sendall(bytes.fromhex(args.what))
        if args.close:
            sock.close()
            print("sent")
            return 0
    else:
        lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.bind((args.host, args.port))
        lsock.listen(1)
        print("listening", flush=True)
        lsock.settimeout(args.wait)
        sock, _ = lsock.accept()
        if args.mode == "respond":
            return respond(sock, bytes.fromhex(args.what),
                           bytes.fromhex(args.fpdus), args.wait, args.close)
        req = read_request(sock, args.wait)
        if req is None or not req.startswith(MPA_REQ_KEY):
            print("no MPA Request")
            return 1
        if args.what == "garbage":
            sock.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n")
        elif args.what == "reset":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                            struct.pack("ii", 1, 0))
            sock.close()
            print("reset")
            return 0
        elif args.what.startswith("slow:"):
            send_slowly(sock, bytes.fromhex(args.what[5:]), args.tick)
        elif args.what != "silent" and args.close:
            send_and_close(sock, bytes.fromhex(args.what))
        elif args.what != "silent":
            sock.sendall(bytes.fromhex(args.what))
    how = wait_closed(sock, args.wait, args.mode == "listen" and args.dump)
    if how is None:
        print("still open")
        return 1
    print(how)
    return 0


if __name__ == "__main__":
    sys.exit(main())
