"""xiwctl against live xiw devices in the VM."""
import json
import os

from conftest import TOP, rdma_links

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
