"""Fixtures for the VM scenarios: one guest per test session, a clean
kernel log check around every test, and the two-host topology."""
import collections
import hashlib
import json
import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vm"))
import xiwvm  # noqa: E402

TOP = xiwvm.TOP


def pytest_configure(config):
    config.addinivalue_line("markers", "vm: needs the QEMU guest")
    # make check runs one case of each kind across two guests; the
    # others (the other direction, the other device, the other address)
    # are make interop's (scripts/integration.sh, Documentation/testing.md).
    config.addinivalue_line("markers", "interop: make interop's only")


def interop_except(first, keys):
    """Parametrize values for keys: first as make check runs it, each
    other marked interop."""
    return [k if k == first else pytest.param(k, marks=pytest.mark.interop)
            for k in keys]


# make integration runs the scenarios in $XIW_SHARDS guests at once
# (scripts/integration.sh); $XIW_SHARD="K/N" makes this session the Kth
# of N. Whole files go to a shard, heaviest first, each to the shard with
# the least so far, by the seconds each file took in a full run
# (weights.json; refresh it from build/test-durations.json when files
# grow). A file not listed there counts 4 s per test.
WEIGHTS = os.path.join(os.path.dirname(__file__), "weights.json")


def shard_of(files, n):
    """{file: shard index from 0} for n shards: the greedy
    longest-first split of files ({file: number of tests})."""
    with open(WEIGHTS) as f:
        weights = json.load(f)
    cost = {k: weights.get(k, 4 * count) for k, count in files.items()}
    load = [0.0] * n
    where = {}
    for name in sorted(cost, key=lambda k: (-cost[k], k)):
        i = load.index(min(load))
        where[name] = i
        load[i] += cost[name]
    return where


# make check-debug's ledger ($XIW_LEDGER, a file; scripts/check-debug.sh
# names it after what the run tests: the kernel and provider sources and
# the debug kernel): one JSON line for each test that passed (setup, call
# and teardown, the kernel-log, kmemleak and unload checks among them),
# with the hash of its file. With $XIW_LEDGER_RESUME set, a test recorded
# there, its file unchanged since, is not run again: a run that takes
# longer than a sitting can be finished in another.
LEDGER = os.environ.get("XIW_LEDGER")
REPORTS = {}


def file_hash(nodeid, cache={}):
    path = os.path.join(TOP, nodeid.split("::")[0])
    if path not in cache:
        with open(path, "rb") as f:
            cache[path] = hashlib.sha256(f.read()).hexdigest()
    return cache[path]


def ledger_passed():
    """{nodeid: file hash} of the tests the ledger holds as passed."""
    done = {}
    try:
        with open(LEDGER) as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a killed run
                done[rec["node"]] = rec["file"]
    except FileNotFoundError:
        pass
    return done


def ledger_deselect(config, items):
    """Deselect the tests the ledger holds as passed (resuming)."""
    if not (LEDGER and os.environ.get("XIW_LEDGER_RESUME")):
        return
    done = ledger_passed()
    keep, drop = [], []
    for item in items:
        passed = done.get(item.nodeid) == file_hash(item.nodeid)
        (drop if passed else keep).append(item)
    items[:] = keep
    config.hook.pytest_deselected(items=drop)


