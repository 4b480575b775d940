"""RDMA Verify (draft-talpey-rdma-commit-01 section 3.1.2) between xiw
peers through xiw's own function (xiw_post_verify(), include/xiw/verbs.h:
Verify has no verb upstream), driven by xiwperf's verify operation (an
RDMA Write of the operation's pattern, then a Verify of that region).

The server sets the hash on its registrations (xiw_mr_set_verify()); the
client hashes what it wrote and compares what comes back (--check), and
with --expect sends a hash for the server to compare: a match completes,
a mismatch terminates the stream and sends no response. siw, which has no
Verify, refuses it cleanly."""
import json
import struct

import pytest

from capture import capture, rdmap_terminates, untagged_fpdus
from xiwperf_run import (client, counted, hw_counters, start_server,
                         stop_server, wait_resources_released)

SERVER = "192.0.2.2"
FRWR = ("--remote-mr", "frwr")


def verify(vm, hash_alg, count, *args, size=4096, depth=1, check=True):
    return client(vm, "a", SERVER, "--op", "verify", "--hash", hash_alg,
                  "--count", count, "--size", size, "--depth", depth, *FRWR,
                  *args, check=check)


@pytest.mark.parametrize("size", [1, 4096, 1 << 20])
@pytest.mark.parametrize("hash_alg", ["crc32c", "sha256"])
def test_verify_returns_the_hash_of_what_was_written(pair, hash_alg, size):
    """1 B to 1 MiB, 4 deep: every hash that comes back is the client's
    own hash of the pattern it wrote just before (--check)."""
    count = 4 if size > 4096 else 16
    rc, r = verify(pair, hash_alg, count, "--check", size=size,
                   depth=min(count, 4))
    assert r["completed"] == count and r["mismatches"] == 0, r


def test_server_hash_serves_its_own_and_rejects_another(pair):
    """A server started with --hash sha256 sets it on its registrations
    whatever a run asks: a sha256 run is served (and its hashes are the
    client's), a crc32c run is rejected at connection, clearly."""
    port = 18519
    log = start_server(pair, "b", SERVER, "sha256", "--hash", "sha256",
                       port=port, json_out=True)
    try:
        listening = json.loads(pair.run(f"head -1 {log}").out)
        assert listening["hash"] == "sha256", listening
        rc, r = client(pair, "a", SERVER, "--op", "verify", "--hash",
                       "sha256", "--count", 8, "--size", 4096, *FRWR,
                       "--check", port=port)
        assert r["completed"] == 8 and r["mismatches"] == 0, r
        rc, r = client(pair, "a", SERVER, "--op", "verify", "--hash",
                       "crc32c", "--count", 8, "--size", 4096, *FRWR,
                       port=port, check=False)
        assert rc == 1 and r["completed"] == 0, r
        assert "rejected the connection: it verifies with sha256 only " \
               "(its --hash), not crc32c" in r["error"], r
    finally:
        stats = stop_server(pair, log)
    assert stats["rejected"] >= 1, stats


def test_matching_expected_hash_completes(pair):
    """The client's own hash as the expected one: the server compares,
    finds it equal, and answers."""
    rc, r = verify(pair, "sha256", 32, "--expect", "--check", depth=4)
    assert r["completed"] == 32 and r["mismatches"] == 0, r


def test_mismatching_expected_hash_terminates_without_a_response(pair):
    """A wrong expected hash (of the right length): the server sends the
    Terminate of a remote operation error with the Verify's DDP header,
    no Verify Response; the client's Verify completes with
    REM_INV_REQ_ERR. The server's device counts the mismatch."""
    pcap = "/tmp/verify-mismatch.pcapng"
    got = {}
    before = hw_counters(pair, "xiw1")

    def run():
        got["rc"], got["r"] = verify(pair, "crc32c", 1, "--expect",
                                     "deadbeef", check=False)
    capture(pair, "a", "v0", run, pcap)
    r = got["r"]
    assert got["rc"] == 1 and r["wc_status"] == "REM_INV_REQ_ERR", r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
    terms = rdmap_terminates(pair, pcap)
    assert len(terms) == 1, terms
    src, layer, etype, code, ddp_h, rdma_h = terms[0]
    assert (src, layer, etype, code) == (SERVER, 0, 2, 0xFF), terms
    assert ddp_h, terms
    segs = untagged_fpdus(pair, pcap)
    assert [s for s in segs if s[0] == 0x4E], segs      # the request
    assert not [s for s in segs if s[0] == 0x4F], segs  # no response
    wait_resources_released(pair, {"xiw1": 1})
    n = counted(before, hw_counters(pair, "xiw1"))
    assert n["verify_mismatches"] == 1, n


def test_wire_carries_request_and_response_as_documented(pair):
    """Opcode 01110b on queue 1: Data Sink STag, Length, Tagged Offset,
    then the expected hash; the response 01111b on queue 3 is the hash
    alone, as long as the algorithm's digest."""
    pcap = "/tmp/verify-wire.pcapng"

    def run():
        verify(pair, "sha256", 2, "--expect", "--check", size=512)
    capture(pair, "a", "v0", run, pcap)
    segs = untagged_fpdus(pair, pcap)
    reqs = [s for s in segs if s[0] == 0x4E]
    resps = [s for s in segs if s[0] == 0x4F]
    assert len(reqs) == 2 and len(resps) == 2, segs
    for ctrl, qn, msn, body in reqs:
        assert qn == 1 and len(body) == 16 + 32, body.hex()
        stag, length, to = struct.unpack(">IIQ", body[:16])
        assert length == 512, body.hex()
    for (ctrl, qn, msn, body), req in zip(resps, reqs):
        assert qn == 3 and body == req[3][16:], (body.hex(), req[3].hex())


def test_verify_to_siw_fails_cleanly(siw_server):
    """siw has no Verify (01110b is no opcode of RFC 5040): it refuses the
    request with a Terminate; xiw's Verify completes in error, neither
    side hangs. (siw's server has no fast registrations to carry a hash:
    --inject stag lets the run go without.)"""
    rc, r = client(siw_server, "a", SERVER, "--op", "verify", "--hash",
                   "crc32c", "--count", 1, "--size", 64, "--inject", "stag",
                   check=False)
    assert rc == 1, r
    assert r["wc_status"] in ("REM_INV_REQ_ERR", "REM_OP_ERR",
                              "REM_ACCESS_ERR", "WR_FLUSH_ERR"), r
    assert "no progress" not in r["error"], r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
