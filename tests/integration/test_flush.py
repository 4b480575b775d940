"""RDMA Flush (draft-talpey-rdma-commit-01 section 3.1.1) between xiw
peers through the kernel verbs (IB_WR_FLUSH with struct xiw_flush_wr,
include/xiw/verbs.h), driven by xiwperf's flush operation (an RDMA Write,
then a Flush of its region or of the whole MR).

The server's buffer is plain memory (DRAM): global visibility is always
given; persistence is refused with a Terminate unless the administrator
declares DRAM persistent (xiw's dram_persistent parameter). The rights
IB_ACCESS_FLUSH_* are enforced; the request and response on the wire are
the ones Documentation/commit-draft.md lays out; siw, which has no Flush,
refuses it cleanly."""
import struct

import pytest

from capture import capture, rdmap_terminates, untagged_fpdus
from xiwperf_run import (client, counted, hw_counters, set_params,
                         wait_resources_released)

SERVER = "192.0.2.2"
FRWR = ("--remote-mr", "frwr")
RDMAP, PROT = 0, 1


def flush(vm, count, *args, qps=1, depth=1, size=4096, check=True):
    return client(vm, "a", SERVER, "--op", "flush", "--count", count,
                  "--qps", qps, "--depth", depth, "--size", size, *FRWR,
                  *args, check=check)


@pytest.fixture
def dram_persistent(pair):
    set_params(pair, dram_persistent=1)
    yield pair
    set_params(pair, dram_persistent=0)


def terminates(vm, pcap):
    """(source, layer, error type, code) of each Terminate captured."""
    return [t[:4] for t in rdmap_terminates(vm, pcap)]


def test_flush_to_persistence_of_dram_is_refused_by_default(pair):
    """Plain memory cannot be made persistent: the server refuses the
    Flush as an access rights violation (Remote Protection Error 0x02),
    the Write before it having landed; the client's operation completes
    with REM_ACCESS_ERR, and nothing hangs."""
    pcap = "/tmp/flush-dram.pcapng"
    got = {}

    def run():
        got["rc"], got["r"] = flush(pair, 1, "--persist", check=False)
    before = hw_counters(pair, "xiw1")
    capture(pair, "a", "v0", run, pcap)
    r = got["r"]
    assert got["rc"] == 1 and r["wc_status"] == "REM_ACCESS_ERR", r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
    assert terminates(pair, pcap) == [(SERVER, RDMAP, PROT, 0x02)]
    wait_resources_released(pair, {"xiw1": 1})
    n = counted(before, hw_counters(pair, "xiw1"))
    assert n["flush_refused"] == 1 and n["flush_persistent"] == 0, n


def test_flush_to_persistence_succeeds_when_dram_is_declared_persistent(
        dram_persistent):
    """With dram_persistent=1 every Flush to persistence completes as
    IB_WC_FLUSH, after the data of its Write (read back) is in place."""
    before = hw_counters(dram_persistent, "xiw1")
    rc, r = flush(dram_persistent, 400, "--persist", "--check", qps=2,
                  depth=8)
    assert r["completed"] == 400 and r["mismatches"] == 0, r
    n = counted(before, hw_counters(dram_persistent, "xiw1"))
    assert n["flush_persistent"] == 400 and n["flush_dram"] == 400, n
    assert n["pmem_writeback_bytes"] == n["file_writeback_bytes"] == 0, n


@pytest.mark.parametrize("level", ["--range", "--whole-mr"])
def test_flush_to_global_visibility_always_succeeds(pair, level):
    """Global visibility is a fence in every domain: default policy, a
    range or the whole chunk MR, persistence not asked for."""
    rc, r = flush(pair, 200, "--global", level, "--check", depth=4)
    assert r["completed"] == 200 and r["mismatches"] == 0, r


def test_wire_carries_request_and_response_as_documented(dram_persistent):
    """Opcode 01100b on queue 1: Data Sink STag, Length, Tagged Offset,
    Flags (persistence 0x01 and global visibility 0x02 as asked); a whole
    region is flag 0x04 with no offset or length. The response 01101b on
    queue 3 carries nothing."""
    vm = dram_persistent
    pcap = "/tmp/flush-wire.pcapng"
    got = {}

    def run():
        got["range"] = flush(vm, 2, "--persist", "--global", "--check",
                             size=512)
        got["mr"] = flush(vm, 1, "--global", "--whole-mr", "--check",
                          size=512)
    capture(vm, "a", "v0", run, pcap)
    segs = untagged_fpdus(vm, pcap)
    reqs = [s for s in segs if s[0] == 0x4C]
    resps = [s for s in segs if s[0] == 0x4D]
    assert len(reqs) == 3 and len(resps) == 3, segs
    fields = [struct.unpack(">IIQI", s[3]) for s in reqs
              if s[1] == 1 and len(s[3]) == 20]
    assert len(fields) == 3, reqs
    for stag, length, to, flags in fields[:2]:
        assert (length, flags) == (512, 0x03) and to, fields
    stag, length, to, flags = fields[2]
    assert (length, to, flags) == (0, 0, 0x06), fields
    assert all(s[1] == 3 and s[3] == b"" for s in resps), resps


# A Flush through a key without the right, or an unknown one: Remote
# Protection Error (access rights 0x02, invalid STag 0x00), after a good
# Write.
FAULTS = {"rights": 0x02, "stag": 0x00}


@pytest.mark.parametrize("kind", FAULTS)
def test_flush_without_the_right_gets_its_terminate(pair, kind):
    pcap = f"/tmp/flush-{kind}.pcapng"
    got = {}

    def run():
        got["rc"], got["r"] = flush(pair, 1, "--global", "--inject", kind,
                                    check=False)
    capture(pair, "a", "v0", run, pcap)
    r = got["r"]
    assert got["rc"] == 1 and r["wc_status"] == "REM_ACCESS_ERR", r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
    assert terminates(pair, pcap) == [(SERVER, RDMAP, PROT, FAULTS[kind])]
    wait_resources_released(pair, {"xiw1": 1})


def test_flush_to_siw_fails_cleanly(siw_server):
    """siw has no Flush (01100b is no opcode of RFC 5040): it refuses the
    request with a Terminate; xiw's operation completes in error, neither
    side hangs. (siw's server offers no fast registrations: --inject
    stag lets the run go without.)"""
    rc, r = client(siw_server, "a", SERVER, "--op", "flush", "--count", 1,
                   "--size", 64, "--global", "--inject", "stag",
                   check=False)
    assert rc == 1, r
    assert r["wc_status"] in ("REM_INV_REQ_ERR", "REM_OP_ERR",
                              "REM_ACCESS_ERR", "WR_FLUSH_ERR"), r
    assert "no progress" not in r["error"], r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
