"""xiwperf, the kernel RDMA test client/server, over stock siw and rxe.

Topologies (see Documentation/xiwperf.md for why):
  - one device on a dummy netdev in the initial namespace, client and server
    on its address: siw0 on xps0 (10.1.0.1), rxe0 on xpr0 (10.2.0.1);
  - siw across namespaces: server in netns a, client in netns b;
  - rxe across namespaces, which does not work (rxe's UDP socket lives in
    the initial namespace): the client must fail cleanly.

Servers and long clients run in the background in the guest; waiting for
them polls with a bounded number of tries. After every test whatever still
runs is killed, and once all of it has exited the RDMA core must report no
PD, CQ, QP, MR or cm_id left.
"""
import itertools
import json
import os
import shlex

import pytest

from conftest import TOP

XIWPERF = os.path.join(TOP, "build", "cmake", "tools", "xiwperf")

DEVICES = {
    # kind: (rdma device, netdev, address)
    "siw": ("siw0", "xps0", "10.1.0.1"),
    "rxe": ("rxe0", "xpr0", "10.2.0.1"),
}

_names = itertools.count()


def bounded(cond, tries=200):
    """Shell text polling cond at most tries times (0.05 s apart), exiting 1
    if it never holds: the guest-side form of wait_until(), which saves a
    round trip per poll."""
    return (f"i=0; until {cond}; do i=$((i+1)); [ $i -lt {tries} ] || exit 1; "
            "sleep 0.05; done")


class Bg:
    """A command running in the background in the guest, recording its pid,
    stdout, stderr and exit status in /tmp. Started once it has a pid and,
    if given, the shell condition ready holds (or it exited); "{out}" in
    ready stands for its stdout file."""

    def __init__(self, vm, cmd, ns=None, ready=None):
        self.vm = vm
        base = f"/tmp/xp-{next(_names)}"
        self.out, self.err = base + ".out", base + ".err"
        self.rcfile, self.pidfile = base + ".rc", base + ".pid"
        if ns:
            cmd = f"ip netns exec {ns} {cmd}"
        started = f"test -s {self.pidfile}"
        if ready:
            ready = ready.replace("{out}", self.out)
            started += f" && {{ {ready} || test -s {self.rcfile}; }}"
        res = vm.run(f"( {cmd} >{self.out} 2>{self.err} & echo $! >{self.pidfile}; "
                     f"wait $!; echo $? >{self.rcfile} ) >/dev/null 2>&1 & "
                     f"{bounded(started)}; cat {self.pidfile}", check=False)
        assert res.rc == 0, f"background command never started: {cmd}\n{res}"
        self.pid = int(res.out)

    def stdout(self):
        return self.vm.run(f"cat {self.out}").out

    def stderr(self):
        return self.vm.run(f"cat {self.err}").out

    def kill(self, sig):
        self.vm.run(f"kill -{sig} {self.pid}", check=False)

    def wait(self):
        """Its exit status, once it exited."""
        res = self.vm.run(f"{bounded(f'test -s {self.rcfile}', 600)}; cat {self.rcfile}",
                          check=False)
        assert res.rc == 0, f"background command {self.pid} never exited"
        return int(res.out)


class Server(Bg):
    """xiwperf server on an ephemeral port; ready once it printed where."""

    def __init__(self, vm, addr, ns=None, size=None):
        extra = f" --size {size}" if size else ""
        super().__init__(vm, f"{XIWPERF} server --addr {addr} --port 0 --json{extra}", ns,
                         ready="grep -q listening {out}")
        self.addr = addr
        lines = self.stdout().splitlines()
        assert lines, f"server failed to start: {self.stderr()}"
        hello = json.loads(lines[0])
        assert hello["event"] == "listening"
        self.port = hello["port"]
        self.device = hello["device"]
        self.size = hello["size"]

    def stop(self):
        """SIGTERM: the server reports its counters and exits 0."""
        self.kill("TERM")
        rc = self.wait()
        stats = json.loads(self.stdout().splitlines()[-1])
        assert stats["event"] == "stopped"
        return rc, stats


