"""NVMe over Fabrics over RDMA on xiw: the kernel's target (nvmet-rdma,
set up through configfs as nvmetcli would) and host (nvme-rdma, connected
with Debian's nvme-cli), as Debian ships them. Documentation/admin.md has
the administrator's version.

Both ULPs make their RDMA CM ids in the initial network namespace only:
across two guests each end is a guest's initial namespace; in one kernel
they share it (the caller provides the addresses, e.g. iser.py's NET_UP).

The namespace is a file in the target's /tmp (tmpfs) served with
buffered I/O (tmpfs takes no O_DIRECT on 6.1); the host checks what it
wrote with fio's own verification (a checksum in every block, read back).
"""
import json
import shlex

from conftest import wait_until

NQN = "nqn.2014-08.org.example:xiw-nvmeof"
PORT = 4420
IMAGE = "/tmp/nvmet-ns.img"
NVMET = "/sys/kernel/config/nvmet"
MIB = 1 << 20


def target_up(vm, addr, family="ipv4", mib=64, port_id=1):
    """A subsystem that admits any host, one namespace of mib MiB, and an
    RDMA port on addr (an IPv4 or IPv6 address of family) that offers
    it."""
    sub = f"{NVMET}/subsystems/{NQN}"
    p = f"{NVMET}/ports/{port_id}"
    vm.run(f"""set -e
modprobe nvmet-rdma
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
truncate -s {mib * MIB} {IMAGE}
mkdir {sub}
echo 1 > {sub}/attr_allow_any_host
mkdir {sub}/namespaces/1
echo -n {IMAGE} > {sub}/namespaces/1/device_path
echo 1 > {sub}/namespaces/1/buffered_io
echo 1 > {sub}/namespaces/1/enable
mkdir {p}
echo rdma > {p}/addr_trtype
echo {family} > {p}/addr_adrfam
echo {addr} > {p}/addr_traddr
echo {PORT} > {p}/addr_trsvcid
ln -s {sub} {p}/subsystems/{NQN}""", timeout=180)


def port_down(vm, port_id=1):
    """The port stops offering the subsystem and goes: the target ends
    every connection made through it."""
    p = f"{NVMET}/ports/{port_id}"
    vm.run(f"rm -f {p}/subsystems/{NQN}; rmdir {p}", timeout=120)


def target_down(vm):
    """Whatever target_up() made, gone (what is not there is skipped), and
    the target's modules unloaded."""
    sub = f"{NVMET}/subsystems/{NQN}"
    vm.run(f"""if [ -d {NVMET} ]; then
for p in {NVMET}/ports/*; do
    [ -d "$p" ] || continue
    rm -f "$p"/subsystems/*; rmdir "$p"
done
if [ -d {sub} ]; then
    echo 0 > {sub}/namespaces/1/enable 2>/dev/null
    rmdir {sub}/namespaces/1 2>/dev/null
    rmdir {sub}
fi
fi
modprobe -r nvmet-rdma nvmet 2>/dev/null
rm -f {IMAGE}
true""", timeout=180, check=False)


def connect(vm, addr, *opts):
    """nvme connect over RDMA; return the namespace's block device once
    it appears (no udev in the guest: the kernel names it)."""
    vm.run("modprobe nvme-rdma")
    vm.run(f"nvme connect -t rdma -a {shlex.quote(addr)} -s {PORT} "
           f"-n {NQN} " + " ".join(opts), timeout=180)
    wait_until(vm, f"for c in /sys/class/nvme/nvme*; do "
                   f"grep -qx {NQN} $c/subsysnqn && "
                   f"ls -d /sys/block/${{c##*/}}n1 && exit 0; done; exit 1",
               "the NVMe namespace's block device appears")
    out = vm.run(f"for c in /sys/class/nvme/nvme*; do "
                 f"grep -qx {NQN} $c/subsysnqn && echo ${{c##*/}}; "
                 f"done").out.split()
    assert len(out) == 1, out
    return out[0]


def disconnect(vm):
    """Every controller of the subsystem gone from the host, and the host
    modules unloaded."""
    vm.run(f"nvme disconnect -n {NQN} > /dev/null 2>&1; "
           "modprobe -r nvme-rdma nvme-fabrics 2>/dev/null; true",
           timeout=180, check=False)


def controllers(vm):
    """The host's controllers of the subsystem: {name: state}."""
    out = vm.run(f"for c in /sys/class/nvme/nvme*; do "
                 f"[ -e $c/subsysnqn ] && grep -qx {NQN} $c/subsysnqn && "
                 f"echo ${{c##*/}} $(cat $c/state); done; true").out
    return dict(line.split() for line in out.splitlines())


def fio_args(dev, rw, mib, depth=16, bs="4k", verify=True):
    """fio writing mib MiB through O_DIRECT async I/O; with verify, a
    CRC32C in every block, all read back and checked."""
    check = "--verify=crc32c --verify_fatal=1 --do_verify=1 " \
        if verify else ""
    return (f"fio --name=xiw --filename=/dev/{dev}n1 --ioengine=libaio "
            f"--direct=1 --rw={rw} --bs={bs} --iodepth={depth} "
            f"--size={mib}M {check}--output-format=json")


def fio(vm, dev, rw="randwrite", mib=16, depth=16, timeout=600):
    """Run fio_args(); return its JSON job result, asserting no error."""
    res = vm.run(fio_args(dev, rw, mib, depth), timeout=timeout,
                 check=False)
    assert res.rc == 0, res
    job = json.loads(res.out[res.out.index("{"):])["jobs"][0]
    assert job["error"] == 0, job
    return job
