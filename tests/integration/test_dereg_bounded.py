"""ib_dereg_mr() returns in bounded time whatever the peer does (kmod/mr.c,
"Deregistration in bounded time"). A peer can make a QP hold an MR as
long as it likes: half of a Write FPDU sent into the MR and then nothing
(the placement holds the MR until the FPDU's last octet), or a large Read
of the MR with its receive window closed (the Read being answered, and the
batch TCP will not take, hold it). Deregistration invalidates the MR at
once, waits a bounded time, then ends each QP still holding it (a local
catastrophic error: QP fatal, to error), which lets go; the ULP's
ib_destroy_qp() and device removal, which deregister first, are no longer
the peer's to block.

The peer is hand-framed (stall_peer.py) against xiwtarget's large region;
xiwtarget deregisters it on demand (debugfs N/dereg) while the peer holds
the stall. Bounded polls only: no timing is asserted."""
import json
import os

import pytest

from conftest import TOP, wait_until, xiw_links

TARGET = "192.0.2.2"
PORT = 18600
PEER = os.path.join(TOP, "tests", "integration", "stall_peer.py")
DEBUGFS = "/sys/kernel/debug/xiwtarget"


@pytest.mark.parametrize("stall", ["half-write", "zero-window-read"])
def test_dereg_ends_a_stalled_holder_and_returns(hosts, stall):
    vm = hosts
    try:
        xiw_links(vm)
        vm.run(f"ip netns exec b modprobe xiwtarget addr={TARGET} "
               f"port={PORT}")
        # The peer holds its stall while its stdin (a sleep) lasts.
        vm.run("((sh -c 'echo $$ > /tmp/stall.pid; exec sleep 3600' | "
               f"ip netns exec a /usr/bin/python3 -S {PEER} {TARGET} {PORT} "
               f"{stall} > /tmp/stall.out 2>&1) < /dev/null > /dev/null "
               "2>&1 &)")
        try:
            wait_until(vm, "grep -q conn /tmp/stall.out",
                       "the stall in place", tries=150)
        except AssertionError as e:
            raise AssertionError(
                f"{e}: {vm.run('cat /tmp/stall.out', check=False)}")
        conn = json.loads(vm.run("cat /tmp/stall.out").out)["conn"]
        d = f"{DEBUGFS}/{conn}"
        assert vm.run(f"cat {d}/dereg").out == "none\n"
        vm.run(f"(sh -c 'echo 1 > {d}/dereg' < /dev/null > /dev/null "
               "2>&1 &)")
        try:
            wait_until(vm, f"grep -q done {d}/dereg",
                       "deregistration returned", tries=150)
        except AssertionError as e:
            raise AssertionError(f"{e}: " + str(vm.run(
                f"cat {d}/dereg {d}/state; dmesg | tail -40; "
                "for p in /proc/[0-9]*; do grep -l xiw $p/stack "
                "2>/dev/null && cat $p/stack; done", check=False)))
        state = vm.run(f"cat {d}/state").out
        assert "qp_state 6\n" in state, state          # IB_QPS_ERR
        assert "fatal" in state, state                 # IB_EVENT_QP_FATAL
    finally:
        vm.run("kill $(cat /tmp/stall.pid); rm -f /tmp/stall.*",
               check=False)
        vm.run("rmmod xiwtarget", check=False)