class Perf:
    """The test's xiwperf servers and clients, cleaned up afterwards."""

    def __init__(self, vm):
        self.vm = vm
        self.procs = []

    def server(self, addr, ns=None, size=None):
        s = Server(self.vm, addr, ns, size)
        self.procs.append(s)
        return s

    def client_args(self, srv, op, size, count, depth=1, qps=1, check=True,
                    timeout=None):
        args = (f"client --addr {srv.addr} --port {srv.port} --op {op} "
                f"--size {size} --count {count} --depth {depth} --qps {qps} --json")
        if check:
            args += " --check"
        if timeout:
            args += f" --timeout {timeout}"
        return args

    def client(self, srv, op, size, count, ns=None, expect_rc=0, **kw):
        """Run a client to completion; return (rc, JSON result, stderr)."""
        cmd = f"{XIWPERF} {self.client_args(srv, op, size, count, **kw)}"
        if ns:
            cmd = f"ip netns exec {ns} sh -c {shlex.quote(cmd)}"
        res = self.vm.run(cmd, timeout=300, check=False)
        lines = res.out.strip().splitlines()
        assert lines, f"no JSON from the client:\n{res}"
        out = json.loads(lines[-1])
        assert res.rc == expect_rc, f"client exit {res.rc}, expected {expect_rc}:\n{res}"
        return res.rc, out, res.err

    def background_client(self, srv, op, ns=None, **kw):
        """A client that runs until stopped (a count it cannot reach), once
        its connection is up: its QP and the server's in RTS."""
        args = self.client_args(srv, op, 4096, 10**12, **kw)
        b = Bg(self.vm, f"{XIWPERF} {args}", ns,
               ready="test $(rdma -j res show qp | grep -o '\"RTS\"' | wc -l) -ge 2")
        self.procs.append(b)
        return b

    def cleanup(self):
        """SIGKILL whatever still runs, and wait until all of it exited."""
        if not self.procs:
            return
        pids = " ".join(str(p.pid) for p in self.procs)
        exited = " && ".join(f"test -s {p.rcfile}" for p in self.procs)
        res = self.vm.run(f"kill -KILL {pids} 2>/dev/null; {bounded(exited, 600)}",
                          check=False)
        assert res.rc == 0, "xiwperf processes did not exit after SIGKILL"


# Shell: the owners ("comm") of every PD, CQ, QP, MR and cm_id on any RDMA
# device, except the MAD layer's (each RoCE port has its own PD, CQ and QP1).
RESOURCE_OWNERS = ("for k in pd cq qp mr cm_id; do rdma -j res show $k; done | "
                   "grep -o '\"comm\":\"[^\"]*\"' | grep -v '\"ib_core\"'")
DEL_NETDEVS = "for d in xps0 xpr0; do ip link del $d 2>/dev/null; done"


@pytest.fixture
def perf(vm):
    """xiwperf loaded; after the test its processes are gone, every RDMA
    resource they held is released, and the test's netdevs are removed."""
    vm.run("modprobe xiwperf")
    p = Perf(vm)
    yield p
    try:
        p.cleanup()
        # polled: a killed server's teardown may still be running
        for _ in range(50):
            res = vm.run(f"left=$({RESOURCE_OWNERS}); "
                         f"if [ -z \"$left\" ]; then {DEL_NETDEVS}; else echo \"$left\"; fi",
                         check=False)
            if not res.out.strip():
                break
        else:
            pytest.fail("RDMA resources left after the test:\n" +
                        vm.run("rdma res show; rdma res show qp; rdma res show cm_id").out)
    finally:
        vm.run(f"{DEL_NETDEVS}; true")


def add_device(vm, kind):
    dev, netdev, addr = DEVICES[kind]
    vm.run(f"ip link add {netdev} type dummy && ip addr add {addr}/24 dev {netdev} && "
           f"ip link set {netdev} up && rdma link add {dev} type {kind} netdev {netdev}")
    return dev, addr


@pytest.fixture(params=sorted(DEVICES))
def device(request, perf):
    """One device (siw, then rxe) on a dummy netdev; client and server use
    its address."""
    dev, addr = add_device(perf.vm, request.param)
    return dev, addr


