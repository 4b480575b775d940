"""A second, minimal client of the xiw generic netlink family, written from
uapi/xiw_netlink.h with nothing but the socket module: the scenarios'
independent view of the family's messages (xiwctl, through libxiw, is the
one users have). Run in the guest:

    python3 xiw_genl.py dev [DEV]
    python3 xiw_genl.py set DEV [persist N] [dram_persistent N] [crc N]
                        [markers N] [mpa_rev N] [p2p N] [rtr N] [hashes N]
                        [debug N] [config_now N] [config none]

set puts the policy's attributes in XIW_ATTR_POLICY (an empty one if it
is given none of them and no setting), the settings in XIW_ATTR_CONFIG
("config none": an empty one), config_now's value as XIW_CONFIG_CRC in
XIW_ATTR_CONFIG_NOW.
    python3 xiw_genl.py mr DEV STAG [persist N]
    python3 xiw_genl.py REQUEST -- REQUEST ...   (one JSON line each)
    python3 xiw_genl.py policy      (the family's attribute policies, dumped)

Prints one JSON object: {"error": errno, "extack": text} on a refusal,
else {"devices": [...]} or {"mr": {...}}; exit status 0 either way.
"""
import json
import socket
import struct
import sys

NETLINK_GENERIC = 16
NETLINK_EXT_ACK = 11
SOL_NETLINK = 270
GENL_ID_CTRL = 16
CTRL_CMD_GETFAMILY = 3
CTRL_CMD_GETPOLICY = 10
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLM_F_CAPPED = 0x100
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLMSGERR_ATTR_MSG = 1
NLA_F_NESTED = 0x8000

# uapi/xiw_netlink.h
CMD_DEV_GET, CMD_DEV_SET, CMD_MR_GET, CMD_MR_SET = 1, 2, 3, 4
A_DEV_INDEX, A_DEV_NAME, A_NETDEV_NAME, A_NETDEV_INDEX = 2, 3, 4, 5
A_CAPS, A_POLICY, A_MR_STAG, A_MR_PERSIST = 6, 7, 8, 9
A_CONFIG, A_CONFIG_NOW = 10, 11
CAPS = {2: ("mpa_revs", "I"), 3: ("ops", "Q"), 4: ("persist", "I"),
        5: ("hashes", "I"), 6: ("max_ord", "I"), 7: ("max_ird", "I"),
        8: ("max_msg", "I"), 9: ("max_qp", "I"), 10: ("max_mr", "I")}
POLICY = {1: ("persist", "B"), 2: ("dram_persistent", "B"),
          3: ("dram_persistent_now", "B")}
CONFIG = {1: ("crc", "B"), 2: ("markers", "B"), 3: ("mpa_rev", "B"),
          4: ("p2p", "B"), 5: ("rtr", "I"), 6: ("hashes", "I"),
          7: ("debug", "B")}


def nla(kind, data):
    n = 4 + len(data)
    return struct.pack("HH", n, kind) + data + bytes(-n % 4)


def attrs(data):
    out = {}
    while len(data) >= 4:
        n, kind = struct.unpack("HH", data[:4])
        out[kind & 0x3fff] = data[4:n]
        data = data[(n + 3) & ~3:]
    return out


def fields(data, table):
    got = attrs(data)
    return {name: struct.unpack(fmt, got[k])[0]
            for k, (name, fmt) in table.items() if k in got}