def ledger_record(report):
    """Append report's test to the ledger once its teardown passed and
    nothing before it failed or skipped."""
    seen = REPORTS.setdefault(report.nodeid, [])
    seen.append(report.outcome)
    if report.when != "teardown":
        return
    del REPORTS[report.nodeid]
    if seen != ["passed"] * 3:
        return
    line = json.dumps({"node": report.nodeid,
                       "file": file_hash(report.nodeid)}) + "\n"
    # One write of a short line to a file opened for appending: the
    # shards' lines do not interleave.
    fd = os.open(LEDGER, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    ledger_deselect(config, items)
    spec = os.environ.get("XIW_SHARD")
    if not spec:
        return
    k, n = (int(x) for x in spec.split("/"))
    names = [os.path.basename(item.nodeid.split("::")[0]) for item in items]
    where = shard_of(collections.Counter(names), n)
    keep, drop = [], []
    for item, name in zip(items, names):
        (keep if where[name] == k - 1 else drop).append(item)
    items[:] = keep
    config.hook.pytest_deselected(items=drop)


# Where make check's time goes: each test's setup, call and teardown, as
# pytest measured them, summed per phase and per file at the end of the
# run and written to build/test-durations.json.
PHASES = {}


def pytest_runtest_logreport(report):
    PHASES.setdefault(report.nodeid, {})[report.when] = report.duration
    if LEDGER:
        ledger_record(report)


def pytest_terminal_summary(terminalreporter):
    if not PHASES:
        return
    total = {w: sum(p.get(w, 0) for p in PHASES.values())
             for w in ("setup", "call", "teardown")}
    files = {}
    for node, p in PHASES.items():
        f = node.split("::")[0]
        files[f] = files.get(f, 0) + sum(p.values())
    tr = terminalreporter
    tr.write_sep("=", "where the time went")
    tr.write_line(f"{len(PHASES)} tests: setup {total['setup']:.0f} s, "
                  f"call {total['call']:.0f} s, "
                  f"teardown {total['teardown']:.0f} s")
    for f, t in sorted(files.items(), key=lambda kv: -kv[1]):
        tr.write_line(f"{t:8.1f} s  {f}")
    os.makedirs(os.path.join(TOP, "build"), exist_ok=True)
    shard = os.environ.get("XIW_SHARD", "").replace("/", "-of-")
    if xiwvm.kernel_series() != xiwvm.DEFAULT_KERNEL:
        shard = "-".join(filter(None, (xiwvm.kernel_series(), shard)))
    name = f"test-durations-{shard}.json" if shard else "test-durations.json"
    with open(os.path.join(TOP, "build", name), "w") as out:
        json.dump(PHASES, out, indent=1, sort_keys=True)


def build_siw(series=None):
    """Path of the stock siw.ko for the target kernel (or Debian's kernel
    of series), built out of tree (and cached) by scripts/build-siw.sh;
    None on the debug kernel, which has siw in tree."""
    if series is None and xiwvm.debug_kernel():
        return None
    res = subprocess.run([os.path.join(TOP, "scripts", "build-siw.sh")],
                         check=True, stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ,
                                  KVER=xiwvm.target_kver(series)))
    return res.stdout.strip().splitlines()[-1]


def default_modules(siw_ko):
    """What the VM installs for modprobe: xiw, the xiwperf test module,
    the hostile-peer tests' target and stock siw (a reference iWARP
    device for xiwperf; the debug kernel's own when siw_ko is None)."""
    return [os.path.join(TOP, "kmod", "xiw.ko"),
            os.path.join(TOP, "tools", "xiwperf", "kmod", "xiwperf.ko"),
            os.path.join(TOP, "tests", "reliability", "target",
                         "xiwtarget.ko")] + ([siw_ko] if siw_ko else [])


SCRATCH_BYTES = 256 << 20


class Guest:
    """The running VM plus helpers the scenarios share."""

    def __init__(self, modules=None):
        self.workdir = os.path.join(TOP, "build", "vm", f"pytest-{os.getpid()}")
        os.makedirs(self.workdir, exist_ok=True)
        self.modules = modules
        self.vm = None
        # True while the kernel log holds nothing since the last read:
        # after the boot's read and after each test's end_test(), whose
        # last step reads and clears it. The next test then needs no
        # round trip of its own to clear it.
        self.log_clean = False
        # Set when a test's kernel log check failed on the debug kernel:
        # lockdep switches itself off after its first report, so the next
        # test gets a fresh guest.
        self.reboot = False

    def ensure(self):
        if self.reboot and self.vm is not None:
            self.vm.stop()
            self.reboot = False
        if self.vm is None or not self.vm.alive():
            if self.vm is not None:
                self.vm.stop()
            # A scratch disk (/dev/vda, sparse) for the scenarios that
            # need a filesystem on a block device: see the disk fixture.
            scratch = os.path.join(self.workdir, "scratch.img")
            with open(scratch, "wb") as f:
                f.truncate(SCRATCH_BYTES)
            self.vm = xiwvm.VM(self.workdir, modules=self.modules,
                               disks=[scratch]).start()
            # What kmemleak suspects after the boot is not a test's.
            self.vm.run(KMEMLEAK_SCAN + "echo clear > $k; fi",
                        check=False)
            self.vm.new_dmesg()
            self.log_clean = True
        return self.vm

    def stop(self):
        if self.vm is not None:
            self.vm.stop()

    def last_leaks(self):
        """kmemleak's report of what the session's last test leaked in its
        last seconds (younger than kmemleak's 5 s then): empty on a kernel
        without kmemleak."""
        if self.vm is None or not self.vm.alive():
            return ""
        res = self.vm.run("k=/sys/kernel/debug/kmemleak; if [ -w $k ]; "
                          "then sleep 6; echo scan > $k && cat $k; fi",
                          check=False)
        return res.out if "unreferenced object" in res.out else ""