def assert_clean_run(out, dev, op, size, count, depth, qps):
    assert out["device"] == dev
    assert out["op"] == op
    assert (out["size"], out["count"], out["depth"], out["qps"]) == (size, count, depth, qps)
    assert out["completed"] == count
    assert out["errors"] == 0
    assert out["mismatches"] == 0
    assert out["data_ok"] is True
    assert out["bytes"] == count * size
    assert "error" not in out


# (size, depth, count, server buffer): write --check needs one region of
# the server's buffer per outstanding operation.
SIZES = [(1, 1, 40, None), (4096, 16, 100, None), (1 << 20, 16, 16, "16M")]


@pytest.mark.parametrize("size,depth,count,buf", SIZES, ids=["1B", "4KiB", "1MiB"])
def test_xiwperf_check_every_op(perf, device, size, depth, count, buf):
    """read, write and send with --check: every byte arrives intact."""
    dev, addr = device
    srv = perf.server(addr, size=buf)
    assert srv.device == dev
    # read first: writes overwrite the pattern the server filled in
    for op in ("read", "write", "send"):
        _, out, _ = perf.client(srv, op, size, count, depth=depth)
        assert_clean_run(out, dev, op, size, count, depth, 1)


def test_xiwperf_four_qps(perf, device):
    """Four QPs (connections) of depth 4; the server counts what it saw."""
    dev, addr = device
    srv = perf.server(addr)
    for op in ("read", "write", "send"):
        _, out, _ = perf.client(srv, op, 4096, 82, depth=4, qps=4)
        assert_clean_run(out, dev, op, 4096, 82, 4, 4)
    rc, stats = srv.stop()
    assert rc == 0
    assert stats["connections"] == 3 * 4
    assert stats["received"] == 82
    assert stats["mismatches"] == 0 and stats["errors"] == 0 and stats["active"] == 0


def test_xiwperf_json_is_last_line_and_sane(perf):
    dev, addr = add_device(perf.vm, "siw")
    srv = perf.server(addr)
    # plain text without --json
    text = perf.vm.run(f"{XIWPERF} client --addr {addr} --port {srv.port} --op read "
                       "--size 4096 --count 10 --check").out
    assert text.startswith(f"read 4096 B x 10 on {dev}, 1 QP, depth 1: 10 completed, "
                           "0 errors, data ok\n")
    res = perf.vm.run(f"{XIWPERF} {perf.client_args(srv, 'write', 65536, 100, depth=8)}")
    lines = res.out.strip().splitlines()
    assert len(lines) == 1
    out = json.loads(lines[-1])
    assert set(out) >= {"device", "op", "size", "count", "qps", "depth", "completed",
                        "errors", "data_ok", "seconds", "gbit_per_s", "mops", "lat_us"}
    assert set(out["lat_us"]) >= {"p50", "p99", "max"}
    assert_clean_run(out, dev, "write", 65536, 100, 8, 1)
    assert out["seconds"] > 0
    assert out["gbit_per_s"] == pytest.approx(out["bytes"] * 8 / out["seconds"] / 1e9)
    assert out["mops"] == pytest.approx(out["completed"] / out["seconds"] / 1e6)
    lat = out["lat_us"]
    assert 0 < lat["min"] <= lat["p50"] <= lat["p99"] <= lat["max"]
    # no operation can take longer than the whole run
    assert lat["max"] <= out["seconds"] * 1e6


def test_xiwperf_no_server_is_refused(perf, device):
    """Nothing listens on the port: a clean error, exit status 1."""
    dev, addr = device
    srv = perf.server(addr)
    rc, stats = srv.stop()   # a port that certainly has no listener now
    assert rc == 0
    _, out, err = perf.client(srv, "write", 4096, 10, expect_rc=1)
    msg = f"connection to {addr}:{srv.port} refused: no xiwperf server listening there"
    assert err.strip() == f"xiwperf: {msg}"
    assert out["error"] == msg
    assert out["completed"] == 0 and out["data_ok"] is None


def test_xiwperf_unreachable_address(perf):
    res = perf.vm.run(f"{XIWPERF} client --addr 203.0.113.1 --port 9 --op read "
                      "--size 1 --count 1", check=False)
    assert res.rc == 1
    assert res.err.startswith("xiwperf: cannot resolve 203.0.113.1 to an RDMA device: ")


