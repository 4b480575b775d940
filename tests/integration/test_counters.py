"""The device counters of the data path, as "rdma statistic" shows them
(Documentation/admin.md): FPDUs and their ULPDU octets each way, and
Terminates sent and received; and the same counters through the xiw
family (xiwctl stats)."""
import json
import os

from conftest import TOP, wait_until
from xiwperf_run import client, counted, hw_counters

XIWCTL = os.path.join(TOP, "build", "cmake", "tools", "xiwctl")

SERVER = "192.0.2.2"


def counters(vm):
    return {dev: hw_counters(vm, dev) for dev in ("xiw0", "xiw1")}


def deltas(vm, before):
    after = counters(vm)
    return {dev: counted(before[dev], after[dev]) for dev in after}


def test_fpdus_and_octets_are_counted_each_way(pair):
    """100 Sends of 4 KiB from xiw0 to xiw1, one FPDU each at least: the
    sender framed them and the receiver took them whole, octets included
    (the runs' own messages come on top); no CRC error, no Terminate."""
    before = counters(pair)
    rc, r = client(pair, "a", SERVER, "--op", "send", "--size", 4096,
                   "--count", 100, "--depth", 4, "--check")
    # Whatever the client sent the server received: the run ended with a
    # graceful close. (Polled a bounded number of guest round trips: the
    # server's receive path may finish just after the client returns.)
    for _ in range(50):
        n = deltas(pair, before)
        if n["xiw1"]["rx_fpdus"] == n["xiw0"]["tx_fpdus"]:
            break
        pair.run("sleep 0.1")
    assert n["xiw1"]["rx_fpdus"] == n["xiw0"]["tx_fpdus"], n
    assert n["xiw1"]["rx_bytes"] == n["xiw0"]["tx_bytes"], n
    assert n["xiw0"]["tx_fpdus"] >= 100, n
    assert n["xiw0"]["tx_bytes"] >= 100 * 4096, n
    assert n["xiw0"]["rx_fpdus"] > 0 and n["xiw1"]["tx_fpdus"] > 0, n
    for dev in n:
        assert n[dev]["crc_errors"] == 0, n
        assert n[dev]["terminates_sent"] == 0, n
        assert n[dev]["terminates_received"] == 0, n


def test_a_terminate_is_counted_at_both_ends(pair):
    """A Write through a wrong key: the server terminates the stream, and
    the client's device receives the Terminate."""
    before = counters(pair)
    rc, r = client(pair, "a", SERVER, "--op", "write", "--size", 4096,
                   "--count", 1, "--inject", "stag", check=False)
    assert rc == 1, r
    n = deltas(pair, before)
    assert n["xiw1"]["terminates_sent"] == 1, n
    assert n["xiw0"]["terminates_received"] == 1, n
    assert n["xiw0"]["terminates_sent"] == 0, n


def test_xiwctl_stats_reads_what_rdma_statistic_reads(pair):
    """The counters through the xiw family (xiwctl stats) are the ones the
    RDMA core shows (rdma statistic), name for name and value for value,
    for one device and for all."""
    client(pair, "a", SERVER, "--op", "write", "--size", 4096,
           "--count", 20, "--check")
    # Once the server's side is done too, nothing counts any more.
    wait_until(pair, "a=$(rdma -j statistic show); sleep 0.2; "
               "[ \"$a\" = \"$(rdma -j statistic show)\" ]",
               "the counters settled")
    theirs = {dev: hw_counters(pair, dev) for dev in ("xiw0", "xiw1")}
    assert theirs["xiw1"]["rx_fpdus"] >= 20, theirs
    ours = json.loads(pair.run(f"{XIWCTL} -j stats").out)
    assert [s["ifname"] for s in ours] == ["xiw0", "xiw1"], ours
    for s in ours:
        assert s["port"] == 1, s
        counters = {k: v for k, v in s.items()
                    if k not in ("ifindex", "ifname", "port")}
        assert counters == theirs[s["ifname"]], (s, theirs)
    text = pair.run(f"{XIWCTL} stats show xiw1").out.split()
    assert text[:2] == ["link", "xiw1/1"], text
    assert dict(zip(text[2::2], map(int, text[3::2]))) == theirs["xiw1"]
    res = pair.run(f"{XIWCTL} stats nosuch", check=False)
    assert res.rc == 1
    assert res.err == ("xiwctl: counters of nosuch: No such device: no such "
                       "xiw device\n"), res.err
