"""Running xiwperf in the guest: load the module, start and stop a
server, run a client and read its JSON, set xiw's module parameters."""
import json
import os

import pytest

from conftest import TOP, wait_until

XIWPERF = os.path.join(TOP, "build", "cmake", "tools", "xiwperf")
XIWPERF_KO = os.path.join(TOP, "tools", "xiwperf", "kmod", "xiwperf.ko")
PORT = 18515
SERVER_BUF = 16 << 20
# The server fills its buffer with the read pattern once, at start: within
# one test, reads run before anything writes to it.


def load_xiwperf(vm):
    if not os.path.exists(XIWPERF_KO):
        pytest.fail("xiwperf.ko not built")
    vm.run(f"modprobe xiwperf 2>/dev/null || "
           f"{{ modprobe rdma_cm && insmod {XIWPERF_KO}; }}")


def client(vm, ns, addr, *args, check=True, timeout=120, port=PORT):
    """Run an xiwperf client; return (exit status, its JSON result)."""
    cmd = (f"{XIWPERF} client --addr {addr} --port {port} --json "
           + " ".join(str(a) for a in args))
    res = vm.ns(ns, cmd, check=False, timeout=timeout) if ns else \
        vm.run(cmd, check=False, timeout=timeout)
    lines = res.out.strip().splitlines()
    result = json.loads(lines[-1]) if lines else {}
    if check:
        assert res.rc == 0, f"xiwperf failed:\n{res}"
        assert result["data_ok"] is True, result
        assert result["errors"] == 0, result
    return res.rc, result


def start_server(vm, ns, addr, tag, *args, port=PORT, json_out=False):
    """Start an xiwperf server in ns, with further options args, and wait
    until it listens; with json_out, stop_server() returns its counters."""
    log = f"/tmp/xiwperf-server-{tag}.log"
    prefix = f"ip netns exec {ns} " if ns else ""
    vm.run(f"{prefix}{XIWPERF} server --addr {addr} --port {port} "
           f"--size {SERVER_BUF} {'--json' if json_out else ''} "
           + " ".join(str(a) for a in args) +
           f" > {log} 2>&1 & echo $! > {log}.pid")
    # Bounded by guest round trips; a server that exits fails at once.
    for _ in range(600):
        state = vm.run(f"if grep -q listening {log}; then echo up; "
                       f"elif kill -0 $(cat {log}.pid) 2>/dev/null; then "
                       f"echo starting; else echo exited; fi").out.strip()
        if state == "up":
            return log
        if state == "exited":
            raise AssertionError(f"xiwperf server on {addr} exited:\n" +
                                 vm.run(f"cat {log}").out)
        vm.run("sleep 0.1")
    raise AssertionError(f"xiwperf server on {addr} never listened")


def stop_server(vm, log):
    """Stop a server; the last JSON line it printed (its counters, when
    started with json_out), else None."""
    vm.run(f"kill $(cat {log}.pid) 2>/dev/null; "
           f"for i in $(seq 100); do kill -0 $(cat {log}.pid) 2>/dev/null "
           f"|| break; sleep 0.1; done", check=False)
    lines = vm.run(f"cat {log}", check=False).out.strip().splitlines()
    try:
        return json.loads(lines[-1]) if lines else None
    except ValueError:
        return None


def set_params(vm, **params):
    for k, v in params.items():
        vm.run(f"echo {v} > /sys/module/xiw/parameters/{k}")


def hw_counters(vm, dev):
    """The device's counters, as "rdma statistic show" reads them."""
    rows = json.loads(vm.run(f"rdma -j statistic show link {dev}/1").out)
    assert len(rows) == 1, rows
    return {k: v for k, v in rows[0].items() if isinstance(v, int)
            and k != "port"}


def counted(before, after):
    """What each counter counted between two hw_counters() readings."""
    return {k: after[k] - before[k] for k in after}


def static_neighbours(vm):
    """Static ARP entries between the hosts: no neighbour resolution
    inside the first connect (see Documentation/xiwperf.md)."""
    vm.run("ma=$(ip -n a -br link show v0 | awk '{print $3}') && "
           "mb=$(ip -n b -br link show v1 | awk '{print $3}') && "
           "ip -n a neigh replace 192.0.2.2 lladdr $mb dev v0 && "
           "ip -n b neigh replace 192.0.2.1 lladdr $ma dev v1")


def start_client(vm, ns, addr, tag, *args):
    """Start an xiwperf client in the background; wait_client() ends it."""
    out = f"/tmp/xiwperf-client-{tag}"
    vm.run(f"rm -f {out}.json {out}.rc; (ip netns exec {ns} {XIWPERF} client "
           f"--addr {addr} --port {PORT} --json "
           + " ".join(str(a) for a in args)
           + f" > {out}.json 2> {out}.err; echo $? > {out}.rc) "
           f"> /dev/null 2>&1 &")
    return out


def wait_client(vm, out, tries=600):
    """Exit status and JSON result of a client started by start_client()."""
    wait_until(vm, f"test -s {out}.rc", f"xiwperf client {out} ended", tries)
    rc = int(vm.run(f"cat {out}.rc").out)
    lines = vm.run(f"cat {out}.json").out.strip().splitlines()
    return rc, (json.loads(lines[-1]) if lines else {})


def rdma_resources(vm):
    """{device: {"pd": n, "cq": n, "qp": n, "mr": n, "srq": n, "cm_id": n}}
    from rdma res show (devices of every namespace: shared netns mode)."""
    res = json.loads(vm.run("rdma -j res show").out or "[]")
    return {d["ifname"]: {k: d.get(k, 0)
                          for k in ("pd", "cq", "qp", "mr", "srq", "cm_id")}
            for d in res}


def wait_resources_released(vm, listeners, tries=100):
    """Wait until nothing but the servers' listening cm_ids is left:
    listeners is {device: listening ids}. Polled a bounded number of
    guest round trips (a server releases a connection after its
    disconnect event); return the final figures."""
    want = {dev: {"pd": 0, "cq": 0, "qp": 0, "mr": 0, "srq": 0,
                  "cm_id": listeners.get(dev, 0)}
            for dev in rdma_resources(vm)}
    for _ in range(tries):
        got = rdma_resources(vm)
        if got == want:
            return got
        vm.run("sleep 0.1")
    raise AssertionError(f"RDMA resources left: {got}, expected {want}")
