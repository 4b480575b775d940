"""Userspace verbs over xiw: rdma-core's own tools, unmodified, through
xiw's provider (provider/xiw.c, build/cmake/provider/libxiw-rdmav34.so,
named to libibverbs by RDMAV_DRIVERS) and user ABI version 1
(uapi/xiw_abi.h): every verb one uverbs command.

xiw0 on v0 in a (192.0.2.1), xiw1 on v1 in b (192.0.2.2). The devices
are visible in every namespace (rdma system netns shared, the default);
librdmacm's connections are made in the namespace of the process.
"""
import errno
import json
import os
import re

import pytest

from conftest import TOP, rping_verified, wait_until, xiw_and_siw, xiw_links  # noqa: F401

PROVIDER = os.path.join(TOP, "build", "cmake", "provider", "libxiw")
ENV = f"RDMAV_DRIVERS={PROVIDER} "
DEVICE_H = os.path.join(TOP, "kmod", "device.h")
# How the provider polls a CQ and posts: from and to the rings the kernel
# and the process share (XIW_UCTX_CQ_RING, _RQ_RING and _SQ_RING, the
# default), or through the RDMA core's commands (XIW_*_RINGS=0: as from a
# kernel without rings).
POLLING = {"ring": ENV,
           "command": ENV + "XIW_CQ_RINGS=0 XIW_RQ_RINGS=0 XIW_SQ_RINGS=0 "}


def kernel_limits():
    """XIW_MAX_* of kmod/device.h: what the kernel reports."""
    out = {}
    with open(DEVICE_H) as f:
        for m in re.finditer(r"^#define (XIW_MAX_\w+)\s+([0-9*() ]+?)\s*(?:/\*.*)?$",
                             f.read(), re.M):
            out[m.group(1)] = eval(m.group(2), {})  # digits, *, parentheses
    return out


@pytest.fixture
def user(hosts):
    vm = hosts
    if not os.path.exists(PROVIDER + "-rdmav34.so"):
        pytest.fail("the provider is not built (make all)")
    xiw_links(vm)
    vm.run("modprobe ib_uverbs && modprobe rdma_ucm")
    yield vm


def test_ibv_devices_lists_both_devices(user):
    out = user.run(ENV + "ibv_devices").out
    names = re.findall(r"^\s+(\S+)\s+[0-9a-f]{16}$", out, re.M)
    assert sorted(names) == ["xiw0", "xiw1"], out


def test_ibv_devices_lists_xiw_beside_a_device_of_another_driver(
        xiw_and_siw):
    """Beside stock siw (matched by its driver id, with its own provider)
    every libibverbs program still starts: libibverbs walks each
    provider's match table for such a device (an xiw provider without
    one made ibv_devices crash)."""
    vm = xiw_and_siw
    vm.run("modprobe ib_uverbs")
    out = vm.run(ENV + "ibv_devices").out
    names = re.findall(r"^\s+(\S+)\s+[0-9a-f]{16}$", out, re.M)
    assert sorted(names) == ["siw0", "xiw0"], out


def test_ibv_devinfo_reports_the_kernels_limits_and_atomics(user):
    out = user.run(ENV + "ibv_devinfo -v -d xiw0").out

    def field(name):
        m = re.search(rf"^\s*{name}:\s*(.+)$", out, re.M)
        assert m, f"no {name} in:\n{out}"
        return m.group(1).strip()

    lim = kernel_limits()
    assert field("transport") == "iWARP (1)"
    assert field("atomic_cap") == "ATOMIC_HCA (1)"
    assert field("phys_port_cnt") == "1"
    for name, key in [("max_qp", "XIW_MAX_QP"), ("max_qp_wr", "XIW_MAX_QP_WR"),
                      ("max_sge", "XIW_MAX_SGE"), ("max_cq", "XIW_MAX_CQ"),
                      ("max_cqe", "XIW_MAX_CQE"), ("max_mr", "XIW_MAX_MR"),
                      ("max_pd", "XIW_MAX_PD"), ("max_srq", "XIW_MAX_SRQ"),
                      ("max_qp_rd_atom", "XIW_MAX_IRD"),
                      ("max_qp_init_rd_atom", "XIW_MAX_ORD")]:
        assert int(field(name)) == lim[key], name
    assert field("state") == "PORT_ACTIVE (4)"
    assert field("link_layer") == "Ethernet"


