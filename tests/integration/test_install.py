"""Installing xiw as an administrator does, on a root with none of it: the
Debian packages (make deb) with dpkg, and make install into a staging
root (DESTDIR) copied in. Each in a guest of its own whose whole root is
writable (xiwroot=overlay: a tmpfs overlay on the host's, thrown away at
power-off) and which boots with no test module: the module that loads is
the one the installation put there, found by modprobe and by rdma link
add's autoload.

One check serves both: the module comes from where the installation put
it, xiwctl runs from the installed path and lists the device, its man
page and libxiw's pkg-config file are found, a program including
xiwdv.h builds with its pkg-config flags, and rping moves verified
data (Send, RDMA Read, RDMA Write, -V) between two namespaces through the
installed libibverbs provider. Removal then leaves no module and no file.
"""
import glob
import os
import re
import subprocess

import pytest

import xiwvm
from conftest import TOP, rping_verified, two_hosts

DEB_DIR = os.path.join(TOP, "build", "deb")
STAGE = os.path.join(TOP, "build", "install-stage")
PACKAGES = ["xiw-dkms", "libxiw0", "libxiw-dev", "xiw-tools",
            "ibverbs-provider-xiw"]


def fresh_root(name):
    vm = xiwvm.VM(os.path.join(TOP, "build", "vm", name), modules=[],
                  root_overlay=True)
    vm.start()
    return vm


def nothing_of_xiw(vm):
    """What an installation adds is absent."""
    res = vm.run("find /lib/modules/$(uname -r) -name 'xiw*.ko*'; "
                 "ls -d /usr/src/xiw-* /usr/bin/xiwctl /usr/local/bin/xiwctl "
                 "/usr/share/xiw /usr/local/share/xiw "
                 "/etc/libibverbs.d/xiw.driver 2>/dev/null; "
                 "ls /usr/lib/x86_64-linux-gnu/libibverbs /usr/local/lib/libibverbs "
                 "2>/dev/null | grep xiw; true")
    return res.out.strip()


def exercise(vm, xiwctl, module):
    """The installed xiw at work (see the module's docstring)."""
    two_hosts(vm)
    vm.run("ip netns exec a rdma link add xiw0 type xiw netdev v0 && "
           "ip netns exec b rdma link add xiw1 type xiw netdev v1 && "
           "modprobe ib_uverbs && modprobe rdma_ucm")
    # The module autoloaded is the installed file, not one of the tree's
    # (DKMS on Debian compresses it: xiw.ko.xz).
    path = vm.run("modinfo -F filename xiw").out.strip()
    assert re.fullmatch(re.escape(module) + r"(\.xz|\.zst)?", path), path
    assert vm.run("cat /sys/module/xiw/srcversion").out.strip() == \
        vm.run(f"modinfo -F srcversion {path}").out.strip()
    assert vm.run("command -v xiwctl").out.strip() == xiwctl
    out = vm.run("xiwctl -j dev show").out
    assert '"xiw0"' in out and '"xiw1"' in out, out
    assert vm.run("man -w xiwctl").rc == 0
    # The schema of its JSON, next to the binary's prefix.
    share = os.path.join(os.path.dirname(os.path.dirname(xiwctl)), "share")
    assert '"$id"' in vm.run(f"cat {share}/xiw/xiwctl.schema.json").out
    assert "-lxiw" in vm.run("pkg-config --libs libxiw").out.split()
    # xiwdv.h: its man pages, and a program built with its pkg-config
    # flags alone (the provider not loaded: no xiw QP to find).
    assert vm.run("man -w xiwdv_wr_flush").rc == 0
    vm.run("printf '#include <infiniband/xiwdv.h>\\nint main(void) "
           "{ return xiwdv_qp_ex_from_ibv_qp_ex(0) != 0; }\\n' > /tmp/dv.c "
           "&& cc -Wall -Werror -o /tmp/dv /tmp/dv.c "
           "$(pkg-config --cflags --libs xiwdv) && /tmp/dv")
    rping_verified(vm, 5)
    vm.run("rdma link delete xiw0 && rdma link delete xiw1 && "
           "rmmod rdma_ucm ib_uverbs; rmmod xiw")


