"""xiwperf probe: which RFC 7306 and commit-draft operations a peer takes,
found as the draft recommends (try each, read the Terminate), against an
xiwperf server on xiw (all of them) and on stock siw (none), without
leaving either side in a bad state (Documentation/xiwperf.md, "Probing a
peer's extensions")."""
import json

from xiwperf_run import XIWPERF, client, wait_resources_released

SERVER = "192.0.2.2"
RFC7306 = ["fetch_add", "cmp_swap", "masked_fetch_add", "masked_cmp_swap",
           "write_imm", "imm"]
COMMIT = ["atomic_write", "flush", "verify"]


OP_KEYS = {"op", "spec", "result", "evidence", "fallback"}


def probe(vm, *args):
    res = vm.ns("a", f"{XIWPERF} probe --addr {SERVER} --json " +
                " ".join(args), check=False)
    assert res.rc == 0, res
    out = json.loads(res.out.strip().splitlines()[-1])
    assert out.keys() == {"addr", "port", "device", "ops"}, out
    assert (out["addr"], out["port"], out["device"]) == \
        (SERVER, 18515, "xiw0"), out
    for o in out["ops"]:
        assert o.keys() in (OP_KEYS, OP_KEYS | {"terminate"}), o
    return out["ops"]


def test_probe_finds_every_extension_of_an_xiw_peer(pair):
    vm = pair
    ops = probe(vm)
    assert [o["op"] for o in ops] == RFC7306 + COMMIT
    assert [o["spec"] for o in ops] == ["rfc7306"] * 6 + ["commit"] * 3
    for o in ops:
        assert (o["result"], o["evidence"], o["fallback"]) == \
            ("supported", "completed", False), o
        assert "terminate" not in o, o
    # The peer serves on as before, and nothing of the probe is left.
    client(vm, "a", SERVER, "--op", "write", "--size", 4096, "--count", 10,
           "--check")
    wait_resources_released(vm, {"xiw1": 1})


def test_probe_finds_no_extension_of_a_siw_peer(siw_server):
    """siw refuses each with a Terminate: the RFC 5040 opcode error (siw's
    header-less Terminate, read as siw means it), or for Atomic Write,
    whose opcode siw reads as an RDMA Write's, a DDP tagged-buffer error.
    siw's server has no fast registrations: every commit-draft operation
    and the atomics go through the fallback key."""
    vm = siw_server
    ops = probe(vm)
    assert [o["op"] for o in ops] == RFC7306 + COMMIT
    for o in ops:
        assert o["result"] == "not_supported", o
        assert o["evidence"] == "terminate", o
        want = {"layer": "ddp", "type": 1, "code": 0} \
            if o["op"] == "atomic_write" else \
            {"layer": "rdmap", "type": 2, "code": 6}
        assert o["terminate"] == want, o
        assert o["fallback"] == (o["op"] not in ("write_imm", "imm")), o
    # siw serves on: a plain Write with its data checked.
    client(vm, "a", SERVER, "--op", "write", "--size", 4096, "--count", 10,
           "--check")
    wait_resources_released(vm, {"siw0": 1})


def test_probe_text_names_each_operation_and_its_answer(siw_server):
    vm = siw_server
    out = vm.ns("a", f"{XIWPERF} probe --addr {SERVER}").out.splitlines()
    assert out[0] == f"peer {SERVER} port 18515 from xiw0", out
    assert "    rfc7306 fetch_add not_supported terminate layer rdmap " \
           "type 2 code 0x06" in out, out
    assert "    commit atomic_write not_supported terminate layer ddp " \
           "type 1 code 0x00" in out, out
    assert len(out) == 10, out


def test_probe_without_a_server_fails_and_says_why(pair):
    vm = pair
    res = vm.ns("a", f"{XIWPERF} probe --addr {SERVER} --port 9999",
                check=False)
    assert res.rc == 1, res
    assert res.out == "", res
    assert res.err.strip() == (
        f"xiwperf: probe: fetch_add: connection to {SERVER}:9999 refused: "
        "no xiwperf server listening there"), res


def test_probe_bad_address_is_a_usage_error(vm):
    res = vm.run(f"{XIWPERF} probe --addr 192.0.2 --port 1", check=False)
    assert res.rc == 2, res
    assert "xiwperf: --addr:" in res.err and "192.0.2" in res.err, res
