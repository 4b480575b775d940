#!/usr/bin/env python3
"""Exploration, not a test: iSER (LIO ib_isert target, open-iscsi ib_iser
initiator) over xiw in the test VM, kept as the recipe the iSER scenario of
issue 8 is to be built from (Documentation/admin.md has the administrator's
version; tests/integration/test_iser.py is that scenario now). Needs the
host packages targetcli-fb, python3-rtslib-fb and open-iscsi (in
scripts/setup.sh). Run:

    timeout 900 /usr/bin/python3 scripts/iser-explore.py [probe|initnet|collide|targetcli|lo]...
(/usr/bin/python3: Debian's, which has pytest (conftest imports it) and rtslib)

default: "probe initnet".
  probe   - the brief's layout (target in netns b, initiator in netns a):
            shows why it cannot work (ib_isert/ib_iser use init_net only,
            the iscsi netlink family is init_net only).
  initnet - v0/v1 (veth) both in init_net, policy routing so that
            192.0.2.1 <-> 192.0.2.2 crosses the veth (not lo), xiw0 on v0,
            xiw1 on v1; the TCP portal LIO always creates is moved out of
            the way by mkdir'ing the portal from a scratch netns "t".
  collide - the portal made from init_net: LIO's TCP listener and xiw's
            listener for ib_isert on 192.0.2.2:3260 -> EADDRINUSE (-98).
  targetcli - initnet, target made with targetcli (overlay /etc, private
            D-Bus, portal created from netns t).
  lo      - fallback: xiw0 on lo, portal 127.0.0.1 (same TCP-portal trick).
Nothing here touches the repository; logs go to stdout.
"""
import os
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
sys.path.insert(0, os.path.join(TOP, "tests", "vm"))

from conftest import Guest, default_modules, build_siw, two_hosts  # noqa
from xiwperf_run import load_xiwperf, static_neighbours  # noqa

IQN = "iqn.2003-01.org.linux-iscsi.xiw:t0"
PY = "/usr/bin/python3"          # rtslib-fb lives in Debian's python3 only
MIB = 64

T0 = time.monotonic()


def log(*a):
    print(f"[{time.monotonic() - T0:7.1f}s]", *a, flush=True)


def sh(vm, cmd, timeout=120, check=False):
    t = time.monotonic()
    res = vm.run(cmd, timeout=timeout, check=False)
    dt = time.monotonic() - t
    log(f"$ {cmd.strip()[:300]}\n  rc={res.rc} ({dt:.1f}s)")
    if res.out.strip():
        print("  out:", res.out.rstrip().replace("\n", "\n       "))
    if res.err.strip():
        print("  err:", res.err.rstrip().replace("\n", "\n       "))
    if check and res.rc != 0:
        raise RuntimeError(f"failed: {cmd}")
    return res


def dmesg(vm, what):
    out = vm.run("dmesg -c", timeout=30, check=False).out
    log(f"---- dmesg ({what}) ----")
    print(out.rstrip())
    bad = [ln for ln in out.splitlines()
           if any(k in ln for k in ("WARNING", "BUG", "Oops", "refcount",
                                    "Call Trace", "KASAN", "UBSAN"))]
    if bad:
        log("!!!! KERNEL PROBLEM LINES:\n" + "\n".join(bad))
    return out


# --- target (rtslib-fb) -------------------------------------------------
# rtslib traps: RTSRoot() writes its preferred dbroot /etc/rtslib-fb-target
# into configfs, and the kernel refuses a directory that does not exist
# (read-only guest root) -> RTSLibError; keep the kernel's /var/target.
TARGET_PY = r'''
import sys
from rtslib_fb import (RTSRoot, FileIOStorageObject, FabricModule, Target,
                       TPG, LUN, NetworkPortal)
RTSRoot._preferred_dbroot = RTSRoot._default_dbroot
ip, port, img, mib, iqn = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
root = RTSRoot()
so = FileIOStorageObject("xiwlun", img, size=mib << 20, write_back=False)
t = Target(FabricModule("iscsi"), iqn)
tpg = TPG(t, 1)
tpg.set_attribute("authentication", "0")
tpg.set_attribute("generate_node_acls", "1")
tpg.set_attribute("cache_dynamic_acls", "1")
tpg.set_attribute("demo_mode_write_protect", "0")
LUN(tpg, 0, so)
np = NetworkPortal(tpg, ip, port)      # always a TCP portal first
print("tcp portal created")
np.iser = True                         # adds the iSER child portal (ib_isert)
print("iser portal:", np.iser)
tpg.enable = True
print("enabled")
'''

