"""RFC 6581's peer-to-peer model: the initiator's first message is an RTR
(a zero-length Send, RDMA Write or RDMA Read) and the responder sends
nothing of its own before it arrived. Module parameters p2p and rtr
(admin.md) select the model and the kinds; they are global to the guest,
so with rtr=KIND both xiw ends support exactly that kind.

The capture is the witness: per connection, the initiator's first FPDU is
the RTR of the negotiated kind and every FPDU of the responder comes after
it (a Read RTR's Read Response first)."""
import os

import pytest

from capture import capture, tshark
from conftest import TOP, wait_until
from xiwperf_run import PORT, client, set_params

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