class Family:
    def __init__(self):
        self.sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                NETLINK_GENERIC)
        self.sk.bind((0, 0))
        self.sk.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.seq = 0
        err, msgs = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                 nla(CTRL_ATTR_FAMILY_NAME, b"xiw\0"))
        if err:
            raise SystemExit(f"no xiw family: {err}")
        self.id = struct.unpack("H", msgs[0][CTRL_ATTR_FAMILY_ID][:2])[0]

    def request(self, family, cmd, payload, flags=0):
        """(0, [attribute dicts]) or ((errno, extack), [])."""
        self.seq += 1
        body = struct.pack("BBH", cmd, 1, 0) + payload
        self.sk.send(struct.pack("IHHII", 16 + len(body), family,
                                 NLM_F_REQUEST | NLM_F_ACK | flags,
                                 self.seq, 0) + body)
        msgs = []
        while True:
            data = self.sk.recv(1 << 16)
            while data:
                n, kind, mflags = struct.unpack("IHH", data[:8])
                body, data = data[16:n], data[(n + 3) & ~3:]
                if kind == NLMSG_ERROR:
                    err = -struct.unpack("i", body[:4])[0]
                    if not err:
                        return 0, msgs
                    # The request echoed back, unless capped to its header.
                    echoed = 16 if mflags & NLM_F_CAPPED else \
                        struct.unpack("I", body[4:8])[0]
                    ext = attrs(body[4 + echoed:]).get(NLMSGERR_ATTR_MSG,
                                                       b"")
                    return (err, ext.rstrip(b"\0").decode()), []
                if kind == NLMSG_DONE:
                    return 0, msgs
                msgs.append(attrs(body[4:]))


def device(a):
    return {"index": struct.unpack("I", a[A_DEV_INDEX])[0],
            "name": a[A_DEV_NAME].rstrip(b"\0").decode(),
            "netdev": a[A_NETDEV_NAME].rstrip(b"\0").decode(),
            "caps": fields(a[A_CAPS], CAPS),
            "policy": fields(a[A_POLICY], POLICY),
            "config": fields(a[A_CONFIG], CONFIG),
            "config_now": fields(a[A_CONFIG_NOW], CONFIG)}


def named(dev):
    return nla(A_DEV_NAME, dev.encode() + b"\0")


def main(argv):
    fam = Family()
    what, args = argv[0], argv[1:]
    opts = dict(zip(args[1::2], args[2::2])) if what == "set" else \
        dict(zip(args[2::2], args[3::2]))
    if what == "policy":
        err, msgs = fam.request(GENL_ID_CTRL, CTRL_CMD_GETPOLICY,
                                nla(CTRL_ATTR_FAMILY_NAME, b"xiw\0"),
                                NLM_F_DUMP)
        out = {"messages": len(msgs)}
    elif what == "dev":
        err, msgs = fam.request(fam.id, CMD_DEV_GET,
                                named(args[0]) if args else b"",
                                0 if args else NLM_F_DUMP)
        out = {"devices": [device(m) for m in msgs]}
    elif what == "set":
        def nest(table):
            return b"".join(nla(k, struct.pack(fmt, int(opts[name], 0)))
                            for k, (name, fmt) in table.items()
                            if name in opts)
        policy, config = nest(POLICY), nest(CONFIG)
        req = named(args[0])
        if policy or not (config or "config" in opts or
                          "config_now" in opts):
            req += nla(A_POLICY | NLA_F_NESTED, policy)
        if config or "config" in opts:
            req += nla(A_CONFIG | NLA_F_NESTED, config)
        if "config_now" in opts:
            req += nla(A_CONFIG_NOW | NLA_F_NESTED, nla(
                1, struct.pack("B", int(opts["config_now"]))))
        err, msgs = fam.request(fam.id, CMD_DEV_SET, req)
        out = {"devices": [device(m) for m in msgs]}
    else:
        req = named(args[0]) + nla(A_MR_STAG,
                                   struct.pack("I", int(args[1], 0)))
        if "persist" in opts:
            req += nla(A_MR_PERSIST, struct.pack("B", int(opts["persist"])))
        err, msgs = fam.request(fam.id, CMD_MR_SET if opts else CMD_MR_GET,
                                req)
        out = {"mr": {"stag": struct.unpack("I", msgs[0][A_MR_STAG])[0],
                      "persist": msgs[0][A_MR_PERSIST][0]}} if msgs else {}
    if err:
        out = {"error": err[0], "extack": err[1]}
    print(json.dumps(out))


if __name__ == "__main__":
    # Several requests, separated by "--": one JSON line each, one Python
    # start-up for all (a second or more under TCG).
    request = []
    for arg in sys.argv[1:] + ["--"]:
        if arg != "--":
            request.append(arg)
        elif request:
            main(request)
            request = []