def test_xiwperf_read_check_detects_overwritten_data(perf):
    """A write without --check overwrites the server's read pattern; read
    --check then must see the damage: exit status 3, data_ok false."""
    dev, addr = add_device(perf.vm, "siw")
    srv = perf.server(addr)
    perf.client(srv, "write", 4096, 16, depth=16, check=False)
    _, out, err = perf.client(srv, "read", 4096, 16, depth=16, expect_rc=3)
    assert out["data_ok"] is False
    assert out["completed"] == 16 and out["errors"] == 0
    assert out["mismatches"] == 16
    assert "xiwperf: data mismatch: 16 of 16 operations had wrong data" in err


def test_xiwperf_server_buffer_in_chunks(perf):
    """A 10 MiB server buffer is chunks of 4, 4 and 2 MiB; 10^6-byte regions
    never straddle two, so it holds 4 + 4 + 2 of them. Reads wrap around
    them (and check the pattern in each chunk); write --check needs one per
    outstanding operation."""
    dev, addr = add_device(perf.vm, "siw")
    srv = perf.server(addr, size="10M")
    assert srv.size == 10 << 20
    _, out, _ = perf.client(srv, "read", 10**6, 32, depth=16)
    assert_clean_run(out, dev, "read", 10**6, 32, 16, 1)
    _, out, err = perf.client(srv, "write", 10**6, 32, depth=16, expect_rc=1)
    assert ("holds 10 regions of 1000000 bytes, write --check needs one per outstanding "
            "operation (qps * depth = 16)") in err
    assert out["completed"] == 0
    _, out, _ = perf.client(srv, "write", 10**6, 32, depth=5, qps=2)
    assert_clean_run(out, dev, "write", 10**6, 32, 5, 2)


def test_xiwperf_server_killed_client_fails(perf, device):
    """SIGKILL the server mid-run: the client stops with an error, exit 1."""
    dev, addr = device
    srv = perf.server(addr)
    cl = perf.background_client(srv, "write", depth=4, check=False)
    srv.kill("KILL")
    assert cl.wait() == 1
    out = json.loads(cl.stdout().strip().splitlines()[-1])
    assert out["error"]
    assert out["completed"] > 0
    assert cl.stderr().startswith("xiwperf: ")


def test_xiwperf_client_interrupted(perf):
    """SIGINT stops a client cleanly (exit 1, results so far); the server
    goes on serving."""
    dev, addr = add_device(perf.vm, "siw")
    srv = perf.server(addr)
    cl = perf.background_client(srv, "send", depth=4)
    cl.kill("INT")
    assert cl.wait() == 1
    out = json.loads(cl.stdout().strip().splitlines()[-1])
    assert out["error"].startswith("interrupted after ")
    _, out, _ = perf.client(srv, "send", 4096, 20, depth=4)
    assert_clean_run(out, dev, "send", 4096, 20, 4, 1)
    rc, stats = srv.stop()
    assert rc == 0 and stats["connections"] == 2 and stats["active"] == 0


def test_xiwperf_device_removed_mid_run(perf):
    """rdma link delete during a run: the client fails cleanly, the server
    bound to the device exits with an error, and the device goes away."""
    dev, addr = add_device(perf.vm, "siw")
    srv = perf.server(addr)
    cl = perf.background_client(srv, "send", depth=4)
    perf.vm.run(f"rdma link delete {dev}", timeout=60)
    assert cl.wait() == 1
    assert cl.stderr().startswith("xiwperf: ")
    assert srv.wait() == 1
    assert f"xiwperf: the RDMA device of {addr} went away" in srv.stderr()
    assert dev not in perf.vm.run("rdma link show").out


def test_xiwperf_siw_across_namespaces(hosts, perf):
    """siw server in netns a, client in netns b: works, because xiwperf
    connects from the calling process, whose namespace siw's socket uses."""
    vm = hosts
    vm.ns("a", "rdma link add siw1 type siw netdev v0")
    vm.ns("b", "rdma link add siw2 type siw netdev v1")
    srv = perf.server("192.0.2.1", ns="a")
    assert srv.device == "siw1"
    for op in ("read", "write", "send"):
        _, out, _ = perf.client(srv, op, 4096, 64, ns="b", depth=8, qps=2)
        assert_clean_run(out, "siw2", op, 4096, 64, 8, 2)


