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
# shellcheck source=scripts/link-tree.sh
. "$top/scripts/link-tree.sh"
for d in $(link_tree "$top" "$tree"); do
	log=$d/build.log
	make -C "$kdir" M="$d" W=1 -j"$(nproc)" modules >"$log" 2>&1 || {
		cat "$log" >&2
		echo "kmod-for: ${d#"$tree"/} failed to build for $kver" >&2
		exit 1
	}
	if grep -E 'warning:|error:' "$log" >&2; then
		echo "kmod-for: ${d#"$tree"/}: warnings above ($kver)" >&2
		exit 1
	fi
done
echo "$tree"
