"""Faults a client commits on purpose (xiwperf --inject), xiw <-> xiw
between two namespaces: the xiw server must answer each with exactly one
Terminate carrying the layer, error type and code RFC 5040/5041 give it,
as tshark's iwarp_ddp_rdmap dissector decodes the capture; the client's
run must fail (exit status 1) from a failed completion, not a timeout,
with every work request completed exactly once; both QPs must end and
every RDMA resource but the server's listener be released; and a faulty
RDMA Write must have changed nothing in the server's buffer.

The faulty operation is the run's first; an RDMA Write is followed at
once by an RDMA Read of its region (the probe), which cannot complete
once the server has terminated the stream.
"""
import pytest

from capture import capture, tshark
from xiwperf_run import client, wait_resources_released

SERVER = "192.0.2.2"
CLIENT = "192.0.2.1"
# Terminate control field, RFC 5040 section 4.8 and 7.
RDMAP, DDP = 0, 1
LOCAL_CATASTROPHIC = 0          # RDMAP error type
REMOTE_PROTECTION = 1           # RDMAP error type
TAGGED = 1                      # DDP error type: tagged buffer
INVALID_STAG, BASE_BOUNDS, ACCESS_RIGHTS = 0x00, 0x01, 0x02
STAG_CANNOT_BE_INVALIDATED = 0x09   # RDMAP remote protection code
# The codes that differ between the layers.
DDP_STAG_NOT_ASSOCIATED, DDP_TO_WRAP = 0x02, 0x03
RDMAP_STAG_NOT_ASSOCIATED, RDMAP_TO_WRAP = 0x03, 0x04
# What tshark shows for a Terminate (one FPDU per frame here).
FIELDS = ("ip.src", "iwarp_rdma.term_layer",
          "iwarp_rdma.term_etype_rdma", "iwarp_rdma.term_etype_ddp",
          "iwarp_rdma.term_errcode_rdma",
          "iwarp_rdma.term_errcode_ddp_tagged",
          "iwarp_rdma.term_errcode_ddp_untagged")


def terminates(vm, pcap):
    """Every Terminate in the capture: (source, layer, type, code)."""
    out = tshark(vm, pcap, "-Y", "iwarp_rdma.opcode == 7", "-T", "fields",
                 *[a for f in FIELDS for a in ("-e", f)])
    found = []
    for line in out.splitlines():
        src, layer, *rest = line.split("\t")
        etype = [v for v in rest[:2] if v]
        code = [v for v in rest[2:] if v]
        # A local catastrophic error has no code (RFC 5040 figure 9):
        # tshark shows none.
        catastrophic = int(layer, 16) == RDMAP and etype == ["0x00"]
        assert len(etype) == 1 and len(code) == (0 if catastrophic else 1), \
            line
        found.append((src, int(layer, 16), int(etype[0], 16),
                      int(code[0], 16) if code else None))
    return found


def inject(vm, kind, op, *args, status=None):
    """Run one injected fault under capture; its JSON result and the
    Terminates seen. The run failed cleanly and left nothing behind, its
    first failed completion with `status` (by default what a fault the
    server refuses gives)."""
    pcap = f"/tmp/inject-{kind}-{op}.pcapng"
    got = {}

    def run():
        got["rc"], got["r"] = client(vm, "a", SERVER, "--op", op, "--size",
                                     4096, "--count", 1, "--inject", kind,
                                     *args, check=False)
    capture(vm, "a", "v0", run, pcap)
    rc, r = got["rc"], got["r"]
    assert rc == 1, r
    assert r["inject"] == kind, r
    # Ended by a failed completion (the probe or the faulty operation
    # itself, flushed once the Terminate arrived), or by the connection's
    # end seen first; never by the no-progress timeout.
    assert "no progress" not in r["error"], r
    # A refused Read completes with the Terminate's error; a faulty
    # Write completed when TCP had it, and its probe Read is flushed.
    if status is None:
        status = "REM_ACCESS_ERR" if op == "read" else "WR_FLUSH_ERR"
    assert r["wc_status"] == status, r
    assert r["errors"] >= 1, r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
    # Both QPs ended: the client's with its run, the server's at its
    # disconnect event. Only the server's listener remains.
    wait_resources_released(vm, {"xiw1": 1})
    return r, terminates(vm, pcap)


def assert_buffer_untouched(vm):
    """Read the whole 16 MiB server buffer back: 16 regions of 1 MiB, one
    per lane, each checked against the read pattern the server wrote at
    start (nothing in these tests writes to it successfully)."""
    rc, r = client(vm, "a", SERVER, "--op", "read", "--size", 1 << 20,
                   "--count", 16, "--depth", 16, "--check")
    assert r["completed"] == 16 and r["mismatches"] == 0, r


def test_write_with_wrong_key_is_ddp_invalid_stag(pair):
    r, terms = inject(pair, "stag", "write")
    assert terms == [(SERVER, DDP, TAGGED, INVALID_STAG)], terms
    assert_buffer_untouched(pair)


