"""iSER in the guest over two xiw devices: LIO's target (ib_isert, set up
with rtslib-fb) and open-iscsi's initiator (ib_iser), as Debian ships
them. Documentation/admin.md has the administrator's version.

Setup traps:
- ib_isert and ib_iser make their RDMA CM ids in the initial network
  namespace only, and open-iscsi's netlink family exists only there: both
  ends live in it. A veth pair joins v0 (192.0.2.1, xiw0, the initiator)
  and v1 (192.0.2.2, xiw1, the target); the local routing table moves
  behind two rules that send the traffic the two addresses exchange over
  the veth instead of lo.
- LIO opens every portal as TCP first; made in the initial namespace,
  that listener would take 192.0.2.2:3260 from ib_isert's (an iWARP
  listener is a TCP one: rdma_listen() fails with -98). The portal is
  made from a scratch namespace t holding the address on a dummy netdev,
  then iSER is enabled on it.
- rtslib-fb writes its preferred dbroot, /etc/rtslib-fb-target, to
  configfs, and the kernel refuses a directory that does not exist (the
  guest's root is the host's, read-only): the kernel's /var/target stays.
- /etc/iscsi is read-only too: a copy of it on tmpfs is bind-mounted over
  it, with iscsid.startup neutered (iscsid is started here, no systemd).
- No udev in the guest: sd_mod is loaded by hand, or the LUN shows up as
  a SCSI device with no disk.
"""
import json

from conftest import wait_until

IQN = "iqn.2003-01.org.linux-iscsi.xiw:t0"
INITIATOR_ADDR = "192.0.2.1"
TARGET_ADDR = "192.0.2.2"
PORTAL = f"{TARGET_ADDR}:3260"
LUN_IMAGE = "/tmp/iser-lun.img"
ETC_COPY = "/run/iser-etc-iscsi"
CONFIGFS = "/sys/kernel/config"
PY = "/usr/bin/python3"          # Debian's, the one with rtslib-fb
MIB = 1 << 20
# The only sysctl changed that outlives the veth pair.
SYSCTLS = ("net.ipv4.conf.all.rp_filter",)
MODULES = ("ib_isert", "ib_iser")

# Fixed MACs spare reading them back for the static neighbour entries.
MAC0, MAC1 = "02:00:00:00:00:01", "02:00:00:00:00:02"
NET_UP = f"""
ip -batch - <<'N'
link add v0 address {MAC0} type veth peer v1 address {MAC1}
addr add {INITIATOR_ADDR}/24 dev v0
addr add {TARGET_ADDR}/24 dev v1
link set v0 up
link set v1 up
neigh replace {TARGET_ADDR} lladdr {MAC1} dev v0
neigh replace {INITIATOR_ADDR} lladdr {MAC0} dev v1
route add {TARGET_ADDR} dev v0 src {INITIATOR_ADDR} table 100
route add {INITIATOR_ADDR} dev v1 src {TARGET_ADDR} table 101
rule add pref 10 iif lo to {TARGET_ADDR} lookup 100
rule add pref 11 iif lo to {INITIATOR_ADDR} lookup 101
rule add pref 100 lookup local
rule del pref 0 lookup local
netns add t
N
ip -n t -batch - <<'T'
link add d0 type dummy
addr add {TARGET_ADDR}/32 dev d0
link set d0 up
T
sysctl -qw net.ipv4.conf.all.rp_filter=0 \\
    net.ipv4.conf.v0.rp_filter=0 net.ipv4.conf.v1.rp_filter=0 \\
    net.ipv4.conf.v0.accept_local=1 net.ipv4.conf.v1.accept_local=1
rdma -b - <<'R'
link add xiw0 type xiw netdev v0
link add xiw1 type xiw netdev v1
R
"""

# Back to the local table at pref 0 before the rules that replaced it go
# (the ip rule add fails harmlessly if the rule is still there).
NET_DOWN = """
ip link del v0 2>/dev/null
ip netns del t 2>/dev/null
ip rule del pref 10 2>/dev/null
ip rule del pref 11 2>/dev/null
ip rule add pref 0 lookup local 2>/dev/null
ip rule show | grep -q '^0:.*lookup local' && ip rule del pref 100 2>/dev/null
ip route flush table 100 2>/dev/null
ip route flush table 101 2>/dev/null
"""

