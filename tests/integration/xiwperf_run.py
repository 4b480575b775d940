"""Running xiwperf in the guest: load the module, start and stop a
server, run a client and read its JSON, set xiw's module parameters."""
import json
import os

import pytest
import xiwvm

from conftest import TOP, wait_until

XIWPERF = os.path.join(TOP, "build", "cmake", "tools", "xiwperf")
XIWPERF_KO = xiwvm.module_path(
    os.path.join(TOP, "tools", "xiwperf", "kmod", "xiwperf.ko"))
PORT = 18515
SERVER_BUF = 16 << 20
# The server fills its buffer with the read pattern once, at start: within
# one test, reads run before anything writes to it.


# Shell text that loads xiwperf, for fixtures that batch it with their
# other setup into one guest command.
LOAD_XIWPERF = (f"{{ modprobe xiwperf 2>/dev/null || "
                f"{{ modprobe rdma_cm && insmod {XIWPERF_KO}; }}; }}")


def check_xiwperf_built():
    if not os.path.exists(XIWPERF_KO):
        pytest.fail("xiwperf.ko not built")


def load_xiwperf(vm):
    check_xiwperf_built()
    vm.run(LOAD_XIWPERF)


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
    until it listens; with json_out, stop_server() returns its counters.

    One guest command starts it and polls its log in the guest, a bounded
    number of times 0.05 s apart, with the shell's builtins (each process
    started costs ~0.1 s under TCG); a server that exits fails at once,
    its log shown. The agent's timeout only guards against a hang."""
    log = f"/tmp/xiwperf-server-{tag}.log"
    prefix = f"ip netns exec {ns} " if ns else ""
    # The log is emptied before the server starts: the background job
    # opens it only after the fork, and a log left by an earlier server
    # that says "listening" must not be read as this one's.
    res = vm.run(
        f": > {log}; {prefix}{XIWPERF} server --addr {addr} --port {port} "
        f"--size {SERVER_BUF} {'--json' if json_out else ''} "
        + " ".join(str(a) for a in args) +
        f" >> {log} 2>&1 & pid=$!; echo $pid > {log}.pid\n"
        f"up() {{ while read -r l || [ -n \"$l\" ]; do "
        f"case $l in *listening*) return 0 ;; esac; l=; done < {log}; "
        f"return 1; }}\n"
        f"i=0; until up; do\n"
        f"  kill -0 $pid 2>/dev/null || {{ up && exit 0; echo exited; "
        f"cat {log}; exit 2; }}\n"
        f"  i=$((i+1)); [ $i -lt 3000 ] || exit 1; sleep 0.05\n"
        f"done", timeout=900, check=False)
    if res.rc == 2:
        raise AssertionError(f"xiwperf server on {addr} exited:\n{res.out}")
    if res.rc != 0:
        raise AssertionError(f"xiwperf server on {addr} never listened:\n"
                             f"{res}")
    return log


def stop_server(vm, log):
    """Stop a server; the last JSON line it printed (its counters, when
    started with json_out), else None. One guest command: the kill, a
    bounded wait for the exit (polled with builtins) and the log."""
    lines = vm.run(
        f"if {{ read -r pid < {log}.pid; }} 2>/dev/null; then "
        f"kill $pid 2>/dev/null; i=0; "
        f"while [ $i -lt 200 ] && kill -0 $pid 2>/dev/null; do "
        f"sleep 0.05; i=$((i+1)); done; fi; cat {log}",
        check=False).out.strip().splitlines()
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


# Shell text for static_neighbours(): the MACs read with the shell's
# builtins from ip's brief output ("v0@if2 UP MAC <...>").
STATIC_NEIGHBOURS = (
    "{ set -- $(ip -n a -br link show v0) && ma=$3 && "
    "set -- $(ip -n b -br link show v1) && mb=$3 && "
    "ip -n a neigh replace 192.0.2.2 lladdr $mb dev v0 && "
    "ip -n b neigh replace 192.0.2.1 lladdr $ma dev v1; }")


def static_neighbours(vm):
    """Static ARP entries between the hosts: no neighbour resolution
    inside the first connect (see Documentation/xiwperf.md)."""
    vm.run(STATIC_NEIGHBOURS)


def start_client(vm, ns, addr, tag, *args):
    """Start an xiwperf client in the background (in netns ns, or the
    initial one if None); wait_client() ends it."""
    out = f"/tmp/xiwperf-client-{tag}"
    prefix = f"ip netns exec {ns} " if ns else ""
    vm.run(f"rm -f {out}.json {out}.rc; ({prefix}{XIWPERF} client "
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
