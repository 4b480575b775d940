"""A power cut after an RDMA Flush to persistence: what the Flush covered
is on the disk, what was only written is not.

A guest of its own, with an ext4 image the host made as its disk, serves
an xiwperf buffer backed by a file there (xiwperf server --backing). A
client writes 8 regions of 64 KiB without a Flush, then rewrites the first
with a Write and a Flush to persistence, ten times. QEMU is then killed
(SIGKILL: the guest writes nothing more). On the host, e2fsck replays the
journal as the next mount would and debugfs reads the file out of the
image: the first region holds the last Write's data, the seven others the
read pattern the server had stored at start, though the guest's page cache
had the new data when it died.

One trial per run of the suite (a boot each); XIW_POWER_CUTS=N runs N."""
import json
import os
import shutil
import subprocess
import zlib

import pytest

import xiwvm
from conftest import TOP, two_hosts, xiw_links
from test_flush_file import DEVICE, MNT, ONDISK, PORT, SERVER
from xiwperf_run import client, start_server

REGION = 64 << 10
PAGE = 4096


@pytest.fixture
def crash_vm():
    """A guest of its own (xiw and xiwperf only), its disk an ext4 image."""
    workdir = os.path.join(TOP, "build", "vm", f"power-cut-{os.getpid()}")
    os.makedirs(workdir, exist_ok=True)
    image = os.path.join(workdir, "disk.img")
    with open(image, "wb") as f:
        f.truncate(64 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", image], check=True)
    vm = xiwvm.VM(workdir, modules=[
        os.path.join(TOP, "kmod", "xiw.ko"),
        os.path.join(TOP, "tools", "xiwperf", "kmod", "xiwperf.ko")],
        mem_mb=1024, disks=[image]).start()
    try:
        yield vm, image
    finally:
        vm.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def page_crcs(data):
    return [zlib.crc32(data[i:i + PAGE]) for i in range(0, len(data), PAGE)]


def differing(state):
    """The pages whose disk copy is not the page cache's, by index."""
    return [i for i, (c, d) in enumerate(zip(state["cache"], state["disk"]))
            if c != d]


def kinds(survived, start, placed, pages):
    """What each page of the slice @pages holds after the cut, counted:
    the start's pattern, the data placed later, zeros, or other."""
    zero = zlib.crc32(bytes(PAGE))
    counts = {}
    for s, st, pl in zip(survived[pages], start[pages], placed[pages]):
        kind = ("start" if s == st else "placed" if s == pl else
                "zeros" if s == zero else "other")
        counts[kind] = counts.get(kind, 0) + 1
    return counts


@pytest.mark.parametrize("trial", range(int(os.environ.get(
    "XIW_POWER_CUTS", "1"))))
def test_power_cut_keeps_flushed_data_and_loses_the_rest(crash_vm, trial):
    vm, image = crash_vm
    vm.new_dmesg()
    # Only a Flush may put the new data on the disk: the flusher thread's
    # writeback is pinned off (no periodic wakeup, pages never expire, a
    # background threshold far above what the test dirties), so however
    # slow the run, the unflushed regions stay in the page cache.
    vm.run("sysctl -qw vm.dirty_writeback_centisecs=0 "
           "vm.dirty_expire_centisecs=360000 "
           "vm.dirty_background_bytes=268435456")
    vm.run(f"modprobe virtio_blk && modprobe ext4 && "
           f"for i in $(seq 100); do [ -b {DEVICE} ] && break; sleep 0.1; "
           f"done && mkdir -p {MNT} && mount {DEVICE} {MNT}")
    two_hosts(vm)
    xiw_links(vm)
    start_server(vm, "b", SERVER, "power-cut", "--backing",
                 f"file:{MNT}/buf", port=PORT)
    start = json.loads(vm.run(f"python3 -S {ONDISK} {MNT}/buf {DEVICE}").out)
    # The server's fsync put the read pattern on the disk before any
    # client came: what the power cut must leave there.
    assert start["disk"] == start["cache"], \
        f"pages not on the disk at start: {differing(start)}"

    def run(op, *args, qps=1, depth=1):
        rc, r = client(vm, "a", SERVER, "--op", op, "--size", REGION,
                       "--qps", qps, "--depth", depth, "--remote-mr", "frwr",
                       "--check", *args, port=PORT)
        assert r["mismatches"] == 0, r

    run("write", "--count", 8, qps=2, depth=4)          # regions 0..7
    run("flush", "--count", 10, "--persist")            # region 0
    placed = vm.run(f"python3 -S {ONDISK} {MNT}/buf {DEVICE}").out
    assert not xiwvm.VM.bad_lines(vm.new_dmesg())
    vm.kill()

    start, placed = start["cache"], json.loads(placed)["cache"]
    # The image as the next boot mounts it: its journal replayed.
    subprocess.run(["e2fsck", "-f", "-y", image], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    out = os.path.join(os.path.dirname(image), "buf.out")
    subprocess.run(["debugfs", "-R", f"dump /buf {out}", image], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out, "rb") as f:
        survived = page_crcs(f.read())
    assert len(survived) == len(start)
    per = REGION // PAGE
    first, rest = slice(0, per), slice(per, 8 * per)
    assert placed[first] != start[first] and placed[rest] != start[rest]
    assert survived[first] == placed[first]
    assert survived[rest] == start[rest], \
        f"unflushed regions after the cut: {kinds(survived, start, placed, rest)}"
    assert survived[8 * per:] == start[8 * per:]
