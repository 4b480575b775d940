"""Two guests on one wire: the topology of two machines. Each guest boots
its own kernel (the same one, or Debian's 6.1 beside 6.12) with its own
RDMA core, rdma_cm and ULP state; their eth0s share an Ethernet segment
(xiwvm.Wire, over the host's loopback). Guest i (0 or 1) has 192.0.2.(i+1)
and 2001:db8::(i+1) on eth0, and a link-local IPv6 address from its MAC.

The scenarios reach the pair through the two_guests fixtures of
conftest.py, which check both kernels' logs after every test as the vm
fixture does for one guest.
"""
import os
import threading

import xiwvm

ADDR4 = ("192.0.2.1", "192.0.2.2")
ADDR6 = ("2001:db8::1", "2001:db8::2")

# Every impairment netem offers at once, mildly: what ULP scenarios run
# over to show they ride out a misbehaving wire.
IMPAIRED = "delay 5ms 2ms loss 1% duplicate 1% reorder 10%"

# One vCPU each: the two guests share the host's two cores with the
# shard's own guest, which sits idle meanwhile.
SMP = 1
MEM_MB = 1536


class GuestPair:
    """Two guests joined by a wire. series: each guest's Debian kernel
    series (None: the environment's kernel, the debug kernel included)."""

    def __init__(self, workdir, modules_for, series=(None, None)):
        self.workdir = workdir
        self.series = series
        self.modules_for = modules_for
        self.vms = [None, None]
        self.wire = None
        # Set after a test's checks failed: the next test boots afresh.
        self.spoiled = False

    def start(self):
        """Boot both guests at once (each boot is minutes of TCG, mostly
        spent in one host thread) on a new wire, then address them."""
        self.stop()
        self.wire = xiwvm.Wire()
        for i in range(2):
            self.vms[i] = self.make_vm(i)
        # What the guests could make at once (the same module tree, the
        # same initramfs when both boot one kernel) is made first.
        for vm in self.vms:
            vm.initramfs()
            vm.modroot()
        errors = []

        def boot(vm):
            try:
                vm.start()
            except Exception as e:  # noqa: BLE001 -- reported below
                errors.append(e)
        threads = [threading.Thread(target=boot, args=(vm,))
                   for vm in self.vms]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            self.stop()
            raise errors[0]
        for i in range(2):
            self.address(i)
        for i in range(2):
            self.wait_peer(i)
        return self

    def make_vm(self, i):
        d = os.path.join(self.workdir, f"guest{i}")
        os.makedirs(d, exist_ok=True)
        return xiwvm.VM(d, modules=self.modules_for(self.series[i]),
                        smp=SMP, mem_mb=MEM_MB, series=self.series[i],
                        wire=self.wire.end(i))

    def address(self, i):
        """Guest i's eth0 up with its addresses (again, after a test took
        them: IPv6 ones go with the port, or with an MTU below 1280)."""
        self.vms[i].run(f"""{{ [ -d /sys/module/virtio_net ] || modprobe virtio_net; }} &&
ip -batch - <<'E'
link set eth0 up
addr replace {ADDR4[i]}/24 dev eth0
addr replace {ADDR6[i]}/64 dev eth0 nodad
E""")

    def wait_peer(self, i):
        """Guest i reaches the other over IPv4 and IPv6 once its
        link-local address passed duplicate detection."""
        vm = self.vms[i]
        vm.run("i=0; while [ -n \"$(ip -6 addr show dev eth0 "
               "tentative)\" ]; do i=$((i+1)); [ $i -lt 200 ] || "
               "exit 1; sleep 0.05; done", timeout=60)
        for addr in (ADDR4[1 - i], ADDR6[1 - i]):
            vm.run(f"i=0; until busybox ping -c 1 -W 1 {addr} > /dev/null; "
                   f"do i=$((i+1)); [ $i -lt 30 ] || exit 1; done",
                   timeout=120)

    def impair(self, netem):
        """netem with these arguments on both guests' eth0: both
        directions of the wire suffer."""
        for vm in self.vms:
            vm.run("modprobe sch_netem && tc qdisc replace dev eth0 root "
                   f"netem {netem}")

    def mend(self, check=False):
        """The wire without netem again, at each guest still running; with
        check, the removal must succeed (netem was there)."""
        for vm in self.vms:
            if vm.alive():
                vm.run("tc qdisc del dev eth0 root" +
                       ("" if check else " 2>/dev/null; true"),
                       check=check)

    def kill(self, i):
        """Power cut on guest i: its QEMU killed, nothing sent on the
        wire any more. reboot() brings it back."""
        self.vms[i].kill()

    def reboot(self, i):
        """Guest i booted anew on its end of the same wire (the other
        guest's neighbour entry still names its MAC, the same as
        before), addressed, and reaching its peer."""
        self.vms[i].stop()
        self.vms[i] = self.make_vm(i)
        self.vms[i].start()
        self.address(i)
        self.wait_peer(i)

    def alive(self):
        return all(vm is not None and vm.alive() for vm in self.vms)

    def stop(self):
        for vm in self.vms:
            if vm is not None:
                vm.stop()
        self.vms = [None, None]

    def link_local(self, i):
        """Guest i's link-local IPv6 address on eth0."""
        out = self.vms[i].run("ip -6 -o addr show dev eth0 scope link").out
        return out.split()[3].split("/")[0]

    def kernels(self):
        return [vm.run("uname -r").out.strip() for vm in self.vms]
