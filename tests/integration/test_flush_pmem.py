"""RDMA Flush to persistence of pmem: the xiwperf server's buffer is a DAX
device (xiwperf server --backing pmem:/dev/dax0.0) or a file on an ext4
filesystem mounted with -o dax on an fsdax namespace (its pages are the
device's). Either way the pages are ZONE_DEVICE memory of an NVDIMM, xiw's
pmem persistence domain: a Flush to persistence writes the range's cache
lines back and fences (Documentation/commit-draft.md), and is served
without "DRAM is persistent".

A guest of its own has three label-less NVDIMMs (QEMU -device nvdimm over
a shared file): ndctl makes the first a device-dax namespace, the others
fsdax ones (/dev/pmem1 with ext4 -o dax on it, /dev/pmem2 left raw). What the test observes is the flush path: the Flush completes,
the data reads back, and the device's counters (rdma statistic) show each
Flush served in the pmem domain with every octet of its range written back
from the CPU caches. Whether the lines reached the media is beyond any
test here: under TCG the guest's stores reach the host file whatever the
guest flushes, so a power cut cannot tell a written-back line from one
still cached (the disk-backed file domain has that test:
test_flush_power_cut.py).

A buffer mapped from the raw block device (--backing pmem:/dev/pmem2) is
no DAX mapping: its pages are the block device's page cache, the file
domain, written back through the pmem driver."""
import json
import os
import shutil

import pytest

import xiwvm
from conftest import TOP, end_test, two_hosts, xiw_links
from xiwperf_run import (client, counted, hw_counters, set_params,
                         start_server, stop_server)

SERVER = "192.0.2.2"
PORT = 18518
NVDIMM_BYTES = 256 << 20
BUF = 16 << 20
DAX_MNT = "/run/xiw/pmem"
DEVDAX = "/dev/dax0.0"
FSDAX_FILE = f"{DAX_MNT}/buf"
PMEM_BDEV = "/dev/pmem2"
SIZE = 65536


@pytest.fixture(scope="module")
def pmem_guest():
    """The guest with /dev/dax0.0 (device-dax), FSDAX_FILE, a 16 MiB
    file on ext4 -o dax on /dev/pmem1 (fsdax), and /dev/pmem2 (fsdax,
    raw)."""
    workdir = os.path.join(TOP, "build", "vm", f"pmem-{os.getpid()}")
    os.makedirs(workdir, exist_ok=True)
    nvdimms = []
    for i in range(3):
        path = os.path.join(workdir, f"nvdimm{i}.img")
        with open(path, "wb") as f:
            f.truncate(NVDIMM_BYTES)
        nvdimms.append(path)
    vm = xiwvm.VM(workdir, modules=[
        os.path.join(TOP, "kmod", "xiw.ko"),
        os.path.join(TOP, "tools", "xiwperf", "kmod", "xiwperf.ko")],
        mem_mb=1024, nvdimms=nvdimms).start()
    try:
        vm.run("modprobe nfit && modprobe nd_pmem && modprobe dax_pmem && "
               "modprobe device_dax && modprobe ext4 && for i in $(seq 100); do "
               "[ -e /sys/bus/nd/devices/namespace2.0 ] && break; "
               "sleep 0.1; done", timeout=120)
        vm.run("ndctl create-namespace -f -e namespace0.0 -m devdax > /dev/null && "
               "ndctl create-namespace -f -e namespace1.0 -m fsdax > /dev/null && "
               "ndctl create-namespace -f -e namespace2.0 -m fsdax > /dev/null",
               timeout=300)
        vm.run(f"test -c {DEVDAX} && test -b /dev/pmem1 && "
               f"test -b {PMEM_BDEV} && "
               f"mkfs.ext4 -q -F -b 4096 /dev/pmem1 && mkdir -p {DAX_MNT} && "
               f"mount -o dax /dev/pmem1 {DAX_MNT} && "
               f"fallocate -l {BUF} {FSDAX_FILE}", timeout=300)
        yield vm
    finally:
        vm.stop()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def pmem(pmem_guest):
    """Per test: the two hosts and xiw links, checked afterwards as the
    session VM's tests are."""
    vm = pmem_guest
    vm.new_dmesg()
    two_hosts(vm)
    xiw_links(vm)
    set_params(vm, dram_persistent=0)
    yield vm
    vm.run("rmmod xiwperf", check=False)
    end_test(vm)


