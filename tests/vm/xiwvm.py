"""Boot a Debian kernel (6.12, or 6.1 with XIW_KERNEL=6.1) in QEMU and run
commands inside it.

The guest sees the host's root file system read-only over virtio-9p (so
every host tool and /lib/modules are there), a writable share for results,
and xiw.ko installed where modprobe finds it. Commands go to a small agent
in the guest over virtio-serial (see guest_agent.py).
"""
import glob
import hashlib
import json
import os
import re
import shlex
import socket
import subprocess
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

# dmesg lines that fail any test: the kernel noticed a bug. Most of the
# debug kernel's checkers (scripts/debug-kernel.sh) start their reports
# with "WARNING:" (lockdep, debug objects) or "BUG:" (KASAN, KFENCE,
# sleeping in atomic context); the rest are named here.
BAD_DMESG = re.compile(
    r"WARNING:|BUG:|BUG kmalloc|Oops|KASAN|KFENCE|KCSAN|UBSAN|refcount_t|"
    r"list_del corruption|list_add corruption|general protection fault|"
    r"kernel panic|Call Trace:|unregister_netdevice: waiting|"
    r"sleeping function called from invalid context|"
    r"possible circular locking|possible recursive locking|"
    r"inconsistent lock state|lock held when returning|ODEBUG:|"
    r"suspected memory leak|unreferenced object|"
    r"memory leak detector disabled|"
    r"INFO: task .* blocked for more than|INFO: rcu_.* stall")


def debug_kernel():
    """The debug kernel's directory (scripts/debug-kernel.sh prints it)
    from $XIW_VM_KERNEL, or None: the guest then boots Debian's kernel."""
    return os.environ.get("XIW_VM_KERNEL") or None


# The test modules built against the debug kernel's tree (make
# debug-kmod): the same layout as the repository, so that a module's path
# below TOP maps to its debug build by the same relative path.
DEBUG_MODTREE = os.path.join(TOP, "build", "debug", "tree")


# The Debian kernel series the guest boots: $XIW_KERNEL, "6.12" (the
# default: the build in the source directories is for it) or "6.1"
# (bookworm's own LTS kernel).
KERNELS = ("6.12", "6.1")
DEFAULT_KERNEL = "6.12"


def kernel_series():
    series = os.environ.get("XIW_KERNEL") or DEFAULT_KERNEL
    if series not in KERNELS:
        raise RuntimeError(f"XIW_KERNEL={series}: one of {', '.join(KERNELS)}")
    return series


# Each function below that takes series (a Debian kernel series, one of
# KERNELS) answers for that kernel when it is given, and for the kernel
# the environment names ($XIW_VM_KERNEL, $XIW_KERNEL) when it is None: a
# guest pair may boot Debian's two kernels side by side (VM(series=)).


def module_tree(series=None):
    """Where this repository's modules for the booted kernel are built,
    in the repository's layout: TOP itself (make all) for the default
    kernel, build/debug/tree for the debug kernel (make debug-kmod),
    build/kernels/KVER/tree for another Debian kernel
    (scripts/kmod-for.sh KVER)."""
    if series is None and debug_kernel():
        return DEBUG_MODTREE
    if (series or kernel_series()) != DEFAULT_KERNEL:
        return os.path.join(TOP, "build", "kernels", target_kver(series),
                            "tree")
    return TOP


def module_path(path, series=None):
    """Where the build of the module at path (one of this repository's,
    e.g. TOP/kmod/xiw.ko) for the booted kernel is."""
    path = os.path.abspath(path)
    tree = module_tree(series)
    if tree != TOP and path.startswith(TOP + os.sep) and \
            not path.startswith(os.path.join(TOP, "build") + os.sep):
        return os.path.join(tree, os.path.relpath(path, TOP))
    return path


def build_modules(series=None):
    """Build this repository's modules for the booted kernel where make
    all does not (another Debian kernel than the default): up to date
    after this. The debug kernel's are make debug-kmod's business."""
    if series is None and debug_kernel():
        return
    if (series or kernel_series()) != DEFAULT_KERNEL:
        subprocess.run([os.path.join(TOP, "scripts", "kmod-for.sh"),
                        target_kver(series)], check=True,
                       stdout=subprocess.DEVNULL)


