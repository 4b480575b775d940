#!/usr/bin/env bash
# Build xiw.ko, xiwperf.ko and xiwtarget.ko against the debug kernel's tree
# (scripts/debug-kernel.sh, built first if missing) without touching the
# production build: Kbuild puts objects next to their sources, so the
# sources are linked into build/debug/tree/ in the repository's layout
# (tests/vm/xiwvm.py's module_path() finds the modules there). W=1 is the
# production build's business (make all); here warnings are shown only.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dbg=${XIW_VM_KERNEL:-$("$top/scripts/debug-kernel.sh")}
tree=$top/build/debug/tree
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
	nice -n 19 make -s -C "$dbg/build" M="$tree/$d" -j"$(nproc)" modules
done
echo "debug-kmod: modules for $(cat "$dbg/kver") in $tree" >&2
