"""RFC 7306 Atomic Operations between xiw peers (namespaces a and b over a
veth pair, and one device on lo): every atomic verb, checked by xiwperf
(every original value returned and the final word, against the same
function applied count times), contention of many QPs on one word, the
values on the wire as tshark decodes them, and every fault the responder
must refuse with the RFC's Terminate and memory untouched.

The reference arithmetic below is written from the RFC's prose, bit by bit
and field by field, independently of xiw's and xiwperf's formulas."""
import pytest

from capture import capture, rdmap_terminates, tshark
from xiwperf_run import (client, load_xiwperf, start_server, stop_server,
                         wait_resources_released)

SERVER = "192.0.2.2"
CLIENT = "192.0.2.1"
FRWR = ("--remote-mr", "frwr")
MASK64 = (1 << 64) - 1


def ref_fetch_add(orig, add, mask):
    """Section 5.1.1: each field, whose most significant bit is a set bit
    of the mask (the top field ends at bit 63), is added on its own; the
    carry out of a field's top bit is discarded."""
    out, carry = 0, 0
    for bit in range(64):
        s = (orig >> bit & 1) + (add >> bit & 1) + carry
        out |= (s & 1) << bit
        carry = s >> 1
        if mask >> bit & 1:
            carry = 0
    return out


def ref_cmp_swap(orig, cmp, cmp_mask, swap, swap_mask):
    """Section 5.1.2's prose: if the masked values are equal, swap the
    masked bits; otherwise the memory is not changed."""
    if (orig & cmp_mask) != (cmp & cmp_mask):
        return orig
    return (orig & ~swap_mask & MASK64) | (swap & swap_mask)


def atomic(vm, op, count, *args, qps=1, depth=1, check=True, ns="a",
           addr=SERVER):
    return client(vm, ns, addr, "--op", op, "--count", count, "--qps", qps,
                  "--depth", depth, *FRWR, "--check", *args, check=check)


def test_fetch_add_from_eight_qps_on_one_word_ends_exact(pair):
    """8 connections x 10 000 FetchAdd +1, 16 deep each, all on one word:
    the word moves by exactly 80 000 and every intermediate value comes
    back exactly once."""
    rc, r = atomic(pair, "fetch_add", 80000, qps=8, depth=16)
    assert r["completed"] == 80000, r
    assert (r["atomic_final"] - r["atomic_init"]) & MASK64 == 80000, r


# (op, xiwperf operands, the function every operation applies)
VECTORS = {
    "fetch_add_wraps_64_bits": (
        "fetch_add", ("--add", hex(MASK64 - 2)),
        lambda v: ref_fetch_add(v, MASK64 - 2, 0)),
    "masked_fetch_add_four_16_bit_fields": (
        "masked_fetch_add",
        ("--add", "0x8001ffff00017fff", "--mask", "0x8000800080008000"),
        lambda v: ref_fetch_add(v, 0x8001ffff00017fff, 0x8000800080008000)),
    "masked_fetch_add_field_boundaries_every_bit": (
        "masked_fetch_add", ("--add", hex(MASK64), "--mask", hex(MASK64)),
        lambda v: ref_fetch_add(v, MASK64, MASK64)),
    "masked_fetch_add_zero_mask_is_a_plain_add": (
        "masked_fetch_add", ("--add", "0x123456789", "--mask", "0"),
        lambda v: ref_fetch_add(v, 0x123456789, 0)),
    "masked_cmp_swap_matches_on_the_masked_bits": (
        "masked_cmp_swap",
        ("--compare", "0", "--compare-mask", "0", "--swap",
         "0xa5a5a5a5a5a5a5a5", "--mask", "0x00ff00ff00ff00ff"),
        lambda v: ref_cmp_swap(v, 0, 0, 0xa5a5a5a5a5a5a5a5,
                               0x00ff00ff00ff00ff)),
}


@pytest.mark.parametrize("case", VECTORS)
def test_atomic_vectors_match_the_rfc_prose(pair, case):
    op, operands, f = VECTORS[case]
    rc, r = atomic(pair, op, 64, *operands, qps=2, depth=4)
    v = r["atomic_init"]
    for _ in range(64):
        v = f(v)
    assert r["atomic_final"] == v, (r, hex(v))


def test_cmp_swap_swaps_only_on_a_match(pair):
    """The word's value is learnt from a FetchAdd of 0; a CmpSwap that
    compares with something else leaves it, one that compares with it
    swaps, and both return the original."""
    rc, r = atomic(pair, "fetch_add", 1, "--add", 0)
    word = r["atomic_final"]
    rc, r = atomic(pair, "cmp_swap", 1, "--compare", hex(word ^ 1),
                   "--swap", "0x1234")
    assert r["atomic_init"] == word and r["atomic_final"] == word, r
    rc, r = atomic(pair, "cmp_swap", 1, "--compare", hex(word),
                   "--swap", "0x1234")
    assert r["atomic_init"] == word and r["atomic_final"] == 0x1234, r


