#!/usr/bin/env bash
# Build the test VM's initramfs: busybox-static, the modules of the target
# kernel (decompressed) that mounting the host root over virtio-9p (and,
# for xiwroot=overlay, a writable overlay on it) needs,
# with what they depend on (virtio itself on 6.1, where it is modular), in
# load order in /mod/order, and initramfs-init.
# Usage: mkinitramfs.sh KVER OUT [builtin]
# With "builtin" (the debug kernel, whose 9p is built in) no module is taken.
set -euo pipefail
kver=$1
out=$2
roots="virtio_pci 9pnet_virtio 9p overlay"
[ "${3:-}" = builtin ] && roots=""
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/bin" "$tmp/mod"
cp /bin/busybox "$tmp/bin/busybox"
cp "$here/initramfs-init" "$tmp/init"
chmod 755 "$tmp/init"
# take MODULE: its dependencies first, then itself (built-in ones: none).
take() {
	local m=$1 f d
	[ -e "$tmp/mod/$m.ko" ] && return
	f=$(modinfo -k "$kver" -n "$m")
	[ "$f" = "(builtin)" ] && return
	for d in $(modinfo -k "$kver" -F depends "$m" | tr ',' ' '); do
		take "$d"
	done
	case "$f" in
	*.xz) xz -dc "$f" >"$tmp/mod/$m.ko" ;;
	*.zst) zstd -dc "$f" >"$tmp/mod/$m.ko" ;;
	*) cp "$f" "$tmp/mod/$m.ko" ;;
	esac
	echo "$m" >>"$tmp/mod/order"
}
touch "$tmp/mod/order"
for m in $roots; do
	take "$m"
done
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
