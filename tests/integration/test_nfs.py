"""NFS over RDMA (the kernel's xprtrdma client and svcrdma server, as
Debian ships them) over xiw: server and client each in its own network
namespace, either in the initial one, both in one namespace over a dummy
netdev, and against stock siw. The ULPs use fast registration, RDMA Read
with Invalidate and Send with Invalidate, so these runs are the
real-world proof of them. Setup: nfs.py."""
import pytest

from capture import capture, tshark
from conftest import interop_except, wait_until
from nfs import EXPORT, MNT, Nfs, dummy_netns, veth_root_and_b
from xiwperf_run import static_neighbours

# Sizes around the ULPs' boundaries: a byte, a page less one, a page, the
# inline threshold's neighbourhood, a chunk of many pages plus one byte.
SIZES = [1, 4095, 4096, 4097, 65537, (1 << 20) + 1, 4 << 20]
MIB = 1 << 20


@pytest.fixture
def nfs(hosts):
    """xiw0 in a, xiw1 in b; the server in b, the client in a."""
    vm = hosts
    static_neighbours(vm)
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")
    with Nfs(vm, "b", "192.0.2.2", "a", "192.0.2.1", "xiw0") as n:
        yield n


def test_nfsv3_moves_data_both_ways_between_namespaces(nfs):
    vm = nfs.vm

    def mount_move_data_and_unmount():
        nfs.mount("3")
        nfs.write_then_read_back(32 * MIB)
        nfs.umount()

    # From the MPA handshake on: tshark's iwarp_mpa dissector needs it. To
    # the unmount's close: a capture stopped while the mount lives may end
    # in the middle of an FPDU, which tshark calls malformed.
    pcap = "/tmp/nfs-v3.pcapng"
    capture(vm, "a", "v0", mount_move_data_and_unmount, pcap, port=20049)
    # The server pulls written data with RDMA Reads (completing as Read
    # with Invalidate of its own MR) and answers reads with Send with
    # Invalidate of the client's MR: every frame well formed.
    ops = tshark(vm, pcap, "-T", "fields", "-e", "iwarp_rdma.opcode").split()
    assert ops.count("0x01") > 0, "no RDMA Read Request"
    assert ops.count("0x04") + ops.count("0x06") > 0, \
        "no Send with Invalidate"
    bad = tshark(vm, pcap, "-Y", "_ws.malformed")
    assert bad.strip() == "", bad


def test_nfsv4_2_moves_data_both_ways_between_namespaces(nfs):
    nfs.mount("4.2")
    nfs.write_then_read_back(32 * MIB)
    nfs.umount()


def test_nfs_files_of_every_size_keep_their_bytes(nfs):
    """Each size written and read back whole over NFSv4.2, then a file of
    random writes and reads checked against a model, then 200 small files
    in a tree: every byte on the server as the client wrote it."""
    vm = nfs.vm
    nfs.mount("4.2")
    for size in SIZES:
        nfs.write_then_read_back(size, name=f"s{size}",
                                 bs="1M" if size >= MIB else "4k")
    nfs.random_io(4 * MIB, 400, seed=7306)
    vm.run("/usr/bin/python3 -c 'import os, random\n"
           "r = random.Random(5040)\n"
           "for d in range(10):\n"
           "    os.makedirs(f\"/tmp/tree/{d}\", exist_ok=True)\n"
           "    for f in range(20):\n"
           "        open(f\"/tmp/tree/{d}/{f}\", \"wb\").write("
           "r.randbytes(r.randint(0, 20000)))'")
    vm.run(f"{nfs.C}cp -r /tmp/tree {MNT}/tree", timeout=300)
    vm.run(f"diff -r /tmp/tree {EXPORT}/tree")
    vm.run("echo 3 > /proc/sys/vm/drop_caches")
    vm.run(f"{nfs.C}diff -r /tmp/tree {MNT}/tree", timeout=300)
    nfs.umount()


def test_nfs_mounts_and_unmounts_again_and_again(nfs):
    """Three mount, write, read, unmount cycles alternating NFSv4.2 and v3:
    each unmount releases its connection, the next one makes a new one."""
    for i in range(3):
        nfs.mount("3" if i % 2 else "4.2")
        nfs.write_then_read_back(MIB, name=f"c{i}")
        nfs.umount()


