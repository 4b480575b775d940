"""NVMe over Fabrics over RDMA on xiw (nvmeof.py): Linux's nvmet-rdma
target and nvme-rdma host, unmodified, across two kernels on a wire (each
end in turn the target), over IPv6, through a controller reset and a
target going away mid-I/O, and in one kernel over one pair of xiw devices.
Every byte the host writes is checked on reading back (fio --verify), and
both kernels' logs after each test (the two_guests fixture)."""
import pytest

import iser
import nvmeof
from conftest import wait_until
from two_guests import ADDR4, ADDR6

# (host guest, target guest)
DIRECTIONS = {"host0_target1": (0, 1), "host1_target0": (1, 0)}


def links(pair):
    for i, vm in enumerate(pair.vms):
        vm.run(f"rdma link add xiw{i} type xiw netdev eth0")


@pytest.fixture
def nvme_pair(two_guests):
    """xiw on both guests; whatever a test set up of NVMe-oF undone
    after it, host first, before the fixture's teardown deletes the
    devices."""
    links(two_guests)
    yield two_guests
    for vm in two_guests.vms:
        nvmeof.disconnect(vm)
    for vm in two_guests.vms:
        nvmeof.target_down(vm)


def start_fio(vm, dev, mib, verify=True):
    """fio in the background; wait_fio() returns its exit status."""
    args = nvmeof.fio_args(dev, "randwrite", mib)
    if not verify:
        args = args.replace("--verify=crc32c --verify_fatal=1 "
                            "--do_verify=1 ", "")
    vm.run(f"rm -f /tmp/fio.rc; ({args} > /tmp/fio.out 2>&1; "
           "echo $? > /tmp/fio.rc) > /dev/null 2>&1 &")


def wait_fio(vm, tries=1500):
    wait_until(vm, "test -s /tmp/fio.rc", "fio ended", tries)
    return int(vm.run("cat /tmp/fio.rc").out), vm.run("cat /tmp/fio.out").out


def wait_writes(vm, dev, sectors):
    """Until the namespace has written more than sectors 512-octet
    sectors (the 7th field of its block stat)."""
    wait_until(vm, f"set -- $(cat /sys/block/{dev}n1/stat); "
                   f"[ $7 -gt {sectors} ]", f"{dev}n1 writes", tries=600)


@pytest.mark.parametrize("direction", [
    "host0_target1",
    pytest.param("host1_target0", marks=pytest.mark.interop)])
def test_nvme_over_rdma_moves_verified_data_between_two_kernels(
        nvme_pair, direction):
    """16 MiB of random 4 KiB writes 16 deep, then 32 MiB sequential in
    128 KiB blocks (the target reads each from the host by RDMA Read,
    and writes reads back by RDMA Write), every block checked."""
    h, t = DIRECTIONS[direction]
    host, target = nvme_pair.vms[h], nvme_pair.vms[t]
    nvmeof.target_up(target, ADDR4[t])
    dev = nvmeof.connect(host, ADDR4[t])
    job = nvmeof.fio(host, dev, "randwrite", 16)
    assert job["write"]["io_bytes"] == 16 << 20, job["write"]
    res = host.run(nvmeof.fio_args(dev, "write", 32, depth=8, bs="128k"),
                   timeout=600, check=False)
    assert res.rc == 0, res
    nvmeof.disconnect(host)
    assert nvmeof.controllers(host) == {}


@pytest.mark.interop
def test_nvme_over_rdma_over_ipv6_between_two_kernels(nvme_pair):
    host, target = nvme_pair.vms
    nvmeof.target_up(target, ADDR6[1], family="ipv6")
    dev = nvmeof.connect(host, ADDR6[1])
    nvmeof.fio(host, dev, "randwrite", 8)


