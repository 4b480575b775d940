"""The xiwdv examples (examples/xiwdv/README.md) as a user runs them,
through xiw's provider: xiwdv-server in b, each client in a, its output
and the data checked."""
import json
import os

import pytest

from conftest import TOP, wait_until, xiw_links
from test_userspace_verbs import ENV

EXAMPLES = os.path.join(TOP, "build", "cmake", "examples", "xiwdv")
XIWCTL = os.path.join(TOP, "build", "cmake", "tools", "xiwctl")
PORT = 7472


@pytest.fixture
def server(hosts):
    """xiwdv-server in b on 192.0.2.2."""
    vm = hosts
    xiw_links(vm)
    vm.run("modprobe ib_uverbs && modprobe rdma_ucm")
    vm.run(f"(ip netns exec b env {ENV}{EXAMPLES}/xiwdv-server 192.0.2.2 "
           f"{PORT} > /tmp/xiwdv-server.log 2>&1 &)")
    wait_until(vm, f"ip netns exec b ss -ltn | grep -q ':{PORT} '",
               "the example server listens")
    yield vm
    vm.run("pkill -x xiwdv-server; true")
    wait_until(vm, "! pgrep -x xiwdv-server", "the example server ended")


def client(vm, prog, *args, check=True):
    res = vm.run(f"ip netns exec a env {ENV}{EXAMPLES}/xiwdv-{prog} "
                 f"192.0.2.2 {PORT} " + " ".join(args), timeout=120,
                 check=False)
    if check:
        assert res.rc == 0, (res, vm.run("cat /tmp/xiwdv-server.log").out)
    return res


def flush_counters(vm):
    """xiw1's flush_dram and flush_refused counters (rdma statistic)."""
    out = vm.run("rdma statistic show link xiw1/1").out.split()
    return {k: int(out[out.index(k) + 1])
            for k in ("flush_dram", "flush_refused")}


def test_the_flush_example_is_refused_until_dram_is_declared_persistent(
        server):
    """xiwdv-flush: an RDMA Write of its text and a Flush to persistence
    of it. The server's memory is DRAM: by default its xiw refuses the
    Flush (flush_refused), and the example fails on the completion, with
    the server serving on. Once the administrator declares xiw1's DRAM
    persistent (xiwctl policy set xiw1 dram-persistent on) the Flush
    completes (flush_dram) and the example says so."""
    vm = server
    before = flush_counters(vm)
    res = client(vm, "flush", "not-persistent-yet", check=False)
    assert res.rc == 1 and "work request 2:" in res.err, res
    mid = flush_counters(vm)
    assert mid["flush_refused"] == before["flush_refused"] + 1, (before, mid)
    vm.run(f"{XIWCTL} policy set xiw1 dram-persistent on")
    out = client(vm, "flush", "persistent-now").out
    assert out.strip() == "14 octets written and persistent", out
    after = flush_counters(vm)
    assert after["flush_dram"] == mid["flush_dram"] + 1, (mid, after)


def test_the_verify_example_matches_the_crc32c_it_computes(server):
    """xiwdv-verify writes its text and has the server hash it, expecting
    the CRC32c it computed: the Verify completes (a mismatch would have
    ended the connection), and the hash it prints is the text's CRC32c."""
    vm = server
    out = client(vm, "verify", "hashed-by-the-server").out
    crc = 0xffffffff
    for b in b"hashed-by-the-server":
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82f63b78 if crc & 1 else crc >> 1
    assert out.strip() == f"verified: crc32c {crc ^ 0xffffffff:08x}", out


def test_the_atomics_example_gives_rfc_7306s_results(server):
    """xiwdv-atomics: the Atomic Write's word 0xffff0000ffff0001; the
    masked Fetch and Add of one per 16-bit field returns it and leaves
    0x0000000100000002 (each field wraps on its own); the Compare and Swap
    whose high half matches swaps the low half in (0x00000001aaaaaaaa),
    the one whose high half does not changes nothing; the Read sees it."""
    vm = server
    out = client(vm, "atomics").out
    assert out.split("\n")[:4] == ["fetch_add ffff0000ffff0001",
                                   "cmp_swap 0000000100000002",
                                   "missed 00000001aaaaaaaa",
                                   "word 00000001aaaaaaaa"], out


