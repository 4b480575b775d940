"""The side-by-side benchmark behind "make bench": the same xiwperf matrix
over xiw (CRC off and on), stock siw and rxe, and iperf3 between the same
two hosts as the ceiling of any TCP-based RNIC on that path, all in one
guest boot; then the report (JSON, Markdown) and plots (gnuplot PNGs).

Placement: xiw and siw run between namespaces a (client, 192.0.2.1) and
b (server, 192.0.2.2) over a veth pair, as iperf3 does. rxe in 6.12 only
works in the initial namespace, so it runs with one device on a dummy
netdev there, client and server on 192.0.2.3: a loopback path, which the
report says. Then perftest over xiw, siw and rxe from userspace
(userspace.py). Figures under TCG are no hardware's; only ratios within
one run mean something.
"""
import datetime
import json
import os

from conftest import two_hosts, wait_until
from nfs import Nfs
from report import targets
import userspace
from xiwperf_run import (LOAD_XIWPERF, XIWPERF,
                         check_xiwperf_built, start_server, stop_server)

MIB = 1 << 20
# 8 B to 2 MiB in powers of 4, then 4 MiB (xiwperf's largest).
SIZES = [8 << (2 * k) for k in range(10)] + [4 * MIB]
SWEEP_OPS = ("write", "read", "send")
# Scaling keeps the outstanding work constant (QPs x depth = 64), so that
# only its spread over QPs changes.
SCALING = ((1, 64), (8, 8), (64, 1))
SCALING_SIZE = 64 << 10
# Each spread moves 256 MiB, three times: the median is the figure (one
# short run was noisy enough to swing the ratio across its bound).
SCALING_BUDGET = 256 * MIB
SCALING_RUNS = 3
# The extensions, xiw only (siw and rxe speak none of them as xiw does).
EXT_OPS = {
    "fetch_add": ["--remote-mr", "frwr"],
    "cmp_swap": ["--remote-mr", "frwr", "--compare", "0", "--swap", "0"],
    "write_imm": ["--size", "4096"],
    "atomic_write": ["--remote-mr", "frwr"],
    "flush": ["--size", "4096", "--remote-mr", "frwr", "--global"],
}
USER_HZ = 100
TCP_SECONDS = 5


class Device:
    """How to bring one kind of device up and down in the guest, and where
    its server and client live."""

    def __init__(self, name, up, down, server_ns, client_ns, addr,
                 extensions=False, note=""):
        self.name, self.up, self.down = name, up, down
        self.server_ns, self.client_ns, self.addr = server_ns, client_ns, addr
        self.extensions = extensions
        self.note = note

    def client(self, *args):
        """Shell text of an xiwperf client run against this device's
        server, where its client lives, with JSON output."""
        prefix = f"ip netns exec {self.client_ns} " if self.client_ns else ""
        return (f"{prefix}{XIWPERF} client --addr {self.addr} --json "
                + " ".join(str(a) for a in args))


def xiw_device(crc):
    policy = "required" if crc else "off"
    return Device(
        "xiw-crc" if crc else "xiw",
        f"modprobe xiw && echo {policy} > /sys/module/xiw/parameters/crc_policy"
        " && ip netns exec a rdma link add xiw0 type xiw netdev v0"
        " && ip netns exec b rdma link add xiw1 type xiw netdev v1",
        "ip netns exec a rdma link delete xiw0; "
        "ip netns exec b rdma link delete xiw1; "
        "echo preferred > /sys/module/xiw/parameters/crc_policy",
        "b", "a", "192.0.2.2", extensions=True,
        note="MPA CRC " + ("on" if crc else "off") + ", veth between netns")


SIW = Device(
    "siw",
    "modprobe siw && ip netns exec a rdma link add siw0 type siw netdev v0"
    " && ip netns exec b rdma link add siw1 type siw netdev v1",
    "ip netns exec a rdma link delete siw0; "
    "ip netns exec b rdma link delete siw1",
    "b", "a", "192.0.2.2",
    note="stock siw (never asks for MPA CRC), veth between netns")