def test_nvme_controller_reset_during_io_loses_no_write(nvme_pair):
    """nvme reset while fio writes: the host tears its queues (and xiw
    QPs) down and connects new ones, requeues what was in flight, and
    every block reads back as written."""
    host, target = nvme_pair.vms
    nvmeof.target_up(target, ADDR4[1])
    dev = nvmeof.connect(host, ADDR4[1])
    start_fio(host, dev, 48)
    wait_writes(host, dev, 2048)
    host.run(f"nvme reset /dev/{dev}", timeout=180)
    rc, out = wait_fio(host)
    assert rc == 0, out
    assert nvmeof.controllers(host) == {dev: "live"}


@pytest.mark.interop
def test_nvme_target_gone_during_io_ends_the_host_controller(nvme_pair):
    """The target's port removed while the host writes: the host sees its
    queues end, tries to reconnect for its controller-loss timeout (4 s),
    then deletes the controller; fio ends with I/O errors instead of
    hanging. The port put back, a new connection carries verified data:
    nothing of the first is left in the way."""
    host, target = nvme_pair.vms
    nvmeof.target_up(target, ADDR4[1])
    dev = nvmeof.connect(host, ADDR4[1], "--ctrl-loss-tmo=4",
                         "--reconnect-delay=1")
    start_fio(host, dev, 64, verify=False)
    wait_writes(host, dev, 2048)
    nvmeof.port_down(target)
    rc, out = wait_fio(host)
    assert rc != 0, out
    wait_until(host, f"! [ -e /sys/class/nvme/{dev} ]",
               "the host deleted the lost controller", tries=600)
    nvmeof.target_down(target)
    nvmeof.target_up(target, ADDR4[1])
    dev = nvmeof.connect(host, ADDR4[1])
    nvmeof.fio(host, dev, "randwrite", 8)


@pytest.fixture
def one_kernel(vm):
    """xiw0 on v0 (192.0.2.1, the host) and xiw1 on v1 (192.0.2.2, the
    target), both in the initial namespace with the traffic between the
    two addresses routed over the veth pair (iser.py's NET_UP)."""
    vm.run("set -e\n" + iser.NET_UP, timeout=180)
    try:
        yield vm
    finally:
        nvmeof.disconnect(vm)
        nvmeof.target_down(vm)
        vm.run(iser.NET_DOWN, check=False)


def test_nvme_over_rdma_in_one_kernel_moves_verified_data(one_kernel):
    vm = one_kernel
    nvmeof.target_up(vm, iser.TARGET_ADDR)
    dev = nvmeof.connect(vm, iser.TARGET_ADDR)
    nvmeof.fio(vm, dev, "randwrite", 16)
    counts = vm.run("rdma -j res show qp").out
    assert "xiw0" in counts and "xiw1" in counts, counts


@pytest.mark.interop
def test_nvme_host_reconnects_when_a_killed_target_comes_back(nvme_pair):
    """The target's guest killed outright (no disconnect on the wire):
    the host's keep-alive notices, it keeps reconnecting (no controller
    loss timeout), and once the guest is booted again with the same
    subsystem on the same port the controller is live again and carries
    verified I/O, under the same name."""
    host = nvme_pair.vms[0]
    nvmeof.target_up(nvme_pair.vms[1], ADDR4[1])
    dev = nvmeof.connect(host, ADDR4[1], "--ctrl-loss-tmo=-1",
                         "--reconnect-delay=1", "--keep-alive-tmo=2")
    nvmeof.fio(host, dev, "randwrite", 4)
    nvme_pair.kill(1)
    wait_until(host, f"! grep -qx live /sys/class/nvme/{dev}/state",
               "the host notices its target is gone", tries=600)
    nvme_pair.reboot(1)
    nvme_pair.vms[1].run("rdma link add xiw1 type xiw netdev eth0")
    nvmeof.target_up(nvme_pair.vms[1], ADDR4[1])
    wait_until(host, f"grep -qx live /sys/class/nvme/{dev}/state",
               "the controller is live again", tries=600)
    nvmeof.fio(host, dev, "randwrite", 8)