@pytest.mark.parametrize("polling", POLLING)
def test_rping_moves_verified_data_between_namespaces(user, polling):
    """rping's server in b, its client in a: ten round trips of Send,
    RDMA Read and RDMA Write, each buffer checked (-V), completions
    polled from rings and through the poll command."""
    rping_verified(user, 10, POLLING[polling])


def test_deleting_a_device_a_process_holds_completes(user):
    """perftest's server (no -R) opens xiw1 (a user context) and waits
    for a client that never comes; "rdma link delete xiw1" completes all
    the same (the RDMA core takes the context from the process:
    disassociate), and the process can then be ended."""
    vm = user
    vm.run(f"(ip netns exec b env {ENV}ib_send_bw -d xiw1 -n 5 "
           "> /tmp/holder.log 2>&1 &)")
    wait_until(vm, "rdma resource show ctx | grep -q 'xiw1.*ib_send_bw'",
               "the process has xiw1 open")
    vm.ns("b", "rdma link delete xiw1", timeout=60)
    assert '"xiw1"' not in vm.run("rdma -j dev show").out
    vm.run("pkill ib_send_bw; true")
    wait_until(vm, "! pgrep ib_send_bw", "the process ended")


# perftest's tools over rdma_cm (-R, as iWARP needs): each operation's
# bandwidth and latency test, xiw0 in a to xiw1 in b. perftest checks
# every completion's status, not the data (rping above does). -F: report
# whatever perftest's clock calibration gives (under TCG its sample of the
# cycle counter against gettimeofday() can fall below its r^2 bound of
# 0.9, and then it reports nothing and fails): no figure is checked here.
PERFTEST = [("ib_write_bw", "-s 65536 -n 200"),
            ("ib_read_bw", "-s 65536 -n 200"),
            ("ib_send_bw", "-s 4096 -n 200"),
            ("ib_write_lat", "-s 8 -n 200"),
            ("ib_read_lat", "-s 8 -n 200"),
            ("ib_send_lat", "-s 8 -n 200"),
            ("ib_atomic_bw", "-n 200"),
            ("ib_atomic_lat", "-n 200")]


def hold_syns_until_listening(vm, ns, dev, port):
    """Make a connection to @port in namespace @ns that finds no listener
    wait for one instead of being refused: drop the RST that answers its
    SYN (TCP, source @port, RST and ACK, sequence number 0; an abort of
    an established connection has a real one), so that the SYN is sent
    again a second later.

    For perftest -R: after its handshake over TCP, the client connects
    with rdma_cm at once, racing the server's rdma_listen(), and a
    connection refused meanwhile becomes RDMA_CM_EVENT_REJECTED; perftest
    4.5-0.17 (bookworm's) then retries on freed rdma_cm ids and crashes in
    librdmacm (fixed upstream by perftest 3d9d8d0, "Fix crashes and
    logical flaws in RDMA CM connection retry", in 26.04).
    """
    vm.ns(ns, f"tc qdisc add dev {dev} clsact && "
          f"tc filter add dev {dev} egress protocol ip u32 "
          "match u8 6 0xff at 9 "                   # TCP (no IP options)
          f"match u16 {port} 0xffff at 20 "         # source port
          "match u32 0 0xffffffff at 24 "           # sequence number 0
          "match u8 0x14 0x14 at 33 "               # RST and ACK
          "action drop")


@pytest.mark.parametrize("tool,args", PERFTEST,
                         ids=[t for t, _ in PERFTEST])
def test_perftest_runs_between_namespaces(user, tool, args):
    perftest_pair(user, tool, args, ("b", "xiw1", "192.0.2.2", "v1"),
                  ("a", "xiw0"))


