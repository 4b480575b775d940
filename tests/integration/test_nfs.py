"""NFS over RDMA (the kernel's xprtrdma client and svcrdma server, as
Debian ships them) over xiw, server and client each in its own network
namespace: the ULPs use fast registration, RDMA Read with Invalidate and
Send with Invalidate, so these runs are the real-world proof of them.

Setup traps (see also Documentation/testing.md): the guest's /var/lib is a
fresh tmpfs, so NFS state directories are made there; nsenter (not
"ip netns exec", which unshares the mount namespace) runs the daemons so
that the nfsd filesystem mounted in b stays visible; static neighbour
entries spare xprtrdma's address resolution the ARP round trip.
"""
import pytest

from capture import capture, tshark
from conftest import wait_until
from xiwperf_run import static_neighbours

SERVER = "192.0.2.2"
A = "nsenter --net=/run/netns/a"
B = "nsenter --net=/run/netns/b"
EXPORT = "/tmp/nfs-export"
MNT = "/tmp/nfs-mnt"
MIB = 32


@pytest.fixture
def nfs_server(hosts):
    """xiw0 in a, xiw1 in b; nfsd (threads, mountd, rpcbind) in b exporting
    a tmpfs to a over TCP and RDMA (port 20049)."""
    vm = hosts
    static_neighbours(vm)
    vm.run("modprobe nfsd && modprobe rpcrdma")
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")
    vm.run("mkdir -p /var/lib/nfs/sm /var/lib/nfs/sm.bak /var/lib/nfs/v4recovery"
           " && touch /var/lib/nfs/etab /var/lib/nfs/rmtab"
           f" && mkdir -p {EXPORT} {MNT} && mount -t tmpfs tmpfs {EXPORT}")
    vm.run(f"{B} rpcbind -w && {B} mount -t nfsd nfsd /proc/fs/nfsd")
    vm.run(f"{B} exportfs -o rw,no_root_squash,insecure,fsid=0 "
           f"192.0.2.1:{EXPORT}")
    vm.run(f"{B} rpc.nfsd -G 10 -L 10 4 && {B} rpc.mountd")
    vm.run(f"{B} sh -c 'echo rdma 20049 > /proc/fs/nfsd/portlist'")
    yield vm
    vm.run(f"umount -f {MNT} 2>/dev/null; {B} rpc.nfsd 0; {B} exportfs -ua; "
           "pkill -x rpc.mountd; pkill -x rpcbind; "
           f"umount /proc/fs/nfsd; umount {EXPORT}; true", timeout=120,
           check=False)


def client_qps(vm):
    """QPs of xiw0, the client's device ("rdma resource" of netns a)."""
    out = vm.ns("a", "rdma -j resource show qp").out
    return out.count('"ifname":"xiw0')


def write_then_read_back(vm):
    """Write MiB MiB through the mount with O_DIRECT, check the server's
    copy, then read it back (page cache of the client dropped) and check."""
    vm.run(f"dd if=/dev/urandom of=/tmp/nfs-src bs=1M count={MIB} status=none")
    vm.run(f"{A} dd if=/tmp/nfs-src of={MNT}/f bs=1M oflag=direct status=none",
           timeout=300)
    vm.run(f"cmp /tmp/nfs-src {EXPORT}/f")
    vm.run("echo 3 > /proc/sys/vm/drop_caches")
    vm.run(f"{A} dd if={MNT}/f of=/tmp/nfs-back bs=1M iflag=direct status=none",
           timeout=300)
    vm.run("cmp /tmp/nfs-src /tmp/nfs-back")


def assert_over_rdma(vm):
    opts = vm.run(f"grep ' {MNT} ' /proc/mounts").out
    assert "proto=rdma" in opts, opts
    assert client_qps(vm) > 0


def unmount_releases_the_connection(vm):
    vm.run(f"{A} umount {MNT}", timeout=120)
    wait_until(vm, "test $(ip netns exec a rdma -j resource show qp | "
                   "grep -c xiw0) -eq 0", "the client's QPs are gone")


def test_nfsv3_moves_data_both_ways_between_namespaces(nfs_server):
    vm = nfs_server

    def mount_and_move_data():
        vm.run(f"{A} mount -t nfs -o vers=3,proto=rdma,port=20049,nolock "
               f"{SERVER}:{EXPORT} {MNT}", timeout=180)
        assert_over_rdma(vm)
        write_then_read_back(vm)

    # From the MPA handshake on: tshark's iwarp_mpa dissector needs it.
    pcap = "/tmp/nfs-v3.pcapng"
    capture(vm, "a", "v0", mount_and_move_data, pcap, port=20049)
    unmount_releases_the_connection(vm)
    # The server pulls written data with RDMA Reads (completing as Read
    # with Invalidate of its own MR) and answers reads with Send with
    # Invalidate of the client's MR: every frame well formed.
    ops = tshark(vm, pcap, "-T", "fields", "-e", "iwarp_rdma.opcode").split()
    assert ops.count("0x01") > 0, "no RDMA Read Request"
    assert ops.count("0x04") + ops.count("0x06") > 0, \
        "no Send with Invalidate"
    bad = tshark(vm, pcap, "-Y", "_ws.malformed")
    assert bad.strip() == "", bad


def test_nfsv4_2_moves_data_both_ways_between_namespaces(nfs_server):
    vm = nfs_server
    vm.run(f"{A} mount -t nfs -o vers=4.2,proto=rdma,port=20049 "
           f"{SERVER}:/ {MNT}", timeout=180)
    assert_over_rdma(vm)
    write_then_read_back(vm)
    unmount_releases_the_connection(vm)
