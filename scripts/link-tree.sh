# shellcheck shell=bash
# Sourced by kmod-for.sh and debug-kmod.sh.
#
# link_tree TOP TREE: make TREE a tree of links to the sources of xiw,
# xiwperf and xiwtarget in the repository's layout (uapi/, include/ and
# VERSION, which the Kbuild files reach by relative paths), so that Kbuild,
# which puts objects next to their sources, builds them for another kernel
# without touching the default build. Each module directory is linked anew
# each time: a source added or removed since is seen. Prints the module
# directories under TREE, one a line.
XIW_MODULE_DIRS="kmod tools/xiwperf/kmod tests/reliability/target"

link_tree() {
	local top=$1 tree=$2 d f
	mkdir -p "$tree"
	ln -sfn "$top/uapi" "$tree/uapi"
	ln -sfn "$top/include" "$tree/include"
	ln -sfn "$top/VERSION" "$tree/VERSION"
	for d in $XIW_MODULE_DIRS; do
		mkdir -p "$tree/$d"
		find "$tree/$d" -maxdepth 1 -type l -delete
		for f in "$top/$d"/*.c "$top/$d"/*.h "$top/$d/Kbuild"; do
			case "$f" in *.mod.c) continue ;; esac
			ln -s "$f" "$tree/$d/"
		done
		echo "$tree/$d"
	done
}