def test_read_with_wrong_key_is_rdmap_invalid_stag(pair):
    r, terms = inject(pair, "stag", "read")
    assert terms == [(SERVER, RDMAP, REMOTE_PROTECTION, INVALID_STAG)], terms
    assert r["completed"] == 0, r


def test_write_past_the_chunk_end_is_ddp_base_or_bounds(pair):
    r, terms = inject(pair, "bounds", "write", "--remote-mr", "frwr")
    assert terms == [(SERVER, DDP, TAGGED, BASE_BOUNDS)], terms
    assert_buffer_untouched(pair)


def test_read_past_the_chunk_end_is_rdmap_base_or_bounds(pair):
    r, terms = inject(pair, "bounds", "read", "--remote-mr", "frwr")
    assert terms == [(SERVER, RDMAP, REMOTE_PROTECTION, BASE_BOUNDS)], terms
    assert r["completed"] == 0, r


def test_write_through_read_only_stag_is_rdmap_access_rights(pair):
    r, terms = inject(pair, "rights", "write", "--remote-mr", "frwr")
    assert terms == [(SERVER, RDMAP, REMOTE_PROTECTION, ACCESS_RIGHTS)], terms
    assert_buffer_untouched(pair)


def test_write_after_send_with_invalidate_is_ddp_invalid_stag(pair):
    """The Send with Invalidate of chunk 0's STag is legitimate (the
    server posted a receive for it); the Write through it after is not."""
    r, terms = inject(pair, "invalidated", "write", "--remote-mr", "frwr")
    assert terms == [(SERVER, DDP, TAGGED, INVALID_STAG)], terms
    assert_buffer_untouched(pair)


def test_read_after_send_with_invalidate_is_rdmap_invalid_stag(pair):
    r, terms = inject(pair, "invalidated", "read", "--remote-mr", "frwr")
    assert terms == [(SERVER, RDMAP, REMOTE_PROTECTION, INVALID_STAG)], terms
    assert r["completed"] == 0, r


def test_invalidating_the_global_rkey_is_rdmap_cannot_invalidate(pair):
    """The global rkey names the PD's DMA MR: a peer may never invalidate
    it (RFC 5040 section 5.3, rule 7). The Send fails before the Write
    after it is placed."""
    r, terms = inject(pair, "dma-invalidate", "write")
    assert terms == [(SERVER, RDMAP, REMOTE_PROTECTION,
                      STAG_CANNOT_BE_INVALIDATED)], terms
    assert_buffer_untouched(pair)


def test_write_whose_range_wraps_is_ddp_to_wrap(pair):
    r, terms = inject(pair, "wrap", "write")
    assert terms == [(SERVER, DDP, TAGGED, DDP_TO_WRAP)], terms
    assert_buffer_untouched(pair)


def test_read_whose_range_wraps_is_rdmap_to_wrap(pair):
    r, terms = inject(pair, "wrap", "read")
    assert terms == [(SERVER, RDMAP, REMOTE_PROTECTION, RDMAP_TO_WRAP)], terms
    assert r["completed"] == 0, r


def test_write_with_another_connections_stag_is_ddp_not_associated(pair):
    """Each server connection has its own PD: connection 1's key is valid,
    but not for connection 0's stream."""
    r, terms = inject(pair, "foreign", "write", "--qps", 2, "--count", 2)
    assert terms == [(SERVER, DDP, TAGGED, DDP_STAG_NOT_ASSOCIATED)], terms
    # Connection 1 wrote its own region (the next 4 KiB) legitimately; the
    # faulty Write's region, the first 4 KiB, is as the server filled it.
    rc, r = client(pair, "a", SERVER, "--op", "read", "--size", 4096,
                   "--count", 1, "--check")
    assert r["completed"] == 1 and r["mismatches"] == 0, r


def test_read_with_another_connections_stag_is_rdmap_not_associated(pair):
    r, terms = inject(pair, "foreign", "read", "--qps", 2, "--count", 2,
                      "--remote-mr", "frwr")
    assert terms == [(SERVER, RDMAP, REMOTE_PROTECTION,
                      RDMAP_STAG_NOT_ASSOCIATED)], terms


@pytest.mark.parametrize("op", ["send", "write", "read"])
def test_bad_local_key_fails_locally_and_terminates_as_catastrophic(pair, op):
    """The client's own device refuses the operation: it completes with
    LOC_PROT_ERR, and a Terminate goes to the server instead of the
    request (RFC 5040 section 7.1, rule 1): RDMAP local catastrophic,
    control field only. The server's buffer is untouched."""
    r, terms = inject(pair, "lkey", op, status="LOC_PROT_ERR")
    assert terms == [(CLIENT, RDMAP, LOCAL_CATASTROPHIC, None)], terms
    assert r["completed"] == 0, r
    if op == "write":
        assert_buffer_untouched(pair)