CLEAR_PY = r'''
from rtslib_fb import RTSRoot
RTSRoot._preferred_dbroot = RTSRoot._default_dbroot
RTSRoot().clear_existing(confirm=True)
print("cleared")
'''


def write_py(vm, name, text):
    vm.run(f"cat > /tmp/{name} <<'PYEOF'\n{text}\nPYEOF")


def target_prep(vm):
    sh(vm, "modprobe target_core_mod && modprobe target_core_file && "
           "modprobe iscsi_target_mod && modprobe ib_isert && "
           "(mountpoint -q /sys/kernel/config || "
           "mount -t configfs configfs /sys/kernel/config); "
           "ls /sys/kernel/config/target; "
           "cat /sys/kernel/config/target/dbroot", check=True)
    write_py(vm, "iser_target.py", TARGET_PY)
    write_py(vm, "iser_clear.py", CLEAR_PY)


def target_setup(vm, prefix, ip, port=3260):
    return sh(vm, f"truncate -s {MIB}M /tmp/iser-lun.img && "
                  f"{prefix}{PY} /tmp/iser_target.py {ip} {port} "
                  f"/tmp/iser-lun.img {MIB} {IQN}", timeout=120)


def target_clear(vm):
    sh(vm, f"{PY} /tmp/iser_clear.py", timeout=120)


# --- initiator (open-iscsi) ---------------------------------------------
# /etc/iscsi is the host's (read-only over 9p): a tmpfs over it holding
# copies of initiatorname.iscsi and iscsid.conf (iscsid.startup neutered:
# iscsiadm would run "systemctl start iscsid.socket"). /var/lib and /run
# are tmpfs already (lock dir /run/lock/iscsi).
INIT_PREP = r'''
set -e
# no udev in the guest: nothing autoloads sd_mod for the new LUN, which
# then shows as "scsi 0:0:0:0 Direct-Access LIO-ORG FILEIO" with no disk
modprobe sd_mod
modprobe ib_iser
if ! grep -q ' /etc/iscsi ' /proc/mounts; then
  mkdir -p /tmp/iscsi-etc && cp -a /etc/iscsi/. /tmp/iscsi-etc/
  mount -t tmpfs tmpfs /etc/iscsi && cp -a /tmp/iscsi-etc/. /etc/iscsi/
  sed -i 's|^iscsid.startup.*|iscsid.startup = /bin/true|' /etc/iscsi/iscsid.conf
fi
mkdir -p /run/lock/iscsi /var/lib/iscsi
cat /etc/iscsi/initiatorname.iscsi | grep -v '^#'
'''


