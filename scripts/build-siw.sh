#!/usr/bin/env bash
# Build the stock soft-iWARP driver (siw.ko) out of tree for the target
# kernel ($KVER, default the newest 6.12 headers) and print the path of
# the module. Debian's configs (6.1 and 6.12) leave CONFIG_RDMA_SIW off;
# the tests use siw as a reference iWARP device.
#
# Only drivers/infiniband/sw/siw is taken from the kernel series' source
# (/usr/src/linux-source-6.12 or -6.1) into the cache ($XIW_CACHE, default
# /var/tmp/xiw-cache), never into the repository. The build is redone when
# the source or headers package version changes; otherwise the cached
# siw.ko is printed at once.
set -euo pipefail
cache=${XIW_CACHE:-/var/tmp/xiw-cache}
kver=${KVER:-$(ls -d /usr/src/linux-headers-6.12*-amd64 2>/dev/null |
	sed 's|.*/linux-headers-||' | sort -V | tail -n1)}
kdir=${KDIR:-/usr/src/linux-headers-$kver}
series=$(echo "$kver" | cut -d. -f1-2)
tarball=${XIW_LINUX_SOURCE:-/usr/src/linux-source-$series.tar.xz}
[ -f "$tarball" ] || { echo "build-siw: $tarball missing: run 'make setup'" >&2; exit 1; }
[ -d "$kdir" ] || { echo "build-siw: no kernel headers at '$kdir': run 'make setup'" >&2; exit 1; }

srcver=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null || stat -c %Y "$tarball")
hdrver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null || stat -c %Y "$kdir/Makefile")
version="$srcver $kver $hdrver"
dir=$cache/siw-build-$kver
stamp=$dir/.version
ko=$dir/siw.ko

mkdir -p "$cache"
exec 9>"$cache/.siw-lock"
flock 9
if [ ! -f "$ko" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$version" ]; then
	echo "build-siw: building siw.ko for $kver from $tarball ($srcver)" >&2
	rm -rf "$dir"
	mkdir -p "$dir.tmp"
	tar -C "$dir.tmp" -xf "$tarball" --wildcards \
		'linux-source-'"$series"'/drivers/infiniband/sw/siw/*'
	mv "$dir.tmp/linux-source-$series/drivers/infiniband/sw/siw" "$dir"
	rm -rf "$dir.tmp"
	make -C "$kdir" M="$dir" CONFIG_RDMA_SIW=m modules >"$dir/build.log" 2>&1 || {
		cat "$dir/build.log" >&2
		echo "build-siw: build failed" >&2
		exit 1
	}
	[ -f "$ko" ] || { echo "build-siw: no $ko after the build" >&2; exit 1; }
	echo "$version" >"$stamp"
fi
echo "$ko"