def test_perftest_sends_into_an_srq(user):
    """ib_send_bw --use-srq: the server's receives are posted to an SRQ
    (its ring) and every Send takes one from there."""
    perftest_pair(user, "ib_send_bw", "-s 4096 -n 200 --use-srq",
                  ("b", "xiw1", "192.0.2.2", "v1"), ("a", "xiw0"))


def perftest_pair(vm, tool, args, server, client):
    """perftest's tool -R: its server on device server[1] in namespace
    server[0] (at server[2], its veth server[3]), its client on client[1]
    in client[0]. Both must exit 0, the client reporting its results
    line."""
    sns, sdev, saddr, sveth = server
    cns, cdev = client
    hold_syns_until_listening(vm, sns, sveth, 18515)
    vm.run("rm -f /tmp/pt-s.rc /tmp/pt-s.log")
    vm.run(f"(ip netns exec {sns} env {ENV}{tool} -R -F -d {sdev} {args} "
           "> /tmp/pt-s.log 2>&1; echo $? > /tmp/pt-s.rc) "
           "> /dev/null 2>&1 &")
    wait_until(vm, f"ip netns exec {sns} ss -ltn | grep -q ':18515 '",
               f"{tool}'s server listens")
    res = vm.run(f"ip netns exec {cns} env {ENV}{tool} -R -F -d {cdev} "
                 f"{args} {saddr}", timeout=180, check=False)
    assert res.rc == 0, (res, vm.run("cat /tmp/pt-s.log", check=False).out)
    size = args.split()[1] if args.startswith("-s") else "8"
    assert re.search(rf"^\s*{size}\s+200\s", res.out, re.M), res.out
    wait_until(vm, "test -s /tmp/pt-s.rc", f"{tool}'s server ended")
    assert vm.run("cat /tmp/pt-s.rc").out.strip() == "0", \
        vm.run("cat /tmp/pt-s.log").out


# What stock siw and its provider serve of perftest's tools: no atomics.
SIW_PERFTEST = [pt for pt in PERFTEST if "atomic" not in pt[0]]


@pytest.mark.parametrize("tool,args", SIW_PERFTEST,
                         ids=[t for t, _ in SIW_PERFTEST])
def test_perftest_runs_from_xiw_to_stock_siw(xiw_and_siw, tool, args):
    """perftest's tools that siw serves, -R, the client on xiw0 (a, xiw's
    provider), the server on stock siw0 (b, Debian's libsiw).

    Not the other way round: perftest 4.5-0.17's server listens on the
    wildcard address (its --source_ip is taken by the raw Ethernet option
    of the same name), so rdma_cm listens on every device, and stock siw
    opens siw0's listening socket in the listener's namespace (a), where
    xiw0 already listens on that port: EADDRINUSE. rping, which binds its
    server's address, covers that direction below."""
    vm = xiw_and_siw
    vm.run("modprobe ib_uverbs && modprobe rdma_ucm")
    perftest_pair(vm, tool, args, ("b", "siw0", "192.0.2.2", "v1"),
                  ("a", "xiw0"))


def test_rping_runs_from_stock_siw_to_xiw(xiw_and_siw):
    """rping's server on xiw0 (a, xiw's provider, bound to 192.0.2.1),
    its client on stock siw0 (b, Debian's libsiw): ten verified round
    trips of Send, RDMA Read and RDMA Write."""
    vm = xiw_and_siw
    vm.run("modprobe ib_uverbs && modprobe rdma_ucm")
    vm.run(f"(ip netns exec a env {ENV}rping -s -a 192.0.2.1 -C 10 -V "
           "> /tmp/rping-s.log 2>&1; echo $? > /tmp/rping-s.rc) "
           "> /dev/null 2>&1 &")
    wait_until(vm, "ip netns exec a ss -ltn | grep -q ':7174 '",
               "rping's server listens")
    res = vm.run(f"ip netns exec b env {ENV}rping -c -a 192.0.2.1 -C 10 -v "
                 "-V", timeout=120, check=False)
    assert res.rc == 0, res
    assert len(re.findall(r"^ping data: rdma-ping-\d+: ", res.out,
                          re.M)) == 10, res
    wait_until(vm, "test -s /tmp/rping-s.rc", "rping's server ended")
    assert vm.run("cat /tmp/rping-s.rc").out.strip() == "0", \
        vm.run("cat /tmp/rping-s.log").out


