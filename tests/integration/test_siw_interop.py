"""xiw and stock siw on one wire: xiw in namespace a (v0, 192.0.2.1),
siw in namespace b (v1, 192.0.2.2), each side in turn the rdma_cm client
and the server, Send/Write/Read with every byte checked, CRC off and on.

siw never asks for CRC itself (its crc knobs are compile-time constants,
off) but honours a peer that asks, so "CRC on" here means xiw's policy is
`required`; the capture proves what was negotiated and that both sides'
CRCs are good."""
import pytest

from capture import assert_crcs, capture, tshark
from xiwperf_run import client, set_params, start_server, stop_server

XIW_ADDR = "192.0.2.1"
SIW_ADDR = "192.0.2.2"

# (size, count, depth): single bytes, a page, multi-FPDU messages at
# depth 1 and deep queues.
CASES = [(1, 50, 1), (4096, 200, 16), (100000, 20, 1), (1 << 20, 8, 4)]


@pytest.fixture
def mixed(xiw_and_siw):
    yield xiw_and_siw
    set_params(xiw_and_siw, crc_policy="preferred", mpa_rev=2)


def run_all_ops(vm, client_ns, server_addr, client_dev):
    # Reads first: the server's read pattern is written once.
    for op in ("read", "send", "write"):
        for size, count, depth in CASES:
            rc, r = client(vm, client_ns, server_addr, "--op", op,
                           "--size", size, "--count", count,
                           "--depth", depth, "--check")
            assert r["device"] == client_dev
            assert r["completed"] == count, (op, size, r)


def run_small(vm, client_ns, server_addr):
    """A short exchange of every op for the capture: tshark decodes in
    the guest, under TCG, so the capture is kept to a few hundred
    frames. Reads first, as above."""
    for op in ("read", "send", "write"):
        client(vm, client_ns, server_addr, "--op", op, "--size", 5000,
               "--count", 10, "--check")


def check_capture(vm, pcap, crc):
    """The negotiation the MPA Reply states, and every FPDU's CRC."""
    reply = tshark(vm, pcap, "-Y", "iwarp_mpa.rep", "-T", "fields",
                   "-e", "iwarp_mpa.crc_flag").split()
    assert reply and all(f in (("1", "True") if crc else ("0", "False"))
                         for f in reply), reply
    assert tshark(vm, pcap, "-Y", "_ws.malformed").strip() == ""
    errors = tshark(vm, pcap, "-Y", "_ws.expert.severity == error")
    assert errors.strip() == "", errors
    assert_crcs(vm, pcap, crc, 30)


# (client namespace, client device, server namespace, server address)
DIRECTIONS = {
    "xiw_client_siw_server": ("a", "xiw0", "b", SIW_ADDR),
    "siw_client_xiw_server": ("b", "siw0", "a", XIW_ADDR),
}


@pytest.mark.parametrize("crc", [False, True], ids=["crc_off", "crc_on"])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_every_op_between_xiw_and_siw(mixed, direction, crc):
    vm = mixed
    client_ns, client_dev, server_ns, server_addr = DIRECTIONS[direction]
    set_params(vm, crc_policy="required" if crc else "off")
    log = start_server(vm, server_ns, server_addr, direction)
    pcap = f"/tmp/{direction}-{crc}.pcapng"
    try:
        capture(vm, "a", "v0",
                lambda: run_small(vm, client_ns, server_addr), pcap)
        stop_server(vm, log)    # a fresh read pattern for the matrix
        log = start_server(vm, server_ns, server_addr, direction)
        run_all_ops(vm, client_ns, server_addr, client_dev)
    finally:
        stop_server(vm, log)
    check_capture(vm, pcap, crc)


def test_xiw_mpa_rev1_client_siw_server(mixed):
    """An MPA revision 1 Request (no enhanced connection data): siw
    answers in revision 1 and the data path is the same."""
    vm = mixed
    set_params(vm, mpa_rev=1)
    log = start_server(vm, "b", SIW_ADDR, "siw-rev1")
    try:
        for op in ("read", "send", "write"):
            client(vm, "a", SIW_ADDR, "--op", op, "--size", 65536,
                   "--count", 20, "--depth", 4, "--check")
    finally:
        stop_server(vm, log)


def test_read_siw_refuses_completes_with_remote_access_error(mixed):
    """A Read with a wrong key to siw: siw terminates with RDMAP remote
    protection / invalid STag and includes the Read Request, and xiw's
    Read completes with REM_ACCESS_ERR (not a flush); nothing else is
    lost or completed twice."""
    vm = mixed
    log = start_server(vm, "b", SIW_ADDR, "siw-refuse")
    pcap = "/tmp/siw-refuse.pcapng"
    got = {}

    def run():
        got["rc"], got["r"] = client(vm, "a", SIW_ADDR, "--op", "read",
                                     "--size", 4096, "--count", 1,
                                     "--inject", "stag", check=False)
    try:
        capture(vm, "a", "v0", run, pcap)
    finally:
        stop_server(vm, log)
    r = got["r"]
    assert got["rc"] == 1, r
    assert r["wc_status"] == "REM_ACCESS_ERR", r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
    # Exactly one Terminate, from siw. Its control field is in siw's own
    # layout (see Documentation/conformance.md), so tshark's decoding of
    # it is not checked: the octets are.
    terms = tshark(vm, pcap, "-Y", "iwarp_rdma.opcode == 7", "-T", "fields",
                   "-e", "ip.src", "-e", "tcp.payload").split()
    assert len(terms) == 2 and terms[0] == SIW_ADDR, terms
    # MPA length, untagged DDP header on QN 2, then the control field:
    # RDMAP (0) remote protection (1) invalid STag (0), M D R set.
    assert terms[1].replace(":", "")[4 + 36:4 + 44] == "10000700", terms


def test_many_small_requests_at_once_reach_siw(mixed):
    """64 Reads of 8 octets, and Sends of 40 and 700, outstanding at once,
    TCP cutting segments at the MSS as a NIC does: stock siw takes every
    request (a Read Request or Send header split across two segments
    makes siw fail the stream, or overrun its header buffer), and every
    byte comes back right."""
    vm = mixed
    log = start_server(vm, "b", SIW_ADDR, "siw-small")
    vm.ns("a", "ip link set v0 gso_max_segs 1")
    try:
        for op, size in (("read", 8), ("send", 40), ("send", 700)):
            rc, r = client(vm, "a", SIW_ADDR, "--op", op, "--size", size,
                           "--count", 2000, "--depth", 64, "--check")
            assert r["completed"] == 2000, (op, size, r)
    finally:
        vm.ns("a", "ip link set v0 gso_max_segs 65535", check=False)
        stop_server(vm, log)
