"""RDMA Flush to persistence of a file: the xiwperf server's buffer is a
file on an ext4 filesystem on a virtio disk (xiwperf server --backing
file:PATH), so what clients write lands in the file's page cache, which
an RDMA Write does not mark dirty. xiw's file persistence domain makes a
Flush store the range: it marks the folios dirty, writes them back, waits,
syncs the inode and flushes the disk's cache (Documentation/commit-draft.md).

The oracle reads the disk itself: each page of the file as the filesystem
shows it (the page cache, what was placed) against the block it maps to
read from /dev/vda with O_DIRECT (ondisk.py). The server fsyncs the file
after filling it: at start the disk holds the page cache's content."""
import json
import os

import pytest

from capture import capture, rdmap_terminates
from conftest import TOP
from xiwperf_run import (client, counted, hw_counters, start_server,
                         stop_server)

SERVER = "192.0.2.2"
PORT = 18517
FRWR = ("--remote-mr", "frwr")
DEVICE = "/dev/vda"
MNT = "/run/xiw/disk"
ONDISK = os.path.join(TOP, "tests", "integration", "ondisk.py")


@pytest.fixture
def disk(vm):
    """A fresh ext4 filesystem on the scratch disk, mounted at MNT."""
    vm.run(f"modprobe virtio_blk && modprobe ext4 && "
           f"for i in $(seq 100); do [ -b {DEVICE} ] && break; sleep 0.1; "
           f"done && mkfs.ext4 -q -F {DEVICE} && mkdir -p {MNT} && "
           f"mount {DEVICE} {MNT}")
    yield MNT
    vm.run(f"umount {MNT}")


def backed_server(vm, path, tag, dev="xiw1"):
    log = start_server(vm, "b", SERVER, tag, "--backing", f"file:{path}",
                       port=PORT, json_out=True)
    listening = json.loads(vm.run(f"head -1 {log}").out)
    assert listening["backing"] == f"file:{path}", listening
    assert listening["device"] == dev, listening
    return log


@pytest.fixture
def file_server(pair, disk):
    """An xiwperf server in b whose buffer is the file MNT/buf."""
    log = backed_server(pair, f"{disk}/buf", "file")
    yield pair
    stats = stop_server(pair, log)
    assert stats["errors"] == 0, stats


def pages(vm, path=f"{MNT}/buf"):
    """(page cache, disk): the CRC of each page of the file, both ways."""
    got = json.loads(vm.run(f"python3 -S {ONDISK} {path} {DEVICE}").out)
    return got["cache"], got["disk"]


def region_sha256(vm, offset, length, path=f"{MNT}/buf"):
    """(page cache, disk): the SHA-256 of a range of the file, both ways."""
    got = json.loads(vm.run(f"python3 -S {ONDISK} {path} {DEVICE} {offset} "
                            f"{length}").out)
    return got["cache"], got["disk"]


def run(vm, op, count, *args, size=65536, depth=4, qps=2, check=True):
    return client(vm, "a", SERVER, "--op", op, "--count", count, "--size",
                  size, "--depth", depth, "--qps", qps, *FRWR, *args,
                  port=PORT, check=check)


def changed(before, after):
    return {i for i, (a, b) in enumerate(zip(before, after)) if a != b}


def test_server_starts_with_the_file_on_disk(file_server):
    """The server's read pattern fills the file, and its fsync put it on
    the disk: every page has its block, with the same content."""
    cache, on_disk = pages(file_server)
    assert len(cache) == (16 << 20) // 4096
    assert cache == on_disk
    assert len(set(cache)) > 1          # the pattern, not zeros


@pytest.mark.parametrize("level", ["--range", "--whole-mr"])
def test_flush_to_persistence_puts_what_was_written_on_disk(file_server,
                                                             level):
    """64 Writes of 64 KiB, each followed by a Flush to persistence of its
    region (or of its whole chunk MR), 2 QPs 4 deep: every Flush completes,
    the data reads back, and afterwards every page the Writes changed is
    on the disk as in the page cache."""
    cache0, _ = pages(file_server)
    before = hw_counters(file_server, "xiw1")
    rc, r = run(file_server, "flush", 64, "--persist", level, "--check")
    assert r["completed"] == 64 and r["mismatches"] == 0, r
    n = counted(before, hw_counters(file_server, "xiw1"))
    assert n["flush_file"] == 64 and n["flush_pmem"] == 0, n
    assert n["file_writeback_bytes"] >= 64 * 65536, n
    cache, on_disk = pages(file_server)
    assert len(changed(cache0, cache)) >= 65536 // 4096
    assert changed(on_disk, cache) == set()