@pytest.fixture(scope="session")
def siw_ko():
    """siw.ko built for the target kernel (stock siw is not in Debian's
    config); the source stays in $XIW_CACHE, never in the repository."""
    return build_siw()


@pytest.fixture(scope="session")
def guest(siw_ko):
    # make integration builds them once before its shards start.
    if not os.environ.get("XIW_SHARD"):
        xiwvm.build_modules()
    g = Guest(default_modules(siw_ko))
    yield g
    leaks = g.last_leaks()
    g.stop()
    if leaks:
        pytest.fail("kmemleak: memory leaked at the end of the session:\n"
                    + leaks)


# kmemleak (the debug kernel): scan now, then (after KMEMLEAK_SCAN) what
# it suspects and "clear", which keeps those from being reported again.
# It only reports objects older than 5 s: a leak in a test's last seconds
# shows in the next test's check (or, after the last test, at the end of
# the session), its report naming the process and the stack that
# allocated it.
KMEMLEAK_SCAN = ("k=/sys/kernel/debug/kmemleak; "
                 "if [ -w $k ] && echo scan > $k; then ")

# The teardown after every test, one guest command: each process the guest
# starts costs ~0.1 s under TCG, so the shell's builtins do the parsing.
# xiwperf is unloaded (the fixtures stopped its server), every RDMA link is
# deleted (one rdma -batch for all: the names come from
# "link DEV/PORT ..." lines), every namespace and a v0 left in the initial
# one, then xiw is unloaded; "unload:" says whether xiw is gone, "devices
# left:" names any RDMA device still registered after a bounded wait (a
# device whose netdev went away may still be on its way out; 100 polls
# times timeout_scale(); rdma -f: a failed delete does not stop the
# batch); on the debug kernel kmemleak's findings follow "kmemleak:"; and
# the kernel log follows "dmesg:", read and cleared last so that nothing
# the teardown caused escapes the check.
TEARDOWN = (r"""
if [ -e /sys/module/xiwperf ]; then rmmod xiwperf 2>/dev/null; fi
devs=
rdma link show > /tmp/xiw-links 2>/dev/null
while read -r _ port _; do
    case " $devs " in *" ${port%/*} "*) ;; *) devs="$devs ${port%/*}" ;; esac
done < /tmp/xiw-links
if [ -n "$devs" ]; then
    for d in $devs; do echo "link delete $d"; done > /tmp/xiw-links
    rdma -f -b /tmp/xiw-links > /dev/null 2>&1
fi
ip -all netns delete
if [ -e /sys/class/net/v0 ]; then ip link del v0; fi
if [ -e /sys/module/xiw ]; then modprobe -r xiw; fi
if [ -e /sys/module/xiw ]; then echo "unload: failed"; else echo "unload: ok"; fi
i=0
while set -- /sys/class/infiniband/*; [ -e "$1" ] && [ $i -lt POLLS ]; do
    sleep 0.05; i=$((i+1))
done
if [ -e "$1" ]; then echo "devices left: ${*##*/}"; fi
""" + KMEMLEAK_SCAN + r"""echo "kmemleak:"; cat $k; echo clear > $k; fi
echo "dmesg:"
dmesg -c
""").replace("POLLS", str(int(100 * xiwvm.timeout_scale())))


def end_test(vm):
    """After a test: fail if the VM died; delete every RDMA link and
    namespace and unload xiw (a leak or a hang there is the test's too:
    an RDMA device or xiw still there after the teardown, or a teardown
    that outlived its timeout, fails the test); fail on any kernel line
    the test caused that reports a bug, and on the debug kernel on any
    object kmemleak finds unreferenced."""
    if not vm.alive():
        pytest.fail("VM died during the test:\n" + vm.console()[-6000:])
    res = vm.run(TEARDOWN, timeout=60, check=False)
    problems = []
    head, sep, log = res.out.partition("dmesg:\n")
    if not sep:
        # Killed before its end (a hang in a delete or the unload): the
        # kernel log is still to be read, and the hang reported, with the
        # stack of every task blocked in the kernel (sysrq w).
        problems.append(f"teardown did not finish:\n{res}")
        vm.run("echo w > /proc/sysrq-trigger", timeout=30, check=False)
        log = "\n".join(vm.new_dmesg())
    else:
        if "unload: ok" not in head:
            problems.append(f"xiw could not be unloaded:\n{res}")
        if "devices left:" in head:
            problems.append(f"RDMA devices left after the teardown:\n{res}")
        if "unreferenced object" in head:
            problems.append("kmemleak: memory leaked:\n" +
                            head.partition("kmemleak:\n")[2])
    log = log.splitlines()
    if xiwvm.VM.bad_lines(log):
        problems.append("kernel reported problems:\n" + "\n".join(log))
    if problems:
        pytest.fail("\n".join(problems))


