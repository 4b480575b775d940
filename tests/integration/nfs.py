"""An NFS over RDMA server (svcrdma) and client (xprtrdma) in the guest,
as Debian ships them, each in a network namespace of its own or in the
initial one.

Setup traps (see also Documentation/testing.md): the guest's /var/lib is a
fresh tmpfs, so NFS state directories are made there; nsenter (not
"ip netns exec", which unshares the mount namespace) runs the daemons so
that the nfsd filesystem mounted for the server stays visible; static
neighbour entries spare xprtrdma's address resolution the ARP round trip;
"rpc.nfsd -G 10 -L 10" shortens the grace period NFSv4 waits out.
"""
import os

from conftest import TOP, wait_until

EXPORT = "/tmp/nfs-export"
MNT = "/tmp/nfs-mnt"
PORT = 20049
RIO = os.path.join(TOP, "tests", "integration", "rio.py")


def enter(ns):
    """The prefix that runs a command in netns ns (None: the initial one)."""
    return f"nsenter --net=/run/netns/{ns} " if ns else ""


def veth_root_and_b(vm):
    """v0 (192.0.2.1) in the initial namespace, v1 (192.0.2.2) in b, with
    static neighbour entries."""
    vm.run("""ip netns add b && ip link add v0 type veth peer v1 netns b &&
ip -batch - <<'R' && ip -n b -batch - <<'B'
addr add 192.0.2.1/24 dev v0
link set v0 up
R
addr add 192.0.2.2/24 dev v1
link set v1 up
link set lo up
B
set -- $(ip -br link show v0) && ma=$3 &&
set -- $(ip -n b -br link show v1) && mb=$3 &&
ip neigh replace 192.0.2.2 lladdr $mb dev v0 &&
ip -n b neigh replace 192.0.2.1 lladdr $ma dev v1""")


def dummy_netns(vm, ns, addr):
    """Namespace ns with a dummy netdev d0 holding addr: a host alone."""
    vm.run(f"""ip netns add {ns} && ip -n {ns} -batch - <<'C'
link add d0 type dummy
addr add {addr}/24 dev d0
link set d0 up
link set lo up
C""")


