"""A device's connection settings through the xiw generic netlink family
(Documentation/netlink.md, "Settings"): CRC, markers, MPA revision, the
peer-to-peer model and its RTR kinds, the Verify hashes served and what is
logged. Each setting left at "default" follows its module parameter; a
change shapes the connections set up after it, as the MPA frames on the
wire show (tshark). Bad values are refused with the kernel's reason and
change nothing.

The family is driven by xiw_genl.py (written from the uapi header alone)
and by xiwctl, the tool users have."""
import json
import os

from capture import capture, tshark
from conftest import TOP, wait_until
from genl import genl
from test_p2p import assert_rtr_first, fpdus
from xiwperf_run import PORT, client, set_params

SERVER = "192.0.2.2"
XIWCTL = os.path.join(TOP, "build", "cmake", "tools", "xiwctl")
EPERM, EINVAL, ERANGE = 1, 22, 34
# uapi enums
CRC_DEFAULT, CRC_OFF, CRC_PREFERRED, CRC_REQUIRED = 0, 1, 2, 3
DEFAULT, OFF, ON = 0, 1, 2
SEND, WRITE, READ = 1, 2, 3
QUIET, FAULTS, CONNECTIONS = 0, 1, 2
ALL_HASHES = 0b110                   # crc32c (1), sha256 (2)


def dev(vm, name="xiw1"):
    return genl(vm, "dev", name)["devices"][0]


def rtr(*kinds):
    return sum(k << (8 * i) for i, k in enumerate(kinds))


DEFAULTS = {"crc": CRC_DEFAULT, "markers": DEFAULT, "mpa_rev": 0,
            "p2p": DEFAULT, "rtr": 0, "hashes": ALL_HASHES,
            "debug": FAULTS}
DEFAULTS_NOW = {"crc": CRC_PREFERRED, "markers": OFF, "mpa_rev": 2,
                "p2p": OFF, "rtr": rtr(WRITE, READ, SEND),
                "hashes": ALL_HASHES, "debug": FAULTS}


def test_settings_default_to_the_module_parameters(pair):
    """A new device defers every setting to its module parameter, and
    reports what that amounts to; a parameter changed is seen at once."""
    for name in ("xiw0", "xiw1"):
        d = dev(pair, name)
        assert d["config"] == DEFAULTS, d
        assert d["config_now"] == DEFAULTS_NOW, d
    set_params(pair, crc_policy="off", mpa_rev=1, markers="Y", p2p="Y",
               rtr="read")
    # p2p needs revision 2: with the parameter's revision 1 it is off
    assert dev(pair)["config_now"] == dict(
        DEFAULTS_NOW, crc=CRC_OFF, mpa_rev=1, markers=ON, p2p=OFF,
        rtr=rtr(READ))
    # a device's own setting wins over the parameter
    d = genl(pair, "set", "xiw1", "mpa_rev", 2, "crc", CRC_REQUIRED,
             "rtr", rtr(SEND, WRITE))["devices"][0]
    assert d["config"] == dict(DEFAULTS, mpa_rev=2, crc=CRC_REQUIRED,
                               rtr=rtr(SEND, WRITE)), d
    assert d["config_now"] == dict(DEFAULTS_NOW, crc=CRC_REQUIRED,
                                   markers=ON, p2p=ON,
                                   rtr=rtr(SEND, WRITE)), d
    assert dev(pair, "xiw0")["config"] == DEFAULTS


def mpa_frames(vm, pcap):
    """(from_client, revision, C bit, M bit) of every MPA Request and
    Reply of a capture, in order."""
    out = tshark(vm, pcap, "-Y", "iwarp_mpa.req || iwarp_mpa.rep", "-T",
                 "fields", "-e", "tcp.dstport", "-e", "iwarp_mpa.rev",
                 "-e", "iwarp_mpa.crc_flag", "-e", "iwarp_mpa.marker_flag")
    flag = {"1": True, "True": True, "0": False, "False": False}
    return [(port == str(PORT), int(rev), flag[c], flag[m])
            for port, rev, c, m in (line.split("\t")
                                    for line in out.splitlines())]