def test_xiwperf_unanswered_neighbour(hosts, perf):
    """Nobody answers ARP for the address: resolution is retried until the
    timeout, then the client fails cleanly."""
    vm = hosts
    vm.ns("b", "rdma link add siw2 type siw netdev v1")
    res = vm.ns("b", f"{XIWPERF} client --addr 192.0.2.99 --op read --size 1 --count 1 "
                "--timeout 2", check=False)
    assert res.rc == 1
    assert res.err.strip() == "xiwperf: cannot resolve 192.0.2.99: no neighbour answered"


def test_xiwperf_rxe_across_namespaces_fails_cleanly(hosts, perf):
    """rxe sends and receives through a UDP socket of the initial namespace:
    between two other namespaces nothing arrives. The client gives up after
    its timeout with a clear error."""
    vm = hosts
    vm.ns("a", "rdma link add rxe1 type rxe netdev v0")
    vm.ns("b", "rdma link add rxe2 type rxe netdev v1")
    srv = perf.server("192.0.2.1", ns="a")
    _, out, err = perf.client(srv, "write", 4096, 10, ns="b", timeout=2, expect_rc=1)
    assert err.strip() == "xiwperf: no progress for 2 s: gave up"
    assert out["device"] == "rxe2" and out["completed"] == 0


def test_xiwperf_sges_and_inline(perf, device):
    """--sge and --inline over siw and rxe: every byte verified, and what a
    device cannot do fails cleanly. siw takes 1 SGE per Read (max_sge_rd)
    and 80 bytes inline, rxe 32 SGEs per Read and 512 bytes inline."""
    dev, addr = device
    srv = perf.server(addr)

    def run(op, size, *extra, expect_rc=0):
        res = perf.vm.run(f"{XIWPERF} {perf.client_args(srv, op, size, 10, depth=4)} "
                          + " ".join(extra), timeout=300, check=False)
        lines = res.out.strip().splitlines()
        assert lines, f"no JSON from the client:\n{res}"
        out = json.loads(lines[-1])
        assert res.rc == expect_rc, f"client exit {res.rc}, expected {expect_rc}:\n{res}"
        if not expect_rc:
            assert_clean_run(out, dev, op, size, 10, 4, 1)
        return out

    # read first: writes overwrite the pattern the server filled in
    if dev == "siw0":
        out = run("read", 4096, "--sge", "2", expect_rc=1)
        assert out["error"] == ("device siw0 does not support 2 SGEs per RDMA Read: "
                                "its max_sge_rd is 1")
        assert out["completed"] == 0
    else:
        out = run("read", 4096, "--sge", "4")
        assert out["sge"] == 4
    for op in ("send", "write"):
        for size in (7, 4096):
            out = run(op, size, "--sge", "4")
            assert (out["sge"], out["inline"]) == (4, False)
        for size, sge in ((1, 1), (64, 1), (64, 4)):
            out = run(op, size, "--sge", str(sge), "--inline")
            assert (out["sge"], out["inline"]) == (sge, True)
        out = run(op, 4096, "--inline", expect_rc=1)
        assert out["error"].startswith(f"device {dev} does not support 4096 bytes of "
                                       "inline data: ")


def test_xiwperf_benchmark_64k(perf):
    """64 KiB, depth 16 over siw and rxe: the numbers land in the run's
    out directory (xiwperf-bench.json) for the record."""
    results = []
    for kind in ("siw", "rxe"):
        dev, addr = add_device(perf.vm, kind)
        srv = perf.server(addr)
        for op in ("write", "read", "send"):
            _, out, _ = perf.client(srv, op, 65536, 200, depth=16, check=False)
            assert out["completed"] == 200 and out["errors"] == 0
            assert out["gbit_per_s"] > 0
            results.append(out)
    with open(os.path.join(perf.vm.outdir, "xiwperf-bench.json"), "w") as f:
        json.dump(results, f, indent=1)
