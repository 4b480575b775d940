"""RFC 6581's peer-to-peer model: the initiator's first message is an RTR
(a zero-length Send, RDMA Write or RDMA Read) and the responder sends
nothing of its own before it arrived. Module parameters p2p and rtr
(admin.md) select the model and the kinds; they are global to the guest,
so with rtr=KIND both xiw ends support exactly that kind.

The capture is the witness: per connection, the initiator's first FPDU is
the RTR of the negotiated kind and every FPDU of the responder comes after
it (a Read RTR's Read Response first)."""
import json
import os
import struct
import sys

import pytest

from capture import capture, tshark
from conftest import TOP, wait_until
from xiwperf_run import PORT, client, set_params

sys.path.insert(0, os.path.join(TOP, "tests", "reliability"))
import wire as w  # noqa: E402

SERVER = "192.0.2.2"
FAKE_PORT = 18601
PEER = os.path.join(TOP, "tests", "integration", "mpa_peer.py")

# RTR kind: (RDMAP opcode, ULPDU length of the RTR FPDU).
RTR = {
    "send": ("0x03", 18),    # untagged header only
    "write": ("0x00", 14),   # tagged header only
    "read": ("0x01", 46),    # untagged header + Read Request header
}


@pytest.fixture
def p2p(pair):
    yield pair
    set_params(pair, p2p="N", rtr="write,read,send")


def fpdus(vm, pcap):
    """(from_client, opcode, ulpdu_length) of every FPDU, in order."""
    out = tshark(vm, pcap, "-Y", "iwarp_rdma", "-T", "fields",
                 "-e", "tcp.srcport", "-e", "iwarp_rdma.opcode",
                 "-e", "iwarp_mpa.ulpdulength")
    seq = []
    for line in out.splitlines():
        port, ops, lens = (line.split("\t") + ["", ""])[:3]
        for op, ln in zip(ops.split(","), lens.split(",")):
            seq.append((port != str(PORT), op, int(ln)))
    return seq


def assert_rtr_first(seq, kind):
    first_client = next(i for i, f in enumerate(seq) if f[0])
    assert seq[first_client][1:] == RTR[kind], seq[:6]
    server = [i for i, f in enumerate(seq) if not f[0]]
    assert server and server[0] > first_client, seq[:6]
    if kind == "read":
        # The responder's first FPDU answers the RTR: an empty Read Response.
        assert seq[server[0]][1:] == ("0x02", 14), seq[:6]


def send_run_opens_with_the_rtr(vm, kind, pcap):
    """A checked Send run under capture: the server speaks (credits,
    verdict), so the capture shows it held back until the RTR; and Sends
    after a Send RTR prove it consumed no receive (each message is checked
    against its sequence number)."""
    capture(vm, "a", "v0", lambda: client(
        vm, "a", SERVER, "--op", "send", "--size", 5000, "--count", 20,
        "--check"), pcap)
    assert_rtr_first(fpdus(vm, pcap), kind)


@pytest.mark.parametrize("kind", RTR)
def test_initiator_sends_the_rtr_before_anything_and_data_flows(p2p, kind):
    vm = p2p
    set_params(vm, p2p="Y", rtr=kind)
    send_run_opens_with_the_rtr(vm, kind, f"/tmp/p2p-{kind}.pcapng")
    for op in ("read", "write"):
        client(vm, "a", SERVER, "--op", op, "--size", 100000, "--count", 20,
               "--depth", 4, "--qps", 2, "--check")


