#!/usr/bin/python3
"""make vm-shell: an interactive shell in the test VM, xiw.ko installed
(modprobe xiw, or rdma link add ... type xiw). Leave with 'poweroff -f';
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
    vm = xiwvm.VM(workdir, mode="shell")
    print("Booting; the shell appears on this terminal. "
          f"Files written to /run/xiw/out land in {workdir}/out.")
    return subprocess.call(vm.qemu_argv())


if __name__ == "__main__":
    sys.exit(main())
