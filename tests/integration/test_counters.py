"""The device counters of the data path, as "rdma statistic" shows them
(Documentation/admin.md): FPDUs and their ULPDU octets each way, and
Terminates sent and received; and the same counters through the xiw
family (xiwctl stats)."""
import json
import os

from conftest import TOP, wait_until
from schema import check
from xiwperf_run import client, counted, hw_counters, set_params

XIWCTL = os.path.join(TOP, "build", "cmake", "tools", "xiwctl")

SERVER = "192.0.2.2"


def settled(vm):
    """Wait until every QP of the runs is destroyed, the server's too
    (after its receive engine took all that came before the client's
    FIN): nothing counts any more."""
    wait_until(vm, "! rdma res show qp | grep -q .",
               "every QP of the runs destroyed")


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
    # graceful close (the server's receive path may finish just after the
    # client returns).
    settled(pair)
    n = deltas(pair, before)
    assert n["xiw1"]["rx_fpdus"] == n["xiw0"]["tx_fpdus"], n
    assert n["xiw1"]["rx_bytes"] == n["xiw0"]["tx_bytes"], n
    assert n["xiw0"]["tx_fpdus"] >= 100, n
    assert n["xiw0"]["tx_bytes"] >= 100 * 4096, n
    assert n["xiw0"]["rx_fpdus"] > 0 and n["xiw1"]["tx_fpdus"] > 0, n
    # Messages by opcode: every Send sent whole was received whole.
    assert n["xiw0"]["tx_msg_send"] >= 100, n
    assert n["xiw1"]["rx_msg_send"] == n["xiw0"]["tx_msg_send"], n
    assert n["xiw0"]["tx_msg_write"] == 0, n
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
    assert n["xiw1"]["tx_msg_terminate"] == 1, n
    assert n["xiw0"]["rx_msg_terminate"] == 1, n
    # By code (the xiw family only): DDP, tagged buffer, invalid STag
    ddp_invalid_stag = {"layer": "ddp", "type": 1, "code": 0, "count": 1}
    got = {s["ifname"]: s["terminates"] for s in
           json.loads(pair.run(f"{XIWCTL} -j stats").out)}
    assert got == {"xiw0": [dict(ddp_invalid_stag, sent=False)],
                   "xiw1": [dict(ddp_invalid_stag, sent=True)]}, got
    text = pair.run(f"{XIWCTL} stats xiw1").out
    assert text.rstrip().endswith(" terminate_sent_ddp_1_0x00 1"), text


def test_xiwctl_stats_reads_what_rdma_statistic_reads(pair):
    """The counters through the xiw family (xiwctl stats) are the ones the
    RDMA core shows (rdma statistic), name for name and value for value,
    for one device and for all."""
    client(pair, "a", SERVER, "--op", "write", "--size", 4096,
           "--count", 20, "--check")
    # Once the server's side is done too, nothing counts any more.
    settled(pair)
    theirs = {dev: hw_counters(pair, dev) for dev in ("xiw0", "xiw1")}
    assert theirs["xiw1"]["rx_fpdus"] >= 20, theirs
    ours = json.loads(pair.run(f"{XIWCTL} -j stats").out)
    assert [s["ifname"] for s in ours] == ["xiw0", "xiw1"], ours
    for s in ours:
        assert s["port"] == 1, s
        counters = {k: v for k, v in s.items()
                    if k not in ("ifindex", "ifname", "port", "terminates")}
        assert counters == theirs[s["ifname"]], (s, theirs)
        assert s["terminates"] == [], s
    text = pair.run(f"{XIWCTL} stats show xiw1").out.split()
    assert text[:2] == ["link", "xiw1/1"], text
    assert dict(zip(text[2::2], map(int, text[3::2]))) == theirs["xiw1"]
    res = pair.run(f"{XIWCTL} stats nosuch", check=False)
    assert res.rc == 1
    assert res.err == ("xiwctl: counters of nosuch: No such device: no such "
                       "xiw device\n"), res.err


