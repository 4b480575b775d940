#!/usr/bin/env python3
"""Profile one xiwperf cell inside the test VM: perf record (the
cpu-clock software event, sampled on every CPU with call graphs; TCG has
no hardware counters) around one client run over xiw, then perf report's
hottest kernel symbols, and the callers of the hottest xiw ones.

  bench/profile.py [--op write] [--size 65536] [--depth 64] [--count N]
                   [--crc off|required] [--device xiw|siw] [--top 30]

Under TCG a sample is taken when the timer interrupt can be delivered:
time spent with interrupts off is charged to the point where they come
back on (_raw_spin_unlock_irqrestore, handle_softirqs), and idle CPUs
show as pv_native_safe_halt. Documentation/performance.md has what it
found."""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
sys.path.insert(0, HERE)

import xiwbench  # noqa: E402
from conftest import Guest, build_siw, default_modules  # noqa: E402
from xiwperf_run import start_server, stop_server  # noqa: E402

DATA = "/tmp/xiw-profile.data"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--op", default="write")
    ap.add_argument("--size", type=int, default=65536)
    ap.add_argument("--depth", type=int, default=64)
    ap.add_argument("--qps", type=int, default=1)
    ap.add_argument("--count", type=int)
    ap.add_argument("--crc", choices=("off", "required"), default="off")
    ap.add_argument("--device", choices=("xiw", "siw"), default="xiw")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    if os.environ.get("XIW_VM_KERNEL"):
        ap.error("XIW_VM_KERNEL is set: no figure comes from the debug "
                 "kernel (unset it)")
    dev = (xiwbench.xiw_device(args.crc == "required")
           if args.device == "xiw" else xiwbench.SIW)
    count = args.count or xiwbench.op_count(args.size, args.depth, args.qps,
                                            budget=256 << 20)
    guest = Guest(default_modules(build_siw()))
    try:
        vm = xiwbench.hosts(guest.ensure())
        vm.run(dev.up)
        srv = start_server(vm, dev.server_ns, dev.addr, "profile")
        run = vm.run(f"perf record -q -o {DATA} -e cpu-clock -F 999 -a -g -- "
                     + dev.client("--op", args.op, "--size", args.size,
                                  "--depth", args.depth, "--qps", args.qps,
                                  "--count", count),
                     check=False, timeout=1800)
        print(run.out.strip().splitlines()[-1] if run.out.strip() else run)
        report = (f"perf report -i {DATA} --no-children --stdio "
                  "--percent-limit 0.5 ")
        rows = vm.run(report + "--sort sym -g none 2>&1 | grep '%'",
                      timeout=600).out.splitlines()
        print("\n".join(rows[:args.top]))
        hot = [ln.split()[-1] for ln in rows if "[k]" in ln]
        for sym in [s for s in hot if s.startswith(("xiw_", "siw_"))][:2] + \
                [s for s in hot if "unlock_irqrestore" in s][:1]:
            print(f"---- who calls {sym}")
            print(vm.run(report + f"--symbols {sym} -g caller,0.5,callee,"
                         "function,percent --max-stack 8 2>&1 | grep -v '^#' "
                         "| grep -v '^$' | head -40", timeout=600).out)
        stop_server(vm, srv)
        bad = vm.bad_lines(vm.new_dmesg())
    finally:
        guest.stop()
    if bad:
        print("kernel reported problems:\n" + "\n".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