def test_no_common_rtr_kind_terminates_and_fails_the_connect(p2p):
    """The fake responder offers only a Send RTR; xiw supports Write and
    Read: the Terminate "no matching RTR option" (LLP layer 2, MPA error
    type 0, code 7) is the stream's only FPDU, and the connect fails."""
    vm = p2p
    set_params(vm, p2p="Y", rtr="write,read")
    rep = (b"MPA ID Rep Frame".hex() + "10020004"   # S, rev 2, 4 octets
           + "c001" + "0001")                        # A + B(send), IRD 1; ORD 1
    log = f"/tmp/mpa-peer-{FAKE_PORT}.log"
    vm.run(f": > {log}; ip netns exec b /usr/bin/python3 -S {PEER} listen "
           f"{SERVER} {FAKE_PORT} '{rep}' --dump --wait 30 >> {log} 2>&1 &")
    wait_until(vm, f"grep -q listening {log}", "fake responder listening")
    rc, r = client(vm, "a", SERVER, "--port", FAKE_PORT, "--op", "send",
                   "--size", 100, "--count", 1, check=False)
    assert rc == 1 and r["completed"] == 0, r
    wait_until(vm, f"grep -qE '^(closed|reset)$' {log}",
               "xiw closed the connection")
    out = vm.run(f"cat {log}").out
    assert "closed" in out.split(), out    # gracefully: FIN, not RST
    data = bytes.fromhex(next(l for l in out.splitlines()
                              if l.startswith("data ")).split()[1])
    ulpdu = int.from_bytes(data[0:2], "big")
    assert data[3] & 0x0f == 7, data.hex()                  # Terminate
    assert int.from_bytes(data[8:12], "big") == 2, data.hex()   # QN 2
    assert data[20] == 0x20 and data[21] == 0x07, data.hex()   # 2/0/0x07
    assert len(data) == 2 + ulpdu + (-(2 + ulpdu) % 4) + 4, data.hex()


@pytest.fixture
def xiw_and_siw(siw_server):
    """xiw0 in a, siw0 in b with an xiwperf server on it."""
    yield siw_server
    set_params(siw_server, p2p="N", rtr="write,read,send")


@pytest.mark.parametrize("kind", ["write", "read"])
def test_siw_responder_accepts_xiw_rtr(xiw_and_siw, kind):
    """siw answers a peer-to-peer Request with the Write and Read kinds
    (it has no Send RTR); xiw's RTR of each opens the stream."""
    vm = xiw_and_siw
    set_params(vm, p2p="Y", rtr=kind)
    send_run_opens_with_the_rtr(vm, kind, f"/tmp/p2p-siw-{kind}.pcapng")
    for op in ("read", "write"):
        client(vm, "a", SERVER, "--op", op, "--size", 100000, "--count", 20,
               "--check")


# An accepting Reply choosing the Read RTR: C, S, revision 2, 4 octets;
# A (peer-to-peer) + IRD 1; D (Read RTR) + ORD 1.
READ_RTR_REPLY = b"MPA ID Rep Frame".hex() + "50020004" + "8001" + "4001"
# rping as the initiator (through the provider): it asks for no private
# data, and once connected waits quietly for what the responder sends.
PROVIDER = os.path.join(TOP, "build", "cmake", "provider", "libxiw")
RPING = (f"ip netns exec a env RDMAV_DRIVERS={PROVIDER} rping -c "
         f"-a {SERVER} -p {FAKE_PORT} -C 1")
