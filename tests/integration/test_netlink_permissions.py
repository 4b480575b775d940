"""Who may do what through the xiw generic netlink family
(Documentation/netlink.md, "Permissions"): reading what a device can do,
its settings and counters is for anyone; whatever names a memory key
(XIW_CMD_MR_GET: "is this STag live?") or changes state (DEV_SET, MR_SET)
needs CAP_NET_ADMIN in the user namespace that owns the device's network
namespace. Asked by uid 65534, and by root of an unprivileged user
namespace with a network namespace of its own (unshare -Urn: the family is
netns-aware, and in the RDMA core's shared mode every device is visible
there), each restricted command is refused with EPERM, and the refusal is
the same for a live STag as for one no MR has: no oracle.

The live STags are xiwtarget's (tests/reliability/target), whose
registrations stay until the connection is reaped."""
import json
import os

from conftest import TOP
from genl import genl, genl_many

TARGET = "192.0.2.2"
PORT = 18600
EPERM, ENOENT = 1, 2
XIWCTL = os.path.join(TOP, "build", "cmake", "tools", "xiwctl")
RELIABILITY = os.path.join(TOP, "tests", "reliability")
NOBODY = 65534

# One connection to xiwtarget: its accept private data (the STags).
CONNECT = (f"/usr/bin/python3 -S -c 'import json, sys; "
           f"sys.path.insert(0, \"{RELIABILITY}\"); import hostile_peer; "
           f"l = hostile_peer.Link(\"{TARGET}\", {PORT}); "
           f"print(json.dumps(l.acc)); l.close()'")

# Who asks: (user, in a user and network namespace of its own).
UNPRIVILEGED = {"nobody": (NOBODY, False), "userns root": (None, True),
                "nobody's userns root": (NOBODY, True)}


def live_stags(vm):
    from conftest import xiw_links
    xiw_links(vm)
    vm.run(f"ip netns exec b modprobe xiwtarget addr={TARGET} port={PORT}")
    acc = json.loads(vm.ns("a", CONNECT).out)
    return acc["rw_stag"], acc["ro_stag"]


def test_only_an_admin_of_the_devices_namespace_may_probe_stags(hosts):
    vm = hosts
    try:
        rw, ro = live_stags(vm)
        dead = rw ^ 0x100       # another index: no MR has it
        # The admin sees which keys are live.
        assert genl(vm, "mr", "xiw1", rw) == {"mr": {"stag": rw,
                                                     "persist": 0}}
        assert genl(vm, "mr", "xiw1", dead)["error"] == ENOENT
        before = genl(vm, "dev", "xiw1")
        assert "devices" in before, before
        for who, (user, userns) in UNPRIVILEGED.items():
            (live, ro_got, dead_got, mr_set, persist, crc, dev,
             devs) = genl_many(vm, [("mr", "xiw1", rw), ("mr", "xiw1", ro),
                                    ("mr", "xiw1", dead),
                                    ("mr", "xiw1", rw, "persist", 2),
                                    ("set", "xiw1", "persist", 2),
                                    ("set", "xiw1", "crc", 1),
                                    ("dev", "xiw1"), ("dev",)],
                               user=user, userns=userns)
            answers = {rw: live, ro: ro_got, dead: dead_got}
            for stag, got in answers.items():
                assert got.get("error") == EPERM, (who, hex(stag), got)
            # The same refusal whether or not the key is live.
            assert answers[rw] == answers[ro] == answers[dead], (who,
                                                                 answers)
            for got in (mr_set, persist, crc):
                assert got.get("error") == EPERM, (who, got)
            # What a device can do stays for anyone to read.
            assert dev == before, who
            assert devs["devices"], who
        # Nothing changed.
        assert genl(vm, "dev", "xiw1") == before
        assert genl(vm, "mr", "xiw1", rw) == {"mr": {"stag": rw,
                                                     "persist": 0}}
    finally:
        vm.run("rmmod xiwtarget", check=False)


def test_xiwctl_says_why_an_stag_or_a_change_is_refused(hosts):
    """xiwctl, unprivileged: the MR's domain and a change are refused
    with the reason; the counters and capabilities still show."""
    vm = hosts
    try:
        rw, _ = live_stags(vm)
        for who, (user, userns) in UNPRIVILEGED.items():
            prefix = (f"setpriv --reuid={user} --regid={user} "
                      "--clear-groups " if user else "") + \
                ("unshare -Urn " if userns else "")
            res = vm.run(f"{prefix}{XIWCTL} mr show xiw1 {rw:#x}",
                         check=False)
            assert res.rc == 1, (who, res)
            assert res.err == (
                f"xiwctl: MR {rw:#x} of xiw1: "
                "Operation not permitted: reading an MR needs "
                "CAP_NET_ADMIN in the user namespace that owns the "
                "device's network namespace\n"), (who, res.err)
            res = vm.run(f"{prefix}{XIWCTL} config set xiw1 crc off",
                         check=False)
            assert res.rc == 1, (who, res)
            assert res.err == (
                "xiwctl: changing the settings of xiw1: Operation not "
                "permitted: changing xiw settings needs CAP_NET_ADMIN in "
                "the user namespace that owns the device's network "
                "namespace\n"), (who, res.err)
            vm.run(f"{prefix}{XIWCTL} -j stats xiw1")
            vm.run(f"{prefix}{XIWCTL} caps xiw1")
    finally:
        vm.run("rmmod xiwtarget", check=False)
