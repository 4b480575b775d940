#!/usr/bin/env bash
# Build the test VM's initramfs: busybox-static, the 9p modules of the
# target kernel (decompressed) and initramfs-init.
# Usage: mkinitramfs.sh KVER OUT [builtin]
# With "builtin" (the debug kernel, whose 9p is built in) no module is taken.
set -euo pipefail
kver=$1
out=$2
mods="netfs 9pnet 9pnet_virtio 9p"
[ "${3:-}" = builtin ] && mods=""
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/bin" "$tmp/mod"
cp /bin/busybox "$tmp/bin/busybox"
cp "$here/initramfs-init" "$tmp/init"
chmod 755 "$tmp/init"
for m in $mods; do
	f=$(modinfo -k "$kver" -n "$m")
	case "$f" in
	*.xz) xz -dc "$f" >"$tmp/mod/$m.ko" ;;
	*.zst) zstd -dc "$f" >"$tmp/mod/$m.ko" ;;
	*) cp "$f" "$tmp/mod/$m.ko" ;;
	esac
done
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