EMPTY_READ_RESPONSE = w.tagged(w.READ_RESP, 0, 0)
INVALID_STAG = 0x1100       # DDP, tagged buffer error, invalid STag
UNEXPECTED_OPCODE = 0x0206  # RDMAP, remote operation error, unexp. opcode
# What the responder sends while xiw's Read RTR is outstanding, and the
# Terminate that earns (layer/type and code; None: none). The RTR names
# STag 0, TO 0 and no octets as its sink: its answer is an empty, last
# Read Response there (RFC 6581 section 8), any other Read Response is
# placed nowhere (invalid STag), and a response of another kind answers
# no request (nothing but the RTR is outstanding: the send queue's Reads
# and Atomics wait behind it).
WHILE_READ_RTR = {
    "empty_read_response": ([EMPTY_READ_RESPONSE], None),
    "read_response_with_data": (
        [w.tagged(w.READ_RESP, 0, 0, b"\xa5" * 8)], INVALID_STAG),
    "read_response_to_an_stag": (
        [w.tagged(w.READ_RESP, 0x100, 0)], INVALID_STAG),
    "read_response_at_an_offset": (
        [w.tagged(w.READ_RESP, 0, 8)], INVALID_STAG),
    "read_response_not_last": (
        [w.tagged(w.READ_RESP, 0, 0, last=False)], INVALID_STAG),
    "atomic_response": (
        [w.untagged(w.ATOMIC_RESP, 1, struct.pack(">IQ", 0, 0))],
        UNEXPECTED_OPCODE),
    "flush_response": ([w.untagged(w.FLUSH_RESP, 1)], UNEXPECTED_OPCODE),
    "verify_response": (
        [w.untagged(w.VERIFY_RESP, 1, bytes(32))], UNEXPECTED_OPCODE),
    "atomic_write_response": (
        [w.untagged(w.ATOMIC_WRITE_RESP, 1)], UNEXPECTED_OPCODE),
    "two_empty_read_responses": (
        [EMPTY_READ_RESPONSE, EMPTY_READ_RESPONSE], UNEXPECTED_OPCODE),
    # Delivered, never answered with a Terminate (RFC 5040 section 5.4).
    "terminate": ([w.untagged(w.TERMINATE, 1,
                              struct.pack(">I", UNEXPECTED_OPCODE << 16))],
                  None),
}


def read_rtr_answered_with(vm, case):
    """One connection of xiw0's (initiator, Read RTR) to a fake responder
    that sends WHILE_READ_RTR[case] after the RTR; a problem, or None."""
    ulpdus, cause = WHILE_READ_RTR[case]
    fpdus = b"".join(w.fpdu(u, False) for u in ulpdus).hex()
    log = f"/tmp/mpa-peer-{FAKE_PORT}.log"
    vm.run(f": > {log}; (ip netns exec b /usr/bin/python3 -S {PEER} respond "
           f"{SERVER} {FAKE_PORT} {READ_RTR_REPLY} {fpdus} --close "
           f"--wait 30 >> {log} 2>&1; echo rc=$? >> {log}) >/dev/null 2>&1 &")
    wait_until(vm, f"grep -q listening {log}", "fake responder listening")
    # rping fails, one way or another: what counts is on the wire.
    vm.run(RPING, check=False, timeout=120)
    wait_until(vm, f"grep -q '^rc=' {log}", "the fake responder's end")
    out = vm.run(f"cat {log}").out.splitlines()
    if "rc=0" not in out:
        return f"fake responder: {out}"
    rtr = bytes.fromhex(next(ln for ln in out if ln.startswith("rtr "))[4:])
    # The RTR: a Read Request of nothing from STag 0 to STag 0.
    if rtr[1] & 0x1f != w.READ_REQ or len(rtr) != 46 or rtr[18:] != bytes(28):
        return f"not a Read RTR: {rtr.hex()}"
    frames = [json.loads(ln) for ln in out if ln.startswith("{")]
    terms = [f["term_ctrl"] >> 16 for f in frames if "term_ctrl" in f]
    if terms != ([] if cause is None else [cause]):
        return f"Terminates {[hex(t) for t in terms]}: {frames}"
    # Nothing after a Terminate.
    if cause is not None and "term_ctrl" not in frames[-1]:
        return f"FPDUs after the Terminate: {frames}"
    return None


def test_responses_while_the_read_rtr_is_outstanding(p2p):
    """xiw (rping's QP), initiator in the peer-to-peer model with a Read
    RTR, against a fake responder that answers the RTR with each kind of
    response
    (WHILE_READ_RTR, a connection each): the Terminate each earns, then
    the close; the empty Read Response (the control) and the peer's own
    Terminate earn none."""
    vm = p2p
    set_params(vm, p2p="Y", rtr="read")
    vm.run("modprobe ib_uverbs && modprobe rdma_ucm")
    problems = {case: read_rtr_answered_with(vm, case)
                for case in WHILE_READ_RTR}
    problems = {k: v for k, v in problems.items() if v}
    assert not problems, problems


