#!/usr/bin/env python3
"""make bench: boot the guest once, run the matrix (bench/xiwbench.py) and
write the report and plots to bench/results/ (or --out). --smoke runs a
few cells only, to prove the tooling."""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
sys.path.insert(0, HERE)

import report  # noqa: E402
import two_kernels  # noqa: E402
import xiwbench  # noqa: E402
from conftest import (TOP, Guest, build_siw, default_modules,  # noqa: E402
                      pair_modules)
from two_guests import GuestPair  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--no-wire", action="store_true",
                    help="leave out the two-guest column")
    ap.add_argument("--devices", default=",".join(
        d.name for d in xiwbench.DEVICES),
        help="comma-separated subset of " +
             ", ".join(d.name for d in xiwbench.DEVICES))
    args = ap.parse_args()
    if os.environ.get("XIW_VM_KERNEL"):
        ap.error("XIW_VM_KERNEL is set: no figure comes from the debug "
                 "kernel (unset it)")
    want = args.devices.split(",")
    devices = [d for d in xiwbench.DEVICES if d.name in want]
    if len(devices) != len(want):
        ap.error(f"unknown device in {args.devices}")
    guest = Guest(default_modules(build_siw()))
    try:
        def reboot():
            """A device took the guest down (its oops is in the report)."""
            guest.vm.kill()
            return guest.ensure()

        rep = xiwbench.run(guest.ensure(), devices, smoke=args.smoke,
                           log=lambda s: print(s, flush=True), reboot=reboot)
        vm = guest.vm
        bad = vm.bad_lines(vm.new_dmesg())
    finally:
        guest.stop()
    if not args.no_wire:
        pair = GuestPair(os.path.join(TOP, "build", "vm", "bench-wire"),
                         pair_modules)
        try:
            pair.start()
            rep["wire"] = two_kernels.run(pair, smoke=args.smoke,
                                   log=lambda s: print(s, flush=True))
            for i, vm in enumerate(pair.vms):
                bad += [f"guest {i}: {ln}"
                        for ln in vm.bad_lines(vm.new_dmesg())]
        finally:
            pair.stop()
    files = report.write(rep, args.out)
    print(f"wrote {', '.join(files)} in {args.out}")
    for t in rep["targets"]:
        print(f"target {t['target']}: {t['ratio']} ({t['bound']}) "
              f"met={t['met']}")
    if bad:
        print("kernel reported problems:\n" + "\n".join(bad))
        return 1
    # Another device's failure is its own (stock siw has crashed the
    # guest under load); xiw's, or any in a smoke run, is ours.
    failed = [r for r in rep["results"] + (rep.get("wire") or {}).get(
        "results", []) if "error" in r]
    for r in failed:
        print(f"failed: {xiwbench.summary_line(r)}")
    ours = [r for r in failed if args.smoke or r["device"].startswith("xiw")]
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
