#!/usr/bin/python3
"""A peer that answers xiw's requests with responses of every kind, run
inside the guest against xiwtarget (tests/reliability/target).

  response_kind_peer.py HOST PORT REQUEST:RESPONSE...

For each case it connects with a struct xt_ask in its private data, so
that the target sends it one request of kind REQUEST (read, fetch_add,
cmp_swap, masked_fetch_add, masked_cmp_swap, flush, verify,
atomic_write), and answers it with one message of kind RESPONSE:

  read_resp      an RDMA Read Response at the sink the target told (the
                 whole sink for a Read, 8 octets for an Atomic, 320 octets
                 for a Verify: more than its hash SGE, less than its
                 remote length); STag 0, TO 0, empty for a request
                 without SGE (Flush, Atomic Write)
  atomic_resp    an Atomic Response (the Atomic Request's identifier when
                 there is one)
  flush_resp, verify_resp (a 32-octet hash), atomic_write_resp
  imm            Immediate Data on queue 0 (it takes a receive: it is no
                 response)
  terminate      a Terminate (RDMAP, remote operation error, unspecified)

then waits (bounded) until the request or a receive completed, closes its
half, reads what the target sends until it closes, and prints one JSON
line per case: the causes of the Terminates the target sent, the
request's completion (status, opcode, length, how many), the receives
completed, and every octet of the target's arena (canary pages, the
sink's surroundings, the regions, the receives) that differs from before
the response was sent.
"""
import json
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire as w  # noqa: E402

DEBUGFS = "/sys/kernel/debug/xiwtarget"
XT_ASK_MAGIC = 0x58544153
KINDS = {"read": 1, "fetch_add": 2, "cmp_swap": 3, "masked_fetch_add": 4,
         "masked_cmp_swap": 5, "flush": 6, "verify": 7, "atomic_write": 8}
# What the requests name at the peer: nothing there, the peer answers.
PEER_STAG, PEER_TO, PEER_LEN = 0x1234, 0x10000, 4096
IB_QPS_RTS = 3
# A bound on waiting for the target, against a hang: never a timing check.
PATIENCE = 30.0


class Link:
    def __init__(self, host, port, kind):
        self.sock = socket.create_connection((host, port), timeout=PATIENCE)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        ask = struct.pack(">IIIIQ", XT_ASK_MAGIC, KINDS[kind], PEER_STAG,
                          PEER_LEN, PEER_TO)
        self.sock.sendall(w.mpa_request(8, 8, ask))
        hdr = self.recv_exact(20)
        rep = w.mpa_reply_header(hdr)
        if rep is None or rep[0] & w.MPA_R:
            raise RuntimeError(f"no accepting MPA Reply: {hdr!r}")
        self.crc = bool(rep[0] & w.MPA_C)
        if rep[0] & w.MPA_M:
            raise RuntimeError("the target asks for markers")
        pd = self.recv_exact(rep[1])
        self.acc = w.xt_accept(pd)
        if self.acc is None:
            raise RuntimeError(f"not xiwtarget: {pd!r}")
        self.dir = os.path.join(DEBUGFS, str(self.acc["conn"]))

    def recv_exact(self, n):
        while len(self.buf) < n:
            try:
                data = self.sock.recv(65536)
            except (ConnectionResetError, socket.timeout):
                data = b""
            if not data:
                return None
            self.buf += data
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def fpdu(self):
        raw = self.recv_exact(2)
        if raw is None:
            return None
        ulen = struct.unpack(">H", raw)[0]
        rest = self.recv_exact(ulen + w.pad_len(ulen) + 4)
        return None if rest is None else rest[:ulen]

    def send(self, ulpdu):
        self.sock.sendall(w.fpdu(ulpdu, self.crc))

    def state(self):
        with open(os.path.join(self.dir, "state")) as f:
            lines = f.read().splitlines()
        out = {"recv": []}
        for line in lines:
            k, _, rest = line.partition(" ")
            f = rest.split()
            if k == "recv":
                out["recv"].append({f[i]: int(f[i + 1])
                                    for i in range(1, len(f) - 1, 2)})
            elif k == "req":
                out["req"] = {f[i]: int(f[i + 1])
                              for i in range(0, len(f) - 1, 2)}
            else:
                out[k] = rest
        return out

    def mem(self):
        with open(os.path.join(self.dir, "mem"), "rb") as f:
            return f.read()

    def reap(self):
        try:
            self.sock.close()
        except OSError:
            pass
        with open(os.path.join(DEBUGFS, "reap"), "w") as f:
            f.write(str(self.acc["conn"]))