def initiator_run(vm, prefix, ip, port=3260):
    r = {}
    sh(vm, INIT_PREP, check=True)
    sh(vm, f"{prefix}iscsid; sleep 1; pgrep -a iscsid", timeout=60)
    t = time.monotonic()
    d = sh(vm, f"{prefix}iscsiadm -m discovery -t st -p {ip}:{port} -I iser",
           timeout=180)
    r["discovery_s"] = time.monotonic() - t
    if d.rc != 0:
        log("discovery over iSER failed; creating the node record by hand")
        sh(vm, f"{prefix}iscsiadm -m node -o new -T {IQN} -p {ip}:{port} "
               f"-I iser", timeout=60)
    t = time.monotonic()
    li = sh(vm, f"{prefix}iscsiadm -m node -T {IQN} -p {ip}:{port} -I iser "
                f"--login", timeout=240)
    r["login_s"] = time.monotonic() - t
    r["login_rc"] = li.rc
    if li.rc != 0:
        return r
    sh(vm, f"{prefix}iscsiadm -m session -P 3", timeout=60)
    # wait for the disk
    t = time.monotonic()
    res = sh(vm, "i=0; while [ $i -lt 300 ]; do i=$((i+1)); "
                 "d=$(ls /sys/class/iscsi_session/*/device/target*/*/block "
                 "2>/dev/null | head -1); [ -n \"$d\" ] && [ -b /dev/$d ] && "
                 "{ echo $d; exit 0; }; sleep 0.1; done; exit 1", timeout=120)
    r["disk_wait_s"] = time.monotonic() - t
    if res.rc != 0:
        sh(vm, "ls -lR /sys/class/iscsi_session/ | head -50; lsblk", timeout=60)
        return r
    dev = "/dev/" + res.out.strip().splitlines()[-1]
    r["dev"] = dev
    sh(vm, f"lsblk {dev}; cat /sys/block/{dev[5:]}/size; "
           f"cat /sys/block/{dev[5:]}/queue/max_sectors_kb", timeout=60)
    sh(vm, f"dd if=/dev/urandom of=/tmp/iser-src bs=1M count={MIB} "
           "status=none && md5sum /tmp/iser-src", timeout=120, check=True)
    w = sh(vm, f"dd if=/tmp/iser-src of={dev} bs=1M count={MIB} "
               "oflag=direct 2>&1", timeout=600)
    r["write"] = w.out.strip().splitlines()[-1:] if w.out else w.rc
    sh(vm, "echo 3 > /proc/sys/vm/drop_caches")
    rd = sh(vm, f"dd if={dev} of=/tmp/iser-back bs=1M count={MIB} "
                "iflag=direct 2>&1", timeout=600)
    r["read"] = rd.out.strip().splitlines()[-1:] if rd.out else rd.rc
    m = sh(vm, "md5sum /tmp/iser-src /tmp/iser-back /tmp/iser-lun.img", timeout=120)
    sums = [ln.split()[0] for ln in m.out.splitlines()]
    r["md5_match"] = len(sums) == 3 and len(set(sums)) == 1
    sh(vm, "rdma resource show qp; rdma stat show 2>/dev/null | head; "
           "for d in /sys/class/infiniband/*; do echo $d; done")
    return r


def initiator_stop(vm, prefix, ip, port=3260):
    t = time.monotonic()
    sh(vm, f"{prefix}iscsiadm -m node -T {IQN} -p {ip}:{port} -I iser "
           "--logout", timeout=120)
    log(f"logout took {time.monotonic() - t:.1f}s")
    sh(vm, f"{prefix}iscsiadm -m node -o delete; {prefix}iscsiadm -k 0; "
           "sleep 1; pkill -x iscsid; true", timeout=60)


# --- scenarios ----------------------------------------------------------
def scenario_probe(vm):
    """The brief's layout: does anything work with the ends in netns?"""
    log("=== probe: target in netns b, initiator in netns a ===")
    two_hosts(vm)
    load_xiwperf(vm)
    static_neighbours(vm)
    sh(vm, "ip netns exec a rdma link add xiw0 type xiw netdev v0 && "
           "ip netns exec b rdma link add xiw1 type xiw netdev v1", check=True)
    target_prep(vm)
    # ip netns exec remounts /sys (configfs is gone there): nsenter.
    sh(vm, "ip netns exec b ls /sys/kernel/config 2>&1 | head -3")
    target_setup(vm, "nsenter --net=/run/netns/b ", "192.0.2.2")
    sh(vm, "ip netns exec b ss -ltn; ss -ltn; "
           "ls /sys/kernel/config/target/iscsi/*/tpgt_1/np/*/ 2>&1; "
           "cat /sys/kernel/config/target/iscsi/*/tpgt_1/np/*/iser 2>&1")
    dmesg(vm, "probe target")
    target_clear(vm)
    # initiator: iscsid in netns a
    sh(vm, INIT_PREP, check=True)
    sh(vm, "timeout 10 nsenter --net=/run/netns/a iscsid -f -d 4 2>&1 "
           "| head -20", timeout=60)
    dmesg(vm, "probe initiator")
    sh(vm, "rdma link delete xiw0; rdma link delete xiw1; "
           "ip -all netns delete; rmmod xiwperf; true", timeout=60)
    dmesg(vm, "probe teardown")