ABUSE = os.path.join(TOP, "build", "cmake", "tests", "userspace",
                     "xiw_uverbs_abuse")
CLAIM = os.path.join(TOP, "build", "cmake", "tests", "userspace",
                     "xiw_qp_claim")
ABUSE_ROUNDS = int(os.environ.get("XIW_USER_ABUSE_ROUNDS", "40"))


def resources(vm, dev):
    """rdma resource's summary of dev: {"pd": n, "mr": n, ...}."""
    rows = json.loads(vm.run("rdma -j resource show").out)
    row = next(r for r in rows if r["ifname"] == dev)
    return {k: v for k, v in row["volume"].items()} if "volume" in row \
        else {k: v for k, v in row.items() if isinstance(v, int)
              and k != "ifindex"}


def test_a_hostile_process_is_refused_and_leaves_nothing(user):
    """XIW_USER_ABUSE_ROUNDS times (40; make fuzz more), a process asks
    xiw0 for what it must refuse (tests/userspace/uverbs_abuse.c:
    registrations of unmapped memory, of nothing, remote write without
    local write; inline data at an unmapped address, too long, with
    wrapping lengths; send flags and opcodes outside the ABI; too many
    SGEs), each refused with its errno, then exits holding its PD, MR, CQ
    and QP. Afterwards xiw0 holds what it held before."""
    vm = user
    before = resources(vm, "xiw0")
    res = vm.run(f"env {ENV}{ABUSE} xiw0 {ABUSE_ROUNDS}", check=False,
                 timeout=60 + 5 * ABUSE_ROUNDS)
    assert res.rc == 0, res
    assert json.loads(res.out)["wrong_rounds"] == 0, res
    wait_until(vm, "! rdma resource show ctx | grep -q xiw_uverbs",
               "the processes' contexts are gone")
    assert resources(vm, "xiw0") == before


@pytest.mark.parametrize("polling", POLLING)
def test_a_destroyed_qp_leaves_no_completion_in_its_cq(user, polling):
    """A QP's four receives complete flushed when it goes to error; polled
    before the destroy, the CQ holds the four, destroyed first, nothing:
    through the poll command, the completions named the QP the RDMA core
    frees, and the core read it (wc->qp->qp_num) after the destroy (the
    kernel drops them: xiw_cq_purge()); from a ring, the provider skips
    them."""
    res = user.run(f"env {POLLING[polling]}{CLAIM} orphan xiw0", timeout=60,
                   check=False)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"flushed": 4, "after_destroy": 0}, res


@pytest.mark.parametrize("polling", POLLING)
def test_destroying_a_qp_adds_nothing_to_the_cq_it_shares(user, polling):
    """A QP with sixteen receives posted shares an armed CQ of four
    entries with another QP (xiw_qp_claim crowd). Destroyed, it puts
    nothing in the CQ: no completion event, no IB_EVENT_CQ_ERR (its
    sixteen flushed receives overflowed the CQ before, for completions
    the destroy then dropped), and the CQ serves the other QP as before."""
    res = user.run(f"env {POLLING[polling]}{CLAIM} crowd xiw0", timeout=60,
                   check=False)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"cq_events": 0, "async_events": 0,
                                   "other_flushed": 1}, res


LIMITS = os.path.join(TOP, "build", "cmake", "tests", "userspace",
                      "xiw_limits")