def timeout_scale():
    """What every command timeout and bounded poll is multiplied by:
    $XIW_TIMEOUT_SCALE, default 3 on the debug kernel (KASAN, lockdep and
    kmemleak make it several times slower under TCG), else 1."""
    forced = os.environ.get("XIW_TIMEOUT_SCALE")
    if forced:
        return float(forced)
    return 3.0 if debug_kernel() else 1.0


def scaled(seconds):
    return seconds * timeout_scale()


def target_kver(series=None):
    """The debug kernel's release, or $XIW_KVER, or the newest installed
    kernel of the series $XIW_KERNEL names (default 6.12); given series,
    the newest installed Debian kernel of that series."""
    if series is None and debug_kernel():
        with open(os.path.join(debug_kernel(), "kver")) as f:
            return f.read().strip()
    if series is None and os.environ.get("XIW_KVER"):
        return os.environ["XIW_KVER"]
    if series is None:
        series = kernel_series()
    elif series not in KERNELS:
        raise RuntimeError(f"kernel series {series}: one of "
                           f"{', '.join(KERNELS)}")
    found = sorted((os.path.basename(p)[len("vmlinuz-"):]
                    for p in glob.glob(f"/boot/vmlinuz-{series}.*")),
                   key=lambda v: [int(x) if x.isdigit() else x
                                  for x in re.split(r"(\d+)", v)])
    if not found:
        raise RuntimeError(f"no {series} kernel in /boot: run 'make setup'")
    return found[-1]


def probe_accel():
    """Use KVM only where a probe boot with it succeeds.

    /dev/kvm exists on the development machines but nested KVM fails with
    emulation errors, so the probe boots the real test VM with KVM once and
    keeps the verdict in $XIW_CACHE (per machine, per kernel) for later runs.
    """
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg"
    cache = os.environ.get("XIW_CACHE", "/var/tmp/xiw-cache")
    verdict = os.path.join(cache, f"accel-{target_kver()}")
    try:
        with open(verdict) as f:
            return f.read().strip()
    except OSError:
        pass
    workdir = os.path.join(TOP, "build", "vm", "kvm-probe")
    os.makedirs(workdir, exist_ok=True)
    result = "tcg"
    os.environ["XIW_VM_ACCEL"] = "kvm"
    try:
        vm = VM(workdir, modules=[])
        try:
            vm.start(timeout=45)
            if vm.run("echo ok", timeout=10).out.strip() == "ok":
                result = "kvm"
        finally:
            vm.stop()
    except Exception:
        pass
    finally:
        del os.environ["XIW_VM_ACCEL"]
    os.makedirs(cache, exist_ok=True)
    with open(verdict, "w") as f:
        f.write(result + "\n")
    return result


def free_udp_port():
    """A UDP port on the host's loopback that nothing is bound to now."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Wire:
    """An Ethernet segment between two guests: QEMU's socket netdev sends
    each frame the guest transmits as one UDP datagram to the other end's
    port on the host's loopback, and takes what arrives at its own. Nothing
    leaves the host. Frames are not lost by the host's loopback in itself,
    only when a receiving QEMU's socket buffer is full (as a switch drops
    on a full queue); what a lossy wire does comes from netem in the
    guests."""

    def __init__(self):
        a = free_udp_port()
        b = free_udp_port()
        while b == a:
            b = free_udp_port()
        self.ports = (a, b)

    def end(self, i):
        """The i-th (0 or 1) guest's end of the wire, for VM(wire=)."""
        return WireEnd(own=self.ports[i], peer=self.ports[1 - i],
                       mac=f"52:54:00:78:69:{i + 1:02x}")


@dataclass
class WireEnd:
    own: int
    peer: int
    mac: str

    def qemu_args(self):
        # Distinct MACs matter: two ends with QEMU's default MAC drop
        # each other's frames as their own.
        return ["-netdev", f"socket,id=wire,udp=127.0.0.1:{self.peer},"
                           f"localaddr=127.0.0.1:{self.own}",
                "-device", f"virtio-net-pci,netdev=wire,mac={self.mac}"]


@dataclass
class Result:
    rc: int
    out: str
    err: str

    def __str__(self):
        return f"rc={self.rc}\n--- stdout\n{self.out}--- stderr\n{self.err}"


class CommandFailed(AssertionError):
    pass


