#!/usr/bin/python3
"""make demo: boot the test VM, create xiw devices on two hosts, show them,
and say plainly what xiw can and cannot do yet."""
import os
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "vm"))
import xiwvm  # noqa: E402

XIWCTL = os.path.join(TOP, "build", "cmake", "tools", "xiwctl")


def show(vm, title, cmd):
    print(f"\n$ {title}")
    res = vm.run(cmd, check=False)
    print((res.out + res.err).rstrip() or "(no output)")
    return res


def main():
    workdir = os.path.join(TOP, "build", "vm", "demo")
    os.makedirs(workdir, exist_ok=True)
    print("Booting the Debian 6.12 kernel under QEMU (TCG)...")
    t0 = time.monotonic()
    with xiwvm.VM(workdir) as vm:
        print(f"VM up in {time.monotonic() - t0:.1f}s: "
              + vm.run("uname -r").out.strip())
        vm.run("""
            ip netns add hostA && ip netns add hostB &&
            ip link add v0 netns hostA type veth peer v1 netns hostB &&
            ip -n hostA addr add 192.0.2.1/24 dev v0 &&
            ip -n hostB addr add 192.0.2.2/24 dev v1 &&
            ip -n hostA link set v0 up && ip -n hostB link set v1 up""")
        print("\nTwo hosts: netns hostA (v0, 192.0.2.1) and hostB (v1, 192.0.2.2), "
              "joined by a veth pair.")
        show(vm, "lsmod | grep xiw   # not loaded yet",
             "lsmod | grep '^xiw' || echo '(xiw not loaded)'")
        show(vm, "ip netns exec hostA rdma link add xiw0 type xiw netdev v0",
             "ip netns exec hostA rdma link add xiw0 type xiw netdev v0 && "
             "lsmod | grep '^xiw' | sed 's/^/autoloaded: /'")
        show(vm, "ip netns exec hostB xiwctl link add xiw1 netdev v1",
             f"ip netns exec hostB {XIWCTL} link add xiw1 netdev v1")
        show(vm, "ip netns exec hostA rdma link show",
             "ip netns exec hostA rdma link show")
        show(vm, "rdma dev show", "rdma dev show")
        show(vm, "xiwctl -j -p dev show xiw0", f"{XIWCTL} -j -p dev show xiw0")
        show(vm, "rdma link add xiw2 type xiw netdev v0   # twice on one netdev",
             "ip netns exec hostA rdma link add xiw2 type xiw netdev v0")
        show(vm, "ip -n hostA link set v0 down; rdma link show xiw0/1",
             "ip -n hostA link set v0 down; rdma link show xiw0/1")
        show(vm, "ip netns del hostB   # destroys the veth pair: both devices go",
             "ip netns del hostB; for i in $(seq 50); do "
             "rdma link show | grep -q xiw || break; sleep 0.1; done; "
             "echo \"devices left: $(rdma link show | wc -l)\"")
        vm.run("ip link add d0 type dummy && ip link set d0 up")
        show(vm, "rdma link add xiwd type xiw netdev d0", "rdma link add xiwd type xiw netdev d0 && rdma link show")
        show(vm, "modprobe -r xiw   # with xiwd still present",
             "modprobe -r xiw && echo \"devices left: $(rdma link show | wc -l)\"")
        bad = xiwvm.VM.bad_lines(vm.new_dmesg())

    print("\nWhat works today:")
    print("  - xiw.ko: 'rdma link add/delete', autoload, netdev/netns removal, "
          "rmmod with devices, link state, MAC-derived GID/GUID")
    print("  - xiwctl: dev show (text/JSON), link add/delete over RDMA netlink")
    print("Not yet (see the issues): connections and the RDMAP data path "
          "(Send/Write/Read), memory registration, RFC 7306 atomics and "
          "immediate data, Flush/Atomic Write/Verify, xiw netlink family.")
    print("The device does not yet offer kernel verbs, so ULPs leave it alone.")
    if bad:
        print("\nKERNEL PROBLEMS:\n" + "\n".join(bad))
        return 1
    print("\nKernel log: no warnings.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
