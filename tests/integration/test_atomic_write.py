"""Atomic Write (draft-talpey-rdma-commit-01 section 3.1.3) between xiw
peers through the kernel verbs (IB_WR_ATOMIC_WRITE with struct
xiw_atomic_write_wr, include/xiw/verbs.h), driven by xiwperf: many QPs on
one word never leave a mix of two values, the request and response on the
wire are the ones Documentation/commit-draft.md lays out, a faulty request
is refused with its Terminate and the word untouched, and siw (which has
no Atomic Write) refuses it cleanly."""
import struct

import pytest

from capture import capture, rdmap_terminates, untagged_fpdus
from xiwperf_run import client, wait_resources_released

SERVER = "192.0.2.2"
FRWR = ("--remote-mr", "frwr")
MASK32 = (1 << 32) - 1


def aw_value(tag):
    """uapi/xiwperf.h xiwperf_aw_value(): the tag above, its complement
    below."""
    tag &= MASK32
    return tag << 32 | (~tag & MASK32)


def atomic_write(vm, count, *args, qps=1, depth=1, check=True):
    return client(vm, "a", SERVER, "--op", "atomic_write", "--count", count,
                  "--qps", qps, "--depth", depth, *FRWR, "--check", *args,
                  check=check)


def read_word(vm):
    """The target word, through a FetchAdd of 0 (which reads it twice)."""
    rc, r = client(vm, "a", SERVER, "--op", "fetch_add", "--count", 1,
                   "--add", 0, *FRWR, "--check")
    assert r["atomic_init"] == r["atomic_final"], r
    return r["atomic_final"]


def test_eight_qps_on_one_word_leave_a_whole_last_value(pair):
    """8 connections x 5 000 Atomic Writes, 16 deep each, on one word:
    every one completes as IB_WC_ATOMIC_WRITE, and the word ends as the
    last value of one of the connections, whole."""
    rc, r = atomic_write(pair, 40000, qps=8, depth=16)
    assert r["completed"] == 40000 and r["mismatches"] == 0, r
    final = r["atomic_final"]
    lasts = {aw_value(4999 * 8 + q) for q in range(8)}
    assert final in lasts, hex(final)
    assert read_word(pair) == final


def test_the_word_holds_the_value_in_host_order(pair):
    """One Atomic Write of tag 0: the word then reads (through an RDMA
    Read, in host order) as xiwperf_aw_value(0)."""
    atomic_write(pair, 1)
    assert read_word(pair) == aw_value(0)


def test_wire_carries_request_and_response_as_documented(pair):
    """Opcode 10000b with RDMAP version 1 on queue 1: Data Sink STag,
    Length 8, Tagged Offset, the value big-endian; the response 10001b on
    queue 3, nothing after the DDP header."""
    pcap = "/tmp/atomic-write.pcapng"
    got = {}

    def run():
        got["rc"], got["r"] = client(pair, "a", SERVER, "--op",
                                     "atomic_write", "--count", 3, *FRWR,
                                     check=False)
    capture(pair, "a", "v0", run, pcap)
    assert got["rc"] == 0 and got["r"]["completed"] == 3, got
    segs = untagged_fpdus(pair, pcap)
    reqs = [s for s in segs if s[0] == 0x50]
    resps = [s for s in segs if s[0] == 0x51]
    assert len(reqs) == 3 and len(resps) == 3, segs
    for k, (ctrl, qn, msn, body) in enumerate(reqs):
        assert qn == 1 and len(body) == 24, (k, body.hex())
        stag, length, to, value = struct.unpack(">IIQQ", body)
        assert length == 8 and to % 8 == 0, (k, body.hex())
        assert value == aw_value(k), (k, hex(value))
    assert [s[1:] for s in resps] == \
        [(3, msn, b"") for msn in (resps[0][2], resps[0][2] + 1,
                                    resps[0][2] + 2)], resps


# Faults a responder refuses before it touches the word: inject kind,
# extra options, (layer, error type, code) of the Terminate, the
# requester's completion status.
RDMAP = 0
PROT, OP = 1, 2
FAULTS = {
    "unaligned": ((), (RDMAP, OP, 0x07), "REM_INV_REQ_ERR"),
    "stag": ((), (RDMAP, PROT, 0x00), "REM_ACCESS_ERR"),
    "bounds": ((), (RDMAP, PROT, 0x01), "REM_ACCESS_ERR"),
    "rights": ((), (RDMAP, PROT, 0x02), "REM_ACCESS_ERR"),
}


@pytest.mark.parametrize("kind", FAULTS)
def test_faulty_atomic_write_gets_its_terminate_and_changes_nothing(pair,
                                                                    kind):
    extra, want, status = FAULTS[kind]
    atomic_write(pair, 1)                       # the word: aw_value(0)
    pcap = f"/tmp/atomic-write-{kind}.pcapng"
    got = {}

    def run():
        got["rc"], got["r"] = client(
            pair, "a", SERVER, "--op", "atomic_write", "--count", 1, *extra,
            *FRWR, "--inject", kind, check=False)
    capture(pair, "a", "v0", run, pcap)
    r = got["r"]
    assert got["rc"] == 1 and r["wc_status"] == status, r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
    terms = rdmap_terminates(pair, pcap)
    assert len(terms) == 1, terms
    assert terms[0][:4] == (SERVER, *want), terms
    wait_resources_released(pair, {"xiw1": 1})
    assert read_word(pair) == aw_value(0)


def test_atomic_write_to_siw_fails_cleanly(siw_server):
    """siw reads four opcode bits: 10000b is an RDMA Write to it, on an
    untagged buffer, which it refuses with a Terminate. xiw's request
    completes in error; neither side hangs. (siw's xiwperf server offers
    no fast registrations: the global rkey, which has the write right.)"""
    vm = siw_server
    rc, r = client(vm, "a", SERVER, "--op", "atomic_write", "--count", 1,
                   "--inject", "stag", check=False)
    assert rc == 1, r
    assert r["wc_status"] in ("REM_INV_REQ_ERR", "REM_OP_ERR",
                              "REM_ACCESS_ERR", "WR_FLUSH_ERR"), r
    assert "no progress" not in r["error"], r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
