"""Churn and teardown (issue 10, "Reliability"): a thousand connections
made, used and closed; 256 QPs open at once; the module, the RDMA device,
the netdev or the peer's whole namespace taken away while traffic runs.

After each: every work request completed exactly once, done or flushed
(xiwperf counts duplicate and lost completions), the RDMA core holds no
PD, CQ, QP, MR or cm_id but the servers' listeners,
the kernel's memory is back where it was (the leak witness below) and xiw
unloads; conftest fails the test on any kernel warning and checks the
unload again in its teardown.

What test_connection_teardown.py (graceful close, TCP reset, netdev
down) and test_xiwperf.py (rdma link delete of a siw device) cover is
not repeated here.
"""
import json

import cm_trace
import xiwvm
from conftest import wait_until, xiw_links
from xiwperf_run import (LOAD_XIWPERF, PORT, STATIC_NEIGHBOURS, XIWPERF,
                         check_xiwperf_built, rdma_resources, start_server,
                         stop_server, wait_resources_released)

CLIENT, SERVER = "192.0.2.1", "192.0.2.2"
QPS = 64            # xiwperf's most per client (XIWPERF_MAX_QPS)
# A run that outlasts anything the test does to it. The no-progress
# timeout is long, so that a run can only have been ended by what the
# test did, never by xiwperf giving up.
def endless(size=4096, depth=8):
    return ("--op", "write", "--size", size, "--count", 10**9, "--depth",
            depth, "--qps", QPS, "--timeout", 300)


ENDLESS = endless()

# -- the leak witness --------------------------------------------------------
#
# A connection's objects live in the kmalloc caches (xiw's endpoint, queues
# and rings, the RDMA core's QP, CQ and PD with xiw's part in them, rdma_cm's
# and iw_cm's ids) and in TCP's (its socket, its inode). With 256 QPs open
# each of these caches holds hundreds of objects more (see
# test_256_qps_open_at_once_carry_traffic_and_close_clean, which checks the
# witness sees them). kmalloc-8 and kmalloc-96 are left out: no connection
# object is that size, and they drift by hundreds with the guest's own
# processes.
#
# Each cache is shrunk first (its per-CPU slabs flushed, empty slabs
# freed), but SLUB counts every object of a CPU's current slab as in use,
# and the reading itself (a sysfs file opened per cache) takes one again:
# a count is exact only to a slab per CPU and one more, so that is the
# tolerance (SLACK slabs, 63 objects of kmalloc-192, 48 of kmalloc-1k; at
# least MIN_SLACK objects). What is freed after an RCU grace period takes a
# few seconds to go, hence the bounded poll. A leak of one object per
# connection end (every scenario has at least 2 x 64 of them) shows in
# every cache of 128 bytes and more, and in the smaller ones in the churn
# (2048 ends). TCP sockets and xiw's module references are exact.
CACHES = ("kmalloc-16 kmalloc-32 kmalloc-64 kmalloc-128 kmalloc-192 "
          "kmalloc-256 kmalloc-512 kmalloc-1k kmalloc-2k kmalloc-4k "
          "kmalloc-8k TCP sock_inode_cache").split()
SLACK = 3           # slabs per cache: 2 vCPUs and the reading's own
MIN_SLACK = 32      # objects per cache
EXACT = ("tcp_sockets", "xiw_refcnt")
# Objects a baseline may count that are on their way out (a socket's
# inode goes back after an RCU grace period): more on the debug kernel,
# whose grace periods are slower (2026-11-28: a baseline there counted
# 49 socket inodes with one TCP socket open, from the test before). Still
# far below the 512 objects a leak of one per connection end would make.
TRANSIENT = 64 if xiwvm.debug_kernel() else 8

FOOTPRINT = (
    f"for c in {' '.join(CACHES)}; do echo 1 > /sys/kernel/slab/$c/shrink; "
    "done\n"
    "while read -r name active _ _ per _; do\n"
    f"  case ' {' '.join(CACHES)} ' in *\" $name \"*) "
    "echo \"$name $active $per\" ;; esac\n"
    "done < /proc/slabinfo\n"
    "while read -r p _ _ _ _ _ _ _ alloc _; do\n"
    "  if [ \"$p\" = TCP: ]; then echo \"tcp_sockets $alloc\"; fi\n"
    "done < /proc/net/sockstat\n"
    "if { read -r n < /sys/module/xiw/refcnt; } 2>/dev/null; then "
    "echo \"xiw_refcnt $n\"; else echo 'xiw_refcnt unloaded'; fi")


