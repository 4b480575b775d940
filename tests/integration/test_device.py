"""The xiw device: created by 'rdma link add', removed by every path that
should remove it, refusing bad requests without side effects."""
from conftest import rdma_devs, rdma_links, wait_until


def xiw_loaded(vm):
    return vm.run("grep -q '^xiw ' /proc/modules", check=False).rc == 0


def link(vm, name, ns=None):
    found = [lk for lk in rdma_links(vm, ns) if lk["ifname"] == name]
    assert len(found) <= 1
    return found[0] if found else None


def test_modprobe_loads_and_unloads(vm):
    vm.run("modprobe xiw")
    assert xiw_loaded(vm)
    vm.run("modprobe -r xiw")
    assert not xiw_loaded(vm)


def test_link_add_autoloads_module(hosts):
    vm = hosts
    assert not xiw_loaded(vm)
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    assert xiw_loaded(vm)
    assert link(vm, "xiw0", "a")["netdev"] == "v0"


def test_device_is_an_iwarp_rnic(hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    dev = [d for d in rdma_devs(vm) if d["ifname"] == "xiw0"]
    assert len(dev) == 1
    assert dev[0]["node_type"] == "rnic"
    assert dev[0]["fw"] == "0.1.0"
    sysfs = "/sys/class/infiniband/xiw0"
    assert vm.run(f"cat {sysfs}/node_type").out.strip() == "4: RNIC"
    assert vm.run(f"cat {sysfs}/ports/1/link_layer").out.strip() == "Ethernet"


def test_two_hosts_each_get_a_device(hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")
    assert link(vm, "xiw0", "a")["netdev"] == "v0"
    assert link(vm, "xiw1", "b")["netdev"] == "v1"
    assert link(vm, "xiw0")["state"] == "ACTIVE"
    assert link(vm, "xiw1")["state"] == "ACTIVE"


def test_gid_and_guid_derive_from_mac(hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    mac = vm.ns("a", "cat /sys/class/net/v0/address").out.strip()
    b = [int(x, 16) for x in mac.split(":")]
    gid = vm.run("cat /sys/class/infiniband/xiw0/ports/1/gids/0").out.strip()
    assert gid == "{:02x}{:02x}:{:02x}{:02x}:{:02x}{:02x}:0000:0000:0000:0000:0000".format(*b)
    eui = [b[0] ^ 2, b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]]
    guid = vm.run("cat /sys/class/infiniband/xiw0/node_guid").out.strip()
    assert guid == "{:02x}{:02x}:{:02x}{:02x}:{:02x}{:02x}:{:02x}{:02x}".format(*eui)


def test_gid_follows_mac_change(hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("a", "ip link set v0 address 02:11:22:33:44:55")
    wait_until(vm, "grep -qx 0211:2233:4455:0000:0000:0000:0000:0000 "
               "/sys/class/infiniband/xiw0/ports/1/gids/0", "GID update")


def test_link_state_follows_netdev(hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    assert link(vm, "xiw0")["state"] == "ACTIVE"
    vm.ns("a", "ip link set v0 down")
    assert link(vm, "xiw0")["state"] == "DOWN"
    vm.ns("a", "ip link set v0 up")
    assert link(vm, "xiw0")["state"] == "ACTIVE"
    # Carrier follows the peer of a veth pair.
    vm.ns("b", "ip link set v1 down")
    assert link(vm, "xiw0")["state"] == "DOWN"


def test_link_delete_removes_device(hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.run("rdma link delete xiw0")
    assert link(vm, "xiw0") is None
    assert vm.run("test -e /sys/class/infiniband/xiw0", check=False).rc != 0
    # The netdev is free again.
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    assert link(vm, "xiw0") is not None


def test_netdev_delete_removes_device(hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")
    vm.ns("a", "ip link del v0")  # takes its peer v1 with it
    wait_until(vm, "! rdma link show | grep -q xiw", "devices removed")
    assert xiw_loaded(vm)


def test_netns_delete_removes_device(hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.run("ip netns del a")
    wait_until(vm, "! rdma link show | grep -q xiw0", "device removed")


def test_rmmod_with_devices_removes_them(hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")
    vm.run("modprobe -r xiw")
    assert not xiw_loaded(vm)
    assert rdma_links(vm) == []
    # The netdevs are not held any more: they can go at once.
    vm.ns("a", "ip link del v0")


def test_attach_to_loopback(vm):
    vm.run("rdma link add xiwlo type xiw netdev lo")
    lk = link(vm, "xiwlo")
    assert lk["netdev"] == "lo"
    assert lk["state"] == "ACTIVE"


def test_attach_twice_to_same_netdev_refused(hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    res = vm.ns("a", "rdma link add xiw9 type xiw netdev v0", check=False)
    assert res.rc != 0
    assert "File exists" in res.err
    assert link(vm, "xiw9") is None
    assert link(vm, "xiw0", "a")["netdev"] == "v0"


def test_duplicate_name_refused(hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    res = vm.ns("b", "rdma link add xiw0 type xiw netdev v1", check=False)
    assert res.rc != 0
    assert "File exists" in res.err
    assert link(vm, "xiw0", "a")["netdev"] == "v0"
    assert len(rdma_links(vm)) == 1


def test_non_ethernet_netdev_refused(vm):
    vm.run("modprobe tun && ip tuntap add mode tun dev tun0 && ip link set tun0 up")
    try:
        res = vm.run("rdma link add xiwt type xiw netdev tun0", check=False)
        assert res.rc != 0
        assert "Protocol not supported" in res.err
        assert link(vm, "xiwt") is None
        assert "not Ethernet or loopback" in "\n".join(vm.new_dmesg())
    finally:
        vm.run("ip link del tun0")


def test_bad_device_names_refused(hosts):
    vm = hosts
    # 63 characters: the RDMA core would silently cut a 64-character name
    # to this length, so xiw refuses it rather than create a surprise.
    for name in ["bad/name", "sp ace", "x" * 64, "x" * 63, "..", "a%d"]:
        res = vm.ns("a", f"rdma link add '{name}' type xiw netdev v0",
                    check=False)
        assert res.rc != 0, name
    assert rdma_links(vm) == []
    # Nothing was left behind: a good name still works on the netdev,
    # up to 62 characters.
    vm.ns("a", "rdma link add %s type xiw netdev v0" % ("y" * 62))
    assert link(vm, "y" * 62) is not None


def test_unknown_netdev_refused(hosts):
    vm = hosts
    res = vm.ns("a", "rdma link add xiw0 type xiw netdev nosuch0",
                check=False)
    assert res.rc != 0
    assert rdma_links(vm) == []


def test_netdev_is_looked_up_in_callers_namespace(hosts):
    vm = hosts
    # v1 lives in namespace b: from a, it does not exist.
    res = vm.ns("a", "rdma link add xiw0 type xiw netdev v1", check=False)
    assert res.rc != 0
    assert rdma_links(vm) == []