def test_a_change_shapes_the_next_connection_on_the_wire(pair):
    """Three checked runs under one capture, the settings changed between
    them: each connection's MPA Request and Reply carry what its devices'
    settings were when it began."""
    vm = pair

    def runs():
        client(vm, "a", SERVER, "--op", "write", "--size", 3000,
               "--count", 10, "--check")
        vm.run(f"{XIWCTL} config set xiw0 crc off markers on mpa 1")
        client(vm, "a", SERVER, "--op", "write", "--size", 3000,
               "--count", 10, "--check")
        vm.run(f"{XIWCTL} config set xiw1 crc required")
        client(vm, "a", SERVER, "--op", "send", "--size", 3000,
               "--count", 10, "--check")

    pcap = "/tmp/config-wire.pcapng"
    capture(vm, "a", "v0", runs, pcap)
    # xiwperf's client opens a control connection and a data connection
    # per run; each pair of frames is a Request then its Reply.
    frames = mpa_frames(vm, pcap)
    assert len(frames) % 2 == 0 and len(frames) >= 6, frames
    conns = [frames[i:i + 2] for i in range(0, len(frames), 2)]
    assert all(req[0] and not rep[0] for req, rep in conns), frames
    per_run = len(conns) // 3
    assert per_run * 3 == len(conns), frames
    want = [
        # defaults: revision 2, the initiator asks for CRC, no markers
        ((True, 2, True, False), (False, 2, True, False)),
        # xiw0: CRC off, markers on, revision 1; xiw1 follows on CRC
        ((True, 1, False, True), (False, 1, False, False)),
        # xiw1 requires CRC: its Reply asks for it whatever xiw0 does
        ((True, 1, False, True), (False, 1, True, False)),
    ]
    for run, (req, rep) in enumerate(want):
        for c in conns[run * per_run:(run + 1) * per_run]:
            assert c == [req, rep], (run, frames)


def test_peer_to_peer_settings_of_the_devices_choose_the_rtr(pair):
    """The module parameters stay client-server; the devices' own
    settings turn the peer-to-peer model on, with Read as xiw0's only RTR
    kind: the connection opens with a Read RTR and data flows."""
    vm = pair
    genl(vm, "set", "xiw0", "p2p", ON, "rtr", rtr(READ))
    genl(vm, "set", "xiw1", "rtr", rtr(SEND, READ))
    pcap = "/tmp/config-p2p.pcapng"
    capture(vm, "a", "v0", lambda: client(
        vm, "a", SERVER, "--op", "send", "--size", 5000, "--count", 20,
        "--check"), pcap)
    assert_rtr_first(fpdus(vm, pcap), "read")


def test_bad_settings_are_refused_with_a_reason_and_change_nothing(pair):
    before = dev(pair)
    assert genl(pair, "set", "xiw1", "crc", 4) == {
        "error": ERANGE, "extack": "integer out of range"}
    assert genl(pair, "set", "xiw1", "mpa_rev", 3)["error"] == ERANGE
    assert genl(pair, "set", "xiw1", "markers", 3)["error"] == ERANGE
    assert genl(pair, "set", "xiw1", "debug", 3)["error"] == ERANGE
    bad_list = ("not a list of RTR kinds: one to three of send (1), "
                "write (2), read (3), each once, one per octet from the "
                "lowest")
    for bad in (rtr(WRITE, WRITE), rtr(WRITE, 0, READ), rtr(4),
                rtr(SEND, WRITE, READ, SEND)):
        assert genl(pair, "set", "xiw1", "rtr", bad) == {
            "error": EINVAL, "extack": bad_list}, hex(bad)
    # bit 0 is "no hash"; bit 3 no hash xiw has
    for bad in (0b1, 0b1000):
        assert genl(pair, "set", "xiw1", "hashes", bad)["error"] == EINVAL
    assert genl(pair, "set", "xiw1", "config_now", 1) == {
        "error": EINVAL, "extack": "read-only: set XIW_ATTR_CONFIG"}
    assert genl(pair, "set", "xiw1", "config", "none") == {
        "error": EINVAL,
        "extack": "nothing to change: give an XIW_CONFIG_* attribute"}
    # the peer-to-peer model needs revision 2, in one request or two
    p2p_rev = {"error": EINVAL,
               "extack": "the peer-to-peer model needs MPA revision 2"}
    assert genl(pair, "set", "xiw1", "p2p", ON, "mpa_rev", 1) == p2p_rev
    assert genl(pair, "set", "xiw1", "mpa_rev", 1)["devices"]
    assert genl(pair, "set", "xiw1", "p2p", ON) == p2p_rev
    # a refused setting takes the policy in the same request down with it
    assert genl(pair, "set", "xiw1", "p2p", ON, "persist", 2) == p2p_rev
    # changing is for CAP_NET_ADMIN only
    assert genl(pair, "set", "xiw1", "crc", CRC_OFF, user=65534) == {
        "error": EPERM, "extack": ""}
    after = dev(pair)
    assert after["config"] == dict(before["config"], mpa_rev=1), after
    assert after["policy"] == before["policy"], after