class Nfs:
    """A server exporting a tmpfs at EXPORT to client_addr over TCP and
    RDMA (port 20049) in server_ns; the client mounts it at MNT in
    client_ns. Namespaces are names, None for the initial one. The
    server runs in vm, the client in client_vm (another guest, across a
    wire) or, by default, in vm too."""

    def __init__(self, vm, server_ns, server_addr, client_ns, client_addr,
                 client_dev, client_vm=None):
        self.vm = vm
        self.cvm = client_vm or vm
        self.S = enter(server_ns)
        self.C = enter(client_ns)
        self.client_ns = client_ns
        self.server_addr = server_addr
        self.client_addr = client_addr
        self.client_dev = client_dev

    def start(self):
        vm, S = self.vm, self.S
        vm.run("modprobe nfsd && modprobe rpcrdma")
        vm.run("mkdir -p /var/lib/nfs/sm /var/lib/nfs/sm.bak "
               "/var/lib/nfs/v4recovery && touch /var/lib/nfs/etab "
               f"/var/lib/nfs/rmtab && mkdir -p {EXPORT} {MNT} && "
               f"mount -t tmpfs tmpfs {EXPORT}")
        if self.cvm is not vm:
            self.cvm.run(f"modprobe rpcrdma && mkdir -p {MNT}")
        vm.run(f"{S}rpcbind -w && {S}mount -t nfsd nfsd /proc/fs/nfsd && "
               f"{S}exportfs -o rw,no_root_squash,insecure,fsid=0 "
               f"{self.client_addr}:{EXPORT} && "
               f"{S}rpc.nfsd -G 10 -L 10 4 && {S}rpc.mountd && "
               f"{S}sh -c 'echo rdma {PORT} > /proc/fs/nfsd/portlist'")
        return self

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        S = self.S
        if self.cvm is not self.vm:
            self.cvm.run(f"umount -f {MNT} 2>/dev/null; true", timeout=120,
                         check=False)
        self.vm.run(f"umount -f {MNT} 2>/dev/null; {S}rpc.nfsd 0; "
                    f"{S}exportfs -ua; pkill -x rpc.mountd; pkill -x rpcbind; "
                    f"umount /proc/fs/nfsd; umount {EXPORT}; true",
                    timeout=120, check=False)

    def mount(self, vers, extra=""):
        """Mount the export over RDMA with NFS version vers ("3", "4.2")."""
        # An IPv6 server address goes in brackets, with proto=rdma6.
        host = f"[{self.server_addr}]" if ":" in self.server_addr \
            else self.server_addr
        if vers == "3":
            src, opts = f"{host}:{EXPORT}", "vers=3,nolock"
        else:
            src, opts = f"{host}:/", f"vers={vers}"
        proto = "rdma6" if ":" in self.server_addr else "rdma"
        self.cvm.run(f"{self.C}mount -t nfs -o {opts},proto={proto},"
                     f"port={PORT}"
                     f"{',' + extra if extra else ''} {src} {MNT}",
                     timeout=180)
        mounts = self.cvm.run(f"grep ' {MNT} ' /proc/mounts").out
        assert f"proto={proto}" in mounts, mounts
        assert self.client_qps() > 0

    def client_qps(self):
        """QPs of the client's device ("rdma resource" where it lives)."""
        out = self.cvm.run(f"{self.C}rdma -j resource show qp").out
        return out.count(f'"ifname":"{self.client_dev}"')

    def umount(self):
        """Unmount; the client's connection (its QPs) goes with it."""
        self.cvm.run(f"{self.C}umount {MNT}", timeout=120)
        wait_until(self.cvm, f"test $({self.C}rdma -j resource show qp | "
                            f"grep -c '\"ifname\":\"{self.client_dev}\"') "
                            "-eq 0", "the client's QPs are gone")

    def write_then_read_back(self, size, name="f", bs="1M"):
        """Write size bytes of random data through the mount with O_DIRECT
        where the size allows it, check the server's copy, then read it
        back with the client's page cache dropped, and check that; return
        the seconds dd took each way (from dd's own report)."""
        vm, C = self.cvm, self.C
        src, back = f"/tmp/nfs-src-{name}", f"/tmp/nfs-back-{name}"
        vm.run(f"head -c {size} /dev/urandom > {src}")
        direct = size % 4096 == 0
        oflag = "oflag=direct" if direct else "conv=fsync"
        iflag = "iflag=direct" if direct else ""
        w = vm.run(f"{C}dd if={src} of={MNT}/{name} bs={bs} {oflag} 2>&1 "
                   "| tail -n1", timeout=600).out
        self.same_on_server(src, f"{EXPORT}/{name}")
        vm.run("echo 3 > /proc/sys/vm/drop_caches")
        r = vm.run(f"{C}dd if={MNT}/{name} of={back} bs={bs} {iflag} 2>&1 "
                   "| tail -n1", timeout=600).out
        vm.run(f"cmp {src} {back} && rm -f {src} {back}")
        return dd_seconds(w), dd_seconds(r)

    def each_version_moves_data(self, size):
        """Mount with NFSv3, then v4.2: each moves size bytes both ways
        (write_then_read_back()) and lets its connection go."""
        for vers in ("3", "4.2"):
            self.mount(vers)
            self.write_then_read_back(size, name=f"v{vers}")
            self.umount()

    def random_io(self, size, ops, seed):
        """rio.py on a file of the mount; the server's copy must then be
        what the checker's model says."""
        out = self.cvm.run(f"{self.C}/usr/bin/python3 -S {RIO} {MNT}/rio "
                           f"{size} {ops} {seed} /tmp/rio-model",
                           timeout=600).out
        assert out.strip() == f"ok {ops}", out
        self.same_on_server("/tmp/rio-model", f"{EXPORT}/rio")

    def same_on_server(self, local, remote):
        """The client's file local and the server's remote hold the same
        bytes (cmp in one guest; SHA-256 on each side across a wire)."""
        if self.cvm is self.vm:
            self.vm.run(f"cmp {local} {remote}")
            return
        mine = self.cvm.run(f"sha256sum < {local}").out.split()[0]
        theirs = self.vm.run(f"sha256sum < {remote}").out.split()[0]
        assert mine == theirs, (local, remote)


def dd_seconds(report):
    """The seconds in dd's last line ("... copied, 1.23 s, 54 MB/s")."""
    for part in report.split(","):
        part = part.strip()
        if part.endswith(" s"):
            return float(part[:-2])
    raise AssertionError(f"no time in dd's report: {report!r}")
