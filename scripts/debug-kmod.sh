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
# shellcheck source=scripts/link-tree.sh
. "$top/scripts/link-tree.sh"
for d in $(link_tree "$top" "$tree"); do
	nice -n 19 make -s -C "$dbg/build" M="$d" -j"$(nproc)" modules
done
echo "debug-kmod: modules for $(cat "$dbg/kver") in $tree" >&2