def test_on_stock_siw_the_examples_fail_at_qp_creation(xiw_and_siw):
    """xiwdv-server on xiw0 in a; xiwdv-atomics in b, whose device is
    stock siw0 (Debian's libsiw): siw serves no ibv_wr_*() API, so the
    example fails where the verbs API says, creating its QP
    (EOPNOTSUPP), before it connects; the server serves on. And
    xiwdv_reg_mr() on siw0's PD, asked of the server in b when a client
    from xiw0 comes, fails with EOPNOTSUPP: no MR is made on siw0."""
    vm = xiw_and_siw
    vm.run("modprobe ib_uverbs && modprobe rdma_ucm")
    vm.run(f"(ip netns exec a env {ENV}{EXAMPLES}/xiwdv-server 192.0.2.1 "
           f"{PORT} > /tmp/xiwdv-a.log 2>&1 &)")
    wait_until(vm, f"ip netns exec a ss -ltn | grep -q ':{PORT} '",
               "the example server on xiw0 listens")
    res = vm.run(f"ip netns exec b env {ENV}{EXAMPLES}/xiwdv-atomics "
                 f"192.0.2.1 {PORT}", timeout=120, check=False)
    assert res.rc == 1, res
    assert res.err.strip() == ("a QP with ibv_wr_*() (not an xiw device?): "
                               "Operation not supported"), res
    assert vm.run("pgrep -x xiwdv-server").rc == 0
    vm.run(f"(ip netns exec b env {ENV}{EXAMPLES}/xiwdv-server 192.0.2.2 "
           f"{PORT} > /tmp/xiwdv-b.log 2>&1 &)")
    wait_until(vm, f"ip netns exec b ss -ltn | grep -q ':{PORT} '",
               "the example server on siw0 listens")
    res = vm.run(f"ip netns exec a env {ENV}{EXAMPLES}/xiwdv-atomics "
                 f"192.0.2.2 {PORT}", timeout=120, check=False)
    assert res.rc == 1, res
    wait_until(vm, "grep -q 'registering the region' /tmp/xiwdv-b.log",
               "the server on siw0 gave up")
    assert "Operation not supported" in vm.run("cat /tmp/xiwdv-b.log").out
    vm.run("pkill -x xiwdv-server; true")
    wait_until(vm, "! pgrep -x xiwdv-server", "the example servers ended")


SQ_RING = os.path.join(TOP, "build", "cmake", "tests", "userspace",
                       "xiw_sq_ring")
ADDERS = 8
ADDS = int(os.environ.get("XIW_MASKED_ADDS", "10000"))


def test_masked_fetch_adds_of_eight_processes_end_exact(server):
    """ADDERS (8) processes connected to the example server at once each
    post XIW_MASKED_ADDS (10 000) masked Fetch and Adds of one to each
    16-bit field of one word (tests/userspace/sq_ring.c, count), eight
    in flight at a time: all complete, none in error, and each field of
    the word ends at 8 x 10 000 modulo 2^16 (no add lost, none done twice,
    no carry across a field)."""
    vm = server
    vm.run("rm -f /tmp/adder-*.out; " + " ".join(
        f"(ip netns exec a env {ENV}{SQ_RING} count 192.0.2.2 {PORT} {ADDS} "
        f"> /tmp/adder-{i}.out 2>&1; echo $? >> /tmp/adder-{i}.out) &"
        for i in range(ADDERS)) + " wait", timeout=120 + ADDS // 10)
    for i in range(ADDERS):
        out = vm.run(f"cat /tmp/adder-{i}.out").out.split("\n")
        assert out[1] == "0", out
        got = json.loads(out[0])
        assert (got["done"], got["errors"]) == (ADDS, 0), got
    res = vm.run(f"ip netns exec a env {ENV}{SQ_RING} count 192.0.2.2 "
                 f"{PORT} 0", timeout=60)
    field = (ADDERS * ADDS) % 0x10000
    assert json.loads(res.out)["word"] == f"{field:04x}" * 4, res