class VM:
    """One QEMU guest. Use as a context manager, or start()/stop()."""

    def __init__(self, workdir, modules=None, mem_mb=2048, smp=2,
                 mode="agent", extra_append="", disks=(), nvdimms=(),
                 root_overlay=False, series=None, wire=None):
        # series: boot Debian's kernel of that series, whatever the
        # environment says (see module_tree()); None: the environment's.
        self.series = series
        self.debug = debug_kernel() if series is None else None
        self.kver = target_kver(series)
        self.workdir = os.path.abspath(workdir)
        self.outdir = os.path.join(self.workdir, "out")
        self.modules = [module_path(m, series) for m in (
            modules if modules is not None else
            [os.path.join(TOP, "kmod", "xiw.ko")])]
        # A virtio NIC on an Ethernet segment shared with other guests
        # (a Port of a Wire): the guest's eth0.
        self.wire = wire
        self.mem_mb = mem_mb
        self.smp = smp
        self.mode = mode
        self.extra_append = extra_append
        # The whole root writable (a tmpfs overlay on the host's), for
        # scenarios that install software as on a real machine.
        self.root_overlay = root_overlay
        # Raw images the guest sees as virtio disks, /dev/vda first. QEMU
        # writes through to the image file (the host's page cache): what
        # the guest wrote to a disk survives QEMU's death.
        self.disks = list(disks)
        # Files the guest sees as NVDIMMs (ACPI NFIT, label-less: one raw
        # namespace each until ndctl reconfigures it). Guest stores go
        # straight to the file's pages (share=on): nothing is volatile
        # behind the guest's CPU caches, which TCG does not model anyway.
        self.nvdimms = list(nvdimms)
        self.console_log = os.path.join(self.workdir, "console.log")
        self.sock_path = os.path.join(self.workdir, "agent.sock")
        self.proc = None
        self.sock = None
        self.ready = False
        self.rbuf = b""
        self.next_id = 1

    # -- boot ---------------------------------------------------------
    def initramfs(self):
        cache = os.path.join(TOP, "build", "vm")
        os.makedirs(cache, exist_ok=True)
        path = os.path.join(cache, f"initramfs-{self.kver}.cpio.gz")
        deps = [os.path.join(HERE, "initramfs-init"),
                os.path.join(HERE, "mkinitramfs.sh")]
        if not os.path.exists(path) or any(
                os.path.getmtime(d) > os.path.getmtime(path) for d in deps):
            # The debug kernel has 9p built in: no module to take.
            subprocess.run([os.path.join(HERE, "mkinitramfs.sh"),
                            self.kver, path] +
                           (["builtin"] if self.debug else []),
                           check=True)
        return path

    def sysmoddir(self):
        """The booted kernel's module directory on the host."""
        if self.debug:
            return os.path.join(self.debug, "lib", "modules", self.kver)
        return f"/lib/modules/{self.kver}"

    def modroot(self):
        """A depmod -b tree: the kernel's modules plus self.modules.

        Rebuilt only when a test module is newer than the index. One tree
        per module set, built aside and renamed into place, so that test
        sessions booting different module sets at once do not clobber
        each other's tree.
        """
        key = hashlib.sha1("\n".join(sorted(
            os.path.abspath(m) for m in self.modules)).encode()).hexdigest()[:12]
        root = os.path.join(TOP, "build", "vm", f"modroot-{key}")
        kdir = os.path.join(root, "lib", "modules", self.kver)
        stamp = os.path.join(kdir, "modules.dep.bin")
        upd = os.path.join(kdir, "updates", "xiw")
        wanted = sorted(os.path.basename(m) for m in self.modules)
        have = sorted(os.listdir(upd)) if os.path.isdir(upd) else []
        if os.path.exists(stamp) and have == wanted and all(
                os.path.getmtime(m) <= os.path.getmtime(stamp)
                for m in self.modules):
            return root
        final = root
        root = f"{final}.tmp-{os.getpid()}"
        kdir = os.path.join(root, "lib", "modules", self.kver)
        upd = os.path.join(kdir, "updates", "xiw")
        subprocess.run(["rm", "-rf", root], check=True)
        os.makedirs(upd)
        sysdir = self.sysmoddir()
        os.symlink(os.path.join(sysdir, "kernel"),
                   os.path.join(kdir, "kernel"))
        for f in glob.glob(os.path.join(sysdir, "modules.builtin*")) + \
                [os.path.join(sysdir, "modules.order")]:
            subprocess.run(["cp", f, kdir], check=True)
        for m in self.modules:
            subprocess.run(["cp", m, upd], check=True)
        subprocess.run(["depmod", "-b", root, self.kver], check=True)
        old = f"{final}.old-{os.getpid()}"
        if os.path.exists(final):
            os.rename(final, old)
        os.rename(root, final)
        subprocess.run(["rm", "-rf", old], check=True)
        return final

    def accel(self):
        """kvm or tcg: $XIW_VM_ACCEL if set, else the cached probe result."""
        forced = os.environ.get("XIW_VM_ACCEL")
        if forced in ("kvm", "tcg"):
            return forced
        return probe_accel()

    def qemu_argv(self):
        accel = self.accel()
        append = " ".join([
            "console=ttyS0", "panic=-1", "loglevel=4",
            f"xiwinit={HERE}/guest-init.sh",
            f"xiwsrc={TOP}",
            f"xiwmode={self.mode}",
            f"xiwmodroot={self.modroot()}",
            # Every KASAN report, not only the boot's first.
            "kasan_multi_shot" if self.debug else "",
            # TCG's "-cpu max" offers 5-level paging; the debug kernel then
            # now and then reports a wild access in identify_cpu() before
            # anything of ours ran (twice, 2026-11-26/27): 4-level paging
            # and a fixed layout for it.
            "no5lvl nokaslr" if self.debug else "",
            # The debug kernel's modules come in their own share: the
            # host's /lib/modules has none for its release.
            "xiwkmod=1" if self.debug else "",
            "xiwroot=overlay" if self.root_overlay else "",
            self.extra_append,
        ])
        kernel = os.path.join(self.debug, "bzImage") if self.debug \
            else f"/boot/vmlinuz-{self.kver}"
        argv = [
            "qemu-system-x86_64", "-nodefaults", "-no-reboot",
            "-display", "none",
            "-m", self.memory_arg(), "-smp", str(self.smp),
            "-kernel", kernel,
            "-initrd", self.initramfs(),
            "-append", append,
            "-virtfs", "local,path=/,mount_tag=hostroot,readonly=on,"
                       "multidevs=remap,security_model=none",
            "-virtfs", f"local,path={self.outdir},mount_tag=xiwout,"
                       "multidevs=remap,security_model=none",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=agent,path={self.sock_path},"
                        "server=on,wait=off",
            "-device", "virtserialport,chardev=agent,name=xiw.agent",
        ]
        if self.debug:
            argv += ["-virtfs", f"local,path={self.sysmoddir()},"
                                "mount_tag=xiwkmod,readonly=on,"
                                "multidevs=remap,security_model=none"]
        if self.wire:
            argv += self.wire.qemu_args()
        for d in self.disks:
            argv += ["-drive", f"file={d},if=virtio,format=raw,"
                               "cache=writeback"]
        if self.nvdimms:
            argv += ["-machine", "pc,nvdimm=on"]
        for i, path in enumerate(self.nvdimms):
            argv += ["-object", f"memory-backend-file,id=nvmem{i},share=on,"
                                f"mem-path={path},size={os.path.getsize(path)}",
                     "-device", f"nvdimm,id=nvdimm{i},memdev=nvmem{i}"]
        if accel == "kvm":
            argv += ["-accel", "kvm", "-cpu", "host"]
        else:
            # One host thread per vCPU, unless $XIW_VM_TCG_THREAD says
            # "single" (all vCPUs in one thread, taking turns: what lets
            # make integration run two guests on two host cores).
            thread = os.environ.get("XIW_VM_TCG_THREAD", "multi")
            argv += ["-accel", f"tcg,thread={thread}", "-cpu", "max"]
        if self.mode == "shell":
            argv += ["-serial", "mon:stdio"]
        else:
            argv += ["-serial", f"file:{self.console_log}"]
        return argv

    def memory_arg(self):
        """-m: the RAM, and room for the NVDIMMs beside it."""
        if not self.nvdimms:
            return str(self.mem_mb)
        extra = sum(os.path.getsize(p) for p in self.nvdimms) >> 20
        return (f"{self.mem_mb}M,slots={len(self.nvdimms)},"
                f"maxmem={self.mem_mb + extra}M")

    def start(self, timeout=240):
        """Boot; a kernel that panics before the agent is up (rare under
        TCG: an int3 while the boot patches its own text) boots once more,
        its console kept as console.log.panic. Nothing of xiw runs before
        the agent: a panic after it is never retried."""
        timeout = scaled(timeout)
        try:
            return self._boot(timeout)
        except (RuntimeError, TimeoutError):
            console = self.console()
            if self.ready or "Kernel panic" not in console:
                raise
            self.stop()
            os.replace(self.console_log, self.console_log + ".panic")
            print("xiwvm: the guest kernel panicked while booting; "
                  "booting again", flush=True)
            return self._boot(timeout)

    def _boot(self, timeout):
        os.makedirs(self.outdir, exist_ok=True)
        for p in (self.sock_path, self.console_log):
            if os.path.exists(p):
                os.unlink(p)
        self.proc = subprocess.Popen(self.qemu_argv(),
                                     stdin=subprocess.DEVNULL,
                                     stdout=open(os.path.join(
                                         self.workdir, "qemu.log"), "wb"),
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:
            self._check_qemu()
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(self.sock_path)
                break
            except OSError:
                self.sock.close()
                self.sock = None
                if time.monotonic() > deadline:
                    raise RuntimeError("QEMU agent socket never appeared")
                time.sleep(0.1)
        msg = self._recv(deadline)
        if not msg.get("ready"):
            raise RuntimeError(f"unexpected first agent message {msg}")
        self.ready = True
        return self

    def _check_qemu(self):
        """Raise if QEMU exited, or stopped on a KVM emulation failure (it
        then hangs rather than exits)."""
        if self.proc.poll() is not None:
            raise RuntimeError("QEMU exited:\n" + self.console()[-4000:])
        try:
            with open(os.path.join(self.workdir, "qemu.log"),
                      errors="replace") as f:
                log = f.read()
        except OSError:
            return
        if "KVM internal error" in log or "emulation failure" in log:
            raise RuntimeError("QEMU: KVM failed:\n" + log[-2000:])

    def _recv(self, deadline):
        while b"\n" not in self.rbuf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the VM agent:\n" +
                                   self.console()[-4000:])
            self.sock.settimeout(min(left, 1.0))
            try:
                chunk = self.sock.recv(1 << 20)
            except socket.timeout:
                self._check_qemu()
                continue
            if not chunk:
                raise RuntimeError("VM agent closed the connection:\n" +
                                   self.console()[-4000:])
            self.rbuf += chunk
        line, self.rbuf = self.rbuf.split(b"\n", 1)
        return json.loads(line)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.proc is None:
            return
        if self.alive() and self.ready:
            try:
                self.run("sync; poweroff -f", timeout=5, check=False)
            except Exception:
                pass
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        if self.alive():
            self.proc.kill()
        self.proc.wait()
        if self.sock:
            self.sock.close()
            self.sock = None
        self.proc = None
        self.ready = False

    def kill(self):
        """Power cut: SIGKILL QEMU, the guest given no chance to write
        anything more to its disks."""
        if self.proc is not None:
            self.proc.kill()
        self.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def console(self):
        try:
            with open(self.console_log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    # -- commands -----------------------------------------------------
    def run(self, cmd, timeout=120, check=True):
        """Run shell text in the guest; return a Result.

        With check, a non-zero exit raises CommandFailed carrying the output.
        The timeout is multiplied by timeout_scale().
        """
        timeout = scaled(timeout)
        req_id = self.next_id
        self.next_id += 1
        req = {"id": req_id, "cmd": cmd, "timeout": timeout}
        self.sock.sendall(json.dumps(req).encode() + b"\n")
        deadline = time.monotonic() + timeout + 30
        ans = self._recv(deadline)
        # The late answer to an earlier request whose wait ran out (that
        # run() raised TimeoutError) is not this one's.
        while isinstance(ans.get("id"), int) and ans["id"] < req_id:
            ans = self._recv(deadline)
        if ans.get("id") != req_id:
            raise RuntimeError(f"agent answered {ans} to request {req_id}")
        res = Result(ans["rc"], ans["out"], ans["err"])
        if check and res.rc != 0:
            raise CommandFailed(f"guest command failed: {cmd}\n{res}")
        return res

    def ns(self, netns, cmd, **kw):
        """Run shell text inside network namespace netns."""
        return self.run(f"ip netns exec {netns} sh -c {shlex.quote(cmd)}",
                        **kw)

    # -- kernel log -----------------------------------------------------
    def dmesg(self):
        return self.run("dmesg", timeout=30).out

    def new_dmesg(self):
        """Kernel log lines printed since the previous call (read and clear)."""
        return self.run("dmesg -c", timeout=30).out.splitlines()

    @staticmethod
    def bad_lines(lines):
        return [ln for ln in lines if BAD_DMESG.search(ln)]
