"""The persistence policy through the xiw generic netlink family: a
device's domain and "DRAM is persistent" setting, an MR's own domain, and
what an RDMA Flush to persistence then does (Documentation/commit-draft.md,
"Policy: naming the domain"). The server's buffer is plain memory; the
device's counters (rdma statistic) show which domain served each Flush.

The family is driven by xiw_genl.py, a minimal client written from the
uapi header alone."""
import json
import os

from conftest import TOP, wait_until
from genl import genl
from xiwperf_run import (client, counted, hw_counters, set_params,
                         start_client, wait_client)

SERVER = "192.0.2.2"
XIWCTL = os.path.join(TOP, "build", "cmake", "tools", "xiwctl")
AUTO, DRAM, PMEM, FILE = 0, 1, 2, 3                 # enum xiw_persist
DEFAULT, OFF, ON = 0, 1, 2                          # enum xiw_dram_persistent
EPERM, ENOENT, ENODEV, EINVAL, ERANGE = 1, 2, 19, 22, 34


def policy(vm, dev="xiw1"):
    return genl(vm, "dev", dev)["devices"][0]["policy"]


def flush(vm, count, check=True):
    """count Writes of 4 KiB, each followed by a Flush to persistence;
    (exit status, result, what the server's device counted)."""
    before = hw_counters(vm, "xiw1")
    rc, r = client(vm, "a", SERVER, "--op", "flush", "--count", count,
                   "--size", 4096, "--remote-mr", "frwr", "--persist",
                   "--check", check=check)
    return rc, r, counted(before, hw_counters(vm, "xiw1"))


def refused(rc, r, n):
    return rc == 1 and r["wc_status"] == "REM_ACCESS_ERR" and \
        n["flush_refused"] == 1 and n["flush_persistent"] == 0


def test_devices_show_their_capabilities_and_default_policy(pair):
    devs = genl(pair, "dev")["devices"]
    assert [d["name"] for d in devs] == ["xiw0", "xiw1"], devs
    assert [d["netdev"] for d in devs] == ["v0", "v1"], devs
    for d in devs:
        assert d["caps"] == {
            "mpa_revs": 0b110, "ops": 0x1f, "persist": 0xf,
            "hashes": 0b110, "max_ord": 128, "max_ird": 128,
            "max_msg": 1 << 31, "max_qp": 16384, "max_mr": 65536}, d
        assert d["policy"] == {"persist": AUTO, "dram_persistent": DEFAULT,
                               "dram_persistent_now": 0}, d
    assert genl(pair, "dev", "xiw1")["devices"] == devs[1:]


def test_bad_requests_are_refused_with_a_reason_and_change_nothing(pair):
    before = genl(pair, "dev", "xiw1")
    assert genl(pair, "dev", "nosuch") == {
        "error": ENODEV, "extack": "no such xiw device"}
    assert genl(pair, "set", "xiw1", "persist", 4) == {
        "error": ERANGE, "extack": "integer out of range"}
    assert genl(pair, "set", "xiw1", "dram_persistent", 3)["error"] == ERANGE
    assert genl(pair, "set", "xiw1", "dram_persistent_now", 1) == {
        "error": EINVAL,
        "extack": "read-only: set XIW_POLICY_DRAM_PERSISTENT"}
    assert genl(pair, "set", "xiw1") == {
        "error": EINVAL, "extack": "nothing to change: give "
        "XIW_POLICY_PERSIST or XIW_POLICY_DRAM_PERSISTENT"}
    assert genl(pair, "mr", "xiw1", "0x12345678") == {
        "error": ENOENT, "extack": "no MR of this device has this STag"}
    # Reading is for anyone, changing for CAP_NET_ADMIN only.
    assert genl(pair, "dev", "xiw1", user=65534) == before
    assert genl(pair, "set", "xiw1", "persist", PMEM, user=65534) == {
        "error": EPERM, "extack": ""}
    assert genl(pair, "dev", "xiw1") == before


def test_device_domain_pmem_writes_dram_back_and_serves_it(pair):
    """Named pmem, plain memory is taken to be persistent once out of the
    CPU caches: every Flush is served, its range written back."""
    assert genl(pair, "set", "xiw1", "persist", PMEM)["devices"][0][
        "policy"]["persist"] == PMEM
    rc, r, n = flush(pair, 16)
    assert r["completed"] == 16, r
    assert n["flush_pmem"] == 16 and n["flush_dram"] == 0, n
    assert n["pmem_writeback_bytes"] == 16 * 4096, n
    # Back to auto: plain memory again, refused.
    genl(pair, "set", "xiw1", "persist", AUTO)
    assert refused(*flush(pair, 1, check=False))