def test_atomics_over_lo(vm):
    """One xiw device on lo serves both ends."""
    load_xiwperf(vm)
    vm.run("ip link set lo up; rdma link add xiwlo type xiw netdev lo")
    log = start_server(vm, None, "127.0.0.1", "lo-atomic")
    try:
        for op, args in (("fetch_add", ()),
                         ("cmp_swap", ("--compare", "0", "--swap", "7")),
                         ("masked_fetch_add", ("--mask", "0x80000000")),
                         ("masked_cmp_swap", ("--compare", "0", "--swap",
                                              "7", "--mask", "0xff"))):
            rc, r = atomic(vm, op, 200, *args, qps=2, depth=4, ns=None,
                           addr="127.0.0.1")
            assert r["device"] == "xiwlo" and r["completed"] == 200, r
    finally:
        stop_server(vm, log)
        vm.run("rmmod xiwperf", check=False)


def test_wire_carries_the_atomic_fields(pair):
    """tshark's iwarp_rdma dissector decodes the Atomic Requests and
    Responses of a capture with the values xiwperf asked for."""
    pcap = "/tmp/atomic.pcapng"
    got = {}

    def run():
        got["r"] = atomic(pair, "masked_cmp_swap", 3, "--compare", "0x11",
                          "--compare-mask", "0xf0", "--swap", "0x2222",
                          "--mask", "0xff00")[1]
    capture(pair, "a", "v0", run, pcap)
    rows = tshark(pair, pcap, "-Y", "iwarp_rdma.opcode == 0xa", "-T",
                  "fields", "-e", "iwarp_rdma.atomic.opcode",
                  "-e", "iwarp_rdma.atomic.swap_data",
                  "-e", "iwarp_rdma.atomic.swap_mask",
                  "-e", "iwarp_rdma.atomic.compare_data",
                  "-e", "iwarp_rdma.atomic.compare_mask").splitlines()
    assert len(rows) == 3, rows
    for row in rows:
        aop, swap, swap_mask, cmp, cmp_mask = (int(v, 0) for v in
                                               row.split("\t"))
        assert (aop, swap, swap_mask, cmp, cmp_mask) == \
            (2, 0x2222, 0xff00, 0x11, 0xf0), row
    resp = tshark(pair, pcap, "-Y", "iwarp_rdma.opcode == 0xb", "-T",
                  "fields", "-e",
                  "iwarp_rdma.atomic.original_request_identifier",
                  "-e", "iwarp_ddp.qn").splitlines()
    assert len(resp) == 3 and all(r.split("\t")[-1] == "3" for r in resp), \
        resp
    assert tshark(pair, pcap, "-Y", "_ws.malformed").strip() == ""


# What the responder refuses (RFC 7306 section 8, RFC 5040 section 7):
# inject kind, extra options, (layer, error type, code) of the Terminate,
# and the requester's completion status.
RDMAP = 0
PROT, OP = 1, 2
FAULTS = {
    "unaligned": ((), (RDMAP, OP, 0x07), "REM_INV_REQ_ERR"),
    "stag": ((), (RDMAP, PROT, 0x00), "REM_ACCESS_ERR"),
    "bounds": ((), (RDMAP, PROT, 0x01), "REM_ACCESS_ERR"),
    "rights": ((), (RDMAP, PROT, 0x02), "REM_ACCESS_ERR"),
    "foreign": (("--qps", 2), (RDMAP, PROT, 0x03), "REM_ACCESS_ERR"),
}


@pytest.mark.parametrize("kind", FAULTS)
def test_faulty_atomic_gets_its_terminate_and_changes_nothing(pair, kind):
    extra, want, status = FAULTS[kind]
    rc, before = atomic(pair, "fetch_add", 1, "--add", 0)
    pcap = f"/tmp/atomic-{kind}.pcapng"
    got = {}

    def run():
        got["rc"], got["r"] = client(
            pair, "a", SERVER, "--op", "fetch_add", "--count",
            extra[1] if extra else 1, *extra, *FRWR, "--inject", kind,
            check=False)
    capture(pair, "a", "v0", run, pcap)
    r = got["r"]
    assert got["rc"] == 1 and r["wc_status"] == status, r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
    terms = rdmap_terminates(pair, pcap)
    assert len(terms) == 1, terms
    src, layer, etype, code, ddp_h, rdma_h = terms[0]
    assert (src, layer, etype, code) == (SERVER, *want), terms
    # Section 8.1: the DDP header comes back, no RDMAP header.
    assert ddp_h and not rdma_h, terms
    wait_resources_released(pair, {"xiw1": 1})
    # Only the other connection's legitimate operations (foreign) moved it.
    rc, after = atomic(pair, "fetch_add", 1, "--add", 0)
    assert after["atomic_init"] == (before["atomic_final"] +
                                    r["completed"]) & MASK64, (before, after)


def test_atomic_to_siw_fails_cleanly(siw_server):
    """siw has no RFC 7306: it refuses the Atomic Request with a Terminate
    and xiw's request completes in error, no hang on either side. (The
    xiwperf server on siw does not register its buffer for atomics: the
    global rkey goes with --inject rights, which changes nothing here:
    siw refuses the opcode first.)"""
    vm = siw_server
    rc, r = client(vm, "a", SERVER, "--op", "fetch_add", "--count", 1,
                   "--inject", "rights", check=False)
    assert rc == 1, r
    assert r["wc_status"] in ("REM_INV_REQ_ERR", "REM_OP_ERR",
                              "WR_FLUSH_ERR"), r
    assert "no progress" not in r["error"], r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
