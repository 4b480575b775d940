"""make bench's two-kernel column: xiw, stock siw and TCP between two guests
on one wire (tests/integration/two_guests.py), the client in guest 0, the
server in guest 1, each guest one vCPU. The same xiwperf cells as the
one-guest matrix (bench/xiwbench.py runs them), WRITE, READ and SEND
64 KiB at depth 64 and READ 8 B at depth 1, and iperf3 over the same wire
as its ceiling. CPU figures are the client guest's only."""

import xiwbench
from two_guests import ADDR4
from xiwperf_run import LOAD_XIWPERF, start_server, stop_server

CELLS = [("write", 64 << 10, 64), ("read", 64 << 10, 64),
         ("send", 64 << 10, 64), ("read", 8, 1)]
KINDS = ("xiw", "siw")
TCP_SECONDS = 5
# The wire with a long fat pipe's delay (netem on both guests' eth0, so
# 40 ms of round trip): does xiw keep up with what TCP reaches there?
DELAY = "delay 20ms limit 100000"


def device(kind):
    return xiwbench.Device(
        kind, None, None, None, None, ADDR4[1],
        note=f"{kind} in each guest on eth0, client guest 0, server guest 1")


def run_tcp(pair, seconds):
    """iperf3 from guest 0 to guest 1 over the wire."""
    return xiwbench.run_iperf3(pair.vms[1], "", pair.vms[0], "", ADDR4[1],
                               seconds)


def run(pair, smoke=False, log=print):
    """The wire's results, TCP first, then each kind's cells."""
    budget = 4 << 20 if smoke else 64 << 20
    results = [run_tcp(pair, 1 if smoke else TCP_SECONDS)]
    log(xiwbench.summary_line({**results[0], "size": 0}))
    vms = pair.vms
    for kind in KINDS:
        for i, vm in enumerate(vms):
            vm.run(f"{LOAD_XIWPERF} && modprobe {kind} && "
                   f"rdma link add {kind}{i} type {kind} netdev eth0")
        log_path = start_server(vms[1], None, ADDR4[1], f"wire-{kind}")
        try:
            for op, size, depth in CELLS:
                c = xiwbench.cell(op, size, depth, budget=budget)
                r = xiwbench.run_one(vms[0], device(kind), c)
                results.append(r)
                log("wire " + xiwbench.summary_line(r))
        finally:
            stop_server(vms[1], log_path)
            for i, vm in enumerate(vms):
                vm.run(f"rdma link delete {kind}{i}", check=False)
    results += run_delayed(pair, budget, 1 if smoke else TCP_SECONDS, log)
    return {"kernels": pair.kernels(), "results": results}


def run_delayed(pair, budget, seconds, log):
    """iperf3 and xiw's WRITE 64 KiB at depth 64 with DELAY on the wire;
    each result marked with it ("netem")."""
    vms = pair.vms
    out = []
    pair.impair(DELAY)
    try:
        out.append({**run_tcp(pair, seconds), "netem": DELAY})
        for i, vm in enumerate(vms):
            vm.run(f"{LOAD_XIWPERF} && rdma link add xiw{i} type xiw "
                   "netdev eth0")
        log_path = start_server(vms[1], None, ADDR4[1], "wire-delay")
        try:
            c = xiwbench.cell("write", 64 << 10, 64, budget=budget)
            out.append({**xiwbench.run_one(vms[0], device("xiw"), c),
                        "netem": DELAY})
        finally:
            stop_server(vms[1], log_path)
            for i, vm in enumerate(vms):
                vm.run(f"rdma link delete xiw{i}", check=False)
    finally:
        pair.mend()
    for r in out:
        log(f"wire {DELAY} " + xiwbench.summary_line({"size": 0, **r}))
    return out


def markdown(wire):
    """The report's section for run()'s result (nothing if absent)."""
    if not wire:
        return []
    res = [r for r in wire["results"] if "netem" not in r]
    delayed = [r for r in wire["results"] if "netem" in r]

    def value(kind, op, size, depth, key):
        for r in res:
            if (r["device"], r["op"], r.get("size"), r.get("depth")) == \
                    (kind, op, size, depth):
                return None if "error" in r else r.get(key)
        return None

    def fmt(v, digits):
        return "—" if v is None else f"{v:.{digits}f}"
    tcp = next((r for r in res if r["device"] == "tcp"), {})
    dtcp = next((r for r in delayed if r["device"] == "tcp"), {})
    dxiw = next((r for r in delayed if r["device"] == "xiw"), {})
    out = ["## Two kernels on a wire", "",
           f"Guests {' and '.join(wire['kernels'])}, one vCPU each, one "
           "Ethernet segment (QEMU's UDP socket netdev over the host's "
           "loopback); client in guest 0, server in guest 1. iperf3 over "
           f"the same wire: {tcp.get('gbit_per_s', '—')} Gbit/s, "
           f"{tcp.get('cpu_s_per_gib', '—')} CPU s/GiB (client guest).", "",
           "| cell | " + " | ".join(KINDS) + " | xiw / siw | xiw / TCP |",
           "|---|" + "---|" * (len(KINDS) + 2)]
    for op, size, depth in CELLS:
        if depth == 1:
            name, key, digits = f"{op.upper()} {size} B p50 µs", \
                "lat_p50_us", 1
        else:
            name, key, digits = \
                f"{op.upper()} {size >> 10} KiB d{depth} Gbit/s", \
                "gbit_per_s", 3
        v = {k: value(k, op, size, depth, key) for k in KINDS}
        vs_siw = v["xiw"] / v["siw"] if v["xiw"] and v["siw"] else None
        vs_tcp = v["xiw"] / tcp["gbit_per_s"] \
            if depth > 1 and v["xiw"] and tcp.get("gbit_per_s") else None
        out.append(f"| {name} | " + " | ".join(
            fmt(v[k], digits) for k in KINDS) +
            f" | {fmt(vs_siw, 2)} | {fmt(vs_tcp, 2)} |")
    out.append("")
    if delayed:
        ratio = dxiw["gbit_per_s"] / dtcp["gbit_per_s"] \
            if dxiw.get("gbit_per_s") and dtcp.get("gbit_per_s") else None
        out += [f"With netem `{DELAY}` on both ends (40 ms round trip): "
                f"iperf3 {fmt(dtcp.get('gbit_per_s'), 3)} Gbit/s, xiw "
                f"WRITE 64 KiB d64 {fmt(dxiw.get('gbit_per_s'), 3)} Gbit/s "
                f"(xiw / TCP {fmt(ratio, 2)}).", ""]
    return out