def test_device_dram_setting_wins_over_the_module_parameter(pair):
    set_params(pair, dram_persistent=1)
    assert policy(pair)["dram_persistent_now"] == 1
    genl(pair, "set", "xiw1", "dram_persistent", OFF)
    assert policy(pair) == {"persist": AUTO, "dram_persistent": OFF,
                            "dram_persistent_now": 0}
    assert refused(*flush(pair, 1, check=False))
    genl(pair, "set", "xiw1", "dram_persistent", DEFAULT)
    rc, r, n = flush(pair, 4)
    assert n["flush_dram"] == 4, n
    set_params(pair, dram_persistent=0)
    genl(pair, "set", "xiw1", "dram_persistent", ON)
    assert policy(pair)["dram_persistent_now"] == 1
    rc, r, n = flush(pair, 4)
    assert n["flush_dram"] == 4 and n["flush_refused"] == 0, n


def test_device_domain_file_refuses_memory_that_is_no_file(pair):
    """Named file, only a file's page cache can be made persistent: plain
    memory is refused even where DRAM counts as persistent."""
    genl(pair, "set", "xiw1", "persist", FILE, "dram_persistent", ON)
    assert refused(*flush(pair, 1, check=False))


def test_mr_domain_wins_over_the_device_domain(pair):
    """A run of Flushes served as pmem (the device's domain); the server's
    registrations are then named dram (their own domain), DRAM not being
    persistent: the next Flush is refused and the run ends with it."""
    vm = pair
    genl(vm, "set", "xiw1", "persist", PMEM)
    before = hw_counters(vm, "xiw1")
    out = start_client(vm, "a", SERVER, "mr-policy", "--op", "flush",
                       "--count", 10**6, "--size", 4096, "--remote-mr",
                       "frwr", "--persist", "--timeout", 120)
    wait_until(vm, "test $(rdma -j statistic show link xiw1/1 | "
               "python3 -c 'import json,sys; "
               "print(json.load(sys.stdin)[0][\"flush_pmem\"])') -gt "
               f"{before['flush_pmem']}", "Flushes served as pmem",
               tries=600)
    # "rdma -j" shows keys as hex digits without 0x.
    stags = [int(str(m["rkey"]), 16) for m in
             json.loads(vm.run("rdma -j res show mr").out)
             if m["ifname"] == "xiw1" and m.get("rkey")]
    assert len(stags) == 5, stags       # 4 chunks, chunk 0 read-only
    for stag in stags:
        assert genl(vm, "mr", "xiw1", stag) == {
            "mr": {"stag": stag, "persist": AUTO}}
    # xiwctl shows the same (libxiw's side of the family).
    shown = json.loads(vm.run(f"{XIWCTL} -j mr show xiw1 {stags[0]}").out)
    assert [(m["ifname"], m["stag"], m["domain"]) for m in shown] == \
        [("xiw1", hex(stags[0]), "auto")]
    # Once the chunk the Flushes use is named dram, the run ends and the
    # server frees its registrations: the later ones are gone.
    got = [genl(vm, "mr", "xiw1", stag, "persist", DRAM) for stag in stags]
    named = [g for g in got if "mr" in g]
    assert named and all(g["mr"]["persist"] == DRAM for g in named), got
    assert all(g == {"error": ENOENT, "extack": "no MR of this device has "
                     "this STag"} for g in got if "mr" not in g), got
    rc, r = wait_client(vm, out)
    assert r["completed"] > 0, r
    # Refused when it arrives; or, arrived just before the change, failed
    # at its turn (the policy is read again then).
    n = counted(before, hw_counters(vm, "xiw1"))
    assert n["flush_refused"] + n["flush_failed"] == 1, n
    # The client saw the Terminate's error, or first its Write flushed.
    assert rc == 1 and r["wc_status"] in ("REM_ACCESS_ERR", "REM_OP_ERR",
                                          "WR_FLUSH_ERR"), r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
    assert n["flush_dram"] == 0 and n["flush_pmem"] == r["completed"], \
        (n, r)