NOBODY = "setpriv --reuid=65534 --regid=65534 --clear-groups "
ENOMEM = 12
MIB = 1 << 20
# The ring of a CQ of XIW_MAX_CQE entries: as many struct ib_wc (72
# octets on 6.1 and 6.12, 4.5 MiB: no less than 64 octets each) for one
# polled through the command, as many struct xiw_ucqe (32 octets, 2 MiB)
# for one polled from its ring.
BIG_CQ_RING = {"command": kernel_limits()["XIW_MAX_CQE"] * 64,
               "ring": kernel_limits()["XIW_MAX_CQE"] * 32}
# Where the test mounts cgroup v2: the guest runs no cgroup manager.
CGROUP = "/run/xiw-cgroup"


@pytest.mark.parametrize("polling", POLLING)
def test_a_processs_cqs_are_its_memory_charged_to_its_cgroup(user, polling):
    """uid 65534, alone in a memory cgroup of 64 MiB, creates CQs of
    XIW_MAX_CQE entries (4.5 MiB of ring each through the poll command, 2
    MiB mapped) until one fails, 64 at most (tests/userspace/limits.c,
    charge). The rings are charged to its cgroup (kmod/obj.h, xiw_gfp();
    uctx.c, xiw_umap_new()): one fails with ENOMEM before the cgroup's
    usage passes its limit, the usage having risen by at least a ring for
    each CQ made; nothing is OOM-killed; destroyed, they are uncharged.
    Uncharged (GFP_KERNEL, before 75640e0), nothing stopped 32 (144 MiB)
    in the 64 MiB cgroup."""
    vm = user
    ring = BIG_CQ_RING[polling]
    assert vm.run("grep -qw cgroup2 /proc/filesystems", check=False).rc == 0, \
        "the guest kernel has no cgroup v2"
    cg, limit, most = f"{CGROUP}/xiw-limits", 64 * MIB, 64
    vm.run(f"mkdir -p {CGROUP} && "
           f"{{ mountpoint -q {CGROUP} || "
           f"mount -t cgroup2 cgroup2 {CGROUP}; }} && "
           f"echo +memory > {CGROUP}/cgroup.subtree_control && "
           f"{{ rmdir {cg} 2>/dev/null; mkdir {cg}; }} && "
           f"echo {limit} > {cg}/memory.max")
    try:
        # The shell joins the cgroup, then becomes the program.
        res = vm.run(f"sh -c 'echo $$ > {cg}/cgroup.procs && exec {NOBODY}"
                     f"env {POLLING[polling]}{LIMITS} charge xiw0 "
                     f"{kernel_limits()['XIW_MAX_CQE']} {most}'",
                     timeout=120, check=False)
        stat = vm.run(f"cat {cg}/memory.peak {cg}/memory.current "
                      f"{cg}/memory.events").out
    finally:
        vm.run(f"rmdir {cg}; umount {CGROUP}", check=False)
    assert res.rc == 0, res
    got = json.loads(res.out)
    lines = stat.splitlines()
    peak, current = int(lines[0]), int(lines[1])
    events = {k: int(v) for k, v in (ln.split() for ln in lines[2:])}
    what = f"{got}\npeak {peak}, current {current} after exit, {events}"
    assert got["errno"] == ENOMEM, what
    # Refused at the limit, not before it: at least half of it was used.
    assert limit // 2 // ring <= got["created"] <= limit // ring, what
    assert got["created"] * ring <= peak <= limit, what
    assert events["max"] > 0, what
    assert events["oom"] == 0 and events["oom_kill"] == 0, what
    assert current <= peak - (got["created"] - 1) * ring, what


RING = os.path.join(TOP, "build", "cmake", "tests", "userspace",
                    "xiw_cq_ring")
RING_ROUNDS = int(os.environ.get("XIW_USER_ABUSE_ROUNDS", "40"))


