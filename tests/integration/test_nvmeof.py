"""NVMe over Fabrics over RDMA on xiw (nvmeof.py): Linux's nvmet-rdma
target and nvme-rdma host, unmodified, across two kernels on a wire (each
end in turn the target), over IPv6, through a controller reset and a
target going away mid-I/O, and in one kernel over one pair of xiw devices.
Every byte the host writes is checked on reading back (fio --verify), and
both kernels' logs after each test (the two_guests fixture)."""
import pytest

import iser
import nvmeof
from conftest import interop_except, wait_until
from two_guests import ADDR4, ADDR6, IMPAIRED

# (host guest, target guest)
DIRECTIONS = {"host0_target1": (0, 1), "host1_target0": (1, 0)}


def links(pair, kinds=("xiw", "xiw")):
    for i, (vm, kind) in enumerate(zip(pair.vms, kinds)):
        vm.run(f"modprobe {kind} && rdma link add {kind}{i} type {kind} "
               "netdev eth0")


def undo(pair):
    """Whatever a test set up of NVMe-oF undone, hosts first, before the
    fixture's teardown deletes the devices."""
    for vm in pair.vms:
        nvmeof.disconnect(vm)
    for vm in pair.vms:
        nvmeof.target_down(vm)


@pytest.fixture
def nvme_pair(two_guests):
    """xiw on both guests, NVMe-oF undone after the test."""
    links(two_guests)
    yield two_guests
    undo(two_guests)


@pytest.fixture
def bare_pair(two_guests):
    """No RDMA device yet (the test adds what it needs); NVMe-oF undone
    after the test."""
    yield two_guests
    undo(two_guests)


def start_fio(vm, dev, mib, verify=True):
    """fio in the background; wait_fio() returns its exit status."""
    args = nvmeof.fio_args(dev, "randwrite", mib, verify=verify)
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


@pytest.mark.parametrize("direction",
                         interop_except("host0_target1", DIRECTIONS))
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


@pytest.mark.interop
@pytest.mark.parametrize("kinds", [("xiw", "siw"), ("siw", "xiw")],
                         ids=["xiw_host_siw_target", "siw_host_xiw_target"])
def test_nvme_over_rdma_between_xiw_and_stock_siw(bare_pair, kinds):
    """Host on guest 0's device, target on guest 1's, one of them stock
    siw: verified random and sequential I/O."""
    host, target = bare_pair.vms
    links(bare_pair, kinds)
    nvmeof.target_up(target, ADDR4[1])
    dev = nvmeof.connect(host, ADDR4[1])
    nvmeof.fio(host, dev, "randwrite", 8)
    res = host.run(nvmeof.fio_args(dev, "write", 16, depth=8, bs="128k"),
                   timeout=600, check=False)
    assert res.rc == 0, res
    qps = host.run("rdma -j res show qp").out
    assert f'"{kinds[0]}0"' in qps, qps


@pytest.mark.interop
def test_nvme_over_rdma_to_a_link_local_ipv6_address(nvme_pair):
    """traddr fe80::...%eth0 at both ends: a link-local address means
    nothing without its interface (nvmet refuses the bare one, EINVAL);
    the host's rdma_cm resolves through the named one."""
    host, target = nvme_pair.vms
    addr = nvme_pair.link_local(1)
    nvmeof.target_up(target, f"{addr}%eth0", family="ipv6")
    dev = nvmeof.connect(host, f"{addr}%eth0")
    nvmeof.fio(host, dev, "randwrite", 4)


@pytest.mark.interop
def test_nvme_over_rdma_between_debian_6_1_and_6_12(two_kernels):
    """Host on 6.12 (guest 0), target on 6.1 (guest 1), then the other
    way round: verified I/O each way."""
    links(two_kernels)
    try:
        for h, t in DIRECTIONS.values():
            host, target = two_kernels.vms[h], two_kernels.vms[t]
            nvmeof.target_up(target, ADDR4[t])
            dev = nvmeof.connect(host, ADDR4[t])
            nvmeof.fio(host, dev, "randwrite", 8)
            nvmeof.disconnect(host)
            nvmeof.target_down(target)
    finally:
        undo(two_kernels)


@pytest.mark.interop
def test_nvme_over_rdma_over_an_impaired_wire(nvme_pair):
    """Loss, duplication, reordering and delay at both ends (netem):
    verified I/O completes."""
    host, target = nvme_pair.vms
    nvme_pair.impair(IMPAIRED)
    try:
        nvmeof.target_up(target, ADDR4[1])
        dev = nvmeof.connect(host, ADDR4[1])
        nvmeof.fio(host, dev, "randwrite", 8)
    finally:
        nvme_pair.mend()
