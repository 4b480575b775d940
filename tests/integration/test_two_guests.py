"""Two kernels on one wire (two_guests.py): xiw in one guest talking to xiw,
or to stock siw, in another guest's kernel, over IPv4 and IPv6, and xiw on
Debian's 6.1 talking to xiw on 6.12. Every operation in both directions,
every byte checked by xiwperf (--check: the pattern read back, written
and sent; atomics' original values and final word against the function
applied; Verify's hashes against the client's own).

Guest 0 is 192.0.2.1 / 2001:db8::1, guest 1 192.0.2.2 / 2001:db8::2."""
import pytest

from conftest import interop_except
from two_guests import ADDR4, ADDR6
from xiwperf_run import LOAD_XIWPERF, client, start_server, stop_server

FRWR = ("--remote-mr", "frwr")

# (op, xiwperf arguments): every operation xiw carries, at sizes that
# take one FPDU, many FPDUs and many TCP segments.
XIW_OPS = [
    ("read", ("--size", 1, "--count", 20)),
    ("read", ("--size", 1 << 20, "--count", 8, "--depth", 4)),
    ("write", ("--size", 4096, "--count", 200, "--depth", 16)),
    ("write", ("--size", 100000, "--count", 20)),
    ("send", ("--size", 1, "--count", 50)),
    ("send", ("--size", 65536, "--count", 40, "--depth", 8)),
    ("write_imm", ("--size", 200, "--count", 20, "--imm", "0x12345678")),
    ("imm", ("--count", 20, "--imm", "0x9abcdef0")),
    ("fetch_add", ("--count", 500, "--depth", 8, *FRWR)),
    ("cmp_swap", ("--count", 50, "--compare", 0, "--swap", 1, *FRWR)),
    ("masked_fetch_add", ("--count", 50, "--add", "0x0001000100010001",
                          "--mask", "0x8000800080008000", *FRWR)),
    ("masked_cmp_swap", ("--count", 50, "--compare", 0, "--compare-mask",
                         0, "--swap", "0xa5a5a5a5a5a5a5a5", "--mask",
                         "0x00ff00ff00ff00ff", *FRWR)),
    ("atomic_write", ("--count", 50, *FRWR)),
    ("flush", ("--count", 20, "--size", 4096, "--global", *FRWR)),
    ("verify", ("--count", 8, "--size", 65536, "--hash", "crc32c", *FRWR)),
]

# What stock siw serves: the RFC 5040 operations.
SIW_OPS = [(op, args) for op, args in XIW_OPS
           if op in ("read", "write", "send")]


def add_link(vm, name, kind):
    vm.run(f"{LOAD_XIWPERF} && rdma link add {name} type {kind} "
           "netdev eth0")


def run_ops(client_vm, server_vm, server_addr, ops, tag, client_dev):
    """A server on server_addr, then each op from client_vm, checked.
    Reads run first in ops: the server's read pattern is written once."""
    log = start_server(server_vm, None, server_addr, tag)
    try:
        for op, args in ops:
            rc, r = client(client_vm, None, server_addr, "--op", op,
                           "--check", *args, timeout=300)
            assert r["device"] == client_dev, r
            count = args[args.index("--count") + 1]
            assert r["completed"] == count, (op, args, r)
    finally:
        stop_server(server_vm, log)


# (client guest, server guest)
DIRECTIONS = {"guest0_to_guest1": (0, 1), "guest1_to_guest0": (1, 0)}
# make check runs the first direction, make interop both.
DIRECTION_PARAMS = interop_except("guest0_to_guest1", DIRECTIONS)


@pytest.mark.parametrize("direction", DIRECTION_PARAMS)
def test_every_op_crosses_the_wire_between_two_xiw_kernels(two_guests,
                                                           direction):
    c, s = DIRECTIONS[direction]
    vms = two_guests.vms
    for i, vm in enumerate(vms):
        add_link(vm, f"xiw{i}", "xiw")
    run_ops(vms[c], vms[s], ADDR4[s], XIW_OPS, direction, f"xiw{c}")


@pytest.mark.parametrize("direction", interop_except(
    "xiw_client_siw_server",
    ["xiw_client_siw_server", "siw_client_xiw_server"]))
def test_xiw_and_siw_in_another_kernel_exchange_data(two_guests, direction):
    """Stock siw in guest 1, xiw in guest 0: each the client in turn."""
    vms = two_guests.vms
    add_link(vms[0], "xiw0", "xiw")
    add_link(vms[1], "siw1", "siw")
    if direction == "xiw_client_siw_server":
        run_ops(vms[0], vms[1], ADDR4[1], SIW_OPS, direction, "xiw0")
    else:
        run_ops(vms[1], vms[0], ADDR4[0], SIW_OPS, direction, "siw1")


@pytest.mark.parametrize("scope", interop_except(
    "global", ["global", "link_local"]))
def test_rdma_cm_over_ipv6_crosses_the_wire(two_guests, scope):
    """rdma_cm resolves and connects over IPv6, to a global address and to
    a link-local one (with its interface): read, write and send checked
    both ways."""
    vms = two_guests.vms
    for i, vm in enumerate(vms):
        add_link(vm, f"xiw{i}", "xiw")
    for c, s in DIRECTIONS.values():
        if scope == "global":
            addr = ADDR6[s]
        else:
            addr = f"{two_guests.link_local(s)}%eth0"
        run_ops(vms[c], vms[s], addr, SIW_OPS, f"v6-{scope}-{c}", f"xiw{c}")


@pytest.mark.parametrize("direction", DIRECTION_PARAMS)
def test_xiw_on_debian_6_1_and_6_12_carry_every_op(two_kernels, direction):
    """Guest 0 on the environment's kernel (6.12), guest 1 on Debian's
    other series (6.1): every op both ways. 6.1's RDMA core has no Flush
    or Atomic Write verbs, but xiwperf reaches them through xiw's own
    kernel API, so the wire carries them as on 6.12."""
    c, s = DIRECTIONS[direction]
    vms = two_kernels.vms
    kvers = two_kernels.kernels()
    assert kvers[0] != kvers[1], kvers
    for i, vm in enumerate(vms):
        add_link(vm, f"xiw{i}", "xiw")
    run_ops(vms[c], vms[s], ADDR4[s], XIW_OPS, direction, f"xiw{c}")