def test_a_process_spoiling_its_completion_rings_harms_only_itself(user):
    """XIW_USER_ABUSE_ROUNDS times (40), a process spoils the ring of its
    CQ of eight entries (tests/userspace/cq_ring.c, scribble: a tail ahead
    of the head, far behind it, half the index space away; the head and
    every entry overwritten; the ring unmapped; random tails written while
    the kernel completes), then has the kernel complete sixteen flushed
    receives there and exits holding everything. The kernel trusts no
    tail it reads: each round's CQ overflows (IBV_EVENT_CQ_ERR, one a
    round), not one octet of the ring's page past its entries is written,
    the kernel log stays clean, and the device holds what it held before."""
    vm = user
    before = resources(vm, "xiw0")
    res = vm.run(f"env {ENV}{RING} scribble xiw0 {RING_ROUNDS}", check=False,
                 timeout=60 + 5 * RING_ROUNDS)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"rounds": RING_ROUNDS,
                                   "cq_errors": RING_ROUNDS,
                                   "outside": 0}, res
    wait_until(vm, "! rdma resource show ctx | grep -q xiw_cq_ring",
               "the processes' contexts are gone")
    assert resources(vm, "xiw0") == before


def test_a_ring_cq_is_not_polled_through_the_poll_command(user):
    """A CQ whose completions go to its ring has none for the RDMA core's
    poll command: a process issuing it (a write() on the device file)
    gets EOPNOTSUPP, not the ring's entries read back as the kernel's."""
    res = user.run(f"env {ENV}{RING} command xiw0", timeout=60, check=False)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"poll_command": errno.EOPNOTSUPP}, res


RQ_RING = os.path.join(TOP, "build", "cmake", "tests", "userspace",
                       "xiw_rq_ring")


def test_receives_posted_to_a_qp_in_error_complete_flushed(user):
    """A QP moved to error, then sixteen receives posted to its ring
    (tests/userspace/rq_ring.c, error): the kernel flagged the ring, the
    provider rings the doorbell (the post_recv command without work
    requests), and all sixteen complete flushed, in posting order, as
    receives posted through the command do. Without the doorbell none
    would: nothing else makes the kernel read the ring of a QP in error."""
    res = user.run(f"env {ENV}{RQ_RING} error xiw0", timeout=60, check=False)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"flushed": 16, "in_order": True}, res


def test_a_ring_rq_takes_only_the_doorbell_through_the_post_command(user):
    """A QP whose receives go to its ring: the RDMA core's post_recv
    command (a write() on the device file) with a work request fails with
    EINVAL, the kernel's queue untouched; without one (the doorbell) it
    succeeds."""
    res = user.run(f"env {ENV}{RQ_RING} command xiw0", timeout=60,
                   check=False)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"with_wr": errno.EINVAL,
                                   "doorbell": 0}, res


def test_a_process_spoiling_its_receive_rings_harms_only_itself(user):
    """XIW_USER_ABUSE_ROUNDS times (40), a process posts sixteen receives
    to the ring of its QP (every other round: of its SRQ), spoils the ring
    (tests/userspace/rq_ring.c, scribble: a head far ahead of the kernel's
    tail, behind it, half the index space away; every entry overwritten;
    entries of bad keys, addresses and SGE counts; the ring unmapped;
    random heads written while the kernel flushes), moves the QP to error
    and exits holding everything. The kernel reads no more than the queue
    holds: no round completes more than sixteen receives; the kernel log
    stays clean, and the device holds what it held before."""
    vm = user
    before = resources(vm, "xiw0")
    res = vm.run(f"env {ENV}{RQ_RING} scribble xiw0 {RING_ROUNDS}",
                 check=False, timeout=60 + 5 * RING_ROUNDS)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"rounds": RING_ROUNDS, "over": 0}, res
    wait_until(vm, "! rdma resource show ctx | grep -q xiw_rq_ring",
               "the processes' contexts are gone")
    assert resources(vm, "xiw0") == before


SQ_RING = os.path.join(TOP, "build", "cmake", "tests", "userspace",
                       "xiw_sq_ring")