@pytest.fixture(scope="module")
def debs():
    """The packages, built from this tree (make deb)."""
    subprocess.run(["make", "--no-print-directory", "deb"], cwd=TOP,
                   check=True, stdout=subprocess.DEVNULL)
    found = {}
    for p in PACKAGES:
        m = glob.glob(os.path.join(DEB_DIR, f"{p}_*.deb"))
        assert len(m) == 1, (p, m)
        found[p] = m[0]
    return found


def test_debian_packages_install_work_and_remove_without_a_trace(debs):
    vm = fresh_root("install-deb")
    try:
        assert nothing_of_xiw(vm) == ""
        # DKMS builds for every installed kernel with headers: here only
        # the one running (each build takes minutes under TCG).
        vm.run("for d in /lib/modules/*; do [ \"${d##*/}\" = $(uname -r) ] "
               "|| rm -f \"$d/build\"; done")
        res = vm.run("DEBIAN_FRONTEND=noninteractive dpkg -i " +
                     " ".join(debs[p] for p in PACKAGES), timeout=1800,
                     check=False)
        assert res.rc == 0, res.err[-4000:]
        assert "installed" in vm.run("dkms status xiw").out
        kver = vm.run("uname -r").out.strip()
        exercise(vm, "/usr/bin/xiwctl",
                 f"/lib/modules/{kver}/updates/dkms/xiw.ko")
        files = vm.run("dpkg -L " + " ".join(PACKAGES)).out.split()
        vm.run("dpkg -r " + " ".join(PACKAGES), timeout=600)
        # Every file is gone but the provider's driver file, a conffile
        # (under /etc), which purging takes.
        left = vm.run("for f in " + " ".join(files) +
                      "; do [ -f \"$f\" ] && echo \"$f\"; done; true").out.split()
        assert left == ["/etc/libibverbs.d/xiw.driver"], left
        vm.run("dpkg --purge " + " ".join(PACKAGES), timeout=600)
        assert nothing_of_xiw(vm) == ""
        assert vm.run("dkms status xiw").out.strip() == ""
    finally:
        vm.stop()


def test_make_install_with_destdir_installs_works_and_uninstalls():
    """make install DESTDIR=build/install-stage on the host (what a
    packager does), the staged root unpacked into the guest's, then make
    uninstall there, from the manifest the install wrote."""
    subprocess.run(["rm", "-rf", STAGE,
                    os.path.join(TOP, "build", "install-manifest.txt")],
                   check=True)
    subprocess.run(["make", "--no-print-directory", "install",
                    f"DESTDIR={STAGE}"], cwd=TOP, check=True,
                   stdout=subprocess.DEVNULL)
    vm = fresh_root("install-destdir")
    try:
        assert nothing_of_xiw(vm) == ""
        kver = vm.run("uname -r").out.strip()
        stage_kver = os.listdir(os.path.join(STAGE, "lib", "modules"))
        assert stage_kver == [kver], stage_kver
        # Into the root as it is: /lib is a link to usr/lib (merged /usr).
        vm.run(f"tar -C {STAGE} -cf - . | tar -C / -xf - --keep-directory-symlink"
               " && depmod -a && ldconfig", timeout=600)
        exercise(vm, "/usr/local/bin/xiwctl",
                 f"/lib/modules/{kver}/updates/xiw.ko")
        vm.run(f"make -C {TOP} --no-print-directory uninstall",
               timeout=600)
        assert nothing_of_xiw(vm) == ""
        assert vm.run("ls /usr/local/lib | grep xiw; "
                      "ls /usr/local/lib/cmake 2>/dev/null | grep xiw; "
                      "ls /usr/local/include | grep xiw; true").out == ""
    finally:
        vm.stop()
