#!/usr/bin/python3
"""Random I/O checker, run in the guest on a file system under test.

    rio.py PATH SIZE OPS SEED MODEL

Makes PATH a file of SIZE bytes, then does OPS random writes and reads of
1 byte to 64 KiB at random offsets (from SEED), each write through its
own open with O_DIRECT where the offset and length allow it (aligned to
4 KiB) and buffered otherwise, every read compared with what the writes
so far should have left there (a model kept in memory). The file is
fsync()ed at the end and the model written to MODEL, so that the caller
can compare it with the server's copy. Prints "ok OPS" or the first
difference, and exits 0 or 1.
"""
import mmap
import os
import random
import sys

ALIGN = 4096
MOST = 64 << 10


def aligned_buffer(data):
    """An anonymous mapping (page-aligned, as O_DIRECT wants) holding data."""
    buf = mmap.mmap(-1, max(len(data), ALIGN))
    buf[:len(data)] = data
    return buf


def write_at(path, off, data):
    direct = off % ALIGN == 0 and len(data) % ALIGN == 0
    flags = os.O_WRONLY | (os.O_DIRECT if direct else 0)
    fd = os.open(path, flags)
    try:
        if direct:
            with aligned_buffer(data) as buf:
                view = memoryview(buf)[:len(data)]
                os.pwritev(fd, [view], off)
                view.release()
        else:
            os.pwrite(fd, data, off)
    finally:
        os.close(fd)


def main():
    path, size, ops, seed, model_path = sys.argv[1:6]
    size, ops, seed = int(size), int(ops), int(seed)
    rng = random.Random(seed)
    model = bytearray(rng.randbytes(size))
    with open(path, "wb") as f:
        f.write(model)
    for i in range(ops):
        if rng.random() < 0.25:
            n = rng.choice([ALIGN, 2 * ALIGN, 16 * ALIGN])
            off = rng.randrange(0, size - n + 1, ALIGN)
        else:
            n = rng.randint(1, MOST)
            off = rng.randint(0, size - n)
        if rng.random() < 0.6:
            data = rng.randbytes(n)
            write_at(path, off, data)
            model[off:off + n] = data
        else:
            with open(path, "rb") as f:
                f.seek(off)
                got = f.read(n)
            if got != model[off:off + n]:
                bad = next(j for j in range(n) if j >= len(got) or
                           got[j] != model[off + j])
                print(f"op {i}: read of {n} at {off}: byte {off + bad} "
                      f"differs")
                return 1
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    with open(model_path, "wb") as f:
        f.write(model)
    print(f"ok {ops}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
