"""Packet captures in the guest and their decoding by tshark, the
wire-format oracle for MPA, DDP and RDMAP.

dumpcap records in the guest, and its file goes to the guest's writable
share (/run/xiw/out, the VM's outdir on the host); tshark decodes on the
host, the same binary the guest would run (the guest's root is the
host's), without the emulation cost. A test names its capture by a path;
only the file name is used.
"""
import os
import re
import struct
import subprocess

from conftest import wait_until
from xiwperf_run import PORT

GUEST_SHARE = "/run/xiw/out"
# The kernel ring dumpcap reads from, in MiB.
BUFFER_MIB = 128


def guest_pcap(pcap):
    return os.path.join(GUEST_SHARE, os.path.basename(pcap))


def host_pcap(vm, pcap):
    return os.path.join(vm.outdir, os.path.basename(pcap))


def capture(vm, ns, dev, fn, pcap, port=PORT):
    """Run fn() while dumpcap records TCP port (xiwperf's by default) on
    dev in ns into pcap; fail if the capture lost a packet.

    dumpcap writes to the guest's tmpfs, from a ring of BUFFER_MIB, and
    the file goes to the share once it is closed: written straight to the
    9p share, a capture of an NFS run lost one segment in five, and a
    frame after a gap can look malformed to tshark."""
    local = f"/tmp/{os.path.basename(pcap)}"
    vm.run(f"rm -f {local} {guest_pcap(pcap)}")
    vm.ns(ns, f"dumpcap -B {BUFFER_MIB} -i {dev} -w {local} "
              f"-f 'tcp port {port}' > /tmp/dumpcap.log 2>&1 & "
              f"echo $! > /tmp/dumpcap.pid")
    wait_until(vm, f"test -s {local}", "dumpcap started")
    try:
        fn()
    finally:
        # dumpcap writes in batches: let the file settle before stopping.
        vm.run(f"a=0; for i in $(seq 50); do sleep 0.3; "
               f"b=$(stat -c %s {local}); [ $a = $b ] && break; a=$b; done")
        # The pid read once, by the shell (each process costs ~0.1 s
        # under TCG).
        vm.run("read -r pid < /tmp/dumpcap.pid; kill -INT $pid; i=0; "
               "while [ $i -lt 200 ] && kill -0 $pid 2>/dev/null; do "
               "sleep 0.05; i=$((i+1)); done")
    log = vm.run(f"cp {local} {guest_pcap(pcap)} && rm {local} && "
                 "cat /tmp/dumpcap.log").out
    dropped = re.search(r"received/dropped on interface .*: (\d+)/(\d+)",
                        log)
    assert dropped, f"dumpcap printed no counts:\n{log}"
    assert dropped.group(2) == "0", f"the capture lost packets:\n{log}"