RXE = Device(
    "rxe",
    "modprobe rdma_rxe && ip link add d0 type dummy && "
    "ip addr add 192.0.2.3/24 dev d0 && ip link set d0 up && "
    "rdma link add rxe0 type rxe netdev d0",
    "rdma link delete rxe0; ip link del d0",
    None, None, "192.0.2.3",
    note="one device on a dummy netdev in the initial netns (rxe in 6.12 "
         "works there only): loopback, not the veth path")

DEVICES = (xiw_device(False), xiw_device(True), SIW, RXE)


def op_count(size, depth, qps=1, budget=64 * MIB):
    """Operations per cell: about budget bytes moved; at least enough for
    a latency histogram or to fill every QP's queue, at most what keeps a
    small-message cell near a second or two under TCG (scaled with the
    budget)."""
    lo, hi = (16 * qps, 5000) if depth == 1 else (64 * qps, 50000)
    hi = max(lo, hi * budget // (64 * MIB))
    return max(lo, min(hi, budget // size))


def cell(op, size, depth=1, qps=1, extra=(), budget=64 * MIB):
    return {"op": op, "size": size, "depth": depth, "qps": qps,
            "count": op_count(size, depth, qps, budget),
            "extra": list(extra)}


def scaling_cell(qps, depth, budget=SCALING_BUDGET, runs=SCALING_RUNS):
    """WRITE 64 KiB spread over qps x depth, run several times."""
    return {**cell("write", SCALING_SIZE, depth, qps, budget=budget),
            "scaling": True, "runs": runs}


def full_matrix():
    """Every cell make bench runs, per device (extensions: xiw only)."""
    cells = [cell(op, size, depth) for op in SWEEP_OPS for size in SIZES
             for depth in (1, 64)]
    cells.append(cell("send", 4096, 64))
    # Last: stock siw has oopsed in them (Documentation/performance.md),
    # and a device's cells end where the guest stops answering.
    cells += [scaling_cell(qps, depth) for qps, depth in SCALING]
    ext = [cell(op, 8, depth, extra=args) for op, args in EXT_OPS.items()
           for depth in (1, 64)]
    return cells, ext


def smoke_matrix():
    """A few cells: enough to prove the tooling, end to end."""
    small = 4 * MIB
    return ([cell("write", SCALING_SIZE, 64, budget=small),
             cell("read", 8, 1, budget=small),
             cell("send", 4096, 64, budget=small),
             scaling_cell(1, 64, budget=small, runs=2),
             scaling_cell(64, 1, budget=small, runs=1)],
            [cell("fetch_add", 8, 1, extra=EXT_OPS["fetch_add"],
                  budget=small)])


# One guest command per cell: busy jiffies from /proc/stat's first line
# (user nice system idle iowait irq softirq steal) around the command.
def _stat_wrapped(cmd):
    stat = ("read -r _ u n s _ _ q sq st _ < /proc/stat; "
            "b=$((u + n + s + q + sq + st))")
    return (f"{stat}; b0=$b; {cmd} > /tmp/bench-cell.out 2> /tmp/bench-cell.err;"
            f" rc=$?; {stat}; echo \"cpu $((b - b0)) rc $rc\"; "
            "tail -n 1 /tmp/bench-cell.out; tail -n 3 /tmp/bench-cell.err")


def _run_measured(vm, cmd, timeout):
    """(exit status, busy CPU seconds, the command's last output lines)."""
    out = vm.run(_stat_wrapped(cmd), timeout=timeout, check=False).out
    lines = out.splitlines()
    if not lines or not lines[0].startswith("cpu "):
        raise OSError(f"no answer from the guest's shell: {out!r}")
    _, jiffies, _, rc = lines[0].split()
    return int(rc), int(jiffies) / USER_HZ, lines[1:]


def run_cell(vm, dev, c):
    """The cell's figures (or its error): with c["runs"], the run of median
    throughput among that many, all their throughputs listed."""
    runs = [run_one(vm, dev, c) for _ in range(c.get("runs", 1))]
    bad = [r for r in runs if "error" in r]
    if bad or len(runs) == 1:
        return (bad or runs)[0]
    runs.sort(key=lambda r: r["gbit_per_s"])
    mid = dict(runs[len(runs) // 2])
    mid["gbit_per_s_runs"] = [r["gbit_per_s"] for r in runs]
    return mid


# Stock siw binds its TCP socket to the port rdma_cm chose, which comes
# from rdma_cm's own port space: now and then TCP has it in use (a
# TIME_WAIT socket of an earlier connection) and the connect fails with
# EADDRINUSE. xiw takes another port then (cm.c). Each device starts on
# fresh namespaces (run_device()), so no other device's TIME_WAIT sockets
# are there; for one of siw's own the cell is run again, once, and the
# retry is recorded.
SIW_PORT_CLASH = "Address already in use"


def run_one(vm, dev, c):
    """One xiwperf client run; the cell with its figures (or its error)."""
    res = _run_one(vm, dev, c)
    if dev.name == "siw" and SIW_PORT_CLASH in res.get("error", ""):
        res = _run_one(vm, dev, c)
        res["siw_port_clash_retries"] = 1
    return res


def _run_one(vm, dev, c):
    args = ["--op", c["op"], "--count", c["count"], "--depth", c["depth"],
            "--qps", c["qps"], "--timeout", "30"]
    if "--size" not in c["extra"]:
        args += ["--size", c["size"]]
    rc, cpu, lines = _run_measured(vm, dev.client(*args, *c["extra"]),
                                   timeout=120)
    res = {k: v for k, v in c.items() if k != "extra"}
    res["device"] = dev.name
    try:
        j = json.loads(lines[0])
    except (IndexError, ValueError):
        j = None
    if rc != 0 or not j or j.get("errors"):
        res["error"] = " ".join(lines)[-300:] or f"exit {rc}"
        return res
    gib = j["bytes"] / (1 << 30)
    res.update(size=j["size"], seconds=j["seconds"],
               gbit_per_s=j["gbit_per_s"], mops=j["mops"],
               lat_p50_us=j["lat_us"]["p50"], lat_p99_us=j["lat_us"]["p99"],
               cpu_s=round(cpu, 2),
               cpu_s_per_gib=round(cpu / gib, 2) if gib > 0 else None)
    return res


def run_tcp(vm, seconds=TCP_SECONDS):
    """iperf3 from a to b for some seconds: the ceiling of the path."""
    return run_iperf3(vm, "ip netns exec b ", vm, "ip netns exec a ",
                      "192.0.2.2", seconds)


def run_iperf3(server_vm, server_prefix, client_vm, client_prefix, addr,
               seconds):
    """iperf3's server in server_vm, its client in client_vm (each command
    after its prefix, a namespace's "ip netns exec NS " or ""), for some
    seconds: the result, CPU counted in the client's guest."""
    server_vm.run(f"{server_prefix}iperf3 -s -D -1 -I /tmp/iperf3.pid")
    wait_until(server_vm, f"{server_prefix}ss -ltn | grep -q :5201",
               "iperf3 listening", tries=50)
    rc, cpu, lines = _run_measured(
        client_vm, f"{client_prefix}iperf3 -c {addr} -t {seconds} -J "
                   "| tr -d '\\n'", timeout=120)
    res = {"device": "tcp", "op": "stream", "tool": "iperf3"}
    try:
        j = json.loads(lines[0])
        bps = j["end"]["sum_received"]["bits_per_second"]
    except (IndexError, ValueError, KeyError):
        res["error"] = " ".join(lines)[-300:] or f"exit {rc}"
        return res
    gib = bps / 8 * seconds / (1 << 30)
    res.update(gbit_per_s=round(bps / 1e9, 3), seconds=seconds,
               cpu_s=round(cpu, 2), cpu_s_per_gib=round(cpu / gib, 2))
    return res


# Connections held open for the memory figure: 4 clients of xiwperf's
# most QPs (64) each, idle for up to MEM_HOLD_S seconds.
MEM_CLIENTS = 4
MEM_QPS = 64
MEM_HOLD_S = 20
# /proc/meminfo fields (KiB): used is what free(1) calls used, all the
# memory neither free nor page cache; slab is the part slab caches hold.
MEMINFO = ("while read -r k v _; do case $k in MemTotal:|MemFree:|Buffers:|"
           "Cached:|Slab:) echo \"$k $v\" ;; esac; done < /proc/meminfo")


def _meminfo(vm):
    m = dict(ln.split() for ln in vm.run(MEMINFO).out.splitlines())
    used = (int(m["MemTotal:"]) - int(m["MemFree:"]) - int(m["Buffers:"])
            - int(m["Cached:"]))
    return used, int(m["Slab:"])


def measure_memory(vm, dev, idle=False):
    """Kernel memory per connection (its QP at each end, both in this
    guest, and their sockets): the used memory while MEM_CLIENTS x
    MEM_QPS connections are open and idle, less the figure before, over
    their number. The clients' own buffers (8 B per QP) are the same for
    every device. With idle, the clients' QPs are set up but never
    connected (xiwperf client --idle): the figure is per such QP, with
    its CQs and buffers, and op is "memory_idle"."""
    conns = MEM_CLIENTS * MEM_QPS
    vm.run("sync; echo 3 > /proc/sys/vm/drop_caches")
    used0, slab0 = _meminfo(vm)
    vm.run("".join(
        f": > /tmp/bench-mem-{i}; "
        + dev.client("--op write --size 8 --count", MEM_QPS, "--qps", MEM_QPS,
                     "--hold", MEM_HOLD_S, "--idle" if idle else "")
        + f" >> /tmp/bench-mem-{i} 2>&1 &\n"
        for i in range(MEM_CLIENTS)))
    res = {"device": dev.name, "op": "memory_idle" if idle else "memory",
           "connections": conns}
    # Connected: both ends of every connection established, 2 QPs in RTS
    # each. Idle: every client QP there, in whatever state it is.
    pattern, want = ('"lqpn"', conns) if idle else ('"RTS"', 2 * conns)
    try:
        wait_until(vm, f"set -- $(rdma -j res show qp | grep -o '{pattern}'); "
                       f"[ $# -ge {want} ]",
                   f"{conns} {'QPs' if idle else 'connections'} open",
                   tries=300)
    except AssertionError as e:
        res["error"] = str(e)
    else:
        used, slab = _meminfo(vm)
        res.update(kib_per_connection=round((used - used0) / conns, 1),
                   slab_kib_per_connection=round((slab - slab0) / conns, 1))
    wait_until(vm, "! pgrep -x xiwperf -a | grep -q ' client '",
               "the memory clients ended", tries=(MEM_HOLD_S + 60) * 5)
    return res


class GuestDied(Exception):
    """The guest stopped answering in the middle of a device's cells."""


def _oops(vm):
    """The kernel's own words for why the guest stopped answering."""
    lines = vm.console().splitlines()
    found = [ln.split("] ", 1)[-1] for ln in lines
             if "BUG:" in ln or "RIP:" in ln or "Oops" in ln]
    return "; ".join(found[:3]) or "no kernel message on the console"


def run_device(vm, dev, cells, ext, results, log=print, memory=True):
    """Bring dev up, measure its memory per connection (with memory), run
    its cells with one server, bring it down; append each cell's figures
    to results. A guest that stops answering ends the device's run: the
    cell records why, and GuestDied is raised.

    The namespaces are made anew first: their TIME_WAIT sockets (an
    earlier device's connections, all to the same server address) go
    with them, and with them the port clashes they would cause siw."""
    vm.run("ip netns del a; ip netns del b", check=False)
    hosts(vm)
    vm.run(dev.up)
    srv = start_server(vm, dev.server_ns, dev.addr, f"bench-{dev.name}")
    if memory:
        for idle in (False, True):
            r = measure_memory(vm, dev, idle)
            log(summary_line(r))
            results.append(r)
    for c in cells + (ext if dev.extensions else []):
        try:
            r = run_cell(vm, dev, c)
        except (TimeoutError, OSError) as e:
            r = {k: v for k, v in c.items() if k != "extra"}
            r.update(device=dev.name,
                     error=f"the guest stopped answering: {_oops(vm)}")
            results.append(r)
            log(summary_line(r))
            raise GuestDied(r["error"]) from e
        log(summary_line(r))
        results.append(r)
    stop_server(vm, srv)
    vm.run(dev.down, check=False, timeout=60)


def hosts(vm):
    """The two hosts (with static neighbours), xiwperf loaded."""
    two_hosts(vm)
    vm.run(LOAD_XIWPERF)
    return vm


def summary_line(r):
    if r["op"].startswith("memory"):
        return (f"{r['device']:8} {r['op']}: "
                + (r.get("error") or f"{r['kib_per_connection']} KiB per "
                   f"connection ({r['slab_kib_per_connection']} KiB slab), "
                   f"{r['connections']} connections"))
    head = (f"{r['device']:8} {r['op']:12} {r.get('size', 0):>8} B "
            f"d{r.get('depth', '-'):<3} q{r.get('qps', '-'):<3}")
    if "error" in r:
        return f"{head} error: {r['error']}"
    lat = (f" p50 {r['lat_p50_us']:.1f} us" if "lat_p50_us" in r else "")
    return (f"{head} {r['gbit_per_s']:8.3f} Gbit/s {r.get('mops', 0):8.4f} "
            f"Mop/s{lat} cpu {r['cpu_s_per_gib']} s/GiB")


NFS_SIZE = 64 * MIB
NFS_DEVICES = ("xiw", "siw")


def run_nfs(vm, log=print, size=NFS_SIZE):
    """NFSv4.2 over RDMA (svcrdma, xprtrdma): size bytes written and read
    back (checked) with O_DIRECT, server and client in the initial
    namespace (where stock siw's client works) on one device on a dummy
    netdev, xiw then siw. Stock siw never asks for MPA CRC, so xiw runs
    without it too. One entry per device: MiB/s each way, or an error."""
    out = []
    vm.run("modprobe siw && modprobe xiw && "
           "echo off > /sys/module/xiw/parameters/crc_policy && "
           "ip link add d1 type dummy && "
           "ip addr add 192.0.2.5/24 dev d1 && ip link set d1 up")
    try:
        for kind in NFS_DEVICES:
            r = {"device": kind, "op": "nfs4.2", "size": size}
            vm.run(f"rdma link add {kind}9 type {kind} netdev d1")
            try:
                with Nfs(vm, None, "192.0.2.5", None, "192.0.2.5",
                         f"{kind}9") as n:
                    n.mount("4.2")
                    w, rd = n.write_then_read_back(size, name=kind)
                    n.umount()
                r.update(write_mib_s=round(size / MIB / w, 1),
                         read_mib_s=round(size / MIB / rd, 1))
            except (AssertionError, RuntimeError) as e:
                r["error"] = str(e).splitlines()[0] if str(e) else repr(e)
            finally:
                vm.run(f"rdma link delete {kind}9", check=False)
            log(f"{kind:8} nfs4.2 {size >> 20} MiB: " + (
                r.get("error") or f"write {r['write_mib_s']} MiB/s, "
                f"read {r['read_mib_s']} MiB/s"))
            out.append(r)
    finally:
        vm.run("ip link del d1; "
               "echo preferred > /sys/module/xiw/parameters/crc_policy",
               check=False)
    return out


def run(vm, devices=DEVICES, smoke=False, log=print, reboot=None):
    """Everything in one guest (booted by the caller): the report. If a
    device takes the guest down, reboot() (when given) returns a fresh
    one and the next device goes on there; without it, GuestDied
    propagates."""
    check_xiwperf_built()
    hosts(vm)
    cells, ext = smoke_matrix() if smoke else full_matrix()
    results = [run_tcp(vm, 1 if smoke else TCP_SECONDS)]
    log(summary_line({**results[0], "size": 0}))
    for dev in devices:
        try:
            run_device(vm, dev, cells, ext, results, log, memory=not smoke)
        except GuestDied:
            if reboot is None:
                raise
            vm = hosts(reboot())
    user = userspace.run(vm, smoke, log)
    nfs = [] if smoke else run_nfs(vm, log)
    kernel = vm.run("uname -r").out.strip()
    return {
        "date": datetime.datetime.now(datetime.timezone.utc)
        .strftime("%Y-%m-%dT%H:%M:%SZ"),
        "kernel": kernel,
        "vm": "QEMU TCG (no KVM), 2 vCPUs, 2 GiB, on a host of "
              f"{os.cpu_count()} CPUs",
        "smoke": smoke,
        "devices": {d.name: d.note for d in devices},
        "results": results,
        "nfs": nfs,
        "userspace": user,
        "targets": targets(results, user),
    }
