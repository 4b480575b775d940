#!/usr/bin/python3
"""make vm-shell: an interactive shell in the test VM, xiw.ko and
xiwperf.ko installed (modprobe xiw, or rdma link add ... type xiw; then
build/cmake/tools/xiwperf server/client). Leave with 'poweroff -f';
Ctrl-A X quits QEMU at once."""
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "vm"))
import xiwvm  # noqa: E402


def main():
    workdir = os.path.join(TOP, "build", "vm", "shell")
    os.makedirs(os.path.join(workdir, "out"), exist_ok=True)
    modules = [os.path.join(TOP, "kmod", "xiw.ko"),
               os.path.join(TOP, "tools", "xiwperf", "kmod", "xiwperf.ko")]
    vm = xiwvm.VM(workdir, modules=modules, mode="shell")
    print("Booting; the shell appears on this terminal. "
          f"Files written to /run/xiw/out land in {workdir}/out.")
    return subprocess.call(vm.qemu_argv())


if __name__ == "__main__":
    sys.exit(main())