def footprint(vm, before=""):
    """{cache: objects in use, "tcp_sockets": TCP sockets allocated (all
    namespaces), "xiw_refcnt": n or "unloaded", "slack": {cache: the
    tolerance}}, read after the shell text before."""
    out = vm.run(f"{before}\n{FOOTPRINT}").out
    fp = {"slack": {}}
    for line in out.splitlines():
        name, value, *per = line.split()
        fp[name] = int(value) if value.isdigit() else value
        if per:
            fp["slack"][name] = max(MIN_SLACK, SLACK * int(per[0]))
    missing = set(CACHES + list(EXACT)) - set(fp)
    assert not missing, f"not in /proc/slabinfo or sockstat: {missing}"
    return fp


def baseline(vm, before=""):
    """The footprint before a scenario, after the shell text before. What
    the scenario's commands load on first use is loaded first: ss's
    sock_diag modules, for one."""
    return footprint(vm, f"{before}\nss -tnH > /dev/null; rdma -j statistic "
                         "show > /dev/null; rdma -j res show > /dev/null")


def growth(base, now):
    """What grew beyond its tolerance, or changed at all where exact:
    {name: (baseline, now)}."""
    grown = {k: (base[k], now[k]) for k in EXACT if now[k] != base[k]}
    grown.update({k: (base[k], now[k]) for k in CACHES
                  if now[k] - base[k] > base["slack"][k]})
    return grown


def assert_no_leak(vm, base, tries=40):
    """The footprint comes back to the baseline, polled a bounded number
    of times (RCU-deferred frees, a closing socket's last ACK)."""
    for i in range(tries):
        grown = growth(base, footprint(vm, "sleep 0.3" if i else ""))
        if not grown:
            return
    slack = {k: base["slack"][k] for k in grown if k in CACHES}
    raise AssertionError("kernel memory not back to the baseline "
                         f"(baseline, now): {grown}; tolerance {slack}")


# -- clients in the background ----------------------------------------------

def start_clients(vm, ns, n, *args, tag="cl"):
    """n xiwperf clients in namespace ns, started in one guest command; each
    records its pid, its JSON, its standard error and its exit status."""
    bases = [f"/tmp/churn-{tag}{i}" for i in range(n)]
    opts = " ".join(str(a) for a in args)
    vm.run("\n".join(
        f"rm -f {b}.rc; ( ip netns exec {ns} {XIWPERF} client --addr {SERVER} "
        f"--port {PORT} --json {opts} > {b}.json 2> {b}.err & "
        f"echo $! > {b}.pid; wait $!; echo $? > {b}.rc ) > /dev/null 2>&1 &"
        for b in bases))
    return bases


def signal_clients(vm, bases, sig, check=True):
    """Send signal sig to the clients of start_clients(). SIGTERM, not
    SIGINT: a background job of a non-interactive shell ignores SIGINT.
    check=False: a client already gone is no error."""
    vm.run("; ".join(f"kill -{sig} $(cat {b}.pid)" for b in bases),
           check=check)


def wait_clients(vm, bases, tries=600):
    """[(exit status, JSON result, standard error)] once all have exited."""
    done = " && ".join(f"test -s {b}.rc" for b in bases)
    wait_until(vm, done, f"clients {bases} ended", tries)
    out = vm.run("; ".join(f"cat {b}.rc {b}.json; echo; echo ::; cat {b}.err; "
                           "echo ::::" for b in bases)).out
    results = []
    for part in out.split("::::\n")[:len(bases)]:
        head, _, err = part.partition("::\n")
        rc, _, js = head.partition("\n")
        js = js.strip().splitlines()
        result = json.loads(js[-1]) if js else {}
        results.append((int(rc), result, err.strip()))
    return results


def writes_sent(dev, n):
    """Shell condition: xiw device dev sent at least n RDMA Writes (its
    counter, read with the shell's builtins: a guest saturated by traffic
    runs every process slowly)."""
    return (f"v=$(rdma -j statistic show link {dev}/1) && "
            "v=${v#*\\\"tx_msg_write\\\":} && v=${v%%[,\\}]*} && "
            f"[ \"$v\" -ge {n} ]")


def wait_flowing(vm, dev="xiw0", n=2 * QPS * 8):
    """Traffic flows on every QP of an endless() client: each posts its
    depth at once when all are connected, and n writes are twice those
    first windows."""
    wait_until(vm, writes_sent(dev, n), f"{n} writes sent by {dev}")


def assert_exact(r):
    """Every work request completed exactly once."""
    assert r["wc_unexpected"] == 0, r
    assert r["wc_missing"] == 0, r


