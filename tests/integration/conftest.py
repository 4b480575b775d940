"""Fixtures for the VM scenarios: one guest per test session, a clean
kernel log check around every test, and the two-host topology."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vm"))
import xiwvm  # noqa: E402

TOP = xiwvm.TOP


def pytest_configure(config):
    config.addinivalue_line("markers", "vm: needs the QEMU guest")


def build_siw():
    """Path of the stock siw.ko for the target kernel, built out of tree
    (and cached) by scripts/build-siw.sh."""
    res = subprocess.run([os.path.join(TOP, "scripts", "build-siw.sh")],
                         check=True, stdout=subprocess.PIPE, text=True)
    return res.stdout.strip().splitlines()[-1]


def default_modules(siw_ko):
    """What the VM installs for modprobe: xiw, the xiwperf test module
    and stock siw (a reference iWARP device for xiwperf)."""
    return [os.path.join(TOP, "kmod", "xiw.ko"),
            os.path.join(TOP, "tools", "xiwperf", "kmod", "xiwperf.ko"),
            siw_ko]


SCRATCH_BYTES = 256 << 20


class Guest:
    """The running VM plus helpers the scenarios share."""

    def __init__(self, modules=None):
        self.workdir = os.path.join(TOP, "build", "vm", f"pytest-{os.getpid()}")
        os.makedirs(self.workdir, exist_ok=True)
        self.modules = modules
        self.vm = None

    def ensure(self):
        if self.vm is None or not self.vm.alive():
            if self.vm is not None:
                self.vm.stop()
            # A scratch disk (/dev/vda, sparse) for the scenarios that
            # need a filesystem on a block device: see the disk fixture.
            scratch = os.path.join(self.workdir, "scratch.img")
            with open(scratch, "wb") as f:
                f.truncate(SCRATCH_BYTES)
            self.vm = xiwvm.VM(self.workdir, modules=self.modules,
                               disks=[scratch]).start()
            self.vm.new_dmesg()
        return self.vm

    def stop(self):
        if self.vm is not None:
            self.vm.stop()


@pytest.fixture(scope="session")
def siw_ko():
    """siw.ko built for the target kernel (stock siw is not in Debian's
    config); the source stays in $XIW_CACHE, never in the repository."""
    return build_siw()


@pytest.fixture(scope="session")
def guest(siw_ko):
    g = Guest(default_modules(siw_ko))
    yield g
    g.stop()


def end_test(vm):
    """After a test: fail if the VM died; delete every RDMA link and
    namespace and unload xiw (a leak or a hang there is the test's too);
    fail on any kernel line the test caused that reports a bug."""
    if not vm.alive():
        pytest.fail("VM died during the test:\n" + vm.console()[-6000:])
    vm.run("for d in $(rdma link show | awk '{print $2}' | cut -d/ -f1 "
           "| sort -u); do rdma link delete $d 2>/dev/null; done; "
           "ip -all netns delete; ip link del v0 2>/dev/null; "
           "modprobe -r xiw; true", timeout=60, check=False)
    log = vm.new_dmesg()
    bad = xiwvm.VM.bad_lines(log)
    if bad:
        pytest.fail("kernel reported problems:\n" + "\n".join(log))


@pytest.fixture
def vm(guest, request):
    """The VM, with every kernel line the test caused checked for bugs.

    After the test all xiw devices are deleted and the module unloaded;
    that teardown is itself checked.
    """
    vm = guest.ensure()
    vm.new_dmesg()
    yield vm
    end_test(vm)


def wait_until(vm, cmd, what, tries=100):
    """Run cmd in the guest until it exits 0; each try is a guest command
    round trip, the whole bounded by tries (no wall-clock assertion)."""
    for _ in range(tries):
        if vm.run(cmd, check=False).rc == 0:
            return
        vm.run("sleep 0.1", check=False)
    raise AssertionError(f"never happened: {what}")


def rdma_links(vm, ns=None):
    """rdma link show as a list; netdev names are only reported to
    callers in the netdev's namespace, hence ns."""
    cmd = "rdma -j link show"
    res = vm.ns(ns, cmd) if ns else vm.run(cmd)
    return json.loads(res.out or "[]")


def rdma_devs(vm):
    return json.loads(vm.run("rdma -j dev show").out or "[]")


def two_hosts(vm):
    """Two hosts: netns 'a' (v0, 192.0.2.1/24) and 'b' (v1, 192.0.2.2/24)
    joined by a veth pair."""
    vm.run("""ip netns add a && ip netns add b &&
        ip link add v0 netns a type veth peer v1 netns b &&
        ip -n a -batch - <<'A' && ip -n b -batch - <<'B'
addr add 192.0.2.1/24 dev v0
link set v0 up
link set lo up
A
addr add 192.0.2.2/24 dev v1
link set v1 up
link set lo up
B""")
    return vm


def xiw_links(vm):
    """On two_hosts(): xiwperf loaded, xiw0 on v0 in a, xiw1 on v1 in b."""
    from xiwperf_run import load_xiwperf, static_neighbours
    load_xiwperf(vm)
    static_neighbours(vm)
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")


@pytest.fixture
def hosts(vm):
    """two_hosts() in the test's VM."""
    return two_hosts(vm)


@pytest.fixture
def pair(hosts):
    """xiw0 on v0 in a, xiw1 on v1 in b, an xiwperf server in b."""
    from xiwperf_run import start_server, stop_server
    vm = hosts
    xiw_links(vm)
    log = start_server(vm, "b", "192.0.2.2", "b")
    yield vm
    stop_server(vm, log)
    vm.run("rmmod xiwperf", check=False)


@pytest.fixture
def xiw_and_siw(hosts):
    """xiw0 on v0 in a, stock siw0 on v1 in b, xiwperf loaded."""
    from xiwperf_run import load_xiwperf, static_neighbours
    vm = hosts
    load_xiwperf(vm)
    vm.run("modprobe siw && modprobe xiw")
    static_neighbours(vm)
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add siw0 type siw netdev v1")
    yield vm
    vm.run("rmmod xiwperf", check=False)
    vm.ns("b", "rdma link delete siw0", check=False)


@pytest.fixture
def siw_server(xiw_and_siw):
    """xiw_and_siw with an xiwperf server on siw0 (192.0.2.2)."""
    from xiwperf_run import start_server, stop_server
    vm = xiw_and_siw
    log = start_server(vm, "b", "192.0.2.2", "siw")
    yield vm
    stop_server(vm, log)
