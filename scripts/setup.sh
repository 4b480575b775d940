#!/usr/bin/env bash
# Install everything xiw needs on a Debian bookworm machine, idempotently.
# Fast no-op when all is in place: it asks dpkg first and only runs apt when something is missing.
set -euo pipefail

KVER_PKG_SUITE=bookworm-backports
# Packages that must come from bookworm-backports (the 6.12 kernel).
BPO_PKGS=(linux-image-amd64 linux-headers-amd64 linux-source-6.12)
# Everything else, from bookworm itself.
PKGS=(
	build-essential bc bison flex libelf-dev libssl-dev kmod cpio xz-utils
	qemu-system-x86 busybox-static
	rdma-core ibverbs-utils rdmacm-utils perftest libibverbs-dev librdmacm-dev
	python3-pyverbs
	libnl-3-dev libnl-genl-3-dev libnl-route-3-dev pkg-config
	cmake g++ googletest libgtest-dev libgmock-dev nlohmann-json3-dev
	python3 python3-pytest python3-jsonschema tshark sparse iproute2 procps
	clang-tidy
	nfs-kernel-server ndctl targetcli-fb python3-rtslib-fb open-iscsi
	iperf3 gnuplot-nox nvme-cli fio qperf
	dkms dh-dkms debhelper fakeroot lintian
)
# Bookworm's own 6.1 LTS kernel, image, headers and source, which xiw
# also builds and runs on (XIW_KERNEL=6.1): the newest of the archive.
# Its package names carry the ABI number, which the security updates
# raise: they are looked up only when no 6.1 kernel is installed.
have_61() {
	compgen -G '/boot/vmlinuz-6.1.[0-9]*-amd64' >/dev/null &&
		compgen -G '/usr/src/linux-headers-6.1.[0-9]*-amd64' >/dev/null &&
		[ -f /usr/src/linux-source-6.1.tar.xz ]
}
pkgs_61() {
	local v
	v=$(apt-cache madison linux-image-amd64 | awk '$3 ~ /^6\.1\./ { print $3; exit }')
	[ -n "$v" ] || { echo "setup: no 6.1 linux-image-amd64 in the archive" >&2; exit 1; }
	apt-cache show "linux-image-amd64=$v" "linux-headers-amd64=$v" |
		sed -n 's/^Depends: \(linux-\(image\|headers\)-6\.1\.[^ ,]*\).*/\1/p'
	echo linux-source-6.1
}

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: must run as root to install packages: $*" >&2
		exit 1
	fi
}

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

bpo_missing=()
for p in "${BPO_PKGS[@]}"; do
	v=$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null || true)
	case "$v" in
	"install ok installed 6.12"*) ;;
	*) bpo_missing+=("$p") ;;
	esac
done

if [ ${#missing[@]} -eq 0 ] && [ ${#bpo_missing[@]} -eq 0 ] && have_61; then
	exit 0
fi

need_root "${missing[@]}" "${bpo_missing[@]}"
export DEBIAN_FRONTEND=noninteractive

# Add bookworm-backports from the archive host apt already uses, if it is not configured.
if ! grep -rqs "$KVER_PKG_SUITE" /etc/apt/sources.list /etc/apt/sources.list.d/; then
	host=$(grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
		grep -v security | head -n1 | tr -d ' ' || true)
	host=${host:-http://deb.debian.org/debian}
	cat >/etc/apt/sources.list.d/xiw-bookworm-backports.sources <<SRC
Types: deb
URIs: ${host%/}
Suites: $KVER_PKG_SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

apt-get update -q
if [ ${#bpo_missing[@]} -gt 0 ]; then
	apt-get install -y -q --no-install-recommends -t "$KVER_PKG_SUITE" "${bpo_missing[@]}"
fi
if [ ${#missing[@]} -gt 0 ]; then
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if ! have_61; then
	mapfile -t k61 < <(pkgs_61)
	apt-get install -y -q --no-install-recommends "${k61[@]}"
fi
