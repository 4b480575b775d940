"""xiwctl against live xiw devices in the VM."""
import json
import os

from conftest import TOP, rdma_links
from genl import genl

XIWCTL = os.path.join(TOP, "build", "cmake", "tools", "xiwctl")


def test_xiwctl_link_add_creates_device(hosts):
    vm = hosts
    vm.ns("a", f"{XIWCTL} link add xiw0 netdev v0")
    assert [lk["ifname"] for lk in rdma_links(vm)] == ["xiw0"]


def test_xiwctl_dev_show_json_matches_rdma_tool(hosts):
    vm = hosts
    vm.ns("a", f"{XIWCTL} link add xiw0 netdev v0")
    ours = json.loads(vm.run(f"{XIWCTL} -j dev show xiw0").out)
    theirs = [d for d in json.loads(vm.run("rdma -j dev show").out)
              if d["ifname"] == "xiw0"]
    assert ours == theirs


def test_xiwctl_dev_show_text(hosts):
    vm = hosts
    vm.ns("a", f"{XIWCTL} link add xiw0 netdev v0")
    out = vm.run(f"{XIWCTL} dev").out
    assert "xiw0: node_type rnic fw 0.1.0 node_guid" in out


def test_xiwctl_link_delete_removes_device(hosts):
    vm = hosts
    vm.ns("a", f"{XIWCTL} link add xiw0 netdev v0")
    vm.run(f"{XIWCTL} link delete xiw0")
    assert rdma_links(vm) == []


def test_xiwctl_reports_kernel_refusal(hosts):
    vm = hosts
    vm.ns("a", f"{XIWCTL} link add xiw0 netdev v0")
    res = vm.ns("a", f"{XIWCTL} link add xiw1 netdev v0", check=False)
    assert res.rc == 1
    assert res.err.strip() == \
        "xiwctl: adding xiw device xiw1 on v0: File exists"
    assert [lk["ifname"] for lk in rdma_links(vm)] == ["xiw0"]


def test_xiwctl_unknown_device(vm):
    res = vm.run(f"{XIWCTL} link delete nosuch", check=False)
    assert res.rc == 1
    assert "nosuch" in res.err and "No such device" in res.err


def test_xiwctl_usage_error(vm):
    res = vm.run(f"{XIWCTL} link add xiw0", check=False)
    assert res.rc == 2
    assert "missing \"netdev NETDEV\"" in res.err


# The xiw generic netlink family (Documentation/netlink.md), against the
# view of xiw_genl.py, a client written from the uapi header alone (genl).


def test_xiwctl_caps_loads_xiw_when_it_is_not(vm):
    """Resolving the family loads the module (its alias), as "rdma link
    add" would: no device yet, an empty list."""
    vm.run("! grep -q '^xiw ' /proc/modules")
    assert json.loads(vm.run(f"{XIWCTL} -j caps").out) == []
    vm.run("grep -q '^xiw ' /proc/modules")


def test_xiwctl_caps_and_policy_show_what_the_family_says(hosts):
    vm = hosts
    vm.ns("a", f"{XIWCTL} link add xiw0 netdev v0")
    theirs = genl(vm, "dev", "xiw0")["devices"][0]
    caps = json.loads(vm.run(f"{XIWCTL} -j caps xiw0").out)
    assert caps == [{
        "ifindex": theirs["index"], "ifname": "xiw0", "netdev": "v0",
        "mpa": ["1", "2"],
        "ops": ["atomics", "immediate", "flush", "atomic_write", "verify"],
        "domains": ["auto", "dram", "pmem", "file"],
        "hashes": ["crc32c", "sha256"], "max_ord": 128, "max_ird": 128,
        "max_msg": 1 << 31, "max_qp": 16384, "max_mr": 65536}]
    assert vm.run(f"{XIWCTL} caps").out == (
        f"{theirs['index']}: xiw0: netdev v0 mpa 1,2 ops atomics,immediate,"
        "flush,atomic_write,verify domains auto,dram,pmem,file hashes "
        "crc32c,sha256 max_ord 128 max_ird 128 max_msg 2147483648 "
        "max_qp 16384 max_mr 65536\n")
    assert json.loads(vm.run(f"{XIWCTL} -j policy").out) == [{
        "ifindex": theirs["index"], "ifname": "xiw0", "domain": "auto",
        "dram_persistent": "default", "dram_persistent_now": False}]