def test_verify_of_flushed_data_hashes_what_the_disk_holds(file_server):
    """Writes each followed by a Flush to persistence, all to the first
    region (one QP, one deep); then a Verify of that region without a
    Write, carrying the SHA-256 of the region's blocks as read from the
    disk: the server's hash over what it holds matches, and the Verify
    completes. The same Verify expecting a hash one bit off is refused:
    what matched was the data, not any hash."""
    rc, r = run(file_server, "flush", 8, "--persist", "--check", qps=1,
                depth=1)
    assert r["completed"] == 8 and r["mismatches"] == 0, r
    cache, on_disk = region_sha256(file_server, 0, 65536)
    assert cache == on_disk, (cache, on_disk)

    def verify(expect):
        return run(file_server, "verify", 1, "--hash", "sha256",
                   "--no-write", "--expect", expect, qps=1, depth=1,
                   check=False)
    rc, r = verify(on_disk)
    assert rc == 0 and r["completed"] == 1 and r["errors"] == 0, r.get("error")
    assert r["verify"] == {"hash": "sha256", "expect": on_disk,
                           "write": False}, r
    wrong = f"{int(on_disk[:2], 16) ^ 1:02x}{on_disk[2:]}"
    rc, r = verify(wrong)
    assert rc == 1 and r["wc_status"] == "REM_INV_REQ_ERR", r


def test_writes_without_flush_stay_off_the_disk(file_server):
    """The same Writes without a Flush change the page cache only: the
    pages were clean and placement does not dirty them, so nothing takes
    them to the disk. (What makes the Flush test above mean something.)"""
    cache0, disk0 = pages(file_server)
    rc, r = run(file_server, "write", 64, "--check")
    assert r["completed"] == 64 and r["mismatches"] == 0, r
    cache, on_disk = pages(file_server)
    assert len(changed(cache0, cache)) >= 65536 // 4096
    assert on_disk == disk0


def test_flush_to_global_visibility_of_a_file_leaves_the_disk(file_server):
    """Global visibility asks for no persistence: it completes, and the
    disk is left as it was."""
    _, disk0 = pages(file_server)
    rc, r = run(file_server, "flush", 16, "--global", "--check")
    assert r["completed"] == 16, r
    assert pages(file_server)[1] == disk0


def test_flush_to_persistence_of_a_tmpfs_file_is_refused(pair):
    """tmpfs keeps its pages in memory: no persistence domain, the Flush is
    refused as for plain memory (Remote Protection, access rights 0x02),
    the run fails cleanly."""
    log = backed_server(pair, "/tmp/xiw-buf", "tmpfs")
    pcap = "/tmp/flush-tmpfs.pcapng"
    got = {}

    def go():
        got["rc"], got["r"] = run(pair, "flush", 1, "--persist", qps=1,
                                  depth=1, check=False)
    try:
        capture(pair, "a", "v0", go, pcap, port=PORT)
    finally:
        stop_server(pair, log)
        pair.run("rm -f /tmp/xiw-buf")
    r = got["r"]
    assert got["rc"] == 1 and r["wc_status"] == "REM_ACCESS_ERR", r
    assert r["wc_unexpected"] == 0 and r["wc_missing"] == 0, r
    assert [t[:4] for t in rdmap_terminates(pair, pcap)] == \
        [(SERVER, 0, 1, 0x02)]


def test_backed_buffer_is_refused_on_siw(xiw_and_siw, disk):
    """Only xiw places into a backed buffer: a server on siw rejects the
    connection, and the client says why."""
    log = backed_server(xiw_and_siw, f"{disk}/buf", "siw", dev="siw0")
    try:
        rc, r = client(xiw_and_siw, "a", SERVER, "--op", "write", "--count",
                       1, "--size", 4096, port=PORT, check=False)
    finally:
        stop_server(xiw_and_siw, log)
    assert rc == 1, r
    assert "only an xiw device serves" in r["error"], r