ROUTING = r'''
set -e
ip link add v0 type veth peer v1
ip addr add 192.0.2.1/24 dev v0
ip addr add 192.0.2.2/24 dev v1
ip link set v0 up; ip link set v1 up; ip link set lo up
for i in all default v0 v1; do
  sysctl -qw net.ipv4.conf.$i.rp_filter=0 net.ipv4.conf.$i.accept_local=1
done
# locally generated traffic (iif lo) to the other end leaves by the veth
ip route add 192.0.2.2 dev v0 src 192.0.2.1 table 100
ip route add 192.0.2.1 dev v1 src 192.0.2.2 table 101
ip rule add pref 10 iif lo to 192.0.2.2 lookup 100
ip rule add pref 11 iif lo to 192.0.2.1 lookup 101
ip rule add pref 100 lookup local
ip rule del pref 0 lookup local
set -- $(ip -br link show v0); ma=$3
set -- $(ip -br link show v1); mb=$3
ip neigh replace 192.0.2.2 lladdr $mb dev v0
ip neigh replace 192.0.2.1 lladdr $ma dev v1
ip rule; ip route get 192.0.2.2; ip route get 192.0.2.1
# the scratch namespace that takes LIO's TCP portal
ip netns add t
ip -n t link set lo up
ip -n t link add d0 type dummy
ip -n t addr add 192.0.2.2/32 dev d0
ip -n t addr add 192.0.2.1/32 dev d0
ip -n t link set d0 up
'''


def scenario_initnet(vm):
    log("=== initnet: v0/v1 in init_net, policy routing, TCP portal in t ===")
    load_xiwperf(vm)
    sh(vm, ROUTING, check=True)
    sh(vm, "rdma link add xiw0 type xiw netdev v0 && "
           "rdma link add xiw1 type xiw netdev v1 && rdma link show",
       check=True)
    target_prep(vm)
    t = target_setup(vm, "nsenter --net=/run/netns/t ", "192.0.2.2")
    sh(vm, "ss -ltn; ip netns exec t ss -ltn; "
           "cat /sys/kernel/config/target/iscsi/*/tpgt_1/np/*/iser")
    dmesg(vm, "initnet target")
    if t.rc != 0:
        return {"target": "failed"}
    sh(vm, "(tcpdump --version || dumpcap -v) 2>&1 | head -1")
    r = initiator_run(vm, "", "192.0.2.2")
    log("RESULT", r)
    sh(vm, "ip -s link show v0 | head -8")
    dmesg(vm, "initnet data")
    initiator_stop(vm, "", "192.0.2.2")
    target_clear(vm)
    sh(vm, "rdma resource show qp; rdma link delete xiw0; "
           "rdma link delete xiw1; ip link del v0; ip netns del t; "
           "rmmod ib_iser ib_isert; rmmod xiwperf; modprobe -r xiw; "
           "lsmod | grep -E 'xiw|iser'; true", timeout=120)
    dmesg(vm, "initnet teardown")
    return r


def net_up(vm):
    load_xiwperf(vm)
    sh(vm, ROUTING, check=True)
    sh(vm, "rdma link add xiw0 type xiw netdev v0 && "
           "rdma link add xiw1 type xiw netdev v1", check=True)


def net_down(vm):
    # the rules outlive the veth: put the local table back at pref 0
    sh(vm, "rdma link delete xiw0; rdma link delete xiw1; ip link del v0; "
           "ip rule del pref 10; ip rule del pref 11; "
           "ip rule add pref 0 lookup local; ip rule del pref 100; "
           "ip netns del t; rmmod ib_iser ib_isert; rmmod xiwperf; "
           "modprobe -r xiw; lsmod | grep -E 'xiw|iser'; true", timeout=120)


def scenario_collide(vm):
    """The portal made from init_net: LIO's TCP listener on 192.0.2.2:3260
    and xiw's listener for ib_isert collide."""
    log("=== collide: portal mkdir from init_net ===")
    net_up(vm)
    target_prep(vm)
    target_setup(vm, "", "192.0.2.2")
    sh(vm, "ss -ltn")
    dmesg(vm, "collide")
    target_clear(vm)
    net_down(vm)
    dmesg(vm, "collide teardown")