def dax_server(vm, backing):
    log = start_server(vm, "b", SERVER, "pmem", "--backing", backing,
                       port=PORT, json_out=True)
    listening = json.loads(vm.run(f"head -1 {log}").out)
    assert listening["backing"] == backing, listening
    return log


def flushes(vm, backing, count, *args):
    """count Writes of SIZE, each followed by a Flush of args, from a
    client to a server whose buffer is backing: what the server's device
    counted meanwhile."""
    log = dax_server(vm, backing)
    try:
        before = hw_counters(vm, "xiw1")
        rc, r = client(vm, "a", SERVER, "--op", "flush", "--count", count,
                       "--size", SIZE, "--depth", 4, "--qps", 2,
                       "--remote-mr", "frwr", "--check", *args, port=PORT)
        assert r["completed"] == count and r["mismatches"] == 0, r
        return counted(before, hw_counters(vm, "xiw1"))
    finally:
        stats = stop_server(vm, log)
        assert stats["errors"] == 0, stats


@pytest.mark.parametrize("backing", [f"pmem:{DEVDAX}", f"pmem:{FSDAX_FILE}"],
                         ids=["devdax", "fsdax_file"])
def test_flush_to_persistence_of_pmem_writes_back_each_range(pmem, backing):
    """32 Writes of 64 KiB, each followed by a Flush to persistence of its
    region: every Flush is served in the pmem domain (plain memory would
    be refused: DRAM is not declared persistent), and the cache lines of
    all 32 regions are written back, nothing more."""
    got = flushes(pmem, backing, 32, "--persist", "--range")
    assert got["flush_persistent"] == 32, got
    assert got["flush_pmem"] == 32, got
    assert got["pmem_writeback_bytes"] == 32 * SIZE, got
    assert got["flush_dram"] == 0 and got["flush_file"] == 0, got
    assert got["flush_refused"] == 0 and got["flush_failed"] == 0, got
    assert got["file_writeback_bytes"] == 0, got


def test_flush_to_persistence_of_a_whole_pmem_mr(pmem):
    """A Flush of the whole chunk MR writes back the chunk: more than the
    region written, in whole chunks."""
    got = flushes(pmem, f"pmem:{DEVDAX}", 8, "--persist", "--whole-mr")
    assert got["flush_pmem"] == 8, got
    per_flush = got["pmem_writeback_bytes"] // 8
    assert got["pmem_writeback_bytes"] == 8 * per_flush, got
    assert per_flush > SIZE and BUF % per_flush == 0, got


def test_flush_to_global_visibility_of_pmem_writes_back_nothing(pmem):
    """Global visibility is a fence: no cache line is written back."""
    got = flushes(pmem, f"pmem:{DEVDAX}", 16, "--global")
    assert got["flush_global"] == 16, got
    assert got["flush_persistent"] == 0, got
    assert got["pmem_writeback_bytes"] == 0, got


def test_flush_to_persistence_of_a_pmem_block_device_writes_it_back(pmem):
    """The raw block device mapped: its page cache, which the server
    wrote back at start (so that its buffers are mapped). Each Flush is
    served in the file domain, its range written back through the pmem
    driver, no cache line counted as pmem."""
    got = flushes(pmem, f"pmem:{PMEM_BDEV}", 16, "--persist", "--range")
    assert got["flush_file"] == 16 and got["flush_pmem"] == 0, got
    assert got["file_writeback_bytes"] >= 16 * SIZE, got
    assert got["pmem_writeback_bytes"] == 0, got
    assert got["flush_refused"] == 0 and got["flush_failed"] == 0, got