@pytest.mark.parametrize("placement", ["server_in_initial_netns",
                                       "client_in_initial_netns"])
def test_nfs_between_the_initial_namespace_and_another(vm, placement):
    """xiw0 on v0 in the initial namespace, xiw1 on v1 in b; the server on
    one side, the client on the other; NFSv3 then v4.2."""
    veth_root_and_b(vm)
    vm.run("rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")
    if placement == "server_in_initial_netns":
        n = Nfs(vm, None, "192.0.2.1", "b", "192.0.2.2", "xiw1")
    else:
        n = Nfs(vm, "b", "192.0.2.2", None, "192.0.2.1", "xiw0")
    with n:
        n.each_version_moves_data(4 * MIB)


def test_nfs_within_one_namespace_over_a_dummy_netdev(vm):
    """Server and client in namespace c, one xiw device on a dummy netdev:
    the connection runs over loopback TCP within the namespace."""
    dummy_netns(vm, "c", "192.0.2.3")
    vm.ns("c", "rdma link add xiw0 type xiw netdev d0")
    with Nfs(vm, "c", "192.0.2.3", "c", "192.0.2.3", "xiw0") as n:
        n.each_version_moves_data(4 * MIB)


def test_nfs_client_on_xiw_server_on_siw(vm):
    """Stock siw works with the NFS client in the initial namespace only
    (it makes its sockets in the calling task's namespace, a kernel
    worker's), so the client is there, on xiw0 (v0), and the server in b,
    on siw1 (v1). The other way round cannot work with stock siw: the
    server's wildcard listener in b makes siw listen on siw0's address,
    which b does not have, and the listen fails."""
    veth_root_and_b(vm)
    vm.run("modprobe siw && rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add siw1 type siw netdev v1")
    try:
        with Nfs(vm, "b", "192.0.2.2", None, "192.0.2.1", "xiw0") as n:
            n.each_version_moves_data(4 * MIB)
    finally:
        vm.ns("b", "rdma link delete siw1", check=False)


def test_nfs_client_recovers_when_the_server_device_is_deleted_mid_write(nfs):
    """The server's xiw1 is deleted while a soft NFSv4.2 mount writes 64 MiB:
    the deletion completes (svcrdma lets go of its QPs and MRs), the
    writer ends, successfully or with an I/O error but never hanging,
    and once xiw1 is back the client reconnects by itself and moves data
    again. The teardown checks neither kernel warned."""
    vm = nfs.vm
    nfs.mount("4.2", extra="soft,timeo=20,retrans=2")
    vm.run("head -c 64M /dev/urandom > /tmp/nfs-src-del")
    vm.run(f": > /tmp/dd-del.log; ({nfs.C}dd if=/tmp/nfs-src-del "
           f"of={MNT}/del bs=1M oflag=direct; echo \"dd exit $?\") "
           ">> /tmp/dd-del.log 2>&1 & echo $! > /tmp/dd-del.pid")
    # Mid-write: some of the file is on the server, not all of it.
    wait_until(vm, f"test $(stat -c %s {EXPORT}/del) -ge {4 * MIB}",
               "the write reached the server", tries=600)
    # No connection request may reach xiw1 while it is being deleted: the
    # 6.12 svcrdma that would take it drops a device reference it never
    # got (Documentation/testing.md, "Kernel bugs the tests step
    # around"). Meanwhile the client's frames go to a MAC nobody has and
    # are lost, as on a cut cable; TCP retransmits them afterwards.
    mac = vm.ns("b", "cat /sys/class/net/v1/address").out.strip()
    vm.ns("a", "ip neigh replace 192.0.2.2 lladdr 02:00:00:00:00:01 "
          "dev v0 nud permanent")
    vm.ns("b", "rdma link delete xiw1", timeout=120)
    assert '"xiw1"' not in vm.run("rdma -j dev show").out
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")
    vm.ns("a", f"ip neigh replace 192.0.2.2 lladdr {mac} dev v0 "
          "nud permanent")
    wait_until(vm, "! kill -0 $(cat /tmp/dd-del.pid)",
               "the writer ended", tries=1500)
    log = vm.run("cat /tmp/dd-del.log").out
    print("writer across the deletion:", " / ".join(log.strip().splitlines()))
    if "dd exit 0" in log:
        vm.run(f"cmp /tmp/nfs-src-del {EXPORT}/del")
    else:
        assert "Input/output error" in log, log
    nfs.write_then_read_back(4 * MIB, name="after")
    nfs.umount()