TARGET_UP_PY = r'''
import sys
from rtslib_fb import (RTSRoot, FileIOStorageObject, FabricModule, Target,
                       TPG, LUN, NetworkPortal)
RTSRoot._preferred_dbroot = RTSRoot._default_dbroot
iqn, image, size, addr = sys.argv[1:5]
# A sixth argument "tcp": the portal stays TCP only (ISER_ON_PY enables
# iSER later, from another namespace).
iser = sys.argv[5:] != ["tcp"]
RTSRoot()
lun = FileIOStorageObject("xiwlun", image, size=int(size), write_back=False)
tpg = TPG(Target(FabricModule("iscsi"), iqn), 1)
for name, value in (("authentication", "0"), ("generate_node_acls", "1"),
                    ("cache_dynamic_acls", "1"),
                    ("demo_mode_write_protect", "0")):
    tpg.set_attribute(name, value)
LUN(tpg, 0, lun)
# Run from netns t: the TCP listener every portal starts with binds
# there; ib_isert's, added by enabling iSER, in the initial namespace.
NetworkPortal(tpg, addr, 3260).iser = iser
tpg.enable = True
'''

# iSER enabled on TARGET_UP_PY's portal. Stock siw listens in the
# namespace of the task that asks (xiw in its device's): run from the
# device's namespace, so that siw's listener does not meet the portal's
# TCP one in the scratch namespace.
ISER_ON_PY = r'''
import sys
from rtslib_fb import RTSRoot, FabricModule, Target, TPG, NetworkPortal
RTSRoot._preferred_dbroot = RTSRoot._default_dbroot
iqn, addr = sys.argv[1:3]
tpg = TPG(Target(FabricModule("iscsi"), iqn, mode="lookup"), 1,
          mode="lookup")
NetworkPortal(tpg, addr, 3260, mode="lookup").iser = True
'''

TARGET_DOWN_PY = r'''
from rtslib_fb import RTSRoot
RTSRoot._preferred_dbroot = RTSRoot._default_dbroot
RTSRoot().clear_existing(confirm=True)
'''

INITIATOR_UP = f"""
mkdir -p {ETC_COPY} /run/lock/iscsi
cp -a /etc/iscsi/. {ETC_COPY}/
sed -i 's|^iscsid.startup.*|iscsid.startup = /bin/true|' {ETC_COPY}/iscsid.conf
mount --bind {ETC_COPY} /etc/iscsi
iscsid
"""

# iscsid's logger process goes with it.
INITIATOR_DOWN = f"""
if [ -s /run/iscsid.pid ]; then
    iscsiadm -k 0 2>/dev/null
    i=0; while pgrep -x iscsid > /dev/null && [ $i -lt 200 ]; do
        sleep 0.05; i=$((i+1)); done
fi
rm -f /run/iscsid.pid
if grep -q ' /etc/iscsi ' /proc/mounts; then umount /etc/iscsi; fi
rm -rf {ETC_COPY} /run/lock/iscsi
rmdir /run/lock 2>/dev/null
"""

ISCSIADM_NODE = f"iscsiadm -m node -T {IQN} -p {PORTAL} -I iser"
# The LUN's block device, by way of the session's SCSI device.
SESSION_DISK = "/sys/class/iscsi_session/session*/device/target*/*/block/*"


class Setup:
    """A setup used as a context manager: start() on entry, stop() on
    exit, and stop() as well after a start() that failed part way."""

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()


def session_disk(vm, lun_bytes):
    """The LUN's block device in vm (waited for: the SCSI scan that makes
    it runs after the login returns), checked to be lun_bytes long."""
    wait_until(vm, f"set -- {SESSION_DISK}; [ -b \"/dev/${{1##*/}}\" ]",
               "the LUN's disk appears")
    dev = "/dev/" + vm.run(f"ls -d {SESSION_DISK}").out.split(
        "/")[-1].strip()
    size = int(vm.run(f"blockdev --getsize64 {dev}").out)
    assert size == lun_bytes, (dev, size)
    return dev