@pytest.fixture
def vm(guest, request):
    """The VM, with every kernel line the test caused checked for bugs.

    After the test all xiw devices are deleted and the module unloaded;
    that teardown is itself checked.
    """
    vm = guest.ensure()
    if not guest.log_clean:
        vm.new_dmesg()
    guest.log_clean = False
    yield vm
    try:
        end_test(vm)
    except BaseException:
        # The next test gets a fresh guest: after a kernel report (lockdep
        # switches itself off after its first) and after a hang, whose
        # blocked task may hold what every later test needs (a guest left
        # so once made each later test wait out its timeouts).
        guest.reboot = True
        raise
    guest.log_clean = True


def pair_modules(series):
    """default_modules() for a guest of a pair booting series (None: the
    environment's kernel), built for it first."""
    if series is not None or not os.environ.get("XIW_SHARD"):
        xiwvm.build_modules(series)
    return default_modules(build_siw(series))


@pytest.fixture(scope="session")
def guest_pairs():
    """The session's guest pairs (two_guests.GuestPair), by the kernel
    series of each guest: booted by the first test that needs one, kept
    for the next."""
    pairs = {}
    yield pairs
    for p in pairs.values():
        p.stop()


def use_pair(pairs, series):
    from two_guests import GuestPair
    p = pairs.get(series)
    if p is None:
        name = "-".join(s or "env" for s in series)
        p = pairs[series] = GuestPair(
            os.path.join(TOP, "build", "vm", f"pytest-{os.getpid()}-{name}"),
            pair_modules, series)
    if p.spoiled or not p.alive():
        p.start()
        p.spoiled = False
    for vm in p.vms:
        vm.new_dmesg()
    yield p
    # Each guest's teardown and kernel log checked as the vm fixture's
    # are, both even when the first fails; after a failure the next
    # test gets a fresh pair.
    problems = []
    for i, vm in enumerate(p.vms):
        try:
            end_test(vm)
        except BaseException as e:  # pytest.fail's Failed among them
            problems.append(f"guest {i} ({vm.kver}): {e}")
    if problems:
        p.spoiled = True
        pytest.fail("\n".join(problems))


@pytest.fixture
def two_guests(guest_pairs):
    """Two guests on one wire, both booting the environment's kernel."""
    yield from use_pair(guest_pairs, (None, None))


@pytest.fixture
def two_kernels(guest_pairs):
    """Two guests on one wire, on different kernels: guest 0 boots the
    environment's (Debian's 6.12 by default, or the debug kernel), guest 1
    Debian's other series."""
    other = "6.1" if xiwvm.kernel_series() == "6.12" else "6.12"
    yield from use_pair(guest_pairs, (None, other))


def wait_until(vm, cmd, what, tries=100):
    """Run cmd in the guest until it exits 0, a bounded number of polls (no
    wall-clock assertion). The loop runs in the guest, one round trip in
    all: a try used to be two round trips (cmd, then "sleep 0.1"), at least
    0.3 s under TCG, so each try is now four polls 0.05 s apart, which
    waits no less than before; times timeout_scale() on a slow kernel.
    The agent's timeout only guards against a cmd that hangs; it counts as
    never."""
    polls = int(4 * tries * xiwvm.timeout_scale())
    res = vm.run(f"i=0; until (\n{cmd}\n) > /dev/null 2>&1; do "
                 f"i=$((i+1)); [ $i -lt {polls} ] || exit 1; sleep 0.05; done",
                 timeout=120 + polls, check=False)
    if res.rc != 0:
        raise AssertionError(f"never happened: {what}")


def rping_verified(vm, rounds, env=""):
    """On two_hosts() with a device in each: rping's server in b, its
    client in a, rounds round trips of Send, RDMA Read and RDMA Write,
    each buffer checked (-V); env goes before each rping (a provider named
    by RDMAV_DRIVERS). Both ends must exit 0, every round's data shown."""
    vm.run(f"(ip netns exec b env {env}rping -s -a 192.0.2.2 -C {rounds} -V "
           "> /tmp/rping-s.log 2>&1; echo $? > /tmp/rping-s.rc) "
           "> /dev/null 2>&1 &")
    wait_until(vm, "ip netns exec b ss -ltn | grep -q ':7174 '",
               "rping's server listens")
    res = vm.run(f"ip netns exec a env {env}rping -c -a 192.0.2.2 "
                 f"-C {rounds} -v -V", timeout=120, check=False)
    assert res.rc == 0, res
    assert len(re.findall(r"^ping data: rdma-ping-\d+: ", res.out,
                          re.M)) == rounds, res
    wait_until(vm, "test -s /tmp/rping-s.rc", "rping's server ended")
    assert vm.run("cat /tmp/rping-s.rc").out.strip() == "0", \
        vm.run("cat /tmp/rping-s.log").out


