"""xiw in containers: with "rdma system set netns exclusive" an xiw
device made by "rdma link add" inside a network namespace belongs to that
namespace (kmod/device.c, xiw_device_set_net()): listed, opened and used
there and nowhere else, through the RDMA tools, xiwctl and libibverbs,
and gone with its namespace (Documentation/admin.md, "Containers").

Namespaces a (v0, 192.0.2.1) and b (v1, 192.0.2.2) as two_hosts() makes
them, each with its own device; the mode is set before they are made (the
RDMA core refuses to change it while a namespace other than the initial
one exists) and is the whole machine's: the next test gets a fresh guest.
"""
import json
import os

import pytest

from conftest import TOP, rdma_devs, rping_verified, two_hosts, wait_until
from test_userspace_verbs import ENV, PROVIDER, perftest_pair

XIWCTL = os.path.join(TOP, "build", "cmake", "tools", "xiwctl")


@pytest.fixture
def containers(vm, guest):
    assert os.path.exists(PROVIDER + "-rdmav34.so"), "make all first"
    # A namespace an earlier test deleted may still be on its way out.
    wait_until(vm, "modprobe ib_core && rdma system set netns exclusive",
               "the RDMA core switches to exclusive namespaces")
    assert "netns exclusive" in vm.run("rdma system show").out
    two_hosts(vm)
    vm.run("modprobe xiw && modprobe ib_uverbs && modprobe rdma_ucm && "
           "ip netns exec a rdma link add xiw0 type xiw netdev v0 && "
           "ip netns exec b rdma link add xiw1 type xiw netdev v1")
    yield vm
    guest.reboot = True


def devices(vm, ns=None):
    """Names of the RDMA devices `rdma dev` lists in namespace ns."""
    return sorted(d["ifname"] for d in rdma_devs(vm, ns))


def verbs_devices(vm, ns=None):
    """What libibverbs (ibv_devices, xiw's provider) lists in ns."""
    cmd = f"env {ENV}ibv_devices"
    out = (vm.ns(ns, cmd) if ns else vm.run(cmd)).out
    return sorted(line.split()[0] for line in out.splitlines()[2:])


def test_a_device_made_in_a_container_is_seen_only_there(containers):
    vm = containers
    assert devices(vm, "a") == ["xiw0"]
    assert devices(vm, "b") == ["xiw1"]
    assert devices(vm) == []
    assert vm.ns("a", "ls /sys/class/infiniband").out.split() == ["xiw0"]
    assert vm.run("ls /sys/class/infiniband").out.split() == []
    assert verbs_devices(vm, "a") == ["xiw0"]
    assert verbs_devices(vm, "b") == ["xiw1"]
    assert verbs_devices(vm) == []
    # xiw's own netlink family answers for the namespace's devices only.
    names = [d["ifname"] for d in
             json.loads(vm.ns("a", f"{XIWCTL} -j dev show").out)]
    assert names == ["xiw0"]
    res = vm.ns("a", f"{XIWCTL} dev show xiw1", check=False)
    assert res.rc != 0, res


def test_rping_and_perftest_run_inside_two_containers(containers):
    vm = containers
    rping_verified(vm, 10, ENV)
    perftest_pair(vm, "ib_write_bw", "-s 65536 -n 200",
                  ("b", "xiw1", "192.0.2.2", "v1"), ("a", "xiw0"))


def test_a_containers_device_goes_with_its_namespace(containers):
    """Namespace c, a dummy netdev and xiw2 made inside it: deleting the
    namespace moves the device back to the initial namespace (the RDMA
    core) and destroys the netdev, which removes the device (xiw)."""
    vm = containers
    vm.run("ip netns add c && ip -n c link add d0 type dummy && "
           "ip -n c link set d0 up && "
           "ip netns exec c rdma link add xiw2 type xiw netdev d0")
    assert devices(vm, "c") == ["xiw2"]
    vm.run("ip netns delete c")
    wait_until(vm, "! test -e /sys/class/infiniband/xiw2 && "
               "! rdma dev show xiw2", "xiw2 is gone")
    assert devices(vm) == []
    assert devices(vm, "a") == ["xiw0"]


def test_a_device_whose_netdev_leaves_its_namespace_is_removed(containers):
    """xiw2 on d1 in c; d1 moved to a: the device does not follow it (an
    RDMA device is not a netdev's), it is removed."""
    vm = containers
    vm.run("ip netns add c && ip -n c link add d1 type dummy && "
           "ip netns exec c rdma link add xiw2 type xiw netdev d1")
    vm.run("ip -n c link set d1 netns a")
    wait_until(vm, "! ip netns exec c rdma dev show xiw2 && "
               "! ip netns exec a rdma dev show xiw2 && "
               "! rdma dev show xiw2", "xiw2 is gone")
    assert devices(vm, "a") == ["xiw0"]
    assert devices(vm, "c") == []


def test_rdma_dev_set_netns_moves_a_device_to_another_container(
        containers):
    """The administrator's move (the RDMA core's, which needs the
    driver to disassociate user contexts, as xiw does): xiw0 leaves a for
    b, where libibverbs then lists it; its netdev stays in a."""
    vm = containers
    vm.run("ip netns exec a rdma dev set xiw0 netns b")
    assert devices(vm, "a") == []
    assert devices(vm, "b") == ["xiw0", "xiw1"]
    assert verbs_devices(vm, "b") == ["xiw0", "xiw1"]
    assert vm.ns("a", "ip -br link show v0").rc == 0
