#!/bin/sh
# Second stage of the xiw test VM, run by switch_root on the host's root.
# Kernel command line: xiwinit=<this file> xiwmodroot=<depmod -b tree>
# xiwmode=agent|shell xiwsrc=<repo top>, and xiwkmod=1 when the kernel's
# modules come in the share "xiwkmod" (the debug kernel). Sets up writable
# state, installs xiw.ko so that modprobe and "rdma link add" autoload
# find it, then starts the agent or an interactive shell.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
kver=$(uname -r)

mkdir -p /run/xiw/out /run/xiw/mod/upper /run/xiw/mod/work /run/netns
# What udev would make in a real system's /dev: bash's <(...) (DKMS uses
# it) needs /dev/fd.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e "/dev/${i#*:}" ] || ln -s "/proc/self/fd/${i%%:*}" "/dev/${i#*:}"
done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 xiwout /run/xiw/out
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null

# An overlay of writable scratch on the kernel's module directory. The
# debug kernel (xiwkmod=1; overlay built in) has its modules in a share of
# their own, and the host's /lib/modules no directory for its release: a
# tmpfs over /lib/modules gives the overlay a place.
grep -qw overlay /proc/filesystems || modprobe overlay
# The agent's virtio-serial port (virtio_console: built in on 6.12, a
# module on 6.1).
[ -d /sys/module/virtio_console ] || modprobe virtio_console
lower=/lib/modules/$kver
if [ -n "$xiwkmod" ]; then
	mkdir -p /run/xiw/kmod
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 xiwkmod /run/xiw/kmod
	mount -t tmpfs -o mode=0755 tmpfs /lib/modules
	mkdir -p /lib/modules/$kver
	lower=/run/xiw/kmod
fi
mount -t overlay overlay \
	-o lowerdir=$lower,upperdir=/run/xiw/mod/upper,workdir=/run/xiw/mod/work \
	/lib/modules/$kver || echo "guest-init: modules overlay failed"
# The host ran depmod over a tree holding the test modules (depmod over
# 9p takes most of a minute under TCG): take its index files and modules.
if [ -n "$xiwmodroot" ]; then
	cp "$xiwmodroot"/lib/modules/$kver/modules.* /lib/modules/$kver/
	cp -r "$xiwmodroot"/lib/modules/$kver/updates /lib/modules/$kver/
fi

hostname xiwvm
ip link set lo up
echo "guest-init: ready ($kver)"

if [ "$xiwmode" = shell ]; then
	cd "$xiwsrc" 2>/dev/null || cd /
	echo "xiw VM shell: xiw.ko installed, 'modprobe xiw' loads it; 'poweroff -f' leaves."
	setsid -c /bin/bash -i </dev/ttyS0 >/dev/ttyS0 2>&1
	poweroff -f
fi
exec /usr/bin/python3 "$xiwsrc/tests/vm/guest_agent.py"
