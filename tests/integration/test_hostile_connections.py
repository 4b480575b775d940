"""Connection-level abuse and teardown races against xiwtarget on xiw1,
listening on LISTENERS ports (tests/reliability/conn_abuse.py and
hostile_peer.py --responses): floods of connections that never send an
MPA Request, SYN floods from spoofed addresses (half-open TCP
connections), Requests sent one octet at a time, oversized private data,
Replies where Requests belong, resets at every step of the handshake;
and, at a random point of such traffic, the
device deleted, the netdev removed, the listening module or xiw itself
unloaded, the peers killed. The oracles: every stream xiw will not accept
ends within mpa_timeout_ms (bounded wait, no timing assert), nothing is
left behind (no connection socket, rdma_cm id or QP once the target reaped
its connections), each removal completes (a hang fails on its timeout),
and no kernel splat (the conftest's check after each test). Seeds are
printed; XIW_ABUSE_SEED replays."""
import json
import os
import random

import pytest

from conftest import TOP, wait_until, xiw_links
from xiwperf_run import STATIC_NEIGHBOURS, set_params

REL = os.path.join(TOP, "tests", "reliability")
ABUSE = os.path.join(REL, "conn_abuse.py")
PEER = os.path.join(REL, "hostile_peer.py")
TARGET = "192.0.2.2"
PORT = 18600
# xiwtarget listens on the ports PORT .. PORT + LISTENERS - 1.
LISTENERS = 4
TIMEOUT_MS = 1500
SEED = int(os.environ.get("XIW_ABUSE_SEED", 20261127))
# Rounds of abuse per peer (two peers at once), and teardown races.
ROUNDS = int(os.environ.get("XIW_ABUSE_ROUNDS", 40))
RACES = int(os.environ.get("XIW_RACES", 6))

LOAD_TARGET = (f"ip netns exec b modprobe xiwtarget addr={TARGET} "
               f"port={PORT} listeners={LISTENERS}")
# The SYN flood's spoofed sources (conn_abuse.SYNFLOOD_NET) are routed in
# b to a gateway nobody answers for: each SYN leaves a half-open
# connection, and the SYN-ACKs go nowhere.
SYNFLOOD_ROUTE = "ip -n b route replace 198.18.0.0/15 via 192.0.2.254"


@pytest.fixture
def target(hosts):
    vm = hosts
    xiw_links(vm)
    set_params(vm, mpa_timeout_ms=TIMEOUT_MS)
    vm.run(f"{SYNFLOOD_ROUTE} && {LOAD_TARGET}")
    yield vm
    vm.run("rmmod xiwtarget", check=False)


def leftovers(vm):
    """What is left of the target's connections: sockets on its ports
    other than the listeners' (and TIME-WAIT and SYN-RECV, which are
    TCP's: a spoofed SYN's half-open connection is not xiw's until its
    handshake completes), rdma_cm ids other than the listeners, QPs on
    xiw1."""
    ports = range(PORT, PORT + LISTENERS)
    out = vm.run(
        f"ip netns exec b ss -Htan '( sport >= :{PORT} and "
        f"sport < :{PORT + LISTENERS} )'; echo ===; "
        "rdma -j resource show cm_id; echo; echo ===; "
        "rdma -j resource show qp", check=False).out
    socks, cms, qps = (out.split("===") + ["", "", ""])[:3]
    left = [ln for ln in socks.splitlines()
            if ln.split() and ln.split()[0] not in ("LISTEN", "TIME-WAIT",
                                                    "SYN-RECV")]
    cms = json.loads(cms.strip() or "[]")
    left += [f"cm_id {c}" for c in cms if c.get("state") != "LISTEN"
             and any(str(p) in (str(c.get("src-port")),
                                str(c.get("dst-port"))) for p in ports)]
    left += [f"qp {q}" for q in json.loads(qps.strip() or "[]")
             if str(q.get("ifname", "")).startswith("xiw1")]
    return left


def settled(vm, what):
    """The target reaps its connections; then nothing may be left (a
    bounded poll: endpoints on their way out get time to go)."""
    vm.run("echo all > /sys/kernel/debug/xiwtarget/reap", check=False)
    for _ in range(100):
        left = leftovers(vm)
        if not left:
            return
        vm.run("sleep 0.2")
    pytest.fail(f"{what}: left behind: {left}")


