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

    def start(self):
        """Boot both guests at once (each boot is minutes of TCG, mostly
        spent in one host thread) on a new wire, then address them."""
        self.stop()
        wire = xiwvm.Wire()
        errors = []
        for i in range(2):
            d = os.path.join(self.workdir, f"guest{i}")
            os.makedirs(d, exist_ok=True)
            self.vms[i] = xiwvm.VM(d, modules=self.modules_for(self.series[i]),
                                   smp=SMP, mem_mb=MEM_MB,
                                   series=self.series[i], wire=wire.end(i))

        # What the guests could make at once (the same module tree, the
        # same initramfs when both boot one kernel) is made first.
        for vm in self.vms:
            vm.initramfs()
            vm.modroot()

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
        for i, vm in enumerate(self.vms):
            vm.run(f"""{{ [ -d /sys/module/virtio_net ] || modprobe virtio_net; }} &&
ip -batch - <<'E'
link set eth0 up
addr add {ADDR4[i]}/24 dev eth0
addr add {ADDR6[i]}/64 dev eth0 nodad
E""")
        # Both ends answer before a test starts: the link is up, the
        # link-local addresses passed duplicate detection, and neighbour
        # resolution works both ways, over IPv4 and IPv6.
        for i, vm in enumerate(self.vms):
            vm.run("i=0; while [ -n \"$(ip -6 addr show dev eth0 "
                   "tentative)\" ]; do i=$((i+1)); [ $i -lt 200 ] || "
                   "exit 1; sleep 0.05; done", timeout=60)
            for addr in (ADDR4[1 - i], ADDR6[1 - i]):
                vm.run(f"i=0; until busybox ping -c 1 -W 1 {addr} > /dev/null; do "
                       f"i=$((i+1)); [ $i -lt 30 ] || exit 1; done",
                       timeout=120)
        return self

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