# Across two kernels on a wire (two_guests.py), each end in its guest's
# initial namespace: (client guest, server guest, client device kind,
# server device kind). With siw in the other kernel both ways work: the
# server's wildcard listener has siw's own netdev in its namespace.
ACROSS = {
    "client0_server1": (0, 1, "xiw", "xiw"),
    "client1_server0": (1, 0, "xiw", "xiw"),
    "xiw_client_siw_server": (0, 1, "xiw", "siw"),
    "siw_client_xiw_server": (0, 1, "siw", "xiw"),
}


@pytest.mark.parametrize("across", interop_except("client0_server1", ACROSS))
def test_nfs_over_rdma_between_two_kernels(two_guests, across):
    """NFSv3 then v4.2, 4 MiB each way and a random read/write mix checked
    against its model, client in one guest and server in the other."""
    from two_guests import ADDR4
    c, s, ckind, skind = ACROSS[across]
    vms = two_guests.vms
    for i, kind in ((c, ckind), (s, skind)):
        vms[i].run(f"modprobe {kind} && "
                   f"rdma link add {kind}{i} type {kind} netdev eth0")
    with Nfs(vms[s], None, ADDR4[s], None, ADDR4[c], f"{ckind}{c}",
             client_vm=vms[c]) as n:
        n.each_version_moves_data(4 * MIB)
        n.mount("4.2")
        n.random_io(2 * MIB, 300, 7)
        n.umount()


@pytest.mark.interop
def test_nfs_over_rdma_over_ipv6_between_two_kernels(two_guests):
    """The same over IPv6: the server exports to every host (exportfs
    takes an IPv6 client only by name or subnet) and the client mounts
    [2001:db8::2]."""
    from two_guests import ADDR6
    vms = two_guests.vms
    for i, vm in enumerate(vms):
        vm.run(f"rdma link add xiw{i} type xiw netdev eth0")
    with Nfs(vms[1], None, ADDR6[1], None, "*", "xiw0",
             client_vm=vms[0]) as n:
        n.each_version_moves_data(1 * MIB)


@pytest.mark.interop
def test_nfs_over_rdma_to_a_link_local_address(two_guests):
    """Mounted from [fe80::...%eth0]: rdma_cm resolves through the named
    interface."""
    vms = two_guests.vms
    for i, vm in enumerate(vms):
        vm.run(f"rdma link add xiw{i} type xiw netdev eth0")
    addr = f"{two_guests.link_local(1)}%eth0"
    with Nfs(vms[1], None, addr, None, "*", "xiw0", client_vm=vms[0]) as n:
        n.mount("4.2")
        n.write_then_read_back(1 * MIB)
        n.umount()


@pytest.mark.interop
def test_nfs_over_rdma_between_debian_6_1_and_6_12(two_kernels):
    """Server on 6.1 (guest 1), client on 6.12, NFSv3 and v4.2."""
    from two_guests import ADDR4
    vms = two_kernels.vms
    for i, vm in enumerate(vms):
        vm.run(f"rdma link add xiw{i} type xiw netdev eth0")
    with Nfs(vms[1], None, ADDR4[1], None, ADDR4[0], "xiw0",
             client_vm=vms[0]) as n:
        n.each_version_moves_data(2 * MIB)


@pytest.mark.interop
def test_nfs_over_rdma_over_an_impaired_wire(two_guests):
    """Loss, duplication, reordering and delay at both ends (netem):
    NFSv4.2 moves its data both ways, checked."""
    from two_guests import ADDR4, IMPAIRED
    vms = two_guests.vms
    for i, vm in enumerate(vms):
        vm.run(f"rdma link add xiw{i} type xiw netdev eth0")
    two_guests.impair(IMPAIRED)
    try:
        with Nfs(vms[1], None, ADDR4[1], None, ADDR4[0], "xiw0",
                 client_vm=vms[0]) as n:
            n.mount("4.2")
            n.write_then_read_back(4 * MIB)
            n.umount()
    finally:
        two_guests.mend()