def test_sends_posted_to_a_qp_in_error_complete_flushed(user):
    """A QP moved to error, then sixteen sends posted to its send ring
    (tests/userspace/sq_ring.c, error): the kernel flagged the ring, the
    provider rings the doorbell (the post_send command without work
    requests), and all sixteen complete flushed, in posting order, as
    sends posted through the command do (ib_drain_sq()'s way of finding
    the end of a queue)."""
    res = user.run(f"env {ENV}{SQ_RING} error xiw0", timeout=60, check=False)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"flushed": 16, "in_order": True}, res


def test_a_ring_sq_takes_only_the_doorbell_through_the_post_command(user):
    """A QP whose sends go to its ring: the RDMA core's post_send command
    (a write() on the device file) with a work request fails with EINVAL,
    nothing queued; without one (the doorbell) it succeeds."""
    res = user.run(f"env {ENV}{SQ_RING} command xiw0", timeout=60,
                   check=False)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"with_wr": errno.EINVAL,
                                   "doorbell": 0}, res


@pytest.fixture
def sq_server(user):
    """xiw_sq_ring's server in b on 192.0.2.2:7471."""
    vm = user
    vm.run(f"(ip netns exec b env {ENV}{SQ_RING} serve 192.0.2.2 7471 "
           "> /tmp/sq-serve.log 2>&1; echo \"server exit $?\" "
           ">> /tmp/sq-serve.log) > /dev/null 2>&1 &")
    wait_until(vm, "ip netns exec b ss -ltn | grep -q ':7471 '",
               "the send ring server listens")
    yield vm
    vm.run("pkill -x xiw_sq_ring; true")
    wait_until(vm, "! pgrep -x xiw_sq_ring", "the server ended")


def test_ibv_wr_operations_move_verified_data(sq_server):
    """Through rdma-core's ibv_wr_*() API (struct ibv_qp_ex, served by the
    send ring), one batch from a to the server in b
    (tests/userspace/sq_ring.c, ops): an inline RDMA Write of 16 octets,
    an Atomic Write (ibv_wr_atomic_write(): its 8 octets land as they
    were in the buffer), a Fetch and Add of 5 to zero, a Compare and Swap
    of 5 for 42, a Send with Immediate, and a fenced RDMA Read of it all
    back. Six completions, none in error; the Read finds the Write's text
    and the Atomic Write's value, the atomics returned 0 and 5, and the
    word holds 42."""
    res = sq_server.run(f"ip netns exec a env {ENV}{SQ_RING} ops "
                        "192.0.2.2 7471", timeout=120, check=False)
    assert res.rc == 0, res
    assert json.loads(res.out) == {"completions": 6, "errors": 0,
                                   "write": True, "atomic_write": True,
                                   "fetch_add": 0, "cmp_swap": 5,
                                   "final": 42}, res


def test_xiwdv_flush_verify_and_masked_atomics_from_userspace(sq_server):
    """Through xiwdv.h (the provider's direct verbs), one ibv_wr_*() batch
    from a to the server in b, whose MR is flushable and hashed with
    CRC32c (xiwdv_reg_mr()) (tests/userspace/sq_ring.c, dv): an RDMA Write
    of 16 octets, an RDMA Flush (global) and an RDMA Verify of them, an
    Atomic Write of 0xffff0000ffff0001, a masked Fetch and Add of one to
    each of its four 16-bit fields (RFC 7306: 0xffff + 1 wraps within its
    field), a masked Compare and Swap whose high half matches (the low
    half swapped) and one whose does not (nothing changes), and a fenced
    Read of the word. Eight completions in order with the ABI's opcodes
    (Write 1, Flush 8, Verify 0x40, Atomic Write 9, masked FetchAdd 0x42,
    masked CmpSwap 0x41 twice, Read 2), none in error; the hash is the
    CRC32c computed here (4 octets); the originals and the word are the
    RFC's. Then a Verify expecting another hash completes in error
    (IBV_WC_REM_INV_REQ_ERR: the responder terminated the stream)."""
    res = sq_server.run(f"ip netns exec a env {ENV}{SQ_RING} dv "
                        "192.0.2.2 7471", timeout=120, check=False)
    assert res.rc == 0, res
    assert json.loads(res.out) == {
        "opcodes": [1, 8, 0x40, 9, 0x42, 0x41, 0x41, 2],
        "completions": 8, "errors": 0, "crc_ok": True, "hash_len": 4,
        "fetch_add": "ffff0000ffff0001", "cmp_swap": "0000000100000002",
        "missed": "00000001aaaaaaaa", "final": "00000001aaaaaaaa",
        "mismatch": 9}, res


