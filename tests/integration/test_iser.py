"""iSER over xiw: LIO's target (ib_isert) on xiw1 exports a file of 64 MiB
as a LUN, open-iscsi's initiator (ib_iser) on xiw0 logs in to it with the
iser interface (iface.transport_name=iser), both in the initial network
namespace, the only one either works in. iSER moves SCSI data with RDMA
Reads and Writes the target issues, so these runs are the real-world
proof of both ways of tagged placement. Setup: iser.py."""
import pytest

from conftest import interop_except
from iser import LUN_IMAGE, MIB, Iser
from nfs import dd_seconds
from xiwperf_run import counted, hw_counters


@pytest.fixture
def iser(vm):
    """Logged in: the LUN's disk is iser.dev."""
    with Iser(vm) as i:
        yield i


def test_iser_lun_appears_and_moves_64mib_with_checksums(iser, capsys):
    """64 MiB of random data written to the LUN's disk with O_DIRECT and
    read back the same way: the copy read back and the target's backing
    file have the source's SHA-256."""
    vm = iser.vm
    src, back = "/tmp/iser-src", "/tmp/iser-back"
    vm.run(f"head -c {64 * MIB} /dev/urandom > {src}", timeout=300)
    wrote = iser.write(src, iser.dev)
    read = iser.read(iser.dev, back, 64)
    source, read_back, on_target = iser.sha256(src, back, LUN_IMAGE)
    vm.run(f"rm -f {src} {back}")
    assert read_back == source
    assert on_target == source
    mb = 64 * MIB / 1e6
    with capsys.disabled():
        print(f"\niSER over xiw, 64 MiB O_DIRECT: write "
              f"{mb / dd_seconds(wrote):.1f} MB/s, read "
              f"{mb / dd_seconds(read):.1f} MB/s (TCG)")


def test_iser_survives_logout_login_cycles(iser):
    """8 MiB written, then three times: a MiB of it rewritten, logout
    (the disk and the connection's QPs go), login (the disk is back),
    and all 8 MiB read back as last written."""
    vm = iser.vm
    data, part, back = "/tmp/iser-data", "/tmp/iser-part", "/tmp/iser-back"
    vm.run(f"head -c {8 * MIB} /dev/urandom > {data}")
    iser.write(data, iser.dev)
    for cycle in range(3):
        vm.run(f"head -c {MIB} /dev/urandom > {part} && dd if={part} "
               f"of={data} bs=1M seek={cycle} conv=notrunc status=none")
        iser.write(part, iser.dev, offset_mib=cycle)
        iser.logout()
        iser.login()
        iser.read(iser.dev, back, 8)
        written, read_back = iser.sha256(data, back)
        assert read_back == written, f"cycle {cycle}"
    vm.run(f"rm -f {data} {part} {back}")


def test_iser_session_runs_over_rdma_on_xiw_not_tcp(iser):
    """The session's transport is iser and its connection a QP on each
    xiw device; reading the disk makes the target RDMA Write into the
    initiator (xiw1 to xiw0), writing it makes the target RDMA Read from
    the initiator, the data crossing the devices each way."""
    vm = iser.vm
    session = vm.run("iscsiadm -m session -P 1").out
    assert "Iface Transport: iser" in session, session
    assert "iSCSI Connection State: LOGGED IN" in session, session
    qps = iser.qps()
    assert qps["xiw0"] >= 1 and qps["xiw1"] >= 1, qps

    def counters():
        return {dev: hw_counters(vm, dev) for dev in ("xiw0", "xiw1")}

    before = counters()
    iser.read(iser.dev, "/dev/null", 4)
    after_read = counters()
    iser.write("/dev/zero", iser.dev, mib=4)
    after_write = counters()
    initiator = counted(before["xiw0"], after_read["xiw0"])
    target = counted(before["xiw1"], after_read["xiw1"])
    assert target["tx_msg_write"] > 0, target
    assert target["tx_bytes"] >= 4 * MIB, target
    assert initiator["rx_msg_write"] == target["tx_msg_write"], initiator
    assert initiator["rx_bytes"] >= 4 * MIB, initiator
    initiator = counted(after_read["xiw0"], after_write["xiw0"])
    target = counted(after_read["xiw1"], after_write["xiw1"])
    assert target["tx_msg_read_req"] > 0, target
    assert initiator["tx_msg_read_resp"] > 0, initiator
    assert initiator["tx_bytes"] >= 4 * MIB, initiator
    assert target["rx_bytes"] >= 4 * MIB, target


# Across two kernels on a wire (two_guests.py): (initiator guest, target
# guest, initiator device, target device).
ACROSS = {
    "initiator0_target1": (0, 1, "xiw0", "xiw1"),
    "initiator1_target0": (1, 0, "xiw1", "xiw0"),
    "xiw_initiator_siw_target": (0, 1, "xiw0", "siw1"),
    "siw_initiator_xiw_target": (0, 1, "siw0", "xiw1"),
}


@pytest.mark.parametrize("across",
                         interop_except("initiator0_target1", ACROSS))
def test_iser_between_two_kernels_keeps_every_byte(two_guests, across):
    """The initiator in one guest logs in to the target in the other over
    iSER; 16 MiB of random data written with O_DIRECT reads back the same
    and is on the target's backing file; the session's QPs are on the
    two RDMA devices named."""
    from iser import IserAcross
    from two_guests import ADDR4
    i, t, idev, tdev = ACROSS[across]
    vms = two_guests.vms
    with IserAcross(vms[t], ADDR4[t], tdev, vms[i], idev) as s:
        assert s.qps(vms[i], idev) > 0 and s.qps(vms[t], tdev) > 0
        ivm = vms[i]
        ivm.run(f"head -c {16 * MIB} /dev/urandom > /tmp/iser-src")
        ivm.run(f"dd if=/tmp/iser-src of={s.dev} bs=1M oflag=direct",
                timeout=600)
        ivm.run(f"dd if={s.dev} of=/tmp/iser-back bs=1M count=16 "
                "iflag=direct", timeout=600)
        src, back = ivm.run("sha256sum /tmp/iser-src /tmp/iser-back").out \
            .split()[0::2]
        assert src == back
        on_target = vms[t].run(f"head -c {16 * MIB} {LUN_IMAGE} | "
                               "sha256sum").out.split()[0]
        assert on_target == src


@pytest.mark.interop
def test_iser_between_debian_6_1_and_6_12_keeps_every_byte(two_kernels):
    """Initiator on 6.12 (guest 0), target on 6.1 (guest 1)."""
    from iser import IserAcross
    from two_guests import ADDR4
    ivm, tvm = two_kernels.vms
    with IserAcross(tvm, ADDR4[1], "xiw1", ivm, "xiw0") as s:
        ivm.run(f"head -c {8 * MIB} /dev/urandom > /tmp/iser-src && "
                f"dd if=/tmp/iser-src of={s.dev} bs=1M oflag=direct && "
                f"dd if={s.dev} of=/tmp/iser-back bs=1M count=8 "
                "iflag=direct && cmp /tmp/iser-src /tmp/iser-back",
                timeout=600)
        on_target = tvm.run(f"head -c {8 * MIB} {LUN_IMAGE} | "
                            "sha256sum").out.split()[0]
        assert on_target == ivm.run("sha256sum < /tmp/iser-src") \
            .out.split()[0]
