"""make bench's tooling, end to end on a few cells (bench-smoke): every
device of the matrix comes up, every cell yields figures, the report and
its plots are written. The figures themselves are not judged here: no
timed assertion in a test (make bench is where they are read)."""
import json
import os
import sys

import pytest

from conftest import TOP

sys.path.insert(0, os.path.join(TOP, "bench"))
import report  # noqa: E402
import userspace  # noqa: E402
import xiwbench  # noqa: E402

OUT = os.path.join(TOP, "build", "bench-smoke")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_bench_smoke_measures_every_device_and_writes_the_report(vm):
    rep = xiwbench.run(vm, smoke=True)
    failed = [r for r in rep["results"] if "error" in r]
    assert not failed, failed
    kinds = {r["device"] for r in rep["results"]}
    assert kinds == {"tcp"} | {d.name for d in xiwbench.DEVICES}
    for r in rep["results"]:
        assert r["gbit_per_s"] > 0 and r["cpu_s_per_gib"] > 0, r
    # perftest from userspace: each tool on each device, with its figures.
    user = rep["userspace"]
    assert not [r for r in user if "error" in r], user
    assert {(r["device"], r["tool"]) for r in user} == {
        (d.name, t[0]) for d in userspace.USER_DEVICES
        for t in userspace.TOOLS}
    for r in user:
        assert (r["mb_s"] > 0 if "mb_s" in r else r["t_typical_us"] > 0), r
    # Every target but the unmeasured memory one has its ratio.
    assert [t["ratio"] is None for t in rep["targets"]].count(True) == 1, \
        rep["targets"]
    files = report.write(rep, OUT)
    assert set(files) == {"results.json", "results.md", "throughput.png",
                          "latency.png", "scaling.png"}
    with open(os.path.join(OUT, "results.json")) as f:
        assert json.load(f)["results"] == rep["results"]
    for png in files[2:]:
        with open(os.path.join(OUT, png), "rb") as f:
            assert f.read(8) == PNG_MAGIC, png
    with open(os.path.join(OUT, "results.md")) as f:
        md = f.read()
    assert "not hardware figures" in md and "## Targets" in md
    assert "## Userspace: perftest" in md


# make interop's: stock siw's WRITE 64 KiB at depth 64 across the wire
# stalled ("no progress for 30 s") in 2 of 6 runs on 2026-11-28, in
# siw-to-siw cells, and a test that fails on another driver's stall does
# not belong in make check. Its assertions are unchanged.
@pytest.mark.interop
def test_bench_wire_column_measures_each_device_across_two_kernels(
        two_guests):
    """make bench's two-guest column (bench/two_kernels.py), smoke-sized:
    TCP, xiw and stock siw each give figures for every cell across the wire,
    and the report has its section."""
    import two_kernels as wire
    rep = wire.run(two_guests, smoke=True)
    res = rep["results"]
    assert not [r for r in res if "error" in r], res
    assert {r["device"] for r in res} == {"tcp", *wire.KINDS}
    assert len(res) == 1 + len(wire.KINDS) * len(wire.CELLS) + 2, res
    assert {r["device"] for r in res if "netem" in r} == {"tcp", "xiw"}
    for r in res:
        assert r["gbit_per_s"] > 0, r
    md = "\n".join(wire.markdown(rep))
    assert "## Two kernels on a wire" in md and "failed" not in md, md
    assert "40 ms round trip" in md, md
