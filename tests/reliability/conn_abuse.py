#!/usr/bin/python3
"""Connection-level abuse of an xiw listener (xiwtarget's): what a peer
can do before and around the MPA handshake, at random, from a seed.

  conn_abuse.py HOST PORT --seed S --rounds N [--tick T] [--ports P]

With --ports P the target listens on the P ports from PORT on (xiwtarget
listeners=P) and each connection goes to one of them. Each round is one
of:
  flood       many TCP connections that never send a byte (half-open at
              MPA level), left to xiw's mpa_timeout_ms or reset
  synflood    hundreds to thousands of TCP SYNs from spoofed addresses
              (SYNFLOOD_NET, which the test routes nowhere: the
              connections stay half-open at TCP level), then a whole
              handshake, which must still be answered (syncookies)
  slow        an MPA Request sent one octet per tick, stopped or not
  oversized   a Request whose PD_Length is 512 (the limit), 513 or more,
              with all, some or none of the private data
  rst         a reset (SO_LINGER 0) at a step of the handshake: after the
              connect, inside the Request, after it, after the Reply,
              after READY, after a few FPDUs
  reply       an MPA Reply, accepting or rejecting, where the Request
              belongs, or a second Reply-shaped frame after the Request
  full        a whole handshake, READY, then an orderly close
Errors of the peer's own sockets (refused, reset, closed) are what the
abuse is about and are counted, not reported: the oracles are the
target's (back to its baseline, device removal and module unload
complete, no kernel splat), checked by the test that runs this. A round's
randomness comes from (seed, round) alone. Prints one JSON line of
counts.
"""
import argparse
import json
import random
import socket
import struct
import time

import wire as w

# A bound on any wait, against a hang: never a timing check.
PATIENCE = 20.0


# Where the SYN flood's spoofed sources come from: 198.18.0.0/15 (RFC
# 2544's benchmarking range), routed by the test to a gateway nobody
# answers for.
SYNFLOOD_NET = 0xC6120000


def port_of(rng, args):
    return args.port + rng.randrange(args.ports)


def connect(host, port):
    s = socket.create_connection((host, port), timeout=PATIENCE)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def reset(s):
    """Close with a reset: SO_LINGER on with a zero timeout."""
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     struct.pack("ii", 1, 0))
        s.close()
    except OSError:
        pass


def close(s, rng):
    if rng.random() < 0.5:
        reset(s)
    else:
        try:
            s.close()
        except OSError:
            pass


def request(rng, pd_len=None, pd=None):
    """A valid revision 2 MPA Request (enhanced: IRD, ORD), or one with
    @pd_len announced and @pd sent."""
    body = struct.pack(">HH", 8, 8) if pd is None else pd
    flags = w.MPA_S | (w.MPA_C if rng.random() < 0.5 else 0)
    return w.mpa_frame(w.MPA_REQ_KEY, body, flags, pd_len=pd_len)


def wait_end(s, limit=PATIENCE):
    """Read until the target closes (or resets) the stream; True if it
    did within @limit (a bound against a hang, not a timing check)."""
    s.settimeout(limit)
    try:
        while s.recv(65536):
            pass
    except socket.timeout:
        return False
    except OSError:
        pass
    return True


def ended(s, st):
    """The target must end a stream it will not accept: counted as
    closed_by_target, or as not_closed if it is still open after
    PATIENCE (an endpoint that lives forever)."""
    st["closed_by_target" if wait_end(s) else "not_closed"] += 1
    s.close()


def read_reply(s):
    """The target's MPA Reply header and private data, or None."""
    buf = b""
    s.settimeout(PATIENCE)
    try:
        while len(buf) < 20:
            d = s.recv(20 - len(buf))
            if not d:
                return None
            buf += d
        n = struct.unpack(">H", buf[18:20])[0]
        pd = b""
        while len(pd) < n:
            d = s.recv(n - len(pd))
            if not d:
                return None
            pd += d
        return buf + pd
    except OSError:
        return None


def fpdu(ulpdu):
    body = struct.pack(">H", len(ulpdu)) + ulpdu + b"\0" * (-(len(ulpdu)
                                                             + 2) % 4)
    return body + b"\0" * 4


def flood(rng, args, st):
    socks = []
    for _ in range(rng.choice((10, 30, 60, 120))):
        try:
            socks.append(connect(args.host, port_of(rng, args)))
        except OSError:
            st["refused"] += 1
    st["connections"] += len(socks)
    if rng.random() < 0.5:
        for s in socks:
            close(s, rng)
        return
    # Left for xiw to end: each must be closed by it in time.
    for s in socks:
        ended(s, st)


def conclude(s, rng, st, whole):
    """After a Request sent @whole (valid), the Reply is read and the
    connection closed one of the ways; after one cut short or oversized,
    the target's end is waited for."""
    if whole:
        if read_reply(s) is not None:
            st["accepted"] += 1
        close(s, rng)
    else:
        ended(s, st)


