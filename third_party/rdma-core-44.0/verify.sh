#!/bin/bash
# Check (or, with --refresh, rewrite) the files vendored here from rdma-core
# v44.0 against an rdma-core source: the upstream files byte for byte, and the
# generated kernel-abi/ header as rdma-core's own generator writes it.
#
#   third_party/rdma-core-44.0/verify.sh [--refresh] RDMA_CORE
#
# RDMA_CORE is a git repository of https://github.com/linux-rdma/rdma-core
# holding tag v44.0 (a clone, or a bare mirror such as
# /work/.mirror/linux-rdma+rdma-core/repo), or an unpacked rdma-core-44.0
# release tarball. Needs git (for a repository) and python3.
# xiw's own files here (README.md, verify.sh, xiw-config/) are not checked.
set -euo pipefail

TAG=v44.0
COMMIT=91392a91eb41affee3bd75dc7d03eb86b4854aea
HERE=$(cd "$(dirname "$0")" && pwd)

# Vendored path (relative to this directory) <- upstream path. The include/
# layout is the one rdma-core's build gives its providers in build/include/
# (publish_internal_headers() in libibverbs/, ccan/, util/, kernel-headers/).
FILES=(
	include/infiniband/driver.h:libibverbs/driver.h
	include/infiniband/kern-abi.h:libibverbs/kern-abi.h
	include/infiniband/cmd_ioctl.h:libibverbs/cmd_ioctl.h
	include/infiniband/cmd_write.h:libibverbs/cmd_write.h
	include/ccan/build_assert.h:ccan/build_assert.h
	include/ccan/check_type.h:ccan/check_type.h
	include/ccan/container_of.h:ccan/container_of.h
	include/ccan/list.h:ccan/list.h
	include/ccan/str.h:ccan/str.h
	include/ccan/str_debug.h:ccan/str_debug.h
	include/ccan/LICENSE.CCO:ccan/LICENSE.CCO
	include/ccan/LICENSE.MIT:ccan/LICENSE.MIT
	include/util/compiler.h:util/compiler.h
	include/rdma/ib_user_verbs.h:kernel-headers/rdma/ib_user_verbs.h
	include/rdma/ib_user_ioctl_cmds.h:kernel-headers/rdma/ib_user_ioctl_cmds.h
	include/rdma/rdma_user_ioctl_cmds.h:kernel-headers/rdma/rdma_user_ioctl_cmds.h
	COPYING.md:COPYING.md
	COPYING.BSD_MIT:COPYING.BSD_MIT
	COPYING.GPL2:COPYING.GPL2
)
# Generated: vendored path <- kernel header it is made from, by
# buildlib/make_abi_structs.py run in kernel-headers/ as rdma-core's
# kernel-headers/CMakeLists.txt (rdma_kernel_provider_abi) runs it.
GENERATED=(
	include/kernel-abi/ib_user_verbs.h:rdma/ib_user_verbs.h
)

refresh=0
if [ "${1:-}" = --refresh ]; then refresh=1; shift; fi
[ $# -eq 1 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
src=$1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/up" "$tmp/want"

paths=(buildlib/make_abi_structs.py)
for m in "${FILES[@]}"; do paths+=("${m#*:}"); done
for m in "${GENERATED[@]}"; do paths+=("kernel-headers/${m#*:}"); done

if git -C "$src" rev-parse -q --verify "$TAG^{commit}" >/dev/null 2>&1; then
	got=$(git -C "$src" rev-parse "$TAG^{commit}")
	[ "$got" = "$COMMIT" ] || { echo "$src: $TAG is $got, not $COMMIT" >&2; exit 1; }
	git -C "$src" archive "$TAG" "${paths[@]}" | tar -x -C "$tmp/up"
else
	grep -q 'set(PACKAGE_VERSION "44.0")' "$src/CMakeLists.txt" ||
		{ echo "$src: neither a git repository with $TAG nor an rdma-core 44.0 tree" >&2; exit 1; }
	(cd "$src" && printf '%s\n' "${paths[@]}" | sort -u | xargs cp --parents -t "$tmp/up/")
fi

for m in "${FILES[@]}"; do
	mkdir -p "$tmp/want/$(dirname "${m%%:*}")"
	cp "$tmp/up/${m#*:}" "$tmp/want/${m%%:*}"
done
for m in "${GENERATED[@]}"; do
	mkdir -p "$tmp/want/$(dirname "${m%%:*}")"
	(cd "$tmp/up/kernel-headers" &&
		python3 ../buildlib/make_abi_structs.py "${m#*:}" "$tmp/want/${m%%:*}")
done

if [ $refresh = 1 ]; then
	rm -rf "$HERE/include" "$HERE"/COPYING*
	cp -r "$tmp/want/." "$HERE/"
	echo "refreshed from $src ($TAG)"
fi

# Everything here but xiw's own files must be exactly the expected set.
if diff -r -x README.md -x verify.sh -x xiw-config "$tmp/want" "$HERE"; then
	echo "rdma-core $TAG files: unmodified (${#FILES[@]} copied, ${#GENERATED[@]} generated)"
else
	echo "rdma-core $TAG files differ from $src (above)" >&2
	exit 1
fi