def test_xiwctl_policy_set_changes_the_device(hosts):
    vm = hosts
    vm.ns("a", f"{XIWCTL} link add xiw0 netdev v0")
    out = vm.run(f"{XIWCTL} policy set xiw0 domain pmem dram-persistent on").out
    assert out.endswith(": xiw0: domain pmem dram-persistent on (on)\n"), out
    assert genl(vm, "dev", "xiw0")["devices"][0]["policy"] == {
        "persist": 2, "dram_persistent": 2, "dram_persistent_now": 1}
    vm.run(f"{XIWCTL} policy set xiw0 dram default")
    assert json.loads(vm.run(f"{XIWCTL} -j pol show xiw0").out)[0][
        "dram_persistent"] == "default"


def test_xiwctl_policy_refusals_carry_the_kernels_reason(hosts):
    vm = hosts
    vm.ns("a", f"{XIWCTL} link add xiw0 netdev v0")
    before = vm.run(f"{XIWCTL} -j policy xiw0").out
    res = vm.run("setpriv --reuid=65534 --regid=65534 --clear-groups "
                 f"{XIWCTL} policy set xiw0 domain dram", check=False)
    assert res.rc == 1
    assert res.err == ("xiwctl: changing the policy of xiw0: Operation not "
                       "permitted: changing xiw settings needs "
                       "CAP_NET_ADMIN in the user namespace that owns the "
                       "device's network namespace\n"), res.err
    res = vm.run(f"{XIWCTL} policy set nosuch domain dram", check=False)
    assert res.rc == 1
    assert res.err == ("xiwctl: changing the policy of nosuch: No such "
                       "device: no such xiw device\n"), res.err
    res = vm.run(f"{XIWCTL} mr set xiw0 0x12345678 domain dram",
                 check=False)
    assert res.rc == 1
    assert res.err == ("xiwctl: naming the domain of MR 0x12345678 of xiw0: "
                       "No such file or directory: no MR of this device has "
                       "this STag\n"), res.err
    res = vm.run(f"{XIWCTL} policy set xiw0 domain tape", check=False)
    assert res.rc == 2
    assert "domain \"tape\" is not one of auto, dram, pmem, file" in res.err
    assert vm.run(f"{XIWCTL} -j policy xiw0").out == before


def test_every_read_command_prints_what_the_schema_says(pair):
    """dev, caps, config, policy, mr show and stats with -j, on devices
    with settings and a policy of their own, against
    tools/xiwctl/xiwctl.schema.json; and the schema refuses what is not so."""
    import jsonschema
    import pytest
    from schema import check
    vm = pair
    vm.run(f"{XIWCTL} config set xiw1 rtr read,send hashes sha256 "
           "debug connections && "
           f"{XIWCTL} policy set xiw1 domain pmem dram-persistent on")
    for what, cmd in (("dev", "dev show"), ("caps", "caps"),
                      ("config", "config"), ("policy", "policy"),
                      ("stats", "stats")):
        got = json.loads(vm.run(f"{XIWCTL} -j {cmd}").out)
        assert len(got) >= 2, got
        check(got, what)
    # An MR with a remote key: the server registers them for a run
    # (--remote-mr frwr); "rdma -j" shows keys as hex digits without 0x.
    from conftest import wait_until
    from xiwperf_run import start_client, wait_client
    out = start_client(vm, "a", "192.0.2.2", "schema", "--op", "write",
                       "--size", 64, "--count", 10**6, "--remote-mr", "frwr",
                       "--timeout", 120)
    try:
        wait_until(vm, "rdma -j res show mr dev xiw1 | grep -q rkey",
                   "the server registered its MRs")
        rkeys = [int(str(m["rkey"]), 16) for m in
                 json.loads(vm.run("rdma -j res show mr").out)
                 if m["ifname"] == "xiw1" and m.get("rkey")]
        assert rkeys, "the server registered no MR with a remote key"
        check(json.loads(vm.run(
            f"{XIWCTL} -j mr show xiw1 {rkeys[0]:#x}").out), "mr_policy")
    finally:
        vm.run("pkill -INT -f 'xiwperf client'", check=False)
        wait_client(vm, out)
    # The schema can fail: a missing key, an unknown one, a wrong value.
    good = json.loads(vm.run(f"{XIWCTL} -j policy xiw1").out)
    for bad in ([dict(good[0], domain="tape")],
                [{k: v for k, v in good[0].items() if k != "domain"}],
                [dict(good[0], extra=1)]):
        with pytest.raises(jsonschema.ValidationError):
            check(bad, "policy")
