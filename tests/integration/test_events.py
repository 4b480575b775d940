"""The xiw family's events group (Documentation/netlink.md, "Events"),
through xiwctl monitor: devices created and deleted, and connections ended
by a Terminate, at the end that sent it and at the end that received it.

The monitor runs in the guest and writes one JSON object per line to a
file. It is known to listen once a probe device's creation shows up there
(a bounded number of tries, no sleep-based wait)."""
import json
import os

import pytest
import xiwvm

from conftest import TOP
from schema import check
from xiwperf_run import client

XIWCTL = os.path.join(TOP, "build", "cmake", "tools", "xiwctl")
SERVER = "192.0.2.2"
OUT = "/tmp/xiw-events.json"
# Rounds of the bounded waits below (a guest round trip and 0.1 s each):
# more on a slower kernel (the debug kernel's checkers, several guests on
# the host), as wait_until() does.
TRIES = int(50 * xiwvm.timeout_scale())
TEXT = "/tmp/xiw-events.txt"


def lines(vm, path):
    return vm.run(f"cat {path}").out.splitlines()


def events(vm):
    """The monitor's lines, each checked against tools/xiwctl/xiwctl.schema.json."""
    return [check(json.loads(line), "monitor_line")
            for line in lines(vm, OUT) if line]


@pytest.fixture
def monitor(vm, request):
    """xiwctl -j monitor and xiwctl monitor (text) in the initial
    namespace, listening; yields a function giving the JSON events and the
    text lines seen since the fixture was ready, the probe's left out."""
    request.addfinalizer(lambda: vm.run(
        "kill $(cat /tmp/monitor.pid); ip link del probe0", check=False))
    vm.run("ip link add probe0 type dummy && ip link set probe0 up")
    vm.run(f": > {OUT}; : > {TEXT}; "
           f"{XIWCTL} -j monitor >> {OUT} 2>&1 & echo $! > /tmp/monitor.pid; "
           f"{XIWCTL} monitor >> {TEXT} 2>&1 & echo $! >> /tmp/monitor.pid")
    for _ in range(TRIES):
        vm.run("rdma link add xiwprobe type xiw netdev probe0; "
               "rdma link delete xiwprobe", check=False)
        if any(e.get("ifname") == "xiwprobe" for e in events(vm)) and \
                any("xiwprobe" in line for line in lines(vm, TEXT)):
            break
    else:
        raise AssertionError("the monitors never listened: "
                             + vm.run(f"cat {OUT} {TEXT}").out)
    ready, ready_text = len(events(vm)), len(lines(vm, TEXT))
    return lambda: ([e for e in events(vm)[ready:]
                     if e.get("ifname") != "xiwprobe"],
                    [t for t in lines(vm, TEXT)[ready_text:]
                     if "xiwprobe" not in t])


def test_device_creation_and_deletion_are_announced(monitor, hosts):
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    index = json.loads(vm.run("rdma -j dev show xiw0").out)[0]["ifindex"]
    vm.ns("a", "rdma link delete xiw0")
    # The deletion's event may trail "rdma link delete" by a little.
    for _ in range(TRIES):
        got, text = monitor()
        if len(got) >= 2 and len(text) >= 2:
            break
        vm.run("sleep 0.1")
    assert got == [
        {"event": "dev_new", "ifindex": index, "ifname": "xiw0",
         "netdev": "v0"},
        {"event": "dev_del", "ifindex": index, "ifname": "xiw0"}], got
    assert text == [f"dev new {index}: xiw0 netdev v0",
                    f"dev del {index}: xiw0"], text


def test_a_terminate_is_announced_at_both_ends(monitor, pair):
    """A Write through a wrong key: xiw1 sends DDP Invalid STag and says
    so; xiw0 receives it and says so; nothing else is announced."""
    vm = pair
    rc, r = client(vm, "a", SERVER, "--op", "write", "--size", 4096,
                   "--count", 1, "--inject", "stag", check=False)
    assert rc == 1, r
    term = {"layer": "ddp", "type": 1, "code": 0}
    for _ in range(TRIES):
        got, text = monitor()
        got = sorted((e for e in got if e["event"] == "qp_error"),
                     key=lambda e: e["ifname"])
        text = sorted(t for t in text if t.startswith("qp error"))
        if len(got) >= 2 and len(text) >= 2:
            break
        vm.run("sleep 0.1")
    assert [(e["event"], e["ifname"], e["terminate"]) for e in got] == [
        ("qp_error", "xiw0", dict(term, sent=False)),
        ("qp_error", "xiw1", dict(term, sent=True))], got
    assert all(e["qpn"] > 0 for e in got), got
    assert [t.split(" qp ")[0] for t in text] == [
        f"qp error {e['ifindex']}: {e['ifname']}" for e in got], text
    assert [t.split(" terminate ")[1] for t in text] == [
        "received layer ddp type 1 code 0x00",
        "sent layer ddp type 1 code 0x00"], text


def test_module_unload_announces_each_device_gone(monitor, hosts):
    """modprobe -r xiw removes every device: each is announced gone,
    before the family itself goes."""
    vm = hosts
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")
    vm.run("modprobe -r xiw")
    for _ in range(TRIES):
        got, text = monitor()
        gone = sorted(e["ifname"] for e in got if e["event"] == "dev_del")
        if len(gone) >= 2:
            break
        vm.run("sleep 0.1")
    assert gone == ["xiw0", "xiw1"], got