# targetcli: RTSRoot insists on dbroot /etc/rtslib-fb-target (and saves
# its config there on exit): an overlay over the read-only /etc makes it.
TARGETCLI = r"""
set -e
if ! grep -q '^overlay /etc ' /proc/mounts; then
  mkdir -p /run/etc-up /run/etc-work
  mount -t overlay overlay -o lowerdir=/etc,upperdir=/run/etc-up,workdir=/run/etc-work /etc
fi
mkdir -p /etc/rtslib-fb-target
truncate -s {mib}M /tmp/iser-lun.img
# targetcli's backstores node asks the system D-Bus for tcmu-runner
# (Gio.bus_get_sync outside its try): without a bus every command dies
# with "g-io-error-quark: Could not connect". A private bus will do.
[ -s /run/iser-dbus.addr ] || dbus-daemon --session --fork --print-address=1 > /run/iser-dbus.addr
export DBUS_SYSTEM_BUS_ADDRESS=$(cat /run/iser-dbus.addr)
tc=targetcli
$tc set global auto_add_default_portal=false auto_save_on_exit=false
$tc /backstores/fileio create xiwlun /tmp/iser-lun.img {mib}M write_back=false
$tc /iscsi create {iqn}
$tc /iscsi/{iqn}/tpg1 set attribute authentication=0 generate_node_acls=1 cache_dynamic_acls=1 demo_mode_write_protect=0
$tc /iscsi/{iqn}/tpg1/luns create /backstores/fileio/xiwlun
# the TCP portal every portal starts as: made from the scratch netns t
nsenter --net=/run/netns/t $tc /iscsi/{iqn}/tpg1/portals create {ip} 3260
$tc /iscsi/{iqn}/tpg1/portals/{ip}:3260 enable_iser boolean=true
$tc ls
"""


def scenario_targetcli(vm):
    log("=== targetcli: initnet layout, target made with targetcli ===")
    net_up(vm)
    target_prep(vm)
    t = sh(vm, TARGETCLI.format(mib=MIB, iqn=IQN, ip="192.0.2.2"),
           timeout=300)
    sh(vm, "ss -ltn; ip netns exec t ss -ltn")
    dmesg(vm, "targetcli target")
    r = {"target": "failed"}
    if t.rc == 0:
        r = initiator_run(vm, "", "192.0.2.2")
        log("RESULT", r)
        dmesg(vm, "targetcli data")
        initiator_stop(vm, "", "192.0.2.2")
    sh(vm, "DBUS_SYSTEM_BUS_ADDRESS=$(cat /run/iser-dbus.addr) "
           "targetcli clearconfig confirm=True", timeout=120)
    net_down(vm)
    dmesg(vm, "targetcli teardown")
    return r


def scenario_lo(vm):
    log("=== lo: xiw0 on lo, portal 127.0.0.1 ===")
    sh(vm, "ip link set lo up; rdma link add xiw0 type xiw netdev lo; "
           "ip netns add t; ip -n t link set lo up", check=True)
    target_prep(vm)
    t = target_setup(vm, "nsenter --net=/run/netns/t ", "127.0.0.1")
    dmesg(vm, "lo target")
    if t.rc != 0:
        return {"target": "failed"}
    r = initiator_run(vm, "", "127.0.0.1")
    log("RESULT", r)
    dmesg(vm, "lo data")
    initiator_stop(vm, "", "127.0.0.1")
    target_clear(vm)
    sh(vm, "rdma link delete xiw0; ip netns del t; modprobe -r xiw; true",
       timeout=120)
    dmesg(vm, "lo teardown")
    return r


def main():
    which = sys.argv[1:] or ["probe", "initnet"]
    g = Guest(default_modules(build_siw()))
    g.workdir = "/tmp/iser/vm"          # not the repository's build/
    os.makedirs(g.workdir, exist_ok=True)
    try:
        t = time.monotonic()
        vm = g.ensure()
        log(f"VM up in {time.monotonic() - t:.1f}s")
        sh(vm, "uname -r; nproc")
        results = {}
        for s in which:
            try:
                results[s] = globals()[f"scenario_{s}"](vm)
            except Exception as e:  # keep going, record
                log(f"scenario {s} raised: {e!r}")
                results[s] = repr(e)
                dmesg(vm, f"{s} after exception")
        log("ALL RESULTS", results)
    finally:
        if g.vm is not None:
            log("console tail:\n" + g.vm.console()[-3000:])
        g.stop()


if __name__ == "__main__":
    main()