def assert_cut_short(rc, r, reason=None, flushed=False):
    """A run ended by what the test did: exit 1, not by xiwperf's timeout,
    each completion once, every failed one a flush. How many were still
    outstanding varies: a QP going to error completes what TCP already
    acknowledged (the completions of a busy guest may lag its ACKs), and
    on DEVICE_REMOVAL xiwperf disconnects gracefully (the send queue
    drains, then the FIN) before its drain flushes the rest. flushed:
    some were certainly outstanding (never acknowledged)."""
    assert rc == 1, json.dumps(r)
    assert "no progress" not in r.get("error", "no progress"), json.dumps(r)
    if reason:
        assert r["error"] == reason, json.dumps(r)
    assert r["completed"] > 0 and r["errors"] == r["flushed"], json.dumps(r)
    if flushed:
        assert r["flushed"] > 0, json.dumps(r)
    assert_exact(r)


def no_rdma_devices(vm):
    wait_until(vm, 'set -- /sys/class/infiniband/*; [ ! -e "$1" ]',
               "every RDMA device gone")


def unload_xiw(vm):
    """The module unloads (and is gone) once its devices are."""
    res = vm.run("modprobe -r xiw; test ! -e /sys/module/xiw", check=False)
    assert res.rc == 0, f"xiw did not unload:\n{res}"


def xiwperf_loaded():
    """Shell text loading xiwperf (and with it the RDMA core's modules)."""
    check_xiwperf_built()
    return LOAD_XIWPERF


# -- scenarios ----------------------------------------------------------------

def test_thousand_connections_churned_leave_nothing_behind(hosts):
    """1024 connect/exchange/disconnect cycles: 16 client runs of 64
    connections, each connected one after another, used (two verified
    Sends each) and closed, all in one guest command: 15-35 s under TCG.
    A client process per connection costs 0.45-0.75 s (the process, not
    the connection): 1000 of them would take 8-12 minutes."""
    vm = hosts
    xiw_links(vm)
    log = start_server(vm, "b", SERVER, "churn", json_out=True)
    cm_trace.start(vm)
    base = baseline(vm)
    runs = 16
    res = vm.ns("a", f"i=0; while [ $i -lt {runs} ]; do {XIWPERF} client "
                f"--addr {SERVER} --port {PORT} --op send --size 4096 "
                f"--count {2 * QPS} --qps {QPS} --depth 2 --check --json; "
                "echo \"rc $?\"; i=$((i+1)); done", timeout=900)
    lines = res.out.splitlines()
    assert lines.count("rc 0") == runs, res
    results = [json.loads(ln) for ln in lines if ln.startswith("{")]
    assert len(results) == runs, res
    for r in results:
        assert (r["completed"], r["errors"], r["flushed"]) == \
            (2 * QPS, 0, 0), r
        assert r["data_ok"] is True, r
        assert_exact(r)
    # The server releases a connection after its DISCONNECTED: once all
    # are released, every event has been delivered. Each of the 2048 ids
    # (both ends) established and disconnected exactly once.
    wait_resources_released(vm, {"xiw1": 1})
    events = cm_trace.stop(vm)
    assert cm_trace.assert_exactly_once(events) == 2 * runs * QPS
    assert_no_leak(vm, base)
    stats = stop_server(vm, log)
    assert stats["connections"] == runs * QPS, stats
    assert stats["received"] == runs * 2 * QPS, stats
    assert (stats["active"], stats["mismatches"], stats["errors"]) == \
        (0, 0, 0), stats


def test_256_qps_open_at_once_carry_traffic_and_close_clean(hosts):
    """Four clients of 64 QPs each: every QP carries 16 Writes, then all
    hold their connections (xiwperf --hold): 256 open on each device at
    once, then closed by SIGTERM; nothing is left. The traffic is bounded:
    256 QPs writing without end saturate the TCG guest, whose every
    command then takes tens of seconds."""
    vm = hosts
    xiw_links(vm)
    log = start_server(vm, "b", SERVER, "qp256")
    base = baseline(vm)
    per_qp, clients_n = 16, 4
    clients = start_clients(vm, "a", clients_n, "--op", "write", "--size",
                            4096, "--count", per_qp * QPS, "--qps", QPS,
                            "--depth", 4, "--hold", 60, "--timeout", 300)
    try:
        # Every Write of every client sent: all connected, now holding (60
        # s, xiwperf's longest hold, far more than they take to get there).
        wait_flowing(vm, n=clients_n * QPS * per_qp)
        res = rdma_resources(vm)
        assert res["xiw0"]["qp"] == clients_n * QPS, res
        assert res["xiw1"]["qp"] == clients_n * QPS, res
        # The witness sees what the 512 connection ends hold, at least an
        # object each in these caches (less a few: the baseline may still
        # count its own commands' sockets, ss's and rdma's netlink ones,
        # whose inodes go back only after an RCU grace period): a leak of
        # one per end could not hide in the tolerance.
        ends = 2 * clients_n * QPS
        open_fp = footprint(vm)
        assert open_fp["tcp_sockets"] - base["tcp_sockets"] == ends
        for c in ("TCP", "sock_inode_cache", "kmalloc-1k"):
            assert open_fp[c] - base[c] >= ends - TRANSIENT, \
                (c, base, open_fp)
            assert ends > base["slack"][c], (c, base)
    except BaseException:
        # A client still holding would hold the teardown's link deletion
        # up past its timeout.
        signal_clients(vm, clients, "TERM", check=False)
        raise
    signal_clients(vm, clients, "TERM")
    for rc, r, err in wait_clients(vm, clients):
        assert rc == 0, (r, err)
        assert (r["completed"], r["errors"], r["flushed"]) == \
            (per_qp * QPS, 0, 0), r
        assert_exact(r)
    wait_resources_released(vm, {"xiw1": 1})
    assert_no_leak(vm, base)
    stop_server(vm, log)


