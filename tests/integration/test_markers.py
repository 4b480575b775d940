"""MPA markers (RFC 5044 section 5) between xiw peers: with the module
parameter markers=Y both ends ask for them (the M bit), so both directions
carry a marker every 512 octets of the stream. Every op and size moves
byte-exact with CRC off and on, and tshark's iwarp_mpa dissector, which
strips markers and checks the CRC over them, decodes a capture.

tshark locates markers assuming one FPDU per TCP segment, so the capture
uses small Sends at depth 1 (FPDUs under 508 octets, at most one marker
each: its stripping handles no more); the byte-exact matrix covers the
rest. The server's replies may leave in one segment when they follow
each other closely (seen under load): tshark then loses track of that
direction's markers and reports CRC errors where there are none (the
client, which requires CRC, accepted every FPDU: its run passed). The
CRC checks are the client's FPDUs', one per segment at depth 1."""
import pytest

from capture import assert_crcs, capture, tshark
from xiwperf_run import PORT, client, set_params

SERVER = "192.0.2.2"
CASES = [(1, 50, 1), (200, 100, 8), (4096, 100, 16), (100000, 20, 4),
         (1 << 20, 6, 2)]


@pytest.fixture
def marked(pair):
    set_params(pair, markers="Y")
    yield pair
    set_params(pair, markers="N", crc_policy="preferred")


@pytest.mark.parametrize("crc", [False, True], ids=["crc_off", "crc_on"])
def test_every_op_and_size_with_markers_both_ways(marked, crc):
    vm = marked
    set_params(vm, crc_policy="required" if crc else "off")
    for op in ("read", "send", "write"):
        for size, count, depth in CASES:
            rc, r = client(vm, "a", SERVER, "--op", op, "--size", size,
                           "--count", count, "--depth", depth, "--check")
            assert r["completed"] == count, (op, size, r)


@pytest.mark.parametrize("crc", [False, True], ids=["crc_off", "crc_on"])
def test_markers_decode_with_tshark(marked, crc):
    vm = marked
    set_params(vm, crc_policy="required" if crc else "off")
    pcap = f"/tmp/markers-{crc}.pcapng"
    capture(vm, "a", "v0", lambda: client(
        vm, "a", SERVER, "--op", "send", "--size", 200, "--count", 40,
        "--check"), pcap)
    flags = tshark(vm, pcap, "-Y", "iwarp_mpa.req || iwarp_mpa.rep",
                   "-T", "fields", "-e", "iwarp_mpa.marker_flag").split()
    assert len(flags) == 2 and all(f in ("1", "True") for f in flags), flags
    assert tshark(vm, pcap, "-Y", "_ws.malformed").strip() == ""
    errors = tshark(vm, pcap, "-Y", "_ws.expert.severity == error")
    assert errors.strip() == "", errors
    # Markers seen from both sides, each pointing into its FPDU.
    rows = tshark(vm, pcap, "-Y", "iwarp_mpa.marker_fpduptr", "-T", "fields",
                  "-e", "tcp.srcport", "-e",
                  "iwarp_mpa.marker_fpduptr").splitlines()
    ports = {r.split("\t")[0] for r in rows}
    assert str(PORT) in ports and len(ports) == 2, rows[:5]
    ptrs = [int(p) for r in rows for p in r.split("\t")[1].split(",")]
    assert all(0 <= p < 512 and p % 4 == 0 for p in ptrs), ptrs
    # Every FPDU of the Sends decodes as one (markers stripped right).
    sends = tshark(vm, pcap, "-Y", "iwarp_rdma.opcode == 0x03 && "
                   "tcp.srcport != 18515", "-T", "fields",
                   "-e", "iwarp_ddp.msn").split()
    assert len(sends) >= 40, sends
    assert_crcs(vm, pcap, crc, 40, where=f"tcp.dstport == {PORT}")