NO_MATCHING_RTR = 0x2007    # LLP, MPA error, no matching RTR option
ZERO_READ = w.read_req(0, 0, 0, 0, 0)
# xiw as responder, to an initiator offering one RTR kind: what the
# initiator sends first, and the Terminate that earns (None: none; the
# Read RTR's answer, or after a Send or Write RTR the answer to a
# zero-length Read Request that follows, shows the stream open). Anything but the RTR of an offered kind, empty and
# whole, is RFC 6581's "no matching RTR option". A Terminate first (an
# initiator that found no RTR kind to send, RFC 6581 section 8) is
# delivered as any Terminate and never answered with one (RFC 5040
# section 5.4).
RESPONDER_FIRST = {
    "send_rtr": ("send", [w.untagged(w.SEND, 1)], None),
    "write_rtr": ("write", [w.tagged(w.WRITE, 0, 0)], None),
    "read_rtr": ("read", [w.untagged(w.READ_REQ, 1, ZERO_READ)], None),
    "send_with_data_before_the_rtr": (
        "write", [w.untagged(w.SEND, 1, b"hello")], NO_MATCHING_RTR),
    "send_rtr_with_data": (
        "send", [w.untagged(w.SEND, 1, b"x")], NO_MATCHING_RTR),
    "write_rtr_with_data": (
        "write", [w.tagged(w.WRITE, 0, 0, b"x")], NO_MATCHING_RTR),
    "write_rtr_not_last": (
        "write", [w.tagged(w.WRITE, 0, 0, last=False)], NO_MATCHING_RTR),
    "read_rtr_of_eight_octets": (
        "read", [w.untagged(w.READ_REQ, 1, w.read_req(0, 0, 8, 0, 0))],
        NO_MATCHING_RTR),
    "rtr_of_a_kind_not_offered": (
        "write", [w.untagged(w.SEND, 1)], NO_MATCHING_RTR),
    "terminate_first": (
        "write", [w.untagged(w.TERMINATE, 1,
                             struct.pack(">I", NO_MATCHING_RTR << 16))],
        None),
}


def responder_sees_first(vm, case):
    """mpa_peer.py, initiator in the peer-to-peer model, opens with
    RESPONDER_FIRST[case] to xiw1's xiwperf server; a problem, or None."""
    from test_terminate import HELLO
    kind, ulpdus, cause = RESPONDER_FIRST[case]
    if cause is None and kind != "read" and case != "terminate_first":
        ulpdus = ulpdus + [w.untagged(w.READ_REQ, 1, ZERO_READ)]
    frames = b"".join(w.fpdu(u, False) for u in ulpdus).hex()
    res = vm.ns("a", f"/usr/bin/python3 -S {PEER} rdma {SERVER} {PORT} "
                     f"{HELLO.hex()} {frames} --p2p {kind} "
                     "--close-after-answer --wait 30", check=False,
                timeout=60)
    if res.rc != 0:
        return f"mpa_peer: {res}"
    got = [json.loads(ln) for ln in res.out.splitlines() if ln.strip()]
    terms = [f["term_ctrl"] >> 16 for f in got if "term_ctrl" in f]
    if case == "terminate_first":
        want = []               # delivered, not answered: nothing at all
    elif cause is None:
        want = [w.READ_RESP]    # the zero-length Read Response, only
    else:
        want = [w.TERMINATE]
    if [f["opcode"] for f in got] != want or \
            terms != ([] if cause is None else [cause]):
        return f"got {got}"
    return None


def test_the_responder_takes_only_the_rtr_first(pair):
    """xiw's xiwperf server, responder to mpa_peer.py in the peer-to-peer
    model: each first FPDU of RESPONDER_FIRST, a connection each."""
    problems = {case: responder_sees_first(pair, case)
                for case in RESPONDER_FIRST}
    problems = {k: v for k, v in problems.items() if v}
    assert not problems, problems
