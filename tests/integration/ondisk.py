"""What a file holds in the page cache and what its blocks hold on the
device, page by page: run in the guest as `python3 ondisk.py FILE DEVICE`,
or as `python3 ondisk.py FILE DEVICE OFFSET LENGTH` for the SHA-256 of
that page-aligned range both ways ({"cache": hex, "disk": hex}).

Prints one JSON object: "cache", the CRC-32 of each 4 KiB page of FILE
read through the filesystem (for an xiwperf server backed by FILE, what
its clients placed), and "disk", the CRC-32 of the same page read from
DEVICE with O_DIRECT at the block FIEMAP maps it to (what survives a
power cut), null for a page without a block. The extent map comes from
the filesystem, which answers from its journal too: the device's copy of
the metadata may lag behind."""
import fcntl
import hashlib
import json
import mmap
import os
import struct
import sys
import zlib

PAGE = 4096
FS_IOC_FIEMAP = 0xC020660B
FIEMAP_FLAG_SYNC = 0x1
FIEMAP_EXTENT_UNWRITTEN = 0x800
HEAD = struct.Struct("=QQIIII")         # struct fiemap
EXTENT = struct.Struct("=QQQQQIIII")    # struct fiemap_extent
MAX_EXTENTS = 512


def extents(fd, size):
    """(logical, physical, length, flags) of every extent of the file."""
    out, start = [], 0
    while start < size:
        buf = bytearray(HEAD.size + MAX_EXTENTS * EXTENT.size)
        HEAD.pack_into(buf, 0, start, size - start, FIEMAP_FLAG_SYNC, 0,
                       MAX_EXTENTS, 0)
        fcntl.ioctl(fd, FS_IOC_FIEMAP, buf)
        n = HEAD.unpack_from(buf, 0)[3]
        if not n:
            break
        for i in range(n):
            lo, ph, ln, _, _, fl, _, _, _ = EXTENT.unpack_from(
                buf, HEAD.size + i * EXTENT.size)
            out.append((lo, ph, ln, fl))
        start = out[-1][0] + out[-1][2]
    return out


def pages_both_ways(path, device, digest):
    """digest() of each page of the file: (through the page cache, from
    the device; None for a page without a block)."""
    fd = os.open(path, os.O_RDONLY)
    size = os.fstat(fd).st_size
    pages = size // PAGE
    cache = []
    with os.fdopen(fd, "rb", closefd=False) as f:
        for _ in range(pages):
            cache.append(digest(f.read(PAGE)))
    disk = [None] * pages
    dev = os.open(device, os.O_RDONLY | os.O_DIRECT)
    block = mmap.mmap(-1, PAGE)         # page-aligned, as O_DIRECT wants
    for lo, ph, ln, fl in extents(fd, size):
        for off in range(0, ln, PAGE):
            page = (lo + off) // PAGE
            if page >= pages:
                break
            if fl & FIEMAP_EXTENT_UNWRITTEN:
                disk[page] = digest(bytes(PAGE))
                continue
            os.preadv(dev, [block], ph + off)
            disk[page] = digest(bytes(block))
    os.close(dev)
    os.close(fd)
    return cache, disk


def main(path, device, offset=None, length=None):
    if offset is None:
        cache, disk = pages_both_ways(path, device, zlib.crc32)
        print(json.dumps({"cache": cache, "disk": disk}))
        return
    first, n = int(offset) // PAGE, int(length) // PAGE
    cache, disk = pages_both_ways(path, device, lambda b: b)
    out = {}
    for name, got in (("cache", cache), ("disk", disk)):
        span = got[first:first + n]
        out[name] = None if None in span else \
            hashlib.sha256(b"".join(span)).hexdigest()
    print(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:])
