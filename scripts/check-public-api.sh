#!/usr/bin/env bash
# libxiw as a third party sees it (issue 29): install it from the CMake
# build dir $1 into a scratch root (DESTDIR, its configured prefix under
# it), build examples/xiw-devices against that installation alone, through pkg-config and through find_package(xiw),
# run it, and check that the library exports nothing but the public API
# (namespace xiw, outside the private xiw::nl, xiw::xiw_nl and
# xiw::rdma_nl; the C++ runtime's vague-linkage symbols aside). KEEP=1
# leaves the scratch directory for a look.
set -euo pipefail
build=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
root=$tmp/root
configured=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
prefix=$root$configured

for c in lib dev; do
	DESTDIR=$root cmake --install "$build" --component "$c" >/dev/null
done
# Only the public headers are installed (and the family's uapi header).
headers=$(find "$prefix/include/xiw" -type f -printf '%P\n' | sort | tr '\n' ' ')
want="export.hpp rdma_link.hpp result.hpp uapi/xiw_netlink.h version.hpp xiw_events.hpp xiw_netlink.hpp "
if [ "$headers" != "$want" ]; then
	echo "installed headers: $headers; want: $want" >&2
	exit 1
fi
libdir=$(dirname "$(find "$prefix" -name 'libxiw.so' | head -n1)")

cp -r "$top/examples/xiw-devices" "$tmp/src"
# pkg-config finds a staged installation through its sysroot.
PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$libdir/pkgconfig \
	make -s -C "$tmp/src" CXXFLAGS="-O1 -Wall -Wextra -Werror"
cmake -S "$tmp/src" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cmake" >/dev/null
for exe in "$tmp/src/xiw-devices" "$tmp/cmake/xiw-devices"; do
	# Without xiw loaded it says so and exits 1; either way it ran.
	out=$(LD_LIBRARY_PATH=$libdir "$exe" 2>&1) || true
	case $out in
	"libxiw "*) ;;
	*) echo "$exe: $out" >&2; exit 1 ;;
	esac
	# It runs against the scratch installation's library.
	libs=$(LD_LIBRARY_PATH=$libdir ldd "$exe")
	if ! grep -q "$libdir/libxiw.so" <<<"$libs"; then
		echo "$exe does not use $libdir/libxiw.so" >&2
		exit 1
	fi
done

bad=$(nm -D --defined-only -C "$libdir/libxiw.so" | cut -d' ' -f3- |
	grep -vE '^(std::|typeinfo (name )?for std::|vtable for std::|void std::)' |
	grep -vE '^xiw::' || true)
private=$(nm -D --defined-only -C "$libdir/libxiw.so" | cut -d' ' -f3- |
	grep -E '^xiw::(nl|xiw_nl|rdma_nl)::' || true)
if [ -n "$bad$private" ]; then
	printf 'libxiw.so exports more than its public API:\n%s\n%s\n' "$bad" "$private" >&2
	exit 1
fi
echo "public API: $(nm -D --defined-only "$libdir/libxiw.so" | grep -c ' T ') functions exported, example built both ways"