def test_a_process_spoiling_its_send_rings_harms_only_itself(sq_server):
    """XIW_USER_ABUSE_ROUNDS times (40), a process connected to the server
    in b posts eight sends to its QP's send ring, spoils the ring
    (tests/userspace/sq_ring.c, scribble: a head far ahead of the kernel's
    tail, behind it, half the index space away; every entry overwritten;
    entries of unknown opcodes and flags, bad keys, SGE counts, inline
    lengths, Flush types and hash lengths; the ring unmapped; random heads
    written while the kernel sends and flushes), rings the doorbell, moves
    the QP to error and exits holding everything. Where it wrote entries
    no verb takes, the first fails in its turn (IBV_WC_LOC_QP_OP_ERR, the
    QP with it); the server's QP sees each connection end and serves the
    next; the kernel log stays clean and the device holds what it held
    before. The kernel never takes more than the queue's size from a
    ring: without that bound, a head half the index space away keeps it
    copying under a spinlock (an RCU stall)."""
    vm = sq_server
    before = resources(vm, "xiw0")
    res = vm.run(f"ip netns exec a env {ENV}{SQ_RING} scribble 192.0.2.2 "
                 f"7471 {RING_ROUNDS}", check=False,
                 timeout=60 + 10 * RING_ROUNDS)
    served = vm.run("cat /tmp/sq-serve.log").out
    assert res.rc == 0, (res, served)
    assert json.loads(res.out) == {"rounds": RING_ROUNDS,
                                   "unrefused": 0}, (res, served)
    wait_until(vm, f"test $(grep -c DISCONNECTED /tmp/sq-serve.log) "
               f"-eq {RING_ROUNDS}", "the server saw every round end")
    wait_until(vm, "! rdma resource show ctx | grep -q 'xiw0.*xiw_sq_ring'",
               "the processes' contexts are gone")
    assert resources(vm, "xiw0") == before


def test_a_process_gets_the_cqs_the_device_reports_and_not_one_more(user):
    """uid 65534 creates CQs of one entry on xiw0 until one fails
    (tests/userspace/limits.c, exhaust): it fails with ENOMEM after
    exactly the max_cq ibv_query_device() reports (XIW_MAX_CQ) less the
    CQs the device held already (rdma resource: kernel consumers' count
    too; none on the fresh xiw0). One destroyed, one more is made and the
    next refused again; the context closed (the kernel destroys the
    rest), a new one makes a CQ; afterwards xiw0 holds what it held
    before. Before, nothing counted CQs: max_cq + 1 were made. CQs have
    the lowest of xiw's object limits (16384, as QPs and SRQs; PDs and
    MRs 65536): 16384 uverbs commands, a few seconds natively, up to a
    minute under TCG (the program prints how long they took)."""
    vm = user
    before = resources(vm, "xiw0").get("cq", 0)
    res = vm.run(f"{NOBODY}env {ENV}{LIMITS} exhaust xiw0", timeout=300,
                 check=False)
    assert res.rc == 0, res
    got = json.loads(res.out)
    assert got["max_cq"] == kernel_limits()["XIW_MAX_CQ"], got
    assert (got["created"], got["errno"]) == \
        (got["max_cq"] - before, ENOMEM), got
    assert (got["again"], got["beyond"], got["reopened"]) == \
        (0, ENOMEM, 0), got
    wait_until(vm, "! rdma resource show ctx | grep -q xiw_limits",
               "the process's contexts are gone")
    assert resources(vm, "xiw0").get("cq", 0) == before
