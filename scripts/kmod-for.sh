#!/usr/bin/env bash
# kmod-for.sh KVER [KDIR]: build xiw.ko, xiwperf.ko and xiwtarget.ko for
# the kernel KVER (headers at KDIR, default /usr/src/linux-headers-KVER)
# without touching the default build in the source directories: Kbuild
# puts objects next to their sources, so the sources are linked into
# build/kernels/KVER/tree/ in the repository's layout (tests/vm/xiwvm.py's
# module_path() finds the modules there when the guest boots KVER).
# Held to the default build's standard: W=1, and any compiler or
# kernel-doc warning fails. Prints the tree's path.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?usage: kmod-for.sh KVER [KDIR]}
kdir=${2:-/usr/src/linux-headers-$kver}
[ -d "$kdir" ] || { echo "kmod-for: no kernel headers at '$kdir'" >&2; exit 1; }
tree=$top/build/kernels/$kver/tree
mkdir -p "$tree"
ln -sfn "$top/uapi" "$tree/uapi"
ln -sfn "$top/include" "$tree/include"
ln -sfn "$top/VERSION" "$tree/VERSION"
for d in kmod tools/xiwperf/kmod tests/reliability/target; do
	mkdir -p "$tree/$d"
	# Links anew each time: a source added or removed since is seen.
	find "$tree/$d" -maxdepth 1 -type l -delete
	for f in "$top/$d"/*.c "$top/$d"/*.h "$top/$d/Kbuild"; do
		case "$f" in *.mod.c) continue ;; esac
		ln -s "$f" "$tree/$d/"
	done
	log=$tree/$d/build.log
	make -C "$kdir" M="$tree/$d" W=1 -j"$(nproc)" modules >"$log" 2>&1 || {
		cat "$log" >&2
		echo "kmod-for: $d failed to build for $kver" >&2
		exit 1
	}
	if grep -E 'warning:|error:' "$log" >&2; then
		echo "kmod-for: $d: warnings above ($kver)" >&2
		exit 1
	fi
done
echo "$tree"
