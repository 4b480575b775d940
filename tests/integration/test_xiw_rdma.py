"""xiw's own data path, xiw <-> xiw: connections through rdma_cm and iw_cm,
MPA, Send/Write/Read with every byte checked by xiwperf, over a veth pair
between two namespaces and over loopback, and the wire checked by tshark."""
import json

import pytest

from capture import capture, tshark
from conftest import wait_until
from xiwperf_run import (PORT, client, load_xiwperf, set_params, start_client,
                         start_server, stop_server, wait_resources_released)


SIZES = [(1, 100), (4096, 100), (1 << 20, 8), (4 << 20, 2)]


def test_every_op_and_size_moves_every_byte_between_namespaces(pair):
    # Reads first: the server's read pattern is written once (see above).
    for op in ("read", "send", "write"):
        for size, count in SIZES:
            rc, r = client(pair, "a", "192.0.2.2", "--op", op, "--size", size,
                           "--count", count, "--check")
            assert r["device"] == "xiw0"
            assert r["completed"] == count, (op, size, r)
            assert r["bytes"] == size * count, (op, size, r)


def test_deep_queues_many_qps_and_reads_beyond_one_ord(pair):
    # 100 KB Reads, 16 outstanding: ORD/IRD and multi-FPDU Read Responses
    # interleaved across requests; then 8 QPs at depth 64 for every op.
    client(pair, "a", "192.0.2.2", "--op", "read", "--size", 100000,
           "--count", 64, "--depth", 16, "--check")
    for op in ("read", "send", "write"):
        rc, r = client(pair, "a", "192.0.2.2", "--op", op, "--size", 4096,
                       "--count", 1024, "--depth", 64, "--qps", 8, "--check")
        assert r["completed"] == 1024   # --count is the total over all QPs
        assert r["qps"] == 8


def test_loopback_device(vm):
    load_xiwperf(vm)
    vm.run("rdma link add xiwlo type xiw netdev lo")
    log = start_server(vm, None, "127.0.0.1", "lo")
    try:
        for op in ("read", "send", "write"):
            rc, r = client(vm, None, "127.0.0.1", "--op", op, "--size",
                           65536, "--count", 50, "--depth", 8, "--check")
            assert r["device"] == "xiwlo"
    finally:
        stop_server(vm, log)
        vm.run("rmmod xiwperf", check=False)


def test_mpa_revision_and_crc_matrix(pair):
    """Rev 1 and 2, CRC on and off: each combination connects and moves
    verified data (parameters apply to each new connection)."""
    try:
        # Every read before any write (one read pattern per server).
        for op in ("read", "send", "write"):
            for rev in (1, 2):
                for crc in ("required", "off"):
                    set_params(pair, mpa_rev=rev, crc_policy=crc)
                    client(pair, "a", "192.0.2.2", "--op", op, "--size",
                           10000, "--count", 10, "--depth", 4, "--check")
    finally:
        set_params(pair, mpa_rev=2, crc_policy="preferred")


def test_bad_parameter_values_are_refused_and_change_nothing(vm):
    vm.run("modprobe xiw")
    p = "/sys/module/xiw/parameters"
    for name, bad in (("crc_policy", "sometimes"), ("crc_policy", ""),
                      ("mpa_rev", "3"), ("mpa_rev", "0"), ("mpa_rev", "x")):
        before = vm.run(f"cat {p}/{name}").out
        res = vm.run(f"echo '{bad}' > {p}/{name}", check=False)
        assert res.rc != 0, (name, bad)
        assert vm.run(f"cat {p}/{name}").out == before
    vm.run(f"echo required > {p}/crc_policy")
    assert vm.run(f"cat {p}/crc_policy").out.strip() == "required"
    vm.run(f"echo preferred > {p}/crc_policy")