def slow(rng, args, st):
    s = connect(args.host, port_of(rng, args))
    st["connections"] += 1
    req = request(rng)
    stop = len(req) if rng.random() < 0.5 else rng.randrange(len(req))
    try:
        for b in req[:stop]:
            s.sendall(bytes([b]))
            time.sleep(args.tick)
    except OSError:
        st["reset_by_target"] += 1
    conclude(s, rng, st, stop == len(req))


def oversized(rng, args, st):
    s = connect(args.host, port_of(rng, args))
    st["connections"] += 1
    n = rng.choice((512, 513, 514, 1024, 0xffff))
    send = rng.choice((n, n // 2, 0, 512))
    try:
        s.sendall(request(rng, n, bytes(rng.getrandbits(8)
                                        for _ in range(min(send, n)))))
    except OSError:
        st["reset_by_target"] += 1
    conclude(s, rng, st, n <= 512 and send >= n)


def rst(rng, args, st):
    s = connect(args.host, port_of(rng, args))
    st["connections"] += 1
    step = rng.randrange(6)
    st[f"rst_step_{step}"] += 1
    req = request(rng)
    try:
        if step == 1:
            s.sendall(req[:rng.randrange(1, len(req))])
        elif step >= 2:
            s.sendall(req)
        if step >= 3 and read_reply(s) is None:
            step = 0
        if step >= 4:
            s.settimeout(PATIENCE)
            s.recv(64)          # READY (or part of it)
        if step >= 5:
            for _ in range(rng.randrange(1, 4)):
                s.sendall(fpdu(bytes([0x41, 0x41]) + struct.pack(
                    ">IIII", 0, 1, 1, 0)))
    except OSError:
        st["reset_by_target"] += 1
    reset(s)


def reply(rng, args, st):
    s = connect(args.host, port_of(rng, args))
    st["connections"] += 1
    rep = w.mpa_frame(w.MPA_REP_KEY, struct.pack(">HH", 8, 8),
                      rng.choice((w.MPA_S, w.MPA_S | w.MPA_R,
                                  w.MPA_S | w.MPA_C)))
    try:
        if rng.random() < 0.5:
            s.sendall(rep)                  # a Reply to a listener
        else:
            s.sendall(request(rng) + rep)   # a Reply after the Request
    except OSError:
        st["reset_by_target"] += 1
    ended(s, st)


def full(rng, args, st):
    s = connect(args.host, port_of(rng, args))
    st["connections"] += 1
    s.sendall(request(rng))
    if read_reply(s) is not None:
        st["accepted"] += 1
    close(s, rng)


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def syn(src, dst, sport, dport, seq):
    """An IPv4 packet with a TCP SYN (MSS option), checksums computed;
    the kernel fills in the IP ID and total length left zero."""
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 6 << 4, 0x02,
                      64240, 0, 0) + struct.pack("!BBH", 2, 4, 1460)
    pseudo = struct.pack("!4s4sBBH", src, dst, 0, socket.IPPROTO_TCP,
                         len(tcp))
    tcp = tcp[:16] + struct.pack("!H", checksum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64,
                     socket.IPPROTO_TCP, 0, src, dst)
    return ip + tcp


def synflood(rng, args, st):
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    dst = socket.inet_aton(args.host)
    n = rng.choice((200, 1000, 3000))
    try:
        for _ in range(n):
            src = struct.pack("!I", SYNFLOOD_NET | rng.getrandbits(17))
            dport = port_of(rng, args)
            raw.sendto(syn(src, dst, rng.randrange(1024, 65536), dport,
                           rng.getrandbits(32)), (args.host, dport))
    finally:
        raw.close()
    st["syns"] = st.get("syns", 0) + n
    # A real client still gets its handshake done and answered.
    s = connect(args.host, port_of(rng, args))
    st["connections"] += 1
    s.sendall(request(rng))
    if read_reply(s) is not None:
        st["accepted_after_synflood"] = st.get("accepted_after_synflood",
                                               0) + 1
    close(s, rng)


ACTIONS = {"flood": flood, "synflood": synflood, "slow": slow,
           "oversized": oversized, "rst": rst, "reply": reply, "full": full}
WEIGHTS = {"flood": 2, "synflood": 1, "slow": 1, "oversized": 2, "rst": 4,
           "reply": 2, "full": 2}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--ports", type=int, default=1,
                    help="the target listens on this many ports from PORT")
    ap.add_argument("--tick", type=float, default=0.02,
                    help="seconds between the octets of a slow Request")
    args = ap.parse_args()
    st = {k: 0 for k in ("rounds", "connections", "accepted", "refused",
                         "closed_by_target", "not_closed", "reset_by_target",
                         "errors")}
    st.update({f"rst_step_{i}": 0 for i in range(6)})
    names = [n for n in ACTIONS for _ in range(WEIGHTS[n])]
    for r in range(args.first, args.first + args.rounds):
        rng = random.Random(f"{args.seed}:{r}")
        name = rng.choice(names)
        st[name] = st.get(name, 0) + 1
        try:
            ACTIONS[name](rng, args, st)
        except OSError:
            # Refused or reset while the device or listener goes away.
            st["errors"] += 1
        st["rounds"] += 1
    print(json.dumps(st), flush=True)


if __name__ == "__main__":
    main()
