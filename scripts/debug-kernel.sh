#!/usr/bin/env bash
# Print the directory of a ready debug kernel for the VM scenarios,
# building it first if the cache has none: Debian's linux-source-6.12
# (the tree scripts/linux-src.sh extracts) configured from
# x86_64_defconfig + kvm_guest.config + tests/vm/debug-kernel.config
# (KASAN, lockdep, atomic-sleep, debug objects, kmemleak, KFENCE and the
# drivers the scenarios use). The directory, in $XIW_CACHE (default
# /var/tmp/xiw-cache) and keyed by the fragment's hash and the source
# package's version, holds:
#   bzImage   the kernel QEMU boots (tests/vm/xiwvm.py: XIW_VM_KERNEL=DIR)
#   kver      its release (uname -r in the guest)
#   build/    the O= build tree: KDIR for out-of-tree modules
#   lib/modules/KVER  its modules, installed stripped
#   build-time  how long the build took: wall clock, and the CPU time of
#               make and the compilers (what an idle machine needs)
# Options: --config-only stops after the configuration is made and checked;
# --if-cached prints the directory only if it is ready (exit 1 if not);
# --print-dir prints where it is or would be, and builds nothing.
# The build runs under nice -n 19 with $XIW_DEBUG_JOBS jobs (default nproc).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${XIW_CACHE:-/var/tmp/xiw-cache}
frag=$top/tests/vm/debug-kernel.config
base="x86_64_defconfig kvm_guest.config"
mode=${1:-build}

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
	stat -c %Y "${XIW_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}")
key=$( (echo "$base $srcver"; cat "$frag") | sha256sum | cut -c1-12)
dir=$cache/debug-kernel-$key
if [ "$mode" = --print-dir ]; then
	echo "$dir"
	exit 0
fi
if [ -f "$dir/.ready" ]; then
	echo "$dir"
	exit 0
fi
[ "$mode" = --if-cached ] && exit 1

src=$("$top/scripts/linux-src.sh")
mkdir -p "$cache"
exec 9>"$cache/.debug-kernel-lock"
flock 9
if [ -f "$dir/.ready" ]; then	# built by another caller meanwhile
	echo "$dir"
	exit 0
fi
b=$dir/build
mkdir -p "$b"
kmake() { nice -n 19 make -C "$src" O="$b" "$@"; }
echo "debug-kernel: configuring $dir" >&2
kmake -s x86_64_defconfig >&2
(cd "$b" && "$src/scripts/kconfig/merge_config.sh" -m -O "$b" "$b/.config" \
	"$src/kernel/configs/kvm_guest.config" "$frag" >"$b/merge.log" 2>&1) || {
	cat "$b/merge.log" >&2; exit 1; }
kmake -s olddefconfig >&2
# Every line of the fragment must have taken effect: a dependency missing
# from it makes olddefconfig drop the option without a word.
bad=0
while read -r line; do
	case "$line" in
	CONFIG_*)
		grep -qxF "$line" "$b/.config" || {
			echo "debug-kernel: '$line' dropped: got '$(grep -E "^(# )?${line%%=*}[= ]" "$b/.config" || echo absent)'" >&2
			bad=1
		} ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		if grep -qE "^$opt=" "$b/.config"; then
			echo "debug-kernel: '$opt' should be off: got '$(grep -E "^$opt=" "$b/.config")'" >&2
			bad=1
		fi ;;
	esac
done <"$frag"
[ "$bad" -eq 0 ] || { echo "debug-kernel: the configuration lost options (see above)" >&2; exit 1; }
[ "$mode" = --config-only ] && { echo "$b/.config"; exit 0; }

jobs=${XIW_DEBUG_JOBS:-$(nproc)}
echo "debug-kernel: building (make -j$jobs under nice -n 19; log in $dir/build.log)" >&2
start=$(date +%s)
if ! kmake -j"$jobs" bzImage modules >"$dir/build.log" 2>&1; then
	tail -n 40 "$dir/build.log" >&2
	echo "debug-kernel: build failed; log in $dir/build.log" >&2
	exit 1
fi
kver=$(kmake -s kernelrelease)
rm -rf "$dir/lib/modules/$kver"
kmake INSTALL_MOD_PATH="$dir" INSTALL_MOD_STRIP=1 modules_install >>"$dir/build.log" 2>&1
cp "$b/arch/x86/boot/bzImage" "$dir/bzImage"
echo "$kver" >"$dir/kver"
end=$(date +%s)
# times: this shell's, then its children's user and system time. Run in
# this shell (into a file): in a command substitution it would report the
# subshell's children, none.
times >"$dir/times"
cpu=$(tail -n1 "$dir/times" | awk '{ split($1, u, "m"); split($2, s, "m");
	printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
echo "$((end - start)) s wall clock, $cpu s CPU (user + system), make -j$jobs" \
	"under nice -n 19 on $(nproc) CPUs (load average at the end:" \
	"$(cut -d' ' -f1-3 /proc/loadavg))" >"$dir/build-time"
touch "$dir/.ready"
echo "debug-kernel: built in $(cat "$dir/build-time")" >&2
echo "$dir"