def test_xiwctl_stats_watch_prints_what_changed(pair):
    """xiwctl -j stats -w prints, each period in which a counter grew, the
    device's stats object with what each counter grew by: over a run, its
    increases add up to what rdma statistic
    counted meanwhile (from its first reading, taken before its first
    line)."""
    vm = pair
    out = "/tmp/stats-watch.json"
    vm.run(f": > {out}; {XIWCTL} -j stats xiw1 -w 0.2 >> {out} 2>&1 & "
           "echo $! > /tmp/stats-watch.pid")
    try:
        start = hw_counters(vm, "xiw1")

        def lines():
            return [check(json.loads(ln), "stats_watch_line") for ln in
                    vm.run(f"cat {out}").out.splitlines() if ln]
        # Its first line follows its first reading, whatever it counts:
        # one Send at a time until a line shows (its first reading may
        # come after a Send).
        for _ in range(20):
            client(vm, "a", SERVER, "--op", "send", "--size", 64,
                   "--count", 1, "--check")
            if vm.run(f"test -s {out}", check=False).rc == 0:
                break
        else:
            raise AssertionError("the watch printed nothing")
        mid = hw_counters(vm, "xiw1")
        client(vm, "a", SERVER, "--op", "send", "--size", 64, "--count", 50,
               "--depth", 4, "--check")
        settled(vm)
        end = hw_counters(vm, "xiw1")
        for _ in range(50):
            got = lines()
            total = sum(ln.get("rx_msg_send", 0) for ln in got)
            if total >= end["rx_msg_send"] - mid["rx_msg_send"]:
                break
            vm.run("sleep 0.1")
        assert end["rx_msg_send"] - mid["rx_msg_send"] >= 50, (mid, end)
        assert end["rx_msg_send"] - mid["rx_msg_send"] <= total <= \
            end["rx_msg_send"] - start["rx_msg_send"], (total, got)
        # Each line is xiw1's stats object (stats -j's shape, checked by
        # the schema), every counter there, and something grew.
        shape = check(json.loads(vm.run(f"{XIWCTL} -j stats xiw1").out),
                      "stats")[0]
        for ln in got:
            assert ln["ifname"] == "xiw1", ln
            assert set(ln) == set(shape), (ln, shape)
            assert any(v for k, v in ln.items() if isinstance(v, int) and
                       k not in ("ifindex", "port")) or ln["terminates"], ln
    finally:
        vm.run("kill $(cat /tmp/stats-watch.pid)", check=False)


def test_markers_stripped_are_counted(pair):
    """Both ends ask for markers: each device strips one every 512 octets
    of the stream it receives, at least one per 512 ULPDU octets its peer
    sent (less one per connection: where a stream starts); none without
    markers."""
    vm = pair

    def run():
        before = counters(vm)
        client(vm, "a", SERVER, "--op", "write", "--size", 100000,
               "--count", 10, "--check")
        settled(vm)
        return deltas(vm, before)
    n = run()
    assert n["xiw0"]["markers_stripped"] == 0, n
    assert n["xiw1"]["markers_stripped"] == 0, n
    set_params(vm, markers="Y")
    n = run()
    for dev, peer in (("xiw0", "xiw1"), ("xiw1", "xiw0")):
        assert n[dev]["markers_stripped"] >= \
            n[peer]["tx_bytes"] // 512 - 4 > 0, (dev, n)


def test_a_full_send_buffer_is_counted_as_a_tx_stall(pair):
    """A path slower than the sender (v0's egress shaped to 100 Mbit/s)
    and more outstanding than TCP's send buffer can take (16 Writes of
    1 MiB at once, the server buffer's worth): the transmit engine finds the buffer full and waits,
    which tx_stalls counts; the data still arrives whole."""
    pair.run("ip netns exec a tc qdisc add dev v0 root tbf rate 100mbit "
             "burst 64kb latency 1s")
    before = counters(pair)
    client(pair, "a", SERVER, "--op", "write", "--size", 1 << 20,
           "--count", 32, "--depth", 16, "--check")
    n = deltas(pair, before)
    assert n["xiw0"]["tx_stalls"] > 0, n
    assert n["xiw0"]["tx_msg_write"] >= 32, n
    for dev in n:
        assert n[dev]["crc_errors"] == 0 and n[dev]["terminates_sent"] == 0, n
