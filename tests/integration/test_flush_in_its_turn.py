"""An RDMA Flush Request is classified in its turn, not on arrival
(Documentation/commit-draft.md, "Persistence domains"): whether the
memory of its range can reach the disposition asked for is found by a
walk of every page of the range, which may be all of a large region and
may sleep. On arrival only what costs the same for any range is checked
(the STag, rights, bounds, and the IRD), so 40-octet requests cannot make
the receive path walk megabytes each, in atomic context, before the IRD
is even looked at.

The peer is hand-framed (stall_peer.py) against xiwtarget's large region
of plain memory, DRAM not declared persistent: a Flush to persistence of
it is refused, with a Terminate naming the request, in its turn."""
import json
import os
import sys

import pytest

from conftest import TOP, xiw_links
from xiwperf_run import counted, hw_counters

sys.path.insert(0, os.path.join(TOP, "tests", "reliability"))
import wire  # noqa: E402

TARGET = "192.0.2.2"
PORT = 18600
PEER = os.path.join(TOP, "tests", "integration", "stall_peer.py")


@pytest.fixture
def target(hosts):
    vm = hosts
    xiw_links(vm)
    try:
        vm.run(f"ip netns exec b modprobe xiwtarget addr={TARGET} "
               f"port={PORT}")
        yield vm
    finally:
        vm.run("rmmod xiwtarget", check=False)


def peer(vm, mode):
    """What stall_peer.py saw in @mode, and what xiw1 counted meanwhile."""
    before = hw_counters(vm, "xiw1")
    out = json.loads(vm.ns("a", f"/usr/bin/python3 -S {PEER} {TARGET} "
                                f"{PORT} {mode}", timeout=300).out)
    return out, counted(before, hw_counters(vm, "xiw1"))


def test_flushes_beyond_the_ird_get_the_ird_terminate_without_a_walk(target):
    """A Read of the whole region whose response cannot leave (the
    receive window closed), then 40 Flushes to persistence of the region:
    more requests than the IRD. The one past the IRD gets the DDP
    Terminate for it (no buffer), and not one Flush was classified: none
    was refused, none walked its region before the IRD check."""
    out, n = peer(target, "ird-flush")
    assert out["terminate"] == list(wire.ddp_u(wire.DDP_U_NO_BUF)), out
    assert n["flush_refused"] == 0, n


def test_a_refused_flush_is_answered_in_its_turn_with_its_terminate(target):
    """A Read, then a Flush to persistence of plain memory: the Read is
    answered whole first, then the Flush is refused with RDMAP's Access
    Rights Violation, the Terminate naming the Flush's DDP header."""
    out, n = peer(target, "flush-order")
    assert out["terminate"] == list(wire.rdmap_prot(wire.ACCESS)), out
    assert out["order"][-1] == wire.TERMINATE, out
    assert set(out["order"][:-1]) == {wire.READ_RESP}, out
    assert out["read_octets"] == 4096, out
    assert out["ddp_hdr"] == out["sent_hdr"], out
    assert n["flush_refused"] == 1, n