def removal_under_traffic(vm, remove):
    """Traffic over 64 QPs from a to b; remove() takes something away;
    return the client's and the server's (exit status, output)."""
    log = start_server(vm, "b", SERVER, "removal")
    (client,) = start_clients(vm, "a", 1, *ENDLESS)
    wait_flowing(vm)
    remove()
    ((rc, r, err),) = wait_clients(vm, [client])
    wait_until(vm, f"! kill -0 $(cat {log}.pid) 2>/dev/null",
               "server exited")
    return (rc, r, err), vm.run(f"cat {log}").out


def test_rmmod_xiw_under_traffic_ends_runs_and_unloads(hosts):
    """modprobe -r xiw while 64 connections carry traffic succeeds, as a
    hardware RNIC driver's unload removes its devices: kernel ULPs do not
    pin xiw's module (its refcount stays 0); the RDMA core hands each of
    them a DEVICE_REMOVAL and waits until they let go. The client's run
    and the server end with every work request completed once, both
    devices go, the module is gone."""
    vm = hosts
    base = baseline(vm, xiwperf_loaded())
    assert base["xiw_refcnt"] == "unloaded"
    xiw_links(vm)
    assert footprint(vm)["xiw_refcnt"] == 0

    def rmmod():
        res = vm.run("modprobe -r xiw", timeout=120, check=False)
        assert res.rc == 0, f"rmmod xiw refused under traffic:\n{res}"

    (rc, r, err), server = removal_under_traffic(vm, rmmod)
    assert_cut_short(rc, r, "the RDMA device went away")
    assert f"the RDMA device of {SERVER} went away" in server, server
    no_rdma_devices(vm)
    unload_xiw(vm)
    assert_no_leak(vm, base)


def test_rdma_link_delete_under_traffic_ends_run_server_serves_on(hosts):
    """rdma link delete of the client's xiw device under traffic (of a
    siw device: test_xiwperf.py): the run ends with every work request
    completed once, the server's 64 connections end (xiw0's aborts reach
    it) and it listens on."""
    vm = hosts
    base = baseline(vm, xiwperf_loaded())
    xiw_links(vm)
    log = start_server(vm, "b", SERVER, "linkdel")
    (client,) = start_clients(vm, "a", 1, *ENDLESS)
    wait_flowing(vm)
    vm.ns("a", "rdma link delete xiw0", timeout=120)
    ((rc, r, err),) = wait_clients(vm, [client])
    assert_cut_short(rc, r, "the RDMA device went away")
    assert "xiw0" not in rdma_resources(vm)
    wait_resources_released(vm, {"xiw1": 1})
    stop_server(vm, log)
    vm.ns("b", "rdma link delete xiw1")
    unload_xiw(vm)
    assert_no_leak(vm, base)


def test_netdev_deleted_under_traffic_ends_runs_on_both_hosts(hosts):
    """ip link del of the client's veth under traffic deletes the pair:
    both netdevs go down, then away, and each xiw device with its own.
    The client's run ends, every work request completed once, the server
    exits (its device went away), nothing is left and xiw unloads."""
    vm = hosts
    base = baseline(vm, xiwperf_loaded())
    xiw_links(vm)
    (rc, r, err), server = removal_under_traffic(
        vm, lambda: vm.ns("a", "ip link del v0", timeout=120))
    assert_cut_short(rc, r)
    assert f"the RDMA device of {SERVER} went away" in server, server
    no_rdma_devices(vm)
    unload_xiw(vm)
    assert_no_leak(vm, base)