def abuse(vm, seed, rounds, jobs=2, wait=True):
    """@rounds of conn_abuse.py among @jobs peers at once. Returns their
    summed counts, or with @wait False their pids at once."""
    per = -(-rounds // jobs)
    cmds = " ".join(
        f"ip netns exec a /usr/bin/python3 -S {ABUSE} {TARGET} {PORT} "
        f"--ports {LISTENERS} --seed {seed} --first {j * per} "
        f"--rounds {per} "
        f"> /tmp/abuse.{j} 2>&1 & echo $!;" for j in range(jobs))
    if not wait:
        return vm.run(cmds).out.split()
    cmds = cmds.replace("echo $!;", "")
    res = vm.run(f"{cmds} wait; cat " + " ".join(
        f"/tmp/abuse.{j}" for j in range(jobs)), timeout=600 + rounds * 10)
    stats = {}
    for ln in res.out.splitlines():
        d = json.loads(ln)     # anything else (a traceback) fails here
        for k, v in d.items():
            stats[k] = stats.get(k, 0) + v
    return stats


def test_connection_abuse_leaves_nothing_behind(target):
    vm = target
    print(f"connection abuse: seed {SEED}, {ROUNDS} rounds")
    stats = abuse(vm, SEED, ROUNDS)
    print(f"connection abuse: {json.dumps(stats)}")
    assert stats["rounds"] == ROUNDS, stats
    # Every stream the target would not take, it ended.
    assert stats["not_closed"] == 0, stats
    assert stats["closed_by_target"] > 0 and stats["accepted"] > 0, stats
    # A SYN flood keeps no client out.
    assert stats.get("accepted_after_synflood", 0) == \
        stats.get("synflood", 0), stats
    settled(vm, "after the abuse")
    # The device goes away at once, and the listener with it.
    vm.run("ip netns exec b rdma link delete xiw1", timeout=60)
    # What is left is the target's own files: no connection directory.
    wait_until(vm, "! ls /sys/kernel/debug/xiwtarget | grep -q '^[0-9]'",
               "the target let the device go")


def restore(vm):
    """Whatever the race took away, back: the veth pair, the xiw module
    and its links, the target."""
    vm.run(
        "if ! ip -n b link show v1 >/dev/null 2>&1; then "
        "ip -n a link add v0 type veth peer v1 netns b && "
        "ip -n a addr add 192.0.2.1/24 dev v0 && ip -n a link set v0 up && "
        "ip -n b addr add 192.0.2.2/24 dev v1 && ip -n b link set v1 up && "
        f"{STATIC_NEIGHBOURS} && {SYNFLOOD_ROUTE}; fi; "
        "modprobe xiw && "
        f"echo {TIMEOUT_MS} > /sys/module/xiw/parameters/mpa_timeout_ms && "
        "{ ip netns exec a rdma dev show xiw0 >/dev/null 2>&1 || "
        "ip netns exec a rdma link add xiw0 type xiw netdev v0; } && "
        "{ ip netns exec b rdma dev show xiw1 >/dev/null 2>&1 || "
        "ip netns exec b rdma link add xiw1 type xiw netdev v1; } && "
        "{ rmmod xiwtarget 2>/dev/null; true; } && " + LOAD_TARGET,
        timeout=120)


# What a race does at its random point; each must complete (its timeout
# is the hang check). The response peer opens the target's debugfs files,
# each open holding the module for its moment: the unload is retried
# while one is open, and must end with the module gone.
RACE_ACTIONS = {
    "link_delete": "ip netns exec b rdma link delete xiw1",
    "netdev_removal": "ip -n b link del v1",
    "target_unload": "for n in $(seq 100); do rmmod xiwtarget 2>/dev/null && "
                     "break; sleep 0.1; done; ! lsmod | grep -q '^xiwtarget '",
    "xiw_unload": "rmmod xiwtarget; modprobe -r xiw",
    "peers_killed": "kill -9 $PEERS",
}


def test_teardown_races(target):
    """Repeated: handshake abuse and stateful response traffic at once,
    and at a random point (from the seed) one of RACE_ACTIONS."""
    vm = target
    for i in range(RACES):
        seed = SEED + 100 + i
        rng = random.Random(seed)
        action = rng.choice(sorted(RACE_ACTIONS))
        delay = rng.uniform(0.2, 4.0)
        print(f"teardown race {i}: seed {seed}, {action} after {delay:.2f} s")
        peers = abuse(vm, seed, 1000, jobs=1, wait=False)
        peers += vm.run(
            f"ip netns exec a /usr/bin/python3 -S {PEER} {TARGET} {PORT} "
            f"--seed {seed} --frames 100000 --responses > /tmp/race.peer "
            "2>&1 & echo $!").out.split()
        pids = " ".join(peers)
        vm.run(f"sleep {delay:.2f}")
        res = vm.run(f"PEERS='{pids}'; {RACE_ACTIONS[action]}", timeout=60,
                     check=False)
        if res.rc != 0 and action != "xiw_unload":
            # A hang: what the kernel's tasks wait on, for the report.
            vm.run("echo w > /proc/sysrq-trigger", check=False, timeout=30)
            trace = vm.run("dmesg | tail -n 400", check=False, timeout=30)
            pytest.fail(f"race {i} ({action}, seed {seed}): {res}\n"
                        f"blocked tasks:\n{trace.out}")
        # The traffic ends: failed by the removal or killed now.
        vm.run(f"kill -9 {pids} 2>/dev/null; true")
        restore(vm)
        settled(vm, f"race {i} ({action}, seed {seed})")