def tshark(vm, pcap, *args):
    """tshark's output for a capture made by capture().

    Its iwarp_mpa dissector is heuristic: it follows each connection from
    its MPA Request/Reply, which the capture contains. RPC-over-RDMA's
    heuristic is off: it claims Send payloads that are not RPC (xiwperf's)
    and then calls them malformed."""
    res = subprocess.run(["tshark", "-n", "--disable-protocol", "rpcordma",
                          "-r", host_pcap(vm, pcap), *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, timeout=300)
    assert res.returncode == 0, f"tshark {args}: {res.stderr}"
    return res.stdout


def rdmap_terminates(vm, pcap):
    """Every Terminate of a capture that carries an RDMAP error: (source,
    layer, error type, code, the DDP header it includes, the RDMAP header
    it includes), the numbers as ints, the headers as tshark shows them
    ("" when not included)."""
    rows = tshark(vm, pcap, "-Y", "iwarp_rdma.opcode == 7", "-T", "fields",
                  "-e", "ip.src", "-e", "iwarp_rdma.term_layer",
                  "-e", "iwarp_rdma.term_etype_rdma",
                  "-e", "iwarp_rdma.term_errcode_rdma",
                  "-e", "iwarp_rdma.term_ddp_h",
                  "-e", "iwarp_rdma.term_rdma_h").splitlines()
    found = []
    for row in rows:
        src, layer, etype, code, ddp_h, rdma_h = row.split("\t")
        found.append((src, int(layer, 16), int(etype, 16), int(code, 16),
                      ddp_h, rdma_h))
    return found


def untagged_fpdus(vm, pcap):
    """(RDMAP control octet, QN, MSN, what follows the untagged DDP
    header) of every untagged DDP segment of queues 1 and 3 in a capture:
    from the TCP payload (tshark's RDMAP dissector reads four opcode bits
    and knows none of the draft's messages). The FPDUs of a segment are
    walked by their lengths; no marker is negotiated."""
    out = []
    for row in tshark(vm, pcap, "-Y", "tcp.len > 0", "-T", "fields", "-e",
                      "tcp.payload").split():
        data = bytes.fromhex(row.replace(":", ""))
        while len(data) >= 2 + 18:
            ulpdu = struct.unpack(">H", data[:2])[0]
            seg = data[2:2 + ulpdu]
            data = data[2 + ulpdu + (-(ulpdu + 2) % 4) + 4:]
            if seg[0] & 0x80:           # tagged
                continue
            qn, msn = struct.unpack(">II", seg[6:14])
            if qn in (1, 3):
                out.append((seg[1], qn, msn, seg[18:]))
    return out


def assert_crcs(vm, pcap, crc, at_least, where=None):
    """With crc, every FPDU's CRC check (at least at_least of them) is
    good; without, the capture has none. where: a display filter the
    frames checked must also pass."""
    shown = "iwarp_mpa.fpdu" + (f" && ({where})" if where else "")
    lines = [ln for ln in tshark(vm, pcap, "-V", "-Y", shown)
             .splitlines() if "CRC check:" in ln]
    if crc:
        assert len(lines) > at_least, len(lines)
        assert all("(Good CRC32)" in ln for ln in lines), \
            [ln for ln in lines if "(Good CRC32)" not in ln][:5]
    else:
        assert lines == [], lines[:5]


# RDMAP's Send opcodes: a header of 2 + 18 octets, then payload. Every
# other untagged FPDU (requests, responses, Terminates, Immediate Data)
# is all header.
SEND_OPCODES = (3, 4, 5, 6)


def untagged_headers_split(vm, pcap, src):
    """How the headers of the untagged FPDUs that src sends in a capture
    arrived (kmod/tx.c, "Segments"): (how many FPDUs there were, [(stream,
    stream offset) of each whose header a segment boundary cuts]). A
    Send's header is its length and DDP's 18 octets; any other untagged
    FPDU is header throughout. Each TCP stream is put back together from
    its segments, walked from its MPA Request or Reply, FPDU by FPDU; no
    marker is negotiated."""
    rows = tshark(vm, pcap, "-Y", f"ip.src == {src} && tcp.len > 0",
                  "-T", "fields", "-e", "tcp.stream", "-e", "tcp.seq",
                  "-e", "tcp.payload").splitlines()
    streams = {}
    for row in rows:
        stream, seq, payload = row.split("\t")
        streams.setdefault(int(stream), []).append(
            (int(seq) - 1, bytes.fromhex(payload.replace(":", ""))))
    count, split = 0, []
    for stream, segs in sorted(streams.items()):
        size = max(off + len(p) for off, p in segs)
        data = bytearray(size)
        for off, p in segs:
            data[off:off + len(p)] = p
        starts = {off for off, _ in segs}
        assert data[:4] == b"MPA ", (stream, bytes(data[:16]))
        at = 20 + struct.unpack(">H", data[18:20])[0]
        while at + 2 + 18 <= size:
            ulpdu = struct.unpack(">H", data[at:at + 2])[0]
            end = at + 2 + ulpdu + (-(ulpdu + 2) % 4) + 4
            if not data[at + 2] & 0x80:
                count += 1
                op = data[at + 3] & 0x1f
                head = 2 + (18 if op in SEND_OPCODES else ulpdu)
                if any(at < s < at + head for s in starts):
                    split.append((stream, at))
            at = end
    return count, split
