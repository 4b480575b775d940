"""make bench's userspace part: rdma-core's perftest (bookworm's 4.5),
unmodified, over xiw (through xiw's provider), stock siw (Debian's
libsiw) and rxe (Debian's librxe), each alone in the guest, xiw and siw
connected with rdma_cm (-R). The figures are perftest's own: MB/s and Mpps of the
bandwidth tools, t_typical (its median) and the 99th percentile of the
latency tools."""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))

from conftest import two_hosts, wait_until  # noqa: E402
from test_userspace_verbs import ENV, hold_syns_until_listening  # noqa: E402

# tool, message size, iterations (full run, smoke run)
TOOLS = (("ib_write_bw", 65536, 2000, 100),
         ("ib_send_bw", 4096, 4000, 100),
         ("ib_write_lat", 8, 2000, 100),
         ("ib_read_lat", 8, 2000, 100))
PORT = 18515


class UserDevice:
    """One kind of device for perftest: how it comes up and goes, and
    where the server (namespace, device, address, the netdev its SYNs'
    answers leave by) and the client (namespace, device) run; a
    namespace of None is the initial one. rdma_cm: connected with -R
    (iWARP's only way); otherwise perftest's TCP exchange (port 18515
    too) and modify_qp."""

    def __init__(self, name, up, down, server, client, env="", note="",
                 rdma_cm=True):
        self.name, self.up, self.down = name, up, down
        self.server, self.client, self.env = server, client, env
        self.note = note
        self.rdma_cm = rdma_cm


XIW_UP = ("modprobe xiw && "
          "echo off > /sys/module/xiw/parameters/crc_policy && "
          "ip netns exec a rdma link add xiw0 type xiw netdev v0 && "
          "ip netns exec b rdma link add xiw1 type xiw netdev v1")
XIW_DOWN = ("ip netns exec a rdma link delete xiw0; "
            "ip netns exec b rdma link delete xiw1; "
            "echo preferred > /sys/module/xiw/parameters/crc_policy")

USER_DEVICES = (
    UserDevice("xiw", XIW_UP, XIW_DOWN,
               ("b", "xiw1", "192.0.2.2", "v1"), ("a", "xiw0"), ENV,
               "xiw's provider: completions polled from rings, receives "
               "and sends posted to rings, without a system call (a send "
               "makes one, in which it is sent, only when the kernel's "
               "transmit engine has gone idle: the doorbell), MPA CRC off "
               "as siw's, veth between netns"),
    UserDevice("xiw-cmd", XIW_UP, XIW_DOWN,
               ("b", "xiw1", "192.0.2.2", "v1"), ("a", "xiw0"),
               ENV + "XIW_CQ_RINGS=0 XIW_RQ_RINGS=0 XIW_SQ_RINGS=0 ",
               "the same through the RDMA core's commands, every ring "
               "off (as from a kernel without them): a system call per "
               "post and per poll, a post's sends sent in its call"),
    UserDevice("siw",
               "modprobe siw && "
               "ip netns exec a rdma link add siw0 type siw netdev v0 && "
               "ip netns exec b rdma link add siw1 type siw netdev v1",
               "ip netns exec a rdma link delete siw0; "
               "ip netns exec b rdma link delete siw1",
               ("b", "siw1", "192.0.2.2", "v1"), ("a", "siw0"), "",
               "stock siw with Debian's libsiw, veth between netns"),
    UserDevice("rxe",
               "modprobe rdma_rxe && ip link add d0 type dummy && "
               "ip addr add 192.0.2.3/24 dev d0 && ip link set d0 up && "
               "rdma link add rxe0 type rxe netdev d0",
               "rdma link delete rxe0; ip link del d0",
               (None, "rxe0", "192.0.2.3", "lo"), (None, "rxe0"), "",
               "rxe with Debian's librxe, one device on a dummy netdev in "
               "the initial netns (rxe in 6.12 works there only): "
               "loopback, not the veth path; connected by perftest's own "
               "exchange over TCP and modify_qp (with -R its connect is "
               "rejected there, RDMA_CM_EVENT_REJECTED error 8)",
               rdma_cm=False),
)


def _in(ns, cmd):
    return f"ip netns exec {ns} {cmd}" if ns else cmd


def parse(tool, size, out):
    """perftest's results line as figures, or None."""
    m = re.search(rf"^\s*{size}\s+\d+\s+([\d.]+(?:\s+[\d.]+)+)\s*$", out,
                  re.M)
    if not m:
        return None
    v = [float(x) for x in m.group(1).split()]
    if tool.endswith("_bw"):
        # BW peak, BW average [MB/sec], MsgRate [Mpps]
        return {"mb_s": v[1], "mpps": v[2]}
    # t_min, t_max, t_typical, t_avg, t_stdev, 99%, 99.9% [usec]
    return {"t_typical_us": v[2], "t_p99_us": v[5]}