# -- a peer that vanishes ----------------------------------------------------

def bridged_hosts(vm, sysctl):
    """a (v0, 192.0.2.1) and b (v1, 192.0.2.2), each joined by a veth pair
    to a bridge in a third namespace sw: deleting one host's namespace
    takes only its own pair away, the other keeps its netdev, and hears
    nothing from the peer (no FIN, no RST). xiwperf loaded, static
    neighbours, the sysctl settings given for each namespace ({ns:
    "name=value ..."}); no xiw device yet (xiw_devices()). One guest
    command."""
    settings = "".join(f" && ip netns exec {ns} sysctl -qw {v}"
                       for ns, v in sysctl.items())
    check_xiwperf_built()
    vm.run(f"""ip -batch - <<'N' && ip -n sw -batch - <<'S' && \
ip -n a -batch - <<'A' && ip -n b -batch - <<'B' && {LOAD_XIWPERF} && \
{STATIC_NEIGHBOURS}{settings}
netns add a
netns add b
netns add sw
link add v0 netns a type veth peer va netns sw
link add v1 netns b type veth peer vb netns sw
N
link add br0 type bridge
link set va master br0
link set vb master br0
link set va up
link set vb up
link set br0 up
S
addr add {CLIENT}/24 dev v0
link set v0 up
link set lo up
A
addr add {SERVER}/24 dev v1
link set v1 up
link set lo up
B""")


def xiw_devices(vm):
    """xiw0 on v0 in a, xiw1 on v1 in b (loads xiw)."""
    vm.run("ip netns exec a rdma link add xiw0 type xiw netdev v0 && "
           "ip netns exec b rdma link add xiw1 type xiw netdev v1")


def vanish(vm, ns, port, pidfile):
    """Host ns vanishes mid-transfer: its cable cut at the bridge (its
    peer loses carrier), its xiwperf killed, its namespace deleted; one
    guest command. Its netdev and xiw device then go with the namespace,
    once its xiwperf let go of it: the vanished side cleans up too."""
    vm.run(f"ip -n sw link set {port} down && kill -KILL $(cat {pidfile}) "
           f"&& ip netns del {ns}")
    wait_until(vm, f"test ! -e /run/netns/{ns} && "
                   f"! rdma dev show xiw{'0' if ns == 'a' else '1'}",
               f"{ns}'s namespace and device gone")


def test_peer_gone_mid_transfer_sender_times_out(vm):
    """The server's host vanishes while the client's writes are in
    flight: TCP's retransmissions give up (tcp_retries2 3 in a, ~3 s; by
    default ~15 min), xiw ends each connection, the run ends flushed
    (not by xiwperf's own timeout) and the client's device carries
    nothing any more."""
    bridged_hosts(vm, {"a": "net.ipv4.tcp_retries2=3"})
    base = baseline(vm)
    xiw_devices(vm)
    log = start_server(vm, "b", SERVER, "gone")
    (client,) = start_clients(vm, "a", 1, *ENDLESS)
    wait_flowing(vm)
    vanish(vm, "b", "vb", f"{log}.pid")
    ((rc, r, err),) = wait_clients(vm, [client])
    assert_cut_short(rc, r, flushed=True)
    assert r["wc_status"] == "WR_FLUSH_ERR", r
    wait_resources_released(vm, {})
    vm.ns("a", "rdma link delete xiw0")
    unload_xiw(vm)
    assert_no_leak(vm, base)


def test_peer_gone_mid_transfer_receiver_detects_it_by_keepalive(vm):
    """The client's host vanishes while it writes to the server: the
    server only receives, TCP has nothing of its to retransmit, and
    before xiw turned keepalive on its connections lived on forever.
    With keepalive 1 s x 2 probes in b they end within seconds, the
    server releases all 64 and serves on."""
    bridged_hosts(vm, {"b": "net.ipv4.tcp_keepalive_time=1 "
                            "net.ipv4.tcp_keepalive_intvl=1 "
                            "net.ipv4.tcp_keepalive_probes=2"})
    base = baseline(vm)
    xiw_devices(vm)
    log = start_server(vm, "b", SERVER, "keepalive", json_out=True)
    (client,) = start_clients(vm, "a", 1, *ENDLESS)
    wait_flowing(vm)
    vanish(vm, "a", "va", f"{client}.pid")
    wait_resources_released(vm, {"xiw1": 1})
    stats = stop_server(vm, log)
    assert stats["connections"] == QPS and stats["active"] == 0, stats
    vm.ns("b", "rdma link delete xiw1")
    unload_xiw(vm)
    assert_no_leak(vm, base)
