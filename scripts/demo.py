#!/usr/bin/python3
"""make demo: boot the test VM, create xiw devices on two hosts, show them,
and say plainly what xiw can and cannot do yet."""
import json
import os
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "vm"))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
import xiwvm  # noqa: E402
from nfs import Nfs  # noqa: E402

XIWCTL = os.path.join(TOP, "build", "cmake", "tools", "xiwctl")
XIWPERF = os.path.join(TOP, "build", "cmake", "tools", "xiwperf")
XIWPERF_KO = os.path.join(TOP, "tools", "xiwperf", "kmod", "xiwperf.ko")


def status():
    """README's status list (between its status markers): the one place
    that says what works and what does not yet, printed as it stands."""
    with open(os.path.join(TOP, "README.md")) as f:
        text = f.read()
    body = text.split("<!-- status -->\n", 1)[1].split("<!-- /status -->", 1)[0]
    return body.replace("`", "").rstrip()


def veth_hosts(vm, a, b):
    """Two hosts: namespaces a[0] and b[0] joined by a veth pair whose ends
    a[1], b[1] hold the addresses a[2], b[2] (/24), loopback up."""
    (na, da, aa), (nb, db, ab) = a, b
    vm.run(f"""
        ip netns add {na} && ip netns add {nb} &&
        ip link add {da} netns {na} type veth peer {db} netns {nb} &&
        ip -n {na} addr add {aa}/24 dev {da} && ip -n {nb} addr add {ab}/24 dev {db} &&
        ip -n {na} link set {da} up && ip -n {nb} link set {db} up &&
        ip -n {na} link set lo up && ip -n {nb} link set lo up""")


def show(vm, title, cmd):
    print(f"\n$ {title}")
    res = vm.run(cmd, check=False)
    print((res.out + res.err).rstrip() or "(no output)")
    return res


def exchange(vm):
    """A short live exchange of every operation xiw supports, checked."""
    print("\nLive exchange, hostA -> hostB, every byte verified (xiwperf --check):")
    vm.run("modprobe xiwperf")
    vm.run(f"(ip netns exec hostB {XIWPERF} server --addr 192.0.2.2 "
           f"> /tmp/srv.log 2>&1 &); for i in $(seq 100); do "
           f"grep -q listening /tmp/srv.log && break; sleep 0.2; done")
    print(f"  {'op':5} {'size':>8} {'count':>6} {'depth':>5}  result")
    for op, size, count, depth in (("read", 65536, 200, 16),
                                   ("send", 4096, 500, 16),
                                   ("write", 1 << 20, 20, 4)):
        res = vm.run(f"ip netns exec hostA {XIWPERF} client --addr 192.0.2.2 "
                     f"--op {op} --size {size} --count {count} --depth {depth} "
                     f"--check --json", check=False, timeout=300)
        try:
            r = json.loads(res.out.strip().splitlines()[-1])
            verdict = ("data verified" if r["data_ok"] else
                       "DATA MISMATCH" if r["data_ok"] is False else
                       r.get("error", "failed"))
            print(f"  {op:5} {size:>8} {count:>6} {depth:>5}  {verdict}, "
                  f"{r['gbit_per_s']:.2f} Gbit/s, p50 {r['lat_us']['p50']:.0f} us "
                  f"(TCG: not hardware figures)")
        except (ValueError, IndexError, KeyError):
            print(f"  {op:5} FAILED: {(res.out + res.err).strip()[:200]}")
    show(vm, "ip netns exec hostA xiwperf probe --addr 192.0.2.2   # the peer's extensions",
         f"ip netns exec hostA {XIWPERF} probe --addr 192.0.2.2")
    vm.run("pkill -f 'xiwperf server'; sleep 0.5", check=False)


def nfs(vm):
    """NFSv4.2 over RDMA on xiw: the kernel's own server and client, in two
    namespaces of their own (nfsA, nfsB), their devices left for the
    module's unload to remove."""
    veth_hosts(vm, ("nfsA", "n0", "198.51.100.1"), ("nfsB", "n1", "198.51.100.2"))
    vm.run("ip netns exec nfsA rdma link add xiw2 type xiw netdev n0 && "
           "ip netns exec nfsB rdma link add xiw3 type xiw netdev n1")
    print("\nNFSv4.2 over RDMA (svcrdma in nfsB on xiw3, xprtrdma in nfsA on xiw2), "
          "16 MiB each way, compared byte for byte:")
    with Nfs(vm, "nfsB", "198.51.100.2", "nfsA", "198.51.100.1", "xiw2") as n:
        n.mount("4.2")
        print("  " + vm.run("grep nfs-mnt /proc/mounts").out.strip()[:110] + "...")
        w, r = n.write_then_read_back(16 << 20)
        print(f"  write {16 / w:.1f} MiB/s, read {16 / r:.1f} MiB/s, data identical "
              "(TCG: not hardware figures)")
        n.umount()


def main():
    workdir = os.path.join(TOP, "build", "vm", "demo")
    os.makedirs(workdir, exist_ok=True)
    print("Booting the Debian 6.12 kernel under QEMU (TCG)...")
    t0 = time.monotonic()
    modules = [os.path.join(TOP, "kmod", "xiw.ko"), XIWPERF_KO]
    with xiwvm.VM(workdir, modules=modules) as vm:
        print(f"VM up in {time.monotonic() - t0:.1f}s: "
              + vm.run("uname -r").out.strip())
        veth_hosts(vm, ("hostA", "v0", "192.0.2.1"), ("hostB", "v1", "192.0.2.2"))
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
        exchange(vm)
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
        nfs(vm)
        show(vm, "modprobe -r xiw   # with xiwd, xiw2 and xiw3 still present",
             "modprobe -r xiw && echo \"devices left: $(rdma link show | wc -l)\"")
        bad = xiwvm.VM.bad_lines(vm.new_dmesg())

    print()
    print(status())
    if bad:
        print("\nKERNEL PROBLEMS:\n" + "\n".join(bad))
        return 1
    print("\nKernel log: no warnings.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