def run_tool(vm, dev, tool, size, iters):
    sns, sdev, saddr, _ = dev.server
    cns, cdev = dev.client
    args = ("-R " if dev.rdma_cm else "") + f"-F -d {{}} -s {size} -n {iters}"
    vm.run("rm -f /tmp/ub-s.rc /tmp/ub-s.log")
    vm.run("(" + _in(sns, f"env {dev.env}{tool} {args.format(sdev)}")
           + " > /tmp/ub-s.log 2>&1; echo $? > /tmp/ub-s.rc) "
           "> /dev/null 2>&1 &")
    r = {"device": dev.name, "tool": tool, "size": size, "iterations": iters}
    try:
        wait_until(vm, _in(sns, f"ss -ltn | grep -q ':{PORT} '"),
                   f"{tool}'s server on {dev.name} listens")
    except AssertionError as e:
        vm.run(f"pkill -x {tool}", check=False)
        srv = vm.run("cat /tmp/ub-s.log", check=False).out
        r["error"] = f"{e}: {srv.strip()[-300:]}"
        return r
    res = vm.run(_in(cns, f"env {dev.env}{tool} {args.format(cdev)} "
                          f"{saddr}"), timeout=600, check=False)
    wait_until(vm, "test -s /tmp/ub-s.rc", f"{tool}'s server ended")
    figures = parse(tool, size, res.out) if res.rc == 0 else None
    if figures is None:
        srv = vm.run("cat /tmp/ub-s.log", check=False).out
        r["error"] = (f"client exit {res.rc}: "
                      + (res.err or res.out).strip()[-300:]
                      + f" / server: {srv.strip()[-300:]}")
    else:
        r.update(figures)
    return r


def run_device(vm, dev, smoke, log):
    """dev up in fresh namespaces, each tool once, dev down."""
    vm.run("ip netns del a; ip netns del b", check=False)
    two_hosts(vm, own_ifindex=True)     # for siw: see two_hosts()
    vm.run("modprobe ib_uverbs && modprobe rdma_ucm && " + dev.up)
    sns, _, _, sveth = dev.server
    # perftest 4.5's client races its server's rdma_listen(): see
    # hold_syns_until_listening().
    if dev.rdma_cm:
        hold_syns_until_listening(vm, sns, sveth, PORT)
    out = []
    try:
        for tool, size, full, small in TOOLS:
            r = run_tool(vm, dev, tool, size, small if smoke else full)
            log(summary_line(r))
            out.append(r)
    finally:
        vm.run(dev.down, check=False, timeout=60)
    return out


def run(vm, smoke=False, log=print, devices=USER_DEVICES):
    out = []
    for dev in devices:
        out += run_device(vm, dev, smoke, log)
    return out


def summary_line(r):
    head = f"{r['device']:8} {r['tool']:13} {r['size']:>6} B"
    if "error" in r:
        return f"{head} error: {r['error']}"
    if "mb_s" in r:
        return f"{head} {r['mb_s']:9.2f} MB/s {r['mpps']:.6f} Mpps"
    return (f"{head} t_typical {r['t_typical_us']:.2f} us "
            f"p99 {r['t_p99_us']:.2f} us")


def find(results, device, tool):
    """A tool's figures on a device, or None (not run, or failed)."""
    return next((r for r in results if r["device"] == device
                 and r["tool"] == tool and "error" not in r), None)


def markdown(results):
    if not results:
        return []
    out = ["## Userspace: perftest", "",
           "perftest 4.5 (bookworm's), unmodified, each device alone in "
           "the guest: bandwidth in MB/s (perftest's average) and Mpps, "
           "latency t_typical (perftest's median) and p99 in µs.", ""]
    out += [f"- **{d.name}**: {d.note}" for d in USER_DEVICES]
    out += ["", "| tool | size | " + " | ".join(d.name for d in USER_DEVICES)
            + " |", "|---|---|" + "---|" * len(USER_DEVICES)]
    for tool, size, _, _ in TOOLS:
        cells = []
        for d in USER_DEVICES:
            r = next((x for x in results if x["device"] == d.name
                      and x["tool"] == tool), None)
            if r is None:
                cells.append("—")
            elif "error" in r:
                cells.append("error")
            elif "mb_s" in r:
                cells.append(f"{r['mb_s']:.1f} MB/s, {r['mpps']:.4f} Mpps")
            else:
                cells.append(f"{r['t_typical_us']:.1f} (p99 "
                             f"{r['t_p99_us']:.1f})")
        out.append(f"| {tool} | {size} B | " + " | ".join(cells) + " |")
    out.append("")
    out += [f"- {r['device']} {r['tool']} failed: {r['error']}"
            for r in results if "error" in r]
    return out + [""] if out[-1] else out
