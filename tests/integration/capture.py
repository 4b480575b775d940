"""Packet captures in the guest and their decoding by tshark, the
wire-format oracle for MPA, DDP and RDMAP."""
import shlex

from conftest import wait_until
from xiwperf_run import PORT


def capture(vm, ns, dev, fn, pcap, port=PORT):
    """Run fn() while dumpcap records TCP port (xiwperf's by default) on
    dev in ns into pcap."""
    vm.ns(ns, f"dumpcap -q -i {dev} -w {pcap} -f 'tcp port {port}' "
              f"> /tmp/dumpcap.log 2>&1 & echo $! > /tmp/dumpcap.pid")
    wait_until(vm, f"test -s {pcap}", "dumpcap started")
    try:
        fn()
    finally:
        # dumpcap writes in batches: let the file settle before stopping.
        vm.run(f"a=0; for i in $(seq 50); do sleep 0.3; "
               f"b=$(stat -c %s {pcap}); [ $a = $b ] && break; a=$b; done")
        vm.run("kill -INT $(cat /tmp/dumpcap.pid); "
               "for i in $(seq 100); do kill -0 $(cat /tmp/dumpcap.pid) "
               "2>/dev/null || break; sleep 0.1; done")


def tshark(vm, pcap, *args):
    """tshark's iwarp_mpa dissector is heuristic: it follows each
    connection from its MPA Request/Reply, which the capture contains.
    RPC-over-RDMA's heuristic is off: it claims Send payloads that are not
    RPC (xiwperf's) and then calls them malformed."""
    return vm.run("tshark -n --disable-protocol rpcordma -r {} {} "
                  "2>/dev/null".format(
        pcap, " ".join(shlex.quote(a) for a in args)), timeout=300).out


def assert_crcs(vm, pcap, crc, at_least):
    """With crc, every FPDU's CRC check (at least at_least of them) is
    good; without, the capture has none."""
    lines = [ln for ln in tshark(vm, pcap, "-V", "-Y", "iwarp_mpa.fpdu")
             .splitlines() if "CRC check:" in ln]
    if crc:
        assert len(lines) > at_least, len(lines)
        assert all("(Good CRC32)" in ln for ln in lines), \
            [ln for ln in lines if "(Good CRC32)" not in ln][:5]
    else:
        assert lines == [], lines[:5]
