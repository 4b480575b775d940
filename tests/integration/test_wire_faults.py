"""A wire that misbehaves between two kernels (two_guests.py): loss,
reordering, duplication and delay (netem on both guests' eth0, so both
directions suffer), small and jumbo MTUs, a cable pulled and put back, a
port taken down, and a peer killed outright. Each op completes with every
byte checked wherever TCP can carry it; where it cannot, the survivor's
connection ends within the bound admin.md states, and nothing leaks
(both kernels' teardown checks)."""
import pytest

from conftest import interop_except, wait_until
from two_guests import ADDR4, IMPAIRED
from xiwperf_run import (LOAD_XIWPERF, client, rdma_resources, start_client,
                         start_server, stop_server, wait_client)

FRWR = ("--remote-mr", "frwr")

# Reads first: the server's read pattern is written once.
OPS = [
    ("read", ("--size", 1 << 20, "--count", 8, "--depth", 4)),
    ("write", ("--size", 100000, "--count", 20, "--depth", 4)),
    ("send", ("--size", 65536, "--count", 40, "--depth", 8)),
    ("send", ("--size", 1, "--count", 200, "--depth", 16)),
    ("fetch_add", ("--count", 200, "--depth", 8, *FRWR)),
]


@pytest.fixture
def wire(two_guests):
    """xiw on both guests' eth0; the wire's impairments and MTU put back
    after the test."""
    for i, vm in enumerate(two_guests.vms):
        vm.run(f"{LOAD_XIWPERF} && rdma link add xiw{i} type xiw "
               "netdev eth0")
    yield two_guests
    two_guests.mend()
    for i, vm in enumerate(two_guests.vms):
        if not vm.alive():
            continue
        vm.run("ip link set eth0 mtu 1500", check=False)
        two_guests.address(i)


def run_ops(pair, tag, ops=OPS):
    vms = pair.vms
    log = start_server(vms[1], None, ADDR4[1], tag)
    try:
        for op, args in ops:
            rc, r = client(vms[0], None, ADDR4[1], "--op", op, "--check",
                           *args, timeout=600)
            count = args[args.index("--count") + 1]
            assert r["completed"] == count, (op, args, r)
    finally:
        stop_server(vms[1], log)


NETEM = {
    "loss_1pct": "loss 1%",
    "reorder": "delay 2ms reorder 25% 50%",
    "duplicate_1pct": "duplicate 1%",
    "delay_20ms": "delay 20ms limit 10000",
    "all_at_once": IMPAIRED,
}


@pytest.mark.parametrize("netem", interop_except("all_at_once", NETEM))
def test_every_op_completes_over_an_impaired_wire(wire, netem):
    wire.impair(NETEM[netem])
    run_ops(wire, netem)
    # The impairment was there: where it loses frames, netem counted
    # what it dropped ("Sent N bytes M pkt (dropped D, ...").
    if "loss" in NETEM[netem]:
        dropped = 0
        for vm in wire.vms:
            stats = vm.run("tc -s qdisc show dev eth0").out
            dropped += int(stats.split("(dropped ")[1].split(",")[0])
        assert dropped > 0, "netem dropped nothing"


@pytest.mark.parametrize("mtu", interop_except(576, [576, 1500, 9000]))
def test_every_op_completes_at_each_mtu(wire, mtu):
    """576 (IPv4's minimum datagram every host takes, an MSS of 536;
    below IPv6's 1280, so IPv6 leaves the port until the fixture puts its
    addresses back), 1500 and jumbo 9000 at both ends: MPA's FPDUs
    follow the MSS."""
    for vm in wire.vms:
        vm.run(f"ip link set eth0 mtu {mtu}")
    run_ops(wire, f"mtu{mtu}")


def transfer(pair, tag, count=2000):
    """A long Write run from guest 0 to guest 1 in the background, once
    it has moved data; wait_client() ends it."""
    vms = pair.vms
    log = start_server(vms[1], None, ADDR4[1], tag)
    out = start_client(vms[0], None, ADDR4[1], tag, "--op", "write",
                       "--size", 65536, "--count", count, "--depth", 4,
                       "--check")
    wait_until(vms[0], "rdma -j res show qp | grep -q xiw0",
               "the client's connection is up")
    return log, out


def test_a_cable_pulled_and_put_back_loses_nothing(wire):
    """Frames lost both ways for a few seconds (every frame dropped by
    netem: the wire is cut, the ports stay up), then the wire back: TCP
    retransmits, and the run completes with every byte checked."""
    vms = wire.vms
    log, out = transfer(wire, "cable", count=400)
    try:
        wire.impair("loss 100%")
        vms[0].run("sleep 3")
        wire.mend(check=True)
        rc, r = wait_client(vms[0], out)
        assert rc == 0 and r["completed"] == 400, r
        assert r["data_ok"] is True and r["errors"] == 0, r
    finally:
        stop_server(vms[1], log)


def test_a_port_taken_down_ends_its_connections_and_the_peers(wire):
    """ip link set eth0 down on the server's guest mid-transfer: its
    connection ends at once (admin.md). The client's ends when the port
    is back and the peer answers its retransmission with a reset; then
    both guests hold no QP, and a new run connects and moves data."""
    vms = wire.vms
    log, out = transfer(wire, "down")
    try:
        vms[1].run("ip link set eth0 down")
        wait_until(vms[1], "! rdma -j res show qp | grep -q xiw1",
                   "the server's QP is gone with its port")
        # IPv6 addresses go with the port (IPv4 ones stay).
        wire.address(1)
        rc, r = wait_client(vms[0], out)
        assert rc != 0, r
        assert r["errors"] > 0 or r["completed"] < 2000, r
    finally:
        stop_server(vms[1], log)
    wire.wait_peer(0)
    for i, vm in enumerate(vms):
        wait_until(vm, f"! rdma -j res show qp | grep -q xiw{i}",
                   f"guest {i} holds no QP")
    run_ops(wire, "down-after", OPS[:1])


def test_a_peer_killed_outright_ends_the_survivors_connection(wire):
    """The server's guest killed mid-transfer (no FIN, no RST: the wire
    goes silent). With tcp_retries2 at 5 (about 6 s of retransmissions
    here), the client's connection ends by TCP's own timeout and its
    run fails; everything the client held is released; the peer booted
    again serves a new run."""
    vms = wire.vms
    vms[0].run("sysctl -qw net.ipv4.tcp_retries2=5")
    log, out = transfer(wire, "killed")
    wire.kill(1)
    rc, r = wait_client(vms[0], out, tries=1500)
    assert rc != 0, r
    assert r["completed"] < 2000, r
    wait_until(vms[0], "! rdma -j res show qp | grep -q xiw0",
               "the survivor holds no QP")
    assert rdma_resources(vms[0]).get("xiw0", {}).get("mr", 0) == 0
    vms[0].run("sysctl -qw net.ipv4.tcp_retries2=15")
    wire.reboot(1)
    vms = wire.vms
    vms[1].run(f"{LOAD_XIWPERF} && rdma link add xiw1 type xiw netdev eth0")
    run_ops(wire, "killed-after", OPS[:1])
