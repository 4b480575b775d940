"""Removing a device while iw_cm still has an event of one of its
connections queued.

iw_cm delivers every event of every device from one ordered workqueue,
and the RDMA CM's handler takes the id's handler mutex; every iWARP
driver's destroy_qp (xiw's, siw's, cxgb4's, irdma's) waits for iw_cm to
let go of the QP, which iw_cm does in the turn of the connection's CLOSE.
A ULP that destroys its QP in the RDMA CM's DEVICE_REMOVAL handler holds
that mutex while it waits: if the connection's ESTABLISHED is still
queued ahead of the CLOSE, iw_cm waits for the mutex and the removal
never ends. That is how a teardown race of test_hostile_connections.py
hung `ip link del` once in make check ("unregister_netdevice: waiting for
v1", two kworkers blocked). xiwtarget now lets go of a device's
connections in its ib_client's removal, before the RDMA CM's, as
nvme-rdma does; this scenario makes the ordering deterministic:

- xiwtarget (gate=1) accepts a connection on xiw1, its accept waiting at
  the gate while the request's handler runs;
- meanwhile a request comes to xiwtarget's listener on xiw2 (a dummy
  netdev in the same namespace, hold_addr=), and iw_cm queues it;
- the gate opens: the accept queues the connection's ESTABLISHED behind
  that request, whose handler then holds iw_cm's queue;
- xiw1 is deleted; once the removal has reached the connection, the
  held handler is released.

The removal (rdma link delete, or the netdev's) must then complete; it
hung before the change to xiwtarget."""
import os

import pytest

import cm_trace
from conftest import TOP, wait_until, xiw_links
from xiwperf_run import set_params

QP_PEER = os.path.join(TOP, "tests", "integration", "qp_peer.py")
TARGET = "192.0.2.2"
HOLD = "198.51.100.2"
PORT = 18600
DEBUGFS = "/sys/kernel/debug/xiwtarget"
TRACE = f"{cm_trace.TRACING}/trace"
# The two ways xiw1 goes: deleted, or its netdev unregistered (the veth
# pair goes whole, xiw0 with it).
REMOVALS = {
    "link_delete": "ip netns exec b rdma link delete xiw1",
    "netdev_removal": "ip -n b link del v1",
}


@pytest.mark.parametrize("removal", sorted(REMOVALS))
def test_device_removal_completes_with_an_established_event_queued(
        hosts, removal):
    vm = hosts
    xiw_links(vm)
    # No xiw timer ends a request while the test holds it.
    set_params(vm, mpa_timeout_ms=600000)
    vm.run(f"ip -n b link add d0 type dummy && "
           f"ip -n b addr add {HOLD}/32 dev d0 && ip -n b link set d0 up && "
           "ip netns exec b rdma link add xiw2 type xiw netdev d0 && "
           f"ip netns exec b modprobe xiwtarget addr={TARGET} port={PORT} "
           f"hold_addr={HOLD} gate=1")
    cm_trace.start(vm, ("rdma_cma/cm_event_handler", "xiw/xiw_cm_event"))
    try:
        vm.run(f"ip netns exec a /usr/bin/python3 -S {QP_PEER} hold "
               f"{TARGET} {PORT} --wait 300 > /tmp/p1.log 2>&1 &")
        wait_until(vm, f"grep -q '^1 waiting' {DEBUGFS}/gate",
                   "the accept on xiw1 waits at the gate")
        vm.run(f"ip netns exec b /usr/bin/python3 -S {QP_PEER} hold "
               f"{HOLD} {PORT} --wait 300 > /tmp/p2.log 2>&1 &")
        wait_until(vm, f"grep -q 'xiw2 cep .* CONNECT_REQUEST' {TRACE}",
                   "xiw handed the request on xiw2 to iw_cm")
        vm.run(f"echo 1 > {DEBUGFS}/gate")
        # Both requests reached xiwtarget: the second one's handler holds
        # iw_cm's queue, the connection's ESTABLISHED queued behind it.
        cm_trace.wait_for(vm, "CONNECT_REQUEST", 2)
        vm.run(f"{{ {REMOVALS[removal]}; echo rc=$?; }} > /tmp/del.log "
               "2>&1 &")
        # The removal reached the connection: xiwtarget began to free it
        # (its debugfs directory goes first), or a DEVICE_REMOVAL handler
        # destroyed its QP (xiw handed iw_cm the CLOSE).
        wait_until(vm, f"! [ -e {DEBUGFS}/0 ] || "
                   f"grep -q 'xiw1 cep .* CLOSE' {TRACE}",
                   "the removal reached the connection on xiw1")
    finally:
        vm.run(f"echo 1 > {DEBUGFS}/release", check=False)
        cm_trace.stop(vm)
    res = vm.run("i=0; until grep -q '^rc=' /tmp/del.log; do "
                 "[ $i -lt 1200 ] || exit 1; i=$((i+1)); sleep 0.05; done; "
                 "cat /tmp/del.log", timeout=180, check=False)
    if res.rc != 0:
        vm.run("echo w > /proc/sysrq-trigger", check=False, timeout=30)
        trace = vm.run("dmesg | tail -n 300", check=False, timeout=30)
        raise AssertionError(f"{REMOVALS[removal]} did not complete; "
                             f"blocked tasks:\n{trace.out}")
    assert "rc=0" in res.out, res.out
    vm.run("pkill -f '[q]p_peer.py'; rmmod xiwtarget && "
           "ip netns exec b rdma link delete xiw2")