@pytest.mark.parametrize("crc", ["required", "off"])
def test_capture_decodes_as_iwarp_without_errors(pair, crc):
    pcap = f"/tmp/xiw-{crc}.pcapng"
    set_params(pair, crc_policy=crc)
    try:
        capture(pair, "a", "v0", lambda: [
            client(pair, "a", "192.0.2.2", "--op", op, "--size", 5000,
                   "--count", 10, "--check")
            for op in ("read", "send", "write")], pcap)
    finally:
        set_params(pair, crc_policy="preferred")

    # Every RDMAP opcode we sent shows up decoded.
    ops = tshark(pair, pcap, "-Y", "iwarp_rdma", "-T", "fields",
                 "-e", "iwarp_rdma.opcode").split()
    # Frames holding several FPDUs list one opcode each, comma-separated.
    ops = {int(x, 0) for o in ops for x in o.split(",") if x}
    assert {0, 1, 2, 3} <= ops, ops   # Write, Read Req, Read Resp, Send
    # MPA setup frames carry the C bit we configured.
    flags = tshark(pair, pcap, "-Y", "iwarp_mpa.req", "-T", "fields",
                   "-e", "iwarp_mpa.crc_flag").split()
    assert flags and all(f in (("1", "True") if crc == "required"
                               else ("0", "False")) for f in flags), flags
    # Nothing malformed, no expert error (a bad CRC is one).
    assert tshark(pair, pcap, "-Y", "_ws.malformed").strip() == ""
    errors = tshark(pair, pcap, "-Y", "_ws.expert.severity == error")
    assert errors.strip() == "", errors
    # tshark checks each FPDU's CRC field itself ("Good CRC32"); without
    # CRC negotiated it checks none.
    fpdus = tshark(pair, pcap, "-Y", "iwarp_mpa.fpdu").splitlines()
    assert len(fpdus) > 30, fpdus
    lines = [ln for ln in tshark(pair, pcap, "-V", "-Y", "iwarp_mpa.fpdu")
             .splitlines() if "CRC check:" in ln]
    if crc == "required":
        assert len(lines) >= len(fpdus), (len(lines), len(fpdus))
        assert all("(Good CRC32)" in ln for ln in lines), lines
    else:
        assert lines == [], lines[:5]   # no CRC negotiated, none checked


def test_connect_to_port_without_listener_fails_cleanly(pair):
    rc, r = client(pair, "a", "192.0.2.2", "--port", PORT + 1, "--op",
                   "send", "--size", 64, "--count", 1, check=False)
    assert rc != 0


def test_wildcard_listeners_in_two_namespaces_coexist(hosts):
    """Each namespace gets its own listening socket on 0.0.0.0:PORT."""
    vm = hosts
    load_xiwperf(vm)
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")
    la = start_server(vm, "a", "0.0.0.0", "wa")
    lb = start_server(vm, "b", "0.0.0.0", "wb")
    try:
        client(vm, "a", "192.0.2.2", "--op", "write", "--size", 4096,
               "--count", 20, "--check")
        client(vm, "b", "192.0.2.1", "--op", "read", "--size", 4096,
               "--count", 20, "--check")
    finally:
        stop_server(vm, la)
        stop_server(vm, lb)
        vm.run("rmmod xiwperf", check=False)


def test_a_wildcard_listen_serves_only_its_own_namespace(hosts):
    """rdma_cm hands a wildcard listen made in a to every device, xiw1 in
    b too: xiw opens no port in b for it and gives it none of b's
    connections (Documentation/admin.md, "Namespaces"). b's own listen,
    made after, gets them, and a's still gets a's."""
    vm = hosts
    load_xiwperf(vm)
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")
    la = start_server(vm, "a", "0.0.0.0", "wa")
    try:
        listening = vm.ns("b", f"ss -Hltn 'sport = :{PORT}'").out
        assert listening.strip() == "", listening
        rc, r = client(vm, "a", "192.0.2.2", "--op", "send", "--size", 64,
                       "--count", 1, check=False)
        assert rc != 0, r
        lb = start_server(vm, "b", "0.0.0.0", "wb")
        try:
            client(vm, "a", "192.0.2.2", "--op", "send", "--size", 4096,
                   "--count", 20, "--check")
            client(vm, "b", "192.0.2.1", "--op", "read", "--size", 4096,
                   "--count", 20, "--check")
        finally:
            stop_server(vm, lb)
    finally:
        stop_server(vm, la)
        vm.run("rmmod xiwperf", check=False)