def rdma_links(vm, ns=None):
    """rdma link show as a list; netdev names are only reported to
    callers in the netdev's namespace, hence ns."""
    cmd = "rdma -j link show"
    res = vm.ns(ns, cmd) if ns else vm.run(cmd)
    return json.loads(res.out or "[]")


def rdma_devs(vm, ns=None):
    """rdma dev show as a list, from namespace ns (in "exclusive" mode a
    namespace sees only its own devices)."""
    cmd = "rdma -j dev show"
    res = vm.ns(ns, cmd) if ns else vm.run(cmd)
    return json.loads(res.out or "[]")


# The veth pair's MACs, fixed: each side's neighbour entry for the other
# is static from the start (xiw's and siw's connects skip ARP, and no test
# waits on it).
MAC_V0 = "02:00:c0:00:02:01"
MAC_V1 = "02:00:c0:00:02:02"


def two_hosts(vm, own_ifindex=False):
    """Two hosts: netns 'a' (v0, 192.0.2.1/24) and 'b' (v1, 192.0.2.2/24)
    joined by a veth pair, each with a static neighbour entry for the
    other. Three ip processes in one guest command (each process costs
    ~0.1 s under TCG): one batch in the initial namespace makes both
    namespaces and the pair, one in each namespace sets it up.

    own_ifindex: v0 is interface 10 and v1 interface 20, not both 2.
    Stock siw binds a wildcard listen of each of its devices to that
    device's netdev's ifindex, in the namespace of the listener, which in
    shared mode sees both devices: two devices on netdevs of the same
    ifindex in two namespaces make a wildcard listen (perftest's)
    collide with itself (EADDRINUSE)."""
    index = ("index 10 ", "index 20 ") if own_ifindex else ("", "")
    vm.run(f"""ip -batch - <<'N' && ip -n a -batch - <<'A' && ip -n b -batch - <<'B'
netns add a
netns add b
link add v0 {index[0]}address {MAC_V0} netns a type veth peer v1 {index[1]}address {MAC_V1} netns b
N
addr add 192.0.2.1/24 dev v0
link set v0 up
link set lo up
neigh replace 192.0.2.2 lladdr {MAC_V1} dev v0
A
addr add 192.0.2.2/24 dev v1
link set v1 up
link set lo up
neigh replace 192.0.2.1 lladdr {MAC_V0} dev v1
B""")
    return vm


def xiw_links(vm):
    """On two_hosts(): xiwperf loaded, xiw0 on v0 in a,
    xiw1 on v1 in b; one guest command."""
    from xiwperf_run import LOAD_XIWPERF, check_xiwperf_built
    check_xiwperf_built()
    vm.run(f"{LOAD_XIWPERF} && "
           "ip netns exec a rdma link add xiw0 type xiw netdev v0 && "
           "ip netns exec b rdma link add xiw1 type xiw netdev v1")


@pytest.fixture
def hosts(vm):
    """two_hosts() in the test's VM."""
    return two_hosts(vm)


@pytest.fixture
def pair(hosts):
    """xiw0 on v0 in a, xiw1 on v1 in b, an xiwperf server in b."""
    from xiwperf_run import start_server, stop_server
    vm = hosts
    xiw_links(vm)
    log = start_server(vm, "b", "192.0.2.2", "b")
    yield vm
    stop_server(vm, log)


@pytest.fixture
def xiw_and_siw(hosts):
    """xiw0 on v0 in a, stock siw0 on v1 in b, xiwperf loaded."""
    from xiwperf_run import LOAD_XIWPERF, check_xiwperf_built
    vm = hosts
    check_xiwperf_built()
    vm.run(f"{LOAD_XIWPERF} && modprobe siw && modprobe xiw && "
           "ip netns exec a rdma link add xiw0 type xiw netdev v0 && "
           "ip netns exec b rdma link add siw0 type siw netdev v1")
    return vm


@pytest.fixture
def siw_server(xiw_and_siw):
    """xiw_and_siw with an xiwperf server on siw0 (192.0.2.2)."""
    from xiwperf_run import start_server, stop_server
    vm = xiw_and_siw
    log = start_server(vm, "b", "192.0.2.2", "siw")
    yield vm
    stop_server(vm, log)
