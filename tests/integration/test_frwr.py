"""Fast registration over xiw, xiw <-> xiw between two namespaces.

xiwperf --mr frwr registers every operation's buffer with IB_WR_REG_MR
(a rotated key each time), runs the operation through that STag, and
invalidates it (IB_WR_LOCAL_INV; an RDMA Read invalidates its sink itself
with IB_WR_RDMA_READ_WITH_INV). Each lane reuses one MR, and xiw fails a
REG_MR of an MR whose STag is still valid (IB_WC_MW_BIND_ERR, the QP in
error): so every registration succeeding proves that every invalidation
before it happened. --remote-mr frwr has the server register its buffer
per connection too (one MR per 4 MiB chunk, rkeys in the chunk table), so
the data travels through fast-registered STags at both ends.
"""
from xiwperf_run import client, wait_resources_released

SERVER = "192.0.2.2"
COUNT = 10000


def frwr_run(vm, op, size, count, *args):
    """A verified run from a to b; every operation registered once and
    every work request completed exactly once."""
    rc, r = client(vm, "a", SERVER, "--op", op, "--size", size, "--count",
                   count, "--check", *args, timeout=600)
    assert r["device"] == "xiw0"
    assert r["completed"] == count, r
    assert r["bytes"] == size * count, r
    assert r["errors"] == 0 and r["mismatches"] == 0, r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
    return r


def assert_every_operation_registered(r, count):
    assert r["mr"] == "frwr", r
    # One REG_MR per operation, each on an MR whose previous STag had
    # to be invalidated first.
    assert r["registrations"] == count, r


def test_read_with_invalidate_registers_every_sink(pair):
    r = frwr_run(pair, "read", 4096, COUNT, "--depth", 16, "--mr", "frwr")
    assert_every_operation_registered(r, COUNT)


def test_send_registers_and_invalidates_every_source(pair):
    r = frwr_run(pair, "send", 8192, COUNT, "--depth", 16, "--mr", "frwr")
    assert_every_operation_registered(r, COUNT)


def test_write_registers_and_invalidates_every_source(pair):
    r = frwr_run(pair, "write", 12288, COUNT, "--depth", 16, "--mr", "frwr")
    assert_every_operation_registered(r, COUNT)


def test_megabyte_registrations_span_many_pages(pair):
    """1 MiB buffers: 256-page registrations, every byte verified, reads
    first (the server's read pattern), then sends and writes."""
    for op in ("read", "send", "write"):
        r = frwr_run(pair, op, 1 << 20, 160, "--depth", 16, "--mr", "frwr")
        assert_every_operation_registered(r, 160)


def test_sges_split_a_registered_buffer(pair):
    """Four SGEs, each a piece of the one registered STag's range."""
    for op in ("send", "write"):
        r = frwr_run(pair, op, 100000, 200, "--depth", 4, "--sge", 4,
                     "--mr", "frwr")
        assert_every_operation_registered(r, 200)


def test_remote_frwr_read_reads_every_chunk(pair):
    """The server's buffer (16 MiB) is 4 chunks, each its own fast
    registration: 16 regions of 1 MiB, 4 per chunk, read through the
    chunks' STags."""
    r = frwr_run(pair, "read", 1 << 20, 320, "--depth", 16,
                 "--remote-mr", "frwr")
    assert (r["remote_mr"], r["mr"]) == ("frwr", "dma"), r


def test_remote_frwr_write_writes_every_chunk(pair):
    r = frwr_run(pair, "write", 1 << 20, 320, "--depth", 16,
                 "--remote-mr", "frwr")
    assert (r["remote_mr"], r["mr"]) == ("frwr", "dma"), r


def test_read_fast_registered_at_both_ends(pair):
    r = frwr_run(pair, "read", 4096, COUNT, "--depth", 16,
                 "--remote-mr", "frwr", "--mr", "frwr")
    assert r["remote_mr"] == "frwr", r
    assert_every_operation_registered(r, COUNT)


def test_write_fast_registered_at_both_ends(pair):
    r = frwr_run(pair, "write", 4096, COUNT, "--depth", 16, "--qps", 4,
                 "--remote-mr", "frwr", "--mr", "frwr")
    assert r["remote_mr"] == "frwr", r
    assert_every_operation_registered(r, COUNT)


def test_registrations_leave_no_resources_behind(pair):
    frwr_run(pair, "write", 65536, 100, "--depth", 8, "--qps", 2,
             "--remote-mr", "frwr", "--mr", "frwr")
    # The client's and the server's connections deregistered their MRs;
    # only the server's listener is left.
    wait_resources_released(pair, {"xiw1": 1})
