"""RFC 7306 Immediate Data between xiw peers: RDMA Write with Immediate
(the Write, then an Immediate Data message) and Send with Immediate (the
Immediate Data message alone). The xiwperf server checks every receive
completion -- opcode RECV_RDMA_WITH_IMM or RECV, the WITH_IMM flag, no
bytes, the value (a per-connection sequence number unless --imm) -- and
with --check that a Write's data is in place when its completion
arrives. The wire order is read from a capture, and siw, which has no
RFC 7306, must fail the run cleanly."""
import pytest

from capture import capture, tshark
from xiwperf_run import client, load_xiwperf, start_server, stop_server

SERVER = "192.0.2.2"
CLIENT = "192.0.2.1"
WRITE, IMM, IMM_SE = 0x0, 0x8, 0x9

CASES = {
    "write_imm_sequence_numbers": ("write_imm", "--size", 4096, "--count",
                                   400, "--qps", 2, "--depth", 8),
    "write_imm_one_value": ("write_imm", "--size", 65536, "--count", 64,
                            "--imm", "0xdeadbeef"),
    "write_imm_multi_segment_sges": ("write_imm", "--size", 100000,
                                     "--count", 50, "--sge", 3,
                                     "--depth", 4),
    "imm_sequence_numbers": ("imm", "--count", 400, "--qps", 2,
                             "--depth", 8),
    "imm_solicited": ("imm", "--count", 64, "--depth", 4, "--solicit", 4),
}


@pytest.mark.parametrize("case", CASES)
def test_immediate_data_completes_with_its_value(pair, case):
    op, *args = CASES[case]
    rc, r = client(pair, "a", SERVER, "--op", op, *args, "--check")
    assert r["completed"] == r["count"] and r["mismatches"] == 0, r


def test_immediate_data_over_lo(vm):
    load_xiwperf(vm)
    vm.run("rdma link add xiwlo type xiw netdev lo")
    log = start_server(vm, None, "127.0.0.1", "lo-imm")
    try:
        for op, size in (("write_imm", 8192), ("imm", None)):
            sized = ("--size", size) if size else ()
            rc, r = client(vm, None, "127.0.0.1", "--op", op, *sized,
                           "--count", 100, "--depth", 4, "--check")
            assert r["device"] == "xiwlo" and r["completed"] == 100, r
    finally:
        stop_server(vm, log)
        vm.run("rmmod xiwperf", check=False)


def test_wire_has_write_then_immediate_data_on_queue_0(pair):
    """Each RDMA Write with Immediate is the Write's last segment, then an
    Immediate Data message on queue 0 whose 8 octets are the 32-bit value
    as a 64-bit number; MSNs of queue 0 count them one by one."""
    pcap = "/tmp/imm.pcapng"
    capture(pair, "a", "v0", lambda: client(
        pair, "a", SERVER, "--op", "write_imm", "--size", 200, "--count", 5,
        "--imm", "0x1234abcd", "--check"), pcap)
    # Several FPDUs may share a frame: flatten each field in stream order.
    def values(field):
        out = tshark(pair, pcap, "-Y", f"ip.src == {CLIENT} && iwarp_rdma",
                     "-T", "fields", "-e", field)
        return [v for line in out.split() for v in line.split(",") if v]

    ops = [int(v, 0) for v in values("iwarp_rdma.opcode")]
    lasts = [v in ("1", "True") for v in values("iwarp_ddp.last_flag")]
    assert len(ops) == len(lasts) and ops.count(IMM) == 5, (ops, lasts)
    for i, op in enumerate(ops):
        if op == IMM:
            assert i > 0 and ops[i - 1] == WRITE and lasts[i - 1], ops
    # Queue 0 from the client carries its Immediate Data only (queue 1,
    # the chunk table's Read Request), numbered one by one.
    untagged = list(zip(values("iwarp_ddp.qn"), values("iwarp_ddp.msn")))
    msns = [int(m) for q, m in untagged if q == "0"]
    assert msns == [1, 2, 3, 4, 5], untagged
    payload = "".join(values("tcp.payload")).replace(":", "")
    assert payload.count("000000001234abcd") == 5
    assert tshark(pair, pcap, "-Y", "_ws.malformed").strip() == ""


@pytest.mark.parametrize("op", ["write_imm", "imm"])
def test_immediate_data_to_siw_fails_cleanly(siw_server, op):
    """siw has no Immediate Data: it terminates the stream; xiw's run
    fails on a completion or the disconnect, never by the no-progress
    timeout, and no work request is lost or completed twice."""
    vm = siw_server
    sized = ("--size", 4096) if op == "write_imm" else ()
    rc, r = client(vm, "a", SERVER, "--op", op, *sized, "--count", 4,
                   check=False)
    assert rc == 1, r
    assert "no progress" not in r["error"], r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