def response(kind, req_op, req, acc):
    """The ULPDU of a response of @kind to the request @req (a ULPDU of
    opcode @req_op)."""
    if kind == "read_resp":
        if req_op == w.READ_REQ:
            sink_stag, sink_to, size = struct.unpack_from(">IQI", req, 18)
            return w.tagged(w.READ_RESP, sink_stag, sink_to,
                            bytes(range(1, size + 1)))
        n = {w.ATOMIC_REQ: 8, w.VERIFY_REQ: 320}.get(req_op)
        if n is None:       # no SGE: what the Flush/Atomic Write names
            return w.tagged(w.READ_RESP, 0, 0)
        return w.tagged(w.READ_RESP, acc["sink_stag"], acc["sink_to"],
                        bytes((i * 7 + 1) & 0xff for i in range(n)))
    if kind == "atomic_resp":
        req_id = (struct.unpack_from(">I", req, 22)[0]
                  if req_op == w.ATOMIC_REQ else 1)
        return w.untagged(w.ATOMIC_RESP, 1,
                          struct.pack(">IQ", req_id, 0x1122334455667788))
    if kind == "flush_resp":
        return w.untagged(w.FLUSH_RESP, 1)
    if kind == "verify_resp":
        return w.untagged(w.VERIFY_RESP, 1, bytes(range(0xA0, 0xC0)))
    if kind == "atomic_write_resp":
        return w.untagged(w.ATOMIC_WRITE_RESP, 1)
    if kind == "imm":
        return w.untagged(w.IMM, 1, struct.pack(">Q", 0xABCD))
    if kind == "terminate":
        return w.untagged(w.TERMINATE, 1, struct.pack(">I", 0x02FF0000))
    raise ValueError(kind)


def wait_for(link, done):
    s = link.state()
    for _ in range(int(PATIENCE / 0.02)):
        if done(s):
            break
        time.sleep(0.02)
        s = link.state()
    return s


def one_case(host, port, req_kind, resp_kind):
    link = Link(host, port, req_kind)
    out = {"request": req_kind, "response": resp_kind}
    try:
        ready = link.fpdu()
        if ready is None or ready[1] & 0x1f != w.SEND:
            raise RuntimeError(f"no READY: {ready!r}")
        req = link.fpdu()
        if req is None:
            raise RuntimeError("no request from the target")
        req_op = req[1] & 0x1f
        out["request_opcode"] = req_op
        before = link.mem()
        link.send(response(resp_kind, req_op, req, link.acc))
        # Until the target has done something about it: completed the
        # request or a receive, or left RTS (a Terminate sent, whose
        # connection then ends with this side's FIN, not a timeout).
        wait_for(link, lambda s: s["req"]["completions"] or
                 int(s["recv_done"]) or int(s["qp_state"]) != IB_QPS_RTS)
        try:
            link.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass            # the target reset the connection already
        terms, others = [], []
        while True:
            u = link.fpdu()
            if u is None:
                break
            if u[1] & 0x1f == w.TERMINATE:
                terms.append(w.cause_of(struct.unpack_from(">I", u, 18)[0]))
            else:
                others.append(u[1] & 0x1f)
        s = wait_for(link, lambda s: s["req"]["completions"])
        after = link.mem()
        out["terminates"] = terms
        out["other_fpdus"] = others
        out["req"] = s["req"]
        out["recv"] = [r for r in s["recv"] if r["status"] == 0]
        out["qp_state"] = int(s["qp_state"])
        out["sink_off"] = link.acc["sink_off"]
        out["changed"] = {i: [before[i], after[i]]
                          for i in range(len(before)) if before[i] != after[i]}
    finally:
        link.reap()
    return out


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    if not os.path.isdir(DEBUGFS):
        subprocess.run(["mount", "-t", "debugfs", "none",
                        "/sys/kernel/debug"], check=False)
    for case in sys.argv[3:]:
        req_kind, resp_kind = case.split(":")
        print(json.dumps(one_case(host, port, req_kind, resp_kind)),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