class Iser(Setup):
    """xiw0 on v0 and xiw1 on v1 in the initial namespace; a target on
    xiw1 exporting a file of lun_mib MiB as LUN 0 over iSER only; the
    initiator on xiw0 discovered it and logged in. Everything is undone
    at exit: logout, the LIO configuration, iscsid, ib_isert and ib_iser
    (if loaded here), the devices, the netdevs, the rules and sysctls."""

    def __init__(self, vm, lun_mib=64):
        self.vm = vm
        self.lun_bytes = lun_mib * MIB
        self.loaded = []
        self.sysctls = {}
        self.configfs_mounted = False
        self.dev = None

    def start(self):
        vm = self.vm
        probe = vm.run("sysctl " + " ".join(SYSCTLS) + "; for m in "
                       + " ".join(MODULES) + "; do [ -e /sys/module/$m ] "
                       "|| echo load $m; done; mountpoint -q "
                       f"{CONFIGFS} || echo mount").out.splitlines()
        self.sysctls = dict(ln.split(" = ") for ln in probe if " = " in ln)
        self.loaded = [ln.split()[1] for ln in probe if ln.startswith("load ")]
        self.configfs_mounted = "mount" in probe
        vm.run("set -e\n" + NET_UP +
               "modprobe -a target_core_file sd_mod " + " ".join(MODULES) +
               f"\nmountpoint -q {CONFIGFS} || "
               f"mount -t configfs configfs {CONFIGFS}\n" + INITIATOR_UP,
               timeout=180)
        vm.run(f"truncate -s {self.lun_bytes} {LUN_IMAGE} && "
               f"nsenter --net=/run/netns/t {PY} - {IQN} {LUN_IMAGE} "
               f"{self.lun_bytes} {TARGET_ADDR} <<'PY'\n{TARGET_UP_PY}PY",
               timeout=180)
        out = vm.run(f"iscsiadm -m discovery -t st -p {PORTAL} -I iser",
                     timeout=120).out
        assert IQN in out, out
        self.login()

    def stop(self):
        vm = self.vm
        vm.run(f"{ISCSIADM_NODE} --logout 2>/dev/null; "
               "iscsiadm -m node -o delete 2>/dev/null; true",
               timeout=120, check=False)
        try:
            self.wait_qps_gone()
        except AssertionError as e:
            lingering = e       # undo the rest first; report it then
        else:
            lingering = None
        vm.run(INITIATOR_DOWN + f"[ -d {CONFIGFS}/target/iscsi ] && "
               f"{PY} - <<'PY'\n{TARGET_DOWN_PY}PY\n"
               f"rm -f {LUN_IMAGE} /run/rtslib_backstore.lock\n" +
               (f"umount {CONFIGFS}" if self.configfs_mounted else ""),
               timeout=180, check=False)
        unload = "".join(f"i=0; while ! rmmod {m} && [ $i -lt 100 ]; do "
                         f"sleep 0.05; i=$((i+1)); done\n"
                         for m in self.loaded)
        restore = " ".join(f"{k}={v}" for k, v in self.sysctls.items())
        vm.run(unload + "rdma link delete xiw0 2>/dev/null\n"
               "rdma link delete xiw1 2>/dev/null\n" + NET_DOWN +
               (f"sysctl -qw {restore}\n" if restore else "") + "true",
               timeout=120, check=False)
        if lingering:
            raise lingering

    def login(self):
        """Log in over iSER and wait for the LUN's disk; return its path
        (kept in dev too)."""
        self.vm.run(f"{ISCSIADM_NODE} --login", timeout=180)
        self.dev = self.disk()
        return self.dev

    def logout(self):
        """Log out; the disk and the connection's QPs go with the
        session."""
        self.vm.run(f"{ISCSIADM_NODE} --logout", timeout=120)
        wait_until(self.vm, f"! ls {SESSION_DISK}", "the disk is gone")
        self.wait_qps_gone()

    def disk(self):
        """The LUN's block device, checked to be lun_mib MiB."""
        return session_disk(self.vm, self.lun_bytes)

    def qps(self):
        """The QPs of each xiw device, by device name."""
        rows = json.loads(self.vm.run("rdma -j resource show qp").out or "[]")
        return {dev: sum(r.get("ifname") == dev for r in rows)
                for dev in ("xiw0", "xiw1")}

    def wait_qps_gone(self):
        wait_until(self.vm, "! rdma resource show qp | grep -q ' xiw[01]/'",
                   "the iSER connection's QPs are gone")

    def write(self, src, dev, offset_mib=0, mib=None):
        """Write file src (its first mib MiB if given) to dev at
        offset_mib with O_DIRECT; return dd's report."""
        count = f"count={mib} " if mib else ""
        return self.dd(f"if={src} of={dev} bs=1M seek={offset_mib} "
                       f"{count}oflag=direct")

    def read(self, dev, dst, mib, offset_mib=0):
        """Read mib MiB of dev from offset_mib with O_DIRECT into file
        dst; return dd's report."""
        return self.dd(f"if={dev} of={dst} bs=1M skip={offset_mib} "
                       f"count={mib} iflag=direct")

    def dd(self, args):
        """Run dd with args; return its report's last line ("... copied,
        1.23 s, 54 MB/s")."""
        return self.vm.run(f"dd {args}", timeout=600).err.splitlines()[-1]

    def sha256(self, *paths):
        """The SHA-256 of each file, in order."""
        out = self.vm.run("sha256sum " + " ".join(paths), timeout=300).out
        return [ln.split()[0] for ln in out.splitlines()]