def test_wildcard_listen_with_two_devices_in_one_namespace(hosts):
    """xiw1 on v1 and xiwb on a dummy netdev share namespace b; one
    wildcard listen serves both addresses (siw fails with EADDRINUSE)."""
    vm = hosts
    load_xiwperf(vm)
    vm.ns("b", "ip link add d0 type dummy && ip addr add 198.51.100.2/24 "
               "dev d0 && ip link set d0 up")
    vm.ns("a", "ip route add 198.51.100.0/24 via 192.0.2.2")
    vm.ns("a", "rdma link add xiw0 type xiw netdev v0")
    vm.ns("b", "rdma link add xiw1 type xiw netdev v1")
    vm.ns("b", "rdma link add xiwd type xiw netdev d0")
    lb = start_server(vm, "b", "0.0.0.0", "w2")
    try:
        client(vm, "a", "192.0.2.2", "--op", "send", "--size", 4096,
               "--count", 20, "--check")
        client(vm, "a", "198.51.100.2", "--op", "send", "--size", 4096,
               "--count", 20, "--check")
    finally:
        stop_server(vm, lb)
        vm.run("rmmod xiwperf", check=False)


def test_multiple_sges_and_inline_data(pair):
    """Kernel verbs with several SGEs per work request and inline data:
    every byte still lands where it belongs. xiw takes 6 SGEs per Send,
    Write and receive but 1 per Read (max_sge_rd), and 256 bytes inline."""
    def run(*args, **kw):
        return client(pair, "a", "192.0.2.2", *args, **kw)

    # Reads first (the server's read pattern). A 1-byte buffer is one SGE
    # whatever --sge says; two SGEs per Read are beyond xiw's max_sge_rd.
    for size in (1, 4096):
        rc, r = run("--op", "read", "--size", size, "--count", 10,
                    "--sge", 4 if size == 1 else 1, "--check")
        assert r["completed"] == 10
    rc, r = run("--op", "read", "--size", 4096, "--count", 10, "--sge", 2,
                "--check", check=False)
    assert rc == 1, r
    assert r["error"] == ("device xiw0 does not support 2 SGEs per RDMA "
                          "Read: its max_sge_rd is 1"), r
    assert r["completed"] == 0 and r["data_ok"] is None

    # Send (the server's receives get as many SGEs) and Write, 1 to 4
    # SGEs, sizes that do and do not divide evenly, 7 bytes over 4 SGEs
    # being 2+2+2+1, 100000 bytes several FPDUs long.
    for op in ("send", "write"):
        for sge in (1, 2, 3, 4):
            for size, count in ((1, 10), (7, 10), (4096, 20), (100000, 8)):
                rc, r = run("--op", op, "--size", size, "--count", count,
                            "--depth", 4, "--sge", sge, "--check")
                assert (r["op"], r["sge"], r["inline"]) == (op, sge, False)
                assert r["completed"] == count, (op, sge, size, r)
                assert r["bytes"] == size * count

    # Inline data, alone and gathered from 4 SGEs; beyond xiw's 256 bytes
    # the QP is refused and the run fails with a clear message.
    for op in ("send", "write"):
        for size, sge in ((1, 1), (200, 1), (200, 4), (256, 3)):
            rc, r = run("--op", op, "--size", size, "--count", 20, "--depth",
                        4, "--sge", sge, "--inline", "--check")
            assert (r["sge"], r["inline"]) == (sge, True)
            assert r["completed"] == 20, (op, size, sge, r)
        rc, r = run("--op", op, "--size", 300, "--count", 1, "--inline",
                    "--check", check=False)
        assert rc == 1, r
        assert r["error"].startswith("device xiw0 does not support 300 bytes "
                                     "of inline data: "), r
        assert r["completed"] == 0


def test_idle_qps_are_set_up_and_never_connect(pair):
    """xiwperf client --idle, with which make bench measures what a QP
    that never connected costs: during the hold its QPs exist on xiw0,
    none has left INIT and no connection reached the server; ended (by
    SIGTERM, well before the hold would), it leaves nothing behind."""
    vm = pair
    out = start_client(vm, "a", "192.0.2.2", "idle", "--op write --size 8 "
                       "--count 4 --qps 4 --hold 60 --idle")
    wait_until(vm, "set -- $(rdma -j res show qp | grep -o '\"lqpn\"'); "
                   "[ $# -ge 4 ]", "the idle client's 4 QPs")
    qps = json.loads(vm.run("rdma -j res show qp").out)
    assert len(qps) == 4 and all(q["ifname"] == "xiw0" and q["state"] == "INIT"
                                 for q in qps), qps
    vm.run("pkill -TERM -f '^[^ ]*xiwperf client .*--idle'", check=False)
    wait_until(vm, f"test -s {out}.rc", "the idle client ended")
    wait_resources_released(vm, {"xiw1": 1})
