#!/usr/bin/env bash
# Print the path of an extracted Debian linux-source-6.12 tree, extracting
# it (once per package version) into the cache: $XIW_CACHE, default
# /var/tmp/xiw-cache, outside any clone so that fresh clones reuse it.
set -euo pipefail
cache=${XIW_CACHE:-/var/tmp/xiw-cache}
tarball=${XIW_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
[ -f "$tarball" ] || { echo "linux-src: $tarball missing: run 'make setup'" >&2; exit 1; }
version=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || stat -c %Y "$tarball")
tree=$cache/linux-source-6.12
stamp=$cache/linux-source-6.12.version
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ ! -d "$tree" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$version" ]; then
	echo "linux-src: extracting $tarball ($version) into $cache" >&2
	rm -rf "$tree" "$stamp"
	tar -C "$cache" -xf "$tarball"
	echo "$version" >"$stamp"
fi
echo "$tree"