def test_xiwctl_config_shows_and_sets_the_settings(pair):
    vm = pair
    index = dev(vm)["index"]
    assert vm.run(f"{XIWCTL} config show xiw1").out == (
        f"{index}: xiw1: crc default (preferred) markers default (off) "
        "mpa default (2) p2p default (off) rtr default (write,read,send) "
        "hashes crc32c,sha256 debug faults\n")
    out = vm.run(f"{XIWCTL} config set xiw1 crc required markers on "
                 "rtr read,send hashes sha256 debug connections").out
    assert out == (f"{index}: xiw1: crc required markers on mpa default "
                   "(2) p2p default (off) rtr read,send hashes sha256 "
                   "debug connections\n"), out
    got = json.loads(vm.run(f"{XIWCTL} -j config xiw1").out)
    assert got == [{
        "ifindex": index, "ifname": "xiw1", "crc": "required",
        "markers": "on", "mpa": "default", "p2p": "default",
        "rtr": ["read", "send"], "hashes": ["sha256"],
        "debug": "connections",
        "now": {"crc": "required", "markers": "on", "mpa": "2",
                "p2p": "off", "rtr": ["read", "send"],
                "hashes": ["sha256"], "debug": "connections"}}], got
    assert dev(vm)["config"] == {
        "crc": CRC_REQUIRED, "markers": ON, "mpa_rev": 0, "p2p": DEFAULT,
        "rtr": rtr(READ, SEND), "hashes": 0b100, "debug": CONNECTIONS}
    vm.run(f"{XIWCTL} config set xiw1 crc default markers default "
           "rtr default hashes crc32c,sha256 debug faults")
    assert dev(vm)["config"] == DEFAULTS
    # refusals: the kernel's reason, or the word at fault; nothing changes
    before = vm.run(f"{XIWCTL} -j config xiw1").out
    res = vm.run(f"{XIWCTL} config set xiw1 mpa 1 p2p on", check=False)
    assert res.rc == 1
    assert res.err == ("xiwctl: changing the settings of xiw1: Invalid "
                       "argument: the peer-to-peer model needs MPA "
                       "revision 2\n"), res.err
    res = vm.run("setpriv --reuid=65534 --regid=65534 --clear-groups "
                 f"{XIWCTL} config set xiw1 crc off", check=False)
    assert res.rc == 1
    assert res.err == ("xiwctl: changing the settings of xiw1: Operation "
                       "not permitted: changing xiw settings needs "
                       "CAP_NET_ADMIN in the user namespace that owns the "
                       "device's network namespace\n"), res.err
    res = vm.run(f"{XIWCTL} config set xiw1 crc sometimes", check=False)
    assert res.rc == 2
    assert "crc \"sometimes\" is not one of default, off, preferred, " \
           "required" in res.err
    assert vm.run(f"{XIWCTL} -j config xiw1").out == before


def test_a_verify_hash_not_allowed_is_refused_as_unverifiable(pair):
    """xiw1 serves Verify for CRC32c-hashed MRs only: a SHA-256 MR's
    Verify is refused like one of an MR without a hash (Terminate, access
    error at the client); a CRC32c one is served."""
    vm = pair
    genl(vm, "set", "xiw1", "hashes", 0b10)
    args = ("--op", "verify", "--count", 4, "--size", 4096, "--remote-mr",
            "frwr")
    rc, r = client(vm, "a", SERVER, *args, "--hash", "sha256",
                   check=False)
    assert rc == 1 and r["wc_status"] == "REM_ACCESS_ERR", r
    rc, r = client(vm, "a", SERVER, *args, "--hash", "crc32c", "--check")
    assert r["completed"] == 4 and r["mismatches"] == 0, r


def kernel_lines(vm, marker):
    """The kernel log after the line that says marker."""
    log = vm.run("dmesg").out.splitlines()
    at = max(i for i, line in enumerate(log) if marker in line)
    return log[at + 1:]


def test_debug_connections_logs_each_connection_set_up_and_ended(pair):
    """At the default level (faults) a clean run logs nothing; at
    "connections" each connection of both devices is logged as it is set
    up, with what was negotiated, and as it ends."""
    vm = pair
    vm.run("echo xiw-test-faults > /dev/kmsg")
    client(vm, "a", SERVER, "--op", "write", "--size", 4096, "--count", 4,
           "--check")
    quiet = [ln for ln in kernel_lines(vm, "xiw-test-faults")
             if "xiw: xiw" in ln]
    assert quiet == [], quiet
    for name in ("xiw0", "xiw1"):
        genl(vm, "set", name, "debug", CONNECTIONS)
    vm.run("echo xiw-test-connections > /dev/kmsg")
    client(vm, "a", SERVER, "--op", "write", "--size", 4096, "--count", 4,
           "--check")
    # The server's side may end its connections just after the client is
    # done: wait for its lines (a bounded number of guest round trips).
    wait_until(vm, "dmesg | sed -n '/xiw-test-connections/,$p' | "
               "grep -q 'xiw: xiw1: qp .* connection ended'",
               "xiw1 logged a connection's end")
    log = kernel_lines(vm, "xiw-test-connections")
    for name in ("xiw0", "xiw1"):
        up = [ln for ln in log if f"xiw: {name}: qp " in ln and
              "connected, MPA revision 2, crc on" in ln]
        down = [ln for ln in log if f"xiw: {name}: qp " in ln and
                "connection ended" in ln]
        assert up and down, log


def test_the_familys_policies_dump_without_a_kernel_warning(vm):
    """Anyone may dump a family's attribute policies (CTRL_CMD_GETPOLICY):
    xiw's describe themselves, every nest included, and the kernel logs
    nothing about them (6.12 WARNs on an integer with a validation
    function; the per-test kernel log check fails on that)."""
    vm.run("modprobe xiw")
    got = genl(vm, "policy", user=65534)
    assert got.get("messages", 0) > 0, got