class IserAcross(Setup):
    """iSER between two guests on a wire (two_guests.py): the target in
    guest t on a device of target_kind on its eth0 (address taddr), the
    initiator in guest i on a device of initiator_kind. The portal is
    made from a scratch namespace holding taddr on a dummy netdev, as in
    one kernel (see above), then iSER is enabled on it from the initial
    namespace (ISER_ON_PY). Used as a context
    manager: logged in on entry (the LUN's disk in dev), everything undone
    on exit."""

    def __init__(self, target_vm, taddr, target_dev, initiator_vm,
                 initiator_dev, lun_mib=32):
        self.tvm, self.taddr, self.tdev = target_vm, taddr, target_dev
        self.ivm, self.idev = initiator_vm, initiator_dev
        self.lun_bytes = lun_mib * MIB
        self.node = f"iscsiadm -m node -T {IQN} -p {taddr}:3260 -I iser"
        self.dev = None

    @staticmethod
    def link(dev):
        kind = dev.rstrip("0123456789")
        return f"modprobe {kind} && rdma link add {dev} type {kind} " \
               "netdev eth0\n"

    def start(self):
        self.tvm.run(f"""set -e
{self.link(self.tdev)}ip netns add t
ip -n t link add d0 type dummy
ip -n t addr add {self.taddr}/32 dev d0
ip -n t link set d0 up
modprobe -a target_core_file ib_isert
mountpoint -q {CONFIGFS} || mount -t configfs configfs {CONFIGFS}
truncate -s {self.lun_bytes} {LUN_IMAGE}
nsenter --net=/run/netns/t {PY} - {IQN} {LUN_IMAGE} {self.lun_bytes} \
{self.taddr} tcp <<'PY'
{TARGET_UP_PY}PY
{PY} - {IQN} {self.taddr} <<'PY'
{ISER_ON_PY}PY""", timeout=180)
        self.ivm.run("set -e\n" + self.link(self.idev) +
                     "modprobe -a sd_mod ib_iser\n" + INITIATOR_UP,
                     timeout=180)
        out = self.ivm.run(f"iscsiadm -m discovery -t st -p "
                           f"{self.taddr}:3260 -I iser", timeout=120).out
        assert IQN in out, out
        self.ivm.run(f"{self.node} --login", timeout=180)
        self.dev = session_disk(self.ivm, self.lun_bytes)

    def stop(self):
        self.ivm.run(f"{self.node} --logout 2>/dev/null; "
                     "iscsiadm -m node -o delete 2>/dev/null; "
                     + INITIATOR_DOWN + "rmmod ib_iser 2>/dev/null; true",
                     timeout=180, check=False)
        self.tvm.run(f"[ -d {CONFIGFS}/target/iscsi ] && "
                     f"{PY} - <<'PY'\n{TARGET_DOWN_PY}PY\n"
                     f"rm -f {LUN_IMAGE} /run/rtslib_backstore.lock\n"
                     "ip netns del t 2>/dev/null\n"
                     "i=0; while ! rmmod ib_isert 2>/dev/null && "
                     "[ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; true",
                     timeout=180, check=False)

    def qps(self, vm, dev):
        rows = json.loads(vm.run("rdma -j resource show qp").out or "[]")
        return sum(r.get("ifname") == dev for r in rows)
